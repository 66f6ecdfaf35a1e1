"""Batches of gets and browses (the server issue, item 7: pipelining where the MQI semantics allow it) behave
exactly as the same calls one by one, over both transports."""

from __future__ import annotations

import pickle
from collections.abc import Callable

import pytest

from syncpoint.client import QueueManager
from syncpoint.mqi import MQMIError
from syncpoint.mqi import constants as C


def test_browse_all_with_read_ahead_sees_every_message_in_order_and_removes_none(qm: QueueManager) -> None:
    q = qm.open("Q1")
    q.put_many([f"m{i}" for i in range(150)])
    q.put("urgent", priority=9)
    seen = [m.text for m in q.browse_all(read_ahead=16)]
    assert seen == ["urgent"] + [f"m{i}" for i in range(150)]
    assert q.depth == 151


def test_browse_all_of_an_empty_queue_yields_nothing(qm: QueueManager) -> None:
    assert list(qm.open("Q1").browse_all()) == []


def test_get_many_returns_up_to_the_limit_then_what_is_left(qm: QueueManager) -> None:
    q = qm.open("Q1")
    q.put_many([b"a", b"b", b"c"])
    assert [m.data for m in q.get_many(2)] == [b"a", b"b"]
    assert [m.data for m in q.get_many(10)] == [b"c"]
    assert q.get_many(5) == []


def test_get_many_in_syncpoint_is_backed_out_as_one_unit_of_work(qm: QueueManager) -> None:
    q = qm.open("Q1")
    q.put_many([b"a", b"b"])
    assert len(q.get_many(10, syncpoint=True)) == 2
    qm.backout()
    assert [(m.data, m.backout_count) for m in q.get_many(10)] == [(b"a", 1), (b"b", 1)]


# put_many(commit=True) and get_many(commit_first=True): a batch and its MQCMIT in one call (one request over the
# network), with the semantics of the same MQI calls one after the other


def test_put_many_with_commit_makes_the_batch_visible_to_others(
    qm: QueueManager, connect: Callable[..., QueueManager]
) -> None:
    other = connect().open("Q1")
    q = qm.open("Q1")
    q.put_many([b"a", b"b", b"c"], syncpoint=True, persistent=True, commit=True)
    assert [m.data for m in other.get_many(10)] == [b"a", b"b", b"c"]
    qm.backout()  # nothing was left in the unit of work
    assert other.get_many(10) == []


def test_put_many_with_commit_commits_nothing_when_a_put_fails(
    qm: QueueManager, connect: Callable[..., QueueManager]
) -> None:
    # a program checking each MQPUT would not issue the MQCMIT: the unit of work stays open for it to decide
    qm.admin("define", "QLOCAL", "SMALL", {"MAXDEPTH": 2})
    q = qm.open("SMALL")
    with pytest.raises(MQMIError) as e:
        q.put_many([b"a", b"b", b"c"], syncpoint=True, commit=True)
    assert e.value.reason == C.MQRC_Q_FULL
    assert len(e.value.done) == 2  # type: ignore[attr-defined]
    other = connect().open("SMALL")
    assert other.get_many(10) == []  # not committed
    qm.backout()
    assert other.get_many(10) == [] and q.depth == 0


def test_get_many_commit_first_ends_the_previous_batch_before_getting(qm: QueueManager) -> None:
    q = qm.open("Q1")
    q.put_many([b"a", b"b", b"c", b"d"], persistent=True)
    assert [m.data for m in q.get_many(2, syncpoint=True)] == [b"a", b"b"]
    assert [m.data for m in q.get_many(2, syncpoint=True, commit_first=True)] == [b"c", b"d"]
    qm.backout()  # backs out the second batch only: the first was committed before it was got
    assert [(m.data, m.backout_count) for m in q.get_many(10)] == [(b"c", 1), (b"d", 1)]


def test_get_many_commit_first_commits_puts_of_the_unit_of_work_too(qm: QueueManager) -> None:
    q = qm.open("Q1")
    q.put(b"x", syncpoint=True)
    assert [m.data for m in q.get_many(5, syncpoint=True, commit_first=True)] == [b"x"]
    qm.commit()
    assert q.depth == 0


def test_get_many_messages_carry_their_mqmd_and_compare_as_messages(qm: QueueManager) -> None:
    # over the network the MQMDs of a batch stay packed until asked for: nothing of that may show
    q = qm.open("Q1")
    put = q.put_many([b"a", b"b"], persistent=True, priority=7)
    got = q.get_many(5)
    assert [m.msg_id for m in got] == [bytes(md.MsgId) for md in put]
    assert [(m.priority, m.persistent, m.backout_count) for m in got] == [(7, True, 0), (7, True, 0)]
    again = pickle.loads(pickle.dumps(got))
    assert again == got and again[0].md.PutTime == got[0].md.PutTime and "b'a'" in repr(again[0])
    got[1].md = again[0].md
    assert got[1].msg_id == put[0].MsgId


def test_get_many_of_a_message_too_long_for_the_buffer_raises_after_the_batch(qm: QueueManager) -> None:
    q = qm.open("Q1")
    q.put_many([b"abcdef"])
    with pytest.raises(MQMIError) as e:
        q.get_many(3, max_length=3)
    assert e.value.reason == C.MQRC_TRUNCATED_MSG_FAILED
    assert e.value.messages == []  # type: ignore[attr-defined]
    assert [m.data for m in q.get_many(3)] == [b"abcdef"]  # left on the queue
