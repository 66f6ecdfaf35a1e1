"""Byte layouts of the MQI structures in syncpoint.mqi, field by field.

The layout tables below are transcribed from the project's reference 'structures.md'
(shared/reference/structures.md: 64-bit Linux, native little-endian, MQLONG 4 bytes, pointers 8 bytes).
They are data in this file on purpose: CI has ../shared beside the repository, but the tests must not depend
on it. Each row is (field, offset, length, kind, initial value).

One deliberate reading of structures.md: it lists the binary identifiers (MQMD MsgId, CorrelId,
AccountingToken, GroupId; MQMDE GroupId; MQGMO MsgToken; MQOD AlternateSecurityId) as "blank". IBM's
initial values for them are MQMI_NONE, MQCI_NONE, MQACT_NONE, MQGI_NONE, MQMTOK_NONE and MQSID_NONE, which
are all-zero bytes (structures.md's own note: "MQMI_NONE / MQCI_NONE (24 zero bytes) match any message").
A blank MsgId would not be MQMI_NONE and would match nothing, so the tables say NUL for those fields.
"""

from __future__ import annotations

import struct
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from syncpoint.mqi import (
    MQCNO,
    MQDLH,
    MQGMO,
    MQMD,
    MQMDE,
    MQOD,
    MQPMO,
    MQTM,
    MQTMC2,
    MQXQH,
    Structure,
    blank_strip,
    char_field,
)
from syncpoint.mqi import constants as C

BLANK = "blank"  # the field's length in blanks
NUL = "nul"  # the field's length in zero bytes (MQMI_NONE and its kind)

LONG = "MQLONG"  # 4-byte signed, little-endian
INT64 = "MQINT64"  # 8-byte signed
PTR = "pointer"  # 8 bytes, kept zero
CHAR = "MQCHAR"  # bytes, as given

Row = tuple[str, int, int, str, Any]

# --- structures.md, transcribed ---

MQTM_LAYOUT: list[Row] = [
    ("StrucId", 0, 4, CHAR, b"TM  "),
    ("Version", 4, 4, LONG, 1),
    ("QName", 8, 48, CHAR, BLANK),
    ("ProcessName", 56, 48, CHAR, BLANK),
    ("TriggerData", 104, 64, CHAR, BLANK),
    ("ApplType", 168, 4, LONG, 0),
    ("ApplId", 172, 256, CHAR, BLANK),
    ("EnvData", 428, 128, CHAR, BLANK),
    ("UserData", 556, 128, CHAR, BLANK),
]

MQTMC2_LAYOUT: list[Row] = [
    ("StrucId", 0, 4, CHAR, b"TMC "),
    ("Version", 4, 4, CHAR, b"   2"),
    ("QName", 8, 48, CHAR, BLANK),
    ("ProcessName", 56, 48, CHAR, BLANK),
    ("TriggerData", 104, 64, CHAR, BLANK),
    ("ApplType", 168, 4, CHAR, BLANK),
    ("ApplId", 172, 256, CHAR, BLANK),
    ("EnvData", 428, 128, CHAR, BLANK),
    ("UserData", 556, 128, CHAR, BLANK),
    ("QMgrName", 684, 48, CHAR, BLANK),
]

MQDLH_LAYOUT: list[Row] = [
    ("StrucId", 0, 4, CHAR, b"DLH "),
    ("Version", 4, 4, LONG, 1),
    ("Reason", 8, 4, LONG, 0),
    ("DestQName", 12, 48, CHAR, BLANK),
    ("DestQMgrName", 60, 48, CHAR, BLANK),
    ("Encoding", 108, 4, LONG, 0),
    ("CodedCharSetId", 112, 4, LONG, 0),
    ("Format", 116, 8, CHAR, b"        "),
    ("PutApplType", 124, 4, LONG, 0),
    ("PutApplName", 128, 28, CHAR, BLANK),
    ("PutDate", 156, 8, CHAR, BLANK),
    ("PutTime", 164, 8, CHAR, BLANK),
]

