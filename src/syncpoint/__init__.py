"""syncpoint: a queue manager with IBM MQ's semantics, in Python.

import syncpoint
qm = syncpoint.connect("QM1")
q = qm.open("ORDERS")
q.put(b"hello", persistent=True)
print(q.get(wait=2.0).data)
"""

from syncpoint.client import (
    Message,
    Queue,
    QueueManager,
    connect,
    create_queue_manager,
    memory_queue_manager,
)
from syncpoint.mqi import MQMIError

__version__ = "0.1.0"

__all__ = [
    "MQMIError",
    "Message",
    "Queue",
    "QueueManager",
    "__version__",
    "connect",
    "create_queue_manager",
    "memory_queue_manager",
]
