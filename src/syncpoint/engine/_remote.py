"""Distributed queuing, the queue manager's side: a put to a remote queue, reply-to queue aliases, and what a
channel's message channel agents (MCAs) ask of the queue manager — delivering an arriving message, and
dead-lettering a transmission-queue message that has no valid MQXQH.

References: issue 23, items 1, 2, 5 and 6; seed 002 (note 9: the two Expiry fields; MCAs decrement Expiry for
transmission times); seed 003 (the dead-letter queue exists mostly for messages a channel could not deliver);
structures.md (MQXQH, MQDLH); constants.md (MQFB_XMIT_Q_MSG_ERROR 271, MQAT_DQM 29).

Theory of operation
-------------------
* **A put to a remote queue** (a handle ``_resolve`` gave a transmission queue and the remote names) is an
  ordinary MQPUT on the transmission queue — the same checks, the same unit of work, the same store batch —
  whose data is the MQXQH (RemoteQName, RemoteQMgrName, the application's MQMD, ReplyToQMgr filled in) followed
  by the application data. Both Expiry fields are the application's (seed 002, note 9); the get that takes it
  off the transmission queue decrements both (``_expiry.xqh_decremented``), and an expired one is discarded there
  with its expiration report sent to its ReplyToQMgr (``_reports.original_of``).
* **A reply-to queue alias**: a put whose ReplyToQMgr is blank and whose ReplyToQ names a QREMOTE gets that
  QREMOTE's RNAME and RQMNAME instead (:meth:`RemoteMixin._reply_to_alias`; looked up only while such
  definitions exist, so a put pays nothing for it otherwise).
* **A receiving MCA** calls :meth:`RemoteMixin.deliver_inbound` for each message it receives, in the channel
  connection's unit of work: the destination is resolved here as MQOPEN resolves it (a local queue, an alias, or
  — for a message passing through, multi-hop — the next transmission queue); the message is put with its
  original context, MsgId, CorrelId, Priority, Persistence and remaining Expiry; a COA report is sent when asked.
  When the destination refuses it (unknown queue 2085, unknown queue manager 2087, put inhibited 2051, full
  2053, too big 2030 …) it goes to the dead-letter queue behind an MQDLH (PutApplType MQAT_DQM, PutApplName the
  channel), or — with MQRO_DISCARD_MSG — is discarded; either way with an exception report when MQRO_EXCEPTION*
  asks. With no dead-letter queue, or one that refuses it too, the call raises: the channel backs out its batch
  and stops, and nothing is lost (IBM's rule). :meth:`RemoteMixin.deliver_batch` does this for a channel's whole
  batch in one call, resolving each destination once.
* **A sending MCA** that meets a message without a valid MQXQH on its transmission queue calls
  :meth:`RemoteMixin.dead_letter_xmit_error`: the message goes to the dead-letter queue with Reason
  MQFB_XMIT_Q_MSG_ERROR, in the channel's unit of work.

Where IBM's documentation leaves a choice: an MCA's MQDLH names PutApplType MQAT_DQM ("distributed queue manager
agent", IBM's type for an MCA; IBM defines no MQAT_CHANNEL) and the channel's name as PutApplName; the
DestQName of an MQFB_XMIT_Q_MSG_ERROR dead letter is the transmission queue it was on; a message whose embedded
Expiry ran out in transit is discarded at the receiver with its expiration report.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from syncpoint.mqi import MQMD, MQMIError, blank_strip
from syncpoint.mqi import constants as C
from syncpoint.mqi.objects import QREMOTE

from ._effects import INBOUND
from ._reports import ReportsMixin, report_wanted
from ._state import Connection, Target, UnitOfWork
from ._util import fail, padded
from .remote import XmitMessage, parse_xmit_message, xqh_bytes

Outcome = Literal["delivered", "forwarded", "dead-lettered", "discarded", "held"]
DELIVERED: Outcome = "delivered"  # put on its destination queue here
FORWARDED: Outcome = "forwarded"  # put on the next transmission queue (a queue manager further on)
DEAD_LETTERED: Outcome = "dead-lettered"  # put on the dead-letter queue behind an MQDLH
DISCARDED: Outcome = "discarded"  # dropped, as its MQRO_DISCARD_MSG (or its expiry) asked
HELD: Outcome = "held"  # not put: the destination refused it for a reason the channel retries (MRRTY)


@dataclass(frozen=True, slots=True)
class Delivery:
    """What :meth:`RemoteMixin.deliver_inbound` did with one message."""

    outcome: Outcome
    queue: str  # the local queue it went to (destination, transmission queue or DLQ); "" when discarded
    reason: int  # MQRC_NONE when delivered or forwarded, else why not (an MQRC_*, or MQFB_XMIT_Q_MSG_ERROR)


class RemoteMixin(ReportsMixin):
    """Puts to remote queues, reply-to queue aliases, and the MCAs' calls (see the module doc)."""

    remote_definitions: int  # how many QREMOTE definitions exist (0: a put never looks for a reply-to alias)

    def count_remote_definitions(self) -> None:
        """Recount the QREMOTE definitions (after a DEFINE, a DELETE, the load)."""
        self.remote_definitions = sum(1 for d in self.definitions.values() if d.otype == QREMOTE)

    # -- MQPUT ----------------------------------------------------------------------------------------
    def _reply_to_alias(self, out: MQMD) -> bool:
        """A blank ReplyToQMgr and a ReplyToQ naming a reply-to queue alias: both replaced by the alias's RNAME
        and RQMNAME (IBM's reply-to queue alias). True when replaced."""
        found = self.reply_to_alias(blank_strip(out.ReplyToQ))
        if found is None:
            return False
        out.ReplyToQ = padded(found[0], 48)
        out.ReplyToQMgr = padded(found[1], 48)
        return True

    def _xmit_stored(
        self, stored: dict[str, Any], remote: tuple[bytes, bytes], data: bytes
    ) -> tuple[dict[str, Any], bytes]:
        """A put to a remote queue: the transmission-queue message's descriptor (the application's with Format
        MQXMIT, the native Encoding and this queue manager's CCSID, which describe the MQXQH) and its data
        (the MQXQH, embedding the application's MQMD, and the application data)."""
        app = MQMD.__new__(MQMD)
        app.__dict__.update(stored)
        outer = dict(stored)
        outer["Format"] = C.MQFMT_XMIT_Q_HEADER
        outer["Encoding"] = C.MQENC_NATIVE
        outer["CodedCharSetId"] = self.qmgr.attrs["CCSID"]
        return outer, xqh_bytes(remote[0], remote[1], app) + bytes(data)

    # -- the receiving MCA ----------------------------------------------------------------------------
    def deliver_inbound(
        self,
        conn: Connection,
        md: MQMD,
        data: bytes,
        *,
        channel: str = "",
        syncpoint: bool = True,
        hold: frozenset[int] = frozenset(),
        putaut: int = C.MQPA_DEFAULT,
        mcauser: str = "",
    ) -> Delivery:
        """A receiving channel delivers one message it received: ``md`` and ``data`` as the sending channel got
        them from its transmission queue (Format MQXMIT, MQXQH + application data). Inside ``conn``'s unit of
        work unless ``syncpoint`` is False (non-persistent messages on an NPMSPEED(FAST) channel). Raises
        MQMIError when neither the destination nor the dead-letter queue takes the message: the channel then
        backs out and stops (nothing of this message is left in the unit of work). A destination that refuses it
        with a reason in ``hold`` (the channel's message retry: MRRTY/MRTMR) leaves it undelivered: HELD."""
        self._check_conn(conn)
        who = (putaut, mcauser or conn.user)
        return self._deliver(md, data, self._uow(conn) if syncpoint else None, channel, None, hold, who)

    def deliver_batch(
        self,
        conn: Connection,
        msgs: Sequence[bytes],
        *,
        channel: str = "",
        hold: frozenset[int] = frozenset(),
        putaut: int = C.MQPA_DEFAULT,
        mcauser: str = "",
    ) -> list[Delivery]:
        """A receiving channel delivers a whole batch: each message (MQXQH + application data, as the sending
        channel got it from its transmission queue) as :meth:`deliver_inbound` delivers one, all in ``conn``'s
        unit of work, in one call; each destination is resolved once per batch. Raises as deliver_inbound does
        (the channel then backs the batch out). Ends at the first message HELD (``hold``, as deliver_inbound):
        the list then ends with that delivery, and the channel backs the batch out to try it again. Each put
        needs put authority on its destination (``_authority``): of ``mcauser`` (else the connection's user) with
        PUTAUT(DEF), of the message's UserIdentifier with PUTAUT(CTX); a message refused is dead-lettered with
        MQRC_NOT_AUTHORIZED, as IBM's MCA does."""
        self._check_conn(conn)
        who = (putaut, mcauser or conn.user)
        uow = self._uow(conn)
        md = MQMD(Format=C.MQFMT_XMIT_Q_HEADER)  # the outer descriptor, which the channel does not carry
        targets: dict[tuple[str, str], Target] = {}
        out: list[Delivery] = []
        for raw in msgs:
            d = self._deliver(md, raw, uow, channel, targets, hold, who)
            out.append(d)
            if d.outcome == HELD:
                break
        return out

    def _deliver(
        self,
        md: MQMD,
        data: bytes,
        uow: UnitOfWork | None,
        channel: str,
        targets: dict[tuple[str, str], Target] | None,
        hold: frozenset[int] = frozenset(),
        who: tuple[int, str] = (C.MQPA_DEFAULT, ""),
    ) -> Delivery:
        x = parse_xmit_message(md, data)
        if x is None:
            return self._xmit_error(md.copy(), data, "", uow, channel)
        app = x.md
        if app.Expiry == 0:  # its embedded Expiry ran out on the way (seed 002, note 9): discarded here
            keep = report_wanted(app.Report, C.MQFB_EXPIRATION)
            if keep >= 0:
                self.send_report(app, x.payload, C.MQFB_EXPIRATION, keep, uow)
            self.expired_discarded += 1
            return Delivery(DISCARDED, "", C.MQRC_NONE)
        key = (x.remote_q, x.remote_qmgr)
        t = targets.get(key) if targets is not None else None
        if t is None:
            try:
                t = self._resolve_target(x.remote_q, x.remote_qmgr)
            except MQMIError as e:
                return self._undeliverable(x, e.reason, uow, channel)
            if targets is not None:
                targets[key] = t
        if not self._may_deliver(who, app, t):
            return self._undeliverable(x, C.MQRC_NOT_AUTHORIZED, uow, channel)
        reason = self._place(t, app, x.payload, uow, INBOUND)
        if reason in hold:
            return Delivery(HELD, t.queue.name, reason)
        if reason != C.MQRC_NONE:
            return self._undeliverable(x, reason, uow, channel)
        if t.remote is not None:
            return Delivery(FORWARDED, t.queue.name, C.MQRC_NONE)
        keep = report_wanted(app.Report, C.MQFB_COA)
        if keep >= 0:
            self.send_report(app, x.payload, C.MQFB_COA, keep, uow)
        return Delivery(DELIVERED, t.queue.name, C.MQRC_NONE)

    def _undeliverable(self, x: XmitMessage, reason: int, uow: UnitOfWork | None, channel: str) -> Delivery:
        """The destination refused the message: discard it (MQRO_DISCARD_MSG) or dead-letter it; then the
        exception report it asked for. No dead-letter queue, or one that refuses: raise (the channel stops)."""
        app = x.md
        if app.Report & C.MQRO_DISCARD_MSG:
            self._exception_report(app, x.payload, reason, uow)
            return Delivery(DISCARDED, "", reason)
        r = self.dead_letter_message(
            app,
            x.payload,
            reason,
            x.remote_q,
            x.remote_qmgr,
            uow=uow,
            appl_type=C.MQAT_DQM,
            appl_name=channel,
        )
        if r != C.MQRC_NONE:
            raise fail(
                reason,
                f"message for {x.remote_q} at {x.remote_qmgr} cannot be delivered (reason {reason}) and the "
                f"dead-letter queue did not take it (reason {r}): the channel must stop",
            )
        self._exception_report(app, x.payload, reason, uow)
        return Delivery(DEAD_LETTERED, self.qm_attr("DEADQ"), reason)

    def _exception_report(self, app: MQMD, payload: bytes, reason: int, uow: UnitOfWork | None) -> None:
        """MQRO_EXCEPTION*: a report whose Feedback is the reason the message could not be delivered."""
        keep = report_wanted(app.Report, reason)
        if keep >= 0:
            self.send_report(app, payload, reason, keep, uow)

    # -- the sending MCA ------------------------------------------------------------------------------
    def dead_letter_xmit_error(self, conn: Connection, md: MQMD, data: bytes, xmitq: str, channel: str = "") -> None:
        """A message on transmission queue ``xmitq`` without a valid MQXQH: to the dead-letter queue with Reason
        MQFB_XMIT_Q_MSG_ERROR, in ``conn``'s unit of work (with the get that took it). Raises MQMIError when the
        dead-letter queue does not take it (the channel stops; its backout leaves the message where it was)."""
        self._check_conn(conn)
        self._xmit_error(md, data, xmitq, self._uow(conn), channel)

    def _xmit_error(self, md: MQMD, data: bytes, xmitq: str, uow: UnitOfWork | None, channel: str) -> Delivery:
        reason = C.MQFB_XMIT_Q_MSG_ERROR
        r = self.dead_letter_message(
            md, data, reason, xmitq, self.name, uow=uow, appl_type=C.MQAT_DQM, appl_name=channel
        )
        if r != C.MQRC_NONE:
            raise fail(
                C.MQRC_XQH_ERROR if xmitq == "" else r,
                f"a transmission-queue message without a valid MQXQH could not be dead-lettered (reason {r})",
            )
        return Delivery(DEAD_LETTERED, self.qm_attr("DEADQ"), reason)
