"""PCF structures are byte-exact: IBM's field order, MQLONG 4 bytes native, lengths multiples of 4 (cmqcfc.h)."""

from __future__ import annotations

import struct

import pytest

from syncpoint.pcf import (
    MQCFBF,
    MQCFBS,
    MQCFGR,
    MQCFH,
    MQCFIF,
    MQCFIL,
    MQCFIL64,
    MQCFIN,
    MQCFIN64,
    MQCFSF,
    MQCFSL,
    MQCFST,
    PCFError,
    build,
    parse,
)
from syncpoint.pcf import constants as K


def test_mqcfh_is_nine_mqlongs_in_ibm_order() -> None:
    cfh = MQCFH(Type=2, Version=3, Command=13, MsgSeqNumber=4, Control=0, CompCode=2, Reason=3008, ParameterCount=7)
    assert cfh.pack() == struct.pack("=9i", 2, 36, 3, 13, 4, 0, 2, 3008, 7)
    assert MQCFH.unpack(cfh.pack()) == cfh


def test_mqcfin_is_type_length_parameter_value() -> None:
    assert MQCFIN(15, 5000).pack() == struct.pack("=4i", K.MQCFT_INTEGER, 16, 15, 5000)


def test_mqcfin64_has_a_reserved_field_before_its_value() -> None:
    assert MQCFIN64(7, 2**40).pack() == struct.pack("=4iq", K.MQCFT_INTEGER64, 24, 7, 0, 2**40)


def test_mqcfst_pads_its_string_with_nuls_to_a_multiple_of_four() -> None:
    raw = MQCFST(2016, b"ABCDE", 1208).pack()
    assert raw == struct.pack("=5i", K.MQCFT_STRING, 28, 2016, 1208, 5) + b"ABCDE\0\0\0"
    assert len(MQCFST(2016, b"ABCD").pack()) == 24


def test_mqcfil_carries_count_then_values() -> None:
    assert MQCFIL(1002, [1, 2, 3]).pack() == struct.pack("=7i", K.MQCFT_INTEGER_LIST, 28, 1002, 3, 1, 2, 3)
    assert MQCFIL64(9, [2**33]).pack() == struct.pack("=4iq", K.MQCFT_INTEGER64_LIST, 24, 9, 1, 2**33)


def test_mqcfsl_strings_share_one_blank_padded_length() -> None:
    raw = MQCFSL(3011, [b"A", b"BCD"], 0, 5).pack()
    assert raw[:24] == struct.pack("=6i", K.MQCFT_STRING_LIST, 36, 3011, 0, 2, 5)
    assert raw[24:] == b"A    BCD  \0\0"


def test_mqcfbs_and_filters_layouts() -> None:
    assert MQCFBS(7001, b"\x01\x02").pack() == struct.pack("=4i", K.MQCFT_BYTE_STRING, 20, 7001, 2) + b"\1\2\0\0"
    assert MQCFIF(3, K.MQCFOP_GREATER, 10).pack() == struct.pack("=5i", K.MQCFT_INTEGER_FILTER, 20, 3, 4, 10)
    sf = MQCFSF(2016, K.MQCFOP_LIKE, b"Q*", 0).pack()
    assert sf == struct.pack("=6i", K.MQCFT_STRING_FILTER, 28, 2016, 18, 0, 2) + b"Q*\0\0"
    bf = MQCFBF(7001, K.MQCFOP_EQUAL, b"\xff").pack()
    assert bf == struct.pack("=5i", K.MQCFT_BYTE_STRING_FILTER, 24, 7001, 2, 1) + b"\xff\0\0\0"


def test_build_then_parse_round_trips_every_type_including_groups() -> None:
    params = [
        MQCFST(2016, b"Q1"),
        MQCFIN(20, 1),
        MQCFIL(1002, [1, 2]),
        MQCFSL(3011, [b"A   ", b"B   "], 0, 4),
        MQCFBS(7001, b"xyz"),
        MQCFIN64(1, -5),
        MQCFIL64(2, [1, 2]),
        MQCFIF(3, 2, 9),
        MQCFSF(2016, 18, b"AB*", 0),
        MQCFBF(7001, 2, b"\0\1"),
        MQCFGR(8000, [MQCFIN(1, 1), MQCFST(2, b"two")]),
    ]
    raw = build(MQCFH(Command=K.MQCMD_INQUIRE_Q), params)
    cfh, back = parse(raw)
    assert cfh.ParameterCount == len(params)
    assert back == params
    assert build(cfh, back) == raw


