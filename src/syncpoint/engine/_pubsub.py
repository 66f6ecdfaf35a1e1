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
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from syncpoint.mqi import MQMD, MQOD, MQPMO, blank_strip, put_date_time
from syncpoint.mqi import constants as C
from syncpoint.mqi.objects import ATTRIBUTES as _ATTRS
from syncpoint.mqi.objects import (
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
from syncpoint.mqi.selector import parse as parse_selection
from syncpoint.store import Snapshot

from ._base import QueueManagerBase
from ._effects import PUBLICATION
from ._options import CONTEXT_PUT_OPTS, check_put_options
from ._put import REPORTS_ASKED, PutMixin
from ._select import selected
from ._state import PUT_PENDING, Connection, Handle, Message
from ._topics import Subscription, SubscriptionIndex, check_topic_string, covering, join_topic, topic_attr
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


@dataclass(frozen=True, slots=True)
class Retained:
    """A topic string's retained publication: the publisher's MQMD (as filled by the put) and the data."""

    md: bytes  # a packed MQMD version 2
    data: bytes
    persistent: bool

    def to_bytes(self) -> bytes:
        return self.md + self.data

    @classmethod
    def from_bytes(cls, raw: bytes) -> Retained:
        n = len(MQMD().pack())
        return cls(raw[:n], raw[n:], True)


class PublishMixin(QueueManagerBase):
    """MQOPEN of a topic, publishing, retained publications, topic objects."""

    topics: dict[str, Definition]  # TOPICSTR -> topic object (SYSTEM.BASE.TOPIC under "")
    subs: SubscriptionIndex
    retained: dict[str, Retained]
    _sub_handles: dict[Handle, Subscription]

    # -- construction ---------------------------------------------------------------------------------
    def _load_pubsub(self, snap: Snapshot) -> None:
        self.topics = {}
        self.subs = SubscriptionIndex()
        self.retained = {}
        self._retained_pending = {}
        self._sub_handles = {}
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
        source = check_put_options(conn, h, pmo, opts & ~PUBLISH_OPTS, ctx, self.quiescing, self.name)
        topic = h.name
        chain = self.topic_chain(topic)
        if topic_attr(chain, "PUB") == C.MQTA_PUB_INHIBITED:
            raise fail(C.MQRC_PUT_INHIBITED, f"publications are inhibited on topic {topic!r} (PUB(DISABLED))")
        if len(data) > self.qmgr.attrs["QMMAXMSGL"]:
            raise fail(C.MQRC_MSG_TOO_BIG_FOR_Q_MGR, f"{len(data)} bytes exceed the queue manager's MAXMSGL")
        reason = C.MQRC_NONE
        prio = md.Priority
        if prio == C.MQPRI_PRIORITY_AS_Q_DEF:
            prio = topic_attr(chain, "TPDEFPRTY")
        elif prio < 0:
            raise fail(C.MQRC_PRIORITY_ERROR, f"Priority {prio} is not valid")
        elif prio > 9:
            prio, reason = 9, C.MQRC_PRIORITY_EXCEEDS_MAXIMUM
        pers = md.Persistence
        if pers == C.MQPER_PERSISTENCE_AS_Q_DEF:  # MQPER_PERSISTENCE_AS_TOPIC_DEF
            pers = topic_attr(chain, "TPDEFPSIST")
        elif pers not in (C.MQPER_NOT_PERSISTENT, C.MQPER_PERSISTENT):
            raise fail(C.MQRC_PERSISTENCE_ERROR, f"Persistence {pers} is not valid")
        if md.Expiry == 0 or md.Expiry < C.MQEI_UNLIMITED:
            raise fail(C.MQRC_EXPIRY_ERROR, f"Expiry {md.Expiry} is not valid: use a positive value or MQEI_UNLIMITED")
        if (md.MsgType == C.MQMT_REQUEST or md.Report & REPORTS_ASKED) and not blank_strip(md.ReplyToQ):
            raise fail(C.MQRC_MISSING_REPLY_TO_Q, "a request message, or one asking for reports, needs ReplyToQ")
        syncpoint = opts & C.MQPMO_SYNCPOINT
        self._sweep_expired_subs()
        now = self.clock.time()
        subs = [
            s
            for s in self.subs.matching(topic)
            if not s.on_request
            and not (s.expiry != C.MQEI_UNLIMITED and s.expired(now))
            and not (opts & C.MQPMO_NOT_OWN_SUBS and s.handle is not None and s.handle.conn is conn)
            and self._selection_selects(s, md, data, props)
        ]
        uow = conn.uow
        if syncpoint and uow is not None and len(uow) + len(subs) > self.qmgr.attrs["MAXUMSGS"]:
            raise fail(C.MQRC_SYNCPOINT_LIMIT_REACHED, "the unit of work has reached MAXUMSGS")
        # every destination, checked before the first copy is made
        plan: list[tuple[Subscription, Any, int]] = []
        for s in subs:
            try:
                t = self._resolve_target(s.dest, s.dest_qmgr if s.dest_qmgr != self.name else "")
                why = self._refusal(t, len(data))
            except Exception as e:
                t, why = None, getattr(e, "reason", C.MQRC_UNKNOWN_OBJECT_NAME)
            if why and s.durable and pers == C.MQPER_PERSISTENT:
                raise fail(
                    C.MQRC_PUBLICATION_FAILURE,
                    f"durable subscription {s.name!r} cannot take the persistent publication (reason {why}): "
                    "nothing was published",
                )
            plan.append((s, t, why))
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
        md.normalize()
        pmo.ResolvedQName = padded("", 48)
        pmo.ResolvedQMgrName = self.name48
        held = self._uow(conn) if syncpoint else None
        base = dict(md.__dict__)
        base["Version"] = 2
        base["BackoutCount"] = 0
        base["Persistence"] = pers
        if opts & C.MQPMO_SUPPRESS_REPLYTO:
            base["ReplyToQ"] = base["ReplyToQMgr"] = padded("", 48)
        data = bytes(data)
        for s, t, why in plan:
            if not why:
                why = self._deliver_copy(s, t, base, prio, data, held, now, props)
                if not why:
                    s.last_msg = now
                    s.msg_count += 1
                    continue
            if topic_attr(chain, "USEDLQ") == C.MQUSEDLQ_YES:  # a copy its queue refused (see the module doc)
                out = self._copy_for(s, md, prio, pers, opts)
                self.dead_letter_message(out, data, why, s.dest, s.dest_qmgr or self.name, uow=held)
        if opts & C.MQPMO_RETAIN:
            keep = md.copy()
            keep.Priority, keep.Persistence = prio, pers
            self._retain(conn, topic, Retained(keep.pack(), bytes(data), pers == C.MQPER_PERSISTENT), held)
        if not plan and opts & C.MQPMO_WARN_IF_NO_SUBS_MATCHED:
            return C.MQRC_NO_SUBS_MATCHED
        return reason

    def _deliver_copy(
        self,
        s: Subscription,
        t: Any,
        base: dict[str, Any],
        prio: int,
        data: bytes,
        held: Any,
        now: float,
        props: Any = None,
    ) -> int:
        """One subscription's copy of a publication onto its (checked) destination: the publisher's normalised
        MQMD with its own MsgId and the subscription's CorrelId, put as the queue manager's own put is
        (``_reports._place``), without building an MQMD per copy. A shared or remote destination goes through
        ``_place`` itself. MQRC_NONE, or the reason the queue refused it."""
        q = t.queue
        pers = base["Persistence"]
        if pers == C.MQPER_PERSISTENT and q.definition.dynamic == C.MQQDT_TEMPORARY_DYNAMIC:
            pers = C.MQPER_NOT_PERSISTENT  # a managed non-durable subscription's queue (see the module doc)
        priority = s.pub_priority if s.pub_priority >= 0 else prio
        if q.shared or t.remote is not None:
            out = MQMD.with_fields(base)
            out.MsgId, out.CorrelId, out.Priority, out.Persistence = self.new_msgid(), s.correl_id, priority, pers
            return self._place(t, out, data, held, PUBLICATION)
        if q.fifo:
            priority = q.attrs["DEFPRTY"]
        stored = dict(base)
        msgid = stored["MsgId"] = self.new_msgid()
        stored["CorrelId"] = s.correl_id
        stored["Priority"] = priority
        stored["Persistence"] = pers
        seq = self._seq
        self._seq = seq + 1
        m = Message(seq, q, priority, pers == C.MQPER_PERSISTENT, stored, data, msgid, s.correl_id,
                    stored["GroupId"], stored["MsgSeqNumber"], stored["Expiry"], now)  # fmt: skip
        m.props = props  # the publication's properties, shared by its copies (never changed in place)
        q.depth += 1
        q.last_put = now
        if held is None:
            self._make_visible(m)
        else:
            held.puts.append(m)
            m.state = PUT_PENDING
            q.uncommitted += 1
        if q.attrs["TRIGGER"] == C.MQTC_ON:
            self.triggering.message_put(m, held)
        return C.MQRC_NONE

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
    def _refusal(t: Any, length: int) -> int:
        """Why the queue of target ``t`` would refuse a message of ``length`` bytes (``_place``'s checks), or 0."""
        q = t.queue
        first = t.first.attrs if t.first is not None else q.attrs
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
