"""The "syncpoint" stream sink's flow mode (``option("mode", "flow")``): its rows are a flow's dispositions.

Each micro-batch the sink's writers collect the disposition rows the flow's node produced on the executors
(``collect_dispositions``); the sink's commit on the driver carries them out in one unit of work
(``Sink.commit_flow``) and puts a non-persistent progress message on SYSTEM.SYNCPOINT.SPARK.PROGRESS for the
driver's display (``syncpoint flow run``). The rows' schema is ``DISPOSITION_SCHEMA``.

Implements: reference/spark.md, seed 004, reference/mqinput-node.md.
"""

from __future__ import annotations

import json
import pickle
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from syncpoint.mqi import MQMIError
from syncpoint.mqi import constants as C

from ._commit import Sink, Summary, query_key
from ._dispositions import Action, Disposition, Terminal
from ._profile import span

DISPOSITION_SCHEMA = (
    "queue string, token bigint, action string, terminal string, backout_count int, error string, bip string, "
    "reason int, puts binary"
)
PROGRESS_QUEUE = "SYSTEM.SYNCPOINT.SPARK.PROGRESS"

MEMBER = "member"
"""The action of the one row a partition read through a member hands on: ``puts`` is ``pickle.dumps`` of its
commit's Summary.to_json() (what the sink's progress message adds up)."""


BATCH = "batch"
"""A row whose action is "batch" carries many dispositions at once (a flow's node sends one per partition): its
``puts`` column is ``pickle.dumps([(queue, Disposition), ...])``, the other columns are empty."""


def batch_row(items: Sequence[tuple[str, Disposition]]) -> dict[str, Any]:
    """One disposition row carrying all these dispositions (see BATCH)."""
    return {
        "queue": "",
        "token": -1,
        "action": BATCH,
        "terminal": Terminal.NONE.value,
        "backout_count": 0,
        "error": None,
        "bip": None,
        "reason": 0,
        "puts": pickle.dumps(list(items)),
    }


def collect_dispositions(rows: Iterator[Any]) -> list[tuple[str, Disposition | dict[str, Any]]]:
    """The sink's write(): disposition rows as (queue, fields), a batch row's dispositions as they are."""
    out: list[tuple[str, Disposition | dict[str, Any]]] = []
    for row in rows:
        d = row.asDict()
        if d["action"] == BATCH:
            out.extend(pickle.loads(d["puts"]))
        else:
            out.append((str(d["queue"]), d))
    return out


def _disposition(d: Mapping[str, Any]) -> Disposition:
    return Disposition(
        token=int(d["token"]),
        action=Action(d["action"]),
        terminal=Terminal(d["terminal"]),
        backout_count=int(d["backout_count"] or 0),
        puts=pickle.loads(d["puts"]) if d["puts"] else [],
        error=d.get("error"),
        bip=d.get("bip"),
        reason=int(d.get("reason") or C.MQRC_BACKOUT_THRESHOLD_REACHED),
    )


def commit_flow_batch(
    sink: Sink,
    query_id: str,
    batch_id: int,
    payloads: Sequence[Sequence[tuple[str, Disposition | dict[str, Any]]]],
    options: Any,
) -> Summary:
    """The sink's commit in flow mode: one unit of work, then a progress message for the driver."""
    by_queue: dict[str, list[Disposition]] = {}
    with span("driver.commit.dispositions"):
        for payload in payloads:
            for queue, fields in payload:
                d = fields if isinstance(fields, Disposition) else _disposition(fields)
                by_queue.setdefault(queue, []).append(d)
    summary = sink.commit_flow(query_id, batch_id, by_queue)
    with span("driver.commit.progress"):
        publish_progress(sink, query_id, summary)
    return summary


def committed_by_partitions(payloads: Sequence[Sequence[tuple[str, Disposition | dict[str, Any]]]]) -> bool:
    """Every row a summary of a partition that committed on its own (syncpoint.spark._member)?"""
    items = [f for p in payloads for _, f in p]
    return bool(items) and all(isinstance(f, dict) and f.get("action") == MEMBER for f in items)


