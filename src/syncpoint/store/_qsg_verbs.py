"""The MQI's verbs on shared queues and shared definitions: put, get, browse, commit, backout, input opens.

Theory of operation
-------------------
Owns: :class:`_Verbs` (a layer of ``PostgresSharedQueues`` over the counts, ``_qsg_counts``): the group's
definitions (``qsg_object``), the messages' puts and gets (plain, by match options, browse with locks and
cursors, an MQGET of many messages in a unit of work claimed with one statement: :meth:`_Verbs.get_ahead`), a
unit of work's one-phase MQCMIT and MQBACK, the input opens that enforce exclusive input across the group
(``qsg_open``), and what triggering reads of them (seed 001).

Each verb is one short transaction on a connection of the member's pool (``_qsg_pool``), never a transaction held
across verbs. A unit of work's puts stay in this object until its commit inserts them, in the commit's one
transaction (nobody may see them before; a member that dies takes them along); its gets claim the first
available row with ``FOR UPDATE SKIP LOCKED`` (``owner, uow, got``), so concurrent getters on any member never wait
for each other. What need not survive the loss of the database (a claim before its commit, a non-persistent
message) is written on connections with ``synchronous_commit = off``; the durable verbs share group transactions
(``_qsg_pool._Group``).

Invariants: a unit of work that holds something in the database is begun first (:meth:`_Session._begin_uow`),
so its end reaches the database; one begun in a session since lost fails at its commit
(:meth:`_Session._check_uow`); one that got nothing from the group and put nothing there costs nothing at its end.
A browse lock is a row held by this session with ``uow`` the lock's (negative) number and ``got`` false: no
other get or browse sees it, its handle does.
"""

from __future__ import annotations

import math
from typing import Any

import psycopg

from ._qsg_counts import _Counts
from ._qsg_expiry import _take_unexpired, _taken
from ._qsg_member import member_lock
from ._qsg_pool import _insert_puts
from ._qsg_schema import _COLUMNS, _row, _values
from ._shared import SharedMatch, SharedMessage

# the packed MQMD version 2 (SharedMessage.md): GroupId at bytes 324-347, MsgSeqNumber at 348-351
_GROUPID = "substring(md from 325 for 24)"
_SEQNO = "substring(md from 349 for 4)"
_INSERT = (
    "INSERT INTO qsg_message (qsg, queue, priority, persistent, msgid, correlid, expiry, put_time, backout, md, "
    "data) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)"
)
_RELEASE = "UPDATE qsg_message SET owner = NULL, uow = NULL, got = false WHERE id = ANY(%s) AND owner = %s"


def _order(match: SharedMatch) -> str:
    """The delivery order of a statement selecting by ``match``. For a selecting handle's matches (``ids``) the
    order is an expression no index gives, so that PostgreSQL finds the few rows by their ids and sorts them,
    rather than walking the queue's index in delivery order until one of them comes."""
    if match.ids is not None:
        return "id + 0" if match.fifo else "priority + 0 DESC, id"
    return "id" if match.fifo else "priority DESC, id"


