"""syncpoint.spark: the "syncpoint" Spark data source (batch and streaming read / write, exactly-once sink).

``SyncpointDataSource`` needs pyspark (the ``spark`` extra); it is imported on first use so that the pure parts
(planning, rows, the sink's commit protocol) work without Spark.
"""

from __future__ import annotations

from typing import Any

from ._commit import COMMITS_QUEUE, Sink, Summary, read_record
from ._plan import Offset, Planner, Visible
from ._qm import QueueAccess, Target
from ._rows import COLUMN_NAMES, SCHEMA, message_to_row, row_to_message

__all__ = [
    "COLUMN_NAMES",
    "COMMITS_QUEUE",
    "SCHEMA",
    "Offset",
    "Planner",
    "QueueAccess",
    "Sink",
    "Summary",
    "SyncpointDataSource",
    "Target",
    "Visible",
    "message_to_row",
    "read_record",
    "row_to_message",
]


def __getattr__(name: str) -> Any:
    if name == "SyncpointDataSource":
        from ._source import SyncpointDataSource

        return SyncpointDataSource
    raise AttributeError(name)
