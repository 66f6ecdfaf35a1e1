"""Shared fixtures: an in-memory queue manager on a fake clock, and connections to it."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

import syncpoint
from syncpoint.client import EmbeddedQueueManager, QueueManager, memory_queue_manager
from syncpoint.engine import FakeClock


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
