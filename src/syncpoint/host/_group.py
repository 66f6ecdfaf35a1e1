"""A queue-sharing group member's wake-ups: gets waiting on shared queues, woken by the other members.

Theory of operation
-------------------
Another member's put or commit on a shared queue is announced by a NOTIFY of the queue's name (sent after its
commit, outside any unit of work: ``store._postgres_shared``). One thread per member listens
(:meth:`~syncpoint.store.SharedQueues.listen`) and wakes, under the host's lock, the gets parked on the named
queue; at least every 100 ms it also wakes every get parked on a shared queue, which then tries again: a lost
notification delays a waiter by 100 ms at most (issue 20: no fixed polling interval above 100 ms). Every second
it also brings the member's view of the shared definitions up to date (DEFINE, ALTER and DELETE on another
member).

Seed 001 on shared queues: the queues named by a NOTIFY (another member's commit, or this one's) have committed
messages that arrived; after waking the gets, the thread asks the engine, as one call of the host (so the
trigger messages it writes are stored and wake their monitors like any call's), to evaluate their trigger
conditions (``engine._shared_rules``); on the 100 ms ticks the engine looks at every triggered shared queue once
a second, in case a notification was lost.
"""

from __future__ import annotations

import threading
import time
from typing import Any, Protocol

from syncpoint.engine import DEFINITIONS_CHANGED, QueueManager
from syncpoint.mqi import constants as C
from syncpoint.store import SharedQueues

from ._waiting import Waiters

DEFINITIONS_REFRESH = 1.0  # seconds: how stale another member's DEFINE / ALTER / DELETE may be here
TRIGGER_LOOK = 1.0  # seconds between two looks at every triggered shared queue besides the NOTIFYs (seed 001)


class _Host(Protocol):
    """What the wake-ups use of ``QueueManagerHost``."""

    name: str
    lock: Any
    closed: bool
    engine: QueueManager
    waiters: Waiters

    def call(self, fn: Any, *args: Any) -> Any: ...


def _triggered(engine: QueueManager, names: list[str] | None) -> list[str]:
    """Of the shared queues ``names`` (None: every one), those with TRIGGER on."""
    queues = engine.queues
    if names is None:
        return [n for n, q in queues.items() if q.shared and q.attrs["TRIGGER"] == C.MQTC_ON]
    found = []
    for n in names:
        q = queues.get(n)
        if q is not None and q.shared and q.attrs["TRIGGER"] == C.MQTC_ON:
            found.append(n)
    return found


def start_group_wakeups(host: _Host, shared: SharedQueues, ended: threading.Event) -> threading.Thread:
    """Start the member's listening thread; it ends when ``ended`` is set."""

    refreshed = [time.monotonic()]
    looked = [0.0]  # when every triggered shared queue was last looked at (seed 001, a lost notification)

    def on_wake(names: list[str] | None) -> None:
        with host.lock:
            if host.closed:
                return
            told = names is not None and DEFINITIONS_CHANGED in names  # a GROUP definition changed: at once
            if told or time.monotonic() - refreshed[0] >= DEFINITIONS_REFRESH:
                refreshed[0] = time.monotonic()
                try:
                    host.engine.refresh_shared()  # definitions other members defined, altered or deleted
                except Exception:  # the database is unreachable: the verbs report it; try again later
                    pass
            queues = host.engine.queues
            triggered: list[str] = []
            if names is not None or time.monotonic() - looked[0] >= TRIGGER_LOOK:
                if names is None:
                    looked[0] = time.monotonic()
                triggered = _triggered(host.engine, names)
            if names is None:
                wake = [name for name, q in queues.items() if q.shared and host.waiters.parked(name)]
            else:
                wake = [name for name in names if name in queues]
            if wake:
                host.waiters.wake(wake)
        if getattr(host.engine, "copies_stale", False):  # GROUP definitions changed: this member's COPY objects
            try:
                host.call(host.engine.refresh_group_copies)
            except Exception:  # the queue manager is ending, or the database is away: the next look tries again
                pass
        if triggered:  # seed 001: committed messages arrived on shared queues with TRIGGER on
            try:
                host.call(host.engine.check_shared_triggers, None if names is None else triggered)
            except Exception:  # the queue manager is ending, or the database is away: the next look tries again
                pass

    thread = threading.Thread(
        target=shared.listen, args=(on_wake, ended), name=f"syncpoint-{host.name}-group", daemon=True
    )
    thread.start()
    return thread
