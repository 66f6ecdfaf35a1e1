"""What the stream reader browses on Spark's serial path (latestOffset, between two batches): only what the
batch it plans still lacks; the read-ahead, running while the executors process a batch, indexes the next one
(docs/flows.md, Performance, change 16).

Rules quoted:
- reference/spark.md: deterministic micro-batches by a per-queue sequence, bounded by maxMessagesPerBatch; a
  batch's messages removed at its commit.
- reference/spark.md (groups): a group is processed whole, in MsgSeqNumber order; a group whose last message is
  not on the queue yet waits (docs/spark.md: incomplete groups are held back).

The driver's reader is called in this process against a real server (as Spark's driver calls it); each batch's
commit is done here as a partition does it (gets by MsgToken under syncpoint, MQCMIT).
"""

from __future__ import annotations

from typing import Any

from syncpoint.client import QueueManager
from syncpoint.mqi import MQMD
from syncpoint.mqi import constants as C
from syncpoint.spark._source import StreamReader, _driver_state


def _batch(r: StreamReader, start: dict[str, Any]) -> tuple[dict[str, Any], list[int], int]:
    """Plan the batch after ``start`` as Spark's driver does: its end, its tokens, and what latestOffset browsed
    itself."""
    end = r.latestOffset(start, None)
    browsed = _driver_state[r._key].serial_browsed
    if end == start:  # nothing to do: Spark plans no batch
        return end, [], browsed
    return end, [t for p in r.partitions(start, end) for t in p.tokens], browsed  # type: ignore[attr-defined]


def _commit(worker: QueueManager, queue: str, tokens: list[int]) -> list[bytes]:
    q = worker.open(queue)
    got = q.get_tokens(tokens, syncpoint=True)
    worker.commit()
    q.close()
    return [m.data for m in got if m is not None]


def _drop(r: StreamReader) -> None:
    st = _driver_state.pop(r._key, None)
    if st is not None:
        st.settle()
        st.qm.disconnect()


def test_a_batch_after_the_first_browses_nothing_the_read_ahead_indexed(
    server: Any, qm: QueueManager, names: Any
) -> None:
    src = names("SB.IN")
    qm.admin("define", "QLOCAL", src, {})
    q = qm.open(src)
    for i in range(35):
        q.put(f"m{i}".encode(), persistent=True)
    r = StreamReader({"queue": src, **server.target.options(), "maxMessagesPerBatch": "10", "partitions": "1"})
    worker = server.connect()
    try:
        start = r.initialOffset()
        sizes, browsed, bodies = [], [], []
        while True:
            end, tokens, n = _batch(r, start)
            browsed.append(n)
            if not tokens:
                break
            sizes.append(len(tokens))
            bodies += _commit(worker, src, tokens)
            start = end
        assert sizes == [10, 10, 10, 5]  # every batch full (maxMessagesPerBatch) while the queue has enough
        assert bodies == [f"m{i}".encode() for i in range(35)] and q.depth == 0
        # the first batch browses its own 10; each later one finds them indexed by the read-ahead of the batch
        # before (which ran while "the executors" committed it): nothing browsed on the serial path
        assert browsed[0] == 10
        assert browsed[1:] == [0] * (len(browsed) - 1)
    finally:
        worker.disconnect()
        _drop(r)


def _group(q: Any, gid: bytes, seqs: range, last: int | None) -> None:
    for i in seqs:
        md = MQMD()
        md.GroupId = gid.ljust(24, b"\0")
        md.MsgSeqNumber = i
        md.MsgFlags = C.MQMF_LAST_MSG_IN_GROUP if i == last else C.MQMF_MSG_IN_GROUP
        q.put(f"{gid.decode()}{i}".encode(), md=md, persistent=True)


def test_a_batch_is_full_past_a_group_held_back_and_the_group_comes_whole_once_complete(
    server: Any, qm: QueueManager, names: Any
) -> None:
    src = names("SB.GRP")
    qm.admin("define", "QLOCAL", src, {})
    q = qm.open(src)
    for i in range(2):
        q.put(f"a{i}".encode(), persistent=True)
    _group(q, b"G", range(1, 4), None)  # three of a group whose last message is not on the queue yet
    for i in range(6):
        q.put(f"b{i}".encode(), persistent=True)
    r = StreamReader({"queue": src, **server.target.options(), "maxMessagesPerBatch": "6", "partitions": "1"})
    worker = server.connect()
    try:
        end, tokens, n = _batch(r, r.initialOffset())
        # the group is held back and the batch is still full: the messages after it take its place (the first
        # browse of 6 met 3 of the group, so latestOffset browsed 3 more)
        assert _commit(worker, src, tokens) == [b"a0", b"a1", b"b0", b"b1", b"b2", b"b3"]
        assert n == 9
        _driver_state[r._key].settle()  # the read-ahead (b4, b5) done before the group's last message comes
        _group(q, b"G", range(4, 5), 4)
        end, tokens, n = _batch(r, end)
        assert _commit(worker, src, tokens) == [b"G1", b"G2", b"G3", b"G4", b"b4", b"b5"]  # whole, in order
        assert n == 1  # only the group's last message: the rest was indexed
        assert r.latestOffset(end, None) == end and q.depth == 0
    finally:
        worker.disconnect()
        _drop(r)
