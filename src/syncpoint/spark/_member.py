"""A shared queue read through several members of a queue-sharing group (option ``members``).

    spark.readStream.format(<a flow's source>).option("members", "QMA,QMB").option("queue", "ORDERS")...

Theory of operation
-------------------
A shared queue lives in the group's PostgreSQL database and every member serves it; what a member offers on it
today is the destructive get under syncpoint (MsgId / CorrelId match included), not browse or MsgToken. The
token path of the stream reader (the driver browses and reserves, executors browse, the driver's sink gets by
token) therefore does not apply. Instead each partition of a micro-batch is one unit of work on ONE member:

1. The driver plans a batch when the queue holds messages (CURDEPTH, which on a shared queue is the group's
   depth, read through any member that answers); the offset counts the messages planned (``hw``) and the
   batch's partitions each take up to their share.
2. Partition *i* connects to member *i mod k* (the next member that answers, when that one does not) and gets
   up to its share under syncpoint, in one request: the messages are now held by that member's unit of work,
   invisible to every other getter of the group.
3. The flow's node runs over them in the same executor Python worker (``partition_fn``, pure: no side effects).
4. Its dispositions are carried out in that same unit of work: outputs put, REQUEUE to BOQNAME or the DLQ,
   DISCARD consumed, then MQCMIT. A message's get and its outputs commit together or not at all, so each
   message is processed exactly once whatever fails, with no commit record: a committed get cannot happen
   twice, and a unit of work that did not commit leaves the message on the queue.
5. A BACKOUT disposition (retry, BackoutCount + 1) needs the unit of work to keep the others' gets: the unit
   of work is backed out (every message back, BackoutCount + 1), the others are got again by MsgId and CorrelId
   (checked to be the same message, BackoutCount one higher) and committed with the outputs the node already
   computed: the node runs once per message; only the backed-out ones are retried in a later batch.
6. The partition hands Spark one row: what its commit did (action ``member``), for the sink's progress message.

A member that dies in the middle of a batch: its connection breaks, the partition ends without a row, and a
surviving member's peer recovery backs the dead member's unit of work out: the messages come back with
BackoutCount + 1 and a later batch (its partitions now on the survivors) processes them once. A commit whose
answer was lost is settled the same way: either it committed (the messages are gone, their outputs are there) or
it is backed out by the peer.

Implements: reference/queue-sharing-groups.md (shared queues, peer recovery), reference/spark.md, seed 004.
"""

from __future__ import annotations

import logging
import pickle
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from pyspark.sql.datasource import InputPartition

from syncpoint.client import QueueManager
from syncpoint.mqi import MQMIError
from syncpoint.mqi import constants as C

from ._commit import Sink, Summary, _Item, _RedoError, tally, tally_requeued
from ._dispositions import BIP_NO_QUEUE, Action, Disposition, Put
from ._flowsink import MEMBER, _disposition
from ._profile import record, span
from ._qm import BROKEN, CHUNK, Target, _current
from ._rows import messages_to_arrow

_log = logging.getLogger("syncpoint.spark")

_APPL = "syncpoint.spark.member"


class MemberPartition(InputPartition):
    """Partition ``index`` of batch ``batch``: up to ``count`` messages got through one member."""

    def __init__(self, batch: int, index: int, count: int) -> None:
        super().__init__((batch, index, count))
        self.batch = batch
        self.index = index
        self.count = count


