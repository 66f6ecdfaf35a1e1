"""IBM's channel commands: ``runmqchl`` (run a channel), ``runmqchi`` (the channel initiator), ``runmqlsr`` (the
listener), and ``chlpasswd`` (what a sending channel presents to the receiving queue manager).

In syncpoint the channel initiator and the listener live in the queue manager's server process: strmqm starts
the initiator on SYSTEM.CHANNEL.INITQ, and the server's port is the listener. ``runmqchl`` asks that initiator
to run the channel and follows it until it ends; ``runmqchi`` and ``runmqlsr`` say where theirs run.

Implements: issue 23 item 3 (IBM's verbs); docs/distributed-queuing.md.
"""

from __future__ import annotations

import getpass
import sys
import time
from typing import Annotated

import typer

import syncpoint
from syncpoint import _home
from syncpoint.channel import Credentials
from syncpoint.mqsc import MqscProcessor
from syncpoint.server import server_info

_RUNNING = ("STARTING", "BINDING", "RUNNING", "RETRYING", "STOPPING")


def _say(text: str) -> None:
    print(text, flush=True)


def _running_server(qmgr: str) -> dict[str, object]:
    info = server_info(qmgr)
    if info is None:
        _say(f"AMQ8146E: syncpoint queue manager {qmgr} not available: its server is not running (strmqm {qmgr}).")
        raise typer.Exit(20)
    return dict(info)


def _status_of(proc: MqscProcessor, channel: str) -> str:
    lines = proc.execute(f"DISPLAY CHSTATUS({channel}) STATUS").lines
    for line in lines:
        if "STATUS(" in line:
            return line.split("STATUS(", 1)[1].split(")", 1)[0]
    return "INACTIVE"


def runmqchl(
    c: Annotated[str, typer.Option("-c", help="channel name")],
    m: Annotated[str | None, typer.Option("-m", help="queue manager (default: the default queue manager)")] = None,
) -> None:
    """Run a sending channel: the queue manager's channel initiator starts it; this command follows it until it
    ends (INACTIVE after DISCINT, or STOPPED) and exits 0 when it ended normally, 10 when it stopped."""
    qmgr = m or _home.default_queue_manager() or ""
    _running_server(qmgr)
    qm = syncpoint.connect(qmgr, appl_name="runmqchl")
    proc = MqscProcessor(qm, echo=False)
    out = proc.execute(f"START CHANNEL({c})")
    for line in out.lines:
        _say(line)
    if not out.ok:
        raise typer.Exit(10)
    _say(f"AMQ9002I: Channel '{c}' is starting.")
    last = ""
    try:
        while True:
            state = _status_of(proc, c)
            if state != last:
                _say(f"channel {c}: {state}")
                last = state
            if state not in _RUNNING:
                break
            time.sleep(0.5)
    except KeyboardInterrupt:
        for line in proc.execute(f"STOP CHANNEL({c})").lines:
            _say(line)
    finally:
        qm.disconnect()
    if last == "STOPPED":
        raise typer.Exit(10)
    _say(f"AMQ9008I: Channel '{c}' ended normally.")


def runmqchi(
    m: Annotated[str | None, typer.Option("-m", help="queue manager (default: the default queue manager)")] = None,
    q: Annotated[str, typer.Option("-q", help="initiation queue")] = "SYSTEM.CHANNEL.INITQ",
) -> None:
    """The channel initiator: in syncpoint it runs inside the queue manager's server, started by strmqm, on
    SYSTEM.CHANNEL.INITQ; this command says whether it runs."""
    qmgr = m or _home.default_queue_manager() or ""
    _running_server(qmgr)
    if q != "SYSTEM.CHANNEL.INITQ":
        _say(f"AMQ8101E: syncpoint's channel initiator serves SYSTEM.CHANNEL.INITQ only, not {q}.")
        raise typer.Exit(10)
    _say(f"AMQ8024I: syncpoint channel initiator of {qmgr} is running (in its server, on SYSTEM.CHANNEL.INITQ).")


def runmqlsr(
    m: Annotated[str | None, typer.Option("-m", help="queue manager (default: the default queue manager)")] = None,
    t: Annotated[str, typer.Option("-t", help="transport type")] = "tcp",
    p: Annotated[int | None, typer.Option("-p", help="port")] = None,
) -> None:
    """The listener: in syncpoint the queue manager's server port (strmqm --port) is the channel listener."""
    qmgr = m or _home.default_queue_manager() or ""
    info = _running_server(qmgr)
    if t.lower() != "tcp":
        _say(f"AMQ8101E: syncpoint listens on TCP only, not {t}.")
        raise typer.Exit(10)
    port = info.get("port")
    if p is not None and p != port:
        _say(f"AMQ8101E: {qmgr} listens on port {port}; to listen on {p}, restart it with strmqm {qmgr} --port {p}.")
        raise typer.Exit(10)
    _say(f"AMQ8021I: syncpoint listener of {qmgr} is running: TCP port {port} (the queue manager's server port).")


def chlpasswd(
    qmgr: Annotated[str, typer.Argument(help="the sending queue manager")],
    channel: Annotated[str, typer.Argument(help="the sending channel")],
    user: Annotated[str, typer.Argument(help="the user the channel authenticates as on the receiving side")] = "",
    cafile: Annotated[str | None, typer.Option("--cafile", help="CA file for a channel with SSLCIPH")] = None,
    delete: Annotated[bool, typer.Option("--delete", help="remove the channel's entry")] = False,
) -> None:
    """Set what sending channel CHANNEL of QMGR presents to the receiving queue manager: USER and its password
    there (set with ``syncpoint passwd`` on the receiving queue manager), read from standard input when it is not
    a terminal. It applies when the channel next starts."""
    qdir = _home.qmgr_dir(qmgr)
    if not (qdir / "qm.db").exists():
        _say(f"AMQ7048E: queue manager {qmgr} does not exist.")
        raise typer.Exit(16)
    creds = Credentials(qdir / "channels.json")
    if delete:
        creds.set(channel, None)
        _say(f"channel {channel} of {qmgr} presents no user now.")
        return
    entry: dict[str, str] = {}
    if user:  # no user: the channel presents none (a receiver without users), e.g. only a CA file for TLS
        if sys.stdin.isatty():
            password = getpass.getpass(f"password of {user} on the receiving queue manager: ")
        else:
            password = sys.stdin.readline().rstrip("\n")
        entry = {"user": user, "password": password}
    if cafile:
        entry["cafile"] = cafile
    creds.set(channel, entry)
    who = f"authenticates as {user}" if user else "presents no user"
    _say(f"channel {channel} of {qmgr} {who} (from its next start).")


def register(app: typer.Typer) -> None:
    app.command()(runmqchl)
    app.command()(runmqchi)
    app.command()(runmqlsr)
    app.command()(chlpasswd)


__all__ = ["register"]
