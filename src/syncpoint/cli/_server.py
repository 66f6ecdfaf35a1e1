"""strmqm, endmqm and passwd: starting and ending a queue manager's server, and its users' passwords.

Implements: IBM's strmqm / endmqm and their AMQ messages; docs/protocol.md.
"""

from __future__ import annotations

import getpass
import os
import signal
import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from syncpoint import _home
from syncpoint.client import RemoteTransport
from syncpoint.client import local_server as server_info
from syncpoint.mqi import MQMIError
from syncpoint.server import (
    Users,
    available_cpus,
    check_spec,
    embedded_holder,
    process_description,
    status,
)

from . import _settings as settings
from ._process import StartError, spawn_server, wait_gone

console = Console(highlight=False, soft_wrap=True)
err = Console(stderr=True, highlight=False, soft_wrap=True)


def _fail(message: str, code: int) -> None:
    err.print(message, markup=False)
    raise typer.Exit(code)


def strmqm(
    qmgr: Annotated[str, typer.Argument(help="queue manager name")],
    host: Annotated[
        str | None, typer.Option(help="address to listen on for TCP (default 127.0.0.1: loopback only)")
    ] = None,
    port: Annotated[int | None, typer.Option(help="TCP port (default 1414; 0: any free port, shown by dspmq -x)")] = (
        None
    ),
    tcp: Annotated[
        bool | None, typer.Option("--tcp/--no-tcp", help="serve TCP, or the local Unix socket only", show_default=False)
    ] = None,
    tls_cert: Annotated[str | None, typer.Option(help="PEM certificate chain: serve TCP over TLS")] = None,
    tls_key: Annotated[str | None, typer.Option(help="PEM private key of --tls-cert")] = None,
    tls_ca: Annotated[
        str | None, typer.Option(help="PEM CA certificates whose client certificates are trusted (IBM's SSLKEYR)")
    ] = None,
    command_server: Annotated[
        bool | None,
        typer.Option(
            "--command-server/--no-command-server",
            help="start the PCF command server (default: yes)",
            show_default=False,
        ),
    ] = None,
    cpus: Annotated[
        str | None,
        typer.Option(
            help="CPUs the server runs on: auto (the default; one: the CPU taking the disk's interrupts), all (as "
            "inherited), or a list such as 1 or 0-3"
        ),
    ] = None,
    busy_poll: Annotated[
        bool | None,
        typer.Option(
            "--busy-poll/--no-busy-poll",
            help="while busy, keep the server's CPU polling instead of idle, when it runs on one CPU (default: yes)",
            show_default=False,
        ),
    ] = None,
    limit: Annotated[
        list[str] | None,
        typer.Option(
            help="a server limit NAME=VALUE (repeatable): max-connections, max-connections-per-address, "
            "handshake-timeout, frame-timeout, frame-seconds-per-mib, partial-frame-budget, auth-delay-max, "
            "reply-backlog (docs/protocol.md)"
        ),
    ] = None,
    metrics: Annotated[
        bool | None,
        typer.Option(
            "--metrics/--no-metrics",
            help="serve Prometheus metrics at /metrics in IBM's exporter's names (default: yes)",
            show_default=False,
        ),
    ] = None,
    metrics_host: Annotated[
        str | None, typer.Option(help="address /metrics listens on (default 127.0.0.1: loopback only)")
    ] = None,
    metrics_port: Annotated[
        int | None, typer.Option(help="TCP port of /metrics (default 9157, IBM's exporter's; 0: any free port)")
    ] = None,
    foreground: Annotated[
        bool,
        typer.Option(
            "--foreground",
            help="run the server in this process until it ends (systemd, containers): its log on standard error, "
            "SIGTERM ends it",
        ),
    ] = False,
    timeout: Annotated[float, typer.Option(help="seconds to wait for the server to accept connections")] = 60.0,
) -> None:
    """Start a queue manager: its server runs in the background and this returns when it accepts connections.

    The settings given here are kept in the queue manager's qm.toml for its next starts (dspmqini shows them,
    setmqini changes them)."""
    qdir = _home.qmgr_dir(qmgr)
    if not (qdir / "qm.db").exists():
        missing = _home.missing_store(qmgr)
        _fail(missing or f"AMQ7048E: queue manager {qmgr} does not exist.", 20 if missing else 16)
    if server_info(qmgr) is not None:
        _fail(f"AMQ5051E: queue manager '{qmgr}' is already running.", 5)
    holder = embedded_holder(qmgr)
    if holder is not None:
        # not IBM's case: a program runs the queue manager in its own process and holds its files
        _fail(
            f"AMQ5051E: queue manager '{qmgr}' is already running, embedded in {process_description(holder)}; "
            "end that program first.",
            5,
        )
    try:
        saved = settings.load(qdir)
        flags = {
            "host": host,
            "port": port,
            "tcp": tcp,
            "tls-cert": tls_cert,
            "tls-key": tls_key,
            "tls-ca": tls_ca,
            "command-server": command_server,
            "cpus": cpus,
            "busy-poll": busy_poll,
            "metrics": metrics,
            "metrics-host": metrics_host,
            "metrics-port": metrics_port,
        }
        given = {name: settings.convert(name, value) for name, value in flags.items() if value is not None}
        if tcp is None and given.keys() & {"host", "port", "tls-cert"}:
            given["tcp"] = True  # an address to listen on asks for TCP, even after a start with --no-tcp
        for setting in limit or []:
            name, sep, raw = setting.partition("=")
            if not sep or name.strip() not in settings.LIMITS:
                raise settings.SettingsError(
                    f"--limit {setting!r}: expected NAME=VALUE with NAME one of {', '.join(settings.LIMITS)}"
                )
            given[name.strip()] = settings.convert(name.strip(), raw)
    except settings.SettingsError as e:
        _fail(f"AMQ8101E: {e}.", 20)
        return
    values = {**saved, **given}
    try:
        # crtmqm -ii: the settings of that file apply at every start (IBM's IniConfig), under those given here
        ini = settings.load_file(Path(saved["ini-config"]), missing_ok=False) if saved.get("ini-config") else {}
    except settings.SettingsError as e:
        _fail(f"AMQ8101E: {e}.", 20)
        return
    use = settings.effective({**saved, **ini, **given})
    if use["tls-cert"] and not use["tls-key"]:
        _fail("AMQ8101E: --tls-cert needs --tls-key.", 20)
    from ._rest import is_loopback

    if use["rest"] and not use["tls-cert"] and not is_loopback(use["rest-host"]):
        _fail(
            f"AMQ8101E: rest-host={use['rest-host']} is not a loopback address: the REST API takes passwords, so it "
            "serves other machines over HTTPS only; set tls-cert and tls-key (setmqini), or a loopback rest-host.",
            20,
        )
    try:
        check_spec(use["cpus"], available_cpus())
    except ValueError as e:
        _fail(f"AMQ8101E: --cpus {use['cpus']}: {e}.", 20)
    notices = _home.make_private(qmgr)
    if notices:
        print(_home.private_notice(qmgr, notices), file=sys.stderr)  # one line per path: no wrapping
    args = [qmgr, "--home", str(_home.home())]
    if not use["tcp"]:
        args.append("--no-tcp")
    else:
        args += ["--host", use["host"], "--port", str(use["port"])]
    if use["tls-cert"]:
        args += ["--tls-cert", use["tls-cert"], "--tls-key", use["tls-key"]]
        if use["tls-ca"]:
            args += ["--tls-ca", use["tls-ca"]]
    if not use["command-server"]:
        args.append("--no-command-server")
    args += ["--cpus", use["cpus"]]
    if not use["busy-poll"]:
        args.append("--no-busy-poll")
    for name in settings.LIMITS:
        if name in values or name in ini:
            args += ["--limit", f"{name}={use[name]}"]
    if use["mqsc-config"]:
        args += ["--mqsc-config", use["mqsc-config"]]
    if use["rest"]:
        args += ["--rest-host", use["rest-host"], "--rest-port", str(use["rest-port"])]
    if use["metrics"]:
        args += ["--metrics-host", use["metrics-host"], "--metrics-port", str(use["metrics-port"])]

    def keep_settings() -> None:
        if values != saved:
            path = settings.save(qdir, values)
            changed = " ".join(f"{k}={v}" for k, v in given.items() if saved.get(k, None) != v)
            console.print(f"settings kept in {path} for the next starts: {changed}")

    if foreground:
        from ._serve import main as serve

        keep_settings()
        console.print(f"syncpoint queue manager '{qmgr}' starting (in the foreground: its log follows).")
        raise typer.Exit(serve(args))
    try:
        proc, info = spawn_server(qmgr, args, timeout=timeout)
    except StartError as e:
        _fail(e.message, e.code)
        return
    where = f"127.0.0.1 port {info['port']}" if info.get("port") else "no TCP"
    if info.get("port") and info.get("host") != "127.0.0.1":
        where = f"{info['host']} port {info['port']}"
    console.print(f"syncpoint queue manager '{qmgr}' starting.")
    console.print(
        f"syncpoint queue manager '{qmgr}' started (pid {proc.pid}; {where}"
        f"{', TLS' if info.get('tls') else ''}; socket {info['unix']}"
        f"{'; CPU ' + info['cpus'] if info.get('cpus') else ''}"
        f"{', busy polling' if info.get('busy_poll') else ''})."
    )
    if info.get("metrics"):
        console.print(f"metrics: {info['metrics']}", markup=False)
    keep_settings()


