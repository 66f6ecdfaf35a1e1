"""syncpoint's wire protocol, sans-I/O: bytes in, events out; values in, bytes out.

Theory of operation
-------------------
A connection carries *frames*: a 4-byte big-endian unsigned length followed by that many bytes of one
msgpack-encoded array. The client sends requests ``[0, id, verb, args]``; the server answers each with
``[1, id, status, body]`` where status is ``OK`` (body: the result), ``MQ_ERROR`` (body: ``[CompCode, Reason,
detail]``) or ``BAD_REQUEST`` (body: a sentence; the session goes on). A ``FATAL`` reply (id 0) is the last
frame the server sends before it closes the connection (an undecodable stream, an oversized frame, a failed
handshake). The first request must be ``hello``: it negotiates the protocol version and carries the
connection's identity and credentials. Request ids are chosen by the client; replies come back in request order,
so a client may pipeline (send many requests, then read the replies).

Nothing here touches a socket: :class:`FrameDecoder` is fed bytes and returns decoded frames,
:class:`ServerProtocol` turns frames into :class:`Hello` / :class:`Call` / :class:`Bad` events and enforces the
handshake, and the ``encode_*`` functions build frames. So the whole protocol is unit-tested and fuzzed byte by
byte, and the asyncio server and the blocking client share one implementation. docs/protocol.md is its
specification.
"""

from __future__ import annotations

import os
import struct
from dataclasses import dataclass
from typing import Any

import msgpack

from syncpoint.mqi import MQMIError, SyncpointError
from syncpoint.mqi import constants as C
from syncpoint.mqi.objects import Definition

# 2: putm and getm take an optional last argument, a map of options; 3: getm's option "index"; 4: putm and putv
# items may carry properties (and gettokens answers carry them for a message handle)
PROTOCOL_VERSIONS = (1, 2, 3, 4)
HEADER = struct.Struct(">I")
# The largest message a queue manager accepts (MAXMSGL) is 100 MiB; a frame carries it plus its structures.
DEFAULT_MAX_FRAME = 100 * 1024 * 1024 + 64 * 1024
# The most gets one ``getm`` request may ask for; a reply also stops early where the next message might not
# fit in a frame (the client asks again for the rest).
MAX_GETM = 10_000

REQUEST, REPLY = 0, 1
OK, MQ_ERROR, BAD_REQUEST, FATAL = 0, 1, 2, 3

EXT_DEFINITION = 1

# verb -> number of arguments it takes (checked before anything runs)
VERBS: dict[str, int] = {
    "hello": 1,
    "open": 2,  # [MQOD bytes, Options(, SelectionString)] -> [Hobj, MQOD bytes]
    "close": 2,  # [Hobj, Options] -> None
    "put": 4,  # [Hobj, MQMD, MQPMO, data(, properties)] -> [warning reason, MQMD, MQPMO]
    "put1": 4,  # [MQOD, MQMD, MQPMO, data(, properties)] -> [warning reason, MQOD, MQMD, MQPMO]
    # [Hobj, MQMD, MQGMO, buffer length or None] -> [data, DataLength, CompCode, Reason, MQMD, MQGMO(, properties)]
    "get": 4,
    # [Hobj, MQMD, MQPMO, [data or [data, properties], ...](, {commit})]: a put per item -> [[answer], MQPMO(, how)]
    "putm": 4,
    # [Hobj, MQPMO, [[MQMD, data(, properties)], ...]]: a put per item, each its own MQMD -> [[answer], MQPMO]
    "putv": 3,
    "getm": 5,  # [Hobj, MQMD, MQGMO, buffer length, n(, {commit_first, gmo})]: n gets, no wait -> [[result], error]
    "reserve": 2,  # [Hobj, [MsgToken, ...]] -> [MsgToken reserved, ...]
    "release": 2,  # [Hobj, [MsgToken, ...] or nil for all] -> [MsgToken released, ...]
    "gettokens": 4,  # [Hobj, MQGMO, buffer length, [MsgToken, ...]]: a get per token -> [[answer or nil], error]
    "inq": 2,  # [Hobj, selectors] -> [ints, chars, warning reason]
    "set": 4,  # [Hobj, selectors, ints, chars] -> None
    "commit": 0,
    "backout": 0,
    "disconnect": 1,  # [abnormal]: an abnormal end backs out as a dropped connection does
    "admin": 3,  # [verb, args, kwargs] -> result
    "ping": 0,
    "endmqm": 1,  # ["c" | "i" | "p"]: local administrators only
    "channel": 3,  # [op, channel name, {…}]: a sending channel speaking to this receiving end
    "sub": 3,  # [MQSD, Hobj or 0, {ObjectString, SubName, SubUserData, SelectionString}] -> [MQSD, Hobj, Hsub, topic]
    "subrq": 3,  # [Hsub, Action, MQSRO] -> MQSRO
}

