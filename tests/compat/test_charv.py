"""MQCHARV reading (compat/_charv.py): IBM's rules for a variable-length string in an MQOD, and
MQRC_SELECTION_STRING_ERROR (2519) for a malformed one ("VSLength is greater than zero, but VSOffset is zero and
VSPtr is a null pointer"; "VSOffset is nonzero and VSPtr is not the null pointer")."""

from __future__ import annotations

import ctypes
import struct

import pytest

from syncpoint.compat._charv import read_charv
from syncpoint.mqi import MQOD, MQMIError
from syncpoint.mqi import constants as C

AT = 368  # MQOD version 4: SelectionStringVSPtr


def od_with(ptr: int = 0, offset: int = 0, length: int = 0, ccsid: int = 0, tail: bytes = b"") -> bytes:
    raw = bytearray(MQOD().pack() + tail)
    struct.pack_into("=QiiiI", raw, AT, ptr, offset, 0, length, ccsid & 0xFFFFFFFF)
    return bytes(raw)


def read(raw: bytes, max_length: int = 10240) -> str:
    return read_charv(raw, AT, max_length, C.MQRC_SELECTION_STRING_ERROR, "SelectionString")


def reason(raw: bytes, max_length: int = 10240) -> int:
    with pytest.raises(MQMIError) as ei:
        read(raw, max_length)
    return ei.value.reason


def test_a_string_by_address_by_offset_or_null_terminated_is_read() -> None:
    buf = ctypes.create_string_buffer(b"Color = 'red'")
    ptr = ctypes.addressof(buf)
    assert read(od_with(ptr=ptr, length=13)) == "Color = 'red'"
    assert read(od_with(ptr=ptr, length=-1)) == "Color = 'red'"  # MQVS_NULL_TERMINATED
    assert read(od_with(offset=424, length=5, tail=b"A = 1xyz")) == "A = 1"
    assert read(od_with(ccsid=C.MQCCSI_APPL)) == ""  # no string: no selection
    latin = ctypes.create_string_buffer("É = 1".encode("latin-1"))
    assert read(od_with(ptr=ctypes.addressof(latin), length=5, ccsid=819)) == "É = 1"


def test_a_malformed_mqcharv_is_2519() -> None:
    buf = ctypes.create_string_buffer(b"A = 1")
    ptr = ctypes.addressof(buf)
    assert reason(od_with(length=5)) == C.MQRC_SELECTION_STRING_ERROR  # a length and nowhere to read it
    assert reason(od_with(ptr=ptr, offset=424, length=5, tail=b"A = 1")) == C.MQRC_SELECTION_STRING_ERROR
    assert reason(od_with(offset=424, length=9, tail=b"A = 1")) == C.MQRC_SELECTION_STRING_ERROR  # runs past
    assert reason(od_with(offset=9999, length=1)) == C.MQRC_SELECTION_STRING_ERROR
    assert reason(od_with(ptr=ptr, length=-7)) == C.MQRC_SELECTION_STRING_ERROR
    assert reason(od_with(ptr=ptr, length=5), max_length=4) == C.MQRC_SELECTION_STRING_ERROR


def test_a_ccsid_without_a_conversion_is_source_ccsid_error_2111() -> None:
    buf = ctypes.create_string_buffer(b"A = 1")
    assert reason(od_with(ptr=ctypes.addressof(buf), length=5, ccsid=500)) == C.MQRC_SOURCE_CCSID_ERROR
