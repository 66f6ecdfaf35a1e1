"""``syncpoint <verb>``: the control commands MQ users know (crtmqm, dltmqm, dspmq …) and ``demo``.

Implements: IBM's control commands crtmqm (-q), dltmqm, dspmq (-m, -o, -s, -x), dspmqver (their AMQ messages and
layouts).
"""

from __future__ import annotations

import shutil
import socket
import sys
import time
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

import syncpoint
from syncpoint import _home
from syncpoint.mqi import MQMIError
from syncpoint.mqi import constants as C

from . import _plain_params
from ._output import print_table


def _plain_value_names() -> None:
    """Help names an option's value as IBM's and click's help do (TEXT, INTEGER …), and a flag's value not at
    all: typer prints ``<str>``, ``<list[str]>`` and, for flags such as ``-i``, a ``<bool>`` that is never typed."""
    import typer.core

    names = {"str": "TEXT", "int": "INTEGER", "float": "NUMBER", "path": "PATH", "bool": ""}
    display_type = typer.core._TyperParameter.display_type

    def plain(self: Any, ctx: Any) -> str:
        if getattr(self, "is_flag", False):
            return ""
        label = display_type(self, ctx).strip("<>")
        if label.startswith("list[") and label.endswith("]"):
            label = label[5:-1]
        return names.get(label, label.upper())

    typer.core._TyperParameter.display_type = plain  # type: ignore[method-assign]


_plain_value_names()
_plain_params.install()  # the commands' plain parameters converted without loading pydantic

# Output for scripts (issue 21, item 7): messages are never wrapped; when standard output or error is not a
# terminal, help and usage errors are plain text (no boxes), as IBM's commands print them.
_TERMINAL = sys.stdout.isatty() and sys.stderr.isatty()
app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    help="syncpoint: a queue manager with IBM MQ's semantics",
    context_settings={"help_option_names": ["-h", "--help"]},
    rich_markup_mode="rich" if _TERMINAL else None,
    pretty_exceptions_enable=False,
)
console = Console(soft_wrap=True, highlight=False)
err = Console(stderr=True, soft_wrap=True, highlight=False)


def _version(value: bool) -> None:
    if value:
        console.print(f"syncpoint {syncpoint.__version__}")
        raise typer.Exit()


@app.callback()
def _main_options(
    version: Annotated[
        bool | None,
        typer.Option("--version", help="show the version and exit", callback=_version, is_eager=True),
    ] = None,
) -> None:
    """syncpoint: a queue manager with IBM MQ's semantics."""


_CRTMQM_EXISTS = 8  # IBM's crtmqm return codes
_CRTMQM_NAME_ERROR = 72
_CRTMQM_UNEXPECTED = 71


def _fail(message: str, code: int = 20) -> None:
    err.print(message, markup=False, style="red")
    raise typer.Exit(code)


@app.command()
def crtmqm(
    qmgr: Annotated[str, typer.Argument(help="queue manager name")],
    u: Annotated[str | None, typer.Option("-u", help="dead-letter queue to create and set as DEADQ")] = None,
    qsg: Annotated[str | None, typer.Option("-qsg", "--qsg", help="queue-sharing group to join (1-4 chars)")] = None,
    shared: Annotated[str | None, typer.Option("--shared", help="the group's PostgreSQL URL (with -qsg)")] = None,
    q: Annotated[bool, typer.Option("-q", help="make it the default queue manager")] = False,
    ic: Annotated[
        str | None,
        typer.Option("-ic", help="MQSC file, or folder of .mqsc files, run now and at every start (DEFINEs replace)"),
    ] = None,
    ii: Annotated[
        str | None, typer.Option("-ii", help="a file of settings in qm.toml's form, read at every start")
    ] = None,
) -> None:
    """Create a queue manager with its default objects under $SYNCPOINT_HOME."""
    from ._autoconfig import ConfigError, parse, read_scripts

    config: dict[str, str] = {}
    try:
        # IBM's automatic configuration: checked before anything is created; kept (absolute) for every start
        if ic is not None:
            config["mqsc-config"] = str(Path(ic).resolve())
            commands = parse(read_scripts(ic))
        if ii is not None:
            from . import _settings as settings

            config["ini-config"] = str(Path(ii).resolve())
            settings.load_file(Path(ii), missing_ok=False)
    except ConfigError as e:
        _fail(
            "\n".join([f"AMQ8101E: queue manager {qmgr} was not created: its MQSC configuration has errors.", *e.lines])
        )
    except ValueError as e:  # SettingsError
        _fail(f"AMQ8101E: queue manager {qmgr} was not created: {e}.")
    try:
        if qsg is not None or shared is not None:  # a member of a queue-sharing group (docs/queue-sharing-groups.md)
            from syncpoint.store import StoreError

            from ._qsg import create_member_qmgr

            if qsg is None or shared is None:
                _fail("A queue-sharing group member needs both -qsg NAME and --shared URL.", _CRTMQM_UNEXPECTED)
            try:
                path = create_member_qmgr(qmgr, qsg, shared, dlq=u)  # type: ignore[arg-type]
            except StoreError as e:
                _fail(f"Queue manager {qmgr} was not created: {e}", _CRTMQM_UNEXPECTED)
        else:
            from syncpoint.client import create_queue_manager  # the engine and the store: loaded when needed

            path = create_queue_manager(qmgr, dlq=u)
    except MQMIError as e:
        # IBM's crtmqm: AMQ8110E and exit 8 when the queue manager exists; AMQ8102E ("object name specified in
        # ... not valid") and exit 72 for a name that is not valid (bad characters, more than 48)
        if e.reason == C.MQRC_OBJECT_ALREADY_EXISTS:
            _fail("AMQ8110E: syncpoint queue manager already exists.", _CRTMQM_EXISTS)
        if e.reason == C.MQRC_Q_MGR_NAME_ERROR:
            _fail(
                f"AMQ8102E: syncpoint object name specified in '{qmgr}' not valid "
                "(a queue manager name is 1 to 48 of A-Z a-z 0-9 . / _ %).",
                _CRTMQM_NAME_ERROR,
            )
        _fail(f"Queue manager {qmgr} could not be created: {e}", _CRTMQM_UNEXPECTED)
    if config:
        _configure_created(qmgr, path, config, commands if ic is not None else [])
    if q:
        _home.set_default_queue_manager(qmgr)
    console.print(f"syncpoint queue manager created.\nDirectory '{path}' created.")
    console.print(f"syncpoint queue manager '{qmgr}' created.")
    if q:
        console.print(f"syncpoint queue manager '{qmgr}' is the default queue manager.")


