"""Every parser that takes bytes or text from outside answers with its documented error and nothing else
(issue "Hardening": a fuzz test for each parser — PCF, MQSC, rules tables, the MQDLH / MQXQH / MQMD headers in
message data; the wire protocol's frames are fuzzed in tests/server/test_protocol.py and against a live server in
test_fuzz_server.py). Bounded: a few hundred examples each, no deadline, so the whole module takes seconds."""

from __future__ import annotations

import struct
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import syncpoint
from syncpoint.client import EmbeddedQueueManager, QueueManager, memory_queue_manager
from syncpoint.dlq import RulesTableError, parse_rules, read_dlh
from syncpoint.mqi import MQDLH, MQMD, MQOD, MQPMO, MQXQH, MQMIError, rfh2
from syncpoint.mqi import constants as C
from syncpoint.mqi.properties import from_wire
from syncpoint.mqsc import MqscProcessor, MqscSyntaxError, parse_command, read_commands
from syncpoint.pcf import (
    MQCFBF,
    MQCFBS,
    MQCFH,
    MQCFIL,
    MQCFIN,
    MQCFSF,
    MQCFSL,
    MQCFST,
    CommandServer,
    PCFError,
    build,
    parse,
)
from syncpoint.pcf import constants as K

FUZZ = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


@pytest.fixture(scope="module")
def embedded() -> Iterator[EmbeddedQueueManager]:
    e = memory_queue_manager("QMF", dlq="SYSTEM.DEAD.LETTER.QUEUE")
    yield e
    e.close(abnormal=True)


@pytest.fixture(scope="module")
def qm(embedded: EmbeddedQueueManager) -> QueueManager:
    c = syncpoint.connect("QMF", embedded=embedded)
    c.admin("define", "QLOCAL", "CANARY")
    q = c.open("CANARY")
    for i in range(10):
        q.put(b"canary %d" % i, persistent=True)
    return c


def _canary_intact(qm: QueueManager) -> None:
    bodies = [m.data for m in qm.open("CANARY").browse_all()]
    assert bodies == [b"canary %d" % i for i in range(10)]


# -- PCF ------------------------------------------------------------------------------------------------------
_VALID_PCF = build(
    MQCFH(Command=K.MQCMD_INQUIRE_Q, Type=K.MQCFT_COMMAND_XR, Version=3),
    [MQCFST(C.MQCA_Q_NAME, b"CANARY*"), MQCFIN(C.MQIA_Q_TYPE, C.MQQT_LOCAL), MQCFSL(K.MQCACF_Q_NAMES, [b"A", b"B"])],
)
# publish/subscribe's commands too (issue 34, "Bad input": the PCF fuzzer extended to the new structures)
_VALID_PCF_SUB = build(
    MQCFH(Command=K.MQCMD_CREATE_SUBSCRIPTION, Type=K.MQCFT_COMMAND),
    [
        MQCFST(K.MQCACF_SUB_NAME, b"FUZZ.SUB"),
        MQCFST(C.MQCA_TOPIC_STRING, b"fuzz/topic"),
        MQCFIN(K.MQIACF_DESTINATION_CLASS, C.MQDC_MANAGED),
    ],
)
# ... and Inquire Pub/Sub Status (a status type, an attribute list)
_VALID_PCF_PS = build(
    MQCFH(Command=K.MQCMD_INQUIRE_PUBSUB_STATUS, Type=K.MQCFT_COMMAND),
    [MQCFIN(K.MQIACF_PS_STATUS_TYPE, K.MQPSST_LOCAL), MQCFIL(K.MQIACF_PUBSUB_STATUS_ATTRS, [C.MQIA_SUB_COUNT])],
)


# issue 34's commands: namelists (a string list, a string filter on a list), Inquire Connection
_VALID_NAMELIST_PCF = [
    build(
        MQCFH(Command=K.MQCMD_CREATE_NAMELIST, Type=K.MQCFT_COMMAND_XR, Version=3),
        [MQCFST(C.MQCA_NAMELIST_NAME, b"FUZZ.NL"), MQCFSL(C.MQCA_NAMES, [b"Q1", b"Q2"]), MQCFIN(K.MQIACF_REPLACE, 1)],
    ),
    build(
        MQCFH(Command=K.MQCMD_INQUIRE_NAMELIST, Type=K.MQCFT_COMMAND_XR, Version=3),
        [MQCFST(C.MQCA_NAMELIST_NAME, b"*"), MQCFSF(C.MQCA_NAMES, K.MQCFOP_CONTAINS, b"Q1", 0)],
    ),
    # Inquire Connection: a byte string and a byte-string filter
    build(
        MQCFH(Command=K.MQCMD_INQUIRE_CONNECTION, Type=K.MQCFT_COMMAND_XR, Version=3),
        [
            MQCFBS(K.MQBACF_GENERIC_CONNECTION_ID, b""),
            MQCFIN(K.MQIACF_CONN_INFO_TYPE, K.MQIACF_CONN_INFO_ALL),
            MQCFBF(K.MQBACF_CONNECTION_ID, K.MQCFOP_NOT_EQUAL, b"\0" * 24),
        ],
    ),
]


