"""A queue manager's server as a background process: starting it and waiting until it accepts connections, and
ending it and waiting until its process is gone. strmqm, endmqm, runmqdevserver and the pytest plugin share it.

Implements: IBM's strmqm ("returns when the queue manager has started") and endmqm -i / -p ("returns once the
queue manager has ended"); docs/administration.md.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from syncpoint import _home
from syncpoint.client import local_server as server_info
from syncpoint.server import pid_alive

# How often the starting command looks for the server's server.json, and the ending one for its process: short,
# since a test suite starts and ends queue managers all the time (issue 38: up and ended in under a second).
POLL = 0.005


class StartError(Exception):
    """The server did not start: ``message`` says why (the server's AMQ messages), ``code`` is strmqm's exit code."""

    def __init__(self, message: str, code: int) -> None:
        super().__init__(message)
        self.message = message
        self.code = code


def serve_command(args: list[str]) -> list[str]:
    """The server process's command line; ``args`` are its arguments (the queue manager's name first)."""
    return [sys.executable, "-m", "syncpoint.cli._serve", *args]


def _log_tail(path: Path, since: int) -> str:
    try:
        with open(path, "rb") as f:
            f.seek(since)
            return f.read().decode(errors="replace").strip()
    except OSError:
        return ""


def _is_log_record(line: str) -> bool:
    """A line of the server's own diagnostic log (``2026-12-07 05:25:54,874 INFO syncpoint.server: …``)."""
    return len(line) > 24 and line[4] == "-" and line[10] == " " and line[23:24] in (" ", ",")


def failure_lines(detail: str) -> list[str]:
    """What a failed start says: the server's messages, without its diagnostic log records; the last lines when it
    printed no AMQ message (a traceback)."""
    lines = [ln for ln in detail.splitlines() if not _is_log_record(ln)]
    if any("AMQ" in ln for ln in lines):
        return lines
    return detail.splitlines()[-5:]


def spawn_server(
    qmgr: str,
    args: list[str],
    *,
    home: str | os.PathLike[str] | None = None,
    timeout: float = 60.0,
    env: dict[str, str] | None = None,
) -> tuple[subprocess.Popen[bytes], dict[str, Any]]:
    """Start the server of ``qmgr`` (``args``: its arguments, the name first) in the background (its output
    appended to ``errors/server.log``) and return once it accepts connections: its process and what its
    ``server.json`` says. StartError if it exits first or does not start within ``timeout`` seconds (it is then
    killed)."""
    qdir = _home.qmgr_dir(qmgr, home)
    logdir = qdir / "errors"
    _home.make_private_dirs(logdir)
    log_path = logdir / "server.log"
    since = log_path.stat().st_size if log_path.exists() else 0
    with open(os.open(log_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600), "ab") as log:
        # The server process creates its files (server.json, status, the socket) private to the owner.
        proc = subprocess.Popen(
            serve_command(args),
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=log,
            start_new_session=True,
            close_fds=True,
            umask=0o077,
            env=env,
        )
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        exited = proc.poll()
        if exited is not None:
            detail = _log_tail(log_path, since) or f"the server exited with code {exited}"
            raise StartError("\n".join(failure_lines(detail)), exited if exited else 20)
        info = server_info(qmgr, home)
        if info is not None and info.get("pid") == proc.pid:
            return proc, info
        time.sleep(POLL)
    proc.kill()
    proc.wait()
    raise StartError(f"AMQ8101E: queue manager {qmgr} did not start within {timeout:.0f} s; see {log_path}.", 20)


def wait_gone(pid: int, timeout: float) -> bool:
    """Wait until process ``pid`` has ended; False if it still runs after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while pid_alive(pid):
        if time.monotonic() >= deadline:
            return False
        time.sleep(POLL)
    return True


def end_server(qmgr: str, *, home: str | os.PathLike[str] | None = None, timeout: float = 10.0) -> bool:
    """endmqm -i, then by signal if the server does not answer or end in time (SIGTERM: an immediate end; then
    SIGKILL). Returns whether a server was running. Never raises for a server that has gone already."""
    from syncpoint.client import RemoteTransport
    from syncpoint.mqi import MQMIError

    info = server_info(qmgr, home)
    if info is None:
        return False
    pid = int(info["pid"])
    try:
        RemoteTransport(qmgr, unix_path=info["unix"], appl_name="endmqm", control=True, timeout=timeout).endmqm("i")
    except (MQMIError, OSError):
        _signal(pid, signal.SIGTERM)
    if not wait_gone(pid, timeout):
        _signal(pid, signal.SIGKILL)
        wait_gone(pid, timeout)
    return True


def _signal(pid: int, sig: int) -> None:
    try:
        os.kill(pid, sig)
    except OSError:
        pass
