"""Fixtures of the channel tests."""

from __future__ import annotations

import json
import os
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest
from channel_helpers import QMs


@pytest.fixture
def qms(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[QMs]:
    monkeypatch.setenv("SYNCPOINT_HOME", str(tmp_path))
    q = QMs(tmp_path)
    yield q
    for info in tmp_path.glob("qmgrs/*/server.json"):  # never leave a server behind
        try:
            os.kill(json.loads(info.read_text())["pid"], signal.SIGKILL)
        except (OSError, ValueError, KeyError):
            pass