MQMD_LAYOUT: list[Row] = [
    ("StrucId", 0, 4, CHAR, b"MD  "),
    ("Version", 4, 4, LONG, 2),
    ("Report", 8, 4, LONG, 0),
    ("MsgType", 12, 4, LONG, 8),
    ("Expiry", 16, 4, LONG, -1),
    ("Feedback", 20, 4, LONG, 0),
    ("Encoding", 24, 4, LONG, 546),
    ("CodedCharSetId", 28, 4, LONG, 0),
    ("Format", 32, 8, CHAR, BLANK),
    ("Priority", 40, 4, LONG, -1),
    ("Persistence", 44, 4, LONG, 2),
    ("MsgId", 48, 24, CHAR, NUL),  # MQMI_NONE
    ("CorrelId", 72, 24, CHAR, NUL),  # MQCI_NONE
    ("BackoutCount", 96, 4, LONG, 0),
    ("ReplyToQ", 100, 48, CHAR, BLANK),
    ("ReplyToQMgr", 148, 48, CHAR, BLANK),
    ("UserIdentifier", 196, 12, CHAR, BLANK),
    ("AccountingToken", 208, 32, CHAR, NUL),  # MQACT_NONE
    ("ApplIdentityData", 240, 32, CHAR, BLANK),
    ("PutApplType", 272, 4, LONG, 0),
    ("PutApplName", 276, 28, CHAR, BLANK),
    ("PutDate", 304, 8, CHAR, BLANK),
    ("PutTime", 312, 8, CHAR, BLANK),
    ("ApplOriginData", 320, 4, CHAR, BLANK),
    ("GroupId", 324, 24, CHAR, NUL),  # MQGI_NONE
    ("MsgSeqNumber", 348, 4, LONG, 1),
    ("Offset", 352, 4, LONG, 0),
    ("MsgFlags", 356, 4, LONG, 0),
    ("OriginalLength", 360, 4, LONG, -1),
]

MQGMO_LAYOUT: list[Row] = [
    ("StrucId", 0, 4, CHAR, b"GMO "),
    ("Version", 4, 4, LONG, 4),
    ("Options", 8, 4, LONG, 0),
    ("WaitInterval", 12, 4, LONG, 0),
    ("Signal1", 16, 4, LONG, 0),
    ("Signal2", 20, 4, LONG, 0),
    ("ResolvedQName", 24, 48, CHAR, BLANK),
    ("MatchOptions", 72, 4, LONG, 3),
    ("GroupStatus", 76, 1, CHAR, bytes([32])),
    ("SegmentStatus", 77, 1, CHAR, bytes([32])),
    ("Segmentation", 78, 1, CHAR, bytes([32])),
    ("Reserved1", 79, 1, CHAR, b" "),
    ("MsgToken", 80, 16, CHAR, NUL),  # MQMTOK_NONE
    ("ReturnedLength", 96, 4, LONG, -1),
    ("Reserved2", 100, 4, LONG, 0),
    ("MsgHandle", 104, 8, INT64, 0),
]

MQPMO_LAYOUT: list[Row] = [
    ("StrucId", 0, 4, CHAR, b"PMO "),
    ("Version", 4, 4, LONG, 3),
    ("Options", 8, 4, LONG, 0),
    ("Timeout", 12, 4, LONG, -1),
    ("Context", 16, 4, LONG, 0),
    ("KnownDestCount", 20, 4, LONG, 0),
    ("UnknownDestCount", 24, 4, LONG, 0),
    ("InvalidDestCount", 28, 4, LONG, 0),
    ("ResolvedQName", 32, 48, CHAR, BLANK),
    ("ResolvedQMgrName", 80, 48, CHAR, BLANK),
    ("RecsPresent", 128, 4, LONG, 0),
    ("PutMsgRecFields", 132, 4, LONG, 0),
    ("PutMsgRecOffset", 136, 4, LONG, 0),
    ("ResponseRecOffset", 140, 4, LONG, 0),
    ("PutMsgRecPtr", 144, 8, PTR, 0),
    ("ResponseRecPtr", 152, 8, PTR, 0),
    ("OriginalMsgHandle", 160, 8, INT64, 0),
    ("NewMsgHandle", 168, 8, INT64, 0),
    ("Action", 176, 4, LONG, 0),
    ("PubLevel", 180, 4, LONG, 9),
]

