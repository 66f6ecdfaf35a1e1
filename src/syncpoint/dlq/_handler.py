"""The dead-letter queue handler loop (runmqdlq), over the client API only.

Implements: seed 003 ("How the rules table is processed", notes 1, 4, 6 and 7; "Ensuring that all DLQ messages are
processed"); reference/dlq-handler.md, "Invocation", "Control data" (RETRYINT, WAIT) and "Processing".

Theory of operation
-------------------
The handler opens the queue with INPUT_AS_Q_DEF, BROWSE and SAVE_ALL_CONTEXT and walks it with browse-with-lock.
For each message under the cursor:

* no valid MQDLH: it is reported (when first seen and again at every full rescan) and left on the queue;
* otherwise the rules choose an action (:func:`choose_rule`) from the attempts already made on this message,
  which the handler keeps per (MsgId, CorrelId) and forgets on restart;
* DISCARD, RETRY and FWD take the message in one unit of work of its own: destructive get of the message under
  the cursor in syncpoint, put with MQPMO_PASS_ALL_CONTEXT in syncpoint, commit — or back out when the put
  fails, which puts the message back. A SIGKILL at any point therefore leaves it either still on the queue or
  at its destination (the queue manager backs out the unit of work of a connection that vanished).

Time runs in intervals of RETRYINT seconds counted from the start. A message whose attempt failed is due again at
the next interval: then the handler returns to the earliest such message (browse-first matching its MsgId and
CorrelId) and walks on from there. Every tenth interval it rescans the whole queue from the first message,
because messages can arrive behind the browse cursor (seed 003, "Ensuring that all DLQ messages are
processed"); the rescan also forgets the records of messages that have gone. Between intervals it waits on the
queue for new messages, with a browse wait bounded by the next interval, so a fake clock drives every wait.

WAIT(YES) never ends; WAIT(NO) ends when a pass leaves nothing the handler can still act on — no message with
attempts left (a message waiting for a retry is still work, so the handler waits for its interval); WAIT(nnn)
ends after nnn seconds without such work and without new messages.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

from syncpoint.client import Message, Queue, QueueManager, dead_letter_queue
from syncpoint.mqi import MQMD, MQOD, MQPMO, MQMIError, blank_strip, reason_name
from syncpoint.mqi import constants as C

from ._match import DLH_LENGTH, DeadLetter, choose_rule, compile_rule, read_dlh
from ._rules import Rule, RulesTable

Report = Callable[[str], None]

_OPEN_OPTIONS = C.MQOO_INPUT_AS_Q_DEF | C.MQOO_BROWSE | C.MQOO_SAVE_ALL_CONTEXT | C.MQOO_FAIL_IF_QUIESCING
_RESCAN_EVERY = 10  # intervals between full rescans (dlq-handler.md, processing step 7)


class Clock(Protocol):
    """What the handler reads of a clock: seconds that never go back (the engine's FakeClock fits)."""

    def monotonic(self) -> float: ...


class SystemClock:
    def monotonic(self) -> float:
        return time.monotonic()


@dataclass(slots=True)
class _Record:
    """What the handler remembers of a message it has seen and not removed."""

    order: int  # position in the last scan: "the earliest message still to be retried"
    attempts: int = 0
    due: int = 0  # the interval at which the next attempt may be made
    pending: bool = False  # an attempt failed and a rule with attempts left still applies
    bad: bool = False  # no valid MQDLH
    reported: int = -1  # the interval in which a bad message was last reported
    seen: int = 0  # the scan in which it was last seen


# the handler's counters (a record: flow's Totals has the same shape, other counters)
@dataclass(slots=True)
class Statistics:
    forwarded: int = 0
    retried: int = 0
    discarded: int = 0
    failed_puts: int = 0
    no_header: int = 0
    actions: dict[int, int] = field(default_factory=dict)  # rule line -> successful actions


def resolve_queue_name(qm: QueueManager, name: str) -> str:
    """``name``, or the queue manager's dead-letter queue (DEADQ) when it is blank."""
    if name.strip():
        return name.strip()
    dlq = dead_letter_queue(qm)
    if not dlq:
        raise MQMIError(
            C.MQCC_FAILED,
            C.MQRC_UNKNOWN_OBJECT_NAME,
            f"queue manager {qm.name} has no dead-letter queue (DEADQ is blank); name the queue to process",
        )
    return dlq


class DeadLetterHandler:
    """runmqdlq over one connection. ``run()`` processes until the table's WAIT says to end."""

    def __init__(
        self,
        qm: QueueManager,
        table: RulesTable,
        *,
        qname: str | None = None,
        clock: Clock | None = None,
        report: Report = print,
    ) -> None:
        self.qm = qm
        self.table = table
        self.rules = [compile_rule(r) for r in table.rules]
        self.control = table.control
        self.clock = clock or SystemClock()
        self.report = report
        # a name given by the caller (the command line), even blank, overrides INPUTQ; blank means DEADQ
        self.qname = resolve_queue_name(qm, qname if qname is not None else self.control.inputq)
        self.queue: Queue = qm.open(self.qname, _OPEN_OPTIONS)
        self.hobj = self.queue.handle
        self.records: dict[tuple[bytes, bytes], _Record] = {}
        self.stats = Statistics()
        self.interval = 0  # RETRYINT intervals since start
        self._start = self.clock.monotonic()
        self._scan = 0
        self._order = 0
        self._idle_since: float | None = None
        self._full = False
        # Ending on a signal (runmqdlq's SIGTERM): while the handler only waits for messages it may end at once;
        # while it acts on one, it ends after that message's unit of work, so what it did is also what it reports.
        self.waiting = False
        self.stop_requested = False

    # -- the loop ---------------------------------------------------------------------------------------
    def run(self) -> Statistics:
        self.report(f"AMQ8708I: Dead-letter queue handler started to process INPUTQ({self.qname}).")
        try:
            self.full_scan()
            while not self.stop_requested and not self._should_end():
                self.step()
        finally:  # also when a signal ends the handler (SIGTERM, Ctrl-C): say what was done
            try:
                self.queue.close()
            except MQMIError:
                pass
            s = self.stats
            self.report(
                f"Dead-letter queue handler ending: {s.forwarded} forwarded, {s.retried} retried, "
                f"{s.discarded} discarded, {s.failed_puts} failed puts, {self._left()} left on {self.qname}."
            )
            self.report("AMQ8709I: Dead-letter queue handler ending.")
        return s

    def step(self) -> None:
        """One turn of the loop: run the interval that is due, or wait for new messages until it is."""
        now = self.clock.monotonic()
        due_at = self._start + (self.interval + 1) * self.control.retryint
        if now >= due_at:
            before = self.interval
            self.interval = int((now - self._start) // self.control.retryint)
            if self.interval // _RESCAN_EVERY > before // _RESCAN_EVERY:
                self.full_scan()
            else:
                self.retry_scan()
            return
        timeout = due_at - now
        wait = self.control.wait
        if isinstance(wait, int) and not self._has_work():
            idle = self._idle_since if self._idle_since is not None else now
            timeout = min(timeout, max(idle + wait - now, 0.0))
        if timeout <= 0:
            return
        self.waiting = True
        try:
            msg = self._browse(first=not self.records, wait=timeout)
        finally:
            self.waiting = False
        if msg is not None:
            self._consider(msg)
            self._walk()

    def _should_end(self) -> bool:
        wait = self.control.wait
        if wait == "YES":
            return False
        if self._has_work():
            self._idle_since = None
            return False
        now = self.clock.monotonic()
        if self._idle_since is None:
            self._idle_since = now
        if wait == "NO":
            return True
        assert isinstance(wait, int)
        return now - self._idle_since >= wait

    def _has_work(self) -> bool:
        return any(r.pending for r in self.records.values())

    def _left(self) -> int:
        return len(self.records)

    # -- scans ------------------------------------------------------------------------------------------
    def full_scan(self) -> None:
        """Every message from the first: new ones, due retries, and a fresh list of what is still there."""
        self._scan += 1
        self._order = 0
        self._full = True
        try:
            msg = self._browse(first=True)
            if msg is not None:
                self._consider(msg)
                self._walk()
        finally:
            self._full = False
        gone = [k for k, r in self.records.items() if r.seen != self._scan]
        for k in gone:
            del self.records[k]

    def retry_scan(self) -> None:
        """Back to the earliest message still to be retried, and on from there."""
        for key, _rec in sorted(((k, r) for k, r in self.records.items() if r.pending), key=lambda kr: kr[1].order):
            msg = self._browse(first=True, match=key)
            if msg is None:
                self.records.pop(key, None)  # gone: removed by someone else, or expired
                continue
            self._consider(msg)
            self._walk()
            return

    def _walk(self) -> None:
        while True:
            msg = self._browse(first=False)
            if msg is None:
                self._unlock()
                return
            self._consider(msg)

    def _unlock(self) -> None:
        """Release the lock on the last message browsed, so other handlers of the queue may see it."""
        try:
            self.queue.unlock()
        except MQMIError as e:
            if e.reason != C.MQRC_NO_MSG_LOCKED:
                raise

    def _browse(
        self, *, first: bool, wait: float | None = None, match: tuple[bytes, bytes] | None = None
    ) -> Message | None:
        try:
            if match is not None:
                return self.queue.browse(first=True, lock=True, msg_id=match[0], correl_id=match[1])
            return self.queue.browse(first=first, lock=True, wait=wait)
        except MQMIError as e:
            if e.reason == C.MQRC_NO_MSG_AVAILABLE:
                return None
            raise

    # -- one message by its MsgId (the console's workbench and ``syncpoint dlqmsg``) -------------------------
    def act_on(self, msg_id: bytes, correl_id: bytes | None = None) -> tuple[int, tuple[str, str] | None]:
        """Apply the table's first matching rule to the one message with ``msg_id`` (runmqdlq itself acts only on
        whole queues): the same unit of work as :meth:`_apply`. Returns (reason, destination): MQRC_NONE when the
        action was done, or when the rule is IGNORE (destination None: nothing done); MQRC_NO_MSG_AVAILABLE when
        no such message is on the queue; MQRC_FORMAT_ERROR when it does not begin with an MQDLH (the rules cannot
        be matched: it is left, as runmqdlq leaves it); the failed put's reason when the message stays on the
        queue, its unit of work backed out — a RETRY whose original queue is gone: MQRC_UNKNOWN_OBJECT_NAME."""
        try:
            msg = self.queue.browse(first=True, lock=True, msg_id=msg_id, correl_id=correl_id)
        except MQMIError as e:
            if e.reason == C.MQRC_NO_MSG_AVAILABLE:
                return C.MQRC_NO_MSG_AVAILABLE, None
            raise
        try:
            dlh = read_dlh(msg.data)
            if dlh is None:
                return C.MQRC_FORMAT_ERROR, None
            dl = DeadLetter(msg.md, msg.data, dlh)
            rule = choose_rule(self.rules, dl, 0)
            if rule is None or rule.action == "IGNORE":
                return C.MQRC_NONE, None
            return self._apply(rule, dl)
        finally:
            self._unlock()

    # -- one message ------------------------------------------------------------------------------------
    def _consider(self, msg: Message) -> None:
        key = (msg.msg_id, msg.correl_id)
        rec = self.records.get(key)
        if rec is None:
            rec = self.records[key] = _Record(order=self._order)
            self._order += 1
        elif self._full:
            rec.order = self._order
            self._order += 1
        rec.seen = self._scan
        dlh = read_dlh(msg.data)
        if dlh is None:
            rec.bad = True
            if rec.reported < 0 or (self.interval % _RESCAN_EVERY == 0 and rec.reported != self.interval):
                rec.reported = self.interval
                self.stats.no_header += 1
                self.report(
                    f"Message {msg.msg_id.hex()} on {self.qname} does not begin with a valid MQDLH; "
                    "it is left on the queue."
                )
            return
        if rec.pending and rec.due > self.interval:
            return
        dl = DeadLetter(msg.md, msg.data, dlh)
        rule = choose_rule(self.rules, dl, rec.attempts)
        if rule is None or rule.action == "IGNORE":
            rec.pending = False
            return
        self._idle_since = None
        rec.attempts += 1
        reason, dest = self._apply(rule, dl)
        if reason == C.MQRC_NONE:
            self.records.pop(key, None)
            self.stats.actions[rule.line] = self.stats.actions.get(rule.line, 0) + 1
            return
        if reason == C.MQRC_NO_MSG_UNDER_CURSOR:
            self.records.pop(key, None)  # it went (expired) between the browse and the get
            return
        self.stats.failed_puts += 1
        rec.due = self.interval + 1
        nxt = choose_rule(self.rules, dl, rec.attempts)
        rec.pending = nxt is not None and nxt.action != "IGNORE"
        assert dest is not None
        if not self._quiet(reason, dest, dlh.Reason, dlh.DestQName, dlh.DestQMgrName):
            self.report(
                f"Rule at line {rule.line}: message {msg.msg_id.hex()} could not be put to "
                f"{dest[0]}{' on ' + dest[1] if dest[1] else ''}: reason {reason} ({reason_name(reason)})."
            )

    def _quiet(self, reason: int, dest: tuple[str, str], dlh_reason: int, dq: bytes, dqm: bytes) -> bool:
        """A put that fails for the reason the message was dead-lettered, to its original destination, is
        retried quietly at the next interval (dlq-handler.md, processing step 6)."""
        own = self.qm.name
        return reason == dlh_reason and dest[0] == blank_strip(dq) and (dest[1] or own) == (blank_strip(dqm) or own)

    @staticmethod
    def _destination(rule: Rule, dl: DeadLetter) -> tuple[str, str]:
        """The queue and queue manager a RETRY or FWD puts to: RETRY the MQDLH's DestQName / DestQMgrName, FWD
        its FWDQ / FWDQM, where ``&DESTQ``, ``&REPLYQ``, ``&DESTQM`` and ``&REPLYQM`` name the message's fields."""
        if rule.action == "RETRY":
            return _substitute("&DESTQ", dl), _substitute("&DESTQM", dl)
        return _substitute(rule.fwdq or "", dl), _substitute(rule.fwdqm, dl)

    def _apply(self, rule: Rule, dl: DeadLetter) -> tuple[int, tuple[str, str] | None]:
        """Carry out the rule's action on the message under the cursor, in a unit of work of its own."""
        try:
            got = self.queue.get_under_cursor(syncpoint=True)
        except MQMIError as e:
            if e.reason == C.MQRC_NO_MSG_UNDER_CURSOR:
                return C.MQRC_NO_MSG_UNDER_CURSOR, None
            raise
        if rule.action == "DISCARD":
            self.qm.commit()
            self.stats.discarded += 1
            return C.MQRC_NONE, None
        md, data = got.md, got.data
        if rule.action == "RETRY" or not rule.header:
            dlh = read_dlh(data)
            assert dlh is not None  # the same message the browse read
            md.Format = dlh.Format
            md.Encoding = dlh.Encoding
            md.CodedCharSetId = dlh.CodedCharSetId
            data = data[DLH_LENGTH:]
        dest = self._destination(rule, dl)
        reason = self._put(rule, dest, md, data)
        if reason != C.MQRC_NONE:
            self.qm.backout()
            return reason, dest
        self.qm.commit()
        if rule.action == "RETRY":
            self.stats.retried += 1
        else:
            self.stats.forwarded += 1
        return C.MQRC_NONE, dest

    def _put(self, rule: Rule, dest: tuple[str, str], md: MQMD, data: bytes) -> int:
        qname, qmname = dest
        if not qname:
            return C.MQRC_UNKNOWN_OBJECT_NAME
        pmo = MQPMO(
            Options=C.MQPMO_SYNCPOINT | C.MQPMO_PASS_ALL_CONTEXT | C.MQPMO_FAIL_IF_QUIESCING,
            Context=self.hobj,
        )
        od = MQOD(ObjectName=qname.encode(), ObjectQMgrName=qmname.encode())
        try:
            if rule.putaut == "CTX":
                # put with the authority of the message's UserIdentifier (MQOO_ALTERNATE_USER_AUTHORITY)
                od.AlternateUserId = md.UserIdentifier
                h = self.qm.mqopen(
                    od,
                    C.MQOO_OUTPUT
                    | C.MQOO_PASS_ALL_CONTEXT
                    | C.MQOO_ALTERNATE_USER_AUTHORITY
                    | C.MQOO_FAIL_IF_QUIESCING,
                )
                try:
                    self.qm.mqput(h, md, pmo, data)
                finally:
                    self.qm.mqclose(h)
            else:
                self.qm.mqput1(od, md, pmo, data)
        except MQMIError as e:
            if e.comp == C.MQCC_WARNING:
                return C.MQRC_NONE  # the put was made (a warning such as MQRC_PRIORITY_EXCEEDS_MAXIMUM)
            return int(e.reason)
        return C.MQRC_NONE


def _substitute(name: str, dl: DeadLetter) -> str:
    """``name``, or for ``&KEYWORD`` the message's field that pattern keyword is matched against (``&DESTQ``:
    MQDLH.DestQName, ``&REPLYQM``: MQMD.ReplyToQMgr …); the rules-table parser admits only those four."""
    if name.startswith("&"):
        value = dl.field(name[1:])
        assert isinstance(value, bytes)
        return blank_strip(value)
    return name
