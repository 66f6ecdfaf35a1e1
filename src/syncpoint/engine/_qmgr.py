"""The queue manager: a deterministic state machine whose public operations are MQI verbs.

Theory of operation
-------------------
* The engine does no I/O, starts no threads, never blocks and reads nothing of the operating system (the host
  gives it the clock, and each connection's user and process id). The caller (the host: ``syncpoint.client``'s
  in-process runner or the network server) serialises calls with one lock, and after each call takes the
  *effects* the call left (``_effects``): a :class:`~syncpoint.store.Batch` to hand to the store (submitted while
  the lock is still held, so the store sees changes in engine order; waited on after the lock is released, so
  many connections share one sync — group commit), the names of queues whose waiting getters may now succeed,
  and the messages the queue manager put itself (trigger messages, reports, dead letters).
* Persistent messages reach the store at commit (or at the put / get itself outside syncpoint). A persistent
  message got inside a unit of work is *marked in flight* in the store (a cheap, unsynced write): if the process
  dies, the store's recovery backs the get out and increments BackoutCount, as IBM MQ does with HARDENBO.
* Non-persistent messages never touch the store.
* A failing call changes nothing: every check runs before the first change.
* Time comes from the injected clock.

Choices where IBM's documentation is silent or platform-specific (Linux behaviour is taken):
* MQPUT / MQGET default to no syncpoint; MQDISC commits; an abnormal end backs out.
* A persistent message becomes available to other connections only once the store has made its commit (or its
  put outside syncpoint) durable, as IBM MQ makes it available once the commit is on the log: the commit leaves
  it DURABLE_PENDING and the host, told by the store, calls :meth:`made_durable` (``_effects``). No consumer
  ever gets a message that a crash then loses (issue 24). A non-persistent message is available at its commit,
  unless the same call committed a persistent one: then it waits with it (a unit of work becomes available whole).

The map: one module per rule or verb
------------------------------------
:class:`QueueManager` is composed of one part per rule or verb, each a mixin over ``_base.QueueManagerBase``
(the shared state, declared once and typed). A part is named after what it does:

==================  ==========================================================================================
``_connections``    MQCONN, MQDISC, MQCMIT, MQBACK: connections and units of work
``_skip_backout``   MQGMO_MARK_SKIP_BACKOUT (seed 000)
``_options``        which option words each verb accepts (MQOO, MQCO, MQPMO, MQGMO)
``_open``           MQOPEN, MQCLOSE, dynamic queues
``_put``            MQPUT, MQPUT1
``_get``            MQGET: gets, browses, the browse cursor and its lock
``_trigger``        triggering: the conditions for a trigger event (seed 001)
``_expiry``         message expiry: discards, EXPRYINT scans, REFRESH QMGR TYPE(EXPIRY) (seed 002)
``_shared_rules``   seeds 001 and 002 on shared queues: group-wide trigger rules, the group's one expiry scanner
``_reports``        reports (COA, COD, expiration, exception), dead letters, and the queue manager's own puts
``_resolve``        name resolution: remote queues, queue-manager aliases, transmission queues
``_remote``         puts to remote queues, reply-to queue aliases, the channels' deliveries (``remote``: MQXQH)
``_tokens``         MsgTokens: reservations and gets by token (syncpoint's own, for Spark)
``_inquire``        MQINQ, MQSET, and applying attribute changes
``_admin``          DEFINE, ALTER, DELETE, CLEAR, DISPLAY QSTATUS, crtmqm's initial objects
``_topics``         topic strings, topic objects' inheritance, subscriptions as data, wildcard matching
``_pubsub``         MQOPEN of a topic, publishing, retained publications, topic objects' verbs
``_group_pubsub``   subscriptions on shared queues every member publishes to; DISPLAY PUBSUB's status
``_subscribe``      MQSUB, MQSUBRQ, closing subscriptions, administrative subscriptions
``_authority``      authority checks (IBM's OAM) and SET / DELETE / DISPLAY AUTHREC; the rules as data in ``_oam``
``_chlauth``        channel authentication: CHLAUTH records, SET / DISPLAY CHLAUTH, a client's admission
``_events``         IBM's event messages: performance, queue manager, remote, start and stop events
``_admin_events``   configuration and command events of the administrative verbs
``_effects``        what a call leaves for the host: store batch, wakes, system puts — and why as data
``_statistics``     statistics and accounting messages (STATMQI, STATQ, ACCTMQI, ACCTQ), their intervals
``_state``          the nouns: messages, local queues, connections, handles, units of work
``_base``           the shared state and the helpers every verb uses
==================  ==========================================================================================

Imports point one way — ``_util`` < ``_state`` < ``_options`` < ``_effects`` < ``_trigger`` < ``_base`` < the
parts < this module (and among the parts, ``_get`` uses ``_put``'s context fields, ``_get`` and ``_put`` use
``_expiry``'s functions, ``_expiry``, ``_remote`` and ``_shared_rules`` use ``_reports``' ``report_wanted``,
``_connections`` and ``_get`` use ``_skip_backout``; ``remote``, the MQXQH functions, imports no part) — never
back, not even for types:
``_trigger`` reads the queue manager through a protocol, and the base declares what one part calls on another.
"""

