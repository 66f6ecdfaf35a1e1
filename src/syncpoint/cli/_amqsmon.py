"""``syncpoint amqsmon``: IBM's sample that formats accounting and statistics messages (issue 36, item 3).

IBM's options and output (amqsmon, "Display formatted monitoring information"):

    amqsmon -m QMgrName -t statistics|accounting [-b] [-a | -q [QueueName] | -c [ChannelName] | -i ConnectionId]
            [-d Depth] [-w TimeOut] [-l Parameter,...] [-s StartTime] [-e EndTime]

``-t`` picks the queue: SYSTEM.ADMIN.STATISTICS.QUEUE or SYSTEM.ADMIN.ACCOUNTING.QUEUE. ``-a``: only MQI records
(MQIStatistics / MQIAccounting); ``-q``: only queue records, of that queue if named (a queue record's groups of
other queues are not shown); ``-c``: only channel statistics; ``-i``: only the accounting of that connection
(its ConnectionId in hexadecimal, 48 digits). ``-b`` browses: the messages stay; otherwise each message shown is
removed and the others stay where they are. ``-d``: stop after that many records (``-d`` alone: one); ``-w``:
wait that many seconds for a message before ending (0: end at once). ``-l``: show only the parameters named (IBM's
numbers, or their names). ``-s`` / ``-e`` ``"YYYY-MM-DD HH.MM.SS"`` (local time): only the records whose interval
starts at or after ``-s`` and ends at or before ``-e``.

Each message prints as amqsmon prints it: ``MonitoringType: QueueStatistics``, then one line a parameter —
``Name: value``, strings quoted (``'Q1'``), lists in brackets (``[0, 3]``), byte strings as ``x'…'``, integers
with named values by name (``QueueType: Local``) — each group as ``QueueStatistics: 0`` with its members
indented by two more spaces, and a blank line; at the end ``N Records Processed.``. The exit status is IBM's: 0
when a record was shown, 1 when none, -1 (255) for an error.

The PCF is read with ``syncpoint.pcf``'s parser; the names are ``syncpoint.mqi.monitoring``'s, which are IBM's.
"""

from __future__ import annotations

import sys
from typing import Any

import typer

from syncpoint.mqi import MQMIError
from syncpoint.mqi import constants as C
from syncpoint.mqi import monitoring as M

from ._connect import connect_running

USAGE = (
    "Usage: amqsmon [-m QMgrName]\n"
    "               [-t statistics]          # Process statistics queue\n"
    "                  [-a]                  # Show only QMGR statistics\n"
    "                  [-q [queue_name]]     # Show only Queue statistics\n"
    "                  [-c [channel_name]]   # Show only Channel statistics\n"
    "               [-t accounting]          # Process accounting queue\n"
    "                  [-a]                  # Process only MQI accounting\n"
    "                  [-q [queue_name]]     # Process only Queue accounting\n"
    "                  [-i <connectionId>]   # Process only matching connection\n"
    "               [-b]                     # Only browse records\n"
    "               [-d <depth>]             # Number of records to display\n"
    "               [-w <timeout>]           # Time to wait (in seconds)\n"
    "               [-l <fieldlist,...>]     # Display only these fields\n"
    "               [-s <startTime>]         # Start time of record to process\n"
    "               [-e <endTime>]           # End time of record to process"
)
_BY_NAME = {
    name.lower(): number
    for table in (M.INTEGER_NAMES, M.INTEGER64_NAMES, M.STRING_NAMES)
    for number, name in table.items()
}


