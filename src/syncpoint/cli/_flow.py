"""``syncpoint flow run FILE --qmgr QM1`` and ``syncpoint flow demo``: message flows on Spark with a progress display.

``register(app)`` adds the ``flow`` command group to the ``syncpoint`` application.

Implements: reference/mqinput-node.md, reference/spark.md.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.live import Live
from rich.table import Table

from syncpoint import _home
from syncpoint.mqi import MQMIError

from ._output import print_table

# the progress table has ten columns: give it room where the output is not a terminal (pipes, CI logs)
console = Console(width=None if sys.stdout.isatty() else 120, soft_wrap=True)  # messages never wrapped; tables fit
err = Console(stderr=True, soft_wrap=True)

flow_app = typer.Typer(no_args_is_help=True, help="message flows (MQInput-node error handling) on Spark")

_COLUMNS = [
    ("batch", "batch_id"),
    ("in", "inputs"),
    ("out", "outputs"),
    ("backed out", "backed_out"),
    ("to BOQ", "to_boq"),
    ("to DLQ", "to_dlq"),
    ("stayed", "stayed"),
    ("Failure", "failure"),
    ("Catch", "catch"),
    ("gone", "gone"),
]


def _fail(message: str, code: int = 20) -> None:
    err.print(message, style="red", markup=False)
    raise typer.Exit(code)


class ProgressTable:
    """Messages in / out / backed out / to BOQ / to DLQ per batch, and the totals."""

    def __init__(self, title: str, keep: int = 15) -> None:
        self.title = title
        self.keep = keep
        self.rows: list[dict[str, Any]] = []

    def add(self, p: dict[str, Any]) -> None:
        self.rows.append(p)

    def render(self, totals: Any = None) -> Table:
        t = Table(title=self.title)
        for name, _ in _COLUMNS:
            t.add_column(name, justify="right", min_width=len(name))
        for p in self.rows[-self.keep :]:
            if p.get("skipped"):
                t.add_row(str(p["batch_id"]), *["replay skipped"] + [""] * (len(_COLUMNS) - 2))
            else:
                t.add_row(*[str(p.get(k, 0)) for _, k in _COLUMNS])
        if totals is not None:
            t.add_section()
            t.add_row("total", *[str(getattr(totals, k, 0)) for _, k in _COLUMNS[1:]], style="bold")
        return t


def _ensure_server(qmgr: str, home: str | None, *, start: bool) -> None:
    from syncpoint.client import local_server as server_info

    if server_info(qmgr, home) is not None:
        return
    if not start:
        _fail(
            f"queue manager {qmgr} has no running server: Spark's workers are separate processes and need one. "
            f"Start it with: syncpoint strmqm {qmgr}",
            16,
        )
    start_server(qmgr, home)


def start_server(qmgr: str, home: str | None, timeout: float = 60.0) -> None:
    """Start the queue manager's server in the background (what strmqm does, Unix socket only)."""
    from syncpoint.client import local_server as server_info

    qdir = _home.qmgr_dir(qmgr, home)
    logdir = qdir / "errors"
    logdir.mkdir(parents=True, exist_ok=True)
    cmd = [sys.executable, "-m", "syncpoint.cli._serve", qmgr, "--home", str(_home.home(home)), "--no-tcp"]
    with open(logdir / "server.log", "ab") as log:
        proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=log, stderr=log, start_new_session=True)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            _fail(f"the server of {qmgr} ended at start (code {proc.returncode}); see {logdir / 'server.log'}")
        if server_info(qmgr, home) is not None:
            console.print(f"syncpoint queue manager '{qmgr}' started in the background (pid {proc.pid}).")
            return
        time.sleep(0.1)
    _fail(f"the server of {qmgr} did not start within {timeout:.0f} s; see {logdir / 'server.log'}")


def run_with_display(
    flow: Any, target: Any, checkpoint: Path, *, master: str, available_now: bool, interval: str
) -> Any:
    from syncpoint.flow import run_flow

    table = ProgressTable(f"flow {flow.name}: {flow.input.queue} → {flow.output or '(per output)'}")

    def run(on_progress: Any) -> Any:
        return run_flow(
            flow,
            target,
            checkpoint,
            master=master,
            available_now=available_now,
            trigger_interval=interval,
            on_progress=on_progress,
        )

    if not console.is_terminal:
        # a pipe or a file: one plain line per batch as it completes, then the totals (no redrawn frame whose
        # last border runs into the next line)
        console.print(table.title, markup=False, soft_wrap=True)

        def on_progress_line(p: dict[str, Any], totals: Any) -> None:
            if p.get("skipped"):
                console.print(f"batch {p['batch_id']}: replay skipped", markup=False, soft_wrap=True)
                return
            line = "  ".join(f"{name}={p.get(key, 0)}" for name, key in _COLUMNS)
            console.print(line, markup=False, soft_wrap=True)

        totals = run(on_progress_line)
        total = "  ".join(f"{name}={getattr(totals, key, 0)}" for name, key in _COLUMNS[1:])
        console.print(f"total  {total}", markup=False, soft_wrap=True)
        return totals
    with Live(table.render(), console=console, refresh_per_second=4, transient=False) as live:

        def on_progress(p: dict[str, Any], totals: Any) -> None:
            table.add(p)
            live.update(table.render(totals))

        totals = run(on_progress)
        live.update(table.render(totals))
    return totals


