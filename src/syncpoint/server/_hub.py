"""What the server and its sessions know of each other: the shapes they meet in, below both.

A session (``_session.py``) sees its server through :class:`Hub`; the server (``_server.py``) and the host's
waiters see a session through :class:`SessionFace` (the calls they make on one). :class:`ParkedGet` is an
MQGET with MQGMO_WAIT parked in the host's waiters, :class:`ServerStats` the counters ``ping`` shows. Kept in
their own module so that neither side imports the other to name its type.
"""

from __future__ import annotations

import asyncio
import collections
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


class FrameWaiter(Protocol):
    """A session whose large frame waits for the budget of partial frames (``_frames.Frames``)."""

    _frame_size: int

    def _frame_granted(self) -> None: ...


class PartialFrames:
    """The server's budget of bytes held by large frames still arriving, and the frames waiting for it."""

    def __init__(self, budget: int) -> None:
        self.budget = budget
        self.held = 0
        self.waiting: collections.deque[FrameWaiter] = collections.deque()

    def reserve(self, frames: FrameWaiter, size: int) -> bool:
        """Take ``size`` bytes for ``frames``' frame now (True), or queue it until they come back (False)."""
        if not self.waiting and self.held + size <= self.budget:
            self.held += size
            return True
        self.waiting.append(frames)
        return False

    def release(self, size: int) -> None:
        self.held -= size
        while self.waiting and self.held + self.waiting[0]._frame_size <= self.budget:
            frames = self.waiting.popleft()
            self.held += frames._frame_size
            frames._frame_granted()

    def forget(self, frames: FrameWaiter) -> None:
        try:
            self.waiting.remove(frames)
        except ValueError:
            return
        self.release(0)  # the frames behind it may fit now


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
    addresses: dict[str, int]  # TCP connections open now, by address (max-connections-per-address)
    instances: dict[tuple[str, str], int]  # SVRCONN channel instances, in all and by address (MAXINST, MAXINSTC)
    partial: PartialFrames

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