class Options:
    """amqsmon's options as IBM's sample parses them (``-qNAME`` or ``-q NAME``; ``-q`` alone: every queue)."""

    def __init__(self, argv: list[str]) -> None:
        self.qmgr = ""
        self.kind = 0  # MQCFT_STATISTICS / MQCFT_ACCOUNTING
        self.browse = False
        self.command = 0  # the record type asked for (0: every one)
        self.queue = self.channel = ""
        self.connection: bytes | None = None
        self.depth = -1
        self.wait = 0
        self.fields: set[int] | None = None
        self.start: float | None = None  # -s / -e: the records whose interval lies between (local time)
        self.end: float | None = None
        filters = 0
        chosen = ""  # the filter option given (a, q, c, i), resolved to a record type once -t is known
        i = 0
        while i < len(argv):
            arg = argv[i]
            if len(arg) < 2 or arg[0] != "-":
                raise ValueError(f"{arg!r} is not an option")
            flag, inline = arg[1], arg[2:].strip()

            def value(optional: bool = False, inline: str = inline, flag: str = flag) -> str:
                nonlocal i
                if inline:
                    return inline
                if i + 1 < len(argv) and not argv[i + 1].startswith("-"):
                    i += 1
                    return argv[i]
                if optional:
                    return ""
                raise ValueError(f"-{flag} needs a value")

            if flag == "m":
                self.qmgr = value()
            elif flag == "t":
                word = value().lower()
                if word not in ("statistics", "accounting"):
                    raise ValueError("-t takes statistics or accounting")
                self.kind = M.MQCFT_STATISTICS if word == "statistics" else M.MQCFT_ACCOUNTING
            elif flag == "b":
                self.browse = True
            elif flag in "aqci":
                filters += 1
                if flag == "q":
                    self.queue = value(optional=True)
                elif flag == "c":
                    self.channel = value(optional=True)
                elif flag == "i":
                    try:
                        self.connection = bytes.fromhex(value())
                    except ValueError:
                        raise ValueError("-i takes a ConnectionId of 48 hexadecimal digits") from None
                    if len(self.connection) != 24:
                        raise ValueError("-i takes a ConnectionId of 48 hexadecimal digits")
                chosen = flag
            elif flag in "dw":
                text = value(optional=True)  # IBM's: -d alone is one record, -w alone no wait
                if text and not text.isdigit():
                    raise ValueError(f"-{flag} takes a number")
                if flag == "d":
                    self.depth = int(text) if text else 1
                    if self.depth <= 0:
                        raise ValueError("-d takes a number of records, 1 or more")
                else:
                    self.wait = int(text) if text else 0
            elif flag in "se":
                when = _moment(value(), end=flag == "e")
                if flag == "s":
                    self.start = when
                else:
                    self.end = when
            elif flag == "l":
                self.fields = set()
                for name in value().split(","):
                    key = name.strip()
                    number = int(key) if key.isdigit() else _BY_NAME.get(key.lower())
                    if number is None:
                        raise ValueError(f"-l: {key!r} is not a parameter amqsmon knows")
                    self.fields.add(number)
            else:
                raise ValueError(f"-{flag} is not an option of amqsmon")
            i += 1
        if not self.kind:
            raise ValueError("-t statistics or -t accounting is required")
        if filters > 1:
            raise ValueError("only one of -a, -q, -c and -i may be given")
        statistics = self.kind == M.MQCFT_STATISTICS
        flag = chosen
        if flag == "c" and not statistics:
            raise ValueError("-c applies to statistics")
        if flag == "i" and statistics:
            raise ValueError("-i applies to accounting")
        self.command = {
            "a": M.MQCMD_STATISTICS_MQI if statistics else M.MQCMD_ACCOUNTING_MQI,
            "q": M.MQCMD_STATISTICS_Q if statistics else M.MQCMD_ACCOUNTING_Q,
            "c": M.MQCMD_STATISTICS_CHANNEL,
            "i": 0,
            "": 0,
        }[flag]


def _moment(text: str, end: bool = False) -> float:
    """``YYYY-MM-DD HH.MM.SS`` (local time, as IBM's amqsmon reads -s / -e; the time may be left out: the start or
    the end of the day) as seconds since the epoch."""
    import time as _time

    parts = text.split()
    clock = parts[1] if len(parts) > 1 else ("23.59.59" if end else "00.00.00")
    try:
        return _time.mktime(_time.strptime(f"{parts[0]} {clock}", "%Y-%m-%d %H.%M.%S"))
    except (ValueError, IndexError, OverflowError):
        raise ValueError(f"{text!r} is not a time of the form YYYY-MM-DD HH.MM.SS") from None


def _text(raw: bytes) -> str:
    return raw.decode("utf-8", errors="replace").rstrip(" \0")


def _lines(params: list[Any], indent: str, fields: set[int] | None, queue: str, channel: str) -> list[str]:
    from syncpoint.pcf import MQCFBS, MQCFGR, MQCFIL, MQCFIL64, MQCFIN, MQCFIN64, MQCFSL, MQCFST

    out: list[str] = []
    groups = 0
    for p in params:
        n = p.Parameter
        if isinstance(p, MQCFGR):
            if queue or channel:  # amqsmon shows only the named queue's (channel's) group
                wanted, name = (M.MQCA_Q_NAME, queue) if queue else (M.MQCACH_CHANNEL_NAME, channel)
                if not any(
                    isinstance(x, MQCFST) and x.Parameter == wanted and _text(x.String) == name for x in p.members
                ):
                    continue
            out.append(f"{indent}{M.GROUP_NAMES.get(n, f'GROUP({n})')}: {groups}")
            groups += 1
            out += _lines(p.members, indent + "  ", fields, "", "")
            continue
        if fields is not None and n not in fields:
            continue
        if isinstance(p, MQCFIN):
            name = M.INTEGER_NAMES.get(n, str(n))
            named = M.NAMED_VALUES.get(n, {})
            out.append(f"{indent}{name}: {named.get(p.Value, p.Value)}")
        elif isinstance(p, MQCFIN64):
            out.append(f"{indent}{M.INTEGER64_NAMES.get(n, str(n))}: {p.Value}")
        elif isinstance(p, (MQCFIL, MQCFIL64)):
            names = M.INTEGER_NAMES if isinstance(p, MQCFIL) else M.INTEGER64_NAMES
            out.append(f"{indent}{names.get(n, str(n))}: [{', '.join(str(v) for v in p.Values)}]")
        elif isinstance(p, MQCFST):
            out.append(f"{indent}{M.STRING_NAMES.get(n, str(n))}: '{_text(p.String)}'")
        elif isinstance(p, MQCFSL):
            items = ", ".join(f"'{_text(s)}'" for s in p.Strings)
            out.append(f"{indent}{M.STRING_NAMES.get(n, str(n))}: [{items}]")
        elif isinstance(p, MQCFBS):
            out.append(f"{indent}{'ConnectionId' if n == M.MQBACF_CONNECTION_ID else n}: x'{bytes(p.String).hex()}'")
    return out


