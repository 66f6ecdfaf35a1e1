"""Subscribing: MQSUB (create, resume, alter), MQSUBRQ, MQCLOSE of a subscription, and the administrative
subscription verbs (DEFINE / ALTER / DELETE SUB, DISPLAY SUB / SBSTATUS, PCF's Subscription commands).

References: reference/properties-pubsub.md ("MQSUB with an MQSD"); constants.md (MQSO_*, MQRC_SUB_ALREADY_EXISTS
2432, MQRC_NO_SUBSCRIPTION 2428, MQRC_SUBSCRIPTION_IN_USE 2429, MQRC_SUB_NAME_ERROR 2440, MQRC_INVALID_DESTINATION
2522, MQRC_DURABILITY_NOT_ALLOWED 2436, MQRC_TOPIC_NOT_ALTERABLE 2510, MQRC_DURABILITY_NOT_ALTERABLE 2509,
MQRC_DEST_CLASS_NOT_ALTERABLE 2533, MQRC_NO_RETAINED_MSG 2437).

Theory of operation
-------------------
MQSUB checks the whole request before it changes anything: the options, the subscription it names (a durable
subscription is found by SubName; CREATE of an existing one is 2432, RESUME or ALTER of a missing one 2428, one
held open by another handle 2429), the topic and its inherited SUB / DURSUB attributes, and the destination — a
queue handle the application opened (provided), or a queue the queue manager makes from the topic's MDURMDL or
MNDURMDL model (managed: permanent dynamic for a durable subscription, temporary dynamic for a non-durable one)
and opens for the application. It returns the subscription handle (``hsub``) and the destination handle.

A durable subscription is stored (kind SUB) and outlives its handle, its connection and a restart; MQCLOSE of its
handle with MQCO_REMOVE_SUB deletes it (and its managed queue). A non-durable subscription ends with its handle
or its connection. A new subscription is sent the retained publications it matches unless it asked for
MQSO_NEW_PUBLICATIONS_ONLY or MQSO_PUBLICATIONS_ON_REQUEST (then MQSUBRQ sends them).
"""

from __future__ import annotations

from typing import Any

from syncpoint.mqi import MQMD, MQOD, MQSD, MQSRO, blank_strip, mqsc_date_time
from syncpoint.mqi import constants as C
from syncpoint.mqi.objects import QMODEL
from syncpoint.mqi.properties import IS_RETAINED, TOPIC_STRING
from syncpoint.mqi.selector import parse as parse_selection

from ._effects import PUBLICATION
from ._group_pubsub import GroupPubSubMixin
from ._pubsub import SUB
from ._state import Connection, Handle
from ._topics import Subscription, group_of, topic_attr
from ._util import fail, padded

KNOWN_SUB_OPTS = (
    C.MQSO_ALTER
    | C.MQSO_CREATE
    | C.MQSO_RESUME
    | C.MQSO_DURABLE
    | C.MQSO_MANAGED
    | C.MQSO_SET_IDENTITY_CONTEXT
    | C.MQSO_NO_MULTICAST
    | C.MQSO_FIXED_USERID
    | C.MQSO_ANY_USERID
    | C.MQSO_PUBLICATIONS_ON_REQUEST
    | C.MQSO_NEW_PUBLICATIONS_ONLY
    | C.MQSO_FAIL_IF_QUIESCING
    | C.MQSO_ALTERNATE_USER_AUTHORITY
    | C.MQSO_WILDCARD_CHAR
    | C.MQSO_WILDCARD_TOPIC
    | C.MQSO_SET_CORREL_ID
    | C.MQSO_SCOPE_QMGR
    | C.MQSO_NO_READ_AHEAD
    | C.MQSO_READ_AHEAD
    | C.MQSO_GROUP_SUB
)
_MANAGED_PREFIX = {True: "SYSTEM.MANAGED.DURABLE.*", False: "SYSTEM.MANAGED.NDURABLE.*"}


