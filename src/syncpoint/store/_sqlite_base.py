"""The SQLite store's vocabulary: schema, statements, batch merging and the state its parts share.

Part of :class:`~syncpoint.store.SQLiteStore` (theory of operation: ``_sqlite.py``); the parts are layered
``_sqlite_base`` (this) < ``_sqlite_marks`` (the in-flight marker file) < ``_sqlite_files`` (the file, its lock,
schema and recovery) < ``_sqlite_commit`` (the group commit and the journal) < ``_sqlite``.
"""

from __future__ import annotations

import _thread
import contextlib
import operator
import os
import sqlite3
import threading
import weakref
from collections.abc import Callable, Iterator
from itertools import chain
from typing import Any

from ._base import Batch, StoredMessage, StoreError
from ._journal import Journal, JournalState

_allocate_lock = _thread.allocate_lock

APPLICATION_ID = int.from_bytes(b"SyPt", "big")  # PRAGMA application_id of every syncpoint store
SCHEMA_VERSION = 1  # PRAGMA user_version

APPLY_ORDER = (
    "put_objects",
    "delete_objects",
    "put_messages",
    "delete_queue_messages",
    "backout_updates",
    "delete_messages",
    "inflight_add",
    "inflight_remove",
    "counters",
)

_SQLITE_MAGIC = b"SQLite format 3\x00"
_INT64_MIN = -(2**63)
_INT64_MAX = 2**63 - 1

_SCHEMA = (
    """CREATE TABLE messages(
        seq INTEGER PRIMARY KEY,
        queue TEXT NOT NULL,
        priority INT NOT NULL,
        md BLOB NOT NULL,
        data BLOB NOT NULL,
        backout INT NOT NULL DEFAULT 0,
        put_time REAL NOT NULL DEFAULT 0
    )""",
    # Deleting a queue's messages (DELETE QLOCAL, CLEAR QLOCAL, dynamic queues) must not scan every message.
    "CREATE INDEX messages_by_queue ON messages(queue)",
    "CREATE TABLE inflight(seq INTEGER PRIMARY KEY)",
    "CREATE TABLE objects(kind TEXT NOT NULL, name TEXT NOT NULL, def BLOB NOT NULL, PRIMARY KEY(kind,name))",
    "CREATE TABLE counters(name TEXT PRIMARY KEY, value INT NOT NULL)",
)
_TABLES = frozenset({"messages", "inflight", "objects", "counters"})

_SQL_PUT_OBJECT = "INSERT OR REPLACE INTO objects(kind, name, def) VALUES (?, ?, ?)"
_SQL_DELETE_OBJECT = "DELETE FROM objects WHERE kind = ? AND name = ?"
_SQL_PUT_MESSAGE = (
    "INSERT INTO messages(seq, queue, priority, md, data, backout, put_time) VALUES (?, ?, ?, ?, ?, ?, ?)"
)
_SQL_QUEUE_SEQS = "SELECT seq FROM messages WHERE queue = ?"
_SQL_DELETE_QUEUE_MESSAGES = "DELETE FROM messages WHERE queue = ?"
_SQL_BACKOUT = "UPDATE messages SET backout = ?2 WHERE seq = ?1"
_SQL_BACKOUT_AT_LEAST = "UPDATE messages SET backout = max(backout, ?2) WHERE seq = ?1"
_SQL_DELETE_MESSAGE = "DELETE FROM messages WHERE seq = ?"
_SQL_INFLIGHT_ADD = "INSERT OR IGNORE INTO inflight(seq) VALUES (?)"
_SQL_INFLIGHT_REMOVE = "DELETE FROM inflight WHERE seq = ?"
_SQL_COUNTER = "INSERT OR REPLACE INTO counters(name, value) VALUES (?, ?)"
_SQL_READ_MESSAGES = "SELECT seq, queue, priority, md, data, backout, put_time FROM messages ORDER BY seq"

_message_row: Callable[[StoredMessage], tuple[Any, ...]] = operator.attrgetter(
    "seq", "queue", "priority", "md", "data", "backout_count", "put_time"
)


