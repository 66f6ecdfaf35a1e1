"""The engine-level suite runs over both transports: in-process and the real server over its Unix socket
(the server issue: "the same tests pass with either transport"), and the modules of the MQI rules also on a
*shared* queue (issue 20, item 2: "Shared queues keep every MQI rule of a private queue … the engine-level suite
runs against a shared queue too"): the queue manager QM1 is then a member of a queue-sharing group on the
session's real PostgreSQL (tests/pg.py), and every QLOCAL a test defines is QSGDISP(SHARED)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

import syncpoint
from syncpoint.client import EmbeddedConnection, EmbeddedQueueManager, QueueManager, memory_queue_manager
from syncpoint.engine import FakeClock
from syncpoint.engine import QueueManager as Engine
from syncpoint.mqi import constants as C
from syncpoint.store import Batch, MemoryStore, create_member, membership_record

# the modules whose tests also run on a shared queue ("shared": embedded transport, QLOCALs shared)
SHARED_MODULES = {
    "test_mqi_verbs",  # put, get, browse, cursor, lock, priority, FIFO, match, truncation, wait, MAXDEPTH, GET
    "test_units_of_work",  # syncpoint, backout, MARK_SKIP_BACKOUT (seed 000)
    "test_expiry",  # seed 002 on a get, a browse, and their reports
    "test_hot_path_rules",
    "test_msgdlvsq_change",
    "test_message_properties",  # properties kept in the group's store (issue 34)
}
DLQ = "SYSTEM.DEAD.LETTER.QUEUE"


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "transport" in metafunc.fixturenames:
        kinds = ["embedded", "remote"]
        if metafunc.module.__name__ in SHARED_MODULES:
            kinds.append("shared")
        metafunc.parametrize("transport", kinds, indirect=True)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """``@pytest.mark.not_on_shared_queue("why")``: a test whose shared run does not apply (a rule IBM gives
    private queues only, or one another suite checks for shared queues); skipped with that reason, reported."""
    for item in items:
        mark = item.get_closest_marker("not_on_shared_queue")
        callspec = getattr(item, "callspec", None)
        if mark is not None and callspec is not None and callspec.params.get("transport") == "shared":
            item.add_marker(pytest.mark.skip(reason="not on a shared queue: " + str(mark.args[0])))


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "not_on_shared_queue(reason): the test's shared run does not apply")


@pytest.fixture
def transport(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def embedded(
    transport: str, clock: FakeClock, request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> Iterator[EmbeddedQueueManager]:
    if transport != "shared":
        e: EmbeddedQueueManager = memory_queue_manager("QM1", clock=clock, dlq=DLQ)
    else:
        e = shared_member("QM1", request.getfixturevalue("postgres_url"), clock)
        monkeypatch.setattr(EmbeddedConnection, "admin", _sharing_admin(EmbeddedConnection.admin))
    yield e
    e.close(abnormal=True)


def shared_member(name: str, url: str, clock: FakeClock) -> EmbeddedQueueManager:
    """Queue manager ``name``, a member of group SPG in the database at ``url``, its private store in memory."""
    create_member(url, "SPG", name)
    store = MemoryStore()
    store.open()
    store.write(Engine.initial_batch(name, clock, DLQ))
    store.write(Batch(put_objects=[membership_record("SPG", url)]))
    return EmbeddedQueueManager(name, store, clock)


def _sharing_admin(admin: Callable[..., Any]) -> Callable[..., Any]:
    """The administrative verbs of a connection, with every QLOCAL a test defines made QSGDISP(SHARED) and,
    unless the test says otherwise, INDXTYPE(CORRELID) (reference/queue-sharing-groups.md: a get by CorrelId
    from a shared queue needs it)."""

    def sharing(self: EmbeddedConnection, verb: str, *args: Any, **kwargs: Any) -> Any:
        if verb == "define" and args and args[0] == "QLOCAL" and not str(args[1]).startswith("SYSTEM."):
            attrs = dict(args[2]) if len(args) > 2 and args[2] else dict(kwargs.pop("attrs", None) or {})
            attrs.setdefault("QSGDISP", "SHARED")
            attrs.setdefault("INDXTYPE", C.MQIT_CORREL_ID)
            args = (args[0], args[1], attrs, *args[3:])
        return admin(self, verb, *args, **kwargs)

    return sharing


@pytest.fixture
def connect(
    transport: str, embedded: EmbeddedQueueManager, serve: Callable[..., object]
) -> Callable[..., QueueManager]:
    if transport in ("embedded", "shared"):

        def _connect(**kw: object) -> QueueManager:
            return syncpoint.connect("QM1", embedded=embedded, **kw)  # type: ignore[arg-type]

        return _connect
    srv = serve(embedded)

    def _remote(**kw: object) -> QueueManager:
        return syncpoint.connect("QM1", unix_path=srv.unix_path, **kw)  # type: ignore[attr-defined]

    return _remote
