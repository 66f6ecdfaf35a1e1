"""Fixtures of the queue-sharing-group tests: a real PostgreSQL (tests/pg.py) and real member processes."""

from __future__ import annotations

import json
import os
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest
from qsg_members import Group


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.setenv("SYNCPOINT_HOME", str(tmp_path))
    yield tmp_path
    for info in tmp_path.glob("qmgrs/*/server.json"):  # never leave a member behind
        try:
            os.kill(json.loads(info.read_text())["pid"], signal.SIGKILL)
        except (OSError, ValueError, KeyError):
            pass


@pytest.fixture
def group(home: Path, postgres_url: str) -> Group:
    return Group(home, postgres_url)
