"""The in-flight marker file of the SQLite store (``<path>.inflight``): one 20-byte record per persistent MQGET
in syncpoint, written with one ``write(2)`` and never synced on its own; read, applied and emptied at recovery.

Theory of operation: ``_sqlite.py``, "In-flight markers live in a marker file" and "Recovery".
"""

from __future__ import annotations

import os
import sqlite3
import struct
import zlib

from ._base import Batch, StoreError
from ._sqlite_base import (
    _INT64_MAX,
    _INT64_MIN,
    _SQL_COUNTER,
    _SQL_INFLIGHT_ADD,
    StoreState,
    _fsync_directory,
    _Pending,
    _transaction,
)

MARKER_MAGIC = b"syncpoint-marks\x01"  # the 16-byte header of a marker file (the last byte is its version)
_MARK = struct.Struct("<qqI")  # seq, value, crc32 of the first 16 bytes: one 20-byte marker record
_IN_FLIGHT = -1  # the value of an "in flight" record; any other value v >= 0 is "ended, backout count v"
_MARKS_TRUNCATE = 1 << 16  # empty a marker file bigger than this (bytes) once no marker is live
_MARKS_REWRITE = 1 << 20  # rewrite a marker file bigger than this (bytes) when it is not empty of live markers
MARKS_COUNTER = "syncpoint.store.inflight-open"  # the counters row saying the marker file is in use (1 from the
# open on, 0 once a clean close has handed its markers to SQLite): a missing file then is damage only if it is 1


class Markers(StoreState):
    """The marker file's part of SQLiteStore."""

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
            fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_APPEND, 0o600)
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
        self._marks_missing = False
        try:
            with open(path, "rb") as file:
                data = file.read()
        except FileNotFoundError:
            self._marks_missing = True
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
            fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_APPEND, 0o600)
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

    def _marks_in_use(self, connection: sqlite3.Connection) -> bool:
        """Whether the store records that its marker file was in use (the last close was not a clean one)."""
        row = connection.execute("SELECT value FROM counters WHERE name = ?", (MARKS_COUNTER,)).fetchone()
        return bool(row and row[0])

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
            self._set_synchronous(connection, "FULL")
            with _transaction(connection):
                if live or self._hardened:
                    connection.execute("DELETE FROM inflight")
                    connection.executemany(_SQL_INFLIGHT_ADD, zip(live))
                connection.execute(_SQL_COUNTER, (MARKS_COUNTER, 0))  # the file holds nothing needed now
            if self._marks_fd is not None and self._marks_size > len(MARKER_MAGIC):
                os.ftruncate(self._marks_fd, len(MARKER_MAGIC))
                os.fsync(self._marks_fd)
        except (OSError, sqlite3.Error):
            pass  # the marker file keeps the records; the next open recovers from it


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
