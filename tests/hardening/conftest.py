"""Fixtures of the hardening tests."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from test_server_limits import _run

from servers import allow_local_clients


@pytest.fixture
def start(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[..., dict[str, Any]]]:
    """``start(*strmqm options)``: queue manager QML created and its server started; its server.json."""
    monkeypatch.setenv("SYNCPOINT_HOME", str(tmp_path))
    assert _run(tmp_path, "crtmqm", "QML").returncode == 0
    allow_local_clients(tmp_path, "QML")  # its TCP clients: this user on SYSTEM.DEF.SVRCONN

    def _start(*options: str) -> dict[str, Any]:
        r = _run(tmp_path, "strmqm", "QML", "--port", "0", *options)
        assert r.returncode == 0, r.stderr
        info: dict[str, Any] = json.loads((tmp_path / "qmgrs/QML/server.json").read_text())
        return info

    yield _start
    _run(tmp_path, "endmqm", "-i", "QML")
