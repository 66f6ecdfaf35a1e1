"""Messages the queue manager itself puts: reports, dead letters, and the one put they, trigger messages and a
receiving channel's deliveries take (:meth:`ReportsMixin._place`).

References: seed 002 ("A report is generated when an expired message is discarded …", notes 3, 4 and 7);
constants.md ("MQRO_* report options", "MQFB_* feedback"); dlq-handler.md ("The MQDLH on messages the queue
manager itself dead-letters"); structures.md (MQDLH); seed 001 (a trigger message is put the same way, and
condition 1 applies to a report or dead letter put on a triggered queue); issue 23, item 6 (the report kinds).

Theory of operation
-------------------
A put by the queue manager follows the rules of an application's put (name resolution — an alias, a remote
queue, a queue manager reached through a transmission queue: ``_resolve`` —, PUT inhibited, MAXMSGL, MAXDEPTH,
no persistent message on a temporary dynamic queue), keeps the context it is given, fills in MsgId and PutDate /
PutTime when blank, and may itself trigger (condition 1). It is outside any unit of work unless one is given: a
report caused by a put or get in syncpoint (COA, COD) is put in the same unit of work, so it exists only if that
unit of work commits. When the destination refuses the message it goes to the dead-letter queue (DEADQ) behind
an MQDLH whose Reason says why (built by ``syncpoint.mqi.dead_letter_message``, the one MQDLH builder, which
keeps the remaining Expiry: seed 002, note 7); when that fails too it is dropped and logged. Each message put is
recorded as a :class:`~syncpoint.engine._effects.SystemPut` in the call's effects, in the same store batch as its
cause (why: ``_effects``).

Reports, as IBM generates them (:func:`report_message`): MsgType MQMT_REPORT; Feedback MQFB_COA (the message
reached its destination queue: at the put here, or at a channel's delivery), MQFB_COD (an application got it,
destructively), MQFB_EXPIRATION (discarded because it expired: ``_expiry``) or, for an exception report, the
reason it could not be delivered; the message data as each option's _DATA (the first 100 bytes) or
_WITH_FULL_DATA variant asks, else none; MsgId new (MQRO_NEW_MSG_ID) or the original's (MQRO_PASS_MSG_ID);
CorrelId the original's MsgId (MQRO_COPY_MSG_ID_TO_CORREL_ID) or its CorrelId (MQRO_PASS_CORREL_ID); Report
MQRO_NONE and Expiry unlimited, or — with MQRO_PASS_DISCARD_AND_EXPIRY — the original's MQRO_DISCARD_MSG and
remaining Expiry; Priority and Persistence the original's; identity context the original's, origin context the
queue manager's; sent to the original's ReplyToQ at its ReplyToQMgr, through name resolution, so a report about
a message from another queue manager goes back over a transmission queue.

Properties: IBM copies into a report every property of the original whose MQPD CopyOptions include
MQCOPY_REPORT, which MQCOPY_DEFAULT (FORWARD + REPORT + PUBLISH, the options of every property set without an
MQPD of its own, as syncpoint's are) does (IBM's "CopyOptions (MQLONG)" of MQPD). So a report carries the
original's properties (:func:`report_props`): those it keeps beside its data, and those of an MQRFH2 at the start
of its data (how a message that came over a channel carries them) unless the report's data holds that whole
header already. A report put at another queue manager carries them in an MQRFH2 as any message does.
"""

from __future__ import annotations

import logging

from syncpoint.mqi import MQMD, MQMIError, blank_strip, dead_letter_message, put_date_time
from syncpoint.mqi import constants as C
from syncpoint.mqi.properties import Props

from ._base import QueueManagerBase
from ._effects import DEAD_LETTER, REPORT, SystemPut, SystemPutKind
from ._properties import header_props, travelling
from ._state import PUT_PENDING, Message, Target, UnitOfWork
from .remote import XQH_LENGTH, parse_xmit_message, xqh_bytes

_log = logging.getLogger("syncpoint.engine")
_NONE24 = b"\0" * 24


