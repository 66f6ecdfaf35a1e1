"""Queue-sharing groups in the engine: the MQI verbs on shared queues.

References: reference/queue-sharing-groups.md ("What is shared", "Units of work and recovery"); docs/
queue-sharing-groups.md (the design).

Theory of operation
-------------------
A member of a queue-sharing group is given a :class:`~syncpoint.store.SharedQueues` (``self.shared``; None for
a queue manager in no group). The group's definitions, and the :class:`SharedQueue` each QSGDISP(SHARED) queue
becomes in this member (a ``LocalQueue`` whose messages are in the shared store), are ``_shared_defs``.

The verbs on a shared queue are the hooks of ``_put``, ``_get`` and ``_connections``: each turns into one call of
the shared store (an INSERT, a claim, a commit or a backout of the unit of work's rows). A unit of work's shared
part has a number (``_shared_uows``: Hconn -> number), unique within this member's session of the group. A unit
of work holding private and shared messages commits in two phases (:meth:`SharedMixin._shared_end`).

The MQI rules of MQGET are the private queue's own code (``_get.match_criteria``, ``_get.deliver``, the handle's
cursor and lock, ``_skip_backout``'s mark) applied to a transient ``Message`` standing for the row the store found:
browse, the browse cursor, MQGMO_LOCK / UNLOCK (a lock is the row held by the handle's session), all match
options, MARK_SKIP_BACKOUT, expiry with its report. MAXDEPTH counts every member's uncommitted puts
(:meth:`SharedMixin._shared_room`). IBM's INDXTYPE rules for gets by CorrelId and MsgId apply
(:func:`check_index_type`).
Triggering and expiry on shared queues (seeds 001 and 002): ``_shared_rules``.
"""

from __future__ import annotations

from typing import cast

from syncpoint.mqi import MQGMO, MQMD, GetResult
from syncpoint.mqi import constants as C
from syncpoint.store import (
    DECISION_KIND,
    SharedMatch,
    SharedMessage,
    SharedQueues,
    StoreError,
    encode_private_part,
    expired_at,
)

from ._effects import stored_message
from ._get import deliver, match_criteria
from ._put import CONTEXT_IDENTITY, CONTEXT_ORIGIN
from ._shared_defs import (
    SharedDefinitionsMixin,
    group_call,
    unavailable,
)
from ._shared_select import select_selected, shared_message
from ._state import PRIO_SHIFT, Connection, Handle, LocalQueue, Message, UnitOfWork
from ._util import fail

_BROWSE = C.MQGMO_BROWSE_FIRST | C.MQGMO_BROWSE_NEXT | C.MQGMO_BROWSE_MSG_UNDER_CURSOR
_UNDER_CURSOR = C.MQGMO_MSG_UNDER_CURSOR | C.MQGMO_BROWSE_MSG_UNDER_CURSOR
_SEQ_MASK = (1 << PRIO_SHIFT) - 1  # a private queue's key: (9 - priority) << PRIO_SHIFT | put sequence
_SEQNO_AT = 348  # MsgSeqNumber's offset in the packed MQMD version 2
_ID_MATCH = C.MQMO_MATCH_MSG_ID | C.MQMO_MATCH_CORREL_ID
MAXDEPTH_LIMIT = 999_999_999  # MAXDEPTH's largest value
# the gets of a getm that are not claimed ahead (``shared_get_ahead``): each selects its own message
_NOT_AHEAD = (
    _BROWSE
    | _UNDER_CURSOR
    | C.MQGMO_LOCK
    | C.MQGMO_UNLOCK
    | C.MQGMO_MARK_SKIP_BACKOUT
    | C.MQGMO_LOGICAL_ORDER
    | C.MQGMO_ALL_MSGS_AVAILABLE
    | C.MQGMO_COMPLETE_MSG
)