class _Pending:
    """One submitted batch (the store's :class:`~syncpoint.store.Pending`).

    ``done``, ``lead`` and ``waiting`` change only under the store's condition lock; ``wakeup`` (a lock held
    while its thread sleeps on it, released once by the thread that wakes it) is created by
    the first thread that has to sleep for it.
    """

    __slots__ = ("batch", "done", "error", "gen_before", "lead", "queue_seqs", "store", "undo", "waiting", "wakeup")

    def __init__(self, store: StoreState | None, batch: Batch) -> None:
        self.store = store
        self.batch = batch
        self.done = False
        self.error: StoreError | None = None
        self.lead = False  # leadership was handed to this batch's waiter
        self.waiting = False  # a thread sleeps on wakeup
        self.wakeup: _thread.LockType | None = None
        # Live-marker bookkeeping (see _mark): the markers this batch set (seq, generation), to be taken back if
        # it fails; the marker generation before it; the seqs its delete_queue_messages removed.
        self.undo: list[tuple[int, int]] | None = None
        self.gen_before = 0
        self.queue_seqs: list[int] | None = None

    def wait(self) -> None:
        """Return once the batch is committed (and synced if durable); raise StoreError if it was not."""
        if not self.done and self.store is not None:
            self.store._await(self)
        if self.error is not None:
            raise self.error


_DONE = _Pending(None, Batch(durable=False))
_DONE.done = True


class StoreState:
    """The state of one SQLiteStore, shared by its parts (the constructor's arguments: see SQLiteStore)."""

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        create: bool = False,
        quick_check: bool = True,
        wal_autocheckpoint: int = 4096,
        busy_timeout: float = 10.0,
        flush_interval: float = 0.02,
        journal: bool = True,
        journal_limit: int = 8 << 20,
    ) -> None:
        self._path = os.fspath(path)
        self._create = create
        self._quick_check = quick_check
        self._wal_autocheckpoint = wal_autocheckpoint
        self._busy_timeout = busy_timeout
        self._flush_interval = flush_interval
        self._use_journal = journal
        self._journal_limit = journal_limit
        self._cond = threading.Condition(threading.Lock())
        self._state = "new"  # new -> opening -> open -> closing -> closed (-> opening again)
        self._queue: list[_Pending] = []  # submitted, not yet taken by a leader
        self._leader = False  # a thread is committing (or leadership is being handed to a waiter)
        self._failed: StoreError | None = None
        self._flusher: threading.Thread | None = None
        self._connection: sqlite3.Connection | None = None
        self._lock_fd: int | None = None
        self._lock_release: weakref.finalize[[int], Any] | None = None
        self._stats = {
            "transactions": 0,
            "syncs": 0,
            "batches": 0,
            "failed_batches": 0,
            "markers": 0,
            "checkpoints": 0,
        }
        # The marker file (see the module doc). Changed under self._cond only.
        self._marks_path = self._path + ".inflight"
        self._marks_fd: int | None = None
        self._marks_missing = False  # the marker file was missing when last read (see Markers._read_marks)
        self._marks_size = 0  # bytes in the file, header included
        self._marks_written = 0  # records written since open
        # Leader state: seqs whose marker is also a row of the inflight table (see _commit_group).
        self._hardened: set[int] = set()
        self._live: dict[int, list[int]] = {}  # seq -> generations of the markers that hold it in flight
        self._mark_gen = 0
        # Leader state: used only by the thread that holds the leadership.
        self._synchronous = ""
        self._unsynced = False  # a NORMAL commit happened since the last sync
        # The journal (see _journal.py): leader state, like the connection.
        self._journal: Journal | None = None
        self._jstate = JournalState()
        self._junsynced = False  # a record was appended without a sync since the last sync
        self._max_seq = 0  # no message with a higher seq was ever stored: a put above it cannot be a duplicate

    def _await(self, pending: _Pending) -> None:
        raise NotImplementedError

    def _lead(self) -> None:
        raise NotImplementedError

    def _set_synchronous(self, connection: sqlite3.Connection, level: str) -> None:
        if self._synchronous != level:
            connection.execute(f"PRAGMA synchronous = {level}")
            self._synchronous = level


_CHUNK = 128  # rows per statement at most: 7 * 128 parameters, under SQLite's oldest limit of 999
_INSERT_SQL = {size: _SQL_PUT_MESSAGE + ", (?, ?, ?, ?, ?, ?, ?)" * (size - 1) for size in (1 << i for i in range(8))}
_DELETE_SQL = {
    size: "DELETE FROM messages WHERE seq IN (" + ", ".join("?" * size) + ")" for size in (1 << i for i in range(8))
}
_flatten = chain.from_iterable