# verbs that take optional arguments after those (protocol version 2): how many
# open: the MQOD's SelectionString, then a topic's ObjectString ("" for none: a topic open without a selection);
# put: the message's properties; put1: the properties (nil for none), then a topic's ObjectString; a topic's open
# and put1 are answered with one more element, the ResObjectString
OPTIONAL_ARGS: dict[str, int] = {"putm": 1, "getm": 1, "open": 2, "put": 1, "put1": 2}


class ProtocolError(SyncpointError):
    """The byte stream or a request broke the protocol. ``fatal``: the connection cannot go on."""

    def __init__(self, detail: str, fatal: bool = False, request_id: int = 0) -> None:
        super().__init__(detail)
        self.detail = detail
        self.fatal = fatal
        self.request_id = request_id
        # what arrived whole before the break, in order: the decoder's frames, the server protocol's events
        # (a request before a broken frame is run and answered whatever way TCP split the bytes)
        self.frames: list[Any] = []
        self.events: list[Any] = []


# ------------------------------------------------------------------------------------------------------
# values <-> msgpack
# ------------------------------------------------------------------------------------------------------
def _default(obj: Any) -> Any:
    if isinstance(obj, Definition):
        return msgpack.ExtType(EXT_DEFINITION, obj.to_bytes())
    if isinstance(obj, (set, frozenset, tuple)):
        return list(obj)
    raise TypeError(f"cannot send a {type(obj).__name__} over the syncpoint protocol")


def _ext_hook(code: int, data: bytes) -> Any:
    if code == EXT_DEFINITION:
        return Definition.from_bytes(data)
    raise ProtocolError(f"unknown extension type {code}", fatal=True)


def _frame(obj: Any) -> bytes:
    body: bytes = msgpack.packb(obj, default=_default, use_bin_type=True)
    return HEADER.pack(len(body)) + body


def encode_request(request_id: int, verb: str, args: list[Any]) -> bytes:
    return _frame([REQUEST, request_id, verb, args])


def encode_reply(request_id: int, result: Any) -> bytes:
    return _frame([REPLY, request_id, OK, result])


def encode_mq_error(request_id: int, error: MQMIError) -> bytes:
    return _frame([REPLY, request_id, MQ_ERROR, [error.comp, error.reason, error.detail]])


def encode_bad_request(request_id: int, detail: str) -> bytes:
    return _frame([REPLY, request_id, BAD_REQUEST, detail])


def encode_fatal(detail: str) -> bytes:
    return _frame([REPLY, 0, FATAL, detail])


class FrameDecoder:
    """Splits a byte stream into frames and decodes each; feed it whatever arrived."""

    def __init__(self, max_frame: int = DEFAULT_MAX_FRAME) -> None:
        self.max_frame = max_frame
        self._buf = bytearray()
        self.failed = False

    def feed(self, data: bytes | bytearray | memoryview) -> list[Any]:
        """The frames completed by ``data``. Raises a fatal :class:`ProtocolError` for a frame that is too large
        or is not msgpack: the stream cannot be trusted after that."""
        if self.failed:
            raise ProtocolError("the stream already failed", fatal=True)
        buf = self._buf
        buf += data
        out: list[Any] = []
        pos = 0
        n = len(buf)
        try:
            while n - pos >= 4:
                (length,) = HEADER.unpack_from(buf, pos)
                if length > self.max_frame:
                    raise ProtocolError(
                        f"frame of {length} bytes exceeds the limit of {self.max_frame} bytes", fatal=True
                    )
                end = pos + 4 + length
                if end > n:
                    break
                try:
                    out.append(
                        msgpack.unpackb(
                            memoryview(buf)[pos + 4 : end],
                            ext_hook=_ext_hook,
                            raw=False,
                            strict_map_key=False,
                            use_list=True,
                        )
                    )
                except ProtocolError:
                    raise
                except Exception as e:  # msgpack raises several types for malformed input
                    raise ProtocolError(f"a frame is not valid msgpack: {e}", fatal=True) from None
                pos = end
        except ProtocolError as e:
            self.failed = True
            e.frames = out
            raise
        finally:
            if pos:
                del buf[:pos]
        return out

    @property
    def buffered(self) -> int:
        return len(self._buf)

    def pending(self) -> int:
        """The length the frame being received announces: 0 when none is (the bytes so far made whole frames),
        -1 while its 4-byte header is still incomplete."""
        buf = self._buf
        if not buf:
            return 0
        if len(buf) < 4:
            return -1
        length: int = HEADER.unpack_from(buf, 0)[0]
        return length


