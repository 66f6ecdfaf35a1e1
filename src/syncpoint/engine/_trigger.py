"""Triggering: when the queue manager writes a trigger message (seed 001_30538df842c6cd11.txt, "Conditions for a
trigger event"; triggering.md for the attributes, the process definition and the MQTM's fields).

Theory of operation
-------------------
The queue manager tells :class:`Triggering` about the events that can cause a trigger message, and nothing
else does: a message put on a local queue (MQPUT, MQPUT1, or a put by the queue manager itself — reports,
dead letters), the end of a unit of work, the last input handle of a queue closing, an initiation queue
opened for input, and changed attributes (MQSET or a command). For each event it checks the seed's conditions
in the seed's own terms and, when they hold, builds an MQTM and puts it on the initiation queue with the
queue manager's ``system_put`` (which dead-letters it with an MQDLH when the initiation queue cannot take it,
and records what it put in the call's effects: ``Effects.system_puts``). It reads the queue manager through
:class:`QueueManagerView`, so this module imports nothing that imports it.

* A put (conditions 1 to 10, and 11): the message's priority is at least TRIGMPRI (2); the number of
  messages of sufficient priority *before* this one was 0 for FIRST, anything for EVERY, TRIGDPTH - 1 for
  DEPTH (3); or, condition 11, it was not 0 (FIRST, only once TRIGINT has passed since this queue's last
  trigger message) or at least TRIGDPTH (DEPTH). Conditions 4 to 10 are :meth:`Triggering._target`.
* A put in a unit of work creates its trigger message at the put — counting, TRIGINT and DEPTH's switch to
  NOTRIGGER happen then, and the message's fields are the attributes of that moment — but the message is held
  by the unit of work and put on the initiation queue when it ends: at commit, and at backout for FIRST and
  DEPTH; a backed-out EVERY trigger is dropped.
* The other events (conditions 12 and 13; the seed's note 1) are not part of a unit of work and make at most
  one trigger message per application queue, EVERY included. Each checks the conditions the seed lists for
  it, and only those: the close of the only input handle checks 6 to 10; MQSET / ALTER checks 4 to 10 without
  8; put-enabling an initiation queue checks 4 to 10; get-enabling an application queue checks 4 to 10
  without 5; the first open for input of an initiation queue checks 4 to 10 without 8.
* After a DEPTH trigger message is created, TriggerControl is set to MQTC_OFF (stored like an ALTER).
* :func:`trigger_depth` is the one place that counts messages for triggering: for non-shared local queues,
  committed and uncommitted messages (what CURDEPTH counts), expired ones still on the queue included; for a
  shared queue, the group's committed messages only (note 3b).
* :meth:`Triggering.criteria` is the one place that reads the trigger criteria: the queue's TRIGTYPE, TRIGMPRI
  and TRIGDPTH, except on a shared queue (notes 4a, 4b): none at all while any member of the group has it open
  for exclusive input, and FIRST with TriggerMsgPriority 0 while another member has it open for shared input.
  Condition 4 (this queue manager's own OpenInputCount) is per member as on a private queue.
* :func:`arrival_triggers` is the one place that decides conditions 3 and 11 once messages arrived: for a put
  on a private queue here, and for a commit on a shared queue seen by every member (``_shared_rules``).

Choices where the seed is silent (Linux behaviour where known):
* TRIGINT is in milliseconds and is measured on the monotonic clock. The time of a queue's last trigger
  message lives in memory only, so a restart resets it: the first FIRST put on a non-empty queue after a
  restart triggers. A queue that has never had a trigger message counts as "interval elapsed".
* The initiation queue must be a local queue (an alias or model name is "not created" for condition 7).
* A trigger message, and the dead-letter copy of one that the initiation queue refused, never causes a
  trigger message itself: this keeps a mis-configured initiation queue from feeding a loop.
* A held trigger message whose application queue was deleted before the unit of work ended is dropped.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from syncpoint.mqi import MQMD, MQTM
from syncpoint.mqi import constants as C
from syncpoint.mqi.objects import PROCESS, QLOCAL, Definition
from syncpoint.store import Batch, SharedQueues, StoreError

from ._effects import TRIGGER, SystemPutKind
from ._state import PRIO_SHIFT, PUT_PENDING, Connection, LocalQueue, Message, PendingTrigger, UnitOfWork
from ._util import padded
from .clock import Clock


class QueueManagerView(Protocol):
    """What the triggering rules read of the queue manager, and the two things they do to it: put a message
    (``system_put``) and add to the store batch (``_b``). :class:`~syncpoint.engine.QueueManager` is one."""

    name: str
    clock: Clock
    definitions: dict[tuple[str, str], Definition]
    queues: dict[str, LocalQueue]
    connections: dict[int, Connection]
    shared: SharedQueues | None  # the queue-sharing group's store (None outside a group)

    def qm_attr(self, keyword: str) -> Any: ...

    def system_put(
        self, qname: str, md: MQMD, data: bytes, dest_qmgr: str | None = None, kind: SystemPutKind = ...
    ) -> bool: ...

    def _b(self) -> Batch: ...


# the seed's conditions, by number, that an event may leave out
_COND_IPPROCS = 4
_COND_GET = 5
_COND_MONITOR = 8

_TRIGGER_KEYS = ("TRIGGER", "TRIGTYPE", "TRIGMPRI", "TRIGDPTH")

Criteria = tuple[int, int, int]  # (TriggerType, TriggerMsgPriority, TriggerDepth) as they apply now


@dataclass(slots=True)
class _Target:
    initq: LocalQueue
    process: Definition | None  # None: a transmission queue with a blank PROCESS (condition 6)


def trigger_depth(qm: QueueManagerView, q: LocalQueue, min_priority: int, limit: int) -> int:
    """How many messages of ``q`` count for triggering at priority ``min_priority`` or above, up to ``limit``.

    Seed 001, condition 3, note a: for non-shared local queues both committed and uncommitted messages count
    (a put in a unit of work counts at once; a message got in a unit of work no longer counts, as for
    CURDEPTH). Expired messages still on the queue count too. The count stops at ``limit``: callers only
    need to know whether a threshold is reached, and a FIFO queue is then never walked further than that.
    """
    if limit <= 0:
        return 0
    if q.shared:  # note 3b: for shared queues, committed messages only — the group's, counted by its store
        if qm.shared is None:
            return 0
        try:
            return min(qm.shared.trigger_counts(q.name, min_priority, -1)[0], limit)
        except StoreError:
            return 0  # the group's store is unreachable: no trigger message now (the verbs report the outage)
    if min_priority <= 0:
        return min(q.depth, limit)
    if q.fifo:
        n = 0
        for m in q.iter_all():
            if m.priority >= min_priority:
                n += 1
                if n >= limit:
                    return n
    else:
        # delivery order is by priority: the keys of priority >= min_priority all lie below this bound
        n = int(q.index.bisect_left((10 - min_priority) << PRIO_SHIFT))
    if n < limit and q.uncommitted:
        for conn in qm.connections.values():
            uow = conn.uow
            if uow is None:
                continue
            for m in uow.puts:
                if m.queue is q and m.state == PUT_PENDING and m.priority >= min_priority:
                    n += 1
    return min(n, limit)


def arrival_triggers(ttype: int, before: int, now: int, tdepth: int, interval_passed: Callable[[], bool]) -> int:
    """How many trigger messages ``now - before`` suitable messages that just arrived cause (conditions 3 and
    11), ``before`` and ``now`` counting the messages of sufficient priority (condition 2) before and after:

    FIRST: one when the queue had none before (3), or had some and TRIGINT has passed since the last one (11);
    DEPTH: one when TRIGDPTH or more are there now (3: TRIGDPTH - 1 before; 11: TRIGDPTH or more before);
    EVERY: one per message.
    """
    arrived = now - before
    if arrived <= 0:
        return 0
    if ttype == C.MQTT_FIRST:
        return 1 if before <= 0 or interval_passed() else 0
    if ttype == C.MQTT_DEPTH:
        return 1 if now >= tdepth else 0
    if ttype == C.MQTT_EVERY:
        return arrived
    return 0


class Triggering:
    """The triggering rules of one queue manager (see the module doc)."""

    def __init__(self, qm: QueueManagerView) -> None:
        self.qm = qm
        self.last_trigger: dict[str, float] = {}  # queue name -> monotonic time of its last trigger message
        self._delivering = False
        self.generated = 0  # trigger messages created (statistics, tests)
        # local queues by the INITQ they name, built on first use, so that an open for input does not scan
        # every queue; kept up to date as queues are defined and as INITQ changes (deleted queues are skipped
        # when read and dropped at the next rebuild)
        self._by_initq: dict[str, list[LocalQueue]] | None = None

    def queue_added(self, q: LocalQueue) -> None:
        """A local queue was defined or created (dynamic)."""
        index = self._by_initq
        name = q.attrs.get("INITQ")
        if index is not None and name:
            index.setdefault(name, []).append(q)

    def initq_changed(self) -> None:
        """A queue's INITQ changed other than by :meth:`attributes_changed` (a shared queue ALTERed on another
        member of its group): the index by initiation queue is rebuilt at its next use."""
        self._by_initq = None

    # -- the conditions ----------------------------------------------------------------------------
    def criteria(self, q: LocalQueue) -> Criteria | None:
        """The trigger criteria that apply to ``q`` now; None when no trigger message may be written for it.

        A private queue's are its attributes. A shared queue's depend on the group's opens for input (seed 001,
        condition 4, notes a and b): if any queue manager of the group has it open with MQOO_INPUT_EXCLUSIVE, no
        queue manager writes a trigger message for it; while another queue manager has it open for shared input,
        this one treats it as TriggerType FIRST with TriggerMsgPriority 0, until all of them close it."""
        a = q.attrs
        crit = (a["TRIGTYPE"], a["TRIGMPRI"], a["TRIGDPTH"])
        if not q.shared:
            return crit
        shared = self.qm.shared
        if shared is None:
            return None
        try:
            exclusive, others = shared.input_opens(q.name)
        except StoreError:
            return None  # the group's state cannot be read: no trigger message now
        if exclusive:
            return None
        if others:
            return (C.MQTT_FIRST, 0, crit[2])
        return crit

    def _target(self, q: LocalQueue, skip: tuple[int, ...] = (), crit: Criteria | None = None) -> _Target | None:
        """Conditions 4 to 10 of the seed (minus those in ``skip``), under the criteria ``crit`` (read by
        :meth:`criteria` when not given); the initiation queue and process when they hold."""
        a = q.attrs
        qm = self.qm
        # 9: TriggerControl on; 10: TriggerType not NONE
        if a["TRIGGER"] != C.MQTC_ON:
            return None
        if a["TRIGTYPE"] == C.MQTT_NONE:
            return None
        if crit is None:
            crit = self.criteria(q)
            if crit is None:
                return None
        ttype = crit[0]
        # 4: for FIRST and DEPTH, nobody has the application queue open for input
        if _COND_IPPROCS not in skip and ttype in (C.MQTT_FIRST, C.MQTT_DEPTH) and q.ipprocs > 0:
            return None
        # 5: gets not inhibited (for USAGE NORMAL and XMITQ alike)
        if _COND_GET not in skip and a["GET"] == C.MQQA_GET_INHIBITED:
            return None
        # 6: a process definition that exists, or a blank PROCESS on a transmission queue
        process: Definition | None = None
        pname = a["PROCESS"]
        if pname:
            process = qm.definitions.get((PROCESS, pname))
            if process is None:
                return None
        elif a["USAGE"] != C.MQUS_TRANSMISSION:
            return None
        # 7: the initiation queue exists, get and put enabled, USAGE NORMAL, not a deleted dynamic queue
        iname = a["INITQ"]
        if not iname:
            return None
        d = qm.definitions.get(("Q", iname))
        if d is None or d.otype != QLOCAL:
            return None
        iq = qm.queues.get(iname)
        if iq is None or iq.deleted:
            return None
        ia = iq.attrs
        if ia["GET"] == C.MQQA_GET_INHIBITED or ia["PUT"] == C.MQQA_PUT_INHIBITED or ia["USAGE"] != C.MQUS_NORMAL:
            return None
        # 8: a trigger monitor has the initiation queue open for input
        if _COND_MONITOR not in skip and iq.ipprocs == 0:
            return None
        return _Target(iq, process)

    def _enough(self, q: LocalQueue, crit: Criteria) -> bool:
        """At least one (FIRST, EVERY) or TRIGDPTH (DEPTH) messages of sufficient priority (conditions 12, 13)."""
        ttype, mpri, tdepth = crit
        need = tdepth if ttype == C.MQTT_DEPTH else 1
        return trigger_depth(self.qm, q, mpri, need) >= need

    def _served(self, q: LocalQueue, skip: tuple[int, ...], types: tuple[int, ...] = ()) -> None:
        """One trigger message for ``q`` outside any unit of work (conditions 12, 13) when conditions 4 to 10
        but ``skip`` hold (for the types ``types`` only, when given) and it holds enough messages."""
        crit = self.criteria(q)
        if crit is None or (types and crit[0] not in types):
            return
        target = self._target(q, skip, crit)
        if target is not None and self._enough(q, crit):
            self._create(q, target, None, crit[0])

    def _interval_passed(self, q: LocalQueue) -> bool:
        last = self.last_trigger.get(q.name)
        if last is None:
            return True
        interval_ms = int(self.qm.qm_attr("TRIGINT"))
        return (self.qm.clock.monotonic() - last) * 1000.0 >= interval_ms

    # -- events ------------------------------------------------------------------------------------
    def message_put(self, m: Message, uow: UnitOfWork | None) -> None:
        """Condition 1: ``m`` was just put (available, or pending in ``uow``)."""
        q = m.queue
        a = q.attrs
        if a["TRIGGER"] != C.MQTC_ON or self._delivering or q.deleted:
            return
        mpri = a["TRIGMPRI"]
        if m.priority < mpri:  # 2
            return
        target = self._target(q)
        if target is None:
            return
        ttype = a["TRIGTYPE"]
        if ttype == C.MQTT_FIRST:
            n = trigger_depth(self.qm, q, mpri, 2)  # this one included: 2 means "not empty before"
        elif ttype == C.MQTT_DEPTH:
            n = trigger_depth(self.qm, q, mpri, a["TRIGDPTH"])
        else:
            n = 1
        if arrival_triggers(ttype, n - 1, n, a["TRIGDPTH"], lambda: self._interval_passed(q)):
            self._create(q, target, uow)

    def unit_of_work_ended(self, pending: list[PendingTrigger], committed: bool) -> None:
        """Condition 10's note: held trigger messages become available — all at commit, FIRST and DEPTH at
        backout."""
        for t in pending:
            if t.queue.deleted:
                continue
            if committed or t.trigger_type in (C.MQTT_FIRST, C.MQTT_DEPTH):
                self._deliver(t.initq, t.md, t.data)

    def input_closed(self, q: LocalQueue) -> None:
        """Condition 12: the only application serving ``q`` closed it (IPPROCS is now 0)."""
        if q.deleted or q.attrs["TRIGGER"] != C.MQTC_ON:
            return
        if not q.shared and q.attrs["TRIGTYPE"] not in (C.MQTT_FIRST, C.MQTT_DEPTH):
            return
        self._served(q, (_COND_IPPROCS, _COND_GET), (C.MQTT_FIRST, C.MQTT_DEPTH))  # "conditions 6 through 10"

    def initiation_queue_opened(self, iq: LocalQueue) -> None:
        """Condition 13 (last case): ``iq`` was opened for input and no other application had it open so.
        One trigger message per application queue served by ``iq`` that has enough messages."""
        for q in self._served_by(iq.name):
            self._served(q, (_COND_MONITOR,))

    def attributes_changed(self, d: Definition, before: dict[str, Any]) -> None:
        """Condition 13 and its first two sub-cases: MQSET / ALTER of the trigger attributes, PUT enable of an
        initiation queue, GET enable of an application queue. At most one trigger message per queue."""
        if d.otype != QLOCAL:
            return
        if before.get("INITQ") != d.attrs.get("INITQ"):
            self._by_initq = None
        q = self.qm.queues.get(d.name)
        if q is None or q.deleted:
            return
        a = d.attrs
        on_now = a["TRIGGER"] == C.MQTC_ON
        was_on = before.get("TRIGGER") == C.MQTC_ON
        criteria = on_now and (
            not was_on
            or before.get("TRIGTYPE") != a["TRIGTYPE"]
            or before.get("TRIGMPRI") != a["TRIGMPRI"]
            or (a["TRIGTYPE"] == C.MQTT_DEPTH and before.get("TRIGDPTH") != a["TRIGDPTH"])
        )
        get_enabled = before.get("GET") == C.MQQA_GET_INHIBITED and a["GET"] == C.MQQA_GET_ALLOWED
        put_enabled = before.get("PUT") == C.MQQA_PUT_INHIBITED and a["PUT"] == C.MQQA_PUT_ALLOWED
        target: _Target | None = None
        crit = self.criteria(q) if criteria or get_enabled else None
        if crit is not None and criteria:
            target = self._target(q, (_COND_MONITOR,), crit)  # "4 through 10 (excluding 8)"
        if crit is not None and target is None and get_enabled:
            target = self._target(q, (_COND_GET,), crit)  # "4 through 10, excluding 5"
        if crit is not None and target is not None and self._enough(q, crit):
            self._create(q, target, None, crit[0])
        if put_enabled:
            for app in self._served_by(q.name):
                self._served(app, ())  # "conditions 4 through 10"

    def _served_by(self, initq: str) -> list[LocalQueue]:
        """The local queues with TRIGGER on whose INITQ is ``initq``, in name order."""
        index = self._by_initq
        if index is None:
            index = {}
            for q in self.qm.queues.values():
                name = q.attrs.get("INITQ")
                if name:
                    index.setdefault(name, []).append(q)
            self._by_initq = index
        served = index.get(initq)
        if not served:
            return []
        if any(q.deleted for q in served):
            served[:] = [q for q in served if not q.deleted]
        return sorted(
            (q for q in served if q.attrs["TRIGGER"] == C.MQTC_ON and q.attrs.get("INITQ") == initq),
            key=lambda x: x.name,
        )

    # -- the trigger message -----------------------------------------------------------------------
    def trigger_message(self, q: LocalQueue, process: Definition | None) -> tuple[MQMD, bytes]:
        """The MQMD and MQTM of a trigger message for ``q``, from the attributes of this moment."""
        qm = self.qm
        a = q.attrs
        tm = MQTM(
            QName=padded(q.name, 48),
            ProcessName=padded(process.name if process is not None else "", 48),
            TriggerData=padded(a["TRIGDATA"], 64),
        )
        if process is None:  # condition 6, second case: a transmission queue without a process
            tm.ApplType = C.MQAT_UNKNOWN
        else:
            p = process.attrs
            tm.ApplType = p["APPLTYPE"]
            tm.ApplId = padded(p["APPLICID"], 256)
            tm.EnvData = padded(p["ENVRDATA"], 128)
            tm.UserData = padded(p["USERDATA"], 128)
        md = MQMD(
            Format=C.MQFMT_TRIGGER,
            Persistence=C.MQPER_NOT_PERSISTENT,
            Expiry=C.MQEI_UNLIMITED,
            Priority=C.MQPRI_PRIORITY_AS_Q_DEF,  # the initiation queue's DEFPRTY
            MsgType=C.MQMT_DATAGRAM,
            CodedCharSetId=qm.qm_attr("CCSID"),
            PutApplType=C.MQAT_QMGR,
            PutApplName=padded(qm.name, 28),
            ReplyToQMgr=padded(qm.name, 48),
        )
        return md, tm.pack()

    def _create(self, q: LocalQueue, target: _Target, uow: UnitOfWork | None, ttype: int | None = None) -> None:
        """Write a trigger message for ``q`` (held by ``uow`` when given), under TriggerType ``ttype`` (the
        queue's own when not given; a shared queue's may be FIRST for the time being: :meth:`criteria`)."""
        md, data = self.trigger_message(q, target.process)
        if ttype is None:
            ttype = q.attrs["TRIGTYPE"]
        self.last_trigger[q.name] = self.qm.clock.monotonic()
        self.generated += 1
        if ttype == C.MQTT_DEPTH:
            self._trigger_control_off(q)
        if uow is not None:
            uow.triggers.append(PendingTrigger(q, ttype, target.initq.name, md, data))
        else:
            self._deliver(target.initq.name, md, data)

    def _trigger_control_off(self, q: LocalQueue) -> None:
        """After a DEPTH trigger message the queue manager sets TriggerControl off, as an ALTER would be kept."""
        d = q.definition
        d.attrs["TRIGGER"] = C.MQTC_OFF
        if q.shared:  # the group's definition: off for every member
            if self.qm.shared is not None:
                try:
                    self.qm.shared.put_definition(d.otype, d.name, "SHARED", d.to_bytes(), True)
                except StoreError:
                    pass  # this member's view is off; the group's follows at the next ALTER
            return
        if d.dynamic != C.MQQDT_TEMPORARY_DYNAMIC:
            b = self.qm._b()
            b.put_objects.append((d.otype, d.name, d.to_bytes()))
            b.durable = True

    def _deliver(self, initq: str, md: MQMD, data: bytes) -> None:
        self._delivering = True
        try:
            self.qm.system_put(initq, md, data, kind=TRIGGER)
        finally:
            self._delivering = False
