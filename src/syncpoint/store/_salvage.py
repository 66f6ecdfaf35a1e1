"""Salvaging a damaged store: what :class:`~syncpoint.store.StoreDamagedError` tells the operator to run.

A store refuses to open when one of its files is damaged in a way a crash cannot explain (see
``_sqlite_files.Files._recover_journal`` and ``_wal``). :func:`salvage` takes the store's lock (the queue manager
must be stopped), keeps what is valid and sets the damaged files aside, so that the next open starts with every
message that could be recovered:

* the write-ahead log: when SQLite's index says the log lost committed frames, the index (``-shm``) is set aside;
  SQLite then rebuilds it from the frames the log still holds. What the lost frames held cannot be counted.
* the marker file: a damaged one is set aside; the gets that were in flight at the crash are then not backed out
  with BackoutCount + 1 (their messages stay on their queues).
* the journal: every record of the current epoch that passes its checksum is applied, in order, also those after
  a damaged stretch, and the file is set aside. A damaged record's contents cannot be trusted: when it can still be
  decoded, its puts are reported lost and its gets as undone (those messages may be delivered again), per queue;
  otherwise its bytes are reported as unreadable. A missing journal is reported; what it held cannot be counted.

Files set aside keep their name with ``.damaged`` added (an older one of that name is replaced).
"""

from __future__ import annotations

import os
import sqlite3
from collections import Counter
from dataclasses import dataclass, field

from ._base import StoreError
from ._journal import GROW, IDENT_COUNTER, Entry, Journal, JournalFile, cut_by_end, decode, journal_state
from ._sqlite import SQLiteStore
from ._sqlite_base import _fsync_directory, _transaction
from ._wal import wal_shortfall


@dataclass(slots=True)
class SalvageReport:
    """What :func:`salvage` found and did. Every count is of persistent messages, per queue."""

    path: str
    damage: list[str] = field(default_factory=list)  # what was damaged, one sentence each
    recovered: dict[str, int] = field(default_factory=dict)  # messages applied from the journal's valid records
    lost: dict[str, int] = field(default_factory=dict)  # messages put in damaged records: lost
    undone_gets: dict[str, int] = field(default_factory=dict)  # gets in damaged records: may be delivered again
    uncounted: list[str] = field(default_factory=list)  # losses whose messages cannot be counted
    set_aside: list[str] = field(default_factory=list)  # the damaged files, kept under their new names
    depths: dict[str, int] = field(default_factory=dict)  # messages on each queue in the store afterwards

    @property
    def complete(self) -> bool:
        """Nothing is known or suspected lost."""
        return not (self.lost or self.undone_gets or self.uncounted)


def salvage(path: str | os.PathLike[str]) -> SalvageReport:
    """Salvage the store ``path`` (its queue manager stopped) and report what was lost. Raises StoreError when the
    store is in use, is not a syncpoint store, or its database itself is damaged (restore it from a backup)."""
    store = SQLiteStore(path)
    db = store.path
    report = SalvageReport(db)
    store._check_header()
    store._acquire_lock()
    try:
        store._check_header()
        shortfall = wal_shortfall(db)
        if shortfall is not None:
            report.damage.append(f"{db}-wal: {shortfall}")
            report.uncounted.append(
                "what SQLite had committed in the lost part of its write-ahead log (object definitions and "
                "messages checkpointed from the journal)"
            )
            _set_aside(db + "-shm", report)  # SQLite rebuilds the index from the frames the log still holds
        try:
            store._read_marks()
        except StoreError as exc:
            report.damage.append(str(exc))
            report.uncounted.append(
                "the in-flight gets at the crash are not backed out with BackoutCount + 1 (their messages stay)"
            )
            _set_aside(db + ".inflight", report)
        journal = Journal(db + ".journal", db)
        try:
            found = journal.load()
        except StoreError as exc:
            report.damage.append(str(exc))
            found = JournalFile(journal.path)
        connection = store._connect(False)
        try:
            _salvage_journal(store, connection, found, report)
            report.depths = dict(connection.execute("SELECT queue, count(*) FROM messages GROUP BY queue ORDER BY 1"))
        finally:
            connection.close()
        if found.present or os.path.exists(journal.path):
            if any(damage.startswith(journal.path) for damage in report.damage):
                _set_aside(journal.path, report)
            else:
                os.unlink(journal.path)
        _fsync_directory(os.path.dirname(os.path.abspath(db)))
    except OSError as exc:
        raise StoreError(
            f"The store {db} could not be salvaged ({exc}). Fix the cause and run the salvage again."
        ) from exc
    finally:
        store._release_lock()
    return report


