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
"""

from __future__ import annotations

import logging
import pickle
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
    WriterCommitMessage,
)
from pyspark.sql.types import StructType

from syncpoint.mqi import MQOD, MQPMO, MQMIError
from syncpoint.mqi import constants as C

from ._plan import Offset, Planner, Visible, batch_tokens, held_back, order_units, split_partitions
from ._profile import record, span
from ._qm import CHUNK, QueueAccess, Target, batch_bound, max_uncommitted, next_token, visible_of
from ._rows import PACKED_SCHEMA, SCHEMA, messages_to_arrow, row_to_message

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


DEFAULT_MAX_MESSAGES = 5000  # bounded by MAXUMSGS (default 10,000): a get and an output each (see batch_bound)
_log = logging.getLogger("syncpoint.spark")


def _opt(options: Any, name: str, default: str | None = None) -> str | None:
    low = {k.lower(): v for k, v in dict(options).items()}
    return low.get(name.lower(), default)


def _bool(value: str | None, default: bool) -> bool:
    if value is None:
        return default
    v = value.strip().lower()
    if v in ("true", "yes", "1"):
        return True
    if v in ("false", "no", "0"):
        return False
    raise ValueError(f"expected true or false, not {value!r}")


def _int(options: Any, name: str, default: int) -> int:
    raw = _opt(options, name)
    if raw is None:
        return default
    try:
        n = int(raw)
    except ValueError:
        raise ValueError(f"option {name} must be a whole number, not {raw!r}") from None
    if n < 1:
        raise ValueError(f"option {name} must be at least 1, not {n}")
    return n


def _packed(options: Any) -> bool:
    """``rowFormat``: ``columns`` (the default: every MQMD field a column) or ``packed`` (queue, token, data and
    the MQMD packed: what a message flow reads, the least to convert)."""
    fmt = (_opt(options, "rowFormat", "columns") or "columns").lower()
    if fmt not in ("columns", "packed"):
        raise ValueError(f"option rowFormat must be columns or packed, not {fmt!r}")
    return fmt == "packed"


def _check_queue(options: Any) -> None:
    """At load() (Spark asks the schema then): the queue manager and the queue must be there, else the reason
    (MQRC_UNKNOWN_OBJECT_NAME 2085, MQRC_Q_MGR_NOT_AVAILABLE 2059 …) fails load() itself, not a later task."""
    queue = _opt(options, "queue")
    if not queue:
        return
    target = Target.from_options(options)
    try:
        qm = target.connect("syncpoint.spark.load")
    except MQMIError as e:
        raise MQMIError(e.comp, e.reason, f"queue manager {target.qmgr} is not available") from None
    try:
        h = qm.mqopen(MQOD(ObjectName=queue.encode()), C.MQOO_INQUIRE | C.MQOO_FAIL_IF_QUIESCING)
        qm.mqclose(h)
    except MQMIError as e:
        raise MQMIError(e.comp, e.reason, f"queue {queue} of queue manager {target.qmgr} cannot be opened") from None
    finally:
        qm.disconnect()


def _check_members(options: Any, partition_fn: Any) -> None:
    """Option ``members`` (a shared queue read through several members of a group) needs the processing inside
    the read: each partition commits in its member's unit of work (see _member)."""
    if _opt(options, "members") and partition_fn is None:
        raise ValueError(
            "option members reads a shared queue through several members, each partition committing in its "
            "member's unit of work: that needs the processing inside the read (a message flow without a "
            "DataFrame stage, or a source with partition_fn); a plain stream of rows reads through one qmgr"
        )


def _queue(options: Any) -> str:
    q = _opt(options, "queue")
    if not q:
        raise ValueError('the syncpoint data source needs option("queue", <queue name>)')
    return q


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
# Batch read: browse a queue
# ======================================================================================================
class TokenPartition(InputPartition):
    def __init__(self, tokens: list[int]) -> None:
        super().__init__(tokens)
        self.tokens = tokens