MQOD_LAYOUT: list[Row] = [
    ("StrucId", 0, 4, CHAR, b"OD  "),
    ("Version", 4, 4, LONG, 4),
    ("ObjectType", 8, 4, LONG, 1),
    ("ObjectName", 12, 48, CHAR, BLANK),
    ("ObjectQMgrName", 60, 48, CHAR, BLANK),
    ("DynamicQName", 108, 48, CHAR, b"AMQ.*"),
    ("AlternateUserId", 156, 12, CHAR, BLANK),
    ("RecsPresent", 168, 4, LONG, 0),
    ("KnownDestCount", 172, 4, LONG, 0),
    ("UnknownDestCount", 176, 4, LONG, 0),
    ("InvalidDestCount", 180, 4, LONG, 0),
    ("ObjectRecOffset", 184, 4, LONG, 0),
    ("ResponseRecOffset", 188, 4, LONG, 0),
    ("ObjectRecPtr", 192, 8, PTR, 0),
    ("ResponseRecPtr", 200, 8, PTR, 0),
    ("AlternateSecurityId", 208, 40, CHAR, NUL),  # MQSID_NONE
    ("ResolvedQName", 248, 48, CHAR, BLANK),
    ("ResolvedQMgrName", 296, 48, CHAR, BLANK),
    ("ObjectStringVSPtr", 344, 8, PTR, 0),
    ("ObjectStringVSOffset", 352, 4, LONG, 0),
    ("ObjectStringVSBufSize", 356, 4, LONG, 0),
    ("ObjectStringVSLength", 360, 4, LONG, 0),
    ("ObjectStringVSCCSID", 364, 4, LONG, 0),
    ("SelectionStringVSPtr", 368, 8, PTR, 0),
    ("SelectionStringVSOffset", 376, 4, LONG, 0),
    ("SelectionStringVSBufSize", 380, 4, LONG, 0),
    ("SelectionStringVSLength", 384, 4, LONG, 0),
    ("SelectionStringVSCCSID", 388, 4, LONG, 0),
    ("ResObjectStringVSPtr", 392, 8, PTR, 0),
    ("ResObjectStringVSOffset", 400, 4, LONG, 0),
    ("ResObjectStringVSBufSize", 404, 4, LONG, 0),
    ("ResObjectStringVSLength", 408, 4, LONG, 0),
    ("ResObjectStringVSCCSID", 412, 4, LONG, 0),
    ("ResolvedType", 416, 4, LONG, -3),
    ("pad", 420, 4, CHAR, BLANK),
]

# MQXQH: its own first 104 bytes; an MQMD version 1 (324 bytes) follows at offset 104, total 428
MQXQH_LAYOUT: list[Row] = [
    ("StrucId", 0, 4, CHAR, b"XQH "),
    ("Version", 4, 4, LONG, 1),
    ("RemoteQName", 8, 48, CHAR, BLANK),
    ("RemoteQMgrName", 56, 48, CHAR, BLANK),
]

MQMDE_LAYOUT: list[Row] = [
    ("StrucId", 0, 4, CHAR, b"MDE "),
    ("Version", 4, 4, LONG, 2),
    ("StrucLength", 8, 4, LONG, 72),
    ("Encoding", 12, 4, LONG, 546),
    ("CodedCharSetId", 16, 4, LONG, 0),
    ("Format", 20, 8, CHAR, BLANK),
    ("Flags", 28, 4, LONG, 0),
    ("GroupId", 32, 24, CHAR, NUL),  # MQGI_NONE
    ("MsgSeqNumber", 56, 4, LONG, 1),
    ("Offset", 60, 4, LONG, 0),
    ("MsgFlags", 64, 4, LONG, 0),
    ("OriginalLength", 68, 4, LONG, -1),
]

# structure -> (layout, documented length of the part the layout covers)
LAYOUTS: dict[type[Structure], tuple[list[Row], int]] = {
    MQTM: (MQTM_LAYOUT, 684),
    MQTMC2: (MQTMC2_LAYOUT, 732),
    MQDLH: (MQDLH_LAYOUT, 172),
    MQMD: (MQMD_LAYOUT, 364),
    MQGMO: (MQGMO_LAYOUT, 112),
    MQPMO: (MQPMO_LAYOUT, 184),
    MQOD: (MQOD_LAYOUT, 424),
    MQXQH: (MQXQH_LAYOUT, 104),
    MQMDE: (MQMDE_LAYOUT, 72),
}

MQMD_V1_LENGTH = 324
MQXQH_TOTAL = 428


# --- helpers ---


def _initial_bytes(length: int, kind: str, initial: Any) -> bytes:
    """The bytes structures.md says a default instance holds for one field."""
    if kind == LONG:
        return struct.pack("<i", initial)
    if kind == INT64:
        return struct.pack("<q", initial)
    if kind == PTR:
        return struct.pack("<Q", initial)
    if initial == BLANK:
        return b" " * length
    if initial == NUL:
        return b"\0" * length
    assert isinstance(initial, bytes)
    return initial.ljust(length, b" ")


def _distinctive(name: str, length: int, kind: str) -> tuple[Any, bytes]:
    """A value no default holds, and the bytes it must pack to (little-endian)."""
    if kind == LONG:
        value = 0x1A2B3C4D
        return value, struct.pack("<i", value)
    if kind == INT64:
        value = -0x0102030405060708
        return value, struct.pack("<q", value)
    if kind == PTR:
        value = 0xF1E2D3C4B5A69788
        return value, struct.pack("<Q", value)
    raw = bytes((0x41 + (i * 7 + len(name)) % 26) for i in range(length))  # letters, never blank or NUL
    return raw, raw


def _full_size(cls: type[Structure]) -> int:
    return MQXQH_TOTAL if cls is MQXQH else LAYOUTS[cls][1]


