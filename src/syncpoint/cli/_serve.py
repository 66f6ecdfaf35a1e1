"""The queue manager's server process: ``python -m syncpoint.cli._serve QMGR`` (what ``strmqm`` starts).

It lives at the top layer because it puts the pieces together: the server (``syncpoint.server``) and the tools
that run inside its process (the PCF command server, ``syncpoint.pcf``, over an in-process client connection).

Implements: docs/protocol.md; the server's process, as strmqm starts it.
"""

from __future__ import annotations

import logging
import os
import signal
import sys
from collections.abc import Callable
from typing import Any

from syncpoint.server import Limits, run_server

log = logging.getLogger("syncpoint.server")


def start_tools(
    server: Any,
    host_qm: Any,
    users: Any,
    command_server: bool = True,
    rest: dict[str, Any] | None = None,
    metrics_socket: Any = None,
) -> Callable[[], None]:
    """Start the server's own tools (the PCF command server, the REST API when ``rest`` says where, the metrics) on
    their own threads; returns their stopper."""
    import threading

    stoppers: list[Any] = []
    if rest is not None:
        from ._rest import start_rest

        stoppers.append(start_rest(server, host_qm, users, **rest))
    if metrics_socket is not None:
        stoppers.append(start_metrics(server, host_qm, metrics_socket))
    if command_server:
        import syncpoint
        from syncpoint.pcf import CommandServer

        stop = threading.Event()

        def connect() -> Any:
            qm = syncpoint.connect(host_qm.name, embedded=host_qm, appl_name="syncpoint command server")
            server.internal_connections.add(qm.transport.conn.hconn)  # type: ignore[attr-defined]
            return qm

        thread = threading.Thread(
            target=CommandServer(connect).run,
            args=(stop,),
            name="syncpoint-command-server",
            daemon=True,
        )
        thread.start()

        def stop_command_server() -> None:
            stop.set()
            host_qm.quiesce()
            thread.join(5)

        stoppers.append(stop_command_server)

    stoppers.insert(0, start_channel_initiator(server, host_qm, users))

    def stop_all() -> None:
        for fn in stoppers:
            try:
                fn()
            except Exception:
                log.exception("stopping a tool")

    return stop_all


def bind_metrics(qmgr: str, host: str, port: int) -> tuple[Any, str]:
    """The metrics' listening socket, bound before the queue manager serves, and what strmqm says of it. A port
    already taken is not fatal: the queue manager starts without metrics and says so (docs/operations.md)."""
    from syncpoint.metrics import bind

    try:
        sock = bind(host, port)
    except OSError as e:
        why = f"off: {host} port {port} cannot be used ({e.strerror or e}); the queue manager runs without metrics"
        log.warning("AMQ8101W: queue manager %s: metrics %s", qmgr, why)
        return None, why
    where = f"http://{host}:{sock.getsockname()[1]}/metrics"
    log.info("queue manager %s serves its metrics at %s", qmgr, where)
    return sock, where


def start_metrics(server: Any, host_qm: Any, sock: Any) -> Callable[[], None]:
    """``/metrics`` (``syncpoint.metrics``) over an in-process client connection, uvicorn on its own thread."""
    import os

    from prometheus_client import CollectorRegistry

    import syncpoint
    from syncpoint.metrics import MetricsServer, QueueManagerCollector

    def connect() -> Any:
        qm = syncpoint.connect(host_qm.name, embedded=host_qm, appl_name="syncpoint metrics")
        server.internal_connections.add(qm.transport.conn.hconn)  # type: ignore[attr-defined]
        return qm

    from pathlib import Path

    db = Path(host_qm.store.path) if isinstance(getattr(host_qm.store, "path", None), str) else None

    def own() -> dict[str, Any]:
        figures: dict[str, Any] = dict(host_qm.store.stats()) if hasattr(host_qm.store, "stats") else {}
        # IBM's MaxChannels / MaxActiveChannels are the connections served at once (syncpoint's max-connections
        # limit); the listeners are the server's TCP listener and its Unix socket's
        figures["max_channels"] = figures["max_active_channels"] = server.limits.max_connections
        figures["active_listeners"] = (1 if server.bound_port else 0) + (1 if server.unix_path else 0)
        shared = getattr(host_qm, "shared", None)
        if shared is not None and hasattr(shared, "round_trip"):  # a member of a queue-sharing group
            try:
                figures["group_rtt"] = shared.round_trip()
            except Exception:  # the group's store unreachable: the metric is left out of this scrape
                log.warning("metrics: the group's store did not answer", exc_info=True)
        if db is not None:
            for key, path in (("db_bytes", str(db)), ("journal_bytes", str(db) + ".journal")):
                try:
                    figures[key] = os.stat(path).st_size
                except OSError:
                    figures[key] = 0
        return figures

    collector = QueueManagerCollector(
        host_qm.name, connect, own=own, data_dir=str(db.parent) if db is not None else None
    )
    registry = CollectorRegistry(auto_describe=False)
    registry.register(collector)
    metrics = MetricsServer(registry, sock).start()
    return metrics.stop


