"""Batches of gets and browses (the server issue, item 7: pipelining where the MQI semantics allow it) behave
exactly as the same calls one by one, over both transports."""

from __future__ import annotations

from syncpoint.client import QueueManager


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
