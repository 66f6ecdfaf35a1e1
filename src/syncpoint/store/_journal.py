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

*The file.* A 32-byte header (:data:`JOURNAL_MAGIC`, the journal's identity, written once, synced, and only then
recorded by the store in its ``counters`` table; then the *durable mark*, see below), then records: payload length
(its top bit, :data:`DURABLE`, set when the record was synced as it was written), CRC-32 of the epoch and payload,
epoch, payload (msgpack). The file is grown with written zeros, a MiB at a time, so that appends overwrite
allocated blocks and a sync changes no file-system metadata; it keeps its size across checkpoints and is written
over from its first record on. Starting again after a checkpoint writes nothing: the next record, of the next
epoch, goes first, so the first record always carries the newest epoch.

*Recovery.* At ``open()`` the records that can hold what SQLite lacks are those of the epoch one above the epoch
SQLite recorded; they are read from the first record on up to the first that is cut short, fails its CRC or
carries another epoch, and applied in one durable transaction, before the in-flight markers are recovered. The
journal then goes on at an epoch one above that, above every epoch a record in the file can have. Then a torn
tail is told from damage (see ``Files._recover_journal``): only the last record of an epoch can be cut by a crash,
so a bad record followed by a valid one that was synced is damage, and so are a journal missing (or with another
identity) where the store records one, and a record of an epoch SQLite has not reached (SQLite lost part of its
write-ahead log), and fewer synced records than the header's durable mark counts. Damage is refused with
:class:`~syncpoint.store.StoreDamagedError` and nothing is changed; :func:`~syncpoint.store.salvage` keeps what is
valid. A file that does not start with the magic is refused with :class:`StoreError`; so is a record that passes
its CRC but cannot be decoded. A new store removes a journal left by a deleted one. Format 1 files (no identity,
no durable flag) are still read.

*The durable mark.* A record cut at its end tells a truncation apart from a crash, but a journal cut at a record
boundary, cut to its header or with its records zeroed holds nothing that looks wrong. So the header's last 8
bytes record what was made durable: the epoch (40 bits) and how many of its records (24 bits, saturating) were
synced. It is written (8 bytes, in place) after each ``fdatasync`` returns, and itself synced by the next one: it
never claims more than is on the disk, and a process killed after the write leaves it in the page cache. Fewer
valid records of that epoch than the mark counts is damage. The store also moves the mark's epoch on when a
durable SQLite transaction of its own commits (an open, a group that goes through SQLite, whose transaction
records the epoch the journal had): a mark whose epoch is above the one after SQLite's means SQLite lost
transactions it had committed, even when its log was deleted together with its index (``-shm``). The mark is
checked together with the header's identity; a format-2 file of an older syncpoint has zeros there (no mark).
What it cannot see: the records of the last sync after a machine crash that kept them but not the mark's write.
"""

from __future__ import annotations

import os
import struct
import zlib
from dataclasses import dataclass, field

import msgpack

from ._base import StoredMessage, StoreError

JOURNAL_MAGIC = b"syncpoint-journ\x02"  # 16 bytes; the last is the format version
OLD_MAGIC = b"syncpoint-journ\x01"  # format 1: no identity in the header, no durable flag in the records
_IDENT = struct.Struct("<Q")
HEADER_SIZE = 32  # the magic, the journal's identity (8 bytes), the durable mark (8 bytes)
_MARK_AT = 24  # the durable mark: epoch << 24 | records of that epoch synced (saturating at _MARK_COUNT)
_MARK = struct.Struct("<Q")
_MARK_COUNT = 0xFF_FFFF
_RECORD = struct.Struct("<IIQ")  # payload length (| DURABLE), crc32(epoch + payload), epoch: 16 bytes
_EPOCH = struct.Struct("<Q")
DURABLE = 0x8000_0000  # in a record's length word: the record was synced (with all before it) when written
_LENGTH = 0x7FFF_FFFF
GROW = 1 << 20  # the file grows by written zeros, this many bytes at a time
EPOCH_COUNTER = "syncpoint.store.journal-epoch"  # the counters row a checkpoint records its epoch in
IDENT_COUNTER = "syncpoint.store.journal-id"  # the counters row naming the journal the store has (its header's)


def header(ident: int) -> bytes:
    """The journal's header: the magic and the identity the store records in its ``counters`` table."""
    return JOURNAL_MAGIC + _IDENT.pack(ident) + bytes(8)


def _mark(epoch: int, count: int) -> bytes:
    """The durable mark: ``count`` records of ``epoch`` were synced (the epoch's low 40 bits; the count saturates)."""
    return _MARK.pack((epoch & 0xFF_FFFF_FFFF) << 24 | min(count, _MARK_COUNT))


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


