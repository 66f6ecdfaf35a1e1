"""The asyncio server: it listens on TCP and a Unix socket, serves one hosted queue manager to its sessions
(``_session.py``), carries out endmqm, parks waiting gets in the host's waiters and groups durable writes.

Theory of operation
-------------------
Everything runs on one event loop thread except durability waits. Each engine verb runs at once under the
host's lock (engine verbs are short and never block). When a verb left a store write that must be durable, the
reply is parked until the *sync thread* has seen that write committed; meanwhile the loop goes on serving every
other session, whose writes join the same group: one durable write acknowledges the commits of all connections
waiting (group commit). Writes are handed to the sync thread at the end of a turn of the loop, after the parked
gets that the turn's puts woke, and the sync thread briefly waits for the sessions its last group answered (see
:class:`~syncpoint.server._syncer.Syncer`), so a producer's put and a consumer's get of the same message share
one sync.

An MQGET with MQGMO_WAIT that finds nothing parks its session in the host's waiters (``syncpoint.host.Waiters``:
the deadline, the wake rule and the lifecycle are decided there, for threads and sessions alike). A put, commit
or backout that makes its queue interesting wakes it: the retry runs on the loop after that call, in arrival
order, so many waiters each get a different message. A timer of the length the clock says ends the wait with
MQRC_NO_MSG_AVAILABLE.

``endmqm``: ``-c`` quiesces (FAIL_IF_QUIESCING calls and new connections get MQRC_Q_MGR_QUIESCING) and ends
when the last application disconnects; ``-i`` quiesces, fails parked gets, backs out every unit of work, closes
the store and then answers every further call with MQRC_Q_MGR_STOPPING until the applications go; ``-p`` ends at
once without writing anything (the restart backs out what was in flight).
"""

from __future__ import annotations

import asyncio
import logging
import os
import ssl
import threading
from collections.abc import Callable

from syncpoint.host import QueueManagerHost, Waiter, Waiters
from syncpoint.mqi import MQMIError
from syncpoint.store import Pending
from syncpoint.wire import DEFAULT_MAX_FRAME

from ._auth import Throttle, Users, stop_checks
from ._channel import channel_hconns, forget_channels
from ._hub import ParkedGet, PartialFrames, ServerStats, SessionFace
from ._limits import Limits
from ._session import Session
from ._syncer import Durable, Syncer

log = logging.getLogger("syncpoint.server")


