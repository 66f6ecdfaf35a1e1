"""A requester's connection relaying a server channel (SVR) of this queue manager (``_channel.py``, ``request``).

When a requester (RQSTR) of another queue manager asks a SVR here to start, the channel initiator's sending MCA
gets one end of a socket pair and the requester's own connection becomes a relay: its session reads no more
requests and carries bytes each way between the requester and the other end of the pair (:class:`Tunnel`).
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

    def connection_made(self, transport: Any) -> None:
        self.transport = transport
        if self.closed:
            transport.close()
            return
        for data in self.early:
            transport.write(data)
        self.early.clear()

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
    loop = asyncio.get_running_loop()
    sock.setblocking(False)
    tunnel.task = loop.create_task(loop.connect_accepted_socket(lambda: tunnel, sock))
    return tunnel