class SubscribeMixin(GroupPubSubMixin):
    """MQSUB, MQSUBRQ, closing subscriptions, administrative subscriptions."""

    def subscribe(
        self, conn: Connection, sd: MQSD, hobj: Handle | int | None = None, strings: dict[str, Any] | None = None
    ) -> tuple[Handle | None, Handle]:
        """MQSUB. ``strings`` holds the MQSD's MQCHARV fields (ObjectString, SubName, SubUserData,
        SelectionString); the resolved topic string is returned in ``sd.ResObjectString``. Returns (the
        destination handle — the managed queue's, the one given, or None on a resume that gave none —, hsub)."""
        self._check_conn(conn)
        if sd.StrucId != b"SD  " or sd.Version != C.MQSD_VERSION_1:
            raise fail(C.MQRC_SD_ERROR, "the subscription descriptor is not a valid MQSD")
        self._sweep_expired_subs()
        s = strings or {}
        object_string = str(s.get("ObjectString") or "")
        name = str(s.get("SubName") or "")
        selection = str(s.get("SelectionString") or "")
        user_data = str(s.get("SubUserData") or "")
        opts = sd.Options
        if opts & ~KNOWN_SUB_OPTS:
            raise fail(C.MQRC_OPTIONS_ERROR, f"unknown subscription options {opts & ~KNOWN_SUB_OPTS:#x}")
        if not opts & (C.MQSO_CREATE | C.MQSO_RESUME | C.MQSO_ALTER):
            raise fail(C.MQRC_OPTIONS_ERROR, "MQSUB needs MQSO_CREATE, MQSO_RESUME or MQSO_ALTER")
        if opts & C.MQSO_WILDCARD_CHAR and opts & C.MQSO_WILDCARD_TOPIC:
            raise fail(C.MQRC_OPTIONS_ERROR, "MQSO_WILDCARD_CHAR and MQSO_WILDCARD_TOPIC together")
        if opts & C.MQSO_READ_AHEAD and opts & C.MQSO_NO_READ_AHEAD:
            raise fail(C.MQRC_OPTIONS_ERROR, "MQSO_READ_AHEAD and MQSO_NO_READ_AHEAD together")
        if opts & C.MQSO_FIXED_USERID and opts & C.MQSO_ANY_USERID:
            raise fail(C.MQRC_OPTIONS_ERROR, "MQSO_FIXED_USERID and MQSO_ANY_USERID together")
        if opts & C.MQSO_GROUP_SUB and (opts & C.MQSO_MANAGED or not opts & C.MQSO_SET_CORREL_ID):
            # IBM (MQSUB usage notes): "The combination of MQSO_GROUP_SUB and MQSO_MANAGED is not allowed";
            # "MQSO_GROUP_SUB requires MQSO_SET_CORREL_ID" — option rules, MQRC_OPTIONS_ERROR
            raise fail(C.MQRC_OPTIONS_ERROR, "MQSO_GROUP_SUB needs MQSO_SET_CORREL_ID and a provided destination")
        if self.quiescing and opts & C.MQSO_FAIL_IF_QUIESCING:
            raise fail(C.MQRC_Q_MGR_QUIESCING, f"queue manager {self.name} is ending")
        if len(name) > C.MQ_SUB_NAME_LENGTH:
            raise fail(C.MQRC_SUB_NAME_ERROR, f"SubName is {len(name)} characters long: at most 10,240")
        if opts & C.MQSO_DURABLE and not name:
            raise fail(C.MQRC_SUB_NAME_ERROR, "a durable subscription (MQSO_DURABLE) needs a SubName")
        if sd.SubExpiry == 0 or sd.SubExpiry < C.MQEI_UNLIMITED:
            raise fail(C.MQRC_EXPIRY_ERROR, f"SubExpiry {sd.SubExpiry} is not valid")
        if len(selection) > C.MQ_SELECTOR_LENGTH:
            raise fail(C.MQRC_SELECTION_STRING_ERROR, "SelectionString is longer than 10,240 characters")
        if selection:
            parse_selection(selection)  # IBM's reasons for a string it refuses (2459 with the offset, 2504 …)
        dest_h = self._dest_handle(conn, hobj)
        if opts & C.MQSO_MANAGED and dest_h is not None:
            raise fail(C.MQRC_HOBJ_ERROR, "a managed subscription (MQSO_MANAGED) takes Hobj MQHO_NONE")
        existing = self.subs.by_key.get(name) if name else None
        if existing is not None:
            if opts & C.MQSO_CREATE and not opts & (C.MQSO_RESUME | C.MQSO_ALTER):
                raise fail(C.MQRC_SUB_ALREADY_EXISTS, f"subscription {name!r} already exists")
            if existing.handle is not None:
                raise fail(C.MQRC_SUBSCRIPTION_IN_USE, f"subscription {name!r} is open by another handle")
            return self._resume(conn, sd, existing, dest_h, opts, object_string, user_data)
        if not opts & C.MQSO_CREATE:
            raise fail(C.MQRC_NO_SUBSCRIPTION, f"subscription {name!r} does not exist")
        return self._create(conn, sd, name, dest_h, opts, object_string, user_data, selection)

    def _dest_handle(self, conn: Connection, hobj: Handle | int | None) -> Handle | None:
        if hobj is None or hobj == C.MQHO_NONE:
            return None
        h = self._handle(conn, hobj)
        if h.queue is None or h in self._sub_handles:
            raise fail(C.MQRC_HOBJ_ERROR, "Hobj must be a queue handle (the subscription's destination)")
        return h

    def _create(
        self,
        conn: Connection,
        sd: MQSD,
        name: str,
        dest_h: Handle | None,
        opts: int,
        object_string: str,
        user_data: str,
        selection: str,
    ) -> tuple[Handle | None, Handle]:
        managed = bool(opts & C.MQSO_MANAGED)
        durable = bool(opts & C.MQSO_DURABLE)
        if not managed and dest_h is None:
            raise fail(C.MQRC_HOBJ_ERROR, "a subscription with a provided destination needs its queue's Hobj")
        topic, tobj = self.resolve_topic(blank_strip(sd.ObjectName), object_string)
        chain = self.topic_chain(topic)
        # sub authority on a topic object covering the topic string (IBM: any of them grants it; ``_authority``)
        self.authorize(conn, "topic", [d.name for d in chain], "sub")
        if topic_attr(chain, "SUB") == C.MQTA_SUB_INHIBITED:
            raise fail(C.MQRC_SUB_INHIBITED, f"subscriptions are inhibited on topic {topic!r} (SUB(DISABLED))")
        if durable and topic_attr(chain, "DURSUB") == C.MQSUB_DURABLE_INHIBITED:
            raise fail(C.MQRC_DURABILITY_NOT_ALLOWED, f"topic {topic!r} does not allow durable subscriptions")
        model = None
        if managed:
            mname = topic_attr(chain, "MDURMDL" if durable else "MNDURMDL")
            model = self.definitions.get(("Q", mname))
            if model is None or model.otype != QMODEL:
                raise fail(C.MQRC_INVALID_DESTINATION, f"model queue {mname!r} for the managed queue does not exist")
        correl = bytes(sd.SubCorrelId) if opts & C.MQSO_SET_CORREL_ID else b""
        if opts & C.MQSO_GROUP_SUB:
            assert dest_h is not None
            self._check_group_sub(topic, bool(opts & C.MQSO_WILDCARD_CHAR), *self._dest_of(dest_h), correl, sd.SubLevel)
        # -- from here on the subscription is made ----------------------------------------------------
        now = self.clock.time()
        sub_id = self.new_msgid()
        correl = correl or sub_id
        if managed:
            assert model is not None
            qd = self._create_dynamic(model, _MANAGED_PREFIX[durable])
            self._dynamic_authority(conn, qd, True)  # the subscriber may use its managed queue (``_authority``)
            dest, dest_qmgr = qd.name, self.name
        else:
            assert dest_h is not None and dest_h.queue is not None
            dest, dest_qmgr = self._dest_of(dest_h)
        sub = Subscription(
            name=name,
            sub_id=sub_id,
            topic=topic,
            topic_object=tobj.name if tobj is not None else "",
            object_string=object_string,
            char_scheme=bool(opts & C.MQSO_WILDCARD_CHAR),
            durable=durable,
            managed=managed,
            dest=dest,
            dest_qmgr=dest_qmgr,
            correl_id=correl,
            user_data=user_data,
            selection=selection,
            expiry=sd.SubExpiry,
            pub_priority=sd.PubPriority,
            sub_level=sd.SubLevel,
            on_request=bool(opts & C.MQSO_PUBLICATIONS_ON_REQUEST),
            grouped=bool(opts & C.MQSO_GROUP_SUB),
            created=now,
            altered=now,
            pub_accounting_token=bytes(sd.PubAccountingToken),
            pub_appl_identity=blank_strip(sd.PubApplIdentityData),
        )
        if durable:
            self._store_sub(sub)
        self.subs.add(sub)
        if managed:
            dest_h = self._open_managed(conn, dest)
        hsub = self._sub_handle(conn, sub)
        self._answer(sd, sub)
        if not opts & (C.MQSO_NEW_PUBLICATIONS_ONLY | C.MQSO_PUBLICATIONS_ON_REQUEST):
            self._send_retained(sub)
        return dest_h, hsub

    def _resume(
        self,
        conn: Connection,
        sd: MQSD,
        sub: Subscription,
        dest_h: Handle | None,
        opts: int,
        object_string: str,
        user_data: str,
    ) -> tuple[Handle | None, Handle]:
        """RESUME (and ALTER) of an existing subscription: what may not change is refused, the rest applied."""
        alter = bool(opts & C.MQSO_ALTER)
        if object_string or blank_strip(sd.ObjectName):
            topic, _ = self.resolve_topic(blank_strip(sd.ObjectName), object_string)
            if topic != sub.topic:
                raise fail(C.MQRC_TOPIC_NOT_ALTERABLE, f"subscription {sub.name!r} is on topic {sub.topic!r}")
        if (opts & C.MQSO_DURABLE and not sub.durable) or (alter and not opts & C.MQSO_DURABLE and sub.durable):
            raise fail(C.MQRC_DURABILITY_NOT_ALTERABLE, f"the durability of subscription {sub.name!r} cannot change")
        if (opts & C.MQSO_MANAGED and not sub.managed) or (dest_h is not None and sub.managed):
            raise fail(C.MQRC_DEST_CLASS_NOT_ALTERABLE, f"subscription {sub.name!r} keeps its destination class")
        if alter and bool(opts & C.MQSO_WILDCARD_CHAR) != sub.char_scheme:
            raise fail(C.MQRC_OPTIONS_ERROR, f"the wildcard scheme of subscription {sub.name!r} cannot change")
        if alter:
            self._check_grouping_kept(sub, sd, dest_h, opts)
        managed_q = None
        if sub.managed:
            managed_q = self.queues.get(sub.dest)
            if managed_q is None:
                raise fail(C.MQRC_INVALID_DESTINATION, f"the managed queue {sub.dest} of {sub.name!r} is gone")
        # -- from here on it is resumed -----------------------------------------------------------------
        if alter:
            if dest_h is not None:
                sub.dest, sub.dest_qmgr = self._dest_of(dest_h)
            sub.user_data = user_data
            sub.expiry = sd.SubExpiry
            sub.pub_priority = sd.PubPriority
            if opts & C.MQSO_SET_CORREL_ID:
                sub.correl_id = bytes(sd.SubCorrelId)
            sub.on_request = bool(opts & C.MQSO_PUBLICATIONS_ON_REQUEST)
            sub.altered = self.clock.time()
            self.subs.remove(sub)
            self.subs.add(sub)  # its SubExpiry may have changed
            if sub.durable:
                self._store_sub(sub)
        if sub.managed:
            dest_h = self._open_managed(conn, sub.dest)
        hsub = self._sub_handle(conn, sub)
        self._answer(sd, sub)
        return dest_h, hsub

    def _check_group_sub(self, topic: str, char: bool, dest: str, dest_qmgr: str, correl: bytes, level: int) -> None:
        """A new grouped subscription (MQSO_GROUP_SUB) must not have the full topic name of a subscription already
        in its group: MQRC_DUPLICATE_GROUP_SUB (2514)."""
        group = (dest, dest_qmgr, correl, level)
        for s in self.subs.by_key.values():
            if s.grouped and group_of(s) == group and s.topic == topic and s.char_scheme == char:
                raise fail(
                    C.MQRC_DUPLICATE_GROUP_SUB,
                    f"grouped subscription {s.name or s.sub_id.hex()!r} of the same group already has topic {topic!r}",
                )

    def _check_grouping_kept(self, sub: Subscription, sd: MQSD, dest_h: Handle | None, opts: int) -> None:
        """MQSO_ALTER may not change grouping (IBM, 2515 MQRC_GROUPING_NOT_ALTERABLE: "Grouping of subscriptions
        is not alterable"): the MQSO_GROUP_SUB option, and of a grouped subscription its queue and SubCorrelId;
        nor the SubLevel of any subscription (2512 MQRC_SUBLEVEL_NOT_ALTERABLE)."""
        if sd.SubLevel != sub.sub_level:
            raise fail(C.MQRC_SUBLEVEL_NOT_ALTERABLE, f"the SubLevel of subscription {sub.name!r} cannot change")
        changed = bool(opts & C.MQSO_GROUP_SUB) != sub.grouped
        if sub.grouped:
            changed |= dest_h is not None and self._dest_of(dest_h) != (sub.dest, sub.dest_qmgr)
            changed |= bool(opts & C.MQSO_SET_CORREL_ID) and bytes(sd.SubCorrelId) != sub.correl_id
        if changed:
            raise fail(C.MQRC_GROUPING_NOT_ALTERABLE, f"the grouping of subscription {sub.name!r} cannot change")

    def _dest_of(self, h: Handle) -> tuple[str, str]:
        if h.remote is not None:
            return blank_strip(h.remote[0]), blank_strip(h.remote[1])
        assert h.queue is not None
        return h.queue.name, self.name

    def _open_managed(self, conn: Connection, qname: str) -> Handle:
        od = MQOD()
        od.ObjectName = padded(qname, 48)
        h = self.open(conn, od, C.MQOO_INPUT_AS_Q_DEF | C.MQOO_BROWSE | C.MQOO_INQUIRE)
        d = h.definition
        if d is not None and d.dynamic == C.MQQDT_TEMPORARY_DYNAMIC:
            h.owns_dynamic = True  # a non-durable subscription's managed queue goes with this handle
        return h

    def _sub_handle(self, conn: Connection, sub: Subscription) -> Handle:
        hobj = self._next_hobj
        self._next_hobj += 1
        h = Handle(hobj, conn, C.MQOT_TOPIC, sub.topic, 0, None, None, None)
        conn.handles[hobj] = h
        self._sub_handles[h] = sub
        sub.handle = h
        return h

    def _answer(self, sd: MQSD, sub: Subscription) -> None:
        """MQSUB's output fields."""
        sd.SubCorrelId = sub.correl_id
        sd.Options |= (C.MQSO_MANAGED if sub.managed else 0) | (C.MQSO_DURABLE if sub.durable else 0)
        sd.ResObjectString = sub.topic
        sd.SubLevel = sub.sub_level

    def _store_sub(self, sub: Subscription) -> None:
        if self.shared is not None:  # first: the group's store refusing it (2345) leaves nothing to undo here
            self._record_group_sub(sub)  # a subscription on a shared queue: in the group's (``_group_pubsub``)
        b = self._b()
        b.put_objects.append((SUB, sub.name, sub.to_bytes()))
        b.durable = True

    def _send_retained(self, sub: Subscription) -> int:
        """Send ``sub`` the retained publications it matches (outside any unit of work); how many were sent."""
        sent = 0
        for topic, r in sorted(self.retained.items()):
            if not sub.matches(topic):
                continue
            md = MQMD.unpack(r.md)
            out = self._copy_for(sub, md, md.Priority, md.Persistence, 0)
            try:
                t = self._resolve_target(sub.dest, sub.dest_qmgr if sub.dest_qmgr != self.name else "")
            except Exception:
                continue
            if t.queue.definition.dynamic == C.MQQDT_TEMPORARY_DYNAMIC:
                out.Persistence = C.MQPER_NOT_PERSISTENT
            # IBM: a publication sent from the retained store says so (MQIsRetained, RFH2 ``<mqps><Ret>``), and
            # names its topic (MQTopicString) as every publication does
            props = {**(r.props or {}), TOPIC_STRING: (C.MQTYPE_STRING, topic), IS_RETAINED: (C.MQTYPE_BOOLEAN, True)}
            if self._place(t, out, r.data, None, PUBLICATION, props) == C.MQRC_NONE:
                sent += 1
        return sent

    # -- MQSUBRQ and MQCLOSE of a subscription ---------------------------------------------------------
    def subrq(self, conn: Connection, hsub: Handle | int, action: int, sro: MQSRO) -> None:
        """MQSUBRQ(MQSR_ACTION_PUBLICATION): send the subscription its retained publications now."""
        h = self._handle(conn, hsub)
        sub = self._sub_handles.get(h)
        if sub is None:
            raise fail(C.MQRC_HOBJ_ERROR, "MQSUBRQ needs a subscription handle (from MQSUB)")
        if action != C.MQSR_ACTION_PUBLICATION:
            raise fail(C.MQRC_ACTION_ERROR, f"Action {action} is not valid: use MQSR_ACTION_PUBLICATION")
        if sro.StrucId != b"SRO " or sro.Version != C.MQSRO_VERSION_1:
            raise fail(C.MQRC_SRO_ERROR, "the subscription request options are not a valid MQSRO")
        if sro.Options & ~C.MQSRO_FAIL_IF_QUIESCING:
            raise fail(C.MQRC_OPTIONS_ERROR, f"unknown MQSRO options {sro.Options:#x}")
        sro.NumPubs = self._send_retained(sub)
        if sro.NumPubs == 0:
            raise fail(C.MQRC_NO_RETAINED_MSG, f"no retained publication matches {sub.topic!r}")

    def _close_topic_handle(self, h: Handle, options: int) -> None:
        """MQCLOSE of a topic handle: a publisher's ends; a subscription's ends a non-durable subscription, and
        a durable one with MQCO_REMOVE_SUB."""
        sub = self._sub_handles.get(h)
        if sub is None:
            if options & (C.MQCO_KEEP_SUB | C.MQCO_REMOVE_SUB | C.MQCO_DELETE | C.MQCO_DELETE_PURGE):
                raise fail(C.MQRC_OPTION_NOT_VALID_FOR_TYPE, "a publisher's topic handle takes no close options")
            h.conn.handles.pop(h.hobj, None)
            return
        if options & (C.MQCO_DELETE | C.MQCO_DELETE_PURGE):
            raise fail(C.MQRC_OPTION_NOT_VALID_FOR_TYPE, "MQCO_DELETE is for dynamic queues, not subscriptions")
        if options & C.MQCO_KEEP_SUB and options & C.MQCO_REMOVE_SUB:
            raise fail(C.MQRC_OPTIONS_ERROR, "MQCO_KEEP_SUB and MQCO_REMOVE_SUB together")
        if options & C.MQCO_KEEP_SUB and not sub.durable:
            raise fail(C.MQRC_OPTION_NOT_VALID_FOR_TYPE, "MQCO_KEEP_SUB is for durable subscriptions")
        self._end_sub_handle(h, remove=bool(options & C.MQCO_REMOVE_SUB))

    def _end_sub_handle(self, h: Handle, remove: bool) -> None:
        """A subscription handle ends (MQCLOSE, MQDISC, the connection's end)."""
        h.conn.handles.pop(h.hobj, None)
        sub = self._sub_handles.pop(h, None)
        if sub is None:
            return
        sub.handle = None
        if remove or not sub.durable or sub.expired(self.clock.time()):
            self._remove_sub(sub)

    # -- administration (DEFINE / ALTER / DELETE SUB; DISPLAY SUB, SBSTATUS) ---------------------------
    def define_sub(self, name: str, attrs: dict[str, Any], replace: bool = False) -> dict[str, Any]:
        """DEFINE SUB(name) TOPICSTR(…) | TOPICOBJ(…) DEST(q) | DESTCLAS(MANAGED): an administrative durable
        subscription (SUBTYPE ADMIN), made as MQSUB would make it."""
        if not name:
            raise fail(C.MQRC_SUB_NAME_ERROR, "a subscription needs a name")
        old = self.subs.by_key.get(name)
        if old is not None:
            if not replace:
                raise fail(C.MQRC_SUB_ALREADY_EXISTS, f"subscription {name!r} already exists")
            if old.handle is not None:
                raise fail(C.MQRC_SUBSCRIPTION_IN_USE, f"subscription {name!r} is open by an application")
        if attrs.get("SELECTOR"):
            parse_selection(str(attrs["SELECTOR"]))  # refused before anything is made
        managed = attrs.get("DESTCLAS", C.MQDC_PROVIDED) == C.MQDC_MANAGED
        dest = str(attrs.get("DEST", ""))
        topic, tobj = self.resolve_topic(str(attrs.get("TOPICOBJ", "")), str(attrs.get("TOPICSTR", "")))
        chain = self.topic_chain(topic)
        if topic_attr(chain, "SUB") == C.MQTA_SUB_INHIBITED:
            raise fail(C.MQRC_SUB_INHIBITED, f"subscriptions are inhibited on topic {topic!r}")
        if topic_attr(chain, "DURSUB") == C.MQSUB_DURABLE_INHIBITED:
            raise fail(C.MQRC_DURABILITY_NOT_ALLOWED, f"topic {topic!r} does not allow durable subscriptions")
        model = None
        if managed:
            mname = topic_attr(chain, "MDURMDL")
            model = self.definitions.get(("Q", mname))
            if model is None or model.otype != QMODEL:
                raise fail(C.MQRC_INVALID_DESTINATION, f"model queue {mname!r} for the managed queue does not exist")
        elif not dest:
            raise fail(C.MQRC_INVALID_DESTINATION, "a subscription needs DEST(queue) or DESTCLAS(MANAGED)")
        elif str(attrs.get("DESTQMGR", "") or self.name) == self.name and not self._queue_known(dest):
            raise fail(C.MQRC_UNKNOWN_OBJECT_NAME, f"destination queue {dest} does not exist")
        now = self.clock.time()
        if old is not None:
            self._remove_sub(old)
        if managed:
            assert model is not None
            dest = self._create_dynamic(model, _MANAGED_PREFIX[True]).name
        sub_id = self.new_msgid()
        correl = attrs.get("DESTCORL")
        sub = Subscription(
            name=name,
            sub_id=sub_id,
            topic=topic,
            topic_object=tobj.name if tobj is not None else "",
            object_string=str(attrs.get("TOPICSTR", "")),
            char_scheme=attrs.get("WSCHEMA", C.MQWS_TOPIC) == C.MQWS_CHAR,
            durable=True,
            managed=managed,
            dest=dest,
            dest_qmgr=str(attrs.get("DESTQMGR", "") or self.name),
            correl_id=bytes.fromhex(correl) if isinstance(correl, str) and correl else sub_id,
            user_data=str(attrs.get("USERDATA", "")),
            selection=str(attrs.get("SELECTOR", "")),
            expiry=int(attrs.get("EXPIRY", C.MQEI_UNLIMITED)),
            pub_priority=int(attrs.get("PUBPRTY", C.MQPRI_PRIORITY_AS_PUBLISHED)),
            on_request=attrs.get("REQONLY", False) is True,
            sub_type=C.MQSUBTYPE_ADMIN,
            created=now,
            altered=now,
        )
        self._store_sub(sub)
        self.subs.add(sub)
        return sub_view(sub, self.name)

    def delete_sub(self, name: str = "", sub_id: bytes = b"") -> None:
        """DELETE SUB(name) / SUBID(id): a subscription in use by an application is refused (2429)."""
        sub = self.subs.by_key.get(name) if name else self.subs.by_id(sub_id)
        if sub is None:
            raise fail(C.MQRC_NO_SUBSCRIPTION, f"subscription {name or sub_id.hex()!r} does not exist")
        if sub.handle is not None:
            raise fail(C.MQRC_SUBSCRIPTION_IN_USE, f"subscription {sub.name!r} is open by an application")
        self._remove_sub(sub)

    def subscriptions(self, name: str = "*", sub_id: bytes = b"") -> list[dict[str, Any]]:
        """DISPLAY SUB / SBSTATUS, Inquire Subscription (Status): the subscriptions named (a generic name with a
        trailing ``*``, or one SubId), each as its MQSC keywords. None: MQRC_NO_SUBSCRIPTION."""
        self._sweep_expired_subs()
        if sub_id:
            found = [self.find_sub(sub_id=sub_id)]
        elif name.endswith("*"):
            found = [s for s in self.list_subs() if s.name.startswith(name[:-1]) and (s.name or name == "*")]
        else:
            found = [self.find_sub(name)]
        if not found:
            raise fail(C.MQRC_NO_SUBSCRIPTION, f"no subscription matches {name!r}")
        return [sub_view(s, self.name) for s in found]

    def alter_sub(self, name: str, attrs: dict[str, Any]) -> dict[str, Any]:
        """ALTER SUB / Change Subscription: what may change (DEST, USERDATA, EXPIRY, PUBPRTY, REQONLY); the
        topic, durability and destination class may not (MQRC_TOPIC_NOT_ALTERABLE …)."""
        sub = self.find_sub(name)
        if sub.handle is not None:
            raise fail(C.MQRC_SUBSCRIPTION_IN_USE, f"subscription {name!r} is open by an application")
        if str(attrs.get("TOPICSTR", sub.object_string)) != sub.object_string:
            raise fail(C.MQRC_TOPIC_NOT_ALTERABLE, f"subscription {name!r} keeps its topic")
        if str(attrs.get("SELECTOR", sub.selection)) != sub.selection:  # IBM: SELECTOR is set at DEFINE only
            raise fail(C.MQRC_SELECTOR_NOT_ALTERABLE, f"subscription {name!r} keeps its selection string")
        if "DESTCLAS" in attrs and (attrs["DESTCLAS"] == C.MQDC_MANAGED) != sub.managed:
            raise fail(C.MQRC_DEST_CLASS_NOT_ALTERABLE, f"subscription {name!r} keeps its destination class")
        dest = str(attrs.get("DEST", sub.dest))
        if dest != sub.dest and not self._queue_known(dest):
            raise fail(C.MQRC_UNKNOWN_OBJECT_NAME, f"destination queue {dest} does not exist")
        sub.dest = dest
        sub.user_data = str(attrs.get("USERDATA", sub.user_data))
        sub.expiry = int(attrs.get("EXPIRY", sub.expiry))
        sub.pub_priority = int(attrs.get("PUBPRTY", sub.pub_priority))
        sub.on_request = bool(attrs.get("REQONLY", sub.on_request))
        sub.altered = self.clock.time()
        self.subs.remove(sub)
        self.subs.add(sub)  # its SubExpiry may have changed
        self._store_sub(sub)
        return sub_view(sub, self.name)

    def _queue_known(self, name: str) -> bool:
        """A queue of that name exists here (a shared queue another member of the group defined included)."""
        if ("Q", name) in self.definitions:
            return True
        return self.shared is not None and self.refresh_shared(name)

    def list_subs(self) -> list[Subscription]:
        return sorted(self.subs.by_key.values(), key=lambda s: (s.name, s.sub_id))

    def find_sub(self, name: str = "", sub_id: bytes = b"") -> Subscription:
        sub = self.subs.by_key.get(name) if name else self.subs.by_id(sub_id)
        if sub is None:
            raise fail(C.MQRC_NO_SUBSCRIPTION, f"subscription {name or sub_id.hex()!r} does not exist")
        return sub


