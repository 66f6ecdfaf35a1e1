"""Frames still arriving: the time a started frame may take, and the server-wide budget of bytes they hold.

A session idle between frames is never timed out (an MQI connection may stay idle as long as it likes). But
once a frame has started to arrive, all of it must arrive within ``frame-timeout`` seconds plus
``frame-seconds-per-mib`` for each MiB its header announces (``_limits.Limits.frame_time``): a client that
trickles a frame a byte at a time cannot hold its connection, nor the bytes of its frame, for ever. The
session keeps at most one timer for this: started with the first partial frame and, when it fires, compared
with the frame being received then (a new frame since, or one that waited for the budget, moves the deadline).
A frame that misses its deadline gets a FATAL reply and the connection closes.

A frame larger than ``LARGE_FRAME`` reserves its announced size from the server's budget
(``partial-frame-budget``, ``_hub.PartialFrames``) as soon as its header has arrived, and gives it back when it
is complete or its connection ends. When the budget is spent, the frame waits: its connection is not read
until enough comes back (first come, first served), and its deadline starts when its turn comes. A frame
larger than the whole budget is refused with a FATAL reply. Frames up to ``LARGE_FRAME`` are not counted: they
are bounded by ``max-connections`` times that size.

Per frame, the hot path costs one look at the decoder's buffer (:meth:`Frames._track_frame` returns at once
when no frame is partly received and none was).
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING

from syncpoint.wire import ServerProtocol

from ._hub import Hub, warn_now
from ._limits import LARGE_FRAME

log = logging.getLogger("syncpoint.server")


class Frames:
    """The frame-watching part of a session (module docstring)."""

    server: Hub
    proto: ServerProtocol
    closing: bool
    peer: str
    _frame_since: float | None  # when the frame being received started (None: none is)
    _frame_size: int  # the size its header announces (-1: not yet known)
    _frame_held: int  # bytes of the budget it holds
    _frame_waits: bool  # it waits for the budget: the connection is not read
    _frame_timer: asyncio.TimerHandle | None

    if TYPE_CHECKING:

        def fatal(self, detail: str, quiet: bool = False, linger: bool = True) -> None: ...

        def _update_reading(self) -> None: ...

    def _track_frame(self, completed: bool) -> None:
        """After bytes were received (``completed``: they completed at least one frame): watch the frame now
        partly received, if any."""
        size = self.proto.decoder.pending()
        if not size:
            if self._frame_since is not None:
                self._frame_done()
            return
        loop = self.server.loop
        if loop is None or self._frame_waits:
            return
        if self._frame_since is None or completed:  # a new frame has started
            self._frame_done()
            self._frame_since = loop.time()
        if size > 0 and self._frame_size != size:
            self._frame_size = size
            if size > LARGE_FRAME and not self._reserve(size):
                return
        if self._frame_timer is None:
            self._arm_frame_timer(size)

    def _reserve(self, size: int) -> bool:
        partial = self.server.partial
        if size > partial.budget:
            self._frame_refused(
                f"a frame of {size} bytes exceeds the server's budget of {partial.budget} bytes for frames being "
                "received (strmqm --limit partial-frame-budget)"
            )
            return False
        if partial.reserve(self, size):
            self._frame_held = size
            return True
        self._frame_waits = True  # not read until its turn; its time starts then
        self._frame_since = None
        if warn_now("partial-frame-budget"):
            log.warning(
                "the budget of %d bytes for frames being received is in use (strmqm --limit partial-frame-budget): "
                "a frame of %d bytes from %s waits for its turn",
                partial.budget,
                size,
                self.peer,
            )
        self._update_reading()
        return False

    def _frame_granted(self) -> None:
        """Its turn came: the budget holds its frame now; reading resumes and its time starts."""
        self._frame_waits = False
        self._frame_held = self._frame_size
        loop = self.server.loop
        if self.closing or loop is None:
            return
        self._frame_since = loop.time()
        if self._frame_timer is None:
            self._arm_frame_timer(self._frame_size)
        self._update_reading()

    def _arm_frame_timer(self, size: int) -> None:
        loop = self.server.loop
        assert loop is not None
        self._frame_timer = loop.call_later(self.server.limits.frame_time(max(size, 0)), self._frame_check)

    def _frame_check(self) -> None:
        self._frame_timer = None
        since, loop = self._frame_since, self.server.loop
        if since is None or self.closing or loop is None:
            return
        allowed = self.server.limits.frame_time(max(self._frame_size, 0))
        late = loop.time() - since - allowed
        if late < -0.001:  # a later frame than the one the timer was armed for: its own deadline
            self._frame_timer = loop.call_later(-late, self._frame_check)
            return
        self._frame_refused(
            f"a frame did not arrive within {allowed:g} seconds of its start (strmqm --limit frame-timeout, "
            "frame-seconds-per-mib)",
            "frame-timeout",
        )

    def _frame_refused(self, detail: str, what: str = "partial-frame-budget") -> None:
        self._frame_done()
        if warn_now(what):
            log.warning("closing the connection from %s: %s", self.peer, detail)
        self.fatal(detail, quiet=True)

    def _frame_done(self) -> None:
        """The frame being received is complete, or its connection ends: its bytes of the budget come back."""
        self._frame_since = None
        self._frame_size = -1
        held, self._frame_held = self._frame_held, 0
        if self._frame_waits:
            self._frame_waits = False
            self.server.partial.forget(self)
        if held:
            self.server.partial.release(held)

    def _frame_stop(self) -> None:
        """The connection ended: no frame of it is watched any more."""
        self._frame_done()
        if self._frame_timer is not None:
            self._frame_timer.cancel()
            self._frame_timer = None


__all__ = ["Frames"]
