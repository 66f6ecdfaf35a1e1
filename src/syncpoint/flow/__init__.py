"""syncpoint.flow: message flows with IBM's MQInput-node error handling, run on Spark Structured Streaming.

The node (pure) imports nothing of Spark; Flow, MQInput and the runners load on first use (they sit on top of
syncpoint.spark, which itself uses the node).
"""

from __future__ import annotations

from typing import Any

from ._node import (
    Action,
    Disposition,
    FlowMessage,
    Handlers,
    InternalError,
    Output,
    Put,
    Terminal,
    TransactionMode,
    effective_threshold,
    process_group,
    process_message,
    requeue_order,
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
