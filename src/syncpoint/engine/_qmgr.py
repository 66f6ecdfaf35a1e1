"""The queue manager: a deterministic state machine whose public operations are MQI verbs.

Theory of operation
-------------------
* The engine does no I/O, starts no threads and never blocks. The caller (the in-process runner in
  ``syncpoint.client`` or the network server) serialises calls with one lock, and after each call takes the
  *effects* the call left: a :class:`~syncpoint.store.Batch` to hand to the store (submitted while the lock is
  still held, so the store sees changes in engine order; waited on after the lock is released, so many
  connections share one sync — group commit), and the names of queues whose waiting getters may now succeed.
* Persistent messages reach the store at commit (or at the put / get itself outside syncpoint). A persistent
  message got inside a unit of work is *marked in flight* in the store (a cheap, unsynced write): if the process
  dies, the store's recovery backs the get out and increments BackoutCount, as IBM MQ does with HARDENBO.
* Non-persistent messages never touch the store.
* A failing call changes nothing: every check runs before the first change.
* Time comes from the injected clock.

Choices where IBM's documentation is silent or platform-specific (Linux behaviour is taken):
* MQPUT / MQGET default to no syncpoint; MQDISC commits; an abnormal end backs out.
* A message becomes visible to other connections when its unit of work commits in memory; the committing call
  returns only once the store has made it durable. A consumer that commits a get of that message is written
  after it, so the store never holds the get without the put.
"""

from __future__ import annotations

import logging
import os
import struct
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from syncpoint.mqi import (
    MQGMO,
    MQMD,
    MQOD,
    MQPMO,
    GetResult,
    MQMIError,
    dead_letter_message,
    matches_generic,
    mqsc_date_time,
    put_date_time,
)
from syncpoint.mqi import constants as C
from syncpoint.mqi.constants import (  # the ones MQPUT and MQGET test on every call, without the C. lookup
    MQCCSI_Q_MGR,
    MQEI_UNLIMITED,
    MQFMT_XMIT_Q_HEADER,
    MQGMO_SYNCPOINT,
    MQGMO_SYNCPOINT_IF_PERSISTENT,
    MQGMO_WAIT,
    MQMT_REQUEST,
    MQOO_SAVE_ALL_CONTEXT,
    MQPER_NOT_PERSISTENT,
    MQPER_PERSISTENCE_AS_Q_DEF,
    MQPER_PERSISTENT,
    MQPMO_NEW_CORREL_ID,
    MQPMO_NEW_MSG_ID,
    MQPMO_SYNCPOINT,
    MQPRI_PRIORITY_AS_Q_DEF,
    MQQA_GET_INHIBITED,
    MQQA_PUT_INHIBITED,
    MQRC_NONE,
    MQTC_ON,
)
from syncpoint.mqi.objects import (
    ATTRIBUTES,
    MQIAV_NOT_APPLICABLE,
    PROCESS,
    QALIAS,
    QLOCAL,
    QMGR,
    QMGR_KEYWORD_ALIASES,
    QMODEL,
    QTYPE_OF,
    QUEUE_TYPES,
    SELECTOR_TO_KEYWORD,
    SYSTEM_DEAD_LETTER,
    Attribute,
    Definition,
    char_attr_length,
    check_value,
    default_objects,
    defaults_for,
    engine_key,
    valid_object_name,
)
from syncpoint.store import Batch, Snapshot, StoredMessage

from ._queue import AVAILABLE, GONE, GOT_PENDING, PUT_PENDING, LocalQueue, Message
from ._reports import expiration_report_wanted, report_message, with_xqh_expiry, xqh_expiry
from ._trigger import PendingTrigger, Triggering
from .clock import Clock

_FAILED = C.MQCC_FAILED
_WARNING = C.MQCC_WARNING
_NONE24 = b"\0" * 24
_BLANK48 = b" " * 48
_MD_SIZE = MQMD.size()
_ID_MATCH = C.MQMO_MATCH_MSG_ID | C.MQMO_MATCH_CORREL_ID  # a version-1 MQGMO's match options
_OTHER_MATCH = ~_ID_MATCH  # the match options a get without anything to match must not have
_TOKEN = struct.Struct(">QQ")  # MsgToken: 0 and the put sequence
_COUNTER = struct.Struct(">Q").pack  # the counter at the end of a MsgId
_MD2_PACK = MQMD._struct_by_len[MQMD.size(2)].pack  # a version-2 MQMD's layout
_MD2_VALUES = MQMD._getter_by_len[MQMD.size(2)]  # its fields' values in order

_INPUT_OPTS = C.MQOO_INPUT_AS_Q_DEF | C.MQOO_INPUT_SHARED | C.MQOO_INPUT_EXCLUSIVE
_BROWSE_GET_OPTS = (
    C.MQGMO_BROWSE_FIRST | C.MQGMO_BROWSE_NEXT | C.MQGMO_BROWSE_MSG_UNDER_CURSOR | C.MQGMO_MSG_UNDER_CURSOR
)
_SYNC_GET_OPTS = C.MQGMO_SYNCPOINT | C.MQGMO_NO_SYNCPOINT | C.MQGMO_SYNCPOINT_IF_PERSISTENT
_CONTEXT_PUT_OPTS = (
    C.MQPMO_PASS_IDENTITY_CONTEXT
    | C.MQPMO_PASS_ALL_CONTEXT
    | C.MQPMO_SET_IDENTITY_CONTEXT
    | C.MQPMO_SET_ALL_CONTEXT
    | C.MQPMO_DEFAULT_CONTEXT
    | C.MQPMO_NO_CONTEXT
)
# Options syncpoint accepts; anything else is MQRC_OPTIONS_ERROR (IBM rejects undefined bits the same way).
_KNOWN_GET_OPTS = (
    C.MQGMO_WAIT
    | _SYNC_GET_OPTS
    | _BROWSE_GET_OPTS
    | C.MQGMO_ACCEPT_TRUNCATED_MSG
    | C.MQGMO_MARK_SKIP_BACKOUT
    | C.MQGMO_LOCK
    | C.MQGMO_UNLOCK
    | C.MQGMO_FAIL_IF_QUIESCING
    | C.MQGMO_CONVERT
    | C.MQGMO_NO_PROPERTIES
    | C.MQGMO_PROPERTIES_COMPATIBILITY
    | C.MQGMO_PROPERTIES_FORCE_MQRFH2
)
_UNSUPPORTED_GET_OPTS = (
    C.MQGMO_SET_SIGNAL
    | C.MQGMO_LOGICAL_ORDER
    | C.MQGMO_COMPLETE_MSG
    | C.MQGMO_ALL_MSGS_AVAILABLE
    | C.MQGMO_ALL_SEGMENTS_AVAILABLE
    | C.MQGMO_MARK_BROWSE_HANDLE
    | C.MQGMO_MARK_BROWSE_CO_OP
    | C.MQGMO_UNMARK_BROWSE_CO_OP
    | C.MQGMO_UNMARK_BROWSE_HANDLE
    | C.MQGMO_UNMARKED_BROWSE_MSG
    | C.MQGMO_PROPERTIES_IN_HANDLE
)
# the get options whose checks need no browse, cursor, lock or mark logic: MQGET's fast path
_PLAIN_GET_OPTS = (
    C.MQGMO_WAIT
    | _SYNC_GET_OPTS
    | C.MQGMO_ACCEPT_TRUNCATED_MSG
    | C.MQGMO_FAIL_IF_QUIESCING
    | C.MQGMO_CONVERT
    | C.MQGMO_NO_PROPERTIES
    | C.MQGMO_PROPERTIES_COMPATIBILITY
    | C.MQGMO_PROPERTIES_FORCE_MQRFH2
)
_RARE_GET_OPTS = ~_PLAIN_GET_OPTS  # any of these sends MQGET through every option check
_KNOWN_PUT_OPTS = (
    C.MQPMO_SYNCPOINT
    | C.MQPMO_NO_SYNCPOINT
    | _CONTEXT_PUT_OPTS
    | C.MQPMO_NEW_MSG_ID
    | C.MQPMO_NEW_CORREL_ID
    | C.MQPMO_FAIL_IF_QUIESCING
    | C.MQPMO_ALTERNATE_USER_AUTHORITY
    | C.MQPMO_RESOLVE_LOCAL_Q
    | C.MQPMO_ASYNC_RESPONSE
    | C.MQPMO_SYNC_RESPONSE
    | C.MQPMO_MD_FOR_OUTPUT_ONLY
)
# the put options whose checks cannot fail alone (no context option): MQPUT's fast path checks only these
_PLAIN_PUT_OPTS = _KNOWN_PUT_OPTS & ~_CONTEXT_PUT_OPTS
_RARE_PUT_OPTS = ~_PLAIN_PUT_OPTS  # any of these sends MQPUT through _check_put_options
_BOTH_PUT_SYNC = C.MQPMO_SYNCPOINT | C.MQPMO_NO_SYNCPOINT
_PLAIN_MSG_TYPES = (C.MQMT_REQUEST, C.MQMT_REPLY, C.MQMT_REPORT, C.MQMT_DATAGRAM)
# the MQMD's character fields as (name, length); those a put with the default context leaves to the application
_ALL_CHAR_FIELDS = tuple(MQMD._char_lengths.items())
_CONTEXT_SET_BY_PUT = frozenset(
    {"UserIdentifier", "AccountingToken", "ApplIdentityData", "PutApplName", "PutDate", "PutTime", "ApplOriginData"}
)
_APPL_CHAR_FIELDS = tuple((f, n) for f, n in _ALL_CHAR_FIELDS if f not in _CONTEXT_SET_BY_PUT)
_KNOWN_OPEN_OPTS = (
    _INPUT_OPTS
    | C.MQOO_BROWSE
    | C.MQOO_OUTPUT
    | C.MQOO_INQUIRE
    | C.MQOO_SET
    | C.MQOO_SAVE_ALL_CONTEXT
    | C.MQOO_PASS_IDENTITY_CONTEXT
    | C.MQOO_PASS_ALL_CONTEXT
    | C.MQOO_SET_IDENTITY_CONTEXT
    | C.MQOO_SET_ALL_CONTEXT
    | C.MQOO_ALTERNATE_USER_AUTHORITY
    | C.MQOO_FAIL_IF_QUIESCING
    | C.MQOO_BIND_ON_OPEN
    | C.MQOO_BIND_NOT_FIXED
    | C.MQOO_BIND_ON_GROUP
    | C.MQOO_RESOLVE_NAMES
    | C.MQOO_RESOLVE_LOCAL_Q
    | C.MQOO_NO_READ_AHEAD
    | C.MQOO_READ_AHEAD
    | C.MQOO_CO_OP
)
_SETTABLE_SELECTORS = {
    C.MQIA_INHIBIT_GET,
    C.MQIA_INHIBIT_PUT,
    C.MQIA_TRIGGER_CONTROL,
    C.MQIA_TRIGGER_TYPE,
    C.MQIA_TRIGGER_DEPTH,
    C.MQIA_TRIGGER_MSG_PRIORITY,
    C.MQCA_TRIGGER_DATA,
}
_SET_ERRORS = {
    C.MQIA_TRIGGER_CONTROL: C.MQRC_TRIGGER_CONTROL_ERROR,
    C.MQIA_TRIGGER_TYPE: C.MQRC_TRIGGER_TYPE_ERROR,
    C.MQIA_TRIGGER_DEPTH: C.MQRC_TRIGGER_DEPTH_ERROR,
    C.MQIA_TRIGGER_MSG_PRIORITY: C.MQRC_TRIGGER_MSG_PRIORITY_ERR,
}
_log = logging.getLogger("syncpoint.engine")
_MSGID_BLOCK = 1 << 16


def _fail(reason: int, detail: str | None = None) -> MQMIError:
    return MQMIError(_FAILED, reason, detail)


def _name(value: bytes | str) -> str:
    if isinstance(value, bytes):
        value = value.decode("utf-8", "replace")
    return value.rstrip(" \0")


