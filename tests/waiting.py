"""Waiting in tests for a state another thread or process reaches on its own (never for time to pass).

A test that needs something to have happened waits for that thing, not for a number of seconds: a fixed sleep
is either too short on a loaded machine (the test fails) or longer than needed everywhere else (the suite
slows down). The timeouts here only bound how long a test waits for something that is not going to happen.
"""

from __future__ import annotations

import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

T = TypeVar("T")


def wait_for_value(
    get: Callable[[], T | None],
    what: str,
    timeout: float = 120.0,
    interval: float = 0.1,
    *,
    process: subprocess.Popen[Any] | None = None,
    detail: Callable[[], object] | None = None,
) -> T:
    """The first value ``get()`` returns that is not None (asked every ``interval`` seconds); AssertionError
    naming ``what`` if there is none within ``timeout`` seconds.

    With ``process``, fail as soon as that process has ended without ``get()`` returning a value (none will
    come then). ``detail()``, if given, is added to the failure's message (a log, the process's output).
    """
    deadline = time.monotonic() + timeout
    while (value := get()) is None:
        failure = None
        if process is not None and process.poll() is not None:
            if (value := get()) is not None:  # it happened just before the process ended
                return value
            failure = f"{what} did not happen: the process ended first (exit status {process.returncode})"
        elif time.monotonic() > deadline:
            failure = f"{what} did not happen within {timeout} s"
        if failure is not None:
            raise AssertionError(failure if detail is None else f"{failure}: {detail()}")
        time.sleep(interval)
    return value


def wait_until(
    cond: Callable[[], object],
    what: str,
    timeout: float = 120.0,
    interval: float = 0.1,
    *,
    process: subprocess.Popen[Any] | None = None,
    detail: Callable[[], object] | None = None,
) -> None:
    """Return once ``cond()`` is true; AssertionError naming ``what`` if it is not within ``timeout`` seconds
    (or, with ``process``, once that process has ended first); as ``wait_for_value``."""
    wait_for_value(lambda: True if cond() else None, what, timeout, interval, process=process, detail=detail)


def wait_for_file(
    path: Path,
    timeout: float = 120.0,
    *,
    process: subprocess.Popen[Any] | None = None,
    detail: Callable[[], object] | None = None,
) -> None:
    """Return once ``path`` exists (another process wrote it); as ``wait_until``."""
    wait_until(path.exists, f"{path} being written", timeout, 0.05, process=process, detail=detail)
