"""The flow's Spark side: the input node on executors, the dispositions to the sink, progress to the driver.

Each micro-batch: the "syncpoint" stream source reads the batch's messages (groups whole, in logical order, in
one partition); ``node_partition`` runs the MQInput node over them (pure: _node) and yields one disposition row per
message; the "syncpoint" stream sink in ``mode=flow`` commits them in one unit of work (_commit) and puts a
non-persistent progress message on SYSTEM.SYNCPOINT.SPARK.PROGRESS for the driver's display. No per-message error
reaches Spark: the node turns each into a disposition, so a poison message never fails the batch.

Implements: seed 004, reference/mqinput-node.md, reference/spark.md (where code runs).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

from syncpoint.mqi import MQMIError
from syncpoint.mqi import constants as C
from syncpoint.spark import (
    MD_COLUMNS,
    Disposition,
    QueueAccess,
    Target,
    batch_row,
    current_member,
    md_to_dict,
    props_from_row,
)
from syncpoint.spark import profile_record as record
from syncpoint.spark import profile_span as span

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
        typed_properties=props_from_row(row),
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
    msgs = [_message(r, extra) for r in rows]
    return run_messages(msgs, handlers, bothresh, logical_order=logical_order, all_or_nothing=all_or_nothing)


def run_messages(
    msgs: Sequence[FlowMessage],
    handlers: Handlers,
    bothresh: Mapping[str, int | None],
    *,
    logical_order: bool,
    all_or_nothing: bool,
) -> list[Disposition]:
    """The node over one partition's messages (groups contiguous, in MsgSeqNumber order)."""
    out: list[Disposition] = []
    i = 0
    while i < len(msgs):
        m = msgs[i]
        flags = int(m.md.get("MsgFlags", 0))
        if logical_order and m.group_id != C.MQGI_NONE and flags & (C.MQMF_MSG_IN_GROUP | C.MQMF_LAST_MSG_IN_GROUP):
            group = [m]
            j = i + 1
            while j < len(msgs) and msgs[j].group_id == m.group_id and msgs[j].queue == m.queue:
                group.append(msgs[j])
                j += 1
            out.extend(process_group(group, handlers, bothresh.get(m.queue), all_or_nothing=all_or_nothing))
            i = j
        else:
            out.append(process_message(m, handlers, bothresh.get(m.queue)))
            i += 1
    return out


def _packed_messages(batch: Any) -> list[FlowMessage]:
    """The flow's messages from a record batch of the source's packed columns (queue, token, data, md)."""
    from syncpoint.mqi import MQMD

    queues = batch.column(0).to_pylist()
    tokens = batch.column(1).to_pylist()
    datas = batch.column(2).to_pylist()
    mds = batch.column(3).to_pylist()
    values = batch.column(4).to_pylist()
    types = batch.column(5).to_pylist()
    return [
        FlowMessage(
            data,
            md_to_dict(MQMD.unpack(md)),
            queue=q,
            token=t,
            typed_properties=props_from_row({"properties": v, "property_types": ty}) if v else None,
        )
        for q, t, data, md, v, ty in zip(queues, tokens, datas, mds, values, types, strict=True)
    ]


def node_partition(
    handlers: Handlers,
    target: Target,
    *,
    logical_order: bool,
    all_or_nothing: bool,
    extra: Sequence[str] = (),
    packed: bool = False,
) -> Callable[[Iterator[Any]], Iterator[Any]]:
    """A mapInArrow function running the node on an executor. Its input is the source's record batches (the
    packed columns when ``packed``); its output ONE row for the partition carrying every disposition (action
    "batch", see syncpoint.spark's flow sink), so nothing is converted per message on the way to the sink.
    With ``packed`` the function also has ``direct(queue, got)``: the node over messages got in the same Python
    process, the dispositions returned as they are (no Arrow on either side)."""

    def run(msgs: list[FlowMessage]) -> list[Disposition]:
        """The node over one partition's messages, with the input queues' BOTHRESH."""
        import time

        t0 = time.time()
        queues = sorted({m.queue for m in msgs})
        bothresh: dict[str, int | None] = {}
        where = current_member() or target  # reading through a member of a group: ask that member
        try:
            qm = where.connection("syncpoint.flow")
            for q in queues:
                bothresh[q] = QueueAccess(qm, q).attributes()[0]
        except MQMIError:
            where.drop("syncpoint.flow")
            bothresh = {q: None for q in queues}  # unreadable: the node uses 1 (seed 004)
        record("executor.node.bothresh", t0)
        with span("executor.node.run", len(msgs)):
            return run_messages(msgs, handlers, bothresh, logical_order=logical_order, all_or_nothing=all_or_nothing)

    def fn(batches: Iterator[Any]) -> Iterator[Any]:
        import time

        import pyarrow as pa

        t0 = time.time()
        if packed:
            msgs = [m for b in batches for m in _packed_messages(b)]
        else:
            msgs = [_message(r, extra) for b in batches for r in b.to_pylist()]
        record("executor.node.input", t0, len(msgs))
        if not msgs:
            return
        ds = run(msgs)
        with span("executor.node.output", len(msgs)):
            queue_of = {m.token: m.queue for m in msgs}
            result = pa.RecordBatch.from_pylist(
                [batch_row([(queue_of[d.token], d) for d in ds])], schema=_arrow_schema()
            )
        yield result

    def direct(queue: str, got: Sequence[tuple[Any, ...]]) -> list[Disposition]:
        """The node over messages its own Python process got (``(token, MQMD, data(, properties))``), without
        Arrow: the FlowMessages straight from the MQMDs, the dispositions back as objects (a partition that
        commits itself, see syncpoint.spark's ``process``)."""
        import time

        t0 = time.time()
        msgs = [
            FlowMessage(bytes(g[2]), md_to_dict(g[1]), queue=queue, token=g[0], typed_properties=_props(g)) for g in got
        ]
        record("executor.node.input", t0, len(msgs))
        return run(msgs) if msgs else []

    if packed:  # no DataFrame stage: the node may run on the messages as got
        fn.direct = direct  # type: ignore[attr-defined]
    return fn


def _props(got: tuple[Any, ...]) -> Any:
    """The properties of a message as got (its fourth element, when there is one)."""
    return got[3] if len(got) > 3 else None


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


def flow_source(fn: Callable[[Iterator[Any]], Iterator[Any]], key: str) -> Any:
    """A "syncpoint" data source class of the flow's own that runs ``fn`` (the node over the packed columns) on
    each partition inside the stream reader's read() and yields its disposition rows. Its name is derived from
    ``key`` (the checkpoint), so a restarted query finds the same source; cloudpickle ships the class by value."""
    import hashlib

    from syncpoint.spark import DISPOSITION_SCHEMA, SyncpointDataSource

    name = "syncpoint_flow_" + hashlib.sha256(key.encode()).hexdigest()[:16]
    return type(
        "SyncpointFlowSource",
        (SyncpointDataSource,),
        {
            "partition_fn": staticmethod(fn),
            "partition_schema": DISPOSITION_SCHEMA,
            "name": classmethod(lambda cls: name),
            "__module__": __name__,
        },
    )
