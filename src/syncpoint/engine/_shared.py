"""Queue-sharing groups in the engine: shared definitions and the MQI verbs on shared queues.

References: reference/queue-sharing-groups.md ("What is shared", "Units of work and recovery"); docs/
queue-sharing-groups.md (the design).

Theory of operation
-------------------
A member of a queue-sharing group is given a :class:`~syncpoint.store.SharedQueues` (``self.shared``; None for
a queue manager in no group). At start the engine reads the group's definitions from it: a QSGDISP(SHARED) queue
becomes a :class:`SharedQueue` (a ``LocalQueue`` whose messages are not in this member's index but in the shared
store, and whose CURDEPTH is the group's); a QSGDISP(GROUP) definition is copied into this member's own store as a
QSGDISP(COPY) object, replaced at every start unless the copy holds messages (IBM).

The verbs on a shared queue are the hooks of ``_put``, ``_get`` and ``_connections``: each turns into one call of
the shared store (an INSERT, a claim, a commit or a backout of the unit of work's rows). A unit of work's shared
part has a number (``_shared_uows``: Hconn -> number), unique within this member's session of the group. A unit
of work holding private and shared messages commits in two phases (:meth:`SharedMixin._shared_end`).

Not yet on shared queues (each refused with a reason, never half done): browse and the browse cursor, MQGMO_LOCK,
match options other than MsgId and CorrelId, MARK_SKIP_BACKOUT, triggering, expiry reports.
"""

from __future__ import annotations

import functools
import struct
from collections.abc import Callable
from typing import Any, ParamSpec, TypeVar

from syncpoint.mqi import MQGMO, MQMD, GetResult, MQMIError
from syncpoint.mqi import constants as C
from syncpoint.mqi.objects import QLOCAL, Definition, defaults_for
from syncpoint.store import DECISION_KIND, Batch, SharedMessage, SharedQueues, StoreError

from ._base import QueueManagerBase
from ._effects import stored_message
from ._put import CONTEXT_IDENTITY, CONTEXT_ORIGIN
from ._state import Connection, Handle, LocalQueue, Message
from ._util import fail

SHARED = "SHARED"
GROUP = "GROUP"
COPY = "COPY"
QMGR_DISP = "QMGR"
DISPOSITIONS = (QMGR_DISP, COPY, GROUP, SHARED)
COPY_KIND = "QSGCOPY"  # in the member's store: the names of its QSGDISP(COPY) objects
_NONE24 = b"\0" * 24
_ID_MATCH = C.MQMO_MATCH_MSG_ID | C.MQMO_MATCH_CORREL_ID
_TOKEN = struct.Struct(">QQ")
MAXDEPTH_LIMIT = 999_999_999  # MAXDEPTH's largest value
_NOT_YET_GET = (
    C.MQGMO_BROWSE_FIRST
    | C.MQGMO_BROWSE_NEXT
    | C.MQGMO_BROWSE_MSG_UNDER_CURSOR
    | C.MQGMO_MSG_UNDER_CURSOR
    | C.MQGMO_LOCK
    | C.MQGMO_UNLOCK
    | C.MQGMO_MARK_SKIP_BACKOUT
    | C.MQGMO_LOGICAL_ORDER
    | C.MQGMO_ALL_MSGS_AVAILABLE
    | C.MQGMO_COMPLETE_MSG
)


P = ParamSpec("P")
T = TypeVar("T")


def unavailable(e: StoreError) -> MQMIError:
    """The group's shared store failed: IBM's reason for a coupling facility that cannot be used."""
    return fail(C.MQRC_CF_NOT_AVAILABLE, str(e))


def _counters_only(b: Batch) -> bool:
    """A batch that holds only counters (the MsgId block reserved by this put): whichever call writes it, it
    is written in order before any later batch, so the call may let the lock go meanwhile."""
    counters = b.counters
    b.counters = {}
    empty = b.is_empty()
    b.counters = counters
    return empty


def _direct(fn: Callable[..., T], *args: Any) -> T:
    return fn(*args)


def group_call(fn: Callable[P, T]) -> Callable[P, T]:
    """A verb that reaches the shared store: its StoreError becomes MQRC_CF_NOT_AVAILABLE (2345)."""

    @functools.wraps(fn)
    def call(*args: P.args, **kwargs: P.kwargs) -> T:
        try:
            return fn(*args, **kwargs)
        except StoreError as e:
            raise unavailable(e) from None

    return call