def _configure_created(qmgr: str, path: Any, config: dict[str, str], commands: list[Any]) -> None:
    """crtmqm -ic / -ii: keep the files for every start (qm.toml) and run the MQSC now, on the new queue manager."""
    from . import _settings as settings
    from ._autoconfig import run

    settings.save(path, {**settings.load(path), **config})
    if not commands:
        return
    qm = syncpoint.connect(qmgr, appl_name="crtmqm")
    try:
        failed = run(qm, commands, lambda line: err.print(line, markup=False))
    finally:
        qm.disconnect()
    if failed:
        err.print(f"{failed} MQSC command(s) of the configuration could not be processed (listed above).")


@app.command()
def dltmqm(qmgr: Annotated[str, typer.Argument(help="queue manager name")]) -> None:
    """Delete a stopped queue manager and all its data."""
    from syncpoint.server import lock_holder, process_description

    path = _home.qmgr_dir(qmgr)
    if not path.exists():
        _fail(f"AMQ7048E: queue manager {qmgr} does not exist.", 16)
    holder = lock_holder(qmgr)
    if holder is not None:
        _fail(f"AMQ8041E: queue manager {qmgr} is in use by {process_description(holder)}; end it first.", 5)
    was_default = _home.default_queue_manager() == qmgr
    shutil.rmtree(path)
    if was_default:  # IBM: deleting the default queue manager leaves none
        _home.set_default_queue_manager(None)
    console.print(f"syncpoint queue manager '{qmgr}' deleted.")


_DSPMQ_OUTPUTS = ("status", "default", "installation", "standby", "all")


def _installation() -> dict[str, str]:
    """What IBM calls the installation: this package (dspmq -o installation, dspmqver)."""
    return {
        "INSTNAME": "syncpoint",
        "INSTPATH": str(Path(syncpoint.__file__).resolve().parent),
        "INSTVER": syncpoint.__version__,
    }


@app.command()
def dspmq(
    m: Annotated[str | None, typer.Option("-m", help="only this queue manager")] = None,
    o: Annotated[
        list[str] | None,
        typer.Option(
            "-o",
            metavar="WHAT",
            help="what to show (repeatable): status (the default), default, installation, standby, all",
        ),
    ] = None,
    s: Annotated[bool, typer.Option("-s", help="the operational status (as -o status)")] = False,
    x: Annotated[bool, typer.Option("-x", help="also each instance: host, mode, process and addresses")] = False,
    n: Annotated[bool, typer.Option("-n", help="no translation of the output (it is never translated)")] = False,
) -> None:
    """List queue managers and their status (Running, Running embedded, Ended normally, Ended immediately, …)."""
    from syncpoint.client import local_server as server_info
    from syncpoint.server import embedded_holder, process_description, status

    from ._connect import queue_managers

    wanted = set()
    for item in o or []:
        for what in item.lower().split(","):
            if what not in _DSPMQ_OUTPUTS:
                _fail(f"AMQ7026E: -o {what} is not one of {', '.join(_DSPMQ_OUTPUTS)}.", 72)
            wanted.add(what)
    if "all" in wanted:
        wanted = {"status", "default", "standby", "installation"}
    if s or not wanted:
        wanted.add("status")
    _, names = queue_managers()
    if m is not None:
        if m not in names:
            _fail(f"AMQ7048E: queue manager {m} does not exist.", 72)
        names = [m]
    default = _home.default_queue_manager()
    install = _installation()
    for name in names:
        from ._qsg import group_name

        group = group_name(name)  # a member of a queue-sharing group shows it
        # IBM's order: STATUS DEFAULT STANDBY INSTNAME INSTPATH INSTVER
        fields = []
        if "status" in wanted:
            fields.append(f"STATUS({status(name)})")
        if "default" in wanted:
            fields.append(f"DEFAULT({'yes' if name == default else 'no'})")
        if "standby" in wanted:
            fields.append("STANDBY(Not permitted)")  # one instance per queue manager
        if "installation" in wanted:
            fields += [f"{key}({value})" for key, value in install.items()]
        if group:
            fields.append(f"QSGNAME({group})")
        console.print(f"QMNAME({name})".ljust(50) + " ".join(fields))
        if not x:
            continue
        info = server_info(name)
        if info is not None:
            console.print(
                f"    INSTANCE({socket.gethostname()}) MODE(Active) PID({info['pid']}) PORT({info.get('port') or ''}) "
                f"HOST({info.get('host') or ''}) SOCKET({info['unix']})"
            )
            continue
        holder = embedded_holder(name)
        if holder is not None:
            console.print(
                f"    INSTANCE({socket.gethostname()}) MODE(Embedded) PID({holder}) "
                f"PROCESS({process_description(holder).split(' (', 1)[-1].rstrip(')')})"
            )


