"""Reservations by MsgToken and batches by MsgToken (issue 8, item 3: "messages of an in-flight batch reserved
against other consumers and against expiry"), over both transports (tests/engine/conftest.py).

All times move on the fake clock: no test sleeps.
"""

from __future__ import annotations

import struct
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

import syncpoint
from syncpoint.client import QueueManager, create_queue_manager, open_embedded
from syncpoint.engine import FakeClock
from syncpoint.mqi import MQGMO, MQMD, MQOD, MQMIError
from syncpoint.mqi import constants as C

Connect = Callable[..., QueueManager]


def reason_of(fn, *a, **kw) -> int:
    with pytest.raises(MQMIError) as ei:
        fn(*a, **kw)
    return ei.value.reason


def tokens_of(qm: QueueManager, queue: str = "Q1") -> list[int]:
    """The MsgTokens of the messages this connection can browse, in delivery order."""
    h = qm.mqopen(MQOD(ObjectName=queue.encode()), C.MQOO_BROWSE)
    out = []
    try:
        opts = C.MQGMO_BROWSE_FIRST
        while True:
            gmo = MQGMO(Version=C.MQGMO_VERSION_3, Options=opts | C.MQGMO_NO_WAIT)
            try:
                qm.mqget(h, MQMD(), gmo)
            except MQMIError as e:
                if e.reason == C.MQRC_NO_MSG_AVAILABLE:
                    return out
                raise
            out.append(struct.unpack(">QQ", gmo.MsgToken)[1])
            opts = C.MQGMO_BROWSE_NEXT
    finally:
        qm.mqclose(h)


def by_token(qm: QueueManager, token: int, *, browse: bool = False) -> bytes:
    """A plain MQGET (or browse) matching one MsgToken with MQMO_MATCH_MSG_TOKEN."""
    q = qm.open("Q1")
    gmo = MQGMO(Version=C.MQGMO_VERSION_3, Options=C.MQGMO_NO_WAIT | (C.MQGMO_BROWSE_FIRST if browse else 0))
    gmo.MatchOptions = C.MQMO_MATCH_MSG_TOKEN
    gmo.MsgToken = struct.pack(">QQ", 0, token)
    return qm.mqget(q._h("browse" if browse else "get"), MQMD(), gmo)


@pytest.fixture
def loaded(qm: QueueManager) -> list[int]:
    qm.open("Q1").put_many([b"m0", b"m1", b"m2"])
    return tokens_of(qm)


# -- other connections ---------------------------------------------------------------------------------
def test_another_connections_get_and_browse_skip_a_reserved_message(qm: QueueManager, connect: Connect, loaded) -> None:
    assert qm.open("Q1").reserve(loaded[:2]) == loaded[:2]
    other = connect().open("Q1")
    assert other.browse(first=True).data == b"m2"
    assert [m.data for m in other.browse_all()] == [b"m2"]
    assert other.get().data == b"m2"
    assert reason_of(other.get) == C.MQRC_NO_MSG_AVAILABLE


def test_the_owner_still_gets_and_browses_its_reserved_messages(qm: QueueManager, loaded) -> None:
    q = qm.open("Q1")
    q.reserve(loaded)
    assert [m.data for m in q.browse_all()] == [b"m0", b"m1", b"m2"]
    assert q.get().data == b"m0"


def test_a_token_matched_get_or_browse_by_another_connection_reaches_a_reserved_message(
    qm: QueueManager, connect: Connect, loaded
) -> None:
    qm.open("Q1").reserve(loaded)
    other = connect()
    assert by_token(other, loaded[1], browse=True) == b"m1"
    assert by_token(other, loaded[1]) == b"m1"
    assert [m and m.data for m in other.open("Q1").get_tokens([loaded[0], loaded[1]], syncpoint=False)] == [b"m0", None]


def test_curdepth_counts_reserved_messages(qm: QueueManager, loaded) -> None:
    q = qm.open("Q1")
    q.reserve(loaded)
    assert q.depth == 3


