"""The sending MCA's connection to the receiving queue manager: syncpoint's own protocol (docs/protocol.md) over
TCP, optionally TLS, with a deadline on every reply (a peer that stops answering ends the channel instead of
hanging it). Anything the peer sends that is not a well-formed reply — garbage, a reply to another request —
ends the link with MQRC_CONNECTION_BROKEN; nothing is lost, because the batch it carried is held in doubt.

The TCP and TLS set-up is the client's (``client.tcp_connect``). The reading and writing are not: a client's
transport (``client._remote``, ``aio._connection``) waits as long as a call needs, where a channel's link ends a
call whose reply does not come within its deadline and reads a requester's reply byte for byte
(``request_alone``), so the three import the same protocol names and keep their own loops.
"""

from __future__ import annotations

import os
import socket
import ssl
from typing import Any

from syncpoint.client import parse_conname, tcp_connect
from syncpoint.mqi import MQMIError
from syncpoint.mqi import constants as C
from syncpoint.wire import (
    BAD_REQUEST,
    DEFAULT_MAX_FRAME,
    FATAL,
    MQ_ERROR,
    OK,
    PROTOCOL_VERSIONS,
    FrameDecoder,
    ProtocolError,
    encode_request,
    parse_reply,
)


def channel_address(conname: str) -> tuple[str, int]:
    """A channel's CONNAME as (host, port): IBM's ``host(port)`` or ``host`` (port 1414); of a comma-separated
    list, the first."""
    return parse_conname(conname.split(",")[0])


