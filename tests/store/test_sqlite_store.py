"""Rules only the SQLite store has: recognising its file, owning it, durability and group commit."""

from __future__ import annotations

import os
import random
import signal
import sqlite3
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import pytest

import syncpoint.store
from syncpoint.store import Batch, SQLiteStore, StoredMessage, StoreError
from syncpoint.store._sqlite import APPLICATION_ID, SCHEMA_VERSION
from waiting import wait_until

SRC = str(Path(syncpoint.store.__file__).resolve().parents[2])


def message(seq: int, queue: str = "Q1") -> StoredMessage:
    return StoredMessage(seq, queue, 0, bytes(364), b"data %d" % seq, 0, 1.0)


def files_in(directory: Path) -> dict[str, bytes]:
    return {path.name: path.read_bytes() for path in sorted(directory.iterdir())}


def run_python(code: str, *args: str, **kwargs: object) -> subprocess.Popen[str]:
    env = dict(os.environ, PYTHONPATH=SRC + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(code), *args],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        **kwargs,  # type: ignore[call-overload]
    )


# -- recognising the file -------------------------------------------------------------------------------------


def test_a_foreign_sqlite_file_is_rejected_and_left_unchanged(tmp_path: Path, store_path: Path):
    connection = sqlite3.connect(store_path)
    connection.execute("PRAGMA journal_mode = WAL")
    connection.execute("CREATE TABLE customers(id INTEGER PRIMARY KEY, name TEXT)")
    connection.execute("INSERT INTO customers VALUES (1, 'Ada')")
    connection.commit()
    connection.close()
    before = files_in(tmp_path)

    for create in (False, True):
        with pytest.raises(StoreError, match="does not belong to syncpoint") as error:
            SQLiteStore(store_path, create=create).open()
        assert str(store_path) in str(error.value)
        assert files_in(tmp_path) == before  # not even a -wal, -shm or .lock file appeared


def test_a_file_that_is_not_sqlite_is_rejected_and_left_unchanged(tmp_path: Path, store_path: Path):
    store_path.write_bytes(b"queue manager notes\n" * 100)
    before = files_in(tmp_path)

    with pytest.raises(StoreError, match="not an SQLite database") as error:
        SQLiteStore(store_path, create=True).open()

    assert str(store_path) in str(error.value)
    assert files_in(tmp_path) == before


def test_a_missing_file_is_rejected_without_create_and_not_created(tmp_path: Path, store_path: Path):
    with pytest.raises(StoreError, match=r"does not exist.*create=True"):
        SQLiteStore(store_path).open()
    assert list(tmp_path.iterdir()) == []


def test_an_empty_file_is_rejected_without_create(store_path: Path):
    store_path.touch()
    with pytest.raises(StoreError, match="empty file"):
        SQLiteStore(store_path).open()
    assert store_path.read_bytes() == b""


def test_a_directory_is_rejected(tmp_path: Path):
    with pytest.raises(StoreError, match="is a directory"):
        SQLiteStore(tmp_path, create=True).open()


def test_a_new_store_carries_the_syncpoint_application_id_and_schema_version(store, store_path: Path):
    store.close()
    header = store_path.read_bytes()[:100]
    assert int.from_bytes(header[68:72], "big") == APPLICATION_ID
    assert int.from_bytes(header[60:64], "big") == SCHEMA_VERSION
    connection = sqlite3.connect(store_path)
    assert connection.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    tables = {row[0] for row in connection.execute("SELECT name FROM sqlite_schema WHERE type = 'table'")}
    assert {"messages", "inflight", "objects", "counters"} <= tables
    connection.close()


def test_a_store_written_by_a_newer_syncpoint_is_rejected(store, store_path: Path):
    store.close()
    connection = sqlite3.connect(store_path)
    connection.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    connection.close()
    with pytest.raises(StoreError, match="newer syncpoint"):
        SQLiteStore(store_path).open()


