"""ONE SparkSession (local[2]) for every Spark test, and a queue manager served by a real server process.

Spark's Python workers are separate processes, so the tests' queue manager runs in its own server process
(``python -m syncpoint.cli._serve``, what ``syncpoint strmqm`` starts); Spark's workers and the tests connect to it
with ``syncpoint.connect(name, home=...)``.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import syncpoint
from servers import allow_local_clients
from syncpoint.client import QueueManager, create_queue_manager
from syncpoint.spark import Target
from waiting import wait_until

DLQ = "SYSTEM.DEAD.LETTER.QUEUE"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Server:
    """A queue manager and its server process (started, killed and restarted by tests)."""

    def __init__(self, name: str, home: Path) -> None:
        self.name = name
        self.home = home
        self.port = _free_port()
        self.proc: subprocess.Popen[bytes] | None = None
        self.log = home / f"{name}-server.log"

    def start(self) -> None:
        from syncpoint.server import server_info

        self.port = _free_port()
        cmd = [sys.executable, "-m", "syncpoint.cli._serve", self.name, "--home", str(self.home)]
        cmd += ["--port", str(self.port), "--no-command-server"]
        with open(self.log, "ab") as log:
            self.proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT)

        def accepting() -> bool:
            if server_info(self.name, self.home) is None:
                return False
            try:
                self.connect().disconnect()
            except Exception:
                return False
            return True

        wait_until(accepting, "the server starting", 60, process=self.proc, detail=lambda: self.log.read_text()[-2000:])

    def kill(self) -> None:
        """SIGKILL: the queue manager's restart backs out what was in flight."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait()

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.kill()

    def connect(self) -> QueueManager:
        return syncpoint.connect(self.name, home=self.home, appl_name="tests")

    @property
    def target(self) -> Target:
        return Target(self.name, home=str(self.home))


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    home = tmp_path_factory.mktemp("spark-home")
    create_queue_manager("QMSPARK", dlq=DLQ, home=home)
    # the cluster test's flow reaches it over TCP on SYSTEM.DEF.SVRCONN as this (administrator) user
    allow_local_clients(home, "QMSPARK")
    s = Server("QMSPARK", home)
    s.start()
    yield s
    s.stop()


@pytest.fixture(scope="session")
def spark() -> Iterator[Any]:
    pytest.importorskip("pyspark")
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    from syncpoint.flow import spark_session

    session = spark_session("local[2]", "syncpoint-tests")
    yield session
    session.stop()


@pytest.fixture
def qm(server: Server) -> Iterator[QueueManager]:
    c = server.connect()
    yield c
    c.disconnect()


class _Names:
    """Unique queue names for one test (every Spark test shares the one queue manager): ``names("X")``, and
    ``names.pair(qm, "X")`` defines the local queues X.IN and X.OUT and returns their names."""

    def __init__(self) -> None:
        self.tag = uuid.uuid4().hex[:8].upper()

    def __call__(self, base: str) -> str:
        return f"{base}.{self.tag}"

    def pair(self, qm: QueueManager, base: str) -> tuple[str, str]:
        src, dst = self(f"{base}.IN"), self(f"{base}.OUT")
        qm.admin("define", "QLOCAL", src)
        qm.admin("define", "QLOCAL", dst)
        return src, dst


@pytest.fixture
def names() -> _Names:
    return _Names()


def depth(qm: QueueManager, queue: str) -> int:
    return qm.open(queue).depth


def bodies(qm: QueueManager, queue: str) -> list[bytes]:
    return [m.data for m in qm.open(queue).browse_all()]
