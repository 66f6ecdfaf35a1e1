"""SQLiteStore: the durable store, one SQLite database in WAL mode owned by one process.

Theory of operation
-------------------
*Ownership.* ``open()`` takes an exclusive, non-blocking ``flock`` on a sidecar file ``<path>.lock`` and
writes its pid there; a second process (or a second store object in this process) is refused with
:class:`StoreError` naming that pid. The lock is released by ``close()`` or by the death of the process, so a
crashed queue manager never leaves a stale lock behind. The lock file itself stays (removing it would race
with the next owner).

*Recognising the file.* Before anything touches an existing file, its 100-byte header is read with a plain
``open()``: it must be an SQLite database whose ``application_id`` is :data:`APPLICATION_ID`. Anything else is
refused without being opened by SQLite, so a foreign file is never changed (not even by creating
``-wal``/``-shm`` files beside it). A new store is created in rollback-journal mode with its
``application_id``, ``user_version`` and schema in one durable transaction, and only then switched to WAL, so
the header always identifies it. Opening an existing store then checks ``user_version``
(:data:`SCHEMA_VERSION`), the tables, and ``PRAGMA quick_check``.

*Group commit, led by the callers.* ``submit()`` only appends the batch to a queue (the engine calls it while
holding its own lock) and returns a pending result. ``wait()`` on it makes the calling thread the *leader* if
nobody is committing: the leader takes every batch queued at that moment (a group), applies them in
submission order in one transaction and commits once — with ``synchronous=FULL`` (the WAL is fsynced at
commit) if any batch of the group is durable, otherwise with ``synchronous=NORMAL`` (the WAL frames reach the
OS, which keeps them if the process dies). In WAL mode frames are appended in commit order, so a FULL commit
makes every earlier commit durable as well. Threads that wait while a leader commits sleep; when it finishes,
it wakes the members of its group and hands the leadership to a thread waiting for a batch queued meanwhile,
whose next group then holds everything that piled up during the sync: one sync serves them all. A group whose
batches only store, update and delete messages (and set counters) is applied with one statement per table
(multi-row ``INSERT`` and ``DELETE … IN``): every statement is a call into SQLite that gives the GIL up and must
take it back from the threads doing their own work, on the critical path of the whole group. A lone writer
thus commits on its own thread, with no thread switch (a switch costs 25 to 100 µs on the project's VMs, more
than a commit with ``synchronous=NORMAL``); the one connection is used by one leader at a time. A background
thread commits batches that were submitted but never waited for, within two ``flush_interval`` periods.

*The journal.* Most groups never reach SQLite when they are committed: a group that only stores, updates and
deletes messages and sets counters is appended to the journal ``<path>.journal`` as one record and synced with
one ``fdatasync`` (see :mod:`syncpoint.store._journal`); SQLite receives the net changes at checkpoints, so a
message got soon after its put is never written to the database at all. Groups with object changes or
queue-wide deletes, and batches SQLite must judge (a seq that may be stored already, a value out of range), go
through SQLite as described here, after a checkpoint. ``journal=False`` turns the journal off.

*Failures.* A group is first applied optimistically, without savepoints. If a batch fails (a duplicate
``seq``, an out-of-range integer …) the transaction is rolled back and the group applied again with one
savepoint per batch: the failing batches are rolled back to their savepoints and their callers get
:class:`StoreError`; the others are committed. If the commit itself fails (an I/O error, a full disk), nothing
of the group is committed, every caller gets :class:`StoreError` and the store refuses further writes: after a
failed sync the file's state is uncertain, and only a restart (which recovers from the database) is safe.

*Order inside one batch* is :data:`APPLY_ORDER`. Deleting, updating or un-marking a ``seq`` that is not stored
is not an error; storing a ``seq`` that is already stored is.

*In-flight markers live in a marker file, not in SQLite, while the store is open.* A persistent MQGET in
syncpoint (``inflight_add``) must survive the death of the process before MQGET returns, so that a crash backs
the get out with BackoutCount + 1 — but it needs no transaction. ``submit()`` appends one 20-byte record per
marker to ``<path>.inflight`` with one ``write(2)`` (the kernel keeps it if the process dies) and, when the batch
has nothing else for SQLite, returns a pending result that is already done: the get waits for nobody. Records
are ``(seq, -1)`` "in flight" and ``(seq, c)`` "ended by a backout that set the count to c" (written for a
``backout_updates`` entry of a seq the same batch un-marks), each with a CRC-32; the file starts with
:data:`MARKER_MAGIC`. A commit ends a marker by deleting the message, so it needs no record. The store keeps
the live markers in memory (in submission order, with the batch order of :data:`APPLY_ORDER`, taking back
those of failed batches) and empties a file over 64 KiB (``ftruncate``; not at every commit, which would cost a
metadata change per message) after a group when no marker is live, no batch is queued and the last commit was
synced: the records of gets that ended are harmless at recovery (a committed get's message is gone, a backed-out
get ends with its count record); a file over 1 MiB with live markers is rewritten with only those
(write, fsync, rename). The records are not synced: a durable batch must make every earlier batch durable,
so a durable group also copies the live markers it has not copied yet into the ``inflight`` table, in its own
transaction (synced with it, no extra sync), and every group deletes the rows of markers that have ended, in
the transaction that ends them. A get in flight thus survives a machine crash once anything later is
committed durably, as the marker file alone would not.

*Recovery* at ``open()``. First the marker file: a record cut short or garbled at its end (a crash during an
append) is ignored; a file that does not start with :data:`MARKER_MAGIC`, or a garbled record followed by valid
ones, is refused with :class:`StoreError` and nothing is changed. For each seq the records give its last state
and the highest ended count ``c``; in one durable transaction every message with an ended count gets
``backout = max(backout, c)``, a seq whose last record is "ended" leaves the ``inflight`` table and every seq
still in flight goes into it; only then is the
file emptied (both steps can be repeated after a crash between them). Then, in one durable transaction, every
message whose ``seq`` is in ``inflight`` gets ``backout = backout + 1`` and ``inflight`` is emptied; objects,
counters and all messages (in ``seq`` order) are read into the :class:`Snapshot`. ``close()`` moves the live
markers into ``inflight`` the same way, so a clean restart backs out exactly the gets still in flight. After a
crash the count is never lower than the application saw at its get plus one: a backout that SQLite had not
committed yet is known from its record; a marker whose end was not recorded (an ``inflight_remove`` without a
backout count, which the engine never writes) is counted once more.
"""