class Link:
    """One connection to a receiving queue manager's server, as channel ``user``."""

    def __init__(
        self,
        conname: str,
        *,
        user: str = "",
        password: str | None = None,
        tls: ssl.SSLContext | None = None,
        timeout: float = 30.0,
        appl_name: str = "syncpoint channel",
        sock: socket.socket | ssl.SSLSocket | None = None,
    ) -> None:
        self.address = channel_address(conname) if sock is None else ("", 0)
        self.timeout = timeout
        self._next = 1
        self._decoder = FrameDecoder(DEFAULT_MAX_FRAME)
        self._frames: list[Any] = []
        if sock is None:  # else a connection a requester made (a SVR started by it sends over it)
            try:
                sock = tcp_connect(self.address, timeout, tls)
            except (OSError, ssl.SSLError) as e:
                raise MQMIError(C.MQCC_FAILED, C.MQRC_HOST_NOT_AVAILABLE, f"cannot reach {conname}: {e}") from None
        self._sock = sock
        hello = {
            "versions": list(PROTOCOL_VERSIONS),
            "qmgr": "",
            "user": user,
            "password": password,
            "appl_name": appl_name[:28],
            "appl_type": C.MQAT_QMGR,
            "pid": os.getpid(),
            "control": False,
        }
        info = self.call("hello", [hello])
        self.qmgr: str = str(info["qmgr"])

    @classmethod
    def for_channel(
        cls, attrs: dict[str, Any], cred: dict[str, Any], timeout: float, sock: socket.socket | None = None
    ) -> Link:
        """The link of a sending channel (or a requester): its CONNAME, the user and password ``chlpasswd``
        stored for it, TLS (trusting the stored CA file, else the system's) when SSLCIPH is set. With ``sock``
        (a SVR started by a requester): over the requester's connection, whose security the requester set."""
        tls = ssl.create_default_context(cafile=cred.get("cafile")) if attrs.get("SSLCIPH") and sock is None else None
        return cls(
            str(attrs["CONNAME"]),
            user=str(cred.get("user", "")),
            password=cred.get("password") or None,
            tls=tls,
            timeout=timeout,
            sock=sock,
        )

    def request_alone(self, verb: str, args: list[Any]) -> Any:
        """One call whose reply is read byte for byte, nothing after it: what follows on the connection (a SVR's
        channel, started by this request) is left in the socket for the relay."""
        rid = self._next
        self._next += 1
        try:
            self._sock.settimeout(self.timeout)
            self._sock.sendall(encode_request(rid, verb, args))
            head = self._exactly(4)
            frames = self._decoder.feed(head + self._exactly(int.from_bytes(head, "big")))
        except ProtocolError as e:
            raise self._broken(f"the remote end does not speak syncpoint's protocol: {e.detail}") from None
        except (OSError, ssl.SSLError) as e:
            raise self._broken(f"the connection to the remote queue manager failed: {e}") from None
        self._frames.extend(frames)
        return self._reply(rid)

    def _exactly(self, n: int) -> bytes:
        out = bytearray()
        while len(out) < n:
            data = self._sock.recv(n - len(out))
            if not data:
                raise self._broken("the remote queue manager closed the connection")
            out += data
        return bytes(out)

    @property
    def sock(self) -> socket.socket:
        return self._sock

    def close(self) -> None:
        try:
            self._sock.close()
        except OSError:
            pass

    def abort(self) -> None:
        """Cut the connection from another thread (STOP CHANNEL MODE(FORCE)): a call waiting for its reply ends
        with MQRC_CONNECTION_BROKEN at once."""
        try:
            self._sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass

    def _broken(self, detail: str) -> MQMIError:
        self.close()
        return MQMIError(C.MQCC_FAILED, C.MQRC_CONNECTION_BROKEN, detail)

    def call(self, verb: str, args: list[Any], timeout: float | None = None) -> Any:
        return self.answer(self.send(verb, args, timeout), timeout)

    def send(self, verb: str, args: list[Any], timeout: float | None = None) -> int:
        """Send a request without waiting for its answer (a sending channel's next batch leaves while the receiver
        commits the last); the request id, for :meth:`answer`. Requests are answered in the order sent."""
        rid = self._next
        self._next += 1
        try:
            self._sock.settimeout(timeout or self.timeout)
            self._sock.sendall(encode_request(rid, verb, args))
        except (OSError, ssl.SSLError) as e:
            raise self._broken(f"the connection to the remote queue manager failed: {e}") from None
        return rid

    def answer(self, rid: int, timeout: float | None = None) -> Any:
        """The answer to request ``rid`` (the oldest not yet read): its body, or the error it carries."""
        try:
            self._sock.settimeout(timeout or self.timeout)
            while not self._frames:
                data = self._sock.recv(256 * 1024)
                if not data:
                    raise self._broken("the remote queue manager closed the connection")
                self._frames.extend(self._decoder.feed(data))
        except ProtocolError as e:
            raise self._broken(f"the remote end does not speak syncpoint's protocol: {e.detail}") from None
        except (OSError, ssl.SSLError) as e:
            raise self._broken(f"the connection to the remote queue manager failed: {e}") from None
        return self._reply(rid)

    def _reply(self, rid: int) -> Any:
        frame = self._frames.pop(0)
        try:
            reply = parse_reply(frame)
        except ProtocolError as e:
            raise self._broken(f"the remote end does not speak syncpoint's protocol: {e.detail}") from None
        if reply.status == FATAL:
            raise self._broken(f"the remote queue manager ended the connection: {reply.body}")
        if reply.request_id != rid:
            raise self._broken(f"reply {reply.request_id} arrived where {rid} was expected")
        if reply.status == OK:
            return reply.body
        if reply.status == MQ_ERROR and isinstance(reply.body, list) and len(reply.body) == 3:
            comp, reason, detail = reply.body
            if rid == 1:
                self.close()
            raise MQMIError(comp, reason, detail)
        if reply.status == BAD_REQUEST:
            raise self._broken(f"the remote queue manager does not know channels: {reply.body}")
        raise self._broken("an unknown reply status")

    def channel(self, op: str, name: str, params: dict[str, Any], timeout: float | None = None) -> Any:
        return self.call("channel", [op, name, params], timeout)
