"""Channel statistics (issue 36, item 3): IBM's STATCHL, and what a controlled end writes.

References: IBM MQ "Channel statistics message data" (MQCMD_STATISTICS_CHANNEL 166 on
SYSTEM.ADMIN.STATISTICS.QUEUE, up to 100 ChlStatisticsData groups a message: ChannelName, ChannelType,
RemoteQmgr, ConnectionName, MsgCount, TotalBytes, NetTimeMin / Avg / Max, ExitTimeMin / Avg / Max,
FullBatchCount, IncmplBatchCount, AverageBatchSize, PutRetryCount); ALTER QMGR STATCHL (OFF | LOW | MEDIUM | HIGH
| NONE) and the channel's STATCHL (QMGR | OFF | LOW | MEDIUM | HIGH): "a change takes effect only on channels
started after the change"; "Statistics message generation": statistics are written every STATINT seconds "and
when a queue manager shuts down in a controlled fashion"; MQI accounting's DiscType MQDISCONNECT_Q_MGR ("the
connection was broken by the queue manager").

Theory of operation
-------------------
* The switch: a channel collects when the queue manager's STATCHL is not NONE and its own STATCHL is LOW, MEDIUM
  or HIGH, or QMGR while the queue manager's is LOW, MEDIUM or HIGH. A channel asks once, when it starts
  (:meth:`channel_statistics`: the sending MCA through the administrative verb, the receiving MCA at ``open``),
  as IBM's channels read it at start. LOW, MEDIUM and HIGH collect alike (IBM's ratio is of sampling; every
  batch here costs one call anyway).
* The figures come from the MCAs, one call per batch (:meth:`count_channel`): the sending MCA (tools layer,
  ``syncpoint.channel``) over its in-process connection's administrative verb, when its answer confirmed the
  batch; the receiving MCA (the server's ``channel`` verb) under the host's lock, when it committed the batch.
  A channel that does not collect makes no call, and the MQI path never looks at channels: off, it costs nothing.
* The tallies (:class:`ChlTally`, one per channel name) live for one statistics interval, the one STATMQI and
  STATQ use (``_statistics``): its end writes them (:meth:`_write_channel_statistics`) and starts them again.
* Net time is the sending MCA's: microseconds from sending a batch to reading its confirmation (the receiver's
  commit included, as IBM's round trip of the end-of-batch flow). syncpoint has no channel exits, so ExitTime
  is never written (IBM: "returned when available").
* A controlled end (:meth:`monitoring_end`, from the host's normal close) writes the statistics collected so far
  and each connection still accounted its accounting with DiscType MQDISCONNECT_Q_MGR; nothing is collected
  after it.
"""

from __future__ import annotations

from syncpoint.mqi import constants as C
from syncpoint.mqi import monitoring as M
from syncpoint.mqi.objects import CHANNEL, MQCHT_RECEIVER, MQCHT_REQUESTER, MQCHT_SENDER, MQCHT_SERVER

from ._statistics import StatisticsMixin
from ._util import fail

COLLECTING = frozenset({"LOW", "MEDIUM", "HIGH"})
_TYPES = frozenset({MQCHT_SENDER, MQCHT_SERVER, MQCHT_RECEIVER, MQCHT_REQUESTER})


