"""syncpoint.flow: message flows with IBM's MQInput-node error handling, run on Spark Structured Streaming.

The node (pure) imports nothing of pyspark; Flow, MQInput and the runners load on first use. A flow sits on top
of the "syncpoint" data source (``syncpoint.spark``): the dispositions the node decides (Action, Disposition,
Put …) are the sink's vocabulary, imported from there and named here too.

Implements: seed 004 (MQInput error handling), reference/mqinput-node.md, reference/spark.md.
"""

from __future__ import annotations

from typing import Any

from syncpoint.spark import Action, Disposition, Put, Terminal, effective_threshold, requeue_order

from ._node import (
    FlowMessage,
    Handlers,
    InternalError,
    Output,
    TransactionMode,
    process_group,
    process_message,
)

__all__ = [
    "Action",
    "Disposition",
    "Flow",
    "FlowMessage",
    "Handlers",
    "InternalError",
    "MQInput",
    "Output",
    "Put",
    "Terminal",
    "Totals",
    "TransactionMode",
    "build_query",
    "effective_threshold",
    "load_flow",
    "process_group",
    "process_message",
    "requeue_order",
    "run_flow",
    "spark_session",
]


_LAZY = ("Flow", "MQInput", "Totals", "build_query", "load_flow", "run_flow", "spark_session")


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        from . import _flow

        return getattr(_flow, name)
    raise AttributeError(name)