def _salvage_journal(
    store: SQLiteStore, connection: sqlite3.Connection, found: JournalFile, report: SalvageReport
) -> None:
    applied, ident = store._journal_counters(connection)
    epoch = max(applied + 1, found.first_epoch())
    path = found.path
    if ident and not found.present:
        report.damage.append(f"{path}: the journal is missing, but the store records that it has one")
        report.uncounted.append("the messages committed since the journal's last checkpoint")
    bad_header = bool(ident and found.present and (found.blank or found.ident != ident))
    if found.present:
        found = JournalFile(path, present=True, flags=found.flags, data=found.data)  # read past a bad header
    scan = found.scan(epoch)
    if bad_header:
        report.damage.append(f"{path}: its header does not match the store (the records after it are read)")
        if not scan.records and not scan.later:
            report.uncounted.append("the messages committed since the journal's last checkpoint (none is left)")
    good = scan.records + [payload for _offset, payload, _durable in scan.later]
    if scan.bad:
        report.damage.append(
            f"{path}: {len(scan.bad)} damaged stretch(es), the first at byte {scan.bad[0][0]}; "
            f"{len(scan.later)} valid record(s) after it are recovered"
        )
    if scan.torn >= 0 and found.size % GROW and cut_by_end(found.data, scan.torn):
        report.damage.append(
            f"{path}: the file was truncated ({found.size} bytes), inside the record at byte {scan.torn}"
        )
        report.uncounted.append(f"the messages committed after byte {scan.torn} of {path} (truncated)")
    lost: Counter[str] = Counter()
    got: set[int] = set()  # messages whose get is in a damaged record
    for start, end in scan.bad:
        entries = _decode_damaged(found.data, start, end)
        if entries is None:
            report.uncounted.append(f"the changes in bytes {start} to {end} of {path} (unreadable)")
            continue
        for puts, _updates, deletes, _counters in entries:
            for put in puts:
                lost[str(put.queue)] += 1
            got.update(seq for seq in deletes if isinstance(seq, int))
    records = []
    for payload in good:
        try:
            records.append(decode(payload))
        except Exception:
            report.uncounted.append(f"a record of {path} that passes its checksum but cannot be read")
    state = journal_state(records)
    if state.puts:  # a message SQLite has already (a log that lost less than it seemed) is kept once
        low = min(state.puts)
        for (seq,) in connection.execute("SELECT seq FROM messages WHERE seq >= ?", (low,)).fetchall():
            state.puts.pop(seq, None)
    report.recovered = dict(sorted(Counter(m.queue for m in state.puts.values()).items()))
    report.lost = dict(sorted(lost.items()))
    store._write_state(connection, state, epoch)
    undone: Counter[str] = Counter()
    for seq in sorted(got):  # a message whose get was lost is back on its queue
        row = connection.execute("SELECT queue FROM messages WHERE seq = ?", (seq,)).fetchone()
        if row is not None:
            undone[row[0]] += 1
    report.undone_gets = dict(sorted(undone.items()))
    with _transaction(connection):  # the next open starts a new journal, with a new identity
        connection.execute("DELETE FROM counters WHERE name = ?", (IDENT_COUNTER,))


def _decode_damaged(data: bytes, start: int, end: int) -> list[Entry] | None:
    """The entries of the damaged record at ``start`` if its payload (ending by ``end``) can still be decoded."""
    if end - start <= 16:
        return None
    length = int.from_bytes(data[start : start + 4], "little") & 0x7FFF_FFFF
    payload = data[start + 16 : min(end, start + 16 + length)]
    try:
        entries, _added, _removed = decode(payload)
    except Exception:
        return None
    return entries


def _set_aside(path: str, report: SalvageReport) -> None:
    try:
        os.replace(path, path + ".damaged")
    except FileNotFoundError:
        return
    report.set_aside.append(path + ".damaged")
