"""The trigger monitor (runmqtrm): read trigger messages from an initiation queue and start their applications.

Theory of operation
-------------------
The monitor holds the initiation queue open for input (which is what makes the queue manager write trigger
messages there: seed 001, condition 8) and gets one trigger message at a time, waiting for the next. Each is
got in a unit of work that ends once its fate is known:

* a message that is not a valid MQTM (Format MQTRIG, StrucId "TM  ", Version 1, 684 bytes) goes to the
  dead-letter queue with MQDLH Reason MQFB_TM_ERROR;
* an ApplType other than the platform's (MQAT_UNIX, which DEF means on Linux) goes there with
  MQFB_APPL_TYPE_ERROR;
* otherwise the command ``ApplId "<MQTMC2>" EnvData`` is run by the shell, as IBM's Unix monitor does: the
  MQTMC2 (732 characters, with the queue manager's name) is one double-quoted argument and EnvData has its
  trailing blanks removed. The monitor waits for the command unless EnvData ends with ``&``, in which case
  the shell starts it in the background and returns at once. A command the shell cannot start (it exits
  with 126, cannot execute, or 127, not found) or a shell that cannot be run sends the trigger message to
  the dead-letter queue with MQFB_APPL_CANNOT_BE_STARTED.

The dead-letter put and the get are one unit of work, so a trigger message is never lost nor doubled. When
there is no dead-letter queue (or it refuses the message) the unit of work is backed out: the message stays
on the initiation queue, is reported once, and the monitor reads past it (by browsing) until an operator
removes it.

Choices where IBM's documentation is silent:
* Inside the double quotes the characters the shell would interpret (``\\ " $ `` and the backquote) are
  escaped with a backslash and NULs become blanks, so the program receives the MQTMC2 exactly.
* A trigger message is removed only once its command was started (or, in the foreground, has ended): a
  monitor that dies meanwhile leaves it on the queue, and it is processed again.
* Return codes: 0 when the queue manager is ending (quiescing or stopping) or the monitor is told to stop;
  10 when an error interrupts it; 20 when it could not start (no connection, no initiation queue).
"""

from __future__ import annotations

import math
import subprocess
from collections.abc import Callable
from dataclasses import dataclass, field

from syncpoint.client import Message, Queue, QueueManager, dead_letter
from syncpoint.mqi import MQTM, MQTMC2, MQMIError, SyncpointError, blank_strip
from syncpoint.mqi import constants as C

DEFAULT_INITQ = "SYSTEM.DEFAULT.INITIATION.QUEUE"

EXIT_NORMAL = 0  # the queue manager is ending, or the monitor was stopped
EXIT_ERROR = 10  # interrupted by an error
EXIT_NOT_RUN = 20  # could not run
RULE = "_" * 50  # IBM's runmqtrm draws it before each "Waiting for a trigger message"

SUPPORTED_APPL_TYPES = frozenset({C.MQAT_UNIX})  # DEF is MQAT_UNIX (6) on Linux
_ENDING = frozenset({C.MQRC_Q_MGR_QUIESCING, C.MQRC_Q_MGR_STOPPING, C.MQRC_CONNECTION_QUIESCING})
_SHELL_CANNOT_EXECUTE = 126
_SHELL_NOT_FOUND = 127
_SHELL = "/bin/sh"
_MQTM_LENGTH = MQTM.size()
_OPEN_OPTIONS = C.MQOO_INPUT_AS_Q_DEF | C.MQOO_BROWSE | C.MQOO_INQUIRE | C.MQOO_FAIL_IF_QUIESCING


class TriggerMessageError(SyncpointError, ValueError):
    """A trigger message the monitor cannot act on; ``feedback`` is the MQFB_* Reason for its MQDLH."""

    def __init__(self, feedback: int, text: str) -> None:
        super().__init__(text)
        self.feedback = feedback


# a record of fields (the same shape as other modules' records, no logic to share)
@dataclass(slots=True)
class Started:
    """What became of one command: started (and, in the foreground, its exit status), or not."""

    command: bytes
    background: bool
    started: bool
    returncode: int | None = None
    error: str = ""


@dataclass(slots=True)
class Statistics:
    started: int = 0
    dead_lettered: int = 0
    left: int = 0
    reasons: dict[int, int] = field(default_factory=dict)