class ChlTally:
    """One channel's figures of one statistics interval."""

    __slots__ = (
        "bytes",
        "chltype",
        "conname",
        "full",
        "incomplete",
        "msgs",
        "net_max",
        "net_min",
        "net_n",
        "net_sum",
        "put_retries",
        "rqmname",
    )

    def __init__(self, chltype: int, rqmname: str, conname: str) -> None:
        self.chltype, self.rqmname, self.conname = chltype, rqmname, conname
        self.msgs = self.bytes = self.full = self.incomplete = self.put_retries = 0
        self.net_sum = self.net_n = self.net_max = 0
        self.net_min = -1

    def record(self, name: str) -> tuple[int, M.Value]:
        """The ChlStatisticsData group, in the order of IBM's page."""
        batches = self.full + self.incomplete
        members: list[tuple[int, M.Value]] = [
            (M.MQCACH_CHANNEL_NAME, M.padded_string(name, 20)),
            (M.MQIACH_CHANNEL_TYPE, self.chltype),
            (M.MQCA_REMOTE_Q_MGR_NAME, M.padded_string(self.rqmname, 48)),
            (M.MQCACH_CONNECTION_NAME, M.padded_string(self.conname, 264)),
            (M.MQIAMO_MSGS, self.msgs),
            (M.MQIAMO64_BYTES, M.I64([self.bytes])),
        ]
        if self.net_n:  # measured by a sending MCA only
            members += [
                (M.MQIAMO_NET_TIME_MIN, max(self.net_min, 0)),
                (M.MQIAMO_NET_TIME_AVG, self.net_sum // self.net_n),
                (M.MQIAMO_NET_TIME_MAX, self.net_max),
            ]
        members += [
            (M.MQIAMO_FULL_BATCHES, self.full),
            (M.MQIAMO_INCOMPLETE_BATCHES, self.incomplete),
            (M.MQIAMO_AVG_BATCH_SIZE, self.msgs // batches if batches else 0),
            (M.MQIAMO_PUT_RETRIES, self.put_retries),
        ]
        return (M.MQGACF_CHL_STATISTICS_DATA, M.Group(M.MQGACF_CHL_STATISTICS_DATA, members))


class ChannelStatisticsMixin(StatisticsMixin):
    """STATCHL (see the module doc)."""

    _stat_channels: dict[str, ChlTally] | None = None  # None: no channel collects in this interval

    def channel_statistics_wanted(self) -> bool:
        """Whether any channel may collect: the queue manager's STATCHL LOW / MEDIUM / HIGH, or (unless it is
        NONE) a channel whose own STATCHL is."""
        qm = self.qmgr.attrs.get("STATCHL", "OFF")
        if qm == "NONE":
            return False
        if qm in COLLECTING:
            return True
        ns = self._ns(CHANNEL)
        return any(d.attrs.get("CHLSTATCHL") in COLLECTING for (k, _), d in self.definitions.items() if k == ns)

    def channel_statistics(self, name: str) -> bool:
        """Whether channel ``name``, starting now, collects statistics (an administrative verb: the sending MCA
        asks once at its start)."""
        if self._stat_channels is None:
            return False
        d = self.definitions.get((self._ns(CHANNEL), name))
        if d is None:
            return False
        qm = self.qmgr.attrs.get("STATCHL", "OFF")
        own = d.attrs.get("CHLSTATCHL", "QMGR")
        return qm != "NONE" and (own in COLLECTING or (own == "QMGR" and qm in COLLECTING))

    def count_channel(
        self,
        name: str,
        chltype: int,
        rqmname: str,
        conname: str,
        msgs: int = 0,
        nbytes: int = 0,
        full: bool | None = None,
        net_us: int = -1,
        put_retries: int = 0,
    ) -> None:
        """One batch a channel sent (confirmed) or received (committed): ``msgs`` messages of ``nbytes`` bytes,
        ``full`` whether BATCHSZ or BATCHLIM ended it (None: no batch ended, only ``put_retries`` to add), the
        sending MCA's round trip ``net_us`` (-1: not measured). An administrative verb; a bad figure is refused
        with MQRC_UNEXPECTED_ERROR and nothing is counted."""
        ints = (msgs, nbytes, put_retries, chltype)
        if (
            isinstance(net_us, bool)
            or not isinstance(net_us, int)
            or net_us < -1
            or not isinstance(name, str)
            or not name
            or not isinstance(rqmname, str)
            or not isinstance(conname, str)
            or any(isinstance(v, bool) or not isinstance(v, int) or v < 0 for v in ints)
            or chltype not in _TYPES
            or not (full is None or isinstance(full, bool))
        ):
            raise fail(C.MQRC_UNEXPECTED_ERROR, "a channel's statistics need a name, its type and counts of 0 or more")
        stats = self._stat_channels
        if stats is None:
            return  # switched off since the channel started: nothing is collected
        t = stats.get(name)
        if t is None:
            t = stats[name] = ChlTally(chltype, rqmname, conname)
        else:
            t.chltype, t.rqmname, t.conname = chltype, rqmname or t.rqmname, conname or t.conname
        t.msgs += msgs
        t.bytes += nbytes
        t.put_retries += put_retries
        if full is not None:
            if full:
                t.full += 1
            else:
                t.incomplete += 1
        if net_us >= 0:
            t.net_sum += net_us
            t.net_n += 1
            if t.net_min < 0 or net_us < t.net_min:
                t.net_min = net_us
            if net_us > t.net_max:
                t.net_max = net_us

    def _write_channel_statistics(self, head: list[tuple[int, M.Value]]) -> None:
        """The interval's channel records, up to 100 a message; the tallies start again."""
        stats = self._stat_channels
        if not stats:
            return
        records = [t.record(name) for name, t in sorted(stats.items())]
        for i in range(0, len(records), M.RECORDS_PER_MESSAGE):
            chunk = records[i : i + M.RECORDS_PER_MESSAGE]
            params = [*head, (M.MQIAMO_OBJECT_COUNT, len(chunk)), *chunk]
            self._put_monitoring(M.MQCFT_STATISTICS, M.MQCMD_STATISTICS_CHANNEL, params)
        self._stat_channels = {}

    def monitoring_end(self) -> None:
        """A controlled end: the statistics collected so far, and the accounting of every connection still
        accounted with DiscType MQDISCONNECT_Q_MGR (see the module doc). Nothing is collected after."""
        now = self.clock.time()
        if self._stat_next:
            self._write_statistics(now)
        for conn in list(self.connections.values()):
            if conn.acct is None and not conn.acct_q:
                continue
            for at in (conn.acct_q or {}).values():
                if at is not None and at.opens:
                    at.closed = now
            if conn.acct is not None:
                conn.acct.discs[M.MQDISCONNECT_Q_MGR] += 1
            self._write_accounting(conn, now, disc_type=M.MQDISCONNECT_Q_MGR)
            conn.acct = None
            conn.acct_q = None
        # the intervals end with the queue manager (the connections' disconnects that follow write nothing)
        self._stat_mqi = self._stat_queues = self._stat_channels = None
        self._stat_next = self._acct_next = self._mon_next = 0.0
        self.monitoring_on = False
