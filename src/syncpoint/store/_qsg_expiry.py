"""Seed 002 on shared queues: the group's expiry scan, and the gets that meet an expired message.

Theory of operation
-------------------
Owns: the scanner election (:meth:`_Expiry.lead_expiry_scan`: one member of the group holds the scan lock, a
PostgreSQL advisory lock of its session, and its name is kept in ``qsg_scanner``), the scan's claim of expired
messages (:meth:`_Expiry.expire`, ``_EXPIRE_CLAIM``, served by the partial index ``qsg_message_expiry`` that
``_qsg_schema`` builds), and the statement of a get out of syncpoint that claims instead of deleting a message it
finds expired (:func:`_take_unexpired`, used by ``_qsg_verbs``). docs/queue-sharing-groups.md, "Expiry on shared
queues".

Invariants: an expired message is claimed by one member only (rows held by a unit of work, and rows another
statement is claiming, are skipped), so it is reported once; its discard and its expiration report are in one
unit of work of the engine (committed by ``_qsg_verbs`` or, with a report on a private queue, two-phase by
``_qsg_indoubt``), so a scanner that dies before its commit leaves the messages to peer recovery
(``_qsg_member``), which reinstates them for the next scan. The scan lock ends with the scanner's session (its
connections close, also when it is killed), and the next member to ask takes it over.
"""

from __future__ import annotations

from typing import Any

import psycopg

from ._base import StoreError
from ._qsg_member import _crash_point, _Session, member_lock
from ._qsg_schema import _COLUMNS, _EXPIRES, _SCANNER_SCHEMA, _SCHEMA_LOCK, _row
from ._shared import SharedMessage

# seed 002: the scan's claim of expired messages (``expire``); the partial index ``qsg_message_expiry`` serves it
_EXPIRE_CLAIM = (
    "UPDATE qsg_message SET owner = %s, uow = %s, got = true WHERE id IN (SELECT id FROM qsg_message WHERE qsg = %s "
    f"AND owner IS NULL AND expiry <> -1 AND {_EXPIRES} <= %s LIMIT %s FOR UPDATE SKIP LOCKED) "
    f"RETURNING {_COLUMNS}"
)
# seed 002: an expired message a get or browse met, claimed by id for the engine's unit of work that discards
# and reports it (``expire``): available (``owner IS NULL``) or held by this session in the get's unit of work,
# its claim (0) or the handle's browse lock
_EXPIRE_MET = (
    "UPDATE qsg_message SET owner = %s, uow = %s, got = true WHERE id = %s AND {} AND expiry <> -1 "
    f"RETURNING {_COLUMNS}"
)


def _take_unexpired(where: str, order: str) -> str:
    """Seed 002: the statement of a get out of syncpoint that deletes the first message ``where`` selects in
    ``order`` — unless it has expired: that one the same statement claims (held by this session's unit of work 0,
    as a claim) instead, and returns with ``expired`` true, for the engine to discard and report in a unit of work
    of its own (:meth:`PostgresSharedQueues.expire`), so that no crash can part the discard from the report. One
    statement either way (the get costs no round trip more). Parameters: now, ``where``'s, the owner."""
    return (
        f"WITH p AS (SELECT id, expiry <> -1 AND {_EXPIRES} <= %s AS expired FROM qsg_message WHERE {where} "
        f"ORDER BY {order} LIMIT 1 FOR UPDATE SKIP LOCKED), "
        f"d AS (DELETE FROM qsg_message WHERE id = (SELECT id FROM p WHERE NOT expired) RETURNING {_COLUMNS}), "
        "c AS (UPDATE qsg_message SET owner = %s, uow = 0, got = true WHERE id = (SELECT id FROM p WHERE expired) "
        f"RETURNING {_COLUMNS}) SELECT *, false FROM d UNION ALL SELECT *, true FROM c"
    )


def _taken(r: tuple[Any, ...]) -> SharedMessage:
    """A row of :func:`_take_unexpired`: deleted, or claimed because it expired (``expired``)."""
    m = _row(r)
    m.expired = r[11]
    return m


