"""syncpoint: a queue manager with IBM MQ's semantics, in Python.

import syncpoint
qm = syncpoint.connect("QM1")
q = qm.open("ORDERS")
q.put(b"hello", persistent=True)
print(q.get(wait=2.0).data)

The names below are the client's (``syncpoint.client``) and the MQI's; they load on first use, so that importing
a lower package (``import syncpoint.engine``, ``import syncpoint.mqi``) loads nothing above it.

Implements: DESIGN.md (the package map); see each package for its seeds and reference pages.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from syncpoint._version import __version__

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

if TYPE_CHECKING:
    from syncpoint.client import (
        Message,
        Queue,
        QueueManager,
        connect,
        create_queue_manager,
        memory_queue_manager,
    )
    from syncpoint.mqi import MQMIError


def __getattr__(name: str) -> Any:
    if name == "MQMIError":
        from syncpoint.mqi import MQMIError

        return MQMIError
    if name in __all__:
        import syncpoint.client

        return getattr(syncpoint.client, name)
    raise AttributeError(f"module 'syncpoint' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