def test_a_corrupt_store_is_rejected_and_left_unchanged(store, store_path: Path):
    store.write(Batch(put_messages=[message(seq) for seq in range(1, 2000)]))
    store.close()
    data = bytearray(store_path.read_bytes())
    page_size = int.from_bytes(data[16:18], "big")
    for page in range(1, len(data) // page_size):  # wreck every b-tree page header but the first page's
        data[page * page_size : page * page_size + 12] = b"\xee" * 12
    store_path.write_bytes(bytes(data))

    with pytest.raises(StoreError, match="damaged") as error:
        SQLiteStore(store_path).open()

    assert str(store_path) in str(error.value)
    assert store_path.read_bytes() == bytes(data)


# -- owning the file ------------------------------------------------------------------------------------------

OPEN_IN_CHILD = """
    import sys
    from syncpoint.store import SQLiteStore, StoreError
    try:
        SQLiteStore(sys.argv[1]).open()
    except StoreError as error:
        print("refused:", error)
    else:
        print("opened")
"""


def test_a_second_process_cannot_open_the_store(store, store_path: Path):
    child = run_python(OPEN_IN_CHILD, str(store_path))
    out, err = child.communicate(timeout=60)
    assert "refused:" in out, err
    assert "in use by another process" in out
    assert f"(pid {os.getpid()})" in out

    store.close()
    child = run_python(OPEN_IN_CHILD, str(store_path))
    out, err = child.communicate(timeout=60)
    assert out.strip() == "opened", err


def test_a_second_store_object_in_this_process_cannot_open_the_store(store, store_path: Path):
    with pytest.raises(StoreError, match="in use by this process"):
        SQLiteStore(store_path).open()


def test_the_lock_file_names_the_owning_process(store, store_path: Path):
    assert Path(f"{store_path}.lock").read_text().strip() == str(os.getpid())


def test_opening_an_open_store_again_is_refused(store):
    with pytest.raises(StoreError, match="already open"):
        store.open()


# -- durability -----------------------------------------------------------------------------------------------

WRITE_AND_HANG = """
    import sys, time
    from syncpoint.store import Batch, SQLiteStore, StoredMessage
    store = SQLiteStore(sys.argv[1], create=True)
    store.open()
    store.write(Batch(put_messages=[StoredMessage(1, "Q", 0, bytes(364), b"kept", 0, 1.0)]))
    store.write(Batch(inflight_add=[1], counters={"next_seq": 2}, durable=False))
    store.write(Batch(put_messages=[StoredMessage(2, "Q", 0, bytes(364), b"also kept", 0, 1.0)], durable=False))
    print("done", flush=True)
    time.sleep(60)
"""


def test_written_batches_survive_sigkill_of_the_process(store_path: Path):
    child = run_python(WRITE_AND_HANG, str(store_path))
    try:
        assert child.stdout is not None
        assert child.stdout.readline().strip() == "done", child.stderr.read() if child.stderr else ""
    finally:
        child.send_signal(signal.SIGKILL)
        child.communicate(timeout=60)
    assert child.returncode == -signal.SIGKILL

    reopened = SQLiteStore(store_path)  # the dead process's lock is gone with it
    snapshot = reopened.open()
    try:
        assert [(m.seq, m.data, m.backout_count) for m in snapshot.messages] == [(1, b"kept", 1), (2, b"also kept", 0)]
        assert snapshot.recovered_inflight == 1
        assert snapshot.counters == {"next_seq": 2}
    finally:
        reopened.close()


def test_only_durable_batches_are_synced(store):
    before = store.stats()
    store.write(Batch(put_messages=[message(1)], durable=False))
    store.write(Batch(delete_messages=[1], durable=False))
    middle = store.stats()
    store.write(Batch(put_messages=[message(2)]))
    after = store.stats()

    assert middle["syncs"] == before["syncs"]
    assert middle["batches"] == before["batches"] + 2
    assert after["syncs"] == middle["syncs"] + 1


def test_an_empty_durable_batch_syncs_the_earlier_non_durable_ones(store):
    store.write(Batch(put_messages=[message(1)], durable=False))
    before = store.stats()["syncs"]
    store.write(Batch())
    assert store.stats()["syncs"] == before + 1
    store.write(Batch())  # nothing left to sync
    assert store.stats()["syncs"] == before + 1


@pytest.mark.parametrize("journal", [True, False])
def test_a_batch_nobody_waits_for_is_committed_soon(store_path: Path, journal: bool):
    store = SQLiteStore(store_path, create=True, journal=journal)
    store.open()
    try:
        store.submit(Batch(put_messages=[message(1)], durable=False))
        wait_until(lambda: store.stats()["batches"] == 1, "the submitted batch's commit", timeout=10, interval=0.01)
        assert store.stats()["transactions"] == 1
        if not journal:  # then it is in the database file, for any reader
            reader = sqlite3.connect(f"file:{store_path}?mode=ro", uri=True)
            try:
                assert reader.execute("SELECT count(*) FROM messages").fetchone()[0] == 1
            finally:
                reader.close()
    finally:
        store.close()


def test_close_commits_what_is_queued(store_path: Path):
    store = SQLiteStore(store_path, create=True, flush_interval=3600)
    store.open()
    store.submit(Batch(put_messages=[message(1)], durable=False))
    store.close()
    reopened = SQLiteStore(store_path)
    assert [m.seq for m in reopened.open().messages] == [1]
    reopened.close()


# -- group commit ---------------------------------------------------------------------------------------------


def test_group_commit_serves_many_durable_batches_with_one_sync(store, store_path: Path):
    threads, per_thread = 16, 25
    barrier = threading.Barrier(threads)
    errors: list[BaseException] = []

    def produce(first: int) -> None:
        try:
            barrier.wait()
            for seq in range(first, first + per_thread):
                store.write(Batch(put_messages=[message(seq)]))
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    before = store.stats()
    workers = [threading.Thread(target=produce, args=(1 + n * per_thread,)) for n in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    after = store.stats()

    assert errors == []
    batches = after["batches"] - before["batches"]
    syncs = after["syncs"] - before["syncs"]
    assert batches == threads * per_thread
    assert 0 < syncs < batches
    # one sync per transaction: a journal record, an SQLite commit, or a checkpoint (out-of-order seqs from the
    # threads go through SQLite, which checks them for duplicates)
    assert after["transactions"] - before["transactions"] == syncs
    store.close()
    reopened = SQLiteStore(store_path)
    assert [m.seq for m in reopened.open().messages] == list(range(1, threads * per_thread + 1))
    reopened.close()


def test_submitters_and_waiters_in_any_order_never_hang_and_lose_nothing(store_path: Path):
    # Like the engine: submit under a lock, wait outside it; sometimes several at once in any order, sometimes
    # another thread's, sometimes never (close() commits those). No background flush: waiters alone must make
    # progress, handing the leadership on.
    store = SQLiteStore(store_path, create=True, flush_interval=3600)
    store.open()
    lock = threading.Lock()
    next_seq = [0]
    submitted: set[int] = set()
    unclaimed: list[object] = []
    errors: list[BaseException] = []

    def work(seed: int) -> None:
        rnd = random.Random(seed)
        try:
            for _ in range(60):
                mine = []
                for _ in range(rnd.randint(1, 4)):
                    with lock:
                        next_seq[0] += 1
                        batch = Batch(put_messages=[message(next_seq[0])], durable=rnd.random() < 0.5)
                        mine.append(store.submit(batch))
                        submitted.add(next_seq[0])
                choice = rnd.random()
                if choice < 0.2:
                    with lock:
                        unclaimed.extend(mine)
                elif choice > 0.3:
                    rnd.shuffle(mine)
                    for pending in mine:
                        pending.wait()
                with lock:
                    other = unclaimed.pop() if unclaimed and rnd.random() < 0.3 else None
                if other is not None:
                    other.wait()
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    workers = [threading.Thread(target=work, args=(seed,), daemon=True) for seed in range(12)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(60)
        assert not worker.is_alive(), "a writer hangs"
    store.close()

    assert errors == []
    reopened = SQLiteStore(store_path)
    assert {m.seq for m in reopened.open().messages} == submitted
    reopened.close()


class _FailingCommit:
    """Wraps the store's connection so that COMMIT fails as an I/O error would."""

    def __init__(self, connection: sqlite3.Connection) -> None:
        self._connection = connection

    def execute(self, sql: str, *args: object) -> sqlite3.Cursor:
        if sql == "COMMIT":
            self._connection.execute("ROLLBACK")
            raise sqlite3.OperationalError("disk I/O error")
        return self._connection.execute(sql, *args)

    def __getattr__(self, name: str) -> object:
        return getattr(self._connection, name)


def test_a_failed_commit_fails_every_batch_of_the_group_and_stops_the_store(store_path: Path):
    store = SQLiteStore(store_path, create=True, journal=False)  # the journal's failures: test_journal.py
    store.open()
    store.write(Batch(put_messages=[message(1)]))
    real = store._connection
    store._connection = _FailingCommit(real)
    pendings = [store.submit(Batch(put_messages=[message(seq)])) for seq in (2, 3)]
    for pending in pendings:
        with pytest.raises(StoreError, match="accepts no more writes"):
            pending.wait()
    with pytest.raises(StoreError, match="accepts no more writes"):
        store.submit(Batch(put_messages=[message(4)]))
    store._connection = real
    store.close()

    reopened = SQLiteStore(store_path)
    assert [m.seq for m in reopened.open().messages] == [1]
    reopened.close()


def test_a_full_disk_fails_the_store_rather_than_the_batch_and_keeps_what_was_committed(store_path: Path):
    store = SQLiteStore(store_path, create=True, journal=False)  # the journal's failures: test_journal.py
    store.open()
    store.write(Batch(put_messages=[message(1)]))
    pages = store._connection.execute("PRAGMA page_count").fetchone()[0]
    store._connection.execute(f"PRAGMA max_page_count = {pages}")  # the file cannot grow: "disk is full"
    big = Batch(put_messages=[StoredMessage(3, "Q1", 0, bytes(364), bytes(1 << 20), 0, 1.0)])
    with pytest.raises(StoreError, match="accepts no more writes"):
        store.write(big)
    with pytest.raises(StoreError, match="accepts no more writes"):
        store.write(Batch(put_messages=[message(2)]))
    store.close()

    reopened = SQLiteStore(store_path)
    assert [m.seq for m in reopened.open().messages] == [1]
    reopened.write(Batch(put_messages=[message(2)]))  # a restart recovers the store
    reopened.close()


def test_many_messages_load_in_seq_order_at_open(store, store_path: Path):
    count = 50_000
    for first in range(1, count + 1, 10_000):
        store.write(
            Batch(
                put_messages=[message(seq, f"Q{seq % 7}") for seq in range(first, first + 10_000)],
                durable=False,
            )
        )
    store.write(Batch(inflight_add=list(range(1, count + 1, 1000))))
    store.close()

    reopened = SQLiteStore(store_path)
    snapshot = reopened.open()
    reopened.close()
    assert [m.seq for m in snapshot.messages] == list(range(1, count + 1))
    assert snapshot.recovered_inflight == count // 1000
    assert snapshot.messages[1000] == StoredMessage(1001, "Q0", 0, bytes(364), b"data 1001", 1, 1.0)