def dspmqini(qmgr: Annotated[str, typer.Argument(help="queue manager name")]) -> None:
    """Show a queue manager's settings (its qm.toml): those set, then the defaults as comments."""
    qdir = _home.qmgr_dir(qmgr)
    if not (qdir / "qm.db").exists():
        _fail(f"AMQ7048E: queue manager {qmgr} does not exist.", 16)
    try:
        values = settings.load(qdir)
    except settings.SettingsError as e:
        _fail(f"AMQ8101E: {e}.", 20)
        return
    console.print(f"# {settings.settings_path(qdir)}", markup=False)
    console.print(settings.render(values, defaults=True).rstrip("\n"), markup=False)


def setmqini(
    qmgr: Annotated[str, typer.Argument(help="queue manager name")],
    assignments: Annotated[
        list[str] | None, typer.Argument(help="NAME=VALUE, e.g. port=1415 tls-cert=/path/cert.pem", show_default=False)
    ] = None,
    reset: Annotated[
        list[str] | None, typer.Option("--reset", help="a setting to take back to its default (repeatable)")
    ] = None,
) -> None:
    """Change a queue manager's settings (its qm.toml); they apply at its next start."""
    qdir = _home.qmgr_dir(qmgr)
    if not (qdir / "qm.db").exists():
        _fail(f"AMQ7048E: queue manager {qmgr} does not exist.", 16)
    if not assignments and not reset:
        _fail("AMQ8101E: give NAME=VALUE settings or --reset NAME; dspmqini shows them.", 20)
    try:
        values = settings.load(qdir)
        for name in reset or []:
            if name.strip() not in settings.BY_NAME:
                raise settings.SettingsError(
                    f"{name} is not a setting; the settings are: {', '.join(settings.BY_NAME)}"
                )
            values.pop(name.strip(), None)
        for item in assignments or []:
            name, sep, raw = item.partition("=")
            if not sep:
                raise settings.SettingsError(f"{item}: expected NAME=VALUE")
            values[name.strip()] = settings.convert(name.strip(), raw.strip())
    except settings.SettingsError as e:
        _fail(f"AMQ8101E: {e}; nothing changed.", 20)
        return
    use = settings.effective(values)
    if use["tls-cert"] and not use["tls-key"]:
        _fail("AMQ8101E: tls-cert needs tls-key; nothing changed.", 20)
    path = settings.save(qdir, values)
    running = " (the running queue manager keeps its settings until it is started again)"
    console.print(f"settings of {qmgr} saved in {path}{running if server_info(qmgr) is not None else ''}.")


