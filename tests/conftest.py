"""Shared fixtures: an in-memory queue manager on a fake clock, and connections to it.

The suite runs on pytest-xdist workers (``-n auto`` in pyproject's addopts; ``-n 0`` runs it in one process).
Every session-scoped fixture here and in the folders' conftest files (the server loop, PostgreSQL, the Spark
session and its queue manager server) is made once per worker, in that worker's own temporary folder; tests
take their ports from the kernel (port 0) and their homes from ``tmp_path``. See docs/architecture.md, "The
test suite's time".
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator

import pytest

import syncpoint
from syncpoint.client import EmbeddedQueueManager, QueueManager, memory_queue_manager
from syncpoint.engine import FakeClock

# Bytecode is cached even where the environment says not to (PYTHONDONTWRITEBYTECODE=1): the suite starts
# thousands of Python processes (the commands, servers, Spark's Python workers) that import syncpoint afresh, and
# each compiled its modules from source again (about a fifth of a command's start-up CPU); each pytest worker
# rewrote every test module's asserts again too. The cache goes to __pycache__ folders (.gitignore), written
# atomically, so parallel processes share it safely.
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
sys.dont_write_bytecode = False


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """``-n auto``: two workers per CPU this process may use. Most tests spend their time waiting on
    subprocesses (servers, commands, Spark's JVM) and sockets, not on the CPU, so on the 2-CPU CI machine 4
    workers finish the suite sooner than 2 (docs/architecture.md, "The test suite's time", has the numbers)."""
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    return 2 * cpus


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The modules holding a ``@pytest.mark.slow`` test (the kill and load tests, one to five minutes each) run
    first. xdist hands the tests out in collection order; drawn last, one of them set the run's end minutes
    after every other worker had finished (docs/architecture.md, "The test suite's time"). Whole modules move,
    in their own order, so a module's fixtures are still set up once per worker."""
    slow_modules = {item.module for item in items if item.get_closest_marker("slow") is not None}
    items.sort(key=lambda item: item.module not in slow_modules)  # stable: False (slow) sorts first


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def embedded(clock: FakeClock) -> Iterator[EmbeddedQueueManager]:
    e = memory_queue_manager("QM1", clock=clock, dlq="SYSTEM.DEAD.LETTER.QUEUE")
    yield e
    e.close(abnormal=True)


@pytest.fixture
def connect(embedded: EmbeddedQueueManager) -> Callable[..., QueueManager]:
    def _connect(**kw: object) -> QueueManager:
        return syncpoint.connect("QM1", embedded=embedded, **kw)  # type: ignore[arg-type]

    return _connect


@pytest.fixture
def qm(connect: Callable[..., QueueManager]) -> QueueManager:
    c = connect()
    c.admin("define", "QLOCAL", "Q1", {"MAXDEPTH": 100_000})
    return c


# ------------------------------------------------------------------------------------------------------
# an in-process queue manager server (the real asyncio server on a real Unix socket, on a loop thread)
# ------------------------------------------------------------------------------------------------------
class _LoopThread:
    def __init__(self) -> None:
        import asyncio
        import threading

        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="test-server-loop", daemon=True)
        self.thread.start()

    def run(self, coro: object, timeout: float = 30.0) -> object:
        import asyncio

        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)  # type: ignore[arg-type]


@pytest.fixture(scope="session")
def server_loop() -> Iterator[_LoopThread]:
    lt = _LoopThread()
    yield lt
    lt.loop.call_soon_threadsafe(lt.loop.stop)


@pytest.fixture
def serve(server_loop: _LoopThread) -> Iterator[Callable[..., object]]:
    """``serve(embedded, **server_options)`` starts a real server for that queue manager; returns it (its
    ``unix_path`` and ``bound_port`` say where it listens). Stopped at the end of the test.

    IBM's default channel authentication rules refuse what these tests' TCP clients are (SYSTEM.DEF.SVRCONN, this
    test's user, the queue manager's administrator): the queue manager is served with CHLAUTH(DISABLED) unless
    ``chlauth=True`` (tests/server/test_svrconn.py tests the rules themselves)."""
    import shutil
    import tempfile

    from syncpoint.server._server import Server

    started: list[Server] = []
    dirs: list[str] = []

    def _serve(host_qm: EmbeddedQueueManager, chlauth: bool = False, **kw: object) -> Server:
        if not chlauth:
            admin = syncpoint.connect(host_qm.name, embedded=host_qm)
            admin.admin("alter_qmgr", {"CHLAUTH": 0})  # MQCHLA_DISABLED
            admin.disconnect()
        d = tempfile.mkdtemp(prefix="sp-", dir="/tmp")
        dirs.append(d)
        kw.setdefault("host", "127.0.0.1")
        kw.setdefault("port", 0)
        kw.setdefault("unix_path", f"{d}/s.sock")
        srv = Server(host_qm, **kw)  # type: ignore[arg-type]
        server_loop.run(srv.start())
        started.append(srv)
        return srv

    yield _serve
    for srv in started:
        server_loop.run(srv.close())
    for d in dirs:
        shutil.rmtree(d, ignore_errors=True)


@pytest.fixture(scope="session", autouse=True)
def _no_server_outlives_the_tests(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """A safety net: a queue manager server that a test started under pytest's temporary folders and did not
    end (a failed assertion before its endmqm) is killed when the session ends, so CI never leaves one behind."""
    import os
    import signal
    from pathlib import Path

    base = str(tmp_path_factory.getbasetemp())
    yield
    for proc in Path("/proc").glob("[0-9]*"):
        try:
            argv = (proc / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        words = [a.decode(errors="replace") for a in argv]
        if ("syncpoint.cli._serve" in words or "syncpoint.server" in words) and any(w.startswith(base) for w in words):
            try:
                os.kill(int(proc.name), signal.SIGKILL)
            except OSError:
                pass


# ------------------------------------------------------------------------------------------------------
# a real PostgreSQL server for the queue-sharing-group tests (tests/pg.py), started once per session on first use
# ------------------------------------------------------------------------------------------------------
@pytest.fixture(scope="session")
def postgres_server() -> Iterator[object]:
    from pg import PostgresServer, PostgresUnavailable

    try:
        server = PostgresServer().start()
    except PostgresUnavailable as e:
        pytest.fail(str(e), pytrace=False)  # never a silent skip (issue 20, item 8)
    yield server
    server.stop()


@pytest.fixture
def postgres_url(postgres_server: object) -> str:
    """The URI of a fresh, empty database of the session's PostgreSQL server."""
    return postgres_server.new_database()  # type: ignore[attr-defined]
