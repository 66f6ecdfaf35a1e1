#!/usr/bin/env python
"""Embedded syncpoint throughput against the disk's sync rate and persist-queue, measured in one run.

    .venv/bin/python bench/embedded.py             # full run (about 5 minutes)
    .venv/bin/python bench/embedded.py --quick     # shorter measurements, depth 100,000 instead of 1,000,000
    .venv/bin/python bench/embedded.py --rows 3b,4b --profile     # cProfile the chosen rows, print hot spots
    .venv/bin/python bench/embedded.py --plain --json out.json    # markdown table, results as JSON too

Every figure is 1 KiB messages put and got through one queue. The disk, the Python peer (persist-queue's
SQLiteQueue) and syncpoint are measured in the same run on the same file system (temporary directories under
/tmp, removed afterwards), because the machines this runs on are noisy: compare ratios, not absolute numbers
across runs. See docs/benchmarks.md for what each row means.

This is not a test: it lives outside ``tests/`` and is never collected by pytest.
"""

# ruff: noqa: RUF001
from __future__ import annotations

import argparse
import contextlib
import cProfile
import gc
import io
import json
import os
import platform
import pstats
import shutil
import sqlite3
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field
from typing import Any

import syncpoint
from syncpoint.client import create_queue_manager, pin_cpus
from syncpoint.host import format_cpu_list
from syncpoint.mqi import MQGMO, MQMD, MQOD, MQPMO, MQMIError
from syncpoint.mqi import constants as C

try:  # the Python peer (pip install 'syncpoint[bench]')
    import persistqueue
except ImportError:  # pragma: no cover - reported in the table
    persistqueue = None

MSG = b"m" * 1024  # 1 KiB payload
QMGR = "BENCH"
QUEUE = "Q1"
TMP_ROOT = "/tmp"

# ------------------------------------------------------------------------------------------------------
# results
# ------------------------------------------------------------------------------------------------------


@dataclass
class Row:
    key: str  # "3b"
    what: str  # description
    value: float | None  # the measured figure (None: not measured)
    unit: str  # "msg/s", "syncs/s", "µs/get", …
    target: str = ""  # the target, as text
    verdict: str = ""  # ratios and PASS/MISS
    note: str = ""  # spread, secondary figures
    passed: bool | None = None


@dataclass
class Run:
    rows: list[Row] = field(default_factory=list)
    machine: dict[str, Any] = field(default_factory=dict)
    args: dict[str, Any] = field(default_factory=dict)

    def add(self, row: Row) -> Row:
        self.rows.append(row)
        return row

    def get(self, key: str) -> Row | None:
        return next((r for r in self.rows if r.key == key), None)


def fmt_rate(v: float | None) -> str:
    if v is None:
        return "—"
    if v >= 100:
        return f"{v:,.0f}"
    return f"{v:,.1f}"


# ------------------------------------------------------------------------------------------------------
# measuring helpers
# ------------------------------------------------------------------------------------------------------


@contextlib.contextmanager
def temp_dir(tag: str) -> Iterator[str]:
    d = tempfile.mkdtemp(prefix=f"syncpoint-bench-{tag}-", dir=TMP_ROOT)
    try:
        yield d
    finally:
        shutil.rmtree(d, ignore_errors=True)


class Profiler:
    """Per-thread cProfile collection (cProfile only sees the thread that enabled it)."""

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled
        self.profiles: list[cProfile.Profile] = []
        self._lock = threading.Lock()

    @contextlib.contextmanager
    def __call__(self) -> Iterator[None]:
        if not self.enabled:
            yield
            return
        p = cProfile.Profile()
        p.enable()
        try:
            yield
        finally:
            p.disable()
            with self._lock:
                self.profiles.append(p)

    def report(self, title: str, top: int) -> str:
        if not self.profiles:
            return ""
        out = io.StringIO()
        st = pstats.Stats(self.profiles[0], stream=out)
        for p in self.profiles[1:]:
            st.add(p)
        st.strip_dirs()
        print(f"\n===== cProfile: {title} (all worker threads merged) — by cumulative time =====", file=out)
        st.sort_stats("cumulative").print_stats(top)
        print(f"===== cProfile: {title} — by own (total) time =====", file=out)
        st.sort_stats("tottime").print_stats(top)
        self.profiles.clear()
        return out.getvalue()


@dataclass
class Timed:
    count: int  # operations counted by the end of the window
    elapsed: float
    lo: float  # lowest rate over the sampling windows
    hi: float  # highest

    @property
    def rate(self) -> float:
        return self.count / self.elapsed if self.elapsed > 0 else 0.0

    def spread(self) -> str:
        return f"{fmt_rate(self.lo)}–{fmt_rate(self.hi)} per {SAMPLE:g} s window"


SAMPLE = 0.5  # seconds per sampling window for the spread


