"""Selectors on shared queues (issue 34, item 2): an MQOPEN with an MQOD SelectionString on a shared queue of a
queue-sharing group browses and gets only the messages its selector chooses, put on any member.

IBM MQ for z/OS selects on shared queues (MQRC_SELECTION_NOT_AVAILABLE, 2551, is IBM's for extended message
selection: ibm.com/docs/en/SSFKSJ_9.2.0/com.ibm.mq.tro.doc/q045500_.html); the selector and the properties it sees
are a private queue's (reference/properties-pubsub.md, "Selectors", "MQRFH2 mapping"). A get must not judge the
queue again on every call: each row is judged once per handle (engine/_shared_select). Two members in this
process (in-process hosts, private stores in memory) share one real PostgreSQL database, on a fake clock.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator

import psycopg
import pytest
from qsg_members import member, reason

import syncpoint
from syncpoint.client import EmbeddedQueueManager
from syncpoint.engine import FakeClock, _shared_select
from syncpoint.mqi import constants as C
from syncpoint.mqi import rfh2
from syncpoint.mqi.properties import build
from waiting import wait_until

GET = C.MQOO_INPUT_SHARED | C.MQOO_FAIL_IF_QUIESCING
BROWSE_GET = GET | C.MQOO_BROWSE
Pair = tuple[syncpoint.QueueManager, syncpoint.QueueManager]
HOSTS: dict[str, EmbeddedQueueManager] = {}


@pytest.fixture
def pair(postgres_url: str) -> Iterator[Pair]:
    clock = FakeClock()
    hosts = [member("QMA", postgres_url, clock), member("QMB", postgres_url, clock)]
    HOSTS.update(QMA=hosts[0], QMB=hosts[1])
    a = syncpoint.connect("QMA", embedded=hosts[0])
    b = syncpoint.connect("QMB", embedded=hosts[1])
    a.admin("define", "QLOCAL", "SQ", {"QSGDISP": "SHARED"})
    yield a, b
    for h in hosts:
        h.close(abnormal=True)


def put_colours(qm: syncpoint.QueueManager, *colours: str, syncpoint: bool = False) -> None:
    out = qm.open("SQ", C.MQOO_OUTPUT)
    for i, colour in enumerate(colours):
        out.put(f"{colour}{i}", properties={"Colour": colour}, syncpoint=syncpoint)
    if syncpoint:
        qm.commit()


def test_a_get_by_selector_on_one_member_takes_the_message_another_member_put(pair: Pair) -> None:
    a, b = pair
    put_colours(a, "red", "blue", "red")
    q = b.open("SQ", GET, selector="Colour = 'blue'")
    m = q.get()
    assert m.data == b"blue1" and m.properties == {"Colour": "blue"}
    assert q.get_or_none() is None
    assert [m.data for m in iter(b.open("SQ", GET).get_or_none, None)] == [b"red0", b"red2"]  # left for others


def test_one_match_at_depth_1000_is_found_and_each_row_is_judged_once(
    pair: Pair, monkeypatch: pytest.MonkeyPatch
) -> None:
    # issue 34, item 2: "a selecting get must not rescan the queue from its head on every call"
    a, b = pair
    judged: list[int] = []
    real = _shared_select.selected
    monkeypatch.setattr(_shared_select, "selected", lambda *args: judged.append(1) or real(*args))
    put_colours(a, *(["red"] * 999), "blue", syncpoint=True)
    q = b.open("SQ", GET, selector="Colour = 'blue'")
    assert q.get().data == b"blue999"
    assert len(judged) == 1000  # the first look judges the queue once
    for i in range(5):
        judged.clear()
        assert q.get_or_none() is None
        assert judged == []  # nothing arrived: nothing judged
        put_colours(a, "blue")
        assert q.get().data == b"blue0"
        assert len(judged) == 1, i  # then only what arrived since
    assert b.open("SQ").depth == 999


def test_a_message_committed_after_the_handle_looked_past_its_id_is_still_seen(pair: Pair) -> None:
    # a put in syncpoint keeps the id it took at its put (its place in FIFO order) however late its commit: the
    # handle finds it by its commit (store/_qsg_select), not by an id above those it judged
    a, b = pair
    late = a.open("SQ", C.MQOO_OUTPUT)
    late.put("late", properties={"Colour": "blue"}, syncpoint=True)
    put_colours(b, "red")  # a higher id, committed first
    q = b.open("SQ", GET, selector="Colour = 'blue'")
    assert q.get_or_none() is None
    a.commit()
    assert q.get().data == b"late"


def test_a_waiting_selecting_get_is_given_the_chosen_message_another_member_puts(pair: Pair) -> None:
    # MQGMO_WAIT: the get waits "for a suitable message to arrive"; for a selecting handle, one its selector chooses
    a, b = pair
    q = b.open("SQ", GET, selector="Colour = 'blue'")
    q._h("get")  # open the input handle before the waiter starts
    got: list[bytes] = []
    waiter = threading.Thread(target=lambda: got.append(q.get(wait=float("inf")).data))
    waiter.start()
    wait_until(lambda: HOSTS["QMB"].waiters.parked("SQ"), "QMB's get waiting", 60)
    put_colours(a, "red", "blue")
    waiter.join(60)
    assert got == [b"blue1"]
    assert b.open("SQ").depth == 1  # the red one, not chosen, stays


def test_browse_walks_only_the_chosen_messages_in_delivery_order_then_get_takes_them(pair: Pair) -> None:
    a, b = pair
    out = a.open("SQ", C.MQOO_OUTPUT)
    for data, colour, priority in [
        ("b-low", "blue", 1),
        ("r-high", "red", 8),
        ("b-high", "blue", 7),
        ("b-2", "blue", 1),
    ]:
        out.put(data, properties={"Colour": colour}, priority=priority)
    q = b.open("SQ", BROWSE_GET, selector="Colour = 'blue'")
    assert [q.browse().data for _ in range(3)] == [b"b-high", b"b-low", b"b-2"]
    assert reason(q.browse) == C.MQRC_NO_MSG_AVAILABLE
    assert q.browse(first=True).data == b"b-high"
    assert b.open("SQ").depth == 4  # a browse removes nothing
    assert [m.data for m in iter(q.get_or_none, None)] == [b"b-high", b"b-low", b"b-2"]
    assert a.open("SQ", GET).get().data == b"r-high"


def test_a_message_another_handle_got_is_forgotten_and_fifo_delivery_order_is_kept(pair: Pair) -> None:
    # MSGDLVSQ(FIFO): arrival order whatever the priority; a match got elsewhere is not offered again
    a, b = pair
    a.admin("alter", "QLOCAL", "SQ", {"MSGDLVSQ": C.MQMDS_FIFO})
    out = a.open("SQ", C.MQOO_OUTPUT)
    for data, priority in [("first", 1), ("second", 9), ("third", 5)]:
        out.put(data, properties={"Colour": "blue"}, priority=priority)
    q = b.open("SQ", BROWSE_GET, selector="Colour = 'blue'")
    assert q.browse().data == b"first"
    assert a.open("SQ", GET).get().data == b"first"  # another member's plain get takes it
    assert [m.data for m in iter(q.get_or_none, None)] == [b"second", b"third"]


def test_a_backed_out_get_is_chosen_again_with_its_backout_count_raised(pair: Pair) -> None:
    a, b = pair
    put_colours(a, "red", "blue")
    q = b.open("SQ", GET, selector="Colour = 'blue'")
    assert q.get(syncpoint=True).data == b"blue1"
    assert q.get_or_none(syncpoint=True) is None  # held by the unit of work
    b.backout()
    again = q.get(syncpoint=True)
    assert again.data == b"blue1" and again.backout_count == 1
    b.commit()
    assert q.get_or_none() is None
    assert a.open("SQ", GET).get().data == b"red0"


def test_a_selector_on_the_backout_count_sees_it_change(pair: Pair) -> None:
    # a live selector (Root.MQMD.BackoutCount) is judged as the message is now, not as it arrived
    a, b = pair
    put_colours(a, "red", "blue")
    q = b.open("SQ", GET, selector="Root.MQMD.BackoutCount > 0")
    assert q.get_or_none() is None
    assert b.open("SQ", GET).get(syncpoint=True).data == b"red0"
    b.backout()
    assert q.get().data == b"red0"
    assert q.get_or_none() is None


def test_a_selector_sees_the_properties_of_a_messages_own_mqrfh2(pair: Pair) -> None:
    # reference/properties-pubsub.md, "MQRFH2 mapping": the usr folder's elements are the message's properties
    a, b = pair
    out = a.open("SQ", C.MQOO_OUTPUT)
    for colour, body in [("red", b"r"), ("blue", b"b")]:
        props = build({"Colour": colour})
        assert props is not None
        header = rfh2.build(props, [], C.MQENC_NATIVE, 1208, C.MQFMT_STRING, C.MQENC_NATIVE)
        out.put(header + body, format=C.MQFMT_RF_HEADER_2)
    q = b.open("SQ", GET, selector="Colour = 'blue'")
    m = q.get()
    assert m.data == b"b" and m.properties == {"Colour": "blue"}
    assert q.get_or_none() is None


def test_a_selector_that_does_not_parse_on_a_shared_queue_is_2459_and_opens_nothing(pair: Pair) -> None:
    _, b = pair
    assert reason(lambda: b.open("SQ", GET, selector="Colour = ")) == C.MQRC_SELECTOR_SYNTAX_ERROR
    b.open("SQ", GET)
    assert b.admin("queue_status", "SQ")["IPPROCS"] == 1  # this open only: the refused one opened nothing


def test_a_database_made_before_arrived_existed_gets_it_at_a_members_start_and_its_rows_are_selected(
    postgres_url: str,
) -> None:
    # store/_qsg_schema._ensure_arrived: the column is added (old rows keep NULL, which a first look reads)
    clock = FakeClock()
    first = member("QMA", postgres_url, clock)
    try:
        a = syncpoint.connect("QMA", embedded=first)
        a.admin("define", "QLOCAL", "SQ", {"QSGDISP": "SHARED"})
        put_colours(a, "red", "blue")
    finally:
        first.close(abnormal=True)
    with psycopg.connect(postgres_url) as conn:  # as a database made by a version without the column
        conn.execute("ALTER TABLE qsg_message DROP COLUMN arrived")  # its index goes with it
    second = member("QMB", postgres_url, clock)
    try:
        with psycopg.connect(postgres_url) as conn:
            assert conn.execute("SELECT count(*) FROM qsg_message WHERE arrived IS NULL").fetchone() == (2,)
            assert conn.execute("SELECT 1 FROM pg_indexes WHERE indexname = 'qsg_message_arrived'").fetchone()
        b = syncpoint.connect("QMB", embedded=second)
        q = b.open("SQ", GET, selector="Colour = 'blue'")
        assert q.get().data == b"blue1"
        put_colours(b, "red", "blue")
        assert q.get().data == b"blue1"
        assert q.get_or_none() is None
    finally:
        second.close(abnormal=True)
