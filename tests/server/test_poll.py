"""Busy polling (src/syncpoint/host/_poll.py): while the queue manager is busy, the one CPU it runs on polls
instead of going idle; the measurements behind it are in docs/benchmarks.md. The window is measured with a fake
clock here, so no test waits for it to pass in real time."""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from test_processes import home, run  # noqa: F401  (the fixture and the command runner of the process tests)

import syncpoint
from syncpoint.host import _poll
from syncpoint.host._poll import BusyPoller, can_poll, cpu_quota
from waiting import wait_until

linux_only = pytest.mark.skipif(
    not hasattr(os, "SCHED_IDLE") or not hasattr(os, "sched_setaffinity"), reason="needs SCHED_IDLE and affinity"
)


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def _eventually(condition: Callable[[], object], what: str) -> None:
    """Wait for a state the poller thread reaches on its own (it is scheduled only when a CPU is idle)."""
    wait_until(condition, what, timeout=30.0, interval=0.001)


@pytest.fixture
def polling() -> Iterator[tuple[BusyPoller, FakeClock]]:
    """An enabled poller of its own (not the process's) whose window of 0.5 s runs on a fake clock."""
    clock = FakeClock()
    p = BusyPoller(window=0.5, clock=clock, eligible=lambda: True)
    p.enabled = True
    yield p, clock
    p.close()


def _cpu_time(thread: threading.Thread) -> float:
    assert thread.ident is not None
    return time.clock_gettime(time.pthread_getcpuclockid(thread.ident))


def _cgroup_v2(root: Path, cpu_max: str) -> Path:
    (root / "proc/self").mkdir(parents=True)
    (root / "proc/self/cgroup").write_text("0::/app.slice/qm\n")
    group = root / "sys/fs/cgroup/app.slice/qm"
    group.mkdir(parents=True)
    (group / "cpu.max").write_text(cpu_max + "\n")
    return root


def test_cpu_quota_reads_cgroup_v2_cpu_max(tmp_path: Path) -> None:
    assert cpu_quota(_cgroup_v2(tmp_path / "a", "max 100000")) is None
    assert cpu_quota(_cgroup_v2(tmp_path / "b", "50000 100000")) == 0.5


def test_cpu_quota_reads_cgroup_v1_cfs_quota(tmp_path: Path) -> None:
    (tmp_path / "proc/self").mkdir(parents=True)
    (tmp_path / "proc/self/cgroup").write_text("4:memory:/x\n2:cpu,cpuacct:/qm\n0::/\n")
    group = tmp_path / "sys/fs/cgroup/cpu,cpuacct/qm"
    group.mkdir(parents=True)
    (group / "cpu.cfs_quota_us").write_text("-1\n")
    (group / "cpu.cfs_period_us").write_text("100000\n")
    assert cpu_quota(tmp_path) is None
    (group / "cpu.cfs_quota_us").write_text("250000\n")
    assert cpu_quota(tmp_path) == 2.5


def test_cpu_quota_is_none_when_the_files_are_missing(tmp_path: Path) -> None:
    assert cpu_quota(tmp_path) is None  # no /proc/self/cgroup at all
    (tmp_path / "proc/self").mkdir(parents=True)
    (tmp_path / "proc/self/cgroup").write_text("0::/gone\n")
    assert cpu_quota(tmp_path) is None


@linux_only
def test_polling_needs_the_calling_thread_on_one_cpu() -> None:
    available = sorted(os.sched_getaffinity(0))
    seen: dict[str, bool] = {}

    def pinned() -> None:  # sched_setaffinity(0, ...) pins the calling thread only
        os.sched_setaffinity(0, {available[-1]})
        seen["one"] = can_poll()

    t = threading.Thread(target=pinned)
    t.start()
    t.join()
    assert seen["one"] == (cpu_quota() is None)
    if len(available) > 1:
        assert not can_poll()


def test_a_poller_that_is_not_enabled_or_not_eligible_starts_nothing() -> None:
    off = BusyPoller(eligible=lambda: True)
    off.touch()
    assert off.thread is None and off.sleeping
    ineligible = BusyPoller(eligible=lambda: False)
    ineligible.enabled = True
    ineligible.touch()
    assert ineligible.thread is None and ineligible.sleeping


@linux_only
def test_the_poller_runs_under_sched_idle_and_sleeps_once_the_window_has_passed(
    polling: tuple[BusyPoller, FakeClock],
) -> None:
    poller, clock = polling
    try:
        poller.touch()
        thread = poller.thread
        assert thread is not None and not poller.sleeping
        _eventually(lambda: thread.native_id is not None, "the thread started")
        assert thread.native_id is not None
        _eventually(lambda: os.sched_getscheduler(thread.native_id) == os.SCHED_IDLE, "SCHED_IDLE")
        start = _cpu_time(thread)
        _eventually(lambda: _cpu_time(thread) > start + 0.002, "the poller used CPU while touched")
        clock.now += 0.4  # inside the window: it goes on
        busy = _cpu_time(thread)
        _eventually(lambda: _cpu_time(thread) > busy + 0.002, "the poller still polls inside the window")
        assert not poller.sleeping
        clock.now += 0.2  # past the window
        _eventually(lambda: poller.sleeping, "the poller went to sleep")
        time.sleep(0.01)  # let it reach its wait (a few instructions after the flag: nothing shows that)
        asleep = _cpu_time(thread)
        time.sleep(0.05)  # time passing, to show it uses no CPU
        assert _cpu_time(thread) == asleep  # asleep: no CPU at all
        poller.touch()  # work again: the same thread polls again
        assert poller.thread is thread and not poller.sleeping
        _eventually(lambda: _cpu_time(thread) > asleep + 0.002, "the poller polled again after a touch")
    finally:
        poller.close()
    assert not thread.is_alive()


