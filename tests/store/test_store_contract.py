"""The store contract (syncpoint.store._base), checked against every store through the ``harness`` fixture."""

from __future__ import annotations

import threading

import pytest

from syncpoint.store import Batch, Snapshot, StoredMessage, StoreError

MD = bytes(range(256)) + bytes(108)  # 364 bytes, like a packed MQMD version 2


def message(seq: int, queue: str = "Q1", **fields: object) -> StoredMessage:
    values: dict[str, object] = {"priority": 4, "md": MD, "data": b"payload %d" % seq, "put_time": 1.5e9 + seq}
    values.update(fields)
    return StoredMessage(seq, queue, **values)  # type: ignore[arg-type]


def seqs(snapshot: Snapshot) -> list[int]:
    return [m.seq for m in snapshot.messages]


def backout_counts(snapshot: Snapshot) -> dict[int, int]:
    return {m.seq: m.backout_count for m in snapshot.messages}


def test_a_new_store_is_empty(harness):
    snapshot = harness.start()
    assert snapshot == Snapshot(objects={}, messages=[], counters={}, recovered_inflight=0)


def test_persistent_messages_survive_restart_in_seq_order(harness):
    harness.start()
    big = bytes(range(256)) * 4096  # 1 MiB
    harness.store.write(Batch(put_messages=[message(5), message(2, "Q2", priority=9, data=big)]))
    harness.store.write(Batch(put_messages=[message(7, data=b"", backout_count=3, put_time=0.25)]))
    harness.store.write(Batch(put_messages=[message(1)]))

    snapshot = harness.restart()

    assert seqs(snapshot) == [1, 2, 5, 7]
    assert snapshot.messages[1] == StoredMessage(2, "Q2", 9, MD, big, 0, 1.5e9 + 2)
    assert snapshot.messages[3] == StoredMessage(7, "Q1", 4, MD, b"", 3, 0.25)
    assert all(type(m.md) is bytes and type(m.data) is bytes for m in snapshot.messages)
    assert snapshot.recovered_inflight == 0


def test_inflight_gets_are_backed_out_at_restart_with_backout_count_incremented(harness):
    harness.start()
    harness.store.write(Batch(put_messages=[message(1), message(2), message(3, backout_count=2)]))
    harness.store.write(Batch(inflight_add=[1, 3], durable=False))

    snapshot = harness.restart()

    assert snapshot.recovered_inflight == 2
    assert backout_counts(snapshot) == {1: 1, 2: 0, 3: 3}
    # The markers were cleared by that restart: the next one backs nothing out again.
    snapshot = harness.restart()
    assert snapshot.recovered_inflight == 0
    assert backout_counts(snapshot) == {1: 1, 2: 0, 3: 3}


def test_a_unit_of_work_that_ended_is_not_backed_out_at_restart(harness):
    harness.start()
    harness.store.write(Batch(put_messages=[message(1), message(2)]))
    harness.store.write(Batch(inflight_add=[1, 2]))
    harness.store.write(Batch(inflight_remove=[1, 2]))  # e.g. backed out by the application (counts kept)

    snapshot = harness.restart()

    assert snapshot.recovered_inflight == 0
    assert backout_counts(snapshot) == {1: 0, 2: 0}


def test_deleting_a_message_clears_its_inflight_marker(harness):
    harness.start()
    harness.store.write(Batch(put_messages=[message(1), message(2)]))
    harness.store.write(Batch(inflight_add=[1, 2]))
    harness.store.write(Batch(delete_messages=[1]))  # the get was committed
    # Seqs are never reused; storing 1 again only shows that no marker of the deleted message is left.
    harness.store.write(Batch(put_messages=[message(1)]))

    snapshot = harness.restart()

    assert snapshot.recovered_inflight == 1
    assert backout_counts(snapshot) == {1: 0, 2: 1}


def test_backout_updates_persist(harness):
    harness.start()
    harness.store.write(Batch(put_messages=[message(1), message(2)]))
    harness.store.write(Batch(backout_updates=[(1, 7), (2, 1)]))
    harness.store.write(Batch(backout_updates=[(2, 2)]))

    assert backout_counts(harness.restart()) == {1: 7, 2: 2}


def test_objects_and_counters_persist(harness):
    harness.start()
    harness.store.write(
        Batch(
            put_objects=[("queue", "Q1", b"def q1"), ("queue", "Q2", b"def q2"), ("process", "P1", b"def p1")],
            counters={"next_seq": 10, "dynamic_suffix": -3},
        )
    )
    harness.store.write(
        Batch(
            put_objects=[("queue", "Q1", b"def q1 v2")],
            delete_objects=[("queue", "Q2"), ("queue", "NEVER_DEFINED")],
            counters={"next_seq": 2**63 - 1},
        )
    )

    snapshot = harness.restart()

    assert snapshot.objects == {"queue": {"Q1": b"def q1 v2"}, "process": {"P1": b"def p1"}}
    assert snapshot.counters == {"next_seq": 2**63 - 1, "dynamic_suffix": -3}


