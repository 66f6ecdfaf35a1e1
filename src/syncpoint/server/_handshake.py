"""A session's handshake: who may connect, and the hello that makes the connection (docs/protocol.md).

A TCP connection is admitted when it is accepted: it is counted against ``max-connections`` (the Unix socket,
reachable by the owner only, is not); one beyond the limit has its hello answered MQRC_MAX_CONNS_LIMIT_REACHED
(2025), and one far beyond it is closed at once. A connection that sends no hello within ``handshake-timeout``
is closed with a FATAL reply.

The hello names the queue manager and, as the CONNAUTH settings in force ask (``_connauth``), a user and
password checked against the password file (``_auth.Users``): the scrypt check runs in a thread off the loop
while the session waits; a failure is answered after FAILDLAY, and after failures from one address that
source's next failure waits its turn (``_auth.Throttle``). A control session
(local only) accepts ``ping`` and ``endmqm``; any other hello connects to the engine (MQCONN).

The mixin :class:`Handshake` is a part of ``_session.Session``; what it uses of the rest of the session is
declared in its body.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Any

from syncpoint._version import __version__
from syncpoint.engine import Admission, Connection
from syncpoint.host import STOPPED, identity, os_user
from syncpoint.mqi import MQMIError
from syncpoint.mqi import constants as C
from syncpoint.store import Pending
from syncpoint.wire import Hello, ServerProtocol

from . import _connauth as connauth
from . import _svrconn as svrconn
from ._auth import check_password, checkers, peer_identity
from ._hub import Hub, warn_now
from ._limits import OVERFLOW

log = logging.getLogger("syncpoint.server")


class Handshake:
    """The handshake part of a session (module docstring)."""

    server: Hub
    transport: asyncio.Transport | None
    local: bool
    proto: ServerProtocol
    conn: Connection | None
    closing: bool
    blocked: bool
    control: bool
    peer: str
    address: str
    counted: bool
    over_limit: bool
    channel: str
    _handshake: asyncio.TimerHandle | None

    if TYPE_CHECKING:

        def reply(self, request_id: int, result: Any) -> None: ...

        def reply_error(self, request_id: int, error: MQMIError) -> None: ...

        def fatal(self, detail: str, quiet: bool = False, linger: bool = True) -> None: ...

        def unblock(self) -> None: ...

        def _flush_out(self) -> None: ...

        def _reply_when_durable(self, request_id: int, result: Any, pending: Pending | None) -> None: ...

    def _admit(self, transport: Any, peername: Any) -> bool:
        """Count a TCP connection against the limits and start its handshake deadline; False when it was closed
        at once (too far beyond the limit to be answered)."""
        server = self.server
        limits = server.limits
        if not self.local:
            if isinstance(peername, tuple) and peername:
                self.address = str(peername[0])
            self.counted = True
            server.tcp_sessions += 1
            from_address = server.addresses[self.address] = server.addresses.get(self.address, 0) + 1
            if from_address > limits.max_connections_per_address:
                self.over_limit = True  # IBM's MAXINSTC: its hello is answered MQRC_MAX_CONNS_LIMIT_REACHED
            if server.tcp_sessions > limits.max_connections:
                self.over_limit = True  # its hello is answered MQRC_MAX_CONNS_LIMIT_REACHED
                if server.tcp_sessions > limits.max_connections + OVERFLOW:
                    server.stats.refused_limit += 1
                    self.closing = True
                    transport.abort()  # too many beyond the limit to answer: closed at once
                    return False
        if server.loop is not None:
            self._handshake = server.loop.call_later(limits.handshake_timeout, self._handshake_expired)
        return True

    def _release(self) -> None:
        """The connection ended: it no longer counts, its handshake deadline is gone."""
        if self.channel:
            svrconn.count(self.server, self.channel, self.address, -1)
            self.channel = ""
        if self.counted:
            self.counted = False
            server = self.server
            server.tcp_sessions -= 1
            left = server.addresses.pop(self.address, 1) - 1
            if left > 0:
                server.addresses[self.address] = left
        if self._handshake is not None:
            self._handshake.cancel()
            self._handshake = None

    def _handshake_expired(self) -> None:
        self._handshake = None
        if self.closing or self.proto.hello_seen:
            return
        self.server.stats.handshake_timeouts += 1
        if warn_now("handshake"):
            log.warning(
                "closing connections that sent no hello within %g s (strmqm --limit handshake-timeout), e.g. from %s",
                self.server.limits.handshake_timeout,
                self.peer,
            )
        self.fatal(f"no hello within {self.server.limits.handshake_timeout:g} seconds", quiet=True)

    def _hello(self, hello: Hello) -> None:
        server = self.server
        if self._handshake is not None:
            self._handshake.cancel()
            self._handshake = None
        if self.over_limit:
            self._refuse_over_limit(hello)
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
        settings = server.qm.engine.connauth  # CONNAUTH in force (``_connauth``: the rules)
        asserted = hello.user or hello.os_user
        link = hello.appl_type == C.MQAT_QMGR and not self.local
        adm: Admission | None = None
        if not self.local and not link:  # a client: its server-connection channel and CHLAUTH (``_svrconn``)
            peer = svrconn.peer_names(self.transport.get_extra_info("ssl_object") if self.transport else None)
            answer = svrconn.admission(server, hello, self.address, asserted or os_user(), peer)
            if isinstance(answer, MQMIError):
                self._refuse(hello, answer)
                return
            adm = answer
        privileged = server.qm.engine.is_administrator(asserted or os_user())  # IBM's privileged user
        if users is None or not (
            connauth.must_check(settings, self.local, hello.password is not None, privileged, users.required, link)
            or (users.required and svrconn.password_required(adm, privileged))
        ):
            self._connect(hello, asserted, adm)
            return
        loop = server.loop
        assert loop is not None
        self.blocked = True  # scrypt takes tens of milliseconds: off the loop, the session waits for it
        address = self.address
        throttle = server.throttle

        def checked(f: asyncio.Future[bool]) -> None:
            if self.closing:
                return
            if f.exception() is None and f.result():
                self._connect(hello, connauth.runs_as(settings, True, hello.user, hello.os_user), adm, True)
                self.unblock()
                return
            # FAILDLAY: this failed connection waits, no other
            delay = throttle.failed(address, connauth.fail_delay(settings))
            server.stats.auth_failures += 1
            log.warning(
                "connection from %s: authentication failed for user %r (failure %d from this address in a row: "
                "answered in %.1f s, strmqm --limit auth-delay-max)",
                self.peer,
                hello.user,
                throttle.failures(address),
                delay,
            )
            error = MQMIError(C.MQCC_FAILED, C.MQRC_NOT_AUTHORIZED, "the user or password is not valid")
            loop.call_later(delay, self._refuse_unless_closed, hello, error)

        loop.run_in_executor(
            checkers(), check_password, users, hello.user, hello.password, lambda: not self.closing
        ).add_done_callback(checked)

    def _refuse_unless_closed(self, hello: Hello, error: MQMIError) -> None:
        if not self.closing:
            self._refuse(hello, error)

    def _refuse_over_limit(self, hello: Hello) -> None:
        """MQRC_MAX_CONNS_LIMIT_REACHED (2025): too many connections, from everyone or from this address."""
        server = self.server
        limits = server.limits
        server.stats.refused_limit += 1
        if server.addresses.get(self.address, 0) > limits.max_connections_per_address:
            limit, name, whom = limits.max_connections_per_address, "max-connections-per-address", "from one address"
        else:
            limit, name, whom = limits.max_connections, "max-connections", "in all"
        if warn_now(name):
            log.warning(
                "refusing connections beyond %d %s (strmqm --limit %s), e.g. from %s", limit, whom, name, self.peer
            )
        text = f"the queue manager serves at most {limit} network connections at once {whom}"
        self._refuse(hello, MQMIError(C.MQCC_FAILED, C.MQRC_MAX_CONNS_LIMIT_REACHED, text))

    def _connect(self, hello: Hello, runs_as: str, adm: Admission | None = None, authenticated: bool = False) -> None:
        """MQCONN as user ``runs_as`` ("": this server's own user); a client on channel ``adm``'s runs as the
        channel authentication records say, unless they block it (``_svrconn``)."""
        server = self.server
        if server.state == STOPPED:
            self._refuse(hello, MQMIError(C.MQCC_FAILED, C.MQRC_Q_MGR_STOPPING, "the queue manager is ending"))
            return
        qm = server.qm
        if adm is not None:
            adopted = runs_as if authenticated and runs_as == hello.user and hello.user else None
            runs_as = adm.runs_as(adopted, runs_as or os_user())
            refused = svrconn.blocked(server, adm, self.address, runs_as)
            if refused is not None:
                self._refuse(hello, refused)
                return
        user, pid = identity(runs_as, hello.pid)  # a client that did not say: this process's, as IBM's bindings
        if self.local and hello.password is None:
            # over the Unix socket the identity is the peer's operating-system user, read from the socket: the
            # authority checks' user (engine._authority), whatever the hello claimed
            user, pid = peer_identity(self.transport) or (user, pid)
        try:
            conn, pending = qm.run(qm.engine.connect, hello.appl_name, hello.appl_type or C.MQAT_UNIX, user, pid)
        except MQMIError as e:
            self._refuse(hello, e)
            return
        if self.address != "local":
            conn.conname = self.address  # DISPLAY CONN / QSTATUS: a TCP client's address, as IBM's CONNAME
        if adm is not None:
            conn.channel = self.channel = adm.channel  # DISPLAY CONN CHANNEL, DISPLAY CHSTATUS; MAXINST counts it
            _, conn.sslpeer, conn.sslcerti = svrconn.peer_names(
                self.transport.get_extra_info("ssl_object") if self.transport else None
            )
            svrconn.count(server, adm.channel, self.address, +1)
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