@linux_only
def test_every_touch_restarts_the_window(polling: tuple[BusyPoller, FakeClock]) -> None:
    poller, clock = polling
    poller.touch()
    for _ in range(5):  # 5 x 0.3 s of fake time, each step inside the window of the touch before it
        seen = poller.touches
        clock.now += 0.3
        poller.touch()
        assert poller.touches == seen + 1
        thread = poller.thread
        assert thread is not None
        busy = _cpu_time(thread)
        _eventually(lambda: _cpu_time(thread) > busy + 0.001, "polling after a touch")  # noqa: B023
        assert not poller.sleeping
    clock.now += 0.6
    _eventually(lambda: poller.sleeping, "asleep after the last window")


@linux_only
def test_an_embedded_commit_touches_the_poller_and_a_non_persistent_put_does_not(tmp_path: Path) -> None:
    syncpoint.client.create_queue_manager("QP", home=tmp_path)
    qm = syncpoint.connect("QP", home=tmp_path)
    try:
        qm.admin("define", "QLOCAL", "Q1", {})
        q = qm.open("Q1")
        before = _poll.POLLER.touches
        q.put(b"x", persistent=False)
        q.get()
        assert _poll.POLLER.touches == before  # nothing to sync: nothing to poll for
        q.put(b"x", persistent=True, syncpoint=True)
        qm.commit()  # a durable write in flight
        assert _poll.POLLER.touches > before
    finally:
        qm.disconnect()


def _sched_idle_threads(pid: int) -> int:
    count = 0
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            if os.sched_getscheduler(int(task.name)) == os.SCHED_IDLE:
                count += 1
        except OSError:
            pass
    return count


@linux_only
@pytest.mark.parametrize("flag", [None, "--no-busy-poll"])
def test_strmqm_busy_polls_on_its_one_cpu_unless_told_not_to(home: Path, flag: str | None) -> None:  # noqa: F811
    assert run(home, "crtmqm", "QMP").returncode == 0
    r = run(home, "strmqm", "QMP", "--port", "0", *([flag] if flag else []))
    assert r.returncode == 0, r.stderr
    info = json.loads((home / "qmgrs" / "QMP" / "server.json").read_text())
    polls = flag is None and info["cpus"] is not None and cpu_quota() is None
    assert info["busy_poll"] is polls
    assert ("busy polling" in r.stdout) is polls
    qm = syncpoint.connect("QMP", home=home)
    try:
        qm.admin("define", "QLOCAL", "Q1", {})
        q = qm.open("Q1")
        for _ in range(20):  # durable round trips: each touches the server's poller
            q.put(b"x" * 100, persistent=True)
            assert q.get().data == b"x" * 100
        if polls:
            assert _sched_idle_threads(info["pid"]) == 1
        else:
            assert _sched_idle_threads(info["pid"]) == 0
    finally:
        qm.disconnect()
    assert run(home, "endmqm", "-i", "QMP").returncode == 0


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_a_forked_child_starts_its_own_poller_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    # the parent's poller thread does not exist in the child: the child's next touch must start one of its own
    monkeypatch.setattr(_poll.POLLER, "thread", threading.current_thread())
    monkeypatch.setattr(_poll.POLLER, "sleeping", False)
    pid = os.fork()
    if pid == 0:  # the child
        os._exit(0 if _poll.POLLER.thread is None and _poll.POLLER.sleeping else 1)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0


@linux_only
def test_strmqm_does_not_busy_poll_on_a_cpu_another_queue_manager_runs_on(home: Path) -> None:  # noqa: F811
    # docs/benchmarks.md, qsg: two busy pollers to a CPU cost more than they save (4 members two to a CPU:
    # 0.30x the peer with polling, 0.38x without; one to a CPU: the same either way)
    from syncpoint.server._lifecycle import alone_on_cpus

    cpu = min(os.sched_getaffinity(0))
    for name in ("QMA", "QMB"):
        assert run(home, "crtmqm", name).returncode == 0
    assert run(home, "strmqm", "QMA", "--port", "0", "--cpus", str(cpu)).returncode == 0
    a = json.loads((home / "qmgrs" / "QMA" / "server.json").read_text())
    assert a["busy_poll"] is (cpu_quota() is None)  # alone on its CPU: it polls
    assert alone_on_cpus("QMA", home, {cpu})
    r = run(home, "strmqm", "QMB", "--port", "0", "--cpus", str(cpu))
    assert r.returncode == 0, r.stderr
    b = json.loads((home / "qmgrs" / "QMB" / "server.json").read_text())
    assert b["busy_poll"] is False  # QMA runs on its CPU
    assert "busy polling" not in r.stdout
    # ... and QMA, started first, stops polling while QMB runs there (its poller looks once a second)
    assert not alone_on_cpus("QMA", home, {cpu})
    assert run(home, "endmqm", "-i", "QMB").returncode == 0
    assert alone_on_cpus("QMA", home, {cpu})
    assert run(home, "endmqm", "-i", "QMA").returncode == 0