def parse_trigger_message(msg: Message) -> MQTM:
    """The MQTM of a trigger message, or TriggerMessageError(MQFB_TM_ERROR / MQFB_APPL_TYPE_ERROR)."""
    fmt = bytes(msg.md.Format) if not isinstance(msg.md.Format, str) else msg.md.Format.encode()
    if fmt != C.MQFMT_TRIGGER:
        raise TriggerMessageError(C.MQFB_TM_ERROR, f"Format is {fmt!r}, not MQTRIG")
    if len(msg.data) < _MQTM_LENGTH:
        raise TriggerMessageError(C.MQFB_TM_ERROR, f"{len(msg.data)} bytes, shorter than an MQTM ({_MQTM_LENGTH})")
    tm = MQTM.unpack(msg.data[:_MQTM_LENGTH])
    if tm.StrucId != C.MQTM_STRUC_ID or tm.Version != C.MQTM_VERSION_1:
        raise TriggerMessageError(C.MQFB_TM_ERROR, f"not an MQTM (StrucId {tm.StrucId!r}, Version {tm.Version})")
    if tm.ApplType not in SUPPORTED_APPL_TYPES:
        raise TriggerMessageError(
            C.MQFB_APPL_TYPE_ERROR, f"ApplType {tm.ApplType} is not supported here (only UNIX, {C.MQAT_UNIX})"
        )
    return tm


def _shell_quoted(value: bytes) -> bytes:
    out = value.replace(b"\0", b" ")
    for ch in (b"\\", b'"', b"$", b"`"):
        out = out.replace(ch, b"\\" + ch)
    return b'"' + out + b'"'


def command_for(tm: MQTM, qmgr_name: str) -> tuple[bytes, bool]:
    """The shell command IBM's Unix trigger monitor runs: ``ApplId "<MQTMC2>" EnvData``, and whether it runs
    in the background (EnvData ends with ``&``)."""
    tmc = MQTMC2.from_tm(tm, qmgr_name.encode()[:48].ljust(48)).pack()
    appl = bytes(tm.ApplId).replace(b"\0", b" ").rstrip()
    env = bytes(tm.EnvData).replace(b"\0", b" ").rstrip()
    command = appl + b" " + _shell_quoted(tmc)
    if env:
        command += b" " + env
    return command, env.endswith(b"&")


def command_text(command: bytes) -> str:
    """The command line as runmqtrm reports it (IBM prints the command it starts)."""
    return command.decode("utf-8", "replace")


def run_command(command: bytes, background: bool) -> Started:
    """Run ``command`` with the shell; it returns once the command ended (or was put in the background)."""
    try:
        done = subprocess.run([_SHELL, "-c", command], check=False, stdin=subprocess.DEVNULL)
    except OSError as e:
        return Started(command, background, False, None, f"the shell could not be run: {e}")
    rc = done.returncode
    if rc in (_SHELL_CANNOT_EXECUTE, _SHELL_NOT_FOUND):
        why = "not found" if rc == _SHELL_NOT_FOUND else "cannot be executed"
        return Started(command, background, False, rc, f"the program {why} (shell exit status {rc})")
    return Started(command, background, True, rc)