def test_another_connections_get_under_cursor_does_not_take_a_message_reserved_meanwhile(
    qm: QueueManager, connect: Connect, loaded
) -> None:
    other = connect()
    q = other.open("Q1", C.MQOO_BROWSE | C.MQOO_INPUT_SHARED)
    assert q.browse(first=True).data == b"m0"
    qm.open("Q1").reserve(loaded[:1])
    assert reason_of(q.get_under_cursor) == C.MQRC_NO_MSG_UNDER_CURSOR


# -- expiry --------------------------------------------------------------------------------------------
def test_expiry_leaves_a_reserved_message_and_discards_it_after_release(
    qm: QueueManager, connect: Connect, clock: FakeClock
) -> None:
    q = qm.open("Q1")
    q.put(b"soon", expiry=5.0)
    q.put(b"later")
    t = tokens_of(qm)[0]
    assert q.reserve([t]) == [t]
    clock.advance(10)
    assert qm.admin("refresh_expiry", "Q1") == 0  # the expiry scan leaves it
    assert q.depth == 2
    other = connect().open("Q1")
    assert other.browse(first=True).data == b"later"  # skipped by another, not discarded
    assert q.depth == 2
    assert q.release() == [t]
    assert qm.admin("refresh_expiry", "Q1") == 1  # released: the scan discards it
    assert q.depth == 1 and other.get().data == b"later"


def test_a_get_discards_a_released_expired_message(qm: QueueManager, clock: FakeClock) -> None:
    q = qm.open("Q1")
    q.put(b"soon", expiry=5.0)
    t = tokens_of(qm)[0]
    q.reserve([t])
    clock.advance(10)
    q.release([t])
    assert reason_of(q.get) == C.MQRC_NO_MSG_AVAILABLE
    assert q.depth == 0


def test_a_reserved_message_past_its_expiry_is_delivered_with_expiry_one(
    qm: QueueManager, connect: Connect, clock: FakeClock
) -> None:
    q = qm.open("Q1")
    q.put(b"soon", expiry=5.0)
    t = tokens_of(qm)[0]
    q.reserve([t])
    clock.advance(60)
    (browsed,) = q.browse_tokens([t])
    assert browsed is not None and browsed.data == b"soon" and browsed.expiry == 1
    (got,) = connect().open("Q1").get_tokens([t], syncpoint=False)
    assert got is not None and got.data == b"soon" and got.expiry == 1
    assert q.depth == 0


# -- ending a reservation ------------------------------------------------------------------------------
def test_release_wakes_a_waiting_get_of_another_connection(qm: QueueManager, connect: Connect) -> None:
    q = qm.open("Q1")
    q.put(b"held")
    q.reserve(tokens_of(qm))
    other = connect().open("Q1")
    other._h("get")
    got: list[bytes] = []
    t = threading.Thread(target=lambda: got.append(other.get(wait=float("inf")).data))
    t.start()
    t.join(0.2)
    assert t.is_alive() and not got  # reserved: the waiting get does not take it
    q.release()
    t.join(10)
    assert got == [b"held"]


def test_release_of_some_tokens_leaves_the_others_reserved(qm: QueueManager, connect: Connect, loaded) -> None:
    q = qm.open("Q1")
    q.reserve(loaded)
    assert q.release([loaded[1], 999_999]) == [loaded[1]]
    assert [m.data for m in connect().open("Q1").browse_all()] == [b"m1"]


def test_the_owners_disconnect_releases_its_reservations(connect: Connect, loaded) -> None:
    owner = connect()
    owner.open("Q1").reserve(loaded)
    other = connect().open("Q1")
    assert reason_of(other.browse, first=True) == C.MQRC_NO_MSG_AVAILABLE
    owner.disconnect()
    assert [m.data for m in other.browse_all()] == [b"m0", b"m1", b"m2"]