def plan_partitions(batch: int, total: int, n: int) -> list[MemberPartition]:
    """``total`` messages dealt to at most ``n`` partitions (each takes up to its share)."""
    n = max(1, min(n, total))
    share = -(-total // n)
    return [MemberPartition(batch, i, min(share, total - i * share)) for i in range(n) if total - i * share > 0]


def depth(targets: Sequence[Target], queue: str) -> int | None:
    """The shared queue's CURDEPTH through the first member that answers; None when none does."""
    for t in targets:
        try:
            qm = t.connection("syncpoint.spark.source")
            q = qm.open(queue)
            try:
                return q.depth
            finally:
                q.close()
        except MQMIError as e:
            t.drop("syncpoint.spark.source")
            if e.reason not in BROKEN:
                raise
    return None


def max_uncommitted_any(targets: Sequence[Target]) -> int | None:
    from ._qm import max_uncommitted

    for t in targets:
        try:
            return max_uncommitted(t.connection("syncpoint.spark.source"))
        except MQMIError:
            t.drop("syncpoint.spark.source")
    return None


def read_partition(
    target: Target,
    queue: str,
    part: MemberPartition,
    fn: Callable[[Iterator[Any]], Iterator[Any]],
    *,
    packed: bool,
) -> Iterator[Any]:
    """The partition's unit of work on its member (the next that answers); yields its one summary row."""
    targets = target.member_targets()
    order = [targets[(part.index + i) % len(targets)] for i in range(len(targets))]
    reasons = []
    for t in order:
        t0 = time.time()
        try:
            qm = t.connection(_APPL)
        except MQMIError as e:
            reasons.append(f"{t.qmgr}: {e.reason}")
            t.drop(_APPL)
            continue
        record("executor.read.connect", t0)
        _current[0] = t
        try:
            row = _unit_of_work(qm, t, queue, part, fn, packed=packed)
        except MQMIError as e:
            _safe_backout(qm)
            t.drop(_APPL)
            if e.reason in BROKEN:
                _log.warning(
                    "member %s ended partition %d of batch %d (reason %d): its messages return to %s through "
                    "peer recovery",
                    t.qmgr,
                    part.index,
                    part.batch,
                    e.reason,
                    queue,
                )
                return
            raise
        except BaseException:
            _safe_backout(qm)
            t.drop(_APPL)
            raise
        finally:
            _current[0] = None
        if row is not None:
            yield row
        return
    raise MQMIError(
        C.MQCC_FAILED,
        C.MQRC_Q_MGR_NOT_AVAILABLE,
        f"no member of {', '.join(target.members)} answers for queue {queue} ({'; '.join(reasons)})",
    )


def _safe_backout(qm: QueueManager) -> None:
    try:
        qm.backout()
    except MQMIError:
        pass


def _get_batch(qm: QueueManager, queue: str, count: int) -> list[Any]:
    q = qm.open(queue)
    try:
        out: list[Any] = []
        while len(out) < count:
            n = min(CHUNK, count - len(out))
            try:
                got = q.get_many(n, syncpoint=True)
            except MQMIError as e:
                if e.reason == C.MQRC_NO_MSG_AVAILABLE:
                    break
                raise
            out.extend(got)
            if len(got) < n:
                break
        return out
    finally:
        q.close()


def _unit_of_work(
    qm: QueueManager,
    target: Target,
    queue: str,
    part: MemberPartition,
    fn: Callable[[Iterator[Any]], Iterator[Any]],
    *,
    packed: bool,
) -> Any:
    with span("executor.member.get", part.count):
        msgs = _get_batch(qm, queue, part.count)
    got = [(i + 1, m.md, m.data, m.typed_properties) for i, m in enumerate(msgs)]
    return process(qm, target.qmgr, queue, got, part.batch, fn, packed=packed, again=again_by_ids)


def read_tokens_partition(
    target: Target,
    queue: str,
    tokens: list[int],
    fn: Callable[[Iterator[Any]], Iterator[Any]],
    *,
    packed: bool,
    progress: tuple[int, int] | None = None,
) -> Iterator[Any]:
    """A private queue's partition committed on the executor (option ``commit`` = ``partition``): the batch's
    messages got by MsgToken under syncpoint, the node, the dispositions carried out and MQCMIT in the executor's
    one unit of work; the partition yields its summary row. A message no longer on the queue (a replay of a
    partition that committed, another consumer) is simply not got. With ``progress`` (its index, the batch's
    partitions) the partition also puts its part of the batch's progress message (syncpoint.flow adds them up)."""
    from ._qm import QueueAccess

    t0 = time.time()
    qm = target.connection("syncpoint.spark.read")
    record("executor.read.connect", t0)
    try:
        with span("executor.member.get", len(tokens)):
            a = QueueAccess(qm, queue)
            try:
                found = a.get_many(tokens)
            finally:
                a.close()
        got = [(t, *g) for t, g in zip(tokens, found, strict=True) if g is not None]
        summary: list[dict[str, Any]] = []
        row = process(qm, target.qmgr, queue, got, 0, fn, packed=packed, again=again_by_tokens, summary=summary)
    except BaseException:
        _safe_backout(qm)
        target.drop("syncpoint.spark.read")
        raise
    if progress is not None:
        from ._flowsink import publish_partition_progress

        publish_partition_progress(qm, summary[0] if summary else Summary(0).to_json(), *progress)
    if row is not None:
        yield row


def process(
    qm: QueueManager,
    where: str,
    queue: str,
    got: list[tuple[Any, ...]],
    batch: int,
    fn: Callable[[Iterator[Any]], Iterator[Any]],
    *,
    packed: bool,
    again: Again,
    summary: list[dict[str, Any]] | None = None,
) -> Any:
    """The node over the messages got in the connection's unit of work, its dispositions carried out, MQCMIT; the
    summary row (None when nothing was got). ``summary``: a list the summary is also appended to, as a dict."""
    s = _process(qm, queue, got, batch, fn, packed=packed, again=again)
    if s is None:
        return None
    if again is again_by_ids:  # tokens numbered per partition: not the messages' own
        s.where = {}
    d = s.to_json()
    if summary is not None:
        summary.append(d)
    return _summary_row(where, queue, d)


def _process(
    qm: QueueManager,
    queue: str,
    got: list[tuple[Any, ...]],
    batch: int,
    fn: Callable[[Iterator[Any]], Iterator[Any]],
    *,
    packed: bool,
    again: Again,
) -> Summary | None:
    """:func:`process` up to its summary. (Its parameters restate process's: process is the step the kill tests
    hook — after the MQCMIT, before Spark has the row — and this body's early returns answer a Summary, not the
    row, so the two stay apart.) A node function with ``direct`` (a flow without a DataFrame stage) gets
    the messages as got and answers its dispositions as objects; any other goes through Arrow: the messages as a
    record batch in, disposition rows out."""
    if not got:
        qm.commit()
        return None
    dispositions: dict[int, Disposition] = {}
    direct = getattr(fn, "direct", None) if packed else None
    if direct is not None:
        for d in direct(queue, got):
            dispositions[int(d.token)] = d
    else:
        with span("executor.read.arrow", len(got)):
            arrow = messages_to_arrow(queue, got, packed=packed)
        for out in fn(iter([arrow])):
            for r in out.to_pylist():
                if r["action"] == "batch":
                    for _q, d in pickle.loads(r["puts"]):
                        dispositions[int(d.token)] = d
                else:
                    dispositions[int(r["token"])] = _disposition(r)
    with span("executor.member.commit", len(got)):
        return commit_member(qm, queue, got, dispositions, batch, again)


def _summary_row(where: str, queue: str, summary: dict[str, Any]) -> Any:
    """The partition's one row for Spark: what its commit did (action ``member``)."""
    import pyarrow as pa

    values = [queue, -1, MEMBER, "none", 0, None, where, 0, pickle.dumps(summary)]
    schema = _disposition_arrow()
    columns = [_one(v, f.type) for v, f in zip(values, schema, strict=True)]
    return pa.RecordBatch.from_arrays(columns, schema=schema)


def _one(value: Any, typ: Any) -> Any:
    """A one-value Arrow array built from its buffers: converting a Python list (``pa.array``) imports pandas,
    0.3 s or more in each new Python worker, on the first batch's path."""
    import struct

    import pyarrow as pa

    if pa.types.is_integer(typ):
        return pa.Array.from_buffers(
            typ, 1, [None, pa.py_buffer(struct.pack("<q" if typ.bit_width == 64 else "<i", value))]
        )
    if value is None:
        return pa.Array.from_buffers(
            typ, 1, [pa.py_buffer(b"\0"), pa.py_buffer(struct.pack("<ii", 0, 0)), pa.py_buffer(b"")], 1
        )
    raw = value.encode() if isinstance(value, str) else bytes(value)
    return pa.Array.from_buffers(typ, 1, [None, pa.py_buffer(struct.pack("<ii", 0, len(raw))), pa.py_buffer(raw)])


def _disposition_arrow() -> Any:
    """DISPOSITION_SCHEMA as an Arrow schema."""
    import pyarrow as pa

    s, i32 = pa.string(), pa.int32()
    names = ["queue", "token", "action", "terminal", "backout_count", "error", "bip", "reason", "puts"]
    types = [s, pa.int64(), s, s, i32, s, s, i32, pa.binary()]
    return pa.schema(list(zip(names, types, strict=True)))


_sinks: dict[int, Sink] = {}


def _sink(qm: QueueManager) -> Sink:
    s = _sinks.get(id(qm))
    if s is None or s.qm is not qm:
        s = _sinks[id(qm)] = Sink(qm)
    return s


Again = Callable[[QueueManager, str, list[tuple[Any, ...]]], list[tuple[Any, bytes, Any] | str | None]]
"""Gets messages got before a backout again in the unit of work: ``(token, MQMD, data)`` as first got → the
message now (None: gone; ``OTHER``: another message was got instead, so the unit of work must be backed out)."""
OTHER = "other"


def again_by_ids(
    qm: QueueManager, queue: str, wanted: list[tuple[Any, ...]]
) -> list[tuple[Any, bytes, Any] | str | None]:
    """By MsgId and CorrelId (a shared queue), checking the body. ``wanted``: (token, MQMD, data, properties)."""
    q = qm.open(queue)
    out: list[tuple[Any, bytes, Any] | str | None] = []
    try:
        for w in wanted:
            md, data = w[1], w[2]
            m = q.get_or_none(syncpoint=True, msg_id=bytes(md.MsgId), correl_id=bytes(md.CorrelId))
            out.append(None if m is None else OTHER if m.data != data else (m.md, m.data, m.typed_properties))
    finally:
        q.close()
    return out


def again_by_tokens(
    qm: QueueManager, queue: str, wanted: list[tuple[Any, ...]]
) -> list[tuple[Any, bytes, Any] | str | None]:
    """By MsgToken (a private queue): one request per CHUNK."""
    from ._qm import QueueAccess

    a = QueueAccess(qm, queue)
    try:
        return list(a.get_many([w[0] for w in wanted]))
    finally:
        a.close()


def commit_member(
    qm: QueueManager,
    queue: str,
    got: Sequence[tuple[Any, ...]],
    ds: dict[int, Disposition],
    batch: int,
    again: Again = again_by_ids,
) -> Summary:
    """Carry out the node's dispositions for the messages got (``(token, MQMD, data)``) in the connection's unit
    of work, and commit (see the module's steps 4 and 5)."""
    sink = _sink(qm)
    sink._attrs.clear()
    sink._openable.clear()
    sink._deadq = None
    msg = {g[0]: (g[1], g[2], g[3] if len(g) > 3 else None) for g in got}  # token -> MQMD, data, properties
    items: list[_Item] = []
    for g in got:
        t, md = g[0], g[1]
        d = ds.get(t)
        if d is None:  # the node said nothing of it: leave it for a retry
            d = Disposition(t, Action.BACKOUT, _terminal_none(), int(md.BackoutCount), error="no disposition")
        items.append(
            _Item(queue, t, d.action, list(d.puts), d.backout_count, d.error, d.bip, d.terminal.value, d.reason)
        )
    sink._precheck(items)
    s = Summary(batch, inputs=len(items))
    regot = False
    for _attempt in range(len(items) + 2):
        if not regot and any(it.action is Action.BACKOUT for it in items):
            qm.backout()  # every get back, BackoutCount + 1; the others are got again below
            regot = True
        try:
            if regot:
                _get_again(qm, queue, items, msg, again)
            counts = _carry_out(sink, items, msg)
        except _RedoError as r:
            qm.backout()
            regot = True
            sink._mark_failed(items, r)
            continue
        except _StaysError:
            qm.backout()
            regot = True
            continue
        with span("executor.member.mqcmit"):
            qm.commit()
        break
    else:  # pragma: no cover - every redo marks one more item
        raise RuntimeError("the member's unit of work did not settle")
    for name in ("gone", "outputs", "committed", "discarded", "to_dlq", "to_boq", "failure", "catch"):
        setattr(s, name, getattr(counts, name))
    s.where.update(counts.where)
    for it in items:
        if it.action is Action.BACKOUT:
            s.where[it.token] = "stayed" if it.terminal == "stay" else "backed out"
            if it.terminal == "stay":
                s.stayed += 1
                _log.error(
                    "%s: a message on %s cannot be put on BOQNAME or the DLQ; it stays, BackoutCount now %d: %s",
                    it.bip,
                    queue,
                    it.backout_count + 1,
                    it.error,
                )
            else:
                s.backed_out += 1
                n = it.backout_count + 1
                _log.warning("a message on %s backed out (BackoutCount now %d): %s", queue, n, it.error)
            if it.error:
                s.errors.append(it.error)
    return s


def _terminal_none() -> Any:
    from ._dispositions import Terminal

    return Terminal.NONE


class _StaysError(Exception):
    """A REQUEUE neither BOQNAME nor the DLQ took: it became a BACKOUT (it stays); the unit of work is redone."""


def _get_again(
    qm: QueueManager, queue: str, items: list[_Item], msg: dict[int, tuple[Any, bytes, Any]], again: Again
) -> None:
    """After a backout: get the messages that are not backed out again in this unit of work. One that another
    getter took meanwhile is "gone" (its outputs are dropped: whoever has it processes it)."""
    todo = [it for it in items if it.action is not Action.BACKOUT and not it.gone]
    if not todo:
        return
    wanted = [(it.token, *msg[it.token]) for it in todo]
    other = False
    with span("executor.member.again", len(wanted)):
        for it, m in zip(todo, again(qm, queue, wanted), strict=True):
            if m is None or isinstance(m, str):
                it.gone = True  # another getter has it (or another message has its ids): leave it to the queue
                other = other or isinstance(m, str)
            else:
                msg[it.token] = m
    if other:
        raise _StaysError()


def _carry_out(sink: Sink, items: list[_Item], msg: dict[int, tuple[Any, bytes, Any]]) -> Summary:
    counts = Summary(0)
    outputs: list[tuple[_Item, Put]] = []
    for it in items:
        if it.gone:
            counts.gone += 1
            counts.where[it.token] = "gone"
            continue
        if it.action is Action.REQUEUE:
            md, data, props = msg[it.token]
            dest = sink._requeue(it, md, data, props)
            if dest is None:
                it.action, it.bip, it.terminal = Action.BACKOUT, BIP_NO_QUEUE, "stay"
                raise _StaysError()
            tally_requeued(counts, it, dest, own_token=False)
        else:
            tally(counts, it, outputs, own_token=False)
    sink._put_outputs(outputs)
    return counts