def tls_context(cert: str, key: str | None, ca: str | None = None) -> ssl.SSLContext:
    """The server's TLS: its certificate chain and key, and a client certificate asked for but not required at the
    TLS layer (``CERT_OPTIONAL``): a certificate a client sends must chain to ``ca`` (PEM file of the certificates
    trusted, IBM's key repository's CA certificates; None: the system's), and the channel decides whether one is
    needed (SSLCAUTH) and whose it may be (SSLPEER, CHLAUTH SSLPEERMAP). ``ssl.SSLError`` / ``OSError`` when a
    file cannot be read."""
    ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH, cafile=ca)
    ctx.load_cert_chain(cert, key)
    ctx.verify_mode = ssl.CERT_OPTIONAL
    return ctx


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
        limits: Limits | None = None,
    ) -> None:
        self.qm = host_qm
        self.host = host
        self.port = port
        self.unix_path = unix_path
        self.ssl_context = ssl_context
        self.users = users
        self.max_frame = max_frame
        self.limits = limits if limits is not None else Limits()
        self.throttle = Throttle(self.limits.auth_delay_max)
        self.tcp_sessions = 0  # TCP connections open now, counted against limits.max_connections
        self.addresses: dict[str, int] = {}  # the same by address, against limits.max_connections_per_address
        self.instances: dict[tuple[str, str], int] = {}  # SVRCONN instances: (channel, "") in all, (channel, address)
        self.partial = PartialFrames(self.limits.partial_frame_budget)
        self.on_state: Callable[[str], None] | None = None  # told "quiescing" / "stopping" as ending begins
        self.sessions: set[SessionFace] = set()
        self.stats = ServerStats()
        self.started = False
        self.bound_port: int | None = None
        self.ended: asyncio.Future[str] | None = None
        self._servers: list[asyncio.AbstractServer] = []
        self.loop: asyncio.AbstractEventLoop | None = None
        self.loop_thread: int | None = None
        self.syncer: Syncer | None = None
        self._to_sync: list[Durable] = []
        self._heard: list[SessionFace] = []
        self._hand_over_scheduled = False
        self.internal_connections: set[int] = set()  # hconns of the server's own tools (command server)

    # -- lifetime -------------------------------------------------------------------------------------
    async def start(self) -> None:
        loop = asyncio.get_running_loop()
        self.loop = loop
        self.loop_thread = threading.get_ident()
        self.syncer = Syncer(loop)
        self.ended = loop.create_future()
        if self.port is not None and self.host is not None:
            srv = await loop.create_server(
                lambda: Session(self, local=False), self.host, self.port, ssl=self.ssl_context, reuse_address=True
            )
            self._servers.append(srv)
            self.bound_port = srv.sockets[0].getsockname()[1]
        if self.unix_path is not None:
            if os.path.exists(self.unix_path):
                os.unlink(self.unix_path)
            srv = await loop.create_unix_server(lambda: Session(self, local=True), self.unix_path)
            os.chmod(self.unix_path, 0o600)
            self._servers.append(srv)
        self.started = True
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
            s.fatal("the queue manager server is stopping", linger=False)
        for srv in self._servers:
            await srv.wait_closed()
        self._servers.clear()
        if self.unix_path is not None and os.path.exists(self.unix_path):
            try:
                os.unlink(self.unix_path)
            except OSError:
                pass
        if self.syncer is not None:
            self.syncer.stop()
        stop_checks()
        forget_channels(self.qm)  # the receiving channels' table keeps nothing of a queue manager that ended

    @property
    def state(self) -> str:
        """``new`` until :meth:`start`, then the queue manager's lifecycle: running, quiescing, stopped."""
        return self.qm.waiters.state if self.started else "new"

    @property
    def waiters(self) -> dict[str, list[Waiter]]:
        """The gets parked now, by queue (for tests and statistics)."""
        parked: dict[str, list[Waiter]] = {}
        for w in self.qm.waiters.parked():
            parked.setdefault(w.queue, []).append(w)
        return parked

    def _finish(self, how: str) -> None:
        if self.ended is not None and not self.ended.done():
            self.ended.set_result(how)

    # -- ending (endmqm) -------------------------------------------------------------------------------
    def end(self, mode: str) -> str:
        """Begin ending: ``c`` controlled, ``i`` immediate, ``p`` preemptive. Returns what was done."""
        if mode == "p":
            self.qm.stop()
            self._finish("preemptive")
            return "preemptive"
        # quiescing wakes every parked get: FAIL_IF_QUIESCING ones end with 2161
        if self.qm.quiesce() and self.on_state is not None:
            self.on_state("quiescing")
        if mode == "c":
            self.check_controlled_end()
            return "quiescing"
        # immediate: no more calls; back out and close everything, then end
        ended = self.qm.stop()
        if self.on_state is not None:
            self.on_state("stopping")
        for w in ended:
            if isinstance(w, ParkedGet):
                self.end_wait(w, Waiters.stopped_error(w.fail_if_quiescing))
        for s in list(self.sessions):
            s.end_connection(abnormal=True)
        self._finish("immediate")
        return "immediate"

    def check_controlled_end(self) -> None:
        if self.qm.waiters.state != "quiescing":
            return
        ours = self.internal_connections | channel_hconns(self.qm)  # the server's tools, receiving channels
        applications = [h for h in self.qm.engine.connections if h not in ours]
        if not applications:
            self._finish("controlled")

    # -- parked gets: the asyncio adapter of the host's Waiters ----------------------------------------
    def park(self, w: ParkedGet) -> None:
        """Park ``w`` in the host's waiters; its wake (called under the host's lock, on any thread) schedules a
        retry on the loop, after the call that woke it; a timer ends it at its deadline, as the clock says."""
        loop = self.loop
        loop_thread = self.loop_thread
        assert loop is not None and w.session is not None
        retry = w.session.retry_get

        def wake() -> None:
            if threading.get_ident() == loop_thread:
                loop.call_soon(retry, w)
            else:
                try:
                    loop.call_soon_threadsafe(retry, w)
                except RuntimeError:  # the loop has closed: the server is gone
                    pass

        w.wake = wake
        self.qm.waiters.park(w)
        self.arm(w)

    def arm(self, w: ParkedGet) -> None:
        delay = self.qm.waiters.sleep_time(w.deadline)
        if delay is not None:
            assert self.loop is not None
            w.timer = self.loop.call_later(delay, self._time_out, w)

    def _time_out(self, w: ParkedGet) -> None:
        w.timer = None
        if not w.done and w.session is not None:
            w.session.retry_get(w)

    def unpark(self, w: ParkedGet) -> None:
        self.qm.waiters.unpark(w)
        if w.timer is not None:
            w.timer.cancel()
            w.timer = None

    def end_wait(self, w: ParkedGet, error: MQMIError) -> None:
        self.unpark(w)
        assert w.session is not None
        w.session.reply_error(w.request_id, error)
        w.session.unblock()

    def after_durable(
        self, pending: Pending, done: Callable[[BaseException | None], None], session: SessionFace | None = None
    ) -> None:
        """Call ``done`` on the loop once ``pending`` is durable. The write is handed to the sync thread when
        this turn of the loop ends, after the parked gets that this turn's puts woke have run: their writes then
        join the same group (a put and the get of its message synced together)."""
        self._to_sync.append((pending, done, session))
        self._schedule_hand_over()

    def heard_from(self, session: SessionFace) -> None:
        """A session the sync thread may be waiting for sent a request: tell it once the request has run."""
        self._heard.append(session)
        self._schedule_hand_over()

    def _schedule_hand_over(self) -> None:
        if not self._hand_over_scheduled:
            self._hand_over_scheduled = True
            assert self.loop is not None
            self.loop.call_soon(self._hand_over)

    def _hand_over(self) -> None:
        self._hand_over_scheduled = False
        items, self._to_sync = self._to_sync, []
        heard, self._heard = self._heard, []
        assert self.syncer is not None
        self.syncer.hand_over(items, heard)
