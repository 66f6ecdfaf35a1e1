"""The metrics of one queue manager in IBM's exporter names (ibm-messaging/mq-metric-samples), as
prometheus_client metric families.

Theory of operation
-------------------
A collection reads the queue manager through a ``syncpoint.client`` connection and its administrative verbs
only: ``qmgr_metrics`` once, ``queue_names`` once, then ``queue_metrics`` over slices of ``SLICE`` names, each
slice one short hold of the queue manager's lock (50 queues: about 0.2 ms of CPU), so the MQI
path waits at most one slice for a scrape. Channels come from the channel initiator's DISPLAY CHSTATUS (its
request on SYSTEM.CHANNEL.INITQ, the same runmqsc sends), when a channel initiator runs.

Names, types and labels follow IBM's exporter: namespace ``ibmmq``; ``qmgr_``, ``queue_`` (dropped when the
metric already starts with it) and ``channel_`` prefixes; the exporter's counters (the published "delta"
statistics) keep their names without ``_total``; queue labels ``qmgr, platform, usage, description, cluster,
queue``; queue-manager labels ``qmgr, platform, description, hostname``; channel labels ``qmgr, channel,
platform, description, type, rqmname, connname, jobname, sslciph``. An empty label value is ``-``, as IBM's
exporter gives it. A shared queue of a queue-sharing group is labelled as any other queue, under the member
that reports it (IBM's exporter reports the queues it can see, shared ones included, with the same labels).

Values IBM's exporter takes from RESET QSTATS (``hi_depth``) are interval values: the highest depth since the
previous collection. Values IBM takes from the published STATQ / STATMQI statistics (``mqput_mqput1_count``,
``mqget_count``, ``commit_count`` …) are counters since the queue manager started.

syncpoint's own metrics carry the ``syncpoint_`` prefix (``collect_own``): the store's syncs and the durable
writes they carried, the journal's size.
"""

from __future__ import annotations

import json
import shutil
import socket
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.samples import Sample

from syncpoint.mqi import MQGMO, MQMD, MQOD, MQPMO, MQMIError
from syncpoint.mqi import constants as C
from syncpoint.mqi.objects import CHANNEL_COMMAND_FORMAT, SYSTEM_CHANNEL_INITQ

from ._exposition import SlicedMetric

NAMESPACE = "ibmmq"
PLATFORM = "UNIX"  # MQPL_UNIX without its prefix, as IBM's exporter labels a Linux queue manager
SLICE = 50  # queues per hold of the queue manager's lock (about 0.2 ms of CPU on a loaded machine: benchmarks.md)
DUMMY = "-"  # IBM's exporter's value for an empty label

QUEUE_LABELS = ["qmgr", "platform", "usage", "description", "cluster", "queue"]
QMGR_LABELS = ["qmgr", "platform", "description", "hostname"]
CHANNEL_LABELS = ["qmgr", "channel", "platform", "description", "type", "rqmname", "connname", "jobname", "sslciph"]

# (metric, kind, help, index in a queue_metrics tuple or a function of it)
_QUEUE_STATUS: list[tuple[str, str, str, Callable[[tuple[Any, ...]], float]]] = [
    ("depth", "gauge", "Queue depth", lambda t: t[4]),
    ("attribute_max_depth", "gauge", "Queue Max Depth", lambda t: t[3]),
    ("attribute_usage", "gauge", "Queue Usage", lambda t: t[2]),
    ("oldest_message_age", "gauge", "Oldest Message", lambda t: t[8]),
    ("uncommitted_messages", "gauge", "Uncommitted Messages (Count)", lambda t: t[5]),
    ("time_since_put", "gauge", "Time Since Put", lambda t: t[9]),
    ("time_since_get", "gauge", "Time Since Get", lambda t: t[10]),
    ("input_handles", "gauge", "Input Handles", lambda t: t[6]),
    ("output_handles", "gauge", "Output Handles", lambda t: t[7]),
    ("qtime_short", "gauge", "Queue Time Short", lambda t: t[11]),
    ("qtime_long", "gauge", "Queue Time Long", lambda t: t[12]),
    ("hi_depth", "gauge", "Highest Depth", lambda t: t[15]),
    ("qfile_current_size", "gauge", "Queue File Current Size", lambda t: t[18]),
    ("mqput_mqput1_count", "counter", "MQPUT/MQPUT1 count", lambda t: t[13]),
    ("mqget_count", "counter", "MQGET count", lambda t: t[14]),
    ("expired_messages", "counter", "messages expired", lambda t: t[16]),
    ("queue_purged_count", "counter", "queue purged count", lambda t: t[17]),
    ("average_queue_time_seconds", "gauge", "average queue time", lambda t: t[11] / 1_000_000),
]

