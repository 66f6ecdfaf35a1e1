"""Batch read and batch write of the "syncpoint" data source.

A batch read browses the queue (nothing removed, nothing locked): with one partition the executor browses the
queue from its start; with more, the driver scans the queue's tokens once and deals them out, and each executor
reads its tokens by MsgToken (``_read_tokens``, which the stream reader's executors use too). A batch write
only converts and checks rows on the executors; the driver puts every row of the job in ONE unit of work at the
job's commit (``put_all``), so a failed job leaves nothing on the queue.
"""

from __future__ import annotations

import pickle
from collections.abc import Iterator, Sequence
from typing import Any

from pyspark.sql.datasource import DataSourceReader, DataSourceWriter, InputPartition, WriterCommitMessage

from syncpoint.mqi import MQOD, MQPMO, MQMIError
from syncpoint.mqi import constants as C

from ._options import _int, _opt, _packed, _queue
from ._plan import split_partitions
from ._profile import span
from ._qm import CHUNK, QueueAccess, Target
from ._rows import messages_to_arrow, props_from_row, row_to_message


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
                from syncpoint.client.keywords import PYTHONIC_HMSG
                from syncpoint.mqi import MQGMO, MQMD

                from ._qm import token_of

                h = qm.mqopen(MQOD(ObjectName=self.queue.encode()), C.MQOO_BROWSE | C.MQOO_FAIL_IF_QUIESCING)
                first = True
                got: list[tuple[int, Any, bytes, Any]] = []
                while True:
                    md = MQMD()
                    gmo = MQGMO(MsgHandle=PYTHONIC_HMSG)  # version 4: the properties come as the row's maps
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
                    got.append((token_of(gmo), md, result.data, result.props))
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
                found = [(t, *got) for t, got in zip(part, got_all, strict=True) if got is not None]
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


def _convert_rows(rows: Iterator[Any], queue_option: str | None) -> list[tuple[str, bytes, bytes, bool, Any]]:
    """Rows as (queue, data, MQMD packed, set context, properties). The ``queue`` option, when given, wins over
    a ``queue`` column (as Spark's Kafka sink lets its ``topic`` option win over a ``topic`` column): a DataFrame
    read from a queue carries its source queue in that column, and writing it with ``option("queue", "OUT")`` must not
    put it back where it came from. Without the option, the column routes each row."""
    out = []
    for row in rows:
        d = row.asDict() if hasattr(row, "asDict") else dict(row)
        column = d.pop("queue", None)
        queue = queue_option or column
        if not queue:
            raise ValueError("a row has no 'queue' column value and the writer has no queue option")
        data, md, context = row_to_message(d)
        out.append((queue, data, md.pack(), context, props_from_row(d)))
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


def put_all(qm: Any, rows: Sequence[tuple[str, bytes, bytes, bool, Any]]) -> None:
    """Put rows in one unit of work (each with its properties); any failure backs out all of them and raises."""
    from syncpoint.mqi import MQMD

    try:
        for queue, data, md_bytes, context, props in rows:
            md = MQMD.unpack(md_bytes)
            pmo = MQPMO()
            pmo.Options = C.MQPMO_SYNCPOINT | C.MQPMO_FAIL_IF_QUIESCING
            if context:
                pmo.Options |= C.MQPMO_SET_ALL_CONTEXT
            qm.mqput1(MQOD(ObjectName=queue.encode()), md, pmo, data, props)
        qm.commit()
    except BaseException:
        qm.backout()
        raise
