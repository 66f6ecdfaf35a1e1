"""syncpoint.spark: the "syncpoint" Spark data source (batch and streaming read / write, exactly-once sink).

``SyncpointDataSource`` needs pyspark (the ``spark`` extra); it is imported on first use so that the pure parts
(planning, rows, the sink's commit protocol) work without Spark. A message flow (``syncpoint.flow``) runs on
this data source: its node decides the dispositions (``Disposition``) the sink's commit carries out; the data
source imports nothing of the flow.

Implements: reference/spark.md.
"""

from __future__ import annotations

from typing import Any

from ._commit import COMMITS_QUEUE, Sink, Summary, query_key, read_record
from ._dispositions import BIP_NO_QUEUE, Action, Disposition, Put, Terminal, effective_threshold, requeue_order
from ._flowsink import DISPOSITION_SCHEMA, PROGRESS_QUEUE, batch_row, ensure_progress_queue, merge_progress_part
from ._plan import Offset, Planner, Visible
from ._profile import record as profile_record
from ._profile import span as profile_span
from ._qm import BROKEN, QueueAccess, Target, current_member
from ._rows import (
    COLUMN_NAMES,
    MD_COLUMNS,
    PACKED_SCHEMA,
    SCHEMA,
    md_to_dict,
    message_to_row,
    props_from_row,
    row_to_message,
)

__all__ = [
    "BIP_NO_QUEUE",
    "BROKEN",
    "COLUMN_NAMES",
    "COMMITS_QUEUE",
    "DISPOSITION_SCHEMA",
    "MD_COLUMNS",
    "PACKED_SCHEMA",
    "PROGRESS_QUEUE",
    "SCHEMA",
    "Action",
    "Disposition",
    "Offset",
    "Planner",
    "Put",
    "QueueAccess",
    "Sink",
    "Summary",
    "SyncpointDataSource",
    "Target",
    "Terminal",
    "Visible",
    "batch_row",
    "current_member",
    "effective_threshold",
    "ensure_progress_queue",
    "md_to_dict",
    "merge_progress_part",
    "message_to_row",
    "profile_record",
    "profile_span",
    "props_from_row",
    "query_key",
    "read_record",
    "requeue_order",
    "row_to_message",
]


def __getattr__(name: str) -> Any:
    if name == "SyncpointDataSource":
        from ._source import SyncpointDataSource

        return SyncpointDataSource
    raise AttributeError(name)
