"""The remote transport: the MQI over syncpoint's protocol (docs/protocol.md) to a queue manager server.

A blocking socket with TCP_NODELAY (a Unix socket for a server on this machine): each MQI call is one request
frame and one reply frame. :meth:`RemoteTransport.pipeline` sends many requests before reading their replies,
which ``Queue.put_many`` uses where the MQI allows it. The IBM structures travel as their packed bytes, so what
the server's engine fills in (MsgId, PutDate, ResolvedQName …) comes back byte for byte into the caller's
objects. A dropped connection is MQRC_CONNECTION_BROKEN (2009) on the call that finds it, as in MQ.
"""

from __future__ import annotations

import collections
import re
import socket
import ssl
import threading
from collections.abc import Sequence
from typing import Any

from syncpoint.mqi import MQGMO, MQMD, MQOD, MQPMO, MQSD, MQSRO, GetResult, MQMIError
from syncpoint.mqi import constants as C
from syncpoint.mqi.properties import Props, received, to_wire
from syncpoint.wire import (
    DEFAULT_MAX_FRAME,
    MAX_GETM,
    FrameDecoder,
    ProtocolError,
    encode_request,
    hello_params,
    parse_reply,
    reply_result,
    unreachable,
)

from ._message import Message

_INDEX = {"index": True}
_CONNAME = re.compile(r"^\s*(?P<host>[^()\s]+)\s*(?:\(\s*(?P<port>\d+)\s*\))?\s*$")


def tcp_connect(address: tuple[str, int], timeout: float, tls: ssl.SSLContext | None) -> socket.socket:
    """A TCP connection to a queue manager's server, Nagle off, wrapped in TLS when ``tls`` is given: a client's
    and a channel's (``channel._link``). Raises OSError / ssl.SSLError; each caller words its own MQ reason."""
    sock = socket.create_connection(address, timeout=timeout)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    if tls is not None:
        try:
            return tls.wrap_socket(sock, server_hostname=address[0])
        except BaseException:
            sock.close()
            raise
    return sock


def parse_conname(conname: str, default_port: int = 1414) -> tuple[str, int]:
    """IBM's CONNAME form ``host(port)`` (port optional) as (host, port)."""
    m = _CONNAME.match(conname)
    if m is None:
        raise MQMIError(C.MQCC_FAILED, C.MQRC_HOST_NOT_AVAILABLE, f"{conname!r} is not a connection name host(port)")
    port = int(m.group("port")) if m.group("port") else default_port
    if not 0 < port < 65536:
        raise MQMIError(C.MQCC_FAILED, C.MQRC_HOST_NOT_AVAILABLE, f"port {port} is out of range")
    return m.group("host"), port


# A connection lives until MQDISC or the end of the process, as an MQ connection does, even when the program
# drops its last reference to it: the handles it opened keep counting in IPPROCS / OPPROCS.
_LIVE: set[RemoteTransport] = set()