def _check_initial_values(cls: type[Structure], row: Row) -> None:
    name, offset, length, kind, initial = row
    buf = cls().pack()
    assert len(buf) == _full_size(cls)
    assert buf[offset : offset + length] == _initial_bytes(length, kind, initial), name
    # the attribute holds the same value
    value = getattr(cls(), name)
    if kind in (LONG, INT64, PTR):
        assert value == initial
    else:
        assert value == _initial_bytes(length, kind, initial)


def _check_field_lands_at_offset(cls: type[Structure], row: Row) -> None:
    """Set one field to a distinctive value: it lands exactly at [offset, offset+length) and nowhere else."""
    name, offset, length, kind, _ = row
    value, expected = _distinctive(name, length, kind)
    assert len(expected) == length
    default = cls().pack()
    buf = cls(**{name: value}).pack()
    assert len(buf) == len(default)  # a Version no table knows packs at full length
    assert buf[offset : offset + length] == expected, name
    assert buf[:offset] == default[:offset], f"{name} disturbed bytes before its offset"
    assert buf[offset + length :] == default[offset + length :], f"{name} disturbed bytes after its end"
    # and reads back from there (a Version no table knows unpacks at full length too)
    assert getattr(cls.unpack(buf), name) == value


def _ids(rows: list[Row]) -> list[str]:
    return [r[0] for r in rows]


# --- the tables tile each structure and name every field ---


@pytest.mark.parametrize("cls", list(LAYOUTS), ids=lambda c: c.__name__)
def test_structure_fields_and_sizes_match_structures_reference(cls: type[Structure]) -> None:
    layout, length = LAYOUTS[cls]
    # the rows are contiguous from offset 0 and end at the documented length
    position = 0
    for name, offset, size, _, _ in layout:
        assert offset == position, f"{cls.__name__}.{name}: gap or overlap at {offset}"
        position += size
    assert position == length
    # the class declares exactly these fields, in this order
    assert list(cls().fields())[: len(layout)] == [r[0] for r in layout]
    assert cls.size() == _full_size(cls)
    assert len(cls().pack()) == _full_size(cls)


def test_structure_lengths_match_constants() -> None:
    assert MQMD.size() == C.MQMD_LENGTH_2 == C.MQMD_CURRENT_LENGTH == 364
    assert MQMD.size(1) == C.MQMD_LENGTH_1 == MQMD_V1_LENGTH
    assert MQDLH.size() == C.MQDLH_LENGTH_1 == 172
    assert MQXQH.size() == C.MQXQH_LENGTH_1 == MQXQH_TOTAL
    assert MQMDE.size() == C.MQMDE_LENGTH_2 == 72
    assert MQTM.size() == 684
    assert MQTMC2.size() == 732
    assert MQCNO.size() == 12


@pytest.mark.parametrize(
    ("cls", "lengths"),
    [
        (MQGMO, {1: C.MQGMO_LENGTH_1, 2: C.MQGMO_LENGTH_2, 3: C.MQGMO_LENGTH_3, 4: C.MQGMO_LENGTH_4}),
        (MQPMO, {1: C.MQPMO_LENGTH_1, 2: C.MQPMO_LENGTH_2, 3: C.MQPMO_LENGTH_3}),
        (MQOD, {1: C.MQOD_LENGTH_1, 2: C.MQOD_LENGTH_2, 3: C.MQOD_LENGTH_3, 4: C.MQOD_LENGTH_4}),
        (MQMD, {1: C.MQMD_LENGTH_1, 2: C.MQMD_LENGTH_2}),
    ],
    ids=lambda v: getattr(v, "__name__", ""),
)
def test_earlier_versions_pack_as_prefix_of_current_layout(cls: type[Structure], lengths: dict[int, int]) -> None:
    full = cls().pack()
    for version, length in lengths.items():
        assert cls.size(version) == length
        buf = cls(Version=version).pack()
        assert len(buf) == length
        assert buf[:4] == full[:4]
        assert struct.unpack_from("<i", buf, 4)[0] == version
        assert buf[8:] == full[8:length]
        back = cls.unpack(buf)
        assert back.Version == version
        assert back.pack() == buf


# --- per structure: initial values and field positions ---


@pytest.mark.parametrize("row", MQMD_LAYOUT, ids=_ids(MQMD_LAYOUT))
def test_mqmd_default_bytes_match_structures_reference_initial_values(row: Row) -> None:
    _check_initial_values(MQMD, row)


@pytest.mark.parametrize("row", MQMD_LAYOUT, ids=_ids(MQMD_LAYOUT))
def test_mqmd_field_offsets_match_structures_reference(row: Row) -> None:
    _check_field_lands_at_offset(MQMD, row)


@pytest.mark.parametrize("row", MQMDE_LAYOUT, ids=_ids(MQMDE_LAYOUT))
def test_mqmde_default_bytes_match_structures_reference_initial_values(row: Row) -> None:
    _check_initial_values(MQMDE, row)


