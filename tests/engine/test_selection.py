"""Selecting gets and browses: MQOPEN with an MQOD SelectionString (engine/_select.py), in-process and over the
server's wire protocol.

Rules: properties-pubsub.md ("Selectors"); IBM's "SelectionString (MQCHARV) for MQOD": a selection string only
on an MQOPEN of a queue for browse or input (else MQRC_SELECTOR_INVALID_FOR_TYPE); a get sees only the messages
the selector chooses, in delivery order.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Iterator

import pytest

import syncpoint
from syncpoint.client import EmbeddedQueueManager, QueueManager, memory_queue_manager
from syncpoint.mqi import MQGMO, MQMD, MQOD, MQMIError
from syncpoint.mqi import constants as C
from syncpoint.mqi.selector import Selector

GET = C.MQOO_INPUT_SHARED | C.MQOO_FAIL_IF_QUIESCING


def reason_of(fn, *a, **kw) -> MQMIError:
    with pytest.raises(MQMIError) as ei:
        fn(*a, **kw)
    return ei.value


def put_priorities(qm: QueueManager, *priorities: int) -> None:
    q = qm.open("Q1", C.MQOO_OUTPUT)
    for i, p in enumerate(priorities):
        q.put(f"m{i}-p{p}", priority=p)
    q.close()


def drain(q) -> list[str]:
    out = []
    while (m := q.get_or_none()) is not None:
        out.append(m.data.decode())
    return out


def test_a_selecting_get_sees_only_the_messages_its_selector_chooses_in_delivery_order(qm: QueueManager) -> None:
    put_priorities(qm, 1, 6, 2, 8, 7)
    q = qm.open("Q1", GET, selector="Root.MQMD.Priority > 5")
    assert drain(q) == ["m3-p8", "m4-p7", "m1-p6"]
    rest = qm.open("Q1", GET)
    assert drain(rest) == ["m2-p2", "m0-p1"]  # the others stayed on the queue


def test_jms_names_and_correlid_select_as_their_mqmd_fields(qm: QueueManager) -> None:
    out = qm.open("Q1", C.MQOO_OUTPUT)
    out.put("a", correl_id=b"\xab" * 24, persistent=True)
    out.put("b", correl_id=b"\xcd" * 24)
    q = qm.open("Q1", GET, selector="JMSCorrelationID = 'ID:" + "cd" * 24 + "'")
    assert drain(q) == ["b"]
    q2 = qm.open("Q1", GET, selector="JMSDeliveryMode = 'PERSISTENT' AND Root.MQMD.Format = 'MQSTR'")
    assert drain(q2) == ["a"]


def test_messages_that_arrive_after_the_open_are_judged_too(qm: QueueManager, connect) -> None:
    q = qm.open("Q1", GET, selector="Root.MQMD.Priority = 9")
    assert q.get_or_none() is None
    other = connect()
    out = other.open("Q1", C.MQOO_OUTPUT)
    out.put("in-uow", priority=9, syncpoint=True)  # put before the next get, committed after it
    out.put("plain", priority=9)
    out.put("low", priority=1)
    assert drain(q) == ["plain"]
    other.commit()
    assert drain(q) == ["in-uow"]


def test_a_backed_out_get_is_chosen_again(qm: QueueManager) -> None:
    put_priorities(qm, 3, 7)
    q = qm.open("Q1", GET, selector="Root.MQMD.Priority = 7")
    assert q.get(syncpoint=True).data == b"m1-p7"
    assert q.get_or_none() is None
    qm.backout()
    assert drain(q) == ["m1-p7"]


def test_a_selector_reading_the_backout_count_sees_it_change(qm: QueueManager) -> None:
    put_priorities(qm, 4)
    q = qm.open("Q1", GET, selector="JMSXDeliveryCount > 1")
    assert q.get_or_none() is None
    plain = qm.open("Q1", GET)
    plain.get(syncpoint=True)
    qm.backout()  # BackoutCount 1: delivered once already
    assert drain(q) == ["m0-p4"]


def test_browse_first_and_next_walk_only_the_chosen_messages(qm: QueueManager) -> None:
    put_priorities(qm, 5, 1, 5, 1, 5)
    q = qm.open("Q1", C.MQOO_BROWSE, selector="Root.MQMD.Priority = 5")
    seen = [q.browse(first=True).data]
    seen += [m.data for m in iter(lambda: q_browse_next(q), None)]
    assert seen == [b"m0-p5", b"m2-p5", b"m4-p5"]
    assert qm.open("Q1").depth == 5  # a browse takes nothing


def q_browse_next(q):
    try:
        return q.browse()
    except MQMIError as e:
        assert e.reason == C.MQRC_NO_MSG_AVAILABLE
        return None


def test_two_handles_with_different_selectors_share_the_queue(qm: QueueManager) -> None:
    reds = qm.open("Q1", GET, selector="Root.MQMD.Priority = 1")
    blues = qm.open("Q1", GET, selector="Root.MQMD.Priority = 2")
    put_priorities(qm, 1, 2, 1, 2)
    assert drain(blues) == ["m1-p2", "m3-p2"]
    put_priorities(qm, 2, 1)
    assert drain(reds) == ["m0-p1", "m2-p1", "m1-p1"]
    assert drain(blues) == ["m0-p2"]


def test_a_message_another_handle_got_is_not_delivered_to_the_selecting_handle(qm: QueueManager) -> None:
    put_priorities(qm, 6, 6)
    q = qm.open("Q1", GET | C.MQOO_BROWSE, selector="Root.MQMD.Priority = 6")
    assert q.browse(first=True).data == b"m0-p6"  # judged both
    qm.open("Q1", GET).get()  # another handle takes the first
    assert drain(q) == ["m1-p6"]


def test_msgdlvsq_changed_while_a_handle_selects_keeps_the_new_order(qm: QueueManager) -> None:
    put_priorities(qm, 1, 9, 1)
    q = qm.open("Q1", GET, selector="Root.MQMD.Format = 'MQSTR'")
    assert q.get().data == b"m1-p9"  # judged under priority order: the keys the handle holds are those
    qm.admin("alter", "QLOCAL", "Q1", {"MSGDLVSQ": C.MQMDS_FIFO})  # re-keys every message
    put_priorities(qm, 9)  # (FIFO puts it at the queue's default priority: the name keeps p9)
    assert drain(q) == ["m0-p1", "m2-p1", "m0-p9"]


def test_a_waiting_selecting_get_is_woken_only_by_a_chosen_message(qm: QueueManager, connect) -> None:
    q = qm.open("Q1", GET, selector="Root.MQMD.Priority = 8")
    got: list[bytes] = []
    t = threading.Thread(target=lambda: got.append(q.get(wait=math.inf).data))
    t.start()
    other = connect()
    out = other.open("Q1", C.MQOO_OUTPUT)
    out.put("no", priority=2)
    t.join(0.2)
    assert t.is_alive() and not got  # woken by the put, judged it, waits on
    out.put("yes", priority=8)
    t.join(30)
    assert got == [b"yes"]
    assert other.open("Q1").depth == 1


# -- MQOPEN's checks ----------------------------------------------------------------------------------------
def test_a_selection_string_on_an_open_for_output_only_is_invalid_for_type_2516(qm: QueueManager) -> None:
    e = reason_of(qm.mqopen, MQOD(ObjectName=b"Q1"), C.MQOO_OUTPUT | C.MQOO_INQUIRE, "Root.MQMD.Priority = 1")
    assert e.reason == C.MQRC_SELECTOR_INVALID_FOR_TYPE


def test_a_selection_string_on_the_queue_manager_object_is_invalid_for_type_2516(qm: QueueManager) -> None:
    od = MQOD(ObjectType=C.MQOT_Q_MGR)
    e = reason_of(qm.mqopen, od, C.MQOO_INQUIRE, "Root.MQMD.Priority = 1")
    assert e.reason == C.MQRC_SELECTOR_INVALID_FOR_TYPE


def test_a_selection_string_that_does_not_parse_is_2459_and_opens_nothing(qm: QueueManager) -> None:
    e = reason_of(qm.mqopen, MQOD(ObjectName=b"Q1"), GET, "Color = ")
    assert e.reason == C.MQRC_SELECTOR_SYNTAX_ERROR and "offset 8" in str(e)
    assert qm.mqinq(qm.mqopen(MQOD(ObjectName=b"Q1"), C.MQOO_INQUIRE), [C.MQIA_OPEN_INPUT_COUNT])[0] == [0]


def test_a_selection_string_too_long_is_2519_and_an_always_false_one_2504(qm: QueueManager) -> None:
    long = "A = '" + "x" * 10240 + "'"
    assert reason_of(qm.mqopen, MQOD(ObjectName=b"Q1"), GET, long).reason == C.MQRC_SELECTION_STRING_ERROR
    assert reason_of(qm.mqopen, MQOD(ObjectName=b"Q1"), GET, "1 = 2").reason == C.MQRC_SELECTOR_ALWAYS_FALSE


def test_a_selection_string_needs_a_version_4_mqod(qm: QueueManager) -> None:
    od = MQOD(ObjectName=b"Q1", Version=C.MQOD_VERSION_3)
    assert reason_of(qm.mqopen, od, GET, "Root.MQMD.Priority = 1").reason == C.MQRC_OD_ERROR


def test_raw_mqget_on_a_selecting_handle(qm: QueueManager) -> None:
    put_priorities(qm, 2, 4)
    h = qm.mqopen(MQOD(ObjectName=b"Q1"), GET, "Root.MQMD.Priority < 3")
    md = MQMD()
    assert qm.mqget(h, md, MQGMO()) == b"m0-p2" and md.Priority == 2
    assert reason_of(qm.mqget, h, MQMD(), MQGMO()).reason == C.MQRC_NO_MSG_AVAILABLE


# -- in-process only: properties, and the cost rule ------------------------------------------------------------
@pytest.fixture
def local() -> Iterator[tuple[QueueManager, EmbeddedQueueManager]]:
    e = memory_queue_manager("QM1")
    c = syncpoint.connect("QM1", embedded=e)
    c.admin("define", "QLOCAL", "Q1", {"MAXDEPTH": 100_000})
    yield c, e
    e.close(abnormal=True)


def test_properties_of_a_message_are_selected_on(local: tuple[QueueManager, EmbeddedQueueManager]) -> None:
    qm, embedded = local
    put_priorities(qm, 0, 0)
    q = embedded.engine.queues["Q1"]
    first, second = (q.by_key[k] for k in q.index)
    # the engine's Message.props, name -> (MQTYPE_*, value): 1024 MQTYPE_STRING, 64 MQTYPE_INT32
    first.props = {"Color": (1024, "red")}
    second.props = {"Color": (1024, "blue"), "Size": (64, 3)}
    sel = qm.open("Q1", GET, selector="usr.Color = 'blue' AND Size BETWEEN 1 AND 5")
    assert drain(sel) == ["m1-p0"]


def test_a_selecting_get_judges_each_message_once_not_the_queue_on_every_call(
    local: tuple[QueueManager, EmbeddedQueueManager], monkeypatch: pytest.MonkeyPatch
) -> None:
    # issue 34, item 2: "a selecting get must not rescan the queue from its head on every call"
    qm, _ = local
    judged: list[int] = []
    real = Selector.matches
    monkeypatch.setattr(Selector, "matches", lambda self, md, props=None: judged.append(1) or real(self, md, props))
    put_priorities(qm, *([1] * 500))
    q = qm.open("Q1", GET, selector="Root.MQMD.Priority = 9")
    assert q.get_or_none() is None
    assert len(judged) == 500  # the first look judges the queue once
    for _ in range(20):
        judged.clear()
        put_priorities(qm, 9)
        assert q.get().data == b"m0-p9"
        assert len(judged) == 1  # then only what arrived since


def test_the_arrival_log_stays_bounded_when_no_selecting_handle_looks(
    local: tuple[QueueManager, EmbeddedQueueManager], monkeypatch: pytest.MonkeyPatch
) -> None:
    # engine/_select.py: a log past ARRIVALS_LIMIT is dropped and the selecting handles judge the queue again
    from syncpoint.engine import _state

    monkeypatch.setattr(_state, "ARRIVALS_LIMIT", 10)
    qm, embedded = local
    q = qm.open("Q1", GET, selector="Root.MQMD.Priority = 9")
    assert q.get_or_none() is None  # the first look
    put_priorities(qm, *([1] * 30), 9, 1)
    assert len(embedded.engine.queues["Q1"].arrivals) <= 10
    assert drain(q) == ["m30-p9"]  # found by judging the queue again


def test_a_selection_string_on_a_shared_queue_opens_and_selects(postgres_url: str) -> None:
    # IBM MQ for z/OS selects on shared queues: 2551 (MQRC_SELECTION_NOT_AVAILABLE) is IBM's for extended message
    # selection only (engine/_shared_select; across members: tests/qsg/test_qsg_selection.py)
    from syncpoint.engine import FakeClock
    from syncpoint.engine import QueueManager as Engine
    from syncpoint.store import Batch, MemoryStore, create_member, membership_record

    create_member(postgres_url, "SPG", "QM1")  # a member of group SPG, its private store in memory
    store = MemoryStore()
    store.open()
    clock = FakeClock()
    store.write(Engine.initial_batch("QM1", clock, "SYSTEM.DEAD.LETTER.QUEUE"))
    store.write(Batch(put_objects=[membership_record("SPG", postgres_url)]))
    e = EmbeddedQueueManager("QM1", store, clock)
    try:
        qm = syncpoint.connect("QM1", embedded=e)
        qm.admin("define", "QLOCAL", "SHARED.Q", {"QSGDISP": "SHARED"})
        out = qm.open("SHARED.Q", C.MQOO_OUTPUT)
        for priority in (1, 9, 1):
            out.put(b"p%d" % priority, priority=priority)
        q = qm.open("SHARED.Q", GET, selector="Root.MQMD.Priority = 1")
        assert qm.admin("queue_status", "SHARED.Q")["IPPROCS"] == 1
        assert [m.data for m in iter(q.get_or_none, None)] == [b"p1", b"p1"]
        assert qm.open("SHARED.Q", GET).get().data == b"p9"
    finally:
        e.close(abnormal=True)
