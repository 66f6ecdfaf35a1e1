"""syncpoint.wire: syncpoint's own wire protocol (docs/protocol.md), sans-I/O.

Shared vocabulary of the network: the server (``syncpoint.server``) and the remote client
(``syncpoint.client``) both import it, and it imports nothing of either, nor the engine — so a Spark executor's
remote client loads only this and ``syncpoint.mqi``.
"""

# the package's face: its users import many of the same names (an import list, not logic)
from ._protocol import (
    BAD_REQUEST,
    DEFAULT_MAX_FRAME,
    FATAL,
    MAX_GETM,
    MQ_ERROR,
    OK,
    OPTIONAL_ARGS,
    PROTOCOL_VERSIONS,
    VERBS,
    Bad,
    Call,
    FrameDecoder,
    Hello,
    ProtocolError,
    ServerProtocol,
    encode_bad_request,
    encode_fatal,
    encode_mq_error,
    encode_reply,
    encode_request,
    hello_params,
    parse_reply,
    reply_result,
    unreachable,
)

__all__ = [
    "BAD_REQUEST",
    "DEFAULT_MAX_FRAME",
    "FATAL",
    "MAX_GETM",
    "MQ_ERROR",
    "OK",
    "OPTIONAL_ARGS",
    "PROTOCOL_VERSIONS",
    "VERBS",
    "Bad",
    "Call",
    "FrameDecoder",
    "Hello",
    "ProtocolError",
    "ServerProtocol",
    "encode_bad_request",
    "encode_fatal",
    "encode_mq_error",
    "encode_reply",
    "encode_request",
    "hello_params",
    "parse_reply",
    "reply_result",
    "unreachable",
]