# ------------------------------------------------------------------------------------------------------
# the server's side of a session
# ------------------------------------------------------------------------------------------------------
@dataclass(slots=True)
class Hello:
    request_id: int
    version: int
    qmgr: str
    user: str
    password: str | None
    appl_name: str
    appl_type: int
    pid: int
    control: bool = False  # an administrator's session (endmqm, ping): no MQI connection is made
    os_user: str = ""  # the client process's operating-system user: the user it asserts (IBM's client sends it)
    channel: str = ""  # the server-connection channel a client names (IBM's MQCD ChannelName; "": SYSTEM.DEF.SVRCONN)


@dataclass(slots=True)
class Call:
    request_id: int
    verb: str
    args: list[Any]


@dataclass(slots=True)
class Bad:
    """A request that is well framed but wrong: answered with BAD_REQUEST, the session goes on."""

    request_id: int
    detail: str


Event = Hello | Call | Bad


class ServerProtocol:
    """The server's protocol state for one connection: frames in, events out, handshake enforced."""

    def __init__(self, max_frame: int = DEFAULT_MAX_FRAME) -> None:
        self.decoder = FrameDecoder(max_frame)
        self.greeted = False  # a hello was accepted (set by the server once authentication passed)
        self.hello_seen = False

    def receive(self, data: bytes) -> list[Event]:
        """Events for the bytes received. A fatal :class:`ProtocolError` means: send ``encode_fatal`` and close;
        its ``events`` are those of the requests that came whole before the break (to run and answer first)."""
        events: list[Event] = []
        try:
            for frame in self.decoder.feed(data):
                events.append(self._event(frame))
        except ProtocolError as e:
            for frame in e.frames:  # the frames decoded before a broken one
                try:
                    events.append(self._event(frame))
                except ProtocolError:
                    break
            e.frames = []
            e.events = events
            raise
        return events

    def _event(self, frame: Any) -> Event:
        if not isinstance(frame, list) or len(frame) != 4 or frame[0] != REQUEST:
            raise ProtocolError("a frame is not a request [0, id, verb, args]", fatal=True)
        _, rid, verb, args = frame
        if not isinstance(rid, int) or isinstance(rid, bool) or rid < 0 or rid >= 2**63:
            raise ProtocolError("a request id must be a non-negative integer", fatal=True)
        if not self.hello_seen:
            if verb != "hello":
                raise ProtocolError("the first request must be hello", fatal=True, request_id=rid)
            self.hello_seen = True
            return self._hello(rid, args)
        if verb == "hello":
            return Bad(rid, "hello may be sent once, as the first request")
        if not isinstance(verb, str) or verb not in VERBS:
            return Bad(rid, f"unknown verb {verb!r}")
        if not isinstance(args, list) or not VERBS[verb] <= len(args) <= VERBS[verb] + OPTIONAL_ARGS.get(verb, 0):
            extra = OPTIONAL_ARGS.get(verb, 0)
            counts = f"{VERBS[verb]} to {VERBS[verb] + extra}" if extra else f"{VERBS[verb]}"
            return Bad(rid, f"{verb} takes {counts} arguments")
        return Call(rid, verb, args)

    def _hello(self, rid: int, args: Any) -> Hello:
        if not isinstance(args, list) or len(args) != 1 or not isinstance(args[0], dict):
            raise ProtocolError("hello takes one map", fatal=True, request_id=rid)
        params: dict[str, Any] = args[0]
        versions = params.get("versions")
        if not isinstance(versions, list) or not all(isinstance(v, int) for v in versions):
            raise ProtocolError("hello must list the protocol versions the client speaks", fatal=True, request_id=rid)
        common = sorted(set(versions) & set(PROTOCOL_VERSIONS))
        if not common:
            raise ProtocolError(
                f"no common protocol version: the client speaks {versions}, this server {list(PROTOCOL_VERSIONS)}",
                fatal=True,
                request_id=rid,
            )

        def text(key: str, limit: int) -> str:
            value = params.get(key, "")
            if value is None:
                value = ""
            if not isinstance(value, str) or len(value) > limit:
                raise ProtocolError(f"hello: {key} must be a string of at most {limit} characters", fatal=True)
            return value

        password = params.get("password")
        if password is not None and (not isinstance(password, str) or len(password) > 1024):
            raise ProtocolError("hello: password must be a string of at most 1024 characters", fatal=True)
        appl_type = params.get("appl_type", 6)
        pid = params.get("pid", 0)
        if not isinstance(appl_type, int) or not isinstance(pid, int):
            raise ProtocolError("hello: appl_type and pid must be integers", fatal=True)
        return Hello(
            rid,
            common[-1],
            text("qmgr", 48),
            text("user", 1024),
            password,
            text("appl_name", 28),
            appl_type,
            pid,
            bool(params.get("control", False)),
            text("os_user", 1024),
            text("channel", 20).strip(),
        )


