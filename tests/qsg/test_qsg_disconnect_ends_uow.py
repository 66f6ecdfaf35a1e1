"""MQDISC ends a unit of work that holds only shared-queue messages, as it ends any other: a normal end commits it,
an abnormal end (a broken connection, a process that ends without MQDISC) backs it out with BackoutCount + 1
(engine/_connections.py, from IBM: "MQDISC commits the unit of work; an abnormal end … backs it out").

Before, a unit of work with no private message was left held by the member's session: its gets invisible to every
member until the member restarted, which then backed them out — a message whose consumer had disconnected
normally came back. Two in-process members sharing a real PostgreSQL.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from qsg_members import member

import syncpoint
from syncpoint.engine import FakeClock


@pytest.fixture
def pair(postgres_url: str) -> Iterator[tuple[syncpoint.QueueManager, object]]:
    clock = FakeClock()
    hosts = [member("QMA", postgres_url, clock), member("QMB", postgres_url, clock)]
    b = syncpoint.connect("QMB", embedded=hosts[1])
    b.admin("define", "QLOCAL", "SQ", {"QSGDISP": "SHARED"})
    yield b, hosts[0]
    for h in hosts:
        h.close(abnormal=True)


def test_mqdisc_commits_a_unit_of_work_on_shared_queues_only(pair):
    b, host_a = pair
    b.open("SQ").put(b"one", persistent=True)
    a = syncpoint.connect("QMA", embedded=host_a)
    assert a.open("SQ").get(syncpoint=True).data == b"one"
    a.open("SQ").put(b"two", syncpoint=True, persistent=True)
    a.disconnect()  # a normal end: the unit of work commits
    q = b.open("SQ")
    assert q.depth == 1
    assert q.get().data == b"two"


def test_an_abnormal_end_backs_out_a_unit_of_work_on_shared_queues_only(pair):
    b, host_a = pair
    b.open("SQ").put(b"one", persistent=True)
    with pytest.raises(RuntimeError), syncpoint.connect("QMA", embedded=host_a) as a:
        assert a.open("SQ").get(syncpoint=True).data == b"one"
        a.open("SQ").put(b"two", syncpoint=True, persistent=True)
        raise RuntimeError("the application fails: its connection ends abnormally")
    q = b.open("SQ")
    assert q.depth == 1
    again = q.get()
    assert (again.data, again.md.BackoutCount) == (b"one", 1)