def _char(value: str, length: int) -> bytes:
    return value.encode("utf-8")[:length].ljust(length, b" ")


# ------------------------------------------------------------------------------------------------------
# connections, handles, units of work
# ------------------------------------------------------------------------------------------------------
class UnitOfWork:
    """Uncommitted puts and gets of one connection, its one MARK_SKIP_BACKOUT get, and the trigger messages
    its puts created (put on their initiation queues when the unit of work ends)."""

    __slots__ = ("gets", "marked", "puts", "triggers")

    def __init__(self) -> None:
        self.puts: list[Message] = []
        self.gets: list[Message] = []
        self.marked: Message | None = None
        self.triggers: list[PendingTrigger] = []

    def __len__(self) -> int:
        return len(self.puts) + len(self.gets)


class Connection:
    __slots__ = (
        "alive",
        "appl_name",
        "appl_name28",
        "appl_type",
        "context",
        "handles",
        "hconn",
        "pid",
        "reserved",
        "uow",
        "user",
        "user12",
    )

    def __init__(self, hconn: int, appl_name: str, appl_type: int, user: str, pid: int) -> None:
        self.hconn = hconn
        self.appl_name = appl_name
        self.appl_type = appl_type
        self.user = user
        self.pid = pid
        self.appl_name28 = _char(appl_name, 28)
        self.user12 = _char(user, 12)
        # the MQMD context fields a put with the default context sets (all but PutDate and PutTime)
        self.context: dict[str, Any] = {
            "UserIdentifier": self.user12,
            "AccountingToken": C.MQACT_NONE,
            "ApplIdentityData": b" " * 32,
            "PutApplType": appl_type,
            "PutApplName": self.appl_name28,
            "ApplOriginData": b" " * 4,
        }
        self.handles: dict[int, Handle] = {}
        self.uow: UnitOfWork | None = None
        self.alive = True
        self.reserved: dict[int, Message] = {}  # MsgToken -> message this connection reserved (see reserve)


class Handle:
    """An open object handle: its options, its browse cursor, its lock, its saved context."""

    __slots__ = (
        "alias",
        "browse_key",
        "conn",
        "cursor",
        "definition",
        "hobj",
        "locked",
        "name",
        "options",
        "otype",
        "owns_dynamic",
        "queue",
        "saved_context",
    )

    def __init__(
        self,
        hobj: int,
        conn: Connection,
        otype: int,
        name: str,
        options: int,
        queue: LocalQueue | None,
        definition: Definition | None,
        alias: Definition | None,
    ) -> None:
        self.hobj = hobj
        self.conn = conn
        self.otype = otype
        self.name = name  # the name the application opened
        self.options = options
        self.queue = queue
        self.definition = definition
        self.alias = alias
        self.browse_key: int | None = None  # browse cursor: key of the message last browsed
        self.cursor: Message | None = None  # the message under the browse cursor
        self.locked: Message | None = None
        self.saved_context: dict[str, Any] | None = None
        self.owns_dynamic = False

    @property
    def is_input(self) -> bool:
        return bool(self.options & _INPUT_OPTS)


@dataclass(slots=True)
class Effects:
    batch: Batch | None = None
    wake: set[str] = field(default_factory=set)


_CONTEXT_IDENTITY = ("UserIdentifier", "AccountingToken", "ApplIdentityData")
_CONTEXT_ORIGIN = ("PutApplType", "PutApplName", "PutDate", "PutTime", "ApplOriginData")


