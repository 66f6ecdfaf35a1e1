"""Publishing: MQOPEN of a topic, MQPUT / MQPUT1 on it, retained publications, and the topic objects' verbs.

References: reference/properties-pubsub.md ("Publish/subscribe"); constants.md (MQPMO_RETAIN,
MQPMO_WARN_IF_NO_SUBS_MATCHED, MQRC_NO_SUBS_MATCHED, MQRC_PUT_INHIBITED, MQRC_PUBLICATION_FAILURE); mqsc.md
(DEFINE / ALTER / DELETE TOPIC, CLEAR TOPICSTR).

Theory of operation
-------------------
MQOPEN of an MQOT_TOPIC object resolves ObjectName (a topic object) and ObjectString (carried beside the MQOD as
``od.ObjectString``) into one topic string, returned as ``od.ResObjectString``; the handle has no queue. MQPUT on
it checks the message as a put would, then fills the publisher's MQMD (MsgId, context) and gives each matching
subscription its own copy on its destination queue: a new MsgId, the subscription's CorrelId, the priority and
persistence the topic gives when the publisher asked "as defined". Copies go through the queue manager's own put
(``_reports._place``) inside the publisher's unit of work when it put in syncpoint, so MQBACK takes every copy
back and MQCMIT makes them available together.

Nothing is half-applied: every destination is checked first. A persistent publication that a durable
subscription's queue would refuse fails the put with MQRC_PUBLICATION_FAILURE and delivers nothing (IBM's
default PMSGDLV(ALLDUR)); a copy for a non-durable subscription that its queue refuses goes to the dead-letter
queue when USEDLQ is YES, or is dropped (NPMSGDLV(ALLAVAIL)). A persistent copy for a temporary dynamic queue
(a managed non-durable subscription's) arrives non-persistent: that queue ends with its connection anyway.

MQPMO_RETAIN keeps the publication as the topic string's one retained publication (persistent ones in the store,
kind RETAINED, so they survive a restart); in syncpoint it takes effect at MQCMIT and is forgotten at MQBACK.

A publication is a hot path (issue 34, item 6: a publication to 10 subscribers must cost less than 10 puts).
What a topic string needs from the topic tree and the subscriptions (its inherited PUB, DEFPRTY, DEFPSIST,
USEDLQ and the subscriptions that match it, wildcards and all) is worked out at its first publication and kept
as its :class:`Route` until a subscription is made, altered or ends (``SubscriptionIndex.version``) or a topic
object is defined, altered or deleted (``_topics_changed``); what may differ from one publication to the next
(SubExpiry, MQPMO_NOT_OWN_SUBS, selection strings, the destination queues and their room) is judged on every
publication. A destination that is a local queue of this queue manager is found without building a ``Target``;
the copies share the publication's data and properties and are built from one normalised MQMD; persistent copies
go to the store in the publisher's one batch (one sync for all of them). Authority is checked at MQOPEN and
MQSUB, never per copy.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from syncpoint.mqi import MQMD, MQOD, MQPMO, blank_strip, put_date_time
from syncpoint.mqi import constants as C
from syncpoint.mqi.objects import ATTRIBUTES as _ATTRS
from syncpoint.mqi.objects import (
    QLOCAL,
    QMODEL,
    SYSTEM_BASE_TOPIC,
    TOPIC,
    Definition,
    check_value,
    defaults_for,
    engine_key,
    pubsub_objects,
    valid_object_name,
)
from syncpoint.mqi.properties import TOPIC_STRING, pack_props, unpack_props
from syncpoint.mqi.selector import parse as parse_selection
from syncpoint.store import Snapshot

from ._base import QueueManagerBase
from ._effects import PUBLICATION
from ._options import BOTH_PUT_SYNC, CONTEXT_PUT_OPTS, RARE_PUT_OPTS, check_put_options
from ._put import _APPL_CHAR_FIELDS, REPORTS_ASKED, PutMixin
from ._select import selected
from ._state import PUT_PENDING, Connection, Handle, LocalQueue, Message, Target
from ._topics import (
    Subscription,
    SubscriptionIndex,
    check_topic_string,
    covering,
    join_topic,
    one_per_group,
    topic_attr,
)
from ._util import fail, padded

RETAINED = "RETAINED"  # store kind of persistent retained publications, by topic string
SUB = "SUB"  # store kind of durable subscriptions, by name
# the put options that mean something only to a publication
PUBLISH_OPTS = (
    C.MQPMO_RETAIN | C.MQPMO_WARN_IF_NO_SUBS_MATCHED | C.MQPMO_SUPPRESS_REPLYTO | C.MQPMO_NOT_OWN_SUBS
) | C.MQPMO_SCOPE_QMGR
TOPIC_OPEN_OPTS = (
    C.MQOO_OUTPUT
    | C.MQOO_FAIL_IF_QUIESCING
    | C.MQOO_PASS_IDENTITY_CONTEXT
    | C.MQOO_PASS_ALL_CONTEXT
    | C.MQOO_SET_IDENTITY_CONTEXT
    | C.MQOO_SET_ALL_CONTEXT
    | C.MQOO_ALTERNATE_USER_AUTHORITY
)
_NONE24 = b"\0" * 24
_RETAINED_MARK = b"RET2"  # a stored retained publication with its properties (``Retained``)
_BLANK48 = padded("", 48)
ROUTES_KEPT = 4096  # topic strings whose routes are kept at most (all are forgotten beyond: they are remade)


@dataclass(frozen=True, slots=True)
class Route:
    """What publications on one topic string need from the topic tree and the subscriptions, worked out at the
    first and kept until either changes (see the module doc)."""

    subs: tuple[Subscription, ...]  # every subscription matching the topic string, in the order they were made
    pub: int  # PUB, inherited
    priority: int  # DEFPRTY (TPDEFPRTY), for MQPRI_PRIORITY_AS_TOPIC_DEF
    persistence: int  # DEFPSIST (TPDEFPSIST), for MQPER_PERSISTENCE_AS_TOPIC_DEF
    usedlq: bool  # USEDLQ(YES): a copy its queue refuses goes to the dead-letter queue


@dataclass(frozen=True, slots=True)
class Retained:
    """A topic string's retained publication: the publisher's MQMD (as filled by the put), the data and the
    publication's message properties (delivered with every copy MQSUB and MQSUBRQ send, kept through a restart).

    Stored (kind RETAINED) as ``RET2``, the properties' length (4 bytes, big-endian), the properties as a stored
    message keeps them (``pack_props``), the MQMD and the data; a record without the mark (written before
    properties were kept) is the MQMD and the data."""

    md: bytes  # a packed MQMD version 2
    data: bytes
    persistent: bool
    props: Any = None  # the publication's properties (``Props``) or None

    def to_bytes(self) -> bytes:
        packed = pack_props(self.props) if self.props else b""
        return _RETAINED_MARK + len(packed).to_bytes(4, "big") + packed + self.md + self.data

    @classmethod
    def from_bytes(cls, raw: bytes) -> Retained:
        props = None
        if raw.startswith(_RETAINED_MARK):
            n = int.from_bytes(raw[4:8], "big")
            props = unpack_props(raw[8 : 8 + n]) if n else None
            raw = raw[8 + n :]
        n = len(MQMD().pack())
        return cls(raw[:n], raw[n:], True, props)


class PublishMixin(QueueManagerBase):
    """MQOPEN of a topic, publishing, retained publications, topic objects."""

    topics: dict[str, Definition]  # TOPICSTR -> topic object (SYSTEM.BASE.TOPIC under "")
    subs: SubscriptionIndex
    retained: dict[str, Retained]
    _sub_handles: dict[Handle, Subscription]
    _routes: dict[str, Route]  # topic string -> its route (see the module doc)
    _routes_at: tuple[int, int]  # (SubscriptionIndex.version, _topics_version) the routes were made at
    _topics_version: int  # moves when a topic object is defined, altered or deleted

    # -- construction ---------------------------------------------------------------------------------
    def _load_pubsub(self, snap: Snapshot) -> None:
        self.topics = {}
        self.subs = SubscriptionIndex()
        self.retained = {}
        self._retained_pending = {}
        self._sub_handles = {}
        self._routes = {}
        self._routes_at = (-1, -1)
        self._topics_version = 0
        now = self.clock.time()
        for otype, name, attrs in pubsub_objects():  # a queue manager made before publish/subscribe gains them
            ns = "Q" if otype == QMODEL else TOPIC
            if (ns, name) in self.definitions or (otype == TOPIC and name in snap.objects.get(TOPIC, {})):
                continue
            a = defaults_for(otype)
            a.update(attrs)
            d = Definition(otype, name, a, now, now)
            self.definitions[(ns, name)] = d
            self._b().put_objects.append((otype, name, d.to_bytes()))
        for raw in snap.objects.get(TOPIC, {}).values():
            d = Definition.from_bytes(raw)
            self.definitions[(TOPIC, d.name)] = d
        for (ns, _), d in self.definitions.items():
            if ns == TOPIC:
                self.topics[d.attrs["TOPICSTR"]] = d
        for raw in snap.objects.get(SUB, {}).values():
            self.subs.add(Subscription.from_bytes(raw))
        for topic, raw in snap.objects.get(RETAINED, {}).items():
            self.retained[topic] = Retained.from_bytes(raw)

    # -- topics ---------------------------------------------------------------------------------------
    def topic_chain(self, topic: str) -> list[Definition]:
        """The topic objects covering ``topic``, nearest first, SYSTEM.BASE.TOPIC last (for attribute
        inheritance, and for an authority check that walks them)."""
        return covering(self.topics, self.definitions[(TOPIC, SYSTEM_BASE_TOPIC)], topic)

    def _topics_changed(self) -> None:
        """A topic object was defined, altered or deleted: every topic string's route is made again."""
        self._topics_version += 1

    def _route(self, topic: str) -> Route:
        """The route of publications on ``topic`` (see the module doc)."""
        at = (self.subs.version, self._topics_version)
        routes = self._routes
        if self._routes_at != at:
            routes.clear()
            self._routes_at = at
        r = routes.get(topic)
        if r is None:
            chain = self.topic_chain(topic)
            if len(routes) >= ROUTES_KEPT:
                routes.clear()
            r = routes[topic] = Route(
                tuple(self.subs.matching(topic)),
                topic_attr(chain, "PUB"),
                topic_attr(chain, "TPDEFPRTY"),
                topic_attr(chain, "TPDEFPSIST"),
                topic_attr(chain, "USEDLQ") == C.MQUSEDLQ_YES,
            )
        return r

    def resolve_topic(self, object_name: str, object_string: str) -> tuple[str, Definition | None]:
        """The topic string an MQOD or MQSD names (ObjectName and/or ObjectString) and its topic object."""
        d = None
        base = ""
        if object_name:
            d = self.definitions.get((TOPIC, object_name))
            if d is None:
                raise fail(C.MQRC_UNKNOWN_OBJECT_NAME, f"topic object {object_name} does not exist")
            base = d.attrs["TOPICSTR"]
        elif not object_string:
            raise fail(C.MQRC_UNKNOWN_OBJECT_NAME, "name a topic: ObjectName or ObjectString (both are blank)")
        topic = join_topic(base, object_string)
        check_topic_string(topic)
        return topic, d

    def _open_topic(self, conn: Connection, od: MQOD, options: int) -> Handle:
        """MQOPEN of MQOT_TOPIC: for output (publishing) only."""
        if options & ~TOPIC_OPEN_OPTS or not options & C.MQOO_OUTPUT:
            raise fail(C.MQRC_OPTION_NOT_VALID_FOR_TYPE, "a topic can be opened for output (publishing) only")
        topic, d = self.resolve_topic(blank_strip(od.ObjectName), str(od.__dict__.get("ObjectString") or ""))
        # pub authority on a topic object covering the topic string (IBM: any of them grants it; ``_authority``)
        self.authorize(conn, "topic", [t.name for t in self.topic_chain(topic)], "pub")
        hobj = self._next_hobj
        self._next_hobj += 1
        h = Handle(hobj, conn, C.MQOT_TOPIC, topic, options, None, d, None)
        conn.handles[hobj] = h
        od.ResObjectString = topic
        if od.Version >= 4:
            od.ResolvedType = C.MQOT_TOPIC
        return h

    # -- publishing -----------------------------------------------------------------------------------
    def _publish(self, conn: Connection, h: Handle, md: MQMD, pmo: MQPMO, data: bytes, props: Any = None) -> int:
        """MQPUT / MQPUT1 on a topic: a copy for every subscription that matches (and selects it), each with the
        publication's properties. ``_put`` has checked the MQMD and MQPMO structures."""
        if h in self._sub_handles:
            raise fail(C.MQRC_NOT_OPEN_FOR_OUTPUT, "a subscription handle cannot be published on")
        opts = pmo.Options
        ctx = opts & CONTEXT_PUT_OPTS
        plain = opts & ~PUBLISH_OPTS
        source: dict[str, Any] | None = None
        if plain & RARE_PUT_OPTS or plain & BOTH_PUT_SYNC == BOTH_PUT_SYNC:  # as MQPUT on a queue (``_put``)
            source = check_put_options(conn, h, pmo, plain, ctx, self.quiescing, self.name)
        elif self.quiescing and opts & C.MQPMO_FAIL_IF_QUIESCING:
            raise fail(C.MQRC_Q_MGR_QUIESCING, f"queue manager {self.name} is ending")
        topic = h.name
        route = self._route(topic)
        if route.pub == C.MQTA_PUB_INHIBITED:
            raise fail(C.MQRC_PUT_INHIBITED, f"publications are inhibited on topic {topic!r} (PUB(DISABLED))")
        if len(data) > self.qmgr.attrs["QMMAXMSGL"]:
            raise fail(C.MQRC_MSG_TOO_BIG_FOR_Q_MGR, f"{len(data)} bytes exceed the queue manager's MAXMSGL")
        reason = C.MQRC_NONE
        prio = md.Priority
        if prio == C.MQPRI_PRIORITY_AS_Q_DEF:
            prio = route.priority
        elif prio < 0:
            raise fail(C.MQRC_PRIORITY_ERROR, f"Priority {prio} is not valid")
        elif prio > 9:
            prio, reason = 9, C.MQRC_PRIORITY_EXCEEDS_MAXIMUM
        pers = md.Persistence
        if pers == C.MQPER_PERSISTENCE_AS_Q_DEF:  # MQPER_PERSISTENCE_AS_TOPIC_DEF
            pers = route.persistence
        elif pers not in (C.MQPER_NOT_PERSISTENT, C.MQPER_PERSISTENT):
            raise fail(C.MQRC_PERSISTENCE_ERROR, f"Persistence {pers} is not valid")
        if md.Expiry == 0 or md.Expiry < C.MQEI_UNLIMITED:
            raise fail(C.MQRC_EXPIRY_ERROR, f"Expiry {md.Expiry} is not valid: use a positive value or MQEI_UNLIMITED")
        if (md.MsgType == C.MQMT_REQUEST or md.Report & REPORTS_ASKED) and not blank_strip(md.ReplyToQ):
            raise fail(C.MQRC_MISSING_REPLY_TO_Q, "a request message, or one asking for reports, needs ReplyToQ")
        syncpoint = opts & C.MQPMO_SYNCPOINT
        if self.subs.expiring:
            self._sweep_expired_subs()
            route = self._route(topic)  # an expired subscription ended: the route is made again
        now = self.clock.time()
        not_own = opts & C.MQPMO_NOT_OWN_SUBS
        candidates: Any = route.subs
        if self.shared is not None:  # a member of a group: the other members' group subscriptions too
            candidates = [*candidates, *self._group_subs_for(topic)]  # (``_group_pubsub``: read each time)
        subs = [
            s
            for s in candidates
            if not s.on_request
            and not (s.expiry != C.MQEI_UNLIMITED and s.expired(now))
            and not (not_own and s.handle is not None and s.handle.conn is conn)
            and (not s.selection or self._selection_selects(s, md, data, props))
        ]
        if self.subs.grouped:  # MQSO_GROUP_SUB: one copy per group of subscriptions (``_topics.one_per_group``)
            subs = one_per_group(subs)
        uow = conn.uow
        if syncpoint and uow is not None and len(uow) + len(subs) > self.qmgr.attrs["MAXUMSGS"]:
            raise fail(C.MQRC_SYNCPOINT_LIMIT_REACHED, "the unit of work has reached MAXUMSGS")
        # every destination, checked before the first copy is made
        plan: list[tuple[Subscription, LocalQueue | None, Target | None, int]] = []
        name, defs, queues, length = self.name, self.definitions, self.queues, len(data)
        for s in subs:
            dq = s.dest_qmgr
            qdef = defs.get(("Q", s.dest)) if not dq or dq == name else None
            q: LocalQueue | None
            t: Target | None = None
            if qdef is not None and qdef.otype == QLOCAL:  # a local queue, found as _resolve_target finds it
                q = queues[qdef.name]
                why = self._refusal(q, q.attrs, length)
            else:
                try:
                    t = self._resolve_target(s.dest, dq if dq != name else "")
                    q = t.queue
                    why = self._refusal(q, t.first.attrs if t.first is not None else q.attrs, length)
                except Exception as e:
                    q, why = None, getattr(e, "reason", C.MQRC_UNKNOWN_OBJECT_NAME)
            if why and s.durable and pers == C.MQPER_PERSISTENT:
                raise fail(
                    C.MQRC_PUBLICATION_FAILURE,
                    f"durable subscription {s.name!r} cannot take the persistent publication (reason {why}): "
                    "nothing was published",
                )
            plan.append((s, q, t, why))
        # -- from here on the publication succeeds: the publisher's MQMD ------------------------------
        d = md.__dict__
        if md.MsgId == _NONE24 or opts & C.MQPMO_NEW_MSG_ID:
            d["MsgId"] = self.new_msgid()
        if opts & C.MQPMO_NEW_CORREL_ID:
            d["CorrelId"] = self.new_msgid()
        if not ctx:
            d.update(conn.context)
            d["PutDate"], d["PutTime"] = put_date_time(now)
        else:
            PutMixin._put_context(conn, md, ctx, source, now)
        if d["CodedCharSetId"] == C.MQCCSI_Q_MGR:
            d["CodedCharSetId"] = self.qmgr.attrs["CCSID"]
        if not md.ReplyToQMgr.strip(b" \0"):
            d["ReplyToQMgr"] = self.name48
        md.normalize(None if ctx else _APPL_CHAR_FIELDS)  # the default context's fields are exact already
        pmo.ResolvedQName = _BLANK48
        pmo.ResolvedQMgrName = self.name48
        held = self._uow(conn) if syncpoint else None
        base = dict(md.__dict__)
        base["Version"] = 2
        base["BackoutCount"] = 0
        base["Persistence"] = pers
        if opts & C.MQPMO_SUPPRESS_REPLYTO:
            base["ReplyToQ"] = base["ReplyToQMgr"] = _BLANK48
        data = bytes(data)
        # IBM sets MQTopicString (RFH2 ``<mqps><Top>``) on every publication it delivers: the topic it was put on
        delivered = (
            {**props, TOPIC_STRING: (C.MQTYPE_STRING, topic)} if props else {TOPIC_STRING: (C.MQTYPE_STRING, topic)}
        )
        for s, why in self._deliver_copies(plan, base, prio, data, held, now, delivered):
            if route.usedlq:  # a copy its queue refused (see the module doc)
                out = self._copy_for(s, md, prio, pers, opts)
                self.dead_letter_message(out, data, why, s.dest, s.dest_qmgr or self.name, uow=held)
        if opts & C.MQPMO_RETAIN:
            keep = md.copy()
            keep.Priority, keep.Persistence = prio, pers
            self._retain(conn, topic, Retained(keep.pack(), bytes(data), pers == C.MQPER_PERSISTENT, props), held)
        if not plan and opts & C.MQPMO_WARN_IF_NO_SUBS_MATCHED:
            return C.MQRC_NO_SUBS_MATCHED
        return reason

    def _deliver_copies(
        self,
        plan: list[tuple[Subscription, LocalQueue | None, Target | None, int]],
        base: dict[str, Any],
        prio: int,
        data: bytes,
        held: Any,
        now: float,
        props: Any = None,
    ) -> list[tuple[Subscription, int]]:
        """Every subscription's copy of a publication onto its (checked) destination: the publisher's normalised
        MQMD with its own MsgId and the subscription's CorrelId, put as the queue manager's own put is
        (``_reports._place``), without building an MQMD per copy; the copies share ``data`` and ``props`` (never
        changed in place). A shared or remote destination goes through ``_place`` itself. Returns the copies
        refused, each with the reason (the plan's own, or the one ``_place`` gave)."""
        refused: list[tuple[Subscription, int]] = []
        new_msgid = self.new_msgid
        make_visible = self._make_visible
        pers = base["Persistence"]
        persistent = pers == C.MQPER_PERSISTENT
        groupid, seqno, expiry = base["GroupId"], base["MsgSeqNumber"], base["Expiry"]
        for s, q, t, why in plan:
            if why or q is None:
                refused.append((s, why))
                continue
            copy_pers, copy_persistent = pers, persistent
            if persistent and q.definition.dynamic == C.MQQDT_TEMPORARY_DYNAMIC:
                # a managed non-durable subscription's queue (see the module doc)
                copy_pers, copy_persistent = C.MQPER_NOT_PERSISTENT, False
            priority = s.pub_priority if s.pub_priority >= 0 else prio
            if q.shared or (t is not None and t.remote is not None):
                if t is None:
                    t = Target(q, None, None)
                out = MQMD.with_fields(base)
                out.MsgId, out.CorrelId, out.Priority, out.Persistence = new_msgid(), s.correl_id, priority, copy_pers
                why = self._place(t, out, data, held, PUBLICATION, props)
                if why:
                    refused.append((s, why))
                    continue
            else:
                if q.fifo:
                    priority = q.attrs["DEFPRTY"]
                stored = dict(base)
                msgid = stored["MsgId"] = new_msgid()
                correl = stored["CorrelId"] = s.correl_id
                stored["Priority"] = priority
                stored["Persistence"] = copy_pers
                seq = self._seq
                self._seq = seq + 1
                m = Message(seq, q, priority, copy_persistent, stored, data, msgid, correl, groupid, seqno, expiry, now)
                m.props = props
                q.depth += 1
                q.last_put = now
                if held is None:
                    make_visible(m)
                else:
                    held.puts.append(m)
                    m.state = PUT_PENDING
                    q.uncommitted += 1
                if q.attrs["TRIGGER"] == C.MQTC_ON:
                    self.triggering.message_put(m, held)
            s.last_msg = now
            s.msg_count += 1
        return refused

    def _copy_for(self, s: Subscription, md: MQMD, prio: int, pers: int, opts: int) -> MQMD:
        """The copy of a publication a subscription receives."""
        out = md.copy()
        out.MsgId = self.new_msgid()
        out.CorrelId = s.correl_id
        out.Priority = s.pub_priority if s.pub_priority >= 0 else prio
        out.Persistence = pers
        if opts & C.MQPMO_SUPPRESS_REPLYTO:
            out.ReplyToQ = padded("", 48)
            out.ReplyToQMgr = padded("", 48)
        return out

    @staticmethod
    def _refusal(q: LocalQueue, first: dict[str, Any], length: int) -> int:
        """Why queue ``q`` would refuse a message of ``length`` bytes (``_place``'s checks), or 0. ``first``: the
        attributes of the name resolution met first (an alias's), else the queue's own."""
        if first["PUT"] == C.MQQA_PUT_INHIBITED or q.attrs["PUT"] == C.MQQA_PUT_INHIBITED:
            return C.MQRC_PUT_INHIBITED
        if length > q.attrs["MAXMSGL"]:
            return C.MQRC_MSG_TOO_BIG_FOR_Q
        if q.full(q.attrs["MAXDEPTH"]):
            return C.MQRC_Q_FULL
        return 0

    def _selection_selects(self, s: Subscription, md: MQMD, data: bytes, props: Any = None) -> bool:
        """THE call point of subscription selectors: does ``s``'s SelectionString select this publication (its
        MQMD fields and properties, as a selecting MQGET judges a message: ``_select``)? The string was checked
        when the subscription was made (MQSUB, DEFINE SUB); it is parsed once, on first use (also after a
        restart, for a durable subscription)."""
        if not s.selection:
            return True
        if s.selector is None:
            s.selector = parse_selection(s.selection)
        return selected(s.selector, md.__dict__, props, data)  # an MQRFH2 in the data: its properties count too

    # -- subscriptions that end ------------------------------------------------------------------------
    def _remove_sub(self, sub: Subscription) -> None:
        """A subscription ends: out of the index, out of the store when durable, a durable managed queue dropped
        when nobody has it open and it holds nothing uncommitted."""
        self.subs.remove(sub)
        if sub.durable:
            b = self._b()
            b.delete_objects.append((SUB, sub.name))
            b.durable = True
            if self.shared is not None:
                self._forget_group_sub(sub)  # out of the group's subscriptions (``_group_pubsub``)
        if sub.managed and sub.durable:
            q = self.queues.get(sub.dest)
            if q is not None and not q.handles and not q.uncommitted:
                self._drop_queue(q.definition)

    def _sweep_expired_subs(self) -> None:
        """SubExpiry: an expired subscription that no handle holds ends now (one held open ends at its MQCLOSE
        and meanwhile receives nothing)."""
        if not self.subs.expiring:
            return
        now = self.clock.time()
        for s in [s for s in self.subs.expiring if s.handle is None and s.expired(now)]:
            self._remove_sub(s)

    # -- retained publications ------------------------------------------------------------------------
    def _retain(self, conn: Connection, topic: str, r: Retained | None, held: Any) -> None:
        if held is not None:
            self._retained_pending.setdefault(conn.hconn, []).append((topic, r))
            return
        self._set_retained(topic, r)

    def _set_retained(self, topic: str, r: Retained | None) -> None:
        old = self.retained.pop(topic, None)
        if r is not None:
            self.retained[topic] = r
        b = self._b()
        if r is not None and r.persistent:
            b.put_objects.append((RETAINED, topic, r.to_bytes()))
            b.durable = True
        elif old is not None and old.persistent:
            b.delete_objects.append((RETAINED, topic))
            b.durable = True

    def _end_retained(self, conn: Connection, commit: bool) -> None:
        """MQCMIT / MQBACK: the retained publications this unit of work set take effect or are forgotten."""
        pending = self._retained_pending.pop(conn.hconn, None)
        if commit and pending:
            for topic, r in pending:
                self._set_retained(topic, r)

    def clear_topicstr(self, topic: str) -> None:
        """CLEAR TOPICSTR(topic) CLRTYPE(RETAINED): forget the topic string's retained publication."""
        check_topic_string(topic)
        if topic not in self.retained:
            raise fail(C.MQRC_NO_RETAINED_MSG, f"topic string {topic!r} has no retained publication")
        self._set_retained(topic, None)

    # -- topic objects (DEFINE / ALTER / DELETE TOPIC) -------------------------------------------------
    def _topic_attrs(self, attrs: dict[str, Any]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for kw, v in attrs.items():
            key = engine_key(TOPIC, kw)
            a = _ATTRS.get(key)
            if a is None or TOPIC not in a.owners:
                raise fail(C.MQRC_SELECTOR_ERROR, f"{kw} is not an attribute of a topic")
            try:
                out[key] = check_value(a, v)
            except ValueError as e:
                raise fail(C.MQRC_SELECTOR_ERROR, str(e)) from None
        return out

    def define_topic(
        self, name: str, attrs: dict[str, Any] | None = None, like: str | None = None, replace: bool = False
    ) -> Definition:
        """DEFINE TOPIC(name) TOPICSTR(…): a new administrative node of the topic tree."""
        if not valid_object_name(name):
            raise fail(C.MQRC_OBJECT_NAME_ERROR, f"{name!r} is not a valid object name")
        given = self._topic_attrs(attrs or {})
        old = self.definitions.get((TOPIC, name))
        if old is not None and not replace:
            raise fail(C.MQRC_OBJECT_ALREADY_EXISTS, f"topic object {name} already exists")
        if like is not None:
            src = self.definitions.get((TOPIC, like))
            if src is None:
                raise fail(C.MQRC_UNKNOWN_OBJECT_NAME, f"topic object {like} does not exist")
            a = dict(src.attrs)
            a["TOPICSTR"] = ""
        else:
            a = defaults_for(TOPIC)
        a.update(given)
        topic = a["TOPICSTR"]
        check_topic_string(topic)
        if not topic and name != SYSTEM_BASE_TOPIC:
            raise fail(C.MQRC_TOPIC_STRING_ERROR, f"topic object {name} needs a TOPICSTR")
        if old is not None and old.attrs["TOPICSTR"] != topic:
            raise fail(C.MQRC_TOPIC_NOT_ALTERABLE, f"the TOPICSTR of topic object {name} cannot be changed")
        other = self.topics.get(topic)
        if other is not None and other.name != name:
            raise fail(C.MQRC_OBJECT_ALREADY_EXISTS, f"topic object {other.name} already has TOPICSTR {topic!r}")
        now = self.clock.time()
        d = Definition(TOPIC, name, a, old.created if old else now, now)
        self.definitions[(TOPIC, name)] = d
        self.topics[topic] = d
        self._topics_changed()
        b = self._b()
        b.put_objects.append((TOPIC, name, d.to_bytes()))
        b.durable = True
        return d

    def alter_topic(self, name: str, attrs: dict[str, Any]) -> Definition:
        d = self.definitions.get((TOPIC, name))
        if d is None:
            raise fail(C.MQRC_UNKNOWN_OBJECT_NAME, f"topic object {name} does not exist")
        changes = self._topic_attrs(attrs)
        if "TOPICSTR" in changes and changes["TOPICSTR"] != d.attrs["TOPICSTR"]:
            raise fail(C.MQRC_TOPIC_NOT_ALTERABLE, f"the TOPICSTR of topic object {name} cannot be changed")
        d.attrs.update(changes)
        d.altered = self.clock.time()
        self._topics_changed()
        b = self._b()
        b.put_objects.append((TOPIC, name, d.to_bytes()))
        b.durable = True
        return d

    def delete_topic(self, name: str) -> None:
        d = self.definitions.get((TOPIC, name))
        if d is None:
            raise fail(C.MQRC_UNKNOWN_OBJECT_NAME, f"topic object {name} does not exist")
        if name == SYSTEM_BASE_TOPIC:
            raise fail(C.MQRC_OBJECT_IN_USE, "SYSTEM.BASE.TOPIC cannot be deleted")
        for h in [h for c in self.connections.values() for h in c.handles.values() if h.definition is d]:
            raise fail(C.MQRC_OBJECT_IN_USE, f"topic object {name} is open (handle {h.hobj})")
        del self.definitions[(TOPIC, name)]
        self.topics.pop(d.attrs["TOPICSTR"], None)
        self._topics_changed()
        b = self._b()
        b.delete_objects.append((TOPIC, name))
        b.durable = True

    def topic_status(self, topic: str) -> dict[str, Any]:
        """DISPLAY TPSTATUS / Inquire Topic Status of one topic string: its resolved attributes and counts."""
        chain = self.topic_chain(topic)
        pubs = sum(
            1
            for c in self.connections.values()
            for h in c.handles.values()
            if h.otype == C.MQOT_TOPIC and h.name == topic and h not in self._sub_handles
        )
        return {
            "TOPICSTR": topic,
            "ADMIN": chain[0].name if chain[0].attrs["TOPICSTR"] == topic else "",
            "DURSUB": topic_attr(chain, "DURSUB"),
            "PUB": topic_attr(chain, "PUB"),
            "SUB": topic_attr(chain, "SUB"),
            "MDURMDL": topic_attr(chain, "MDURMDL"),
            "MNDURMDL": topic_attr(chain, "MNDURMDL"),
            "DEFPSIST": topic_attr(chain, "TPDEFPSIST"),
            "DEFPRTY": topic_attr(chain, "TPDEFPRTY"),
            "USEDLQ": topic_attr(chain, "USEDLQ"),
            "PUBSCOPE": topic_attr(chain, "PUBSCOPE"),
            "SUBSCOPE": topic_attr(chain, "SUBSCOPE"),
            "RETAINED": topic in self.retained,
            "PUBCOUNT": pubs,
            "SUBCOUNT": len(self.subs.matching(topic)),
        }

    def topic_strings(self) -> list[str]:
        """Every topic string the queue manager knows: topic objects', subscriptions' and retained ones."""
        known = {t for t in self.topics if t} | set(self.retained)
        known |= {s.topic for s in self.subs.by_key.values()}
        return sorted(known)