from __future__ import annotations

import _thread
import contextlib
import fcntl
import gc
import operator
import os
import sqlite3
import struct
import threading
import weakref
import zlib
from collections.abc import Callable, Iterator
from itertools import chain, starmap
from pathlib import Path
from typing import Any

from ._base import Batch, Snapshot, StoredMessage, StoreError
from ._journal import EPOCH_COUNTER, Entry, Journal, JournalState, decode, encode

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

MARKER_MAGIC = b"syncpoint-marks\x01"  # the 16-byte header of a marker file (the last byte is its version)
_MARK = struct.Struct("<qqI")  # seq, value, crc32 of the first 16 bytes: one 20-byte marker record
_IN_FLIGHT = -1  # the value of an "in flight" record; any other value v >= 0 is "ended, backout count v"
_MARKS_TRUNCATE = 1 << 16  # empty a marker file bigger than this (bytes) once no marker is live
_MARKS_REWRITE = 1 << 20  # rewrite a marker file bigger than this (bytes) when it is not empty of live markers
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

    def __init__(self, store: SQLiteStore | None, batch: Batch) -> None:
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


class SQLiteStore:
    """The durable :class:`~syncpoint.store.Store`: an SQLite database in WAL mode, with group commit.

    ``path`` is the database file; ``create=True`` creates it (and only it: the directory must exist) when it
    is missing. ``quick_check=False`` skips ``PRAGMA quick_check`` at open (it reads the whole file).
    ``wal_autocheckpoint`` is in pages of 4 KiB; ``busy_timeout`` in seconds. ``flush_interval`` (seconds)
    bounds how long a batch that nobody waits for stays queued (see the module doc).
    """

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
        self._lock_release: weakref.finalize[[int], SQLiteStore] | None = None
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

    @property
    def path(self) -> str:
        return self._path

    def __repr__(self) -> str:
        return f"SQLiteStore({self._path!r}, state={self._state})"

    # -- the Store protocol ---------------------------------------------------------------------------------

    def open(self) -> Snapshot:
        """Lock, verify, recover (back out in-flight gets) and read the store. Raises StoreError."""
        with self._cond:
            if self._state in ("opening", "open", "closing"):
                raise StoreError(f"The store {self._path} is already open; close it before opening it again.")
            self._state = "opening"
        try:
            self._check_header()
            self._acquire_lock()
            try:
                is_new = self._check_header()  # again, now that no other syncpoint can change it
                marks = self._read_marks()  # refuses a foreign or damaged marker file
                journal = Journal(self._path + ".journal", self._path)
                epoch, records = self._read_journal(journal)  # refuses a foreign or damaged journal
                if is_new:
                    marks = {}  # left behind by a deleted store: they do not belong to this one
                    records = []  # likewise: the journal is removed below
                    journal.discard()
                connection = self._connect(is_new)
                try:
                    epoch = self._replay_journal(connection, epoch, records)
                    snapshot = self._recover(connection, marks)
                    if self._use_journal:
                        journal.start(epoch)
                    connection.execute("PRAGMA mmap_size = 0")  # reads at open only: see _connect
                except BaseException:
                    connection.close()
                    journal.close()
                    self._close_marks()
                    raise
            except BaseException:
                self._release_lock()
                raise
        except BaseException as exc:
            with self._cond:
                self._state = "closed"
            if isinstance(exc, Exception):
                raise self._as_store_error(exc, "opening") from exc.__cause__
            raise
        flusher = threading.Thread(
            target=self._flush_forgotten,
            args=(weakref.ref(self), self._cond, self._flush_interval),
            name=f"syncpoint-store-flusher {self._path}",
            daemon=True,
        )
        with self._cond:
            self._connection = connection
            self._journal = journal if self._use_journal else None
            self._jstate = JournalState()
            self._junsynced = False
            self._max_seq = snapshot.messages[-1].seq if snapshot.messages else 0
            self._failed = None
            self._live = {}
            self._state = "open"
            self._flusher = flusher
        flusher.start()
        return snapshot

    def submit(self, batch: Batch) -> _Pending:
        """Queue ``batch`` and return at once; ``wait()`` on the result commits it (or waits for its commit).

        Batches are applied in submission order. Raises StoreError at once if the store is not open or has
        failed.
        """
        with self._cond:
            if self._state != "open":
                raise StoreError(f"The store {self._path} is not open; open it before writing to it.")
            if self._failed is not None:
                raise self._failed
            undo = None
            gen_before = self._mark_gen
            if batch.inflight_add or batch.inflight_remove:
                try:
                    undo = self._mark(batch)
                except OverflowError as exc:  # a seq that does not fit in 64 bits: the batch is refused whole
                    failed = _Pending(None, batch)
                    failed.done = True
                    failed.error = self._as_store_error(exc, "batch")
                    self._stats["failed_batches"] += 1
                    return failed
            if not batch.durable and not (
                batch.put_messages
                or batch.delete_messages
                or batch.backout_updates
                or batch.put_objects
                or batch.delete_objects
                or batch.delete_queue_messages
                or batch.counters
            ):
                # Nothing for SQLite: the markers (if any) are written, and nobody needs a sync.
                if undo is not None:
                    self._end_marks(batch, gen_before, None)
                    self._stats["batches"] += 1
                return _DONE
            pending = _Pending(self, batch)
            pending.undo = undo
            pending.gen_before = gen_before
            self._queue.append(pending)
        return pending

    def write(self, batch: Batch) -> None:
        """``submit(batch).wait()``: return once the batch is committed (and synced if ``batch.durable``)."""
        self.submit(batch).wait()

    def close(self) -> None:
        """Commit what is queued, close the database and release the lock. Idempotent."""
        with self._cond:
            if self._state != "open":
                return
            self._state = "closing"
            self._cond.notify_all()
            flusher, self._flusher = self._flusher, None
        if flusher is not None:
            flusher.join()
        while True:  # take the leadership once the current leader has finished, and commit the rest
            with self._cond:
                if not self._leader:
                    self._leader = True
                    break
                self._cond.wait(0.005)
        self._lead()  # nothing can be queued after this: submit() refuses while closing
        with self._cond:
            connection, self._connection = self._connection, None
        try:
            if connection is not None and self._failed is None:
                try:
                    self._checkpoint(connection)
                except (OSError, sqlite3.Error):
                    pass  # the journal keeps the records; the next open applies them
                self._hand_marks_to_sqlite(connection)
        finally:
            if connection is not None:
                connection.close()  # checkpoints the WAL
            if self._journal is not None:
                self._journal.close()
                self._journal = None
            self._close_marks()
            self._release_lock()
        with self._cond:
            self._state = "closed"

    # -- extras ---------------------------------------------------------------------------------------------

    def stats(self) -> dict[str, int]:
        """Counts since construction: ``transactions`` committed, ``syncs`` (FULL commits and explicit
        fsyncs), ``batches`` committed, ``failed_batches`` rejected with StoreError."""
        with self._cond:
            return dict(self._stats)

    # -- group commit ---------------------------------------------------------------------------------------

    def _await(self, pending: _Pending) -> None:
        """Wait for ``pending``: commit it (and all queued with it) if nobody is committing, else sleep."""
        cond = self._cond
        while True:
            with cond:
                if pending.done:
                    return
                if pending.lead or not self._leader:
                    pending.lead = False
                    self._leader = True
                    lead = True
                else:
                    lead = False
                    pending.waiting = True
                    wakeup: _thread.LockType | None = pending.wakeup
                    if wakeup is None:  # a plain lock as a one-shot signal: held until the leader releases it
                        wakeup = pending.wakeup = _allocate_lock()
                        wakeup.acquire()
            if lead:
                self._lead()
            elif wakeup is not None:
                wakeup.acquire()  # returns holding it again, ready for another sleep

    def _lead(self) -> None:
        """Commit every queued batch as one group, then hand the leadership on. Call as the leader."""
        cond = self._cond
        with cond:
            group, self._queue = self._queue, []
        try:
            if group:
                connection = self._connection
                if self._failed is not None or connection is None:
                    error = self._failed or StoreError(f"The store {self._path} is closed.")
                    for pending in group:
                        pending.error = error
                else:
                    self._commit_group(connection, group)
        except BaseException as exc:  # a defect here must not leave anybody waiting for ever
            error = self._as_store_error(exc, "writing")
            self._failed = error
            for pending in group:
                pending.error = error
            if not isinstance(exc, Exception):
                raise
        finally:
            with cond:
                if group and self._marks_fd is not None:
                    self._compact_marks()
                for pending in group:
                    pending.done = True
                    if pending.waiting and pending.wakeup is not None:
                        pending.waiting = False
                        pending.wakeup.release()
                # Hand on to a waiter of a batch queued meanwhile, else to whoever waits next. (No notify:
                # close() polls, and waking the flusher at every commit would only cost the GIL.)
                successor = next((pending for pending in self._queue if pending.waiting), None)
                if successor is not None and successor.wakeup is not None:
                    successor.lead = True
                    successor.waiting = False
                    successor.wakeup.release()
                else:
                    self._leader = False

    # -- the marker file -------------------------------------------------------------------------------------

    def _mark(self, batch: Batch) -> list[tuple[int, int]]:
        """Under the lock, at submission: write the batch's marker records and set its live markers.

        The live markers (``self._live``, seq -> generations) mirror what the ``inflight`` table would hold,
        in :data:`APPLY_ORDER`: ``delete_messages`` clear markers, then ``inflight_add`` sets them, then
        ``inflight_remove`` clears them. Markers are set here, at submission, because the get must not wait;
        they are cleared once the batch that clears them is committed (``_end_marks``, with the generation
        rule: a batch clears only markers set before it), and a failed batch's markers are taken back. Every
        add gets its own generation (and record), so that neither rule can clear a marker set after it.
        A ``backout_updates`` entry of a seq the batch also un-marks is written as an "ended, backout count c"
        record, so that a crash after the backout does not count it again. Returns the markers set (seq,
        generation). Raises OverflowError (nothing done) for a seq that does not fit in 64 bits, StoreError if
        the file cannot be written (the store then fails).
        """
        live = self._live
        adds = batch.inflight_add
        removes = batch.inflight_remove
        for seq in adds:
            if not _INT64_MIN <= seq <= _INT64_MAX:
                raise OverflowError(f"in-flight seq {seq} does not fit in a signed 64-bit integer")
        undo: list[tuple[int, int]] = []
        records: list[bytes] = []
        pack = _pack_mark
        removing = set(removes) if removes else ()
        for seq in adds:
            if seq in removing:
                continue
            self._mark_gen = gen = self._mark_gen + 1
            gens = live.get(seq)
            if gens is None:
                live[seq] = [gen]
            else:
                gens.append(gen)
            undo.append((seq, gen))
            records.append(pack(seq, _IN_FLIGHT))
        if removes:
            for seq, count in batch.backout_updates:
                if seq in removing and 0 <= count <= _INT64_MAX and _INT64_MIN <= seq <= _INT64_MAX:
                    records.append(pack(seq, count))
        if records:
            self._append_marks(b"".join(records) if len(records) > 1 else records[0], len(records), undo)
        return undo

    def _append_marks(self, data: bytes, count: int, undo: list[tuple[int, int]]) -> None:
        """Under the lock: append whole records with one write(2): the kernel keeps it if the process dies."""
        fd = self._marks_fd
        try:
            if fd is None:
                raise OSError("the marker file is not open")
            written = os.write(fd, data)
            if written != len(data):
                raise OSError(f"short write ({written} of {len(data)} bytes)")
        except OSError as exc:
            self._undo_marks(undo)
            self._failed = StoreError(
                f"Writing to the marker file {self._marks_path} of the store {self._path} failed ({exc}); "
                "the store accepts no more writes. Fix the cause (disk space, I/O errors), then restart to "
                "recover."
            )
            self._failed.__cause__ = exc
            raise self._failed from exc
        self._marks_size += len(data)
        self._marks_written += count
        self._stats["markers"] += count

    def _undo_marks(self, undo: list[tuple[int, int]]) -> None:
        live = self._live
        for seq, gen in undo:
            gens = live.get(seq)
            if gens is not None and gen in gens:
                gens.remove(gen)
                if not gens:
                    del live[seq]

    def _end_marks(self, batch: Batch, gen_before: int, queue_seqs: list[int] | None) -> None:
        """Under the lock, once ``batch`` is committed: clear the live markers it ends (set before it)."""
        live = self._live
        for seqs in (batch.delete_messages, queue_seqs, batch.inflight_remove):
            if seqs and live:
                for seq in seqs:
                    gens = live.get(seq)
                    if gens is not None and gens[0] <= gen_before:
                        if gens[-1] <= gen_before:
                            del live[seq]
                        else:
                            gens[:] = [gen for gen in gens if gen > gen_before]

    def _settle_marks(self, group: list[_Pending]) -> None:
        """Under the lock, once the group's outcome is known: in submission order, take back the markers of the
        failed batches and clear those the committed ones end."""
        for pending in group:
            if pending.error is not None:
                if pending.undo:
                    self._undo_marks(pending.undo)
            elif self._live:
                self._end_marks(pending.batch, pending.gen_before, pending.queue_seqs)

    def _harden(self, group: list[_Pending], durable: bool, failed: int) -> tuple[list[int], list[int]]:
        """Once the group's outcome is known: settle its markers (see _settle_marks) and return the seqs whose
        markers the group's durable write must copy into the inflight table (the live ones not copied yet, if
        ``durable``) and those whose copied rows it must drop (markers that have ended)."""
        if self._marks_fd is None or not (self._live or failed or self._hardened):
            return [], []
        with self._cond:
            self._settle_marks(group)
            live = self._live
            hardened = self._hardened
            removed = [seq for seq in hardened if seq not in live] if hardened else []
            added = [seq for seq in live if seq not in hardened] if durable and live else []
        return added, removed

    def _compact_marks(self) -> None:
        """Under the lock, as the leader after a group: empty (or rewrite) the file when nothing needs it.

        Only when every batch submitted so far is committed and synced: the records of a batch still queued,
        or committed without a sync, may be needed after a crash."""
        live = self._live
        if (
            self._queue
            or self._unsynced
            or self._junsynced
            or self._failed is not None
            or self._marks_size <= len(MARKER_MAGIC)
        ):
            return
        if not live and self._marks_size > _MARKS_TRUNCATE:
            try:
                os.ftruncate(self._marks_fd, len(MARKER_MAGIC))  # type: ignore[arg-type]
            except OSError:
                return  # the records stay: recovery handles them; a later group tries again
            self._marks_size = len(MARKER_MAGIC)
        elif self._marks_size > _MARKS_REWRITE:
            self._rewrite_marks(live)

    def _rewrite_marks(self, live: dict[int, list[int]]) -> None:
        """Replace the file by one holding only the live markers (atomically: write, sync, rename)."""
        temporary = self._marks_path + ".new"
        data = MARKER_MAGIC + b"".join(_pack_mark(seq, _IN_FLIGHT) for seq in live)
        try:
            fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_APPEND, 0o644)
            try:
                os.write(fd, data)
                os.fsync(fd)
                os.replace(temporary, self._marks_path)
                _fsync_directory(os.path.dirname(os.path.abspath(self._marks_path)))
            except BaseException:
                os.close(fd)
                raise
        except OSError:
            return  # the old file stays, and is still right
        old, self._marks_fd = self._marks_fd, fd
        if old is not None:
            os.close(old)
        self._marks_size = len(data)

    def _read_marks(self) -> dict[int, tuple[bool, int]]:
        """Read the marker file (after taking the lock). Returns seq -> (in flight?, highest backout count an
        ended record gave, or -1). A record cut short or garbled at the end of the file (a crash while it was
        appended) is ignored; anything else that is wrong is refused with StoreError, changing nothing."""
        path = self._marks_path
        try:
            with open(path, "rb") as file:
                data = file.read()
        except FileNotFoundError:
            return {}
        except OSError as exc:
            raise StoreError(
                f"The marker file {path} of the store {self._path} cannot be read ({exc.strerror}). "
                "Check its permissions."
            ) from exc
        header = len(MARKER_MAGIC)
        if len(data) < header and MARKER_MAGIC.startswith(data):
            return {}  # created, and the machine crashed before the header reached the disk
        if not data.startswith(MARKER_MAGIC):
            raise StoreError(
                f"{path} is not a syncpoint marker file (it holds the in-flight gets of the store {self._path}). "
                "Move the file away if it is not needed (in-flight gets of a crashed queue manager are then not "
                "backed out with BackoutCount + 1); syncpoint has not changed it."
            )
        marks: dict[int, tuple[bool, int]] = {}
        size = _MARK.size
        end = len(data)
        offset = header
        while offset + size <= end:
            seq, value, crc = _MARK.unpack_from(data, offset)
            if crc != zlib.crc32(data[offset : offset + 16]) or value < _IN_FLIGHT:
                if _has_valid_mark(data, offset + size):
                    raise StoreError(
                        f"The marker file {path} of the store {self._path} is damaged (a garbled record at byte "
                        f"{offset} is followed by valid ones). Restore it from a backup, or move it away (in-flight "
                        "gets of a crashed queue manager are then not backed out); syncpoint has not changed it."
                    )
                break  # the torn tail of the last append
            _in_flight, highest = marks.get(seq, (False, -1))
            if value == _IN_FLIGHT:
                marks[seq] = (True, highest)
            else:
                marks[seq] = (False, max(highest, value))
            offset += size
        return marks

    def _open_marks(self) -> None:
        """Open (creating it with its header if needed) the marker file, emptied of records."""
        path = self._marks_path
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_APPEND, 0o644)
        except OSError as exc:
            raise StoreError(
                f"The marker file {path} of the store {self._path} cannot be opened ({exc.strerror}). "
                "Check the directory's permissions."
            ) from exc
        try:
            size = os.fstat(fd).st_size
            header = len(MARKER_MAGIC)
            if size != header or os.pread(fd, header, 0) != MARKER_MAGIC:
                os.ftruncate(fd, 0)
                os.write(fd, MARKER_MAGIC)
                os.fsync(fd)
                if size == 0:
                    _fsync_directory(os.path.dirname(os.path.abspath(path)))
        except OSError as exc:
            os.close(fd)
            raise StoreError(
                f"The marker file {path} of the store {self._path} cannot be written ({exc.strerror}). "
                "Check the free disk space and the permissions."
            ) from exc
        self._marks_fd = fd
        self._marks_size = len(MARKER_MAGIC)
        self._marks_written = 0
        self._hardened = set()

    def _close_marks(self) -> None:
        fd, self._marks_fd = self._marks_fd, None
        if fd is not None:
            os.close(fd)

    def _hand_marks_to_sqlite(self, connection: sqlite3.Connection) -> None:
        """At close, after the last commit: move the live markers into the ``inflight`` table and empty the
        file, so the next open backs out exactly the gets still in flight (a crash in between only makes a
        backout count higher: see the module doc)."""
        with self._cond:
            live = list(self._live)
            self._live = {}
        try:
            if live or self._hardened:
                self._set_synchronous(connection, "FULL")
                with _transaction(connection):
                    connection.execute("DELETE FROM inflight")
                    connection.executemany(_SQL_INFLIGHT_ADD, zip(live))
            if self._marks_fd is not None and self._marks_size > len(MARKER_MAGIC):
                os.ftruncate(self._marks_fd, len(MARKER_MAGIC))
                os.fsync(self._marks_fd)
        except (OSError, sqlite3.Error):
            pass  # the marker file keeps the records; the next open recovers from it

    @staticmethod
    def _flush_forgotten(reference: weakref.ref[SQLiteStore], cond: threading.Condition, interval: float) -> None:
        """Commit batches submitted but not waited for, within two intervals. Ends with the store."""
        seen: _Pending | None = None
        while True:
            with cond:
                cond.wait(interval)
                store = reference()
                if store is None or store._state != "open":
                    return
                head = store._queue[0] if store._queue else None
                if head is None or head is not seen or store._leader:
                    seen = head
                    continue
                store._leader = True
            store._lead()
            del store

    # -- opening --------------------------------------------------------------------------------------------

    def _check_header(self) -> bool:
        """Refuse anything but a syncpoint store (or, with create, a missing or empty file). True if new."""
        path = self._path
        try:
            with open(path, "rb") as file:
                header = file.read(100)
        except FileNotFoundError:
            if self._create:
                return True
            raise StoreError(
                f"The store {path} does not exist. Check the path, or pass create=True to create a new store."
            ) from None
        except IsADirectoryError:
            raise StoreError(
                f"{path} is a directory, not a syncpoint store. Give the path of the store file."
            ) from None
        except OSError as exc:
            raise StoreError(f"The store {path} cannot be read ({exc.strerror}). Check its permissions.") from exc
        if not header:
            if self._create:
                return True
            raise StoreError(
                f"{path} is an empty file, not a syncpoint store. Check the path, "
                "or pass create=True to make it a new store."
            )
        if len(header) < 100 or not header.startswith(_SQLITE_MAGIC):
            raise StoreError(
                f"{path} is not a syncpoint store (it is not an SQLite database). Check the path; "
                "syncpoint has not changed the file."
            )
        application_id = int.from_bytes(header[68:72], "big")
        if application_id != APPLICATION_ID:
            raise StoreError(
                f"{path} is an SQLite database that does not belong to syncpoint "
                f"(application_id {application_id:#010x}, not {APPLICATION_ID:#010x}). "
                "Check the path; syncpoint has not changed the file."
            )
        return False

    def _acquire_lock(self) -> None:
        lock_path = self._path + ".lock"
        try:
            fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as exc:
            raise StoreError(
                f"The lock file {lock_path} of the store {self._path} cannot be opened ({exc.strerror}). "
                "Check the directory's permissions."
            ) from exc
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            try:
                holder = os.pread(fd, 32, 0).decode("ascii", "replace").strip() or "unknown"
            finally:
                os.close(fd)
            who = "this process" if holder == str(os.getpid()) else "another process"
            raise StoreError(
                f"The store {self._path} is in use by {who} (pid {holder}). "
                "Stop the queue manager that uses it first, or use another store."
            ) from None
        except OSError as exc:
            os.close(fd)
            raise StoreError(
                f"The store {self._path} cannot be locked ({exc.strerror}). "
                "Put it on a local file system that supports flock."
            ) from exc
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        # Closing the descriptor releases the flock; the finalizer does it if the store is dropped unclosed.
        self._lock_release = weakref.finalize(self, os.close, fd)
        self._lock_fd = fd

    def _release_lock(self) -> None:
        fd, self._lock_fd = self._lock_fd, None
        if fd is not None:
            try:
                os.ftruncate(fd, 0)
            except OSError:
                pass
        if self._lock_release is not None:
            self._lock_release()
            self._lock_release = None

    def _connect(self, is_new: bool) -> sqlite3.Connection:
        uri = Path(self._path).absolute().as_uri() + ("?mode=rwc" if is_new else "?mode=rw")
        # Used by whichever thread leads the group commit (one at a time), hence check_same_thread=False.
        connection = sqlite3.connect(uri, uri=True, isolation_level=None, cached_statements=64, check_same_thread=False)
        try:
            connection.execute(f"PRAGMA busy_timeout = {int(self._busy_timeout * 1000)}")
            # Memory-mapped reads make quick_check and loading every message several times faster. Only while
            # opening: an I/O error in a mapped page is a SIGBUS rather than an error code.
            connection.execute("PRAGMA mmap_size = 2147418112")
            if is_new:
                self._initialise(connection)
            else:
                self._verify(connection)
            mode = connection.execute("PRAGMA journal_mode = WAL").fetchone()[0]
            if str(mode).lower() != "wal":
                raise StoreError(
                    f"The store {self._path} cannot use write-ahead logging (journal mode {mode}). "
                    "Put it on a local file system."
                )
            connection.execute(f"PRAGMA wal_autocheckpoint = {int(self._wal_autocheckpoint)}")
            connection.execute("PRAGMA journal_size_limit = 67108864")
            connection.execute("PRAGMA cache_size = -65536")
            connection.execute("PRAGMA temp_store = MEMORY")
            self._set_synchronous(connection, "FULL")
        except BaseException:
            connection.close()
            raise
        if is_new:
            _fsync_directory(os.path.dirname(os.path.abspath(self._path)))
        return connection

    def _initialise(self, connection: sqlite3.Connection) -> None:
        # In rollback-journal mode, so that the header (application_id) is in the main file once this commits.
        connection.execute("PRAGMA page_size = 4096")
        connection.execute("PRAGMA synchronous = FULL")
        connection.execute("BEGIN IMMEDIATE")
        if connection.execute("SELECT count(*) FROM sqlite_schema").fetchone()[0] != 0:
            raise StoreError(
                f"{self._path} appeared while the store was being created. Check that nothing else writes there."
            )
        connection.execute(f"PRAGMA application_id = {APPLICATION_ID}")
        connection.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        for statement in _SCHEMA:
            connection.execute(statement)
        connection.execute("COMMIT")

    def _verify(self, connection: sqlite3.Connection) -> None:
        path = self._path
        application_id = connection.execute("PRAGMA application_id").fetchone()[0]
        if application_id != APPLICATION_ID:
            raise StoreError(
                f"{path} is an SQLite database that does not belong to syncpoint "
                f"(application_id {application_id:#010x}). "
                "Check the path; syncpoint has not changed the file."
            )
        version = connection.execute("PRAGMA user_version").fetchone()[0]
        if version > SCHEMA_VERSION:
            raise StoreError(
                f"The store {path} has schema version {version}, newer than this syncpoint understands "
                f"({SCHEMA_VERSION}). Use a newer syncpoint to open it."
            )
        if version < SCHEMA_VERSION:
            raise StoreError(
                f"The store {path} has schema version {version}, which this syncpoint ({SCHEMA_VERSION}) "
                "cannot open. Use the syncpoint that created it."
            )
        tables = {row[0] for row in connection.execute("SELECT name FROM sqlite_schema WHERE type = 'table'")}
        missing = _TABLES - tables
        if missing:
            raise StoreError(
                f"The store {path} is damaged: table(s) {', '.join(sorted(missing))} are missing. "
                "Restore it from a backup."
            )
        if self._quick_check:
            problems = [row[0] for row in connection.execute("PRAGMA quick_check(5)")]
            if problems != ["ok"]:
                raise StoreError(
                    f"The store {path} is damaged (quick_check: {'; '.join(problems)}). "
                    "Restore it from a backup; syncpoint has not changed the file."
                )

    def _recover(self, connection: sqlite3.Connection, marks: dict[int, tuple[bool, int]]) -> Snapshot:
        if marks:
            # First the marker file's records go into the database, durably; only then is the file emptied. Both
            # steps can be repeated after a crash between them: max() and INSERT OR IGNORE are idempotent.
            with _transaction(connection):
                floors = [(seq, highest) for seq, (_in_flight, highest) in marks.items() if highest >= 0]
                if floors:
                    connection.executemany(_SQL_BACKOUT_AT_LEAST, floors)
                # A row copied into inflight by a durable group (see _commit_group) whose get then ended.
                ended = [(seq,) for seq, (is_in_flight, highest) in marks.items() if not is_in_flight and highest >= 0]
                connection.executemany(_SQL_INFLIGHT_REMOVE, ended)
                in_flight = [(seq,) for seq, (is_in_flight, _highest) in marks.items() if is_in_flight]
                connection.executemany(_SQL_INFLIGHT_ADD, in_flight)
            with self._cond:
                self._stats["syncs"] += 1
        self._open_marks()
        connection.execute("BEGIN IMMEDIATE")
        try:
            recovered = connection.execute(
                "UPDATE messages SET backout = backout + 1 WHERE seq IN (SELECT seq FROM inflight)"
            ).rowcount
            connection.execute("DELETE FROM inflight")
            objects: dict[str, dict[str, bytes]] = {}
            for kind, name, definition in connection.execute("SELECT kind, name, def FROM objects"):
                objects.setdefault(kind, {})[name] = definition
            counters = dict(connection.execute("SELECT name, value FROM counters"))
            counters.pop(EPOCH_COUNTER, None)
            cursor = connection.execute(_SQL_READ_MESSAGES)
            # A million new objects would trigger a hundred needless garbage collections: pause it meanwhile.
            collecting = gc.isenabled()
            gc.disable()
            try:
                messages = list(starmap(StoredMessage, cursor))
            finally:
                if collecting:
                    gc.enable()
            connection.execute("COMMIT")
        except BaseException:
            if connection.in_transaction:
                connection.execute("ROLLBACK")
            raise
        if recovered:
            with self._cond:
                self._stats["syncs"] += 1
        return Snapshot(objects=objects, messages=messages, counters=counters, recovered_inflight=recovered)

    def _commit_group(self, connection: sqlite3.Connection, group: list[_Pending]) -> None:
        durable = any(waiter.batch.durable for waiter in group)
        if self._journal is not None:
            entries = self._journal_entries(group)
            if entries is not None:
                self._commit_to_journal(connection, group, entries, durable)
                return
            try:  # SQLite must hold everything the journal has before it takes anything newer
                self._checkpoint(connection)
            except Exception as exc:
                self._fail(group, exc)
                return
            for waiter in group:  # puts at or below the highest seq go through SQLite, which finds duplicates
                for stored in waiter.batch.put_messages:
                    if type(stored.seq) is int and stored.seq > self._max_seq:
                        self._max_seq = stored.seq
        self._set_synchronous(connection, "FULL" if durable else "NORMAL")
        connection.execute("BEGIN IMMEDIATE")
        changed = False
        try:
            before = connection.total_changes
            merged = _merge(group) if len(group) > 1 else None
            if merged is not None:
                _apply_merged(connection, *merged)
            else:
                for waiter in group:
                    self._apply(connection, waiter)
            changed = connection.total_changes != before
        except Exception as exc:
            if connection.in_transaction:
                connection.execute("ROLLBACK")
            if not _is_fault_of_batch(exc):
                self._fail(group, exc)
                return
            if len(group) == 1:
                group[0].error = self._as_store_error(exc, "batch")
            else:
                connection.execute("BEGIN IMMEDIATE")
                try:
                    changed = self._apply_one_by_one(connection, group)
                except Exception as fault:
                    if connection.in_transaction:
                        connection.execute("ROLLBACK")
                    self._fail(group, fault)
                    return
        failed = sum(1 for waiter in group if waiter.error is not None)
        hardened_add, hardened_remove = self._harden(group, durable and connection.in_transaction, failed)
        if hardened_add or hardened_remove:
            if connection.in_transaction:
                try:
                    if hardened_remove:
                        connection.executemany(_SQL_INFLIGHT_REMOVE, zip(hardened_remove))
                    if hardened_add:
                        connection.executemany(_SQL_INFLIGHT_ADD, zip(hardened_add))
                except Exception as exc:
                    if connection.in_transaction:
                        connection.execute("ROLLBACK")
                    self._fail(group, exc)
                    return
                changed = True
            else:
                hardened_add = hardened_remove = []
        if connection.in_transaction:
            try:
                connection.execute("COMMIT")
            except sqlite3.Error as exc:
                if connection.in_transaction:
                    try:
                        connection.execute("ROLLBACK")
                    except sqlite3.Error:
                        pass
                self._fail(group, exc)
                return
        if hardened_remove:
            self._hardened.difference_update(hardened_remove)
        if hardened_add:
            self._hardened.update(hardened_add)
        synced = False
        if durable:
            if changed:
                synced = True
            elif self._unsynced:
                # Nothing was written, so the commit synced nothing: sync earlier NORMAL commits here.
                try:
                    _fsync_file(self._path + "-wal")
                except OSError as exc:
                    self._fail(group, exc)
                    return
                synced = True
            if synced:
                self._unsynced = False
        elif changed:
            self._unsynced = True
        self._count_group(1, synced, len(group) - failed, failed)

    # -- the journal (see _journal.py) ----------------------------------------------------------------------

    def checkpoint(self) -> None:
        """Move what the journal holds into SQLite now (one durable transaction) and start the journal again.
        The store does this by itself; call it before reading the database file with other tools."""
        while True:  # take the leadership, as close() does
            with self._cond:
                if self._state != "open":
                    raise StoreError(f"The store {self._path} is not open; open it before writing to it.")
                if not self._leader:
                    self._leader = True
                    break
                self._cond.wait(0.005)
        try:
            connection = self._connection
            if self._failed is None and connection is not None:
                try:
                    self._checkpoint(connection)
                except Exception as exc:
                    self._fail([], exc)
            if self._failed is not None:
                raise self._failed
        finally:
            self._lead()  # commits what was queued meanwhile and hands the leadership on

    def _read_journal(self, journal: Journal) -> tuple[int, list[tuple[list[Entry], list[int], list[int]]]]:
        epoch, payloads = journal.read()
        try:
            return epoch, [decode(payload) for payload in payloads]
        except Exception as exc:
            raise StoreError(
                f"The journal {journal.path} of the store {self._path} is damaged (a record passes its checksum "
                f"but cannot be read: {exc}). Restore it from a backup; syncpoint has not changed it."
            ) from exc

    def _replay_journal(
        self,
        connection: sqlite3.Connection,
        epoch: int,
        records: list[tuple[list[Entry], list[int], list[int]]],
    ) -> int:
        """At open: apply the journal's records unless SQLite has them already, and return the epoch to go on at.

        Every record the file can hold is of an epoch at most one above the one SQLite records: that epoch is
        moved up here, durably, before any record of the new one is written. The new epoch is above the file's and
        above that bound, so no record left in the file (behind a torn first record, say) can pass for a new one.
        """
        row = connection.execute("SELECT value FROM counters WHERE name = ?", (EPOCH_COUNTER,)).fetchone()
        applied = int(row[0]) if row is not None else 0
        if epoch > applied and records:
            state = JournalState()
            for entries, added, removed in records:
                for entry in entries:
                    state.apply(entry)
                state.harden(added, removed)
            self._write_state(connection, state, epoch)
            applied = epoch
        start = max(epoch, applied + 1) + 1
        self._set_synchronous(connection, "FULL")
        with _transaction(connection):
            connection.execute(_SQL_COUNTER, (EPOCH_COUNTER, start - 1))
        return start

    def _journal_entries(self, group: list[_Pending]) -> list[Entry] | None:
        """The group's batches as journal entries, or None when the group must go through SQLite: object or
        queue-wide changes, or anything SQLite might refuse (a seq that may already be stored, a value that is
        not of its column's type or does not fit in 64 bits), so that SQLite reports the batch's fault."""
        max_seq = self._max_seq
        entries: list[Entry] = []
        low, high = _INT64_MIN, _INT64_MAX
        for pending in group:
            batch = pending.batch
            if batch.put_objects or batch.delete_objects or batch.delete_queue_messages:
                return None
            puts = batch.put_messages
            for m in puts:
                seq = m.seq
                put_time = m.put_time
                if not (
                    type(seq) is int
                    and max_seq < seq <= high
                    and type(m.queue) is str
                    and type(m.priority) is int
                    and low <= m.priority <= high
                    and type(m.md) is bytes
                    and type(m.data) is bytes
                    and type(m.backout_count) is int
                    and low <= m.backout_count <= high
                    and (type(put_time) is float or (type(put_time) is int and low <= put_time <= high))
                ):
                    return None
                max_seq = seq
            updates = batch.backout_updates
            for update in updates:
                if not (
                    type(update) is tuple
                    and len(update) == 2
                    and type(update[0]) is int
                    and type(update[1]) is int
                    and low <= update[0] <= high
                    and low <= update[1] <= high
                ):
                    return None
            deletes = batch.delete_messages
            for seq in deletes:
                if type(seq) is not int or not low <= seq <= high:
                    return None
            counters = list(batch.counters.items())
            for name, value in counters:
                if type(name) is not str or type(value) is not int or not low <= value <= high:
                    return None
            entries.append((puts, updates, deletes, counters))
        return entries

    def _commit_to_journal(
        self, connection: sqlite3.Connection, group: list[_Pending], entries: list[Entry], durable: bool
    ) -> None:
        """Commit a group with one journal record (synced if durable), then checkpoint if the journal is full."""
        journal = self._journal
        assert journal is not None
        added, removed = self._harden(group, durable, 0)
        changed = bool(added or removed) or any(
            puts or updates or deletes or counters for puts, updates, deletes, counters in entries
        )
        synced = False
        try:
            if changed:
                journal.append(encode(entries, added, removed), durable)
                synced = durable
            elif durable and self._junsynced:
                journal.sync()
                synced = True
            if durable and self._unsynced:  # an earlier non-durable SQLite commit must be durable now too
                _fsync_file(self._path + "-wal")
                self._unsynced = False
                synced = True
        except OSError as exc:
            self._fail(group, exc)
            return
        state = self._jstate
        for entry in entries:
            state.apply(entry)
            if entry[0]:
                self._max_seq = max(self._max_seq, entry[0][-1].seq)
        if added or removed:
            state.harden(added, removed)
            self._hardened.difference_update(removed)
            self._hardened.update(added)
        if synced:
            self._junsynced = False
        elif changed:
            self._junsynced = True
        self._count_group(changed, synced, len(group), 0)
        if journal.used > self._journal_limit:
            try:
                self._checkpoint(connection)
            except Exception as exc:  # the group is committed; the store takes nothing more
                self._fail([], exc)

    def _checkpoint(self, connection: sqlite3.Connection) -> None:
        """As the leader: write the journal's pending state to SQLite durably, then start the journal again."""
        journal = self._journal
        if journal is None or journal.used == 0:
            return
        epoch = journal.epoch
        self._write_state(connection, self._jstate, epoch)
        self._jstate = JournalState()
        self._unsynced = False  # the FULL commit synced every earlier commit
        journal.restart(epoch + 1)
        self._junsynced = False

    def _write_state(self, connection: sqlite3.Connection, state: JournalState, epoch: int) -> None:
        """One durable transaction (a checkpoint): the state's changes, and ``epoch`` as the journal epoch SQLite
        holds."""
        self._set_synchronous(connection, "FULL")
        with _transaction(connection):
            if state.deletes:
                _delete_messages(connection, sorted(state.deletes))
            if state.updates:
                connection.executemany(_SQL_BACKOUT, state.updates.items())
            if state.puts:
                puts = state.puts
                _insert_messages(connection, [puts[seq] for seq in sorted(puts)])
            connection.executemany(_SQL_COUNTER, [*state.counters.items(), (EPOCH_COUNTER, epoch)])
            if state.inflight:
                connection.executemany(_SQL_INFLIGHT_REMOVE, [(s,) for s, on in state.inflight.items() if not on])
                connection.executemany(_SQL_INFLIGHT_ADD, [(s,) for s, on in state.inflight.items() if on])
        with self._cond:
            stats = self._stats
            stats["transactions"] += 1
            stats["syncs"] += 1
            stats["checkpoints"] += 1

    def _count_group(self, transactions: int, syncs: int, batches: int, failed: int) -> None:
        """Count a committed group: its store transactions (SQLite's or journal records), syncs and batches."""
        with self._cond:
            stats = self._stats
            stats["transactions"] += transactions
            stats["syncs"] += syncs
            stats["batches"] += batches
            stats["failed_batches"] += failed

    def _apply_one_by_one(self, connection: sqlite3.Connection, group: list[_Pending]) -> bool:
        """Apply each batch of the group under its own savepoint; a batch's faults roll back only that batch
        and are reported to its caller. Any other error (I/O, full disk) is raised."""
        changed = False
        for waiter in group:
            before = connection.total_changes
            connection.execute("SAVEPOINT batch")
            try:
                self._apply(connection, waiter)
            except Exception as exc:
                if not _is_fault_of_batch(exc) or not connection.in_transaction:
                    raise
                connection.execute("ROLLBACK TO batch")
                connection.execute("RELEASE batch")
                waiter.error = self._as_store_error(exc, "batch")
                continue
            connection.execute("RELEASE batch")
            changed = changed or connection.total_changes != before
        return changed

    def _apply(self, connection: sqlite3.Connection, pending: _Pending) -> None:
        """Apply one batch inside the current transaction, in APPLY_ORDER. In-flight markers are not in the
        database while the store is open (they are in the marker file, written at submission)."""
        batch = pending.batch
        executemany = connection.executemany
        if batch.put_objects:
            executemany(_SQL_PUT_OBJECT, batch.put_objects)
        if batch.delete_objects:
            executemany(_SQL_DELETE_OBJECT, batch.delete_objects)
        if batch.put_messages:
            _insert_messages(connection, batch.put_messages)
        if batch.delete_queue_messages:
            queues = list(zip(batch.delete_queue_messages))
            pending.queue_seqs = None
            if self._live:  # their markers end with them: find which seqs go (see _settle_marks)
                execute = connection.execute
                pending.queue_seqs = [row[0] for queue in queues for row in execute(_SQL_QUEUE_SEQS, queue)]
            executemany(_SQL_DELETE_QUEUE_MESSAGES, queues)
        if batch.backout_updates:
            executemany(_SQL_BACKOUT, batch.backout_updates)
        if batch.delete_messages:
            _delete_messages(connection, batch.delete_messages)
        if batch.counters:
            executemany(_SQL_COUNTER, batch.counters.items())

    def _set_synchronous(self, connection: sqlite3.Connection, level: str) -> None:
        if self._synchronous != level:
            connection.execute(f"PRAGMA synchronous = {level}")
            self._synchronous = level

    def _fail(self, group: list[_Pending], exc: BaseException) -> None:
        """The commit (or its sync) failed: nothing of the group is known kept; refuse further writes."""
        self._failed = StoreError(
            f"Writing to the store {self._path} failed ({exc}); the last changes were not committed and the "
            "store accepts no more writes. Fix the cause (disk space, I/O errors), then restart to recover."
        )
        self._failed.__cause__ = exc
        for waiter in group:
            waiter.error = self._failed
        with self._cond:
            self._stats["failed_batches"] += len(group)

    def _as_store_error(self, exc: BaseException | None, during: str) -> StoreError:
        if isinstance(exc, StoreError):
            return exc
        if during == "batch":
            error = StoreError(
                f"The batch was not applied to the store {self._path}, and nothing of it was kept: {exc}. "
                "Correct the batch (each message seq may be stored once; integers must fit in 64 bits) and "
                "write it again."
            )
        elif isinstance(exc, sqlite3.DatabaseError) and _is_corruption(exc):
            error = StoreError(
                f"The store {self._path} is damaged or is not a syncpoint store ({exc}). "
                "Restore it from a backup; syncpoint has not changed the file."
            )
        else:
            error = StoreError(
                f"The store {self._path} failed while {during} ({type(exc).__name__}: {exc}). "
                "Check the file, its directory's permissions and the free disk space, then open it again."
            )
        error.__cause__ = exc
        return error


# -- applying a group in few statements ------------------------------------------------------------------------
# Each statement is one call into SQLite, and each call gives up the GIL and takes it back: with many threads
# waiting for the group commit, taking it back can wait for another thread's Python code, on the critical path of
# every thread in the group. So a group of batches is applied with one statement per table (where no batch's
# order matters, see _merge), and rows go in statements of up to _CHUNK rows (powers of two, so that few distinct
# statements are prepared and cached).

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


_MARK_BODY = struct.Struct("<qq")


def _pack_mark(seq: int, value: int) -> bytes:
    body = _MARK_BODY.pack(seq, value)
    return _MARK.pack(seq, value, zlib.crc32(body))


def _has_valid_mark(data: bytes, offset: int) -> bool:
    """Whether a valid marker record starts at ``offset`` or at any later record boundary."""
    size = _MARK.size
    while offset + size <= len(data):
        _seq, value, crc = _MARK.unpack_from(data, offset)
        if value >= _IN_FLIGHT and crc == zlib.crc32(data[offset : offset + 16]):
            return True
        offset += size
    return False


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