# DISPLAY CHSTATUS's STATUS word -> IBM's MQCHS_* value
CHANNEL_STATUS = {
    "INACTIVE": C.MQCHS_INACTIVE,
    "BINDING": C.MQCHS_BINDING,
    "STARTING": C.MQCHS_STARTING,
    "RUNNING": C.MQCHS_RUNNING,
    "STOPPING": C.MQCHS_STOPPING,
    "RETRYING": C.MQCHS_RETRYING,
    "STOPPED": C.MQCHS_STOPPED,
    "REQUESTING": C.MQCHS_REQUESTING,
    "PAUSED": C.MQCHS_PAUSED,
    "DISCONNECTED": C.MQCHS_DISCONNECTED,
    "INITIALIZING": C.MQCHS_INITIALIZING,
    "SWITCHING": C.MQCHS_SWITCHING,
}
SQUASH_STOPPED, SQUASH_TRANSITION, SQUASH_RUNNING = 0, 1, 2  # IBM's exporter's "status_squash"
_TRANSITION = ("BINDING", "STARTING", "STOPPING", "RETRYING", "REQUESTING", "PAUSED", "INITIALIZING", "SWITCHING")
_CHANNEL_TYPE = {"SDR": "SENDER", "SVR": "SERVER", "RCVR": "RECEIVER", "RQSTR": "REQUESTER", "SVRCONN": "SVRCONN"}


def metric_name(prefix: str, metric: str) -> str:
    """IBM's exporter's name: namespace, the object's prefix (``queue_`` dropped when the metric already starts
    with it), the metric."""
    if prefix == "queue" and metric.startswith("queue_"):
        return f"{NAMESPACE}_{metric}"
    return f"{NAMESPACE}_{prefix}_{metric}"


def _family(name: str, kind: str, doc: str, labels: list[str]) -> Metric:
    if kind == "counter":
        # IBM's exporter adds no "_total": a family of type counter whose one sample carries the name as it is
        return Metric(name, doc, "counter")
    return GaugeMetricFamily(name, doc, labels=labels)


def _add(family: Metric, labels: list[str], values: list[str], value: float) -> None:
    _append(family, dict(zip(labels, values, strict=True)), value)


def _append(family: Metric, labels: dict[str, str], value: float) -> None:
    """One sample (``Metric.add_sample`` without its call overhead: a collection of 10,000 queues adds 190,000);
    ``labels`` may be shared by the samples of one object, as nothing changes them."""
    family.samples.append(Sample(family.name, labels, float(value), None, None))


class Collection:
    """One collection's figures, made into metric families. ``hi_depth`` is reset by each collection: a
    :class:`QueueManagerCollector` runs one collection at a time and shares it between the scrapes that
    arrive meanwhile (a scrape storm costs the queue manager one collection)."""

    def __init__(self) -> None:
        self.families: list[Metric] = []


