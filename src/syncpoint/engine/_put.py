"""Putting messages: MQPUT and MQPUT1.

References: constants.md ("MQPMO_* put-message options", MQMT / MQPER / MQPRI / MQEI values, the MQRC_* of
MQPUT); structures.md (MQMD version 2, MQPMO version 3); seed 001, conditions 1 and 14 (a put is the event
that may trigger; MSGDLVSQ(FIFO) gives a message the queue's default priority); seed 002, notes 1 and 9
(the Expiry a put may give, and the MQXQH's own Expiry: ``_expiry.check_xqh_expiry``).

Theory of operation
-------------------
Every check runs before the first change, so a failing put changes nothing. Then the put writes its output
fields into the caller's MQMD (MsgId, CorrelId, the context, CCSID and ReplyToQMgr as the queue manager fills
them) and the MQPMO (ResolvedQName), keeps a copy of the MQMD as the message's descriptor, and either makes the
message available (outside syncpoint: ``_effects.EffectsRecorder._make_visible``) or holds it in the
connection's unit of work. A queue with TRIGGER on tells the triggering rules (seed 001).

This is a hot path (issues 2 and 9: per-message CPU). The rare options (context, unknown bits, both syncpoint
options) are checked only when given (``_options``); the default context comes from a per-connection template;
only the MQMD character fields the application could have set are normalised; names from
``syncpoint.mqi.constants`` are imported one by one so the common tests need no attribute lookup.
"""

from __future__ import annotations

from typing import Any

from syncpoint.mqi import MQMD, MQOD, MQPMO, blank_strip, put_date_time
from syncpoint.mqi import constants as C
from syncpoint.mqi.constants import (  # the ones MQPUT tests on every call, without the C. lookup
    MQCCSI_Q_MGR,
    MQEI_UNLIMITED,
    MQFMT_RF_HEADER_2,
    MQFMT_XMIT_Q_HEADER,
    MQMT_REQUEST,
    MQPER_NOT_PERSISTENT,
    MQPER_PERSISTENCE_AS_Q_DEF,
    MQPER_PERSISTENT,
    MQPMO_NEW_CORREL_ID,
    MQPMO_NEW_MSG_ID,
    MQPMO_SYNCPOINT,
    MQPRI_PRIORITY_AS_Q_DEF,
    MQQA_PUT_INHIBITED,
    MQRC_NONE,
    MQRO_COA,
    MQTC_ON,
)
from syncpoint.mqi.properties import Props, props_length

from ._base import QueueManagerBase
from ._expiry import check_xqh_expiry
from ._options import BOTH_PUT_SYNC, CONTEXT_PUT_OPTS, RARE_PUT_OPTS, check_put_options
from ._properties import check_put_rfh2, travelling
from ._state import PUT_PENDING, Connection, Handle, Message
from ._util import fail
from .remote import XQH_LENGTH

_NONE24 = b"\0" * 24
# the report options that ask for a report message (MQRC_MISSING_REPLY_TO_Q without a ReplyToQ)
REPORTS_ASKED = (
    C.MQRO_EXCEPTION | C.MQRO_EXPIRATION | C.MQRO_COA | C.MQRO_COD | C.MQRO_PAN | C.MQRO_NAN | C.MQRO_ACTIVITY
)
_PLAIN_MSG_TYPES = (C.MQMT_REQUEST, C.MQMT_REPLY, C.MQMT_REPORT, C.MQMT_DATAGRAM)
# the MQMD's character fields as (name, length); those a put with the default context leaves to the application
_ALL_CHAR_FIELDS = tuple(MQMD._char_lengths.items())
_CONTEXT_SET_BY_PUT = frozenset(
    {"UserIdentifier", "AccountingToken", "ApplIdentityData", "PutApplName", "PutDate", "PutTime", "ApplOriginData"}
)
_APPL_CHAR_FIELDS = tuple((f, n) for f, n in _ALL_CHAR_FIELDS if f not in _CONTEXT_SET_BY_PUT)
CONTEXT_IDENTITY = ("UserIdentifier", "AccountingToken", "ApplIdentityData")
CONTEXT_ORIGIN = ("PutApplType", "PutApplName", "PutDate", "PutTime", "ApplOriginData")