class _Verbs(_Counts):
    """The MQI's verbs on the group's shared queues and definitions (see the module doc)."""

    # -- definitions -----------------------------------------------------------------------------------
    def definitions(self) -> list[tuple[str, str, str, bytes]]:
        try:
            rows = self._c().execute(
                "SELECT kind, name, disp, definition FROM qsg_object WHERE qsg = %s ORDER BY kind, name", (self.qsg,)
            )
            return [(k, n, d, bytes(b)) for k, n, d, b in rows]
        except psycopg.Error as e:
            raise self._fail(e) from None

    def put_definition(self, kind: str, name: str, disposition: str, definition: bytes, replace: bool) -> bool:
        sql = "INSERT INTO qsg_object VALUES (%s, %s, %s, %s, %s) ON CONFLICT (qsg, kind, name) DO " + (
            "UPDATE SET disp = excluded.disp, definition = excluded.definition" if replace else "NOTHING"
        )
        try:
            return self._c().execute(sql, (self.qsg, kind, name, disposition, definition)).rowcount == 1
        except psycopg.Error as e:
            raise self._fail(e) from None

    def delete_definition(self, kind: str, name: str) -> None:
        try:
            with self._c().transaction():
                self._c().execute(
                    "DELETE FROM qsg_object WHERE qsg = %s AND kind = %s AND name = %s", (self.qsg, kind, name)
                )
        except psycopg.Error as e:
            raise self._fail(e) from None

    # -- messages --------------------------------------------------------------------------------------
    def put(self, message: SharedMessage, uow: int | None) -> int:
        """A put in a unit of work is kept here until its commit inserts it (nobody may see it before, and a
        member that dies takes it along: its uncommitted puts vanish); outside one it is inserted at once,
        durably for a persistent message. Returns the message's id (0 while it waits for its commit)."""
        if uow is not None:
            self._begin_uow(uow, rows=False)
            if self._put_ids:
                message.id = self._put_ids.pop((uow, message.queue), 0)
            self._pending.setdefault(uow, []).append(message)
            return 0
        values = _values(self.qsg, message)
        if message.persistent:
            row = self._group.run(lambda conn: conn.execute(_INSERT + " RETURNING id", values).fetchone(), True)
        else:
            with self._use(fast=True) as conn:
                row = conn.execute(_INSERT + " RETURNING id", values).fetchone()
        assert row is not None
        ident: int = row[0]
        self._seen_id(ident)
        return ident

    def get(
        self,
        queue: str,
        uow: int | None,
        msgid: bytes | None,
        correlid: bytes | None,
        claim_only: bool,
        now: float | None = None,
    ) -> SharedMessage | None:
        if uow is not None and msgid is None and correlid is None:
            ahead = self._ahead.get(uow)
            if ahead is not None and ahead[0] == queue:
                return self.take_ahead(uow, queue) or self._get_ahead(uow, ahead)
        where = "qsg = %s AND queue = %s AND owner IS NULL"
        args: list[Any] = [self.qsg, queue]
        if msgid is not None:
            where += " AND msgid = %s"
            args.append(msgid)
        if correlid is not None:
            where += " AND correlid = %s"
            args.append(correlid)
        if uow is None and not claim_only:
            return self._take(where, "priority DESC, id", args, now)
        pick = f"(SELECT id FROM qsg_message WHERE {where} ORDER BY priority DESC, id LIMIT 1 FOR UPDATE SKIP LOCKED)"
        sql = f"UPDATE qsg_message SET owner = %s, uow = %s, got = true WHERE id = {pick} RETURNING {_COLUMNS}"
        epoch = self._epoch
        with self._use(fast=True) as conn:  # binary: the message's bytea comes as it is, not as hex to decode
            r = conn.execute(sql, [self.owner, 0 if uow is None else uow, *args], binary=True).fetchone()
        if r is None:
            return None
        if uow is not None:  # the unit of work holds a row from here (of the session it was claimed in)
            self._begin_uow(uow, epoch)
        return _row(r)

    def _take(self, where: str, order: str, args: list[Any], now: float | None) -> SharedMessage | None:
        """A get out of syncpoint (:meth:`get`, :meth:`select`): the first message ``where`` selects in ``order``
        deleted — or, expired at ``now`` (engine time; None: nothing has expired), claimed instead and returned with
        ``expired`` set (seed 002, :func:`_take_unexpired`). Durable: with the member's other durable verbs
        (_Group); binary: the message's bytea comes as it is, not as hex to decode."""
        sql = _take_unexpired(where, order)
        targs = [-math.inf if now is None else now, *args, self.owner]
        r = self._group.run(lambda conn: conn.execute(sql, targs, binary=True).fetchone(), True)
        return None if r is None else _taken(r)

    # -- MQGET of many messages in a unit of work: one claim for them all ----------------------------------------
    def get_ahead(self, uow: int, queue: str, count: int) -> None:
        """The next ``count`` plain gets of ``uow`` from ``queue`` claim their messages with one statement (the
        first of them claims up to ``count``); 0: the messages claimed and not got are released as they were
        (no BackoutCount + 1: no application saw them)."""
        if count > 1:
            self._ahead[uow] = [queue, count, []]
            return
        ahead = self._ahead.pop(uow, None)
        if ahead is not None and ahead[2]:
            with self._use(fast=True) as conn:
                conn.execute(_RELEASE, ([m.id for m in ahead[2]], self.owner))

    def take_ahead(self, uow: int, queue: str) -> SharedMessage | None:
        """The next message ``uow`` claimed ahead from ``queue``, without a statement; None when there is none
        (then :meth:`get` claims)."""
        ahead = self._ahead.get(uow)
        if ahead is None or ahead[0] != queue or not ahead[2]:
            return None
        ahead[1] -= 1
        m: SharedMessage = ahead[2].pop()
        return m

    def _get_ahead(self, uow: int, ahead: list[Any]) -> SharedMessage | None:
        claimed: list[SharedMessage] = ahead[2]
        if not claimed and ahead[1] > 0:  # claim, in one statement, as many as the gets still to come
            epoch = self._epoch
            sql = (
                f"UPDATE qsg_message SET owner = %s, uow = %s, got = true WHERE id IN (SELECT id FROM qsg_message "
                "WHERE qsg = %s AND queue = %s AND owner IS NULL ORDER BY priority DESC, id LIMIT %s "
                f"FOR UPDATE SKIP LOCKED) RETURNING {_COLUMNS}"
            )
            with self._use(fast=True) as conn:
                # binary: the messages' bytea come as they are, not as hex to decode
                rows = conn.execute(sql, (self.owner, uow, self.qsg, ahead[0], ahead[1]), binary=True).fetchall()
            if rows:
                self._begin_uow(uow, epoch)
            claimed.extend(sorted((_row(r) for r in rows), key=lambda m: (-m.priority, m.id), reverse=True))
            if not claimed:
                ahead[1] = 0  # the queue is empty: the next gets look again one by one
                return None
        if not claimed:
            return None
        ahead[1] -= 1
        return claimed.pop()

    def _release_ahead(self, conn: psycopg.Connection[Any], uow: int) -> None:
        """In the transaction that ends ``uow``: what it claimed ahead and did not get is released as it was."""
        ahead = self._ahead.pop(uow, None)
        if ahead is not None and ahead[2]:
            conn.execute(_RELEASE, ([m.id for m in ahead[2]], self.owner))

    def finish_claim(self, message_id: int, take: bool, uow: int | None) -> None:
        args: tuple[Any, ...] = (message_id, self.owner)
        if not take:  # released as it was (no BackoutCount + 1): a claim, or a get of unit of work ``uow``
            with self._use(fast=True) as conn:
                conn.execute(
                    "UPDATE qsg_message SET owner = NULL, uow = NULL, got = false WHERE id = %s AND owner = %s "
                    "AND uow = %s AND got",
                    (*args, 0 if uow is None else uow),
                )
            return
        if uow is None:
            sql = "DELETE FROM qsg_message WHERE id = %s AND owner = %s AND uow = 0"
        else:
            self._begin_uow(uow)
            sql = "UPDATE qsg_message SET uow = %s WHERE id = %s AND owner = %s AND uow = 0"
            args = (uow, *args)
        self._group.run(lambda conn: conn.execute(sql, args), True)

    def commit(self, uow: int) -> list[str]:
        """One durable transaction, the unit of work's one PostgreSQL commit: its puts inserted (one COPY), its
        gets deleted. A unit of work that got nothing from the group and put nothing there costs nothing."""
        holds = uow in self._uow_epoch  # every statement that makes it hold a row begins it (_begin_uow)
        got = uow in self._holds_rows
        self._check_uow(uow)
        self._holds_rows.discard(uow)
        puts = self._pending.pop(uow, [])
        if not holds:
            self._ahead.pop(uow, None)
            return []
        owner = self.owner
        ahead = self._ahead.pop(uow, None)
        released = [m.id for m in ahead[2]] if ahead is not None else []
        published = self._end_counts(uow)

        def commit(conn: psycopg.Connection[Any]) -> None:
            if released:  # claimed ahead and not got: available again as they were
                conn.execute(_RELEASE, (released, owner))
            if puts:
                _insert_puts(conn, self.qsg, puts, None, None)
            if got:  # its gets (a unit of work that only put holds no row: nothing to delete)
                conn.execute("DELETE FROM qsg_message WHERE owner = %s AND uow = %s", (owner, uow))
            if published:  # its uncommitted puts stop counting towards MAXDEPTH (qsg_uncommitted)
                conn.execute("DELETE FROM qsg_uncommitted WHERE owner = %s AND uow = %s", (owner, uow))

        # with the member's other durable verbs: one PostgreSQL commit for them all; one statement alone needs no
        # BEGIN and COMMIT (a producer's MQCMIT: its puts' COPY)
        copies = len({bool(m.id) for m in puts})  # _insert_puts: one COPY for each kind of id
        self._group.run(commit, bool(released) + copies + got + published == 1)
        return sorted({m.queue for m in puts})

    # -- input opens, group-wide -------------------------------------------------------------------------
    def open_input(self, queue: str, exclusive: bool) -> bool:
        """This member's first input open of a shared queue: False (nothing recorded) when another member has
        it open for exclusive input, or, for an exclusive open, for any input."""
        conn = self._c()
        try:
            with conn.transaction():
                conn.execute("SELECT pg_advisory_xact_lock(%s, %s)", member_lock(self.qsg, "open " + queue))
                others = conn.execute(
                    "SELECT bool_or(exclusive), count(*) FROM qsg_open WHERE qsg = %s AND queue = %s AND owner <> %s",
                    (self.qsg, queue, self.owner),
                ).fetchone()
                assert others is not None
                if others[0] or (exclusive and others[1]):
                    return False
                conn.execute(
                    "INSERT INTO qsg_open VALUES (%s, %s, %s, %s) ON CONFLICT (qsg, queue, owner) "
                    "DO UPDATE SET exclusive = excluded.exclusive",
                    (self.qsg, queue, self.owner, exclusive),
                )
        except psycopg.Error as e:
            raise self._fail(e) from None
        return True

    def close_input(self, queue: str) -> None:
        """This member's last input handle of a shared queue was closed."""
        try:
            self._c().execute(
                "DELETE FROM qsg_open WHERE qsg = %s AND queue = %s AND owner = %s", (self.qsg, queue, self.owner)
            )
        except psycopg.Error as e:
            raise self._fail(e) from None

    def backout(self, uow: int) -> list[str]:
        self._pending.pop(uow, None)  # its puts were never inserted
        self._holds_rows.discard(uow)
        if uow not in self._uow_epoch or self._uow_epoch.pop(uow) != self._epoch:
            self._ahead.pop(uow, None)
            self._forget_lost(uow)
            return []  # holds nothing, or of a lost session: backed out when the new session began
        owner = self.owner
        ahead = self._ahead.pop(uow, None)
        released = [m.id for m in ahead[2]] if ahead is not None else []
        published = self._end_counts(uow)

        def backout(conn: psycopg.Connection[Any]) -> list[Any]:
            if released:  # claimed ahead and not got: available again as they were (no BackoutCount + 1)
                conn.execute(_RELEASE, (released, owner))
            if published:  # its uncommitted puts stop counting towards MAXDEPTH (qsg_uncommitted)
                conn.execute("DELETE FROM qsg_uncommitted WHERE owner = %s AND uow = %s", (owner, uow))
            return conn.execute(
                "UPDATE qsg_message SET owner = NULL, uow = NULL, got = false, backout = backout + 1 "
                "WHERE owner = %s AND uow = %s RETURNING queue",
                (owner, uow),
            ).fetchall()

        rows = self._group.run(backout)
        return sorted({r[0] for r in rows})

    def clear(self, queue: str) -> int:
        try:
            return (
                self._c()
                .execute("DELETE FROM qsg_message WHERE qsg = %s AND queue = %s AND owner IS NULL", (self.qsg, queue))
                .rowcount
            )
        except psycopg.Error as e:
            raise self._fail(e) from None

    # -- the MQI rules beyond the plain get: browse, cursor, lock, match options, MAXDEPTH -----------------
    # A browse lock is the row held by this session with ``uow`` the lock's (negative) number and ``got``
    # false: no other get or browse sees it (they want ``owner IS NULL``), its handle does (_AVAILABLE_TO).
    # SharedQueues.select's signature (store/_shared.py), restated as an implementation must restate it
    def select(
        self,
        queue: str,
        match: SharedMatch,
        lock: int | None,
        take: bool,
        uow: int | None,
        claim_only: bool,
        hold: bool = False,
        now: float | None = None,
    ) -> SharedMessage | None:
        where, args = self._where(queue, match, lock)
        order = _order(match)
        pick = f"SELECT id FROM qsg_message WHERE {where} ORDER BY {order} LIMIT 1"
        r: Any
        if take:
            if uow is None and not claim_only:
                return self._take(where, order, args, now)
            epoch = self._epoch
            pick += " FOR UPDATE SKIP LOCKED"
            sql = f"UPDATE qsg_message SET owner = %s, uow = %s, got = true WHERE id = ({pick}) RETURNING {_COLUMNS}"
            with self._use(fast=True) as conn:
                r = conn.execute(sql, [self.owner, 0 if uow is None else uow, *args]).fetchone()
            if r is not None and uow is not None:  # the unit of work holds a row from here (see get)
                self._begin_uow(uow, epoch)
        elif not hold or lock is None:
            sql = f"SELECT {_COLUMNS} FROM qsg_message WHERE {where} ORDER BY {order} LIMIT 1"
            with self._use(fast=True) as conn:
                r = conn.execute(sql, args).fetchone()
        else:
            with self._use(fast=True) as conn, conn.transaction():
                sql = (
                    f"UPDATE qsg_message SET owner = %s, uow = %s WHERE id = ({pick} FOR UPDATE SKIP LOCKED) "
                    f"RETURNING {_COLUMNS}"
                )
                r = conn.execute(sql, [self.owner, lock, *args]).fetchone()
                if r is not None:  # the handle's previous lock ends (one locked message a handle)
                    conn.execute(
                        "UPDATE qsg_message SET owner = NULL, uow = NULL "
                        "WHERE owner = %s AND uow = %s AND NOT got AND id <> %s",
                        (self.owner, lock, r[0]),
                    )
        return None if r is None else _row(r)

    def _where(self, queue: str, match: SharedMatch, lock: int | None) -> tuple[str, list[Any]]:
        where = "qsg = %s AND queue = %s AND "
        args: list[Any] = [self.qsg, queue]
        if lock is None:
            where += "owner IS NULL"
        else:
            where += "(owner IS NULL OR (owner = %s AND uow = %s AND NOT got))"
            args += [self.owner, lock]
        for column, value in (
            ("msgid", match.msgid),
            ("correlid", match.correlid),
            (_GROUPID, match.groupid),
            (_SEQNO, match.seqno),
            ("id", match.token),
            ("id", match.message_id),
        ):
            if value is not None:
                where += f" AND {column} = %s"
                args.append(value)
        if match.ids is not None:  # a selecting handle's matches (``_qsg_select``)
            where += " AND id = ANY(%s)"
            args.append(list(match.ids))
        if match.after is not None:
            priority, ident = match.after
            if match.fifo:
                where += " AND id > %s"
                args.append(ident)
            else:
                where += " AND (priority < %s OR (priority = %s AND id > %s))"
                args += [priority, priority, ident]
        return where, args

    def unlock(self, lock: int) -> bool:
        with self._use(fast=True) as conn:
            return (
                conn.execute(
                    "UPDATE qsg_message SET owner = NULL, uow = NULL WHERE owner = %s AND uow = %s AND NOT got",
                    (self.owner, lock),
                ).rowcount
                > 0
            )

    def move_get(self, message_id: int, from_uow: int, to_uow: int) -> None:
        # the new unit of work holds the row from here: its MQCMIT/MQBACK must reach the database (_begin_uow)
        self._begin_uow(to_uow, self._uow_epoch.get(from_uow, self._epoch))
        with self._use(fast=True) as conn:
            conn.execute(
                "UPDATE qsg_message SET uow = %s WHERE id = %s AND owner = %s AND uow = %s",
                (to_uow, message_id, self.owner, from_uow),
            )

    def uncommitted(self, queue: str) -> int:
        """UNCOM: this member's puts and gets on ``queue`` in units of work not yet ended."""
        puts = sum(1 for pending in list(self._pending.values()) for m in list(pending) if m.queue == queue)
        with self._use(fast=True) as conn:
            row = conn.execute(
                "SELECT count(*) FROM qsg_message WHERE qsg = %s AND queue = %s AND owner = %s AND got AND uow > 0",
                (self.qsg, queue, self.owner),
            ).fetchone()
        return puts + (int(row[0]) if row else 0)

    def available(self, queue: str, fifo: bool) -> list[SharedMessage]:
        """The available messages of ``queue`` in delivery order (neither held by a unit of work nor locked)."""
        order = "id" if fifo else "priority DESC, id"
        with self._use(fast=True) as conn:
            rows = conn.execute(
                f"SELECT {_COLUMNS} FROM qsg_message WHERE qsg = %s AND queue = %s AND owner IS NULL ORDER BY {order}",
                (self.qsg, queue),
            ).fetchall()
        return [_row(r) for r in rows]

    # == seed 001 on shared queues: the group's trigger state ==================================================
    # (docs/queue-sharing-groups.md, "Triggering on shared queues"; engine/_shared_rules)
    def input_opens(self, queue: str) -> tuple[bool, int]:
        """Seed 001, condition 4, notes a and b: whether any member of the group has ``queue`` open for exclusive
        input, and how many *other* members have it open for shared input."""
        try:
            row = (
                self._c()
                .execute(
                    "SELECT coalesce(bool_or(exclusive), false), count(*) FILTER (WHERE owner <> %s AND NOT exclusive) "
                    "FROM qsg_open WHERE qsg = %s AND queue = %s",
                    (self.owner, self.qsg, queue),
                )
                .fetchone()
            )
        except psycopg.Error as e:
            raise self._fail(e) from None
        return (bool(row[0]), int(row[1])) if row else (False, 0)

    def trigger_counts(self, queue: str, min_priority: int, after: int) -> tuple[int, int, int]:
        """Seed 001, condition 3, note b: on a shared queue committed messages only count. Returns how many
        committed messages of priority ``min_priority`` or above ``queue`` holds, how many of those have an id
        above ``after`` (arrived since a look that saw ids up to ``after``), and the highest committed id.

        Committed: not a put held by a unit of work (prepared or in doubt); a message got in a unit of work that
        has not ended is still on the queue."""
        try:
            row = (
                self._c()
                .execute(
                    "SELECT count(*) FILTER (WHERE priority >= %s), "
                    "count(*) FILTER (WHERE priority >= %s AND id > %s), coalesce(max(id), 0) "
                    "FROM qsg_message WHERE qsg = %s AND queue = %s AND (owner IS NULL OR got)",
                    (min_priority, min_priority, after, self.qsg, queue),
                )
                .fetchone()
            )
        except psycopg.Error as e:
            raise self._fail(e) from None
        return (int(row[0]), int(row[1]), int(row[2])) if row else (0, 0, 0)
