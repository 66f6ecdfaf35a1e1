"""SQLiteStore: the durable store, one SQLite database in WAL mode owned by one process.

This module holds the Store protocol (open, submit, write, close) and the leader protocol of the group commit;
the parts it is built from are ``_sqlite_base`` (schema, statements, shared state), ``_sqlite_marks`` (the
marker file), ``_sqlite_files`` (the file, its lock, schema and recovery) and ``_sqlite_commit`` (applying a
group, the journal, checkpoints).

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

*Damage.* Before SQLite opens an existing file, ``-shm`` (SQLite's index of its write-ahead log, left by a
crash) is compared with ``-wal``: a log missing or shorter than the committed frames the index records has lost
transactions SQLite would drop without a word (see ``_wal``). Then the journal is told from a torn tail (see
``_journal``). Both refuse the open with :class:`~syncpoint.store.StoreDamagedError` naming the file, changing
nothing; :func:`~syncpoint.store.salvage` keeps what is valid and reports what was lost.

*Permissions.* The store's files hold message bodies: the database is created 0600 before SQLite opens it (SQLite
gives ``-wal`` and ``-shm`` the database's mode), the journal, marker and lock files 0600, all with explicit
modes; ``open()`` takes group and other permissions away from any of them that has them, with a warning on the
``syncpoint.store`` logger.

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
ones, is refused with :class:`StoreError` and nothing is changed; so is a missing file while the ``counters`` row
:data:`~._sqlite_marks.MARKS_COUNTER` says it was in use (every open sets it, a clean ``close()`` clears it: the
gets in flight at a crash would lose their BackoutCount increment). For each seq the records give its last state
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
import sqlite3
import threading
import weakref

from ._base import Batch, Snapshot, StoreError
from ._journal import Journal, JournalFile, JournalState
from ._sqlite_base import (
    _DONE,
    APPLICATION_ID,
    APPLY_ORDER,
    SCHEMA_VERSION,
    _allocate_lock,
    _Pending,
)
from ._sqlite_commit import Writer
from ._sqlite_marks import (
    MARKER_MAGIC,
)

__all__ = ["APPLICATION_ID", "APPLY_ORDER", "MARKER_MAGIC", "SCHEMA_VERSION", "SQLiteStore"]


class SQLiteStore(Writer):
    """The durable :class:`~syncpoint.store.Store`: an SQLite database in WAL mode, with group commit.

    ``path`` is the database file; ``create=True`` creates it (and only it: the directory must exist) when it
    is missing. ``quick_check=False`` skips ``PRAGMA quick_check`` at open (it reads the whole file).
    ``wal_autocheckpoint`` is in pages of 4 KiB; ``busy_timeout`` in seconds. ``flush_interval`` (seconds)
    bounds how long a batch that nobody waits for stays queued (see the module doc).
    """

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
                self._make_private()
                marks = self._read_marks()  # refuses a foreign or damaged marker file
                journal = Journal(self._path + ".journal", self._path)
                found = journal.load()  # refuses a foreign journal
                if is_new:
                    marks = {}  # left behind by a deleted store: they do not belong to this one
                    found = JournalFile(journal.path)  # likewise: the journal is removed below
                    journal.discard()
                else:
                    self._check_wal()  # refuses a write-ahead log that lost committed transactions
                connection = self._connect(is_new)
                try:
                    self._recover_journal(connection, journal, found)  # refuses a damaged journal
                    snapshot = self._recover(connection, marks)
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
