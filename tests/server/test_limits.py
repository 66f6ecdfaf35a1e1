"""The server's limits as values: the password failure delay (IBM's FAILDLAY, per address) on a fake clock,
and ``strmqm --limit`` parsing (issue "Hardening", defects 5 and 8; issue 39, item 6; the live behaviour:
tests/hardening/test_server_limits.py and test_server_pressure.py)."""

from __future__ import annotations

import pytest

from syncpoint.server import Limits
from syncpoint.server._auth import Throttle


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_failures_of_one_address_are_answered_one_per_delay_doubling_up_to_the_cap() -> None:
    # IBM's FAILDLAY delays the failed connection's answer; issue 39 item 6: "repeated failures from one address
    # should be limited per address". One failure after another: each answered its delay after the one before.
    clock = Clock()
    t = Throttle(cap=1.0, clock=clock)
    delays = []
    for _ in range(6):
        delays.append(t.failed("10.0.0.1"))
        clock.now += delays[-1]  # answered; the next guess comes at once
    assert delays == pytest.approx([0.1, 0.2, 0.4, 0.8, 1.0, 1.0])
    assert t.failed("10.0.0.2") == pytest.approx(0.1)  # another address has its own count


def test_failures_made_at_once_are_answered_one_behind_another() -> None:
    clock = Clock()
    t = Throttle(cap=5.0, clock=clock)
    first, second, third = (t.failed("10.0.0.1") for _ in range(3))  # three connections guessing in parallel
    assert (first, second, third) == pytest.approx((0.1, 0.3, 0.7))  # more connections do not guess faster
    assert t.failures("10.0.0.1") == 3


def test_a_quiet_minute_forgets_the_failures_of_an_address() -> None:
    clock = Clock()
    t = Throttle(cap=5.0, clock=clock)
    t.failed("10.0.0.1")
    clock.now += 1
    assert t.failed("10.0.0.1") == pytest.approx(0.2)  # the count goes on
    clock.now += 61
    assert t.failed("10.0.0.1") == pytest.approx(0.1)  # forgotten


def test_limits_parse_names_and_values_and_refuse_the_rest() -> None:
    limits = Limits.parse(["max-connections=20", "handshake-timeout=2.5", "partial-frame-budget=1048576"])
    assert limits.max_connections == 20 and limits.handshake_timeout == 2.5
    assert limits.partial_frame_budget == 1048576 and limits.frame_time(2 * 1048576) == 10.0 + 2 * 5.0
    assert Limits.parse(None) == Limits()
    for bad in ["max-connections", "nosuch=1", "max-connections=x", "handshake-timeout=0"]:
        with pytest.raises(ValueError, match="--limit"):
            Limits.parse([bad])
