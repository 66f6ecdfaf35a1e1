"""Messages the queue manager itself puts: reports, dead letters, and the one put they and trigger messages
take (:meth:`ReportsMixin.system_put`).

References: seed 002 ("A report is generated when an expired message is discarded …", notes 3, 4 and 7);
constants.md ("MQRO_* report options", "MQFB_* feedback"); dlq-handler.md ("The MQDLH on messages the queue
manager itself dead-letters"); structures.md (MQDLH); seed 001 (a trigger message is put the same way, and
condition 1 applies to a report or dead letter put on a triggered queue).

Theory of operation
-------------------
A put by the queue manager is outside any unit of work and follows the rules of an application's put to a
local queue (name resolution through an alias, PUT inhibited, MAXMSGL, MAXDEPTH, no persistent message on a
temporary dynamic queue), fills in MsgId and PutDate / PutTime when blank, and may itself trigger (condition 1).
When the destination refuses the message it goes to the dead-letter queue (DEADQ) behind an MQDLH whose Reason
says why (built by ``syncpoint.mqi.dead_letter_message``, the one MQDLH builder, which keeps the remaining
Expiry: seed 002, note 7); when that fails too it is dropped and logged. Each message put is recorded as a
:class:`~syncpoint.engine._effects.SystemPut` in the call's effects, in the same store batch as its cause (why:
``_effects``).
"""

from __future__ import annotations

import logging

from syncpoint.mqi import MQMD, blank_strip, dead_letter_message, put_date_time
from syncpoint.mqi import constants as C
from syncpoint.mqi.objects import QALIAS, QLOCAL

from ._base import QueueManagerBase
from ._effects import DEAD_LETTER, REPORT, SystemPut, SystemPutKind
from ._state import Message

_log = logging.getLogger("syncpoint.engine")
_NONE24 = b"\0" * 24


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


class ReportsMixin(QueueManagerBase):
    """Reports, dead letters, and the queue manager's own puts."""

    def _expiration_report(self, m: Message, keep: int) -> None:
        """The expiration report (MQFB_EXPIRATION) of a discarded message, to its ReplyToQ (seed 002)."""
        original = MQMD.__new__(MQMD)
        original.__dict__.update(m.md)
        dest = blank_strip(original.ReplyToQ)
        dest_qm = blank_strip(original.ReplyToQMgr) or self.name
        if not dest:
            _log.warning("expired message %s asked for a report but has no ReplyToQ", original.MsgId.hex())
            return
        md, data = report_message(original, m.data, C.MQFB_EXPIRATION, keep, self.name, self.new_msgid())
        self.system_put(dest, md, data, dest_qmgr=dest_qm, kind=REPORT)

    def system_put(
        self, qname: str, md: MQMD, data: bytes, dest_qmgr: str | None = None, kind: SystemPutKind = REPORT
    ) -> bool:
        """A put by the queue manager itself (a report, a trigger message: ``kind``), outside any unit of work.

        When the destination cannot take it, the message goes to the dead-letter queue with an MQDLH whose
        Reason says why; when that fails too it is dropped and logged. Returns True when put as addressed.
        Whatever was put is recorded in the effects (``Effects.system_puts``).
        """
        reason = self._system_put_to(qname, md, data, dest_qmgr, kind)
        if reason == C.MQRC_NONE:
            return True
        self.dead_letter_message(md, data, reason, qname, dest_qmgr or self.name)
        return False

    def dead_letter_message(self, md: MQMD, data: bytes, reason: int, dest_q: str, dest_qmgr: str) -> bool:
        """Put a message on the dead-letter queue (DEADQ) with an MQDLH, keeping its remaining expiry."""
        dlq = self.qm_attr("DEADQ")
        if not dlq:
            _log.error("no dead-letter queue: message for %s dropped (reason %d)", dest_q, reason)
            return False
        dmd, ddata = dead_letter_message(
            md,
            data,
            reason=reason,
            dest_q=dest_q,
            dest_qmgr=dest_qmgr,
            put_appl_type=C.MQAT_QMGR,
            put_appl_name=self.name,
            now=self.clock.time(),
            header_ccsid=self.qm_attr("CCSID"),
        )
        r = self._system_put_to(dlq, dmd, ddata, None, DEAD_LETTER)
        if r != C.MQRC_NONE:
            _log.error("dead-letter queue %s refused a message for %s (reason %d): dropped", dlq, dest_q, r)
            return False
        return True

    def _system_put_to(self, qname: str, md: MQMD, data: bytes, dest_qmgr: str | None, kind: SystemPutKind) -> int:
        """Put on ``qname`` if it takes the message; the reason it does not, else MQRC_NONE."""
        if dest_qmgr and dest_qmgr != self.name:
            return C.MQRC_UNKNOWN_REMOTE_Q_MGR
        d = self.definitions.get(("Q", qname))
        if d is None:
            return C.MQRC_UNKNOWN_OBJECT_NAME
        first = d.attrs
        if d.otype == QALIAS:
            base = self.definitions.get(("Q", d.attrs["TARGET"]))
            if base is None or base.otype != QLOCAL:
                return C.MQRC_UNKNOWN_ALIAS_BASE_Q
            d = base
        elif d.otype != QLOCAL:
            return C.MQRC_Q_TYPE_ERROR
        q = self.queues[d.name]
        if first["PUT"] == C.MQQA_PUT_INHIBITED or q.attrs["PUT"] == C.MQQA_PUT_INHIBITED:
            return C.MQRC_PUT_INHIBITED
        if len(data) > q.attrs["MAXMSGL"]:
            return C.MQRC_MSG_TOO_BIG_FOR_Q
        if q.depth >= q.attrs["MAXDEPTH"]:
            return C.MQRC_Q_FULL
        now = self.clock.time()
        out = md.copy()
        out.Version = 2
        if out.Priority < 0:
            out.Priority = first["DEFPRTY"]
        if out.Persistence == C.MQPER_PERSISTENCE_AS_Q_DEF:
            out.Persistence = first["DEFPSIST"]
        if q.fifo:
            out.Priority = q.attrs["DEFPRTY"]
        if out.Persistence == C.MQPER_PERSISTENT and q.definition.dynamic == C.MQQDT_TEMPORARY_DYNAMIC:
            return C.MQRC_PERSISTENT_NOT_ALLOWED
        if out.MsgId == _NONE24:
            out.MsgId = self.new_msgid()
        if not out.PutDate.strip():
            out.PutDate, out.PutTime = put_date_time(now)
        out.BackoutCount = 0
        seq = self._seq
        self._seq = seq + 1
        m = Message(
            seq,
            q,
            min(max(out.Priority, 0), 9),
            out.Persistence == C.MQPER_PERSISTENT,
            dict(out.normalize().__dict__),
            bytes(data),
            out.MsgId,
            out.CorrelId,
            out.GroupId,
            out.MsgSeqNumber,
            out.Expiry,
            now,
        )
        q.depth += 1
        q.last_put = now
        self._make_visible(m)
        self._system_puts.append(SystemPut(kind, q.name, out, m.data))
        self.on_system_put(m)
        return C.MQRC_NONE

    def on_system_put(self, m: Message) -> None:
        """Triggering: a message the queue manager put (report, dead letter) became available (condition 1)."""
        if m.queue.attrs["TRIGGER"] == C.MQTC_ON:
            self.triggering.message_put(m, None)
