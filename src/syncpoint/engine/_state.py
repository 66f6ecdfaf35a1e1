"""The queue manager's runtime state: messages and local queues, connections, handles, units of work.

These are the nouns every part of the engine shares; the rules that change them live in the modules named
after the rules (``_put``, ``_get``, ``_connections`` …). This module imports nothing else of the engine's but
``_util``, so every part can import it.

References: mqsc.md (MSGDLVSQ, CURDEPTH, UNCOM, IPPROCS, OPPROCS, QTIME, LGETDATE / LPUTDATE as DISPLAY QSTATUS
shows them); seed 002 (a message's remaining Expiry, and the deadlines an expiry scan reads); seed 000 and seed
001, condition 10's note (what a unit of work holds).

Theory of operation
-------------------
A local queue keeps its *available* messages (committed, not got inside a unit of work) in a sorted index of
integer keys. The key orders the queue in delivery order: for MSGDLVSQ(PRIORITY) ``(9 - priority) << 52 | seq``,
for MSGDLVSQ(FIFO) just ``seq``; ``seq`` is a queue-manager-wide put sequence. A get without match options takes
the first key; a browse cursor is a key and BROWSE_NEXT bisects past it; a backed-out get is re-inserted under its
own key, so it returns to its original place. Every operation is O(log n), so a get at depth 1,000,000 costs
about what it costs at depth 1,000.

Messages that are put in a unit of work and not yet committed, or got in one, are not in the index: they are
held by the unit of work. CURDEPTH counts what IBM counts: incremented by MQPUT (in or out of syncpoint) and by
the backout of an MQGET, decremented by a non-browse MQGET and by the backout of an MQPUT.

A message is in one of five states: AVAILABLE (in its queue's index), PUT_PENDING (put in a unit of work not yet
committed), GOT_PENDING (got in a unit of work not yet ended), DURABLE_PENDING (a persistent message whose commit,
or put outside syncpoint, the store has not yet made durable: counted in UNCOM until it has, see ``_effects``),
GONE. A :class:`Connection` holds at most one
:class:`UnitOfWork` (the puts and gets pending in it, its one MQGMO_MARK_SKIP_BACKOUT get — seed 000 — and the
trigger messages its puts created — seed 001) and its open :class:`Handle` objects.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass
from typing import Any

from sortedcontainers import SortedList

from syncpoint.mqi import MQMD
from syncpoint.mqi import constants as C
from syncpoint.mqi.objects import Definition

from ._util import padded

# message states
AVAILABLE = 0  # in the queue's index
PUT_PENDING = 1  # put inside a unit of work, not yet committed
GOT_PENDING = 2  # got inside a unit of work, not yet committed
GONE = 3  # removed for good
DURABLE_PENDING = 4  # committed (or put outside syncpoint), persistent, waiting for the store to make it durable

PRIO_SHIFT = 52
ARRIVALS_LIMIT = 131_072  # a queue's arrival log (``_select``) is dropped past this: selecting handles then rescan
INPUT_OPTS = C.MQOO_INPUT_AS_Q_DEF | C.MQOO_INPUT_SHARED | C.MQOO_INPUT_EXCLUSIVE  # the MQOO_INPUT_* options


class Message:
    """One message. ``md`` holds the MQMD fields (version 2, normalised) as put; live fields (BackoutCount,
    the remaining Expiry) are kept beside it. It is packed only when a persistent message is written."""

    __slots__ = (
        "backout",
        "correlid",
        "data",
        "expiry",
        "groupid",
        "key",
        "locked_by",
        "md",
        "msgid",
        "persistent",
        "priority",
        "props",
        "put_time",
        "queue",
        "reserved_by",
        "seq",
        "seqno",
        "state",
    )

    # each field set from its parameter: alike in shape to other classes' constructors, not logic
    def __init__(
        self,
        seq: int,
        queue: LocalQueue,
        priority: int,
        persistent: bool,
        md: dict[str, Any],
        data: bytes,
        msgid: bytes,
        correlid: bytes,
        groupid: bytes,
        seqno: int,
        expiry: int,
        put_time: float,
        backout: int = 0,
    ) -> None:
        self.seq = seq
        self.queue = queue
        self.priority = priority
        self.persistent = persistent
        self.md = md
        self.data = data
        self.msgid = msgid
        self.correlid = correlid
        self.groupid = groupid
        self.seqno = seqno
        self.expiry = expiry
        self.put_time = put_time
        self.backout = backout
        self.props: dict[str, tuple[int, object]] | None = (
            None  # properties: name -> (MQTYPE_*, value) (mqi.properties)
        )
        self.state = AVAILABLE
        self.locked_by: Handle | None = None
        self.reserved_by: Connection | None = None  # the connection holding a reservation (MsgToken) on it
        self.key = queue.key_for(priority, seq)

    def remaining_expiry(self, now: float) -> int:
        """Tenths of a second left (MQEI_UNLIMITED for none); 0 or less means expired."""
        if self.expiry == C.MQEI_UNLIMITED:
            return C.MQEI_UNLIMITED
        return self.expiry - int((now - self.put_time) * 10)

    def expired(self, now: float) -> bool:
        return self.expiry != C.MQEI_UNLIMITED and self.expiry - (now - self.put_time) * 10 <= 0


class QueueCounts:
    """A queue's counts since this start, for the metrics (``_metrics``) and the performance events
    (``_events``): IBM's MSGENQ / MSGDEQ, HIQDEPTH, messages expired and purged, the bytes of the available
    messages; and the statistics a performance event reports since the last one. Kept apart from
    :class:`LocalQueue`'s own attributes (one slotted object), so that a queue's attribute lookups on the MQI
    path stay as fast as before (CPython shares an instance dictionary's keys up to 30 attributes)."""

    __slots__ = (
        "bytes",
        "event_gets",
        "event_hi",
        "event_puts",
        "event_reset",
        "expired",
        "gets",
        "hi_depth",
        "purged",
        "puts",
        "svc_timer",
    )

    def __init__(self) -> None:
        self.puts = 0
        self.gets = 0
        self.hi_depth = 0
        self.expired = 0
        self.purged = 0
        self.bytes = 0
        self.event_reset = 0.0
        self.event_hi = 0
        self.event_puts = 0
        self.event_gets = 0
        self.svc_timer = 0.0  # the queue service interval events' service timer: when it was reset; 0.0 is off


class LocalQueue:
    """A local queue (predefined or dynamic) with its messages, open counts and status."""

    shared = False  # a QSGDISP(SHARED) queue (``_shared.SharedQueue``): its messages are in the group's store

    def full(self, maxdepth: int) -> bool:
        """MQPUT's MAXDEPTH check (a shared queue counts the group's messages: ``_shared.SharedQueue``)."""
        return self.depth >= maxdepth

    def __init__(self, definition: Definition, expiry_candidates: set[LocalQueue] | None = None) -> None:
        self.definition = definition
        # messages with a limited Expiry, by deadline (wall-clock seconds): what a scan for expired messages
        # looks at, so it never walks the queue; the queue manager's set names the queues that have any
        self.expiring: list[tuple[float, int, Message]] = []
        self.watched: set[int] = set()  # the put sequences with an entry in ``expiring``: one entry per message
        self._candidates = expiry_candidates if expiry_candidates is not None else set()
        self.name = definition.name
        self.name48 = definition.name.encode()[:48].ljust(48, b" ")
        self.attrs: dict[str, Any] = definition.attrs
        self.index: SortedList = SortedList()
        self.by_key: dict[int, Message] = {}
        self.depth = 0  # CURDEPTH
        self.uncommitted = 0  # puts and gets pending in units of work (UNCOM)
        self.ipprocs = 0
        self.opprocs = 0
        self.exclusive: Handle | None = None  # the handle holding INPUT_EXCLUSIVE
        self.handles: set[Handle] = set()
        self.last_get: float = 0.0
        self.last_put: float = 0.0
        self._qtime_short = -1.0  # QTIME: moving averages of seconds on the queue before a get (-1: none yet)
        self._qtime_long = -1.0
        self.deleted = False
        self.fifo = self.attrs.get("MSGDLVSQ") == C.MQMDS_FIFO
        # handles opened with a selection string, and the messages made available since they last looked (``_select``)
        self.selecting: set[Handle] = set()
        self.arrivals: list[Message] | None = None
        self.arrivals_base = 0
        self.rekeyed = 0  # counts re-keyings (MSGDLVSQ changed): a selection's judged keys are then stale
        self.counts = QueueCounts()  # for the metrics and the performance events (``_metrics``, ``_events``)

    # -- status ---------------------------------------------------------------------------------------
    def note_get(self, now: float, put_time: float) -> None:
        """A destructive get of a message put at ``put_time``: LGETDATE / LGETTIME and the QTIME averages.

        IBM gives QTIME as two averages, over "the last few" and over "a larger sample" of messages; here they
        are exponential moving averages with weights 1/4 and 1/32.
        """
        self.last_get = now
        self.counts.gets += 1
        stay = now - put_time
        if not stay > 0.0:  # max(0.0, stay), without the call
            stay = 0.0
        if self._qtime_short < 0:
            self._qtime_short = self._qtime_long = stay
        else:
            self._qtime_short += (stay - self._qtime_short) / 4
            self._qtime_long += (stay - self._qtime_long) / 32

    def qtime(self) -> list[int]:
        """QTIME in microseconds: ``[short-term, long-term]``, or ``[]`` before the first get."""
        if self._qtime_short < 0:
            return []
        return [round(self._qtime_short * 1_000_000), round(self._qtime_long * 1_000_000)]

    # -- ordering -------------------------------------------------------------------------------------
    def key_for(self, priority: int, seq: int) -> int:
        if self.fifo:
            return seq
        return ((9 - priority) << PRIO_SHIFT) | seq

    def reorder(self) -> None:
        """MSGDLVSQ changed: re-key every message (IBM keeps the messages; new ones follow the new order)."""
        self.fifo = self.attrs.get("MSGDLVSQ") == C.MQMDS_FIFO
        self.rekeyed += 1
        available = [self.by_key[k] for k in self.index]
        self.index.clear()
        self.by_key.clear()
        for m in available:
            m.key = self.key_for(m.priority, m.seq)
            self.by_key[m.key] = m
            self.index.add(m.key)

    # -- membership -----------------------------------------------------------------------------------
    def make_available(self, m: Message) -> None:
        m.state = AVAILABLE
        # keyed by the queue's order now: MSGDLVSQ may have changed while a unit of work held the message
        key = self.key_for(m.priority, m.seq)
        m.key = key
        self.by_key[key] = m
        self.index.add(key)
        self.counts.bytes += len(m.data)
        if self.arrivals is not None:  # a handle selects: it judges this message when it next looks (``_select``)
            self.arrivals.append(m)
            if len(self.arrivals) > ARRIVALS_LIMIT:  # nobody looked for long: forget, they will judge the queue
                self.arrivals_base += len(self.arrivals)
                self.arrivals.clear()
        if m.expiry != C.MQEI_UNLIMITED:
            self.track_expiry(m)

    def track_expiry(self, m: Message) -> None:
        """Watch an available message's deadline (it became available, or a reservation on it ended)."""
        if m.expiry != C.MQEI_UNLIMITED and m.seq not in self.watched:
            # a message has at most one entry (issue 24: a backed-out get pushed a second one, and the scan
            # then discarded the message twice); an entry of a message got meanwhile is still there
            self.watched.add(m.seq)
            heapq.heappush(self.expiring, (m.put_time + m.expiry / 10.0, m.seq, m))
            self._candidates.add(self)

    def by_token(self, seq: int) -> Message | None:
        """The available message whose MsgToken (put sequence) is ``seq``, found by its key: O(1), not a walk."""
        by_key = self.by_key
        if self.fifo:
            return by_key.get(seq)
        default = self.attrs.get("DEFPRTY", 0)  # most messages have the queue's default priority: look there first
        m = by_key.get(((9 - default) << PRIO_SHIFT) | seq) if type(default) is int and 0 <= default <= 9 else None
        if m is not None:
            return m
        for priority in range(9, -1, -1):
            m = by_key.get(((9 - priority) << PRIO_SHIFT) | seq)
            if m is not None:
                return m
        return None

    def pop_expired(self, now: float) -> list[Message]:
        """Available messages whose expiry has passed, taken off the deadline heap (not off the queue).

        Entries of messages now gone or held by a unit of work are dropped: a reinstated message is pushed
        again when it becomes available, so it is checked then (issue 3, item 11). So are entries of reserved
        messages: the reservation's end pushes them again. A message has at most one entry (``watched``), so a
        message is returned at most once (issue 24: a backed-out get had given it a second one).
        """
        out: list[Message] = []
        heap = self.expiring
        watched = self.watched
        while heap and heap[0][0] <= now:
            m = heapq.heappop(heap)[2]
            watched.discard(m.seq)
            if m.state == AVAILABLE and m.queue is self and m.reserved_by is None and m.expired(now):
                out.append(m)
        if not heap:
            self._candidates.discard(self)
        return out

    def take(self, m: Message) -> None:
        """Remove an available message from the index (for a get, an expiry discard, a purge)."""
        self.index.remove(m.key)
        del self.by_key[m.key]
        self.counts.bytes -= len(m.data)
        if m.locked_by is not None:
            m.locked_by.locked = None
            m.locked_by = None

    def iter_from(self, after_key: int | None) -> Any:
        """Available messages in delivery order, starting after ``after_key`` (from the start for None)."""
        start = 0 if after_key is None else self.index.bisect_right(after_key)
        by_key = self.by_key
        for key in self.index.islice(start):
            m = by_key.get(key)
            if m is not None:
                yield m

    def iter_all(self) -> Any:
        """Available messages in delivery order from the start (the common get)."""
        by_key = self.by_key
        for key in self.index:
            yield by_key[key]

    def clear_messages(self) -> list[Message]:
        """Remove every available message (CLEAR QLOCAL, DELETE … PURGE); return them."""
        gone = [self.by_key[k] for k in self.index]
        for m in gone:
            m.state = GONE
            if m.locked_by is not None:
                m.locked_by.locked = None
                m.locked_by = None
        self.index.clear()
        self.by_key.clear()
        self.expiring.clear()
        self.watched.clear()
        self._candidates.discard(self)
        self.depth -= len(gone)
        self.counts.bytes = 0
        return gone


# ------------------------------------------------------------------------------------------------------
# connections, handles, units of work
# ------------------------------------------------------------------------------------------------------
@dataclass(slots=True)
class PendingTrigger:
    """A trigger message created by a put in a unit of work, put on the initiation queue when it ends (seed 001,
    condition 10's note)."""

    queue: LocalQueue
    trigger_type: int
    initq: str
    md: MQMD
    data: bytes


class UnitOfWork:
    """Uncommitted puts and gets of one connection, its one MARK_SKIP_BACKOUT get, and the trigger messages
    its puts created (put on their initiation queues when the unit of work ends), and when it began (DISPLAY
    CONN's UOWSTDA / UOWSTTI)."""

    __slots__ = ("gets", "marked", "puts", "started", "triggers")

    def __init__(self, started: float = 0.0) -> None:
        self.started = started  # wall-clock time of its first put or get in syncpoint
        self.puts: list[Message] = []
        self.gets: list[Message] = []
        self.marked: Message | None = None
        self.triggers: list[PendingTrigger] = []

    def __len__(self) -> int:
        return len(self.puts) + len(self.gets)


class Connection:
    """A connection (MQCONN's Hconn): who it is, its open handles, its unit of work, its reservations."""

    __slots__ = (
        "acct",
        "acct_q",
        "acct_seq",
        "acct_start",
        "alive",
        "appl_name",
        "appl_name28",
        "appl_type",
        "channel",
        "conname",
        "connected",
        "context",
        "handles",
        "hconn",
        "pid",
        "reserved",
        "sslcerti",
        "sslpeer",
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
        self.conname = ""  # the client's network address (DISPLAY CONN / QSTATUS CONNAME); blank when local
        self.channel = ""  # a client's server-connection channel (DISPLAY CONN / QSTATUS CHANNEL); blank when local
        self.sslpeer = self.sslcerti = ""  # a TLS client's certificate: subject, issuer (DISPLAY CHSTATUS)
        self.appl_name28 = padded(appl_name, 28)
        self.user12 = padded(user, 12)
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
        # accounting (ACCTMQI / ACCTQ, ``_statistics``): its MQI tally and its queues' since its last record
        self.acct: Any = None
        self.acct_q: dict[LocalQueue, Any] | None = None
        self.acct_seq = 0
        self.acct_start = self.connected = 0.0


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
        "remote",
        "saved_context",
        "selection",
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
        self.selection: Any = None  # the MQOD SelectionString's ``_select.Selection``, None without one
        # a queue at another queue manager (``_resolve``): its name and its queue manager's, as MQCHAR48s; then
        # ``queue`` is the transmission queue its messages wait on, behind an MQXQH
        self.remote: tuple[bytes, bytes] | None = None

    @property
    def is_input(self) -> bool:
        return bool(self.options & INPUT_OPTS)


@dataclass(frozen=True, slots=True)
class Target:
    """Where a message for a name goes (name resolution, ``_resolve``)."""

    queue: LocalQueue  # the local queue it is put on: the destination, or a transmission queue
    first: Definition | None  # the alias or QREMOTE the name met first (its PUT / DEFPRTY / DEFPSIST apply)
    remote: tuple[bytes, bytes] | None  # for a transmission queue: (RemoteQName, RemoteQMgrName) as MQCHAR48s