def start_channel_initiator(server: Any, host_qm: Any, users: Any) -> Callable[[], None]:
    """The channel initiator (runmqchi) on SYSTEM.CHANNEL.INITQ, its channels on their own threads."""
    import syncpoint
    from syncpoint.channel import Initiator
    from syncpoint.server import receiving_channels, receiving_control, serve_channel_requests

    def connect() -> Any:
        qm = syncpoint.connect(host_qm.name, embedded=host_qm, appl_name="syncpoint channel")
        server.internal_connections.add(qm.transport.conn.hconn)  # type: ignore[attr-defined]
        return qm

    initiator = Initiator(
        connect,
        users.path.parent,
        lambda: receiving_channels(host_qm),
        lambda op, name, status: receiving_control(host_qm, op, name, status),
    )
    serve_channel_requests(host_qm, initiator.requested)  # IBM's requester-server / requester-sender pairs
    initiator.start()
    return initiator.stop


def configure(host_qm: Any, mqsc_config: str, dev: bool) -> int:
    """The start's automatic configuration (crtmqm -ic, IBM's developer configuration), before the server listens:
    failed commands are listed and the start goes on; a syntax error refuses the start (exit 20)."""
    import syncpoint

    from ._autoconfig import ConfigError
    from ._autoconfig import configure as run_configuration

    qm = syncpoint.connect(host_qm.name, embedded=host_qm, appl_name="syncpoint autoconfig")
    try:
        failed = run_configuration(qm, mqsc_config, lambda line: print(line, file=sys.stderr), dev)
    except ConfigError as e:
        print(
            f"AMQ8101E: queue manager {host_qm.name} was not started: its MQSC configuration has errors; "
            "nothing of it was run.",
            file=sys.stderr,
        )
        for line in e.lines:
            print(line, file=sys.stderr)
        return 20
    finally:
        qm.disconnect()
    if failed:
        log.warning("automatic configuration: %d MQSC command(s) could not be processed (listed above)", failed)
    return 0


def _end_with_parent(parent: int) -> None:
    """End the queue manager (as endmqm -i: SIGTERM) once the process that started it has ended, whatever killed
    it: a test run's queue managers never outlive it."""
    import threading
    import time

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.2)
        os.kill(os.getpid(), signal.SIGTERM)

    threading.Thread(target=watch, name="syncpoint-parent-watch", daemon=True).start()


def main(argv: list[str] | None = None) -> int:
    import argparse

    p = argparse.ArgumentParser(prog="python -m syncpoint.cli._serve", description="run a queue manager's server")
    p.add_argument("qmgr")
    p.add_argument("--home")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=1414)
    p.add_argument("--no-tcp", action="store_true")
    p.add_argument("--tls-cert")
    p.add_argument("--tls-key")
    p.add_argument("--tls-ca", help="PEM file of the CA certificates whose client certificates are trusted")
    p.add_argument("--no-command-server", action="store_true")
    p.add_argument("--cpus", default="auto")
    p.add_argument("--no-busy-poll", action="store_true")
    p.add_argument("--limit", action="append", default=[])
    p.add_argument("--mqsc-config", default="", help="MQSC file or folder run before serving (crtmqm -ic)")
    p.add_argument("--dev", action="store_true", help="IBM's developer configuration before serving")
    p.add_argument("--metrics-host", default="127.0.0.1", help="address of /metrics (with --metrics-port)")
    p.add_argument("--metrics-port", type=int, default=None, help="serve /metrics on this port (0: any free)")
    p.add_argument("--end-with-parent", action="store_true", help="end (as endmqm -i) when the parent process ends")
    p.add_argument("--rest-host", default="127.0.0.1", help="address of the REST API (with --rest-port)")
    p.add_argument("--rest-port", type=int, help="serve the REST API on this port (0: any free port)")
    a = p.parse_args(argv)
    rest = (
        {"host": a.rest_host, "port": a.rest_port, "tls_cert": a.tls_cert, "tls_key": a.tls_key}
        if a.rest_port is not None
        else None
    )
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s", stream=sys.stderr)
    if a.end_with_parent:
        _end_with_parent(os.getppid())
    metrics_socket: Any = None
    extra: dict[str, Any] = {}
    if a.metrics_port is not None:
        metrics_socket, extra["metrics"] = bind_metrics(a.qmgr, a.metrics_host, a.metrics_port)
    code: int = run_server(
        a.qmgr,
        home=a.home,
        host=None if a.no_tcp else a.host,
        port=None if a.no_tcp else a.port,
        tls_cert=a.tls_cert,
        tls_key=a.tls_key,
        tls_ca=a.tls_ca,
        start_tools=lambda server, host_qm, users: start_tools(
            server, host_qm, users, not a.no_command_server, rest, metrics_socket
        ),
        cpus=a.cpus,
        busy_poll=not a.no_busy_poll,
        limits=Limits.parse(a.limit),
        configure=(lambda host_qm: configure(host_qm, a.mqsc_config, a.dev)) if a.mqsc_config or a.dev else None,
        info_extra=extra,
    )
    return code


if __name__ == "__main__":
    sys.exit(main())
