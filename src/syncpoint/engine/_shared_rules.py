"""The seeds' rules on shared queues: triggering (seed 001, notes 3b, 4a, 4b) and expiry (seed 002, "Periodic
scan": "Shared queues are scanned by only one queue manager in a queue-sharing group").

References: seed 001_30538df842c6cd11.txt, seed 002_b264ab86f94f09d9.txt, reference/queue-sharing-groups.md
("Triggering on shared queues", "Expiry on shared queues"); docs/queue-sharing-groups.md.

Theory of operation
-------------------
Triggering. A message on a shared queue counts for triggering once it is committed (note 3b), and it may be
committed by any member. So no member triggers at the put: every member learns that committed messages arrived
on a shared queue from the group's wake-up (the NOTIFY every commit sends, its own included; ``host._group``
calls :meth:`SharedRulesMixin.check_shared_triggers` with the queues named), and evaluates the seed's conditions
itself with the rule code of private queues (``_trigger``): :meth:`~._trigger.Triggering.criteria` reads the
group's opens for input (note 4b: input exclusive anywhere, no trigger message from anyone; note 4a: another
member's shared input open makes this one's criteria FIRST with TriggerMsgPriority 0), conditions 4 to 10 are
``Triggering._target`` — condition 4 with this member's own OpenInputCount, condition 8 with this member's own
trigger monitor, so each member with a monitor may write its own trigger message — and conditions 3 and 11 are
``_trigger.arrival_triggers`` with the group's committed depth before and after the arrivals.

What arrived since this member last looked is the committed messages whose id (the group's put order) is above
the highest it saw then (``_trigger_seen``). The first look at a queue (after a start, or after TRIGGER was
turned on) has no such mark: everything on the queue counts as arrived, and it writes at most one trigger
message (as a restarted queue manager's monitor gets one for a queue with messages, condition 13). Besides the
NOTIFYs, the host's wake-up thread looks at every triggered shared queue each second (``TRIGGER_LOOK``): a lost
notification delays a trigger message, never loses it.

Expiry. The periodic scan of the shared queues is one member's: the one holding the group's scan lock (a PostgreSQL
advisory lock of its session, ``SharedQueues.lead_expiry_scan``). Every member with EXPRYINT set asks for it at
each of its EXPRYINT ticks (engine time, so a fake clock drives it in tests); the first to ask takes it and keeps
it for the life of its session, or until its EXPRYINT is turned off; when that member ends (endmqm, or killed:
PostgreSQL ends its session and frees the lock) the next member to ask takes it over, at its next tick: within one
EXPRYINT. The scan is a unit of work of the queue manager's own (:meth:`SharedRulesMixin._expire_shared`): it
claims the expired messages as that unit of work's gets, puts their expiration reports (MQRO_EXPIRATION*) in it,
and commits it — one PostgreSQL transaction when every report is on a shared queue, else the two-phase commit of
a unit of work over private and shared queues (``_shared``) — so discard and report happen together or not at all,
across a crash at any point. A get or browse that meets an expired message (``_shared._shared_met_expired``)
hands it to the same code (:meth:`SharedRulesMixin._discard_met`): the get's statement never deletes an expired
row (out of syncpoint it claims it instead: ``SharedMessage.expired``), one statement moves the row into a unit of
work of the queue manager's own, and :meth:`SharedRulesMixin._expiry_commit` reports and commits it as the scan's.
A message is claimed by one statement of one member, so its report is sent once.

Limits (docs/queue-sharing-groups.md): two commits whose ids interleave with a look may make the later look miss
one arrival (a FIRST trigger message then waits for the next arrival or TRIGINT).
"""

from __future__ import annotations

from syncpoint.mqi import MQMD, MQMIError
from syncpoint.mqi import constants as C
from syncpoint.mqi.properties import unpack_props
from syncpoint.store import SharedMessage, StoreError

from ._base import QueueManagerBase
from ._effects import MD2_LENGTH
from ._reports import original_of, report_wanted
from ._state import Connection, LocalQueue, Message, UnitOfWork
from ._trigger import arrival_triggers

TRIGGER_LOOK = 1.0  # seconds between two looks at every triggered shared queue (besides the NOTIFYs)
SCAN_BATCH = 500  # expired messages one unit of work of the scan discards and reports (_expire_shared)


