"""The SQLite store's file: recognising it (header, ``application_id``), owning it (the ``flock`` on
``<path>.lock``), creating its schema, verifying it, and recovering at ``open()`` (the marker file, the journal,
then the in-flight gets backed out).

Theory of operation: ``_sqlite.py``, "Ownership", "Recognising the file" and "Recovery".
"""

from __future__ import annotations

import fcntl
import gc
import logging
import os
import sqlite3
import stat
import weakref
from itertools import starmap
from pathlib import Path

from ._base import Snapshot, StoreDamagedError, StoredMessage, StoreError
from ._journal import (
    EPOCH_COUNTER,
    GROW,
    IDENT_COUNTER,
    Entry,
    Journal,
    JournalFile,
    JournalState,
    cut_by_end,
    decode,
    journal_state,
)
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
from ._sqlite_marks import MARKS_COUNTER, Markers
from ._wal import wal_shortfall

log = logging.getLogger("syncpoint.store")


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
            raise StoreError(f"The store {path} does not exist. {self._remedy()}") from None
        except IsADirectoryError:
            raise StoreError(
                f"{path} is a directory, not a syncpoint store. Give the path of the store file."
            ) from None
        except OSError as exc:
            raise StoreError(f"The store {path} cannot be read ({exc.strerror}). Check its permissions.") from exc
        if not header:
            if self._create:
                return True
            raise StoreError(f"{path} is an empty file, not a syncpoint store. {self._remedy()}")
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

    def _remedy(self) -> str:
        """What to do about a store file that is missing or empty: a queue manager's (``qm.db``) is restored, not
        created anew (a new one would silently start without its definitions and messages)."""
        folder, name = os.path.split(os.path.abspath(self._path))
        if name == "qm.db" and os.path.basename(os.path.dirname(folder)) == "qmgrs":  # <home>/qmgrs/<name>/qm.db
            return (
                f"Restore the folder {folder} of queue manager {os.path.basename(folder)} from a backup (qm.db "
                "with the qm.db.journal and qm.db.inflight of the same moment), or delete and create the queue "
                "manager again (dltmqm, crtmqm) to start it anew, empty."
            )
        return "Check the path, or pass create=True to make it a new store."

    def _acquire_lock(self) -> None:
        lock_path = self._path + ".lock"
        try:
            fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o600)
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

    def _make_private(self) -> None:
        """Create the database file 0600 if it is new (SQLite gives its ``-wal`` and ``-shm`` the database's mode),
        and take group and other permissions away from the store's files where an older syncpoint (or an
        operator) left them: they hold message bodies. Logged as a warning, once per file changed."""
        path = self._path
        try:
            os.close(os.open(path, os.O_WRONLY | os.O_CREAT, 0o600))
        except OSError:
            pass  # _connect reports what is wrong with the file
        for name in (path, path + "-wal", path + "-shm", path + ".journal", self._marks_path, path + ".lock"):
            try:
                mode = os.stat(name).st_mode
                if mode & 0o077:
                    os.chmod(name, 0o600)
                    log.warning(
                        "%s was readable by other users (mode %04o); it is now 0600: it holds the store's messages",
                        name,
                        stat.S_IMODE(mode),
                    )
            except OSError:
                continue

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
                raise self._damaged(path, f"SQLite cannot read all of it (quick_check: {'; '.join(problems)})")

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
            for name in (EPOCH_COUNTER, IDENT_COUNTER, MARKS_COUNTER):
                counters.pop(name, None)
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

    # -- the journal and the write-ahead log at open --------------------------------------------------------

    def _damaged(self, damaged: str, what: str) -> StoreDamagedError:
        """The error that stops the open: the damaged file, what is wrong, and what to do."""
        folder, name = os.path.split(os.path.abspath(self._path))
        command = (
            f"'syncpoint salvmqm {os.path.basename(folder)}'"
            if name == "qm.db"
            else f"syncpoint.store.salvage({self._path!r})"
        )
        return StoreDamagedError(
            f"AMQ7017E: {damaged} is damaged: {what}. Starting would lose committed messages without a word, so "
            f"the store {self._path} is not opened; syncpoint has not changed any file. Run {command} to recover "
            "every message that is still valid and list what is lost, or restore the queue manager's folder "
            "from a backup (see docs/security.md, 'A damaged store').",
            damaged,
        )

    def _check_wal(self) -> None:
        """Before SQLite opens the file: refuse a write-ahead log shorter than SQLite's shared-memory index says
        it is. After a crash (not a clean close, which empties the log into the database and removes both files)
        ``-shm`` holds the index of the log's committed frames: ``mxFrame`` frames, the first ``nBackfill`` of
        them already copied into the database. If the log (with the same salt) is missing or holds fewer, SQLite
        would open the database without the transactions in them, and say nothing. A log removed together with
        its index cannot be noticed here (see _recover_journal for what the journal tells)."""
        missing = wal_shortfall(self._path)
        if missing is not None:
            raise self._damaged(self._path + "-wal", missing)

    def _journal_counters(self, connection: sqlite3.Connection) -> tuple[int, int]:
        """The journal epoch SQLite holds (every record of a later epoch is not in SQLite yet) and the identity
        of the journal the store has (0: none recorded, as in a store of an older syncpoint)."""
        values = dict(
            connection.execute(
                "SELECT name, value FROM counters WHERE name IN (?, ?)", (EPOCH_COUNTER, IDENT_COUNTER)
            ).fetchall()
        )
        return int(values.get(EPOCH_COUNTER, 0)), int(values.get(IDENT_COUNTER, 0))

    def _recover_journal(self, connection: sqlite3.Connection, journal: Journal, found: JournalFile) -> None:
        """At open: refuse a damaged journal (:class:`StoreDamagedError`, nothing changed); apply its valid records
        unless SQLite has them already (a torn last record is dropped: that write was never acknowledged); start
        it again at a new epoch.

        The records that can hold what SQLite lacks are those of the epoch just above the one SQLite records:
        every start (an open, a checkpoint) moves SQLite's epoch up durably before any record of the next is
        written, and the records of one epoch are appended one after another from the file's first record on,
        so only the last can be cut by a crash. Hence: a bad record followed by a valid one that was synced is
        damage; a record of a later epoch means SQLite lost transactions it had committed (its write-ahead log
        was deleted or truncated); and since the store records the identity of its journal (the header's) once
        the file exists, a missing journal or another header is damage too. The new epoch is above every epoch a
        record in the file can have, so nothing left in it can pass for a new record."""
        applied, ident = self._journal_counters(connection)
        epoch = applied + 1
        newest = found.first_epoch()
        path = journal.path
        if self._marks_missing and self._marks_in_use(connection):
            raise self._damaged(
                self._marks_path,
                "the marker file is missing, but the store was not closed cleanly (the file names the gets in "
                "flight at the crash, whose messages are backed out with BackoutCount + 1)",
            )
        if ident:
            if not found.present:
                raise self._damaged(
                    path,
                    "the journal is missing, but the store records that it has one (it holds the messages "
                    "committed since the last checkpoint)",
                )
            if found.blank or found.ident != ident:
                raise self._damaged(
                    path,
                    "its header does not match the store (it was zeroed or truncated, or it is another store's "
                    "journal)",
                )
        marked = found.mark_epoch if ident else 0  # the header's durable mark (checked with its identity)
        if marked > epoch:
            raise self._damaged(
                self._path + "-wal",
                f"the database is older than its journal (whose header records that the database had reached "
                f"epoch {marked - 1}; it has only seen epoch {applied}): transactions SQLite had committed are "
                f"missing from {self._path}-wal (it was deleted, alone or with its index -shm, truncated or "
                "replaced)",
            )
        if newest > epoch:
            raise self._damaged(
                self._path + "-wal",
                f"the database is older than its journal (records of epoch {newest}, the database has only seen "
                f"epoch {applied}): transactions SQLite had committed are missing from {self._path}-wal "
                "(it was deleted, truncated or replaced)",
            )
        scan = found.scan(epoch)
        if scan.damaged:
            start, end = scan.bad[0]
            raise self._damaged(
                path,
                f"the record at byte {start} is unreadable (bytes {start} to {end}) and is followed by "
                f"{len(scan.later)} valid records that were synced after it, so it is not a write cut short by a "
                "crash",
            )
        if scan.torn >= 0 and ident and found.size % GROW and cut_by_end(found.data, scan.torn):
            raise self._damaged(
                path,
                f"the file was truncated ({found.size} bytes; the journal only grows by whole MiB): its last "
                f"record, at byte {scan.torn}, is cut short",
            )
        if marked == epoch and len(scan.records) < found.mark_count:
            raise self._damaged(
                path,
                f"its header records that {found.mark_count} records were synced since the last checkpoint, but "
                f"only {len(scan.records)} valid ones are left (the file has {found.size} bytes): it was truncated "
                "(at a record boundary or to its header) or its records were overwritten",
            )
        if scan.later:
            log.warning(
                "the journal %s of the store %s: the record at byte %d is unreadable; the %d records after it were "
                "never synced (a machine crash can leave them so) and are dropped with it",
                path,
                self._path,
                scan.bad[0][0],
                len(scan.later),
            )
        elif scan.torn >= 0:
            log.info(
                "the journal %s of the store %s ends in a record cut short by the crash, at byte %d: it is dropped "
                "(that write was never acknowledged as durable)",
                path,
                self._path,
                scan.torn,
            )
        if scan.records:
            self._write_state(connection, journal_state(self._decode(path, scan.records)), epoch)
            applied = epoch
        start = applied + 2  # above every epoch a record in the file can have (at most applied + 1)
        counters = [(EPOCH_COUNTER, start - 1), (MARKS_COUNTER, 1)]
        if self._use_journal:
            ident = ident or int.from_bytes(os.urandom(8), "big") >> 1 or 1
            journal.start(start, ident)  # the header is on disk before the store records its identity
            counters.append((IDENT_COUNTER, ident))
        self._set_synchronous(connection, "FULL")
        with _transaction(connection):
            connection.executemany(_SQL_COUNTER, counters)
            if not self._use_journal:
                connection.execute("DELETE FROM counters WHERE name = ?", (IDENT_COUNTER,))
        if self._use_journal:
            journal.restart(start)
            journal.mark()  # SQLite holds epoch start - 1 durably: a log that loses that is noticed

    def _decode(self, path: str, payloads: list[bytes]) -> list[tuple[list[Entry], list[int], list[int]]]:
        try:
            return [decode(payload) for payload in payloads]
        except Exception as exc:
            raise self._damaged(
                path, f"a record passes its checksum but cannot be read ({type(exc).__name__}: {exc})"
            ) from exc

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
