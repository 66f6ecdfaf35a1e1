"""The SQLite store's journal: groups of message changes made durable with one append and one ``fdatasync``.

Theory of operation
-------------------
A group of batches that only stores, updates and deletes messages and sets counters (what MQPUT, MQGET and
MQCMIT produce) is not applied to SQLite when it is committed. It is appended to ``<store>.journal`` as one
record, and the record is synced with ``fdatasync`` when the group is durable. Rewriting SQLite's b-tree pages
for every commit costs several times the CPU of the append, and the sync of a few KiB written in place into a
file that does not grow is the cheapest durable write the disk offers. Most messages are got soon after they are
put, so their put and their delete meet in the journal's pending state (:class:`JournalState`) and never reach
SQLite at all.

*Checkpoints.* The pending state goes into SQLite in one durable transaction (a *checkpoint*) when the journal
has grown past a limit, before any group that must go through SQLite (object definitions, queue-wide deletes,
a batch the journal cannot take), and at ``close()``. The same transaction records the journal's *epoch* in the
``counters`` table; only then is the journal started again with the next epoch, written over the old records.

*The file.* A 32-byte header (:data:`JOURNAL_MAGIC` and reserved zeros, written once), then records: payload
length, CRC-32 of the epoch and payload, epoch, payload (msgpack). The file is grown with written zeros, a MiB at
a time, so that appends overwrite allocated blocks and a sync changes no file-system metadata; it keeps its size
across checkpoints and is written over from its first record on. Starting again after a checkpoint writes
nothing: the next record, of the next epoch, goes first, so the first record always carries the newest epoch.

*Recovery.* At ``open()``: the journal's epoch is its first record's. A journal whose epoch is not newer than
the epoch SQLite recorded was checkpointed already (a crash came after the checkpoint, before the next record) and
is ignored. Otherwise its records are read up to the first that is cut short, fails its CRC or carries another
epoch (the torn end of the last append, zeros, or an older epoch's records beyond it) and applied in one durable
transaction, before the in-flight markers are recovered. The journal then goes on at an epoch above both the
file's and one more than SQLite's, which is above that of any record the file can hold. A file that does not start
with the magic is refused with :class:`StoreError` and nothing is changed; so is a record that passes its CRC but
cannot be decoded. A new store removes a journal left by a deleted one.
"""

from __future__ import annotations

import os
import struct
import zlib
from dataclasses import dataclass, field

import msgpack

from ._base import StoredMessage, StoreError

JOURNAL_MAGIC = b"syncpoint-journ\x01"  # 16 bytes; the last is the format version
HEADER = JOURNAL_MAGIC + bytes(16)  # written once, when the file is created; 16 bytes reserved
_RECORD = struct.Struct("<IIQ")  # payload length, crc32(epoch + payload), epoch: 16 bytes
_EPOCH = struct.Struct("<Q")
HEADER_SIZE = len(HEADER)
GROW = 1 << 20  # the file grows by written zeros, this many bytes at a time
EPOCH_COUNTER = "syncpoint.store.journal-epoch"  # the counters row a checkpoint records its epoch in

_ZEROS = bytes(GROW)


@dataclass(slots=True)
class JournalState:
    """The net effect of the journal's records since the last checkpoint: what a checkpoint writes to SQLite."""

    puts: dict[int, StoredMessage] = field(default_factory=dict)  # stored by the journal only
    updates: dict[int, int] = field(default_factory=dict)  # seq -> backout count, of rows in SQLite
    deletes: set[int] = field(default_factory=set)  # rows of SQLite to delete
    counters: dict[str, int] = field(default_factory=dict)
    inflight: dict[int, bool] = field(default_factory=dict)  # seq -> row of the inflight table added / removed

    def is_empty(self) -> bool:
        return not (self.puts or self.updates or self.deletes or self.counters or self.inflight)

    def apply(self, entry: Entry) -> None:
        """One batch, in the store's APPLY_ORDER: puts, backout updates, deletes, counters."""
        puts, updates, deletes, counters = entry
        pending = self.puts
        for m in puts:  # a copy: the caller may change its objects after the write
            pending[m.seq] = StoredMessage(m.seq, m.queue, m.priority, m.md, m.data, m.backout_count, m.put_time)
        for seq, count in updates:
            put = pending.get(seq)
            if put is not None:
                pending[seq] = StoredMessage(put.seq, put.queue, put.priority, put.md, put.data, count, put.put_time)
            elif seq not in self.deletes:
                self.updates[seq] = count
        for seq in deletes:
            if pending.pop(seq, None) is None:
                self.deletes.add(seq)
                self.updates.pop(seq, None)
        if counters:
            self.counters.update(counters)

    def harden(self, added: list[int], removed: list[int]) -> None:
        inflight = self.inflight
        for seq in removed:
            inflight[seq] = False
        for seq in added:
            inflight[seq] = True


Entry = tuple[list[StoredMessage], list[tuple[int, int]], list[int], list[tuple[str, int]]]


def encode(entries: list[Entry], added: list[int], removed: list[int]) -> bytes:
    rows = [
        [
            [[m.seq, m.queue, m.priority, m.md, m.data, m.backout_count, m.put_time] for m in puts],
            updates,
            deletes,
            counters,
        ]
        for puts, updates, deletes, counters in entries
    ]
    payload: bytes = msgpack.packb([rows, added, removed], use_bin_type=True)
    return payload