class SharedRulesMixin(QueueManagerBase):
    """Seeds 001 and 002 on shared queues (see the module doc)."""

    _trigger_seen: dict[str, int]  # shared queue -> the highest committed id seen by the last look
    _next_trigger_look: float  # monotonic time of the next look at every triggered shared queue
    _next_shared_scan: float  # monotonic time of this member's next EXPRYINT tick for the shared queues
    shared_scans: int  # scans of the shared queues this member made as the group's scanner (statistics)
    _scanning: bool

    def _init_shared_rules(self) -> None:
        self._trigger_seen = {}
        self._next_trigger_look = 0.0
        self._next_shared_scan = self.clock.monotonic()
        self.shared_scans = 0
        self._scanning = False  # this member held the group's scan lock at its last tick

    # -- seed 001 ----------------------------------------------------------------------------------------
    def check_shared_triggers(self, names: list[str] | None) -> int:
        """Committed messages arrived on the shared queues ``names`` (None: the periodic look at every shared
        queue with TRIGGER on, at most every ``TRIGGER_LOOK`` seconds). Returns the trigger messages written."""
        if self.shared is None:
            return 0
        if names is None:
            mono = self.clock.monotonic()
            if mono < self._next_trigger_look:
                return 0
            self._next_trigger_look = mono + TRIGGER_LOOK
            names = [name for name, q in self.queues.items() if q.shared and q.attrs["TRIGGER"] == C.MQTC_ON]
        written = 0
        for name in names:
            q = self.queues.get(name)
            if q is not None and q.shared and not q.deleted:
                try:
                    written += self._shared_arrivals(q)
                except StoreError:
                    pass  # the group's store is away: the next look tries again
        return written

    def _shared_arrivals(self, q: LocalQueue) -> int:
        a = q.attrs
        if a["TRIGGER"] != C.MQTC_ON or a["TRIGTYPE"] == C.MQTT_NONE:
            self._trigger_seen.pop(q.name, None)  # not followed: the next look is a first look
            return 0
        shared = self.shared
        assert shared is not None
        triggering = self.triggering
        crit = triggering.criteria(q)  # notes 4a, 4b: the group's opens for input
        seen = self._trigger_seen.get(q.name)
        mpri = a["TRIGMPRI"] if crit is None else crit[1]
        depth, arrived, top = shared.trigger_counts(q.name, mpri, -1 if seen is None else seen)  # note 3b
        self._trigger_seen[q.name] = top if seen is None else max(seen, top)
        if crit is None or arrived <= 0:
            return 0
        target = triggering._target(q, (), crit)  # conditions 4 to 10, 4 with this member's own opens
        if target is None:
            return 0
        count = arrival_triggers(crit[0], depth - arrived, depth, crit[2], lambda: triggering._interval_passed(q))
        if seen is None:
            count = min(count, 1)  # a first look: what was already there makes one trigger message at most
        for _ in range(count):
            triggering._create(q, target, None, crit[0])
        return count

    # -- seed 002 ----------------------------------------------------------------------------------------
    def _shared_expiry_scan(self) -> None:
        """At this member's EXPRYINT tick: scan the group's shared queues if this member is the group's scanner
        (taking the scan over when no member holds it)."""
        shared = self.shared
        if shared is None:
            return
        interval = self.qmgr.attrs["EXPRYINT"]
        if interval <= 0:
            if self._scanning:  # EXPRYINT turned off on the scanner: another member with EXPRYINT takes over
                self._scanning = False
                try:
                    shared.release_expiry_scan()
                except StoreError:
                    pass  # the session is lost, and the lock with it
            return
        mono = self.clock.monotonic()
        if mono < self._next_shared_scan:
            return
        self._next_shared_scan = mono + interval
        try:
            self._scanning = shared.lead_expiry_scan()
        except StoreError:
            return  # the group's store is away: the verbs report it; the next tick tries again
        if not self._scanning:
            return
        self.shared_scans += 1
        now = self.clock.time()
        while self._expire_shared(now) >= SCAN_BATCH:
            pass

    def _expire_shared(self, now: float) -> int:
        """One unit of work of the scan: up to SCAN_BATCH expired messages claimed, discarded and reported
        (:meth:`_expiry_commit`). Returns how many it discarded (0 when the store failed: the next tick tries
        again)."""
        shared = self.shared
        assert shared is not None
        conn, uid = self._expiry_uow()
        try:
            claimed = shared.expire(now, uid, SCAN_BATCH)
        except StoreError:
            claimed = []
        return len(claimed) if self._expiry_commit(conn, uid, claimed, now) else 0

    def _discard_met(self, sm: SharedMessage, held: int | None, now: float) -> None:
        """An expired message a get or browse met (``_shared._shared_met_expired``): held by this session in
        ``held`` (a unit of work, a claim, a browse lock) or, None, still available. It moves to a unit of work of
        the queue manager's own, and is discarded and reported as the scan's are (:meth:`_expiry_commit`): a
        crash before that unit of work's commit leaves it to peer recovery (or, in doubt, to the member's
        restart), so its report is neither lost nor sent twice. Nothing to do when another member's get or scan
        took it first (it reports it). MQRC_CF_NOT_AVAILABLE (``group_call``) when the store fails."""
        shared = self.shared
        assert shared is not None
        conn, uid = self._expiry_uow()
        try:
            claimed = shared.expire(now, uid, 1, sm.id, held)
        except StoreError:
            self._shared_uows.pop(conn.hconn, None)
            raise
        if not self._expiry_commit(conn, uid, claimed, now):
            raise StoreError("The expired message met could not be discarded: it stays for a later get or the scan.")

    def _expiry_uow(self) -> tuple[Connection, int]:
        """A connection of the queue manager's own (never an application's: note 4), for one unit of work that
        discards expired messages, and its shared part's number."""
        conn = Connection(self._next_hconn, "syncpoint expiry", C.MQAT_QMGR, "", 0)
        self._next_hconn += 1
        return conn, self._shared_uow(conn)

    def _expiry_commit(self, conn: Connection, uid: int, claimed: list[SharedMessage], now: float) -> bool:
        """Seed 002, "an expired message is discarded and reported once": the expired messages ``claimed`` for the
        shared part ``uid`` of ``conn``'s unit of work (as its gets: by the scan, or one a get or browse met) get
        their expiration reports put in that unit of work, and it is committed — so a message's discard and its
        report happen together or not at all. With a report on a private queue (or a transmission queue) its
        commit is the two-phase one of any unit of work over private and shared queues (``_shared._shared_end``):
        a crash before the decision reinstates the messages for a later get or scan, with no report written;
        after it, the restart completes the discard. The connection lives for this call only. False when the
        store failed (nothing discarded: the messages are, or will be, backed out); True otherwise."""
        shared = self.shared
        assert shared is not None
        if not claimed:
            self._shared_uows.pop(conn.hconn, None)
            return True
        conn.uow = UnitOfWork(now)
        self.connections[conn.hconn] = conn  # the reports' puts on shared queues find their unit of work by it
        try:
            for sm in claimed:
                self._shared_expired(sm, conn.uow)
        except MQMIError:  # the group's store failed under a report's put: nothing discarded, nothing reported
            self._backout(conn, honour_mark=False)  # its shared part: released by the store, or by a new session
            return False
        finally:
            self.connections.pop(conn.hconn, None)
        try:
            self._commit(conn)
        except MQMIError:  # backed out: the messages stay, held until the store backs them out; none reported
            try:
                shared.backout(uid)
            except StoreError:
                pass  # the session was lost: the new one backed them out
            return False
        return True

    def _shared_expired(self, sm: SharedMessage, uow: UnitOfWork) -> None:
        """A shared-queue message this member discards because it expired, in the unit of work ``uow`` that
        discards it (:meth:`_expiry_commit`): counted, and its expiration report put in ``uow`` if it asked for
        one (seed 002, notes 3 and 4: at the discard, never in the application's unit of work)."""
        self.expired_discarded += 1
        md = MQMD.unpack(sm.md)
        props = unpack_props(sm.md[MD2_LENGTH:]) if len(sm.md) > MD2_LENGTH else None  # a report carries them
        keep = report_wanted(md.Report, C.MQFB_EXPIRATION)
        if keep < 0:
            return
        q = self.queues.get(sm.queue)
        if q is None:
            self.refresh_shared()  # a queue another member defined since this member last looked
            q = self.queues.get(sm.queue)
        if q is None:
            self.send_report(md, sm.data, C.MQFB_EXPIRATION, keep, uow, props)
            return
        fields = dict(md.__dict__)
        m = Message(
            0,
            q,
            sm.priority,
            sm.persistent,
            fields,
            sm.data,
            sm.msgid,
            sm.correlid,
            md.GroupId,
            md.MsgSeqNumber,
            sm.expiry,
            sm.put_time,
            sm.backout,
        )
        original, data = original_of(m)
        self.send_report(original, data, C.MQFB_EXPIRATION, keep, uow, props)
