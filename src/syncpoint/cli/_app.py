"""``syncpoint <verb>``: the control commands MQ users know (crtmqm, dltmqm, dspmq …) and ``demo``.

Implements: IBM's control commands crtmqm, dltmqm, dspmq (their AMQ messages).
"""

from __future__ import annotations

import shutil
import sys
import time
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

import syncpoint
from syncpoint import _home
from syncpoint.client import create_queue_manager
from syncpoint.mqi import MQMIError
from syncpoint.mqi import constants as C

app = typer.Typer(add_completion=False, no_args_is_help=True, help="syncpoint: a queue manager with IBM MQ's semantics")
console = Console(soft_wrap=True)
err = Console(stderr=True)


_CRTMQM_EXISTS = 8  # IBM's crtmqm return codes
_CRTMQM_NAME_ERROR = 72
_CRTMQM_UNEXPECTED = 71


def _fail(message: str, code: int = 20) -> None:
    err.print(f"[red]{message}[/red]")
    raise typer.Exit(code)


@app.command()
def crtmqm(
    qmgr: Annotated[str, typer.Argument(help="queue manager name")],
    u: Annotated[str | None, typer.Option("-u", help="dead-letter queue to create and set as DEADQ")] = None,
) -> None:
    """Create a queue manager with its default objects under $SYNCPOINT_HOME."""
    try:
        path = create_queue_manager(qmgr, dlq=u)
    except MQMIError as e:
        # IBM's crtmqm: AMQ8110E and exit 8 when the queue manager exists; 72 for a name that is not valid
        if e.reason == C.MQRC_OBJECT_ALREADY_EXISTS:
            _fail("AMQ8110E: syncpoint queue manager already exists.", _CRTMQM_EXISTS)
        if e.reason == C.MQRC_Q_MGR_NAME_ERROR:
            _fail(f"Queue manager name {qmgr!r} is not valid: 1 to 48 of A-Z a-z 0-9 . / _ %.", _CRTMQM_NAME_ERROR)
        _fail(f"Queue manager {qmgr} could not be created: {e}", _CRTMQM_UNEXPECTED)
    console.print(f"syncpoint queue manager created.\nDirectory '{path}' created.")
    console.print(f"syncpoint queue manager '{qmgr}' created.")


@app.command()
def dltmqm(qmgr: Annotated[str, typer.Argument(help="queue manager name")]) -> None:
    """Delete a stopped queue manager and all its data."""
    path = _home.qmgr_dir(qmgr)
    if not path.exists():
        _fail(f"AMQ7048E: queue manager {qmgr} does not exist.", 16)
    lock = path / "qm.db.lock"
    if lock.exists():
        import fcntl

        with open(lock, "a+") as f:
            try:
                fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                _fail(f"AMQ8041E: queue manager {qmgr} is in use by a running process; end it first.", 5)
            fcntl.flock(f, fcntl.LOCK_UN)
    shutil.rmtree(path)
    console.print(f"syncpoint queue manager '{qmgr}' deleted.")


@app.command()
def dspmq(
    m: Annotated[str | None, typer.Option("-m", help="only this queue manager")] = None,
    x: Annotated[bool, typer.Option("-x", help="also show the server's process and addresses")] = False,
) -> None:
    """List queue managers and their status (Running, Ended normally, Ended immediately, …)."""
    from syncpoint.client import local_server as server_info
    from syncpoint.server import status

    root = _home.home() / "qmgrs"
    names = sorted(p.name for p in root.iterdir() if (p / "qm.db").exists()) if root.exists() else []
    if m is not None:
        if m not in names:
            _fail(f"AMQ7048E: queue manager {m} does not exist.", 72)
        names = [m]
    for name in names:
        console.print(f"QMNAME({name})".ljust(50) + f"STATUS({status(name)})", highlight=False)
        info = server_info(name) if x else None
        if info is not None:
            console.print(
                f"    PID({info['pid']}) PORT({info.get('port') or ''}) HOST({info.get('host') or ''}) "
                f"SOCKET({info['unix']})",
                highlight=False,
            )


@app.command()
def demo(
    qmgr: Annotated[str, typer.Option("-m", help="queue manager to use (created when missing)")] = "DEMO",
) -> None:
    """The main job: a transactional round trip through the embedded queue manager, explained as it runs."""
    if not _home.qmgr_db(qmgr).exists():
        create_queue_manager(qmgr)
        console.print(f"created queue manager [bold]{qmgr}[/bold] under {_home.qmgr_dir(qmgr)}")
    qm = syncpoint.connect(qmgr, appl_name="syncpoint demo")
    for name in ("DEMO.ORDERS", "DEMO.SHIPPED", "DEMO.EXCEPTIONS"):
        qm.admin("define", "QLOCAL", name, {"DEFPSIST": C.MQPER_PERSISTENT}, replace=True)
        qm.admin("clear", name)
    orders, shipped, exceptions = qm.open("DEMO.ORDERS"), qm.open("DEMO.SHIPPED"), qm.open("DEMO.EXCEPTIONS")
    start = time.perf_counter()
    for i in range(1, 6):
        orders.put(f"order {i}", priority=9 if i == 5 else 0, syncpoint=True)
    qm.commit()
    table = Table(title=f"syncpoint {syncpoint.__version__} — units of work on {qmgr}")
    for col in ("step", "what happened", "ORDERS", "SHIPPED", "EXCEPTIONS"):
        table.add_column(col)

    def row(step: str, what: str) -> None:
        table.add_row(step, what, str(orders.depth), str(shipped.depth), str(exceptions.depth))

    row("1", "5 persistent orders committed (order 5 at priority 9)")
    m = orders.get(syncpoint=True)
    shipped.put(m.data, syncpoint=True)
    qm.commit()
    row("2", f"got '{m.text}' first (priority order), shipped it, committed")
    m = orders.get(syncpoint=True)
    shipped.put(m.data, syncpoint=True)
    qm.backout()
    again = orders.get(syncpoint=True)
    row("3", f"shipping '{m.text}' backed out; got again with BackoutCount {again.backout_count}")
    qm.backout()
    m = orders.get(syncpoint=True, mark_skip_backout=True)
    shipped.put(m.data, syncpoint=True)
    qm.backout()
    exceptions.put(f"could not ship {m.text}", syncpoint=True)
    qm.commit()
    row("4", f"MARK_SKIP_BACKOUT: after backout, '{m.text}' stayed got; exception logged and committed")
    rest = [x.text for x in orders.messages(syncpoint=True)]
    for text in rest:
        shipped.put(text, syncpoint=True)
    qm.commit()
    row("5", f"shipped the rest in one unit of work: {', '.join(rest)}")
    elapsed = time.perf_counter() - start
    qm.disconnect()
    console.print(table)
    console.print(f"done in {elapsed * 1000:.1f} ms; messages are persistent and survive a restart.")


# The tools' commands live in their own modules; each adds its verbs to ``app``.
_TOOL_MODULES = ("_server", "_salvage", "_mqsc", "_trigger", "_dlq", "_pcf", "_compat", "_flow", "_channel")


def _register_tools() -> None:
    import importlib

    for name in _TOOL_MODULES:
        try:
            module = importlib.import_module(f"syncpoint.cli.{name}")
        except ModuleNotFoundError as e:
            if e.name != f"syncpoint.cli.{name}":
                raise
            continue
        module.register(app)


_register_tools()


def main() -> None:
    try:
        app()
    except MQMIError as e:
        err.print(f"[red]{e}[/red]")
        sys.exit(20)
