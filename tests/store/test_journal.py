"""The SQLite store's journal: a group of message changes is one append and one fdatasync, not an SQLite
transaction; SQLite receives the net changes at checkpoints; a crash loses nothing committed.

Rules: the store contract (src/syncpoint/store/_base.py: "when batch.durable is true the call returns only after
the batch is on stable storage"; "a durable batch makes every earlier batch durable too"), issue 2 ("persistent
messages survive a restart with their order, MQMD and BackoutCount"; "a corrupt or foreign database file gives
IBM's reason code and changes nothing"). Crashes here are real: a child process is killed with SIGKILL.
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from test_marker_file import SRC, crash_after, reopen

from syncpoint.store import Batch, SQLiteStore, StoredMessage, StoreError
from syncpoint.store._journal import HEADER_SIZE, JOURNAL_MAGIC

_RECORD_HEADER = 16  # payload length, crc32, epoch


def message(seq: int, queue: str = "Q1", size: int = 16) -> StoredMessage:
    return StoredMessage(seq, queue, 0, bytes(364), (b"data %d " % seq).ljust(size, b"."), 0, 1.0)


def journal_path(store_path: Path) -> Path:
    return Path(str(store_path) + ".journal")


def rows(store_path: Path, table: str = "messages") -> list[int]:
    reader = sqlite3.connect(f"file:{store_path}?mode=ro", uri=True)  # WAL: reads beside the open store
    try:
        return [row[0] for row in reader.execute(f"SELECT seq FROM {table} ORDER BY seq")]
    finally:
        reader.close()


def test_a_durable_message_group_is_one_journal_append_and_one_sync_not_an_sqlite_transaction(store, store_path):
    before = store.stats()
    store.write(Batch(put_messages=[message(1), message(2)], counters={"seq": 3}))
    after = store.stats()
    assert after["syncs"] - before["syncs"] == 1
    assert rows(store_path) == []  # SQLite has not been written
    assert journal_path(store_path).read_bytes().startswith(JOURNAL_MAGIC)

    store.checkpoint()
    assert rows(store_path) == [1, 2]


def test_a_message_put_and_deleted_between_checkpoints_never_reaches_sqlite(store, store_path):
    store.write(Batch(put_messages=[message(1), message(2)]))
    store.checkpoint()
    store.write(Batch(put_messages=[message(3)]))
    store.write(Batch(delete_messages=[3, 1]))  # one got since the checkpoint, one from before it
    store.write(Batch(backout_updates=[(2, 4)]))
    store.checkpoint()
    assert rows(store_path) == [2]
    store.close()
    assert reopen(store_path) == ({2: 4}, 0)


def test_journaled_groups_survive_sigkill_and_are_applied_at_the_next_open(store_path):
    crash_after(
        store_path,
        """
        store.write(Batch(put_messages=[message(1), message(2), message(3)], counters={"seq": 4}))
        store.write(Batch(delete_messages=[2]))
        store.write(Batch(backout_updates=[(3, 2)], durable=False))
        store.write(Batch(put_messages=[message(4)], durable=False))  # in the kernel's cache: survives the process
        """,
    )
    reopened = SQLiteStore(store_path)
    snapshot = reopened.open()
    try:
        assert [(m.seq, m.backout_count) for m in snapshot.messages] == [(1, 0), (3, 2), (4, 0)]
        assert snapshot.counters == {"seq": 4}  # the journal's own bookkeeping is not shown
        assert rows(store_path) == [1, 3, 4]  # applied to SQLite at the open
    finally:
        reopened.close()
    assert reopen(store_path) == ({1: 0, 3: 2, 4: 0}, 0)  # and not applied twice


def test_an_in_flight_get_hardened_by_a_journal_record_is_backed_out_after_a_crash(store_path):
    crash_after(
        store_path,
        """
        store.write(Batch(put_messages=[message(1), message(2)]))
        store.write(Batch(inflight_add=[1], durable=False))   # MQGET in syncpoint: a marker record
        store.write(Batch(put_messages=[message(3)]))          # another connection's commit hardens it
        """,
    )
    Path(str(store_path) + ".inflight").write_bytes(Path(str(store_path) + ".inflight").read_bytes()[:16])
    assert reopen(store_path) == ({1: 1, 2: 0, 3: 0}, 1)  # the marker file lost its tail; the journal did not


def test_a_journal_already_checkpointed_before_a_crash_is_not_applied_again(store, store_path):
    # A crash between the checkpoint's commit and the journal's new start leaves the old records in the file:
    # the epoch SQLite recorded says they are in already (a message deleted since must not come back).
    store.write(Batch(put_messages=[message(1)]))
    old_journal = journal_path(store_path).read_bytes()
    store.checkpoint()
    store.write(Batch(delete_messages=[1]))
    store.close()
    journal_path(store_path).write_bytes(old_journal)
    assert reopen(store_path) == ({}, 0)


def test_a_torn_last_record_is_ignored_and_the_records_before_it_are_kept(store_path):
    crash_after(
        store_path,
        """
        store.write(Batch(put_messages=[message(1)]))
        store.write(Batch(put_messages=[message(2)]))
        """,
    )
    data = bytearray(journal_path(store_path).read_bytes())
    first = int.from_bytes(data[HEADER_SIZE : HEADER_SIZE + 4], "little") & 0x7FFF_FFFF  # the top bit: synced
    second = HEADER_SIZE + _RECORD_HEADER + first
    data[second + _RECORD_HEADER + 5] ^= 0xFF  # the second record was cut short by a machine crash
    # ... during its sync, so the header's durable mark (written once a sync has returned) counts the first only
    mark = int.from_bytes(data[HEADER_SIZE - 8 : HEADER_SIZE], "little")
    data[HEADER_SIZE - 8 : HEADER_SIZE] = ((mark >> 24) << 24 | 1).to_bytes(8, "little")
    journal_path(store_path).write_bytes(bytes(data))
    assert reopen(store_path) == ({1: 0}, 0)


def files_in(directory: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(directory.iterdir()) if p.is_file()}


@pytest.mark.parametrize(
    ("content", "complaint"),
    [
        (b"this is somebody's file, not a journal" * 3, "not a syncpoint journal"),
        (b"syncpoint-journ\x09" + bytes(16), "not a syncpoint journal"),  # a format this syncpoint does not know
    ],
)
def test_a_foreign_or_damaged_journal_is_refused_and_nothing_is_changed(
    store, store_path, tmp_path, content, complaint
):
    store.write(Batch(put_messages=[message(1)]))
    store.close()
    journal_path(store_path).write_bytes(content)
    before = files_in(tmp_path)
    with pytest.raises(StoreError, match=complaint):
        SQLiteStore(store_path).open()
    assert files_in(tmp_path) == before


def test_the_journal_is_checkpointed_into_sqlite_when_it_grows_past_its_limit(store_path):
    store = SQLiteStore(store_path, create=True, journal_limit=64 * 1024)
    store.open()
    try:
        for seq in range(1, 101):
            store.write(Batch(put_messages=[message(seq, size=1024)]))
        assert store.stats()["checkpoints"] >= 1
        assert len(rows(store_path)) >= 60  # those of the checkpoints; the rest are still in the journal
        assert journal_path(store_path).stat().st_size <= 2 << 20  # written over from the start, not grown
    finally:
        store.close()
    assert reopen(store_path)[0] == {seq: 0 for seq in range(1, 101)}


def test_object_changes_go_through_sqlite_after_the_journal_is_checkpointed(store, store_path):
    store.write(Batch(put_messages=[message(1)]))
    store.write(Batch(put_objects=[("queue", "Q1", b"definition")], delete_queue_messages=["Q2"]))
    assert rows(store_path) == [1]  # the checkpoint came first: SQLite never holds changes out of order
    store.write(Batch(put_messages=[message(2, "Q2")]))
    store.write(Batch(delete_queue_messages=["Q2"]))
    store.close()
    assert reopen(store_path) == ({1: 0}, 0)


def test_a_duplicate_seq_is_still_refused_when_the_first_one_is_in_the_journal(store):
    store.write(Batch(put_messages=[message(1)]))
    with pytest.raises(StoreError, match="each message seq may be stored once"):
        store.write(Batch(put_messages=[message(1)]))
    store.write(Batch(put_messages=[message(2)]))  # the store goes on


FILL_JOURNAL_WITH_A_FILE_SIZE_LIMIT = """
    import resource, signal, sys
    from syncpoint.store import Batch, SQLiteStore, StoredMessage, StoreError
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit then fails with EFBIG
    store = SQLiteStore(sys.argv[1], create=True)
    store.open()
    store.write(Batch(put_messages=[StoredMessage(1, "Q1", 0, bytes(364), b"kept", 0, 1.0)]))
    resource.setrlimit(resource.RLIMIT_FSIZE, (2 << 20, 2 << 20))
    for seq, size in ((2, 3 << 20), (3, 10)):
        try:
            store.write(Batch(put_messages=[StoredMessage(seq, "Q1", 0, bytes(364), bytes(size), 0, 1.0)]))
            print("written", seq)
        except StoreError as error:
            print("refused", seq, error)
    store.close()
