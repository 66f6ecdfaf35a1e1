"""Waiting in tests for a state another thread or process reaches on its own (never for time to pass)."""

from __future__ import annotations

import time
from collections.abc import Callable


def wait_until(cond: Callable[[], object], what: str, timeout: float = 120.0, interval: float = 0.1) -> None:
    """Return once ``cond()`` is true; AssertionError naming ``what`` if it is not within ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while not cond():
        if time.monotonic() > deadline:
            raise AssertionError(f"{what} did not happen within {timeout} s")
        time.sleep(interval)