@dataclass(slots=True)
class Scan:
    """The records of one epoch in a journal file, as :meth:`JournalFile.scan` found them."""

    records: list[bytes] = field(default_factory=list)  # valid, from the first record on, up to the first bad one
    torn: int = -1  # the offset of a record of the epoch, cut short or garbled, where they end (-1: none)
    bad: list[tuple[int, int]] = field(default_factory=list)  # damaged stretches (start, end) before valid records
    later: list[tuple[int, bytes, bool]] = field(default_factory=list)  # beyond the first bad one: offset, payload,
    # and whether the record was synced (and every record before it with it) when it was written

    @property
    def damaged(self) -> bool:
        """A bad record is followed by a valid one that was synced: not a torn tail, but damage."""
        return any(durable for _offset, _payload, durable in self.later)


@dataclass(slots=True)
class JournalFile:
    """A journal file as read at open, before anything is changed."""

    path: str
    present: bool = False
    blank: bool = False  # no header yet: created, and the machine crashed before the header reached the disk
    ident: int = 0  # the identity in its header (0 in format 1)
    flags: bool = True  # format 2: records say whether they were synced
    data: bytes = b""
    mark_epoch: int = 0  # the durable mark in the header (0: none): the epoch, and how many of its records
    mark_count: int = 0  # were synced

    @property
    def size(self) -> int:
        return len(self.data)

    def first_epoch(self) -> int:
        """The epoch of the record at the first position if it is valid (of any epoch), else 0: the newest epoch
        the file holds, since every start writes from the first position on."""
        data = self.data
        if len(data) < HEADER_SIZE + _RECORD.size:
            return 0
        epoch = _RECORD.unpack_from(data, HEADER_SIZE)[2]
        return epoch if epoch and _record_at(data, HEADER_SIZE, epoch) is not None else 0

    def scan(self, epoch: int) -> Scan:
        """The records of ``epoch``: from the first position on while they are valid; then, beyond the first bad
        one, every valid record of the epoch a search finds (there should be none: the records of an epoch are
        appended one after another, so only the last can be cut by a crash)."""
        data = self.data
        found = Scan()
        if not self.present or self.blank or epoch <= 0:
            return found
        needle = _EPOCH.pack(epoch)
        offset = HEADER_SIZE
        end = len(data)
        size = _RECORD.size
        first_bad = -1
        while True:
            record = _record_at(data, offset, epoch)
            if record is not None:
                payload, durable = record
                if first_bad < 0:
                    found.records.append(payload)
                else:
                    found.later.append((offset, payload, durable or not self.flags))
                offset += size + len(payload)
                continue
            if offset + size > end or not any(data[offset : offset + size]):
                pass  # the end of the file, or zeros: nothing was written here
            else:
                other = _RECORD.unpack_from(data, offset)[2]
                if other != epoch and other and _record_at(data, offset, other) is not None:
                    break  # an older epoch's record: the records of this one end here, as they should
                if other == epoch and found.torn < 0 and first_bad < 0:
                    found.torn = offset
            # Find the next valid record of the epoch, if any: its epoch field is 8 bytes into its header.
            search = offset + 1 + 8
            following = -1
            while following < 0:
                hit = data.find(needle, search)
                if hit < 0:
                    break
                if _record_at(data, hit - 8, epoch) is not None:
                    following = hit - 8
                search = hit + 1
            if following < 0:
                break
            if first_bad < 0:
                first_bad = offset
            found.bad.append((offset, following))
            offset = following
        return found


def _record_at(data: bytes, offset: int, epoch: int) -> tuple[bytes, bool] | None:
    """The payload and durable flag of a valid record of ``epoch`` at ``offset``, else None."""
    start = offset + _RECORD.size
    if start > len(data):
        return None
    word, crc, record_epoch = _RECORD.unpack_from(data, offset)
    length = word & _LENGTH
    if record_epoch != epoch or not 0 < length <= len(data) - start:
        return None
    payload = data[start : start + length]
    if zlib.crc32(payload, zlib.crc32(_EPOCH.pack(epoch))) != crc:
        return None
    return payload, bool(word & DURABLE)


def cut_by_end(data: bytes, offset: int) -> bool:
    """Whether the record at ``offset`` says it is longer than what the file holds after it."""
    word: int = _RECORD.unpack_from(data, offset)[0]
    return (word & _LENGTH) > len(data) - offset - _RECORD.size


def journal_state(records: list[tuple[list[Entry], list[int], list[int]]]) -> JournalState:
    """The net effect of decoded records, in order."""
    state = JournalState()
    for entries, added, removed in records:
        for entry in entries:
            state.apply(entry)
        state.harden(added, removed)
    return state


