"""Publish/subscribe across a queue-sharing group: a subscription on a shared queue receives the publications
made on any member.

References: reference/queue-sharing-groups.md ("What is shared"); issue 34 ("A subscriber on a shared queue of a
group receives publications made on any member"); docs/queue-sharing-groups.md ("Publish/subscribe across the
group").

Theory of operation
-------------------
A subscription is its queue manager's own, as in IBM MQ; what the group shares is its destination. A *group
subscription* is a durable subscription of a member whose destination is a shared queue (DEST on this queue
manager or on the group's name): the member records it in the group's ``qsg_sub`` table (``store/_qsg_subs``)
whenever it stores it (MQSUB create / alter, DEFINE / ALTER SUB) and forgets it when the subscription ends, and
at its start makes the table agree with its own store (a crash between the two writes heals there).

A publication on any member matches its own subscriptions (``self.subs``) and the other members' group
subscriptions, read from the table at each publication (:meth:`GroupPubSubMixin._group_subs_for`: one statement
for a member of a group; none for a queue manager in no group). The publishing member puts the copy on the shared
queue itself — in the publisher's unit of work when the publication is in syncpoint — exactly as it puts a copy
for a subscription of its own, so each matching subscription gets one copy, however many members run, and a
member that dies before its commit takes its uncommitted copies along (peer recovery backs its unit of work
out). The subscribing member does not see the publication: its NUMMSGS / LMSGDATE count the publications made
on it only.

A persistent publication out of syncpoint is delivered in an internal unit of work on a member of a group
(:meth:`GroupPubSubMixin._publish`), as IBM's queue manager uses "internal syncpoints to guarantee that messages
are delivered as requested" under PMSGDLV(ALLDUR) ("Publications under syncpoint"): its copies, private and on
shared queues, are committed together (two-phase when both), so a member killed in the middle delivers all of
them or none. The application's own unit of work, if it has one, is set aside meanwhile and untouched.

The status of the publish/subscribe engine (DISPLAY PUBSUB, PCF Inquire Pub/Sub Status) is here too:
:meth:`GroupPubSubMixin.pubsub_status`, the one answer both give.
"""

from __future__ import annotations

from typing import Any

from syncpoint.mqi import MQMD, MQPMO
from syncpoint.mqi import constants as C

from ._pubsub import PublishMixin
from ._shared_defs import group_call
from ._state import Connection, Handle
from ._topics import Subscription, topic_attr
from ._util import fail


