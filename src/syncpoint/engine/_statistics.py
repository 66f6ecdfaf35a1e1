"""Statistics and accounting messages (issue 36, item 3): IBM's STATMQI / STATQ and ACCTMQI / ACCTQ.

References: IBM MQ "Accounting and statistics messages" (MQI and queue statistics on
SYSTEM.ADMIN.STATISTICS.QUEUE every STATINT seconds; MQI and queue accounting on SYSTEM.ADMIN.ACCOUNTING.QUEUE at
MQDISC and every ACCTINT seconds for a long-running connection; RESET QMGR TYPE(STATISTICS)); the message
layouts in ``syncpoint.mqi.monitoring``.

Theory of operation
-------------------
* The switches: the queue manager's STATMQI (ON / OFF), STATQ (ON / OFF / NONE, kept as QMSTATQ), ACCTMQI
  (ON / OFF), ACCTQ (ON / OFF / NONE, kept as QMACCTQ); a queue's STATQ / ACCTQ (QMGR / ON / OFF): QMGR follows
  the queue manager's ON / OFF, ON and OFF override it, and the queue manager's NONE switches every queue off.
  Accounting is decided at MQCONN (a connection made while ACCTMQI and ACCTQ are OFF is never accounted).
* Cost: when every switch is off, the MQI path reads one attribute (``monitoring_on``) per put, get, open, close,
  connect and commit, and the host's periodic look one more (``_mon_next``): nothing is counted and nothing
  allocated. When a switch is on, each call adds integers to the tallies that exist for the interval (the queue
  manager's :class:`Tally`, the connection's, a queue's :class:`QTally`); a tally is made once per interval and
  object, never per call. Failed calls are counted by the host where the call's MQMIError passes
  (:meth:`count_failure`), so a call that succeeds pays nothing for them.
* Arrays are IBM's: by persistence ``[non-persistent, persistent]``, by object type 13 entries indexed by MQOT_*.
* The interval runs on the engine's injected clock: the host's periodic look (``housekeeping``) calls
  :meth:`monitoring_due` once ``_mon_next`` has passed. Statistics cover STATINT seconds from the moment the
  collection started (or was last written); RESET QMGR TYPE(STATISTICS) writes them at once and starts again.
* A message the queue does not take (missing, full, put-inhibited) is dropped and counted
  (``monitoring_dropped``), as IBM's; the call that ended the interval goes on.

Choices where IBM is silent: a get that finds no message (MQRC_NO_MSG_AVAILABLE) is not a failed get (the host
retries a waiting get many times); shared queues of a queue-sharing group are not counted per queue. Channel
statistics (STATCHL) share the interval and are ``_chlstats``'.
"""

from __future__ import annotations

from typing import Any

from syncpoint.mqi import MQMD, MQMIError, mqsc_date_time
from syncpoint.mqi import constants as C
from syncpoint.mqi import monitoring as M

from ._base import QueueManagerBase
from ._effects import REPORT
from ._state import Connection, Handle, LocalQueue, Message

ON, NONE = "ON", "NONE"
_UNSEEN: Any = object()  # a queue not yet looked at in this interval (None: looked at, not collected)
_BROWSE_OPTS = C.MQGMO_BROWSE_FIRST | C.MQGMO_BROWSE_NEXT | C.MQGMO_BROWSE_MSG_UNDER_CURSOR