def test_the_owners_abnormal_end_releases_its_reservations(connect: Connect, loaded) -> None:
    owner = connect()
    owner.open("Q1").reserve(loaded)
    owner.transport.disconnect(True)
    assert connect().open("Q1").get().data == b"m0"


def test_a_committed_get_ends_the_reservation(qm: QueueManager, connect: Connect, loaded) -> None:
    q = qm.open("Q1")
    q.reserve(loaded)
    sink = connect()
    assert [m and m.data for m in sink.open("Q1").get_tokens(loaded[:1])] == [b"m0"]
    sink.commit()
    assert q.release() == loaded[1:]  # the removed message's reservation ended with it


def test_a_backed_out_get_of_a_reserved_message_keeps_the_reservation(
    qm: QueueManager, connect: Connect, loaded
) -> None:
    q = qm.open("Q1")
    q.reserve(loaded[:1])
    sink = connect()
    sink.open("Q1").get_tokens(loaded[:1])
    assert q.reserve(loaded[:1]) == loaded[:1]  # held by the sink's unit of work, still ours
    sink.backout()
    other = connect().open("Q1")
    assert other.get().data == b"m1"  # m0 is back, backed out, still reserved
    (m0,) = q.browse_tokens(loaded[:1])
    assert m0 is not None and m0.backout_count == 1
    assert q.release() == loaded[:1]


# -- what cannot be reserved ---------------------------------------------------------------------------
def test_reserving_a_token_not_on_the_queue_returns_it_as_not_reserved(qm: QueueManager, loaded) -> None:
    q = qm.open("Q1")
    q.get()
    assert q.reserve([loaded[0], loaded[1], 123_456_789]) == [loaded[1]]


def test_a_message_reserved_by_another_connection_is_not_reserved(qm: QueueManager, connect: Connect, loaded) -> None:
    qm.open("Q1").reserve(loaded[:1])
    assert connect().open("Q1").reserve(loaded) == loaded[1:]


def test_a_message_got_in_another_unit_of_work_cannot_be_reserved(qm: QueueManager, connect: Connect, loaded) -> None:
    other = connect()
    other.open("Q1").get(syncpoint=True)
    q = qm.open("Q1")
    assert q.reserve(loaded) == loaded[1:]
    other.backout()
    assert q.reserve(loaded[:1]) == loaded[:1]


def test_reserving_twice_is_no_error_and_a_message_locked_by_another_connection_is_not_reserved(
    qm: QueueManager, connect: Connect, loaded
) -> None:
    q = qm.open("Q1")
    assert q.reserve(loaded[1:]) == loaded[1:]
    assert q.reserve(loaded[1:]) == loaded[1:]
    other = connect().open("Q1")
    other.browse(first=True, lock=True)
    assert q.reserve(loaded[:1]) == []


# -- batches by MsgToken -------------------------------------------------------------------------------
def test_browse_tokens_returns_the_messages_in_the_order_asked_with_none_for_gone_ones(
    qm: QueueManager, loaded
) -> None:
    q = qm.open("Q1")
    q.get_tokens(loaded[1:2], syncpoint=False)
    got = q.browse_tokens([loaded[2], loaded[1], loaded[0]], chunk=2)
    assert [m and m.data for m in got] == [b"m2", None, b"m0"]
    heads = q.browse_tokens(loaded, with_data=False)
    assert [m and (m.data, bytes(m.md.MsgId) != b"\0" * 24) for m in heads] == [(b"", True), None, (b"", True)]
    assert q.depth == 2


def test_get_tokens_in_syncpoint_is_one_unit_of_work(qm: QueueManager, loaded) -> None:
    q = qm.open("Q1")
    assert [m and m.data for m in q.get_tokens(loaded)] == [b"m0", b"m1", b"m2"]
    assert q.depth == 0
    qm.backout()
    assert [m.backout_count for m in q.browse_all()] == [1, 1, 1]