from __future__ import annotations

import struct

from syncpoint.mqi import MQMD
from syncpoint.mqi import constants as C
from syncpoint.mqi.objects import (
    AUTHINFO,
    CHANNEL,
    NAMELIST,
    PROCESS,
    QALIAS,
    QLOCAL,
    QMGR,
    QMODEL,
    QREMOTE,
    Definition,
)
from syncpoint.mqi.properties import unpack_props
from syncpoint.store import DECISION_KIND, SharedQueues, Snapshot

from ._admin import AdminMixin
from ._admin_events import AdminEventsMixin
from ._authority import AuthorityMixin
from ._chlauth import ChlauthMixin
from ._chlstats import ChannelStatisticsMixin
from ._connections import ConnectionsMixin
from ._effects import MD2_LENGTH
from ._expiry import ExpiryMixin
from ._get import GetMixin
from ._indoubt import IndoubtMixin
from ._inquire import InquireMixin
from ._metrics import MetricsMixin
from ._open import OpenMixin
from ._put import PutMixin
from ._remote import RemoteMixin
from ._reports import ReportsMixin
from ._resolve import ResolveMixin
from ._security import SecurityMixin
from ._shared import SharedMixin
from ._shared_defs import COPY_KIND
from ._shared_rules import SharedRulesMixin
from ._state import LocalQueue, Message
from ._subscribe import SubscribeMixin
from ._tokens import TokensMixin
from ._trigger import Triggering
from ._util import fail, padded
from .clock import Clock