class BatchReader(DataSourceReader):
    """Browses the queue into rows; nothing is removed."""

    def __init__(self, options: dict[str, str]) -> None:
        self.target = Target.from_options(options)
        self.queue = _queue(options)
        self.n = _int(options, "partitions", 1)
        self.packed = _packed(options)

    def partitions(self) -> Sequence[InputPartition]:
        if self.n == 1:
            return [InputPartition(None)]
        qm = self.target.connect("syncpoint.spark.read")
        try:
            a = QueueAccess(qm, self.queue)
            us = [[v] for v in a.scan(from_start=True)]
        finally:
            qm.disconnect()
        return [TokenPartition(p) for p in split_partitions(us, self.n)] or [InputPartition(None)]

    def read(self, partition: InputPartition) -> Iterator[Any]:
        qm = self.target.connect("syncpoint.spark.read")
        try:
            if isinstance(partition, TokenPartition):
                yield from _read_tokens(qm, self.queue, partition.tokens, packed=self.packed)
            else:
                from syncpoint.mqi import MQGMO, MQMD

                from ._qm import token_of

                h = qm.mqopen(MQOD(ObjectName=self.queue.encode()), C.MQOO_BROWSE | C.MQOO_FAIL_IF_QUIESCING)
                first = True
                got: list[tuple[int, Any, bytes]] = []
                while True:
                    md = MQMD()
                    gmo = MQGMO(Version=C.MQGMO_VERSION_3)
                    gmo.Options = (C.MQGMO_BROWSE_FIRST if first else C.MQGMO_BROWSE_NEXT) | C.MQGMO_NO_WAIT
                    first = False
                    try:
                        result = qm.transport.get(h, md, gmo, None)
                    except MQMIError as e:
                        if e.reason == C.MQRC_NO_MSG_AVAILABLE:
                            break
                        raise
                    if result.reason == C.MQRC_NO_MSG_AVAILABLE:
                        break
                    if result.reason != C.MQRC_NONE:
                        raise MQMIError(result.comp, result.reason, f"browsing queue {self.queue}")
                    got.append((token_of(gmo), md, result.data))
                    if len(got) == CHUNK:
                        yield messages_to_arrow(self.queue, got, packed=self.packed)
                        got = []
                if got:
                    yield messages_to_arrow(self.queue, got, packed=self.packed)
        finally:
            qm.disconnect()


def _read_tokens(qm: Any, queue: str, tokens: Sequence[int], *, packed: bool = False) -> Iterator[Any]:
    """The messages with these tokens, in this order, as Arrow record batches; those no longer on the queue are
    left out. One browse request per CHUNK tokens."""
    a = QueueAccess(qm, queue)
    try:
        for i in range(0, len(tokens), CHUNK):
            part = list(tokens[i : i + CHUNK])
            with span("executor.read.browse", len(part)):
                got_all = a.lookup_many(part)
            with span("executor.read.arrow", len(part)):
                found = [(t, got[0], got[1]) for t, got in zip(part, got_all, strict=True) if got is not None]
                batch = messages_to_arrow(queue, found, packed=packed)
            if found:
                yield batch
    finally:
        a.close()


# ======================================================================================================
# Batch write: all rows in one unit of work
# ======================================================================================================
class _Rows(WriterCommitMessage):
    def __init__(self, payload: bytes, query_id: str | None = None) -> None:
        self.payload = payload
        self.query_id = query_id


def _convert_rows(rows: Iterator[Any], default_queue: str | None) -> list[tuple[str, bytes, bytes, bool]]:
    out = []
    for row in rows:
        d = row.asDict() if hasattr(row, "asDict") else dict(row)
        queue = d.pop("queue", None) or default_queue
        if not queue:
            raise ValueError("a row has no 'queue' column value and the writer has no queue option")
        data, md, context = row_to_message(d)
        out.append((queue, data, md.pack(), context))
    return out


class BatchWriter(DataSourceWriter):
    """Puts every row as a message; all of the job's rows are put in ONE unit of work at commit (on the
    driver), so a failed job leaves nothing on the queue."""

    def __init__(self, options: dict[str, str]) -> None:
        self.target = Target.from_options(options)
        self.queue = _opt(options, "queue")

    def write(self, iterator: Iterator[Any]) -> WriterCommitMessage:
        return _Rows(pickle.dumps(_convert_rows(iterator, self.queue)))

    def commit(self, messages: list[WriterCommitMessage | None]) -> None:
        qm = self.target.connect("syncpoint.spark.write")
        try:
            put_all(qm, [r for m in messages if isinstance(m, _Rows) for r in pickle.loads(m.payload)])
        finally:
            qm.disconnect()

    def abort(self, messages: list[WriterCommitMessage | None]) -> None:
        """Nothing was put: executors only converted rows; the queue manager saw nothing."""


def put_all(qm: Any, rows: Sequence[tuple[str, bytes, bytes, bool]]) -> None:
    """Put rows in one unit of work; any failure backs out all of them and raises."""
    from syncpoint.mqi import MQMD

    try:
        for queue, data, md_bytes, context in rows:
            md = MQMD.unpack(md_bytes)
            pmo = MQPMO()
            pmo.Options = C.MQPMO_SYNCPOINT | C.MQPMO_FAIL_IF_QUIESCING
            if context:
                pmo.Options |= C.MQPMO_SET_ALL_CONTEXT
            qm.mqput1(MQOD(ObjectName=queue.encode()), md, pmo, data)
        qm.commit()
    except BaseException:
        qm.backout()
        raise