def run_workers(
    workers: list[Callable[[threading.Event, list[int]], None]],
    duration: float,
    counted: list[int] | None = None,
    on_start: Callable[[], None] | None = None,
    on_end: Callable[[], None] | None = None,
) -> Timed:
    """Run ``workers`` in threads for ``duration`` seconds and count what they did.

    Each worker is ``fn(gate, counter)``: it sets itself up (connect, open), calls ``gate.ready()`` (the
    clock starts once every worker is ready), then works until ``gate.is_set()``, adding finished operations
    to ``counter[0]``. The result counts the workers whose indices are in ``counted`` (default: all), read at
    the end of the window; ``on_start``/``on_end`` run right at its start and end (store statistics)."""
    n = len(workers)
    counters = [[0] for _ in workers]
    stop = threading.Event()
    ready = threading.Barrier(n + 1)
    errors: list[BaseException] = []

    def wrap(fn: Callable[[threading.Event, list[int]], None], counter: list[int]) -> None:
        try:
            fn(_Gate(stop, ready), counter)
        except BaseException as e:  # report, never hang the run
            errors.append(e)
            with contextlib.suppress(threading.BrokenBarrierError):
                ready.abort()
            stop.set()

    threads = [
        threading.Thread(target=wrap, args=(fn, c), daemon=True) for fn, c in zip(workers, counters, strict=True)
    ]
    for t in threads:
        t.start()
    try:
        ready.wait()  # every worker has set itself up
    except threading.BrokenBarrierError:
        for t in threads:
            t.join()
        raise (errors[0] if errors else RuntimeError("a worker failed to start")) from None
    idx = list(range(n)) if counted is None else counted

    def total() -> int:
        return sum(counters[i][0] for i in idx)

    if on_start:
        on_start()
    t0 = time.perf_counter()
    end = t0 + duration
    last_t, last_c = t0, 0
    rates: list[float] = []
    while True:
        now = time.perf_counter()
        if now >= end or stop.is_set():
            break
        time.sleep(min(SAMPLE, end - now))
        now, c = time.perf_counter(), total()
        if now - last_t >= SAMPLE * 0.9:
            rates.append((c - last_c) / (now - last_t))
            last_t, last_c = now, c
    elapsed = time.perf_counter() - t0
    count = total()
    if on_end:
        on_end()
    stop.set()
    for t in threads:
        t.join(60)
    if errors:
        raise errors[0]
    return Timed(count, elapsed, min(rates, default=0.0), max(rates, default=0.0))


class _Gate:
    """What a worker gets: ``ready()`` once set up (then the clock starts), ``is_set()`` to stop."""

    def __init__(self, stop: threading.Event, barrier: threading.Barrier) -> None:
        self._stop = stop
        self._barrier = barrier

    def ready(self) -> None:
        self._barrier.wait()

    def is_set(self) -> bool:
        return self._stop.is_set()


# ------------------------------------------------------------------------------------------------------
# 1. the disk
# ------------------------------------------------------------------------------------------------------


def disk_fsync_rate(directory: str, duration: float) -> Timed:
    """1 KiB appends (O_APPEND) each followed by fsync."""
    path = os.path.join(directory, "fsync.dat")
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    try:
        return _sync_loop(lambda i: (os.write(fd, MSG), os.fsync(fd)), duration)
    finally:
        os.close(fd)
        os.unlink(path)


