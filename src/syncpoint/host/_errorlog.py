"""The queue manager's error log, as IBM MQ keeps it: ``errors/AMQERR01.LOG`` in the queue manager's folder, one
entry per event (start, end, recovery, damaged files, connections refused), rotated to ``AMQERR02.LOG`` and
``AMQERR03.LOG`` when it reaches its size limit (IBM's ErrorLogSize).

Written by whichever process runs the queue manager — its server or a program that runs it embedded — so the
log tells one story whoever ran it. Only that process writes (it holds the queue manager's files), so appending
and rotating need no lock between processes.

An entry, in IBM's layout::

    11/25/2026 04:20:11 PM - Process(12345.1) User(alice) Program(python3)
                        Host(myhost) Installation(syncpoint)
                        VRMF(0.1.0) QMgr(QM1)
                        Time(2026-11-25T16:20:11.123Z)

    AMQ8003I: syncpoint queue manager 'QM1' started using V0.1.0.

    EXPLANATION:
    …
    ACTION:
    …
    -------------------------------------------------------------------------------
"""

from __future__ import annotations

import datetime
import logging
import os
import socket
import sys
import threading
from pathlib import Path

DEFAULT_MAX_BYTES = 2 * 1024 * 1024  # IBM's default ErrorLogSize on Linux
FILES = ("AMQERR01.LOG", "AMQERR02.LOG", "AMQERR03.LOG")
_SEPARATOR = "-" * 79
_INDENT = " " * 20


def _version() -> str:
    # the root package's constant (always imported before any of its subpackages), read without an import
    # statement: the host sits below the root package's client names
    return str(getattr(sys.modules.get("syncpoint"), "__version__", "0"))


class ErrorLog:
    """``AMQERR01.LOG`` of one queue manager (``folder`` is its ``errors`` folder)."""

    def __init__(self, folder: Path, qmgr: str, max_bytes: int = DEFAULT_MAX_BYTES) -> None:
        self.folder = Path(folder)
        self.qmgr = qmgr
        self.max_bytes = max_bytes
        self._lock = threading.Lock()

    @property
    def path(self) -> Path:
        return self.folder / FILES[0]

    def write(self, message_id: str, text: str, explanation: str, action: str = "None.") -> None:
        """Append one entry (``message_id`` e.g. ``AMQ8003I``); never raises: a log that cannot be written must not
        stop the queue manager (the failure goes to the process's own log)."""
        try:
            entry = self.format(message_id, text, explanation, action).encode("utf-8", "replace")
            with self._lock:
                self._append(entry)
        except OSError as e:
            logging.getLogger("syncpoint.host").warning("the error log %s cannot be written: %s", self.path, e)

    def format(self, message_id: str, text: str, explanation: str, action: str) -> str:
        now = datetime.datetime.now().astimezone()
        utc = now.astimezone(datetime.UTC)
        program = os.path.basename(sys.argv[0]) if sys.argv and sys.argv[0] else "python"
        if program in ("-c", "-m", ""):
            program = "python"
        header = (
            f"{now.strftime('%m/%d/%Y %I:%M:%S %p')} - Process({os.getpid()}.{threading.get_native_id()}) "
            f"User({_user()}) Program({program})\n"
            f"{_INDENT}Host({socket.gethostname()}) Installation(syncpoint)\n"
            f"{_INDENT}VRMF({_version()}) QMgr({self.qmgr})\n"
            f"{_INDENT}Time({utc.strftime('%Y-%m-%dT%H:%M:%S')}.{utc.microsecond // 1000:03d}Z)\n"
        )
        return f"{header}\n{message_id}: {text}\n\nEXPLANATION:\n{explanation}\nACTION:\n{action}\n{_SEPARATOR}\n"

    def _append(self, entry: bytes) -> None:
        if not self.folder.is_dir():
            os.makedirs(self.folder, 0o700, exist_ok=True)  # in the queue manager's folder: private, as all of it
        path = self.path
        try:
            size = path.stat().st_size
        except FileNotFoundError:
            size = 0
        if size and size + len(entry) > self.max_bytes:
            self.rotate()
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        try:
            os.write(fd, entry)
        finally:
            os.close(fd)

    def attach(self) -> ErrorLogHandler:
        """Start writing the queue manager's events that other layers log (see :class:`ErrorLogHandler`)."""
        handler = ErrorLogHandler(self, self.folder.parent)
        for name in ErrorLogHandler.LOGGERS:
            logging.getLogger(name).addHandler(handler)
        return handler

    def detach(self, handler: ErrorLogHandler) -> None:
        for name in ErrorLogHandler.LOGGERS:
            logging.getLogger(name).removeHandler(handler)

    def rotate(self) -> None:
        """AMQERR02.LOG becomes AMQERR03.LOG (the old 03 is dropped), AMQERR01.LOG becomes AMQERR02.LOG."""
        for older, newer in ((FILES[2], FILES[1]), (FILES[1], FILES[0])):
            try:
                os.replace(self.folder / newer, self.folder / older)
            except FileNotFoundError:
                continue

    # -- the events -------------------------------------------------------------------------------------
    def started(self, recovered_inflight: int = 0) -> None:
        if recovered_inflight:
            self.write(
                "AMQ7233I",
                f"{recovered_inflight} in-flight gets were backed out for queue manager '{self.qmgr}'.",
                f"The queue manager '{self.qmgr}' had ended with {recovered_inflight} messages got in units of work "
                "that were not committed. At this start they were backed out: the messages are on their queues "
                "again, with their BackoutCount increased.",
                "None.",
            )
        self.write(
            "AMQ8003I",
            f"syncpoint queue manager '{self.qmgr}' started using V{_version()}.",
            f"The syncpoint queue manager '{self.qmgr}' started in {_process()}.",
        )

    def ended(self, how: str = "normally") -> None:
        self.write(
            "AMQ8004I",
            f"syncpoint queue manager '{self.qmgr}' ended.",
            f"The syncpoint queue manager '{self.qmgr}' ended {how} in {_process()}.",
        )

    def damaged(self, detail: str) -> None:
        self.write(
            "AMQ6184E",
            f"syncpoint queue manager '{self.qmgr}' cannot use its files.",
            f"The queue manager's files could not be opened: {detail}",
            "Correct the problem described and start the queue manager again. 'syncpoint salvmqm' keeps every "
            "valid message of a damaged queue manager.",
        )

    def storage_failed(self, detail: str) -> None:
        self.write(
            "AMQ6184E",
            f"syncpoint queue manager '{self.qmgr}' stopped after a storage failure.",
            f"A write to the queue manager's files failed: {detail}. Memory and disk may differ, so the queue "
            "manager stopped serving.",
            "Correct the problem described (disk space, permissions, the file system) and start the queue manager "
            "again: the restart recovers from its files.",
        )

    def warning(self, message_id: str, text: str, explanation: str, action: str) -> None:
        self.write(message_id, text, explanation, action)


