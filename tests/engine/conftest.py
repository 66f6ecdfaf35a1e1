"""The engine-level suite runs over both transports: in-process and the real server over its Unix socket
(the server issue: "the same tests pass with either transport")."""

from __future__ import annotations

from collections.abc import Callable

import pytest

import syncpoint
from syncpoint.client import EmbeddedQueueManager, QueueManager


@pytest.fixture(params=["embedded", "remote"])
def transport(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def connect(
    transport: str, embedded: EmbeddedQueueManager, serve: Callable[..., object]
) -> Callable[..., QueueManager]:
    if transport == "embedded":

        def _connect(**kw: object) -> QueueManager:
            return syncpoint.connect("QM1", embedded=embedded, **kw)  # type: ignore[arg-type]

        return _connect
    srv = serve(embedded)

    def _remote(**kw: object) -> QueueManager:
        return syncpoint.connect("QM1", unix_path=srv.unix_path, **kw)  # type: ignore[attr-defined]

    return _remote
