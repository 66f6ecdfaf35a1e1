"""The flow's Spark side: the input node on executors, the dispositions to the sink, progress to the driver.

Each micro-batch: the "syncpoint" stream source reads the batch's messages (groups whole, in logical order, in
one partition); ``node_partition`` runs the MQInput node over them (pure: _node) and yields one disposition row per
message; the "syncpoint" stream sink in ``mode=flow`` commits them in one unit of work (_commit) and puts a
non-persistent progress message on SYSTEM.SYNCPOINT.SPARK.PROGRESS for the driver's display. No per-message error
reaches Spark: the node turns each into a disposition, so a poison message never fails the batch.

Implements: seed 004, reference/mqinput-node.md, reference/spark.md (where code runs).
"""

from __future__ import annotations

import pickle
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

from syncpoint.mqi import MQMIError
from syncpoint.mqi import constants as C
from syncpoint.spark import MD_COLUMNS, Disposition, QueueAccess, Target

from ._node import FlowMessage, Handlers, process_group, process_message

_MD_NAMES = [n for n, _ in MD_COLUMNS]


def _message(row: Mapping[str, Any], extra: Sequence[str]) -> FlowMessage:
    md = {n: row.get(n) for n in _MD_NAMES}
    md = {k: (bytes(v) if isinstance(v, (bytearray, memoryview)) else v) for k, v in md.items() if v is not None}
    data = row.get("data") or b""
    return FlowMessage(
        bytes(data),
        md,
        queue=str(row.get("queue") or ""),
        token=int(row["token"]),
        row={k: row.get(k) for k in extra} if extra else None,
    )


def run_node(
    rows: Sequence[Mapping[str, Any]],
    handlers: Handlers,
    bothresh: Mapping[str, int | None],
    *,
    logical_order: bool,
    all_or_nothing: bool,
    extra: Sequence[str] = (),
) -> list[Disposition]:
    """The node over one partition's rows (in the source's order: groups contiguous, in MsgSeqNumber order)."""
    out: list[Disposition] = []
    i = 0
    while i < len(rows):
        m = _message(rows[i], extra)
        flags = int(m.md.get("MsgFlags", 0))
        if logical_order and m.group_id != C.MQGI_NONE and flags & (C.MQMF_MSG_IN_GROUP | C.MQMF_LAST_MSG_IN_GROUP):
            group = [m]
            j = i + 1
            while (
                j < len(rows) and bytes(rows[j].get("GroupId") or b"") == m.group_id and rows[j].get("queue") == m.queue
            ):
                group.append(_message(rows[j], extra))
                j += 1
            out.extend(process_group(group, handlers, bothresh.get(m.queue), all_or_nothing=all_or_nothing))
            i = j
        else:
            out.append(process_message(m, handlers, bothresh.get(m.queue)))
            i += 1
    return out


def _disposition_row(queue: str, d: Disposition) -> dict[str, Any]:
    return {
        "queue": queue,
        "token": d.token,
        "action": d.action.value,
        "terminal": d.terminal.value,
        "backout_count": d.backout_count,
        "error": d.error,
        "bip": d.bip,
        "reason": d.reason,
        "puts": pickle.dumps(d.puts),
    }


def node_partition(
    handlers: Handlers, target: Target, *, logical_order: bool, all_or_nothing: bool, extra: Sequence[str] = ()
) -> Callable[[Iterator[Any]], Iterator[Any]]:
    """A mapInArrow function running the node on an executor."""

    def fn(batches: Iterator[Any]) -> Iterator[Any]:
        import pyarrow as pa

        rows = [r for b in batches for r in b.to_pylist()]
        if not rows:
            return
        queues = sorted({str(r["queue"]) for r in rows})
        bothresh: dict[str, int | None] = {}
        try:
            qm = target.connect("syncpoint.flow")
            try:
                for q in queues:
                    a = QueueAccess(qm, q)
                    bothresh[q] = a.attributes()[0]
            finally:
                qm.disconnect()
        except MQMIError:
            bothresh = {q: None for q in queues}  # unreadable: the node uses 1 (seed 004)
        ds = run_node(rows, handlers, bothresh, logical_order=logical_order, all_or_nothing=all_or_nothing, extra=extra)
        queue_of = {int(r["token"]): str(r["queue"]) for r in rows}
        out = [_disposition_row(queue_of[d.token], d) for d in ds]
        yield pa.RecordBatch.from_pylist(out, schema=_arrow_schema())

    return fn


def _arrow_schema() -> Any:
    import pyarrow as pa

    return pa.schema(
        [
            ("queue", pa.string()),
            ("token", pa.int64()),
            ("action", pa.string()),
            ("terminal", pa.string()),
            ("backout_count", pa.int32()),
            ("error", pa.string()),
            ("bip", pa.string()),
            ("reason", pa.int32()),
            ("puts", pa.binary()),
        ]
    )
