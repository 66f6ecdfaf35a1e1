"""Waiting gets and the lifecycle, sans I/O (src/syncpoint/host/_waiting.py): the host's Waiters driven with a
fake clock, no threads, no sockets, no sleeping."""

from __future__ import annotations

import math
import time

import pytest

from syncpoint.engine import FakeClock, SystemClock
from syncpoint.host import ALL_QUEUES, QUIESCING, RUNNING, STOPPED, Waiter, Waiters
from syncpoint.mqi import MQGMO, MQMIError
from syncpoint.mqi import constants as C


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def waiters(clock: FakeClock) -> Waiters:
    return Waiters(clock)


def gmo(interval: int, options: int = C.MQGMO_WAIT) -> MQGMO:
    return MQGMO(Options=options, WaitInterval=interval)


def parked(waiters: Waiters, queue: str, interval: int, options: int = C.MQGMO_WAIT) -> tuple[Waiter, list[str]]:
    """A get on ``queue`` parked with ``interval`` ms; the list records its wakes."""
    woken: list[str] = []
    deadline = waiters.deadline_of(gmo(interval, options))
    assert deadline is not None
    w = Waiter(queue, deadline, bool(options & C.MQGMO_FAIL_IF_QUIESCING), lambda: woken.append(queue))
    waiters.park(w)
    return w, woken


def test_the_deadline_is_the_wait_interval_from_the_clock(waiters: Waiters, clock: FakeClock) -> None:
    assert waiters.deadline_of(gmo(2500)) == clock.monotonic() + 2.5
    assert waiters.deadline_of(gmo(C.MQWI_UNLIMITED)) == math.inf
    assert waiters.deadline_of(gmo(0)) is None  # a zero interval does not wait
    assert waiters.deadline_of(gmo(2500, options=C.MQGMO_NO_WAIT)) is None
    with pytest.raises(MQMIError) as e:
        waiters.deadline_of(gmo(-5))
    assert e.value.reason == C.MQRC_WAIT_INTERVAL_ERROR


def test_a_waiting_get_is_woken_by_the_wake_effect_of_its_queue(waiters: Waiters) -> None:
    w, woken = parked(waiters, "Q1", 5000)
    _other, other_woken = parked(waiters, "Q2", 5000)
    assert waiters.wake({"Q1"}) == [w]  # a put, commit or backout on Q1 named it in the engine's effects
    assert woken == ["Q1"] and other_woken == []
    assert waiters.end_of_wait(w, handle_open=True) is None  # found nothing again: it sleeps on
    assert waiters.parked("Q1") == [w]  # still parked until its get ends
    waiters.unpark(w)
    assert waiters.wake({"Q1"}) == [] and woken == ["Q1"]


def test_waiters_of_one_queue_are_woken_in_arrival_order(waiters: Waiters) -> None:
    first, _ = parked(waiters, "Q1", 5000)
    second, _ = parked(waiters, "Q1", 5000)
    third, _ = parked(waiters, "Q1", 5000)
    assert waiters.wake({"Q1"}) == [first, second, third]
    assert waiters.wake({ALL_QUEUES}) == [first, second, third]


def test_the_deadline_passes_by_the_fake_clock_without_sleeping(waiters: Waiters, clock: FakeClock) -> None:
    w, _ = parked(waiters, "Q1", 30_000)
    assert waiters.end_of_wait(w, handle_open=True) is None
    started = time.monotonic()
    assert waiters.sleep_time(w.deadline) == 0.0  # the fake clock sleeps no real time: it jumps to the deadline
    assert time.monotonic() - started < 1.0
    assert clock.monotonic() == w.deadline
    ended = waiters.end_of_wait(w, handle_open=True)
    assert ended is not None and ended.reason == C.MQRC_NO_MSG_AVAILABLE


def test_an_unlimited_wait_sleeps_until_woken(waiters: Waiters, clock: FakeClock) -> None:
    w, _ = parked(waiters, "Q1", C.MQWI_UNLIMITED)
    before = clock.monotonic()
    assert waiters.sleep_time(w.deadline) is None
    clock.advance(10**6)
    assert waiters.end_of_wait(w, handle_open=True) is None
    assert clock.monotonic() == before + 10**6


def test_the_system_clock_sleeps_until_the_deadline() -> None:
    clock = SystemClock()
    now = clock.monotonic()
    assert 4.0 < clock.deadline_to_sleep_time(now + 5.0) <= 5.0
    assert clock.deadline_to_sleep_time(now - 1.0) == 0.0


def test_a_closed_handle_ends_the_wait_with_hobj_error(waiters: Waiters) -> None:
    w, _ = parked(waiters, "Q1", 5000)
    ended = waiters.end_of_wait(w, handle_open=False)
    assert ended is not None and ended.reason == C.MQRC_HOBJ_ERROR


def test_quiescing_ends_only_the_waits_that_fail_if_quiescing(waiters: Waiters) -> None:
    plain, _ = parked(waiters, "Q1", 5000)
    fiq, _ = parked(waiters, "Q1", 5000, options=C.MQGMO_WAIT | C.MQGMO_FAIL_IF_QUIESCING)
    assert waiters.state == RUNNING
    assert waiters.quiesce() is True
    assert waiters.quiesce() is False  # once
    assert waiters.state == QUIESCING
    assert waiters.end_of_wait(plain, handle_open=True) is None
    ended = waiters.end_of_wait(fiq, handle_open=True)
    assert ended is not None and ended.reason == C.MQRC_Q_MGR_QUIESCING


def test_stopping_unparks_every_waiter_with_ibms_reasons(waiters: Waiters) -> None:
    plain, _ = parked(waiters, "Q1", 5000)
    fiq, _ = parked(waiters, "Q2", C.MQWI_UNLIMITED, options=C.MQGMO_WAIT | C.MQGMO_FAIL_IF_QUIESCING)
    assert waiters.stop() == [plain, fiq]
    assert waiters.state == STOPPED and waiters.parked() == []
    assert plain.done and fiq.done
    assert waiters.stopped_error(plain.fail_if_quiescing).reason == C.MQRC_Q_MGR_STOPPING
    assert waiters.stopped_error(fiq.fail_if_quiescing).reason == C.MQRC_Q_MGR_QUIESCING
    ended = waiters.end_of_wait(plain, handle_open=True)
    assert ended is not None and ended.reason == C.MQRC_Q_MGR_STOPPING