def endmqm(
    qmgr: Annotated[str, typer.Argument(help="queue manager name")],
    c: Annotated[
        bool, typer.Option("-c", help="controlled (the default): it ends once every application has disconnected")
    ] = False,
    w: Annotated[bool, typer.Option("-w", help="wait: a controlled end that returns once the queue manager ended")] = (
        False
    ),
    i: Annotated[
        bool,
        typer.Option("-i", help="immediate: units of work are backed out and applications' next calls fail"),
    ] = False,
    p: Annotated[bool, typer.Option("-p", help="preemptive: stop at once (the next start backs out)")] = False,
    timeout: Annotated[float, typer.Option(help="seconds to wait for the end (-w, -i, -p)")] = 120.0,
) -> None:
    """End a running queue manager, as IBM's endmqm: -c controlled (the default) returns at once, -w waits for
    the end, -i and -p end it even with applications connected and return once it has ended."""
    if sum((c, i, p)) > 1 or (w and p):
        _fail("AMQ7026E: give only one of -c, -w, -i and -p (-w may go with -i).", 20)
    mode = "i" if i else "p" if p else "c"
    qdir = _home.qmgr_dir(qmgr)
    if not (qdir / "qm.db").exists():
        _fail(f"AMQ7048E: queue manager {qmgr} does not exist.", 16)
    info = server_info(qmgr)
    if info is None:
        holder = embedded_holder(qmgr)
        if holder is not None:
            _fail(
                f"AMQ8146E: queue manager '{qmgr}' runs embedded in {process_description(holder)}; only that program "
                "can end it.",
                40,
            )
        _fail(f"AMQ8146E: queue manager '{qmgr}' is not running.", 40)
        return
    pid = int(info["pid"])
    try:
        control = RemoteTransport(qmgr, unix_path=info["unix"], appl_name="endmqm", control=True, timeout=10)
        control.endmqm(mode)
    except MQMIError as e:
        # the server does not answer on its socket: -i asks the process by signal (it ends immediately on
        # SIGTERM), -p stops it; a controlled end needs the conversation
        if mode == "c":
            _fail(f"AMQ8101E: the queue manager did not take the request: {e}", 20)
        err.print(f"the queue manager did not answer on its socket ({e}); signalling process {pid}")
        os.kill(pid, signal.SIGTERM if mode == "i" else signal.SIGKILL)
    if mode == "c" and not w:
        # IBM: "Control is returned to you immediately and you are not notified of when the queue manager has stopped"
        console.print(
            f"Quiesce request accepted. The queue manager '{qmgr}' will stop when all outstanding work is complete."
        )
        return
    if mode == "c":
        console.print(f"Waiting for queue manager '{qmgr}' to end.")
    else:
        console.print(f"syncpoint queue manager '{qmgr}' ending.")
    # it has ended when its process has: not when its status file says so (the process may still be ending
    # its connections, and strmqm refuses until it has)
    if wait_gone(pid, timeout):
        console.print(f"syncpoint queue manager '{qmgr}' ended.")  # IBM's AMQ8004I
        return
    _fail(
        f"AMQ8101E: queue manager '{qmgr}' has not ended after {timeout:.0f} s (dspmq: {status(qmgr)}); "
        f"its process {pid} still runs.",
        20,
    )


