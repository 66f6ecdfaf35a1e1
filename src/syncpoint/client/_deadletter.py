"""Dead-lettering by an application: "this message cannot be processed; put it on the dead-letter queue".

    msg = q.get(syncpoint=True)
    try:
        process(msg)
    except Unprocessable:
        dead_letter(qm, msg.md, msg.data, C.MQRC_BACKOUT_THRESHOLD_REACHED, dest_q="ORDERS")
    qm.commit()            # the get and the dead-letter put succeed or fail together

The message goes to the queue manager's DEADQ with an MQDLH in front of its data, built as IBM MQ builds it
(structures.md, dlq-handler.md "The MQDLH on messages the queue manager itself dead-letters"; the one builder is
``syncpoint.mqi.dead_letter_message``): Reason says why, DestQName / DestQMgrName where the message was going,
Format / Encoding / CodedCharSetId the original values of the data, PutApplType / PutApplName / PutDate / PutTime
who dead-lettered it and when (UTC). The message descriptor is the original's — MsgId, CorrelId, context,
priority, persistence and the remaining Expiry — with Format MQDEAD and the Encoding and CCSID of the header.
The put is in the caller's unit of work by default (MQPMO_SYNCPOINT), with MQPMO_SET_ALL_CONTEXT so the
original context travels with it.

Here too is the one lookup of the queue manager's dead-letter queue (MQCA_DEAD_LETTER_Q_NAME, DEADQ), used by
the tools (the trigger monitor, the DLQ handler, a message flow's sink) through this package.
"""

from __future__ import annotations

import os
import sys
import time

from syncpoint.mqi import MQDLH, MQMD, MQOD, MQPMO, MQMIError, blank_strip, dead_letter_message
from syncpoint.mqi import constants as C
from syncpoint.mqi import dead_letter_header as _mqi_dead_letter_header
from syncpoint.mqi.properties import Props

from ._api import QueueManager


def _program_name() -> str:
    return os.path.basename(sys.argv[0] or "python")[-28:]


def _qmgr_attrs(qm: QueueManager) -> tuple[str, int]:
    """The queue manager's DEADQ (blank-stripped, '' when none) and CCSID."""
    od = MQOD(ObjectType=C.MQOT_Q_MGR)
    h = qm.mqopen(od, C.MQOO_INQUIRE | C.MQOO_FAIL_IF_QUIESCING)
    try:
        ints, chars = qm.mqinq(h, [C.MQCA_DEAD_LETTER_Q_NAME, C.MQIA_CODED_CHAR_SET_ID])
    finally:
        qm.mqclose(h)
    return blank_strip(chars[0]), int(ints[0])


def dead_letter_queue(qm: QueueManager) -> str:
    """The queue manager's dead-letter queue (DEADQ), '' when it has none. Raises MQMIError when the queue
    manager cannot be inquired."""
    return _qmgr_attrs(qm)[0]


def dead_letter_header(
    md: MQMD,
    reason: int,
    dest_q: str,
    dest_qmgr: str,
    *,
    put_appl_type: int = C.MQAT_UNIX,
    put_appl_name: str | None = None,
    now: float | None = None,
) -> MQDLH:
    """The MQDLH for a message with descriptor ``md`` dead-lettered for ``reason``."""
    return _mqi_dead_letter_header(
        md,
        reason=reason,
        dest_q=dest_q,
        dest_qmgr=dest_qmgr,
        put_appl_type=put_appl_type,
        put_appl_name=put_appl_name if put_appl_name is not None else _program_name(),
        now=time.time() if now is None else now,
    )


# the application's dead-lettering: keywords like the engine's system_put (who, where, which unit of work), for
# another caller; the MQDLH itself is built once, by syncpoint.mqi.dead_letter_message
def dead_letter(
    qm: QueueManager,
    md: MQMD,
    data: bytes,
    reason: int,
    *,
    dest_q: str,
    dest_qmgr: str | None = None,
    syncpoint: bool = True,
    put_appl_name: str | None = None,
    put_appl_type: int = C.MQAT_UNIX,
    now: float | None = None,
    properties: Props | None = None,
) -> MQMD:
    """Put the message (``md`` + ``data``) on the queue manager's dead-letter queue with an MQDLH.

    ``reason`` is an MQRC_* or MQFB_* value; ``dest_q`` / ``dest_qmgr`` name where the message was going (the
    queue it was got from, for a message an application cannot process). In the caller's unit of work unless
    ``syncpoint=False``. Returns the descriptor as put. Raises MQMIError MQRC_UNKNOWN_OBJECT_NAME when the
    queue manager has no DEADQ, or the put's own reason when the dead-letter queue refuses the message — and
    then nothing was put. ``properties`` (a got message's ``typed_properties``) stay with the dead letter: a getter
    without a message handle finds them in an MQRFH2 after the MQDLH.
    """
    if not isinstance(reason, int) or isinstance(reason, bool):
        raise TypeError(f"reason must be an MQRC_* or MQFB_* number, not {reason!r}")
    if not dest_q.strip():
        raise MQMIError(C.MQCC_FAILED, C.MQRC_UNKNOWN_OBJECT_NAME, "dest_q must name where the message was going")
    dlq, ccsid = _qmgr_attrs(qm)
    if not dlq:
        raise MQMIError(
            C.MQCC_FAILED,
            C.MQRC_UNKNOWN_OBJECT_NAME,
            f"queue manager {qm.name} has no dead-letter queue (DEADQ is blank): define one and ALTER QMGR DEADQ",
        )
    out, body = dead_letter_message(
        md,
        bytes(data),
        reason=reason,
        dest_q=dest_q.strip(),
        dest_qmgr=(dest_qmgr or qm.name).strip(),
        put_appl_type=put_appl_type,
        put_appl_name=put_appl_name if put_appl_name is not None else _program_name(),
        now=time.time() if now is None else now,
        header_ccsid=ccsid,
    )
    if out.Expiry == 0:
        out.Expiry = C.MQEI_UNLIMITED
    pmo = MQPMO(
        Options=(C.MQPMO_SYNCPOINT if syncpoint else C.MQPMO_NO_SYNCPOINT)
        | C.MQPMO_SET_ALL_CONTEXT
        | C.MQPMO_FAIL_IF_QUIESCING
    )
    od = MQOD(ObjectName=dlq.encode())
    try:
        qm.mqput1(od, out, pmo, body, properties)
    except MQMIError as e:
        if e.comp != C.MQCC_WARNING:
            raise
    return out
