"""What the server and its sessions know of each other: the shapes they meet in, below both.

A session (``_session.py``) sees its server through :class:`Hub`; the server (``_server.py``) and the host's
waiters see a session through :class:`SessionFace` (the calls they make on one). :class:`ParkedGet` is an
MQGET with MQGMO_WAIT parked in the host's waiters, :class:`ServerStats` the counters ``ping`` shows. Kept in
their own module so that neither side imports the other to name its type.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from syncpoint.host import QueueManagerHost, Waiter
from syncpoint.mqi import MQGMO, MQMD, MQMIError
from syncpoint.store import Pending

from ._auth import Throttle, Users
from ._limits import Limits
from ._syncer import Syncer


class SessionFace(Protocol):
    """What the server and its waiters call on a session (``_session.Session``)."""

    closing: bool

    def fatal(self, detail: str, quiet: bool = False, linger: bool = True) -> None: ...

    def end_connection(self, abnormal: bool) -> None: ...

    def retry_get(self, w: ParkedGet) -> None: ...

    def reply_error(self, request_id: int, error: MQMIError) -> None: ...

    def unblock(self) -> None: ...


class Hub(Protocol):
    """What a session needs of its server (``_server.Server``)."""

    qm: QueueManagerHost
    max_frame: int
    sessions: set[SessionFace]
    stats: ServerStats
    users: Users | None
    loop: asyncio.AbstractEventLoop | None
    syncer: Syncer | None
    limits: Limits
    throttle: Throttle
    tcp_sessions: int

    @property
    def state(self) -> str: ...

    def end(self, mode: str) -> str: ...

    def check_controlled_end(self) -> None: ...

    def park(self, w: ParkedGet) -> None: ...

    def arm(self, w: ParkedGet) -> None: ...

    def unpark(self, w: ParkedGet) -> None: ...

    def end_wait(self, w: ParkedGet, error: MQMIError) -> None: ...

    def after_durable(
        self, pending: Pending, done: Callable[[BaseException | None], None], session: Any = None
    ) -> None: ...

    def heard_from(self, session: Any) -> None: ...


@dataclass(slots=True, eq=False)
class ParkedGet(Waiter):
    """A parked MQGET with MQGMO_WAIT: the host's waiter and the request it answers."""

    session: SessionFace | None = None
    request_id: int = 0
    hobj: int = 0
    md: MQMD | None = None
    gmo: MQGMO | None = None
    buflen: int | None = None
    timer: asyncio.TimerHandle | None = None


@dataclass(slots=True)
class ServerStats:
    sessions: int = 0
    calls: int = 0
    bad_requests: int = 0
    fatal: int = 0
    sessions_total: int = 0
    refused_limit: int = 0  # hellos answered MQRC_MAX_CONNS_LIMIT_REACHED, or connections closed unanswered
    handshake_timeouts: int = 0
    auth_failures: int = 0


_last_warning: dict[str, float] = {}


def warn_now(what: str) -> bool:
    """Whether to log ``what`` now: a warning an attacker can cause repeats at most once a minute."""
    now = time.monotonic()
    if now - _last_warning.get(what, -120.0) < 60.0:
        return False
    _last_warning[what] = now
    return True