@pytest.mark.parametrize("row", MQMDE_LAYOUT, ids=_ids(MQMDE_LAYOUT))
def test_mqmde_field_offsets_match_structures_reference(row: Row) -> None:
    _check_field_lands_at_offset(MQMDE, row)


@pytest.mark.parametrize("row", MQGMO_LAYOUT, ids=_ids(MQGMO_LAYOUT))
def test_mqgmo_default_bytes_match_structures_reference_initial_values(row: Row) -> None:
    _check_initial_values(MQGMO, row)


@pytest.mark.parametrize("row", MQGMO_LAYOUT, ids=_ids(MQGMO_LAYOUT))
def test_mqgmo_field_offsets_match_structures_reference(row: Row) -> None:
    _check_field_lands_at_offset(MQGMO, row)


@pytest.mark.parametrize("row", MQPMO_LAYOUT, ids=_ids(MQPMO_LAYOUT))
def test_mqpmo_default_bytes_match_structures_reference_initial_values(row: Row) -> None:
    _check_initial_values(MQPMO, row)


@pytest.mark.parametrize("row", MQPMO_LAYOUT, ids=_ids(MQPMO_LAYOUT))
def test_mqpmo_field_offsets_match_structures_reference(row: Row) -> None:
    _check_field_lands_at_offset(MQPMO, row)


@pytest.mark.parametrize("row", MQOD_LAYOUT, ids=_ids(MQOD_LAYOUT))
def test_mqod_default_bytes_match_structures_reference_initial_values(row: Row) -> None:
    _check_initial_values(MQOD, row)


@pytest.mark.parametrize("row", MQOD_LAYOUT, ids=_ids(MQOD_LAYOUT))
def test_mqod_field_offsets_match_structures_reference(row: Row) -> None:
    _check_field_lands_at_offset(MQOD, row)


@pytest.mark.parametrize("row", MQDLH_LAYOUT, ids=_ids(MQDLH_LAYOUT))
def test_mqdlh_default_bytes_match_structures_reference_initial_values(row: Row) -> None:
    _check_initial_values(MQDLH, row)


@pytest.mark.parametrize("row", MQDLH_LAYOUT, ids=_ids(MQDLH_LAYOUT))
def test_mqdlh_field_offsets_match_structures_reference(row: Row) -> None:
    _check_field_lands_at_offset(MQDLH, row)


@pytest.mark.parametrize("row", MQTM_LAYOUT, ids=_ids(MQTM_LAYOUT))
def test_mqtm_default_bytes_match_structures_reference_initial_values(row: Row) -> None:
    _check_initial_values(MQTM, row)


@pytest.mark.parametrize("row", MQTM_LAYOUT, ids=_ids(MQTM_LAYOUT))
def test_mqtm_field_offsets_match_structures_reference(row: Row) -> None:
    _check_field_lands_at_offset(MQTM, row)


@pytest.mark.parametrize("row", MQTMC2_LAYOUT, ids=_ids(MQTMC2_LAYOUT))
def test_mqtmc2_default_bytes_match_structures_reference_initial_values(row: Row) -> None:
    _check_initial_values(MQTMC2, row)


@pytest.mark.parametrize("row", MQTMC2_LAYOUT, ids=_ids(MQTMC2_LAYOUT))
def test_mqtmc2_field_offsets_match_structures_reference(row: Row) -> None:
    _check_field_lands_at_offset(MQTMC2, row)


@pytest.mark.parametrize("row", MQXQH_LAYOUT, ids=_ids(MQXQH_LAYOUT))
def test_mqxqh_default_bytes_match_structures_reference_initial_values(row: Row) -> None:
    _check_initial_values(MQXQH, row)


@pytest.mark.parametrize("row", MQXQH_LAYOUT, ids=_ids(MQXQH_LAYOUT))
def test_mqxqh_field_offsets_match_structures_reference(row: Row) -> None:
    _check_field_lands_at_offset(MQXQH, row)


# --- MQMD version 1 ---


def test_mqmd_version_1_is_first_324_bytes_of_version_2() -> None:
    md2 = MQMD(MsgId=b"M" * 24, PutApplName=b"app", ApplOriginData=b"ORIG")
    md1 = md2.copy().set(Version=C.MQMD_VERSION_1)
    v2 = md2.pack()
    v1 = md1.pack()
    assert len(v1) == MQMD_V1_LENGTH
    assert v1[:4] == v2[:4]
    assert struct.unpack_from("<i", v1, 4)[0] == 1
    assert v1[8:] == v2[8:MQMD_V1_LENGTH]
    assert v1[320:324] == b"ORIG"  # ApplOriginData is the last field of version 1


