"""Fixtures for the store tests: every contract test runs against each store, through a restartable harness."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from syncpoint.store import MemoryStore, PostgresStore, Snapshot, SQLiteStore, Store


class StoreHarness:
    """Opens a store and restarts it: SQLite and PostgreSQL close and reconnect; memory calls ``open()`` again."""

    def __init__(self, kind: str, directory: Path, request: pytest.FixtureRequest) -> None:
        self.kind = kind
        self.path = directory / "qm.db"
        self._memory = MemoryStore() if kind == "memory" else None
        # a real PostgreSQL (tests/pg.py), a fresh database for each test
        self._url = request.getfixturevalue("postgres_url") if kind == "postgres" else None
        self.store: Store = self._new(create=True)

    def _new(self, *, create: bool = False) -> Store:
        if self._memory is not None:
            return self._memory
        if self._url is not None:
            return PostgresStore(self._url, "QMA")
        return SQLiteStore(self.path, create=create)

    def start(self) -> Snapshot:
        return self.store.open()

    def restart(self) -> Snapshot:
        if self._memory is None:
            self.store.close()
            self.store = self._new()
        return self.store.open()

    def close(self) -> None:
        self.store.close()


@pytest.fixture(params=["memory", "sqlite", "postgres"])
def harness(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[StoreHarness]:
    store_harness = StoreHarness(request.param, tmp_path, request)
    yield store_harness
    store_harness.close()


# -- one SQLite store, opened for a test and closed after it -----------------------------------------------


@pytest.fixture
def store_path(tmp_path: Path) -> Path:
    return tmp_path / "qm.db"


@pytest.fixture
def store(store_path: Path):
    opened = SQLiteStore(store_path, create=True)
    opened.open()
    yield opened
    opened.close()