class Tally:
    """MQI counts of one interval: the queue manager's (STATMQI) or one connection's (ACCTMQI)."""

    __slots__ = (
        "backouts",
        "browse_bytes",
        "browses",
        "browses_failed",
        "closes",
        "closes_failed",
        "commits",
        "commits_failed",
        "conns",
        "conns_failed",
        "conns_max",
        "discs",
        "expired",
        "get_bytes",
        "gets",
        "gets_failed",
        "inqs",
        "inqs_failed",
        "opens",
        "opens_failed",
        "purged",
        "put1s",
        "put1s_failed",
        "put_bytes",
        "puts",
        "puts_failed",
        "sets",
        "sets_failed",
    )

    def __init__(self, connections: int = 0) -> None:
        self.conns = self.conns_failed = 0
        self.conns_max = connections
        self.discs = [0, 0, 0]  # normal, implicit, by the queue manager
        self.opens, self.closes, self.inqs, self.sets = ([0] * M.OBJECT_TYPES for _ in range(4))
        self.opens_failed = self.closes_failed = self.inqs_failed = self.sets_failed = 0
        self.puts, self.put1s, self.put_bytes = [0, 0], [0, 0], [0, 0]
        self.gets, self.get_bytes, self.browses, self.browse_bytes = [0, 0], [0, 0], [0, 0], [0, 0]
        self.puts_failed = self.put1s_failed = self.gets_failed = self.browses_failed = 0
        self.commits = self.commits_failed = self.backouts = self.expired = self.purged = 0

    def parameters(self) -> list[tuple[int, M.Value]]:
        """The counts as IBM's MQI statistics / accounting parameters, in IBM's order."""
        return [
            (M.MQIAMO_OPENS, list(self.opens)),
            (M.MQIAMO_OPENS_FAILED, self.opens_failed),
            (M.MQIAMO_CLOSES, list(self.closes)),
            (M.MQIAMO_CLOSES_FAILED, self.closes_failed),
            *_transfers(self),
            (M.MQIAMO_COMMITS, self.commits),
            (M.MQIAMO_COMMITS_FAILED, self.commits_failed),
            (M.MQIAMO_BACKOUTS, self.backouts),
            (M.MQIAMO_INQS, list(self.inqs)),
            (M.MQIAMO_INQS_FAILED, self.inqs_failed),
            (M.MQIAMO_SETS, list(self.sets)),
            (M.MQIAMO_SETS_FAILED, self.sets_failed),
        ]


