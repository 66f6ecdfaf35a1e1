"""Messages the queue manager itself writes: expiration reports (dead-letter messages: ``syncpoint.mqi``).

Pure functions from the original message's descriptor and data to the new message's descriptor and data.
The queue manager decides where they go and when (see ``_qmgr``).
"""

from __future__ import annotations

import struct

from syncpoint.mqi import MQMD
from syncpoint.mqi import constants as C

_REPORT_DATA_LIMIT = 100  # MQRO_*_WITH_DATA: the first 100 bytes of the message data
_XQH_EMBEDDED_EXPIRY = 104 + 16  # MQXQH (104 bytes) + MQMD offset of Expiry
_XQH_MIN = _XQH_EMBEDDED_EXPIRY + 4


def expiration_report_wanted(report: int) -> int:
    """How much data an expiration report carries: -1 for no report, else 0, 100 or all (as ``len``)."""
    if report & C.MQRO_EXPIRATION_WITH_FULL_DATA == C.MQRO_EXPIRATION_WITH_FULL_DATA:
        return 1 << 31
    if report & C.MQRO_EXPIRATION_WITH_DATA == C.MQRO_EXPIRATION_WITH_DATA:
        return _REPORT_DATA_LIMIT
    if report & C.MQRO_EXPIRATION:
        return 0
    return -1


def report_message(
    original: MQMD, data: bytes, feedback: int, keep: int, qmgr_name: str, msgid: bytes
) -> tuple[MQMD, bytes]:
    """A report (MQMT_REPORT) about ``original`` with ``feedback``, carrying the first ``keep`` bytes of data.

    MsgId: the original's with MQRO_PASS_MSG_ID, else the new ``msgid``. CorrelId: the original's with
    MQRO_PASS_CORREL_ID, else the original's MsgId (MQRO_COPY_MSG_ID_TO_CORREL_ID, the default). Priority and
    Persistence are the original's; identity context is the original's; origin context is the queue manager's.
    """
    r = original.Report
    md = MQMD()
    md.MsgType = C.MQMT_REPORT
    md.Feedback = feedback
    md.Report = r & C.MQRO_DISCARD_MSG if r & C.MQRO_PASS_DISCARD_AND_EXPIRY else C.MQRO_NONE
    md.MsgId = original.MsgId if r & C.MQRO_PASS_MSG_ID else msgid
    md.CorrelId = original.CorrelId if r & C.MQRO_PASS_CORREL_ID else original.MsgId
    md.Priority = original.Priority
    md.Persistence = original.Persistence
    md.Expiry = C.MQEI_UNLIMITED
    md.ReplyToQMgr = qmgr_name.encode().ljust(48)
    md.UserIdentifier = original.UserIdentifier
    md.AccountingToken = original.AccountingToken
    md.ApplIdentityData = original.ApplIdentityData
    md.PutApplType = C.MQAT_QMGR
    md.PutApplName = qmgr_name.encode()[:28].ljust(28)
    md.GroupId = original.GroupId
    md.MsgSeqNumber = original.MsgSeqNumber
    if keep > 0 and data:
        md.Format = original.Format
        md.Encoding = original.Encoding
        md.CodedCharSetId = original.CodedCharSetId
        return md, data[:keep]
    md.Format = C.MQFMT_NONE
    return md, b""


def xqh_expiry(data: bytes) -> int | None:
    """The Expiry of the MQMD embedded in an MQXQH at the start of ``data`` (None when data is too short)."""
    if len(data) < _XQH_MIN or data[:4] != b"XQH ":
        return None
    return int(struct.unpack_from("=i", data, _XQH_EMBEDDED_EXPIRY)[0])


def with_xqh_expiry(data: bytes, remaining: int) -> bytes:
    """``data`` with the embedded MQMD's Expiry replaced (seed 002, note 9)."""
    return data[:_XQH_EMBEDDED_EXPIRY] + struct.pack("=i", remaining) + data[_XQH_MIN:]
