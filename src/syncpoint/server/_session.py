"""One connection of the server: one MQI session (docs/protocol.md), its requests run in order.

A session decodes requests with the sans-I/O :class:`~syncpoint.wire.ServerProtocol` and runs them strictly in
order (the verbs themselves: ``_verbs.py``); replies leave in request order, written together at the end of a
turn of the loop, so clients may pipeline. A reply whose write must be durable waits for the server's sync
thread. An MQGET with MQGMO_WAIT that finds nothing parks the session (its later requests wait, as MQI calls on
one connection do) until the server wakes or times it out.

A connection's end is its session's end: when the socket closes or breaks without MQDISC, the engine backs out
the unit of work (an abnormal end: MARK_SKIP_BACKOUT is not honoured, BackoutCount is incremented) and closes
the handles. A malformed request gets an error reply; a broken byte stream gets a FATAL frame and the
connection is closed; neither affects any other session.
"""

from __future__ import annotations

import asyncio
import collections
import logging
import os
import socket
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Protocol

from syncpoint import __version__
from syncpoint.engine import Connection
from syncpoint.host import POLLER, STOPPED, QueueManagerHost, Waiter, identity
from syncpoint.mqi import MQGMO, MQMD, MQMIError
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

from ._auth import Throttle, Users
from ._limits import MAX_BACKLOG, OVERFLOW, Limits
from ._syncer import Syncer
from ._verbs import SIZED_VERBS, VERBS, integer, struct

log = logging.getLogger("syncpoint.server")


class Hub(Protocol):
    """What a session needs of its server (``_server.Server``)."""

    qm: QueueManagerHost
    max_frame: int
    sessions: set[Session]
    stats: ServerStats
    users: Users | None
    loop: asyncio.AbstractEventLoop | None
    syncer: Syncer | None
    limits: Limits
    throttle: Throttle
    tcp_sessions: int

    @property
    def state(self) -> str: ...

    def end(self, mode: str) -> str: ...

    def check_controlled_end(self) -> None: ...

    def park(self, w: ParkedGet) -> None: ...

    def arm(self, w: ParkedGet) -> None: ...

    def unpark(self, w: ParkedGet) -> None: ...

    def end_wait(self, w: ParkedGet, error: MQMIError) -> None: ...

    def after_durable(
        self, pending: Pending, done: Callable[[BaseException | None], None], session: Session | None = None
    ) -> None: ...

    def heard_from(self, session: Session) -> None: ...


@dataclass(slots=True, eq=False)
class ParkedGet(Waiter):
    """A parked MQGET with MQGMO_WAIT: the host's waiter and the request it answers."""

    session: Session | None = None
    request_id: int = 0
    hobj: int = 0
    md: MQMD | None = None
    gmo: MQGMO | None = None
    buflen: int | None = None
    timer: asyncio.TimerHandle | None = None


@dataclass(slots=True)
class ServerStats:
    sessions: int = 0
    calls: int = 0
    bad_requests: int = 0
    fatal: int = 0
    sessions_total: int = 0
    refused_limit: int = 0  # hellos answered MQRC_MAX_CONNS_LIMIT_REACHED, or connections closed unanswered
    handshake_timeouts: int = 0
    auth_failures: int = 0


@dataclass(slots=True)
class _Broken:
    """The byte stream broke after the requests before it: answered in order, then the FATAL reply."""

    detail: str


_last_warning: dict[str, float] = {}
LINGER = 2.0  # seconds a connection ended by the server reads and drops what its client still sends


def _warn_now(what: str) -> bool:
    """Whether to log ``what`` now: a warning an attacker can cause repeats at most once a minute."""
    now = time.monotonic()
    if now - _last_warning.get(what, -120.0) < 60.0:
        return False
    _last_warning[what] = now
    return True


class _Tunnel(asyncio.Protocol):
    """The SVR channel's side of a requester's connection: bytes each way, as they come."""

    def __init__(self, session: Session) -> None:
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


_GROUP_VERBS = frozenset(("put", "putm", "putv", "get", "getm"))  # on a handle: on a shared queue, in a worker
_GROUP_WORKERS: ThreadPoolExecutor | None = None


def group_workers() -> ThreadPoolExecutor:
    """The threads that run the verbs on shared queues (queue-sharing groups): each waits for PostgreSQL on a
    connection of its own with the host's lock let go, while the loop serves the other sessions."""
    global _GROUP_WORKERS
    if _GROUP_WORKERS is None:
        size = int(os.environ.get("SYNCPOINT_QSG_WORKERS", "16"))
        _GROUP_WORKERS = ThreadPoolExecutor(max(1, size), thread_name_prefix="syncpoint-qsg")
    return _GROUP_WORKERS