def passwd(
    qmgr: Annotated[str, typer.Argument(help="queue manager name")],
    user: Annotated[str, typer.Argument(help="user name")],
    delete: Annotated[bool, typer.Option("--delete", help="remove the user")] = False,
) -> None:
    """Set (or --delete) a user's password for remote connections; the password is read from standard input
    when it is not a terminal. Once a user exists, connections authenticate as CONNAUTH says (MQRC_NOT_AUTHORIZED)."""
    qdir = _home.qmgr_dir(qmgr)
    if not (qdir / "qm.db").exists():
        _fail(f"AMQ7048E: queue manager {qmgr} does not exist.", 16)
    try:
        users = Users(qdir / "users.json")
    except ValueError as e:
        _fail(str(e), 20)
        return
    if delete:
        if not users.remove(user):
            _fail(f"user {user} has no password on {qmgr}.", 10)
        console.print(f"user {user} removed from {qmgr}.")
        return
    if sys.stdin.isatty():
        password = getpass.getpass(f"password for {user}: ")
        if getpass.getpass("again: ") != password:
            _fail("the passwords differ; nothing changed.", 10)
    else:
        password = sys.stdin.readline().rstrip("\n")
    try:
        users.set_password(user, password)
    except ValueError as e:
        _fail(f"{e}; nothing changed.", 10)
    console.print(f"password of {user} set on {qmgr} (it applies to new connections).")


def register(app: typer.Typer) -> None:
    app.command()(strmqm)
    app.command()(dspmqini)
    app.command()(setmqini)
    app.command()(endmqm)
    app.command()(passwd)
