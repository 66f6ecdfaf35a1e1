"""``/metrics`` over HTTP: Starlette on uvicorn, on a thread of the queue manager's server process.

Theory of operation
-------------------
The listening socket is bound before the queue manager starts serving (:func:`bind`), so a port already taken
is known at once: the server then starts without metrics and says so (strmqm prints it, the error log keeps
it). uvicorn runs on its own thread and event loop, beside the server's: a scrape never waits on, nor delays,
the loop that serves the MQI. Each scrape runs the collection on a worker thread (``run_in_threadpool``);
the collector runs one collection at a time and hands it to every scrape that waited for it, so a storm of
scrapes costs the queue manager one collection, not one each. The body is prometheus_client's exposition
(``choose_encoder``: the Prometheus text format, as IBM's exporter serves it, also to a scraper that would rather
have OpenMetrics), written piece by piece and kept where nothing changed (``_exposition``): one render at a
time per format, shared as the collection is.
"""

from __future__ import annotations

import asyncio
import logging
import socket
import threading
from typing import Any

import uvicorn
from prometheus_client import CollectorRegistry
from prometheus_client.exposition import choose_encoder
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from ._exposition import Exposition

log = logging.getLogger("syncpoint.metrics")

DEFAULT_PORT = 9157  # IBM's exporter's port


def bind(host: str, port: int) -> socket.socket:
    """A listening TCP socket on ``host``:``port`` (port 0: any free port); OSError when the port is taken."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(128)
        sock.setblocking(False)
    except OSError:
        sock.close()
        raise
    return sock


def text_only(accept: str) -> str:
    """The Accept header without its OpenMetrics choices: IBM's exporter serves the Prometheus text format only
    (its counters keep names without ``_total``, which OpenMetrics refuses), and Prometheus, which asks for
    OpenMetrics first, reads the text format as well."""
    return ",".join(p for p in accept.split(",") if not p.strip().startswith("application/openmetrics-text"))


def app(registry: CollectorRegistry) -> Starlette:
    """The ASGI application: ``GET /metrics`` (anything else is 404, as Starlette answers)."""

    exposition = Exposition(registry)

    async def metrics(request: Request) -> Response:
        encoder, content_type = choose_encoder(text_only(request.headers.get("accept", "")))
        body = await run_in_threadpool(exposition.render, encoder, content_type)
        return Response(body, media_type=content_type)

    return Starlette(routes=[Route("/metrics", metrics, methods=["GET"])])


class MetricsServer:
    """uvicorn serving :func:`app` on an already bound socket, on its own thread; :meth:`stop` ends it."""

    def __init__(self, registry: CollectorRegistry, sock: socket.socket) -> None:
        self.sock = sock
        self.port: int = sock.getsockname()[1]
        config = uvicorn.Config(app(registry), log_level="warning", access_log=False, lifespan="off")
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(target=self._run, name="syncpoint-metrics", daemon=True)

    def _run(self) -> None:
        loop = asyncio.new_event_loop()
        try:
            loop.run_until_complete(self._server.serve(sockets=[self.sock]))
        except Exception:
            log.exception("the metrics server ended")
        finally:
            loop.close()

    def start(self) -> MetricsServer:
        self._thread.start()
        return self

    def stop(self, timeout: float = 5.0) -> None:
        self._server.should_exit = True
        self._thread.join(timeout)
        try:
            self.sock.close()
        except OSError:
            pass

    def __enter__(self) -> MetricsServer:
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()
