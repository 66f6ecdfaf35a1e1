"""Transmission-queue messages: the MQXQH a put to a remote queue writes, and what a channel reads back.

References: structures.md (MQXQH: 104 bytes of its own, then an MQMD version 1 — 428 bytes in all; MQMD version
2); seed 002, note 9 (a message with Format MQFMT_XMIT_Q_HEADER has two Expiry fields; a put to a remote queue
sets both to the application's; a get decrements both).

Theory of operation
-------------------
A message for a remote queue waits on a local transmission queue (a QLOCAL with USAGE(XMITQ)). Its data is an
MQXQH — RemoteQName, RemoteQMgrName and the application's MQMD version 1 — followed by the application data.
Its own (outer) MQMD is the application's MQMD version 2 with Format MQXMIT, the native Encoding and the queue
manager's CCSID (they describe the MQXQH); so the version-2 fields an MQMD v1 cannot carry (GroupId,
MsgSeqNumber, Offset, MsgFlags, OriginalLength) travel in the outer descriptor, and
:func:`parse_xmit_message` takes them from there. These functions are pure: the engine uses them for puts to
remote queues and for deliveries from a channel; a channel uses them to read what it sends.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

from syncpoint.mqi import MQMD
from syncpoint.mqi import constants as C

__all__ = [
    "XQH_LENGTH",
    "XmitMessage",
    "build_xmit_message",
    "decrement_xqh_expiry",
    "parse_xmit_message",
]

XQH_LENGTH = C.MQXQH_LENGTH_1  # 428: the MQXQH's 104 bytes and an MQMD version 1
_XQH_OWN = 104
_MD1 = MQMD.size(1)
_HEAD = struct.Struct("=4si48s48s")
_EXPIRY_AT = _XQH_OWN + 16  # the embedded MQMD's Expiry
_V2_ONLY = ("GroupId", "MsgSeqNumber", "Offset", "MsgFlags", "OriginalLength")


@dataclass(frozen=True, slots=True)
class XmitMessage:
    """A transmission-queue message taken apart."""

    remote_q: str  # MQXQH RemoteQName: the queue at the destination queue manager
    remote_qmgr: str  # MQXQH RemoteQMgrName: the destination queue manager
    md: MQMD  # the application's MQMD (version 2: the embedded version 1 and the outer version-2 fields)
    payload: bytes  # the application data


def build_xmit_message(
    remote_q: str, remote_qmgr: str, md: MQMD, data: bytes, ccsid: int = C.MQCCSI_Q_MGR
) -> tuple[MQMD, bytes]:
    """What a put to a remote queue writes on the transmission queue: ``(outer MQMD, MQXQH + data)``.

    Both Expiry fields are the application's (seed 002, note 9)."""
    outer = md.copy()
    outer.Version = C.MQMD_VERSION_2
    return outer, xqh_bytes(remote_q.encode()[:48].ljust(48), remote_qmgr.encode()[:48].ljust(48), md) + bytes(data)


def xqh_bytes(remote_q48: bytes, remote_qmgr48: bytes, md: MQMD) -> bytes:
    """The 428 bytes of an MQXQH for ``md`` (its first 324 bytes as the embedded MQMD version 1)."""
    md1 = md.copy()
    md1.Version = C.MQMD_VERSION_2
    raw = md1.pack()
    embedded = b"MD  " + struct.pack("=i", C.MQMD_VERSION_1) + raw[8:_MD1]
    return _HEAD.pack(b"XQH ", C.MQXQH_VERSION_1, remote_q48, remote_qmgr48) + embedded


def parse_xmit_message(md: MQMD, data: bytes) -> XmitMessage | None:
    """Take a transmission-queue message apart; None when it is not a valid one (Format not MQXMIT, shorter
    than an MQXQH, StrucId or Version of the MQXQH or of its MQMD wrong)."""
    if md.Format != C.MQFMT_XMIT_Q_HEADER or len(data) < XQH_LENGTH:
        return None
    sid, version, rq, rqm = _HEAD.unpack_from(data, 0)
    if sid != b"XQH " or version != C.MQXQH_VERSION_1 or data[_XQH_OWN : _XQH_OWN + 4] != b"MD  ":
        return None
    rq_name = rq.rstrip(b" \0").decode("utf-8", "replace")
    rqm_name = rqm.rstrip(b" \0").decode("utf-8", "replace")
    if not rq_name or not rqm_name:
        return None
    try:
        app = MQMD.unpack(data[_XQH_OWN:XQH_LENGTH])
    except (ValueError, struct.error):
        return None
    d, outer = app.__dict__, md.__dict__
    d["Version"] = C.MQMD_VERSION_2
    for f in _V2_ONLY:
        d[f] = outer[f]
    return XmitMessage(rq_name, rqm_name, app, bytes(data[XQH_LENGTH:]))


def decrement_xqh_expiry(data: bytes, tenths: int) -> bytes:
    """``data`` (MQXQH + message) with the embedded Expiry lowered by ``tenths`` (a channel's transit time,
    seed 002: "decremented by message channel agents to reflect transmission times"), never below zero;
    unchanged when unlimited or when the data holds no MQXQH."""
    if len(data) < XQH_LENGTH or data[:4] != b"XQH " or tenths <= 0:
        return data
    (inner,) = struct.unpack_from("=i", data, _EXPIRY_AT)
    if inner == C.MQEI_UNLIMITED:
        return data
    return data[:_EXPIRY_AT] + struct.pack("=i", max(inner - tenths, 0)) + data[_EXPIRY_AT + 4 :]