class PutMixin(QueueManagerBase):
    """MQPUT, MQPUT1."""

    def put(
        self, conn: Connection, hobj: Handle | int, md: MQMD, pmo: MQPMO, data: bytes, props: Props | None = None
    ) -> int:
        """MQPUT. Returns MQRC_NONE or a warning reason; raises MQMIError on failure. ``props``: the message's
        properties (those of the MQPMO's OriginalMsgHandle, checked by ``mqi.properties``), None for none."""
        h = self._handle(conn, hobj)
        if not h.options & C.MQOO_OUTPUT:
            raise fail(C.MQRC_NOT_OPEN_FOR_OUTPUT, f"queue {h.name} is not open for output")
        return self._put(conn, h, md, pmo, data, props)

    def put1(self, conn: Connection, od: MQOD, md: MQMD, pmo: MQPMO, data: bytes, props: Props | None = None) -> int:
        """MQPUT1: open for output, put, close — as one call that fails as a whole."""
        self._check_conn(conn)
        opts = C.MQOO_OUTPUT
        ctx = pmo.Options & CONTEXT_PUT_OPTS
        if ctx & C.MQPMO_SET_ALL_CONTEXT:
            opts |= C.MQOO_SET_ALL_CONTEXT
        elif ctx & C.MQPMO_SET_IDENTITY_CONTEXT:
            opts |= C.MQOO_SET_IDENTITY_CONTEXT
        elif ctx & C.MQPMO_PASS_ALL_CONTEXT:
            opts |= C.MQOO_PASS_ALL_CONTEXT
        elif ctx & C.MQPMO_PASS_IDENTITY_CONTEXT:
            opts |= C.MQOO_PASS_IDENTITY_CONTEXT
        mon = self._put1_active = self.monitoring_on  # statistics count it as a put1 (``_statistics``)
        try:
            h = self.open(conn, od, opts)
            try:
                return self._put(conn, h, md, pmo, data, props)
            finally:
                self._close(h, C.MQCO_NONE, implicit=True)
        finally:
            if mon:
                self._put1_active = False

    def _put(self, conn: Connection, h: Handle, md: MQMD, pmo: MQPMO, data: bytes, props: Props | None = None) -> int:
        if md.StrucId != b"MD  " or md.Version not in (1, 2):
            raise fail(C.MQRC_MD_ERROR, "the message descriptor is not a valid MQMD")
        if pmo.StrucId != b"PMO " or pmo.Version not in (1, 2, 3):
            raise fail(C.MQRC_PMO_ERROR, "the put-message options are not a valid MQPMO")
        q = h.queue
        if q is None:
            return self._publish(conn, h, md, pmo, data, props)  # a topic handle (``_pubsub``)
        opts = pmo.Options
        ctx = opts & CONTEXT_PUT_OPTS
        source: dict[str, Any] | None = None
        if opts & RARE_PUT_OPTS or opts & BOTH_PUT_SYNC == BOTH_PUT_SYNC:
            source = check_put_options(conn, h, pmo, opts, ctx, self.quiescing, self.name)
        elif self.quiescing and opts & C.MQPMO_FAIL_IF_QUIESCING:
            raise fail(C.MQRC_Q_MGR_QUIESCING, f"queue manager {self.name} is ending")
        # the message itself
        length = len(data)
        if props is not None:
            length += props_length(props)  # properties count in the message's length, as IBM counts them
        if length > self.qmgr.attrs["QMMAXMSGL"]:
            raise fail(C.MQRC_MSG_TOO_BIG_FOR_Q_MGR, f"{length} bytes exceed the queue manager's MAXMSGL")
        qattrs = q.attrs
        remote = h.remote  # a queue at another queue manager: ``q`` is the transmission queue (``_resolve``)
        if remote is not None:
            length += XQH_LENGTH  # the transmission queue holds the MQXQH too
        if length > qattrs["MAXMSGL"]:
            raise fail(C.MQRC_MSG_TOO_BIG_FOR_Q, f"{length} bytes exceed MAXMSGL of queue {q.name}")
        first = h.alias.attrs if h.alias is not None else qattrs
        prio = md.Priority
        reason = MQRC_NONE
        if prio == MQPRI_PRIORITY_AS_Q_DEF:
            prio = first["DEFPRTY"]
        elif prio < 0:
            raise fail(C.MQRC_PRIORITY_ERROR, f"Priority {prio} is not valid")
        elif prio > 9:
            prio = 9
            reason = C.MQRC_PRIORITY_EXCEEDS_MAXIMUM
        pers = md.Persistence
        if pers == MQPER_PERSISTENCE_AS_Q_DEF:
            pers = first["DEFPSIST"]
        elif pers != MQPER_NOT_PERSISTENT and pers != MQPER_PERSISTENT:
            raise fail(C.MQRC_PERSISTENCE_ERROR, f"Persistence {pers} is not valid")
        expiry = md.Expiry
        if expiry == 0 or expiry < MQEI_UNLIMITED:
            raise fail(C.MQRC_EXPIRY_ERROR, f"Expiry {expiry} is not valid: use a positive value or MQEI_UNLIMITED")
        fmt = md.Format
        if fmt == MQFMT_XMIT_Q_HEADER:
            check_xqh_expiry(expiry, data)
        elif fmt == MQFMT_RF_HEADER_2:
            check_put_rfh2(md.Encoding, data)  # MQRC_RFH_ERROR for a header whose lengths lie
        mt = md.MsgType
        if mt not in _PLAIN_MSG_TYPES and not (
            C.MQMT_APPL_FIRST <= mt <= C.MQMT_APPL_LAST or 1 <= mt <= C.MQMT_SYSTEM_LAST
        ):
            raise fail(C.MQRC_MSG_TYPE_ERROR, f"MsgType {mt} is not valid")
        if (mt == MQMT_REQUEST or md.Report & REPORTS_ASKED) and not blank_strip(md.ReplyToQ):
            # IBM: a request, or a message asking for any report, needs a queue for the reply / report (2027)
            raise fail(C.MQRC_MISSING_REPLY_TO_Q, "a request message, or one asking for reports, needs ReplyToQ")
        if pers == MQPER_PERSISTENT and q.definition.dynamic == C.MQQDT_TEMPORARY_DYNAMIC:
            raise fail(
                C.MQRC_PERSISTENT_NOT_ALLOWED, f"temporary dynamic queue {q.name} cannot hold persistent messages"
            )
        if first["PUT"] == MQQA_PUT_INHIBITED or qattrs["PUT"] == MQQA_PUT_INHIBITED:
            self.inhibited(C.MQRC_PUT_INHIBITED, h.name, conn)  # INHIBTEV's event (``_events``)
            raise fail(C.MQRC_PUT_INHIBITED, f"puts are inhibited for queue {h.name}")
        if q.shared:
            self._shared_room(conn, q, opts & MQPMO_SYNCPOINT)  # MAXDEPTH counted across the group (``_shared``)
        elif q.depth >= qattrs["MAXDEPTH"]:
            if self.qmgr.attrs.get("PERFMEV") == "ENABLED":
                self.queue_full(q)  # a Queue Full performance event (``_events``); the put still fails
            raise fail(C.MQRC_Q_FULL, f"queue {q.name} is full (MAXDEPTH {qattrs['MAXDEPTH']})")
        if q.fifo:
            prio = qattrs["DEFPRTY"]  # seed 001, condition 14: FIFO assigns the queue's default priority
        syncpoint = opts & MQPMO_SYNCPOINT
        uow = conn.uow
        if syncpoint and uow is not None and len(uow.puts) + len(uow.gets) >= self.qmgr.attrs["MAXUMSGS"]:
            raise fail(C.MQRC_SYNCPOINT_LIMIT_REACHED, "the unit of work has reached MAXUMSGS")
        # -- from here on the put succeeds: build the descriptor --------------------------------------
        now = self.clock.time()
        out = md  # output fields are written back into the caller's MQMD
        d = out.__dict__
        if md.MsgId == _NONE24 or opts & MQPMO_NEW_MSG_ID or not md.MsgId.strip(b"\0"):
            d["MsgId"] = self.new_msgid()
        if opts & MQPMO_NEW_CORREL_ID:
            d["CorrelId"] = self.new_msgid()
        if not ctx:
            # the default context: every identity and origin field is the queue manager's, already exact
            d.update(conn.context)
            d["PutDate"], d["PutTime"] = put_date_time(now)
            check = _APPL_CHAR_FIELDS
        else:
            self._put_context(conn, out, ctx, source, now)
            check = _ALL_CHAR_FIELDS
        # MQCCSI_Q_MGR is replaced by the queue manager's CCSID, and a blank ReplyToQMgr by the queue manager's
        # name, as IBM MQ does on MQPUT (the caller's MQMD shows both)
        if d["CodedCharSetId"] == MQCCSI_Q_MGR:
            d["CodedCharSetId"] = self.qmgr.attrs["CCSID"]
        if not out.ReplyToQMgr.strip(b" \0"):
            if self.remote_definitions and self._reply_to_alias(out):
                check = _ALL_CHAR_FIELDS
            else:
                d["ReplyToQMgr"] = self.name48
        if remote is None:
            pmo.ResolvedQName = q.name48
            pmo.ResolvedQMgrName = self.name48
        else:
            pmo.ResolvedQName, pmo.ResolvedQMgrName = remote
        out.normalize(check)  # the character fields the caller could have set
        stored = dict(d)
        stored["Version"] = 2
        stored["Priority"] = prio
        stored["Persistence"] = pers
        stored["BackoutCount"] = 0
        if remote is not None:
            if props:  # they travel inside the transmission message (``_properties.travelling``)
                stored, data = travelling(stored, data, props)
                props = None
            stored, data = self._xmit_stored(stored, remote, data)  # MQXQH + the message (issue 23, item 2)
        seq = self._seq
        self._seq = seq + 1
        m = Message(
            seq,
            q,
            prio,
            pers == MQPER_PERSISTENT,
            stored,
            bytes(data),
            stored["MsgId"],
            stored["CorrelId"],
            stored["GroupId"],
            stored["MsgSeqNumber"],
            expiry,
            now,
        )
        if props:
            m.props = props
        if q.shared:  # a queue-sharing group's shared queue: the message goes to the group's store
            self._shared_put(conn, q, m, syncpoint)
            q.counts.puts += 1
            self.stat_puts += 1
            if self.monitoring_on:
                self.mon_put(conn, q, m)  # the MQI counts (``_statistics``; a shared queue has no queue record)
            if stored["Report"] & MQRO_COA and remote is None:
                self._confirm_on_arrival(m, self._uow(conn) if syncpoint else None)  # COA, as on a private queue
            return reason
        q.depth += 1
        q.last_put = now
        c = q.counts
        c.puts += 1
        self.stat_puts += 1
        if q.depth > c.hi_depth:
            c.hi_depth = q.depth
        if self.monitoring_on:
            self.mon_put(conn, q, m)  # statistics and accounting (``_statistics``)
        if syncpoint:
            uow = self._uow(conn)
            uow.puts.append(m)
            m.state = PUT_PENDING
            q.uncommitted += 1
        else:
            uow = None
            self._make_visible(m)
        if self.qmgr.attrs.get("PERFMEV") == "ENABLED":
            self.depth_after_put(q)  # queue depth events (``_events``)
        if qattrs["TRIGGER"] == MQTC_ON:
            self.triggering.message_put(m, uow)  # seed 001, condition 1
        if stored["Report"] & MQRO_COA and remote is None:
            self._confirm_on_arrival(m, uow)  # COA: the message reached its destination queue
        return reason

    @staticmethod
    def _put_context(conn: Connection, out: MQMD, ctx: int, source: dict[str, Any] | None, now: float) -> None:
        """The context fields of a put with a MQPMO context option (the default context is set inline)."""
        if ctx & C.MQPMO_SET_ALL_CONTEXT:
            pass  # every context field as the application set it
        elif ctx & C.MQPMO_NO_CONTEXT:
            for f in CONTEXT_IDENTITY:
                out.__dict__[f] = MQMD._defaults[f]
            out.PutApplType = C.MQAT_NO_CONTEXT
            out.PutApplName = b" " * 28
            out.PutDate = b" " * 8
            out.PutTime = b" " * 8
            out.ApplOriginData = b" " * 4
        elif ctx & C.MQPMO_PASS_ALL_CONTEXT and source is not None:
            for f in CONTEXT_IDENTITY + CONTEXT_ORIGIN:
                if f in source:
                    out.__dict__[f] = source[f]
        else:
            if ctx & C.MQPMO_PASS_IDENTITY_CONTEXT and source is not None:
                for f in CONTEXT_IDENTITY:
                    if f in source:
                        out.__dict__[f] = source[f]
            elif not ctx & C.MQPMO_SET_IDENTITY_CONTEXT:
                out.UserIdentifier = conn.user12
                out.AccountingToken = C.MQACT_NONE
                out.ApplIdentityData = b" " * 32
            out.PutApplType = conn.appl_type
            out.PutApplName = conn.appl_name28
            out.PutDate, out.PutTime = put_date_time(now)
            out.ApplOriginData = b" " * 4
