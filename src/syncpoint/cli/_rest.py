"""The REST API in the queue manager's server process: uvicorn on its own thread and event loop, beside the
server's (so serving HTTP never runs on the loop that serves the MQI), over in-process connections to the
hosted queue manager.

Theory of operation: :func:`start_rest` builds the app (``syncpoint.rest.create_app``) with three pieces only
this layer can join: ``connect(user)`` opens an embedded connection to the server's queue manager as that user
(the connection is the server's own while it lasts, as the command server's, so a controlled end does not wait
for it); the authenticator checks passwords against the server's ``users.json`` on the server's password
threads and, on a failure, takes the delay from the server's own throttle (on the server's loop, where the
native handshake takes it), so failures over REST and over the native protocol count together, per address;
TLS uses the server's certificate and key (``tls-cert`` / ``tls-key``). The bound address is written to
``rest.json`` in the queue manager's folder (``rest-port = 0`` takes a free port) and removed at the end.

The settings (qm.toml, ``setmqini``): ``rest`` (false: IBM's mqweb is also a separate server, started only when
wanted), ``rest-host`` (127.0.0.1), ``rest-port`` (9443, IBM's mqweb HTTPS port). HTTPS when the server has a
certificate; plain HTTP only on a loopback address (basic authentication sends passwords: strmqm refuses a
non-loopback ``rest-host`` without ``tls-cert``).
"""

from __future__ import annotations

import asyncio
import ipaddress
import json
import logging
import os
import threading
from collections.abc import Callable
from concurrent.futures import Future
from pathlib import Path
from typing import Any

log = logging.getLogger("syncpoint.rest")
REST_FILE = "rest.json"


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


class ServerAuthenticator:
    """users.json checked on the server's password threads; failures delayed by the server's throttle."""

    def __init__(self, server: Any, users: Any) -> None:
        from syncpoint.rest import CredentialCache

        self.server = server
        self.users = users
        self.recent = CredentialCache()  # one scrypt check a minute per user, not one per request

    def _version(self) -> object:
        try:
            st = os.stat(self.users.path)
        except OSError:
            return None
        return (st.st_mtime_ns, st.st_size, st.st_ino)

    async def authenticate(self, user: str, password: str, source: str) -> bool:
        from syncpoint.server import checkers

        version = self._version()
        if version is not None and self.recent.hit(user, password, version):
            return True
        ok = bool(self.users.required) and await asyncio.get_running_loop().run_in_executor(
            checkers(), self.users.check, user, password
        )
        if ok:
            if version is not None:
                self.recent.remember(user, password, version)
            return True
        delay = await asyncio.wrap_future(self._failed(source))
        log.warning("REST request from %s: authentication failed for user %r (answered in %.1f s)", source, user, delay)
        await asyncio.sleep(delay)
        return False

    def _failed(self, source: str) -> Future[float]:
        """The server's throttle, asked on the server's loop (its only thread)."""
        done: Future[float] = Future()
        loop = self.server.loop

        def failed() -> None:
            try:
                self.server.stats.auth_failures += 1
                done.set_result(self.server.throttle.failed(source))
            except Exception as e:  # pragma: no cover - the throttle is plain arithmetic
                done.set_exception(e)

        if loop is None or loop.is_closed():
            done.set_result(self.server.throttle.failed(source))
        else:
            loop.call_soon_threadsafe(failed)
        return done


def start_rest(
    server: Any, host_qm: Any, users: Any, host: str, port: int, tls_cert: str | None, tls_key: str | None
) -> Callable[[], None]:
    """Serve the REST API of ``host_qm`` on ``host:port``; returns its stopper."""
    import uvicorn

    import syncpoint
    from syncpoint.rest import create_app

    qdir = Path(users.path).parent

    def connect(user: str) -> Any:
        qm = syncpoint.connect(host_qm.name, embedded=host_qm, appl_name="syncpoint REST", user=user)
        server.internal_connections.add(qm.transport.conn.hconn)  # type: ignore[attr-defined]
        return qm

    def release(qm: Any) -> None:
        hconn = qm.transport.conn.hconn
        try:
            qm.disconnect()
        finally:
            server.internal_connections.discard(hconn)

    from syncpoint.console import console_routes

    authenticator = ServerAuthenticator(server, users)
    console = console_routes(connect, release, authenticator)  # the web console on the same port (docs/console.md)
    app = create_app(host_qm.name, connect, authenticator, release=release, mounts=console)
    config = uvicorn.Config(
        app,
        host=host,
        port=port,
        ssl_certfile=tls_cert or None,
        ssl_keyfile=tls_key or None,
        log_level="warning",
        access_log=False,
        lifespan="off",
        timeout_graceful_shutdown=2,
        server_header=False,
    )
    web = uvicorn.Server(config)
    thread = threading.Thread(target=web.run, name="syncpoint-rest", daemon=True)
    thread.start()
    while not web.started and thread.is_alive():
        thread.join(0.02)
    if not web.started:
        raise OSError(f"the REST API could not listen on {host}:{port} (see the messages above)")
    bound = web.servers[0].sockets[0].getsockname()
    scheme = "https" if tls_cert else "http"
    shown = f"[{bound[0]}]" if ":" in bound[0] else bound[0]
    url = f"{scheme}://{shown}:{bound[1]}/ibmmq/rest/v3"
    path = qdir / REST_FILE
    tmp = path.with_name(REST_FILE + ".tmp")
    tmp.write_text(json.dumps({"url": url, "port": bound[1], "pid": os.getpid()}) + "\n")
    os.replace(tmp, path)
    log.info("REST API serving at %s", url)

    def stop() -> None:
        web.should_exit = True
        thread.join(5)
        path.unlink(missing_ok=True)

    return stop