def test_mqmd_unpack_of_version_1_buffer_gives_version_1_mqmd() -> None:
    buf = MQMD(Version=1, Priority=4, CorrelId=b"C" * 24, PutApplName=b"amqsput").pack()
    md = MQMD.unpack(buf)
    assert md.Version == C.MQMD_VERSION_1
    assert md.Priority == 4
    assert md.CorrelId == b"C" * 24
    assert blank_strip(md.PutApplName) == "amqsput"
    assert md.pack() == buf
    # the version-2 fields it does not carry hold their initial values
    assert md.GroupId == C.MQGI_NONE
    assert md.MsgSeqNumber == 1
    assert md.Offset == 0
    assert md.MsgFlags == C.MQMF_NONE
    assert md.OriginalLength == C.MQOL_UNDEFINED


def test_mqmd_unpack_into_version_1_resets_version_2_fields() -> None:
    md = MQMD(GroupId=b"G" * 24, MsgSeqNumber=7, Offset=100, MsgFlags=C.MQMF_MSG_IN_GROUP)
    md.unpack_into(MQMD(Version=1, Priority=3).pack())
    assert md.Version == 1
    assert md.Priority == 3
    assert (md.GroupId, md.MsgSeqNumber, md.Offset, md.MsgFlags) == (C.MQGI_NONE, 1, 0, 0)


def test_mqmd_unpack_of_version_2_buffer_reads_364_bytes_and_ignores_the_rest() -> None:
    buf = MQMD(GroupId=b"G" * 24, MsgSeqNumber=2).pack()
    md = MQMD.unpack(buf + b"message data")
    assert md.Version == 2
    assert md.GroupId == b"G" * 24
    assert md.MsgSeqNumber == 2
    assert md.pack() == buf


def test_mqmd_unpack_of_short_buffer_is_an_error() -> None:
    with pytest.raises(ValueError, match="need 324 bytes"):
        MQMD.unpack(MQMD(Version=1).pack()[:300])
    with pytest.raises(ValueError, match="need 364 bytes"):
        MQMD.unpack(MQMD().pack()[:340])


# --- MQXQH embeds an MQMD version 1 at offset 104 ---


def test_mqxqh_embeds_mqmd_version_1_at_offset_104() -> None:
    buf = MQXQH().pack()
    assert len(buf) == MQXQH_TOTAL == C.MQXQH_LENGTH_1
    assert buf[104:MQXQH_TOTAL] == MQMD(Version=C.MQMD_VERSION_1).pack()
    assert buf[104:108] == b"MD  "
    assert struct.unpack_from("<i", buf, 108)[0] == C.MQMD_VERSION_1


# every version-1 field but Version, which the embedded MQMD always carries as 1
MQMD_V1_FIELDS = [r for r in MQMD_LAYOUT if r[1] + r[2] <= MQMD_V1_LENGTH and r[0] != "Version"]


@pytest.mark.parametrize("row", MQMD_V1_FIELDS, ids=_ids(MQMD_V1_FIELDS))
def test_mqxqh_msgdesc_field_offsets_match_structures_reference(row: Row) -> None:
    name, offset, length, kind, _ = row
    value, expected = _distinctive(name, length, kind)
    default = MQXQH().pack()
    buf = MQXQH(MsgDesc=MQMD(**{name: value})).pack()
    start = 104 + offset
    assert buf[start : start + length] == expected
    assert buf[:start] == default[:start]
    assert buf[start + length :] == default[start + length :]
    assert getattr(MQXQH.unpack(buf).MsgDesc, name) == value


def test_mqxqh_packs_a_version_2_msgdesc_as_version_1_without_changing_it() -> None:
    md = MQMD(Priority=7, GroupId=b"G" * 24)
    xqh = MQXQH(RemoteQName=b"TARGET.Q", RemoteQMgrName=b"QM2", MsgDesc=md)
    buf = xqh.pack()
    assert len(buf) == MQXQH_TOTAL
    assert md.Version == C.MQMD_VERSION_2  # the caller's MQMD is left alone
    back = MQXQH.unpack(buf)
    assert blank_strip(back.RemoteQName) == "TARGET.Q"
    assert blank_strip(back.RemoteQMgrName) == "QM2"
    assert isinstance(back.MsgDesc, MQMD)
    assert back.MsgDesc.Version == C.MQMD_VERSION_1
    assert back.MsgDesc.Priority == 7
    assert back.MsgDesc.GroupId == C.MQGI_NONE  # not carried by a version-1 MQMD
    assert back.pack() == buf
    assert back == xqh


def test_mqxqh_unpack_reads_428_bytes_and_ignores_the_message_after_them() -> None:
    buf = MQXQH(RemoteQName=b"Q").pack()
    back = MQXQH.unpack(buf + b"the application message")
    assert back.pack() == buf
    with pytest.raises(ValueError, match="need 428 bytes"):
        MQXQH.unpack(buf[:427])


