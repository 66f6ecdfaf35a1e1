"""The asyncio transport: syncpoint's protocol (docs/protocol.md) over an asyncio stream, to a queue manager server.

Each call is a request frame; one task per connection reads the reply frames and hands each to the call waiting
for it (replies come in request order). Calls of several tasks on one connection are pipelined and run in the
server one after another, as MQI calls on one connection do: a call behind a waiting ``get`` runs when that get
ends. A call cancelled while in flight ends the connection (the server backs out its unit of work, as for a
dropped connection), as the blocking client does when a signal interrupts a call: the replies could no longer be
trusted to match the calls. A dropped connection is MQRC_CONNECTION_BROKEN (2009) on the call that finds it.
"""

from __future__ import annotations

import asyncio
import collections
import ssl
from typing import Any

from syncpoint.mqi import MQMIError
from syncpoint.mqi import constants as C
from syncpoint.wire import (
    DEFAULT_MAX_FRAME,
    FrameDecoder,
    ProtocolError,
    encode_request,
    hello_params,
    parse_reply,
    reply_result,
    unreachable,
)


class AsyncConnection:
    """One connection to a queue manager server, for the tasks of one event loop."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._reader = reader
        self._writer = writer
        self._decoder = FrameDecoder(DEFAULT_MAX_FRAME)
        self._waiting: collections.deque[tuple[int, asyncio.Future[Any]]] = collections.deque()
        self._next_id = 1
        self.broken: str | None = None
        self.qmgr_name = ""
        self.hconn = 0
        self.protocol_version = 0
        self._task = asyncio.get_running_loop().create_task(self._read_replies(), name="syncpoint.aio replies")

    # the blocking transport's keywords (client/_remote.RemoteTransport), declared again: a coroutine here, a
    # constructor there; what they do with them (hello, errors) is one implementation in syncpoint.wire
    @classmethod
    async def open(
        cls,
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
        channel: str = "",
    ) -> AsyncConnection:
        try:
            if unix_path is not None:
                opening = asyncio.open_unix_connection(unix_path)
            else:
                assert address is not None
                ctx = (tls if isinstance(tls, ssl.SSLContext) else ssl.create_default_context()) if tls else None
                opening = asyncio.open_connection(
                    address[0], address[1], ssl=ctx, server_hostname=address[0] if ctx else None
                )
            reader, writer = await asyncio.wait_for(opening, timeout)
        except (OSError, ssl.SSLError, TimeoutError) as e:
            raise unreachable(address, unix_path, e) from None
        conn = cls(reader, writer)
        try:
            info = await conn.call("hello", [hello_params(qmgr, user, password, appl_name, appl_type, channel)])
        except BaseException:
            conn.abort("the handshake failed")
            raise
        conn.qmgr_name = info["qmgr"]
        conn.hconn = info["hconn"]
        conn.protocol_version = info["version"]
        return conn

    # -- calls ----------------------------------------------------------------------------------------
    async def call(self, verb: str, args: list[Any]) -> Any:
        """One request; its result, or the MQMIError it failed with raised."""
        if self.broken is not None:
            raise MQMIError(C.MQCC_FAILED, C.MQRC_CONNECTION_BROKEN, self.broken)
        rid = self._next_id
        self._next_id += 1
        fut: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._waiting.append((rid, fut))
        self._writer.write(encode_request(rid, verb, args))  # no await between: frames go in the order of ids
        try:
            await self._writer.drain()
            result = await fut
        except asyncio.CancelledError:
            self.abort(
                "a call was cancelled while in flight; the connection was closed and its unit of work backed out"
            )
            raise
        except (ConnectionError, OSError) as e:
            self.abort(f"the connection to the queue manager broke: {e}")
            raise MQMIError(C.MQCC_FAILED, C.MQRC_CONNECTION_BROKEN, self.broken) from None
        if isinstance(result, MQMIError):
            raise result
        return result

    async def _read_replies(self) -> None:
        try:
            while True:
                data = await self._reader.read(256 * 1024)
                if not data:
                    self.abort("the queue manager closed the connection")
                    return
                for frame in self._decoder.feed(data):
                    try:
                        result = reply_result(parse_reply(frame), self._waiting[0][0] if self._waiting else None)
                    except ProtocolError as e:  # the reply ends the connection (as the blocking client's)
                        self.abort(e.detail)
                        return
                    _, fut = self._waiting.popleft()
                    if not fut.done():
                        fut.set_result(result)
        except ProtocolError as e:
            self.abort(f"the queue manager sent a malformed frame: {e.detail}")
        except (ConnectionError, OSError) as e:
            self.abort(f"the connection to the queue manager broke: {e}")

    # -- the end --------------------------------------------------------------------------------------
    def abort(self, detail: str) -> None:
        """Ends the connection here: every call still waiting gets MQRC_CONNECTION_BROKEN; the server backs out
        the unit of work, as for any dropped connection."""
        if self.broken is None:
            self.broken = detail
        while self._waiting:
            _, fut = self._waiting.popleft()
            if not fut.done():
                fut.set_result(MQMIError(C.MQCC_FAILED, C.MQRC_CONNECTION_BROKEN, self.broken))
        self._writer.close()
        if self._task is not asyncio.current_task():
            self._task.cancel()

    async def disconnect(self, abnormal: bool = False) -> None:
        """MQDISC: a normal end commits the unit of work; ``abnormal`` backs it out as a dropped connection."""
        if self.broken is not None:
            return
        try:
            await self.call("disconnect", [bool(abnormal)])
        finally:
            self.abort("disconnected")
            try:
                await self._writer.wait_closed()
            except (ConnectionError, OSError):
                pass
