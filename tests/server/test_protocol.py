"""The wire protocol without sockets (docs/protocol.md): framing, the handshake, request validation, fuzzing."""

from __future__ import annotations

import struct

import msgpack
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from syncpoint.mqi import MQMIError
from syncpoint.mqi import constants as C
from syncpoint.mqi.objects import Definition, defaults_for
from syncpoint.wire import (
    FATAL,
    MQ_ERROR,
    OK,
    PROTOCOL_VERSIONS,
    Bad,
    Call,
    FrameDecoder,
    Hello,
    ProtocolError,
    ServerProtocol,
    encode_fatal,
    encode_mq_error,
    encode_reply,
    encode_request,
    parse_reply,
)

HELLO = encode_request(1, "hello", [{"versions": [1], "qmgr": "QM1", "appl_name": "t", "pid": 7}])


def frame(obj: object) -> bytes:
    body = msgpack.packb(obj, use_bin_type=True)
    return struct.pack(">I", len(body)) + body


def test_frames_split_at_every_byte_boundary_decode_the_same() -> None:
    data = HELLO + encode_request(2, "commit", []) + encode_request(3, "put", [1, b"m" * 10, b"p", b"data"])
    for cut in range(len(data) + 1):
        d = FrameDecoder()
        got = d.feed(data[:cut]) + d.feed(data[cut:])
        assert [f[1] for f in got] == [1, 2, 3]
        assert d.buffered == 0


def test_frames_fed_one_byte_at_a_time_decode() -> None:
    data = HELLO + encode_request(2, "backout", [])
    d = FrameDecoder()
    got = []
    for i in range(len(data)):
        got += d.feed(data[i : i + 1])
    assert [f[2] for f in got] == ["hello", "backout"]


def test_oversized_frame_is_fatal_before_its_body_arrives() -> None:
    d = FrameDecoder(max_frame=1000)
    with pytest.raises(ProtocolError) as e:
        d.feed(struct.pack(">I", 1001))
    assert e.value.fatal and "exceeds" in e.value.detail
    with pytest.raises(ProtocolError):  # a failed stream stays failed
        d.feed(b"")


def test_garbage_that_is_not_msgpack_is_fatal() -> None:
    with pytest.raises(ProtocolError) as e:
        FrameDecoder().feed(struct.pack(">I", 1) + b"\xc1")  # 0xc1 is never used by msgpack
    assert e.value.fatal


def test_first_request_must_be_hello() -> None:
    p = ServerProtocol()
    with pytest.raises(ProtocolError) as e:
        p.receive(encode_request(1, "commit", []))
    assert e.value.fatal and "hello" in e.value.detail


def test_hello_negotiates_the_highest_common_version() -> None:
    p = ServerProtocol()
    (ev,) = p.receive(
        encode_request(5, "hello", [{"versions": [0, *PROTOCOL_VERSIONS, 99], "qmgr": "QM1", "user": "app"}])
    )
    assert isinstance(ev, Hello)
    assert (ev.request_id, ev.version, ev.qmgr, ev.user, ev.password) == (5, max(PROTOCOL_VERSIONS), "QM1", "app", None)
    (old,) = ServerProtocol().receive(encode_request(6, "hello", [{"versions": [0, 1, 99], "qmgr": "QM1"}]))
    assert isinstance(old, Hello) and old.version == 1  # a version-1 client is answered in version 1


def test_hello_without_a_common_version_is_fatal() -> None:
    with pytest.raises(ProtocolError) as e:
        ServerProtocol().receive(encode_request(1, "hello", [{"versions": [99]}]))
    assert e.value.fatal and "no common protocol version" in e.value.detail


@pytest.mark.parametrize(
    "params",
    [
        {"versions": "1"},
        {"versions": [1], "qmgr": 5},
        {"versions": [1], "appl_name": "x" * 29},
        {"versions": [1], "password": 12},
        {"versions": [1], "pid": "p"},
    ],
)
def test_malformed_hello_is_fatal(params: dict[str, object]) -> None:
    with pytest.raises(ProtocolError):
        ServerProtocol().receive(encode_request(1, "hello", [params]))


def test_unknown_verb_and_wrong_argument_count_are_bad_requests_the_session_survives() -> None:
    p = ServerProtocol()
    p.receive(HELLO)
    events = p.receive(
        encode_request(2, "frobnicate", []) + encode_request(3, "put", [1]) + encode_request(4, "commit", [])
    )
    assert isinstance(events[0], Bad) and "unknown verb" in events[0].detail
    assert isinstance(events[1], Bad) and "4 to 5 arguments" in events[1].detail  # the fifth: properties
    assert isinstance(events[2], Call) and events[2].verb == "commit"


def test_second_hello_is_a_bad_request() -> None:
    p = ServerProtocol()
    p.receive(HELLO)
    (ev,) = p.receive(HELLO)
    assert isinstance(ev, Bad)


@pytest.mark.parametrize("obj", [[1, 2, "commit", []], [0, -1, "commit", []], [0, "x", "commit", []], {"a": 1}, 7])
def test_frames_that_are_not_requests_are_fatal(obj: object) -> None:
    p = ServerProtocol()
    p.receive(HELLO)
    with pytest.raises(ProtocolError) as e:
        p.receive(frame(obj))
    assert e.value.fatal


def test_replies_round_trip_with_mq_errors_and_definitions() -> None:
    d = Definition("QLOCAL", "Q1", defaults_for("QLOCAL"))
    frames = FrameDecoder().feed(
        encode_reply(3, {"def": d, "n": [1, 2]})
        + encode_mq_error(4, MQMIError(C.MQCC_FAILED, C.MQRC_NO_MSG_AVAILABLE, "none"))
        + encode_fatal("bye")
    )
    r1, r2, r3 = (parse_reply(f) for f in frames)
    assert r1.status == OK and r1.body["def"] == d and r1.body["n"] == [1, 2]
    assert r2.status == MQ_ERROR and r2.body == [C.MQCC_FAILED, C.MQRC_NO_MSG_AVAILABLE, "none"]
    assert r3.status == FATAL and r3.body == "bye"


def test_a_reply_that_is_not_a_reply_is_rejected_by_the_client() -> None:
    with pytest.raises(ProtocolError):
        parse_reply([0, 1, "commit", []])


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=200), st.integers(min_value=0, max_value=200))
def test_fuzz_random_bytes_give_events_or_a_protocol_error_never_anything_else(data: bytes, cut: int) -> None:
    p = ServerProtocol(max_frame=150)
    try:
        p.receive(HELLO)
        p.receive(data[:cut])
        p.receive(data[cut:])
    except ProtocolError:
        pass


@settings(max_examples=200, deadline=None)
@given(
    st.recursive(
        st.none()
        | st.booleans()
        | st.integers(min_value=-(2**63), max_value=2**64 - 1)
        | st.binary(max_size=20)
        | st.text(max_size=10),
        lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
        max_leaves=20,
    )
)
def test_fuzz_any_msgpack_value_as_a_frame_is_handled(obj: object) -> None:
    p = ServerProtocol()
    p.receive(HELLO)
    try:
        events = p.receive(frame(obj))
    except ProtocolError as e:
        assert e.fatal
    else:
        assert all(isinstance(e, (Call, Bad)) for e in events)
