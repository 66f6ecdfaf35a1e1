"""The queue manager server: syncpoint's own protocol (docs/protocol.md) over TCP and a Unix socket.

The protocol module is sans-I/O and shared with the remote client (``syncpoint.wire``); the host the server
serves is ``syncpoint.host`` (re-exported here: ``QueueManagerHost``, ``ADMIN_VERBS``). The asyncio server and
the process lifecycle (strmqm / endmqm) are imported on demand: ``syncpoint.server._server`` /
``syncpoint.server._lifecycle`` through the names below.
"""

from typing import Any

from syncpoint.host import available_cpus, check_spec
from syncpoint.wire import DEFAULT_MAX_FRAME, PROTOCOL_VERSIONS, ProtocolError

from ._auth import Users, checkers
from ._limits import Limits

_LAZY = {
    "ADMIN_VERBS": "syncpoint.host",  # the host loads the engine: not for a look from outside (strmqm, endmqm)
    "QueueManagerHost": "syncpoint.host",
    "Server": "._server",
    "ServerStats": "._server",
    "tls_context": "._server",
    "run_server": "._lifecycle",
    "server_info": "._lifecycle",
    "status": "._lifecycle",
    "starting_pid": "._lifecycle",
    "pid_alive": "._lifecycle",
    "embedded_holder": "._lifecycle",
    "lock_holder": "._lifecycle",
    "process_description": "._lifecycle",
    "receiving_channels": "._channel",
    "serve_channel_requests": "._channel",
    "receiving_control": "._channel",
}


def __getattr__(name: str) -> Any:
    """The asyncio server and the process lifecycle, loaded on first use."""
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module, __name__), "_pid_alive" if name == "pid_alive" else name)
    globals()[name] = value
    return value


__all__ = [
    "ADMIN_VERBS",
    "DEFAULT_MAX_FRAME",
    "PROTOCOL_VERSIONS",
    "Limits",
    "ProtocolError",
    "QueueManagerHost",
    "Server",
    "ServerStats",
    "Users",
    "available_cpus",
    "check_spec",
    "checkers",
    "embedded_holder",
    "lock_holder",
    "pid_alive",
    "process_description",
    "receiving_channels",
    "receiving_control",
    "run_server",
    "serve_channel_requests",
    "server_info",
    "starting_pid",
    "status",
]