class _Expiry(_Session):
    """The group's expiry scan, as this member takes part in it (see the module doc)."""

    def __init__(self, url: str, qsg: str, member: str) -> None:
        super().__init__(url, qsg, member)
        self._scan_lock_conn: psycopg.Connection[Any] | None = None  # the connection holding the scan lock

    def lead_expiry_scan(self) -> bool:
        """Seed 002: whether this member is the one of its group that scans the shared queues for expired
        messages. The scanner holds the group's scan lock, a PostgreSQL advisory lock of its session: the first
        member to ask takes it; it is released when the member ends (its connections close, also when the
        process is killed), and the next member to ask then takes it over. The holder's name is kept in
        ``qsg_scanner`` for DISPLAY and for the operator."""
        conn = self._c()
        if self._scan_lock_conn is conn and not conn.closed:
            return True
        try:
            got = conn.execute("SELECT pg_try_advisory_lock(%s, %s)", member_lock(self.qsg, " expiry scan")).fetchone()
            if not got or not got[0]:
                return False
            with conn.transaction():
                conn.execute("SELECT pg_advisory_xact_lock(%s)", (_SCHEMA_LOCK,))
                conn.execute(_SCANNER_SCHEMA)
                conn.execute(
                    "INSERT INTO qsg_scanner VALUES (%s, %s, now()) ON CONFLICT (qsg) "
                    "DO UPDATE SET member = excluded.member, since = excluded.since",
                    (self.qsg, self.member),
                )
        except psycopg.Error as e:
            raise self._fail(e) from None
        self._scan_lock_conn = conn
        return True

    def release_expiry_scan(self) -> None:
        """Seed 002: this member no longer scans (its EXPRYINT was turned off): free the scan lock for another."""
        conn = self._scan_lock_conn
        self._scan_lock_conn = None
        if conn is None or conn is not self._conn or conn.closed:
            return  # a session since lost released it with its end
        try:
            conn.execute("SELECT pg_advisory_unlock(%s, %s)", member_lock(self.qsg, " expiry scan"))
        except psycopg.Error as e:
            raise self._fail(e) from None

    def scanner(self) -> str | None:
        """The member that last took the group's expiry scan (None before any did)."""
        try:
            with self._c().transaction():
                self._c().execute("SELECT pg_advisory_xact_lock(%s)", (_SCHEMA_LOCK,))
                self._c().execute(_SCANNER_SCHEMA)
                row = self._c().execute("SELECT member FROM qsg_scanner WHERE qsg = %s", (self.qsg,)).fetchone()
        except psycopg.Error as e:
            raise self._fail(e) from None
        return None if row is None else str(row[0])

    def expire(
        self, now: float, uow: int, limit: int, message_id: int | None = None, held: int | None = None
    ) -> list[SharedMessage]:
        """Seed 002, the periodic scan: claim for unit of work ``uow`` (as its gets: ``owner``, ``uow``, ``got``)
        up to ``limit`` of the group's available messages whose Expiry has passed at ``now`` (engine time,
        seconds) and return them, for their expiration reports. The engine puts the reports in the same unit of
        work and commits it (:meth:`commit`; with a report on a private queue, two-phase: :meth:`prepare`), so
        the messages' discard and their reports happen together or not at all: a scanner that dies before its
        commit leaves the messages to peer recovery, which reinstates them for the next scan (docs/
        queue-sharing-groups.md, "Expiry on shared queues"). A message is claimed by one member only (rows held
        by a unit of work are skipped, and so are rows a get is claiming), so it is reported once.

        ``message_id``: the expired message a get or browse met (the engine tested its Expiry), moved from this
        session's unit of work, claim or browse lock ``held`` — or, None, taken while still available — to
        ``uow``: the same unit of work's discard and report as the scan's, for the message the get would have
        returned (a get that meets it claims it first, so a crash before this leaves it to peer recovery)."""
        self._begin_uow(uow)
        args: tuple[Any, ...]
        if message_id is None:
            sql, args = _EXPIRE_CLAIM, (self.owner, uow, self.qsg, now, limit)
        elif held is None:
            sql, args = _EXPIRE_MET.format("owner IS NULL"), (self.owner, uow, message_id)
        else:
            sql = _EXPIRE_MET.format("owner = %s AND uow = %s")
            args = (self.owner, uow, message_id, self.owner, held)
        try:
            with self._use(fast=True) as conn:  # a claim need not be durable: a crash backs it out
                rows = conn.execute(sql, args).fetchall()
        except StoreError:
            self._forget_uow(uow)
            raise
        if not rows:
            self._forget_uow(uow)  # it holds nothing: its end reaches no database
            return []
        _crash_point("expiry-claimed")
        return [_row(r) for r in rows]
