"""syncpoint.client: one connection API, two transports (in-process now; remote with the server)."""

from ._api import Message, Queue, QueueManager, Transport, connect
from ._embedded import (
    EmbeddedConnection,
    EmbeddedQueueManager,
    create_queue_manager,
    memory_queue_manager,
    open_embedded,
)
from ._tuning import pin_cpus

__all__ = [
    "EmbeddedConnection",
    "EmbeddedQueueManager",
    "Message",
    "Queue",
    "QueueManager",
    "Transport",
    "connect",
    "create_queue_manager",
    "memory_queue_manager",
    "open_embedded",
    "pin_cpus",
]
