"""Queue managers' servers for tests of the command-line tools, as real processes (``syncpoint strmqm``).

IBM's commands and samples need a running queue manager (issue 21, item 1): a test of runmqsc, the amqs*
samples, runmqtrm or runmqdlq starts the server first, and ends every server it started at the end.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

SYNCPOINT = str(Path(sys.executable).with_name("syncpoint"))


def syncpoint_run(home: Path, *args: str, input: str | None = None) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, SYNCPOINT_HOME=str(home))
    return subprocess.run([SYNCPOINT, *args], env=env, input=input, capture_output=True, text=True, timeout=120)


def start_server(home: Path, qmgr: str = "QM1", *strmqm_args: str) -> None:
    """``strmqm QMGR`` on the Unix socket only (no TCP port to collide with); fails the test if it does not start."""
    started = syncpoint_run(home, "strmqm", qmgr, "--no-tcp", "--metrics-port", "0", *strmqm_args)
    assert started.returncode == 0, started.stdout + started.stderr


def kill_servers(home: Path) -> None:
    """Stop at once every server of ``home`` that still runs (the end of a test: nothing to wait for)."""
    for info in home.glob("qmgrs/*/server.json"):
        try:
            os.kill(json.loads(info.read_text())["pid"], signal.SIGKILL)
        except (OSError, ValueError, KeyError, TypeError):
            pass


@contextmanager
def servers_of(home: Path) -> Iterator[Path]:
    """``home``, whose servers are killed when the block ends."""
    try:
        yield home
    finally:
        kill_servers(home)


def allow_local_clients(home: Path, qmgr: str = "QM1") -> None:
    """IBM's default channel authentication records block SYSTEM.DEF.SVRCONN and administrators over TCP
    (docs/security.md). A test of something else whose TCP clients are this (administrator) user on the default
    channel allows them from loopback (127.*) first, as the pytest plugin's served queue managers do. Run before the
    queue manager's server starts (it opens the queue manager in this process, and closes it)."""
    import syncpoint
    from syncpoint.cli._testing import PLAIN_CHANNEL_RULES
    from syncpoint.client import open_embedded
    from syncpoint.mqsc import MqscProcessor

    embedded = open_embedded(qmgr, home=home)
    qm = syncpoint.connect(qmgr, embedded=embedded)
    try:
        for command in PLAIN_CHANNEL_RULES:
            assert MqscProcessor(qm, echo=False).execute(command).ok, command
    finally:
        qm.disconnect()
        embedded.close()
