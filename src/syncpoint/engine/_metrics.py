"""What the metrics read of the queue manager (issue 36): counts and status, in slices.

Theory of operation
-------------------
The counts themselves cost the MQI path one integer addition each, made where the state already changes: a put
(``LocalQueue.puts``, ``hi_depth``, the queue manager's ``stat_puts``), a destructive get (``note_get``:
``gets``; ``stat_gets``), an expiry discard (``expired``), CLEAR QLOCAL (``purged``), the available messages'
bytes where a message joins or leaves the queue's index (``bytes``), MQCONN / MQCMIT / MQBACK (``stat_*``).
They count since this start, as IBM's counters do after a restart.

A scrape reads them through three administrative verbs, each one short hold of the host's lock:
``queue_names`` (a copy of the names), ``queue_metrics(names)`` for a slice of them (the metrics tool asks for
fifty at a time, so a queue manager with 10,000 queues is never held for more than about a
millisecond), and ``qmgr_metrics``. Nothing here writes.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from syncpoint.mqi import constants as C

from ._shared_defs import SharedDefinitionsMixin
from ._state import PRIO_SHIFT, LocalQueue


class MetricsMixin(SharedDefinitionsMixin):
    """The metrics' administrative verbs (``syncpoint.host.ADMIN_VERBS``)."""

    def queue_names(self) -> list[str]:
        """The names of the local queues (predefined, dynamic, shared), in no particular order."""
        return list(self.queues)

    def queue_metrics(self, names: Sequence[str], reset_high: bool = False) -> list[tuple[Any, ...]]:
        """One tuple per queue of ``names`` that still exists (a queue deleted since ``queue_names`` is left
        out): (name, DESCR, USAGE, MAXDEPTH, CURDEPTH, UNCOM, IPPROCS, OPPROCS, MSGAGE seconds, seconds since
        the last put, seconds since the last get (0 before the first, as IBM's exporter shows), QTIME short and
        long in microseconds (0 before the first get), puts, destructive gets, highest depth, expired,
        purged, bytes of the available messages, shared (a queue-sharing group's)). ``reset_high``: the highest
        depth starts again from the current depth, as IBM's RESET QSTATS resets HIQDEPTH.

        A shared queue's depth and UNCOM are the group's, read from the shared store with the host's lock let go
        while PostgreSQL answers (``_io``); its highest depth is the highest this member saw at its collections
        (its puts and gets happen in every member); its messages' age and bytes are not in this member (0)."""
        now = self.clock.time()
        queues = self.queues
        out: list[tuple[Any, ...]] = []
        for name in names:
            q = queues.get(name)
            if q is None:
                continue
            attrs = q.attrs
            if q.shared:  # a queue-sharing group's: the group's depth, asked with the host's lock let go
                depth = self._io(self.shared.depth, name) if self.shared is not None else 0
                uncommitted = q.uncommitted
            else:
                depth, uncommitted = q.depth, q.uncommitted
            oldest = max(0, int(now - _oldest_put(q))) if q.by_key else 0
            qtime = q.qtime()
            c = q.counts
            out.append(
                (
                    name,
                    attrs.get("DESCR", ""),
                    attrs.get("USAGE", C.MQUS_NORMAL),
                    attrs.get("MAXDEPTH", 0),
                    depth,
                    uncommitted,
                    q.ipprocs,
                    q.opprocs,
                    oldest,
                    max(0, int(now - q.last_put)) if q.last_put else 0,
                    max(0, int(now - q.last_get)) if q.last_get else 0,
                    qtime[0] if qtime else 0,
                    qtime[1] if qtime else 0,
                    c.puts,
                    c.gets,
                    max(c.hi_depth, depth),
                    c.expired,
                    c.purged,
                    c.bytes,
                    q.shared,
                )
            )
            if reset_high:
                c.hi_depth = depth
        return out

    def qmgr_metrics(self) -> dict[str, Any]:
        """The queue manager's status and counts since this start (DISPLAY QMSTATUS and IBM's STATMQI)."""
        status = self.qmgr_status()
        return {
            **status,
            "DESCR": self.qmgr.attrs.get("QMDESCR", ""),
            "NOW": self.clock.time(),
            "PUTS": self.stat_puts,
            "GETS": self.stat_gets,
            "COMMITS": self.stat_commits,
            "BACKOUTS": self.stat_backouts,
            "CONNS_TOTAL": self.stat_conns,
            "CONNS_HWM": self.stat_conns_hwm,
            "EXPIRED": self.expired_discarded,
            "EVENTS_PUT": getattr(self, "events_put", 0),
            "EVENTS_DROPPED": getattr(self, "events_dropped", 0),
        }


def _oldest_put(q: LocalQueue) -> float:
    """The put time of the oldest available message, looking at no more than ten: a FIFO queue's first key is
    its oldest message (keys are put sequences); a priority-ordered queue's keys are ``((9 - priority) <<
    PRIO_SHIFT) | seq``, so the first message of each priority's run is the oldest of that priority."""
    index = q.index
    by_key = q.by_key
    if q.fifo:
        return float(by_key[index[0]].put_time)
    oldest = float("inf")
    for rank in range(index[0] >> PRIO_SHIFT, 10):
        i = index.bisect_left(rank << PRIO_SHIFT)
        if i < len(index):
            t = by_key[index[i]].put_time
            if t < oldest:
                oldest = t
    return oldest
