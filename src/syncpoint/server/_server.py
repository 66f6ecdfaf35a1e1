"""The asyncio server: sessions over TCP and a Unix socket, each one MQI connection to the hosted engine.

Theory of operation
-------------------
Everything runs on one event loop thread except durability waits. A session decodes requests with the
sans-I/O :class:`ServerProtocol` and runs them strictly in order: each engine verb runs at once under the host's
lock (engine verbs are short and never block). When the verb left a store write that must be durable, the reply
is parked until the *sync thread* has seen that write committed; meanwhile the loop goes on serving every other
session, whose writes join the same group: one durable write acknowledges the commits of all connections
waiting (group commit). Writes are handed to the sync thread at the end of a turn of the loop, after the parked
gets that the turn's puts woke, and the sync thread briefly waits for the sessions its last group answered (see
:class:`_Syncer`), so a producer's put and a consumer's get of the same message share one sync. Replies always
leave in request order, so clients may pipeline.

An MQGET with MQGMO_WAIT that finds nothing parks the session (its later requests wait, as MQI calls on one
connection do) in the waiter list of its queue. The host calls the server's wake listener with the names of
queues that puts, commits and backouts made interesting; parked gets on those queues are retried in arrival
order, so many waiters each get a different message. A timer ends the wait with MQRC_NO_MSG_AVAILABLE.

A connection's end is its session's end: when the socket closes or breaks without MQDISC, the engine backs out
the unit of work (an abnormal end: MARK_SKIP_BACKOUT is not honoured, BackoutCount is incremented) and closes
the handles. A malformed request gets an error reply; a broken byte stream gets a FATAL frame and the
connection is closed; neither affects any other session.

``endmqm``: ``-c`` quiesces (FAIL_IF_QUIESCING calls and new connections get MQRC_Q_MGR_QUIESCING) and ends
when the last application disconnects; ``-i`` quiesces, fails parked gets, backs out every unit of work, closes
the store and then answers every further call with MQRC_Q_MGR_STOPPING until the applications go; ``-p`` ends at
once without writing anything (the restart backs out what was in flight).
"""

from __future__ import annotations

