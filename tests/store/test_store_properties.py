"""Property: any sequence of batches and restarts leaves MemoryStore and SQLiteStore in the same state."""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from syncpoint.store import Batch, MemoryStore, Snapshot, SQLiteStore, StoredMessage, StoreError

INT64 = st.integers(-(2**63), 2**63 - 1)
SEQS = st.integers(1, 12)  # few seqs, so that batches collide: duplicates, deletes and markers of stored ones
QUEUES = st.sampled_from(["A", "B", "C"])
NAMES = st.sampled_from(["Q1", "Q2", "P1"])
KINDS = st.sampled_from(["queue", "process"])

messages = st.builds(
    StoredMessage,
    seq=SEQS,
    queue=QUEUES,
    priority=st.integers(0, 9),
    md=st.binary(max_size=8),
    data=st.binary(max_size=32),
    backout_count=st.integers(0, 5),
    put_time=st.floats(0, 2e9),
)

batches = st.builds(
    Batch,
    put_messages=st.lists(messages, max_size=3),
    delete_messages=st.lists(SEQS, max_size=3),
    backout_updates=st.lists(st.tuples(SEQS, st.integers(0, 1000)), max_size=2),
    inflight_add=st.lists(SEQS, max_size=3),
    inflight_remove=st.lists(SEQS, max_size=2),
    put_objects=st.lists(st.tuples(KINDS, NAMES, st.binary(max_size=8)), max_size=2),
    delete_objects=st.lists(st.tuples(KINDS, NAMES), max_size=1),
    delete_queue_messages=st.lists(QUEUES, max_size=1),
    counters=st.dictionaries(st.sampled_from(["seq", "suffix"]), st.one_of(INT64, st.just(2**63)), max_size=2),
    durable=st.booleans(),
)

# A step is a batch to write, or None: restart both stores.
steps = st.lists(st.one_of(batches, batches, batches, st.none()), max_size=25)


def outcome(store: MemoryStore | SQLiteStore, batch: Batch) -> str:
    try:
        store.write(batch)
    except StoreError:
        return "refused"
    return "applied"


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(steps)
def test_memory_and_sqlite_stores_agree_after_any_batches_and_restarts(plan: list[Batch | None]) -> None:
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "qm.db"
        memory = MemoryStore()
        sqlite = SQLiteStore(path, create=True)
        try:
            assert memory.open() == sqlite.open()
            for step in plan:
                if step is None:
                    sqlite.close()
                    sqlite = SQLiteStore(path)
                    memory_snapshot: Snapshot = memory.open()
                    assert sqlite.open() == memory_snapshot
                else:
                    assert outcome(memory, step) == outcome(sqlite, step), step
            sqlite.close()
            sqlite = SQLiteStore(path)
            final = memory.open()
            assert sqlite.open() == final
            assert [m.seq for m in final.messages] == sorted({m.seq for m in final.messages})
        finally:
            sqlite.close()
            memory.close()
