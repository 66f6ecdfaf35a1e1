"""Busy polling: while the queue manager is busy, the one CPU it runs on polls instead of going idle.

On the virtual machines syncpoint is measured on, an idle virtual CPU halts, and everything that then has to
happen on it costs tens of microseconds more: the disk's completion interrupt for the ``fdatasync`` the queue
manager is waiting for wakes a halted CPU through the hypervisor, so does a request arriving from a client on the
other CPU, and the Python code that runs next starts cold (measured: a put that takes 8 µs in a loop with no
waits takes 15-25 µs right after a 100 µs wait). Linux's own remedy, guest halt polling, is switched off on them
(``haltpoll.guest_halt_poll_ns=0``).

So when the queue manager's process runs on a single CPU (the server's default, ``strmqm --cpus auto``, or an
application that called :func:`syncpoint.client.pin_cpus`), a poller thread keeps that CPU busy from the moment
the queue manager starts a durable write or receives a request until it has had nothing to do for a short window
(1 ms). The thread runs under ``SCHED_IDLE``: the kernel gives it the CPU only when no other thread of any
process wants it, and takes it back the moment one does, so it never delays the queue manager's own threads or
anyone else's. It spins in C with the GIL released (hashing a buffer), taking the GIL only between chunks of a
few microseconds. Measured (docs/benchmarks.md): the synchronous persistent shapes (a commit per message, a
durable round trip per request) 10-30 % faster; nothing changes for the CPU-bound shapes, which leave the CPU no
idle time to poll in.

It does not poll:

* where the process may run on more than one CPU: the poller would then run beside the queue manager on another
  CPU and compete with it for the GIL instead of filling its idle time (measured: no gain, some loss);
* where the process's control group has a CPU quota (``cpu.max``): the polling would spend the quota;
* outside Linux (no ``SCHED_IDLE``);
* when switched off (``strmqm --no-busy-poll``, ``pin_cpus(busy_poll=False)``);
* in a server, while another server of its home runs pinned to its CPU (``server._lifecycle``: two pollers to a
  CPU cost more than they save).

Polled time shows as CPU time of the process in ``top`` while the queue manager is busy, and none when it is
idle: the window restarts at every durable write and request, and the thread sleeps once it passes.
"""

from __future__ import annotations

import functools
import hashlib
import os
import threading
import time
from collections.abc import Callable
from pathlib import Path

WINDOW = 0.001  # seconds of polling after the last touch
CHUNK = 8192  # bytes hashed between two looks at the clock: a few microseconds with the GIL released


def cpu_quota(root: str | os.PathLike[str] = "/") -> float | None:
    """The CPU quota of this process's control group in CPUs (``0.5`` for half a CPU), or None if it has none.

    Reads cgroup v2's ``cpu.max`` (``max 100000`` means no quota) or v1's ``cpu.cfs_quota_us`` (-1 likewise)
    of the groups named in ``/proc/self/cgroup``; a group whose files are missing or unreadable sets none."""
    base = Path(root)
    try:
        lines = (base / "proc/self/cgroup").read_text().splitlines()
    except OSError:
        return None
    for line in lines:
        hierarchy, _, rest = line.partition(":")
        controllers, _, group = rest.partition(":")
        group = group.lstrip("/")
        try:
            if hierarchy == "0" and controllers == "":  # cgroup v2
                fields = (base / "sys/fs/cgroup" / group / "cpu.max").read_text().split()
                if fields[0] != "max":
                    return int(fields[0]) / int(fields[1])
            elif "cpu" in controllers.split(","):  # cgroup v1
                folder = base / "sys/fs/cgroup" / controllers / group
                if not folder.exists():
                    folder = base / "sys/fs/cgroup/cpu" / group
                quota_us = int((folder / "cpu.cfs_quota_us").read_text())
                if quota_us >= 0:
                    return quota_us / int((folder / "cpu.cfs_period_us").read_text())
        except (OSError, ValueError, IndexError, ZeroDivisionError):
            continue
    return None


_quota: list[float | None] = []  # the process's quota, read once


def can_poll() -> bool:
    """True where polling helps and harms no one: Linux, the calling thread confined to one CPU, no CPU quota."""
    sched_idle = getattr(os, "SCHED_IDLE", None)
    getaffinity = getattr(os, "sched_getaffinity", None)
    if sched_idle is None or getaffinity is None or len(getaffinity(0)) != 1:
        return False
    if not _quota:
        _quota.append(cpu_quota())
    return _quota[0] is None


class BusyPoller:
    """Keeps the process's CPU polling for ``window`` seconds after each :meth:`touch`, when :attr:`enabled`.

    :meth:`touch` is the hot path (a counter and a flag); the checks of :func:`can_poll` run only when a touch
    finds the poller asleep. ``clock`` measures the window (a fake one in tests)."""

    def __init__(
        self,
        window: float = WINDOW,
        clock: Callable[[], float] = time.monotonic,
        eligible: Callable[[], bool] = can_poll,
    ) -> None:
        self.window = window
        self.enabled = False
        self.touches = 0
        self.sleeping = True
        self.thread: threading.Thread | None = None
        self._clock = clock
        self._eligible = eligible
        self._wakeup = threading.Event()
        self._closed = False
        self._refused = False  # the platform refused SCHED_IDLE: never try again

    def touch(self) -> None:
        """The queue manager has work in flight: poll (again) for the next ``window`` seconds."""
        self.touches += 1
        if self.sleeping and self.enabled:
            self._wake()

    def _wake(self) -> None:
        if self._refused or self._closed or not self._eligible():
            return
        self.sleeping = False
        if self.thread is None:
            self.thread = threading.Thread(target=self._run, name="syncpoint-busy-poll", daemon=True)
            self.thread.start()
        else:
            self._wakeup.set()

    def set_eligible(self, eligible: Callable[[], bool]) -> None:
        """Where polling helps, asked each time a touch finds the poller asleep (the server adds its own check to
        :func:`can_poll`: no other queue manager on its CPU)."""
        self._eligible = eligible

    def close(self) -> None:
        """Stop the thread (tests; a process's poller otherwise lives as long as the process)."""
        self._closed = True
        self._wakeup.set()
        if self.thread is not None and self.thread is not threading.current_thread():
            self.thread.join()

    def _run(self) -> None:
        try:
            os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
        except (AttributeError, OSError):
            self._refused = True
            self.sleeping = True
            return
        burn = functools.partial(hashlib.sha1, usedforsecurity=False)  # allowed where FIPS forbids SHA-1 for security
        buffer = bytes(CHUNK)
        clock = self._clock
        while not self._closed:
            seen = self.touches
            last = clock()
            while not self._closed:
                burn(buffer)  # releases the GIL: the CPU stays busy without holding anyone up
                now_touched = self.touches
                if now_touched != seen:
                    seen = now_touched
                    last = clock()
                elif clock() - last > self.window:
                    break
            self.sleeping = True
            if self.touches != seen and self.enabled and not self._closed:  # touched while it was deciding
                self.sleeping = False
                continue
            self._wakeup.wait()
            self._wakeup.clear()
        self.sleeping = True

    def _after_fork(self) -> None:
        """In a forked child the thread is gone: start a new one at the next touch."""
        self.thread = None
        self.sleeping = True
        self._wakeup = threading.Event()


#: The process's poller: the CPU is the process's, so one poller serves every queue manager in it.
POLLER = BusyPoller()
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=POLLER._after_fork)