def decode(payload: bytes) -> tuple[list[Entry], list[int], list[int]]:
    rows, added, removed = msgpack.unpackb(payload, raw=False, strict_map_key=False)
    entries: list[Entry] = [
        (
            [StoredMessage(*row) for row in puts],
            [(seq, count) for seq, count in updates],
            list(deletes),
            [(name, value) for name, value in counters],
        )
        for puts, updates, deletes, counters in rows
    ]
    return entries, list(added), list(removed)


class Journal:
    """The journal file of one store. Used by the store's leader only (one thread at a time)."""

    def __init__(self, path: str, store_path: str) -> None:
        self.path = path
        self._store_path = store_path
        self._fd: int | None = None
        self.epoch = 0
        self.offset = HEADER_SIZE  # where the next record goes
        self._size = 0  # bytes allocated (written) in the file

    @property
    def used(self) -> int:
        """Bytes of records since the journal was last started."""
        return self.offset - HEADER_SIZE

    def read(self) -> tuple[int, list[bytes]]:
        """The epoch and the payloads of the valid records, in order; (0, []) when there is none. Raises
        StoreError for a file that is not a syncpoint journal, changing nothing.

        The journal's epoch is the first record's: every start writes from the first record on, so the first
        record is the newest epoch's, and the records of that epoch follow it up to the first that is cut short,
        fails its CRC or is older (what an earlier epoch left beyond the end)."""
        try:
            with open(self.path, "rb") as file:
                data = file.read()
        except FileNotFoundError:
            return 0, []
        except OSError as exc:
            raise StoreError(
                f"The journal {self.path} of the store {self._store_path} cannot be read ({exc.strerror}). "
                "Check its permissions."
            ) from exc
        if not any(data[:HEADER_SIZE]) or (len(data) < HEADER_SIZE and JOURNAL_MAGIC.startswith(data[:16])):
            # created (or grown), and the machine crashed before the header reached the disk: records are only
            # appended after it is synced, so there is nothing to recover
            return 0, []
        if not data.startswith(JOURNAL_MAGIC):
            raise StoreError(
                f"{self.path} is not a syncpoint journal (it holds the latest committed messages of the store "
                f"{self._store_path}). Move it back where it came from, or restore it from a backup; syncpoint "
                "has not changed it."
            )
        payloads: list[bytes] = []
        epoch = 0
        offset = HEADER_SIZE
        end = len(data)
        size = _RECORD.size
        while offset + size <= end:
            length, crc, record_epoch = _RECORD.unpack_from(data, offset)
            start = offset + size
            if (payloads and record_epoch != epoch) or record_epoch == 0 or length > end - start:
                break
            payload = data[start : start + length]
            if zlib.crc32(payload, zlib.crc32(_EPOCH.pack(record_epoch))) != crc:
                break  # the torn end of the last append
            epoch = record_epoch
            payloads.append(payload)
            offset = start + length
        return epoch, payloads

    def start(self, epoch: int) -> None:
        """Open the file (creating it with its header, synced) and start it at ``epoch``: records go from the
        start of the file again, over older ones."""
        if self._fd is None:
            try:
                fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
            except OSError as exc:
                raise StoreError(
                    f"The journal {self.path} of the store {self._store_path} cannot be opened ({exc.strerror}). "
                    "Check the directory's permissions."
                ) from exc
            self._fd = fd
            self._size = os.fstat(fd).st_size
            try:
                if self._size < HEADER_SIZE or os.pread(fd, HEADER_SIZE, 0) != HEADER:
                    self._grow(HEADER_SIZE)
                    os.pwrite(fd, HEADER, 0)
                    os.fdatasync(fd)
            except OSError as exc:
                raise StoreError(
                    f"The journal {self.path} of the store {self._store_path} cannot be written ({exc.strerror}). "
                    "Check the free disk space and the permissions."
                ) from exc
        self.restart(epoch)

    def discard(self) -> None:
        """Remove a journal left behind by a deleted store (a new store must not meet its records). Raises
        StoreError."""
        try:
            os.unlink(self.path)
        except FileNotFoundError:
            pass
        except OSError as exc:
            raise StoreError(
                f"The journal {self.path} left by an earlier store cannot be removed ({exc.strerror}). "
                "Check the directory's permissions."
            ) from exc

    def restart(self, epoch: int) -> None:
        """Start again at ``epoch`` (after a checkpoint): nothing is written; the next record goes first, and the
        older records after it are ignored at recovery. ``epoch`` must be above every epoch in the file."""
        self.epoch = epoch
        self.offset = HEADER_SIZE

    def append(self, payload: bytes, sync: bool) -> None:
        """Append one record; with ``sync`` return once it is on stable storage. Raises OSError."""
        fd = self._fd
        assert fd is not None
        epoch = _EPOCH.pack(self.epoch)
        record = _RECORD.pack(len(payload), zlib.crc32(payload, zlib.crc32(epoch)), self.epoch) + payload
        end = self.offset + len(record)
        if end > self._size:
            self._grow(end)
        written = os.pwrite(fd, record, self.offset)
        if written != len(record):
            raise OSError(f"short write to the journal ({written} of {len(record)} bytes)")
        self.offset = end
        if sync:
            os.fdatasync(fd)

    def sync(self) -> None:
        if self._fd is not None:
            os.fdatasync(self._fd)

    def _grow(self, end: int) -> None:
        fd = self._fd
        assert fd is not None
        size = self._size
        target = -(-end // GROW) * GROW
        while size < target:
            chunk = min(GROW, target - size)
            size += os.pwrite(fd, _ZEROS[:chunk], size)
        self._size = size

    def close(self) -> None:
        fd, self._fd = self._fd, None
        if fd is not None:
            os.close(fd)