def test_get_tokens_beyond_maxumsgs_raises_with_what_was_got(qm: QueueManager, loaded) -> None:
    qm.admin("alter_qmgr", {"MAXUMSGS": 2})
    q = qm.open("Q1")
    with pytest.raises(MQMIError) as ei:
        q.get_tokens(loaded)
    assert ei.value.reason == C.MQRC_SYNCPOINT_LIMIT_REACHED
    assert [m and m.data for m in ei.value.messages] == [b"m0", b"m1"]  # type: ignore[attr-defined]
    qm.backout()


# -- bad inputs ----------------------------------------------------------------------------------------
def test_reserving_on_an_unknown_queue_is_2085(qm: QueueManager) -> None:
    assert reason_of(qm.open("NO.SUCH.QUEUE").reserve, [1]) == C.MQRC_UNKNOWN_OBJECT_NAME


def test_a_handle_not_open_for_browse_or_input_cannot_reserve_or_browse_by_token(qm: QueueManager, loaded) -> None:
    out = qm.open("Q1", C.MQOO_OUTPUT)
    assert reason_of(out.reserve, loaded) == C.MQRC_NOT_OPEN_FOR_BROWSE
    assert reason_of(out.release) == C.MQRC_NOT_OPEN_FOR_BROWSE
    assert reason_of(out.browse_tokens, loaded) == C.MQRC_NOT_OPEN_FOR_BROWSE
    assert reason_of(out.get_tokens, loaded) == C.MQRC_NOT_OPEN_FOR_INPUT
    browse_only = qm.open("Q1", C.MQOO_BROWSE)
    assert reason_of(browse_only.get_tokens, loaded) == C.MQRC_NOT_OPEN_FOR_INPUT
    input_only = qm.open("Q1", C.MQOO_INPUT_SHARED)
    assert reason_of(input_only.browse_tokens, loaded) == C.MQRC_NOT_OPEN_FOR_BROWSE
    assert input_only.reserve(loaded[:1]) == loaded[:1]  # an input handle may reserve
    assert qm.open("Q1").depth == 3


@pytest.mark.parametrize("tokens", [["a", 1], [1.5], [-1], [True], "abc", [None]])
def test_msgtokens_that_are_not_whole_numbers_are_2331_and_change_nothing(qm: QueueManager, loaded, tokens) -> None:
    q = qm.open("Q1")
    h = q._h("browse")
    for fn in (qm.transport.reserve, qm.transport.release):
        assert reason_of(fn, h, tokens) == C.MQRC_MSG_TOKEN_ERROR
    gmo = MQGMO(Options=C.MQGMO_BROWSE_FIRST)
    assert reason_of(qm.transport.get_tokens, h, gmo, None, tokens) == C.MQRC_MSG_TOKEN_ERROR
    assert [m.data for m in q.browse_all()] == [b"m0", b"m1", b"m2"]  # the connection goes on


def test_a_get_by_tokens_does_not_wait(qm: QueueManager, loaded) -> None:
    q = qm.open("Q1")
    gmo = MQGMO(Options=C.MQGMO_WAIT, WaitInterval=10)
    assert reason_of(qm.transport.get_tokens, q._h("get"), gmo, None, loaded) == C.MQRC_OPTIONS_ERROR


# -- restart -------------------------------------------------------------------------------------------
def test_a_restart_forgets_reservations(tmp_path: Path) -> None:
    create_queue_manager("QM1", home=tmp_path)
    owner = syncpoint.connect("QM1", home=tmp_path)
    owner.admin("define", "QLOCAL", "Q1")
    q = owner.open("Q1")
    q.put(b"p", persistent=True)
    t = tokens_of(owner)
    assert q.reserve(t) == t
    open_embedded("QM1", home=tmp_path).abandon()  # a crash: nothing of the reservation was written
    other = syncpoint.connect("QM1", home=tmp_path)
    try:
        assert other.open("Q1").get().data == b"p"
    finally:
        other.disconnect()
