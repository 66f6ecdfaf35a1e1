"""The host's lock (src/syncpoint/host/_lock.py, HostLock): mutual exclusion, no convoy between busy threads,
no waiter passed over for long, and Condition on top of it."""

from __future__ import annotations

import itertools
import os
import sys
import threading

import pytest

from syncpoint.host import HostLock
from waiting import wait_until


def _run_two_busy_threads(lock: object, calls: int) -> tuple[int, int]:
    """Two threads each take and release ``lock`` ``calls`` times with a little work inside and outside (as
    MQPUT and MQGET calls do); returns (how many times the holder changed, the final shared count)."""
    holders: list[int] = []
    count = [0]
    start = threading.Barrier(2)

    def worker(me: int) -> None:
        start.wait()
        for _ in range(calls):
            with lock:  # type: ignore[attr-defined]
                holders.append(me)
                count[0] += 1
                sum(range(300))  # work under the lock (the engine verb)
            sum(range(150))  # work between calls (the API around it)

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    changes = sum(1 for a, b in itertools.pairwise(holders) if a != b)
    return changes, count[0]


def test_host_lock_is_mutually_exclusive() -> None:
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # switch threads as often as possible
    try:
        lock = HostLock()
        inside = [0]
        seen = []

        def worker() -> None:
            for _ in range(2000):
                with lock:
                    inside[0] += 1
                    seen.append(inside[0])
                    inside[0] -= 1

        threads = [threading.Thread(target=worker) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert set(seen) == {1}  # never two holders at once
    finally:
        sys.setswitchinterval(old)


@pytest.mark.skipif((os.cpu_count() or 1) < 2, reason="a convoy needs a second CPU to wake the waiter on")
def test_two_busy_threads_do_not_take_turns_at_every_call() -> None:
    # A plain threading.Lock belongs at release to the thread sleeping in acquire(), which wakes on the other
    # CPU and takes it: the two threads then alternate at (nearly) every call. The host's lock lets the running
    # thread go on; the holder changes only when the GIL moves.
    calls = 20_000
    changes, count = _run_two_busy_threads(HostLock(), calls)
    assert count == 2 * calls
    assert changes < calls // 50  # measured here: 17-22 changes; a plain lock 1,900-3,600


def test_a_waiter_is_not_passed_over_by_a_thread_that_blocks_only_inside_the_lock() -> None:
    # The busy thread gives the GIL up only while it holds the lock (a write(2) in the critical section, as a
    # persistent get in syncpoint writes its marker): the waiter must still get in, at the latest once its
    # patience is over and it waits in the lock itself.
    lock = HostLock()
    stop = threading.Event()
    r, w = os.pipe()

    def busy() -> None:
        while not stop.is_set():
            with lock:
                os.write(w, b"x")
                os.read(r, 1)

    t = threading.Thread(target=busy)
    t.start()
    try:
        got = []
        for _ in range(20):
            with lock:
                got.append(1)
        assert len(got) == 20
    finally:
        stop.set()
        t.join()
        os.close(r)
        os.close(w)


def test_condition_wait_and_notify_work_on_the_host_lock() -> None:
    lock = HostLock()
    cond = threading.Condition(lock)  # type: ignore[arg-type]
    items: list[int] = []

    def consumer() -> None:
        with cond:
            while not items:
                cond.wait()
            items.append(-items[0])

    t = threading.Thread(target=consumer)
    t.start()
    wait_until(lambda: cond._waiters, "the consumer waiting", timeout=10, interval=0.001)  # type: ignore[attr-defined]
    with cond:
        items.append(7)
        cond.notify()
    t.join(10)
    assert not t.is_alive()
    assert items == [7, -7]
    assert not lock.locked()


def test_acquire_without_blocking_and_with_a_timeout() -> None:
    lock = HostLock()
    assert lock.acquire()
    assert not lock.acquire(False)
    held = threading.Event()
    result = []

    def other() -> None:
        result.append(lock.acquire(True, 0.05))  # times out: the main thread keeps it
        held.set()

    t = threading.Thread(target=other)
    t.start()
    held.wait(10)
    t.join()
    assert result == [False]
    lock.release()
    assert lock.acquire(True, 0.05)
    lock.release()
    assert not lock.locked()
