"""A requester's connection relaying a server channel (SVR) of this queue manager (``_channel.py``, ``request``).

When a requester (RQSTR) of another queue manager asks a SVR here to start, the channel initiator's sending MCA
gets one end of a socket pair and the requester's own connection becomes a relay: its session reads no more
requests and carries bytes each way between the requester and the other end of the pair (:class:`Tunnel`).

Back-pressure, both ways (issue 39 item 12): a side whose outgoing bytes wait beyond the transport's high-water
mark stops the other side's reading until they drain (asyncio's ``pause_writing`` / ``resume_writing``), so a
requester that floods its connection, or one that stops reading what the SVR sends, holds the relay to a few
buffers' worth of bytes; the rest waits in the peer's socket, where TCP's own flow control stops it.
"""

from __future__ import annotations

import asyncio
import socket
from typing import Any


class Tunnel(asyncio.Protocol):
    """The SVR channel's side of a requester's connection: bytes each way, as they come."""

    def __init__(self, session: Any) -> None:
        self.session = session
        self.transport: Any = None
        self.early: list[bytes] = []
        self.closed = False
        self.task: Any = None
        self.reading_paused = False  # this side's reading, paused while the requester's side cannot take more

    def connection_made(self, transport: Any) -> None:
        self.transport = transport
        if self.closed:
            transport.close()
            return
        for data in self.early:
            transport.write(data)
        self.early.clear()
        self.session_reading(True)  # paused until this side was connected (start_tunnel)

    # the SVR's side cannot take more: the requester's connection is not read until it can
    def pause_writing(self) -> None:
        self.session_reading(False)

    def resume_writing(self) -> None:
        self.session_reading(True)

    def session_reading(self, on: bool) -> None:
        t = self.session.transport
        if t is not None and not t.is_closing():
            if on:
                t.resume_reading()
            else:
                t.pause_reading()

    def peer_writable(self, on: bool) -> None:
        """The requester's connection can (``on``) or cannot take more bytes: read the SVR's side accordingly."""
        t = self.transport
        if t is None or t.is_closing() or on != self.reading_paused:
            return
        self.reading_paused = not on
        if on:
            t.resume_reading()
        else:
            t.pause_reading()

    def data_received(self, data: bytes) -> None:
        t = self.session.transport
        if t is not None and not t.is_closing():
            t.write(data)

    def connection_lost(self, exc: Exception | None) -> None:
        t = self.session.transport
        if t is not None and not t.is_closing():
            t.close()

    def forward(self, data: bytes) -> None:
        if self.transport is None:
            self.early.append(data)
        elif not self.transport.is_closing():
            self.transport.write(data)

    def close(self) -> None:
        self.closed = True
        if self.transport is not None:
            self.transport.close()


def start_tunnel(session: Any, sock: socket.socket) -> Tunnel:
    """From now on ``session``'s connection relays bytes between the requester and ``sock`` (the SVR channel's
    end of a socket pair)."""
    tunnel = Tunnel(session)
    tunnel.session_reading(False)  # until the SVR's side is connected: nothing waits in ``early`` unbounded
    loop = asyncio.get_running_loop()
    sock.setblocking(False)
    tunnel.task = loop.create_task(loop.connect_accepted_socket(lambda: tunnel, sock))
    return tunnel
