"""The names a selector reads (syncpoint.mqi.selector): the MQMD's fields as ``Root.MQMD.<Field>``, the JMS names IBM
maps onto them, and message properties.

References: properties-pubsub.md ("Selectors"); IBM's tables of JMS header fields and properties with their MQMD
fields (JMSPriority is Priority, JMSXDeliveryCount is BackoutCount + 1 …).

Theory of operation
-------------------
Each name becomes a getter ``(md, props) -> value``: MQCHAR fields as text without their trailing blanks, MQBYTE
fields as bytes, MQLONG fields as integers; a JMS name computes its value from the fields (``'ID:'`` and hex for
MsgId, milliseconds since 1970 for PutDate and PutTime …); any other name is a message property from the
message's ``props`` (name -> (MQTYPE_*, value)), ``usr.Color`` and ``Color`` being the same one. A property the
message does not have is NULL (None).
"""

from __future__ import annotations

import calendar
from collections.abc import Callable, Mapping
from typing import Any

from . import constants as C

Value = Any  # None (NULL / unknown), bool, int, float, str, bytes
Props = Mapping[str, tuple[int, object]] | None
Fn = Callable[[Mapping[str, Any], Props], Value]


# -- MQMD fields ------------------------------------------------------------------------------------------------
_MD_INT = frozenset(
    {
        "Report",
        "MsgType",
        "Expiry",
        "Feedback",
        "Encoding",
        "CodedCharSetId",
        "Priority",
        "Persistence",
        "BackoutCount",
        "PutApplType",
        "MsgSeqNumber",
        "Offset",
        "MsgFlags",
        "OriginalLength",
    }
)
_MD_CHAR = frozenset(
    {
        "Format",
        "ReplyToQ",
        "ReplyToQMgr",
        "UserIdentifier",
        "ApplIdentityData",
        "PutApplName",
        "PutDate",
        "PutTime",
        "ApplOriginData",
    }
)
_MD_BYTE = frozenset(["MsgId", "CorrelId", "GroupId", "AccountingToken"])
LIVE_FIELDS = frozenset({"BackoutCount", "Expiry"})


def _text(v: object) -> str:
    if isinstance(v, bytes):
        return v.rstrip(b" \0").decode("utf-8", "replace")
    return str(v).rstrip(" \0")


def md_field(field: str) -> Fn:
    if field in _MD_INT:
        return lambda md, props: md.get(field)
    if field in _MD_CHAR:
        return lambda md, props: _text(md.get(field, b""))
    return lambda md, props: bytes(md.get(field, b""))


def _jms_id(field: str) -> Fn:
    return lambda md, props: "ID:" + bytes(md.get(field, b"")).hex()


def _timestamp(md: Mapping[str, Any], props: Props) -> Value:
    """PutDate and PutTime (GMT, YYYYMMDD and HHMMSSTH) as milliseconds since 1970, as JMSTimestamp."""
    d, t = _text(md.get("PutDate", b"")), _text(md.get("PutTime", b""))
    if len(d) != 8 or len(t) != 8 or not (d + t).isdigit():
        return None
    secs = calendar.timegm((int(d[:4]), int(d[4:6]), int(d[6:]), int(t[:2]), int(t[2:4]), int(t[4:6]), 0, 0, 0))
    return secs * 1000 + int(t[6:]) * 10


def _jms_type(md: Mapping[str, Any], props: Props) -> Value:
    """JMSType: the message's mcd.Type property (IBM maps JMSType to the MQRFH2 mcd folder's Type)."""
    if props is None:
        return None
    entry = props.get("mcd.Type")
    return None if entry is None else entry[1]


def _report_bit(mask: int) -> Fn:
    return lambda md, props: md.get("Report", 0) & mask


JMS_NAMES: dict[str, tuple[Fn, bool]] = {  # name -> (getter, live)
    "JMSPriority": (md_field("Priority"), False),
    "JMSDeliveryMode": (
        lambda md, props: "PERSISTENT" if md.get("Persistence") == C.MQPER_PERSISTENT else "NON_PERSISTENT",
        False,
    ),
    "JMSMessageID": (_jms_id("MsgId"), False),
    "JMSCorrelationID": (_jms_id("CorrelId"), False),
    "JMSTimestamp": (_timestamp, False),
    "JMSType": (_jms_type, False),
    "JMSExpiration": (
        lambda md, props: 0 if md.get("Expiry") == C.MQEI_UNLIMITED else _timestamp(md, props),
        True,
    ),
    "JMSRedelivered": (lambda md, props: md.get("BackoutCount", 0) > 0, True),
    "JMSXDeliveryCount": (lambda md, props: md.get("BackoutCount", 0) + 1, True),
    "JMSXUserID": (md_field("UserIdentifier"), False),
    "JMSXAppID": (md_field("PutApplName"), False),
    "JMSXGroupID": (_jms_id("GroupId"), False),
    "JMSXGroupSeq": (md_field("MsgSeqNumber"), False),
    "JMS_IBM_MsgType": (md_field("MsgType"), False),
    "JMS_IBM_Feedback": (md_field("Feedback"), False),
    "JMS_IBM_Format": (md_field("Format"), False),
    "JMS_IBM_PutApplType": (md_field("PutApplType"), False),
    "JMS_IBM_Encoding": (md_field("Encoding"), False),
    "JMS_IBM_PutDate": (md_field("PutDate"), False),
    "JMS_IBM_PutTime": (md_field("PutTime"), False),
    "JMS_IBM_Last_Msg_In_Group": (
        lambda md, props: bool(md.get("MsgFlags", 0) & C.MQMF_LAST_MSG_IN_GROUP),
        False,
    ),
    "JMS_IBM_Report_Exception": (_report_bit(C.MQRO_EXCEPTION_WITH_FULL_DATA), False),
    "JMS_IBM_Report_Expiration": (_report_bit(C.MQRO_EXPIRATION_WITH_FULL_DATA), False),
    "JMS_IBM_Report_COA": (_report_bit(C.MQRO_COA_WITH_FULL_DATA), False),
    "JMS_IBM_Report_COD": (_report_bit(C.MQRO_COD_WITH_FULL_DATA), False),
    "JMS_IBM_Report_PAN": (_report_bit(C.MQRO_PAN), False),
    "JMS_IBM_Report_NAN": (_report_bit(C.MQRO_NAN), False),
    "JMS_IBM_Report_Pass_Msg_ID": (_report_bit(C.MQRO_PASS_MSG_ID), False),
    "JMS_IBM_Report_Pass_Correl_ID": (_report_bit(C.MQRO_PASS_CORREL_ID), False),
    "JMS_IBM_Report_Discard_Msg": (_report_bit(C.MQRO_DISCARD_MSG), False),
}


def message_property(name: str) -> Fn:
    short = name[4:] if name.startswith("usr.") else None

    def get(md: Mapping[str, Any], props: Props) -> Value:
        if props is None:
            return None
        entry = props.get(name)
        if entry is None and short is not None:
            entry = props.get(short)
        if entry is None:
            return None
        return entry[1]

    return get


MD_FIELDS = _MD_INT | _MD_CHAR | _MD_BYTE
