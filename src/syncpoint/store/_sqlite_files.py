"""The SQLite store's file: recognising it (header, ``application_id``), owning it (the ``flock`` on
``<path>.lock``), creating its schema, verifying it, and recovering at ``open()`` (the marker file, the journal,
then the in-flight gets backed out).

Theory of operation: ``_sqlite.py``, "Ownership", "Recognising the file" and "Recovery".
"""

from __future__ import annotations

import fcntl
import gc
import os
import sqlite3
import weakref
from itertools import starmap
from pathlib import Path

from ._base import Snapshot, StoredMessage, StoreError
from ._journal import EPOCH_COUNTER, Entry, Journal, JournalState, decode
from ._sqlite_base import (
    _SCHEMA,
    _SQL_BACKOUT,
    _SQL_BACKOUT_AT_LEAST,
    _SQL_COUNTER,
    _SQL_INFLIGHT_ADD,
    _SQL_INFLIGHT_REMOVE,
    _SQL_READ_MESSAGES,
    _SQLITE_MAGIC,
    _TABLES,
    APPLICATION_ID,
    SCHEMA_VERSION,
    _delete_messages,
    _fsync_directory,
    _insert_messages,
    _transaction,
)
from ._sqlite_marks import (
    Markers,
)


class Files(Markers):
    """The file, schema and recovery part of SQLiteStore."""

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