def _mutated(data: st.DataObject, base: bytes) -> bytes:
    raw = bytearray(base)
    for _ in range(data.draw(st.integers(1, 6))):
        at = data.draw(st.integers(0, len(raw) - 4))
        struct.pack_into("=i", raw, at, data.draw(st.integers(-(2**31), 2**31 - 1)))
    return bytes(raw[: data.draw(st.integers(0, len(raw)))])


@FUZZ
@given(st.binary(max_size=300))
def test_pcf_parse_of_any_bytes_returns_or_raises_pcf_error(raw: bytes) -> None:
    try:
        parse(raw)
    except PCFError as e:
        assert e.reason > 0


@FUZZ
@given(st.data())
def test_pcf_parse_of_a_mutated_command_returns_or_raises_pcf_error(data: st.DataObject) -> None:
    try:
        parse(_mutated(data, _VALID_PCF))
    except PCFError as e:
        assert e.reason > 0


@FUZZ
@given(st.data())
def test_the_command_server_answers_any_mutated_command_with_a_response(qm: QueueManager, data: st.DataObject) -> None:
    server = CommandServer(lambda: qm)
    server.qm = qm
    replies = server.execute(
        _mutated(data, data.draw(st.sampled_from([_VALID_PCF, *_VALID_NAMELIST_PCF, _VALID_PCF_SUB, _VALID_PCF_PS])))
    )
    assert replies, "every request gets at least one response"
    for reply in replies:
        cfh, _ = parse(reply)
        assert cfh.Type == K.MQCFT_RESPONSE
    _canary_intact(qm)


# -- MQSC -----------------------------------------------------------------------------------------------------
_MQSC_ALPHABET = st.sampled_from([*"DEFINEQLOCALTERDISPLAYDELETE() '+-*,;=.\n\tXYZ0123456789", "\u00e9", "\x00"])


@FUZZ
@given(st.text(_MQSC_ALPHABET, max_size=200))
def test_mqsc_parsing_of_any_text_returns_requests_or_raises_a_syntax_error(text: str) -> None:
    for command in read_commands(text.splitlines(keepends=True)):
        try:
            parse_command(command.text)
        except MqscSyntaxError:
            pass


@FUZZ
@given(st.text(_MQSC_ALPHABET, max_size=200))
def test_runmqsc_on_any_text_ends_with_a_summary_and_changes_nothing_it_should_not(qm: QueueManager, text: str) -> None:
    lines: list[str] = []
    summary = MqscProcessor(qm).run(text.replace("CANARY", "X").splitlines(keepends=True), lines.append)
    assert summary.exit_code in (0, 10, 20)
    _canary_intact(qm)


# -- rules tables (runmqdlq) ------------------------------------------------------------------------------------
_RULES_ALPHABET = st.sampled_from([*"ACTION()DISCARDRETRYFWDQMINPUTQREASONDESTQAPPLNAME'+-*\n =", "\u00ff", "\x00"])


@FUZZ
@given(st.text(_RULES_ALPHABET, max_size=200))
def test_a_rules_table_of_any_text_parses_or_raises_a_rules_table_error(text: str) -> None:
    try:
        parse_rules(text)
    except RulesTableError as e:
        assert e.errors


# -- headers in message data ------------------------------------------------------------------------------------
@FUZZ
@given(st.binary(max_size=500))
def test_headers_in_message_data_unpack_or_raise_value_error(raw: bytes) -> None:
    for structure in (MQDLH, MQXQH, MQMD):
        try:
            structure.unpack(raw)
        except ValueError:
            pass
    dlh = read_dlh(raw)
    assert dlh is None or isinstance(dlh, MQDLH)


# -- message properties: the MQRFH2 and the properties the wire carries (issue 34, "Bad input") ------------------
_PROPS = {"color": (C.MQTYPE_STRING, "red"), "n": (C.MQTYPE_INT32, 5), "z": (C.MQTYPE_NULL, None)}
_VALID_RFH2 = rfh2.build(_PROPS, [b"<psc><Command>x</Command></psc>"], 546, 1208, C.MQFMT_STRING, 546) + b"body"
_RFH_REASONS = (C.MQRC_RFH_ERROR, C.MQRC_RFH_FORMAT_ERROR)
PROPS_FUZZ = settings(max_examples=100, deadline=None)


