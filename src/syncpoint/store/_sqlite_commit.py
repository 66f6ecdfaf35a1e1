"""The SQLite store's group commit: a leader applies every queued batch in one transaction (or one journal
record) with one sync, falls back to one savepoint per batch when a batch fails, and checkpoints the journal.

Theory of operation: ``_sqlite.py``, "Group commit, led by the callers", "The journal" and "Failures".
"""

from __future__ import annotations

import sqlite3

from ._base import StoreError
from ._journal import EPOCH_COUNTER, Entry, JournalState, encode
from ._sqlite_base import (
    _INT64_MAX,
    _INT64_MIN,
    _SQL_BACKOUT,
    _SQL_COUNTER,
    _SQL_DELETE_OBJECT,
    _SQL_DELETE_QUEUE_MESSAGES,
    _SQL_INFLIGHT_ADD,
    _SQL_INFLIGHT_REMOVE,
    _SQL_PUT_OBJECT,
    _SQL_QUEUE_SEQS,
    _apply_merged,
    _delete_messages,
    _fsync_file,
    _insert_messages,
    _is_corruption,
    _is_fault_of_batch,
    _merge,
    _Pending,
)
from ._sqlite_files import Files


class Writer(Files):
    """The group-commit part of SQLiteStore."""

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
        journal = self._journal
        moved = journal is not None and durable and changed and connection.in_transaction
        if connection.in_transaction:
            try:
                if moved:  # the journal's next epoch, so that its durable mark says SQLite holds this transaction
                    connection.execute(_SQL_COUNTER, (EPOCH_COUNTER, journal.epoch))  # type: ignore[union-attr]
                connection.execute("COMMIT")
            except sqlite3.Error as exc:
                if connection.in_transaction:
                    try:
                        connection.execute("ROLLBACK")
                    except sqlite3.Error:
                        pass
                self._fail(group, exc)
                return
        if moved:
            assert journal is not None
            journal.restart(journal.epoch + 1)  # empty: the group's _checkpoint moved its records into SQLite
            try:
                journal.mark()
            except OSError as exc:  # the group is committed; the store takes nothing more
                self._fail([], exc)
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
            if durable and self._unsynced:  # an earlier non-durable SQLite commit must be durable now too, and
                _fsync_file(self._path + "-wal")  # before the record: the journal's mark must not get ahead of it
                self._unsynced = False
                synced = True
            if changed:
                journal.append(encode(entries, added, removed), durable)
                synced = durable or synced
            elif durable and self._junsynced:
                journal.sync()
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
        elif isinstance(exc, sqlite3.DatabaseError) and _is_corruption(exc) and during == "opening":
            error = self._damaged(self._path, f"SQLite cannot read all of it ({exc})")  # the header is syncpoint's
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
