"""Which CPUs the queue manager's process runs on (``strmqm --cpus``; ``pin_cpus`` for an embedded one).

The server is one Python process whose Python code runs one thread at a time (the GIL): its event loop, its
sync thread and its tools never use more than one CPU for Python. What they do constantly is hand work to each
other and wait for the disk: a request wakes the loop, the loop wakes the sync thread, the disk's completion
interrupt wakes the sync thread, which wakes the loop again. On a virtual machine a wake-up that crosses CPUs
costs tens of microseconds (the other CPU is usually idle, and waking an idle virtual CPU goes through the
hypervisor); on one CPU it is a run-queue operation. Measured on the project's 2-CPU VMs (docs/benchmarks.md),
pinning the server to the CPU that takes the disk's interrupts made the synchronous persistent round trip
10-25 % faster and changed nothing for the CPU-bound batched shapes.

``--cpus`` takes:

* ``auto`` (the default): one CPU. Among the CPUs the process may use, and first among those that no other
  running server of the same ``$SYNCPOINT_HOME`` is pinned to (so that several queue managers spread out), it is
  the CPU that has taken most of the interrupts of the PCI device behind the file system holding the queue
  manager's data (``/proc/interrupts``, the device's ``msi_irqs`` in sysfs), else the highest-numbered one. A
  process allowed a single CPU is left alone.
* ``all``: leave the CPUs as the process inherited them.
* a CPU list as ``taskset -c`` and ``/proc/*/status`` write it: ``1``, ``0,2``, ``0-3,6``.

Everything here reads files and returns values, so the choice is tested against made-up ``/proc`` and ``/sys``
trees as well as against a real server process.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

AUTO = "auto"
ALL = "all"


def available_cpus() -> set[int] | None:
    """The CPUs this process may run on, or None where the platform does not say (no sched_getaffinity)."""
    getter = getattr(os, "sched_getaffinity", None)
    return set(getter(0)) if getter is not None else None


def parse_cpu_list(text: str) -> set[int]:
    """``"0-2,5"`` -> ``{0, 1, 2, 5}``; ValueError naming what is wrong otherwise."""
    cpus: set[int] = set()
    if not text.strip():
        raise ValueError("the CPU list is empty")
    for part in text.split(","):
        part = part.strip()
        low, dash, high = part.partition("-")
        try:
            first = int(low)
            last = int(high) if dash else first
        except ValueError:
            raise ValueError(f"{part!r} is not a CPU number or a range such as 0-3") from None
        if first < 0 or last < first:
            raise ValueError(f"{part!r} is not a CPU number or a range such as 0-3")
        cpus.update(range(first, last + 1))
    return cpus


def format_cpu_list(cpus: set[int]) -> str:
    """``{0, 1, 2, 5}`` -> ``"0-2,5"`` (the form /proc/*/status uses)."""
    out: list[str] = []
    ordered = sorted(cpus)
    i = 0
    while i < len(ordered):
        j = i
        while j + 1 < len(ordered) and ordered[j + 1] == ordered[j] + 1:
            j += 1
        out.append(str(ordered[i]) if i == j else f"{ordered[i]}-{ordered[j]}")
        i = j + 1
    return ",".join(out)


def check_spec(spec: str, available: set[int] | None) -> set[int] | None:
    """Raise ValueError, with the reason, if ``spec`` cannot be applied here (what strmqm checks before it
    starts the server process); return the CPUs a list names (None for auto and all)."""
    if spec in (AUTO, ALL):
        return None
    cpus = parse_cpu_list(spec)
    if available is None:
        raise ValueError("this platform cannot pin a process to CPUs; use --cpus all")
    missing = cpus - available
    if missing:
        raise ValueError(
            f"CPU {format_cpu_list(missing)} is not available to this process (available: {format_cpu_list(available)})"
        )
    return cpus


def choose_cpus(
    spec: str,
    data_path: str | os.PathLike[str],
    available: set[int] | None,
    proc: str = "/proc",
    sysfs: str = "/sys",
    taken: Mapping[int, int] | None = None,
) -> set[int] | None:
    """The CPUs ``spec`` means for a server whose data lives at ``data_path``; None: leave them as they are.
    ``taken``: how many other servers run pinned to each CPU (auto prefers the CPUs with the fewest)."""
    listed = check_spec(spec, available)
    if listed is not None or spec == ALL or available is None:
        return listed
    if len(available) < 2:
        return None
    counts = disk_interrupts_per_cpu(data_path, proc, sysfs)
    others = taken or {}
    best = max(available, key=lambda cpu: (-others.get(cpu, 0), counts.get(cpu, 0), cpu))
    return {best}


def disk_interrupts_per_cpu(
    data_path: str | os.PathLike[str], proc: str = "/proc", sysfs: str = "/sys"
) -> dict[int, int]:
    """Interrupts taken per CPU by the PCI device behind the file system of ``data_path``; empty when that
    cannot be told (a RAM or network file system, no sysfs, an unreadable file)."""
    try:
        st = os.stat(data_path)
        block = Path(sysfs, "dev", "block", f"{os.major(st.st_dev)}:{os.minor(st.st_dev)}")
        if not block.exists():
            return {}
        node = block.resolve()
        irqs: set[str] = set()
        while node != node.parent:  # up from the block device to the PCI function that raises its interrupts
            msi = node / "msi_irqs"
            if msi.is_dir():
                irqs = {entry.name for entry in msi.iterdir()}
                break
            node = node.parent
        if not irqs:
            return {}
        counts: dict[int, int] = {}
        with open(Path(proc, "interrupts")) as f:
            header = f.readline().split()  # CPU0 CPU1 ...
            cpus = [int(name[3:]) for name in header if name.startswith("CPU")]
            for line in f:
                label, _, rest = line.partition(":")
                if label.strip() not in irqs:
                    continue
                for cpu, value in zip(cpus, rest.split(), strict=False):
                    counts[cpu] = counts.get(cpu, 0) + int(value)
        return counts
    except (OSError, ValueError):
        return {}


def pin(spec: str, data_path: str | os.PathLike[str], taken: Mapping[int, int] | None = None) -> set[int] | None:
    """Apply ``spec`` to this process, every thread of it. Returns the CPUs it now runs on, or None if it was
    left alone. ValueError if ``spec`` cannot be applied."""
    cpus = choose_cpus(spec, data_path, available_cpus(), taken=taken)
    if cpus is not None:
        try:  # every thread of the process (on Linux the call sets one thread's mask; new threads inherit it)
            threads = [int(tid) for tid in os.listdir("/proc/self/task")]
        except OSError:
            threads = [0]
        for tid in threads:
            os.sched_setaffinity(tid, cpus)
    return cpus


def no_wakeup_preemption() -> bool:
    """Run the calling thread under ``SCHED_BATCH``: when woken it waits for the running thread to block or use
    up its slice instead of preempting it. For the server's sync thread: woken by the event loop (a commit to
    sync) or by the disk, it can do nothing before the loop releases the GIL, so preempting the loop only costs
    two context switches (measured: 7.7 of the loop's 8.6 involuntary switches per 100 messages of the batched
    persistent shape went away). Returns False where the platform has no such policy."""
    policy = getattr(os, "SCHED_BATCH", None)
    if policy is None:
        return False
    try:
        os.sched_setscheduler(0, policy, os.sched_param(0))
    except OSError:
        return False
    return True