def test_mqxqh_copy_does_not_share_msgdesc() -> None:
    xqh = MQXQH(MsgDesc=MQMD(Priority=1))
    twin = xqh.copy()
    twin.MsgDesc.Priority = 9
    assert xqh.MsgDesc.Priority == 1
    assert "MsgDesc" in xqh.fields()


# --- MQTMC2.from_tm ---


@pytest.mark.parametrize(
    ("appl_type", "chars"),
    [(0, b"   0"), (6, b"   6"), (C.MQAT_UNIX, b"   6"), (11, b"  11"), (123, b" 123"), (9999, b"9999")],
)
def test_mqtmc2_from_tm_gives_appltype_as_4_right_aligned_digits(appl_type: int, chars: bytes) -> None:
    tmc = MQTMC2.from_tm(MQTM(ApplType=appl_type), "QM1")
    assert tmc.pack()[168:172] == chars


def test_mqtmc2_from_tm_copies_the_trigger_message() -> None:
    tm = MQTM(
        QName=char_field("APP.Q", 48),
        ProcessName=char_field("APP.PROC", 48),
        TriggerData=char_field("tdata", 64),
        ApplType=C.MQAT_UNIX,
        ApplId=char_field("/usr/bin/app", 256),
        EnvData=char_field("env", 128),
        UserData=char_field("user", 128),
    )
    buf = MQTMC2.from_tm(tm, "QM1").pack()
    assert len(buf) == 732 == C.MQ_Q_MGR_NAME_LENGTH + MQTM.size()
    assert buf[0:4] == C.MQTMC_STRUC_ID
    assert buf[4:8] == C.MQTMC_VERSION_2
    tm_buf = tm.pack()
    for start, end in [(8, 168), (172, 684)]:  # QName..TriggerData, ApplId..UserData: same bytes as MQTM
        assert buf[start:end] == tm_buf[start:end]
    assert buf[684:732] == char_field("QM1", 48)
    back = MQTMC2.unpack(buf)
    assert blank_strip(back.QMgrName) == "QM1"
    assert blank_strip(back.ApplId) == "/usr/bin/app"


# --- MQCNO (not in structures.md: the part syncpoint reads) ---


def test_mqcno_version_1_layout() -> None:
    buf = MQCNO().pack()
    assert buf == C.MQCNO_STRUC_ID + struct.pack("<ii", 1, C.MQCNO_NONE)
    assert MQCNO.unpack(MQCNO(Options=C.MQCNO_FASTPATH_BINDING).pack()).Options == 1


# --- packing rules ---


def test_character_fields_pad_with_blanks_and_identifiers_with_nuls() -> None:
    md = MQMD(ReplyToQ=b"R", MsgId=b"M", Format="MQSTR", PutApplName=bytearray(b"py"))
    buf = md.pack()
    assert buf[100:148] == b"R" + b" " * 47
    assert buf[48:72] == b"M" + b"\0" * 23
    assert buf[32:40] == C.MQFMT_STRING
    assert buf[276:304] == b"py" + b" " * 26


def test_unknown_field_is_an_error() -> None:
    with pytest.raises(TypeError):
        MQMD(NoSuchField=1)
    with pytest.raises(TypeError):
        MQGMO().set(Bogus=2)


def test_integer_out_of_range_is_a_value_error() -> None:
    with pytest.raises(ValueError):
        MQMD(Priority=2**31).pack()


def test_set_copy_fields_and_item_access() -> None:
    gmo = MQGMO().set(Options=C.MQGMO_WAIT | C.MQGMO_SYNCPOINT, WaitInterval=500)
    twin = gmo.copy()
    twin.WaitInterval = 0
    assert gmo.WaitInterval == 500
    assert gmo["Options"] == 3
    gmo["MatchOptions"] = C.MQMO_NONE
    assert gmo.fields()["MatchOptions"] == 0
    assert gmo != twin
    assert MQGMO() == MQGMO()
    assert "WaitInterval=500" in repr(gmo)


def test_blank_strip_and_char_field() -> None:
    assert blank_strip(b"Q1   \0\0") == "Q1"
    assert blank_strip("Q2  ") == "Q2"
    assert char_field("Q1", 8) == b"Q1      "
    assert char_field(None, 4) == b"    "
    assert char_field(b"ABCD", 4) == b"ABCD"
    with pytest.raises(ValueError):
        char_field("TOO LONG", 4)


# --- round trips (hypothesis) ---


def _field_strategy(length: int, kind: str) -> st.SearchStrategy[Any]:
    if kind == LONG:
        return st.integers(-(2**31), 2**31 - 1)
    if kind == INT64:
        return st.integers(-(2**63), 2**63 - 1)
    if kind == PTR:
        return st.integers(0, 2**64 - 1)
    return st.binary(min_size=length, max_size=length)