class RemoteTransport:
    """One connection to a queue manager server; used by one thread at a time (a lock makes that so)."""

    # the asyncio transport takes the same keywords (aio/_connection.AsyncConnection.open): a coroutine there, a
    # constructor here; what they do with them (hello, errors) is one implementation in syncpoint.wire
    def __init__(
        self,
        qmgr: str,
        *,
        address: tuple[str, int] | None = None,
        unix_path: str | None = None,
        appl_name: str = "",
        appl_type: int = C.MQAT_UNIX,
        user: str | None = None,
        password: str | None = None,
        tls: ssl.SSLContext | bool | None = None,
        timeout: float = 30.0,
        control: bool = False,
        channel: str = "",
    ) -> None:
        self._lock = threading.Lock()
        self._next_id = 1
        self._decoder = FrameDecoder(DEFAULT_MAX_FRAME)
        self._frames: collections.deque[Any] = collections.deque()
        self._rbuf = bytearray(256 * 1024)
        self._rview = memoryview(self._rbuf)
        self.broken: str | None = None
        try:
            if unix_path is not None:
                sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                sock.settimeout(timeout)
                sock.connect(unix_path)
            else:
                assert address is not None
                ctx = (tls if isinstance(tls, ssl.SSLContext) else ssl.create_default_context()) if tls else None
                sock = tcp_connect(address, timeout, ctx)
        except (OSError, ssl.SSLError) as e:
            raise unreachable(address, unix_path, e) from None
        sock.settimeout(None)
        self._sock = sock
        _LIVE.add(self)
        hello = hello_params(qmgr, user, password, appl_name, appl_type, channel)
        hello["control"] = control  # syncpoint's own tools' connections (docs/protocol.md)
        info = self._call("hello", [hello])
        self.qmgr_name: str = info["qmgr"]
        self.hconn: int = info["hconn"]
        self.server_version: str = info["server"]
        self.protocol_version: int = info["version"]
        self._putv = True  # the server takes ``putv`` (an older one: pipelined puts instead)

    # -- the wire -------------------------------------------------------------------------------------
    def _broken(self, detail: str) -> MQMIError:
        self.broken = detail
        _LIVE.discard(self)
        try:
            self._sock.close()
        except OSError:
            pass
        return MQMIError(C.MQCC_FAILED, C.MQRC_CONNECTION_BROKEN, detail)

    def _interrupted(self) -> None:
        """A signal (Ctrl-C, SIGTERM) interrupted a call between its request and its reply: the replies can no
        longer be matched to calls, so the connection ends here, and the server backs out its unit of work as
        for any dropped connection. Later calls get MQRC_CONNECTION_BROKEN."""
        if self.broken is None:
            self._broken("a call was interrupted; the connection was closed and its unit of work backed out")

    def _send(self, data: bytes) -> None:
        try:
            self._sock.sendall(data)
        except OSError as e:
            raise self._broken(f"the connection to the queue manager broke: {e}") from None

    def _read_frame(self) -> Any:
        while not self._frames:
            try:
                n = self._sock.recv_into(self._rbuf)  # one reused buffer: no allocation per read
            except OSError as e:
                raise self._broken(f"the connection to the queue manager broke: {e}") from None
            if not n:
                raise self._broken("the queue manager closed the connection")
            try:
                self._frames.extend(self._decoder.feed(self._rview[:n]))
            except ProtocolError as e:
                raise self._broken(f"the queue manager sent a malformed frame: {e.detail}") from None
        return self._frames.popleft()

    def _result(self, request_id: int) -> Any:
        try:
            return reply_result(parse_reply(self._read_frame()), request_id)
        except ProtocolError as e:
            raise self._broken(e.detail) from None

    def _call(self, verb: str, args: list[Any]) -> Any:
        with self._lock:
            if self.broken is not None:
                raise MQMIError(C.MQCC_FAILED, C.MQRC_CONNECTION_BROKEN, self.broken)
            rid = self._next_id
            self._next_id += 1
            try:
                self._send(encode_request(rid, verb, args))
                result = self._result(rid)
            except (KeyboardInterrupt, SystemExit):
                self._interrupted()
                raise
        if isinstance(result, MQMIError):
            raise result
        return result

    def pipeline(self, requests: Sequence[tuple[str, list[Any]]]) -> list[Any]:
        """Send every request, then read every reply: results, or MQMIError values in place of failures."""
        with self._lock:
            if self.broken is not None:
                raise MQMIError(C.MQCC_FAILED, C.MQRC_CONNECTION_BROKEN, self.broken)
            first = self._next_id
            self._next_id += len(requests)
            frames = [encode_request(first + i, verb, args) for i, (verb, args) in enumerate(requests)]
            try:
                self._send(b"".join(frames))
                return [self._result(first + i) for i in range(len(requests))]
            except (KeyboardInterrupt, SystemExit):
                self._interrupted()
                raise

    # -- the MQI --------------------------------------------------------------------------------------
    def open(self, od: MQOD, options: int, selection: str = "") -> int:
        s = od.__dict__.get("ObjectString")
        args = [od.pack(), options]
        if selection or s:
            args.append(selection)  # SelectionString ("" for none), then a topic's ObjectString
        if s:
            args.append(s)
        reply = self._call("open", args)
        od.unpack_into(reply[1])
        if len(reply) > 2:
            od.ResObjectString = reply[2]
        return int(reply[0])

    def close(self, hobj: int, options: int = C.MQCO_NONE) -> None:
        self._call("close", [hobj, options])

    def sub(self, sd: MQSD, hobj: int, strings: dict[str, str]) -> tuple[int, int]:
        """MQSUB: (the destination's Hobj — MQHO_NONE when there is none —, Hsub); ``sd`` gets the output."""
        sd_b, h, hsub, res = self._call("sub", [sd.pack(), hobj, strings])
        sd.unpack_into(sd_b)
        sd.ResObjectString = res
        return int(h), int(hsub)

    def subrq(self, hsub: int, action: int, sro: MQSRO) -> None:
        sro.unpack_into(self._call("subrq", [hsub, action, sro.pack()]))

    def put(self, hobj: int, md: MQMD, pmo: MQPMO, data: bytes, props: Props | None = None) -> int:
        _check_size(data)
        args: list[Any] = [hobj, md.pack(), pmo.pack(), bytes(data)]
        if props:
            args.append(to_wire(props))  # the message's properties (docs/protocol.md)
        reason, md_bytes, pmo_bytes = self._call("put", args)
        md.unpack_into(md_bytes)
        pmo.unpack_into(pmo_bytes)
        return int(reason)

    def put_many(
        self,
        hobj: int,
        items: Sequence[tuple[MQMD, MQPMO, bytes] | tuple[MQMD, MQPMO, bytes, Props | None]],
        commit: bool = False,
        alike: bool | None = None,
    ) -> list[int | MQMIError]:
        """Several puts: each item's MQMD and MQPMO are completed in place; a failure is returned in its slot.
        An item may carry a fourth element, the message's properties. Items with identical structures travel as
        one ``putm`` request, others pipelined. With ``commit``, MQCMIT follows when every put succeeded, in the
        same request where the server speaks protocol version 2; a failed commit is raised after the MQMDs are
        completed. ``alike``: the caller built the structures alike (or not); None: compare them. Properties go
        in ``putm`` / ``putv`` to a server of protocol version 4, else as pipelined ``put`` requests."""
        for item in items:
            _check_size(item[2])
        props = [_props_of(item) for item in items]
        with_props = any(props)
        batch = not with_props or self.protocol_version >= 4
        out: list[int | MQMIError] = []
        if batch and (_alike(items, third=False) if alike is None else alike):
            md0, pmo0 = items[0][0], items[0][1]
            datas: list[Any] = [
                bytes(item[2]) if not p else [bytes(item[2]), to_wire(p)] for item, p in zip(items, props, strict=True)
            ]
            args = [hobj, md0.pack(), pmo0.pack(), datas]
            in_request = commit and self.protocol_version >= 2
            if in_request:
                args.append({"commit": True})
            reply = self._call("putm", args)
            out = _put_answers(items, reply[0], reply[1])
            if in_request:
                how = reply[2]
                if isinstance(how, list):
                    raise MQMIError(how[0], how[1], how[2])
                return out
        elif batch and self._putv and items and all(it[1].__dict__ == items[0][1].__dict__ for it in items):
            # one MQPMO for all, an MQMD each: one ``putv`` request (a server without it: pipelined puts)
            vitems: list[Any] = [
                [it[0].pack(), bytes(it[2])] if not p else [it[0].pack(), bytes(it[2]), to_wire(p)]
                for it, p in zip(items, props, strict=True)
            ]
            try:
                reply = self._call("putv", [hobj, items[0][1].pack(), vitems])
            except MQMIError as e:
                if e.reason != C.MQRC_UNEXPECTED_ERROR or "unknown verb" not in str(e):
                    raise
                self._putv = False
                return self.put_many(hobj, items, commit, alike)
            out = _put_answers(items, reply[0], reply[1])
        else:
            requests: list[tuple[str, list[Any]]] = []
            for item, p in zip(items, props, strict=True):
                args = [hobj, item[0].pack(), item[1].pack(), bytes(item[2])]
                if p:
                    args.append(to_wire(p))
                requests.append(("put", args))
            results = self.pipeline(requests)
            for item, r in zip(items, results, strict=True):
                if isinstance(r, MQMIError):
                    out.append(r)
                    continue
                item[0].unpack_into(r[1])
                item[1].unpack_into(r[2])
                out.append(int(r[0]))
        if commit and not any(isinstance(r, MQMIError) for r in out):
            self.commit()
        return out

    def put1(self, od: MQOD, md: MQMD, pmo: MQPMO, data: bytes, props: Props | None = None) -> int:
        _check_size(data)
        s = od.__dict__.get("ObjectString")
        args: list[Any] = [od.pack(), md.pack(), pmo.pack(), bytes(data)]
        if props or s:
            args.append(to_wire(props) if props else None)  # the properties (nil for none), then the ObjectString
        if s:
            args.append(s)
        reason, od_b, md_b, pmo_b, *res = self._call("put1", args)
        if res:
            od.ResObjectString = res[0]
        od.unpack_into(od_b)
        md.unpack_into(md_b)
        pmo.unpack_into(pmo_b)
        return int(reason)

    def get(self, hobj: int, md: MQMD, gmo: MQGMO, buflen: int | None) -> GetResult:
        answer = self._call("get", [hobj, md.pack(), gmo.pack(), buflen])
        data, length, comp, reason, md_b, gmo_b = answer[:6]
        md.unpack_into(md_b)
        gmo.unpack_into(gmo_b)
        if len(answer) > 6:  # the message's properties, for the caller's message handle
            return GetResult(data, length, comp, reason, received(answer[6]))
        return GetResult(data, length, comp, reason)

    def get_many(self, hobj: int, items: Sequence[tuple[MQMD, MQGMO, int | None]]) -> list[GetResult | MQMIError]:
        """Several gets (or browses): each item's MQMD and MQGMO are completed in place. Items with identical
        structures and no wait travel as one ``getm`` request (ending at the first failure), others pipelined."""
        out: list[GetResult | MQMIError] = []
        if _alike(items) and not items[0][1].Options & C.MQGMO_WAIT:
            md0, gmo0, buflen0 = items[0]
            md_b0, gmo_b0 = md0.pack(), gmo0.pack()
            while len(out) < len(items):  # a reply stops where the next message might not fit in a frame
                n = min(len(items) - len(out), MAX_GETM)
                results, error = self._call("getm", [hobj, md_b0, gmo_b0, buflen0, n])
                for (md, gmo, _), r in zip(items[len(out) :], results, strict=False):
                    data, length, comp, reason, md_b, gmo_b = r[:6]
                    md.unpack_into(md_b)
                    gmo.unpack_into(gmo_b)
                    out.append(GetResult(data, length, comp, reason, received(r[6]) if len(r) > 6 else None))
                if error is not None:
                    out.append(MQMIError(error[0], error[1], error[2]))
                    return out
                if not results:
                    break
                gmo_b0 = _browse_on(gmo0).pack()  # the server browsed on after the first: so does the rest
            return out
        packed = [(md.pack(), gmo.pack(), buflen) for md, gmo, buflen in items]
        results = self.pipeline([("get", [hobj, mdb, gmob, buflen]) for mdb, gmob, buflen in packed])
        for (md, gmo, _), r in zip(items, results, strict=True):
            if isinstance(r, MQMIError):
                out.append(r)
                continue
            data, length, comp, reason, md_b, gmo_b = r[:6]
            md.unpack_into(md_b)
            gmo.unpack_into(gmo_b)
            out.append(GetResult(data, length, comp, reason, received(r[6]) if len(r) > 6 else None))
        return out

    def getm(
        self, hobj: int, md: bytes, gmo: bytes, buflen: int | None, n: int, commit_first: bool = False
    ) -> tuple[list[tuple[bytes, int, int, int, bytes, Props | None]], MQMIError | None]:
        """Up to ``n`` MQGETs without waiting in one ``getm`` request, from packed structures, for callers that
        need no MQGMO back and can keep each MQMD packed: ``([(data, DataLength, CompCode, Reason, MQMD bytes,
        properties or None), ...], the failure that ended the batch or None)``. ``commit_first``: MQCMIT first
        (raised if it fails)."""
        if commit_first and self.protocol_version < 2:
            self.commit()
            commit_first = False
        out: list[tuple[bytes, int, int, int, bytes, Props | None]] = []
        while len(out) < n:  # a reply stops where the next message might not fit in a frame: ask for the rest
            args: list[Any] = [hobj, md, gmo, buflen, min(n - len(out), MAX_GETM)]
            if self.protocol_version >= 2:
                args.append({"commit_first": True, "gmo": False} if commit_first else {"gmo": False})
            commit_first = False
            answers, error = self._call("getm", args)
            out += [(a[0], a[1], a[2], a[3], a[4], received(a[6]) if len(a) > 6 else None) for a in answers]
            if error is not None:
                return out, MQMIError(error[0], error[1], error[2])
            if not answers:
                break
            gmo = _browse_on(MQGMO.unpack(gmo)).pack()
        return out, None

    def browse_index(
        self, hobj: int, md: MQMD, gmo: MQGMO, n: int
    ) -> tuple[list[tuple[int, int, bytes, int, int, int]], MQMIError | None] | None:
        """Up to ``n`` browses without data in ``getm`` requests with the option ``index`` (protocol version 3):
        ``([(MsgToken, BackoutCount, GroupId, MsgSeqNumber, MsgFlags, Priority), ...], the failure that ended
        the browse or None)``, as the engine's ``browse_index``. None when the server speaks an older version
        (browse with :meth:`get_many` then)."""
        if self.protocol_version < 3:
            return None
        out: list[tuple[int, int, bytes, int, int, int]] = []
        md_b, gmo_b = md.pack(), gmo.pack()
        while len(out) < n:  # a reply holds at most what fits in a frame: ask for the rest
            answers, error = self._call("getm", [hobj, md_b, gmo_b, None, min(n - len(out), MAX_GETM), _INDEX])
            out.extend(map(tuple, answers))
            if error is not None:
                return out, MQMIError(error[0], error[1], error[2])
            if not answers:
                break
            gmo_b = _browse_on(gmo).pack()
        return out, None

    def reserve(self, hobj: int, tokens: Sequence[int]) -> list[int]:
        return [int(t) for t in self._call("reserve", [hobj, tokens])]

    def release(self, hobj: int, tokens: Sequence[int] | None) -> list[int]:
        return [int(t) for t in self._call("release", [hobj, tokens])]

    def get_tokens(
        self, hobj: int, gmo: MQGMO, buflen: int | None, tokens: Sequence[int]
    ) -> tuple[list[tuple[MQMD, GetResult] | None], MQMIError | None]:
        """One ``gettokens`` request: a get (or browse) per MsgToken; None where the message is gone."""
        out: list[tuple[MQMD, GetResult] | None] = []
        gmo_b = gmo.pack()
        while True:  # a reply stops where the next message might not fit in a frame: ask for the rest
            results, error = self._call("gettokens", [hobj, gmo_b, buflen, list(tokens[len(out) :])])
            for r in results:
                if r is None:
                    out.append(None)
                    continue
                data, length, comp, reason, md_b = r[:5]  # then the properties for a message handle (version 4)
                props = received(r[5]) if len(r) > 5 else None
                out.append((MQMD.unpack(md_b), GetResult(data, length, comp, reason, props)))
            if error is not None or not results or len(out) >= len(tokens):
                return out, None if error is None else MQMIError(error[0], error[1], error[2])

    def inq(self, hobj: int, selectors: Sequence[int]) -> tuple[list[int], list[bytes], int]:
        ints, chars, reason = self._call("inq", [hobj, list(selectors)])
        return list(ints), list(chars), int(reason)

    def set(self, hobj: int, selectors: Sequence[int], ints: Sequence[int], chars: Sequence[bytes]) -> None:
        self._call("set", [hobj, list(selectors), list(ints), [bytes(c) for c in chars]])

    def commit(self) -> None:
        self._call("commit", [])

    def backout(self) -> None:
        self._call("backout", [])

    def disconnect(self, abnormal: bool = False) -> None:
        if self.broken is not None:
            return
        try:
            self._call("disconnect", [bool(abnormal)])
        finally:
            self._broken("disconnected")

    def admin(self, verb: str, *args: Any, **kwargs: Any) -> Any:
        result = self._call("admin", [verb, list(args), kwargs])
        if verb == "messages":
            return [Message(data, MQMD.unpack(md)) for md, data in result]
        return result

    def ping(self) -> dict[str, Any]:
        result: dict[str, Any] = self._call("ping", [])
        return result

    def endmqm(self, mode: str) -> str:
        try:
            return str(self._call("endmqm", [mode]))
        finally:
            # a control session has nothing more to ask: it closes, so the ending server never waits for it
            self._broken("endmqm was sent; the control session is closed")


