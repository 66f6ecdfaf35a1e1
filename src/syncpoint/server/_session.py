"""One connection of the server: one MQI session (docs/protocol.md), its requests run in order.

A session decodes requests with the sans-I/O :class:`~syncpoint.wire.ServerProtocol` and runs them strictly in
order (the verbs themselves: ``_verbs.py``); replies leave in request order, written together at the end of a
turn of the loop, so clients may pipeline. A reply whose write must be durable waits for the server's sync
thread. An MQGET with MQGMO_WAIT that finds nothing parks the session (its later requests wait, as MQI calls on
one connection do) until the server wakes or times it out (``_gets.py``, with the verbs on shared queues that
run in a worker). The hello, and who may connect at all, are ``_handshake.py``'s; a requester's connection that
came to relay a server channel, ``_relay.py``'s.

A connection's end is its session's end: when the socket closes or breaks without MQDISC, the engine backs out
the unit of work (an abnormal end: MARK_SKIP_BACKOUT is not honoured, BackoutCount is incremented) and closes
the handles. A malformed request gets an error reply; a broken byte stream gets a FATAL frame and the
connection is closed; neither affects any other session.
"""

from __future__ import annotations

import asyncio
import collections
import logging
import socket
from dataclasses import dataclass
from typing import Any

from syncpoint.engine import Connection
from syncpoint.host import POLLER, STOPPED
from syncpoint.mqi import MQMIError
from syncpoint.mqi import constants as C
from syncpoint.store import Pending
from syncpoint.wire import (
    Bad,
    Call,
    Hello,
    ProtocolError,
    ServerProtocol,
    encode_bad_request,
    encode_fatal,
    encode_mq_error,
    encode_reply,
)

from ._channel import connection_ended
from ._frames import Frames
from ._gets import Gets
from ._handshake import Handshake
from ._hub import Hub, ParkedGet, ServerStats
from ._limits import MAX_BACKLOG
from ._relay import Tunnel, start_tunnel
from ._verbs import SIZED_VERBS, VERBS

__all__ = ["Hub", "ParkedGet", "ServerStats", "Session"]

log = logging.getLogger("syncpoint.server")


@dataclass(slots=True)
class _Broken:
    """The byte stream broke after the requests before it: answered in order, then the FATAL reply."""

    detail: str


LINGER = 2.0  # seconds a connection ended by the server reads and drops what its client still sends