@flow_app.command("run")
def run(
    file: Annotated[Path, typer.Argument(help="a Python file defining `flow = Flow(...)`")],
    qmgr: Annotated[str, typer.Option("--qmgr", "-m", help="queue manager name")],
    host: Annotated[str | None, typer.Option(help="the server over TCP, e.g. 'localhost(1414)'")] = None,
    master: Annotated[str, typer.Option(help="Spark master URL")] = "local[2]",
    checkpoint: Annotated[
        Path | None, typer.Option(help="checkpoint folder (default: under the queue manager)")
    ] = None,
    available_now: Annotated[
        bool, typer.Option("--available-now", help="process what is on the queue now, then stop")
    ] = False,
    trigger_interval: Annotated[str, typer.Option(help="micro-batch interval when running continuously")] = "1 second",
    max_messages: Annotated[int | None, typer.Option(help="maxMessagesPerBatch (default: the flow's)")] = None,
    members: Annotated[
        str | None,
        typer.Option(help="a SHARED input queue read through these members of its group, e.g. 'QMA,QMB'"),
    ] = None,
) -> None:
    """Run a message flow as a Spark Structured Streaming query, with a progress display."""
    from syncpoint.flow import load_flow
    from syncpoint.spark import Target

    try:
        flow = load_flow(file)
    except (FileNotFoundError, ValueError) as e:
        _fail(str(e))
    except Exception as e:  # the flow file itself raised
        _fail(f"{file} could not be loaded: {type(e).__name__}: {e}")
    if max_messages is not None:
        if max_messages < 1:
            _fail("--max-messages must be at least 1")
        flow.max_messages_per_batch = max_messages
    if host is None:
        _ensure_server(qmgr, None, start=False)
    opts = {"qmgr": qmgr, "members": members or ""}
    if host:
        opts["host"] = host
    else:
        opts["home"] = str(_home.home())
    try:
        target = Target.from_options(opts)
    except ValueError as e:
        _fail(str(e))
    ckpt = checkpoint or _home.qmgr_dir(qmgr) / "flows" / flow.name / "checkpoint"
    try:
        run_with_display(flow, target, ckpt, master=master, available_now=available_now, interval=trigger_interval)
    except KeyboardInterrupt:
        console.print("flow stopped.")
    except MQMIError as e:
        _fail(f"the flow stopped: {e}")


# ---------------------------------------------------------------------------------------------------------
# syncpoint flow demo
# ---------------------------------------------------------------------------------------------------------
_DEMO_QUEUES = ("DEMO.ORDERS", "DEMO.ENRICHED", "DEMO.REPLIES", "DEMO.REPORTS")
_DLQ = "SYSTEM.DEAD.LETTER.QUEUE"


def demo_messages() -> list[tuple[str, bytes, dict[str, Any]]]:
    """(label, body, put options) of the sample messages: good orders, poison ones, an expired one, a reply."""
    msgs: list[tuple[str, bytes, dict[str, Any]]] = []
    for i, (country, qty, price) in enumerate([("FR", 2, 9.5), ("DE", 1, 120.0), ("ES", 5, 3.2), ("FR", 3, 14.0)]):
        body = json.dumps({"id": f"A{i + 1}", "country": country, "qty": qty, "price": price}).encode()
        msgs.append((f"order A{i + 1}", body, {}))
    msgs.append(
        (
            "order A5 (asks for a reply)",
            b'{"id": "A5", "country": "DE", "qty": 1, "price": 5}',
            {"reply_to": "DEMO.REPLIES"},
        )
    )
    msgs.append(("poison: not JSON", b"<order id='A6'/>", {}))
    msgs.append(("poison: quantity -1", b'{"id": "A7", "country": "FR", "qty": -1, "price": 2}', {}))
    msgs.append(
        (
            "expired before processing",
            b'{"id": "A8", "country": "FR", "qty": 1, "price": 1}',
            {"expiry": 0.1, "report": "expiration", "reply_to": "DEMO.REPORTS"},
        )
    )
    return msgs


