"""Process tuning for applications that run the queue manager in their own process."""

from __future__ import annotations

import os

from syncpoint import _home
from syncpoint.host import POLLER, pin


def pin_cpus(
    cpus: str = "auto", home: str | os.PathLike[str] | None = None, *, busy_poll: bool = True
) -> set[int] | None:
    """Run this process (every thread it has and will start) on the CPUs ``cpus`` names, in the grammar of
    ``strmqm --cpus``: ``auto`` (one CPU: the one taking the interrupts of the disk under ``home``, the
    queue managers' folder, default ``$SYNCPOINT_HOME``), ``all`` (leave them), or a list such as ``1`` or
    ``0-3``. Returns the CPUs the process now runs on, or None if it was left alone; ValueError if ``cpus``
    cannot be applied here.

    An application whose threads commit to the embedded queue manager hands each commit between them (the
    group commit's leader wakes the others) and waits for the disk's interrupt; on a virtual machine every
    hand-over that crosses CPUs wakes an idle virtual CPU through the hypervisor. On one CPU those hand-overs
    are cheap (docs/benchmarks.md: 16 committing threads 1.4x), and the process loses nothing it had: its
    Python code never ran on two CPUs at once. Leave it alone when the process does heavy work outside the GIL
    (NumPy, compression) on several threads.

    With ``busy_poll`` (the default) and the process on one CPU, the queue manager keeps that CPU polling while
    a durable write is in flight and for a millisecond after, instead of letting it go idle (see
    ``syncpoint.host.BusyPoller``: a thread that the kernel runs only when nothing else wants the CPU;
    docs/benchmarks.md: a commit per message 10-30 % faster). Its polled time shows as the process's CPU time
    while the queue manager is busy.
    """
    where = _home.home(home)
    pinned = pin(cpus, where if where.exists() else os.getcwd())
    POLLER.enabled = busy_poll
    return pinned