def _chunks(count: int) -> Iterator[tuple[int, int]]:
    """(start, size) pieces of ``count`` rows, each size a power of two up to _CHUNK."""
    start = 0
    while start < count:
        size = min(_CHUNK, 1 << ((count - start).bit_length() - 1))
        yield start, size
        start += size


def _insert_messages(connection: sqlite3.Connection, messages: list[StoredMessage]) -> None:
    for start, size in _chunks(len(messages)):
        connection.execute(_INSERT_SQL[size], list(_flatten(map(_message_row, messages[start : start + size]))))


def _delete_messages(connection: sqlite3.Connection, seqs: list[int]) -> None:
    for start, size in _chunks(len(seqs)):
        connection.execute(_DELETE_SQL[size], seqs[start : start + size])


_Merged = tuple[list[StoredMessage], list[tuple[int, int]], list[int], list[tuple[str, int]]]


def _merge(group: list[_Pending]) -> _Merged | None:
    """The group's changes per table, or None when merging could change the outcome.

    Applying all puts, then all backout updates, then all deletes, then all counters gives what applying the
    batches one after another gives, unless a batch stores a seq that an earlier batch of the group updated or
    deleted (then the earlier change would be applied to the new message), or a batch has object or queue-wide
    changes (kept simple: such groups are applied batch by batch). A seq stored twice fails either way, and
    the group is then retried batch by batch (see _commit_group).
    """
    puts: list[StoredMessage] = []
    updates: list[tuple[int, int]] = []
    deletes: list[int] = []
    counters: list[tuple[str, int]] = []  # every value, in order (a dict would hide one that does not fit)
    touched: set[int] = set()
    for waiter in group:
        batch = waiter.batch
        if batch.put_objects or batch.delete_objects or batch.delete_queue_messages:
            return None
        if batch.put_messages:
            if touched and not touched.isdisjoint([message.seq for message in batch.put_messages]):
                return None
            puts += batch.put_messages
        if batch.backout_updates:
            updates += batch.backout_updates
            touched.update([seq for seq, _count in batch.backout_updates])
        if batch.delete_messages:
            deletes += batch.delete_messages
            touched.update(batch.delete_messages)
        if batch.counters:
            counters += batch.counters.items()
    return puts, updates, deletes, counters


def _apply_merged(
    connection: sqlite3.Connection,
    puts: list[StoredMessage],
    updates: list[tuple[int, int]],
    deletes: list[int],
    counters: list[tuple[str, int]],
) -> None:
    if puts:
        _insert_messages(connection, puts)
    if updates:
        connection.executemany(_SQL_BACKOUT, updates)
    if deletes:
        _delete_messages(connection, deletes)
    if counters:
        connection.executemany(_SQL_COUNTER, counters)


@contextlib.contextmanager
def _transaction(connection: sqlite3.Connection) -> Iterator[None]:
    """BEGIN IMMEDIATE … COMMIT, rolled back if anything inside (or the commit) fails."""
    connection.execute("BEGIN IMMEDIATE")
    try:
        yield
        connection.execute("COMMIT")
    except BaseException:
        if connection.in_transaction:
            connection.execute("ROLLBACK")
        raise


def _is_fault_of_batch(exc: Exception) -> bool:
    """Whether ``exc`` comes from the batch's contents (a duplicate seq, a value SQLite cannot hold, a wrong
    type), rather than from the store (I/O error, full disk)."""
    if isinstance(exc, sqlite3.IntegrityError | sqlite3.InterfaceError | sqlite3.ProgrammingError):
        return True
    if isinstance(exc, sqlite3.DataError):  # string or blob too big
        return True
    return not isinstance(exc, sqlite3.Error | MemoryError)


def _is_corruption(exc: sqlite3.DatabaseError) -> bool:
    code = getattr(exc, "sqlite_errorcode", None)
    return code in (sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB) or "malformed" in str(exc)


def _fsync_file(path: str) -> None:
    try:
        fd = os.open(path, os.O_RDONLY)
    except FileNotFoundError:
        return
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _fsync_directory(path: str) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
