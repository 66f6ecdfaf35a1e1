"""The one builder of a dead-letter message: an MQDLH in front of the data, the MQMD describing the header.

Used wherever a message goes to a dead-letter queue — the queue manager itself (a trigger message or report it
cannot deliver), an application's ``syncpoint.dlq.dead_letter``, the trigger monitor, and a message flow's
MQInput node (BOQNAME missing) — so every DLQ message carries the same header (structures.md, dlq-handler.md
"The MQDLH on messages the queue manager itself dead-letters").
"""

from __future__ import annotations

from . import constants as C
from ._dates import put_date_time
from ._structs import MQDLH, MQMD


def _fixed(value: str | bytes, length: int) -> bytes:
    raw = value.encode() if isinstance(value, str) else bytes(value)
    return raw[:length].ljust(length)


# dead_letter_message takes the same keywords and passes them here (each is called on its own, typed)
def dead_letter_header(
    md: MQMD,
    *,
    reason: int,
    dest_q: str,
    dest_qmgr: str,
    put_appl_type: int,
    put_appl_name: str,
    now: float,
) -> MQDLH:
    """The MQDLH for a message with descriptor ``md`` dead-lettered for ``reason`` at ``now``."""
    put_date, put_time = put_date_time(now)
    return MQDLH(
        Reason=reason,
        DestQName=_fixed(dest_q, 48),
        DestQMgrName=_fixed(dest_qmgr, 48),
        Encoding=md.Encoding,
        CodedCharSetId=md.CodedCharSetId,
        Format=_fixed(md.Format, 8),
        PutApplType=put_appl_type,
        PutApplName=_fixed(put_appl_name, 28),
        PutDate=put_date,
        PutTime=put_time,
    )


# dead_letter_header's keywords, passed on to it: each function is called on its own (the engine builds the
# message, the client the header), so each declares them, typed
def dead_letter_message(
    md: MQMD,
    data: bytes,
    *,
    reason: int,
    dest_q: str,
    dest_qmgr: str,
    put_appl_type: int,
    put_appl_name: str,
    now: float,
    header_ccsid: int = C.MQCCSI_Q_MGR,
) -> tuple[MQMD, bytes]:
    """The message as the dead-letter queue receives it: ``(descriptor, MQDLH + data)``.

    The MQDLH: Reason says why (an MQRC_* or MQFB_* value), DestQName / DestQMgrName where the message was going,
    Encoding / CodedCharSetId / Format the original values of the data, PutApplType / PutApplName who
    dead-lettered it and PutDate / PutTime when (``now``, GMT — not the original message's put time).
    The MQMD keeps everything else of the original — MsgId, CorrelId, context, priority, persistence and the
    remaining Expiry (seed 002, note 7) — and describes the header: Version 2, Format MQDEAD, native Encoding,
    and ``header_ccsid`` (the queue manager's CCSID; the default MQCCSI_Q_MGR says so without naming it).
    """
    dlh = dead_letter_header(
        md,
        reason=reason,
        dest_q=dest_q,
        dest_qmgr=dest_qmgr,
        put_appl_type=put_appl_type,
        put_appl_name=put_appl_name,
        now=now,
    )
    out = md.copy()
    out.Version = max(out.Version, 2)
    out.Format = C.MQFMT_DEAD_LETTER_HEADER
    out.Encoding = C.MQENC_NATIVE
    out.CodedCharSetId = header_ccsid
    return out, dlh.pack() + bytes(data)
