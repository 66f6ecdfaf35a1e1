"""The backend's publish/subscribe calls: MQSUB, MQSUBRQ, and the MQCHARV strings of an MQOD or MQSD.

IBM's Python layers pass an MQCHARV (ObjectString, SubName, SubUserData, SelectionString, ResObjectString) as a
pointer to a buffer they made with ctypes (``set_vs``), so the backend reads the text at VSPtr (VSLength bytes,
or up to a NUL when VSLength is MQVS_NULL_TERMINATED), or at VSOffset inside the structure's bytes when the
pointer is null, and decodes it by VSCCSID. An output MQCHARV (ResObjectString) is written into the caller's
buffer when it gave one (VSPtr and VSBufSize), never past VSBufSize; VSLength says the whole length, as the MQI
does. MQSUB and MQSUBRQ themselves are the backend's (``_backend.Backend.sub``, ``subrq``).
"""

from __future__ import annotations

import ctypes

from syncpoint.mqi import MQMIError, Structure
from syncpoint.mqi import constants as C

_CODECS = {0: "utf-8", 1208: "utf-8", 819: "latin-1", 1252: "cp1252", 437: "cp437", 850: "cp850", 37: "cp037"}
MQVS_NULL_TERMINATED = -1


def read_charv(s: Structure, raw: bytes, name: str, error: int) -> str:
    """The text of MQCHARV ``name`` of structure ``s`` (unpacked from ``raw``); MQCHARV errors are ``error``."""
    d = s.__dict__
    ptr, offset, length, ccsid = d[name + "VSPtr"], d[name + "VSOffset"], d[name + "VSLength"], d[name + "VSCCSID"]
    if length == 0 or (not ptr and not offset):
        return ""
    if length < MQVS_NULL_TERMINATED:
        raise MQMIError(C.MQCC_FAILED, error, f"{name}.VSLength {length} is not valid")
    if ptr:
        data = ctypes.string_at(ptr) if length == MQVS_NULL_TERMINATED else ctypes.string_at(ptr, length)
    else:
        end = raw.find(b"\0", offset) if length == MQVS_NULL_TERMINATED else offset + length
        if offset < 0 or end < 0 or end > len(raw):
            raise MQMIError(C.MQCC_FAILED, error, f"{name}.VSOffset points outside the structure")
        data = raw[offset:end]
    try:
        return data.decode(_CODECS.get(ccsid, "utf-8"))
    except UnicodeDecodeError:
        raise MQMIError(C.MQCC_FAILED, error, f"{name} is not text in CCSID {ccsid}") from None


def write_charv(s: Structure, name: str, text: str) -> None:
    """Output MQCHARV ``name``: into the caller's buffer if it gave one; VSLength the text's whole length."""
    d = s.__dict__
    data = text.encode("utf-8")
    ptr, size = d[name + "VSPtr"], d[name + "VSBufSize"]
    if ptr and size > 0:
        ctypes.memmove(ptr, data, min(size, len(data)))
        d[name + "VSCCSID"] = 1208
    d[name + "VSLength"] = len(data)


SD_STRINGS = ("ObjectString", "SubName", "SubUserData", "SelectionString")
