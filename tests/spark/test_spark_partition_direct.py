"""A partition that commits on its own runs the flow's node on the messages as it got them (docs/flows.md,
Performance, change 12): no Arrow record batch between the get and the node, the dispositions back as objects.
What the node sees and what the partition hands Spark must be what they were.

Rules quoted:
- reference/mqinput-node.md: the flow sees the input message's data and its MQMD ("the message tree: MQMD,
  then the body").
- seed 004 (MQInput): a failed message is backed out (BackoutCount + 1) and retried; the others of the unit of
  work commit with their outputs.
- reference/spark.md: a partition's task hands Spark what it read; a flow's partition hands it ONE row, what its
  commit did (docs/flows.md, change 1).

The partition's read is called in this process against a real server (as Spark's executor calls it): the node
runs here, so the test sees the FlowMessages themselves.
"""

from __future__ import annotations

import pickle
from typing import Any

from syncpoint.client import QueueManager
from syncpoint.flow import Flow, FlowMessage, MQInput
from syncpoint.flow._spark import node_partition
from syncpoint.mqi import MQMD
from syncpoint.mqi import constants as C
from syncpoint.spark import QueueAccess, md_to_dict
from syncpoint.spark._member import read_tokens_partition


def _partition(server: Any, flow: Flow, queue: str, qm: QueueManager) -> tuple[list[dict[str, Any]], list[int]]:
    tokens = [v.token for v in QueueAccess(qm, queue).scan(from_start=True)]
    fn = node_partition(flow.handlers(), server.target, logical_order=False, all_or_nothing=False, packed=True)
    rows = list(read_tokens_partition(server.target, queue, tokens, fn, packed=True))
    return [pickle.loads(r.column("puts")[0].as_py()) for r in rows], tokens


def test_partition_node_sees_each_message_with_its_data_mqmd_and_token(
    server: Any, qm: QueueManager, names: Any
) -> None:
    # mqinput-node.md: the flow sees the input message's MQMD and body, as put (here through the partition's get
    # by MsgToken, without the Arrow columns in between).
    src, dst = names("PD.IN"), names("PD.OUT")
    qm.admin("define", "QLOCAL", dst)
    qm.admin("define", "QLOCAL", src)
    q = qm.open(src)
    for i in range(5):
        md = MQMD()
        md.Priority = i
        md.CorrelId = f"corr-{i}".encode().ljust(24, b"\0")
        md.ReplyToQ = b"REPLY.Q".ljust(48)
        md.Format = C.MQFMT_STRING
        md.Persistence = C.MQPER_PERSISTENT
        q.put(f'{{"n": {i}}}'.encode(), md=md)
    expected = {bytes(m.md.MsgId): (m.data, md_to_dict(m.md)) for m in q.browse_all()}
    seen: list[FlowMessage] = []

    def out(m: FlowMessage) -> Any:
        seen.append(m)
        return m.data

    summaries, tokens = _partition(server, Flow(MQInput(src, parse="json"), out=out, output=dst), src, qm)
    assert [m.token for m in seen] == tokens
    assert all(m.queue == src for m in seen)
    for m in seen:
        data, md = expected[m.msg_id]
        assert (m.data, m.md) == (data, md)
        assert type(m.data) is bytes and m.parsed == {"n": m.md["Priority"]}
        assert m.correl_id.rstrip(b"\0") == f"corr-{m.md['Priority']}".encode() and m.reply_to == "REPLY.Q"
    assert summaries[0]["committed"] == 5 and qm.open(dst).depth == 5 and qm.open(src).depth == 0


def test_partition_row_says_what_its_commit_did_and_carries_no_message(
    server: Any, qm: QueueManager, names: Any
) -> None:
    # docs/flows.md change 1: a partition hands Spark ONE row, what its commit did. It carried the partition's
    # messages too (its batch id was their record batch): a summary of counts, not a copy of every body.
    src, dst, boq = names("PR.IN"), names("PR.OUT"), names("PR.BOQ")
    qm.admin("define", "QLOCAL", dst)
    qm.admin("define", "QLOCAL", boq)
    qm.admin("define", "QLOCAL", src, {"BOTHRESH": 2, "BOQNAME": boq})
    q = qm.open(src)
    sent = [b"body-%03d-" % i + b"x" * 200 for i in range(50)]
    sent[7] = b"poison"
    for b in sent:
        q.put(b, persistent=True)

    def out(m: FlowMessage) -> Any:
        if m.data == b"poison":
            raise ValueError("cannot process a poison message")
        return m.data.upper()

    flow = Flow(MQInput(src), out=out, output=dst)
    summaries, _ = _partition(server, flow, src, qm)
    (s,) = summaries
    assert type(s["batch_id"]) is int
    assert (s["inputs"], s["committed"], s["outputs"], s["backed_out"]) == (50, 49, 49, 1)
    assert b"body-" not in pickle.dumps(s)
    # seed 004: the poison message was backed out (BackoutCount 1) and stays for a retry; the others committed
    assert [m.data for m in q.browse_all()] == [b"poison"]
    assert next(iter(q.browse_all())).md.BackoutCount == 1
    assert qm.open(dst).depth == 49
