"""Fixtures of the server tests."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from syncpoint.client import EmbeddedQueueManager, create_queue_manager, open_embedded


@pytest.fixture
def sqlite_qm(tmp_path: Path) -> Iterator[EmbeddedQueueManager]:
    """Queue manager QMS on a real SQLite store (store counters such as syncs are real)."""
    create_queue_manager("QMS", home=tmp_path)
    qm = open_embedded("QMS", home=tmp_path)
    yield qm
    qm.close(abnormal=True)