def _structure_strategy(cls: type[Structure]) -> st.SearchStrategy[dict[str, Any]]:
    layout, _ = LAYOUTS[cls]
    fields = {name: _field_strategy(length, kind) for name, _, length, kind, _ in layout}
    if _row(layout, "Version")[3] == LONG:
        # the current version, so that every field is packed
        fields["Version"] = st.just(_row(layout, "Version")[4])
    return st.fixed_dictionaries(fields)


def _row(layout: list[Row], name: str) -> Row:
    return next(r for r in layout if r[0] == name)


ROUND_TRIP = [MQTM, MQTMC2, MQDLH, MQMD, MQGMO, MQPMO, MQOD, MQMDE]


@pytest.mark.parametrize("cls", ROUND_TRIP, ids=lambda c: c.__name__)
@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_structure_pack_unpack_round_trip(cls: type[Structure], data: st.DataObject) -> None:
    values = data.draw(_structure_strategy(cls))
    obj = cls(**values)
    buf = obj.pack()
    assert len(buf) == LAYOUTS[cls][1]
    back = cls.unpack(buf)
    assert back.fields() == values
    assert back.pack() == buf
    assert back == obj
    # unpack_into an existing instance gives the same
    assert cls().unpack_into(bytearray(buf)).fields() == values
    assert cls.unpack(memoryview(buf + b"trailing")).fields() == values


@pytest.mark.parametrize("cls", ROUND_TRIP, ids=lambda c: c.__name__)
@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_structure_bytes_survive_unpack_pack(cls: type[Structure], data: st.DataObject) -> None:
    layout, length = LAYOUTS[cls]
    raw = bytearray(data.draw(st.binary(min_size=length, max_size=length)))
    version = _row(layout, "Version")
    if version[3] == LONG:
        struct.pack_into("<i", raw, 4, version[4])
    assert cls.unpack(bytes(raw)).pack() == bytes(raw)


@settings(max_examples=60, deadline=None)
@given(
    head=_structure_strategy(MQXQH),
    md_values=_structure_strategy(MQMD),
)
def test_mqxqh_pack_unpack_round_trip(head: dict[str, Any], md_values: dict[str, Any]) -> None:
    md_values = {k: v for k, v in md_values.items() if k != "Version"}
    xqh = MQXQH(MsgDesc=MQMD(**md_values), **head)
    buf = xqh.pack()
    assert len(buf) == MQXQH_TOTAL
    back = MQXQH.unpack(buf)
    assert {k: v for k, v in back.fields().items() if k != "MsgDesc"} == head
    md_back = back.MsgDesc.fields()
    for name, offset, length, _, _ in MQMD_LAYOUT:
        if name != "Version" and offset + length <= MQMD_V1_LENGTH:
            assert md_back[name] == md_values[name], name
    assert back.pack() == buf


@settings(max_examples=60, deadline=None)
@given(md=_structure_strategy(MQMD))
def test_mqmd_version_1_round_trip(md: dict[str, Any]) -> None:
    md = {**md, "Version": C.MQMD_VERSION_1}
    buf = MQMD(**md).pack()
    assert len(buf) == MQMD_V1_LENGTH
    back = MQMD.unpack(buf)
    assert back.Version == C.MQMD_VERSION_1
    assert back.pack() == buf
    for name, offset, length, _, _ in MQMD_LAYOUT:
        if offset + length <= MQMD_V1_LENGTH:
            assert getattr(back, name) == md[name], name


_CHAR_VALUE = st.one_of(
    st.binary(max_size=48),
    st.text(alphabet="ABCDEFGHIJKLMNOPQRSTUVWXYZ .*", max_size=48),
    st.binary(max_size=48).map(bytearray),
)


@pytest.mark.parametrize("cls", [MQMD, MQGMO, MQPMO, MQOD])
@settings(max_examples=150, deadline=None)
@given(data=st.data())
def test_pack_pads_character_fields_the_same_whether_or_not_they_already_have_their_length(
    cls: Any, data: st.DataObject
) -> None:
    # Structure.pack packs at once when every character field has its exact length and checks field by field
    # otherwise: both must give the bytes of the blank-/NUL-padded fields (module doc of mqi/_structs.py)
    s = cls()
    for name, n in cls._char_lengths.items():
        if data.draw(st.booleans()):
            value = data.draw(_CHAR_VALUE)
            s.__dict__[name] = value[:n]
    padded = cls()
    for name in cls._names:
        padded.__dict__[name] = s._value(name) if name in cls._char_lengths else s.__dict__[name]
    assert all(len(padded.__dict__[name]) == n for name, n in cls._char_lengths.items())
    expected = struct.pack("=" + "".join(cls._codes), *(padded.__dict__[n] for n in cls._names))
    assert s.pack() == padded.pack() == expected