# ------------------------------------------------------------------------------------------------------
# the client's side
# ------------------------------------------------------------------------------------------------------
# a reply's three fields (a record: records of other modules have the same shape, not the same logic)
@dataclass(slots=True)
class Reply:
    request_id: int
    status: int
    body: Any


def parse_reply(frame: Any) -> Reply:
    """A decoded frame from the server as a :class:`Reply`; anything else is a fatal protocol error."""
    if not isinstance(frame, list) or len(frame) != 4 or frame[0] != REPLY:
        raise ProtocolError("the server sent a frame that is not a reply", fatal=True)
    _, rid, status, body = frame
    if status not in (OK, MQ_ERROR, BAD_REQUEST, FATAL) or not isinstance(rid, int):
        raise ProtocolError("the server sent a malformed reply", fatal=True)
    return Reply(rid, status, body)


# The blocking client (``client/_remote``) and the asyncio client (``aio/_connection``) open their sockets each
# its own way (a blocking socket, an event loop's streams); what they say and how they read the answers is one
# implementation, here.
def hello_params(
    qmgr: str, user: str | None, password: str | None, appl_name: str, appl_type: int, channel: str = ""
) -> dict[str, Any]:
    """The parameters of a client's ``hello`` request (docs/protocol.md): the versions it speaks, the queue
    manager it wants, its identity (ApplName: IBM's 28 characters) and the server-connection channel it names
    (a client over TCP; "" the server's default, SYSTEM.DEF.SVRCONN)."""
    return {
        "channel": channel,
        "versions": list(PROTOCOL_VERSIONS),
        "qmgr": qmgr,
        "user": user or "",
        "password": password,
        "appl_name": appl_name[:28],
        "appl_type": appl_type,
        "pid": os.getpid(),
        "os_user": _os_user(),
    }


def _os_user() -> str:
    """This process's operating-system user name ("" when it has none: a container's unnamed uid)."""
    try:
        import pwd

        return pwd.getpwuid(os.getuid()).pw_name
    except (ImportError, KeyError):
        return os.environ.get("USER", "")


def unreachable(address: tuple[str, int] | None, unix_path: str | None, error: BaseException) -> MQMIError:
    """The error of a client that could not open its connection: MQRC_HOST_NOT_AVAILABLE (2538) for a TCP address,
    as IBM's client says for a listener it cannot reach; MQRC_Q_MGR_NOT_AVAILABLE (2059) for a local socket."""
    where = unix_path if unix_path is not None else f"{address[0]}({address[1]})" if address else "?"
    return MQMIError(
        C.MQCC_FAILED,
        C.MQRC_HOST_NOT_AVAILABLE if address else C.MQRC_Q_MGR_NOT_AVAILABLE,
        f"cannot reach the queue manager server at {where}: {str(error) or type(error).__name__}",
    )


def reply_result(reply: Reply, expected: int | None) -> Any:
    """What the call whose request id is ``expected`` (None: no call waits) gets from ``reply``: the result (OK),
    or the MQMIError it failed with (MQ_ERROR; BAD_REQUEST as MQRC_UNEXPECTED_ERROR), returned for the caller
    to raise in the caller's thread. A reply that ends the connection (FATAL, a reply to another request, an
    unknown status) raises ProtocolError with the sentence that says why."""
    if reply.status == FATAL:
        raise ProtocolError(f"the queue manager ended the connection: {reply.body}", fatal=True)
    if reply.request_id != expected:
        where = "none" if expected is None else str(expected)
        raise ProtocolError(f"reply {reply.request_id} arrived where {where} was expected", fatal=True)
    if reply.status == OK:
        return reply.body
    if reply.status == MQ_ERROR:
        comp, reason, detail = reply.body
        return MQMIError(comp, reason, detail)
    if reply.status == BAD_REQUEST:
        return MQMIError(C.MQCC_FAILED, C.MQRC_UNEXPECTED_ERROR, f"the server rejected the request: {reply.body}")
    raise ProtocolError("unknown reply status", fatal=True)  # parse_reply lets none through: a defect