"""


def test_a_failed_journal_write_fails_its_group_and_stops_the_store_keeping_what_was_committed(store_path):
    env = dict(os.environ, PYTHONPATH=SRC + os.pathsep + os.environ.get("PYTHONPATH", ""))
    child = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(FILL_JOURNAL_WITH_A_FILE_SIZE_LIMIT), str(store_path)],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    lines = child.stdout.splitlines()
    assert len(lines) == 2, child.stdout + child.stderr
    assert lines[0].startswith("refused 2") and "accepts no more writes" in lines[0]
    assert lines[1].startswith("refused 3") and "accepts no more writes" in lines[1]
    assert reopen(store_path) == ({1: 0}, 0)


def test_a_journal_left_by_a_deleted_store_is_neither_applied_nor_revived_in_a_new_store(store_path, tmp_path):
    old = SQLiteStore(store_path, create=True)
    old.open()
    old.write(Batch(put_messages=[message(1)]))
    old.write(Batch(put_messages=[message(2)]))
    leftover = journal_path(store_path).read_bytes()  # as a crash would leave it: records not checkpointed
    old.close()
    for name in ("qm.db", "qm.db-wal", "qm.db-shm"):
        (tmp_path / name).unlink(missing_ok=True)
    journal_path(store_path).write_bytes(leftover)

    new = SQLiteStore(store_path, create=True)
    assert new.open().messages == []
    new.write(Batch(put_messages=[message(7)]))  # the new store's first record; then a crash
    new._journal.close()  # type: ignore[union-attr]
    new._release_lock()
    assert reopen(store_path) == ({7: 0}, 0)  # the old store's record beyond it did not come back


def test_a_journal_of_zeros_left_by_a_crash_before_its_first_header_is_ignored(store, store_path):
    store.write(Batch(put_messages=[message(1)]))
    store.close()
    # The store records its journal's identity only once the header is on disk: before that, zeros are all a
    # crash can leave. (Zeros where the store records a journal are damage: tests/hardening/test_damaged_store.py.)
    with sqlite3.connect(store_path) as db:
        db.execute("DELETE FROM counters WHERE name = 'syncpoint.store.journal-id'")
    journal_path(store_path).write_bytes(bytes(1 << 20))
    assert reopen(store_path) == ({1: 0}, 0)


def test_records_behind_a_torn_first_record_never_pass_for_later_ones(store_path):
    # A crash can tear the journal's first record while later ones (never synced) reached the disk. The epoch the
    # store goes on at is above theirs, so when new records of the same sizes end exactly where the old ones
    # begin, recovery still stops there.
    crash_after(
        store_path,
        """
        store.write(Batch(put_messages=[message(1)], durable=False))
        store.write(Batch(put_messages=[message(2)], durable=False))
        """,
    )
    data = bytearray(journal_path(store_path).read_bytes())
    data[HEADER_SIZE + _RECORD_HEADER + 5] ^= 0xFF  # the first record is torn
    journal_path(store_path).write_bytes(bytes(data))
    assert reopen(store_path) == ({}, 0)
    crash_after(store_path, "store.write(Batch(put_messages=[message(3)]))")  # same size as the first record
    assert reopen(store_path) == ({3: 0}, 0)  # message 2's record, right behind it, stays dead
