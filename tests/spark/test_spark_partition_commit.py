"""A flow committing per partition (``Flow(commit="partition")``): each partition's executor gets its messages by
MsgToken under syncpoint, runs the node and carries out the dispositions in its own unit of work (issue 22: the
sink's commit is no longer the driver's alone). The same rules hold as with the sink's commit.

Rules quoted:
- reference/spark.md: exactly-once — a batch's outputs and the consumption of its messages happen together.
- seed 004 (MQInput): a failed message is backed out (BackoutCount + 1) and retried until BOTHRESH, then put on
  BOQNAME; issue 22 item 4: "the other messages of the batch are not reprocessed more than once".
"""

from __future__ import annotations

import os
from collections import Counter
from pathlib import Path
from typing import Any

from syncpoint.client import QueueManager
from syncpoint.flow import Flow, FlowMessage, MQInput, run_flow


def bodies(qm: QueueManager, queue: str) -> list[bytes]:
    return [m.data for m in qm.open(queue).browse_all()]


def counting(log: Path) -> Any:
    def out(m: FlowMessage) -> Any:
        fd = os.open(log, os.O_WRONLY | os.O_APPEND | os.O_CREAT)  # one line per call, from any executor process
        os.write(fd, m.data + b"\n")
        os.close(fd)
        if b"poison" in m.data:
            raise ValueError("cannot process a poison message")
        return m.data.upper()

    return out


def test_partition_commit_is_exactly_once_and_a_poison_message_costs_only_its_retries(
    spark: Any, server: Any, qm: QueueManager, names: Any, tmp_path: Path
) -> None:
    src, dst, boq = names("PC.IN"), names("PC.OUT"), names("PC.BOQ")
    qm.admin("define", "QLOCAL", dst)
    qm.admin("define", "QLOCAL", boq)
    qm.admin("define", "QLOCAL", src, {"BOTHRESH": 3, "BOQNAME": boq})
    q = qm.open(src)
    sent = [f"m{i:03d}".encode() for i in range(300)]
    sent[150] = b"poison"
    for b in sent:
        q.put(b, persistent=True)
    log = tmp_path / "calls"
    flow = Flow(MQInput(src), out=counting(log), output=dst, commit="partition", max_messages_per_batch=100)
    totals = run_flow(flow, server.target, tmp_path / "ckpt", available_now=True, spark=spark)
    good = [b for b in sent if b != b"poison"]
    assert sorted(bodies(qm, dst)) == sorted(b.upper() for b in good)  # each output once
    assert bodies(qm, boq) == [b"poison"]  # after BOTHRESH retries, to BOQNAME (seed 004)
    assert qm.open(src).depth == 0
    calls = Counter(log.read_bytes().split())
    assert calls[b"poison"] == 3  # BackoutCount 0, 1, 2: tried, then requeued at 3
    assert all(calls[b] == 1 for b in good)  # the node ran once for every other message of the batch
    assert totals.outputs == len(good) and totals.to_boq == 1


def test_partition_commit_progress_is_one_message_per_batch_adding_up_its_partitions(
    spark: Any, server: Any, qm: QueueManager, names: Any, tmp_path: Path
) -> None:
    # The partitions commit on their own, so each puts its part of the batch's progress message and the query
    # writes to Spark's noop sink (docs/flows.md, Performance, change 11); the display still sees ONE progress
    # per batch (reference/spark.md: a batch's outputs and the consumption of its messages happen together, so
    # a batch is reported once, whole).
    src, dst = names("PP.IN"), names("PP.OUT")
    qm.admin("define", "QLOCAL", dst)
    qm.admin("define", "QLOCAL", src)
    q = qm.open(src)
    for i in range(240):
        q.put(f"p{i:03d}".encode(), persistent=True)
    seen: list[dict[str, Any]] = []
    flow = Flow(MQInput(src), out=lambda m: m.data.upper(), output=dst, max_messages_per_batch=100)
    totals = run_flow(
        flow,
        server.target,
        tmp_path / "ckpt",
        available_now=True,
        spark=spark,
        on_progress=lambda p, _t: seen.append(p),
    )
    assert qm.open(dst).depth == 240 and qm.open(src).depth == 0
    ids = [p["batch_id"] for p in seen]
    assert len(ids) == len(set(ids)) == len(totals.spark_batches)  # once per batch with data, whole
    assert sum(p["inputs"] for p in seen) == 240 and sum(p["outputs"] for p in seen) == 240
    assert not [p for p in seen if "part" in p or "parts" in p or "_parts" in p]
    assert totals.batches == len(ids) and totals.inputs == totals.outputs == 240


def test_a_partitions_progress_part_seen_again_counts_once() -> None:
    # A task retried after its partition committed puts its part again (the retry finds the messages gone):
    # the batch's progress counts each partition once (reference/spark.md: exactly-once, reported once).
    from syncpoint.spark import merge_progress_part

    pending: dict[int, dict[str, Any]] = {}
    first = {"batch_id": 4, "part": 0, "parts": 2, "inputs": 5, "outputs": 5, "errors": [], "where": {"1": "QM1"}}
    again = {"batch_id": 4, "part": 0, "parts": 2, "inputs": 0, "gone": 5, "errors": [], "where": {}}
    other = {"batch_id": 4, "part": 1, "parts": 2, "inputs": 3, "outputs": 2, "errors": ["x"], "where": {"2": "QM1"}}
    assert merge_progress_part(pending, first) is None
    assert merge_progress_part(pending, again) is None
    whole = merge_progress_part(pending, other)
    assert whole is not None and not pending
    assert (whole["batch_id"], whole["inputs"], whole["outputs"], whole.get("gone", 0)) == (4, 8, 7, 0)
    assert whole["errors"] == ["x"] and whole["where"] == {"1": "QM1", "2": "QM1"}
