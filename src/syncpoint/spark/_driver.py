"""The stream reader's memory in the long-lived driver process: its connection, the planner and the queue's index.

Spark calls a stream reader's ``latestOffset`` / ``partitions`` / ``commit`` in one driver process that lives as
long as the query (reference/spark.md, "Where code runs"), so the state that makes batches cheap to plan lives
there, one ``_DriverState`` per reader (``_driver_state``): the index of the queue (token → Visible), kept up to
date incrementally — a browse on from the index's cursor for arrivals, a browse of the queue's head for what the
last batch left, a full rescan when planning finds nothing to do — the planner's memory of what it planned, and
the reservations of in-flight batches. While the executors process a batch a read-ahead thread browses the next
one (``read_ahead``); ``settle`` joins it before the connection is used again.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any, Protocol

from ._plan import Planner, Visible, held_back
from ._profile import record, span
from ._qm import CHUNK, QueueAccess, Target, batch_bound, max_uncommitted, visible_of


class StreamOptions(Protocol):
    """What the driver's state reads of its stream reader (_source.StreamReader)."""

    target: Target
    queue: str
    max_messages: int
    logical_order: bool
    n: int
    cores: int
    commit_mode: str
    partition_fn: Any


class _DriverState:
    """The stream reader's state in the long-lived driver process: a connection, the planner's memory and an
    index of the queue kept up to date incrementally (browse-next for arrivals, a browse of the queue's head for
    what the last batch left; a full rescan when that finds nothing to do, which also catches priority arrivals)."""

    def __init__(self, reader: StreamOptions) -> None:
        self.qm = reader.target.connect("syncpoint.spark.source")
        self.access = QueueAccess(self.qm, reader.queue)
        bound = batch_bound(reader.max_messages, max_uncommitted(self.qm))
        if reader.partition_fn is not None and reader.commit_mode == "partition":
            # each partition commits its own unit of work: the bound holds per partition, not per batch
            self.planner = Planner(
                max_messages=min(reader.max_messages, reader.n * bound),
                logical_order=reader.logical_order,
                partitions=reader.n,
                partition_max=bound,
                small=min(reader.n, reader.cores),
                per=CHUNK,
            )
        else:
            self.planner = Planner(max_messages=bound, logical_order=reader.logical_order)
        self.index: dict[int, Visible] = {}
        # the queue's head, browsed on a handle of its own (the read-ahead's cursor stays): what the last batch
        # left is at the start of the queue (see _refresh_from_head)
        self.head: QueueAccess | None = QueueAccess(self.qm, reader.queue)
        self.fifo = self.access.fifo()
        self.scanned = False
        self.last: tuple[str, list[Visible]] | None = None
        self.refreshed = False  # the index has seen what the last batch's commit left of it
        self.reserved: dict[int, list[int]] = {}  # batch number (Offset.n) -> the tokens reserved for it
        self._ahead: Any = None  # the read-ahead running while the executors process a batch (a thread)
        self._ahead_got: list[Visible] = []
        self._ahead_error: BaseException | None = None
        self._ahead_limit = 0
        self.at_end = False  # the last browse on from the index's cursor met the end of the queue
        self.serial_browsed = 0  # messages the last update() browsed itself, on latestOffset's serial path

    def read_ahead(self, ahead: int) -> None:
        """Browse on (without data) for the next batch while the executors process this one: Spark plans the
        next batch only after this one committed, so the browse would otherwise wait for it. Only this
        process's index learns from it (nothing is reserved or removed); ``settle`` joins it before the
        connection is used again. ``ahead``: the messages the index should hold unplanned (two batches)."""
        import threading

        unplanned, _ = self._unplanned()
        # at most one batch a time: after the first batch the index holds none unplanned, and two batches' browse
        # would compete with the start of Spark's Python workers for the cores
        limit = min(ahead - unplanned, ahead // 2)
        if limit <= 0 or not self.scanned:
            return
        self._ahead_got, self._ahead_error, self._ahead_limit = [], None, limit

        def run() -> None:
            try:
                with span("driver.readAhead", limit):
                    self._ahead_got.extend(self.access.scan(from_start=False, limit=limit))
            except BaseException as e:  # raised again by settle, in the caller's thread
                self._ahead_error = e

        self._ahead = threading.Thread(target=run, name="syncpoint-read-ahead", daemon=True)
        self._ahead.start()

    def settle(self) -> None:
        """Wait for the read-ahead and add what it read to the index (before the connection is used again)."""
        if self._ahead is None:
            return
        self._ahead.join()
        self._ahead = None
        for v in self._ahead_got:
            self.index[v.token] = v
        if self._ahead_error is None:
            self.at_end = len(self._ahead_got) < self._ahead_limit
        self._ahead_got = []
        if self._ahead_error is not None:
            e, self._ahead_error = self._ahead_error, None
            raise e

    def reserve(self, n: int, batch: Sequence[Visible]) -> None:
        """Reserve batch n's messages. One the queue manager did not reserve (gone, taken meanwhile) stays in the
        batch: the sink skips a message that is gone."""
        self.settle()
        tokens = [v.token for v in batch]
        if tokens:
            self.access.reserve(tokens)
        self.reserved[n] = tokens

    def release_through(self, n: int) -> None:
        """Release batches up to n (their sink committed), except tokens a later batch reserved again (a
        backed-out message retried). Nothing to release waits for nothing: Spark calls commit(end) inside its
        walCommit, after latestOffset released the same batches, while the read-ahead runs."""
        done = [k for k in self.reserved if k <= n]
        if not done:
            return
        self.settle()
        later = {t for k, ts in self.reserved.items() if k > n for t in ts}
        tokens = [t for k in done for t in self.reserved.pop(k) if t not in later]
        if tokens:
            self.access.release(tokens)

    def full_scan(self) -> None:
        self.settle()
        self.index = {v.token: v for v in self.access.scan(from_start=True)}
        self.scanned = True

    def update(self, need: int) -> None:
        """Bring the index up to date for the next batch of at most ``need`` messages. Runs on the serial path
        (Spark's latestOffset, between two batches), so it browses only what this batch still lacks: the
        read-ahead of the batch before has usually indexed it (docs/flows.md, Performance, change 16)."""
        self.settle()
        self.serial_browsed = 0
        if not self.scanned:
            # the first batch reads from the start, not the whole queue (a deep queue took seconds), when the
            # queue delivers in put order: what it read is then every message up to the newest read
            self.scanned = True
            newest = 0
            t0 = time.time()
            limit = max(1, need)
            n = 0
            for v in self.access.scan(from_start=True, limit=limit):  # the next batch's: read_ahead
                self.index[v.token] = v
                n += 1
                if v.token < newest:  # delivery by priority: index the whole queue, as before
                    self.full_scan()
                    return
                newest = v.token
            self.at_end = n < limit
            self.serial_browsed = n
            record("driver.browse", t0, n)
        elif self.last is not None and not self.refreshed:  # once per batch: Spark plans after the commit
            self.refreshed = True
            last = [v.token for v in self.last[1]]
            with span("driver.refresh", len(last)):
                if not self._refresh_from_head(self.last[1]):
                    for t, seen in zip(last, self.access.lookup_many(last, with_data=False), strict=True):
                        if seen is None:
                            self.index.pop(t, None)
                        else:
                            self.index[t] = visible_of(seen[0], t)
        # browse only what the index lacks: messages indexed but not yet planned count as read, except those of
        # a group the planner holds back (its last message not on the queue yet: the batch takes what follows
        # it); up to two batches, what the index held before the read-ahead covered the next batch
        unplanned, held = self._unplanned()
        while unplanned - held < need and unplanned < 2 * need:
            unplanned += self._browse_on(min(need - unplanned + held, 2 * need - unplanned))
            if self.at_end:
                break
            unplanned, held = self._unplanned()

    def _browse_on(self, limit: int) -> int:
        """Browse up to ``limit`` more messages from the index's cursor, on the serial path."""
        t0 = time.time()
        n = 0
        for v in self.access.scan(from_start=False, limit=limit):
            self.index[v.token] = v
            n += 1
        self.at_end = n < limit
        self.serial_browsed += n
        record("driver.browse", t0, n)
        return n

    def _unplanned(self) -> tuple[int, int]:
        """The indexed messages not planned yet (with their BackoutCount), and of them those the planner holds
        back: the messages of a group whose last message is not indexed, none of them backed out (``units``)."""
        p = self.planner
        unplanned = [v for t, v in self.index.items() if p.planned.get(t) != v.backout]
        return len(unplanned), held_back([v for v in unplanned if p.wanted(v)], logical_order=p.logical_order)

    def _key(self, v: Visible) -> int:
        """The message's place in the queue's browse order: its put sequence (MsgToken), after its priority
        unless the queue is MSGDLVSQ(FIFO) (the queue manager's own order, engine/_state.py)."""
        return v.token if self.fifo else ((9 - v.priority) << 52) | v.token

    def _refresh_from_head(self, last: Sequence[Visible]) -> bool:
        """What the last batch left, from a browse of the queue's start up to the batch's last message in browse
        order: the messages still there come first (the rest of the batch was committed), so this is one request
        when the batch left nothing, where a lookup per token was a browse per message. Every indexed message
        before that place that the browse does not meet is gone (or another connection's now: a full scan finds
        it again). False (nothing changed) when the browse is not in the order expected (MSGDLVSQ altered)."""
        if self.head is None or not last:
            return False
        key = self._key
        top = max(key(v) for v in last)
        seen: dict[int, Visible] = {}
        prev = -1
        for v in self.head.scan(from_start=True):
            k = key(v)
            if k < prev:  # not the order expected: look the batch's tokens up from now on
                self.head = None
                return False
            if k > top:
                break
            prev = k
            seen[v.token] = v
        for t in [t for t, v in self.index.items() if key(v) <= top and t not in seen]:
            del self.index[t]
        self.index.update(seen)
        return True

    def visible(self) -> list[Visible]:
        return [self.index[t] for t in sorted(self.index)]


_driver_state: dict[int, _DriverState] = {}