def demo(qmgr: str, home: str | None, *, master: str = "local[2]") -> dict[str, str]:
    """Create the queue manager (if needed), start its server (if none runs), load the sample messages, run the
    sample flow until the queue is drained, and return where every message went (label → place)."""
    import syncpoint
    from syncpoint.client import create_queue_manager
    from syncpoint.mqi import constants as C
    from syncpoint.spark import Target

    if not (_home.qmgr_dir(qmgr, home) / "qm.db").exists():
        create_queue_manager(qmgr, dlq=_DLQ, home=home)
        console.print(f"syncpoint queue manager '{qmgr}' created.")
    _ensure_server(qmgr, home, start=True)
    qm = syncpoint.connect(qmgr, home=home, appl_name="syncpoint flow demo")
    try:
        for q in _DEMO_QUEUES:
            try:
                qm.admin("define", "QLOCAL", q, {"BOTHRESH": 2} if q == "DEMO.ORDERS" else None)
            except MQMIError as e:
                if e.reason != C.MQRC_OBJECT_ALREADY_EXISTS:
                    raise
                qm.admin("clear", q)
        ids: dict[bytes, str] = {}
        orders = qm.open("DEMO.ORDERS")
        for label, body, opts in demo_messages():
            report = C.MQRO_EXPIRATION if opts.pop("report", None) else None
            md = orders.put(body, persistent=True, format=C.MQFMT_STRING, report=report, **opts)
            ids[bytes(md.MsgId)] = label
        console.print(f"put {len(ids)} sample messages on DEMO.ORDERS (BOTHRESH 2).")
        time.sleep(0.3)  # let the expiring message expire
        dlq_before = {bytes(m.md.MsgId) for m in qm.open(_DLQ).browse_all()}
        from syncpoint.flow.sample import flow

        ckpt = _home.qmgr_dir(qmgr, home) / "flows" / f"demo-{int(time.time())}"
        target = Target(qmgr, home=str(_home.home(home)))
        run_with_display(flow, target, ckpt, master=master, available_now=True, interval="1 second")
        return where_they_went(qm, ids, dlq_before)
    finally:
        qm.disconnect()


def where_they_went(qm: Any, ids: dict[bytes, str], dlq_before: set[bytes]) -> dict[str, str]:
    from syncpoint.mqi import MQDLH
    from syncpoint.mqi import constants as C

    where = {label: "still on DEMO.ORDERS" for label in ids.values()}
    for m in qm.open("DEMO.ENRICHED").browse_all():
        label = ids.get(bytes(m.md.CorrelId))
        if label:
            where[label] = f"DEMO.ENRICHED: {m.data.decode(errors='replace')}"
    for m in qm.open("DEMO.REPLIES").browse_all():
        label = ids.get(bytes(m.md.CorrelId))
        if label:
            where[label] += f"; reply on DEMO.REPLIES: {m.data.decode(errors='replace')}"
    for m in qm.open("DEMO.REPORTS").browse_all():
        label = ids.get(bytes(m.md.CorrelId))
        if label and m.md.Feedback == C.MQFB_EXPIRATION:
            where[label] = "expired on DEMO.ORDERS (discarded by the queue manager; expiration report on DEMO.REPORTS)"
    for m in qm.open(_DLQ).browse_all():
        mid = bytes(m.md.MsgId)
        if mid in ids and mid not in dlq_before:
            dlh = MQDLH.unpack(m.data[: C.MQDLH_LENGTH_1])
            why = {
                C.MQRC_BACKOUT_THRESHOLD_REACHED: "MQRC_BACKOUT_THRESHOLD_REACHED: backed out until BOTHRESH",
                C.MQRC_FORMAT_ERROR: "MQRC_FORMAT_ERROR: the input node could not parse it",
            }.get(dlh.Reason, "")
            where[ids[mid]] = f"{_DLQ} (MQDLH Reason {dlh.Reason} {why}; from {dlh.DestQName.decode().strip()})"
    for m in qm.open("DEMO.ORDERS").browse_all():
        label = ids.get(bytes(m.md.MsgId))
        if label:
            where[label] = f"still on DEMO.ORDERS (BackoutCount {m.md.BackoutCount})"
    return where


@flow_app.command("demo")
def demo_command(
    qmgr: Annotated[str, typer.Option("--qmgr", "-m", help="queue manager to create or use")] = "DEMO",
    master: Annotated[str, typer.Option(help="Spark master URL")] = "local[2]",
) -> None:
    """One command: create a queue manager, start its server, load sample messages (poison and expired ones
    included), run the sample flow on local Spark, and show where every message went."""
    try:
        where = demo(qmgr, None, master=master)
    except MQMIError as e:
        _fail(f"the demo stopped: {e}")
    t = Table(title="where every message went")
    t.add_column("message")
    t.add_column("went to")
    for label, place in where.items():
        t.add_row(label, place)
    print_table(console, t)
    console.print(
        f"The server of {qmgr} keeps running: look with `syncpoint amqsbcg SYSTEM.DEAD.LETTER.QUEUE {qmgr}` "
        f"or stop it with `{demo_stop_command(qmgr)}`."
    )


def demo_stop_command(qmgr: str) -> str:
    """How the demo's last line says to end its queue manager, as README.md says it: an immediate end, which
    returns once the queue manager has ended (tests/cli/test_flow_demo_text.py holds the two together)."""
    return f"syncpoint endmqm -i {qmgr}"


def register(app: typer.Typer) -> None:
    """Add ``syncpoint flow run`` and ``syncpoint flow demo``."""
    app.add_typer(flow_app, name="flow")
