"""``syncpoint dmpmqcfg [-m QMgrName] [-a] [-o mqsc|1line|setmqaut] [-t type] [-n name]``: dump a queue manager's
definitions as MQSC that ``runmqsc`` replays, as IBM's dmpmqcfg.

Implements: IBM's dmpmqcfg (its options -m, -a, -o mqsc / 1line / setmqaut, -t, -n; exit 0, else 1 when it could
not connect or could not read every definition — a member whose shared store is down — and 2 for an option it does
not take). Nothing is written to standard output unless the whole dump was read: never a partial dump with exit 0.
"""

from __future__ import annotations

import shlex
import sys
from typing import Annotated

import typer

from syncpoint import _home
from syncpoint.mqi import MQMIError, reason_name
from syncpoint.mqsc import DUMP_FORMATS, DUMP_TYPES, connect_failure_lines, dump_definitions

from ._connect import connect_running


def dmpmqcfg(
    m: Annotated[str | None, typer.Option("-m", help="queue manager (default: the default queue manager)")] = None,
    a: Annotated[bool, typer.Option("-a", help="all attributes, not only those that differ from the defaults")] = False,
    o: Annotated[
        str, typer.Option("-o", help="format: mqsc (one attribute a line), 1line or setmqaut (authority records)")
    ] = "mqsc",
    t: Annotated[
        str,
        typer.Option("-t", help="object type: all, qmgr, queue, qlocal, qmodel, qalias, qremote, process, channel …"),
    ] = "all",
    n: Annotated[str, typer.Option("-n", help="object name, generic with a trailing *")] = "*",
) -> None:
    """Dump the queue manager's object definitions as MQSC commands (replay them with runmqsc)."""
    fmt = o.strip().lower()
    if fmt not in DUMP_FORMATS:
        sys.stderr.write(f"-o {o}: the formats are {', '.join(DUMP_FORMATS)}\n")
        raise typer.Exit(2)
    kind = t.strip().upper()
    if kind not in DUMP_TYPES:
        sys.stderr.write(f"-t {t}: not an object type; the types are {', '.join(k.lower() for k in DUMP_TYPES)}\n")
        raise typer.Exit(2)
    name = m.strip() if m and m.strip() else _home.default_queue_manager() or ""
    try:
        qm = connect_running(name, appl_name="dmpmqcfg")  # IBM's dmpmqcfg needs the running queue manager
    except MQMIError as e:
        for line in connect_failure_lines(name, e):
            sys.stderr.write(line + "\n")
        raise typer.Exit(1) from None
    try:
        lines = dump_definitions(
            qm,
            all_attributes=a,
            types=DUMP_TYPES[kind],
            name=n.strip().upper() or "*",
            one_line=fmt == "1line",
            command=shlex.join(["dmpmqcfg", *sys.argv[2:]]),
            output=fmt,
        )
    except MQMIError as e:  # a member whose shared store is down, the queue manager ending: no partial dump
        sys.stderr.write(f"AMQ8101E: syncpoint error ({e.reason}) has occurred.\n")
        detail = f": {e.detail}" if e.detail else ""
        why = f"the definitions of {name} could not be read{detail}"
        sys.stderr.write(f"   {reason_name(e.reason)} ({e.reason}): {why}\n")
        raise typer.Exit(1) from None
    finally:
        qm.disconnect()
    sys.stdout.write("\n".join(lines) + "\n")


def register(app: typer.Typer) -> None:
    app.command()(dmpmqcfg)
