"""Shared queues in the metrics of a member of a queue-sharing group (issue 36, item 1): IBM's exporter reports the
queues a queue manager sees, shared ones included, with the same labels as its other queues, under the member
that reports them; the depth is the group's. Real PostgreSQL, two members in this process on a fake clock."""

from __future__ import annotations

from typing import Any

from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.parser import text_string_to_metric_families
from qsg_members import member

import syncpoint
from syncpoint.engine import FakeClock
from syncpoint.metrics import QUEUE_LABELS, QueueManagerCollector, collect_own


def queue_samples(host: Any, qmgr: str, queue: str) -> dict[str, tuple[float, dict[str, str]]]:
    registry = CollectorRegistry(auto_describe=False)
    collector = QueueManagerCollector(qmgr, lambda: syncpoint.connect(qmgr, embedded=host), channels=False)
    registry.register(collector)
    out: dict[str, tuple[float, dict[str, str]]] = {}
    for family in text_string_to_metric_families(generate_latest(registry).decode()):
        for s in family.samples:
            if s.labels.get("queue") == queue:
                out[s.name] = (s.value, s.labels)
    return out


def test_a_shared_queue_is_served_by_each_member_with_the_groups_depth_and_ibms_labels(postgres_url: str) -> None:
    clock = FakeClock()
    qma = member("QMA", postgres_url, clock)
    qmb = member("QMB", postgres_url, clock)
    try:
        a = syncpoint.connect("QMA", embedded=qma)
        a.admin("define", "QLOCAL", "APP.SHARED", {"QSGDISP": "SHARED", "DESCR": "shared orders"})
        q = a.open("APP.SHARED")
        for i in range(3):
            q.put(b"m%d" % i)
        q.put(b"in a unit of work", syncpoint=True)
        b = syncpoint.connect("QMB", embedded=qmb)
        b.open("APP.SHARED").get()
        on_a = queue_samples(qma, "QMA", "APP.SHARED")
        on_b = queue_samples(qmb, "QMB", "APP.SHARED")
        assert on_a["ibmmq_queue_depth"][0] == on_b["ibmmq_queue_depth"][0] == 3  # the group's: 4 put, 1 got
        assert on_a["ibmmq_queue_uncommitted_messages"][0] == 1  # QMA's unit of work
        assert on_a["ibmmq_queue_mqput_mqput1_count"][0] == 4 and on_b["ibmmq_queue_mqget_count"][0] == 1
        labels = on_b["ibmmq_queue_depth"][1]
        assert set(labels) == set(QUEUE_LABELS)
        assert labels == {
            "queue": "APP.SHARED",
            "qmgr": "QMB",
            "platform": "UNIX",
            "usage": "NORMAL",
            "description": "shared orders",
            "cluster": "-",
        }
        a.backout()
        # syncpoint's own: one statement's round trip to the group's PostgreSQL, as strmqm's metrics report it
        (family,) = [f for f in collect_own("QMA", {"group_rtt": qma.shared.round_trip()})]
        assert family.name == "syncpoint_group_round_trip_seconds"
        assert 0 < family.samples[0].value < 10 and family.samples[0].labels == {"qmgr": "QMA"}
    finally:
        qma.close(abnormal=True)
        qmb.close(abnormal=True)