import asyncio
import collections
import logging
import os
import socket
import ssl
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from syncpoint import __version__
from syncpoint.engine import Connection, SystemClock
from syncpoint.mqi import MQGMO, MQMD, MQOD, MQPMO, MQMIError
from syncpoint.mqi import constants as C
from syncpoint.store import Pending, StoreError
from syncpoint.wire import (
    DEFAULT_MAX_FRAME,
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

from . import _affinity
from ._auth import Users
from ._host import ADMIN_VERBS, QueueManagerHost
from ._poll import POLLER

log = logging.getLogger("syncpoint.server")

_STRUCT_ERRORS = {MQMD: C.MQRC_MD_ERROR, MQGMO: C.MQRC_GMO_ERROR, MQPMO: C.MQRC_PMO_ERROR, MQOD: C.MQRC_OD_ERROR}


def _struct(cls: Any, raw: Any) -> Any:
    """An IBM structure from the bytes a client sent; a wrong type or length is that structure's MQRC."""
    reason = _STRUCT_ERRORS[cls]
    if not isinstance(raw, bytes):
        raise MQMIError(C.MQCC_FAILED, reason, f"{cls.__name__} must be sent as bytes")
    try:
        return cls.unpack(raw)
    except Exception as e:
        raise MQMIError(C.MQCC_FAILED, reason, f"{cls.__name__} is not valid: {e}") from None


def _int(value: Any, reason: int, what: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not -(2**31) <= value < 2**31:
        raise MQMIError(C.MQCC_FAILED, reason, f"{what} must be a 32-bit integer")
    return value


def _options(args: list[Any], index: int, known: dict[str, bool]) -> dict[str, bool]:
    """The optional map of boolean options at ``index`` (protocol version 2), over the ``known`` defaults;
    absent or nil: the defaults. Anything else, an unknown key or a value that is not a bool: MQRC_OPTIONS_ERROR."""
    if len(args) <= index or args[index] is None:
        return known
    given = args[index]
    if not isinstance(given, dict):
        raise MQMIError(C.MQCC_FAILED, C.MQRC_OPTIONS_ERROR, "the options must be a map")
    unknown = set(given) - set(known)
    if unknown:
        raise MQMIError(C.MQCC_FAILED, C.MQRC_OPTIONS_ERROR, f"unknown options {sorted(map(str, unknown))}")
    if not all(isinstance(v, bool) for v in given.values()):
        raise MQMIError(C.MQCC_FAILED, C.MQRC_OPTIONS_ERROR, "an option must be true or false")
    return {**known, **given}


_PUTM_OPTIONS = {"commit": False}
_GETM_OPTIONS = {"commit_first": False, "gmo": True}

_Durable = tuple[Pending, Callable[[BaseException | None], None], Any]  # a write, its callback, its session


class _Syncer:
    """The one thread that waits for store writes: it commits whole groups (the store's leader protocol) and
    hands the results back to the loop.

    Commit delay: the sessions answered by the last group usually send their next request within a fraction of
    a sync (a producer's next put, a consumer's next get). When some of them have not been heard from yet, the
    thread waits for them, at most about one sync's duration (a moving average, capped by ``max_delay``), so
    their writes join this group instead of waiting a whole sync more: one sync then carries a put and the get
    of the same message. A session that sends something else, or nothing, costs that bounded wait once: the
    expectation lasts one group. A lone session is never waited for: its own request is what arrived."""

    def __init__(self, loop: asyncio.AbstractEventLoop, max_delay: float = 0.002) -> None:
        self.loop = loop
        self._items: list[_Durable] = []
        self._cond = threading.Condition()
        self._stop = False
        self.max_delay = max_delay
        self.delay = 0.0002  # moving average of the time a group's sync takes (seconds)
        self.expected: set[Any] = set()  # sessions answered by the last group, not heard from since
        self.delays = 0  # groups that waited for an expected session (statistics)
        self.thread = threading.Thread(target=self._run, name="syncpoint-sync", daemon=True)
        self.thread.start()

    def hand_over(self, items: list[_Durable], heard: list[Any]) -> None:
        """From the loop: writes to wait for, and the sessions whose requests were run since the last call."""
        with self._cond:
            self._items.extend(items)
            expected = self.expected
            for session in heard:
                expected.discard(session)
            if items or not expected:
                self._cond.notify()

    def stop(self) -> None:
        with self._cond:
            self._stop = True
            self._cond.notify()

    def _run(self) -> None:
        _affinity.no_wakeup_preemption()
        clock = time.monotonic
        while True:
            with self._cond:
                while not self._items and not self._stop:
                    self._cond.wait()
                if not self._items:
                    return
                if self.expected and self.max_delay > 0:
                    self.delays += 1
                    deadline = clock() + min(self.delay, self.max_delay)
                    while self.expected and not self._stop:
                        remaining = deadline - clock()
                        if remaining <= 0:
                            break
                        self._cond.wait(remaining)
                items = self._items
                self._items = []
                self.expected = set()
            started = clock()
            results: list[tuple[Callable[[BaseException | None], None], BaseException | None]] = []
            for pending, done, _session in items:
                try:
                    pending.wait()
                    results.append((done, None))
                except BaseException as e:  # a storage failure: every waiter learns of it
                    results.append((done, e))
            self.delay = 0.8 * self.delay + 0.2 * (clock() - started)
            with self._cond:
                self.expected = {s for _, _, s in items if s is not None and not s.closing}
            try:
                self.loop.call_soon_threadsafe(_deliver, results)
            except RuntimeError:  # the loop has closed: the server is gone
                return


def _deliver(results: list[tuple[Callable[[BaseException | None], None], BaseException | None]]) -> None:
    for done, error in results:
        done(error)


@dataclass(slots=True)
class _Waiter:
    """A parked MQGET with MQGMO_WAIT."""

    session: _Session
    request_id: int
    hobj: int
    md: MQMD
    gmo: MQGMO
    buflen: int | None
    queue: str
    deadline: float | None
    timer: asyncio.TimerHandle | None = None
    done: bool = False


@dataclass(slots=True)
class ServerStats:
    sessions: int = 0
    calls: int = 0
    bad_requests: int = 0
    fatal: int = 0
    sessions_total: int = 0


class Server:
    """Serves one hosted queue manager. Start with :meth:`start` inside a running loop, or :meth:`serve_forever`."""

    def __init__(
        self,
        host_qm: QueueManagerHost,
        *,
        host: str | None = "127.0.0.1",
        port: int | None = 1414,
        unix_path: str | None = None,
        ssl_context: ssl.SSLContext | None = None,
        users: Users | None = None,
        max_frame: int = DEFAULT_MAX_FRAME,
    ) -> None:
        self.qm = host_qm
        self.host = host
        self.port = port
        self.unix_path = unix_path
        self.ssl_context = ssl_context
        self.users = users
        self.max_frame = max_frame
        self.on_state: Callable[[str], None] | None = None  # told "quiescing" / "stopping" as ending begins
        self.sessions: set[_Session] = set()
        self.waiters: dict[str, list[_Waiter]] = {}
        self.stats = ServerStats()
        self.state = "new"  # running, quiescing, stopped
        self.bound_port: int | None = None
        self.ended: asyncio.Future[str] | None = None
        self._servers: list[asyncio.AbstractServer] = []
        self._loop: asyncio.AbstractEventLoop | None = None
        self._loop_thread: int | None = None
        self._syncer: _Syncer | None = None
        self._to_sync: list[_Durable] = []
        self._heard: list[_Session] = []
        self._hand_over_scheduled = False
        self.internal_connections: set[int] = set()  # hconns of the server's own tools (command server)

    # -- lifetime -------------------------------------------------------------------------------------
    async def start(self) -> None:
        loop = asyncio.get_running_loop()
        self._loop = loop
        self._loop_thread = threading.get_ident()
        self._syncer = _Syncer(loop)
        self.ended = loop.create_future()
        self.qm.wake_listeners.append(self._wake_from_host)
        if self.port is not None and self.host is not None:
            srv = await loop.create_server(
                lambda: _Session(self, local=False), self.host, self.port, ssl=self.ssl_context, reuse_address=True
            )
            self._servers.append(srv)
            self.bound_port = srv.sockets[0].getsockname()[1]
        if self.unix_path is not None:
            if os.path.exists(self.unix_path):
                os.unlink(self.unix_path)
            srv = await loop.create_unix_server(lambda: _Session(self, local=True), self.unix_path)
            os.chmod(self.unix_path, 0o600)
            self._servers.append(srv)
        self.state = "running"
        log.info(
            "queue manager %s serving (tcp %s:%s, unix %s)", self.qm.name, self.host, self.bound_port, self.unix_path
        )

    async def wait_ended(self) -> str:
        assert self.ended is not None
        return await self.ended

    async def close(self) -> None:
        """Stop listening and end every session (their units of work are backed out)."""
        for srv in self._servers:
            srv.close()
        for s in list(self.sessions):
            s.fatal("the queue manager server is stopping")
        for srv in self._servers:
            await srv.wait_closed()
        self._servers.clear()
        if self.unix_path is not None and os.path.exists(self.unix_path):
            try:
                os.unlink(self.unix_path)
            except OSError:
                pass
        if self._syncer is not None:
            self._syncer.stop()
        if self._wake_from_host in self.qm.wake_listeners:
            self.qm.wake_listeners.remove(self._wake_from_host)

    def _finish(self, how: str) -> None:
        if self.ended is not None and not self.ended.done():
            self.ended.set_result(how)

    # -- ending (endmqm) -------------------------------------------------------------------------------
    def end(self, mode: str) -> str:
        """Begin ending: ``c`` controlled, ``i`` immediate, ``p`` preemptive. Returns what was done."""
        if mode == "p":
            self.state = "stopped"
            self._finish("preemptive")
            return "preemptive"
        if self.state == "running":
            self.state = "quiescing"
            if self.on_state is not None:
                self.on_state("quiescing")
            self.qm.quiesce()  # wakes every parked get: FAIL_IF_QUIESCING ones end with 2161
        if mode == "c":
            self._check_controlled_end()
            return "quiescing"
        # immediate: no more calls; back out and close everything, then end
        self.state = "stopped"
        if self.on_state is not None:
            self.on_state("stopping")
        for waiters in list(self.waiters.values()):
            for w in list(waiters):
                reason = C.MQRC_Q_MGR_QUIESCING if w.gmo.Options & C.MQGMO_FAIL_IF_QUIESCING else C.MQRC_Q_MGR_STOPPING
                self._end_wait(w, MQMIError(C.MQCC_FAILED, reason, "the queue manager is ending immediately"))
        for s in list(self.sessions):
            s.end_connection(abnormal=True)
        self._finish("immediate")
        return "immediate"

    def _check_controlled_end(self) -> None:
        if self.state != "quiescing":
            return
        applications = [h for h in self.qm.engine.connections if h not in self.internal_connections]
        if not applications:
            self._finish("controlled")

    # -- waking parked gets ---------------------------------------------------------------------------
    def _wake_from_host(self, names: set[str]) -> None:
        loop = self._loop
        if loop is None:
            return
        names = set(names)
        if threading.get_ident() == self._loop_thread:
            loop.call_soon(self._wake, names)
        else:
            try:
                loop.call_soon_threadsafe(self._wake, names)
            except RuntimeError:
                pass

    def _wake(self, names: set[str]) -> None:
        targets = list(self.waiters) if "*" in names else [n for n in names if n in self.waiters]
        for name in targets:
            for w in list(self.waiters.get(name, ())):
                if not w.done:
                    w.session.retry_get(w, final=False)

    def park(self, w: _Waiter) -> None:
        self.waiters.setdefault(w.queue, []).append(w)
        if w.deadline is None:
            return
        assert self._loop is not None
        clock = self.qm.clock
        remaining = max(0.0, w.deadline - clock.monotonic())
        if isinstance(clock, SystemClock):
            w.timer = self._loop.call_later(remaining, self._expire_wait, w, 0.0)
        else:
            # an injected clock (tests): as its wait() does, let others run once, then move it by the timeout
            w.timer = self._loop.call_later(0.005, self._expire_wait, w, remaining)

    def _expire_wait(self, w: _Waiter, advance: float) -> None:
        if w.done:
            return
        advance_clock = getattr(self.qm.clock, "advance", None)
        if advance and advance_clock is not None:
            advance_clock(advance)
        w.session.retry_get(w, final=True)

    def unpark(self, w: _Waiter) -> None:
        w.done = True
        if w.timer is not None:
            w.timer.cancel()
        lst = self.waiters.get(w.queue)
        if lst is not None:
            try:
                lst.remove(w)
            except ValueError:
                pass
            if not lst:
                del self.waiters[w.queue]

    def _end_wait(self, w: _Waiter, error: MQMIError) -> None:
        self.unpark(w)
        w.session.reply_error(w.request_id, error)
        w.session.unblock()

    def after_durable(
        self, pending: Pending, done: Callable[[BaseException | None], None], session: _Session | None = None
    ) -> None:
        """Call ``done`` on the loop once ``pending`` is durable. The write is handed to the sync thread when
        this turn of the loop ends, after the parked gets that this turn's puts woke have run: their writes then
        join the same group (a put and the get of its message synced together)."""
        self._to_sync.append((pending, done, session))
        self._schedule_hand_over()

    def heard_from(self, session: _Session) -> None:
        """A session the sync thread may be waiting for sent a request: tell it once the request has run."""
        self._heard.append(session)
        self._schedule_hand_over()

    def _schedule_hand_over(self) -> None:
        if not self._hand_over_scheduled:
            self._hand_over_scheduled = True
            assert self._loop is not None
            self._loop.call_soon(self._hand_over)

    def _hand_over(self) -> None:
        self._hand_over_scheduled = False
        items, self._to_sync = self._to_sync, []
        heard, self._heard = self._heard, []
        assert self._syncer is not None
        self._syncer.hand_over(items, heard)


class _Session(asyncio.Protocol):
    """One connection: one MQI session with its requests run in order."""

    def __init__(self, server: Server, local: bool) -> None:
        self.server = server
        self.local = local
        self.proto = ServerProtocol(server.max_frame)
        self.transport: asyncio.Transport | None = None
        self.conn: Connection | None = None
        self.inbox: collections.deque[Hello | Call | Bad] = collections.deque()
        self.outbox: collections.deque[list[Any]] = collections.deque()  # [request id, frame or None]
        self.blocked = False
        self.closing = False
        self.reading_paused = False
        self.waiter: _Waiter | None = None
        self._flush_scheduled = False
        self.control = False
        self.peer = ""

    # -- transport events -----------------------------------------------------------------------------
    def connection_made(self, transport: Any) -> None:  # uvloop's transports are not asyncio's classes
        self.transport = transport
        sock = transport.get_extra_info("socket")
        if sock is not None and sock.family in (socket.AF_INET, socket.AF_INET6):
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.peer = str(transport.get_extra_info("peername") or "local")
        transport.set_write_buffer_limits(high=4 * 1024 * 1024)
        self.server.sessions.add(self)
        self.server.stats.sessions += 1
        self.server.stats.sessions_total += 1

    def data_received(self, data: bytes) -> None:
        if self.closing:
            return
        POLLER.touch()  # requests are coming: keep the CPU polling for the next (_poll.py)
        try:
            events = self.proto.receive(data)
        except ProtocolError as e:
            self.fatal(e.detail)
            return
        self.inbox.extend(events)
        self._pump()
        syncer = self.server._syncer
        if syncer is not None and self in syncer.expected:  # after the requests ran (and woke parked gets)
            self.server.heard_from(self)

    def connection_lost(self, exc: Exception | None) -> None:
        self.closing = True
        self.server.sessions.discard(self)
        self.server.stats.sessions -= 1
        if self.waiter is not None:
            self.server.unpark(self.waiter)
            self.waiter = None
        self.end_connection(abnormal=True)
        self.server._check_controlled_end()

    def pause_writing(self) -> None:  # the client does not read its replies: stop reading its requests
        if self.transport is not None and not self.reading_paused:
            self.reading_paused = True
            self.transport.pause_reading()

    def resume_writing(self) -> None:
        if self.transport is not None and self.reading_paused:
            self.reading_paused = False
            self.transport.resume_reading()

    # -- ending ---------------------------------------------------------------------------------------
    def end_connection(self, abnormal: bool) -> None:
        """End the engine connection: an abnormal end backs out the unit of work and closes the handles."""
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

    def fatal(self, detail: str) -> None:
        self.server.stats.fatal += 1
        log.warning("closing the connection from %s: %s", self.peer, detail)
        self._flush_out()
        if self.transport is not None and not self.transport.is_closing():
            self.transport.write(encode_fatal(detail))
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
        while out and out[0][1] is not None:
            chunks.append(out.popleft()[1])
        transport = self.transport
        if transport is not None and not transport.is_closing():
            transport.write(b"".join(chunks) if len(chunks) > 1 else chunks[0])

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
        qm = self.server.qm
        if isinstance(error, StoreError) and qm.broken is None:
            with qm.lock:
                qm._break(error)
        return MQMIError(C.MQCC_FAILED, C.MQRC_RESOURCE_PROBLEM, str(error))

    # -- running requests -----------------------------------------------------------------------------
    def _pump(self) -> None:
        while self.inbox and not self.blocked and not self.closing:
            event = self.inbox.popleft()
            if isinstance(event, Call):
                self._call(event)
            elif isinstance(event, Hello):
                self._hello(event)
            else:
                self.server.stats.bad_requests += 1
                self.fill_bad(event.request_id, event.detail)

    def unblock(self) -> None:
        self.blocked = False
        self.waiter = None
        self._pump()

    def _hello(self, hello: Hello) -> None:
        server = self.server
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
        assert users is not None and server._loop is not None
        self.blocked = True  # scrypt takes tens of milliseconds: off the loop, the session waits for it
        future = server._loop.run_in_executor(None, users.check, hello.user, hello.password)

        def checked(f: asyncio.Future[bool]) -> None:
            if self.closing:
                return
            if f.exception() is not None or not f.result():
                log.warning("connection from %s: authentication failed for user %r", self.peer, hello.user)
                self._refuse(
                    hello, MQMIError(C.MQCC_FAILED, C.MQRC_NOT_AUTHORIZED, "the user or password is not valid")
                )
                return
            self._connect(hello)
            self.unblock()

        future.add_done_callback(checked)

    def _connect(self, hello: Hello) -> None:
        server = self.server
        if server.state == "stopped":
            self._refuse(hello, MQMIError(C.MQCC_FAILED, C.MQRC_Q_MGR_STOPPING, "the queue manager is ending"))
            return
        qm = server.qm
        try:
            conn, pending = qm.run(
                qm.engine.connect, hello.appl_name, hello.appl_type or C.MQAT_UNIX, hello.user, hello.pid
            )
        except MQMIError as e:
            self._refuse(hello, e)
            return
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
        if conn is None or server.state == "stopped":
            if verb == "disconnect":
                self.reply(rid, None)
                self._close_after_replies()
                return
            self.reply_error(rid, MQMIError(C.MQCC_FAILED, C.MQRC_Q_MGR_STOPPING, "the queue manager is ending"))
            return
        qm = server.qm
        engine = qm.engine
        try:
            if verb == "get":
                self._get(rid, conn, args)
                return
            if verb == "putm":
                self._putm(rid, conn, args)
                return
            if verb == "getm":
                self._getm(rid, conn, args)
                return
            if verb in _TOKEN_VERBS:
                self._by_tokens(rid, conn, verb, args)
                return
            if verb == "put":
                hobj = _int(args[0], C.MQRC_HOBJ_ERROR, "Hobj")
                md, pmo = _struct(MQMD, args[1]), _struct(MQPMO, args[2])
                data = _data(args[3])
                reason, pending = qm.run(engine.put, conn, hobj, md, pmo, data)
                self._reply_when_durable(rid, [reason, md.pack(), pmo.pack()], pending)
            elif verb == "put1":
                od, md, pmo = _struct(MQOD, args[0]), _struct(MQMD, args[1]), _struct(MQPMO, args[2])
                data = _data(args[3])
                reason, pending = qm.run(engine.put1, conn, od, md, pmo, data)
                self._reply_when_durable(rid, [reason, od.pack(), md.pack(), pmo.pack()], pending)
            elif verb == "commit":
                _, pending = qm.run(engine.commit, conn)
                self._reply_when_durable(rid, None, pending)
            elif verb == "backout":
                _, pending = qm.run(engine.backout, conn)
                self._reply_when_durable(rid, None, pending)
            elif verb == "open":
                od = _struct(MQOD, args[0])
                options = _int(args[1], C.MQRC_OPTIONS_ERROR, "Options")
                handle, pending = qm.run(engine.open, conn, od, options)
                self._reply_when_durable(rid, [handle.hobj, od.pack()], pending)
            elif verb == "close":
                hobj = _int(args[0], C.MQRC_HOBJ_ERROR, "Hobj")
                options = _int(args[1], C.MQRC_OPTIONS_ERROR, "Options")
                _, pending = qm.run(engine.close, conn, hobj, options)
                self._reply_when_durable(rid, None, pending)
            elif verb == "inq":
                hobj = _int(args[0], C.MQRC_HOBJ_ERROR, "Hobj")
                selectors = [_int(s, C.MQRC_SELECTOR_ERROR, "a selector") for s in _list(args[1])]
                (ints, chars, reason), pending = qm.run(engine.inq, conn, hobj, selectors)
                self._reply_when_durable(rid, [ints, chars, reason], pending)
            elif verb == "set":
                hobj = _int(args[0], C.MQRC_HOBJ_ERROR, "Hobj")
                selectors = [_int(s, C.MQRC_SELECTOR_ERROR, "a selector") for s in _list(args[1])]
                ints = [_int(s, C.MQRC_INT_ATTRS_ARRAY_ERROR, "an integer attribute") for s in _list(args[2])]
                chars = [_chars(c) for c in _list(args[3])]
                _, pending = qm.run(engine.set, conn, hobj, selectors, ints, chars)
                self._reply_when_durable(rid, None, pending)
            elif verb == "disconnect":
                self.conn = None
                _, pending = qm.run(engine.disconnect, conn, bool(args[0]))
                self._reply_when_durable(rid, None, pending)
                self._close_when_flushed()
                server._check_controlled_end()
            elif verb == "admin":
                self._admin(rid, args)
            else:  # pragma: no cover - VERBS and this dispatch are kept together
                self.reply_error(rid, MQMIError(C.MQCC_FAILED, C.MQRC_FUNCTION_NOT_SUPPORTED, verb))
        except MQMIError as e:
            self.reply_error(rid, e)
        except Exception as e:  # a defect must not take the server down: the caller learns, the log tells
            log.exception("unexpected error in %s from %s", verb, self.peer)
            self.reply_error(rid, MQMIError(C.MQCC_FAILED, C.MQRC_UNEXPECTED_ERROR, f"{type(e).__name__}: {e}"))

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

    def _admin(self, rid: int, args: list[Any]) -> None:
        verb, pargs, kwargs = args
        if not isinstance(verb, str) or verb not in ADMIN_VERBS or not isinstance(pargs, list):
            raise MQMIError(C.MQCC_FAILED, C.MQRC_FUNCTION_NOT_SUPPORTED, f"unknown administrative verb {verb!r}")
        if not isinstance(kwargs, dict) or not all(isinstance(k, str) for k in kwargs):
            raise MQMIError(C.MQCC_FAILED, C.MQRC_FUNCTION_NOT_SUPPORTED, "keyword arguments must be a map")
        qm = self.server.qm
        fn = getattr(qm.engine, verb)
        try:
            result, pending = qm.run(lambda: fn(*pargs, **kwargs))
        except TypeError as e:
            raise MQMIError(C.MQCC_FAILED, C.MQRC_FUNCTION_NOT_SUPPORTED, f"{verb}: {e}") from None
        if verb == "messages":
            result = [[_md_of(m), m.data] for m in result]
        self._reply_when_durable(rid, result, pending)

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

    # -- batches in one request ------------------------------------------------------------------------
    def _putm(self, rid: int, conn: Connection, args: list[Any]) -> None:
        """One MQPUT per data item, each with a copy of the request's MQMD and MQPMO: the same as that many put
        requests, in one frame. A failed put does not stop the others (each answer says how its put went); the
        reply waits until every put that must be durable is. With the option ``commit`` (the optional fifth
        argument, a map), MQCMIT follows when every put succeeded, as an application checking each put would
        then commit: the reply's third element says how (true: committed, false: not tried, else its error)."""
        hobj = _int(args[0], C.MQRC_HOBJ_ERROR, "Hobj")
        md0, pmo0 = _struct(MQMD, args[1]), _struct(MQPMO, args[2])
        datas = [_data(d) for d in _list(args[3])]
        then_commit = _options(args, 4, _PUTM_OPTIONS)["commit"]
        qm = self.server.qm
        engine = qm.engine
        put = engine.put
        out: list[Any] = []
        last_pmo = [pmo0]
        committed: list[Any] = [False]

        def puts() -> None:  # every put under one hold of the lock: their store writes go as one batch
            failed = False
            for data in datas:
                md, pmo = md0.copy(), pmo0.copy()
                try:
                    reason = put(conn, hobj, md, pmo, data)
                except MQMIError as e:
                    out.append([e.comp, e.reason, e.detail])
                    failed = True
                    continue
                last_pmo[0] = pmo
                out.append([reason, md.pack()])
            if then_commit and not failed:
                try:
                    engine.commit(conn)
                    committed[0] = True
                except MQMIError as e:
                    committed[0] = [e.comp, e.reason, e.detail]

        _, pending = qm.run(puts)
        reply = [out, last_pmo[0].pack()]
        if then_commit:
            reply.append(committed[0])
        self._reply_when_durable(rid, reply, pending)

    def _getm(self, rid: int, conn: Connection, args: list[Any]) -> None:
        """Up to n MQGETs without waiting, each with a copy of the request's MQMD and MQGMO: the same as that many
        get requests, in one frame. Ends at the first failure (NO_MSG_AVAILABLE when the queue runs dry), which is
        returned after the results. Options (the optional sixth argument, a map): ``commit_first``, MQCMIT before
        the gets (a consumer ending the unit of work of the batch it has processed and asking for the next; if it
        fails, its error is the reply and no get is tried); ``gmo`` false, answers without the MQGMO."""
        hobj = _int(args[0], C.MQRC_HOBJ_ERROR, "Hobj")
        md0, gmo0 = _struct(MQMD, args[1]), _struct(MQGMO, args[2])
        if gmo0.Options & C.MQGMO_WAIT:
            raise MQMIError(C.MQCC_FAILED, C.MQRC_OPTIONS_ERROR, "getm does not wait: send get with MQGMO_WAIT")
        buflen = None if args[3] is None else _int(args[3], C.MQRC_BUFFER_LENGTH_ERROR, "BufferLength")
        n = _int(args[4], C.MQRC_OPTIONS_ERROR, "the number of gets")
        options = _options(args, 5, _GETM_OPTIONS)
        commit_first, with_gmo = options["commit_first"], options["gmo"]
        qm = self.server.qm
        engine = qm.engine
        get = engine.get
        out: list[Any] = []

        def gets() -> list[Any] | None:  # under one hold of the lock: their store writes go as one batch
            if commit_first:
                engine.commit(conn)  # its error is the reply's; the commit's writes and the gets' go as one batch
            for _ in range(max(0, min(n, 10_000))):
                md, gmo = md0.copy(), gmo0.copy()
                try:
                    result = get(conn, hobj, md, gmo, buflen)
                except MQMIError as e:
                    return [e.comp, e.reason, e.detail]
                answer = [result.data, result.data_length, result.comp, result.reason, md.pack()]
                if with_gmo:
                    answer.append(gmo.pack())
                out.append(answer)
            return None

        error, pending = qm.run(gets)
        self._reply_when_durable(rid, [out, error], pending)

    # -- reservations and gets by MsgToken (Spark's in-flight batches) -----------------------------------
    def _by_tokens(self, rid: int, conn: Connection, verb: str, args: list[Any]) -> None:
        """``reserve`` / ``release``: the engine's verbs. ``gettokens``: one MQGET per MsgToken (a browse with
        MQGMO_BROWSE_FIRST), like that many get requests in one frame; nil where the message is gone, ending at
        the first other failure, returned after the results."""
        hobj = _int(args[0], C.MQRC_HOBJ_ERROR, "Hobj")
        qm = self.server.qm
        engine = qm.engine
        if verb == "reserve":
            reserved, pending = qm.run(engine.reserve, conn, hobj, args[1])
            self._reply_when_durable(rid, reserved, pending)
            return
        if verb == "release":
            released, pending = qm.run(engine.release, conn, hobj, args[1])
            self._reply_when_durable(rid, released, pending)
            return
        gmo = _struct(MQGMO, args[1])
        buflen = None if args[2] is None else _int(args[2], C.MQRC_BUFFER_LENGTH_ERROR, "BufferLength")
        tokens = args[3]
        if isinstance(tokens, list) and len(tokens) > _MAX_TOKENS:
            raise MQMIError(C.MQCC_FAILED, C.MQRC_MSG_TOKEN_ERROR, f"at most {_MAX_TOKENS} MsgTokens per request")
        (results, error), pending = qm.run(engine.get_tokens, conn, hobj, tokens, gmo, buflen)
        out = [
            None if r is None else [r[1].data, r[1].data_length, r[1].comp, r[1].reason, r[0].pack()] for r in results
        ]
        err = None if error is None else [error.comp, error.reason, error.detail]
        self._reply_when_durable(rid, [out, err], pending)

    # -- MQGET with waiting ---------------------------------------------------------------------------
    def _get(self, rid: int, conn: Connection, args: list[Any]) -> None:
        hobj = _int(args[0], C.MQRC_HOBJ_ERROR, "Hobj")
        md, gmo = _struct(MQMD, args[1]), _struct(MQGMO, args[2])
        buflen = args[3]
        if buflen is not None:
            buflen = _int(buflen, C.MQRC_BUFFER_LENGTH_ERROR, "BufferLength")
        qm = self.server.qm
        wait = bool(gmo.Options & C.MQGMO_WAIT) and gmo.WaitInterval != 0
        deadline = None
        if wait and gmo.WaitInterval != C.MQWI_UNLIMITED:
            if gmo.WaitInterval < 0:
                raise MQMIError(C.MQCC_FAILED, C.MQRC_WAIT_INTERVAL_ERROR, "WaitInterval is negative")
            deadline = qm.clock.monotonic() + gmo.WaitInterval / 1000.0
        if self._try_get(rid, conn, hobj, md, gmo, buflen, wait):
            return
        h = conn.handles.get(hobj)
        if h is None or h.queue is None:
            raise MQMIError(C.MQCC_FAILED, C.MQRC_HOBJ_ERROR, "the handle is not open")
        w = _Waiter(self, rid, hobj, md, gmo, buflen, h.queue.name, deadline)
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

    def retry_get(self, w: _Waiter, final: bool) -> None:
        conn = self.conn
        if conn is None:
            self.server._end_wait(w, MQMIError(C.MQCC_FAILED, C.MQRC_CONNECTION_BROKEN, "the connection ended"))
            return
        try:
            finished = self._try_get(w.request_id, conn, w.hobj, w.md, w.gmo, w.buflen, wait=not final)
        except Exception as e:
            log.exception("unexpected error in a waiting get")
            self.server._end_wait(w, MQMIError(C.MQCC_FAILED, C.MQRC_UNEXPECTED_ERROR, str(e)))
            return
        if finished:
            self.server.unpark(w)
            self.unblock()


_TOKEN_VERBS = frozenset({"reserve", "release", "gettokens"})
_MAX_TOKENS = 10_000


def _md_of(m: Any) -> bytes:
    md = MQMD()
    for k, v in m.md.items():
        setattr(md, k, v)
    return md.pack()


def _data(value: Any) -> bytes:
    if not isinstance(value, bytes):
        raise MQMIError(C.MQCC_FAILED, C.MQRC_DATA_LENGTH_ERROR, "message data must be sent as bytes")
    return value


def _list(value: Any) -> list[Any]:
    if not isinstance(value, list):
        raise MQMIError(C.MQCC_FAILED, C.MQRC_SELECTOR_COUNT_ERROR, "a list was expected")
    return value


def _chars(value: Any) -> bytes:
    if not isinstance(value, bytes):
        raise MQMIError(C.MQCC_FAILED, C.MQRC_CHAR_ATTRS_ERROR, "character attributes must be sent as bytes")
    return value