def disk_fdatasync_rate(directory: str, duration: float) -> Timed:
    """1 KiB pwrite into a preallocated (written and synced) 64 MiB file, each followed by fdatasync."""
    path = os.path.join(directory, "fdatasync.dat")
    size = 64 * 1024 * 1024
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        zeros = b"\0" * (1024 * 1024)
        for _ in range(size // len(zeros)):
            os.write(fd, zeros)
        os.fsync(fd)
        slots = size // len(MSG)
        return _sync_loop(lambda i: (os.pwrite(fd, MSG, (i % slots) * len(MSG)), os.fdatasync(fd)), duration)
    finally:
        os.close(fd)
        os.unlink(path)


def _sync_loop(op: Callable[[int], object], duration: float) -> Timed:
    i = 0
    t0 = time.perf_counter()
    end = t0 + duration
    next_sample, last_i, last_t = t0 + SAMPLE, 0, t0
    rates = []
    while True:
        op(i)
        i += 1
        now = time.perf_counter()
        if now >= next_sample:
            rates.append((i - last_i) / (now - last_t))
            last_i, last_t, next_sample = i, now, now + SAMPLE
        if now >= end:
            break
    return Timed(i, time.perf_counter() - t0, min(rates, default=0.0), max(rates, default=0.0))


# ------------------------------------------------------------------------------------------------------
# 2. persist-queue
# ------------------------------------------------------------------------------------------------------


def pq_one_thread(duration: float, prof: Profiler) -> tuple[Timed, str]:
    """One thread: put, then get (auto_commit=True: each is its own committed SQLite transaction)."""
    with temp_dir("pq1") as d:
        q = persistqueue.SQLiteQueue(os.path.join(d, "q"), auto_commit=True)
        sync_level = q._putter.execute("PRAGMA synchronous").fetchone()[0]

        # run in this thread (without multithreading, persist-queue's connection is bound to its creator)
        timed = _in_this_thread(lambda: (q.put(MSG), q.get(block=False)), duration, prof)
        q.close()
    return timed, f"PRAGMA synchronous={sync_level} (2 = FULL)"


def _in_this_thread(op: Callable[[], object], duration: float, prof: Profiler, per_op: int = 1) -> Timed:
    i = 0
    with prof():
        t0 = time.perf_counter()
        end = t0 + duration
        next_sample, last_i, last_t = t0 + SAMPLE, 0, t0
        rates = []
        while True:
            op()
            i += per_op
            now = time.perf_counter()
            if now >= next_sample:
                rates.append((i - last_i) / (now - last_t))
                last_i, last_t, next_sample = i, now, now + SAMPLE
            if now >= end:
                break
        elapsed = time.perf_counter() - t0
    return Timed(i, elapsed, min(rates, default=0.0), max(rates, default=0.0))


def pq_producer_consumer(duration: float, prof: Profiler) -> tuple[Timed, str]:
    """A producer thread and a consumer thread on one SQLiteQueue(multithreading=True)."""
    with temp_dir("pq2") as d:
        q = persistqueue.SQLiteQueue(os.path.join(d, "q"), auto_commit=True, multithreading=True)
        puts = [0]

        def producer(gate: _Gate, counter: list[int]) -> None:
            gate.ready()
            with prof():
                while not gate.is_set():
                    q.put(MSG)
                    puts[0] += 1

        def consumer(gate: _Gate, counter: list[int]) -> None:
            gate.ready()
            with prof():
                while not gate.is_set():
                    try:
                        q.get(block=True, timeout=0.2)
                    except persistqueue.Empty:
                        continue
                    counter[0] += 1

        timed = run_workers([producer, consumer], duration, counted=[1])
        q.close()
    return timed, f"producer put {fmt_rate(puts[0] / timed.elapsed)}/s"


def pq_16_putters(duration: float, threads: int, prof: Profiler) -> tuple[Timed, str]:
    """``threads`` threads putting into one SQLiteQueue(multithreading=True): committed puts/s."""
    with temp_dir("pq16") as d:
        q = persistqueue.SQLiteQueue(os.path.join(d, "q"), auto_commit=True, multithreading=True)

        def putter(gate: _Gate, counter: list[int]) -> None:
            gate.ready()
            with prof():
                while not gate.is_set():
                    q.put(MSG)
                    counter[0] += 1

        timed = run_workers([putter] * threads, duration)
        q.close()
    return timed, ""


# ------------------------------------------------------------------------------------------------------
# syncpoint
# ------------------------------------------------------------------------------------------------------


def monitoring(qm: syncpoint.QueueManager) -> None:
    """SYNCPOINT_BENCH_QMGR_ATTRS (JSON: queue manager attributes, e.g. STATMQI ON): set them, with the statistics
    and accounting queues, so bench/metrics_cost.py --statistics can compare the rows with them on and off."""
    attrs = os.environ.get("SYNCPOINT_BENCH_QMGR_ATTRS")
    if attrs:
        for name in ("SYSTEM.ADMIN.STATISTICS.QUEUE", "SYSTEM.ADMIN.ACCOUNTING.QUEUE"):
            if qm.admin("lookup", "QLOCAL", name) is None:
                qm.admin("define", "QLOCAL", name, {"MAXDEPTH": 999_999_999})
        qm.admin("alter_qmgr", json.loads(attrs))


@contextlib.contextmanager
def queue_manager(tag: str) -> Iterator[tuple[str, syncpoint.QueueManager]]:
    """A new SQLite-backed queue manager in a temporary home with queue Q1; closed and removed after."""
    with temp_dir(tag) as home:
        create_queue_manager(QMGR, home=home)
        qm = syncpoint.connect(QMGR, home=home)
        qm.admin("define", "QLOCAL", QUEUE, {"MAXDEPTH": 999_999_999})
        monitoring(qm)
        try:
            yield home, qm
        finally:
            embedded = qm.transport.qm
            with contextlib.suppress(Exception):
                qm.disconnect()
            embedded.close(abnormal=False)


def store_of(qm: syncpoint.QueueManager) -> Any:
    return qm.transport.qm.store


def stats_delta(before: dict[str, int], after: dict[str, int]) -> dict[str, int]:
    return {k: after[k] - before.get(k, 0) for k in after}


def sp_one_thread(duration: float, persistent: bool, batch: int, prof: Profiler) -> tuple[Timed, str]:
    """One connection in one thread: put ``batch`` (in syncpoint when persistent), commit, get ``batch``,
    commit. Non-persistent: put and get outside syncpoint, no commits."""
    with queue_manager("sp1") as (_home, qm):
        q = qm.open(QUEUE)
        if persistent:

            def op() -> None:
                for _ in range(batch):
                    q.put(MSG, persistent=True, syncpoint=True)
                qm.commit()
                for _ in range(batch):
                    q.get(syncpoint=True)
                qm.commit()
        else:

            def op() -> None:
                for _ in range(batch):
                    q.put(MSG, persistent=False)
                for _ in range(batch):
                    q.get()

        store = store_of(qm)
        s0 = store.stats()
        timed = _in_this_thread(op, duration, prof, per_op=batch)
        d = stats_delta(s0, store.stats())
        q.close()
    return timed, _per_msg(d, timed.count)


def sp_producer_consumer(duration: float, persistent: bool, batch: int, prof: Profiler) -> tuple[Timed, str]:
    """A producer thread and a consumer thread, each with its own connection. Persistent: the producer puts
    ``batch`` in syncpoint then commits; the consumer gets (waiting) in syncpoint and commits every ``batch``.
    Non-persistent: puts and gets outside syncpoint. Counted: messages whose get is committed."""
    with queue_manager("sp2") as (home, qm):
        puts = [0]

        def producer(gate: _Gate, counter: list[int]) -> None:
            c = syncpoint.connect(QMGR, home=home)
            q = c.open(QUEUE)
            gate.ready()
            with prof():
                if persistent:
                    while not gate.is_set():
                        for _ in range(batch):
                            q.put(MSG, persistent=True, syncpoint=True)
                        c.commit()
                        puts[0] += batch
                else:
                    while not gate.is_set():
                        q.put(MSG, persistent=False)
                        puts[0] += 1
            c.disconnect()

        def consumer(gate: _Gate, counter: list[int]) -> None:
            c = syncpoint.connect(QMGR, home=home)
            q = c.open(QUEUE)
            gate.ready()
            with prof():
                n = 0
                while not gate.is_set():
                    try:
                        q.get(wait=0.2, syncpoint=persistent)
                    except MQMIError as e:
                        if e.reason != C.MQRC_NO_MSG_AVAILABLE:
                            raise
                        continue
                    if not persistent:
                        counter[0] += 1
                        continue
                    n += 1
                    if n >= batch:
                        c.commit()
                        counter[0] += n
                        n = 0
                if n:
                    c.commit()
            c.disconnect()

        store = store_of(qm)
        snap: dict[str, dict[str, int]] = {}
        timed = run_workers(
            [producer, consumer],
            duration,
            counted=[1],
            on_start=lambda: snap.__setitem__("s0", store.stats()),
            on_end=lambda: snap.__setitem__("s1", store.stats()),
        )
        d = stats_delta(snap["s0"], snap["s1"])
    note = f"producer put {fmt_rate(puts[0] / timed.elapsed)}/s"
    if persistent:
        note += "; " + _per_msg(d, timed.count)
    return timed, note


def sp_raw_one_thread(duration: float, prof: Profiler) -> tuple[Timed, str]:
    """Non-persistent, no syncpoint, one thread, raw MQI with reused structures
    (MQPMO_NEW_MSG_ID, MQMO_NONE)."""
    with queue_manager("spraw") as (_home, qm):
        hp = qm.mqopen(MQOD(ObjectName=QUEUE.encode()), C.MQOO_OUTPUT)
        hg = qm.mqopen(MQOD(ObjectName=QUEUE.encode()), C.MQOO_INPUT_AS_Q_DEF)
        md = MQMD(Persistence=C.MQPER_NOT_PERSISTENT)
        pmo = MQPMO(Options=C.MQPMO_NO_SYNCPOINT | C.MQPMO_NEW_MSG_ID)
        gmd = MQMD()
        gmo = MQGMO(Options=C.MQGMO_NO_SYNCPOINT | C.MQGMO_NO_WAIT, MatchOptions=C.MQMO_NONE)
        put, get = qm.mqput, qm.mqget

        def op() -> None:
            put(hp, md, pmo, MSG)
            get(hg, gmd, gmo)

        timed = _in_this_thread(op, duration, prof)
        qm.mqclose(hp)
        qm.mqclose(hg)
    return timed, ""


def _per_msg(d: dict[str, int], msgs: int) -> str:
    if not msgs:
        return ""
    text = (
        f"{d['transactions'] / msgs:.2f} store commits (journal records or SQLite transactions) and "
        f"{d['syncs'] / msgs:.2f} syncs per message"
    )
    if d.get("markers"):  # in-flight gets recorded in the store's marker file (no SQLite transaction)
        text += f"; {d['markers'] / msgs:.2f} marker records"
    return text


def sp_committers(duration: float, threads: int, prof: Profiler) -> tuple[Timed, str]:
    """``threads`` threads, each with its own connection, each repeatedly: persistent put in syncpoint,
    then commit."""
    with queue_manager("sp16") as (home, qm):

        def committer(gate: _Gate, counter: list[int]) -> None:
            c = syncpoint.connect(QMGR, home=home)
            q = c.open(QUEUE)
            gate.ready()
            with prof():
                while not gate.is_set():
                    q.put(MSG, persistent=True, syncpoint=True)
                    c.commit()
                    counter[0] += 1
            c.disconnect()

        store = store_of(qm)
        snap: dict[str, dict[str, int]] = {}
        timed = run_workers(
            [committer] * threads,
            duration,
            on_start=lambda: snap.__setitem__("s0", store.stats()),
            on_end=lambda: snap.__setitem__("s1", store.stats()),
        )
        d = stats_delta(snap["s0"], snap["s1"])
    note = ""
    if d.get("syncs"):
        note = (
            f"{d['batches'] / d['syncs']:.1f} batches per sync ({d['batches']:,} batches, "
            f"{d['transactions']:,} commits, {d['syncs']:,} syncs)"
        )
    return timed, note


def sp_get_at_depths(
    depths: list[int], gets: int, prof: Profiler, chunk: int = 1000, log: Callable[[str], None] = print
) -> list[tuple[float, float, str]]:
    """µs per non-persistent get (raw MQI, no syncpoint, MQMO_NONE) at each depth in ``depths``.

    One queue manager, one queue per depth, each filled to its depth first. Then ``gets/chunk`` rounds; in
    each, for every queue (in alternating order): put ``chunk`` (not timed), then get ``chunk`` (timed). So
    each queue stays between its depth and depth + chunk, and the depths are measured interleaved in time,
    which cancels the drift of a noisy machine. Returns (median µs/get over the chunks, mean, note) per depth.
    """
    with queue_manager("depth") as (_home, qm):
        pmo = MQPMO(Options=C.MQPMO_NO_SYNCPOINT | C.MQPMO_NEW_MSG_ID)
        gmo = MQGMO(Options=C.MQGMO_NO_SYNCPOINT | C.MQGMO_NO_WAIT, MatchOptions=C.MQMO_NONE)
        put, get = qm.mqput, qm.mqget
        queues = []
        for depth in depths:
            name = f"QD{depth}"
            qm.admin("define", "QLOCAL", name, {"MAXDEPTH": 999_999_999})
            hp = qm.mqopen(MQOD(ObjectName=name.encode()), C.MQOO_OUTPUT)
            hg = qm.mqopen(MQOD(ObjectName=name.encode()), C.MQOO_INPUT_AS_Q_DEF)
            md = MQMD(Persistence=C.MQPER_NOT_PERSISTENT)
            log(f"   filling {name} to {depth:,} …")
            t = time.perf_counter()
            for _ in range(depth):
                put(hp, md, pmo, MSG)
            fill = time.perf_counter() - t
            queues.append((name, depth, hp, hg, md, MQMD(), fill, []))
        rounds = max(1, gets // chunk)
        with prof():
            for r in range(rounds):
                for _name, _depth, hp, hg, md, gmd, _fill, times in queues if r % 2 == 0 else reversed(queues):
                    for _ in range(chunk):
                        put(hp, md, pmo, MSG)
                    t = time.perf_counter()
                    for _ in range(chunk):
                        get(hg, gmd, gmo)
                    times.append((time.perf_counter() - t) / chunk * 1e6)
        out = []
        for name, depth, hp, hg, _md, _gmd, fill, times in queues:
            hi = qm.mqopen(MQOD(ObjectName=name.encode()), C.MQOO_INQUIRE)
            ints, _ = qm.mqinq(hi, [C.MQIA_CURRENT_Q_DEPTH])
            assert ints[0] == depth, (name, ints, depth)
            for h in (hp, hg, hi):
                qm.mqclose(h)
            times.sort()
            med = times[len(times) // 2]
            mean = sum(times) / len(times)
            out.append(
                (
                    med,
                    mean,
                    f"median of {len(times)} chunks of {chunk:,} gets (mean {mean:.1f}, "
                    f"range {times[0]:.1f}–{times[-1]:.1f}); filled at {fmt_rate(depth / fill)} puts/s",
                )
            )
    return out


# ------------------------------------------------------------------------------------------------------
# the run
# ------------------------------------------------------------------------------------------------------


def machine_info() -> dict[str, Any]:
    info: dict[str, Any] = {
        "nproc": os.cpu_count(),
        "python": platform.python_version(),
        "sqlite": sqlite3.sqlite_version,
        "platform": platform.platform(),
        "syncpoint": syncpoint.__version__,
    }
    with contextlib.suppress(Exception):  # which syncpoint was measured: the commit, and whether src/ differed
        import subprocess

        root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        git = ["git", "-C", root]
        head = subprocess.run([*git, "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=True)
        dirty = subprocess.run([*git, "status", "--porcelain", "--", "src"], capture_output=True, text=True)
        info["git"] = head.stdout.strip() + (" + uncommitted changes in src/" if dirty.stdout.strip() else "")
    with contextlib.suppress(OSError):
        info["loadavg_start"] = [round(x, 2) for x in os.getloadavg()]
    try:
        import importlib.metadata as md

        info["persist-queue"] = md.version("persist-queue")
    except Exception:
        info["persist-queue"] = None
    with contextlib.suppress(OSError), open("/proc/meminfo") as f:
        for line in f:
            if line.startswith("MemTotal:"):
                info["memory_gib"] = round(int(line.split()[1]) / 1024 / 1024, 1)
    with contextlib.suppress(OSError):
        st = os.statvfs(TMP_ROOT)
        info["tmp_fs_size_gib"] = round(st.f_blocks * st.f_frsize / 2**30)
        info["tmp_fs_free_gib"] = round(st.f_bavail * st.f_frsize / 2**30)
    with contextlib.suppress(OSError):
        dev = os.stat(TMP_ROOT).st_dev
        with open("/proc/mounts") as f:
            best = ""
            for line in f:
                parts = line.split()
                if len(parts) >= 4 and TMP_ROOT.startswith(parts[1]) and len(parts[1]) >= len(best):
                    with contextlib.suppress(OSError):
                        if os.stat(parts[1]).st_dev == dev:
                            best = parts[1]
                            info["tmp_fs"] = f"{parts[0]} on {parts[1]} ({parts[2]}, {parts[3]})"
    return info


def verdict(ok: list[tuple[bool, str]]) -> tuple[bool, str]:
    passed = all(v for v, _ in ok)
    text = "; ".join(t for _, t in ok)
    return passed, f"{'PASS' if passed else 'MISS'}: {text}"


@dataclass
class Task:
    key: str
    what: str
    unit: str
    fn: Callable[[], tuple[Timed, str]]
    results: list[tuple[Timed, str]] = field(default_factory=list)

    def median(self) -> tuple[Timed, str] | None:
        if not self.results:
            return None
        ordered = sorted(self.results, key=lambda r: r[0].rate)
        return ordered[(len(ordered) - 1) // 2]  # the lower median: a real run, never flattered


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--quick",
        action="store_true",
        help="1 s per measurement, 1 round, depth 100,000 instead of 1,000,000",
    )
    ap.add_argument("--duration", type=float, help="seconds per throughput measurement (default 2; quick 1)")
    ap.add_argument(
        "--rounds",
        type=int,
        help="rounds over every measurement; the median is reported (default 5; quick or --profile 1)",
    )
    ap.add_argument("--rows", help="comma-separated rows to run (e.g. 1,3b,7); default all")
    ap.add_argument("--profile", action="store_true", help="run the rows under cProfile and print hot spots")
    ap.add_argument("--profile-top", type=int, default=25)
    ap.add_argument("--plain", action="store_true", help="print a markdown table instead of a rich one")
    ap.add_argument("--json", help="also write the results to this JSON file")
    ap.add_argument("--threads", type=int, default=16, help="connections for rows 2c and 6 (default 16)")
    ap.add_argument(
        "--cpus",
        default="all",
        help="run the whole benchmark (disk, persist-queue, syncpoint) on these CPUs via syncpoint.client.pin_cpus:"
        " auto, all (default: as started), or a list such as 1",
    )
    ap.add_argument(
        "--no-busy-poll",
        action="store_true",
        help="with --cpus pinning one CPU: do not let the queue manager poll while a sync is in flight",
    )
    args = ap.parse_args(argv)
    pinned = pin_cpus(args.cpus, TMP_ROOT, busy_poll=not args.no_busy_poll)
    from syncpoint.host import can_poll

    polling = not args.no_busy_poll and can_poll()

    duration = args.duration or (1.0 if args.quick else 2.0)
    rounds = args.rounds or (1 if args.quick or args.profile else 5)
    big_depth = 100_000 if args.quick else 1_000_000
    depth_gets = 10_000
    wanted = None if not args.rows else {r.strip() for r in args.rows.split(",")}

    def want(key: str) -> bool:
        return wanted is None or key in wanted or key.rstrip("abcdefghr") in wanted

    def log(msg: str) -> None:
        print(msg, file=sys.stderr, flush=True)

    run = Run(
        machine={
            **machine_info(),
            "cpus": format_cpu_list(pinned) if pinned is not None else "all",
            "busy_poll": polling,
        },
        args={"quick": args.quick, "duration": duration, "rounds": rounds, "depth": big_depth},
    )
    prof = Profiler(args.profile)
    profiles: list[str] = []
    n = args.threads

    # -- the measurements, run round-robin ``rounds`` times (slow phases of the disk hit every row alike) --
    def disk(kind: str) -> Callable[[], tuple[Timed, str]]:
        def fn() -> tuple[Timed, str]:
            with temp_dir("disk") as d:
                return (disk_fsync_rate if kind == "fsync" else disk_fdatasync_rate)(d, duration), ""

        return fn

    tasks = [
        Task("1a", "disk: 1 KiB O_APPEND write + fsync", "syncs/s", disk("fsync")),
        Task("1b", "disk: 1 KiB pwrite into a preallocated file + fdatasync", "syncs/s", disk("fdatasync")),
    ]
    if persistqueue is not None:
        tasks += [
            Task(
                "2a",
                "persist-queue SQLiteQueue (auto_commit=True): 1 thread, put then get",
                "msg/s",
                lambda: pq_one_thread(duration, prof),
            ),
            Task(
                "2b",
                "persist-queue SQLiteQueue (auto_commit=True, multithreading=True): producer thread + consumer thread",
                "msg/s",
                lambda: pq_producer_consumer(duration, prof),
            ),
            Task(
                "2c",
                f"persist-queue SQLiteQueue (multithreading=True): {n} threads putting (peer of row 6)",
                "puts/s",
                lambda: pq_16_putters(duration, n, prof),
            ),
        ]
    modes = (
        ("3", True, 1, "syncpoint persistent, commit per message"),
        ("4", True, 100, "syncpoint persistent, 100 messages per commit"),
        ("5", False, 1, "syncpoint non-persistent, no syncpoint"),
    )
    for key, persistent, batch, title in modes:
        tasks.append(
            Task(
                key + "a",
                f"{title}: 1 thread, put then get",
                "msg/s",
                lambda p=persistent, b=batch: sp_one_thread(duration, p, b, prof),
            )
        )
        tasks.append(
            Task(
                key + "b",
                f"{title}: producer thread + consumer thread (own connections)",
                "msg/s",
                lambda p=persistent, b=batch: sp_producer_consumer(duration, p, b, prof),
            )
        )
    tasks.append(
        Task(
            "5r",
            "syncpoint non-persistent, no syncpoint: 1 thread, raw MQI (MQPUT/MQGET, reused structures)",
            "msg/s",
            lambda: sp_raw_one_thread(duration, prof),
        )
    )
    tasks.append(
        Task(
            "6",
            f"syncpoint: {n} threads, own connection each, persistent put + commit",
            "commits/s",
            lambda: sp_committers(duration, n, prof),
        )
    )
    tasks = [t for t in tasks if want(t.key)]

    for r in range(rounds):
        for task in tasks:
            log(f"round {r + 1}/{rounds}: {task.key} {task.what} …")
            task.results.append(task.fn())
            if args.profile:
                text = prof.report(f"row {task.key}: {task.what}", args.profile_top)
                if text:
                    profiles.append(text)

    # -- rows from the medians ------------------------------------------------------------------------------
    rate: dict[str, float] = {}
    for task in tasks:
        med = task.median()
        assert med is not None
        timed, note = med
        rate[task.key] = timed.rate
        runs = " / ".join(fmt_rate(t.rate) for t, _ in task.results)
        notes = [
            f"median of {len(task.results)} runs ({runs})" if len(task.results) > 1 else "1 run",
            f"median run {timed.spread()}",
        ]
        if note:
            notes.append(note)
        if task.key in ("1a", "1b"):
            notes.append(f"one-sync-per-operation limit for put+get = {fmt_rate(timed.rate / 2)} msg/s")
        run.add(Row(task.key, task.what, timed.rate, task.unit, note="; ".join(notes)))
    if persistqueue is None:
        run.add(Row("2", "persist-queue SQLiteQueue", None, "msg/s", note="persist-queue is not installed"))

    def vs_pq(peer_key: str, value: float) -> tuple[bool, str]:
        peer = rate.get(peer_key)
        if not peer:
            return True, "persist-queue not measured"
        return value >= peer, f"{value / peer:.2f}× persist-queue {peer_key} (≥ 1×)"

    for row in run.rows:
        k, v = row.key, row.value
        if v is None or k[0] not in "3456":
            continue
        checks: list[tuple[bool, str]] = []
        if k[0] == "3":
            row.target = "≥ 3,000 msg/s; ≥ 0.5× fsync limit; ≥ 1× persist-queue"
            checks.append((v >= 3000, f"{v / 3000:.2f}× 3,000"))
            if "1a" in rate:
                limit = rate["1a"] / 2
                checks.append((v >= 0.5 * limit, f"{v / limit:.2f}× fsync limit (≥ 0.5×)"))
            if "1b" in rate:  # shown, not judged: the fdatasync limit is the one SQLite's WAL commits meet
                checks.append((True, f"({v / (rate['1b'] / 2):.2f}× fdatasync limit)"))
        elif k[0] == "4":
            row.target = "≥ 30,000 msg/s; ≥ 1× persist-queue"
            checks.append((v >= 30000, f"{v / 30000:.2f}× 30,000"))
        elif k[0] == "5":
            row.target = "≥ 100,000 msg/s; ≥ 1× persist-queue"
            checks.append((v >= 100000, f"{v / 100000:.2f}× 100,000"))
        else:
            row.target = "≥ 15,000 durable commits/s; ≥ 1× persist-queue"
            checks.append((v >= 15000, f"{v / 15000:.2f}× 15,000"))
        peer = {"a": "2a", "r": "2a", "b": "2b"}.get(k[-1], "2c")
        checks.append(vs_pq(peer, v))
        row.passed, row.verdict = verdict(checks)

    # -- 7. depth -------------------------------------------------------------------------------------------
    if want("7"):
        gc.collect()
        log(f"7: get time at depth 1,000 and {big_depth:,}, {depth_gets:,} gets each, interleaved …")
        (small, _, note_s), (big, _, note_b) = sp_get_at_depths([1000, big_depth], depth_gets, prof, log=log)
        if args.profile:
            text = prof.report(f"row 7: gets at depth 1,000 and at depth {big_depth:,} (gets only)", args.profile_top)
            if text:
                profiles.append(text)
        run.add(
            Row(
                "7a",
                "syncpoint get at depth 1,000 (non-persistent, no syncpoint, raw MQI)",
                small,
                "µs/get",
                note=note_s,
            )
        )
        ratio = big / small
        row = run.add(
            Row(
                "7b",
                f"syncpoint get at depth {big_depth:,} (non-persistent, no syncpoint, raw MQI)",
                big,
                "µs/get",
                note=note_b,
                target="≤ 1.5× the time at depth 1,000",
            )
        )
        row.passed = ratio <= 1.5
        row.verdict = f"{'PASS' if row.passed else 'MISS'}: {ratio:.2f}× depth 1,000"
        gc.collect()

    with contextlib.suppress(OSError):
        run.machine["loadavg_end"] = [round(x, 2) for x in os.getloadavg()]
    print_table(run, plain=args.plain)
    for text in profiles:
        print(text)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(
                {"machine": run.machine, "args": run.args, "rows": [asdict(r) for r in run.rows]},
                f,
                indent=2,
                ensure_ascii=False,
            )
    return 0


def print_table(run: Run, plain: bool) -> None:
    m = run.machine
    head = (
        f"syncpoint {m.get('syncpoint')} ({m.get('git')}) embedded, 1 KiB messages — {m.get('nproc')} CPUs, "
        f"{m.get('memory_gib')} GiB (process on CPU {m.get('cpus', 'all')}), Python {m.get('python')}, "
        f"SQLite {m.get('sqlite')}, "
        f"persist-queue {m.get('persist-queue')}; temp dirs on {m.get('tmp_fs', TMP_ROOT)}; "
        f"{run.args['duration']:g} s per measurement, {run.args['rounds']} round(s), median reported; "
        f"load average (1/5/15 min) at start {m.get('loadavg_start')}, at end {m.get('loadavg_end')}"
    )
    cols = ["#", "measurement", "result", "unit", "target", "verdict", "notes"]
    rows = [[r.key, r.what, fmt_rate(r.value), r.unit, r.target, r.verdict, r.note] for r in run.rows]
    if not plain:
        try:
            from rich.console import Console
            from rich.table import Table
        except ImportError:
            plain = True
    if plain:
        print(head)
        print()
        print("| " + " | ".join(cols) + " |")
        print("|" + "|".join("---" for _ in cols) + "|")
        for r in rows:
            print("| " + " | ".join(c.replace("|", "/") for c in r) + " |")
        return
    table = Table(title=head, show_lines=True)
    for c in cols:
        table.add_column(c, justify="right" if c == "result" else "left", overflow="fold")
    for r, row in zip(rows, run.rows, strict=True):
        style = "green" if row.passed else ("red" if row.passed is False else None)
        table.add_row(*r[:5], f"[{style}]{r[5]}[/{style}]" if style and r[5] else r[5], r[6])
    Console(width=max(160, shutil.get_terminal_size().columns)).print(table)


if __name__ == "__main__":
    sys.exit(main())
