"""The SQLite store's marker file: a persistent get in syncpoint is recorded by one append, not an SQLite
transaction, and a crash still backs the get out with BackoutCount + 1.

Rules (docs/benchmarks.md, issue 2): "the BackoutCount of a persistent message got in syncpoint must be at least
its count+1 after a crash" (IBM MQ: the backout count survives restarts for persistent messages, HARDENBO), and
"every unit of work in flight at a crash is backed out at restart with the reinstated gets' BackoutCount
incremented". Crashes here are real: a child process is killed with SIGKILL.
"""

from __future__ import annotations

import os
import signal
import sqlite3
import struct
import subprocess
import sys
import textwrap
import zlib
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import syncpoint.store
from syncpoint.store import Batch, MemoryStore, SQLiteStore, StoredMessage, StoreError, _sqlite_marks
from syncpoint.store._sqlite import MARKER_MAGIC

SRC = str(Path(syncpoint.store.__file__).resolve().parents[2])
RECORD = 20  # bytes per marker record: seq, value, crc32


def message(seq: int, backout_count: int = 0, queue: str = "Q1") -> StoredMessage:
    return StoredMessage(seq, queue, 0, bytes(364), b"data %d" % seq, backout_count, 1.0)


def record(seq: int, value: int) -> bytes:
    body = struct.pack("<qq", seq, value)
    return body + struct.pack("<I", zlib.crc32(body))


def marker_path(store_path: Path) -> Path:
    return Path(str(store_path) + ".inflight")


