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
"""

from __future__ import annotations

import threading
import time
from typing import Any, Protocol

from syncpoint.engine import QueueManager
from syncpoint.store import SharedQueues

from ._waiting import Waiters

DEFINITIONS_REFRESH = 1.0  # seconds: how stale another member's DEFINE / ALTER / DELETE may be here


class _Host(Protocol):
    """What the wake-ups use of ``QueueManagerHost``."""

    name: str
    lock: Any
    closed: bool
    engine: QueueManager
    waiters: Waiters


def start_group_wakeups(host: _Host, shared: SharedQueues, ended: threading.Event) -> threading.Thread:
    """Start the member's listening thread; it ends when ``ended`` is set."""

    refreshed = [time.monotonic()]

    def on_wake(names: list[str] | None) -> None:
        with host.lock:
            if host.closed:
                return
            if time.monotonic() - refreshed[0] >= DEFINITIONS_REFRESH:
                refreshed[0] = time.monotonic()
                try:
                    host.engine.refresh_shared()  # definitions other members defined, altered or deleted
                except Exception:  # the database is unreachable: the verbs report it; try again later
                    pass
            queues = host.engine.queues
            if names is None:
                wake = [name for name, q in queues.items() if q.shared and host.waiters.parked(name)]
            else:
                wake = [name for name in names if name in queues]
            if wake:
                host.waiters.wake(wake)

    thread = threading.Thread(
        target=shared.listen, args=(on_wake, ended), name=f"syncpoint-{host.name}-group", daemon=True
    )
    thread.start()
    return thread
