"""Message properties in the vocabulary: IBM's name rules, the MQTYPE_* values, MQINQMP (wildcard, cursor,
conversion, the real length) and MQDLTMP, and the MQRFH2 both ways (reference/properties-pubsub.md)."""

from __future__ import annotations

import struct

import pytest

from syncpoint.mqi import MQMIError, rfh2
from syncpoint.mqi import constants as C
from syncpoint.mqi.properties import (
    MessageHandle,
    build,
    check_name,
    from_wire,
    pack_props,
    to_wire,
    unpack_props,
    value_length,
)


def reason_of(fn, *args, **kw) -> int:  # type: ignore[no-untyped-def]
    with pytest.raises(MQMIError) as e:
        fn(*args, **kw)
    return e.value.reason


# -- names ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["color", "a.b", "usr.x", "jms.Dst", "Root.MQMD.Priority", "$x_1", "é", "JMSType"])
def test_names_ibm_allows_are_accepted(name: str) -> None:
    check_name(name)


@pytest.mark.parametrize(
    "name",
    [
        ".a",  # '.' not first
        "a.",  # not last
        "a..b",  # no empty part
        "a-b",  # not a Java identifier character
        "1abc",  # a part does not start with a digit
        "a%",  # '%' only in MQINQMP
        "NULL",  # SQL keywords of the selector language
        "between",
        "Escape",
        "JMSMessageID",  # JMS names other than the five settable ones
        "JMSXUserID",
        "Body",  # Body… and Root… are reserved
        "Bodyweight",
        "Root.x",
    ],
)
def test_names_ibm_forbids_are_property_name_error(name: str) -> None:
    assert reason_of(check_name, name) == C.MQRC_PROPERTY_NAME_ERROR


def test_a_name_longer_than_4095_characters_is_name_length_error() -> None:
    check_name("a" * 4095)
    assert reason_of(check_name, "a" * 4096) == C.MQRC_PROPERTY_NAME_LENGTH_ERR


def test_a_name_cannot_be_both_a_value_and_a_group_and_the_handle_is_unchanged() -> None:
    h = MessageHandle()
    h.set("a.b", C.MQTYPE_STRING, "x")
    assert reason_of(h.set, "a.b.c", C.MQTYPE_STRING, "y") == C.MQRC_PROPERTY_NAME_ERROR
    assert reason_of(h.set, "a", C.MQTYPE_STRING, "y") == C.MQRC_PROPERTY_NAME_ERROR
    assert h.props == {"a.b": (C.MQTYPE_STRING, "x")}


# -- types and values ----------------------------------------------------------------------------------
def test_every_mqtype_round_trips_with_its_value_and_length() -> None:
    h = MessageHandle()
    values = {
        C.MQTYPE_BOOLEAN: (True, 4),
        C.MQTYPE_BYTE_STRING: (b"\x00\x01", 2),
        C.MQTYPE_INT8: (-128, 1),
        C.MQTYPE_INT16: (-32768, 2),
        C.MQTYPE_INT32: (-2147483648, 4),
        C.MQTYPE_INT64: (-9223372036854775808, 8),
        C.MQTYPE_FLOAT32: (1.1754943508222875e-38, 4),  # FLT_MIN
        C.MQTYPE_FLOAT64: (2.2250738585072014e-308, 8),  # DBL_MIN
        C.MQTYPE_STRING: ("grün", 5),  # UTF-8 bytes
        C.MQTYPE_NULL: (None, 0),
    }
    for t, (v, _) in values.items():
        h.set(f"p{t}", t, v)
    for t, (v, length) in values.items():
        name, rtype, value = h.inquire(f"p{t}")  # MQTYPE_AS_SET: the type stored
        assert (name, rtype, value) == (f"p{t}", t, v)
        assert value_length(rtype, value) == length


def test_a_float32_is_kept_at_single_precision() -> None:
    h = MessageHandle()
    h.set("f", C.MQTYPE_FLOAT32, 0.1)
    assert h.inquire("f")[2] == struct.unpack("=f", struct.pack("=f", 0.1))[0] != 0.1