def crash_after(store_path: Path, steps: str) -> None:
    """Run ``steps`` (Python, with ``store`` open on store_path) in a child process, then SIGKILL it."""
    code = (
        textwrap.dedent(
            """
        import sys, time
        from syncpoint.store import Batch, SQLiteStore, StoredMessage
        def message(seq, backout_count=0, queue="Q1"):
            return StoredMessage(seq, queue, 0, bytes(364), b"data %d" % seq, backout_count, 1.0)
        store = SQLiteStore(sys.argv[1], create=True)
        store.open()
        """
        )
        + textwrap.dedent(steps)
        + '\nprint("done", flush=True)\ntime.sleep(60)\n'
    )
    env = dict(os.environ, PYTHONPATH=SRC + os.pathsep + os.environ.get("PYTHONPATH", ""))
    child = subprocess.Popen(
        [sys.executable, "-c", code, str(store_path)],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert child.stdout is not None
        line = child.stdout.readline().strip()
        assert line == "done", child.stderr.read() if child.stderr else ""
    finally:
        child.send_signal(signal.SIGKILL)
        child.communicate(timeout=60)
    assert child.returncode == -signal.SIGKILL


def reopen(store_path: Path) -> tuple[dict[int, int], int]:
    """(seq -> backout count, recovered_inflight) after opening the store again."""
    store = SQLiteStore(store_path)
    try:
        snapshot = store.open()
    finally:
        store.close()
    return {m.seq: m.backout_count for m in snapshot.messages}, snapshot.recovered_inflight


# -- a get in syncpoint costs no SQLite transaction ---------------------------------------------------------------


def test_a_get_in_syncpoint_is_one_marker_record_and_no_sqlite_transaction(store, store_path: Path):
    store.write(Batch(put_messages=[message(1)]))
    before = store.stats()

    store.write(Batch(inflight_add=[1], durable=False))  # what the engine writes for MQGET in syncpoint

    after = store.stats()
    assert after["transactions"] == before["transactions"]
    assert after["syncs"] == before["syncs"]
    assert after["markers"] == before["markers"] + 1
    assert after["batches"] == before["batches"] + 1
    assert marker_path(store_path).read_bytes() == MARKER_MAGIC + record(1, -1)


def test_the_pending_result_of_a_get_in_syncpoint_is_done_at_submission(store):
    # The caller (the queue-manager host) then need not release its lock to wait.
    store.write(Batch(put_messages=[message(1)]))
    assert store.submit(Batch(inflight_add=[1], durable=False)).done
    queued = store.submit(Batch(put_messages=[message(2)]))
    assert not queued.done
    queued.wait()
    assert queued.done


# -- crashes ----------------------------------------------------------------------------------------------------


def test_a_crash_between_the_marker_and_the_commit_backs_the_get_out_with_backout_count_plus_one(store_path: Path):
    crash_after(
        store_path,
        """
        store.write(Batch(put_messages=[message(1), message(2, backout_count=3), message(3)]))
        store.write(Batch(inflight_add=[1, 2], durable=False))   # MQGET in syncpoint of 1 and 2, no MQCMIT
        """,
    )
    counts, recovered = reopen(store_path)
    assert counts == {1: 1, 2: 4, 3: 0}
    assert recovered == 2
    assert reopen(store_path) == ({1: 1, 2: 4, 3: 0}, 0)  # counted once: the next restart changes nothing


def test_a_committed_get_is_gone_after_a_crash_and_its_marker_is_harmless(store_path: Path):
    crash_after(
        store_path,
        """
        store.write(Batch(put_messages=[message(1), message(2)]))
        store.write(Batch(inflight_add=[1, 2], durable=False))
        store.write(Batch(delete_messages=[1]))                  # MQCMIT of the get of 1 (durable)
        """,
    )
    assert reopen(store_path) == ({2: 1}, 1)


def test_a_backout_before_the_crash_is_not_counted_again(store_path: Path):
    # MQBACK writes the new count and ends the marker; the crash must not add one more.
    crash_after(
        store_path,
        """
        store.write(Batch(put_messages=[message(1)]))
        store.write(Batch(inflight_add=[1], durable=False))
        store.write(Batch(backout_updates=[(1, 1)], inflight_remove=[1], durable=False))
        """,
    )
    assert reopen(store_path) == ({1: 1}, 0)


def test_a_get_again_after_a_backout_counts_both_after_a_crash(store_path: Path):
    crash_after(
        store_path,
        """
        store.write(Batch(put_messages=[message(1)]))
        store.write(Batch(inflight_add=[1], durable=False))
        store.write(Batch(backout_updates=[(1, 1)], inflight_remove=[1], durable=False))
        store.write(Batch(inflight_add=[1], durable=False))      # got again, BackoutCount 1; then the crash
        """,
    )
    assert reopen(store_path) == ({1: 2}, 1)


def test_a_backout_still_queued_at_the_crash_is_not_lost_for_a_get_that_followed_it(store_path: Path):
    # The backout's batch is submitted but nobody waits for it (so it may not reach SQLite before the kill);
    # the get that follows returns at once. Its BackoutCount was 1, so after the crash it must be at least 2.
    crash_after(
        store_path,
        """
        store.write(Batch(put_messages=[message(1)]))
        store.write(Batch(inflight_add=[1], durable=False))
        store.submit(Batch(backout_updates=[(1, 1)], inflight_remove=[1], durable=False))
        store.write(Batch(inflight_add=[1], durable=False))
        """,
    )
    counts, _recovered = reopen(store_path)
    assert counts[1] == 2


def test_a_restart_interrupted_before_the_marker_file_is_emptied_does_not_count_twice(
    store_path: Path, monkeypatch: pytest.MonkeyPatch
):
    crash_after(
        store_path,
        """
        store.write(Batch(put_messages=[message(1), message(2)]))
        store.write(Batch(inflight_add=[1], durable=False))
        store.write(Batch(inflight_add=[2], durable=False))
        store.write(Batch(backout_updates=[(2, 1)], inflight_remove=[2], durable=False))
        """,
    )

    def die(self: SQLiteStore) -> None:  # the recovery's first transaction is committed; then the "crash"
        raise OSError("killed before emptying the marker file")

    with monkeypatch.context() as patch:
        patch.setattr(SQLiteStore, "_open_marks", die)
        with pytest.raises(StoreError):
            SQLiteStore(store_path).open()
    assert len(marker_path(store_path).read_bytes()) > len(MARKER_MAGIC)

    assert reopen(store_path) == ({1: 1, 2: 1}, 1)


def test_a_torn_record_at_the_end_of_the_marker_file_is_ignored(store_path: Path):
    crash_after(
        store_path,
        """
        store.write(Batch(put_messages=[message(1), message(2)]))
        store.write(Batch(inflight_add=[1], durable=False))
        """,
    )
    path = marker_path(store_path)
    torn = record(2, -1)
    with path.open("ab") as file:
        file.write(torn[:11])  # the machine died in the middle of an append
    assert reopen(store_path) == ({1: 1, 2: 0}, 1)
    assert path.read_bytes() == MARKER_MAGIC  # emptied once recovered


def test_a_garbled_last_record_and_zeros_after_it_are_ignored(store_path: Path):
    crash_after(
        store_path,
        """
        store.write(Batch(put_messages=[message(1), message(2)]))
        store.write(Batch(inflight_add=[1], durable=False))
        """,
    )
    with marker_path(store_path).open("ab") as file:
        garbled = bytearray(record(2, -1))
        garbled[3] ^= 0xFF
        file.write(bytes(garbled) + bytes(2 * RECORD + 5))  # a block the crash left half written
    assert reopen(store_path) == ({1: 1, 2: 0}, 1)


def test_a_marker_file_left_by_a_machine_crash_before_its_header_was_written_is_recreated(store_path: Path):
    store = SQLiteStore(store_path, create=True)
    store.open()
    store.write(Batch(put_messages=[message(1)]))
    store.close()
    marker_path(store_path).write_bytes(MARKER_MAGIC[:5])
    assert reopen(store_path) == ({1: 0}, 0)
    assert marker_path(store_path).read_bytes() == MARKER_MAGIC


# -- refusing what is not a marker file ---------------------------------------------------------------------------


def test_a_foreign_marker_file_is_refused_and_nothing_is_changed(store, store_path: Path, tmp_path: Path):
    store.write(Batch(put_messages=[message(1)]))
    store.close()
    marker_path(store_path).write_bytes(b"my notes about in-flight work\n" * 3)
    before = {path.name: path.read_bytes() for path in tmp_path.iterdir()}

    with pytest.raises(StoreError, match="is not a syncpoint marker file") as error:
        SQLiteStore(store_path).open()

    assert str(marker_path(store_path)) in str(error.value)
    assert {path.name: path.read_bytes() for path in tmp_path.iterdir()} == before


def test_a_damaged_marker_file_is_refused_and_nothing_is_changed(store, store_path: Path, tmp_path: Path):
    store.write(Batch(put_messages=[message(1), message(2)]))
    store.close()
    garbled = bytearray(record(1, -1))
    garbled[0] ^= 0x01
    marker_path(store_path).write_bytes(MARKER_MAGIC + bytes(garbled) + record(2, -1))  # valid after garbled
    before = {path.name: path.read_bytes() for path in tmp_path.iterdir()}

    with pytest.raises(StoreError, match=r"marker file .* is damaged"):
        SQLiteStore(store_path).open()

    assert {path.name: path.read_bytes() for path in tmp_path.iterdir()} == before


# -- compaction -------------------------------------------------------------------------------------------------


def test_the_marker_file_is_emptied_once_no_get_is_in_flight_and_the_commit_is_synced(
    store, store_path: Path, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setattr(_sqlite_marks, "_MARKS_TRUNCATE", 0)  # (by default only once it is over 64 KiB)
    path = marker_path(store_path)
    store.write(Batch(put_messages=[message(seq) for seq in (1, 2, 3)]))
    store.write(Batch(inflight_add=[1], durable=False))
    store.write(Batch(inflight_add=[2], durable=False))
    store.write(Batch(delete_messages=[1]))  # 2 is still in flight: its record must stay
    assert path.stat().st_size == len(MARKER_MAGIC) + 2 * RECORD

    store.write(Batch(backout_updates=[(2, 1)], inflight_remove=[2], durable=False))
    assert path.stat().st_size > len(MARKER_MAGIC)  # ended, but only by an unsynced commit: kept

    store.write(Batch(put_messages=[message(4)]))  # a durable commit: now nothing needs the records
    assert path.read_bytes() == MARKER_MAGIC


def test_a_large_marker_file_is_rewritten_with_only_the_gets_in_flight(
    store_path: Path, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setattr(_sqlite_marks, "_MARKS_REWRITE", 40 * RECORD)
    store = SQLiteStore(store_path, create=True)
    store.open()
    try:
        store.write(Batch(put_messages=[message(seq) for seq in range(1, 101)]))
        store.write(Batch(inflight_add=[100], durable=False))  # held in flight throughout
        for seq in range(1, 61):
            store.write(Batch(inflight_add=[seq], durable=False))
            store.write(Batch(delete_messages=[seq]))  # each get committed at once
        size = marker_path(store_path).stat().st_size
        assert size <= len(MARKER_MAGIC) + 41 * RECORD
        assert record(100, -1) in marker_path(store_path).read_bytes()
    finally:
        store.close()
    assert reopen(store_path)[0][100] == 1


def test_a_rewritten_marker_file_still_backs_out_after_a_crash(store_path: Path):
    crash_after(
        store_path,
        """
        from syncpoint.store import _sqlite_marks
        _sqlite_marks._MARKS_REWRITE = 10 * 20
        store.write(Batch(put_messages=[message(seq) for seq in range(1, 31)]))
        store.write(Batch(inflight_add=[30], durable=False))
        for seq in range(1, 21):
            store.write(Batch(inflight_add=[seq], durable=False))
            store.write(Batch(delete_messages=[seq]))
        store.write(Batch(inflight_add=[25], durable=False))
        """,
    )
    counts, recovered = reopen(store_path)
    assert (counts[25], counts[30], counts[21], recovered) == (1, 1, 0, 2)


# -- machine crashes: what a durable batch makes durable ---------------------------------------------------------


def inflight_rows(store_path: Path) -> list[int]:
    reader = sqlite3.connect(f"file:{store_path}?mode=ro", uri=True)  # WAL: reads beside the open store
    try:
        return [row[0] for row in reader.execute("SELECT seq FROM inflight ORDER BY seq")]
    finally:
        reader.close()


def test_a_durable_batch_copies_the_markers_of_gets_still_in_flight_into_its_transaction(store, store_path: Path):
    # The marker file is not synced; a durable batch makes every earlier batch durable, so it takes the live
    # markers into its own journal record (synced with it): no extra sync, and they survive a machine crash from
    # then on. A checkpoint carries them into SQLite's inflight table.
    store.write(Batch(put_messages=[message(1), message(2)]))
    store.write(Batch(inflight_add=[1], durable=False))
    store.checkpoint()
    assert inflight_rows(store_path) == []
    syncs = store.stats()["syncs"]

    store.write(Batch(put_messages=[message(3)]))  # another connection's commit
    assert store.stats()["syncs"] == syncs + 1
    store.checkpoint()
    assert inflight_rows(store_path) == [1]

    store.write(Batch(backout_updates=[(1, 1)], inflight_remove=[1], durable=False))  # MQBACK
    store.checkpoint()
    assert inflight_rows(store_path) == []  # gone with the batch that ended the get


def test_a_get_copied_into_sqlite_and_then_committed_leaves_no_row(store, store_path: Path):
    store.write(Batch(put_messages=[message(1), message(2)]))
    store.write(Batch(inflight_add=[1], durable=False))
    store.write(Batch(put_messages=[message(3)]))
    store.write(Batch(delete_messages=[1]))  # MQCMIT of the get
    store.checkpoint()
    assert inflight_rows(store_path) == []


def test_a_get_copied_into_sqlite_is_backed_out_even_if_the_marker_file_lost_its_tail(store_path: Path):
    # What a machine crash can do to the unsynced marker file; the copy committed durably stays.
    crash_after(
        store_path,
        """
        store.write(Batch(put_messages=[message(1), message(2)]))
        store.write(Batch(inflight_add=[1], durable=False))
        store.write(Batch(put_messages=[message(3)]))
        """,
    )
    marker_path(store_path).write_bytes(MARKER_MAGIC)
    assert reopen(store_path) == ({1: 1, 2: 0, 3: 0}, 1)


def test_a_copied_get_backed_out_before_a_crash_is_not_counted_twice(store_path: Path):
    crash_after(
        store_path,
        """
        store.write(Batch(put_messages=[message(1), message(2)]))
        store.write(Batch(inflight_add=[1], durable=False))
        store.write(Batch(put_messages=[message(3)]))
        store.submit(Batch(backout_updates=[(1, 1)], inflight_remove=[1], durable=False))  # maybe not committed
        """,
    )
    assert reopen(store_path)[0][1] == 1


# -- groups: one statement per table must give what batch after batch gives ---------------------------------------

SEQS = st.integers(1, 10)
grouped_batches = st.builds(
    Batch,
    put_messages=st.lists(st.builds(message, SEQS, st.integers(0, 3), st.sampled_from(["A", "B"])), max_size=3),
    delete_messages=st.lists(SEQS, max_size=3),
    backout_updates=st.lists(st.tuples(SEQS, st.integers(0, 9)), max_size=2),
    inflight_add=st.lists(SEQS, max_size=2),
    inflight_remove=st.lists(SEQS, max_size=2),
    delete_queue_messages=st.lists(st.sampled_from(["A", "B"]), max_size=1),
    counters=st.dictionaries(st.sampled_from(["seq", "msgid"]), st.integers(0, 2**63), max_size=2),
    durable=st.booleans(),
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.lists(grouped_batches, min_size=1, max_size=8), max_size=5))
def test_batches_committed_as_one_group_end_as_if_applied_one_by_one(groups: list[list[Batch]]) -> None:
    import tempfile

    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "qm.db"
        memory = MemoryStore()
        memory.open()
        sqlite = SQLiteStore(path, create=True)
        sqlite.open()
        try:
            for group in groups:
                pendings = [sqlite.submit(batch) for batch in group]  # queued together: one group commit
                outcomes = []
                for pending in pendings:
                    try:
                        pending.wait()
                        outcomes.append("applied")
                    except StoreError:
                        outcomes.append("refused")
                expected = []
                for batch in group:
                    try:
                        memory.write(batch)
                        expected.append("applied")
                    except StoreError:
                        expected.append("refused")
                assert outcomes == expected, group
            sqlite.close()
            sqlite = SQLiteStore(path)
            assert sqlite.open() == memory.open()
        finally:
            sqlite.close()
            memory.close()


def test_a_small_marker_file_is_not_emptied_at_every_commit(store, store_path: Path):
    store.write(Batch(put_messages=[message(1)]))
    store.write(Batch(inflight_add=[1], durable=False))
    store.write(Batch(delete_messages=[1]))
    assert marker_path(store_path).stat().st_size == len(MARKER_MAGIC) + RECORD
    assert reopen_after_close(store) == {}


def reopen_after_close(store: SQLiteStore) -> dict[int, int]:
    path = store.path
    store.close()
    again = SQLiteStore(path)
    try:
        return {m.seq: m.backout_count for m in again.open().messages}
    finally:
        again.close()
