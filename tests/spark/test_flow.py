"""Message flows on Spark: the MQInput node's rules end to end (seed 004, reference/mqinput-node.md, issue 8
items 4-7). Per-message errors are data: the query never fails, poison messages never hold back the others."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from syncpoint.client import QueueManager
from syncpoint.flow import Flow, FlowMessage, MQInput, Output, run_flow
from syncpoint.mqi import MQDLH, MQMD
from syncpoint.mqi import constants as C
from waiting import wait_until

DLQ = "SYSTEM.DEAD.LETTER.QUEUE"


def bodies(qm: QueueManager, queue: str) -> list[bytes]:
    return [m.data for m in qm.open(queue).browse_all()]


def upper_unless_poison(m: FlowMessage) -> Any:
    if b"poison" in m.data:
        raise ValueError("cannot process a poison message")
    return m.data.upper()


def test_poison_message_is_backed_out_retried_then_dead_lettered_and_the_batch_never_fails(
    spark: Any, server: Any, qm: QueueManager, names: Any, tmp_path: Path
) -> None:
    src, dst = names("F.IN"), names("F.OUT")
    qm.admin("define", "QLOCAL", src, {"BOTHRESH": 2})
    qm.admin("define", "QLOCAL", dst)
    before = qm.open(DLQ).depth
    qm.open(src).put_many(["m0", "m1", "poison", "m3", "m4"], persistent=True)
    flow = Flow(MQInput(src), out=upper_unless_poison, output=dst)
    seen: list[dict[str, Any]] = []
    totals = run_flow(
        flow, server.target, tmp_path / "ckpt", available_now=True, spark=spark, on_progress=lambda p, t: seen.append(p)
    )
    assert sorted(bodies(qm, dst)) == [b"M0", b"M1", b"M3", b"M4"]
    assert qm.open(src).depth == 0
    # BOTHRESH 2: backed out twice (BackoutCount 1, then 2), then to the DLQ with an MQDLH (no BOQNAME)
    assert (totals.backed_out, totals.to_dlq, totals.outputs) == (2, 1, 4)
    dead = [m for m in qm.open(DLQ).browse_all()][before:]
    assert len(dead) == 1 and dead[0].data.endswith(b"poison")
    dlh = MQDLH.unpack(dead[0].data[: C.MQDLH_LENGTH_1])
    assert dlh.DestQName.strip() == src.encode() and dlh.Reason == C.MQRC_BACKOUT_THRESHOLD_REACHED
    assert seen[0]["committed"] == 4  # the poison message held back nobody in its first batch


def test_catch_handles_out_errors_failing_catch_backs_out_then_failure_flow_takes_it(
    spark: Any, server: Any, qm: QueueManager, names: Any, tmp_path: Path
) -> None:
    src, dst, caught, failed = names("C.IN"), names("C.OUT"), names("C.CAUGHT"), names("C.FAILED")
    for q in (dst, caught, failed):
        qm.admin("define", "QLOCAL", q)
    qm.admin("define", "QLOCAL", src)  # BOTHRESH 0: the node uses 1
    qm.open(src).put_many(["ok", "bad", "poison"], persistent=True)

    def out(m: FlowMessage) -> Any:
        if m.data != b"ok":
            raise ValueError(m.text)
        return m.data

    def catch(m: FlowMessage, e: BaseException) -> Any:
        if m.data == b"poison":
            raise RuntimeError("catch cannot handle it either")
        return Output(b"caught " + m.data, queue=caught)

    def failure(m: FlowMessage, error: str) -> Any:
        return Output(b"failed " + m.data + f" count={m.backout_count}".encode(), queue=failed)

    flow = Flow(MQInput(src), out=out, output=dst, catch=catch, failure=failure)
    totals = run_flow(flow, server.target, tmp_path / "ckpt", available_now=True, spark=spark)
    assert bodies(qm, dst) == [b"ok"]
    assert bodies(qm, caught) == [b"caught bad"]
    assert bodies(qm, failed) == [b"failed poison count=1"]
    assert qm.open(src).depth == 0 and (totals.catch, totals.failure, totals.backed_out) == (1, 1, 1)


def test_group_in_logical_order_partial_backout_by_default_and_boqname(
    spark: Any, server: Any, qm: QueueManager, names: Any, tmp_path: Path
) -> None:
    # seed 004: the unit of work up to and including the failing message is backed out; the rest of the
    # group commits in a new unit of work
    src, dst, boq = names("GR.IN"), names("GR.OUT"), names("GR.BOQ")
    qm.admin("define", "QLOCAL", dst)
    qm.admin("define", "QLOCAL", boq)
    qm.admin("define", "QLOCAL", src, {"BOTHRESH": 1, "BOQNAME": boq})
    q = qm.open(src)
    order: list[int] = []
    for i in (3, 1, 4, 2):  # put out of order: the node processes in MsgSeqNumber order
        md = MQMD()
        md.GroupId = b"G-ONE".ljust(24, b"\0")
        md.MsgSeqNumber = i
        md.MsgFlags = C.MQMF_LAST_MSG_IN_GROUP if i == 4 else C.MQMF_MSG_IN_GROUP
        q.put("poison" if i == 2 else f"g{i}", md=md, persistent=True)

    def out(m: FlowMessage) -> Any:
        order.append(int(m.md["MsgSeqNumber"]))
        return upper_unless_poison(m)

    flow = Flow(MQInput(src), out=out, output=dst)
    run_flow(flow, server.target, tmp_path / "ckpt", available_now=True, spark=spark)
    assert sorted(bodies(qm, dst)) == [b"G3", b"G4"]
    assert sorted(bodies(qm, boq)) == [b"g1", b"poison"]
    assert qm.open(src).depth == 0


def test_all_or_nothing_group_fails_as_a_whole(
    spark: Any, server: Any, qm: QueueManager, names: Any, tmp_path: Path
) -> None:
    src, dst, boq = names("GA.IN"), names("GA.OUT"), names("GA.BOQ")
    qm.admin("define", "QLOCAL", dst)
    qm.admin("define", "QLOCAL", boq)
    qm.admin("define", "QLOCAL", src, {"BOTHRESH": 1, "BOQNAME": boq})
    q = qm.open(src)
    for i in range(1, 5):
        md = MQMD()
        md.GroupId = b"G-TWO".ljust(24, b"\0")
        md.MsgSeqNumber = i
        md.MsgFlags = C.MQMF_LAST_MSG_IN_GROUP if i == 4 else C.MQMF_MSG_IN_GROUP
        q.put("poison" if i == 2 else f"g{i}", md=md, persistent=True)
    q.put("alone", persistent=True)
    flow = Flow(MQInput(src, all_or_nothing_groups=True), out=upper_unless_poison, output=dst)
    run_flow(flow, server.target, tmp_path / "ckpt", available_now=True, spark=spark)
    assert bodies(qm, dst) == [b"ALONE"]
    assert sorted(bodies(qm, boq)) == [b"g1", b"g3", b"g4", b"poison"]


def test_a_dataframe_stage_adds_columns_the_functions_see_as_msg_row(
    spark: Any, server: Any, qm: QueueManager, names: Any, tmp_path: Path
) -> None:
    src, dst = names.pair(qm, "T")
    qm.open(src).put_many(["abc", "hello"], persistent=True)

    def transform(df: Any) -> Any:
        return df.selectExpr("*", "length(text) AS size")

    def out(m: FlowMessage) -> Any:
        assert m.row is not None
        return f"{m.text}:{m.row['size']}"

    flow = Flow(MQInput(src), out=out, output=dst, transform=transform)
    run_flow(flow, server.target, tmp_path / "ckpt", available_now=True, spark=spark)
    assert sorted(bodies(qm, dst)) == [b"abc:3", b"hello:5"]


def test_continuous_query_processes_messages_that_arrive_while_it_runs(
    spark: Any, server: Any, qm: QueueManager, names: Any, tmp_path: Path
) -> None:
    from syncpoint.flow import build_query

    src, dst = names.pair(qm, "CT")
    flow = Flow(MQInput(src), out=lambda m: m.data.upper(), output=dst)
    query = build_query(spark, flow, server.target, tmp_path / "ckpt", trigger_interval="200 milliseconds")
    try:
        qm.open(src).put_many(["a", "b"], persistent=True)
        wait_until(lambda: qm.open(dst).depth >= 2, "the query processing a and b", 120, 0.2)
        qm.open(src).put("c", persistent=True)
        wait_until(lambda: qm.open(dst).depth >= 3, "the query processing c", 120, 0.2)
        assert query.exception() is None
    finally:
        query.stop()
    assert sorted(bodies(qm, dst)) == [b"A", b"B", b"C"] and qm.open(src).depth == 0


def test_a_poison_message_costs_only_its_own_retries_the_rest_of_its_batch_is_processed_once(
    spark: Any, server: Any, qm: QueueManager, names: Any, tmp_path: Path
) -> None:
    """Issue 22 item 4: the hidden cost of a poison message. Seed 004: it is backed out and retried until
    BOTHRESH, then dead-lettered; the other messages of its batch commit in the batch's unit of work the first
    time, so the flow runs for each of them exactly once, and the retries are batches of the poison message alone."""
    import os

    src, dst = names("P.IN"), names("P.OUT")
    qm.admin("define", "QLOCAL", src, {"BOTHRESH": 3})
    qm.admin("define", "QLOCAL", dst)
    calls = tmp_path / "calls"
    qm.open(src).put_many([b"poison" if i == 57 else b"m%03d" % i for i in range(200)], persistent=True)

    def out(m: FlowMessage) -> Any:
        fd = os.open(calls, os.O_WRONLY | os.O_APPEND | os.O_CREAT)
        try:
            os.write(fd, m.data + b"\n")
        finally:
            os.close(fd)
        if m.data == b"poison":
            raise ValueError("poison")
        return m.data

    seen: list[dict[str, Any]] = []
    flow = Flow(MQInput(src), out=out, output=dst)
    totals = run_flow(
        flow, server.target, tmp_path / "ckpt", available_now=True, spark=spark, on_progress=lambda p, t: seen.append(p)
    )
    counts: dict[bytes, int] = {}
    for line in calls.read_bytes().splitlines():
        counts[line] = counts.get(line, 0) + 1
    assert counts.pop(b"poison") == 3  # Out at BackoutCount 0, 1 and 2; at 3 (the threshold) to the DLQ
    assert len(counts) == 199 and set(counts.values()) == {1}  # every other message: the flow ran once
    assert (totals.outputs, totals.backed_out, totals.to_dlq) == (199, 3, 1)
    assert seen[0]["committed"] == 199 and [p["inputs"] for p in seen[1:]] == [1, 1, 1]
