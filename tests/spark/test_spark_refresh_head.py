"""The stream reader learns what a batch left from the queue's head (docs/flows.md, Performance, change 14): a
message the batch backed out is planned again, one it committed never, whatever the queue's delivery order.

Rules quoted:
- reference/spark.md: deterministic micro-batches by a per-queue sequence; a batch's messages removed at its
  commit; a message backed out comes back for a later batch.
- seed 004 (MQInput): a backed-out message is retried with BackoutCount + 1.
- reference/mqsc.md: MSGDLVSQ(PRIORITY) delivers by priority, then in put order; MSGDLVSQ(FIFO) in put order.

The driver's reader is called in this process against a real server (as Spark's driver calls it); the batch's
commit is done here as a partition does it (gets by MsgToken under syncpoint, MQCMIT or MQBACK).
"""

from __future__ import annotations

from typing import Any

import pytest

from syncpoint.client import QueueManager
from syncpoint.mqi import constants as C
from syncpoint.spark._source import StreamReader, _driver_state


def _batch(r: StreamReader, start: dict[str, Any]) -> tuple[dict[str, Any], list[int]]:
    end = r.latestOffset(start, None)
    return end, [t for p in r.partitions(start, end) for t in p.tokens]  # type: ignore[attr-defined]


@pytest.mark.parametrize("dlvsq", [C.MQMDS_PRIORITY, C.MQMDS_FIFO])
def test_a_batchs_backed_out_message_is_planned_again_and_its_committed_ones_never(
    server: Any, qm: QueueManager, names: Any, dlvsq: int
) -> None:
    src = names("RH.IN")
    qm.admin("define", "QLOCAL", src, {"MSGDLVSQ": dlvsq})
    q = qm.open(src)
    for i in range(6):
        q.put(f"m{i}".encode(), priority=4 if i % 2 else 2, persistent=True)
    r = StreamReader({"queue": src, **server.target.options(), "maxMessagesPerBatch": "4", "partitions": "1"})
    try:
        end1, first = _batch(r, r.initialOffset())
        assert len(first) == 4
        worker = server.connect()
        try:
            w = worker.open(src)
            got = w.get_tokens(first, syncpoint=True)
            assert all(m is not None for m in got)
            worker.backout()  # all four back, BackoutCount 1 ...
            w.get_tokens(first[1:], syncpoint=True)
            worker.commit()  # ... and three of them committed: the first is left for a retry
            q.put(b"late", priority=9, persistent=True)  # ahead of everything on a priority queue
            end2, second = _batch(r, end1)
            assert first[0] in second and not set(first[1:]) & set(second)
            retried = dict(zip(second, w.get_tokens(second, syncpoint=True), strict=True))
            worker.commit()
            again = retried[first[0]]
            assert again is not None and got[0] is not None and again.data == got[0].data
            assert again.md.BackoutCount == 1  # seed 004: backed out once, retried
            assert len(set(first) | set(second)) == 7 and q.depth == 0  # each message planned until committed
            assert r.latestOffset(end2, None) == end2  # nothing left: no batch planned again
        finally:
            worker.disconnect()
    finally:
        st = _driver_state.pop(r._key, None)
        if st is not None:
            st.qm.disconnect()