class Journal:
    """The journal file of one store. Used by the store's leader only (one thread at a time)."""

    def __init__(self, path: str, store_path: str) -> None:
        self.path = path
        self._store_path = store_path
        self._fd: int | None = None
        self.epoch = 0
        self.offset = HEADER_SIZE  # where the next record goes
        self.count = 0  # records appended since the journal was last started
        self._size = 0  # bytes allocated (written) in the file

    @property
    def used(self) -> int:
        """Bytes of records since the journal was last started."""
        return self.offset - HEADER_SIZE

    def load(self) -> JournalFile:
        """The file as it is, for recovery. Raises StoreError for a file that is not a syncpoint journal (or of a
        format this syncpoint does not know), changing nothing."""
        found = JournalFile(self.path)
        try:
            with open(self.path, "rb") as file:
                data = file.read()
        except FileNotFoundError:
            return found
        except OSError as exc:
            raise StoreError(
                f"The journal {self.path} of the store {self._store_path} cannot be read ({exc.strerror}). "
                "Check its permissions."
            ) from exc
        found.present = True
        found.data = data
        if not any(data[:HEADER_SIZE]) or (len(data) < HEADER_SIZE and JOURNAL_MAGIC.startswith(data[:16])):
            # created (or grown), and the machine crashed before the header reached the disk: records are only
            # appended after it is synced, so there is nothing in it (unless the store says otherwise: see
            # Files._load_journal)
            found.blank = True
            return found
        if data.startswith(OLD_MAGIC):
            found.flags = False
        elif not data.startswith(JOURNAL_MAGIC):
            raise StoreError(
                f"{self.path} is not a syncpoint journal (it holds the latest committed messages of the store "
                f"{self._store_path}). Move it back where it came from, or restore it from a backup; syncpoint "
                "has not changed it."
            )
        else:
            found.ident = _IDENT.unpack_from(data, 16)[0] if len(data) >= 24 else 0
            if len(data) >= HEADER_SIZE:
                mark = _MARK.unpack_from(data, _MARK_AT)[0]
                found.mark_epoch, found.mark_count = mark >> 24, mark & _MARK_COUNT
        return found

    def start(self, epoch: int, ident: int) -> None:
        """Open the file (creating it with the header of ``ident``, synced, its directory too) and start it at
        ``epoch``: records go from the start of the file again, over older ones."""
        if self._fd is None:
            try:
                fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
            except OSError as exc:
                raise StoreError(
                    f"The journal {self.path} of the store {self._store_path} cannot be opened ({exc.strerror}). "
                    "Check the directory's permissions."
                ) from exc
            self._fd = fd
            self._size = os.fstat(fd).st_size
            try:
                wanted = header(ident)
                if self._size < HEADER_SIZE or os.pread(fd, _MARK_AT, 0) != wanted[:_MARK_AT]:
                    created = self._size == 0
                    self._grow(HEADER_SIZE)
                    os.pwrite(fd, wanted, 0)
                    os.fdatasync(fd)
                    if created:  # the store records that it has a journal only once the file is sure to exist
                        directory = os.open(os.path.dirname(os.path.abspath(self.path)), os.O_RDONLY)
                        try:
                            os.fsync(directory)
                        finally:
                            os.close(directory)
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
        self.count = 0

    def mark(self) -> None:
        """Record in the header that the journal's records so far were synced (see "The durable mark"). Call
        only once they are (and every SQLite transaction that recorded an epoch below this one is). Raises
        OSError."""
        fd = self._fd
        if fd is not None:
            os.pwrite(fd, _mark(self.epoch, self.count), _MARK_AT)

    def append(self, payload: bytes, sync: bool) -> None:
        """Append one record; with ``sync`` return once it is on stable storage. Raises OSError."""
        fd = self._fd
        assert fd is not None
        if len(payload) > _LENGTH:
            raise OSError(f"a journal record of {len(payload)} bytes is too big")
        epoch = _EPOCH.pack(self.epoch)
        word = len(payload) | DURABLE if sync else len(payload)
        record = _RECORD.pack(word, zlib.crc32(payload, zlib.crc32(epoch)), self.epoch) + payload
        end = self.offset + len(record)
        if end > self._size:
            self._grow(end)
        written = os.pwrite(fd, record, self.offset)
        if written != len(record):
            raise OSError(f"short write to the journal ({written} of {len(record)} bytes)")
        self.offset = end
        self.count += 1
        if sync:
            os.fdatasync(fd)
            os.pwrite(fd, _mark(self.epoch, self.count), _MARK_AT)

    def sync(self) -> None:
        if self._fd is not None:
            os.fdatasync(self._fd)
            self.mark()

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
