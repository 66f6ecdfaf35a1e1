"""The "syncpoint" Spark data source (PySpark Python Data Source API, Spark 4.x).

    spark.dataSource.register(SyncpointDataSource)
    spark.read.format("syncpoint").option("qmgr", "QM1").option("queue", "Q").load()        # browse
    df.write.format("syncpoint").option("qmgr", "QM1").option("queue", "Q").mode("append").save()
    spark.readStream.format("syncpoint").option("qmgr", "QM1").option("queue", "IN").load()
    df.writeStream.format("syncpoint").option("qmgr", "QM1").option("queue", "OUT").start()

Options: ``qmgr`` (required), ``home`` / ``host`` (as syncpoint.connect takes them), ``queue``,
``maxMessagesPerBatch`` (stream read, default 1000: a batch's gets, puts and record share one unit of work,
bounded by MAXUMSGS), ``logicalOrder`` (default true: groups kept whole and in MsgSeqNumber order),
``partitions`` (default 2), and for the stream writer ``mode`` (``rows``: rows become messages, and a row
carrying ``queue`` + ``token`` of a streamed input consumes that input; ``flow``: the rows are a flow's
dispositions, see syncpoint.flow). A source that processes inside its read (``partition_fn``, a message flow)
also takes ``commit`` (``sink``, the default: the sink's one unit of work per batch; ``partition``: each partition
gets, processes and commits on its executor), ``progress`` (``partition``: each such partition puts its part of
the batch's progress message itself, for a query writing to Spark's noop sink; default ``sink``) and ``members``
(a shared queue read through several members of a queue-sharing group, each partition committing on one: see
_member).

Where code runs (reference/spark.md): the stream reader's offsets and partitions in one long-lived driver
process (its planner memory lives there); read() and write() on executors; the stream writer's commit in a
driver worker that only sees the commit messages. Every one of them connects to the queue manager itself.

In-flight batches are reserved: when the driver fixes a batch (latestOffset, or partitions for a replay) it
reserves the batch's messages over its long-lived connection, so another consumer's gets and browses skip them
and expiry leaves them alone until the batch has committed: then the next latestOffset (or the source's
commit(end)) releases what is left (the sink removed the rest).
Executors and the sink reach them by MsgToken. The reservation dies with the driver's connection: a restarted
driver replays the batch from the queue and reserves it again; a message another consumer took meanwhile is
skipped by the sink, as before.

The rooms: this module holds the data source and the stream reader (its offsets, partitions and executor read);
_options the options and load()'s checks, _batch the batch read and write, _driver the stream reader's state in
the driver process (index, planner, reservations, read-ahead), _streamwrite the sink.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any, ClassVar

from pyspark.sql.datasource import (
    DataSource,
    DataSourceReader,
    DataSourceStreamReader,
    DataSourceStreamWriter,
    DataSourceWriter,
    InputPartition,
)
from pyspark.sql.types import StructType

from syncpoint.mqi import MQMIError
from syncpoint.mqi import constants as C

# _read_tokens and StreamWriter are looked up here (tests/spark/killhooks patch them in this module)
from ._batch import BatchReader, BatchWriter, _read_tokens
from ._driver import _driver_state, _DriverState
from ._options import DEFAULT_MAX_MESSAGES, _bool, _check_members, _check_queue, _int, _opt, _packed, _queue
from ._plan import Offset, batch_tokens, order_units, split_partitions
from ._profile import record, span
from ._qm import Target, batch_bound, next_token
from ._rows import PACKED_SCHEMA, SCHEMA
from ._streamwrite import StreamWriter

try:
    from pyspark.sql.streaming.datasource import (
        ReadAllAvailable,
        ReadLimit,
        ReadMaxRows,
        SupportsTriggerAvailableNow,
    )
except ImportError:  # pragma: no cover - Spark 4.0/4.1: no admission control
    ReadLimit = object  # type: ignore[assignment,misc]
    ReadAllAvailable = ReadMaxRows = None  # type: ignore[assignment,misc]

    class SupportsTriggerAvailableNow:  # type: ignore[no-redef]
        pass


_log = logging.getLogger("syncpoint.spark")


class SyncpointDataSource(DataSource):
    """Format "syncpoint": queues of a syncpoint queue manager as DataFrames (batch and streaming).

    A subclass may set ``partition_fn`` and ``partition_schema``: the stream reader then applies the function to
    each partition's record batches inside ``read()`` (in the same executor Python worker, the messages never
    entering the JVM) and the stream's rows are its output, of that schema. A message flow runs its node so.
    """

    partition_fn: ClassVar[Callable[[Iterator[Any]], Iterator[Any]] | None] = None
    partition_schema: ClassVar[str | None] = None

    @classmethod
    def name(cls) -> str:
        return "syncpoint"

    def schema(self) -> str:
        mode = _opt(self.options, "mode", "rows")
        if mode == "flow":
            from ._flowsink import DISPOSITION_SCHEMA

            return DISPOSITION_SCHEMA
        _check_members(self.options, type(self).partition_fn)
        _check_queue(self.options)
        if self.partition_schema is not None:
            return self.partition_schema
        return PACKED_SCHEMA if _packed(self.options) else SCHEMA

    def reader(self, schema: StructType) -> DataSourceReader:
        return BatchReader(dict(self.options))

    def writer(self, schema: StructType, overwrite: bool) -> DataSourceWriter:
        if overwrite:
            raise ValueError("the syncpoint data source appends messages; use mode('append')")
        return BatchWriter(dict(self.options))

    def streamReader(self, schema: StructType) -> DataSourceStreamReader:
        r = StreamReader(dict(self.options))
        r.partition_fn = type(self).partition_fn
        _check_members(self.options, r.partition_fn)
        return r

    def streamWriter(self, schema: StructType, overwrite: bool) -> DataSourceStreamWriter:
        return StreamWriter(dict(self.options))


# ======================================================================================================
# Stream read
# ======================================================================================================
class BatchPartition(InputPartition):
    def __init__(self, tokens: list[int], part: int = 0, parts: int = 1) -> None:
        super().__init__(tokens)
        self.tokens = tokens
        self.part, self.parts = part, parts  # its index among the batch's partitions (the progress message)


class StreamReader(DataSourceStreamReader, SupportsTriggerAvailableNow):  # type: ignore[misc, unused-ignore]
    """Deterministic micro-batches by MsgToken (see _plan), admission control and availableNow."""

    def __init__(self, options: dict[str, str]) -> None:
        self.target = Target.from_options(options)
        self.queue = _queue(options)
        self.max_messages = _int(options, "maxMessagesPerBatch", DEFAULT_MAX_MESSAGES)
        self.logical_order = _bool(_opt(options, "logicalOrder"), True)
        self.n = _int(options, "partitions", 2)
        self.cores = _int(options, "cores", self.n)  # a small batch's partitions, at least (see Planner.small)
        self.packed = _packed(options)
        self.partition_fn: Callable[[Iterator[Any]], Iterator[Any]] | None = None
        self._key = id(self)
        self.commit_mode = (_opt(options, "commit", "sink") or "sink").lower()
        if self.commit_mode not in ("sink", "partition"):
            raise ValueError(f"option commit must be sink or partition, not {self.commit_mode!r}")
        # "partition": each partition committing on its own puts its part of the progress message itself (the
        # flow then writes to Spark's noop sink: no sink's writer or commit in Python)
        self.progress = (_opt(options, "progress", "sink") or "sink").lower()
        self._bound: int | None = None  # members: the batch bound (maxMessagesPerBatch within MAXUMSGS)
        self._budget: int | None = None  # members, availableNow: messages still to plan

    def _state(self) -> _DriverState:
        st = _driver_state.get(self._key)
        if st is None:
            st = _driver_state[self._key] = _DriverState(self)
        return st

    def initialOffset(self) -> dict[str, Any]:
        return Offset().to_dict()

    # -- a shared queue through several members (see _member) ------------------------------------------
    def _members_latest(self, start: dict[str, Any] | None, limit: Any) -> dict[str, Any]:
        from ._member import depth, max_uncommitted_any

        s = Offset.from_dict(start)
        targets = self.target.member_targets()
        if self._bound is None:
            self._bound = batch_bound(self.max_messages, max_uncommitted_any(targets))
        cap = self._bound
        if ReadMaxRows is not None and isinstance(limit, ReadMaxRows):
            cap = min(cap, int(limit.max_rows))
        d = depth(targets, self.queue)
        if not d:
            return s.to_dict()
        n = min(d, cap)
        if self._budget is not None:  # availableNow: what was there at the start, retries included
            n = min(n, self._budget)
            if n <= 0:
                return s.to_dict()
            self._budget -= n
        return Offset(s.hw + n, (), (), s.n + 1).to_dict()

    def getDefaultReadLimit(self) -> Any:
        return ReadMaxRows(self.max_messages) if ReadMaxRows is not None else None

    def prepareForTriggerAvailableNow(self) -> None:
        with span("driver.prepareAvailableNow"):
            self._prepare_available_now()

    def _prepare_available_now(self) -> None:
        from ._dispositions import effective_threshold

        if self.target.members:
            from ._member import depth

            targets = self.target.member_targets()
            d = depth(targets, self.queue) or 0
            try:
                q = targets[0].connection("syncpoint.spark.source").open(self.queue)
                bothresh = int(q.inquire(C.MQIA_BACKOUT_THRESHOLD))
                q.close()
            except MQMIError:
                bothresh = None
            self._budget = d * (2 * effective_threshold(bothresh) + 1)
            return
        st = self._state()
        # what is on the queue now: every message put before a marker put now (a few requests); without a
        # model queue to put it on, the newest message of a scan of the whole queue
        marker = next_token(st.qm)
        if marker is None:
            st.full_scan()
            st.planner.target = max(st.index, default=0)
        else:
            st.planner.target = marker - 1
        bothresh, _ = st.access.attributes()
        st.planner.stuck_after = 2 * effective_threshold(bothresh)

    def latestOffset(self, start: dict[str, Any] | None = None, limit: Any = None) -> dict[str, Any]:
        with span("driver.latestOffset"):
            return self._latest_offset(start, limit)

    def _latest_offset(self, start: dict[str, Any] | None, limit: Any) -> dict[str, Any]:
        if self.target.members:
            return self._members_latest(start, limit)
        st = self._state()
        s = Offset.from_dict(start)
        cap: int | None = self.max_messages
        if ReadMaxRows is not None and isinstance(limit, ReadMaxRows):
            cap = int(limit.max_rows)
        elif ReadAllAvailable is not None and isinstance(limit, ReadAllAvailable):
            cap = None
        st.update(cap if cap is not None else 1 << 62)
        end, chosen = st.planner.plan(s, st.visible(), cap)
        if not chosen:
            st.full_scan()
            end, chosen = st.planner.plan(s, st.visible(), cap)
        if chosen:
            st.last, st.refreshed = (end.to_json(), chosen), False
            st.reserve(end.n, chosen)
        # Spark plans a batch only once the one before has committed, and calls commit(end) only when it plans
        # the next batch with data: an idle query would keep its last batch's leftovers reserved without this.
        st.release_through(s.n)
        if chosen:
            st.read_ahead(2 * cap if cap is not None else 1 << 62)
        return end.to_dict()

    def partitions(self, start: dict[str, Any], end: dict[str, Any]) -> Sequence[InputPartition]:
        with span("driver.partitions"):
            return self._partitions(start, end)

    def _partitions(self, start: dict[str, Any], end: dict[str, Any]) -> Sequence[InputPartition]:
        s, e = Offset.from_dict(start), Offset.from_dict(end)
        if self.target.members:
            from ._member import plan_partitions

            return plan_partitions(e.n, e.hw - s.hw, self.n)
        st = self._state()
        if st.last is not None and st.last[0] == e.to_json():
            batch = list(st.last[1])
        else:  # a replay after a restart: read the batch again from the queue
            st.full_scan()
            visible = st.visible()
            tokens = batch_tokens(s, e, (v.token for v in visible))
            batch = [v for v in visible if v.token in tokens]
            for v in batch:
                st.planner.planned.setdefault(v.token, v.backout)
            st.last, st.refreshed = (e.to_json(), batch), False
            st.reserve(e.n, batch)
        n = st.planner.count(len(batch)) if st.planner.partition_max is not None else self.n
        parts = split_partitions(order_units(batch, logical_order=self.logical_order), n)
        return [BatchPartition(p, i, len(parts)) for i, p in enumerate(parts)]

    def read(self, partition: InputPartition) -> Iterator[Any]:
        if self.target.members:
            from ._member import MemberPartition, read_partition

            assert isinstance(partition, MemberPartition) and self.partition_fn is not None
            yield from read_partition(self.target, self.queue, partition, self.partition_fn, packed=self.packed)
            return
        assert isinstance(partition, BatchPartition)
        if self.partition_fn is not None and self.commit_mode == "partition":
            from ._member import read_tokens_partition

            yield from read_tokens_partition(
                self.target,
                self.queue,
                partition.tokens,
                self.partition_fn,
                packed=self.packed,
                progress=(partition.part, partition.parts) if self.progress == "partition" else None,
            )
            return
        t0 = time.time()
        qm = self.target.connection("syncpoint.spark.read")
        record("executor.read.connect", t0)
        try:
            batches = _read_tokens(qm, self.queue, partition.tokens, packed=self.packed)
            yield from batches if self.partition_fn is None else self.partition_fn(batches)
        except BaseException:
            self.target.drop("syncpoint.spark.read")
            raise

    def commit(self, end: dict[str, Any]) -> None:
        """The sink's unit of work removed the batch's messages: release the reservations of what is left (messages
        backed out for a retry, rows filtered out). Best effort: a broken connection's reservations are gone
        already. (latestOffset releases too: Spark calls this only when it plans a batch with data.)"""
        st = _driver_state.get(self._key)
        if st is None:
            return
        try:
            st.release_through(Offset.from_dict(end).n)
        except MQMIError as e:
            _log.warning("releasing the reservations of batch %s: %s", end, e)

    def stop(self) -> None:
        st = _driver_state.pop(self._key, None)
        if st is not None:
            try:
                st.settle()
            except MQMIError:
                pass
            try:
                st.qm.disconnect()
            except MQMIError:
                pass