class QueueManagerCollector:
    """A prometheus_client collector (``collect()``) of one queue manager.

    ``connect`` makes a ``syncpoint.client`` connection (kept and reused; made again after a failure);
    ``own`` (optional) gives syncpoint's own figures (``collect_own``'s input: store stats and the journal's
    size) without the queue manager's lock; ``channels`` says whether to ask the channel initiator;
    ``data_dir`` (optional) is the folder of the queue manager's store: ``qfile_max_size`` is then what a
    queue's messages could grow to, their bytes now plus the free space of that file system (syncpoint keeps
    no file per queue, and sets no MAXFSIZE).
    """

    def __init__(
        self,
        qmgr: str,
        connect: Callable[[], Any],
        *,
        own: Callable[[], dict[str, Any]] | None = None,
        channels: bool = True,
        hostname: str | None = None,
        data_dir: str | None = None,
    ) -> None:
        self.qmgr = qmgr
        self._connect = connect
        self._own = own
        self._channels = channels
        self._hostname = hostname or socket.gethostname() or DUMMY
        self._data_dir = data_dir
        self._own_figures: dict[str, Any] = {}
        self._qm: Any = None
        self._lock = threading.Lock()  # one collection at a time
        self._latest: tuple[float, list[Metric]] | None = None
        self.collections = 0  # IBM's ibmmq_qmgr_exporter_publications: collections made
        self.longest_hold = 0.0  # the longest single administrative call of any collection, in seconds
        self.largest_slice = 0  # the most queues one administrative call asked for
        self.slice_calls = 0  # queue_metrics calls made (each one hold of the queue manager's lock)

    # -- prometheus_client's collector protocol ----------------------------------------------------
    def collect(self) -> Iterator[Metric]:
        started = time.monotonic()
        with self._lock:
            latest = self._latest
            if latest is not None and latest[0] >= started:
                families = latest[1]  # a collection finished while this scrape waited: share it
            else:
                families = self._collect()
                self._latest = (time.monotonic(), families)
        yield from families

    def describe(self) -> list[Metric]:
        return []  # no describe: registering must not collect

    # -- one collection ------------------------------------------------------------------------------
    def _call(self, verb: str, *args: Any) -> Any:
        t0 = time.perf_counter()
        try:
            return self._qm.admin(verb, *args)
        finally:
            self.longest_hold = max(self.longest_hold, time.perf_counter() - t0)

    def _collect(self) -> list[Metric]:
        self.collections += 1
        out: list[Metric] = []
        try:
            if self._qm is None:
                self._qm = self._connect()
            qmgr = self._call("qmgr_metrics")
        except MQMIError:
            self._drop()
            return self._down()
        self._own_figures = self._own() if self._own is not None else {}
        description = qmgr.get("DESCR") or DUMMY
        qlabels = [self.qmgr, PLATFORM, description, self._hostname]
        out.extend(self._qmgr_families(qmgr, qlabels))
        try:
            out.extend(self._queue_families())
            if self._channels:
                out.extend(self._channel_families())
        except MQMIError:
            self._drop()
        out.extend(collect_own(self.qmgr, self._own_figures))
        return out

    def _drop(self) -> None:
        qm, self._qm = self._qm, None
        if qm is not None:
            try:
                qm.disconnect()
            except Exception:
                pass

    def _down(self) -> list[Metric]:
        """IBM's exporter, not connected: the one metric ``ibmmq_qmgr_status`` at 0."""
        g = GaugeMetricFamily(metric_name("qmgr", "status"), "Queue Manager Status", labels=QMGR_LABELS)
        g.add_metric([self.qmgr, PLATFORM, DUMMY, self._hostname], 0.0)
        return [g]

    def _qmgr_families(self, q: dict[str, Any], labels: list[str]) -> list[Metric]:
        status = C.MQQMSTA_QUIESCING if q["STATUS"] == "QUIESCING" else C.MQQMSTA_RUNNING
        running = C.MQSVC_STATUS_RUNNING
        stopped = C.MQSVC_STATUS_STOPPED
        rows: list[tuple[str, str, str, float]] = [
            ("status", "gauge", "Queue Manager Status", status),
            ("uptime", "gauge", "Queue Manager Uptime", max(0, int(q["NOW"] - q["STARTED"]))),
            ("connection_count", "gauge", "Connection Count", q["CONNS"]),
            ("command_server_status", "gauge", "Command Server Status", running if q["CMDSERV"] else stopped),
            ("channel_initiator_status", "gauge", "Channel Initiator Status", running if q["CHINIT"] else stopped),
            ("commit_count", "counter", "Commit count", q["COMMITS"]),
            ("rollback_count", "counter", "Rollback count", q["BACKOUTS"]),
            ("mqconn_mqconnx_count", "counter", "MQCONN/MQCONNX count", q["CONNS_TOTAL"]),
            ("interval_mqput_mqput1_total_count", "counter", "Interval total MQPUT/MQPUT1 count", q["PUTS"]),
            ("interval_destructive_get_total_count", "counter", "Interval total destructive get- count", q["GETS"]),
            ("expired_message_count", "counter", "Expired message count", q["EXPIRED"]),
            (
                "concurrent_connections_high_water_mark",
                "gauge",
                "Concurrent connections - high water mark",
                q["CONNS_HWM"],
            ),
            ("exporter_publications", "gauge", "Collections made by this exporter", self.collections),
        ]
        rows.append(("syncpoint_events_put", "counter", "Event messages put on the event queues", q["EVENTS_PUT"]))
        rows.append(
            ("syncpoint_events_dropped", "counter", "Event messages the event queues did not take", q["EVENTS_DROPPED"])
        )
        own = self._own_figures
        for metric, key, doc in (
            ("max_channels", "max_channels", "Max Channels"),
            ("max_active_channels", "max_active_channels", "Max Active Channels"),
            ("active_listeners", "active_listeners", "Active Listeners"),
        ):
            if key in own:
                rows.append((metric, "gauge", doc, own[key]))
        out: list[Metric] = []
        for metric, kind, doc, value in rows:
            name = metric if metric.startswith("syncpoint_") else metric_name("qmgr", metric)
            f = _family(name, kind, doc, QMGR_LABELS)
            _add(f, QMGR_LABELS, labels, value)
            out.append(f)
        return out

    def _queue_families(self) -> list[Metric]:
        names = sorted(self._call("queue_names"))
        spec = list(_QUEUE_STATUS)
        room: int | None = None
        if self._data_dir is not None:
            try:
                room = shutil.disk_usage(self._data_dir).free
            except OSError:
                room = None
        if room is not None:
            free = room
            spec.append(("qfile_max_size", "gauge", "Queue File Maximum Size", lambda t: t[18] + free))
        families = [SlicedMetric(metric_name("queue", metric), doc, kind) for metric, kind, doc, _ in spec]
        qmgr = self.qmgr
        for i in range(0, len(names), SLICE):
            part = names[i : i + SLICE]
            self.largest_slice = max(self.largest_slice, len(part))
            self.slice_calls += 1
            rows = self._call("queue_metrics", part, True)
            if not rows:
                continue
            # the labels of each queue (one dict shared by its samples: nothing changes them) and their signature
            labels = [
                dict(
                    zip(
                        QUEUE_LABELS,
                        [
                            qmgr,
                            PLATFORM,
                            "XMITQ" if t[2] == C.MQUS_TRANSMISSION else "NORMAL",
                            t[1] or DUMMY,
                            DUMMY,
                            t[0],
                        ],
                        strict=True,
                    )
                )
                for t in rows
            ]
            signature = tuple((t[0], t[1], t[2]) for t in rows)
            for f, (_, _, _, value) in zip(families, spec, strict=True):
                f.add_slice(labels, signature, [float(value(t)) for t in rows])
        return list(families)

    def _channel_families(self) -> list[Metric]:
        rows = channel_status(self._qm)
        if rows is None:
            return []
        spec: list[tuple[str, str, str, Callable[[dict[str, Any]], float | None]]] = [
            ("status", "gauge", "Channel Status", lambda r: CHANNEL_STATUS.get(r["STATUS"], C.MQCHS_INACTIVE)),
            ("status_squash", "gauge", "Channel Status - Simplified", lambda r: _squash(r["STATUS"])),
            ("messages", "gauge", "Messages", lambda r: r.get("MSGS", 0)),
            ("batches", "gauge", "Batches", lambda r: r.get("BATCHES", 0)),
            ("time_since_msg", "gauge", "Time Since Msg", _since_msg),
            ("cur_inst", "gauge", "Current Instances", lambda r: 0 if r["STATUS"] == "INACTIVE" else 1),
        ]
        families = [_family(metric_name("channel", m), k, d, CHANNEL_LABELS) for m, k, d, _ in spec]
        for r in rows:
            labels = [
                self.qmgr,
                r["CHANNEL"],
                PLATFORM,
                DUMMY,
                _CHANNEL_TYPE.get(r.get("CHLTYPE", ""), r.get("CHLTYPE", "") or DUMMY),
                (r.get("RQMNAME") or "").strip() or DUMMY,
                (r.get("CONNAME") or "").strip() or DUMMY,
                DUMMY,
                DUMMY,
            ]
            for f, (_, _, _, value) in zip(families, spec, strict=True):
                v = value(r)
                if v is not None:
                    _add(f, CHANNEL_LABELS, labels, v)
        return families