class Session(asyncio.Protocol):
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
        self.tunnel: _Tunnel | None = None  # a requester's connection now carries a SVR's channel (_channel.py)

    # -- transport events -----------------------------------------------------------------------------
    def connection_made(self, transport: Any) -> None:  # uvloop's transports are not asyncio's classes
        self.transport = transport
        sock = transport.get_extra_info("socket")
        if sock is not None and sock.family in (socket.AF_INET, socket.AF_INET6):
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        peername = transport.get_extra_info("peername")
        self.peer = str(peername or "local")
        server = self.server
        limits = server.limits
        transport.set_write_buffer_limits(high=limits.reply_backlog)
        server.sessions.add(self)
        server.stats.sessions += 1
        server.stats.sessions_total += 1
        if not self.local:
            if isinstance(peername, tuple) and peername:
                self.address = str(peername[0])
            self.counted = True
            server.tcp_sessions += 1
            if server.tcp_sessions > limits.max_connections:
                self.over_limit = True  # its hello is answered MQRC_MAX_CONNS_LIMIT_REACHED
                if server.tcp_sessions > limits.max_connections + OVERFLOW:
                    server.stats.refused_limit += 1
                    self.closing = True
                    transport.abort()  # too many beyond the limit to answer: closed at once
                    return
        if server.loop is not None:
            self._handshake = server.loop.call_later(limits.handshake_timeout, self._handshake_expired)

    def _handshake_expired(self) -> None:
        self._handshake = None
        if self.closing or self.proto.hello_seen:
            return
        self.server.stats.handshake_timeouts += 1
        if _warn_now("handshake"):
            log.warning(
                "closing connections that sent no hello within %g s (strmqm --limit handshake-timeout), e.g. from %s",
                self.server.limits.handshake_timeout,
                self.peer,
            )
        self.fatal(f"no hello within {self.server.limits.handshake_timeout:g} seconds", quiet=True)

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
        self._pump()
        if len(self.inbox) + len(self.outbox) > MAX_BACKLOG:
            self._update_reading()
        syncer = self.server.syncer
        if syncer is not None and self in syncer.expected:  # after the requests ran (and woke parked gets)
            self.server.heard_from(self)

    def connection_lost(self, exc: Exception | None) -> None:
        self.closing = True
        if self.tunnel is not None:
            self.tunnel.close()
        if self.counted:
            self.counted = False
            self.server.tcp_sessions -= 1
        if self._handshake is not None:
            self._handshake.cancel()
            self._handshake = None
        self.server.sessions.discard(self)
        self.server.stats.sessions -= 1
        if self.waiter is not None:
            self.server.unpark(self.waiter)
            self.waiter = None
        self.end_connection(abnormal=True)
        self.server.check_controlled_end()

    def pause_writing(self) -> None:  # the client does not read its replies: stop reading its requests
        self.write_full = True
        self._update_reading()

    def resume_writing(self) -> None:
        self.write_full = False
        self._update_reading()

    def _update_reading(self) -> None:
        """Back-pressure: read from the client only while its unsent replies are below the limit
        (``reply-backlog`` bytes) and its requests not yet answered number at most MAX_BACKLOG."""
        transport = self.transport
        if transport is None or self.closing or transport.is_closing():
            return
        pause = self.write_full or len(self.inbox) + len(self.outbox) > MAX_BACKLOG
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

    def _hello(self, hello: Hello) -> None:
        server = self.server
        if self._handshake is not None:
            self._handshake.cancel()
            self._handshake = None
        if self.over_limit:
            server.stats.refused_limit += 1
            if _warn_now("max-connections"):
                log.warning(
                    "refusing connections beyond %d (strmqm --limit max-connections), e.g. from %s",
                    server.limits.max_connections,
                    self.peer,
                )
            limit = server.limits.max_connections
            self._refuse(
                hello,
                MQMIError(
                    C.MQCC_FAILED,
                    C.MQRC_MAX_CONNS_LIMIT_REACHED,
                    f"the queue manager serves at most {limit} network connections at once",
                ),
            )
            return
        if hello.qmgr not in ("", "*") and hello.qmgr != server.qm.name:
            self._refuse(hello, MQMIError(C.MQCC_FAILED, C.MQRC_Q_MGR_NAME_ERROR, f"this is {server.qm.name}"))
            return
        if hello.control:
            if not self.local:
                self._refuse(hello, MQMIError(C.MQCC_FAILED, C.MQRC_NOT_AUTHORIZED, "control sessions are local only"))
                return
            self.control = True
            self.proto.greeted = True
            self.reply(
                hello.request_id,
                {
                    "version": hello.version,
                    "qmgr": server.qm.name,
                    "server": __version__,
                    "hconn": 0,
                    "state": server.state,
                },
            )
            return
        users = server.users
        must_check = users is not None and (hello.password is not None or (users.required and not self.local))
        if not must_check:
            self._connect(hello)
            return
        loop = server.loop
        assert users is not None and loop is not None
        self.blocked = True  # scrypt takes tens of milliseconds: off the loop, the session waits for it
        source = (self.address, hello.user)
        throttle = server.throttle

        def checked(f: asyncio.Future[bool]) -> None:
            if self.closing:
                return
            if f.exception() is not None or not f.result():
                throttle.failed(source)
                server.stats.auth_failures += 1
                log.warning("connection from %s: authentication failed for user %r", self.peer, hello.user)
                self._refuse(
                    hello, MQMIError(C.MQCC_FAILED, C.MQRC_NOT_AUTHORIZED, "the user or password is not valid")
                )
                return
            throttle.succeeded(source)
            self._connect(hello)
            self.unblock()

        def check() -> None:
            if not self.closing:
                loop.run_in_executor(None, users.check, hello.user, hello.password).add_done_callback(checked)

        delay = throttle.wait(source)  # after failures from this address for this user: its turn comes later
        if delay > 0:
            loop.call_later(delay, check)
        else:
            check()

    def _connect(self, hello: Hello) -> None:
        server = self.server
        if server.state == STOPPED:
            self._refuse(hello, MQMIError(C.MQCC_FAILED, C.MQRC_Q_MGR_STOPPING, "the queue manager is ending"))
            return
        qm = server.qm
        user, pid = identity(hello.user, hello.pid)  # a client that did not say: this process's, as IBM's bindings
        try:
            conn, pending = qm.run(qm.engine.connect, hello.appl_name, hello.appl_type or C.MQAT_UNIX, user, pid)
        except MQMIError as e:
            self._refuse(hello, e)
            return
        if self.address != "local":
            conn.conname = self.address  # DISPLAY CONN / QSTATUS: a TCP client's address, as IBM's CONNAME
        self.conn = conn
        self.proto.greeted = True
        self._reply_when_durable(
            hello.request_id,
            {"version": hello.version, "qmgr": qm.name, "server": __version__, "hconn": conn.hconn},
            pending,
        )

    def _refuse(self, hello: Hello, error: MQMIError) -> None:
        """Answer the hello with ``error`` and close the connection."""
        self.reply_error(hello.request_id, error)
        self._close_after_replies()

    def _close_after_replies(self) -> None:
        self._flush_out()
        self.closing = True
        if self.transport is not None:
            self.transport.close()

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
        """From now on this connection relays bytes between the requester and ``sock`` (the SVR channel's end of
        a socket pair): the reply that said so is written first, no more requests are read."""
        self._flush_out()
        self.inbox.clear()
        tunnel = self.tunnel = _Tunnel(self)
        loop = asyncio.get_running_loop()
        sock.setblocking(False)
        tunnel.task = loop.create_task(loop.connect_accepted_socket(lambda: tunnel, sock))

    # -- verbs on shared queues (queue-sharing groups): in a worker, the session waiting -----------------
    def _in_group(self, verb: str, conn: Connection, args: list[Any]) -> bool:
        """Run a verb that reaches the group's shared store in a worker thread (True), so that the loop serves
        the other sessions while it waits for PostgreSQL; this session's later requests wait for it (a
        connection's calls run in order)."""
        qm = self.server.qm
        if verb in _GROUP_VERBS:
            h = conn.handles.get(args[0]) if args and isinstance(args[0], int) else None
            if h is None or h.queue is None or not h.queue.shared:
                return False
        elif verb not in ("commit", "backout") or conn.hconn not in qm.engine._shared_uows:
            return False
        if verb == "get":
            self._run_get_in_worker(conn, args)
            return True
        handler = VERBS.get(verb)
        sized = SIZED_VERBS.get(verb)
        max_frame = self.server.max_frame

        def work() -> tuple[Any, Pending | None]:
            if handler is not None:
                return handler(qm, conn, args)
            assert sized is not None
            return sized(qm, conn, args, max_frame)

        self._to_worker(work, self._verb_done)
        return True

    def _to_worker(self, work: Callable[[], Any], done: Callable[[Future[Any]], None]) -> None:
        loop = self.server.loop
        assert loop is not None
        self.blocked = True
        self.in_worker = True
        future = group_workers().submit(work)
        rid = self._current_rid

        def finished(f: Future[Any]) -> None:
            try:
                loop.call_soon_threadsafe(self._worker_finished, rid, f, done)
            except RuntimeError:  # the loop has closed: the server is gone
                pass

        future.add_done_callback(finished)

    def _worker_finished(self, rid: int, f: Future[Any], done: Callable[..., None]) -> None:
        self.in_worker = False
        self._current_rid = rid
        done(f)
        if self._end_after_worker is not None:
            abnormal, self._end_after_worker = self._end_after_worker, None
            if self.waiter is not None:
                self.server.unpark(self.waiter)
                self.waiter = None
            self.end_connection(abnormal)
            self.server.check_controlled_end()
            return
        if not self.in_worker and self.waiter is None:
            self.unblock()

    def _verb_done(self, f: Future[Any]) -> None:
        rid = self._current_rid
        try:
            result, pending = f.result()
            self._reply_when_durable(rid, result, pending)
        except MQMIError as e:
            self.reply_error(rid, e)
        except ProtocolError as e:
            self.server.stats.bad_requests += 1
            self.fill_bad(rid, e.detail)
        except Exception as e:  # a defect must not take the server down: the caller learns, the log tells
            log.exception("unexpected error in a verb on a shared queue from %s", self.peer)
            self.reply_error(rid, MQMIError(C.MQCC_FAILED, C.MQRC_UNEXPECTED_ERROR, f"{type(e).__name__}: {e}"))

    def _run_get_in_worker(self, conn: Connection, args: list[Any], w: ParkedGet | None = None) -> None:
        """An MQGET on a shared queue, or a woken retry of one (``w``): the attempt in a worker; then, on the
        loop, the reply, or the wait (parked as :meth:`_get` parks, and tried again at once if the queue was
        woken while the attempt ran with the host's lock let go)."""
        qm = self.server.qm
        if w is None:
            hobj = integer(args[0], C.MQRC_HOBJ_ERROR, "Hobj")
            md, gmo = struct(MQMD, args[1]), struct(MQGMO, args[2])
            buflen = args[3]
            if buflen is not None:
                buflen = integer(buflen, C.MQRC_BUFFER_LENGTH_ERROR, "BufferLength")
            deadline = qm.waiters.deadline_of(gmo)
            rid = self._current_rid
        else:
            assert w.md is not None and w.gmo is not None
            hobj, md, gmo, buflen, deadline, rid = w.hobj, w.md, w.gmo, w.buflen, w.deadline, w.request_id
        h = conn.handles.get(hobj)
        qname = "" if h is None or h.queue is None else h.queue.name
        woken = qm.waiters.woken(qname)

        def done(f: Future[Any]) -> None:
            try:
                result, pending = f.result()
            except MQMIError as e:
                if deadline is None or e.reason != C.MQRC_NO_MSG_AVAILABLE:
                    self._get_ended(w, rid, e)
                    return
                again = self._rewake or qm.waiters.woken(qname) != woken
                self._get_waits(conn, w, rid, hobj, md, gmo, buflen, deadline, again)
                return
            except Exception as e:
                log.exception("unexpected error in a get on a shared queue")
                self._get_ended(w, rid, MQMIError(C.MQCC_FAILED, C.MQRC_UNEXPECTED_ERROR, str(e)))
                return
            if w is not None:
                self.server.unpark(w)
                self.waiter = None
            self._reply_when_durable(
                rid, [result.data, result.data_length, result.comp, result.reason, md.pack(), gmo.pack()], pending
            )

        self._current_rid = rid
        self._to_worker(lambda: qm.run(qm.engine.get, conn, hobj, md, gmo, buflen), done)

    def _get_ended(self, w: ParkedGet | None, rid: int, error: MQMIError) -> None:
        if w is not None:
            self.server.unpark(w)
            self.waiter = None
        self.reply_error(rid, error)

    def _get_waits(
        self,
        conn: Connection,
        w: ParkedGet | None,
        rid: int,
        hobj: int,
        md: MQMD,
        gmo: MQGMO,
        buflen: int | None,
        deadline: float,
        woken: bool,
    ) -> None:
        server = self.server
        h = conn.handles.get(hobj)
        if w is None:
            if h is None or h.queue is None:
                self.reply_error(rid, MQMIError(C.MQCC_FAILED, C.MQRC_HOBJ_ERROR, "the handle is not open"))
                return
            w = ParkedGet(h.queue.name, deadline, bool(gmo.Options & C.MQGMO_FAIL_IF_QUIESCING))
            w.session, w.request_id, w.hobj, w.md, w.gmo, w.buflen = self, rid, hobj, md, gmo, buflen
            self.blocked = True
            self.waiter = w
            server.park(w)
        else:
            ended = server.qm.waiters.end_of_wait(w, h is not None and h.queue is not None)
            if ended is not None:
                self._get_ended(w, rid, ended)
                return
            if w.timer is None:
                server.arm(w)
        if woken and server.loop is not None:  # woken while the attempt ran: try again now
            server.loop.call_soon(self.retry_get, w)

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

    # -- MQGET with waiting ---------------------------------------------------------------------------
    def _get(self, rid: int, conn: Connection, args: list[Any]) -> None:
        hobj = integer(args[0], C.MQRC_HOBJ_ERROR, "Hobj")
        md, gmo = struct(MQMD, args[1]), struct(MQGMO, args[2])
        buflen = args[3]
        if buflen is not None:
            buflen = integer(buflen, C.MQRC_BUFFER_LENGTH_ERROR, "BufferLength")
        qm = self.server.qm
        deadline = qm.waiters.deadline_of(gmo)
        if self._try_get(rid, conn, hobj, md, gmo, buflen, deadline is not None):
            return
        h = conn.handles.get(hobj)
        if h is None or h.queue is None:
            raise MQMIError(C.MQCC_FAILED, C.MQRC_HOBJ_ERROR, "the handle is not open")
        assert deadline is not None
        w = ParkedGet(h.queue.name, deadline, bool(gmo.Options & C.MQGMO_FAIL_IF_QUIESCING))
        w.session, w.request_id, w.hobj, w.md, w.gmo, w.buflen = self, rid, hobj, md, gmo, buflen
        self.blocked = True
        self.waiter = w
        self.server.park(w)

    def _try_get(
        self, rid: int, conn: Connection, hobj: int, md: MQMD, gmo: MQGMO, buflen: int | None, wait: bool
    ) -> bool:
        """One attempt. True when the call ended (replied); False when it should wait."""
        qm = self.server.qm
        try:
            result, pending = qm.run(qm.engine.get, conn, hobj, md, gmo, buflen)
        except MQMIError as e:
            if wait and e.reason == C.MQRC_NO_MSG_AVAILABLE:
                return False
            self.reply_error(rid, e)
            return True
        self._reply_when_durable(
            rid, [result.data, result.data_length, result.comp, result.reason, md.pack(), gmo.pack()], pending
        )
        return True

    def retry_get(self, w: ParkedGet) -> None:
        """A parked get was woken (or its timer fired): try again; if nothing came, the host's waiters say
        whether the wait ends (deadline, closed handle, quiescing, stopped) or goes on."""
        if w.done:
            return
        server = self.server
        conn = self.conn
        if conn is None:
            server.end_wait(w, MQMIError(C.MQCC_FAILED, C.MQRC_CONNECTION_BROKEN, "the connection ended"))
            return
        assert w.md is not None and w.gmo is not None
        if server.qm.shared is not None:
            if self.in_worker:  # its attempt is running: it tries again when it ends
                self._rewake = True
                return
            h = conn.handles.get(w.hobj)
            if h is not None and h.queue is not None and h.queue.shared:
                self._rewake = False
                self._run_get_in_worker(conn, [], w)
                return
        try:
            if not self._try_get(w.request_id, conn, w.hobj, w.md, w.gmo, w.buflen, wait=True):
                h = conn.handles.get(w.hobj)
                ended = server.qm.waiters.end_of_wait(w, h is not None and h.queue is not None)
                if ended is None:
                    if w.timer is None:
                        server.arm(w)
                    return
                self.reply_error(w.request_id, ended)
        except Exception as e:
            log.exception("unexpected error in a waiting get")
            server.end_wait(w, MQMIError(C.MQCC_FAILED, C.MQRC_UNEXPECTED_ERROR, str(e)))
            return
        server.unpark(w)
        self.unblock()