class GroupPubSubMixin(PublishMixin):
    """Group subscriptions: recorded in the group, matched by every member's publications."""

    _group_sub_cache: dict[bytes, Subscription]  # a stored subscription -> its parsed form (matchers kept)
    _group_sub_names: set[str]  # the names of this member's subscriptions recorded in the group

    def _sub_in_group(self, sub: Subscription) -> bool:
        """Whether ``sub`` is a group subscription: durable, its destination a shared queue of this group."""
        shared = self.shared
        if shared is None or not sub.durable or sub.dest_qmgr not in (self.name, shared.qsg):
            return False
        q = self.queues.get(sub.dest)
        return q is not None and q.shared

    @group_call
    def _record_group_sub(self, sub: Subscription) -> None:
        """``sub`` was stored: recorded in the group when it is a group subscription, forgotten there when it is
        not (any more: ALTER SUB of its DEST)."""
        shared = self.shared
        if shared is None or not sub.durable:
            return
        if self._sub_in_group(sub):
            shared.put_group_sub(sub.name, sub.to_bytes())
            self._group_sub_names.add(sub.name)
        elif sub.name in self._group_sub_names:
            shared.delete_group_subs([sub.name])
            self._group_sub_names.discard(sub.name)

    @group_call
    def _forget_group_sub(self, sub: Subscription) -> None:
        """A durable subscription ended: out of the group's table."""
        if self.shared is not None and sub.name in self._group_sub_names:
            self.shared.delete_group_subs([sub.name])
            self._group_sub_names.discard(sub.name)

    @group_call
    def _sync_group_subs(self) -> None:
        """At start: the group's table holds exactly this member's group subscriptions."""
        shared = self.shared
        self._group_sub_cache = {}
        self._group_sub_names = set()
        if shared is None:
            return
        mine = [s for s in self.subs.by_key.values() if self._sub_in_group(s)]
        shared.delete_group_subs([s.name for s in mine], keep=True)
        for s in mine:
            shared.put_group_sub(s.name, s.to_bytes())
        self._group_sub_names = {s.name for s in mine}

    @group_call
    def _group_subs_for(self, topic: str) -> list[Subscription]:
        """The other members' group subscriptions that match ``topic`` (their selection strings, SubExpiry and
        publish-on-request are judged by the caller as for this member's own), each addressed to the shared
        queue through this member."""
        shared = self.shared
        assert shared is not None
        cache, fresh = self._group_sub_cache, {}
        out = []
        for member, _name, raw in shared.group_subs():
            if member == self.name:
                continue  # this member's own are in self.subs
            s = cache.get(raw)
            if s is None:
                s = Subscription.from_bytes(raw)
                s.dest_qmgr = self.name  # the shared queue is reached from this member
            fresh[raw] = s
            if s.matches(topic):
                if s.dest not in self.queues:
                    self.refresh_shared(s.dest)  # a shared queue defined since this member started
                out.append(s)
        self._group_sub_cache = fresh
        return out

    def _publish(self, conn: Connection, h: Handle, md: MQMD, pmo: MQPMO, data: bytes, props: Any = None) -> int:
        """MQPUT / MQPUT1 on a topic (``_pubsub``); on a member of a group a persistent publication out of
        syncpoint runs in an internal unit of work, committed before the call returns (see the module doc)."""
        opts = pmo.Options
        if self.shared is None or opts & C.MQPMO_SYNCPOINT or not self._persistent(h, md):
            return super()._publish(conn, h, md, pmo, data, props)
        hconn = conn.hconn
        saved = conn.uow, self._shared_uows.pop(hconn, None), self._retained_pending.pop(hconn, None)
        conn.uow = None
        pmo.Options = (opts & ~C.MQPMO_NO_SYNCPOINT) | C.MQPMO_SYNCPOINT
        try:
            reason = super()._publish(conn, h, md, pmo, data, props)
            self._commit(conn)
        except BaseException:
            self._backout(conn, honour_mark=False)
            raise
        finally:
            pmo.Options = opts
            conn.uow = saved[0]
            if saved[1] is not None:
                self._shared_uows[hconn] = saved[1]
            if saved[2] is not None:
                self._retained_pending[hconn] = saved[2]
        return reason

    def _persistent(self, h: Handle, md: MQMD) -> bool:
        """Whether a publication with this MQMD on handle ``h``'s topic is persistent (the topic's DEFPSIST when
        the MQMD asks for the default)."""
        if md.Persistence == C.MQPER_PERSISTENCE_AS_Q_DEF:
            return bool(topic_attr(self.topic_chain(h.name), "TPDEFPSIST") == C.MQPER_PERSISTENT)
        return bool(md.Persistence == C.MQPER_PERSISTENT)

    # -- DISPLAY PUBSUB / Inquire Pub/Sub Status ----------------------------------------------------------
    def pubsub_status(self, status_type: str = "ALL") -> list[dict[str, Any]]:
        """The publish/subscribe engine's status, as DISPLAY PUBSUB TYPE(…) and PCF Inquire Pub/Sub Status
        (MQIACF_PS_STATUS_TYPE) list it: TYPE(LOCAL) for this queue manager; syncpoint joins no hierarchy
        (PARENT is blank), so TYPE(PARENT) and TYPE(CHILD) have no rows and TYPE(ALL) is the LOCAL one. STATUS is
        IBM's for PSMODE (ENABLED: ACTIVE, COMPAT: COMPAT, DISABLED: INACTIVE); SUBCOUNT counts the subscriptions
        (durable and not, administrative and API); TPCOUNT the nodes of the topic tree: each level of every topic
        string the queue manager knows (topic objects', subscriptions' and retained publications'), counted once."""
        if status_type not in ("ALL", "LOCAL", "PARENT", "CHILD"):
            raise fail(C.MQRC_SELECTOR_ERROR, f"TYPE({status_type}) is LOCAL, PARENT, CHILD or ALL")
        if status_type in ("PARENT", "CHILD"):
            return []
        self._sweep_expired_subs()
        nodes: set[str] = set()
        for topic in self.topic_strings():
            levels = topic.split("/")
            nodes.update("/".join(levels[: i + 1]) for i in range(len(levels)))
        mode = self.qmgr.attrs.get("PSMODE", "ENABLED")
        status = {"ENABLED": "ACTIVE", "COMPAT": "COMPAT", "DISABLED": "INACTIVE"}.get(str(mode), "ACTIVE")
        return [
            {"QMNAME": self.name, "TYPE": "LOCAL", "STATUS": status, "SUBCOUNT": len(self.subs.by_key),
             "TPCOUNT": len(nodes)}
        ]  # fmt: skip
