"""The server's limits as values: the password throttle on a fake clock, and ``strmqm --limit`` parsing
(issue "Hardening", defects 5 and 8; the live behaviour: tests/hardening/test_server_limits.py)."""

from __future__ import annotations

import pytest

from syncpoint.server import Limits
from syncpoint.server._auth import Throttle


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_the_delay_after_failures_doubles_up_to_the_cap_for_that_source_only() -> None:
    # "add a per-source delay after failures that does not slow other clients" (defect 8)
    clock = Clock()
    t = Throttle(cap=1.0, clock=clock)
    alice, bob = ("10.0.0.1", "alice"), ("10.0.0.1", "bob")
    waits = []
    for _ in range(6):
        waits.append(t.wait(alice))
        clock.now += waits[-1]  # the attempt waits its turn, fails, and the next guess comes at once
        t.failed(alice)
        clock.now += 0.001
    assert waits[0] == 0.0
    assert waits[1:] == pytest.approx([0.099, 0.199, 0.399, 0.799, 0.999], abs=0.002)
    assert t.wait(bob) == 0.0 and t.wait(("10.0.0.2", "alice")) == 0.0  # other sources are not slowed


def test_attempts_made_at_once_queue_one_behind_another() -> None:
    clock = Clock()
    t = Throttle(cap=5.0, clock=clock)
    src = ("10.0.0.1", "alice")
    for _ in range(3):
        t.failed(src)
    first, second, third = t.wait(src), t.wait(src), t.wait(src)  # three connections guessing in parallel
    assert 0 < first < second < third


def test_a_success_or_a_quiet_minute_forgets_the_failures() -> None:
    clock = Clock()
    t = Throttle(cap=5.0, clock=clock)
    src = ("10.0.0.1", "alice")
    t.failed(src)
    t.failed(src)
    t.succeeded(src)
    assert t.wait(src) == 0.0
    t.failed(src)
    clock.now += 61
    assert t.wait(src) == 0.0


def test_limits_parse_names_and_values_and_refuse_the_rest() -> None:
    limits = Limits.parse(["max-connections=20", "handshake-timeout=2.5"])
    assert limits.max_connections == 20 and limits.handshake_timeout == 2.5
    assert Limits.parse(None) == Limits()
    for bad in ["max-connections", "nosuch=1", "max-connections=x", "handshake-timeout=0"]:
        with pytest.raises(ValueError, match="--limit"):
            Limits.parse([bad])
