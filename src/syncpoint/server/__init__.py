"""The queue manager server: syncpoint's own protocol (docs/protocol.md) over TCP and a Unix socket.

The protocol module is sans-I/O and shared with the remote client; the asyncio server and the process
lifecycle (strmqm / endmqm) are imported on demand.
"""

from syncpoint.wire import DEFAULT_MAX_FRAME, PROTOCOL_VERSIONS, ProtocolError

from ._host import ADMIN_VERBS, QueueManagerHost

__all__ = ["ADMIN_VERBS", "DEFAULT_MAX_FRAME", "PROTOCOL_VERSIONS", "ProtocolError", "QueueManagerHost"]