_REPORT_DATA_LIMIT = 100  # MQRO_*_WITH_DATA: the first 100 bytes of the message data
_ALL = 1 << 31
# report kind -> (the option, its _WITH_DATA form, its _WITH_FULL_DATA form)
_OPTIONS = {
    C.MQFB_COA: (C.MQRO_COA, C.MQRO_COA_WITH_DATA, C.MQRO_COA_WITH_FULL_DATA),
    C.MQFB_COD: (C.MQRO_COD, C.MQRO_COD_WITH_DATA, C.MQRO_COD_WITH_FULL_DATA),
    C.MQFB_EXPIRATION: (C.MQRO_EXPIRATION, C.MQRO_EXPIRATION_WITH_DATA, C.MQRO_EXPIRATION_WITH_FULL_DATA),
}
_EXCEPTION = (C.MQRO_EXCEPTION, C.MQRO_EXCEPTION_WITH_DATA, C.MQRO_EXCEPTION_WITH_FULL_DATA)


def report_wanted(report: int, feedback: int) -> int:
    """How much of the message data a report with ``feedback`` carries, by the original's Report options: -1 for
    no report, else 0, 100 or all (as a length). A feedback other than COA, COD and EXPIRATION is an exception."""
    base, with_data, full = _OPTIONS.get(feedback, _EXCEPTION)
    if report & full == full:
        return _ALL
    if report & with_data == with_data:
        return _REPORT_DATA_LIMIT
    if report & base:
        return 0
    return -1


def report_message(
    original: MQMD, data: bytes, feedback: int, keep: int, qmgr_name: str, msgid: bytes
) -> tuple[MQMD, bytes]:
    """A report (MQMT_REPORT) about ``original`` with ``feedback``, carrying the first ``keep`` bytes of data
    (the module doc lists its fields; ``original.Expiry`` is taken as the remaining expiry)."""
    r = original.Report
    md = MQMD()
    md.MsgType = C.MQMT_REPORT
    md.Feedback = feedback
    md.Expiry = C.MQEI_UNLIMITED
    if r & C.MQRO_PASS_DISCARD_AND_EXPIRY:
        md.Report = r & C.MQRO_DISCARD_MSG
        if original.Expiry > 0:
            md.Expiry = original.Expiry
    else:
        md.Report = C.MQRO_NONE
    md.MsgId = original.MsgId if r & C.MQRO_PASS_MSG_ID else msgid
    md.CorrelId = original.CorrelId if r & C.MQRO_PASS_CORREL_ID else original.MsgId
    md.Priority = original.Priority
    md.Persistence = original.Persistence
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


def report_props(original: MQMD, data: bytes, keep: int, props: Props | None) -> Props | None:
    """The properties a report about ``original`` carries (module doc): ``props`` (those the message keeps beside
    its data) and those of an MQRFH2 at the start of ``data``, unless the report's first ``keep`` bytes of data
    hold that whole header; None for none."""
    found, length = header_props(original.__dict__, data)
    if found and (keep <= 0 or keep < length):
        merged = dict(found)
        if props:
            merged.update(props)
        return merged
    return dict(props) if props else None


def original_of(m: Message, now: float | None = None) -> tuple[MQMD, bytes]:
    """The application's MQMD and data of a message — behind its MQXQH when it waits on a transmission queue —
    with Expiry the remaining one at ``now`` (when given)."""
    md = MQMD.__new__(MQMD)
    md.__dict__.update(m.md)
    if now is not None and m.expiry != C.MQEI_UNLIMITED:
        md.Expiry = max(m.remaining_expiry(now), 0)
    if md.Format == C.MQFMT_XMIT_Q_HEADER:
        x = parse_xmit_message(md, m.data)
        if x is not None:
            if now is not None and md.Expiry != C.MQEI_UNLIMITED:
                x.md.Expiry = md.Expiry
            return x.md, x.payload
    return md, m.data


