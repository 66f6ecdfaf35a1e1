"""The metrics' names, types, labels and values against a known workload, on an in-process queue manager with a
fake clock (issue 36, item 1; reference/operations.md, "Prometheus metrics as IBM's exporter names them").

What IBM's exporter (ibm-messaging/mq-metric-samples) serves: namespace ``ibmmq``; ``qmgr_`` / ``queue_`` /
``channel_`` prefixes, ``queue_`` dropped when the metric starts with it; delta metrics are counters without a
``_total`` suffix; queue labels ``queue, qmgr, platform, usage, description, cluster``; queue-manager labels
``qmgr, platform, description`` (+ ``hostname``); ``platform`` the MQPL_ name without its prefix; ``-`` for an
empty label.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.parser import text_string_to_metric_families

import syncpoint
from syncpoint.engine import FakeClock
from syncpoint.metrics import QUEUE_LABELS, SLICE, QueueManagerCollector
from syncpoint.mqi import constants as C

DASHBOARDS = Path(__file__).with_name("ibm_dashboard_metrics.json")


def scrape(collector: QueueManagerCollector) -> dict[str, dict[str, Any]]:
    """The text exposition parsed back with prometheus_client's parser: {sample name: {queue or qmgr: (value,
    labels)}} and the TYPE lines seen."""
    registry = CollectorRegistry(auto_describe=False)
    registry.register(collector)
    text = generate_latest(registry).decode()
    out: dict[str, dict[str, Any]] = {"#types": {}}
    for line in text.splitlines():
        if line.startswith("# TYPE "):
            _, _, name, kind = line.split(" ")
            out["#types"][name] = kind
    for family in text_string_to_metric_families(text):
        for s in family.samples:
            key = s.labels.get("queue") or s.labels.get("channel") or s.labels.get("qmgr")
            out.setdefault(s.name, {})[key] = (s.value, s.labels)
    return out


@pytest.fixture
def collector(connect: Callable[..., Any], tmp_path: Path) -> QueueManagerCollector:
    return QueueManagerCollector(
        "QM1",
        lambda: connect(appl_name="metrics"),
        channels=False,
        hostname="host1",
        data_dir=str(tmp_path),
        own=lambda: {"max_channels": 1000, "max_active_channels": 1000, "active_listeners": 1},
    )


def test_queue_status_metrics_follow_a_known_workload(
    qm: Any, clock: FakeClock, collector: QueueManagerCollector
) -> None:
    qm.admin("define", "QLOCAL", "ORDERS", {"DESCR": "orders in", "MAXDEPTH": 400})
    qm.admin("define", "QLOCAL", "TO.QM2", {"USAGE": C.MQUS_TRANSMISSION})
    q = qm.open("ORDERS")
    for _ in range(7):
        q.put(b"x" * 100, persistent=False)
    clock.advance(30)
    q.get()
    q.get()
    q.put(b"y" * 50, syncpoint=True)  # uncommitted
    clock.advance(5)
    m = scrape(collector)
    v = {name: m[f"ibmmq_queue_{name}"]["ORDERS"][0] for name in ("depth", "uncommitted_messages", "hi_depth")}
    assert v == {"depth": 6, "uncommitted_messages": 1, "hi_depth": 7}  # CURDEPTH counts the uncommitted put
    assert m["ibmmq_queue_attribute_max_depth"]["ORDERS"][0] == 400
    assert m["ibmmq_queue_mqput_mqput1_count"]["ORDERS"][0] == 8
    assert m["ibmmq_queue_mqget_count"]["ORDERS"][0] == 2
    assert m["ibmmq_queue_oldest_message_age"]["ORDERS"][0] == 35  # the first put, 35 s ago on the fake clock
    assert m["ibmmq_queue_time_since_put"]["ORDERS"][0] == 5
    assert m["ibmmq_queue_time_since_get"]["ORDERS"][0] == 5
    assert m["ibmmq_queue_input_handles"]["ORDERS"][0] == 1 and m["ibmmq_queue_output_handles"]["ORDERS"][0] == 1
    assert m["ibmmq_queue_qtime_short"]["ORDERS"][0] == 30_000_000  # microseconds, as IBM's QTIME
    assert m["ibmmq_queue_qfile_current_size"]["ORDERS"][0] == 5 * 100  # the bytes of the available messages
    labels = m["ibmmq_queue_depth"]["ORDERS"][1]
    assert set(labels) == set(QUEUE_LABELS)
    assert labels == {
        "queue": "ORDERS",
        "qmgr": "QM1",
        "platform": "UNIX",
        "usage": "NORMAL",
        "description": "orders in",
        "cluster": "-",
    }
    assert m["ibmmq_queue_depth"]["TO.QM2"][1]["usage"] == "XMITQ"
    assert m["ibmmq_queue_depth"]["TO.QM2"][1]["description"] == "-"  # IBM's exporter's value for an empty label
    assert m["ibmmq_queue_attribute_usage"]["TO.QM2"][0] == C.MQUS_TRANSMISSION


def test_hi_depth_is_the_highest_depth_since_the_last_collection_as_reset_qstats(
    qm: Any, collector: QueueManagerCollector
) -> None:
    q = qm.open("Q1")
    for _ in range(5):
        q.put(b"m")
    for _ in range(4):
        q.get()
    assert scrape(collector)["ibmmq_queue_hi_depth"]["Q1"][0] == 5
    assert scrape(collector)["ibmmq_queue_hi_depth"]["Q1"][0] == 1  # reset to the depth by the collection


def test_expired_and_purged_messages_are_counted_per_queue_and_queue_manager(
    qm: Any, clock: FakeClock, collector: QueueManagerCollector
) -> None:
    q = qm.open("Q1")
    q.put(b"short-lived", expiry=1.0)  # seconds
    q.put(b"kept")
    clock.advance(5)
    assert q.get().data == b"kept"  # the expired message is discarded on the get's way
    q.put(b"a")
    q.put(b"b")
    q.close()
    assert qm.admin("clear", "Q1") == 2
    m = scrape(collector)
    assert m["ibmmq_queue_expired_messages"]["Q1"][0] == 1
    assert m["ibmmq_queue_purged_count"]["Q1"][0] == 2
    assert m["ibmmq_qmgr_expired_message_count"]["QM1"][0] == 1
    assert m["ibmmq_queue_qfile_current_size"]["Q1"][0] == 0


def test_queue_manager_counters_keep_ibms_names_without_total(
    connect: Callable[..., Any], qm: Any, collector: QueueManagerCollector
) -> None:
    other = connect()
    q = other.open("Q1")
    for _ in range(3):
        q.put(b"p", syncpoint=True)
        other.commit()
    q.put(b"p", syncpoint=True)
    other.backout()
    q.get()
    m = scrape(collector)
    assert m["ibmmq_qmgr_commit_count"]["QM1"][0] == 3
    assert m["ibmmq_qmgr_rollback_count"]["QM1"][0] == 1
    assert m["ibmmq_qmgr_interval_mqput_mqput1_total_count"]["QM1"][0] == 4
    assert m["ibmmq_qmgr_interval_destructive_get_total_count"]["QM1"][0] == 1
    assert m["ibmmq_qmgr_mqconn_mqconnx_count"]["QM1"][0] == 3  # qm, other, the collector's own
    assert m["ibmmq_qmgr_connection_count"]["QM1"][0] == 3
    assert m["ibmmq_qmgr_status"]["QM1"][0] == C.MQQMSTA_RUNNING
    labels = m["ibmmq_qmgr_status"]["QM1"][1]
    assert labels == {"qmgr": "QM1", "platform": "UNIX", "description": "-", "hostname": "host1"}
    # prometheus_client declares a counter under the name + _total; the samples keep IBM's names
    assert m["#types"]["ibmmq_qmgr_commit_count_total"] == "counter"
    assert m["#types"]["ibmmq_queue_depth"] == "gauge"
    assert not any(name.endswith("_total") for name in m if not name.startswith("#"))


def test_a_queue_manager_that_cannot_be_reached_reports_status_0_as_ibms_exporter(tmp_path: Path) -> None:
    def refuse() -> Any:
        return syncpoint.connect("NOSUCHQM", home=tmp_path)  # no such queue manager: MQMIError

    m = scrape(QueueManagerCollector("NOSUCHQM", refuse, channels=False, hostname="h"))
    assert m["ibmmq_qmgr_status"]["NOSUCHQM"][0] == 0
    assert [name for name in m if not name.startswith("#")] == ["ibmmq_qmgr_status"]


def test_every_metric_ibms_grafana_dashboards_query_exists(qm: Any, collector: QueueManagerCollector) -> None:
    """The metric names that IBM's published dashboards (mq-metric-samples cmd/mq_prometheus/*.json) query, kept
    as a list: Queue_Status.json whole; Queue_Manager_Status.json but its cluster, native-HA and $SYS resource
    panels, which IBM's own exporter fills only for a clustered / native-HA queue manager or from published
    resource statistics (listed in the file with the reason, and in docs/operations.md)."""
    wanted = json.loads(DASHBOARDS.read_text())
    names = set(scrape(collector))
    for dashboard in ("Queue_Status.json", "Queue_Manager_Status.json"):
        missing = [n for n in wanted[dashboard]["served"] if n not in names]
        assert not missing, f"{dashboard}: {missing}"
        assert not set(wanted[dashboard]["not_served"]) & names  # the list of what is not served stays true


def test_a_collection_of_10000_queues_holds_the_lock_for_one_slice_of_queues_at_a_time(
    connect: Callable[..., Any], embedded: Any
) -> None:
    """Issue 36, item 5: the queue manager's lock is held for one slice of queues at a time, whatever the number
    of queues: the collection asks ``queue_metrics`` (one hold of the lock each) for SLICE queues at most, one
    call per slice. (What one slice costs under the lock is measured by bench/metrics_scrape.py: about 0.2 ms
    of CPU for 50 queues on a loaded machine; docs/benchmarks.md.)"""
    admin = connect()
    for i in range(10_000):
        admin.admin("define", "QLOCAL", f"APP.Q{i:05d}")
    queues = len(embedded.engine.queue_names())
    c = QueueManagerCollector("QM1", lambda: connect(), channels=False, hostname="h")
    families = {f.name: f for f in c.collect()}
    assert len(families["ibmmq_queue_depth"].samples) == queues >= 10_000
    # every administrative call of the collection was one slice at most, and there were no more than needed
    assert c.largest_slice == SLICE
    assert c.slice_calls == -(-queues // SLICE)
