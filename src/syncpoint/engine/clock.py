"""Time as a parameter: the engine reads the clock it is given; tests give it a :class:`FakeClock`.

The clock also decides how long a waiter sleeps (``deadline_to_sleep_time``, the shape of trio's
``Clock.deadline_to_sleep_time``): whoever waits for a deadline asks its clock how many real seconds to sleep,
so a fake clock needs no special case in the code that waits.
"""

from __future__ import annotations

import threading
import time as _time
from typing import Protocol


class Clock(Protocol):
    def time(self) -> float:
        """Wall-clock seconds since the epoch (PutDate / PutTime, expiry)."""
        ...

    def monotonic(self) -> float:
        """Seconds from an arbitrary origin that never goes back (wait intervals, trigger intervals)."""
        ...

    def deadline_to_sleep_time(self, deadline: float) -> float:
        """The real seconds to sleep until ``monotonic()`` reaches ``deadline``; 0 when it has."""
        ...

    def wait(self, cond: threading.Condition, timeout: float | None) -> None:
        """Block on ``cond`` (held by the caller) for at most ``timeout`` seconds, or until notified."""
        ...


class SystemClock:
    # the C functions themselves: a call on the engine's hot paths costs no Python frame
    time = staticmethod(_time.time)
    monotonic = staticmethod(_time.monotonic)

    def deadline_to_sleep_time(self, deadline: float) -> float:
        return max(0.0, deadline - _time.monotonic())

    def wait(self, cond: threading.Condition, timeout: float | None) -> None:
        cond.wait(timeout)


class FakeClock:
    """A clock that moves only when told to (``advance``), or when a waiter sleeps until a deadline.

    A sleep does not take real time: :meth:`deadline_to_sleep_time` moves the clock to the deadline at once and
    answers 0 (trio's ``MockClock`` with ``autojump_threshold=0``), so a waiter lets other threads run once and
    then finds its deadline passed, as if nothing had happened in that interval. A wait without a timeout blocks
    until notified.
    """

    def __init__(self, start: float = 1_767_225_600.0) -> None:  # 2026-01-01T00:00:00Z
        self._wall = start
        self._mono = 1000.0
        self._lock = threading.Lock()

    def time(self) -> float:
        return self._wall

    def monotonic(self) -> float:
        return self._mono

    def advance(self, seconds: float) -> None:
        with self._lock:
            self._wall += seconds
            self._mono += seconds

    def deadline_to_sleep_time(self, deadline: float) -> float:
        with self._lock:
            ahead = deadline - self._mono
            if ahead > 0:
                self._wall += ahead
                self._mono += ahead
        return 0.0

    def wait(self, cond: threading.Condition, timeout: float | None) -> None:
        if timeout is None:
            cond.wait()
            return
        cond.wait(self.deadline_to_sleep_time(self._mono + max(timeout, 0.0)))