class ReportsMixin(QueueManagerBase):
    """Reports, dead letters, and the queue manager's own puts."""

    def _expiration_report(self, m: Message, keep: int) -> None:
        """The expiration report (MQFB_EXPIRATION) of a discarded message, to its ReplyToQ (seed 002) — at its
        ReplyToQMgr, so from a transmission queue it goes back towards the queue manager that sent it."""
        original, data = original_of(m)
        self.send_report(original, data, C.MQFB_EXPIRATION, keep, None, m.props)

    def _confirm_on_arrival(self, m: Message, uow: UnitOfWork | None) -> None:
        """MQRO_COA*: the message ``m`` reached its destination queue (in ``uow`` when its put was)."""
        if m.md["Format"] == C.MQFMT_XMIT_Q_HEADER:
            return  # a put straight onto a transmission queue: the destination queue manager confirms arrival
        self._report_on(m, C.MQFB_COA, uow)

    def _confirm_on_delivery(self, m: Message, uow: UnitOfWork | None) -> None:
        """MQRO_COD*: an application got ``m`` destructively (in ``uow`` when its get was)."""
        if m.md["Format"] == C.MQFMT_XMIT_Q_HEADER:
            return  # a channel taking it off a transmission queue is not its delivery
        self._report_on(m, C.MQFB_COD, uow)

    def _report_on(self, m: Message, feedback: int, uow: UnitOfWork | None) -> None:
        keep = report_wanted(m.md["Report"], feedback)
        if keep >= 0:
            original, data = original_of(m, self.clock.time())
            self.send_report(original, data, feedback, keep, uow, m.props)

    def send_report(
        self, original: MQMD, data: bytes, feedback: int, keep: int, uow: UnitOfWork | None, props: Props | None = None
    ) -> None:
        """Send a report about ``original`` to its ReplyToQ at its ReplyToQMgr (in ``uow`` when given), carrying the
        original's properties (``props``, those it keeps beside its data; :func:`report_props`)."""
        dest = blank_strip(original.ReplyToQ)
        dest_qm = blank_strip(original.ReplyToQMgr) or self.name
        if not dest:
            _log.warning("message %s asked for a report but has no ReplyToQ", original.MsgId.hex())
            return
        md, rdata = report_message(original, data, feedback, keep, self.name, self.new_msgid())
        self.system_put(
            dest, md, rdata, dest_qmgr=dest_qm, kind=REPORT, uow=uow, props=report_props(original, data, keep, props)
        )

    # declared in _base.QueueManagerBase for the other parts (the same signature there: mypy checks they agree)
    def system_put(
        self,
        qname: str,
        md: MQMD,
        data: bytes,
        dest_qmgr: str | None = None,
        kind: SystemPutKind = REPORT,
        uow: UnitOfWork | None = None,
        props: Props | None = None,
    ) -> bool:
        """A put by the queue manager itself (a report, a trigger message: ``kind``), outside any unit of work
        unless ``uow`` is given; ``props``: the message's properties (a report's).

        When the destination cannot take it, the message goes to the dead-letter queue with an MQDLH whose
        Reason says why; when that fails too it is dropped and logged. Returns True when put as addressed.
        Whatever was put is recorded in the effects (``Effects.system_puts``).
        """
        reason = self._system_put_to(qname, md, data, dest_qmgr, kind, uow, props)
        if reason == C.MQRC_NONE:
            return True
        self.dead_letter_message(md, data, reason, qname, dest_qmgr or self.name, uow=uow)
        return False

    def dead_letter_message(
        self,
        md: MQMD,
        data: bytes,
        reason: int,
        dest_q: str,
        dest_qmgr: str,
        uow: UnitOfWork | None = None,
        appl_type: int = C.MQAT_QMGR,
        appl_name: str = "",
    ) -> int:
        """Put a message on the dead-letter queue (DEADQ) with an MQDLH, keeping its remaining expiry; who puts
        it is the queue manager unless ``appl_type`` / ``appl_name`` say otherwise (a channel). Returns
        MQRC_NONE, or why the dead-letter queue did not take it (the message is then dropped and logged here;
        a caller that must not lose it acts on the reason)."""
        dlq = self.qm_attr("DEADQ")
        if not dlq:
            _log.error("no dead-letter queue: message for %s dropped (reason %d)", dest_q, reason)
            return C.MQRC_UNKNOWN_OBJECT_NAME
        dmd, ddata = dead_letter_message(
            md,
            data,
            reason=reason,
            dest_q=dest_q,
            dest_qmgr=dest_qmgr,
            put_appl_type=appl_type,
            put_appl_name=appl_name or self.name,
            now=self.clock.time(),
            header_ccsid=self.qm_attr("CCSID"),
        )
        r = self._system_put_to(dlq, dmd, ddata, None, DEAD_LETTER, uow)
        if r != C.MQRC_NONE:
            _log.error("dead-letter queue %s refused a message for %s (reason %d): dropped", dlq, dest_q, r)
        return r

    def _system_put_to(
        self,
        qname: str,
        md: MQMD,
        data: bytes,
        dest_qmgr: str | None,
        kind: SystemPutKind,
        uow: UnitOfWork | None = None,
        props: Props | None = None,
    ) -> int:
        """Put on ``qname`` (at ``dest_qmgr``) if it takes the message; the reason it does not, else MQRC_NONE."""
        try:
            t = self._resolve_target(qname, dest_qmgr or "")
        except MQMIError as e:
            return e.reason
        return self._place(t, md, data, uow, kind, props)

    def _place(
        self,
        t: Target,
        md: MQMD,
        data: bytes,
        uow: UnitOfWork | None,
        kind: SystemPutKind,
        props: Props | None = None,
    ) -> int:
        """Put a message whose MQMD is complete (context and all) on a resolved target: the queue manager's own
        puts and a channel's deliveries. MQRC_NONE, or the reason the queue refused it (nothing changed).
        ``props``: its properties, kept beside its data (in an MQRFH2 in front of it towards another queue
        manager, as ``_properties.travelling`` puts them)."""
        q = t.queue
        qattrs = q.attrs
        first = t.first.attrs if t.first is not None else qattrs
        if first["PUT"] == C.MQQA_PUT_INHIBITED or qattrs["PUT"] == C.MQQA_PUT_INHIBITED:
            return C.MQRC_PUT_INHIBITED
        remote = t.remote
        if len(data) + (XQH_LENGTH if remote is not None else 0) > qattrs["MAXMSGL"]:
            return C.MQRC_MSG_TOO_BIG_FOR_Q
        if q.depth >= qattrs["MAXDEPTH"]:
            return C.MQRC_Q_FULL
        now = self.clock.time()
        out = md.copy()
        out.Version = 2
        if out.Priority < 0:
            out.Priority = first["DEFPRTY"]
        if out.Persistence == C.MQPER_PERSISTENCE_AS_Q_DEF:
            out.Persistence = first["DEFPSIST"]
        if q.fifo:
            out.Priority = qattrs["DEFPRTY"]
        if out.Persistence == C.MQPER_PERSISTENT and q.definition.dynamic == C.MQQDT_TEMPORARY_DYNAMIC:
            return C.MQRC_PERSISTENT_NOT_ALLOWED
        if out.MsgId == _NONE24:
            out.MsgId = self.new_msgid()
        if not out.PutDate.strip():
            out.PutDate, out.PutTime = put_date_time(now)
        out.BackoutCount = 0
        if remote is not None:  # behind an MQXQH on a transmission queue (seed 002, note 9: both Expiry fields)
            if props:
                fields = dict(out.__dict__)
                if fields["CodedCharSetId"] == C.MQCCSI_Q_MGR:  # the header says what its data is in: a real CCSID
                    fields["CodedCharSetId"] = self.qmgr.attrs["CCSID"]
                fields, data = travelling(fields, data, props)
                out = MQMD.__new__(MQMD)
                out.__dict__.update(fields)
                props = None
            app = out
            out = app.copy()
            out.Format = C.MQFMT_XMIT_Q_HEADER
            out.Encoding = C.MQENC_NATIVE
            out.CodedCharSetId = self.qmgr.attrs["CCSID"]
            data = xqh_bytes(remote[0], remote[1], app) + bytes(data)
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
        if props:
            m.props = props
        if q.shared:  # a queue-sharing group's shared queue: the message goes to the group's store (``_shared``)
            try:
                self._shared_place(q, m, uow)
            except MQMIError as e:
                return e.reason
            self._system_puts.append(SystemPut(kind, q.name, out, m.data))
            return C.MQRC_NONE
        q.depth += 1
        q.last_put = now
        c = q.counts
        c.puts += 1
        if q.depth > c.hi_depth:
            c.hi_depth = q.depth
        if uow is None:
            self._make_visible(m)
            self._system_puts.append(SystemPut(kind, q.name, out, m.data))
            self.on_system_put(m)
        else:
            uow.puts.append(m)
            m.state = PUT_PENDING
            q.uncommitted += 1
            self._system_puts.append(SystemPut(kind, q.name, out, m.data))
            if qattrs["TRIGGER"] == C.MQTC_ON:
                self.triggering.message_put(m, uow)
        return C.MQRC_NONE

    def on_system_put(self, m: Message) -> None:
        """Triggering: a message the queue manager put (report, dead letter) became available (condition 1)."""
        if m.queue.attrs["TRIGGER"] == C.MQTC_ON:
            self.triggering.message_put(m, None)