def check_index_type(q: LocalQueue, msgid: bytes | None, correlid: bytes | None) -> None:
    """IBM's INDXTYPE rules for a get from a shared queue (reference/queue-sharing-groups.md: "Getting by
    CorrelId from a shared queue needs INDXTYPE(CORRELID) (else MQRC_CORREL_ID_ERROR 2207); by MsgId,
    INDXTYPE(MSGID) or NONE")."""
    index = q.attrs.get("INDXTYPE", C.MQIT_NONE)
    if correlid is not None and index != C.MQIT_CORREL_ID:
        raise fail(C.MQRC_CORREL_ID_ERROR, f"a get by CorrelId from shared queue {q.name} needs INDXTYPE(CORRELID)")
    if msgid is not None and index not in (C.MQIT_MSG_ID, C.MQIT_NONE):
        raise fail(C.MQRC_MSG_ID_ERROR, f"a get by MsgId from shared queue {q.name} needs INDXTYPE(MSGID) or NONE")


def _seqno_bytes(seqno: int) -> bytes:
    """MsgSeqNumber as the packed MQMD holds it (the store compares it with the row's MQMD)."""
    return MQMD(MsgSeqNumber=seqno).pack()[_SEQNO_AT : _SEQNO_AT + 4]


class SharedMixin(SharedDefinitionsMixin):
    """The hooks of the MQI verbs for queue-sharing groups (the definitions: ``_shared_defs``)."""

    # -- MQOPEN / MQCLOSE: input opens are the group's ---------------------------------------------------
    @group_call
    def _shared_open_input(self, q: LocalQueue, mode: int) -> None:
        """This member's first input open of a shared queue: refused (MQRC_OBJECT_IN_USE) while another member
        holds it for exclusive input, or, for an exclusive open, for any input (IBM: exclusivity is the group's)."""
        assert self.shared is not None
        if not self.shared.open_input(q.name, mode == C.MQOO_INPUT_EXCLUSIVE):
            raise fail(C.MQRC_OBJECT_IN_USE, f"shared queue {q.name} is open for input on another queue manager")

    def _shared_close_input(self, q: LocalQueue) -> None:
        assert self.shared is not None
        try:
            self.shared.close_input(q.name)
        except StoreError:
            pass  # the session is lost: its opens ended with it

    # -- MQPUT -----------------------------------------------------------------------------------------
    @group_call
    def _shared_put(self, conn: Connection, q: LocalQueue, m: Message, syncpoint: int) -> None:
        shared = self.shared
        assert shared is not None
        message = SharedMessage(
            0,
            q.name,
            m.priority,
            m.persistent,
            stored_message(m).md,
            m.data,
            m.msgid,
            m.correlid,
            m.expiry,
            m.put_time,
        )
        q.last_put = m.put_time
        if syncpoint:
            shared.put(message, self._shared_uow(conn))
        else:
            self._io(shared.put, message, None)
            self._wake.add(q.name)
            shared.notify([q.name])

    def _shared_uow(self, conn: Connection) -> int:
        """The number of the connection's unit of work's shared part (begun by its first shared verb)."""
        uid = self._shared_uows.get(conn.hconn)
        if uid is None:
            uid = self._shared_uows[conn.hconn] = self._next_shared_uow
            self._next_shared_uow = uid + 1
        return uid

    # -- MQGET -----------------------------------------------------------------------------------------
    # The rules are the private queue's (``_get``): the options were checked by MQGET before it came here
    # (``_options.check_get_options``), the match criteria are ``_get.match_criteria``'s, the MQMD, MQGMO and
    # buffer are filled by ``_get.deliver`` and the browse cursor and lock kept on the handle as for a private
    # message (``Handle.cursor``/``browse_key``/``locked``, with a transient ``Message`` standing for the row).
    # What differs is where the message is: found, claimed, browsed and locked by the shared store's queries.
    @group_call
    def _shared_get(
        self, conn: Connection, h: Handle, q: LocalQueue, md: MQMD, gmo: MQGMO, buflen: int | None, now: float
    ) -> GetResult:
        shared = self.shared
        assert shared is not None
        opts = gmo.Options
        msgid, correlid, groupid, seqno, token = match_criteria(md, gmo)
        check_index_type(q, msgid, correlid)
        under = opts & _UNDER_CURSOR
        if opts & _BROWSE:
            return self._shared_browse(h, q, md, gmo, buflen, now, (msgid, correlid, groupid, seqno, token))
        sync = opts & (C.MQGMO_SYNCPOINT | C.MQGMO_SYNCPOINT_IF_PERSISTENT)
        uid = None
        if opts & C.MQGMO_SYNCPOINT:
            self._shared_count(conn)
            uid = self._shared_uow(conn)
        may_fail = buflen is not None and not opts & C.MQGMO_ACCEPT_TRUNCATED_MSG
        claim_only = may_fail or bool(sync & C.MQGMO_SYNCPOINT_IF_PERSISTENT)
        plain = not under and groupid is None and seqno is None and token is None and h.locked is None
        plain = plain and h.selection is None  # a selecting handle's gets: ``_shared_select``
        match = None
        if not plain:
            match = self._shared_match(h, q, under, msgid, correlid, groupid, seqno, token, False)
        lock = -h.hobj if h.locked is not None else None  # the handle's own locked message is available to it
        # the row a get takes is held by the unit of work, or by a claim (0); out of syncpoint it is deleted, unless
        # it expired (``SharedMessage.expired``: then the store held it as a claim)
        held = 0 if uid is None else uid
        deletes = uid is None and not claim_only
        while True:
            sm = None
            if match is None and uid is not None and msgid is None and correlid is None:
                sm = shared.take_ahead(uid, q.name)  # claimed ahead (getm): no round trip
            if sm is None and match is None:
                sm = self._io(shared.get, q.name, uid, msgid, correlid, claim_only and uid is None, now)
            elif sm is None and h.selection is not None:
                assert match is not None  # a selecting handle's get is never plain
                sm = select_selected(self._io, shared, h, q, match, lock, True, uid, claim_only, False, now)
            elif sm is None:
                sm = self._io(shared.select, q.name, match, lock, True, uid, claim_only, False, now)
            if sm is None:
                if under:
                    raise fail(C.MQRC_NO_MSG_UNDER_CURSOR, "the browse cursor is not on an available message")
                raise fail(C.MQRC_NO_MSG_AVAILABLE, None)
            if sm.expired if deletes else expired_at(sm, now):
                self._shared_met_expired(h, sm, held, under, now)  # seed 002: the get that would have returned it
                continue
            break
        m = shared_message(q, sm)
        result = deliver(q, m, md, gmo, buflen, opts, now)
        if result.reason == C.MQRC_TRUNCATED_MSG_FAILED:
            # the message stays where it was, also when a unit of work got it (its BackoutCount unchanged)
            self._io(shared.finish_claim, sm.id, False, uid)
            if h.locked is not None and h.locked.seq == sm.id:  # and stays locked by this handle
                shared.select(q.name, SharedMatch(message_id=sm.id), lock, False, None, False, hold=True)
            return result
        in_uow = uid is not None or (bool(sync & C.MQGMO_SYNCPOINT_IF_PERSISTENT) and sm.persistent)
        if uid is None and claim_only:
            self._io(shared.finish_claim, sm.id, True, self._shared_uow(conn) if in_uow else None)
        if in_uow:
            counted = self._shared_uow(conn)
            self._shared_counts[counted] = self._shared_counts.get(counted, 0) + 1
        if h.locked is not None and h.locked.seq == sm.id:  # a get of the locked message ends the lock
            h.locked.locked_by = None
            h.locked = None
        if h.cursor is not None and h.cursor.seq == sm.id:
            h.cursor = None
        q.note_get(now, sm.put_time)
        self.stat_gets += 1
        if self.monitoring_on:
            self.mon_got(conn, q, m, 0, now)  # the MQI counts (``_statistics``; a shared queue has no queue record)
        if h.options & C.MQOO_SAVE_ALL_CONTEXT:
            h.saved_context = {f: md.__dict__[f] for f in CONTEXT_IDENTITY + CONTEXT_ORIGIN}
        if opts & C.MQGMO_MARK_SKIP_BACKOUT:
            self._uow(conn).marked = m  # seed 000: the one get of this unit of work that skips MQBACK
        if m.md["Report"] & C.MQRO_COD:
            self._confirm_on_delivery(m, self._uow(conn) if in_uow else None)  # COD: delivered
        return result

    def _shared_browse(
        self,
        h: Handle,
        q: LocalQueue,
        md: MQMD,
        gmo: MQGMO,
        buflen: int | None,
        now: float,
        criteria: tuple[bytes | None, bytes | None, bytes | None, int | None, int | None],
    ) -> GetResult:
        """MQGMO_BROWSE_FIRST / _NEXT / _MSG_UNDER_CURSOR on a shared queue, with or without MQGMO_LOCK."""
        shared = self.shared
        assert shared is not None
        opts = gmo.Options
        under = opts & C.MQGMO_BROWSE_MSG_UNDER_CURSOR
        match = self._shared_match(h, q, under, *criteria, bool(opts & C.MQGMO_BROWSE_NEXT))
        hold = bool(opts & C.MQGMO_LOCK)
        mine = -h.hobj if hold or h.locked is not None else None
        while True:
            if h.selection is not None:  # a selecting handle's browse: ``_shared_select``
                sm = select_selected(self._io, shared, h, q, match, mine, False, None, False, hold, now)
            else:
                sm = self._io(shared.select, q.name, match, mine, False, None, False, hold)
            if sm is None:
                if under:
                    raise fail(C.MQRC_NO_MSG_UNDER_CURSOR, "the browse cursor is not on an available message")
                raise fail(C.MQRC_NO_MSG_AVAILABLE, None)
            if expired_at(sm, now):
                # seed 002: a browse discards the expired messages it passes (note 6: locked ones too): held by the
                # handle's lock (this browse's MQGMO_LOCK, or the message it had locked), else still available
                locked = hold or (h.locked is not None and h.locked.seq == sm.id)
                self._shared_met_expired(h, sm, mine if locked else None, under, now)
                continue
            break
        m = shared_message(q, sm)
        result = deliver(q, m, md, gmo, buflen, opts, now)
        self._position_cursor(h, m, opts)
        return result

    def _shared_met_expired(self, h: Handle, sm: SharedMessage, held: int | None, under: int, now: float) -> None:
        """Seed 002: a get or browse met the expired message ``sm`` — held by this session in ``held`` (the get's
        unit of work, its claim 0, or the handle's browse lock, negative) or, None, still available. It is
        discarded and its expiration report sent together, in a unit of work of the queue manager's own
        (``_shared_rules._discard_met``, the scan's code): never in the application's (note 4), and once across a
        crash. A browse lock on it ends with it (so does the handle's previous one, which a browse with MQGMO_LOCK
        released); under the cursor: MQRC_NO_MSG_UNDER_CURSOR."""
        released = False
        if h.locked is not None and (h.locked.seq == sm.id or (held is not None and held < 0)):
            released = h.locked.seq != sm.id
            h.locked.locked_by = None
            h.locked = None
        self._discard_met(sm, held, now)
        if released:
            self._shared_woken(sm.queue)
        if under:
            h.cursor = None
            raise fail(C.MQRC_NO_MSG_UNDER_CURSOR, "the message under the browse cursor has expired")

    def _shared_match(
        self,
        h: Handle,
        q: LocalQueue,
        under: int,
        msgid: bytes | None,
        correlid: bytes | None,
        groupid: bytes | None,
        seqno: int | None,
        token: int | None,
        after_cursor: bool,
    ) -> SharedMatch:
        """The store's selection for a get or browse: the match criteria, or the message under the cursor, or
        those after the cursor (browse next: the cursor's place in delivery order, as the private queue's
        ``browse_key``)."""
        fifo = q.fifo
        if under:
            if h.cursor is None:
                raise fail(C.MQRC_NO_MSG_UNDER_CURSOR, "the browse cursor is not on a message")
            return SharedMatch(message_id=h.cursor.seq, fifo=fifo)
        after = None
        if after_cursor and h.browse_key is not None:
            key = h.browse_key
            after = (0, key) if fifo else (9 - (key >> PRIO_SHIFT), key & _SEQ_MASK)
        return SharedMatch(
            msgid, correlid, groupid, None if seqno is None else _seqno_bytes(seqno), token, None, after, fifo
        )

    def _shared_position_cursor(self, h: Handle, m: Message, opts: int) -> None:
        """``_get``'s cursor and lock, for a message of a shared queue (its lock is already the store's)."""
        if opts & (C.MQGMO_BROWSE_FIRST | C.MQGMO_BROWSE_NEXT):
            h.browse_key = m.key
            h.cursor = m
        if opts & C.MQGMO_LOCK:
            old = h.locked
            if old is not None and old.seq != m.seq:
                old.locked_by = None  # the store released it with the new lock
                self._shared_woken(m.queue.name)
            h.locked = m
            m.locked_by = h

    def _shared_unlock(self, h: Handle) -> None:
        """MQGMO_UNLOCK, or MQCLOSE of a handle holding a lock: the group's lock ends (others may get it)."""
        assert self.shared is not None and h.queue is not None
        try:
            self._io(self.shared.unlock, -h.hobj)
        except StoreError as e:
            if h.conn.alive and h.conn.handles.get(h.hobj) is h:
                raise unavailable(e) from None  # MQGMO_UNLOCK: say so; at MQCLOSE the lost session ended it
            return
        self._shared_woken(h.queue.name)

    def _shared_woken(self, name: str) -> None:
        assert self.shared is not None
        self._wake.add(name)
        self.shared.notify([name])

    @group_call
    def _shared_skip_backout(self, conn: Connection) -> int | None:
        """MQBACK of a unit of work whose marked get (MQGMO_MARK_SKIP_BACKOUT, seed 000) is of a shared queue:
        that get moves to a new unit of work before the backout; its number is returned for the connection."""
        uow = conn.uow
        marked = uow.marked if uow is not None else None
        old = self._shared_uows.get(conn.hconn)
        if marked is None or not marked.queue.shared or old is None:
            return None
        assert self.shared is not None
        new = self._next_shared_uow
        self._next_shared_uow = new + 1
        self._io(self.shared.move_get, marked.seq, old, new)
        self._shared_counts[new] = 1
        return new

    @group_call
    def _shared_room(self, conn: Connection, q: LocalQueue, syncpoint: int) -> None:
        """MAXDEPTH of a shared queue: the group's depth, committed, held and uncommitted puts of every member
        (IBM counts a put in a unit of work at once) — MQRC_Q_FULL when the put would pass it; and MAXUMSGS
        of a put in syncpoint."""
        assert self.shared is not None
        maxdepth = q.attrs["MAXDEPTH"]
        uid = None
        if syncpoint:
            self._shared_count(conn)
            uid = self._shared_uow(conn)
        elif maxdepth >= MAXDEPTH_LIMIT:
            return  # the largest MAXDEPTH: a put out of syncpoint is not counted (one round trip less)
        if self._io(self.shared.room, q.name, maxdepth, uid) >= maxdepth:
            raise fail(C.MQRC_Q_FULL, f"shared queue {q.name} is full (MAXDEPTH {maxdepth})")
        if uid is not None:
            self._shared_counts[uid] = self._shared_counts.get(uid, 0) + 1

    def _shared_count(self, conn: Connection) -> None:
        """MAXUMSGS over the whole unit of work: its private puts and gets and its shared ones."""
        uid = self._shared_uows.get(conn.hconn)
        n = (len(conn.uow) if conn.uow is not None else 0) + (self._shared_counts.get(uid, 0) if uid else 0)
        if n >= self.qmgr.attrs["MAXUMSGS"]:
            raise fail(C.MQRC_SYNCPOINT_LIMIT_REACHED, "the unit of work has reached MAXUMSGS")

    @group_call
    def _shared_place(self, q: LocalQueue, m: Message, uow: UnitOfWork | None) -> None:
        """The queue manager's own put (a report, a dead letter) on a shared queue, in ``uow`` when given."""
        conn = None
        if uow is not None:
            conn = next((c for c in self.connections.values() if c.uow is uow), None)
        if conn is None:
            self._shared_put(cast(Connection, None), q, m, 0)
        else:
            self._shared_put(conn, q, m, C.MQPMO_SYNCPOINT)
            uid = self._shared_uow(conn)
            self._shared_counts[uid] = self._shared_counts.get(uid, 0) + 1

    @group_call
    def _shared_messages(self, q: LocalQueue) -> list[Message]:
        """The available messages of a shared queue in delivery order (``messages``, for tests and tools)."""
        assert self.shared is not None
        return [shared_message(q, sm) for sm in self.shared.available(q.name, q.fifo)]

    # -- MQCMIT / MQBACK -------------------------------------------------------------------------------
    def _shared_end(self, conn: Connection, commit: bool) -> bool:
        """End the shared part of the connection's unit of work (always False: the private part goes on).

        A commit of a unit of work that also holds private messages is two-phase (docs/queue-sharing-groups.md):
        the shared part is prepared (durable, in doubt) here; the private commit's batch carries the decision
        record; the host completes the shared part once that batch is durable (:meth:`complete_shared`). A
        crash in between is settled at the member's restart by the decision record's presence."""
        uid = self._shared_uows.pop(conn.hconn, None)
        if uid is None:
            return False
        self._shared_counts.pop(uid, None)
        shared = self.shared
        assert shared is not None
        try:
            return self._shared_end_in_store(conn, shared, uid, commit)
        except StoreError as e:
            if not commit:
                return False  # the store backs the unit of work out when it is reached again
            self._backout(conn, honour_mark=False)  # the private part too: the unit of work is backed out whole
            raise fail(C.MQRC_BACKED_OUT, str(e)) from None

    def _shared_end_in_store(self, conn: Connection, shared: SharedQueues, uid: int, commit: bool) -> bool:
        if commit and conn.uow is not None and len(conn.uow) > 0:
            shared.prepare(uid, private_part(conn))  # its private part kept beside it (RESOLVE INDOUBT)
            b = self._b()
            b.put_objects.append((DECISION_KIND, shared.decision_name(uid), b""))
            b.durable = True
            self._shared_prepared.append(uid)
            return False
        queues = self._io(shared.commit if commit else shared.backout, uid)
        if queues:
            self._wake.update(queues)
            shared.notify(queues)
        return False

    @group_call
    def shared_get_ahead(self, conn: Connection, hobj: int, gmo: MQGMO, count: int) -> None:
        """An MQGET of ``count`` messages in syncpoint from a shared queue (the server's getm): its plain gets
        claim their messages with one statement; ``count`` 0 after it releases those claimed and not got."""
        shared = self.shared
        h = conn.handles.get(hobj)
        if shared is None or h is None or h.queue is None or not h.queue.shared:
            return
        uid = self._shared_uows.get(conn.hconn)
        if count == 0:
            if uid is not None:
                self._io(shared.get_ahead, uid, h.queue.name, 0)
            return
        mo = gmo.MatchOptions if gmo.Version >= 2 else _ID_MATCH
        plain = not gmo.Options & _NOT_AHEAD and gmo.Options & C.MQGMO_SYNCPOINT and h.locked is None
        plain = plain and h.selection is None  # a selecting handle's gets each select (``_shared_select``)
        if count > 1 and plain and not mo & ~_ID_MATCH:
            shared.get_ahead(self._shared_uow(conn), h.queue.name, count)

    def take_shared_completions(self) -> list[int]:
        """The host: units of work prepared by the calls since the last take, to complete once their batch is
        durable."""
        prepared = self._shared_prepared
        if not prepared:
            return prepared
        self._shared_prepared = []
        return prepared

    def complete_shared(self, uids: list[int]) -> None:
        """The host: the batches carrying these units of work's decisions are durable: phase 3."""
        shared = self.shared
        assert shared is not None
        for uid in uids:
            try:
                queues = shared.complete(uid)
            except StoreError:
                continue  # in doubt until the member's restart, which completes it by its decision record
            if queues:
                self._wake.update(queues)
                shared.notify(queues)
            self._b().delete_objects.append((DECISION_KIND, shared.decision_name(uid)))


def private_part(conn: Connection) -> bytes:
    """The persistent private messages of the connection's unit of work, for its prepare (RESOLVE INDOUBT)."""
    uow = conn.uow
    if uow is None:
        return b""
    puts = [stored_message(m) for m in uow.puts if m.persistent]
    gets = [stored_message(m) for m in uow.gets if m.persistent]
    return encode_private_part(puts, gets) if puts or gets else b""
