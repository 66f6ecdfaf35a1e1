"""The client's side of the wire protocol, shared by the blocking client (``client/_remote``) and the asyncio client
(``aio/_connection``): what a call gets from each kind of reply (docs/protocol.md: OK, MQ_ERROR, BAD_REQUEST,
FATAL), the hello both send, and the error for a server neither can reach. Sans-I/O: frames built by the server's
own encoders and decoded by the one decoder both clients use."""

from __future__ import annotations

import os

import pytest

from syncpoint.mqi import MQMIError
from syncpoint.mqi import constants as C
from syncpoint.wire import (
    DEFAULT_MAX_FRAME,
    PROTOCOL_VERSIONS,
    FrameDecoder,
    ProtocolError,
    encode_bad_request,
    encode_fatal,
    encode_mq_error,
    encode_reply,
    hello_params,
    parse_reply,
    reply_result,
    unreachable,
)


def _reply(frame: bytes) -> object:
    (decoded,) = FrameDecoder(DEFAULT_MAX_FRAME).feed(frame)
    return parse_reply(decoded)


def test_an_ok_reply_gives_its_result_to_the_call_it_answers() -> None:
    assert reply_result(_reply(encode_reply(7, {"hobj": 3})), 7) == {"hobj": 3}  # type: ignore[arg-type]


def test_an_mq_error_reply_gives_the_call_its_completion_and_reason_codes() -> None:
    got = reply_result(_reply(encode_mq_error(2, MQMIError(C.MQCC_FAILED, C.MQRC_NO_MSG_AVAILABLE, "empty"))), 2)  # type: ignore[arg-type]
    assert isinstance(got, MQMIError) and (got.comp, got.reason) == (C.MQCC_FAILED, 2033) and got.detail == "empty"


def test_a_bad_request_reply_is_mqrc_unexpected_error_naming_the_servers_sentence() -> None:
    got = reply_result(_reply(encode_bad_request(4, "unknown verb 'frob'")), 4)  # type: ignore[arg-type]
    assert isinstance(got, MQMIError) and got.reason == C.MQRC_UNEXPECTED_ERROR == 2195
    assert "unknown verb 'frob'" in got.detail


def test_a_fatal_reply_ends_the_connection_with_the_servers_reason() -> None:
    with pytest.raises(ProtocolError, match="the queue manager ended the connection: handshake deadline"):
        reply_result(_reply(encode_fatal("handshake deadline")), 1)  # type: ignore[arg-type]


def test_a_reply_to_another_request_ends_the_connection_naming_the_one_expected() -> None:
    with pytest.raises(ProtocolError, match="reply 5 arrived where 4 was expected"):
        reply_result(_reply(encode_reply(5, None)), 4)  # type: ignore[arg-type]
    with pytest.raises(ProtocolError, match="reply 5 arrived where none was expected"):
        reply_result(_reply(encode_reply(5, None)), None)  # type: ignore[arg-type]


def test_hello_names_the_versions_the_queue_manager_and_ibms_28_character_appl_name() -> None:
    hello = hello_params("QM1", None, "secret", "x" * 40, C.MQAT_UNIX)
    assert hello["versions"] == list(PROTOCOL_VERSIONS) and hello["qmgr"] == "QM1"
    assert hello["user"] == "" and hello["password"] == "secret"
    assert hello["appl_name"] == "x" * 28 and hello["appl_type"] == C.MQAT_UNIX and hello["pid"] == os.getpid()


def test_an_unreachable_server_is_2538_over_tcp_and_2059_over_a_local_socket() -> None:
    # IBM's client: MQRC_HOST_NOT_AVAILABLE (2538) for a listener it cannot reach; a local queue manager that is
    # not there: MQRC_Q_MGR_NOT_AVAILABLE (2059)
    tcp = unreachable(("mq.example", 1414), None, ConnectionRefusedError(111, "Connection refused"))
    assert tcp.reason == C.MQRC_HOST_NOT_AVAILABLE == 2538 and "mq.example(1414)" in tcp.detail
    local = unreachable(None, "/run/qm.sock", FileNotFoundError(2, "No such file or directory"))
    assert local.reason == C.MQRC_Q_MGR_NOT_AVAILABLE == 2059 and "/run/qm.sock" in local.detail
    timed_out = unreachable(("mq.example", 1414), None, TimeoutError())  # a timeout's message is empty
    assert timed_out.detail.endswith(": TimeoutError")
