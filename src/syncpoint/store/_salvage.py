"""Salvaging a damaged store: what :class:`~syncpoint.store.StoreDamagedError` tells the operator to run.

A store refuses to open when one of its files is damaged in a way a crash cannot explain (see
``_sqlite_files.Files._recover_journal`` and ``_wal``). :func:`salvage` takes the store's lock (the queue manager
must be stopped), keeps what is valid and sets the damaged files aside, so that the next open starts with every
message that could be recovered:

* the write-ahead log: when SQLite's index says the log lost committed frames, the index (``-shm``) is set aside;
  SQLite then rebuilds it from the frames the log still holds. What the lost frames held cannot be counted.
* the database: when SQLite cannot read every page of it (cut short, garbled), it is set aside with its log and
  every row that can still be read goes into a new file (``_salvage_db``); what the lost pages held is reported.
* the marker file: a damaged one is set aside, and a missing one of a store that was not closed cleanly is
  reported; the gets that were in flight at the crash are then not backed out with BackoutCount + 1 (their
  messages stay on their queues).
* the journal: every record of the current epoch that passes its checksum is applied, in order, also those after
  a damaged stretch or behind a header that is not the store's (records are found by their own framing), and the
  file is set aside. A damaged record's contents cannot be trusted: when it can still be decoded, its puts are
  reported lost and its gets as undone (those messages may be delivered again), per queue; otherwise its bytes are
  reported as unreadable. A missing journal is reported, and so are synced records missing from its end (its
  header's durable mark counts them); what they held cannot be counted.

The report's depths are read from the store afterwards, as the queue manager will load it: messages of a queue
that is no longer defined (its definition was in a lost part of the log) are not on any queue, and are listed
apart.

Files set aside keep their name with ``.damaged`` added (an older one of that name is replaced).
"""

from __future__ import annotations

import os
import sqlite3
from collections import Counter
from dataclasses import dataclass, field

from ._base import StoreError
from ._journal import GROW, IDENT_COUNTER, Entry, Journal, JournalFile, cut_by_end, decode, journal_state
from ._salvage_db import readable, rebuild
from ._sqlite import SQLiteStore
from ._sqlite_base import _fsync_directory, _transaction
from ._sqlite_marks import MARKS_COUNTER
from ._wal import wal_shortfall

_NOT_BACKED_OUT = "the in-flight gets at the crash are not backed out with BackoutCount + 1 (their messages stay)"
_QLOCAL = "QLOCAL"  # the objects table's kind of a local queue (syncpoint.mqi.objects.QLOCAL; the store is below it)


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
    undefined: dict[str, int] = field(default_factory=dict)  # messages kept whose queue is not defined: on no queue
    read_from_database: int = -1  # messages read from a damaged database file into a new one (-1: not rebuilt)
    journal_unknown: bool = False  # the database's journal epoch was lost: the journal's records are not applied

    @property
    def complete(self) -> bool:
        """Nothing is known or suspected lost."""
        return not (self.lost or self.undone_gets or self.uncounted or self.undefined)


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
            report.uncounted.append(_NOT_BACKED_OUT)
            _set_aside(db + ".inflight", report)
        problem = readable(db)  # after the log's index is set aside: opening the database rebuilds it
        if problem is not None:
            _rebuild(store, problem, report)
        journal = Journal(db + ".journal", db)
        try:
            found = journal.load()
        except StoreError as exc:  # not a journal's header: its records are still found by their framing
            report.damage.append(str(exc))
            with open(journal.path, "rb") as file:
                found = JournalFile(journal.path, present=True, ident=-1, data=file.read())
        connection = store._connect(False)
        try:
            if store._marks_missing and store._marks_in_use(connection):
                report.damage.append(
                    f"{store._marks_path}: the marker file is missing (the store was not closed cleanly)"
                )
                report.uncounted.append(_NOT_BACKED_OUT)
            _salvage_journal(store, connection, found, report)
            _count(connection, report)
        finally:
            connection.close()
        if found.present or os.path.exists(journal.path):
            if report.journal_unknown or any(damage.startswith(journal.path) for damage in report.damage):
                _set_aside(journal.path, report)
            else:
                os.unlink(journal.path)
        _fsync_directory(os.path.dirname(os.path.abspath(db)))
    except (OSError, sqlite3.Error) as exc:
        raise StoreError(
            f"The store {db} could not be salvaged ({exc}). Fix the cause and run the salvage again, or restore "
            "the queue manager's folder from a backup."
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
    if report.journal_unknown and found.present:
        report.uncounted.append(
            f"the messages committed since the journal's last checkpoint: the damaged database no longer says "
            f"which records of {path} it holds, so none is applied (they could bring back messages already got)"
        )
        _forget_journal(connection)
        return
    marked = found.mark_epoch if ident and found.ident == ident else 0
    synced = found.mark_count  # records of the epoch ``marked`` that were synced
    if marked > applied + 1:
        report.damage.append(
            f"{store.path}-wal: the database is older than its journal (it lost transactions SQLite had committed)"
        )
        report.uncounted.append(
            "what SQLite had committed in the lost part of its write-ahead log (object definitions and messages "
            "checkpointed from the journal)"
        )
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
    if marked == epoch and len(good) < synced:
        report.damage.append(
            f"{path}: its header records that {synced} records were synced, but {len(good)} are left "
            "(it was truncated or overwritten)"
        )
        report.uncounted.append(f"the messages of the {synced - len(good)} synced journal record(s) that are gone")
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
    _forget_journal(connection)


def _forget_journal(connection: sqlite3.Connection) -> None:
    with _transaction(connection):  # the next open starts a new journal, with a new identity, and marker file
        connection.executemany("DELETE FROM counters WHERE name = ?", [(IDENT_COUNTER,), (MARKS_COUNTER,)])


def _rebuild(store: SQLiteStore, problem: str, report: SalvageReport) -> None:
    rebuilt = rebuild(store)
    report.set_aside.append(rebuilt.damaged)
    report.damage.append(f"{store.path}: SQLite cannot read all of it ({problem})")
    report.read_from_database = rebuilt.messages
    report.journal_unknown = not rebuilt.epoch_known
    if rebuilt.lost:
        report.uncounted.append(
            f"what was on the pages of {store.path} that SQLite can no longer read (table(s) "
            f"{', '.join(rebuilt.lost)}); {rebuilt.messages} message(s) and {rebuilt.definitions} definition(s) "
            "were read"
        )
    if rebuilt.unplaced:
        report.damage.append(
            f"{store.path}: {rebuilt.unplaced} message(s) were read from pages no longer reached from their table "
            "(a message got just before the damage may be among them, and be delivered again)"
        )


def _count(connection: sqlite3.Connection, report: SalvageReport) -> None:
    """The messages now on each queue, as the queue manager will load them: on a queue only if it is defined."""
    defined = {name for (name,) in connection.execute("SELECT name FROM objects WHERE kind = ?", (_QLOCAL,))}
    for queue, count in connection.execute("SELECT queue, count(*) FROM messages GROUP BY queue ORDER BY 1"):
        (report.depths if queue in defined else report.undefined)[queue] = count


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
