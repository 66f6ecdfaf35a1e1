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

DISPOSITION_SCHEMA = (
    "queue string, token bigint, action string, terminal string, backout_count int, error string, bip string, "
    "reason int, puts binary"
)
PROGRESS_QUEUE = "SYSTEM.SYNCPOINT.SPARK.PROGRESS"


def collect_dispositions(rows: Iterator[Any]) -> list[tuple[str, dict[str, Any]]]:
    """The sink's write(): disposition rows as (queue, fields) for the driver's commit."""
    out = []
    for row in rows:
        d = row.asDict()
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
    sink: Sink, query_id: str, batch_id: int, payloads: Sequence[Sequence[tuple[str, dict[str, Any]]]], options: Any
) -> Summary:
    """The sink's commit in flow mode: one unit of work, then a progress message for the driver."""
    by_queue: dict[str, list[Disposition]] = {}
    for payload in payloads:
        for queue, fields in payload:
            by_queue.setdefault(queue, []).append(_disposition(fields))
    summary = sink.commit_flow(query_id, batch_id, by_queue)
    publish_progress(sink, query_id, summary)
    return summary


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