class TriggerMonitor:
    """runmqtrm over a :class:`syncpoint.client.QueueManager` connection (embedded or remote)."""

    def __init__(
        self,
        qm: QueueManager,
        initq: str = DEFAULT_INITQ,
        *,
        report: Callable[[str], None] | None = None,
        runner: Callable[[bytes, bool], Started] = run_command,
        poll: float = 1.0,
    ) -> None:
        self.qm = qm
        self.initq = initq
        self.report = report or (lambda s: None)
        self.runner = runner
        self.poll = poll
        self.stats = Statistics()
        self.left: set[bytes] = set()  # MsgIds of bad trigger messages left on the queue (no dead-letter queue)
        self.stopping = False
        self._queue: Queue | None = None

    # -- lifetime ----------------------------------------------------------------------------------
    def open(self) -> None:
        """Open the initiation queue for input (and browse, to read past messages left on it)."""
        if self._queue is None:
            self._queue = self.qm.open(self.initq, _OPEN_OPTIONS)

    def close(self) -> None:
        if self._queue is not None:
            q, self._queue = self._queue, None
            try:
                q.close()
            except MQMIError:
                pass

    def run(self, wait: float = math.inf) -> int:
        """Process trigger messages until the queue manager ends, :meth:`stop` is called, or (with a finite
        ``wait``) none arrives for ``wait`` seconds. Returns runmqtrm's exit code."""
        try:
            self.open()
        except MQMIError as e:
            self.report(
                f"The trigger monitor cannot open initiation queue {self.initq} of queue manager {self.qm.name}: {e}"
            )
            return EXIT_NOT_RUN
        # IBM's runmqtrm: "trigger monitor started.", then a rule and "Waiting for a trigger message" before each
        self.report(f"syncpoint trigger monitor started for {self.initq} of queue manager {self.qm.name}.")
        try:
            while not self.stopping:
                self._waiting()
                if not self.process_one(wait) and not math.isinf(wait):
                    return EXIT_NORMAL
        except MQMIError as e:
            if e.reason in _ENDING:
                self.report(f"Queue manager {self.qm.name} is ending; the trigger monitor ends.")
                return EXIT_NORMAL
            self.report(f"The trigger monitor ended because of an error: {e}")
            return EXIT_ERROR
        finally:
            self.close()
        return EXIT_NORMAL

    def stop(self) -> None:
        self.stopping = True

    def _waiting(self) -> None:
        self.report("")
        self.report(RULE)
        self.report("Waiting for a trigger message")

    def process_available(self) -> int:
        """Process the trigger messages there now, without waiting; return how many were taken off."""
        self.open()
        n = 0
        while self.process_one(None):
            n += 1
        return n

    # -- one trigger message -----------------------------------------------------------------------
    def process_one(self, wait: float | None) -> bool:
        """Get one trigger message (waiting up to ``wait`` seconds) and act on it. False when none came."""
        self.open()
        msg = self._next(wait)
        if msg is None:
            return False
        try:
            tm = parse_trigger_message(msg)
        except TriggerMessageError as e:
            self._reject(msg, e.feedback, str(e))
            return True
        command, background = command_for(tm, self.qm.name)
        self.report(command_text(command))  # IBM: the command line it starts, the MQTMC2 quoted
        outcome = self.runner(command, background)
        if not outcome.started:
            self._reject(msg, C.MQFB_APPL_CANNOT_BE_STARTED, outcome.error)
            return True
        self.qm.commit()
        self.stats.started += 1
        if not background and outcome.returncode:
            self.report(f"{blank_strip(tm.ApplId)} ended with exit status {outcome.returncode}.")
        self.report("End of application trigger.")
        return True

    def _next(self, wait: float | None) -> Message | None:
        """The next trigger message, got in a unit of work; messages left behind are read past."""
        q = self._queue
        assert q is not None
        if not self.left:
            return q.get_or_none(wait=wait, syncpoint=True)
        # some bad messages stay on the queue: browse past them
        waited = False
        while True:
            seen: set[bytes] = set()
            first = True
            while True:
                try:
                    b = q.browse(first=first)
                except MQMIError as e:
                    if e.reason != C.MQRC_NO_MSG_AVAILABLE:
                        raise
                    break
                first = False
                if b.msg_id in self.left:
                    seen.add(b.msg_id)
                    continue
                try:
                    return q.get_under_cursor(syncpoint=True)
                except MQMIError as e:
                    if e.reason not in (C.MQRC_NO_MSG_UNDER_CURSOR, C.MQRC_NO_MSG_AVAILABLE):
                        raise
            self.left &= seen  # forget the messages an operator has removed
            if not self.left:
                return q.get_or_none(wait=wait, syncpoint=True)
            if waited or wait is None or wait == 0:
                return None
            # nothing new: wait for an arrival (a browse past the cursor), then scan again
            step = wait if not math.isinf(wait) else self.poll
            try:
                q.browse(wait=step)
            except MQMIError as e:
                if e.reason != C.MQRC_NO_MSG_AVAILABLE:
                    raise
            waited = not math.isinf(wait)

    def _reject(self, msg: Message, feedback: int, why: str) -> None:
        """Dead-letter a trigger message with ``feedback`` in the same unit of work as its get; with no
        dead-letter queue (or one that refuses it) back out, so it stays, and report it."""
        self.stats.reasons[feedback] = self.stats.reasons.get(feedback, 0) + 1
        try:
            dead_letter(
                self.qm,
                msg.md,
                msg.data,
                feedback,
                dest_q=self.initq,
                dest_qmgr=self.qm.name,
                put_appl_name="runmqtrm",
            )
        except MQMIError as e:
            self.qm.backout()
            self.left.add(msg.msg_id)
            self.stats.left += 1
            self.report(
                f"Trigger message {msg.msg_id.hex()} was left on {self.initq} ({why}; feedback {feedback}); "
                f"it could not be put on the dead-letter queue: {e}"
            )
            return
        self.qm.commit()
        self.stats.dead_lettered += 1
        self.report(
            f"Trigger message {msg.msg_id.hex()} was put on the dead-letter queue ({why}; feedback {feedback})."
        )