def _user() -> str:
    try:
        import pwd

        return pwd.getpwuid(os.getuid()).pw_name
    except Exception:
        return os.environ.get("USER", str(os.getuid()))


def _process() -> str:
    argv = " ".join(sys.argv) if sys.argv else ""
    return f"process {os.getpid()}" + (f" ({argv[:80]})" if argv else "")


class ErrorLogHandler(logging.Handler):
    """Log records that are events of the queue manager, as error-log entries: records of ``syncpoint.store``
    about this queue manager's files (recovery of a journal, a damaged file), the server's refusals of
    connections (authentication failed, beyond max-connections, no hello in time), and records that carry their
    own entry (``extra={"qmgr": name, "amq": (explanation, action)}``, the text ``AMQnnnnX: summary``: the
    shared store's, ``store._postgres_shared``; the channels', ``channel._sender``; the object authority manager's
    refusals, AMQ8077W, ``engine._authority``)."""

    LOGGERS = ("syncpoint.store", "syncpoint.server", "syncpoint.channel", "syncpoint.engine.authority")
    SERVER_EVENTS = (
        ("authentication failed", "AMQ5534E", "A connection was refused: the user's authentication failed."),
        ("refusing connections beyond", "AMQ9513E", "A connection was refused: the maximum number was reached."),
        ("no hello within", "AMQ9271E", "A connection was closed: it sent no hello in time."),
        ("sent no hello within", "AMQ9271E", "A connection was closed: it sent no hello in time."),
        ("a frame did not arrive within", "AMQ9271E", "A connection was closed: its frame did not arrive in time."),
    )

    def __init__(self, errorlog: ErrorLog, folder: Path) -> None:
        super().__init__(logging.INFO)  # an entry of its own may be informational (AMQ9002I); the rest: WARNING up
        self.errorlog = errorlog
        self.folder = str(folder)

    def emit(self, record: logging.LogRecord) -> None:
        try:
            text = record.getMessage()
        except Exception:
            return
        amq = getattr(record, "amq", None)  # an entry of its own (an AMQ message, its explanation and action)
        if amq is not None:
            if getattr(record, "qmgr", None) == self.errorlog.qmgr:  # not another queue manager's in this process
                message_id, _, summary = text.partition(": ")
                self.errorlog.write(message_id, summary, amq[0], amq[1])
            return
        if record.levelno < logging.WARNING:
            return
        if record.name.startswith("syncpoint.store"):
            if self.folder not in text:
                return  # another queue manager's files in this process
            self.errorlog.write(
                "AMQ6767W" if record.levelno < logging.ERROR else "AMQ6184E",
                f"syncpoint queue manager '{self.errorlog.qmgr}': a problem with its files was found and handled.",
                text,
                "None: the queue manager recovered. Look for the cause if it repeats (disk, file system, "
                "other programs writing the queue manager's files).",
            )
            return
        if record.name.startswith("syncpoint.server"):
            for marker, message_id, summary in self.SERVER_EVENTS:
                if marker in text:
                    self.errorlog.write(
                        message_id,
                        summary,
                        text,
                        "If the connections are expected, check the user's password (syncpoint passwd) or the "
                        "server's limits (strmqm --limit); otherwise find the program that makes them.",
                    )
                    return


def error_log_for(qmgr: str, store: object) -> ErrorLog | None:
    """The error log of a queue manager whose store is the ``qm.db`` of its folder (``$SYNCPOINT_HOME/qmgrs/NAME``);
    None for any other store (in memory, or a file of a test)."""
    path = getattr(store, "path", None)
    if not isinstance(path, str) or os.path.basename(path) != "qm.db":
        return None
    return ErrorLog(Path(path).parent / "errors", qmgr)