@pytest.mark.parametrize(
    ("ptype", "value"),
    [(C.MQTYPE_INT8, 128), (C.MQTYPE_INT16, "1"), (C.MQTYPE_STRING, b"x"), (C.MQTYPE_NULL, 0), (C.MQTYPE_AS_SET, 1)],
)
def test_a_value_of_the_wrong_type_is_property_type_error_and_sets_nothing(ptype: int, value: object) -> None:
    h = MessageHandle()
    assert reason_of(h.set, "p", ptype, value) == C.MQRC_PROPERTY_TYPE_ERROR
    assert h.props == {}


def test_pythonic_values_take_their_types_and_a_pair_names_one() -> None:
    props = build({"s": "x", "i": 7, "f": 1.5, "b": True, "y": b"z", "n": None, "i8": (C.MQTYPE_INT8, 5)})
    assert props == {
        "s": (C.MQTYPE_STRING, "x"),
        "i": (C.MQTYPE_INT64, 7),
        "f": (C.MQTYPE_FLOAT64, 1.5),
        "b": (C.MQTYPE_BOOLEAN, True),
        "y": (C.MQTYPE_BYTE_STRING, b"z"),
        "n": (C.MQTYPE_NULL, None),
        "i8": (C.MQTYPE_INT8, 5),
    }
    assert reason_of(build, {"x": [1]}) == C.MQRC_PROPERTY_TYPE_ERROR


# -- MQINQMP -------------------------------------------------------------------------------------------
def handle() -> MessageHandle:
    h = MessageHandle()
    h.set("a.one", C.MQTYPE_INT32, 1)
    h.set("b", C.MQTYPE_STRING, "x")
    h.set("a.two", C.MQTYPE_INT32, 2)
    return h


def test_a_trailing_percent_matches_any_characters_and_inq_next_walks_the_matches() -> None:
    h = handle()
    found = []
    options = C.MQIMPO_INQ_FIRST
    while True:
        try:
            name, _, value = h.inquire("a.%", C.MQTYPE_AS_SET, options)
        except MQMIError as e:
            assert e.reason == C.MQRC_PROPERTY_NOT_AVAILABLE
            break
        h.advance(name)
        found.append((name, value))
        options = C.MQIMPO_INQ_NEXT
    assert found == [("a.one", 1), ("a.two", 2)]
    assert [h.inquire("%", options=C.MQIMPO_INQ_FIRST)[0]] == ["a.one"]  # '%' alone: every property


def test_inq_prop_under_cursor_answers_the_property_last_returned() -> None:
    h = handle()
    h.advance(h.inquire("b")[0])
    assert h.inquire("", options=C.MQIMPO_INQ_PROP_UNDER_CURSOR)[:2] == ("b", C.MQTYPE_STRING)


def test_a_missing_property_is_property_not_available() -> None:
    assert reason_of(handle().inquire, "c") == C.MQRC_PROPERTY_NOT_AVAILABLE


def test_another_type_without_convert_type_is_property_type_error() -> None:
    assert reason_of(handle().inquire, "a.one", C.MQTYPE_STRING) == C.MQRC_PROPERTY_TYPE_ERROR


@pytest.mark.parametrize(
    ("stored", "value", "requested", "expected"),
    [
        (C.MQTYPE_INT32, 42, C.MQTYPE_STRING, "42"),
        (C.MQTYPE_INT32, 42, C.MQTYPE_INT64, 42),
        (C.MQTYPE_INT32, 42, C.MQTYPE_INT8, 42),
        (C.MQTYPE_INT32, 0, C.MQTYPE_BOOLEAN, False),
        (C.MQTYPE_INT16, 3, C.MQTYPE_FLOAT64, 3.0),
        (C.MQTYPE_BOOLEAN, True, C.MQTYPE_STRING, "TRUE"),
        (C.MQTYPE_BOOLEAN, True, C.MQTYPE_INT32, 1),
        (C.MQTYPE_STRING, " 17 ", C.MQTYPE_INT16, 17),
        (C.MQTYPE_STRING, "false", C.MQTYPE_BOOLEAN, False),
        (C.MQTYPE_STRING, "2.5", C.MQTYPE_FLOAT32, 2.5),
        (C.MQTYPE_FLOAT32, 2.5, C.MQTYPE_FLOAT64, 2.5),
        (C.MQTYPE_NULL, None, C.MQTYPE_INT32, None),  # NULL reads as NULL whatever is asked
    ],
)
def test_convert_type_converts_as_ibms_table(stored: int, value: object, requested: int, expected: object) -> None:
    h = MessageHandle()
    h.set("p", stored, value)
    _, rtype, got = h.inquire("p", requested, C.MQIMPO_CONVERT_TYPE)
    assert got == expected and type(got) is type(expected)
    assert rtype == (C.MQTYPE_NULL if stored == C.MQTYPE_NULL else requested)


