"""syncpoint.engine: the queue manager itself — pure logic, no sockets, no threads, an injected clock."""

from ._objects import (
    ATTRIBUTES,
    PROCESS,
    QALIAS,
    QLOCAL,
    QMGR,
    QMODEL,
    QUEUE_TYPES,
    Attribute,
    Definition,
    attributes_for,
    defaults_for,
)
from ._qmgr import (
    Connection,
    Effects,
    GetResult,
    Handle,
    QueueManager,
    UnitOfWork,
    char_attr_length,
    put_date_time,
)
from ._queue import LocalQueue, Message
from .clock import Clock, FakeClock, SystemClock

__all__ = [
    "ATTRIBUTES",
    "PROCESS",
    "QALIAS",
    "QLOCAL",
    "QMGR",
    "QMODEL",
    "QUEUE_TYPES",
    "Attribute",
    "Clock",
    "Connection",
    "Definition",
    "Effects",
    "FakeClock",
    "GetResult",
    "Handle",
    "LocalQueue",
    "Message",
    "QueueManager",
    "SystemClock",
    "UnitOfWork",
    "attributes_for",
    "char_attr_length",
    "defaults_for",
    "put_date_time",
]