def _squash(status: str) -> int:
    if status == "RUNNING":
        return SQUASH_RUNNING
    return SQUASH_TRANSITION if status in _TRANSITION else SQUASH_STOPPED


def _since_msg(r: dict[str, Any]) -> float:
    """Seconds since the channel's last message (IBM's exporter: 0 before the first)."""
    date, clock = (r.get("LSTMSGDA") or "").strip(), (r.get("LSTMSGTI") or "").strip()
    if not date or not clock:
        return 0.0
    try:
        last = time.mktime(time.strptime(f"{date} {clock}", "%Y-%m-%d %H.%M.%S"))  # IBM's local date and time
    except ValueError:
        return 0.0
    return max(0.0, float(int(time.time() - last)))


def channel_status(qm: Any, wait_ms: int = 5000) -> list[dict[str, Any]] | None:
    """DISPLAY CHSTATUS(*) from the channel initiator, by its request on SYSTEM.CHANNEL.INITQ; None when the
    queue manager has no channel initiator, or it does not answer within ``wait_ms``."""
    try:
        od = MQOD(ObjectName=b"SYSTEM.DEFAULT.MODEL.QUEUE", DynamicQName=b"SYNCPOINT.METRICS.*")
        reply_h = qm.mqopen(od, C.MQOO_INPUT_EXCLUSIVE)
    except MQMIError:
        return None
    try:
        md = MQMD(Format=CHANNEL_COMMAND_FORMAT, MsgType=C.MQMT_REQUEST, ReplyToQ=od.ObjectName)
        qm.mqput1(
            MQOD(ObjectName=SYSTEM_CHANNEL_INITQ.encode()),
            md,
            MQPMO(Options=C.MQPMO_NO_SYNCPOINT | C.MQPMO_NEW_MSG_ID),
            json.dumps({"op": "DISPLAY", "channel": "*"}).encode(),
        )
        gmo = MQGMO(
            Options=C.MQGMO_WAIT | C.MQGMO_NO_SYNCPOINT, WaitInterval=wait_ms, MatchOptions=C.MQMO_MATCH_CORREL_ID
        )
        data = qm.mqget(reply_h, MQMD(CorrelId=md.MsgId), gmo)
        answer = json.loads(data)
        rows: list[dict[str, Any]] = answer.get("status", []) if answer.get("ok") else []
        return rows
    except MQMIError:
        return None
    finally:
        try:
            qm.mqclose(reply_h, C.MQCO_DELETE_PURGE)
        except MQMIError:
            pass


