"""Effects: what the calls leave for the host, as data (DESIGN.md, "Effects leave the engine as data").

After every call the host takes the effects the call left (:meth:`EffectsRecorder.take_effects`), an
:class:`Effects` with three parts:

* ``batch`` — the records the store must make durable before the host acknowledges the call (a
  :class:`~syncpoint.store.Batch`; ``batch.durable`` says whether the caller waits for a sync). The host submits
  it while it still holds its lock, so the store sees changes in engine order, and waits for it after releasing
  the lock, so many connections share one sync (group commit).
* ``wake`` — the names of the queues whose waiting gets (MQGMO_WAIT) may now succeed.
* ``durable_pending`` — the persistent messages the calls committed (or put outside syncpoint) that become
  available only once ``batch`` is durable: the host calls :meth:`EffectsRecorder.made_durable` with them, under
  its lock, when the store says so. As in IBM MQ, no other connection can get a persistent message before its
  put is on the log, so no consumer ever acts on a message a crash then loses (issue 24). Group commit keeps
  this cheap: a get waiting for the message waits for the sync that carries the put, shared with every other
  write of its group. A non-persistent message put or committed in the same call (the unit of work's others,
  the trigger message a put caused) waits with them, so a unit of work becomes available whole and a trigger
  message never precedes the message it announces. Measured (issue 24): no change in syncs per message, and no
  throughput change beyond the noise, embedded or over the server.
* ``system_puts`` — the messages the queue manager itself put during the call(s), each a :class:`SystemPut`
  (its kind, the local queue it went to, its MQMD and its data): trigger messages (seed 001), reports (COA,
  COD, expiration — seed 002 —, exception: ``_reports``), dead letters (a trigger message or report whose
  destination refused it, or a message a channel could not deliver, behind an MQDLH; dlq-handler.md, "The MQDLH
  on messages the queue manager itself dead-letters") and the messages a receiving channel delivered
  (``_remote``). A COA or COD caused by a put or get in a unit of work is put in that unit of work and recorded
  when put; a backout removes it again. This part is a record, not a request: the host may ignore it; logs,
  metrics, tools that watch and the engine's own tests read it.

Why the engine puts those messages itself, inside the call that causes them, instead of handing them to the
host to put:

* **Atomic with their cause.** The message is put inside the call that caused it, under the host's one lock,
  so no other call ever sees the cause without its consequence. What is persistent goes into the same store
  batch as its cause — an expired persistent message's delete and its persistent expiration report (or that
  report's dead-letter copy) — and the store writes a batch whole or not at all, so a crash never keeps one
  without the other. (Trigger messages are non-persistent, as IBM makes them: they reach no store; a trigger
  message a unit of work held is put in the call of the MQCMIT or MQBACK that ends it.)
* **The engine decides the outcome.** Whether the destination takes the message (it exists, is put-enabled, has
  room under MAXDEPTH and MAXMSGL, may hold a persistent message) is engine state at that instant, and when it
  does not, the same call dead-letters the message with the reason in its MQDLH. The put has further
  consequences the seeds define — it counts for triggering, may itself cause a trigger message (condition 1),
  wakes waiting gets. A host that did the put would have to call back into the engine for each such message
  and handle a second failure path.
* **One path, no I/O.** A put by the queue manager goes through the same rules as an application's
  (``_reports.ReportsMixin.system_put``), so the engine stays a deterministic state machine that tests drive
  without I/O: a test reads ``system_puts`` rather than opening queues.

In DESIGN.md's words: "write this trigger message / report / dead-letter" is done by the engine itself, inside
the call that causes it (in the same store batch, when persistent), and reported as data in
``Effects.system_puts``.

:meth:`EffectsRecorder.take_effects` allocates nothing when the calls left nothing: it runs after every call.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field
from typing import Literal

from syncpoint.mqi import MQMD
from syncpoint.mqi.properties import pack_props
from syncpoint.store import Batch, StoredMessage

from ._state import DURABLE_PENDING, GONE, Message

SystemPutKind = Literal["trigger", "report", "dead-letter", "inbound", "publication"]
TRIGGER: SystemPutKind = "trigger"  # an MQTM on an initiation queue (seed 001)
REPORT: SystemPutKind = "report"  # a report message, e.g. MQFB_EXPIRATION (seed 002)
DEAD_LETTER: SystemPutKind = "dead-letter"  # a message its destination refused, behind an MQDLH
INBOUND: SystemPutKind = "inbound"  # a message a receiving channel delivered (``_remote.deliver_inbound``)
PUBLICATION: SystemPutKind = "publication"  # a subscription's copy of a publication (``_pubsub``)

MD2_LENGTH = MQMD.size(2)  # a stored message's MQMD; its properties, if any, follow it (``pack_props``)
_MD2_PACK = MQMD._struct_by_len[MQMD.size(2)].pack  # a version-2 MQMD's layout
_MD2_VALUES = MQMD._getter_by_len[MQMD.size(2)]  # its fields' values in order


@dataclass(frozen=True, slots=True)
class SystemPut:
    """A message the queue manager put itself (already on ``queue``, in the same batch as its cause)."""

    kind: SystemPutKind
    queue: str  # the local queue it was put on (an alias resolved)
    md: MQMD  # its descriptor as put: version 2, MsgId, PutDate and PutTime filled in
    data: bytes  # its data (an MQTM for a trigger message; MQDLH + the message for a dead letter)


@dataclass(slots=True)
class Effects:
    """What the calls since the last :meth:`~EffectsRecorder.take_effects` left for the host."""

    batch: Batch | None = None  # records to make durable before acknowledging
    wake: set[str] = field(default_factory=set)  # queues whose waiting gets may now succeed
    system_puts: tuple[SystemPut, ...] = ()  # messages the queue manager put itself, in order
    durable_pending: list[Message] | None = None  # to make available once ``batch`` is durable (made_durable)


def stored_message(m: Message) -> StoredMessage:
    """A persistent message as the store keeps it (its MQMD packed)."""
    fields = m.md
    raw: bytes | None = None
    if fields["Version"] == 2:
        # a message's fields are normalised when it is put (or read back), so MQMD.pack's per-field
        # checks would change nothing: pack them at once, and leave anything unusual to MQMD.pack
        try:
            raw = _MD2_PACK(*_MD2_VALUES(fields))
        except struct.error:
            raw = None
    if raw is None:
        md = MQMD.__new__(MQMD)
        md.__dict__.update(fields)
        raw = md.pack()
    if m.props is not None:
        raw += pack_props(m.props)  # the properties ride after the MQMD: every store keeps them unchanged
    return StoredMessage(m.seq, m.queue.name, m.priority, raw, m.data, m.backout, m.put_time)


class EffectsRecorder:
    """Collects the effects of the calls (the bottom of :class:`~syncpoint.engine.QueueManager`)."""

    def __init__(self) -> None:
        self._batch: Batch | None = None
        self._wake: set[str] = set()
        self._system_puts: list[SystemPut] = []
        self._durable_pending: list[Message] | None = None

    def _b(self) -> Batch:
        """The store batch of the calls since the last take, created on first use."""
        b = self._batch
        if b is None:
            b = self._batch = Batch(durable=False)
        return b

    def _make_visible(self, m: Message) -> None:
        """A put outside syncpoint, or a committed one: durable if persistent, and available to getters — a
        persistent one, and anything else made visible by the same call after it, only once the host says the
        call's batch is durable (:meth:`made_durable`)."""
        q = m.queue
        pending = self._durable_pending
        if m.persistent:
            b = self._b()
            b.put_messages.append(stored_message(m))
            b.durable = True
        elif pending is None:
            q.make_available(m)
            self._wake.add(q.name)
            return
        m.state = DURABLE_PENDING
        q.uncommitted += 1  # not yet committed for CLEAR, DELETE and UNCOM: the store may not have it
        if pending is None:
            self._durable_pending = [m]
        else:
            pending.append(m)

    def made_durable(self, messages: list[Message]) -> None:
        """The host: the store has made the batch that carried ``messages`` durable (``Effects.durable_pending``).
        They become available to getters, and their queues' waiting gets are woken."""
        wake = self._wake
        for m in messages:
            if m.state != DURABLE_PENDING:
                continue
            q = m.queue
            q.uncommitted -= 1
            if q.deleted:
                m.state = GONE
                continue
            q.make_available(m)
            wake.add(q.name)

    def take_effects(self) -> Effects | None:
        """What the calls since the last take left for the host (the store batch, the queues whose waiters may
        now succeed, the messages the queue manager put itself), or None, with nothing allocated, when they left
        nothing: the host's path after every call."""
        batch = self._batch
        wake = self._wake
        puts = self._system_puts
        if batch is None and not wake and not puts:
            return None
        self._batch = None
        if wake:
            self._wake = set()
        pending = self._durable_pending
        if pending is not None:
            self._durable_pending = None
        if puts:
            self._system_puts = []
            return Effects(batch, wake, tuple(puts), pending)
        if pending is not None:
            return Effects(batch, wake, (), pending)
        return Effects(batch, wake)
