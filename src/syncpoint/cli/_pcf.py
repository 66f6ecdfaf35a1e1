"""``syncpoint strmqcsv QMgrName``: run the PCF command server for a queue manager (IBM's strmqcsv).

Runs in the foreground until interrupted (SIGINT / SIGTERM) or the queue manager ends. A queue manager started
with ``syncpoint strmqm`` runs its own command server unless told ``--no-command-server``; this command serves
one for such a queue manager (it connects to the running server, as IBM's does).

Implements: reference/ibmmq-compat.md (strmqcsv).
"""

from __future__ import annotations

import signal
import threading
from types import FrameType
from typing import Annotated

import typer

from syncpoint.client import QueueManager
from syncpoint.mqi import MQMIError

from ._connect import connect_running


def strmqcsv(qmgr: Annotated[str, typer.Argument(help="queue manager name")]) -> None:
    """Start the command server: serve PCF requests on SYSTEM.ADMIN.COMMAND.QUEUE until interrupted."""
    from syncpoint.pcf import CommandServer

    def connect() -> QueueManager:
        return connect_running(qmgr, appl_name="amqpcsea")

    stop = threading.Event()

    def on_signal(signum: int, frame: FrameType | None) -> None:
        stop.set()

    signal.signal(signal.SIGINT, on_signal)
    signal.signal(signal.SIGTERM, on_signal)
    server = CommandServer(connect)
    try:
        qm = connect()
        qm.disconnect()
    except MQMIError as e:
        typer.echo(f"AMQ8146E: command server for {qmgr} not started: {e}", err=True)
        raise typer.Exit(20) from None
    typer.echo(f"AMQ8024I: syncpoint command server started for queue manager {qmgr}.", err=True)
    try:
        server.run(stop)
    except MQMIError as e:
        typer.echo(f"AMQ8025E: command server for {qmgr} ended: {e}", err=True)
        raise typer.Exit(20) from None
    typer.echo(f"AMQ8027I: syncpoint command server ended ({server.served} commands served).", err=True)


def register(app: typer.Typer) -> None:
    app.command("strmqcsv")(strmqcsv)
