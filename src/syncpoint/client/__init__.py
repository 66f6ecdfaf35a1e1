"""syncpoint.client: one connection API, two transports — remote (over syncpoint's wire protocol) and in-process.

Importing this package loads the API, the remote transport's vocabulary and nothing of the queue manager itself:
the embedded transport (the host, the engine, the store) loads on first embedded use, so a program that only
connects over the network (a Spark executor) never imports them.

Implements: DESIGN.md "api"; reference/structures.md and reference/constants.md (the MQI it speaks).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ._api import Queue, QueueManager
from ._channels import channel_command, svrconn_status
from ._connect import connect
from ._deadletter import dead_letter, dead_letter_header, dead_letter_queue
from ._local import local_server, missing_qmgr, passwords_required
from ._message import Message
from ._pubsub import Subscription
from ._transport import Transport

if TYPE_CHECKING:
    from ._embedded import (
        EmbeddedConnection,
        EmbeddedQueueManager,
        create_queue_manager,
        open_embedded,
    )
    from ._memory import MemoryQueueManager, memory_queue_manager
    from ._remote import RemoteTransport, parse_conname, tcp_connect
    from ._tuning import pin_cpus

__all__ = [
    "EmbeddedConnection",
    "EmbeddedQueueManager",
    "MemoryQueueManager",
    "Message",
    "Queue",
    "QueueManager",
    "RemoteTransport",
    "Subscription",
    "Transport",
    "channel_command",
    "connect",
    "create_queue_manager",
    "dead_letter",
    "dead_letter_header",
    "dead_letter_queue",
    "local_server",
    "memory_queue_manager",
    "missing_qmgr",
    "open_embedded",
    "parse_conname",
    "passwords_required",
    "pin_cpus",
    "svrconn_status",
    "tcp_connect",
]

_EMBEDDED = (
    "EmbeddedConnection",
    "EmbeddedQueueManager",
    "create_queue_manager",
    "open_embedded",
)


def __getattr__(name: str) -> Any:
    """The embedded transport's names and the remote transport's class, loaded on first use."""
    if name in _EMBEDDED:
        from . import _embedded

        return getattr(_embedded, name)
    if name in ("MemoryQueueManager", "memory_queue_manager"):
        from . import _memory

        return getattr(_memory, name)
    if name == "pin_cpus":
        from ._tuning import pin_cpus

        return pin_cpus
    if name in ("RemoteTransport", "parse_conname", "tcp_connect"):
        from . import _remote

        return getattr(_remote, name)
    raise AttributeError(f"module 'syncpoint.client' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
