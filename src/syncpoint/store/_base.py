"""The storage interface: durable state behind a narrow, engine-agnostic contract.

Theory of operation
-------------------
The store never interprets what it keeps. It holds:

* **messages** — persistent messages only, each an opaque :class:`StoredMessage` keyed by a queue-manager-wide
  sequence number ``seq`` (unique, increasing in put order; the engine orders a queue by it);
* **in-flight markers** — the ``seq`` of every persistent message currently got inside an uncommitted unit of
  work. At :meth:`Store.open` (a restart) every marked message has its ``backout_count`` incremented and the
  markers are cleared: the units of work in flight at the crash are thereby backed out with the counts IBM MQ
  hardens (HARDENBO);
* **objects** — definitions (queues, processes, the queue manager's attributes) as opaque bytes under
  ``(kind, name)``;
* **counters** — named integers (the next message sequence, the next dynamic-queue suffix …).

All changes arrive as :class:`Batch` objects through :meth:`Store.write`. A batch is applied atomically. When
``batch.durable`` is true the call returns only after the batch is on stable storage (fsync); otherwise it returns
once the batch is written so that it survives the death of the process (not necessarily of the machine). Batches
are applied in the order ``write`` is called; a durable batch makes every earlier batch durable too. Writes from
many threads are grouped: one transaction and one sync serve every batch waiting at that moment (group commit).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

from syncpoint.mqi import SyncpointError


class StoreError(SyncpointError):
    """The store cannot be used: unreadable, corrupt, foreign, locked by another process, or an I/O error.

    ``str()`` is a sentence saying what is wrong and what to do.
    """


class StoreDamagedError(StoreError):
    """A file of the store is damaged in a way a crash cannot explain, so starting would lose committed data
    without a word: a bad journal record followed by valid ones that were synced, a journal missing (or with
    another header) where the store records one, a database older than its journal or missing the part of its
    write-ahead log that SQLite's shared-memory index says it has. Nothing was changed. ``path`` is the damaged
    file; ``str()`` (an ``AMQ7017E`` message, IBM's "log not available") says what to do: salvage the store
    (:func:`syncpoint.store.salvage`, ``syncpoint salvmqm``) or restore it from a backup.
    """

    def __init__(self, message: str, path: str) -> None:
        super().__init__(message)
        self.path = path


@dataclass(slots=True)
class StoredMessage:
    seq: int  # queue-manager-wide sequence number; the key
    queue: str  # local queue name (unpadded)
    priority: int
    md: bytes  # packed MQMD version 2 (364 bytes) as the message was put
    data: bytes
    backout_count: int = 0
    put_time: float = 0.0  # wall-clock seconds (time.time()) of the put; expiry counts from it


@dataclass(slots=True)
class Batch:
    """One atomic group of changes."""

    put_messages: list[StoredMessage] = field(default_factory=list)
    delete_messages: list[int] = field(default_factory=list)  # seqs; also clears their in-flight markers
    backout_updates: list[tuple[int, int]] = field(default_factory=list)  # (seq, new backout_count)
    inflight_add: list[int] = field(default_factory=list)  # seqs got in a unit of work
    inflight_remove: list[int] = field(default_factory=list)  # seqs whose unit of work ended
    put_objects: list[tuple[str, str, bytes]] = field(default_factory=list)  # (kind, name, definition)
    delete_objects: list[tuple[str, str]] = field(default_factory=list)  # (kind, name)
    delete_queue_messages: list[str] = field(default_factory=list)  # queue names: drop all their messages
    counters: dict[str, int] = field(default_factory=dict)  # name -> new value
    durable: bool = True

    def is_empty(self) -> bool:
        return not (
            self.put_messages
            or self.delete_messages
            or self.backout_updates
            or self.inflight_add
            or self.inflight_remove
            or self.put_objects
            or self.delete_objects
            or self.delete_queue_messages
            or self.counters
        )


@dataclass(slots=True)
class Snapshot:
    """What a store holds, as read at :meth:`Store.open` after recovery."""

    objects: dict[str, dict[str, bytes]]  # kind -> name -> definition
    messages: list[StoredMessage]  # every persistent message, in seq order
    counters: dict[str, int]
    recovered_inflight: int = 0  # how many in-flight gets were backed out at this open


class Pending(Protocol):
    """A submitted batch: ``wait()`` returns once it is applied (and synced if durable), or raises StoreError.

    ``done`` is true once ``wait()`` would not block (it then returns or raises at once): e.g. a batch that only
    records in-flight gets, which the SQLite store writes at submission. A caller holding a lock may skip
    releasing it around ``wait()`` when ``done`` is already true.
    """

    @property
    def done(self) -> bool: ...

    def wait(self) -> None: ...


class Store(Protocol):
    """A store of queue-manager state. Implementations: ``SQLiteStore`` (durable), ``MemoryStore``."""

    def open(self) -> Snapshot:
        """Recover (back out in-flight gets, see module doc) and return the state. Raises StoreError."""
        ...

    def submit(self, batch: Batch) -> Pending:
        """Queue ``batch`` for writing and return at once. Batches are applied in submission order (the engine
        submits while it holds its lock, so the store sees changes in the engine's order) and grouped with
        every other batch waiting (group commit). Thread-safe."""
        ...

    def write(self, batch: Batch) -> None:
        """``submit(batch).wait()``: apply ``batch`` atomically; see the module doc for durability."""
        ...

    def close(self) -> None:
        """Finish pending writes and release the store. Idempotent."""
        ...
