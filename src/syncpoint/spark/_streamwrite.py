"""The stream writer (the sink): ONE unit of work per micro-batch, at its commit on the driver.

The executors' ``write`` converts a partition's rows (or, for a message flow, collects its dispositions) into one
commit message; the commit, in a driver worker that sees only those messages, puts the batch's outputs, gets the
inputs they consume and replaces the query's record (query id, batch id) on SYSTEM.SYNCPOINT.SPARK.COMMITS in one
unit of work (``_commit.Sink``), so a replayed batch is skipped. A flow whose partitions committed on their own
executors leaves only its progress message to the sink.
"""

from __future__ import annotations

import pickle
from collections.abc import Iterator
from typing import Any

from pyspark.sql.datasource import DataSourceStreamWriter, WriterCommitMessage

from syncpoint.mqi import MQMIError

from ._batch import _Rows
from ._options import _opt
from ._profile import span
from ._qm import Target
from ._rows import props_from_row, row_to_message


# ======================================================================================================
# Stream write: ONE unit of work per micro-batch at commit
# ======================================================================================================
def _query_id() -> str:
    from pyspark import TaskContext

    ctx = TaskContext.get()
    qid = ctx.getLocalProperty("sql.streaming.queryId") if ctx is not None else None
    if not qid:
        raise RuntimeError("the syncpoint stream writer runs only inside a streaming query")
    return str(qid)


class StreamWriter(DataSourceStreamWriter):
    """Exactly-once sink: the batch's rows travel to the driver in commit messages; the commit puts them,
    consumes the inputs they came from and records (query id, batch id), in one unit of work."""

    def __init__(self, options: dict[str, str]) -> None:
        self.options = options
        self.target = Target.from_options(options)
        self.queue = _opt(options, "queue")
        self.mode = (_opt(options, "mode", "rows") or "rows").lower()
        if self.mode not in ("rows", "flow"):
            raise ValueError(f"option mode must be rows or flow, not {self.mode!r}")

    def write(self, iterator: Iterator[Any]) -> WriterCommitMessage:
        qid = _query_id()
        if self.mode == "flow":
            from ._flowsink import collect_dispositions

            warm = _warm_read_connection(self.target)
            try:
                with span("executor.sink.write"):
                    return _Rows(pickle.dumps(collect_dispositions(iterator)), qid)
            finally:
                if warm is not None:
                    warm.join()
        consumed: dict[str, set[int]] = {}
        rows = []
        for row in iterator:
            d = row.asDict()
            src, token = d.pop("queue", None), d.pop("token", None)
            if src is not None and token is not None:
                consumed.setdefault(src, set()).add(int(token))
            for extra in ("payload", "text", "PutTimestamp"):
                d.pop(extra, None)
            for k in [k for k in d if k.startswith("DLH_")]:
                del d[k]
            data, md, context = row_to_message(d)
            rows.append((data, md.pack(), context, props_from_row(d)))
        return _Rows(pickle.dumps((consumed, rows)), qid)

    def commit(self, messages: list[WriterCommitMessage | None], batchId: int) -> None:
        from ._commit import Sink
        from ._dispositions import Put

        msgs = [m for m in messages if isinstance(m, _Rows)]
        if not msgs:
            return
        qid = msgs[0].query_id or ""
        if self.mode == "flow":
            from ._flowsink import committed_by_partitions, publish_member_progress

            payloads = [pickle.loads(m.payload) for m in msgs]
            if self.target.members or committed_by_partitions(payloads):
                # each partition committed in its own unit of work: only the progress message is left
                publish_member_progress(self.target, qid, batchId, payloads)
                return
        with span("driver.commit.connect"):
            qm = self.target.connection("syncpoint.spark.sink")
            sink = _sinks.get(self.target)
            if sink is None or sink.qm is not qm:
                sink = _sinks[self.target] = Sink(qm)
        try:
            if self.mode == "flow":
                from ._flowsink import commit_flow_batch

                with span("driver.commit.flow"):
                    commit_flow_batch(sink, qid, batchId, payloads, self.options)
                return
            consumed: dict[str, set[int]] = {}
            puts: list[Put] = []
            if not self.queue:
                raise ValueError('the syncpoint stream writer needs option("queue", <output queue>)')
            from syncpoint.mqi import MQMD

            from ._rows import md_to_dict

            for m in msgs:
                c, rows = pickle.loads(m.payload)
                for q, ts in c.items():
                    consumed.setdefault(q, set()).update(ts)
                for data, md_bytes, _context, props in rows:
                    md = MQMD.unpack(md_bytes)
                    fields = {k: v for k, v in md_to_dict(md).items() if k in _SETTABLE}
                    puts.append(Put(self.queue, "", data, fields, props))
            sink.commit_rows(qid, batchId, consumed, puts)
        except BaseException:
            try:
                qm.backout()
            except MQMIError:
                pass
            _sinks.pop(self.target, None)
            self.target.drop("syncpoint.spark.sink")
            raise

    def abort(self, messages: list[WriterCommitMessage | None], batchId: int) -> None:
        """Nothing was put: the queue manager saw nothing of this batch."""


def _warm_read_connection(target: Target) -> Any:
    """Connect this Python worker for reading while it waits for the partition's rows (a thread, joined before
    write() returns). Spark hands a batch's read and write to whichever of its kept workers is free, so a worker
    that wrote the last batch often reads the next one: it then finds its connection made (measured: 140 ms
    per batch on the critical path without it, docs/flows.md, Performance)."""
    import threading

    if target.members:
        return None

    def run() -> None:
        try:
            target.connection("syncpoint.spark.read")
        except MQMIError:
            target.drop("syncpoint.spark.read")

    th = threading.Thread(target=run, name="syncpoint-warm-read", daemon=True)
    th.start()
    return th


_sinks: dict[Target, Any] = {}  # the sink of each queue manager, kept with its connection (Target.connection)

_SETTABLE = frozenset(
    {"Report", "MsgType", "Expiry", "Feedback", "Encoding", "CodedCharSetId", "Format", "Priority", "Persistence"}
    | {"CorrelId", "ReplyToQ", "ReplyToQMgr", "GroupId", "MsgSeqNumber", "MsgFlags"}
)