def matches(opts: Options, data: bytes) -> bool:
    """Whether a monitoring message is one ``opts`` asks for (its type, command, queue, channel, connection)."""
    from syncpoint.pcf import MQCFBS, MQCFGR, MQCFST, parse

    try:
        cfh, params = parse(data)
    except Exception:  # not PCF: not a monitoring message
        return False
    if cfh.Type not in (M.MQCFT_STATISTICS, M.MQCFT_ACCOUNTING) or (opts.command and cfh.Command != opts.command):
        return False

    def flat(ps: list[Any]) -> list[Any]:
        return [y for x in ps for y in ([x, *flat(x.members)] if isinstance(x, MQCFGR) else [x])]

    every = flat(params)
    if opts.queue and not any(
        isinstance(p, MQCFST) and p.Parameter == M.MQCA_Q_NAME and _text(p.String) == opts.queue for p in every
    ):
        return False
    if opts.channel and not any(
        isinstance(p, MQCFST) and p.Parameter == M.MQCACH_CHANNEL_NAME and _text(p.String) == opts.channel
        for p in every
    ):
        return False
    if opts.start is not None or opts.end is not None:
        top = {p.Parameter: _text(p.String) for p in params if isinstance(p, MQCFST)}
        try:
            start = _moment(f"{top[M.MQCAMO_START_DATE]} {top[M.MQCAMO_START_TIME]}")
            end = _moment(f"{top[M.MQCAMO_END_DATE]} {top[M.MQCAMO_END_TIME]}")
        except (KeyError, ValueError):
            return False
        if (opts.start is not None and start < opts.start) or (opts.end is not None and end > opts.end):
            return False
    return opts.connection is None or any(
        isinstance(p, MQCFBS) and p.Parameter == M.MQBACF_CONNECTION_ID and bytes(p.String) == opts.connection
        for p in every
    )


def format_record(opts: Options, data: bytes) -> str:
    """One message as amqsmon prints it (its lines and the blank line after them)."""
    from syncpoint.pcf import parse

    cfh, params = parse(data)
    head = f"MonitoringType: {M.MONITORING_TYPES.get(cfh.Command, str(cfh.Command))}"
    return "\n".join([head, *_lines(params, "", opts.fields, opts.queue, opts.channel), ""]) + "\n"


def amqsmon(ctx: typer.Context) -> None:
    """Format the accounting or statistics messages of a queue manager, as IBM's amqsmon sample."""
    try:
        opts = Options(list(ctx.args))
    except ValueError as e:
        typer.echo(f"amqsmon: {e}\n{USAGE}", err=True)
        raise typer.Exit(255) from None
    if not opts.qmgr:
        typer.echo(f"amqsmon: -m names the queue manager\n{USAGE}", err=True)
        raise typer.Exit(255)
    try:
        qm = connect_running(opts.qmgr, appl_name="amqsmon")
    except MQMIError as e:
        typer.echo(f"MQCONN ended with reason code {e.reason}", err=True)
        raise typer.Exit(255) from None
    records = 0
    try:
        try:
            queue = qm.open(M.MONITORING_QUEUES[opts.kind])
        except MQMIError as e:
            typer.echo(f"MQOPEN ended with reason code {e.reason}", err=True)
            raise typer.Exit(255) from None
        first = True
        while opts.depth < 0 or records < opts.depth:
            try:
                msg = queue.browse(first=first, wait=opts.wait if opts.wait else None)
            except MQMIError as e:
                if e.reason != C.MQRC_NO_MSG_AVAILABLE:
                    typer.echo(f"Failed to retrieve message from queue [reason: {e.reason}]", err=True)
                break
            first = False
            if not matches(opts, msg.data):
                continue
            if not opts.browse:
                try:  # the message under the cursor (by its MsgId: unique), as amqsmon's MSG_UNDER_CURSOR get
                    queue.get(msg_id=msg.md.MsgId)
                except MQMIError:
                    continue  # someone else got it first: on to the next
            sys.stdout.write(format_record(opts, msg.data))
            sys.stdout.flush()
            records += 1
    finally:
        qm.disconnect()
    print(f"{records} Records Processed.")
    raise typer.Exit(0 if records else 1)


def register(app: typer.Typer) -> None:
    app.command(
        "amqsmon",
        context_settings={"allow_extra_args": True, "ignore_unknown_options": True, "help_option_names": []},
    )(amqsmon)


__all__ = ["Options", "amqsmon", "format_record", "matches", "register"]