def test_delete_queue_messages(harness):
    harness.start()
    harness.store.write(Batch(put_messages=[message(1, "A"), message(2, "B"), message(3, "A"), message(4, "C")]))
    harness.store.write(Batch(inflight_add=[3, 4]))
    harness.store.write(Batch(delete_queue_messages=["A", "EMPTY"]))

    snapshot = harness.restart()

    assert [(m.seq, m.queue) for m in snapshot.messages] == [(2, "B"), (4, "C")]
    assert snapshot.recovered_inflight == 1
    assert backout_counts(snapshot) == {2: 0, 4: 1}


def test_delete_queue_messages_clears_the_inflight_markers_of_those_messages(harness):
    harness.start()
    harness.store.write(Batch(put_messages=[message(1, "A"), message(2, "B")], inflight_add=[1, 2]))
    harness.store.write(Batch(delete_queue_messages=["A"]))
    # Seqs are never reused; storing 1 again only shows that no marker of the deleted message is left.
    harness.store.write(Batch(put_messages=[message(1, "A")]))

    snapshot = harness.restart()

    assert snapshot.recovered_inflight == 1
    assert backout_counts(snapshot) == {1: 0, 2: 1}


def test_batch_is_atomic_when_one_change_fails(harness):
    harness.start()
    harness.store.write(Batch(put_messages=[message(1)], counters={"next_seq": 2}))
    doomed = Batch(
        put_objects=[("queue", "Q9", b"def")],
        put_messages=[message(2), message(1, data=b"duplicate seq")],
        delete_messages=[2],
        inflight_add=[2],
        counters={"next_seq": 3},
    )

    with pytest.raises(StoreError, match="not applied"):
        harness.store.write(doomed)
    harness.store.write(Batch(put_messages=[message(3)]))  # the store is still usable

    snapshot = harness.restart()
    assert seqs(snapshot) == [1, 3]
    assert snapshot.messages[0].data == b"payload 1"
    assert snapshot.objects == {}
    assert snapshot.counters == {"next_seq": 2}
    assert snapshot.recovered_inflight == 0


def test_duplicate_seq_within_one_batch_is_rejected(harness):
    harness.start()
    with pytest.raises(StoreError):
        harness.store.write(Batch(put_messages=[message(1), message(1)]))
    assert harness.restart().messages == []


def test_a_batch_failing_at_its_last_change_keeps_none_of_its_earlier_changes(harness):
    harness.start()
    harness.store.write(Batch(put_messages=[message(1)], inflight_add=[1], counters={"c": 1}))
    with pytest.raises(StoreError):
        harness.store.write(
            Batch(
                put_objects=[("queue", "Q1", b"def")],
                put_messages=[message(2)],
                backout_updates=[(1, 5)],
                delete_messages=[1],
                inflight_remove=[1],
                counters={"c": 2, "too_big": 2**63},  # counters come last; this does not fit in 64 bits
            )
        )
    snapshot = harness.restart()
    assert snapshot == Snapshot(
        objects={}, messages=[message(1, backout_count=1)], counters={"c": 1}, recovered_inflight=1
    )


def test_changes_of_one_batch_apply_in_the_documented_order(harness):
    # put_objects, delete_objects, put_messages, delete_queue_messages, backout_updates, delete_messages,
    # inflight_add, inflight_remove, counters
    harness.start()
    harness.store.write(Batch(put_messages=[message(1, "OLD")]))
    harness.store.write(
        Batch(
            put_objects=[("queue", "X", b"x")],
            delete_objects=[("queue", "X")],  # after put_objects: X is gone
            put_messages=[message(2), message(3), message(4, "OLD")],
            delete_queue_messages=["OLD"],  # after put_messages: 1 and 4 are gone
            backout_updates=[(2, 5), (3, 6)],  # after put_messages: applies to the new messages
            delete_messages=[3],  # after backout_updates
            inflight_add=[2, 5],
            inflight_remove=[5],  # after inflight_add: 5 is not marked
        )
    )

    snapshot = harness.restart()

    assert snapshot.objects == {}
    assert seqs(snapshot) == [2]
    assert snapshot.recovered_inflight == 1
    assert backout_counts(snapshot) == {2: 6}