class QTally:
    """One queue's counts of one interval (STATQ), or of one connection's use of it (ACCTQ)."""

    __slots__ = (
        "browse_bytes",
        "browse_max",
        "browse_min",
        "browses",
        "browses_failed",
        "closed",
        "expired",
        "get_bytes",
        "get_max",
        "get_min",
        "gets",
        "gets_failed",
        "max_depth",
        "min_depth",
        "not_queued",
        "opened",
        "opens",
        "purged",
        "put1s",
        "put1s_failed",
        "put_bytes",
        "put_max",
        "put_min",
        "puts",
        "puts_failed",
        "qtime_max",
        "qtime_min",
        "qtime_n",
        "qtime_sum",
    )

    def __init__(self, depth: int) -> None:
        self.min_depth = self.max_depth = depth
        self.puts, self.put1s, self.put_bytes = [0, 0], [0, 0], [0, 0]
        self.gets, self.get_bytes, self.browses, self.browse_bytes = [0, 0], [0, 0], [0, 0], [0, 0]
        self.puts_failed = self.put1s_failed = self.gets_failed = self.browses_failed = 0
        self.not_queued = self.expired = self.purged = self.opens = 0
        self.opened = self.closed = 0.0
        # minimums start at -1 (none yet; written as 0)
        self.put_min, self.put_max, self.get_min, self.get_max = [-1, -1], [0, 0], [-1, -1], [0, 0]
        self.browse_min, self.browse_max = [-1, -1], [0, 0]
        self.qtime_sum, self.qtime_n, self.qtime_min, self.qtime_max = [0, 0], [0, 0], [-1, -1], [0, 0]

    def average_qtime(self) -> M.I64:
        """Average microseconds the messages got in the interval stayed on the queue, by persistence."""
        return M.I64(s // n if n else 0 for s, n in zip(self.qtime_sum, self.qtime_n, strict=True))


def _count_got(qt: QTally, q: LocalQueue, m: Message, browse: int, p: int, n: int, now: float) -> None:
    """A get or browse in a queue's tally: counts, sizes, the lowest depth, the time the message stayed."""
    if browse:
        qt.browses[p] += 1
        qt.browse_bytes[p] += n
        if qt.browse_min[p] < 0 or n < qt.browse_min[p]:
            qt.browse_min[p] = n
        if n > qt.browse_max[p]:
            qt.browse_max[p] = n
        return
    qt.gets[p] += 1
    qt.get_bytes[p] += n
    if qt.get_min[p] < 0 or n < qt.get_min[p]:
        qt.get_min[p] = n
    if n > qt.get_max[p]:
        qt.get_max[p] = n
    if q.depth < qt.min_depth:
        qt.min_depth = q.depth
    stay = int((now - m.put_time) * 1_000_000)
    if stay < 0:
        stay = 0
    qt.qtime_sum[p] += stay
    qt.qtime_n[p] += 1
    if qt.qtime_min[p] < 0 or stay < qt.qtime_min[p]:
        qt.qtime_min[p] = stay
    if stay > qt.qtime_max[p]:
        qt.qtime_max[p] = stay


def _transfers(t: Tally | QTally) -> list[tuple[int, M.Value]]:
    """The puts, gets and browses of a statistics record, MQI's or a queue's (IBM lists them in the same order in
    both): counts by persistence, failures, bytes."""
    return [
        (M.MQIAMO_PUTS, list(t.puts)),
        (M.MQIAMO_PUTS_FAILED, t.puts_failed),
        (M.MQIAMO_PUT1S, list(t.put1s)),
        (M.MQIAMO_PUT1S_FAILED, t.put1s_failed),
        (M.MQIAMO64_PUT_BYTES, M.I64(t.put_bytes)),
        (M.MQIAMO_GETS, list(t.gets)),
        (M.MQIAMO64_GET_BYTES, M.I64(t.get_bytes)),
        (M.MQIAMO_GETS_FAILED, t.gets_failed),
        (M.MQIAMO_BROWSES, list(t.browses)),
        (M.MQIAMO64_BROWSE_BYTES, M.I64(t.browse_bytes)),
        (M.MQIAMO_BROWSES_FAILED, t.browses_failed),
    ]


def _low(values: list[int]) -> list[int]:
    """Minimums as written: 0 where there was none."""
    return [v if v > 0 else 0 for v in values]


def _when(t: float) -> tuple[str, str]:
    date, time_ = mqsc_date_time(t)
    return M.padded_string(date, 12), M.padded_string(time_, 8)


class StatisticsMixin(QueueManagerBase):
    """STATMQI / STATQ / ACCTMQI / ACCTQ (see the module doc)."""

    monitoring_on = False  # any statistics or accounting switch is on: the MQI path counts
    monitoring_put = 0  # statistics and accounting messages written
    monitoring_dropped = 0  # … and those their queue did not take
    _mon_next = 0.0  # wall-clock time of the next interval's end (0: no interval runs)
    _stat_mqi: Tally | None = None
    _stat_queues: dict[LocalQueue, QTally | None] | None = None
    _stat_channels: Any = None  # the channels' tallies (``_chlstats``)
    _stat_start = 0.0
    _stat_next = 0.0
    _acct_next = 0.0
    _put1_active = False

    # -- switches -------------------------------------------------------------------------------------
    def monitoring_refresh(self) -> None:
        """Read the switches again (at start, after an ALTER or MQSET, after a DEFINE of a queue that sets its
        own STATQ / ACCTQ): start or stop the collections and the intervals."""
        a = self.qmgr.attrs
        now = self.clock.time()
        stat_mqi = a.get("STATMQI") == ON
        stat_q = a.get("QMSTATQ") != NONE and (
            a.get("QMSTATQ") == ON or any(q.attrs.get("STATQ") == ON for q in self.queues.values())
        )
        stat_chl = self.channel_statistics_wanted()  # STATCHL (``_chlstats``)
        if not (stat_mqi or stat_q or stat_chl):
            self._stat_mqi = self._stat_queues = self._stat_channels = None
            self._stat_next = 0.0
        else:
            if stat_chl != (self._stat_channels is not None):
                self._stat_channels = {} if stat_chl else None
            if self._stat_next == 0.0:
                self._stat_start, self._stat_next = now, now + a.get("STATINT", 1800)
            if stat_mqi and self._stat_mqi is None:
                self._stat_mqi = Tally(len(self.connections))
            elif not stat_mqi:
                self._stat_mqi = None
            if stat_q and self._stat_queues is None:
                self._stat_queues = {}
            elif not stat_q:
                self._stat_queues = None
        accounting = self._accounting_wanted() or any(c.acct is not None for c in self.connections.values())
        self._acct_next = (now + a.get("ACCTINT", 1800)) if accounting and not self._acct_next else self._acct_next
        if not accounting:
            self._acct_next = 0.0
        self.monitoring_on = bool(stat_mqi or stat_q or accounting)
        due = [t for t in (self._stat_next, self._acct_next) if t]
        self._mon_next = min(due) if due else 0.0

    def _accounting_wanted(self) -> bool:
        a = self.qmgr.attrs
        return a.get("ACCTMQI") == ON or (
            a.get("QMACCTQ") != NONE
            and (a.get("QMACCTQ") == ON or any(q.attrs.get("ACCTQ") == ON for q in self.queues.values()))
        )

    def _queue_switch(self, q: LocalQueue, keyword: str, qmgr_key: str) -> bool:
        qm = self.qmgr.attrs.get(qmgr_key)
        if qm == NONE or q.shared:
            return False
        own = q.attrs.get(keyword, "QMGR")
        return own == ON or (own == "QMGR" and qm == ON)

    def _queue_tallies(self, conn: Connection | None, q: LocalQueue, depth: int) -> tuple[QTally | None, QTally | None]:
        """The queue's statistics tally and the connection's accounting tally for it (None: not collected); a
        tally made now starts from ``depth``, the queue's depth before the call. Whether a queue is collected is
        decided once an interval: a queue that is not is remembered as None."""
        st = None
        stats = self._stat_queues
        if stats is not None:
            st = stats.get(q, _UNSEEN)
            if st is _UNSEEN:
                st = stats[q] = QTally(depth) if self._queue_switch(q, "STATQ", "QMSTATQ") else None
        at = None
        acct = conn.acct_q if conn is not None else None
        if acct is not None:
            at = acct.get(q, _UNSEEN)
            if at is _UNSEEN:
                at = acct[q] = QTally(depth) if self._queue_switch(q, "ACCTQ", "QMACCTQ") else None
        return st, at

    # -- the hooks the MQI path calls when ``monitoring_on`` ------------------------------------------
    def mon_connected(self, conn: Connection) -> None:
        t = self._stat_mqi
        if t is not None:
            t.conns += 1
            if len(self.connections) > t.conns_max:
                t.conns_max = len(self.connections)
        a = self.qmgr.attrs
        if a.get("ACCTMQI") == ON:
            conn.acct = Tally()
        if a.get("QMACCTQ") != NONE:
            conn.acct_q = {}
        conn.acct_start = conn.connected = self.clock.time()

    def mon_put(self, conn: Connection, q: LocalQueue, m: Message) -> None:
        """A put (or MQPUT1) that put ``m`` on ``q``: integer additions to the tallies that exist."""
        p = 1 if m.persistent else 0
        n = len(m.data)
        put1 = self._put1_active
        t = self._stat_mqi
        if t is not None:
            (t.put1s if put1 else t.puts)[p] += 1
            t.put_bytes[p] += n
        t = conn.acct
        if t is not None:
            (t.put1s if put1 else t.puts)[p] += 1
            t.put_bytes[p] += n
        stats = self._stat_queues
        st = stats.get(q, _UNSEEN) if stats is not None else None
        acct = conn.acct_q
        at = acct.get(q, _UNSEEN) if acct is not None else None
        if st is _UNSEEN or at is _UNSEEN:
            st, at = self._queue_tallies(conn, q, q.depth - 1)
        if st is not None:
            (st.put1s if put1 else st.puts)[p] += 1
            st.put_bytes[p] += n
            if q.depth > st.max_depth:
                st.max_depth = q.depth
        if at is not None:
            (at.put1s if put1 else at.puts)[p] += 1
            at.put_bytes[p] += n
            if at.put_min[p] < 0 or n < at.put_min[p]:
                at.put_min[p] = n
            if n > at.put_max[p]:
                at.put_max[p] = n

    def mon_got(self, conn: Connection, q: LocalQueue, m: Message, browse: int, now: float) -> None:
        """A get or browse of ``m`` from ``q`` (after a get, ``q.depth`` is already one less)."""
        p = 1 if m.persistent else 0
        n = len(m.data)
        t = self._stat_mqi
        if t is not None:
            if browse:
                t.browses[p] += 1
                t.browse_bytes[p] += n
            else:
                t.gets[p] += 1
                t.get_bytes[p] += n
        t = conn.acct
        if t is not None:
            if browse:
                t.browses[p] += 1
                t.browse_bytes[p] += n
            else:
                t.gets[p] += 1
                t.get_bytes[p] += n
        stats = self._stat_queues
        st = stats.get(q, _UNSEEN) if stats is not None else None
        acct = conn.acct_q
        at = acct.get(q, _UNSEEN) if acct is not None else None
        if st is _UNSEEN or at is _UNSEEN:
            st, at = self._queue_tallies(conn, q, q.depth if browse else q.depth + 1)
        if st is not None:
            _count_got(st, q, m, browse, p, n, now)
        if at is not None:
            _count_got(at, q, m, browse, p, n, now)

    def mon_opened(self, conn: Connection, h: Handle) -> None:
        if self._put1_active:
            return  # MQPUT1's own open and close are not counted as MQOPEN / MQCLOSE
        ot = h.otype if 0 <= h.otype < M.OBJECT_TYPES else 0
        for t in (self._stat_mqi, conn.acct):
            if t is not None:
                t.opens[ot] += 1
        q = h.queue
        if q is not None and conn.acct_q is not None and h.remote is None:
            at = self._queue_tallies(conn, q, q.depth)[1]
            if at is not None:
                at.opens += 1
                if not at.opened:
                    at.opened = self.clock.time()  # IBM's OpenDate / OpenTime: the first open in the interval

    def mon_closed(self, conn: Connection, h: Handle) -> None:
        if self._put1_active:
            return
        ot = h.otype if 0 <= h.otype < M.OBJECT_TYPES else 0
        for t in (self._stat_mqi, conn.acct):
            if t is not None:
                t.closes[ot] += 1
        q = h.queue
        if q is not None and conn.acct_q is not None:
            at = conn.acct_q.get(q)
            if at is not None:
                at.closed = self.clock.time()

    def mon_count(self, conn: Connection, what: str, otype: int = 0) -> None:
        """A commit, backout, inquire or set (``what``: the tally's attribute)."""
        for t in (self._stat_mqi, conn.acct):
            if t is not None:
                v = getattr(t, what)
                if isinstance(v, list):
                    v[otype if 0 <= otype < M.OBJECT_TYPES else 0] += 1
                else:
                    setattr(t, what, v + 1)

    def mon_discarded(self, q: LocalQueue, expired: int = 0, purged: int = 0) -> None:
        """Messages discarded by expiry or CLEAR QLOCAL (the queue manager's counts and the queue's)."""
        t = self._stat_mqi
        if t is not None:
            t.expired += expired
            t.purged += purged
        st = self._queue_tallies(None, q, q.depth + expired + purged)[0]
        if st is not None:
            st.expired += expired
            st.purged += purged
            if q.depth < st.min_depth:
                st.min_depth = q.depth

    def count_failure(self, verb: str, args: tuple[Any, ...], reason: int) -> None:
        """A failed MQI call (the host tells, as the call's MQMIError passes): IBM's …FailCount."""
        what = _FAILED.get(verb)
        if what is None or not args or not isinstance(args[0], Connection):
            if verb == "connect" and self._stat_mqi is not None:
                self._stat_mqi.conns_failed += 1
            return
        conn = args[0]
        if verb == "get":
            if reason == C.MQRC_NO_MSG_AVAILABLE:
                return
            gmo = args[3] if len(args) > 3 else None
            if gmo is not None and getattr(gmo, "Options", 0) & _BROWSE_OPTS:
                what = "browses_failed"
        for t in (self._stat_mqi, conn.acct):
            if t is not None:
                setattr(t, what, getattr(t, what) + 1)
        if verb in ("put", "get") and len(args) > 1:
            h = conn.handles.get(args[1] if isinstance(args[1], int) else getattr(args[1], "hobj", -1))
            if h is not None and h.queue is not None and not h.queue.shared:
                for qt in self._queue_tallies(conn, h.queue, h.queue.depth):
                    if qt is not None:
                        setattr(qt, what, getattr(qt, what) + 1)

    # -- MQDISC: the connection's accounting ----------------------------------------------------------
    def mon_disconnected(self, conn: Connection, abnormal: bool) -> None:
        kind = M.MQDISCONNECT_IMPLICIT if abnormal else M.MQDISCONNECT_NORMAL
        t = self._stat_mqi
        if t is not None:
            t.discs[kind] += 1
        if conn.acct is not None:
            conn.acct.discs[kind] += 1
        if conn.acct is not None or conn.acct_q:
            now = self.clock.time()
            for at in (conn.acct_q or {}).values():
                if at is not None and at.opens:
                    at.closed = now  # MQDISC closed what was still open: the final close
            self._write_accounting(conn, now, disc_type=kind)
        if not self._stat_next and not self._accounting_wanted():
            self.monitoring_refresh()  # switched off meanwhile: once no connection is accounted, nothing counts

    # -- the intervals -------------------------------------------------------------------------------
    def monitoring_due(self) -> None:
        """The host's periodic look found ``_mon_next`` passed: write what is due."""
        now = self.clock.time()
        if self._stat_next and now >= self._stat_next:
            self._write_statistics(now)
        if self._acct_next and now >= self._acct_next:
            interval = self.qmgr.attrs.get("ACCTINT", 1800)
            nxt = now + interval
            for conn in list(self.connections.values()):
                if conn.acct is None and not conn.acct_q:
                    continue
                if now - conn.acct_start >= interval:
                    self._write_accounting(conn, now)
                nxt = min(nxt, conn.acct_start + interval)
            self._acct_next = max(nxt, now + 1)
        due = [t for t in (self._stat_next, self._acct_next) if t]
        self._mon_next = min(due) if due else 0.0

    def reset_statistics(self) -> int:
        """RESET QMGR TYPE(STATISTICS): write the statistics collected so far and start a new interval. Returns
        how many statistics messages were written."""
        before = self.monitoring_put + self.monitoring_dropped
        if self._stat_next:
            self._write_statistics(self.clock.time())
            self._mon_next = min(t for t in (self._stat_next, self._acct_next) if t)
        return self.monitoring_put + self.monitoring_dropped - before

    def _write_statistics(self, now: float) -> None:
        head = self._head(self._stat_start, now)
        t = self._stat_mqi
        if t is not None:
            params = [
                *head,
                (M.MQIAMO_CONNS, t.conns),
                (M.MQIAMO_CONNS_FAILED, t.conns_failed),
                (M.MQIAMO_CONNS_MAX, t.conns_max),
                (M.MQIAMO_DISCS, list(t.discs)),
                *t.parameters(),
                (M.MQIAMO_MSGS_EXPIRED, t.expired),
                (M.MQIAMO_MSGS_PURGED, t.purged),
            ]
            self._put_monitoring(M.MQCFT_STATISTICS, M.MQCMD_STATISTICS_MQI, params)
            self._stat_mqi = Tally(len(self.connections))
        if self._stat_queues:
            records = [self._queue_statistics(q, qt) for q, qt in self._stat_queues.items() if qt is not None]
            for i in range(0, len(records), M.RECORDS_PER_MESSAGE):
                chunk = records[i : i + M.RECORDS_PER_MESSAGE]
                params = [*head, (M.MQIAMO_OBJECT_COUNT, len(chunk)), *chunk]
                self._put_monitoring(M.MQCFT_STATISTICS, M.MQCMD_STATISTICS_Q, params)
        if self._stat_queues is not None:
            self._stat_queues = {}
        self._write_channel_statistics(head)
        self._stat_start = now
        self._stat_next = now + self.qmgr.attrs.get("STATINT", 1800)

    def _head(self, start: float, end: float) -> list[tuple[int, M.Value]]:
        sd, st = _when(start)
        ed, et = _when(end)
        return [
            (M.MQCA_Q_MGR_NAME, M.padded_string(self.name, 48)),
            (M.MQCAMO_START_DATE, sd),
            (M.MQCAMO_START_TIME, st),
            (M.MQCAMO_END_DATE, ed),
            (M.MQCAMO_END_TIME, et),
            (M.MQIA_COMMAND_LEVEL, C.MQCMDL_CURRENT_LEVEL),
        ]

    @staticmethod
    def _queue_identity(q: LocalQueue) -> list[tuple[int, M.Value]]:
        cd, ct = _when(q.definition.created)
        return [
            (M.MQCA_Q_NAME, M.padded_string(q.name, 48)),
            (M.MQCA_CREATION_DATE, cd),
            (M.MQCA_CREATION_TIME, ct),
            (M.MQIA_Q_TYPE, C.MQQT_LOCAL),
            (M.MQIA_DEFINITION_TYPE, q.definition.dynamic),
        ]

    def _queue_statistics(self, q: LocalQueue, qt: QTally) -> tuple[int, M.Value]:
        members = [
            *self._queue_identity(q),
            (M.MQIAMO_Q_MIN_DEPTH, min(qt.min_depth, q.depth)),
            (M.MQIAMO_Q_MAX_DEPTH, max(qt.max_depth, q.depth)),
            (M.MQIAMO_AVG_Q_TIME, qt.average_qtime()),
            *_transfers(qt),
            (M.MQIAMO_MSGS_NOT_QUEUED, qt.not_queued),
            (M.MQIAMO_MSGS_EXPIRED, qt.expired),
            (M.MQIAMO_MSGS_PURGED, qt.purged),
        ]
        return (M.MQGACF_Q_STATISTICS_DATA, M.Group(M.MQGACF_Q_STATISTICS_DATA, members))

    def _write_accounting(self, conn: Connection, now: float, disc_type: int | None = None) -> None:
        """The connection's MQI and queue accounting messages since its last ones; they start again after."""
        conn_id = (
            b"AMQC"
            + self.name.encode("ascii", "replace")[:12].ljust(12)
            + (int(self.started) & 0xFFFFFFFF).to_bytes(4, "big")
            + (conn.hconn & 0xFFFFFFFF).to_bytes(4, "big")
        )
        who: list[tuple[int, M.Value]] = [
            (M.MQBACF_CONNECTION_ID, conn_id),
            (M.MQIACF_SEQUENCE_NUMBER, conn.acct_seq),
            (M.MQCACF_APPL_NAME, M.padded_string(conn.appl_name, 28)),
            (M.MQIACF_PROCESS_ID, conn.pid),
            (M.MQIACF_THREAD_ID, 0),
            (M.MQCACF_USER_IDENTIFIER, M.padded_string(conn.user, 12)),
        ]
        head = self._head(conn.acct_start, now) + who
        t = conn.acct
        if t is not None:
            cd, ct = _when(conn.connected)
            params = [*head, (M.MQCAMO_CONN_DATE, cd), (M.MQCAMO_CONN_TIME, ct)]
            if conn.conname:
                params.append((M.MQCACH_CONNECTION_NAME, M.padded_string(conn.conname, 264)))
            if disc_type is not None:
                dd, dt = _when(now)
                params += [(M.MQCAMO_DISC_DATE, dd), (M.MQCAMO_DISC_TIME, dt), (M.MQIAMO_DISC_TYPE, disc_type)]
            params += t.parameters()
            self._put_monitoring(M.MQCFT_ACCOUNTING, M.MQCMD_ACCOUNTING_MQI, params)
            conn.acct = Tally()
        if conn.acct_q:
            records = [self._queue_accounting(q, qt) for q, qt in conn.acct_q.items() if qt is not None]
            for i in range(0, len(records), M.RECORDS_PER_MESSAGE):
                chunk = records[i : i + M.RECORDS_PER_MESSAGE]
                params = [*head, (M.MQIAMO_OBJECT_COUNT, len(chunk)), *chunk]
                self._put_monitoring(M.MQCFT_ACCOUNTING, M.MQCMD_ACCOUNTING_Q, params)
            conn.acct_q = {}
        conn.acct_seq += 1
        conn.acct_start = now

    def _queue_accounting(self, q: LocalQueue, qt: QTally) -> tuple[int, M.Value]:
        od, ot = _when(qt.opened)
        cd, ct = _when(qt.closed)
        members = [
            *self._queue_identity(q),
            (M.MQIAMO_OPENS, qt.opens),
            (M.MQCAMO_OPEN_DATE, od),
            (M.MQCAMO_OPEN_TIME, ot),
            (M.MQCAMO_CLOSE_DATE, cd),
            (M.MQCAMO_CLOSE_TIME, ct),
            (M.MQIAMO_PUTS, list(qt.puts)),
            (M.MQIAMO_PUTS_FAILED, qt.puts_failed),
            (M.MQIAMO_PUT1S, list(qt.put1s)),
            (M.MQIAMO_PUT1S_FAILED, qt.put1s_failed),
            (M.MQIAMO64_PUT_BYTES, M.I64(qt.put_bytes)),
            (M.MQIAMO_PUT_MIN_BYTES, _low(qt.put_min)),
            (M.MQIAMO_PUT_MAX_BYTES, list(qt.put_max)),
            (M.MQIAMO_GETS, list(qt.gets)),
            (M.MQIAMO_GETS_FAILED, qt.gets_failed),
            (M.MQIAMO64_GET_BYTES, M.I64(qt.get_bytes)),
            (M.MQIAMO_GET_MIN_BYTES, _low(qt.get_min)),
            (M.MQIAMO_GET_MAX_BYTES, list(qt.get_max)),
            (M.MQIAMO_BROWSES, list(qt.browses)),
            (M.MQIAMO_BROWSES_FAILED, qt.browses_failed),
            (M.MQIAMO64_BROWSE_BYTES, M.I64(qt.browse_bytes)),
            (M.MQIAMO_BROWSE_MIN_BYTES, _low(qt.browse_min)),
            (M.MQIAMO_BROWSE_MAX_BYTES, list(qt.browse_max)),
            (M.MQIAMO_Q_TIME_MIN, M.I64(_low(qt.qtime_min))),
            (M.MQIAMO_Q_TIME_AVG, qt.average_qtime()),
            (M.MQIAMO_Q_TIME_MAX, M.I64(qt.qtime_max)),
        ]
        return (M.MQGACF_Q_ACCOUNTING_DATA, M.Group(M.MQGACF_Q_ACCOUNTING_DATA, members))

    def _put_monitoring(self, msg_type: int, command: int, params: list[tuple[int, M.Value]]) -> None:
        """Put one message on its queue outside any unit of work; dropped and counted when the queue does not
        take it (IBM: the data is lost; no MQI call fails for it)."""
        data = M.pcf_monitoring(msg_type, command, params)
        md = MQMD(Format=C.MQFMT_ADMIN, MsgType=C.MQMT_DATAGRAM, Persistence=C.MQPER_NOT_PERSISTENT)
        try:
            reason = self._system_put_to(M.MONITORING_QUEUES[msg_type], md, data, None, REPORT)
        except MQMIError:
            reason = C.MQRC_UNKNOWN_OBJECT_NAME
        if reason == C.MQRC_NONE:
            self.monitoring_put += 1
        else:
            self.monitoring_dropped += 1


# the failed verb -> the tally's count of failures
_FAILED = {
    "put": "puts_failed",
    "put1": "put1s_failed",
    "get": "gets_failed",
    "open": "opens_failed",
    "close": "closes_failed",
    "inq": "inqs_failed",
    "set": "sets_failed",
    "commit": "commits_failed",
}