@pytest.mark.parametrize(
    ("mutate", "reason"),
    [
        (lambda b: b[:20], K.MQRCCF_CFH_LENGTH_ERROR),
        (lambda b: b[:4] + struct.pack("=i", 40) + b[8:], K.MQRCCF_CFH_LENGTH_ERROR),
        (lambda b: b[:8] + struct.pack("=i", 9) + b[12:], K.MQRCCF_CFH_VERSION_ERROR),
        (lambda b: b + b"\0\0\0\0", K.MQRCCF_MSG_LENGTH_ERROR),
        (lambda b: b[:36] + struct.pack("=i", 99) + b[40:], K.MQRCCF_STRUCTURE_TYPE_ERROR),
        (lambda b: b[:40] + struct.pack("=i", 20) + b[44:], K.MQRCCF_CFIN_LENGTH_ERROR),
        (lambda b: b[:-4], K.MQRCCF_CFIN_LENGTH_ERROR),
    ],
)
def test_malformed_messages_raise_ibms_pcf_reason(mutate: object, reason: int) -> None:
    raw = build(MQCFH(Command=K.MQCMD_PING_Q_MGR), [MQCFIN(15, 1)])
    with pytest.raises(PCFError) as e:
        parse(mutate(raw))  # type: ignore[operator]
    assert e.value.reason == reason


def test_cfst_string_length_beyond_structure_is_an_error() -> None:
    raw = bytearray(build(MQCFH(), [MQCFST(2016, b"ABCD")]))
    struct.pack_into("=i", raw, 36 + 16, 50)  # StringLength 50 in a 24-byte structure
    with pytest.raises(PCFError) as e:
        parse(bytes(raw))
    assert e.value.reason == K.MQRCCF_CFST_STRING_LENGTH_ERR
    assert e.value.parameter == 2016


# Hardening (issue "no request can exhaust the server"): every count and length is checked against the bytes
# really present before anything is allocated, and the answer is the MQRCCF_* reason IBM's command server gives.
def _string_list_header(count: int, string_length: int, struc_length: int = 24) -> bytes:
    cfh = MQCFH(Command=K.MQCMD_INQUIRE_Q, ParameterCount=1).pack()
    return cfh + struct.pack("=6i", K.MQCFT_STRING_LIST, struc_length, 3011, 0, count, string_length)


def test_a_string_list_count_no_structure_could_carry_is_refused_without_allocating() -> None:
    import tracemalloc

    raw = _string_list_header(2**31 - 1, 0)  # the 60-byte message that made the command server allocate gigabytes
    assert len(raw) == 60
    tracemalloc.start()
    try:
        with pytest.raises(PCFError) as e:
            parse(raw)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert e.value.reason == K.MQRCCF_CFSL_COUNT_ERROR and e.value.parameter == 3011
    assert peak < 1 << 20


def test_a_string_list_count_beyond_its_strings_bytes_is_a_count_error() -> None:
    with pytest.raises(PCFError) as e:
        parse(_string_list_header(3, 4, struc_length=32) + b"ABCDEFGH")  # room for two 4-byte strings, not three
    assert e.value.reason == K.MQRCCF_CFSL_COUNT_ERROR


def test_a_negative_string_length_in_a_string_list_is_a_string_length_error() -> None:
    with pytest.raises(PCFError) as e:
        parse(_string_list_header(0, -1))
    assert e.value.reason == K.MQRCCF_CFSL_STRING_LENGTH_ERR


def test_a_parameter_count_larger_than_the_message_is_refused_at_the_header() -> None:
    raw = MQCFH(Command=K.MQCMD_PING_Q_MGR, ParameterCount=2**31 - 1).pack()
    with pytest.raises(PCFError) as e:
        parse(raw)
    assert e.value.reason == K.MQRCCF_CFH_PARM_COUNT_ERROR


def test_a_group_count_larger_than_the_rest_of_the_message_is_refused() -> None:
    cfh = MQCFH(Command=K.MQCMD_INQUIRE_Q, ParameterCount=1).pack()
    with pytest.raises(PCFError) as e:
        parse(cfh + struct.pack("=4i", K.MQCFT_GROUP, 16, 8000, 2**31 - 1))
    assert e.value.reason == K.MQRCCF_CFGR_LENGTH_ERROR


def test_groups_nested_thousands_deep_are_refused_not_recursed_into() -> None:
    depth = 5000
    cfh = MQCFH(Command=K.MQCMD_INQUIRE_Q, ParameterCount=1).pack()
    nested = struct.pack("=4i", K.MQCFT_GROUP, 16, 8000, 1) * (depth - 1) + struct.pack(
        "=4i", K.MQCFT_GROUP, 16, 8000, 0
    )
    with pytest.raises(PCFError) as e:
        parse(cfh + nested)
    assert e.value.reason == K.MQRCCF_CFGR_LENGTH_ERROR