def test_deleting_updating_or_unmarking_an_unknown_seq_is_not_an_error(harness):
    harness.start()
    harness.store.write(Batch(delete_messages=[42], backout_updates=[(43, 1)], inflight_remove=[44]))
    harness.store.write(Batch(inflight_add=[45]))  # a marker without a message is dropped at restart
    snapshot = harness.restart()
    assert snapshot.messages == [] and snapshot.recovered_inflight == 0


def test_non_durable_batches_are_kept_across_a_restart(harness):
    harness.start()
    harness.store.write(Batch(put_messages=[message(1)], durable=False))
    harness.store.write(Batch(counters={"c": 1}, durable=False))
    snapshot = harness.restart()
    assert seqs(snapshot) == [1] and snapshot.counters == {"c": 1}


def test_empty_batches_are_accepted(harness):
    harness.start()
    harness.store.write(Batch())
    harness.store.write(Batch(durable=False))
    harness.store.submit(Batch()).wait()
    assert harness.restart().messages == []


def test_submitted_batches_apply_in_submission_order(harness):
    harness.start()
    first = harness.store.submit(Batch(put_messages=[message(1)], durable=False))
    second = harness.store.submit(Batch(delete_messages=[1], put_messages=[message(2)], durable=False))
    third = harness.store.submit(Batch(backout_updates=[(2, 4)]))
    third.wait()  # waiting for the last one commits (and syncs) the earlier ones too
    first.wait()
    second.wait()
    snapshot = harness.restart()
    assert backout_counts(snapshot) == {2: 4}


def test_a_failed_batch_does_not_affect_the_batches_submitted_with_it(harness):
    harness.start()
    harness.store.write(Batch(put_messages=[message(1)]))
    pendings = [
        harness.store.submit(Batch(put_messages=[message(2)])),
        harness.store.submit(Batch(put_messages=[message(3), message(1)])),  # duplicate seq 1
        harness.store.submit(Batch(put_messages=[message(4)], counters={"c": 4})),
    ]
    pendings[2].wait()
    pendings[0].wait()
    with pytest.raises(StoreError):
        pendings[1].wait()
    snapshot = harness.restart()
    assert seqs(snapshot) == [1, 2, 4]
    assert snapshot.counters == {"c": 4}


def test_what_is_stored_cannot_be_changed_through_the_written_or_returned_objects(harness):
    harness.start()
    written = message(1)
    harness.store.write(Batch(put_messages=[written]))
    written.backout_count = 99
    written.queue = "CHANGED"
    snapshot = harness.restart()
    snapshot.messages[0].backout_count = 42
    snapshot = harness.restart()
    assert snapshot.messages == [message(1)]


def test_writing_to_a_store_that_is_not_open_is_refused(harness):
    with pytest.raises(StoreError, match="not open"):
        harness.store.write(Batch(put_messages=[message(1)]))
    harness.start()
    harness.store.close()
    harness.store.close()  # idempotent
    with pytest.raises(StoreError, match="not open"):
        harness.store.write(Batch(put_messages=[message(1)]))
    with pytest.raises(StoreError, match="not open"):
        harness.store.submit(Batch(put_messages=[message(1)]))


def test_a_closed_store_opens_again_with_its_contents(harness):
    harness.start()
    harness.store.write(Batch(put_messages=[message(1)], durable=False))
    harness.store.close()
    assert seqs(harness.store.open()) == [1]


def test_a_batch_of_ten_thousand_messages_is_written_and_read_back(harness):
    harness.start()
    harness.store.write(Batch(put_messages=[message(seq, data=bytes(100)) for seq in range(1, 10_001)]))
    harness.store.write(Batch(delete_messages=list(range(1, 10_001, 2))))
    snapshot = harness.restart()
    assert seqs(snapshot) == list(range(2, 10_001, 2))


def test_concurrent_writers_lose_nothing(harness):
    harness.start()
    threads, per_thread = 8, 40
    errors: list[BaseException] = []

    def produce(first: int) -> None:
        try:
            for seq in range(first, first + per_thread):
                harness.store.write(Batch(put_messages=[message(seq)], durable=seq % 2 == 0))
                if seq % 3 == 0:
                    harness.store.write(Batch(delete_messages=[seq]))
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    workers = [threading.Thread(target=produce, args=(1 + n * per_thread,)) for n in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()

    assert errors == []
    expected = [seq for seq in range(1, threads * per_thread + 1) if seq % 3 != 0]
    assert seqs(harness.restart()) == expected


def test_a_pending_write_is_done_once_waited_for(harness):
    harness.start()
    pending = harness.store.submit(Batch(put_messages=[message(1)]))
    pending.wait()
    assert pending.done
