"""Prometheus metrics of a queue manager in IBM's exporter names (issue 36; docs/operations.md).

A tool like the others: it reads the queue manager through ``syncpoint.client`` and the administrative verbs
(``qmgr_metrics``, ``queue_names``, ``queue_metrics``), and serves ``/metrics`` with prometheus_client's
exposition on Starlette and uvicorn, beside the server's event loop. strmqm starts it (qm.toml ``[metrics]``).
"""

from ._collector import (
    CHANNEL_LABELS,
    NAMESPACE,
    PLATFORM,
    QMGR_LABELS,
    QUEUE_LABELS,
    SLICE,
    QueueManagerCollector,
    channel_status,
    collect_own,
    metric_name,
)
from ._http import DEFAULT_PORT, MetricsServer, app, bind

__all__ = [
    "CHANNEL_LABELS",
    "DEFAULT_PORT",
    "NAMESPACE",
    "PLATFORM",
    "QMGR_LABELS",
    "QUEUE_LABELS",
    "SLICE",
    "MetricsServer",
    "QueueManagerCollector",
    "app",
    "bind",
    "channel_status",
    "collect_own",
    "metric_name",
]