class Session(Gets, Handshake, Frames, asyncio.Protocol):
    """One connection: one MQI session with its requests run in order."""

    def __init__(self, server: Hub, local: bool) -> None:
        self.server = server
        self.local = local
        self.proto = ServerProtocol(server.max_frame)
        self.transport: asyncio.Transport | None = None
        self.conn: Connection | None = None
        self.inbox: collections.deque[Hello | Call | Bad | _Broken] = collections.deque()
        self.outbox: collections.deque[list[Any]] = collections.deque()  # [request id, frame or None]
        self.blocked = False
        self.closing = False
        self.reading_paused = False
        self.waiter: ParkedGet | None = None
        self._current_rid = 0
        self._rewake = False  # a parked get on a shared queue was woken while its attempt ran
        self.in_worker = False  # a verb on a shared queue runs in a worker (group_workers): the session waits
        self._end_after_worker: bool | None = None  # the connection ended meanwhile (abnormal?): end it after
        self._flush_scheduled = False
        self.control = False
        self.peer = ""
        self.address = "local"  # the source for the password throttle: the peer's address
        self.counted = False  # a TCP connection: counted against max-connections
        self.over_limit = False
        self.write_full = False
        self._handshake: asyncio.TimerHandle | None = None
        self._fatal_slot: list[Any] | None = None
        self._frame_since: float | None = None  # the frame partly received (_frames.py)
        self._frame_size = -1
        self._frame_held = 0
        self._frame_waits = False
        self._frame_timer: asyncio.TimerHandle | None = None
        self.tunnel: Tunnel | None = None  # a requester's connection now carries a SVR's channel (_channel.py)
        self.lost: Exception | None = None  # why the transport ended (connection_lost), None for the peer's close
        self.channel = ""  # a client's server-connection channel (_svrconn.py): counted against MAXINST, MAXINSTC

    # -- transport events -----------------------------------------------------------------------------
    def connection_made(self, transport: Any) -> None:  # uvloop's transports are not asyncio's classes
        self.transport = transport
        sock = transport.get_extra_info("socket")
        if sock is not None and sock.family in (socket.AF_INET, socket.AF_INET6):
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        peername = transport.get_extra_info("peername")
        self.peer = str(peername or "local")
        server = self.server
        transport.set_write_buffer_limits(high=server.limits.reply_backlog)
        server.sessions.add(self)
        server.stats.sessions += 1
        server.stats.sessions_total += 1
        self._admit(transport, peername)

    def data_received(self, data: bytes) -> None:
        if self.tunnel is not None:
            self.tunnel.forward(data)
            return
        if self.closing:
            return
        POLLER.touch()  # requests are coming: keep the CPU polling for the next (syncpoint.host, the busy poller)
        try:
            events: list[Any] = self.proto.receive(data)
        except ProtocolError as e:
            # the requests that came whole before the break are run and answered first, however TCP split them
            events = [*e.events, _Broken(e.detail)]
        self.inbox.extend(events)
        if self._frame_since is not None or self.proto.decoder.buffered:
            self._track_frame(bool(events))
        self._pump()
        if len(self.inbox) + len(self.outbox) > MAX_BACKLOG:
            self._update_reading()
        syncer = self.server.syncer
        if syncer is not None and self in syncer.expected:  # after the requests ran (and woke parked gets)
            self.server.heard_from(self)

    def connection_lost(self, exc: Exception | None) -> None:
        self.closing = True
        self.lost = exc  # what ended it (None: the peer closed), for a receiving channel's Stopped event
        if self.tunnel is not None:
            self.tunnel.close()
        self._release()
        self._frame_stop()
        self.server.sessions.discard(self)
        self.server.stats.sessions -= 1
        if self.waiter is not None:
            self.server.unpark(self.waiter)
            self.waiter = None
        self.end_connection(abnormal=True)
        self.server.check_controlled_end()

    def pause_writing(self) -> None:  # the client does not read its replies: stop reading its requests
        self.write_full = True
        if self.tunnel is not None:  # a relay: stop reading the SVR's side instead (_relay.py)
            self.tunnel.peer_writable(False)
        self._update_reading()

    def resume_writing(self) -> None:
        self.write_full = False
        if self.tunnel is not None:
            self.tunnel.peer_writable(True)
        self._update_reading()

    def _update_reading(self) -> None:
        """Back-pressure: read from the client only while its unsent replies are below the limit
        (``reply-backlog`` bytes) and its requests not yet answered number at most MAX_BACKLOG."""
        transport = self.transport
        if transport is None or self.closing or transport.is_closing() or self.tunnel is not None:
            return  # a relay's reading follows its other side (_relay.py)
        pause = self.write_full or self._frame_waits or len(self.inbox) + len(self.outbox) > MAX_BACKLOG
        if pause != self.reading_paused:
            self.reading_paused = pause
            if pause:
                transport.pause_reading()
            else:
                transport.resume_reading()

    # -- ending ---------------------------------------------------------------------------------------
    def end_connection(self, abnormal: bool) -> None:
        """End the engine connection: an abnormal end backs out the unit of work and closes the handles."""
        if self.in_worker:  # a verb of this connection is running: the end comes after it
            self._end_after_worker = abnormal
            return
        conn, self.conn = self.conn, None
        if conn is None or not conn.alive:
            return
        qm = self.server.qm
        if qm.closed or qm.broken is not None:
            return
        try:
            _, pending = qm.run(qm.engine.disconnect, conn, abnormal)
        except MQMIError as e:
            log.warning("ending the connection of %s: %s", self.peer, e)
            return
        if pending is not None:
            self.server.after_durable(pending, lambda err: None)  # not waited for: no session expects it
        connection_ended(qm, conn, self.lost)  # a receiving channel that was not closed ends on an error

    def fatal(self, detail: str, quiet: bool = False, linger: bool = True) -> None:
        """Send a FATAL frame and close: lingering (``_linger``) unless the server itself is closing."""
        self.server.stats.fatal += 1
        if not quiet:
            log.warning("closing the connection from %s: %s", self.peer, detail)
        self._flush_out()
        if self.transport is not None and not self.transport.is_closing():
            self.transport.write(encode_fatal(detail))
            if linger:
                self._linger(self.transport)
            else:
                self.transport.close()
        self.closing = True

    # -- replies in order -----------------------------------------------------------------------------
    def _slot(self, request_id: int) -> list[Any]:
        slot: list[Any] = [request_id, None]
        self.outbox.append(slot)
        return slot

    def _fill(self, slot: list[Any], frame: bytes) -> None:
        """Record a reply; replies ready in order are written together once this turn of the loop ends, so a
        pipelined batch (or a group commit's many answers) costs one write, not one per reply."""
        if len(frame) > self.server.max_frame + 4:  # never a frame beyond the limit (docs/protocol.md)
            frame = encode_mq_error(
                slot[0],
                MQMIError(
                    C.MQCC_FAILED,
                    C.MQRC_MSG_TOO_BIG_FOR_CHANNEL,
                    f"the reply would exceed the frame limit of {self.server.max_frame} bytes",
                ),
            )
        slot[1] = frame
        if self.outbox[0][1] is not None and not self._flush_scheduled:
            self._flush_scheduled = True
            asyncio.get_running_loop().call_soon(self._flush_out)

    def _flush_out(self) -> None:
        self._flush_scheduled = False
        out = self.outbox
        if not out or out[0][1] is None:
            return  # an earlier reply is still waiting for its write to be durable
        chunks = []
        last = None
        while out and out[0][1] is not None:
            last = out.popleft()
            chunks.append(last[1])
        transport = self.transport
        if transport is not None and not transport.is_closing():
            transport.write(b"".join(chunks) if len(chunks) > 1 else chunks[0])
            if last is self._fatal_slot:  # the stream broke after these replies: the FATAL frame was the last
                self._linger(transport)
                return
        if self.reading_paused:
            self._update_reading()

    def reply(self, request_id: int, result: Any) -> None:
        self._fill(self._slot(request_id), encode_reply(request_id, result))

    def reply_error(self, request_id: int, error: MQMIError) -> None:
        self._fill(self._slot(request_id), encode_mq_error(request_id, error))

    def _reply_when_durable(self, request_id: int, result: Any, pending: Pending | None) -> None:
        if pending is not None and pending.done:  # nothing to wait for (e.g. a get in syncpoint): answer now
            try:
                pending.wait()
            except Exception as e:
                self.reply_error(request_id, self._storage_failed(e))
                return
            pending = None
        if pending is None:
            self.reply(request_id, result)
            return
        slot = self._slot(request_id)

        def done(error: BaseException | None) -> None:
            if error is None:
                self._fill(slot, encode_reply(request_id, result))
            else:
                self._fill(slot, encode_mq_error(request_id, self._storage_failed(error)))

        self.server.after_durable(pending, done, self)

    def _storage_failed(self, error: BaseException) -> MQMIError:
        return self.server.qm.storage_failed(error)

    # -- running requests -----------------------------------------------------------------------------
    def _pump(self) -> None:
        while self.inbox and not self.blocked and not self.closing:
            event = self.inbox.popleft()
            if isinstance(event, Call):
                self._call(event)
            elif isinstance(event, Hello):
                self._hello(event)
            elif isinstance(event, _Broken):
                self._broken(event.detail)
            else:
                self.server.stats.bad_requests += 1
                self.fill_bad(event.request_id, event.detail)

    def unblock(self) -> None:
        self.blocked = False
        self.waiter = None
        self._pump()
        if self.reading_paused:
            self._update_reading()

    def _linger(self, transport: asyncio.Transport) -> None:
        """Close after the last frame without losing it: closing a socket with unread bytes in it resets the
        connection, which can destroy the replies still in flight. So the sending side ends (EOF), what the
        client still sends is read and dropped, and the connection closes when the client closes it, or in
        at most LINGER seconds."""
        if not transport.can_write_eof():
            transport.close()
            return
        transport.write_eof()
        if self.reading_paused:
            self.reading_paused = False
            transport.resume_reading()
        loop = self.server.loop
        if loop is not None:
            loop.call_later(LINGER, transport.close)

    def _broken(self, detail: str) -> None:
        """The FATAL reply after the replies to every request before the break; then the connection closes."""
        self.server.stats.fatal += 1
        log.warning("closing the connection from %s: %s", self.peer, detail)
        slot = self._slot(0)
        self._fatal_slot = slot
        self.inbox.clear()
        self.closing = True  # nothing more is read or run; replies still due are written, then the FATAL frame
        self._fill(slot, encode_fatal(detail))

    def _call(self, call: Call) -> None:
        server = self.server
        server.stats.calls += 1
        rid, verb, args = call.request_id, call.verb, call.args
        self._current_rid = rid
        if verb == "ping":
            stats = getattr(server.qm.store, "stats", None)
            self.reply(
                rid,
                {
                    "qmgr": server.qm.name,
                    "state": server.state,
                    "sessions": server.stats.sessions,
                    "calls": server.stats.calls,
                    "store": stats() if stats is not None else {},
                },
            )
            return
        if verb == "endmqm":
            self._endmqm(rid, args[0])
            return
        if self.control:
            self.fill_bad(rid, "a control session accepts ping and endmqm only")
            return
        conn = self.conn
        if conn is None or server.state == STOPPED:
            if verb == "disconnect":
                self.reply(rid, None)
                self._close_after_replies()
                return
            self.reply_error(rid, MQMIError(C.MQCC_FAILED, C.MQRC_Q_MGR_STOPPING, "the queue manager is ending"))
            return
        if server.qm.shared is not None and self._in_group(verb, conn, args):
            return
        try:
            handler = VERBS.get(verb)
            if handler is not None:
                result, pending = handler(server.qm, conn, args)
                tunnel = result.pop("tunnel", None) if verb == "channel" and isinstance(result, dict) else None
                self._reply_when_durable(rid, result, pending)
                if tunnel is not None:
                    self._start_tunnel(tunnel)
            elif (sized := SIZED_VERBS.get(verb)) is not None:
                result, pending = sized(server.qm, conn, args, server.max_frame)
                self._reply_when_durable(rid, result, pending)
            elif verb == "get":
                self._get(rid, conn, args)
            elif verb == "disconnect":
                self.conn = None
                qm = server.qm
                _, pending = qm.run(qm.engine.disconnect, conn, bool(args[0]))
                self._reply_when_durable(rid, None, pending)
                self._close_when_flushed()
                server.check_controlled_end()
            else:  # pragma: no cover - VERBS and this dispatch are kept together
                self.reply_error(rid, MQMIError(C.MQCC_FAILED, C.MQRC_FUNCTION_NOT_SUPPORTED, verb))
        except MQMIError as e:
            self.reply_error(rid, e)
        except ProtocolError as e:  # well framed but beyond what the protocol allows (a getm count)
            server.stats.bad_requests += 1
            self.fill_bad(rid, e.detail)
        except Exception as e:  # a defect must not take the server down: the caller learns, the log tells
            log.exception("unexpected error in %s from %s", verb, self.peer)
            self.reply_error(rid, MQMIError(C.MQCC_FAILED, C.MQRC_UNEXPECTED_ERROR, f"{type(e).__name__}: {e}"))

    def _start_tunnel(self, sock: socket.socket) -> None:
        """From now on this connection relays bytes between the requester and ``sock`` (``_relay.py``): the
        reply that said so is written first, no more requests are read."""
        self._flush_out()
        self.inbox.clear()
        self.tunnel = start_tunnel(self, sock)

    def _close_when_flushed(self) -> None:
        self.closing = True
        self.inbox.clear()
        if not self.outbox and self.transport is not None:
            self.transport.close()
        else:
            # close once the last reply has been written
            def check() -> None:
                if self.outbox:
                    asyncio.get_running_loop().call_later(0.001, check)
                elif self.transport is not None:
                    self.transport.close()

            check()

    def _endmqm(self, rid: int, mode: Any) -> None:
        if not self.local:
            self.reply_error(
                rid, MQMIError(C.MQCC_FAILED, C.MQRC_NOT_AUTHORIZED, "endmqm is accepted only from this machine")
            )
            return
        if mode not in ("c", "i", "p"):
            self.fill_bad(rid, "endmqm takes c, i or p")
            return
        self.reply(rid, self.server.end(mode))

    def fill_bad(self, rid: int, detail: str) -> None:
        self._fill(self._slot(rid), encode_bad_request(rid, detail))