def collect_own(qmgr: str, own: dict[str, Any]) -> list[Metric]:
    """syncpoint's own metrics (``syncpoint_`` prefix, labels ``qmgr``): the store's syncs, the durable
    writes (batches) and transactions they carried, the journal's size."""
    out: list[Metric] = []
    rows = [
        ("syncpoint_store_syncs", "counter", "Syncs (fdatasync / FULL commits) made by the store", "syncs"),
        ("syncpoint_store_batches", "counter", "Durable writes (one MQI call's store batch) committed", "batches"),
        ("syncpoint_store_transactions", "counter", "Store transactions committed", "transactions"),
        ("syncpoint_store_failed_batches", "counter", "Store batches rejected with an error", "failed_batches"),
        ("syncpoint_journal_size_bytes", "gauge", "Size of the store's journal file", "journal_bytes"),
        ("syncpoint_store_size_bytes", "gauge", "Size of the store's database file", "db_bytes"),
        ("syncpoint_group_round_trip_seconds", "gauge", "Last round trip to the group's store", "group_rtt"),
    ]
    for name, kind, doc, key in rows:
        if key not in own:
            continue
        f = _family(name, kind, doc, ["qmgr"])
        _add(f, ["qmgr"], [qmgr], own[key])
        out.append(f)
    syncs = own.get("syncs", 0)
    if "batches" in own:
        f = GaugeMetricFamily(
            "syncpoint_store_batches_per_sync",
            "Durable writes carried by one sync, on average since the start (group commit)",
            labels=["qmgr"],
        )
        f.add_metric([qmgr], own["batches"] / syncs if syncs else 0.0)
        out.append(f)
    return out
