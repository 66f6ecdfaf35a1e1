"""What a selecting handle reads of a shared queue: its messages judged once each, new ones found by their arrival.

Theory of operation
-------------------
Owns: :class:`_Selecting` (a layer of ``PostgresSharedQueues`` over the verbs): the reads behind an MQOPEN with a
SelectionString on a shared queue (``engine/_shared_select``). The engine judges the selector (the store cannot:
it holds properties packed after the MQMD and in MQRFH2 headers of the data); the store only hands each message to
a handle once, and then takes or browses the handle's matches by their ids (``SharedMatch.ids``).

A handle's first look reads the queue's rows in pages by id (every row, whoever holds it: a message got in
another unit of work may come back by its backout, and the handle must have judged it). With the first page it
is given the statement's snapshot (``pg_current_snapshot()``). Every later look reads only the rows whose
inserting transaction (``qsg_message.arrived``, an ``xid8`` filled by the column's default) that snapshot did not
see, and is given the new snapshot: rows committed since, from any member, whatever their id — a put in syncpoint
keeps the id it took at its put (its place in FIFO order, ``_qsg_counts``) and may be committed long after rows
with higher ids. The index ``qsg_message_arrived (qsg, queue, arrived)`` reads them without reading the queue.

Invariants: a row visible in the snapshot a handle holds was judged by it (a page of its first look, or a later
look); any other row is read by its next look. Rows of a database made before ``arrived`` existed have it NULL:
only a first look reads them (they were committed before any snapshot a handle holds).
"""

from __future__ import annotations

from typing import Any

from ._qsg_schema import _COLUMNS, _row
from ._qsg_verbs import _order, _Verbs
from ._shared import SharedMatch, SharedMessage


class _Selecting(_Verbs):
    """The store's side of selecting handles on shared queues (see the module doc)."""

    def arrivals(self, queue: str, since: str | None, after: int, limit: int) -> tuple[list[SharedMessage], str]:
        """Rows of ``queue`` for a selecting handle to judge, and the snapshot to give the next call. ``since``
        None: a page of the first look, up to ``limit`` rows with ids above ``after`` in id order (the snapshot
        returned is this page's: the first page's is the one to keep). Else every row whose inserting
        transaction the snapshot ``since`` did not see."""
        with self._use(fast=True) as conn:
            if since is None:
                sql = (
                    f"SELECT pg_current_snapshot()::text, {_COLUMNS} FROM (SELECT 1) AS one LEFT JOIN LATERAL "
                    f"(SELECT {_COLUMNS} FROM qsg_message WHERE qsg = %s AND queue = %s AND id > %s "
                    "ORDER BY id LIMIT %s) AS m ON true"
                )
                rows = conn.execute(sql, (self.qsg, queue, after, limit), binary=True).fetchall()
            else:
                sql = (
                    f"SELECT pg_current_snapshot()::text, {_COLUMNS} FROM (SELECT 1) AS one LEFT JOIN LATERAL "
                    f"(SELECT {_COLUMNS} FROM qsg_message WHERE qsg = %s AND queue = %s "
                    "AND arrived >= pg_snapshot_xmin(%s::pg_snapshot) "
                    "AND NOT pg_visible_in_snapshot(arrived, %s::pg_snapshot) ORDER BY id) AS m ON true"
                )
                rows = conn.execute(sql, (self.qsg, queue, since, since), binary=True).fetchall()
        snapshot = str(rows[0][0]) if rows else since or ""
        return [_row(r[1:]) for r in rows if r[1] is not None], snapshot

    def existing(self, queue: str, ids: list[int]) -> set[int]:
        """Which of ``ids`` are still messages of ``queue`` (held or not): a handle forgets the others."""
        with self._use(fast=True) as conn:
            rows = conn.execute(
                "SELECT id FROM qsg_message WHERE id = ANY(%s) AND qsg = %s AND queue = %s", (ids, self.qsg, queue)
            ).fetchall()
        return {int(r[0]) for r in rows}

    def page(self, queue: str, match: SharedMatch, lock: int | None, limit: int) -> list[SharedMessage]:
        """Up to ``limit`` messages ``match`` selects that are available to the handle whose browse lock is
        ``lock``, in delivery order, browsed (a selector over fields that change while a message waits is judged
        afresh on every walk: ``engine/_shared_select``)."""
        where, args = self._where(queue, match, lock)
        order = _order(match)
        sql = f"SELECT {_COLUMNS} FROM qsg_message WHERE {where} ORDER BY {order} LIMIT %s"
        with self._use(fast=True) as conn:
            rows: list[Any] = conn.execute(sql, [*args, limit], binary=True).fetchall()
        return [_row(r) for r in rows]