def publish_member_progress(
    target: Any, query_id: str, batch_id: int, payloads: Sequence[Sequence[tuple[str, Disposition | dict[str, Any]]]]
) -> Summary:
    """A batch read through members (syncpoint.spark._member): its partitions committed on their members; add up
    what they did and put the progress message through the first member that answers (best effort)."""
    from ._qm import BROKEN

    total = Summary(batch_id)
    for payload in payloads:
        for _queue, fields in payload:
            if isinstance(fields, Disposition) or fields.get("action") != MEMBER:
                raise ValueError("a flow reading through members hands the sink its partitions' summaries only")
            part = pickle.loads(fields["puts"])
            for k, v in part.items():
                if isinstance(v, int) and not isinstance(v, bool) and k != "batch_id":
                    setattr(total, k, getattr(total, k) + v)
            total.errors.extend(part.get("errors", []))
    for t in target.member_targets() or [target]:
        try:
            qm = t.connection("syncpoint.spark.sink")
            ensure_progress_queue(qm)
            qm.put1(
                PROGRESS_QUEUE,
                json.dumps(total.to_json()),
                correl_id=query_key(query_id),
                persistent=False,
                expiry=3600.0,
            )
            break
        except MQMIError as e:
            t.drop("syncpoint.spark.sink")
            if e.reason not in BROKEN:
                break
    return total


_progress_defined: set[int] = set()  # connections (id) that have made sure the progress queue exists


def publish_partition_progress(qm: Any, summary: dict[str, Any], part: int, parts: int) -> None:
    """A partition that committed on its own puts its part of the batch's progress message (best effort): the
    summary with the batch id, its index and the batch's number of partitions; syncpoint.flow's ``progress``
    adds a batch's parts up into one message."""
    from pyspark import TaskContext

    ctx = TaskContext.get()
    qid = ctx.getLocalProperty("sql.streaming.queryId") if ctx is not None else None
    if not qid:
        return
    bid = ctx.getLocalProperty("streaming.sql.batchId") if ctx is not None else None
    body = {**summary, "batch_id": int(bid) if bid else -1, "part": part, "parts": parts}
    try:
        if id(qm) not in _progress_defined:
            ensure_progress_queue(qm)
            _progress_defined.add(id(qm))
        qm.put1(PROGRESS_QUEUE, json.dumps(body), correl_id=query_key(str(qid)), persistent=False, expiry=3600.0)
    except MQMIError:
        pass  # the display is a convenience: the partition is committed whatever happens here


def merge_progress_part(pending: dict[int, dict[str, Any]], p: dict[str, Any]) -> dict[str, Any] | None:
    """Add one partition's progress part to its batch's (``pending``, by batch id); the batch's whole progress
    once every part arrived, else None. A part seen again (a task's retry) counts once."""
    bid = int(p.get("batch_id", -1))
    acc = pending.setdefault(bid, {"batch_id": bid, "errors": [], "where": {}, "_parts": []})
    part = int(p.get("part", 0))
    if part in acc["_parts"]:
        return None
    acc["_parts"].append(part)
    for k, v in p.items():
        if k in ("batch_id", "part", "parts") or isinstance(v, bool):
            continue
        if isinstance(v, int):
            acc[k] = acc.get(k, 0) + v
    acc["errors"].extend(p.get("errors", []))
    acc["where"].update(p.get("where", {}))
    if len(acc["_parts"]) < int(p.get("parts", 1)):
        return None
    del pending[bid]
    del acc["_parts"]
    return acc


def ensure_progress_queue(qm: Any) -> None:
    try:
        qm.admin("define", "QLOCAL", PROGRESS_QUEUE, {"DEFPSIST": C.MQPER_NOT_PERSISTENT, "MAXDEPTH": 100_000})
    except MQMIError as e:
        if e.reason != C.MQRC_OBJECT_ALREADY_EXISTS:
            raise


def publish_progress(sink: Sink, query_id: str, summary: Summary) -> None:
    """A non-persistent progress message (expires after an hour when no display reads it)."""
    try:
        ensure_progress_queue(sink.qm)
        sink.qm.put1(
            PROGRESS_QUEUE,
            json.dumps(summary.to_json()),
            correl_id=query_key(query_id),
            persistent=False,
            expiry=3600.0,
        )
    except MQMIError:
        pass  # the display is a convenience: the batch is committed whatever happens here