# ======================================================================================================
# Stream read
# ======================================================================================================
class BatchPartition(InputPartition):
    def __init__(self, tokens: list[int], part: int = 0, parts: int = 1) -> None:
        super().__init__(tokens)
        self.tokens = tokens
        self.part, self.parts = part, parts  # its index among the batch's partitions (the progress message)


class _DriverState:
    """The stream reader's state in the long-lived driver process: a connection, the planner's memory and an
    index of the queue kept up to date incrementally (browse-next for arrivals, a browse of the queue's head for
    what the last batch left; a full rescan when that finds nothing to do, which also catches priority arrivals)."""

    def __init__(self, reader: StreamReader) -> None:
        self.qm = reader.target.connect("syncpoint.spark.source")
        self.access = QueueAccess(self.qm, reader.queue)
        bound = batch_bound(reader.max_messages, max_uncommitted(self.qm))
        if reader.partition_fn is not None and reader.commit_mode == "partition":
            # each partition commits its own unit of work: the bound holds per partition, not per batch
            self.planner = Planner(
                max_messages=min(reader.max_messages, reader.n * bound),
                logical_order=reader.logical_order,
                partitions=reader.n,
                partition_max=bound,
                small=min(reader.n, reader.cores),
                per=CHUNK,
            )
        else:
            self.planner = Planner(max_messages=bound, logical_order=reader.logical_order)
        self.index: dict[int, Visible] = {}
        # the queue's head, browsed on a handle of its own (the read-ahead's cursor stays): what the last batch
        # left is at the start of the queue (see _refresh_from_head)
        self.head: QueueAccess | None = QueueAccess(self.qm, reader.queue)
        self.fifo = self.access.fifo()
        self.scanned = False
        self.last: tuple[str, list[Visible]] | None = None
        self.refreshed = False  # the index has seen what the last batch's commit left of it
        self.reserved: dict[int, list[int]] = {}  # batch number (Offset.n) -> the tokens reserved for it
        self._ahead: Any = None  # the read-ahead running while the executors process a batch (a thread)
        self._ahead_got: list[Visible] = []
        self._ahead_error: BaseException | None = None
        self._ahead_limit = 0
        self.at_end = False  # the last browse on from the index's cursor met the end of the queue
        self.serial_browsed = 0  # messages the last update() browsed itself, on latestOffset's serial path

    def read_ahead(self, ahead: int) -> None:
        """Browse on (without data) for the next batch while the executors process this one: Spark plans the
        next batch only after this one committed, so the browse would otherwise wait for it. Only this
        process's index learns from it (nothing is reserved or removed); ``settle`` joins it before the
        connection is used again. ``ahead``: the messages the index should hold unplanned (two batches)."""
        import threading

        unplanned, _ = self._unplanned()
        # at most one batch a time: after the first batch the index holds none unplanned, and two batches' browse
        # would compete with the start of Spark's Python workers for the cores
        limit = min(ahead - unplanned, ahead // 2)
        if limit <= 0 or not self.scanned:
            return
        self._ahead_got, self._ahead_error, self._ahead_limit = [], None, limit

        def run() -> None:
            try:
                with span("driver.readAhead", limit):
                    self._ahead_got.extend(self.access.scan(from_start=False, limit=limit))
            except BaseException as e:  # raised again by settle, in the caller's thread
                self._ahead_error = e

        self._ahead = threading.Thread(target=run, name="syncpoint-read-ahead", daemon=True)
        self._ahead.start()

    def settle(self) -> None:
        """Wait for the read-ahead and add what it read to the index (before the connection is used again)."""
        if self._ahead is None:
            return
        self._ahead.join()
        self._ahead = None
        for v in self._ahead_got:
            self.index[v.token] = v
        if self._ahead_error is None:
            self.at_end = len(self._ahead_got) < self._ahead_limit
        self._ahead_got = []
        if self._ahead_error is not None:
            e, self._ahead_error = self._ahead_error, None
            raise e

    def reserve(self, n: int, batch: Sequence[Visible]) -> None:
        """Reserve batch n's messages. One the queue manager did not reserve (gone, taken meanwhile) stays in the
        batch: the sink skips a message that is gone."""
        self.settle()
        tokens = [v.token for v in batch]
        if tokens:
            self.access.reserve(tokens)
        self.reserved[n] = tokens

    def release_through(self, n: int) -> None:
        """Release batches up to n (their sink committed), except tokens a later batch reserved again (a
        backed-out message retried). Nothing to release waits for nothing: Spark calls commit(end) inside its
        walCommit, after latestOffset released the same batches, while the read-ahead runs."""
        done = [k for k in self.reserved if k <= n]
        if not done:
            return
        self.settle()
        later = {t for k, ts in self.reserved.items() if k > n for t in ts}
        tokens = [t for k in done for t in self.reserved.pop(k) if t not in later]
        if tokens:
            self.access.release(tokens)

    def full_scan(self) -> None:
        self.settle()
        self.index = {v.token: v for v in self.access.scan(from_start=True)}
        self.scanned = True

    def update(self, need: int) -> None:
        """Bring the index up to date for the next batch of at most ``need`` messages. Runs on the serial path
        (Spark's latestOffset, between two batches), so it browses only what this batch still lacks: the
        read-ahead of the batch before has usually indexed it (docs/flows.md, Performance, change 16)."""
        self.settle()
        self.serial_browsed = 0
        if not self.scanned:
            # the first batch reads from the start, not the whole queue (a deep queue took seconds), when the
            # queue delivers in put order: what it read is then every message up to the newest read
            self.scanned = True
            newest = 0
            t0 = time.time()
            limit = max(1, need)
            n = 0
            for v in self.access.scan(from_start=True, limit=limit):  # the next batch's: read_ahead
                self.index[v.token] = v
                n += 1
                if v.token < newest:  # delivery by priority: index the whole queue, as before
                    self.full_scan()
                    return
                newest = v.token
            self.at_end = n < limit
            self.serial_browsed = n
            record("driver.browse", t0, n)
        elif self.last is not None and not self.refreshed:  # once per batch: Spark plans after the commit
            self.refreshed = True
            last = [v.token for v in self.last[1]]
            with span("driver.refresh", len(last)):
                if not self._refresh_from_head(self.last[1]):
                    for t, seen in zip(last, self.access.lookup_many(last, with_data=False), strict=True):
                        if seen is None:
                            self.index.pop(t, None)
                        else:
                            self.index[t] = visible_of(seen[0], t)
        # browse only what the index lacks: messages indexed but not yet planned count as read, except those of
        # a group the planner holds back (its last message not on the queue yet: the batch takes what follows
        # it); up to two batches, what the index held before the read-ahead covered the next batch
        unplanned, held = self._unplanned()
        while unplanned - held < need and unplanned < 2 * need:
            unplanned += self._browse_on(min(need - unplanned + held, 2 * need - unplanned))
            if self.at_end:
                break
            unplanned, held = self._unplanned()

    def _browse_on(self, limit: int) -> int:
        """Browse up to ``limit`` more messages from the index's cursor, on the serial path."""
        t0 = time.time()
        n = 0
        for v in self.access.scan(from_start=False, limit=limit):
            self.index[v.token] = v
            n += 1
        self.at_end = n < limit
        self.serial_browsed += n
        record("driver.browse", t0, n)
        return n

    def _unplanned(self) -> tuple[int, int]:
        """The indexed messages not planned yet (with their BackoutCount), and of them those the planner holds
        back: the messages of a group whose last message is not indexed, none of them backed out (``units``)."""
        p = self.planner
        unplanned = [v for t, v in self.index.items() if p.planned.get(t) != v.backout]
        return len(unplanned), held_back([v for v in unplanned if p.wanted(v)], logical_order=p.logical_order)

    def _key(self, v: Visible) -> int:
        """The message's place in the queue's browse order: its put sequence (MsgToken), after its priority
        unless the queue is MSGDLVSQ(FIFO) (the queue manager's own order, engine/_state.py)."""
        return v.token if self.fifo else ((9 - v.priority) << 52) | v.token

    def _refresh_from_head(self, last: Sequence[Visible]) -> bool:
        """What the last batch left, from a browse of the queue's start up to the batch's last message in browse
        order: the messages still there come first (the rest of the batch was committed), so this is one request
        when the batch left nothing, where a lookup per token was a browse per message. Every indexed message
        before that place that the browse does not meet is gone (or another connection's now: a full scan finds
        it again). False (nothing changed) when the browse is not in the order expected (MSGDLVSQ altered)."""
        if self.head is None or not last:
            return False
        key = self._key
        top = max(key(v) for v in last)
        seen: dict[int, Visible] = {}
        prev = -1
        for v in self.head.scan(from_start=True):
            k = key(v)
            if k < prev:  # not the order expected: look the batch's tokens up from now on
                self.head = None
                return False
            if k > top:
                break
            prev = k
            seen[v.token] = v
        for t in [t for t, v in self.index.items() if key(v) <= top and t not in seen]:
            del self.index[t]
        self.index.update(seen)
        return True

    def visible(self) -> list[Visible]:
        return [self.index[t] for t in sorted(self.index)]


_driver_state: dict[int, _DriverState] = {}


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
            rows.append((data, md.pack(), context))
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
                for data, md_bytes, _context in rows:
                    md = MQMD.unpack(md_bytes)
                    fields = {k: v for k, v in md_to_dict(md).items() if k in _SETTABLE}
                    puts.append(Put(self.queue, "", data, fields))
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