@pytest.mark.parametrize(
    ("stored", "value", "requested", "reason"),
    [
        (C.MQTYPE_INT32, 300, C.MQTYPE_INT8, C.MQRC_PROP_CONV_NOT_SUPPORTED),  # does not fit
        (C.MQTYPE_BYTE_STRING, b"x", C.MQTYPE_STRING, C.MQRC_PROP_CONV_NOT_SUPPORTED),
        (C.MQTYPE_FLOAT64, 1.5, C.MQTYPE_INT32, C.MQRC_PROP_CONV_NOT_SUPPORTED),
        (C.MQTYPE_STRING, "abc", C.MQTYPE_INT32, C.MQRC_PROP_NUMBER_FORMAT_ERROR),
        (C.MQTYPE_STRING, "maybe", C.MQTYPE_BOOLEAN, C.MQRC_PROP_NUMBER_FORMAT_ERROR),
    ],
)
def test_a_conversion_ibm_does_not_make_fails_with_its_reason(
    stored: int, value: object, requested: int, reason: int
) -> None:
    h = MessageHandle()
    h.set("p", stored, value)
    assert reason_of(h.inquire, "p", requested, C.MQIMPO_CONVERT_TYPE) == reason


def test_dltmp_of_a_missing_property_is_a_warning_and_of_a_present_one_removes_it() -> None:
    h = handle()
    assert h.delete("b") == C.MQRC_NONE
    assert h.delete("b") == C.MQRC_PROPERTY_NOT_AVAILABLE
    assert list(h.props) == ["a.one", "a.two"]


# -- kept and carried ----------------------------------------------------------------------------------
def test_properties_pack_for_the_store_and_the_wire_and_come_back_equal() -> None:
    props = build({"s": "x", "f": (C.MQTYPE_FLOAT32, 0.5), "y": b"\0", "n": None, "b": False})
    assert props is not None
    assert unpack_props(pack_props(props)) == props
    assert from_wire(to_wire(props)) == props
    assert unpack_props(b"") is None and to_wire(None) is None


def test_from_wire_checks_each_property_as_mqsetmp_does() -> None:
    assert reason_of(from_wire, ["NULL", C.MQTYPE_STRING, "x"]) == C.MQRC_PROPERTY_NAME_ERROR
    assert reason_of(from_wire, ["p", C.MQTYPE_INT8, 1000]) == C.MQRC_PROPERTY_TYPE_ERROR
    assert reason_of(from_wire, ["p", C.MQTYPE_INT8]) == C.MQRC_PROPERTY_TYPE_ERROR


# -- MQRFH2 --------------------------------------------------------------------------------------------
def test_properties_map_to_usr_jms_and_mcd_folders_and_back() -> None:
    props = build(
        {
            "color": "red",
            "a.b": (C.MQTYPE_INT32, 5),
            "usr.x": 1.5,
            "mcd.Msd": "jms_text",
            "JMSCorrelationID": "c1",
            "z": None,
            "ok": True,
            "raw": b"\xff",
        }
    )
    assert props is not None
    header = rfh2.build(props, [], C.MQENC_NATIVE, 1208, C.MQFMT_STRING, C.MQENC_NATIVE)
    folders = header[36:]
    assert b"<mcd><Msd>jms_text</Msd></mcd>" in folders
    assert b"<jms><Cid>c1</Cid></jms>" in folders
    assert b'<a><b dt="i4">5</b></a>' in folders and b'<raw dt="bin.hex">ff</raw>' in folders
    parsed = rfh2.parse(header + b"body", C.MQENC_NATIVE)
    assert parsed.length == len(header) and parsed.format == C.MQFMT_STRING and parsed.others == []
    expected = dict(props)
    expected["x"] = expected.pop("usr.x")  # <usr><x> is read back as x
    assert parsed.props == expected


