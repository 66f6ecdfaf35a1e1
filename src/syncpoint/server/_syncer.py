"""The sync thread of the server: it waits for the store's durable writes and hands the answers back to the loop.

Group commit across sessions (DESIGN.md "Storage"; docs/benchmarks.md for the commit delay's measurements).

A write that committed persistent messages makes them available once it is durable (issue 24): the thread only
waits; the loop, before it answers the group, tells the host (``durable_reached``), so the messages become
available and their waiting gets wake on the loop, which also parks them — no wake falls between a get that found
nothing and its parking.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable
from typing import Any

from syncpoint.host import QueueManagerHost, durable_write, no_wakeup_preemption
from syncpoint.store import Pending

Durable = tuple[Pending, Callable[[BaseException | None], None], Any]  # a write, its callback, its session


class Syncer:
    """The one thread that waits for store writes: it commits whole groups (the store's leader protocol) and
    hands the results back to the loop.

    Commit delay: the sessions answered by the last group usually send their next request within a fraction of
    a sync (a producer's next put, a consumer's next get). When some of them have not been heard from yet, the
    thread waits for them, at most about one sync's duration (a moving average, capped by ``max_delay``), so
    their writes join this group instead of waiting a whole sync more: one sync then carries a put and the get
    of the same message. A session that sends something else, or nothing, costs that bounded wait once: the
    expectation lasts one group. A lone session is never waited for: its own request is what arrived."""

    def __init__(self, loop: asyncio.AbstractEventLoop, max_delay: float = 0.002) -> None:
        self.loop = loop
        self._items: list[Durable] = []
        self._cond = threading.Condition()
        self._stop = False
        self.max_delay = max_delay
        self.delay = 0.0002  # moving average of the time a group's sync takes (seconds)
        self.expected: set[Any] = set()  # sessions answered by the last group, not heard from since
        self.delays = 0  # groups that waited for an expected session (statistics)
        self.thread = threading.Thread(target=self._run, name="syncpoint-sync", daemon=True)
        self.thread.start()

    def hand_over(self, items: list[Durable], heard: list[Any]) -> None:
        """From the loop: writes to wait for, and the sessions whose requests were run since the last call."""
        with self._cond:
            self._items.extend(items)
            expected = self.expected
            for session in heard:
                expected.discard(session)
            if items or not expected:
                self._cond.notify()

    def stop(self) -> None:
        with self._cond:
            self._stop = True
            self._cond.notify()

    def _run(self) -> None:
        no_wakeup_preemption()
        clock = time.monotonic
        while True:
            with self._cond:
                while not self._items and not self._stop:
                    self._cond.wait()
                if not self._items:
                    return
                if self.expected and self.max_delay > 0:
                    self.delays += 1
                    deadline = clock() + min(self.delay, self.max_delay)
                    while self.expected and not self._stop:
                        remaining = deadline - clock()
                        if remaining <= 0:
                            break
                        self._cond.wait(remaining)
                items = self._items
                self._items = []
                self.expected = set()
            started = clock()
            results: list[tuple[Callable[[BaseException | None], None], BaseException | None]] = []
            hosts: set[QueueManagerHost] = set()
            for pending, done, _session in items:
                write, host = durable_write(pending)
                try:
                    write.wait()
                    results.append((done, None))
                    if host is not None:
                        hosts.add(host)
                except BaseException as e:  # a storage failure: every waiter learns of it
                    results.append((done, e))
            self.delay = 0.8 * self.delay + 0.2 * (clock() - started)
            with self._cond:
                self.expected = {s for _, _, s in items if s is not None and not s.closing}
            try:
                self.loop.call_soon_threadsafe(_deliver, results, hosts)
            except RuntimeError:  # the loop has closed: the server is gone
                return


def _deliver(
    results: list[tuple[Callable[[BaseException | None], None], BaseException | None]], hosts: set[QueueManagerHost]
) -> None:
    for host in hosts:  # first: an answered commit's messages are available to every connection
        host.durable_reached()
    for done, error in results:
        done(error)