# ------------------------------------------------------------------------------------------------------
# the queue manager
# ------------------------------------------------------------------------------------------------------
class QueueManager:
    """One queue manager's state. Not thread-safe by itself: callers serialise (see module doc)."""

    def __init__(self, name: str, snapshot: Snapshot, clock: Clock) -> None:
        self.name = name
        self.clock = clock
        self.definitions: dict[tuple[str, str], Definition] = {}
        self.queues: dict[str, LocalQueue] = {}
        self.connections: dict[int, Connection] = {}
        self._next_hconn = 1
        self._next_hobj = 1
        self._batch: Batch | None = None
        self._wake: set[str] = set()
        self._msgid_prefix = b"AMQ " + name.encode()[:12].ljust(12, b" ")
        self.name48 = _char(name, 48)
        self._msgid_counter = int(clock.time() * 1_000_000)
        self._dyn_counter = 0
        self.quiescing = False
        self._expiry_candidates: set[LocalQueue] = set()
        self._next_expiry_scan = clock.monotonic()
        self.expired_discarded = 0  # messages discarded because they expired (statistics)
        self.started = clock.time()
        self.recovered_inflight = snapshot.recovered_inflight
        self.triggering = Triggering(self)  # seed 001; its TRIGINT timers start afresh with every start
        self._load(snapshot)

    # -- construction ---------------------------------------------------------------------------------
    @staticmethod
    def initial_batch(name: str, clock: Clock, dlq: str | None = None) -> Batch:
        """The store contents of a new queue manager: its attributes and default objects (crtmqm)."""
        now = clock.time()
        batch = Batch()
        qmattrs = defaults_for(QMGR)
        if dlq:
            qmattrs["DEADQ"] = dlq
        batch.put_objects.append((QMGR, name, Definition(QMGR, name, qmattrs, now, now).to_bytes()))
        objects = default_objects()
        if dlq and dlq != SYSTEM_DEAD_LETTER:
            objects.append((QLOCAL, dlq, {"MAXDEPTH": 999_999_999, "DESCR": "dead-letter queue"}))
        for otype, oname, attrs in objects:
            a = defaults_for(otype)
            a.update(attrs)
            batch.put_objects.append((otype, oname, Definition(otype, oname, a, now, now).to_bytes()))
        return batch

    def _load(self, snap: Snapshot) -> None:
        qm = snap.objects.get(QMGR, {})
        if self.name not in qm:
            raise _fail(
                C.MQRC_Q_MGR_NAME_ERROR,
                f"the store holds no queue manager named {self.name}",
            )
        self.qmgr = Definition.from_bytes(qm[self.name])
        for otype in (QLOCAL, QMODEL, QALIAS, PROCESS):
            for raw in snap.objects.get(otype, {}).values():
                d = Definition.from_bytes(raw)
                self.definitions[(self._ns(otype), d.name)] = d
                if otype == QLOCAL:
                    self.queues[d.name] = LocalQueue(d, self._expiry_candidates)
        max_seq = 0
        for sm in snap.messages:
            q = self.queues.get(sm.queue)
            if q is None:
                continue  # a message of a queue deleted while the batch was in flight: dropped
            md = MQMD.unpack(sm.md)
            m = Message(
                sm.seq,
                q,
                sm.priority,
                True,
                dict(md.__dict__),
                sm.data,
                md.MsgId,
                md.CorrelId,
                md.GroupId,
                md.MsgSeqNumber,
                md.Expiry,
                sm.put_time,
                sm.backout_count,
            )
            q.make_available(m)
            q.depth += 1
            max_seq = max(max_seq, sm.seq)
            if md.MsgId[:16] == self._msgid_prefix:
                # MsgIds stay unique across restarts even when the clock has not moved past the old ones
                self._msgid_counter = max(self._msgid_counter, struct.unpack_from(">Q", md.MsgId, 16)[0])
        self._seq = max(max_seq, snap.counters.get("seq", 0)) + 1
        self._msgid_counter = max(self._msgid_counter, snap.counters.get("msgid", 0))
        self._msgid_reserved = self._msgid_counter

    @staticmethod
    def _ns(otype: str) -> str:
        """Queues of every type share one namespace; processes have their own."""
        return "Q" if otype in QUEUE_TYPES else otype

    # -- effects --------------------------------------------------------------------------------------
    def _b(self) -> Batch:
        b = self._batch
        if b is None:
            b = self._batch = Batch(durable=False)
        return b

    def take_effects(self) -> Effects | None:
        """What the calls since the last take left for the host (the store batch, the queues whose waiters may
        now succeed), or None, with nothing allocated, when they left nothing: the host's path after every call."""
        batch = self._batch
        wake = self._wake
        if batch is None and not wake:
            return None
        self._batch = None
        if wake:
            self._wake = set()
        return Effects(batch, wake)

    # -- attributes of the queue manager --------------------------------------------------------------
    def qm_attr(self, keyword: str) -> Any:
        return self.qmgr.attrs[QMGR_KEYWORD_ALIASES.get(keyword, keyword)]

    # ==================================================================================================
    # MQCONN / MQDISC
    # ==================================================================================================
    def connect(self, appl_name: str = "", appl_type: int = C.MQAT_UNIX, user: str = "", pid: int = 0) -> Connection:
        if self.quiescing:
            raise _fail(C.MQRC_Q_MGR_QUIESCING, f"queue manager {self.name} is ending")
        hconn = self._next_hconn
        self._next_hconn += 1
        conn = Connection(hconn, appl_name or "syncpoint", appl_type, user or _default_user(), pid or os.getpid())
        self.connections[hconn] = conn
        return conn

    def disconnect(self, conn: Connection, abnormal: bool = False) -> None:
        """MQDISC: a normal end commits the unit of work; an abnormal end backs it out (no skip-backout)."""
        if not conn.alive:
            return
        if conn.uow is not None:
            if abnormal:
                self._backout(conn, honour_mark=False)
            else:
                self._commit(conn)
        for h in list(conn.handles.values()):
            self._close(h, C.MQCO_NONE, implicit=True)
        if conn.reserved:
            self._release(conn, list(conn.reserved), None)
        conn.alive = False
        self.connections.pop(conn.hconn, None)

    def _check_conn(self, conn: Connection) -> None:
        if not conn.alive:
            raise _fail(C.MQRC_HCONN_ERROR, "the connection has ended")

    def _handle(self, conn: Connection, hobj: Handle | int) -> Handle:
        if not conn.alive:
            raise _fail(C.MQRC_HCONN_ERROR, "the connection has ended")
        if type(hobj) is int:
            h = conn.handles.get(hobj)
            if h is not None:
                return h
        h = conn.handles.get(hobj if isinstance(hobj, int) else hobj.hobj)
        if h is None or (not isinstance(hobj, int) and h is not hobj):
            raise _fail(C.MQRC_HOBJ_ERROR, "the object handle is not open on this connection")
        return h

    # ==================================================================================================
    # MQOPEN / MQCLOSE
    # ==================================================================================================
    def open(self, conn: Connection, od: MQOD, options: int) -> Handle:
        self._check_conn(conn)
        if od.StrucId != b"OD  " or od.Version not in (1, 2, 3, 4):
            raise _fail(C.MQRC_OD_ERROR, "the object descriptor is not a valid MQOD")
        if options & ~_KNOWN_OPEN_OPTS:
            raise _fail(C.MQRC_OPTIONS_ERROR, f"unknown open options {options & ~_KNOWN_OPEN_OPTS:#x}")
        if bin(options & _INPUT_OPTS).count("1") > 1:
            raise _fail(C.MQRC_OPTIONS_ERROR, "only one of the MQOO_INPUT_* options may be given")
        ctx = options & (
            C.MQOO_PASS_IDENTITY_CONTEXT
            | C.MQOO_PASS_ALL_CONTEXT
            | C.MQOO_SET_IDENTITY_CONTEXT
            | C.MQOO_SET_ALL_CONTEXT
        )
        if ctx and not options & C.MQOO_OUTPUT:
            raise _fail(C.MQRC_OPTIONS_ERROR, "context options on MQOPEN need MQOO_OUTPUT")
        if options & C.MQOO_SAVE_ALL_CONTEXT and not options & _INPUT_OPTS:
            raise _fail(C.MQRC_OPTIONS_ERROR, "MQOO_SAVE_ALL_CONTEXT needs an MQOO_INPUT_* option")
        if not options & (_INPUT_OPTS | C.MQOO_BROWSE | C.MQOO_OUTPUT | C.MQOO_INQUIRE | C.MQOO_SET):
            raise _fail(
                C.MQRC_OPTIONS_ERROR,
                "MQOPEN needs at least one of MQOO_INPUT_*, MQOO_BROWSE, MQOO_OUTPUT, MQOO_INQUIRE, MQOO_SET",
            )
        qmname = _name(od.ObjectQMgrName)
        if qmname and qmname != self.name:
            raise _fail(C.MQRC_UNKNOWN_REMOTE_Q_MGR, f"queue manager {qmname} is not known here")
        name = _name(od.ObjectName)
        otype = od.ObjectType
        if otype == C.MQOT_Q_MGR:
            if options & ~(C.MQOO_INQUIRE | C.MQOO_FAIL_IF_QUIESCING | C.MQOO_ALTERNATE_USER_AUTHORITY):
                raise _fail(C.MQRC_OPTION_NOT_VALID_FOR_TYPE, "a queue manager can be opened only for inquire")
            if name and name != self.name:
                raise _fail(C.MQRC_OBJECT_NAME_ERROR, f"ObjectName must be blank or {self.name}")
            return self._new_handle(conn, C.MQOT_Q_MGR, self.name, options, None, self.qmgr, None)
        if otype == C.MQOT_PROCESS:
            if options & ~(C.MQOO_INQUIRE | C.MQOO_FAIL_IF_QUIESCING | C.MQOO_ALTERNATE_USER_AUTHORITY):
                raise _fail(C.MQRC_OPTION_NOT_VALID_FOR_TYPE, "a process can be opened only for inquire")
            d = self.definitions.get((PROCESS, name))
            if d is None:
                raise _fail(C.MQRC_UNKNOWN_OBJECT_NAME, f"process {name} does not exist")
            return self._new_handle(conn, C.MQOT_PROCESS, name, options, None, d, None)
        if otype != C.MQOT_Q:
            raise _fail(C.MQRC_OBJECT_TYPE_ERROR, f"object type {otype} is not supported")
        if not name:
            raise _fail(C.MQRC_UNKNOWN_OBJECT_NAME, "ObjectName is blank")
        d = self.definitions.get(("Q", name))
        if d is None:
            raise _fail(C.MQRC_UNKNOWN_OBJECT_NAME, f"queue {name} does not exist")
        alias: Definition | None = None
        created: Definition | None = None
        if d.otype == QALIAS:
            alias = d
            target = d.attrs["TARGET"]
            base = self.definitions.get(("Q", target))
            if base is None:
                raise _fail(C.MQRC_UNKNOWN_ALIAS_BASE_Q, f"alias {name} resolves to {target}, which does not exist")
            if base.otype != QLOCAL:
                raise _fail(C.MQRC_ALIAS_BASE_Q_TYPE_ERROR, f"alias {name} must resolve to a local queue")
            d = base
        elif d.otype == QMODEL:
            created = self._create_dynamic(d, _name(od.DynamicQName))
            d = created
        queue = self.queues[d.name]
        # input open mode, shareability
        if options & _INPUT_OPTS:
            mode = options & _INPUT_OPTS
            if mode == C.MQOO_INPUT_AS_Q_DEF:
                mode = queue.attrs["DEFSOPT"]
            if queue.attrs["SHARE"] == C.MQQA_NOT_SHAREABLE:
                mode = C.MQOO_INPUT_EXCLUSIVE
            if queue.exclusive is not None or (mode == C.MQOO_INPUT_EXCLUSIVE and queue.ipprocs > 0):
                if created is not None:
                    self._drop_queue(created)
                raise _fail(C.MQRC_OBJECT_IN_USE, f"queue {queue.name} is open for exclusive input")
            options = (options & ~_INPUT_OPTS) | mode
        h = self._new_handle(conn, C.MQOT_Q, name, options, queue, d, alias)
        if created is not None:
            h.owns_dynamic = True
            od.ObjectName = _char(created.name, 48)
        if options & _INPUT_OPTS:
            queue.ipprocs += 1
            if options & C.MQOO_INPUT_EXCLUSIVE:
                queue.exclusive = h
        if options & C.MQOO_OUTPUT:
            queue.opprocs += 1
        queue.handles.add(h)
        if od.Version >= 3:
            od.ResolvedQName = _char(queue.name, 48)
            od.ResolvedQMgrName = _char(self.name, 48)
        if od.Version >= 4:
            od.ResolvedType = C.MQOT_Q
        if options & _INPUT_OPTS and queue.ipprocs == 1:
            # seed 001, condition 13: an initiation queue opened for input when nobody else had it so
            self.triggering.initiation_queue_opened(queue)
        return h

    def _new_handle(
        self,
        conn: Connection,
        otype: int,
        name: str,
        options: int,
        queue: LocalQueue | None,
        d: Definition | None,
        alias: Definition | None,
    ) -> Handle:
        hobj = self._next_hobj
        self._next_hobj += 1
        h = Handle(hobj, conn, otype, name, options, queue, d, alias)
        conn.handles[hobj] = h
        return h

    def _create_dynamic(self, model: Definition, pattern: str) -> Definition:
        if not pattern:
            raise _fail(C.MQRC_DYNAMIC_Q_NAME_ERROR, "DynamicQName is blank")
        star = pattern.find("*")
        if star >= 0 and star != len(pattern) - 1:
            raise _fail(C.MQRC_DYNAMIC_Q_NAME_ERROR, "'*' may stand only at the end of DynamicQName")
        if star >= 0:
            prefix = pattern[:-1]
            self._dyn_counter += 1
            suffix = f"{int(self.clock.time()):08X}{self._dyn_counter:08X}"
            qname = (prefix + suffix)[:48] if len(prefix) + len(suffix) <= 48 else prefix[: 48 - 16] + suffix
        else:
            qname = pattern
        if not valid_object_name(qname):
            raise _fail(C.MQRC_DYNAMIC_Q_NAME_ERROR, f"{qname!r} is not a valid queue name")
        if ("Q", qname) in self.definitions:
            raise _fail(C.MQRC_OBJECT_ALREADY_EXISTS, f"queue {qname} already exists")
        attrs = {k: v for k, v in model.attrs.items() if k in defaults_for(QLOCAL)}
        now = self.clock.time()
        dyn = model.attrs["DEFTYPE"]
        d = Definition(QLOCAL, qname, attrs, now, now, dyn)
        self.definitions[("Q", qname)] = d
        self.queues[qname] = q = LocalQueue(d, self._expiry_candidates)
        self.triggering.queue_added(q)
        if dyn == C.MQQDT_PERMANENT_DYNAMIC:
            self._b().put_objects.append((QLOCAL, qname, d.to_bytes()))
            self._b().durable = True
        return d

    def _drop_queue(self, d: Definition) -> None:
        q = self.queues.pop(d.name, None)
        self.definitions.pop(("Q", d.name), None)
        if q is not None:
            q.deleted = True
            gone = q.clear_messages()
            persistent = [m.seq for m in gone if m.persistent]
            if persistent or d.dynamic != C.MQQDT_TEMPORARY_DYNAMIC:
                b = self._b()
                b.delete_queue_messages.append(d.name)
                if d.dynamic != C.MQQDT_TEMPORARY_DYNAMIC:
                    b.delete_objects.append((QLOCAL, d.name))
                b.durable = True

    def close(self, conn: Connection, hobj: Handle | int, options: int = C.MQCO_NONE) -> None:
        h = self._handle(conn, hobj)
        if options & ~(C.MQCO_DELETE | C.MQCO_DELETE_PURGE | C.MQCO_QUIESCE | C.MQCO_KEEP_SUB | C.MQCO_REMOVE_SUB):
            raise _fail(C.MQRC_OPTIONS_ERROR, f"unknown close options {options:#x}")
        if options & (C.MQCO_DELETE | C.MQCO_DELETE_PURGE):
            d = h.definition
            q = h.queue
            if q is None or d is None or d.dynamic == C.MQQDT_PREDEFINED:
                raise _fail(C.MQRC_OPTION_NOT_VALID_FOR_TYPE, "only a dynamic queue can be deleted on MQCLOSE")
            if options & C.MQCO_DELETE and (q.depth > 0 or q.uncommitted > 0):
                raise _fail(C.MQRC_Q_NOT_EMPTY, f"queue {q.name} has messages; use MQCO_DELETE_PURGE")
            if q.uncommitted > 0:
                raise _fail(C.MQRC_Q_NOT_EMPTY, f"queue {q.name} has uncommitted messages")
            others = [x for x in q.handles if x is not h]
            if others:
                raise _fail(C.MQRC_OBJECT_IN_USE, f"queue {q.name} is open by other handles")
        self._close(h, options, implicit=False)

    def _close(self, h: Handle, options: int, implicit: bool) -> None:
        conn = h.conn
        conn.handles.pop(h.hobj, None)
        q = h.queue
        if q is None:
            return
        if h.locked is not None:
            h.locked.locked_by = None
            h.locked = None
        if h.options & _INPUT_OPTS:
            q.ipprocs -= 1
            if q.exclusive is h:
                q.exclusive = None
        if h.options & C.MQOO_OUTPUT:
            q.opprocs -= 1
        q.handles.discard(h)
        d = h.definition
        if d is None or q.deleted:
            return
        if d.dynamic == C.MQQDT_TEMPORARY_DYNAMIC and h.owns_dynamic:
            self._purge_pending(q)
            self._drop_queue(d)
        elif d.dynamic == C.MQQDT_PERMANENT_DYNAMIC and options & (C.MQCO_DELETE | C.MQCO_DELETE_PURGE):
            self._drop_queue(d)
        elif h.options & _INPUT_OPTS and q.ipprocs == 0:
            # seed 001, condition 12: the only application serving the queue closed it
            self.triggering.input_closed(q)

    def _purge_pending(self, q: LocalQueue) -> None:
        """A temporary dynamic queue is going: forget its messages held in units of work."""
        for c in self.connections.values():
            u = c.uow
            if u is None:
                continue
            u.puts = [m for m in u.puts if m.queue is not q]
            u.gets = [m for m in u.gets if m.queue is not q]
            if u.marked is not None and u.marked.queue is q:
                u.marked = None

    # ==================================================================================================
    # MQPUT / MQPUT1
    # ==================================================================================================
    def put(self, conn: Connection, hobj: Handle | int, md: MQMD, pmo: MQPMO, data: bytes) -> int:
        """MQPUT. Returns MQRC_NONE or a warning reason; raises MQMIError on failure."""
        h = self._handle(conn, hobj)
        if not h.options & C.MQOO_OUTPUT:
            raise _fail(C.MQRC_NOT_OPEN_FOR_OUTPUT, f"queue {h.name} is not open for output")
        return self._put(conn, h, md, pmo, data)

    def put1(self, conn: Connection, od: MQOD, md: MQMD, pmo: MQPMO, data: bytes) -> int:
        """MQPUT1: open for output, put, close — as one call that fails as a whole."""
        self._check_conn(conn)
        opts = C.MQOO_OUTPUT
        ctx = pmo.Options & _CONTEXT_PUT_OPTS
        if ctx & C.MQPMO_SET_ALL_CONTEXT:
            opts |= C.MQOO_SET_ALL_CONTEXT
        elif ctx & C.MQPMO_SET_IDENTITY_CONTEXT:
            opts |= C.MQOO_SET_IDENTITY_CONTEXT
        elif ctx & C.MQPMO_PASS_ALL_CONTEXT:
            opts |= C.MQOO_PASS_ALL_CONTEXT
        elif ctx & C.MQPMO_PASS_IDENTITY_CONTEXT:
            opts |= C.MQOO_PASS_IDENTITY_CONTEXT
        h = self.open(conn, od, opts)
        try:
            return self._put(conn, h, md, pmo, data)
        finally:
            self._close(h, C.MQCO_NONE, implicit=True)

    def _put(self, conn: Connection, h: Handle, md: MQMD, pmo: MQPMO, data: bytes) -> int:
        q = h.queue
        assert q is not None
        if md.StrucId != b"MD  " or md.Version not in (1, 2):
            raise _fail(C.MQRC_MD_ERROR, "the message descriptor is not a valid MQMD")
        if pmo.StrucId != b"PMO " or pmo.Version not in (1, 2, 3):
            raise _fail(C.MQRC_PMO_ERROR, "the put-message options are not a valid MQPMO")
        opts = pmo.Options
        ctx = opts & _CONTEXT_PUT_OPTS
        source: dict[str, Any] | None = None
        if opts & _RARE_PUT_OPTS or opts & _BOTH_PUT_SYNC == _BOTH_PUT_SYNC:
            source = self._check_put_options(conn, h, pmo, opts, ctx)
        elif self.quiescing and opts & C.MQPMO_FAIL_IF_QUIESCING:
            raise _fail(C.MQRC_Q_MGR_QUIESCING, f"queue manager {self.name} is ending")
        # the message itself
        length = len(data)
        if length > self.qmgr.attrs["QMMAXMSGL"]:
            raise _fail(C.MQRC_MSG_TOO_BIG_FOR_Q_MGR, f"{length} bytes exceed the queue manager's MAXMSGL")
        qattrs = q.attrs
        if length > qattrs["MAXMSGL"]:
            raise _fail(C.MQRC_MSG_TOO_BIG_FOR_Q, f"{length} bytes exceed MAXMSGL of queue {q.name}")
        first = h.alias.attrs if h.alias is not None else qattrs
        prio = md.Priority
        reason = MQRC_NONE
        if prio == MQPRI_PRIORITY_AS_Q_DEF:
            prio = first["DEFPRTY"]
        elif prio < 0:
            raise _fail(C.MQRC_PRIORITY_ERROR, f"Priority {prio} is not valid")
        elif prio > 9:
            prio = 9
            reason = C.MQRC_PRIORITY_EXCEEDS_MAXIMUM
        pers = md.Persistence
        if pers == MQPER_PERSISTENCE_AS_Q_DEF:
            pers = first["DEFPSIST"]
        elif pers != MQPER_NOT_PERSISTENT and pers != MQPER_PERSISTENT:
            raise _fail(C.MQRC_PERSISTENCE_ERROR, f"Persistence {pers} is not valid")
        expiry = md.Expiry
        if expiry == 0 or expiry < MQEI_UNLIMITED:
            raise _fail(C.MQRC_EXPIRY_ERROR, f"Expiry {expiry} is not valid: use a positive value or MQEI_UNLIMITED")
        if md.Format == MQFMT_XMIT_Q_HEADER:
            self._check_xqh_expiry(expiry, data)
        mt = md.MsgType
        if mt not in _PLAIN_MSG_TYPES and not (
            C.MQMT_APPL_FIRST <= mt <= C.MQMT_APPL_LAST or 1 <= mt <= C.MQMT_SYSTEM_LAST
        ):
            raise _fail(C.MQRC_MSG_TYPE_ERROR, f"MsgType {mt} is not valid")
        if mt == MQMT_REQUEST and not _name(md.ReplyToQ):
            raise _fail(C.MQRC_MISSING_REPLY_TO_Q, "a request message needs ReplyToQ")
        if pers == MQPER_PERSISTENT and q.definition.dynamic == C.MQQDT_TEMPORARY_DYNAMIC:
            raise _fail(
                C.MQRC_PERSISTENT_NOT_ALLOWED, f"temporary dynamic queue {q.name} cannot hold persistent messages"
            )
        if first["PUT"] == MQQA_PUT_INHIBITED or qattrs["PUT"] == MQQA_PUT_INHIBITED:
            raise _fail(C.MQRC_PUT_INHIBITED, f"puts are inhibited for queue {h.name}")
        if q.depth >= qattrs["MAXDEPTH"]:
            raise _fail(C.MQRC_Q_FULL, f"queue {q.name} is full (MAXDEPTH {qattrs['MAXDEPTH']})")
        if q.fifo:
            prio = qattrs["DEFPRTY"]  # seed 001, condition 14: FIFO assigns the queue's default priority
        syncpoint = opts & MQPMO_SYNCPOINT
        uow = conn.uow
        if syncpoint and uow is not None and len(uow.puts) + len(uow.gets) >= self.qmgr.attrs["MAXUMSGS"]:
            raise _fail(C.MQRC_SYNCPOINT_LIMIT_REACHED, "the unit of work has reached MAXUMSGS")
        # -- from here on the put succeeds: build the descriptor --------------------------------------
        now = self.clock.time()
        out = md  # output fields are written back into the caller's MQMD
        d = out.__dict__
        if md.MsgId == _NONE24 or opts & MQPMO_NEW_MSG_ID or not md.MsgId.strip(b"\0"):
            d["MsgId"] = self.new_msgid()
        if opts & MQPMO_NEW_CORREL_ID:
            d["CorrelId"] = self.new_msgid()
        if not ctx:
            # the default context: every identity and origin field is the queue manager's, already exact
            d.update(conn.context)
            d["PutDate"], d["PutTime"] = put_date_time(now)
            check = _APPL_CHAR_FIELDS
        else:
            self._put_context(conn, out, ctx, source, now)
            check = _ALL_CHAR_FIELDS
        # MQCCSI_Q_MGR is replaced by the queue manager's CCSID, and a blank ReplyToQMgr by the queue manager's
        # name, as IBM MQ does on MQPUT (the caller's MQMD shows both)
        if d["CodedCharSetId"] == MQCCSI_Q_MGR:
            d["CodedCharSetId"] = self.qmgr.attrs["CCSID"]
        if not out.ReplyToQMgr.strip(b" \0"):
            d["ReplyToQMgr"] = self.name48
        pmo.ResolvedQName = q.name48
        pmo.ResolvedQMgrName = self.name48
        out.normalize(check)  # the character fields the caller could have set
        stored = dict(d)
        stored["Version"] = 2
        stored["Priority"] = prio
        stored["Persistence"] = pers
        stored["BackoutCount"] = 0
        seq = self._seq
        self._seq = seq + 1
        m = Message(
            seq,
            q,
            prio,
            pers == MQPER_PERSISTENT,
            stored,
            bytes(data),
            stored["MsgId"],
            stored["CorrelId"],
            stored["GroupId"],
            stored["MsgSeqNumber"],
            expiry,
            now,
        )
        q.depth += 1
        q.last_put = now
        if syncpoint:
            uow = self._uow(conn)
            uow.puts.append(m)
            m.state = PUT_PENDING
            q.uncommitted += 1
        else:
            uow = None
            self._make_visible(m)
        if qattrs["TRIGGER"] == MQTC_ON:
            self.triggering.message_put(m, uow)  # seed 001, condition 1
        return reason

    def _check_put_options(self, conn: Connection, h: Handle, pmo: MQPMO, opts: int, ctx: int) -> dict[str, Any] | None:
        """The put options beyond the plain ones (context, both syncpoint options, unknown bits), checked in
        MQPUT's order; returns the saved context a MQPMO_PASS_* option names (None for the others)."""
        if opts & ~_KNOWN_PUT_OPTS:
            raise _fail(C.MQRC_OPTIONS_ERROR, f"unknown or unsupported put options {opts & ~_KNOWN_PUT_OPTS:#x}")
        if opts & C.MQPMO_SYNCPOINT and opts & C.MQPMO_NO_SYNCPOINT:
            raise _fail(C.MQRC_OPTIONS_ERROR, "MQPMO_SYNCPOINT and MQPMO_NO_SYNCPOINT together")
        if ctx & (ctx - 1):
            raise _fail(C.MQRC_OPTIONS_ERROR, "only one MQPMO context option may be given")
        if self.quiescing and opts & C.MQPMO_FAIL_IF_QUIESCING:
            raise _fail(C.MQRC_Q_MGR_QUIESCING, f"queue manager {self.name} is ending")
        if ctx & C.MQPMO_SET_ALL_CONTEXT and not h.options & C.MQOO_SET_ALL_CONTEXT:
            raise _fail(C.MQRC_OPTIONS_ERROR, "MQPMO_SET_ALL_CONTEXT needs the queue opened MQOO_SET_ALL_CONTEXT")
        if ctx & C.MQPMO_SET_IDENTITY_CONTEXT and not h.options & (
            C.MQOO_SET_IDENTITY_CONTEXT | C.MQOO_SET_ALL_CONTEXT
        ):
            raise _fail(
                C.MQRC_OPTIONS_ERROR, "MQPMO_SET_IDENTITY_CONTEXT needs the queue opened MQOO_SET_IDENTITY_CONTEXT"
            )
        source: dict[str, Any] | None = None
        if ctx & (C.MQPMO_PASS_ALL_CONTEXT | C.MQPMO_PASS_IDENTITY_CONTEXT):
            need = C.MQOO_PASS_ALL_CONTEXT if ctx & C.MQPMO_PASS_ALL_CONTEXT else C.MQOO_PASS_IDENTITY_CONTEXT
            if not h.options & (need | C.MQOO_PASS_ALL_CONTEXT | C.MQOO_SET_ALL_CONTEXT | C.MQOO_SET_IDENTITY_CONTEXT):
                raise _fail(C.MQRC_OPTIONS_ERROR, "a MQPMO_PASS_* context option needs the matching MQOO option")
            src = conn.handles.get(pmo.Context) if pmo.Context else None
            if src is None or not src.options & C.MQOO_SAVE_ALL_CONTEXT:
                raise _fail(C.MQRC_CONTEXT_HANDLE_ERROR, "Context must be an input handle opened MQOO_SAVE_ALL_CONTEXT")
            source = src.saved_context or {}
        return source

    @staticmethod
    def _put_context(conn: Connection, out: MQMD, ctx: int, source: dict[str, Any] | None, now: float) -> None:
        """The context fields of a put with a MQPMO context option (the default context is set inline)."""
        if ctx & C.MQPMO_SET_ALL_CONTEXT:
            pass  # every context field as the application set it
        elif ctx & C.MQPMO_NO_CONTEXT:
            for f in _CONTEXT_IDENTITY:
                out.__dict__[f] = MQMD._defaults[f]
            out.PutApplType = C.MQAT_NO_CONTEXT
            out.PutApplName = b" " * 28
            out.PutDate = b" " * 8
            out.PutTime = b" " * 8
            out.ApplOriginData = b" " * 4
        elif ctx & C.MQPMO_PASS_ALL_CONTEXT and source is not None:
            for f in _CONTEXT_IDENTITY + _CONTEXT_ORIGIN:
                if f in source:
                    out.__dict__[f] = source[f]
        else:
            if ctx & C.MQPMO_PASS_IDENTITY_CONTEXT and source is not None:
                for f in _CONTEXT_IDENTITY:
                    if f in source:
                        out.__dict__[f] = source[f]
            elif not ctx & C.MQPMO_SET_IDENTITY_CONTEXT:
                out.UserIdentifier = conn.user12
                out.AccountingToken = C.MQACT_NONE
                out.ApplIdentityData = b" " * 32
            out.PutApplType = conn.appl_type
            out.PutApplName = conn.appl_name28
            out.PutDate, out.PutTime = put_date_time(now)
            out.ApplOriginData = b" " * 4

    @staticmethod
    def _uow(conn: Connection) -> UnitOfWork:
        uow = conn.uow
        if uow is None:
            uow = conn.uow = UnitOfWork()
        return uow

    def _make_visible(self, m: Message) -> None:
        """A put outside syncpoint, or a committed one: available to getters, durable if persistent."""
        q = m.queue
        q.make_available(m)
        if m.persistent:
            b = self._b()
            b.put_messages.append(self._stored(m))
            b.durable = True
        self._wake.add(q.name)

    @staticmethod
    def _stored(m: Message) -> StoredMessage:
        fields = m.md
        raw: bytes | None = None
        if fields["Version"] == 2:
            # a message's fields are normalised when it is put (or read back), so MQMD.pack's per-field
            # checks would change nothing: pack them at once, and leave anything unusual to MQMD.pack
            try:
                raw = _MD2_PACK(*_MD2_VALUES(fields))
            except struct.error:
                raw = None
        if raw is None:
            md = MQMD.__new__(MQMD)
            md.__dict__.update(fields)
            raw = md.pack()
        return StoredMessage(m.seq, m.queue.name, m.priority, raw, m.data, m.backout, m.put_time)

    def new_msgid(self) -> bytes:
        """A unique MsgId: "AMQ ", the queue manager name, and a counter. The counter starts from the clock
        and above a high-water mark the store keeps, reserved in blocks, so no MsgId is issued twice — not
        even after a restart on a clock that has not moved."""
        c = self._msgid_counter = self._msgid_counter + 1
        if c >= self._msgid_reserved:
            self._msgid_reserved = c + _MSGID_BLOCK
            self._b().counters["msgid"] = self._msgid_reserved
        return self._msgid_prefix + _COUNTER(c)

    # ==================================================================================================
    # MQGET
    # ==================================================================================================
    def get(self, conn: Connection, hobj: Handle | int, md: MQMD, gmo: MQGMO, buflen: int | None = None) -> GetResult:
        """MQGET without waiting. Raises MQRC_NO_MSG_AVAILABLE when nothing matches; the caller waits.

        ``buflen`` None means a buffer as large as the message.
        """
        h = self._handle(conn, hobj)
        q = h.queue
        if md.StrucId != b"MD  " or md.Version not in (1, 2):
            raise _fail(C.MQRC_MD_ERROR, "the message descriptor is not a valid MQMD")
        if gmo.StrucId != b"GMO " or gmo.Version not in (1, 2, 3, 4):
            raise _fail(C.MQRC_GMO_ERROR, "the get-message options are not a valid MQGMO")
        opts = gmo.Options
        # the options beyond the plain ones (browse, cursor, lock, mark, unknown bits) are checked only when given
        rare = opts & _RARE_GET_OPTS
        if rare:
            if opts & _UNSUPPORTED_GET_OPTS:
                raise _fail(
                    C.MQRC_OPTIONS_ERROR,
                    f"get options {opts & _UNSUPPORTED_GET_OPTS:#x} (signals, logical order, groups, segments, "
                    "cooperative browse, message handles) are not supported by syncpoint",
                )
            if opts & ~(_KNOWN_GET_OPTS | _UNSUPPORTED_GET_OPTS):
                raise _fail(C.MQRC_OPTIONS_ERROR, f"unknown get options {opts & ~_KNOWN_GET_OPTS:#x}")
        sync = opts & _SYNC_GET_OPTS
        if sync & (sync - 1):
            raise _fail(C.MQRC_OPTIONS_ERROR, "only one of MQGMO_SYNCPOINT, _NO_SYNCPOINT, _SYNCPOINT_IF_PERSISTENT")
        browse = 0
        cursor_opts = 0
        if rare:
            browse = opts & (C.MQGMO_BROWSE_FIRST | C.MQGMO_BROWSE_NEXT | C.MQGMO_BROWSE_MSG_UNDER_CURSOR)
            cursor_opts = opts & _BROWSE_GET_OPTS
            if cursor_opts & (cursor_opts - 1):
                raise _fail(C.MQRC_OPTIONS_ERROR, "only one browse / under-cursor option may be given")
            if browse and sync & (MQGMO_SYNCPOINT | MQGMO_SYNCPOINT_IF_PERSISTENT):
                raise _fail(C.MQRC_OPTIONS_ERROR, "a browse cannot be in syncpoint")
            if opts & C.MQGMO_MARK_SKIP_BACKOUT and not opts & MQGMO_SYNCPOINT:
                raise _fail(C.MQRC_OPTIONS_ERROR, "MQGMO_MARK_SKIP_BACKOUT needs MQGMO_SYNCPOINT")
            if opts & C.MQGMO_LOCK and not browse:
                raise _fail(C.MQRC_OPTIONS_ERROR, "MQGMO_LOCK is valid only with a browse option")
            if opts & C.MQGMO_UNLOCK and opts & ~(C.MQGMO_UNLOCK | C.MQGMO_NO_WAIT | C.MQGMO_NO_SYNCPOINT):
                raise _fail(C.MQRC_OPTIONS_ERROR, "MQGMO_UNLOCK must be given alone")
        if opts & MQGMO_WAIT and gmo.WaitInterval < C.MQWI_UNLIMITED:
            raise _fail(C.MQRC_WAIT_INTERVAL_ERROR, f"WaitInterval {gmo.WaitInterval} is not valid")
        if buflen is not None and buflen < 0:
            raise _fail(C.MQRC_BUFFER_LENGTH_ERROR, "the buffer length is negative")
        if q is None:
            raise _fail(C.MQRC_NOT_OPEN_FOR_INPUT, f"{h.name} is not a queue")
        if cursor_opts:
            if not h.options & C.MQOO_BROWSE:
                raise _fail(C.MQRC_NOT_OPEN_FOR_BROWSE, f"queue {h.name} is not open for browse")
            if opts & C.MQGMO_MSG_UNDER_CURSOR and not h.is_input:
                raise _fail(C.MQRC_NOT_OPEN_FOR_INPUT, f"queue {h.name} is not open for input")
        elif rare and opts & C.MQGMO_UNLOCK:
            if not h.options & C.MQOO_BROWSE:
                raise _fail(C.MQRC_NOT_OPEN_FOR_BROWSE, f"queue {h.name} is not open for browse")
            if h.locked is None:
                return GetResult(b"", 0, _WARNING, C.MQRC_NO_MSG_LOCKED)
            h.locked.locked_by = None
            h.locked = None
            self._wake.add(q.name)
            return GetResult(b"", 0)
        elif not h.options & _INPUT_OPTS:
            raise _fail(C.MQRC_NOT_OPEN_FOR_INPUT, f"queue {h.name} is not open for input")
        if self.quiescing and opts & C.MQGMO_FAIL_IF_QUIESCING:
            raise _fail(C.MQRC_Q_MGR_QUIESCING, f"queue manager {self.name} is ending")
        qattrs = q.attrs
        if qattrs["GET"] == MQQA_GET_INHIBITED or (h.alias is not None and h.alias.attrs["GET"] == MQQA_GET_INHIBITED):
            raise _fail(C.MQRC_GET_INHIBITED, f"gets are inhibited for queue {h.name}")
        uow = conn.uow
        if rare and opts & C.MQGMO_MARK_SKIP_BACKOUT and uow is not None and uow.marked is not None:
            raise _fail(
                C.MQRC_SECOND_MARK_NOT_ALLOWED, "a message is already marked to skip backout in this unit of work"
            )
        now = self.clock.time()
        # -- find the message ------------------------------------------------------------------------
        if rare and opts & (C.MQGMO_MSG_UNDER_CURSOR | C.MQGMO_BROWSE_MSG_UNDER_CURSOR):
            m = h.cursor
            if (
                m is None
                or m.state != AVAILABLE
                or m.queue is not q
                or (m.locked_by is not None and m.locked_by is not h)
                or (m.reserved_by is not None and m.reserved_by is not conn)
            ):
                raise _fail(C.MQRC_NO_MSG_UNDER_CURSOR, "the browse cursor is not on an available message")
            if m.reserved_by is None and m.expired(now):
                self._discard_expired(m)
                h.cursor = None
                raise _fail(C.MQRC_NO_MSG_UNDER_CURSOR, "the message under the browse cursor has expired")
        else:
            after = h.browse_key if rare and opts & C.MQGMO_BROWSE_NEXT else None
            found = self._find(h, q, md, gmo, after, now)
            if found is None:
                raise _fail(C.MQRC_NO_MSG_AVAILABLE, None)
            m = found
        # -- syncpoint decision and limits ----------------------------------------------------------
        in_uow = False
        if not browse:
            in_uow = bool(sync & MQGMO_SYNCPOINT) or bool(sync & MQGMO_SYNCPOINT_IF_PERSISTENT and m.persistent)
            if in_uow and uow is not None and len(uow.puts) + len(uow.gets) >= self.qmgr.attrs["MAXUMSGS"]:
                raise _fail(C.MQRC_SYNCPOINT_LIMIT_REACHED, "the unit of work has reached MAXUMSGS")
        # -- fill the MQMD and the buffer ------------------------------------------------------------
        d = md.__dict__
        version = d["Version"]
        d.update(m.md)
        d["Version"] = version
        d["BackoutCount"] = m.backout
        if m.expiry == MQEI_UNLIMITED:
            d["Expiry"] = MQEI_UNLIMITED
        else:
            # the last tenth, or a reserved message delivered past its expiry, shows 1
            d["Expiry"] = max(1, m.remaining_expiry(now))
        gversion = gmo.Version
        if gversion >= 2:
            if gversion >= 3:
                gmo.MsgToken = _TOKEN.pack(0, m.seq)
            gmo.GroupStatus = b" "
            gmo.SegmentStatus = b" "
            gmo.Segmentation = b" "
        gmo.ResolvedQName = q.name48
        body = m.data
        if m.md["Format"] == MQFMT_XMIT_Q_HEADER:
            body = self._xqh_decremented(m, now)
        total = len(body)
        if gversion >= 3:
            gmo.ReturnedLength = total if buflen is None else min(total, buflen)
        if buflen is not None and total > buflen:
            if not opts & C.MQGMO_ACCEPT_TRUNCATED_MSG:
                if browse:
                    self._position_cursor(h, m, opts)
                return GetResult(body[:buflen], total, _WARNING, C.MQRC_TRUNCATED_MSG_FAILED)
            result = GetResult(body[:buflen], total, _WARNING, C.MQRC_TRUNCATED_MSG_ACCEPTED)
        else:
            result = GetResult(body, total)
        # -- apply -----------------------------------------------------------------------------------
        if browse:
            self._position_cursor(h, m, opts)
            return result
        q.take(m)
        if h.cursor is m:
            h.cursor = None
        q.depth -= 1
        q.note_get(now, m.put_time)  # LGETDATE / LGETTIME, QTIME
        if h.options & MQOO_SAVE_ALL_CONTEXT:
            h.saved_context = {f: d[f] for f in _CONTEXT_IDENTITY + _CONTEXT_ORIGIN}
        if in_uow:
            uow = self._uow(conn)
            uow.gets.append(m)
            m.state = GOT_PENDING
            q.uncommitted += 1
            if opts & C.MQGMO_MARK_SKIP_BACKOUT:
                uow.marked = m
            if m.persistent:
                self._b().inflight_add.append(m.seq)
        else:
            m.state = GONE
            if m.persistent:
                b = self._b()
                b.delete_messages.append(m.seq)
                b.durable = True
        return result

    def _position_cursor(self, h: Handle, m: Message, opts: int) -> None:
        if opts & (C.MQGMO_BROWSE_FIRST | C.MQGMO_BROWSE_NEXT):
            h.browse_key = m.key
            h.cursor = m
        if opts & C.MQGMO_LOCK:
            if h.locked is not None and h.locked is not m:
                h.locked.locked_by = None
                self._wake.add(h.locked.queue.name)
            h.locked = m
            m.locked_by = h

    def _find(self, h: Handle, q: LocalQueue, md: MQMD, gmo: MQGMO, after: int | None, now: float) -> Message | None:
        """The first available message in delivery order that this handle may see and that matches.

        Expired messages met on the way are discarded (seed 002): this is the "get that would have returned
        the message" that discards it. A message reserved by another connection is skipped unless matched by
        its MsgToken; a reserved message is never discarded as expired (see :meth:`reserve`).
        """
        mo = gmo.MatchOptions if gmo.Version >= 2 else _ID_MATCH
        msgid = md.MsgId if mo & C.MQMO_MATCH_MSG_ID and md.MsgId != _NONE24 else None
        correlid = md.CorrelId if mo & C.MQMO_MATCH_CORREL_ID and md.CorrelId != _NONE24 else None
        if after is None and msgid is None and correlid is None and not mo & _OTHER_MATCH:
            return self._first(h, q, now)  # nothing to match: the first message this handle may have
        groupid = None
        seqno = None
        if md.Version >= 2:
            if mo & C.MQMO_MATCH_GROUP_ID and md.GroupId != _NONE24:
                groupid = md.GroupId
            if mo & C.MQMO_MATCH_MSG_SEQ_NUMBER:
                seqno = md.MsgSeqNumber
        elif mo & (C.MQMO_MATCH_GROUP_ID | C.MQMO_MATCH_MSG_SEQ_NUMBER):
            raise _fail(C.MQRC_MATCH_OPTIONS_ERROR, "group match options need a version-2 MQMD")
        token = None
        if mo & C.MQMO_MATCH_MSG_TOKEN:
            if gmo.Version < 3:
                raise _fail(C.MQRC_MATCH_OPTIONS_ERROR, "MQMO_MATCH_MSG_TOKEN needs a version-3 MQGMO")
            token = struct.unpack(">QQ", gmo.MsgToken)[1]
        if mo & C.MQMO_MATCH_OFFSET:
            raise _fail(C.MQRC_MATCH_OPTIONS_ERROR, "segmented messages are not supported")
        simple = msgid is None and correlid is None and groupid is None and seqno is None and token is None
        expired: list[Message] = []
        chosen: Message | None = None
        if token is not None:  # at most one message has this token: look it up by key, do not walk the queue
            one = q.by_token(token)
            source: Any = () if one is None or (after is not None and one.key <= after) else (one,)
        else:
            source = q.iter_from(after) if after is not None else q.iter_all()
        conn = h.conn
        for m in source:
            if m.locked_by is not None and m.locked_by is not h:
                continue
            reserved = m.reserved_by
            if reserved is not None and reserved is not conn and token is None:
                continue  # reserved by another connection: reached only by its MsgToken
            if not simple and (
                (msgid is not None and m.msgid != msgid)
                or (correlid is not None and m.correlid != correlid)
                or (groupid is not None and m.groupid != groupid)
                or (seqno is not None and m.seqno != seqno)
                or (token is not None and m.seq != token)
            ):
                continue
            if m.expiry != C.MQEI_UNLIMITED and reserved is None and m.expired(now):
                expired.append(m)
                continue
            chosen = m
            break
        for m in expired:
            self._discard_expired(m)
        return chosen

    def _first(self, h: Handle, q: LocalQueue, now: float) -> Message | None:
        """:meth:`_find` without match options from the start of the queue: the first available message not
        locked by another handle nor reserved by another connection; expired ones met on the way are discarded."""
        by_key = q.by_key
        if not by_key:  # nothing available: no walk
            return None
        conn = h.conn
        expired: list[Message] | None = None
        chosen: Message | None = None
        for key in q.index:
            m = by_key[key]
            locked = m.locked_by
            if locked is not None and locked is not h:
                continue
            reserved = m.reserved_by
            if reserved is not None and reserved is not conn:
                continue  # reserved by another connection: reached only by its MsgToken
            if m.expiry != MQEI_UNLIMITED and reserved is None and m.expired(now):
                if expired is None:
                    expired = []
                expired.append(m)
                continue
            chosen = m
            break
        if expired is not None:
            for m in expired:
                self._discard_expired(m)
        return chosen

    def _discard_expired(self, m: Message) -> None:
        """Discard an expired message outside any unit of work and send its expiration report (seed 002,
        notes 3 and 4): neither is part of the application's unit of work, whatever called us."""
        q = m.queue
        q.take(m)
        m.state = GONE
        q.depth -= 1
        self.expired_discarded += 1
        if m.persistent:
            b = self._b()
            b.delete_messages.append(m.seq)
            b.durable = True
        keep = expiration_report_wanted(m.md["Report"])
        if keep >= 0:
            self._expiration_report(m, keep)

    def _expiration_report(self, m: Message, keep: int) -> None:
        original = MQMD.__new__(MQMD)
        original.__dict__.update(m.md)
        dest = _name(original.ReplyToQ)
        dest_qm = _name(original.ReplyToQMgr) or self.name
        if not dest:
            _log.warning("expired message %s asked for a report but has no ReplyToQ", original.MsgId.hex())
            return
        md, data = report_message(original, m.data, C.MQFB_EXPIRATION, keep, self.name, self.new_msgid())
        self.system_put(dest, md, data, dest_qmgr=dest_qm)

    def system_put(self, qname: str, md: MQMD, data: bytes, dest_qmgr: str | None = None) -> bool:
        """A put by the queue manager itself (reports, trigger messages), outside any unit of work.

        When the destination cannot take it, the message goes to the dead-letter queue with an MQDLH whose
        Reason says why; when that fails too it is dropped and logged. Returns True when put as addressed.
        """
        reason = self._system_put_to(qname, md, data, dest_qmgr)
        if reason == C.MQRC_NONE:
            return True
        self.dead_letter_message(md, data, reason, qname, dest_qmgr or self.name)
        return False

    def dead_letter_message(self, md: MQMD, data: bytes, reason: int, dest_q: str, dest_qmgr: str) -> bool:
        """Put a message on the dead-letter queue (DEADQ) with an MQDLH, keeping its remaining expiry."""
        dlq = self.qm_attr("DEADQ")
        if not dlq:
            _log.error("no dead-letter queue: message for %s dropped (reason %d)", dest_q, reason)
            return False
        dmd, ddata = dead_letter_message(
            md,
            data,
            reason=reason,
            dest_q=dest_q,
            dest_qmgr=dest_qmgr,
            put_appl_type=C.MQAT_QMGR,
            put_appl_name=self.name,
            now=self.clock.time(),
            header_ccsid=self.qm_attr("CCSID"),
        )
        r = self._system_put_to(dlq, dmd, ddata, None)
        if r != C.MQRC_NONE:
            _log.error("dead-letter queue %s refused a message for %s (reason %d): dropped", dlq, dest_q, r)
            return False
        return True

    def _system_put_to(self, qname: str, md: MQMD, data: bytes, dest_qmgr: str | None) -> int:
        if dest_qmgr and dest_qmgr != self.name:
            return C.MQRC_UNKNOWN_REMOTE_Q_MGR
        d = self.definitions.get(("Q", qname))
        if d is None:
            return C.MQRC_UNKNOWN_OBJECT_NAME
        first = d.attrs
        if d.otype == QALIAS:
            base = self.definitions.get(("Q", d.attrs["TARGET"]))
            if base is None or base.otype != QLOCAL:
                return C.MQRC_UNKNOWN_ALIAS_BASE_Q
            d = base
        elif d.otype != QLOCAL:
            return C.MQRC_Q_TYPE_ERROR
        q = self.queues[d.name]
        if first["PUT"] == C.MQQA_PUT_INHIBITED or q.attrs["PUT"] == C.MQQA_PUT_INHIBITED:
            return C.MQRC_PUT_INHIBITED
        if len(data) > q.attrs["MAXMSGL"]:
            return C.MQRC_MSG_TOO_BIG_FOR_Q
        if q.depth >= q.attrs["MAXDEPTH"]:
            return C.MQRC_Q_FULL
        now = self.clock.time()
        out = md.copy()
        out.Version = 2
        if out.Priority < 0:
            out.Priority = first["DEFPRTY"]
        if out.Persistence == C.MQPER_PERSISTENCE_AS_Q_DEF:
            out.Persistence = first["DEFPSIST"]
        if q.fifo:
            out.Priority = q.attrs["DEFPRTY"]
        if out.Persistence == C.MQPER_PERSISTENT and q.definition.dynamic == C.MQQDT_TEMPORARY_DYNAMIC:
            return C.MQRC_PERSISTENT_NOT_ALLOWED
        if out.MsgId == _NONE24:
            out.MsgId = self.new_msgid()
        if not out.PutDate.strip():
            out.PutDate, out.PutTime = put_date_time(now)
        out.BackoutCount = 0
        seq = self._seq
        self._seq = seq + 1
        m = Message(
            seq,
            q,
            min(max(out.Priority, 0), 9),
            out.Persistence == C.MQPER_PERSISTENT,
            dict(out.normalize().__dict__),
            bytes(data),
            out.MsgId,
            out.CorrelId,
            out.GroupId,
            out.MsgSeqNumber,
            out.Expiry,
            now,
        )
        q.depth += 1
        q.last_put = now
        self._make_visible(m)
        self.on_system_put(m)
        return C.MQRC_NONE

    def on_system_put(self, m: Message) -> None:
        """Triggering: a message the queue manager put (report, dead letter) became available (condition 1)."""
        if m.queue.attrs["TRIGGER"] == C.MQTC_ON:
            self.triggering.message_put(m, None)

    # -- expiry scans --------------------------------------------------------------------------------
    def housekeeping(self) -> None:
        """Run what is due by the clock: the periodic scan for expired messages (EXPRYINT, seconds)."""
        if not self._expiry_candidates:  # the common case, first: no queue holds a message that can expire
            return
        interval = self.qmgr.attrs["EXPRYINT"]
        if interval <= 0:
            return
        mono = self.clock.monotonic()
        if mono < self._next_expiry_scan:
            return
        self._next_expiry_scan = mono + interval
        self._scan_expired(list(self._expiry_candidates))

    def refresh_expiry(self, pattern: str = "*") -> int:
        """REFRESH QMGR TYPE(EXPIRY) NAME(pattern): discard expired messages of the named queues now.

        Only queues that hold messages with a limited expiry are looked at, and in them only those messages.
        Returns how many were discarded.
        """
        queues = [q for q in self._expiry_candidates if matches_generic(pattern, q.name)]
        return self._scan_expired(queues)

    def _scan_expired(self, queues: list[LocalQueue]) -> int:
        now = self.clock.time()
        n = 0
        for q in queues:
            for m in q.pop_expired(now):
                self._discard_expired(m)
                n += 1
        return n

    # -- messages carrying a transmission-queue header (seed 002, note 9) ----------------------------
    @staticmethod
    def _check_xqh_expiry(outer: int, data: bytes) -> None:
        inner = xqh_expiry(data)
        if inner is None:
            raise _fail(C.MQRC_EXPIRY_ERROR, "Format MQXMIT needs data starting with an MQXQH and its MQMD")
        if inner == 0 or inner < C.MQEI_UNLIMITED:
            raise _fail(C.MQRC_EXPIRY_ERROR, f"the Expiry {inner} in the MQXQH's MQMD is not valid")
        if outer != C.MQEI_UNLIMITED and (inner == C.MQEI_UNLIMITED or inner > outer):
            raise _fail(
                C.MQRC_EXPIRY_ERROR,
                f"the Expiry in the MQXQH's MQMD ({inner}) outlives the message's own Expiry ({outer})",
            )

    @staticmethod
    def _xqh_decremented(m: Message, now: float) -> bytes:
        inner = xqh_expiry(m.data)
        if inner is None or inner == C.MQEI_UNLIMITED:
            return m.data  # short data is not an error on get
        remaining = inner - int((now - m.put_time) * 10)
        return with_xqh_expiry(m.data, max(remaining, 0))

    # ==================================================================================================
    # Reservations and batches by MsgToken (not MQI verbs: syncpoint's own, for Spark's in-flight batches)
    # ==================================================================================================
    def reserve(self, conn: Connection, hobj: Handle | int, tokens: Sequence[int]) -> list[int]:
        """Reserve the queue's messages with these MsgTokens for this connection; returns the tokens reserved.

        While reserved, a message stays on the queue (CURDEPTH and triggering count it) but an MQGET or browse
        by another connection skips it unless it names it by MQMO_MATCH_MSG_TOKEN, and neither the expiry scan
        nor a get discards it when its expiry passes (it is delivered with Expiry 1). A reservation ends with
        :meth:`release`, when the message is removed (a committed get), and when the connection ends, normally
        or not; it is kept in memory only, so a restart forgets it. A backed-out get of a reserved message
        leaves it reserved. Not reserved (and not an error): a token not on the queue, a message reserved by
        another connection, one got in a unit of work that has not ended, one locked by another connection's
        browse. The handle must be open for browse or input (else MQRC_NOT_OPEN_FOR_BROWSE).
        """
        h = self._handle(conn, hobj)
        q = self._reserving_queue(h)
        out: list[int] = []
        for t in dict.fromkeys(_tokens(tokens)):
            m = q.by_token(t)
            if m is None:  # gone, or held by a unit of work: ours only if we reserved it before
                mine = conn.reserved.get(t)
                if mine is not None and mine.queue is q and mine.reserved_by is conn and mine.state != GONE:
                    out.append(t)
                continue
            if m.reserved_by is not None and m.reserved_by is not conn:
                continue
            if m.locked_by is not None and m.locked_by.conn is not conn:
                continue
            m.reserved_by = conn
            conn.reserved[t] = m
            out.append(t)
        return out

    def release(self, conn: Connection, hobj: Handle | int, tokens: Sequence[int] | None = None) -> list[int]:
        """End this connection's reservations of the queue's messages with these tokens (None: all of them);
        returns the tokens released (those still on the queue or in a unit of work). Waiting gets are woken."""
        h = self._handle(conn, hobj)
        q = self._reserving_queue(h)
        return self._release(conn, _tokens(tokens) if tokens is not None else list(conn.reserved), q)

    def _release(self, conn: Connection, tokens: Iterable[int], q: LocalQueue | None) -> list[int]:
        out: list[int] = []
        for t in tokens:
            m = conn.reserved.get(t)
            if m is None or (q is not None and m.queue is not q):
                continue
            del conn.reserved[t]
            if m.reserved_by is not conn:
                continue
            m.reserved_by = None
            if m.state == GONE:
                continue
            out.append(t)
            if m.state == AVAILABLE:
                m.queue.track_expiry(m)
                self._wake.add(m.queue.name)
        return out

    @staticmethod
    def _reserving_queue(h: Handle) -> LocalQueue:
        q = h.queue
        if q is None or not h.options & (C.MQOO_BROWSE | _INPUT_OPTS):
            raise _fail(C.MQRC_NOT_OPEN_FOR_BROWSE, f"{h.name} is not a queue open for browse or input")
        return q

    def get_tokens(
        self, conn: Connection, hobj: Handle | int, tokens: Sequence[int], gmo: MQGMO, buflen: int | None = None
    ) -> tuple[list[tuple[MQMD, GetResult] | None], MQMIError | None]:
        """One MQGET (a browse with MQGMO_BROWSE_FIRST) per token, in the order given, each with a copy of
        ``gmo`` matching only that MsgToken (MQGMO version 3) and a fresh MQMD: the same as that many gets.
        None where no message has the token (gone). Ends at the first other failure, which is returned after
        the results before it. MQGMO_WAIT is MQRC_OPTIONS_ERROR: a batch by token does not wait."""
        h = self._handle(conn, hobj)
        toks = _tokens(tokens)
        if gmo.Options & C.MQGMO_WAIT:
            raise _fail(C.MQRC_OPTIONS_ERROR, "a get by MsgTokens does not wait: leave out MQGMO_WAIT")
        browse = gmo.Options & (C.MQGMO_BROWSE_FIRST | C.MQGMO_BROWSE_NEXT | C.MQGMO_BROWSE_MSG_UNDER_CURSOR)
        if browse and not h.options & C.MQOO_BROWSE:
            raise _fail(C.MQRC_NOT_OPEN_FOR_BROWSE, f"queue {h.name} is not open for browse")
        if not browse and not h.is_input:
            raise _fail(C.MQRC_NOT_OPEN_FOR_INPUT, f"queue {h.name} is not open for input")
        out: list[tuple[MQMD, GetResult] | None] = []
        for t in toks:
            md = MQMD()
            g = gmo.copy()
            g.Version = max(g.Version, C.MQGMO_VERSION_3)
            g.MatchOptions = C.MQMO_MATCH_MSG_TOKEN
            g.MsgToken = struct.pack(">QQ", 0, t)
            try:
                result = self.get(conn, h, md, g, buflen)
            except MQMIError as e:
                if e.reason == C.MQRC_NO_MSG_AVAILABLE:
                    out.append(None)
                    continue
                return out, e
            out.append((md, result))
        return out, None

    # ==================================================================================================
    # MQCMIT / MQBACK
    # ==================================================================================================
    def commit(self, conn: Connection) -> None:
        self._check_conn(conn)
        self._commit(conn)

    def _commit(self, conn: Connection) -> None:
        uow = conn.uow
        conn.uow = None
        if uow is None:
            return
        b: Batch | None = None
        for m in uow.puts:
            q = m.queue
            q.uncommitted -= 1
            if not q.deleted and m.state == PUT_PENDING:
                self._make_visible(m)
        for m in uow.gets:
            m.queue.uncommitted -= 1
            if m.state != GOT_PENDING:
                continue
            m.state = GONE
            if m.persistent:
                if b is None:
                    b = self._b()
                b.delete_messages.append(m.seq)
                b.durable = True
        if uow.triggers:
            self.triggering.unit_of_work_ended(uow.triggers, committed=True)

    def backout(self, conn: Connection) -> None:
        """MQBACK: an application-requested backout, which honours MQGMO_MARK_SKIP_BACKOUT (seed 000)."""
        self._check_conn(conn)
        self._backout(conn, honour_mark=True)

    def _backout(self, conn: Connection, honour_mark: bool) -> None:
        uow = conn.uow
        conn.uow = None
        if uow is None:
            return
        marked = uow.marked if honour_mark else None
        for m in uow.puts:
            q = m.queue
            q.uncommitted -= 1
            if m.state == PUT_PENDING:
                m.state = GONE
                q.depth -= 1
        for m in uow.gets:
            if m is marked:
                continue
            q = m.queue
            q.uncommitted -= 1
            if m.state != GOT_PENDING or q.deleted:
                continue
            m.backout += 1
            q.make_available(m)
            q.depth += 1
            self._wake.add(q.name)
            if m.persistent:
                b = self._b()
                b.backout_updates.append((m.seq, m.backout))
                b.inflight_remove.append(m.seq)
        if marked is not None and marked.state == GOT_PENDING:
            # seed 000, step 7: the marked get skips backout and becomes the only member of a new unit of work
            new = UnitOfWork()
            new.gets.append(marked)
            conn.uow = new
        if uow.triggers:
            self.triggering.unit_of_work_ended(uow.triggers, committed=False)

    # ==================================================================================================
    # MQINQ / MQSET
    # ==================================================================================================
    def inq(self, conn: Connection, hobj: Handle | int, selectors: Sequence[int]) -> tuple[list[int], list[bytes], int]:
        """MQINQ: integer values and character values (each blank-padded) in selector order, and a reason
        (MQRC_NONE, or MQRC_SELECTOR_NOT_FOR_TYPE as a warning with placeholder values)."""
        h = self._handle(conn, hobj)
        if not h.options & C.MQOO_INQUIRE:
            raise _fail(C.MQRC_NOT_OPEN_FOR_INQUIRE, f"{h.name} is not open for inquire")
        if len(selectors) > 256:
            raise _fail(C.MQRC_SELECTOR_COUNT_ERROR, "too many selectors")
        ints: list[int] = []
        chars: list[bytes] = []
        reason = C.MQRC_NONE
        d = h.alias if h.alias is not None else h.definition
        assert d is not None
        for sel in selectors:
            is_char = C.MQCA_FIRST <= sel <= C.MQCA_LAST
            if not is_char and not C.MQIA_FIRST <= sel <= C.MQIA_LAST:
                raise _fail(C.MQRC_SELECTOR_ERROR, f"selector {sel} is not valid")
            value = self._inq_value(h, d, sel)
            if value is None:
                if sel not in SELECTOR_TO_KEYWORD and sel not in _COMPUTED_SELECTORS:
                    raise _fail(C.MQRC_SELECTOR_ERROR, f"selector {sel} is not known")
                reason = C.MQRC_SELECTOR_NOT_FOR_TYPE
                if is_char:
                    n = char_attr_length(sel)
                    chars.append(b"*" * n)
                else:
                    ints.append(MQIAV_NOT_APPLICABLE)
                continue
            if is_char:
                chars.append(_char(str(value), char_attr_length(sel)))
            else:
                ints.append(int(value))
        return ints, chars, reason

    def _inq_value(self, h: Handle, d: Definition, sel: int) -> Any:
        q = h.queue
        otype = d.otype
        if otype in QUEUE_TYPES:
            if sel == C.MQCA_Q_NAME:
                return d.name
            if sel == C.MQIA_Q_TYPE:
                return QTYPE_OF[otype]
            if sel == C.MQIA_DEFINITION_TYPE and otype == QLOCAL:
                return d.dynamic
            if otype == QLOCAL and q is not None:
                if sel == C.MQIA_CURRENT_Q_DEPTH:
                    return q.depth
                if sel == C.MQIA_OPEN_INPUT_COUNT:
                    return q.ipprocs
                if sel == C.MQIA_OPEN_OUTPUT_COUNT:
                    return q.opprocs
        if sel == C.MQCA_Q_MGR_NAME and otype == QMGR:
            return self.name
        if sel == C.MQCA_PROCESS_NAME and otype == PROCESS:
            return d.name
        if sel in (C.MQCA_CREATION_DATE, C.MQCA_CREATION_TIME, C.MQCA_ALTERATION_DATE, C.MQCA_ALTERATION_TIME):
            t = d.created if sel in (C.MQCA_CREATION_DATE, C.MQCA_CREATION_TIME) else d.altered
            date, time_ = mqsc_date_time(t)
            return date if sel in (C.MQCA_CREATION_DATE, C.MQCA_ALTERATION_DATE) else time_
        kw = SELECTOR_TO_KEYWORD.get(sel)
        if kw is None:
            return None
        if otype == QMGR:
            if sel == C.MQIA_MAX_MSG_LENGTH:
                return d.attrs["QMMAXMSGL"]
            if sel == C.MQIA_DIST_LISTS:
                return C.MQDL_NOT_SUPPORTED
        return d.attrs.get(kw)

    def set(
        self,
        conn: Connection,
        hobj: Handle | int,
        selectors: Sequence[int],
        int_attrs: Sequence[int],
        char_attrs: Sequence[bytes | str],
    ) -> None:
        """MQSET: change the settable attributes of a queue, all or none."""
        h = self._handle(conn, hobj)
        if not h.options & C.MQOO_SET:
            raise _fail(C.MQRC_NOT_OPEN_FOR_SET, f"{h.name} is not open for set")
        d = h.alias if h.alias is not None else h.definition
        assert d is not None
        ints = iter(int_attrs)
        chars = iter(char_attrs)
        changes: dict[str, Any] = {}
        for sel in selectors:
            is_char = C.MQCA_FIRST <= sel <= C.MQCA_LAST
            kw = SELECTOR_TO_KEYWORD.get(sel)
            if kw is None or sel not in _SETTABLE_SELECTORS:
                raise _fail(C.MQRC_SELECTOR_ERROR, f"selector {sel} cannot be set with MQSET")
            attr = ATTRIBUTES[kw]
            if d.otype not in attr.owners:
                raise _fail(C.MQRC_SELECTOR_NOT_FOR_TYPE, f"{kw} does not apply to a {d.otype}")
            try:
                raw: bytes | str | int = next(chars) if is_char else next(ints)
            except StopIteration:
                raise _fail(
                    C.MQRC_CHAR_ATTRS_TOO_SHORT if is_char else C.MQRC_INT_ATTR_COUNT_ERROR,
                    "fewer attribute values than selectors",
                ) from None
            value: Any = _name(raw) if isinstance(raw, (bytes, str)) else raw
            try:
                changes[kw] = check_value(attr, value)
            except ValueError as e:
                raise _fail(_SET_ERRORS.get(sel, C.MQRC_SELECTOR_ERROR), str(e)) from None
        self._apply_changes(d, changes)

    def _apply_changes(self, d: Definition, changes: dict[str, Any]) -> None:
        if not changes:
            return
        before = dict(d.attrs)
        d.attrs.update(changes)
        d.altered = self.clock.time()
        if d.dynamic != C.MQQDT_TEMPORARY_DYNAMIC:
            b = self._b()
            b.put_objects.append((d.otype, d.name, d.to_bytes()))
            b.durable = True
        q = self.queues.get(d.name) if d.otype == QLOCAL else None
        if q is not None:
            if before.get("MSGDLVSQ") != d.attrs.get("MSGDLVSQ"):
                q.reorder()
            if before.get("GET") != d.attrs.get("GET") and d.attrs["GET"] == C.MQQA_GET_ALLOWED:
                self._wake.add(q.name)
        if d.otype == QALIAS and before.get("GET") != d.attrs.get("GET"):
            self._wake.add(d.attrs["TARGET"])
        self.on_attributes_changed(d, before)

    def on_attributes_changed(self, d: Definition, before: dict[str, Any]) -> None:
        """Triggering (seed 001, condition 13: MQSET / ALTER of the trigger attributes, PUT / GET enable)."""
        self.triggering.attributes_changed(d, before)

    # ==================================================================================================
    # administration (used by MQSC and PCF through the client)
    # ==================================================================================================
    def lookup(self, otype: str, name: str) -> Definition | None:
        if otype == QMGR:
            return self.qmgr
        d = self.definitions.get((self._ns(otype), name))
        if d is None:
            return None
        if otype in QUEUE_TYPES and d.otype != otype:
            return None
        return d

    def list_objects(self, otype: str) -> list[Definition]:
        if otype == QMGR:
            return [self.qmgr]
        ns = self._ns(otype)
        return sorted(
            (d for (k, _), d in self.definitions.items() if k == ns and (otype not in QUEUE_TYPES or d.otype == otype)),
            key=lambda d: d.name,
        )

    def define(
        self,
        otype: str,
        name: str,
        attrs: dict[str, Any] | None = None,
        like: str | None = None,
        replace: bool = False,
    ) -> Definition:
        """DEFINE QLOCAL / QMODEL / QALIAS / PROCESS. Raises MQMIError (OBJECT_ALREADY_EXISTS, …)."""
        if otype not in (QLOCAL, QMODEL, QALIAS, PROCESS):
            raise _fail(C.MQRC_OBJECT_TYPE_ERROR, f"cannot define an object of type {otype}")
        if not valid_object_name(name):
            raise _fail(C.MQRC_OBJECT_NAME_ERROR, f"{name!r} is not a valid object name")
        existing = self.definitions.get((self._ns(otype), name))
        if existing is not None:
            if not replace:
                raise _fail(C.MQRC_OBJECT_ALREADY_EXISTS, f"{name} already exists")
            if existing.otype != otype:
                raise _fail(C.MQRC_OBJECT_TYPE_ERROR, f"{name} exists as a {existing.otype}")
            if existing.dynamic == C.MQQDT_TEMPORARY_DYNAMIC:
                raise _fail(C.MQRC_OBJECT_IN_USE, f"{name} is a temporary dynamic queue")
        base = defaults_for(otype)
        if like:
            src = self.definitions.get((self._ns(otype), like))
            if src is None or src.otype != otype:
                raise _fail(C.MQRC_UNKNOWN_OBJECT_NAME, f"LIKE object {like} does not exist as a {otype}")
            base.update({k: v for k, v in src.attrs.items() if k in base})
        elif existing is not None:
            base.update(existing.attrs)
        changes = self._validated(otype, attrs or {})
        base.update(changes)
        now = self.clock.time()
        if existing is not None:
            self._apply_changes(existing, {k: v for k, v in base.items() if existing.attrs.get(k) != v})
            return existing
        d = Definition(otype, name, base, now, now)
        self.definitions[(self._ns(otype), name)] = d
        if otype == QLOCAL:
            self.queues[name] = q = LocalQueue(d, self._expiry_candidates)
            self.triggering.queue_added(q)
        b = self._b()
        b.put_objects.append((otype, name, d.to_bytes()))
        b.durable = True
        return d

    def _validated(self, otype: str, attrs: dict[str, Any]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for kw, value in attrs.items():
            key = engine_key(otype, kw)
            attr: Attribute | None = ATTRIBUTES.get(key)
            if attr is None:
                raise _fail(C.MQRC_SELECTOR_ERROR, f"{kw} is not an attribute")
            if otype not in attr.owners:
                raise _fail(C.MQRC_SELECTOR_NOT_FOR_TYPE, f"{kw} is not valid for a {otype}")
            if attr.readonly:
                raise _fail(C.MQRC_SELECTOR_ERROR, f"{kw} cannot be changed")
            try:
                out[key] = check_value(attr, value)
            except ValueError as e:
                raise _fail(C.MQRC_SELECTOR_ERROR, str(e)) from None
        return out

    def alter(self, otype: str, name: str, attrs: dict[str, Any]) -> Definition:
        d = self.lookup(otype, name)
        if d is None:
            raise _fail(C.MQRC_UNKNOWN_OBJECT_NAME, f"{otype} {name} does not exist")
        changes = self._validated(otype, attrs)
        q = self.queues.get(name) if otype == QLOCAL else None
        if q is not None and "SHARE" in changes and changes["SHARE"] == C.MQQA_NOT_SHAREABLE and q.ipprocs > 1:
            raise _fail(C.MQRC_OBJECT_IN_USE, f"queue {name} is open for input by more than one handle")
        self._apply_changes(d, changes)
        return d

    def delete(self, otype: str, name: str, purge: bool = False) -> None:
        d = self.lookup(otype, name)
        if d is None:
            raise _fail(C.MQRC_UNKNOWN_OBJECT_NAME, f"{otype} {name} does not exist")
        if otype == QMGR:
            raise _fail(C.MQRC_OBJECT_TYPE_ERROR, "the queue manager cannot be deleted here")
        if otype == QLOCAL:
            q = self.queues[name]
            if q.handles:
                raise _fail(C.MQRC_OBJECT_IN_USE, f"queue {name} is open")
            if q.uncommitted:
                raise _fail(C.MQRC_OBJECT_IN_USE, f"queue {name} has uncommitted messages")
            if q.depth and not purge:
                raise _fail(C.MQRC_Q_NOT_EMPTY, f"queue {name} has {q.depth} messages; use PURGE")
            self._drop_queue(d)  # also deletes the stored definition of a predefined or permanent queue
            return
        if otype == QALIAS:
            for conn in self.connections.values():
                for h in conn.handles.values():
                    if h.alias is d:
                        raise _fail(C.MQRC_OBJECT_IN_USE, f"alias {name} is open")
        del self.definitions[(self._ns(otype), name)]
        b = self._b()
        b.delete_objects.append((otype, name))
        b.durable = True

    def clear(self, name: str) -> int:
        """CLEAR QLOCAL: remove every committed message; refused while the queue is open or has uncommitted
        messages (IBM: MQRC_OBJECT_IN_USE)."""
        q = self.queues.get(name)
        if q is None:
            raise _fail(C.MQRC_UNKNOWN_OBJECT_NAME, f"queue {name} does not exist")
        if q.handles or q.uncommitted:
            raise _fail(C.MQRC_OBJECT_IN_USE, f"queue {name} is open or has uncommitted messages")
        gone = q.clear_messages()
        if any(m.persistent for m in gone):
            b = self._b()
            b.delete_queue_messages.append(name)
            b.durable = True
        return len(gone)

    def alter_qmgr(self, attrs: dict[str, Any]) -> Definition:
        changes = self._validated(QMGR, attrs)
        self._apply_changes(self.qmgr, changes)
        return self.qmgr

    def queue_status(self, name: str) -> dict[str, Any]:
        """DISPLAY QSTATUS TYPE(QUEUE) (and PCF's Inquire Queue Status) as plain data.

        LGETDATE / LGETTIME / LPUTDATE / LPUTTIME are local 'YYYY-MM-DD' and 'HH.MM.SS' ('' before the first
        get / put), MSGAGE the age in seconds of the oldest available message, QTIME ``[short, long]`` average
        microseconds messages stayed on the queue before a destructive get (``[]`` before the first).
        """
        q = self.queues.get(name)
        if q is None:
            raise _fail(C.MQRC_UNKNOWN_OBJECT_NAME, f"queue {name} does not exist")
        now = self.clock.time()
        age = int(now - min(m.put_time for m in q.by_key.values())) if q.by_key else 0  # MSGAGE: oldest
        lgetdate, lgettime = mqsc_date_time(q.last_get)
        lputdate, lputtime = mqsc_date_time(q.last_put)
        return {
            "QUEUE": name,
            "CURDEPTH": q.depth,
            "IPPROCS": q.ipprocs,
            "OPPROCS": q.opprocs,
            "UNCOM": q.uncommitted,
            "LGETDATE": lgetdate,
            "LGETTIME": lgettime,
            "LPUTDATE": lputdate,
            "LPUTTIME": lputtime,
            "MSGAGE": age,
            "QTIME": q.qtime(),
        }

    def handle_status(self, name: str) -> list[dict[str, Any]]:
        q = self.queues.get(name)
        if q is None:
            raise _fail(C.MQRC_UNKNOWN_OBJECT_NAME, f"queue {name} does not exist")
        out = []
        for h in sorted(q.handles, key=lambda x: x.hobj):
            c = h.conn
            out.append(
                {
                    "QUEUE": name,
                    "APPLTAG": c.appl_name,
                    "PID": c.pid,
                    "HCONN": c.hconn,
                    "HOBJ": h.hobj,
                    "OPENOPTS": h.options,
                    "INPUT": "EXCL" if h.options & C.MQOO_INPUT_EXCLUSIVE else ("SHARED" if h.is_input else "NO"),
                    "OUTPUT": "YES" if h.options & C.MQOO_OUTPUT else "NO",
                    "BROWSE": "YES" if h.options & C.MQOO_BROWSE else "NO",
                    "INQUIRE": "YES" if h.options & C.MQOO_INQUIRE else "NO",
                    "SET": "YES" if h.options & C.MQOO_SET else "NO",
                    "UOW": c.uow is not None and len(c.uow) > 0,
                    "APPLTYPE": c.appl_type,
                    "USERID": c.user,
                }
            )
        return out

    def messages(self, name: str) -> Iterable[Message]:
        """The available messages of a queue in delivery order (for tests and tools)."""
        q = self.queues.get(name)
        if q is None:
            raise _fail(C.MQRC_UNKNOWN_OBJECT_NAME, f"queue {name} does not exist")
        return list(q.iter_from(None))

    def quiesce(self) -> None:
        self.quiescing = True


_COMPUTED_SELECTORS = frozenset(
    {
        C.MQCA_Q_NAME,
        C.MQCA_Q_MGR_NAME,
        C.MQIA_Q_TYPE,
        C.MQIA_CURRENT_Q_DEPTH,
        C.MQIA_OPEN_INPUT_COUNT,
        C.MQIA_OPEN_OUTPUT_COUNT,
        C.MQIA_DEFINITION_TYPE,
        C.MQCA_CREATION_DATE,
        C.MQCA_CREATION_TIME,
        C.MQCA_ALTERATION_DATE,
        C.MQCA_ALTERATION_TIME,
        C.MQIA_DIST_LISTS,
    }
)


def _tokens(tokens: Any) -> list[int]:
    """MsgTokens as the reservation and by-token verbs take them: a list of put sequence numbers."""
    if not isinstance(tokens, (list, tuple)) or not all(
        isinstance(t, int) and not isinstance(t, bool) and 0 <= t < 1 << 64 for t in tokens
    ):
        raise _fail(C.MQRC_MSG_TOKEN_ERROR, "MsgTokens must be a list of whole numbers from 0 to 2**64 - 1")
    return list(tokens)


def _default_user() -> str:
    try:
        import pwd

        return pwd.getpwuid(os.getuid()).pw_name[:12]
    except Exception:  # pragma: no cover - no passwd entry
        return os.environ.get("USER", "")[:12]