def _check_size(data: bytes) -> None:
    if len(data) > DEFAULT_MAX_FRAME - 64 * 1024:
        raise MQMIError(
            C.MQCC_FAILED, C.MQRC_MSG_TOO_BIG_FOR_Q_MGR, f"{len(data)} bytes exceed the largest message (100 MiB)"
        )


def _props_of(item: tuple[Any, ...]) -> Props | None:
    """A put_many item's properties: its fourth element when it has one."""
    return item[3] if len(item) > 3 else None


def _put_answers(items: Sequence[tuple[Any, ...]], answers: list[Any], pmo_b: bytes) -> list[int | MQMIError]:
    """A ``putm`` / ``putv`` reply: each put's MQMD completed in place and its reason, or its error."""
    pmo_out = type(items[0][1]).unpack(pmo_b).__dict__
    out: list[int | MQMIError] = []
    for (md, pmo, *_), a in zip(items, answers, strict=True):
        if len(a) == 3:
            out.append(MQMIError(a[0], a[1], a[2]))
            continue
        md.unpack_into(a[1])
        pmo.__dict__.update(pmo_out)
        out.append(int(a[0]))
    return out


def _alike(items: Sequence[tuple[Any, ...]], third: bool = True) -> bool:
    """True when every item has the same two structures (field by field) as the first, and with ``third`` the same
    third element (a get's buffer length; not a put's data): they can travel as one batch request carrying one
    copy of the structures."""
    if not items:
        return False
    first = items[0]
    d0, e0, c0 = first[0].__dict__, first[1].__dict__, first[2]
    return all(x[0].__dict__ == d0 and x[1].__dict__ == e0 and (not third or x[2] == c0) for x in items)


def _browse_on(gmo: MQGMO) -> MQGMO:
    """The MQGMO for the gets after a batch's first: a browse of the first message (or the one under the cursor)
    goes on with MQGMO_BROWSE_NEXT, as the server does within one getm."""
    starts = C.MQGMO_BROWSE_FIRST | C.MQGMO_BROWSE_MSG_UNDER_CURSOR
    if not gmo.Options & starts:
        return gmo
    g = gmo.copy()
    g.Options = g.Options & ~starts | C.MQGMO_BROWSE_NEXT
    return g