def test_folders_that_are_not_properties_are_kept_as_they_were() -> None:
    other = b"<psc><Command>RegSub</Command></psc>"
    header = rfh2.build({}, [other + b"    "], C.MQENC_NATIVE, 1208, C.MQFMT_NONE, C.MQENC_NATIVE)
    parsed = rfh2.parse(header, C.MQENC_NATIVE)
    assert parsed.props == {} and parsed.others[0].rstrip() == other


def test_a_big_endian_header_reads_with_its_encoding() -> None:
    props = build({"n": (C.MQTYPE_INT16, -2)})
    assert props is not None
    header = rfh2.build(props, [], 0x111, 1208, C.MQFMT_NONE, 0x111)  # MQENC_INTEGER_NORMAL
    assert rfh2.parse(header, 0x111).props == props


def lying(header: bytes, at: int, value: int) -> bytes:
    return header[:at] + struct.pack("<i", value) + header[at + 4 :]


@pytest.mark.parametrize(
    ("at", "value"),
    [
        (8, 9999),  # StrucLength past the data
        (8, 20),  # shorter than the fixed part
        (8, 38),  # not a multiple of 4
        (4, 1),  # Version 1 is an MQRFH, not an MQRFH2
        (36, 9999),  # a NameValueLength past StrucLength
        (36, -4),
        (16, 0),  # CodedCharSetId 0
    ],
)
def test_an_mqrfh2_whose_fields_lie_is_rfh_error(at: int, value: int) -> None:
    props = build({"color": "red"})
    assert props is not None
    header = rfh2.build(props, [], C.MQENC_NATIVE, 1208, C.MQFMT_NONE, C.MQENC_NATIVE)
    assert reason_of(rfh2.parse, lying(header, at, value) + b"body", C.MQENC_NATIVE) == C.MQRC_RFH_ERROR


def test_a_folder_that_is_not_xml_is_rfh_format_error() -> None:
    folder = b"<usr><a>1</b></usr>"
    header = rfh2.build({}, [folder], C.MQENC_NATIVE, 1208, C.MQFMT_NONE, C.MQENC_NATIVE)
    assert reason_of(rfh2.parse, header, C.MQENC_NATIVE) == C.MQRC_RFH_FORMAT_ERROR


def test_usr_names_the_folder_of_names_without_a_prefix() -> None:
    h = MessageHandle()
    h.set("Property_0", C.MQTYPE_STRING, "s")
    h.set("jms.Dst", C.MQTYPE_STRING, "q")
    h.set("usr.Property_1", C.MQTYPE_INT32, 1)
    assert h.inquire("usr.%")[0] == "Property_0"  # as ibmmq's message_properties.py example reads them
    h.advance("Property_0")
    assert h.inquire("usr.%", options=C.MQIMPO_INQ_NEXT)[0] == "usr.Property_1"  # jms.Dst is not in usr
    assert h.inquire("Property_1")[2] == 1 and h.inquire("usr.Property_0")[2] == "s"
    h.set("Property_1", C.MQTYPE_INT32, 2)  # the same property: it keeps its place
    assert list(h.props) == ["Property_0", "jms.Dst", "usr.Property_1"] and h.inquire("Property_1")[2] == 2
    assert h.delete("usr.Property_0") == C.MQRC_NONE and list(h.props) == ["jms.Dst", "usr.Property_1"]


def test_pythonic_and_wire_properties_keep_the_handles_rules() -> None:
    assert reason_of(build, {"a.b": 1, "a.b.c": 2}) == C.MQRC_PROPERTY_NAME_ERROR
    assert reason_of(from_wire, ["a.b", C.MQTYPE_INT32, 1, "a", C.MQTYPE_INT32, 2]) == C.MQRC_PROPERTY_NAME_ERROR
    assert build({"x": 1, "usr.x": 2}) == {"x": (C.MQTYPE_INT64, 2)}  # one property: the usr folder's x
    assert from_wire(["x", C.MQTYPE_INT32, 1, "usr.x", C.MQTYPE_INT32, 2]) == {"x": (C.MQTYPE_INT32, 2)}
