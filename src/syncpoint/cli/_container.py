"""What IBM's developer container gives, without the container: its entry point ``runmqdevserver`` (configured by the
same environment variables) and its probes ``chkmqstarted``, ``chkmqready`` and ``chkmqhealthy``.

IBM's probes (ibm-messaging/mq-container, cmd/chkmq*): each looks at the queue manager named by MQ_QMGR_NAME and
exits 0 (yes), 1 (no) or 2 (it could not tell). chkmqstarted: dspmq says RUNNING or STARTING (a startup probe);
chkmqhealthy: dspmq says RUNNING (a liveness probe); chkmqready: the queue manager has finished its configuration
and its listener accepts a connection (a readiness probe; IBM's exits 1 whatever went wrong).

Implements: issue 38, items 3 and 4; docs/administration.md ("In a container").
"""

from __future__ import annotations

import os
import socket
from typing import Annotated

import typer
from rich.console import Console

from syncpoint import _home
from syncpoint.client import local_server as server_info
from syncpoint.server import Users, status

console = Console(highlight=False, soft_wrap=True)
err = Console(stderr=True, highlight=False, soft_wrap=True)

YES, NO, UNKNOWN = 0, 1, 2
_QMGR = typer.Argument(help="queue manager name (default: $MQ_QMGR_NAME, else the default queue manager)")


def _name(qmgr: str | None) -> str:
    name = qmgr or os.environ.get("MQ_QMGR_NAME") or _home.default_queue_manager()
    if not name:
        err.print("AMQ7026E: name a queue manager (or set MQ_QMGR_NAME).", markup=False)
        raise typer.Exit(UNKNOWN)
    if not _home.qmgr_db(name).exists():
        err.print(f"AMQ7048E: queue manager {name} does not exist.", markup=False)
        raise typer.Exit(UNKNOWN)
    return name


def _report(name: str) -> str:
    state: str = status(name)
    console.print(f"QMNAME({name})".ljust(50) + f"STATUS({state})", markup=False)
    return state


def chkmqstarted(qmgr: Annotated[str | None, _QMGR] = None) -> None:
    """Exit 0 when the queue manager is running or starting, 1 when not, 2 when it cannot tell (a startup probe)."""
    raise typer.Exit(YES if _report(_name(qmgr)) in ("Running", "Starting") else NO)


def chkmqhealthy(qmgr: Annotated[str | None, _QMGR] = None) -> None:
    """Exit 0 when the queue manager is running, 1 when not, 2 when it cannot tell (a liveness probe)."""
    raise typer.Exit(YES if _report(_name(qmgr)) == "Running" else NO)


def chkmqready(qmgr: Annotated[str | None, _QMGR] = None) -> None:
    """Exit 0 when the queue manager runs, has applied its configuration and accepts a connection (on its TCP port,
    or its Unix socket when it serves no TCP); 1 otherwise (a readiness probe)."""
    try:
        name = _name(qmgr)
    except typer.Exit:
        raise typer.Exit(NO) from None  # IBM's chkmqready: 1 whatever went wrong
    info = server_info(name)
    if _report(name) != "Running" or info is None:
        raise typer.Exit(NO)
    try:
        if info.get("port"):
            host = info.get("host") or "127.0.0.1"
            connection = socket.create_connection(("127.0.0.1" if host in ("0.0.0.0", "::") else host, info["port"]), 5)
        else:
            connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            connection.settimeout(5)
            connection.connect(info["unix"])
        connection.close()
    except OSError as e:
        err.print(f"the queue manager does not accept connections: {e}", markup=False)
        raise typer.Exit(NO) from None
    raise typer.Exit(YES)


def runmqdevserver(
    host: Annotated[str, typer.Option(help="address to listen on (IBM's container: every interface)")] = "0.0.0.0",
    port: Annotated[int, typer.Option(help="TCP port")] = 1414,
    ic: Annotated[
        str | None, typer.Option("-ic", help="MQSC file or folder run at every start (as crtmqm -ic)")
    ] = None,
) -> None:
    """IBM's developer container's entry point, without the container: creates the queue manager $MQ_QMGR_NAME
    (default QM1) when it does not exist, sets the passwords of the users app and admin from $MQ_APP_PASSWORD and
    $MQ_ADMIN_PASSWORD, applies IBM's developer configuration unless MQ_DEV=false, and serves it in the foreground
    until SIGTERM (an immediate end, exit 0)."""
    from . import _settings as settings
    from ._serve import main as serve

    name = os.environ.get("MQ_QMGR_NAME") or "QM1"
    if not _home.qmgr_db(name).exists():
        from syncpoint.client import create_queue_manager
        from syncpoint.mqi import MQMIError

        try:
            path = create_queue_manager(name)
        except MQMIError as e:
            err.print(f"AMQ8101E: queue manager {name} could not be created: {e}", markup=False)
            raise typer.Exit(20) from None
        console.print(f"syncpoint queue manager '{name}' created in {path}.", markup=False)
    qdir = _home.qmgr_dir(name)
    users = Users(qdir / "users.json")
    for user, variable in (("app", "MQ_APP_PASSWORD"), ("admin", "MQ_ADMIN_PASSWORD")):
        password = os.environ.get(variable)
        if password:
            users.set_password(user, password)
    dev = os.environ.get("MQ_DEV", "true").strip().lower() != "false"
    try:
        mqsc = ic or settings.effective(settings.load(qdir))["mqsc-config"]
    except settings.SettingsError as e:
        err.print(f"AMQ8101E: {e}.", markup=False)
        raise typer.Exit(20) from None
    args = [name, "--home", str(_home.home()), "--host", host, "--port", str(port), "--cpus", "all"]
    if mqsc:
        args += ["--mqsc-config", os.path.abspath(mqsc)]
    if dev:
        args.append("--dev")
    console.print(f"syncpoint queue manager '{name}' starting (in the foreground: its log follows).", markup=False)
    raise typer.Exit(serve(args))


def register(app: typer.Typer) -> None:
    app.command()(chkmqstarted)
    app.command()(chkmqready)
    app.command()(chkmqhealthy)
    app.command()(runmqdevserver)