@app.command()
def dspmqver() -> None:
    """The version of syncpoint and where it is installed, in the layout of IBM's dspmqver."""
    import platform

    install = _installation()
    rows = [
        ("Name", "syncpoint"),
        ("Version", syncpoint.__version__),
        ("Level", f"p{syncpoint.__version__.replace('.', '')}"),
        ("BuildType", "Python package"),
        ("Platform", f"syncpoint for {platform.system()} ({platform.machine()}) on Python {platform.python_version()}"),
        ("Mode", f"{64 if sys.maxsize > 2**32 else 32}-bit"),
        ("O/S", f"{platform.system()} {platform.release()}"),
        ("InstName", install["INSTNAME"]),
        ("InstDesc", "a queue manager with IBM MQ's semantics"),
        ("Primary", "Yes"),
        ("InstPath", install["INSTPATH"]),
        ("DataPath", str(_home.home())),
        ("MaxCmdLevel", str(C.MQCMDL_CURRENT_LEVEL)),
        ("LicenseType", "Apache-2.0"),
    ]
    for key, value in rows:
        console.print(f"{key + ':':<13}{value}")


@app.command()
def demo(
    qmgr: Annotated[str, typer.Option("-m", help="queue manager to use (created when missing)")] = "DEMO",
) -> None:
    """The main job: a transactional round trip through the embedded queue manager, explained as it runs."""
    from syncpoint.client import create_queue_manager

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
    print_table(console, table)
    console.print(f"done in {elapsed * 1000:.1f} ms; messages are persistent and survive a restart.")


# The tools' commands live in their own modules; each adds its verbs to ``app``.
_TOOL_MODULES = (
    "_server",
    "_container",
    "_salvage",
    "_mqsc",
    "_dmpmqcfg",
    "_trigger",
    "_dlq",
    "_dlqmsg",
    "_pcf",
    "_amqsevt",
    "_amqsmon",
    "_compat",
    "_flow",
    "_channel",
    "_oam",
)


# The module of the verbs that are timed (a queue manager's start and end in a test suite, in a container's probe):
# given one of these, only its module is loaded; any other word (or --help) loads them all.
_VERB_MODULES = {
    "strmqm": "_server",
    "endmqm": "_server",
    "dspmqini": "_server",
    "setmqini": "_server",
    "passwd": "_server",
    "crtmqm": None,
    "dltmqm": None,
    "dspmq": None,
    "dspmqver": None,
    "chkmqstarted": "_container",
    "chkmqready": "_container",
    "chkmqhealthy": "_container",
    "runmqdevserver": "_container",
    # the commands the test suites and scripts run most (each start of runmqsc loaded every tool before)
    "runmqsc": "_mqsc",
    **{sample + c: "_mqsc" for sample in ("amqsput", "amqsget", "amqsbcg") for c in ("", "c")},
    "dmpmqcfg": "_dmpmqcfg",
    "salvmqm": "_salvage",
    "runmqtrm": "_trigger",
    "runmqdlq": "_dlq",
    "strmqcsv": "_pcf",
    "runmqchl": "_channel",
    "runmqchi": "_channel",
    "runmqlsr": "_channel",
    "chlpasswd": "_channel",
}


def _register_tools(argv: list[str] | None = None) -> None:
    import importlib

    argv = sys.argv if argv is None else argv
    verb = argv[1] if len(argv) > 1 and argv[0].endswith("syncpoint") else None
    modules: tuple[str, ...] = _TOOL_MODULES
    if verb in _VERB_MODULES:
        only = _VERB_MODULES[verb]
        modules = (only,) if only else ()
    for name in modules:
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
        err.print(str(e), markup=False, style="red")
        sys.exit(20)
