"""Variable-length strings (MQCHARV) in the structures IBM's Python layers pack: MQOD's SelectionString and
ObjectString, MQSD's strings, the output ResObjectString.

Reference: structures.md (MQOD version 4: SelectionStringVSPtr, VSOffset, VSBufSize, VSLength, VSCCSID); IBM's
MQCHARV rules and MQRC_SELECTION_STRING_ERROR (2519).

Theory of operation
-------------------
An MQCHARV names its string either by address (VSPtr: ibmmq's and pymqi's ``set_vs`` keep a ctypes buffer alive
for the call, in this very process, so the string is read from memory as IBM's C library reads it) or by an
offset from the start of the structure's own bytes (VSOffset), never both. VSLength is the length in bytes, or
MQVS_NULL_TERMINATED (-1) for a string ending at its first NUL. The text is decoded by VSCCSID: 0 and
MQCCSI_APPL (-3) mean the application's (UTF-8 here), 1208 UTF-8, 819 ISO 8859-1, 1252 Windows Latin-1, 437 and
850 the PC code pages, 37 EBCDIC;
another CCSID is MQRC_SOURCE_CCSID_ERROR (2111), as IBM answers a CCSID it cannot convert.
"""

from __future__ import annotations

import ctypes
import struct

from syncpoint.mqi import MQMIError, Structure
from syncpoint.mqi import constants as C

MQVS_NULL_TERMINATED = -1
SD_STRINGS = ("ObjectString", "SubName", "SubUserData", "SelectionString")  # the MQSD's input MQCHARVs
_CODECS = {
    0: "utf-8",
    C.MQCCSI_APPL: "utf-8",
    1208: "utf-8",
    819: "latin-1",
    1252: "cp1252",
    437: "cp437",
    850: "cp850",
    37: "cp037",
}
_NO_LIMIT = 1 << 31  # no limit of this layer (the engine checks the string's own, e.g. a topic string's)
_CHARV = struct.Struct("=QiiiI")  # VSPtr, VSOffset, VSBufSize, VSLength, VSCCSID (the CCSID read as unsigned)


def read_charv(raw: bytes, at: int, max_length: int, reason: int, what: str) -> str:
    """The string of the MQCHARV at byte ``at`` of structure bytes ``raw`` ("" for none). A malformed MQCHARV
    (pointer and offset both set, a length without either, an offset outside the structure, longer than
    ``max_length``) is ``reason``."""
    if len(raw) < at + _CHARV.size:
        return ""
    ptr, offset, _bufsize, length, ccsid = _CHARV.unpack_from(raw, at)
    return charv_text(raw, ptr, offset, length, ccsid, max_length, reason, what)


def read_charv_field(s: Structure, raw: bytes, name: str, reason: int, max_length: int = _NO_LIMIT) -> str:
    """The string of MQCHARV ``name`` of structure ``s`` unpacked from ``raw`` (its fields ``name`` + VSPtr,
    VSOffset, VSLength, VSCCSID), as :func:`read_charv` reads one."""
    d = s.__dict__
    ptr, offset, length, ccsid = d[name + "VSPtr"], d[name + "VSOffset"], d[name + "VSLength"], d[name + "VSCCSID"]
    return charv_text(raw, ptr, offset, length, ccsid, max_length, reason, name)


def write_charv(s: Structure, name: str, text: str) -> None:
    """Output MQCHARV ``name``: into the caller's buffer if it gave one (VSPtr and VSBufSize, never past
    VSBufSize, VSCCSID 1208); VSLength says the text's whole length, as the MQI does."""
    d = s.__dict__
    data = text.encode("utf-8")
    ptr, size = d[name + "VSPtr"], d[name + "VSBufSize"]
    if ptr and size > 0:
        ctypes.memmove(ptr, data, min(size, len(data)))
        d[name + "VSCCSID"] = 1208
    d[name + "VSLength"] = len(data)


def charv_text(
    raw: bytes, ptr: int, offset: int, length: int, ccsid: int, max_length: int, reason: int, what: str
) -> str:
    """The text an MQCHARV's fields name (see the module doc)."""
    if ccsid >= 1 << 31:
        ccsid -= 1 << 32
    if length == 0 or (length < 0 and length != MQVS_NULL_TERMINATED) or (not ptr and not offset):
        if length > 0:
            raise MQMIError(C.MQCC_FAILED, reason, f"{what}: VSLength is set but neither VSPtr nor VSOffset")
        if length < 0 and length != MQVS_NULL_TERMINATED:
            raise MQMIError(C.MQCC_FAILED, reason, f"{what}: VSLength {length} is not valid")
        return ""
    if ptr and offset:
        raise MQMIError(C.MQCC_FAILED, reason, f"{what}: VSPtr and VSOffset are both set; use one")
    if ptr:
        data = ctypes.string_at(ptr) if length == MQVS_NULL_TERMINATED else ctypes.string_at(ptr, length)
    else:
        if offset < 0 or offset >= len(raw):
            raise MQMIError(C.MQCC_FAILED, reason, f"{what}: VSOffset {offset} is outside the structure")
        tail = raw[offset:]
        data = tail.split(b"\0", 1)[0] if length == MQVS_NULL_TERMINATED else tail[:length]
        if length != MQVS_NULL_TERMINATED and len(data) < length:
            raise MQMIError(C.MQCC_FAILED, reason, f"{what}: VSLength runs past the end of the structure")
    if len(data) > max_length:
        raise MQMIError(C.MQCC_FAILED, reason, f"{what} is longer than {max_length} bytes")
    codec = _CODECS.get(ccsid)
    if codec is None:
        raise MQMIError(C.MQCC_FAILED, C.MQRC_SOURCE_CCSID_ERROR, f"{what}: CCSID {ccsid} is not supported")
    try:
        return data.decode(codec)
    except UnicodeDecodeError:
        raise MQMIError(C.MQCC_FAILED, reason, f"{what} is not valid in CCSID {ccsid}") from None
