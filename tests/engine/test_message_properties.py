"""Message properties on MQPUT and MQGET, over every transport (in-process, the server's wire protocol, a shared
queue of a group): the put keeps them, the get delivers them as PROPCTL and the MQGMO_PROPERTIES_* options say,
an MQRFH2 converts to properties and back, and a persistent message keeps them over a restart.

Reference: reference/properties-pubsub.md ("Message properties": PROPCTL, MQGMO options, the MQRFH2 mapping);
IBM's MQRC_RFH_ERROR page ("An MQPUT or MQPUT1 call was issued, but the message data contains an MQRFH or MQRFH2
structure that is not valid").
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from pathlib import Path

import pytest

import syncpoint
from syncpoint.client import QueueManager, create_queue_manager, open_embedded
from syncpoint.mqi import MQGMO, MQMD, MQOD, MQPMO, MQMIError, rfh2
from syncpoint.mqi import constants as C
from syncpoint.mqi.properties import build

EVERY_TYPE = {
    "flag": True,
    "bytes": b"\x00\xff",
    "i8": (C.MQTYPE_INT8, -127),
    "i16": (C.MQTYPE_INT16, -32768),
    "i32": (C.MQTYPE_INT32, -2147483647),
    "i64": -9223372036854775808,
    "f32": (C.MQTYPE_FLOAT32, 1.1754943508222875e-38),
    "f64": 2.2250738585072014e-308,
    "text": "grün",
    "nothing": None,
}


def reason_of(fn, *a, **kw) -> int:  # type: ignore[no-untyped-def]
    with pytest.raises(MQMIError) as ei:
        fn(*a, **kw)
    return ei.value.reason


def depth(qm: QueueManager, name: str) -> int:
    h = qm.mqopen(MQOD(ObjectName=name.encode()), C.MQOO_INQUIRE)
    try:
        return qm.mqinq(h, [C.MQIA_CURRENT_Q_DEPTH])[0][0]
    finally:
        qm.mqclose(h)


@pytest.fixture
def qm(connect: Callable[..., QueueManager]) -> QueueManager:
    qm = connect()
    qm.admin("define", "QLOCAL", "Q1")
    return qm


def raw_get(qm: QueueManager, options: int = 0, handle: int = 0, name: str = "Q1") -> tuple[MQMD, bytes]:
    h = qm.mqopen(MQOD(ObjectName=name.encode()), C.MQOO_INPUT_SHARED)
    try:
        md = MQMD()
        gmo = MQGMO(Options=C.MQGMO_NO_SYNCPOINT | options, MsgHandle=handle)
        return md, qm.mqget(h, md, gmo)
    finally:
        qm.mqclose(h)


# -- the Pythonic API, every transport -----------------------------------------------------------------
def test_every_property_type_survives_a_put_and_a_get(qm: QueueManager) -> None:
    q = qm.open("Q1")
    q.put(b"body", properties=EVERY_TYPE)
    m = q.get()
    assert m.data == b"body"
    assert m.properties == {k: (v[1] if type(v) is tuple else v) for k, v in EVERY_TYPE.items()}
    assert m.typed_properties is not None and m.typed_properties["i8"] == (C.MQTYPE_INT8, -127)
    q.put(b"plain")
    assert q.get().properties == {}  # a message without properties shows none


def test_put1_carries_properties_too(qm: QueueManager) -> None:
    qm.put1("Q1", "x", properties={"color": "red"})
    assert qm.open("Q1").get().properties == {"color": "red"}


def test_a_forbidden_property_name_puts_nothing(qm: QueueManager) -> None:
    q = qm.open("Q1")
    assert reason_of(q.put, b"x", properties={"JMSMessageID": "1"}) == C.MQRC_PROPERTY_NAME_ERROR
    assert reason_of(q.put, b"x", properties={"n": (C.MQTYPE_INT8, 999)}) == C.MQRC_PROPERTY_TYPE_ERROR
    assert depth(qm, "Q1") == 0


def test_properties_count_in_the_message_length_against_maxmsgl(qm: QueueManager) -> None:
    qm.admin("define", "QLOCAL", "SMALL", {"MAXMSGL": 100})
    q = qm.open("SMALL")
    q.put(b"x" * 90)
    assert reason_of(q.put, b"x" * 90, properties={"color": "a" * 20}) == C.MQRC_MSG_TOO_BIG_FOR_Q
    assert depth(qm, "SMALL") == 1


# -- the MQRFH2 both ways --------------------------------------------------------------------------------
def test_forced_mqrfh2_delivers_the_properties_in_front_of_the_data(qm: QueueManager) -> None:
    qm.open("Q1").put("body", properties={"color": "red", "jms.Dst": "queue:///Q1"})
    md, data = raw_get(qm, C.MQGMO_PROPERTIES_FORCE_MQRFH2, handle=5)  # FORCE: the handle is ignored
    assert md.Format == C.MQFMT_RF_HEADER_2
    parsed = rfh2.parse(data, md.Encoding)
    assert parsed.props == {"color": (C.MQTYPE_STRING, "red"), "jms.Dst": (C.MQTYPE_STRING, "queue:///Q1")}
    assert parsed.format == C.MQFMT_STRING and data[parsed.length :] == b"body"


def test_an_mqrfh2_put_by_an_application_is_read_as_properties_with_a_handle(qm: QueueManager) -> None:
    props = build({"color": "blue", "n": (C.MQTYPE_INT32, 3)})
    assert props is not None
    header = rfh2.build(props, [], C.MQENC_NATIVE, 1208, C.MQFMT_STRING, C.MQENC_NATIVE)
    q = qm.open("Q1")
    q.put(header + b"body", format=C.MQFMT_RF_HEADER_2)
    m = q.get()  # the Pythonic get names a message handle: PROPCTL(COMPAT) moves the folders into it
    assert m.data == b"body" and m.format == "MQSTR"
    assert m.properties == {"color": "blue", "n": 3}
    q.put(header + b"body", format=C.MQFMT_RF_HEADER_2)
    md, data = raw_get(qm)  # no handle: the MQRFH2 as the putter built it
    assert md.Format == C.MQFMT_RF_HEADER_2 and data == header + b"body"


def test_compat_without_a_handle_delivers_folder_properties_in_an_mqrfh2_and_drops_the_others(
    qm: QueueManager,
) -> None:
    q = qm.open("Q1")
    q.put(b"a", properties={"color": "red"})  # no folder prefix
    q.put(b"b", properties={"usr.color": "red"})
    md, data = raw_get(qm)
    assert (md.Format, data) == (C.MQFMT_NONE, b"a")
    md, data = raw_get(qm)
    assert md.Format == C.MQFMT_RF_HEADER_2 and rfh2.parse(data, md.Encoding).props == {
        "color": (C.MQTYPE_STRING, "red")
    }


@pytest.mark.parametrize(
    ("propctl", "with_handle", "expected_props", "expect_header"),
    [
        (C.MQPROP_NONE, True, {}, False),
        (C.MQPROP_ALL, True, {"color": "red"}, False),
        (C.MQPROP_ALL, False, {}, True),
        (C.MQPROP_FORCE_MQRFH2, True, {}, True),
        (C.MQPROP_V6COMPAT, True, {"color": "red"}, False),
    ],
)
def test_propctl_decides_the_form_of_a_get_as_q_def(
    qm: QueueManager, propctl: int, with_handle: bool, expected_props: dict[str, str], expect_header: bool
) -> None:
    qm.admin("define", "QLOCAL", "PQ", {"PROPCTL": propctl})
    qm.open("PQ").put(b"data", properties={"color": "red"})
    if with_handle:
        m = qm.open("PQ").get()
        data, fmt, got = m.data, m.md.Format, m.properties
    else:
        md, data = raw_get(qm, name="PQ")
        fmt, got = md.Format, {}
    assert got == expected_props
    assert (fmt == C.MQFMT_RF_HEADER_2) is expect_header
    assert data.endswith(b"data") and (len(data) > 4) is expect_header


def test_no_properties_removes_them(qm: QueueManager) -> None:
    qm.open("Q1").put(b"data", properties={"usr.color": "red"})
    md, data = raw_get(qm, C.MQGMO_NO_PROPERTIES, handle=5)
    assert (md.Format, data) == (C.MQFMT_NONE, b"data")


def test_properties_in_handle_without_a_handle_is_hmsg_error_and_the_message_stays(qm: QueueManager) -> None:
    qm.open("Q1").put(b"data", properties={"color": "red"})
    assert reason_of(raw_get, qm, C.MQGMO_PROPERTIES_IN_HANDLE) == C.MQRC_HMSG_ERROR
    assert reason_of(raw_get, qm, C.MQGMO_NO_PROPERTIES | C.MQGMO_PROPERTIES_FORCE_MQRFH2) == C.MQRC_OPTIONS_ERROR
    assert depth(qm, "Q1") == 1


def test_an_mqrfh2_whose_lengths_lie_is_refused_by_mqput_and_nothing_is_put(qm: QueueManager) -> None:
    props = build({"color": "red"})
    assert props is not None
    header = rfh2.build(props, [], C.MQENC_NATIVE, 1208, C.MQFMT_STRING, C.MQENC_NATIVE)
    lying = header[:8] + struct.pack("<i", len(header) + 400) + header[12:]  # StrucLength past the data
    h = qm.mqopen(MQOD(ObjectName=b"Q1"), C.MQOO_OUTPUT)
    md = MQMD(Format=C.MQFMT_RF_HEADER_2)
    assert reason_of(qm.mqput, h, md, MQPMO(), lying + b"body") == C.MQRC_RFH_ERROR
    not_xml = rfh2.build({}, [b"<usr><a>1</b></usr>"], C.MQENC_NATIVE, 1208, C.MQFMT_NONE, C.MQENC_NATIVE)
    assert reason_of(qm.mqput, h, md, MQPMO(), not_xml) == C.MQRC_RFH_FORMAT_ERROR
    qm.mqclose(h)
    assert depth(qm, "Q1") == 0


# -- a restart -------------------------------------------------------------------------------------------
def test_a_persistent_messages_properties_survive_a_restart(tmp_path: Path) -> None:
    create_queue_manager("QM1", home=tmp_path)
    qm = syncpoint.connect("QM1", home=tmp_path)
    qm.admin("define", "QLOCAL", "Q1")
    qm.open("Q1").put(b"kept", persistent=True, properties=EVERY_TYPE)
    qm.open("Q1").put(b"plain", persistent=True)
    qm.disconnect()
    open_embedded("QM1", home=tmp_path).close(abnormal=True)
    qm = syncpoint.connect("QM1", home=tmp_path)
    q = qm.open("Q1")
    m = q.get()
    assert m.data == b"kept"
    assert m.properties == {k: (v[1] if type(v) is tuple else v) for k, v in EVERY_TYPE.items()}
    assert q.get().properties == {}
    qm.disconnect()


def test_get_many_and_browses_return_properties(qm: QueueManager) -> None:
    q = qm.open("Q1")
    q.put_many([b"a", b"b"])
    q.put(b"c", properties={"color": "red"})
    assert [m.properties for m in q.browse_all()] == [{}, {}, {"color": "red"}]
    assert q.browse(first=True).properties == {}
    got = q.get_many(10)  # over the network: one getm request
    assert [(m.data, m.properties) for m in got] == [(b"a", {}), (b"b", {}), (b"c", {"color": "red"})]


def test_propctl_is_a_queue_attribute_mqinq_answers_and_a_bad_value_is_refused(qm: QueueManager) -> None:
    qm.admin("define", "QLOCAL", "PQ", {"PROPCTL": C.MQPROP_FORCE_MQRFH2})
    h = qm.mqopen(MQOD(ObjectName=b"PQ"), C.MQOO_INQUIRE)
    assert qm.mqinq(h, [C.MQIA_PROPERTY_CONTROL])[0] == [C.MQPROP_FORCE_MQRFH2]
    qm.mqclose(h)
    assert reason_of(qm.admin, "define", "QLOCAL", "BADPQ", {"PROPCTL": 99}) != 0