@PROPS_FUZZ
@given(st.data())
def test_an_mqrfh2_with_any_field_changed_parses_or_raises_ibms_reason(data: st.DataObject) -> None:
    raw = _mutated(data, _VALID_RFH2)
    try:
        parsed = rfh2.parse(raw, 546)
    except MQMIError as e:
        assert e.reason in _RFH_REASONS
        return
    assert 36 <= parsed.length <= len(raw)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.data())
def test_mqput_of_any_mutated_mqrfh2_puts_it_or_changes_nothing(qm: QueueManager, data: st.DataObject) -> None:
    raw = _mutated(data, _VALID_RFH2)
    q = qm.open("SYSTEM.DEFAULT.LOCAL.QUEUE")
    try:
        q.put(raw, format=C.MQFMT_RF_HEADER_2)
    except MQMIError as e:
        assert e.reason in _RFH_REASONS
        assert q.get_or_none() is None  # nothing was put
    else:
        q.get()  # it is delivered: with a message handle the property folders become properties
    _canary_intact(qm)


_WIRE_VALUE = st.one_of(
    st.none(), st.booleans(), st.integers(-(2**70), 2**70), st.floats(), st.text(max_size=8), st.binary(max_size=8)
)


@PROPS_FUZZ
@given(st.lists(st.one_of(st.text(max_size=12), st.integers(-5, 2000), _WIRE_VALUE), max_size=12))
def test_properties_from_the_wire_are_taken_or_refused_with_ibms_reason(items: list[object]) -> None:
    try:
        props = from_wire(items)
    except MQMIError as e:
        assert e.reason in (C.MQRC_PROPERTY_NAME_ERROR, C.MQRC_PROPERTY_TYPE_ERROR, C.MQRC_PROPERTY_NAME_LENGTH_ERR)
        return
    assert props is None or all(isinstance(n, str) for n in props)


_SENDABLE = st.one_of(  # what msgpack can carry (its integers are at most 64 bits)
    st.none(), st.booleans(), st.integers(-(2**63), 2**64 - 1), st.floats(), st.text(max_size=8), st.binary(max_size=8)
)
_TYPES = [C.MQTYPE_BOOLEAN, C.MQTYPE_BYTE_STRING, C.MQTYPE_INT8, C.MQTYPE_INT32, C.MQTYPE_INT64, C.MQTYPE_FLOAT64]
_NEAR_PROPS = st.lists(  # [name, type, value, …]: good and bad names, IBM's types and others, any value
    st.tuples(
        st.sampled_from(["color", "n", "usr.x", "NULL", "a..b", "JMSType"]),
        st.sampled_from([*_TYPES, 1024, 7]),
        _SENDABLE,
    ),
    max_size=3,
).map(lambda ts: [x for t in ts for x in t])
_PUTM_ITEM = st.one_of(
    st.binary(max_size=8),
    st.tuples(st.binary(max_size=8), _NEAR_PROPS).map(list),
    st.lists(st.one_of(st.binary(max_size=8), st.lists(_SENDABLE, max_size=6), _SENDABLE), max_size=3),
    _SENDABLE,
)
_PUTM_REASONS = (
    C.MQRC_PROPERTY_NAME_ERROR,
    C.MQRC_PROPERTY_TYPE_ERROR,
    C.MQRC_PROPERTY_NAME_LENGTH_ERR,
    C.MQRC_DATA_LENGTH_ERROR,
    C.MQRC_UNEXPECTED_ERROR,  # BAD_REQUEST: an item that is neither data nor [data, properties]
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(items=st.lists(_PUTM_ITEM, min_size=1, max_size=4))
def test_a_putm_request_with_any_items_puts_them_all_or_nothing(serve: Any, items: list[Any]) -> None:
    # docs/protocol.md (putm, version 4): every item's properties are checked before any put; a bad item fails the
    # whole request with IBM's reason (or BAD_REQUEST for a malformed item) and nothing is put
    e = memory_queue_manager("QMF", dlq="SYSTEM.DEAD.LETTER.QUEUE")
    try:
        app = syncpoint.connect("QMF", unix_path=serve(e).unix_path)
        h = app.mqopen(MQOD(ObjectName=b"SYSTEM.DEFAULT.LOCAL.QUEUE"), C.MQOO_OUTPUT | C.MQOO_INPUT_SHARED)
        pmo = MQPMO(Options=C.MQPMO_NO_SYNCPOINT)
        try:
            reply = app.transport._call("putm", [h, MQMD().pack(), pmo.pack(), items])  # type: ignore[attr-defined]
        except MQMIError as err:
            assert err.reason in _PUTM_REASONS, err
            put = 0
        else:
            put = len(reply[0])
            assert all(len(a) == 2 for a in reply[0])  # each put went (a failed one would be [CompCode, …])
        assert app.open("SYSTEM.DEFAULT.LOCAL.QUEUE").depth == put == (put and len(items))
    finally:
        e.close(abnormal=True)