class QueueManager(
    ConnectionsMixin,
    OpenMixin,
    PutMixin,
    GetMixin,
    ExpiryMixin,
    RemoteMixin,
    ReportsMixin,
    ResolveMixin,
    TokensMixin,
    InquireMixin,
    ChlauthMixin,
    SecurityMixin,
    AdminMixin,
    SharedMixin,
    SharedRulesMixin,
    IndoubtMixin,
    SubscribeMixin,
    AuthorityMixin,
    MetricsMixin,
    AdminEventsMixin,
    ChannelStatisticsMixin,  # and StatisticsMixin, which it extends
):
    """One queue manager's state. Not thread-safe by itself: callers serialise (see module doc)."""

    def __init__(self, name: str, snapshot: Snapshot, clock: Clock, shared: SharedQueues | None = None) -> None:
        self.name = name
        self.shared = shared  # the queue-sharing group's shared store (``_shared``); None outside a group
        self.clock = clock
        self.definitions = {}
        self.queues = {}
        self.connections = {}
        self._next_hconn = 1
        self._next_hobj = 1
        super().__init__()  # the effects (_effects.EffectsRecorder)
        self._msgid_prefix = b"AMQ " + name.encode()[:12].ljust(12, b" ")
        self.name48 = padded(name, 48)
        self._msgid_counter = int(clock.time() * 1_000_000)
        self._dyn_counter = 0
        self.quiescing = False
        self._expiry_candidates = set()
        self._next_expiry_scan = clock.monotonic()
        self.expired_discarded = 0  # messages discarded because they expired (statistics)
        self.started = clock.time()
        self.recovered_inflight = snapshot.recovered_inflight
        self.triggering = Triggering(self)  # seed 001; its TRIGINT timers start afresh with every start
        self._init_shared_rules()  # seeds 001 and 002 on shared queues (``_shared_rules``)
        self._load(snapshot)
        self._load_pubsub(snapshot)  # topics, durable subscriptions, retained publications (``_pubsub``)
        self._load_security(snapshot.counters)  # CONNAUTH in force (``_security``)
        self._load_admin_queues(snapshot.counters)  # the event, statistics and accounting queues (``_events``)
        self._init_oam(snapshot.objects)  # authority records, groups, the creator (``_authority``)
        self._load_chlauth(snapshot.objects, snapshot.counters)  # channel authentication records (``_chlauth``)
        self._load_shared(set(snapshot.objects.get(COPY_KIND, {})), set(snapshot.objects.get(DECISION_KIND, {})))
        self._sync_group_subs()  # the group's subscriptions on shared queues: this member's (``_group_pubsub``)
        self.monitoring_refresh()  # STATMQI / STATQ / ACCTMQI / ACCTQ in force (``_statistics``)
        self.qmgr_started()  # STRSTPEV's Queue Manager Active event (``_events``)

    # -- construction ---------------------------------------------------------------------------------
    def _load(self, snap: Snapshot) -> None:
        qm = snap.objects.get(QMGR, {})
        if self.name not in qm:
            raise fail(C.MQRC_Q_MGR_NAME_ERROR, f"the store holds no queue manager named {self.name}")
        self.qmgr = Definition.from_bytes(qm[self.name])
        for otype in (QLOCAL, QMODEL, QALIAS, QREMOTE, PROCESS, CHANNEL, NAMELIST, AUTHINFO):
            for raw in snap.objects.get(otype, {}).values():
                d = Definition.from_bytes(raw)
                self.definitions[(self._ns(otype), d.name)] = d
                if otype == QLOCAL:
                    self.queues[d.name] = LocalQueue(d, self._expiry_candidates)
        max_seq = 0
        for sm in snap.messages:
            q = self.queues.get(sm.queue)
            if q is None:
                continue  # a message of a queue deleted while the batch was in flight: dropped
            md = MQMD.unpack(sm.md)
            m = Message(
                sm.seq,
                q,
                sm.priority,
                True,
                dict(md.__dict__),
                sm.data,
                md.MsgId,
                md.CorrelId,
                md.GroupId,
                md.MsgSeqNumber,
                md.Expiry,
                sm.put_time,
                sm.backout_count,
            )
            if len(sm.md) > MD2_LENGTH:
                m.props = unpack_props(sm.md[MD2_LENGTH:])  # the properties kept after the MQMD
            q.make_available(m)
            q.depth += 1
            max_seq = max(max_seq, sm.seq)
            if md.MsgId[:16] == self._msgid_prefix:
                # MsgIds stay unique across restarts even when the clock has not moved past the old ones
                self._msgid_counter = max(self._msgid_counter, struct.unpack_from(">Q", md.MsgId, 16)[0])
        self._seq = max(max_seq, snap.counters.get("seq", 0)) + 1
        self._msgid_counter = max(self._msgid_counter, snap.counters.get("msgid", 0))
        self._msgid_reserved = self._msgid_counter
        self.count_remote_definitions()