class SharedQueue(LocalQueue):
    """A QSGDISP(SHARED) local queue: its messages live in the group's shared store; CURDEPTH is the group's."""

    shared = True

    def __init__(self, definition: Definition, store: SharedQueues, io: Callable[..., Any] | None = None) -> None:
        self._store = store
        self.io: Callable[..., Any] = io or _direct  # SharedMixin._io: the host's lock let go while it waits
        super().__init__(definition)

    @property
    def depth(self) -> int:
        try:
            return self._store.depth(self.name)
        except StoreError as e:
            raise unavailable(e) from None

    @depth.setter
    def depth(self, value: int) -> None:
        pass  # the group's depth is counted by the shared store

    def full(self, maxdepth: int) -> bool:
        """MQPUT's MAXDEPTH check: the group's messages counted up to MAXDEPTH only, none at the largest MAXDEPTH
        (999 999 999: a queue of that many messages is beyond what the shared store is sized for)."""
        if maxdepth >= MAXDEPTH_LIMIT:
            return False
        try:
            depth: int = self.io(self._store.depth, self.name, maxdepth)
            return depth >= maxdepth
        except StoreError as e:
            raise unavailable(e) from None


class SharedMixin(QueueManagerBase):
    """The hooks of the MQI verbs and of DEFINE for queue-sharing groups."""

    shared: SharedQueues | None
    _shared_uows: dict[int, int]  # Hconn -> the number of its unit of work's shared part
    _next_shared_uow: int
    copies: set[str]  # names of this member's QSGDISP(COPY) objects
    _shared_prepared: list[int]  # units of work prepared (two-phase) since the host last took them
    # set by the host: run a call with its lock let go (see _io); None: the caller keeps whatever it holds
    unlocked: Callable[..., Any] | None = None

    def _io(self, fn: Callable[..., T], *args: Any) -> T:
        """Run a call of the shared store that waits for PostgreSQL, with the host's lock let go (``unlocked``)
        so that the member's other connections go on meanwhile, each on a connection of its own (the store's
        pool). Only while this call has left nothing for the host to write (its store batch, the queue
        manager's own puts): those must stay with the call that made them."""
        unlocked = self.unlocked
        b = self._batch
        if unlocked is None or self._system_puts or (b is not None and not _counters_only(b)):
            return fn(*args)
        result: T = unlocked(fn, *args)
        return result

    # -- start -----------------------------------------------------------------------------------------
    def _load_shared(self, copies: set[str], decisions: set[str]) -> None:
        """Read the group's definitions: SHARED queues join this member; GROUP ones refresh their COPY."""
        self._shared_uows = {}
        self._next_shared_uow = 1
        self._shared_prepared = []
        self.copies = set(copies)
        shared = self.shared
        if shared is None:
            return
        for name in decisions:  # the group's store settled these in-doubt units of work at open (store/_group)
            self._b().delete_objects.append((DECISION_KIND, name))
        for kind, name, disposition, raw in shared.definitions():
            d = Definition.from_bytes(raw)
            if disposition == SHARED:
                if ("Q", name) not in self.definitions:
                    self._add_shared_queue(d)
            elif disposition == GROUP:
                self._refresh_copy(kind, d)

    def _add_shared_queue(self, d: Definition) -> SharedQueue:
        assert self.shared is not None
        self.definitions[("Q", d.name)] = d
        q = SharedQueue(d, self.shared, self._io)
        self.queues[d.name] = q
        return q

    def _refresh_copy(self, kind: str, d: Definition) -> None:
        """The COPY of a GROUP definition, made or replaced (not while it is open or holds messages: IBM)."""
        key = (self._ns(kind), d.name)
        existing = self.definitions.get(key)
        if existing is not None:
            if d.name not in self.copies:
                return  # a QSGDISP(QMGR) object of that name stays, as IBM keeps it
            q = self.queues.get(d.name)
            if q is not None and (q.depth or q.handles or q.uncommitted):
                return
            if existing.attrs == d.attrs and existing.otype == d.otype:
                return
            self.delete(existing.otype, d.name, purge=False)
        self.define(d.otype, d.name, dict(d.attrs))
        self.copies.add(d.name)
        self._b().put_objects.append((COPY_KIND, d.name, b""))

    @group_call
    def refresh_shared(self, name: str | None = None) -> bool:
        """Shared queues other members defined or deleted since: this member's view follows the group's. With
        ``name``, True if that queue is now known (an open of a name this member did not know)."""
        shared = self.shared
        if shared is None:
            return False
        current = {n: raw for _k, n, disp, raw in shared.definitions() if disp == SHARED}
        for qname, raw in current.items():
            known = self.queues.get(qname)
            if ("Q", qname) not in self.definitions:
                self._add_shared_queue(Definition.from_bytes(raw))
            elif known is not None and known.shared:
                attrs = Definition.from_bytes(raw).attrs
                if attrs != known.attrs:  # ALTERed on another member: the same dict, so every handle sees it
                    known.attrs.update(attrs)
                    known.fifo = attrs.get("MSGDLVSQ") == C.MQMDS_FIFO
        for qname, q in list(self.queues.items()):
            if q.shared and qname not in current and not q.handles:
                del self.queues[qname]
                self.definitions.pop(("Q", qname), None)
        return name is not None and name in current

    @group_call
    def _alter_shared(self, q: LocalQueue) -> None:
        """ALTER of a shared queue: the group's definition changes; the other members follow within a second."""
        assert self.shared is not None
        self.shared.put_definition(QLOCAL, q.name, SHARED, q.definition.to_bytes(), True)

    @group_call
    def _delete_shared(self, q: LocalQueue, purge: bool) -> None:
        """DELETE QLOCAL of a shared queue: from the group (refused while it holds messages, without PURGE)."""
        shared = self.shared
        assert shared is not None
        if q.handles:
            raise fail(C.MQRC_OBJECT_IN_USE, f"queue {q.name} is open")
        depth = q.depth
        if depth and not purge:
            raise fail(C.MQRC_Q_NOT_EMPTY, f"shared queue {q.name} has {depth} messages; use PURGE")
        shared.clear(q.name)
        shared.delete_definition(QLOCAL, q.name)
        del self.queues[q.name]
        del self.definitions[("Q", q.name)]

    def qsgdisp(self, otype: str, name: str) -> str:
        """The QSGDISP of this member's object ``name`` of type ``otype``: SHARED, COPY or QMGR."""
        q = self.queues.get(name) if otype == QLOCAL else None
        if q is not None and q.shared:
            return SHARED
        return COPY if name in self.copies else QMGR_DISP

    # -- DEFINE … QSGDISP(…) ----------------------------------------------------------------------------
    @group_call
    def define_in_group(self, otype: str, name: str, attrs: dict[str, Any], disposition: str, replace: bool) -> None:
        """DEFINE with QSGDISP(GROUP) or QSGDISP(SHARED): the definition goes to the group's shared store."""
        shared = self.shared
        if disposition not in (GROUP, SHARED):
            raise fail(C.MQRC_SELECTOR_ERROR, f"QSGDISP({disposition}) cannot be defined: use QMGR, GROUP or SHARED")
        if shared is None:
            raise fail(
                C.MQRC_ENVIRONMENT_ERROR,
                f"queue manager {self.name} is not a member of a queue-sharing group: QSGDISP({disposition}) needs one",
            )
        if disposition == SHARED and otype != QLOCAL:
            raise fail(C.MQRC_OBJECT_TYPE_ERROR, "QSGDISP(SHARED) is for local queues only, not for a " + otype)
        existing = self.definitions.get((self._ns(otype), name))
        if existing is not None and not replace:
            raise fail(C.MQRC_OBJECT_ALREADY_EXISTS, f"{name} already exists")
        values = defaults_for(otype)
        values.update(self._validated(otype, attrs))
        now = self.clock.time()
        d = Definition(otype, name, values, now, now)
        if not shared.put_definition(otype, name, disposition, d.to_bytes(), replace):
            raise fail(C.MQRC_OBJECT_ALREADY_EXISTS, f"{name} already exists in queue-sharing group {shared.qsg}")
        if disposition == SHARED:
            self._add_shared_queue(d)
        else:
            self._refresh_copy(otype, d)

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
    @group_call
    def _shared_get(
        self, conn: Connection, h: Handle, q: LocalQueue, md: MQMD, gmo: MQGMO, buflen: int | None, now: float
    ) -> GetResult:
        shared = self.shared
        assert shared is not None
        opts = gmo.Options
        if opts & _NOT_YET_GET:
            raise fail(C.MQRC_OPTIONS_ERROR, f"these get options are not supported on shared queue {q.name} yet")
        mo = gmo.MatchOptions if gmo.Version >= 2 else _ID_MATCH
        if mo & ~_ID_MATCH:
            raise fail(C.MQRC_MATCH_OPTIONS_ERROR, f"only MsgId and CorrelId match on shared queue {q.name} yet")
        msgid = md.MsgId if mo & C.MQMO_MATCH_MSG_ID and md.MsgId != _NONE24 else None
        correlid = md.CorrelId if mo & C.MQMO_MATCH_CORREL_ID and md.CorrelId != _NONE24 else None
        sync = opts & (C.MQGMO_SYNCPOINT | C.MQGMO_SYNCPOINT_IF_PERSISTENT)
        uid = self._shared_uow(conn) if opts & C.MQGMO_SYNCPOINT else None
        may_fail = buflen is not None and not opts & C.MQGMO_ACCEPT_TRUNCATED_MSG
        claim_only = may_fail or bool(sync & C.MQGMO_SYNCPOINT_IF_PERSISTENT)
        while True:
            sm = None
            if uid is not None and msgid is None and correlid is None:  # claimed ahead (getm): no round trip
                sm = shared.take_ahead(uid, q.name)
            if sm is None:
                sm = self._io(shared.get, q.name, uid, msgid, correlid, claim_only and uid is None)
            if sm is None:
                raise fail(C.MQRC_NO_MSG_AVAILABLE, None)
            if sm.expiry != C.MQEI_UNLIMITED and sm.expiry - (now - sm.put_time) * 10 <= 0:
                # seed 002: the get that would have returned an expired message discards it
                if uid is not None or claim_only:
                    self._io(shared.discard, sm.id)
                continue
            break
        fields = MQMD.unpack(sm.md).__dict__
        d = md.__dict__
        version = d["Version"]
        d.update(fields)
        d["Version"] = version
        d["BackoutCount"] = sm.backout
        d["Expiry"] = (
            C.MQEI_UNLIMITED if sm.expiry == C.MQEI_UNLIMITED else max(1, sm.expiry - int((now - sm.put_time) * 10))
        )
        if gmo.Version >= 2:
            if gmo.Version >= 3:
                gmo.MsgToken = _TOKEN.pack(0, sm.id)
            gmo.GroupStatus = b" "
            gmo.SegmentStatus = b" "
            gmo.Segmentation = b" "
        gmo.ResolvedQName = q.name48
        body = sm.data
        total = len(body)
        if gmo.Version >= 3:
            gmo.ReturnedLength = total if buflen is None else min(total, buflen)
        if buflen is not None and total > buflen:
            if not opts & C.MQGMO_ACCEPT_TRUNCATED_MSG:
                self._io(shared.finish_claim, sm.id, False, None)  # the message stays where it was
                return GetResult(body[:buflen], total, C.MQCC_WARNING, C.MQRC_TRUNCATED_MSG_FAILED)
            result = GetResult(body[:buflen], total, C.MQCC_WARNING, C.MQRC_TRUNCATED_MSG_ACCEPTED)
        else:
            result = GetResult(body, total)
        if uid is None and claim_only:
            in_uow = bool(sync & C.MQGMO_SYNCPOINT_IF_PERSISTENT) and sm.persistent
            self._io(shared.finish_claim, sm.id, True, self._shared_uow(conn) if in_uow else None)
        q.note_get(now, sm.put_time)
        if h.options & C.MQOO_SAVE_ALL_CONTEXT:
            h.saved_context = {f: d[f] for f in CONTEXT_IDENTITY + CONTEXT_ORIGIN}
        return result

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
            shared.prepare(uid)
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
        plain = not gmo.Options & _NOT_YET_GET and gmo.Options & C.MQGMO_SYNCPOINT
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