def sub_view(s: Subscription, qmname: str) -> dict[str, Any]:
    """A subscription as DISPLAY SUB and SBSTATUS show it (MQSC keywords; IBM's numbers for the enumerations)."""
    cr, ct = mqsc_date_time(s.created)
    ad, at = mqsc_date_time(s.altered)
    ld, lt = mqsc_date_time(s.last_msg) if s.last_msg else ("", "")
    return {
        "SUB": s.name,
        "SUBID": s.sub_id.hex().upper(),
        "TOPICSTR": s.object_string if s.topic_object else s.topic,
        "TOPICOBJ": s.topic_object,
        "RESOLVED": s.topic,
        "DEST": s.dest,
        "DESTQMGR": s.dest_qmgr or qmname,
        "DESTCLAS": C.MQDC_MANAGED if s.managed else C.MQDC_PROVIDED,
        "DESTCORL": s.correl_id.hex().upper(),
        "DURABLE": C.MQSUB_DURABLE_YES if s.durable else C.MQSUB_DURABLE_NO,
        "SUBTYPE": s.sub_type,
        "SUBSCOPE": C.MQTSCOPE_ALL,
        "EXPIRY": s.expiry,
        "PUBPRTY": s.pub_priority,
        "USERDATA": s.user_data,
        "SELECTOR": s.selection,
        "WSCHEMA": C.MQWS_CHAR if s.char_scheme else C.MQWS_TOPIC,
        "REQONLY": C.MQRU_PUBLISH_ON_REQUEST if s.on_request else C.MQRU_PUBLISH_ALL,
        "SUBLEVEL": s.sub_level,
        "CRDATE": cr,
        "CRTIME": ct,
        "ALTDATE": ad,
        "ALTTIME": at,
        "ACTCONN": f"{s.handle.conn.hconn:048X}" if s.handle is not None else "0" * 48,
        "LMSGDATE": ld,
        "LMSGTIME": lt,
        "NUMMSGS": s.msg_count,
    }
