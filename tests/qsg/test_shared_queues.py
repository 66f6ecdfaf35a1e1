"""Shared queues through real member processes: a message put on one member is got on another (issue 20,
items 1-3; reference/queue-sharing-groups.md, "What is shared" and "Units of work and recovery")."""

from __future__ import annotations

import threading
import time

import pytest

import syncpoint
from syncpoint.mqi import MQMIError
from syncpoint.mqi import constants as C


@pytest.fixture
def two(group):
    group.add("QMA")
    group.add("QMB")
    a = syncpoint.connect("QMA")
    a.admin("define", "QLOCAL", "SHARED.Q", {"QSGDISP": "SHARED"})
    b = syncpoint.connect("QMB")
    yield a, b
    a.disconnect()
    b.disconnect()


def test_a_message_put_on_one_member_is_got_on_another(two):
    # "SHARED (queues only: ... any queue manager of the group puts and gets them directly)"
    a, b = two
    a.open("SHARED.Q").put(b"hello group", persistent=True)
    got = b.open("SHARED.Q").get()
    assert got.data == b"hello group"
    with pytest.raises(MQMIError) as e:
        a.open("SHARED.Q").get()
    assert e.value.reason == C.MQRC_NO_MSG_AVAILABLE


def test_curdepth_of_a_shared_queue_is_the_groups_depth(two):
    # "CURDEPTH is the group's depth"
    a, b = two
    qa = a.open("SHARED.Q")
    for n in range(3):
        qa.put(b"m%d" % n)
    assert b.open("SHARED.Q").depth == 3 == qa.depth


def test_priority_then_put_order_across_members(two):
    a, b = two
    a.open("SHARED.Q").put(b"low-1", priority=1)
    b.open("SHARED.Q").put(b"high", priority=8)
    a.open("SHARED.Q").put(b"low-2", priority=1)
    q = b.open("SHARED.Q")
    assert [q.get().data for _ in range(3)] == [b"high", b"low-1", b"low-2"]


def test_a_get_in_syncpoint_backed_out_on_one_member_is_got_on_another_with_backout_count_plus_one(two):
    # "MQBACK ... backs out gets and puts on shared queues exactly as on private queues (BackoutCount + 1)"
    a, b = two
    a.open("SHARED.Q").put(b"retry me", persistent=True)
    qb = b.open("SHARED.Q")
    first = qb.get(syncpoint=True)
    assert first.md.BackoutCount == 0
    with pytest.raises(MQMIError):  # held by B's unit of work: not visible to A
        a.open("SHARED.Q").get()
    b.backout()
    again = a.open("SHARED.Q").get(syncpoint=True)
    assert again.data == b"retry me" and again.md.BackoutCount == 1
    a.commit()
    assert b.open("SHARED.Q").depth == 0


def test_a_put_in_syncpoint_is_invisible_to_other_members_until_commit(two):
    a, b = two
    a.open("SHARED.Q").put(b"pending", syncpoint=True)
    with pytest.raises(MQMIError) as e:
        b.open("SHARED.Q").get()
    assert e.value.reason == C.MQRC_NO_MSG_AVAILABLE
    a.commit()
    assert b.open("SHARED.Q").get().data == b"pending"


def test_a_put_in_syncpoint_backed_out_vanishes(two):
    a, b = two
    a.open("SHARED.Q").put(b"never", syncpoint=True)
    a.backout()
    assert b.open("SHARED.Q").depth == 0


def test_a_waiting_get_on_one_member_is_woken_by_a_put_on_another(two):
    # issue 20, item 3: "MQGMO_WAIT gets on one member are woken by a put or commit on another member promptly"
    a, b = two
    got: list[bytes] = []
    waiting = threading.Thread(target=lambda: got.append(b.open("SHARED.Q").get(wait=60).data))
    waiting.start()
    time.sleep(0.3)  # let the get park (the test only needs it to be waiting before the put, not a duration)
    started = time.monotonic()
    a.open("SHARED.Q").put(b"wake up")
    waiting.join(30)
    assert got == [b"wake up"]
    assert time.monotonic() - started < 5  # prompt: woken by the notification (or the 100 ms poll), not the 60 s


def test_non_persistent_messages_on_a_shared_queue_survive_a_member_restart(group, two):
    # "Non-persistent messages on a shared queue survive the restart of a queue manager"
    a, _b = two
    a.open("SHARED.Q").put(b"np", persistent=False)
    a.disconnect()
    group.end("QMA")
    group.start("QMA")
    a2 = syncpoint.connect("QMA")
    assert a2.open("SHARED.Q").get().data == b"np"
    a2.disconnect()
