"""MemoryStore: the store contract kept in process memory.

Theory of operation
-------------------
Nothing survives the process, but everything survives a *simulated* restart: calling :meth:`MemoryStore.open`
again on the same object performs the same recovery as a real restart (in-flight gets are backed out with
their backout counts incremented) and returns the state. That makes it the store of choice for engine unit
tests.

A batch is applied under one lock with an undo log: every change records what it replaced, and if any change
fails (a duplicate ``seq``, a value SQLite could not hold …) the log is replayed backwards so that none of the
batch remains, and the caller gets :class:`StoreError`. The store keeps its own copies of the messages it is
given and hands out fresh copies in snapshots, so a caller mutating a :class:`StoredMessage` after writing it
cannot change what is "on disk" — exactly as with a real store.

The changes of one batch are applied in the same order as :class:`~syncpoint.store.SQLiteStore` applies them
(see ``APPLY_ORDER`` in ``syncpoint.store._sqlite_base``)::

    put_objects, delete_objects, put_messages, delete_queue_messages, backout_updates, delete_messages,
    inflight_add, inflight_remove, counters
"""

from __future__ import annotations

import threading
from typing import Any

from ._base import Batch, Snapshot, StoredMessage, StoreError

_INT64_MIN = -(2**63)
_INT64_MAX = 2**63 - 1
_MISSING: Any = object()


def _check_int64(value: int, what: str) -> None:
    if not _INT64_MIN <= value <= _INT64_MAX:
        raise OverflowError(f"{what} {value} does not fit in a signed 64-bit integer")


def _copy(message: StoredMessage, backout_count: int | None = None) -> StoredMessage:
    return StoredMessage(
        message.seq,
        message.queue,
        message.priority,
        bytes(message.md),
        bytes(message.data),
        message.backout_count if backout_count is None else backout_count,
        message.put_time,
    )


class _UndoLog:
    """Records every change to a dict so that a failed batch can be taken back completely."""

    __slots__ = ("entries",)

    def __init__(self) -> None:
        self.entries: list[tuple[dict[Any, Any], Any, Any]] = []

    def set(self, target: dict[Any, Any], key: Any, value: Any) -> None:
        self.entries.append((target, key, target.get(key, _MISSING)))
        target[key] = value

    def delete(self, target: dict[Any, Any], key: Any) -> None:
        old = target.pop(key, _MISSING)
        if old is not _MISSING:
            self.entries.append((target, key, old))

    def rollback(self) -> None:
        for target, key, old in reversed(self.entries):
            if old is _MISSING:
                target.pop(key, None)
            else:
                target[key] = old
        self.entries.clear()


class _Done:
    """The outcome of a batch the memory store has already applied (or refused)."""

    __slots__ = ("error",)

    done = True  # applied (or refused) at submission

    def __init__(self, error: StoreError | None = None) -> None:
        self.error = error

    def wait(self) -> None:
        if self.error is not None:
            raise self.error


_DONE = _Done()


class MemoryStore:
    """An in-memory :class:`~syncpoint.store.Store`; ``open()`` again simulates a restart."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._open = False
        self._messages: dict[int, StoredMessage] = {}
        self._inflight: dict[int, None] = {}  # an ordered set
        self._objects: dict[tuple[str, str], bytes] = {}
        self._counters: dict[str, int] = {}
        self._batches = 0
        self._failed_batches = 0

    # -- the Store protocol ---------------------------------------------------------------------------------

    def open(self) -> Snapshot:
        """Recover (back out in-flight gets) and return a copy of the state. Again: a simulated restart."""
        with self._lock:
            recovered = 0
            for seq in self._inflight:
                message = self._messages.get(seq)
                if message is not None:
                    self._messages[seq] = _copy(message, message.backout_count + 1)
                    recovered += 1
            self._inflight.clear()
            self._open = True
            objects: dict[str, dict[str, bytes]] = {}
            for (kind, name), definition in self._objects.items():
                objects.setdefault(kind, {})[name] = definition
            return Snapshot(
                objects=objects,
                messages=[_copy(self._messages[seq]) for seq in sorted(self._messages)],
                counters=dict(self._counters),
                recovered_inflight=recovered,
            )

    def submit(self, batch: Batch) -> _Done:
        """Apply ``batch`` at once, atomically; its outcome is raised by ``wait()`` on the result.

        Raises StoreError at once if the store is not open.
        """
        with self._lock:
            if not self._open:
                raise StoreError("The memory store is not open; call open() before writing to it.")
            undo = _UndoLog()
            try:
                self._apply(batch, undo)
            except Exception as exc:
                undo.rollback()
                error = StoreError(
                    f"The batch was not applied, and nothing of it was kept: {exc}. "
                    "Correct the batch (each message seq may be stored once) and write it again."
                )
                error.__cause__ = exc
                self._failed_batches += 1
                return _Done(error)
            self._batches += 1
        return _DONE

    def write(self, batch: Batch) -> None:
        """``submit(batch).wait()``: apply ``batch`` atomically (all of it, or none of it and StoreError)."""
        self.submit(batch).wait()

    def close(self) -> None:
        """Release the store (its contents stay, for a later ``open()``). Idempotent."""
        with self._lock:
            self._open = False

    # -- extras ---------------------------------------------------------------------------------------------

    def stats(self) -> dict[str, int]:
        """Counts for benchmarks, shaped like ``SQLiteStore.stats()`` (memory needs no syncs)."""
        with self._lock:
            return {
                "transactions": self._batches,
                "syncs": 0,
                "batches": self._batches,
                "failed_batches": self._failed_batches,
            }

    # -- applying a batch -----------------------------------------------------------------------------------

    def _apply(self, batch: Batch, undo: _UndoLog) -> None:
        messages = self._messages
        inflight = self._inflight
        for kind, name, definition in batch.put_objects:
            undo.set(self._objects, (kind, name), bytes(definition))
        for kind, name in batch.delete_objects:
            undo.delete(self._objects, (kind, name))
        for message in batch.put_messages:
            _check_int64(message.seq, "message seq")
            _check_int64(message.backout_count, "backout count")
            if message.seq in messages:
                raise KeyError(f"a message with seq {message.seq} is already stored")
            undo.set(messages, message.seq, _copy(message))
        if batch.delete_queue_messages:
            doomed = set(batch.delete_queue_messages)
            for seq in [seq for seq, message in messages.items() if message.queue in doomed]:
                undo.delete(messages, seq)
                undo.delete(inflight, seq)
        for seq, backout_count in batch.backout_updates:
            _check_int64(backout_count, "backout count")
            current = messages.get(seq)
            if current is not None:
                undo.set(messages, seq, _copy(current, backout_count))
        for seq in batch.delete_messages:
            undo.delete(messages, seq)
            undo.delete(inflight, seq)
        for seq in batch.inflight_add:
            _check_int64(seq, "in-flight seq")
            if seq not in inflight:
                undo.set(inflight, seq, None)
        for seq in batch.inflight_remove:
            undo.delete(inflight, seq)
        for name, value in batch.counters.items():
            _check_int64(value, f"counter {name!r}")
            undo.set(self._counters, name, value)
