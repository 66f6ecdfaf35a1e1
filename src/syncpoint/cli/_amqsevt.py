"""``syncpoint amqsevt``: IBM's sample that formats event messages (issue 36, item 2).

It reads the event queues of a running queue manager (``-q``, repeatable; by default those of IBM's standard set
that exist: SYSTEM.ADMIN.PERFM.EVENT, .QMGR.EVENT, .CHANNEL.EVENT, .CONFIG.EVENT, .COMMAND.EVENT) and prints
each event as IBM's amqsevt does: a banner with the message's number, length and queue, the event type, reason
and creation time, then the event's parameters; ``-o json`` prints one JSON object per event in the shape of
IBM's JSON form (eventSource, eventType, eventReason, eventCreation, eventData). Messages are removed as they
are read (``-b``: browsed). ``-w SECONDS`` ends after that long without a message (IBM's sample waits until
Enter is pressed; here without ``-w`` it ends when the queues are empty; ``-b`` shows each queue's messages once).

The PCF is read with ``syncpoint.pcf``'s parser. The names printed are IBM's sample's: those of the parameter
and reason constants (MQCACF_EVENT_USER_ID: Event User Id; MQRC_Q_MGR_ACTIVE: Queue Mgr Active), a few as the
sample spells them (Base Object Name, Queue Mgr Name); a group (MQCFGR: a command event's Command Context and
Command Data) prints its name, then its members indented under it (in JSON: a nested object). A parameter
without a name is printed by its number, as IBM's sample prints one it does not know.

Implements: IBM's amqsevt (text and ``-o json``).
"""

from __future__ import annotations

import json
import sys
from datetime import UTC, datetime
from typing import Annotated, Any

import typer

from syncpoint.mqi import MQMIError
from syncpoint.mqi import constants as C

from ._connect import connect_running

STANDARD_QUEUES = [
    "SYSTEM.ADMIN.PERFM.EVENT",
    "SYSTEM.ADMIN.QMGR.EVENT",
    "SYSTEM.ADMIN.CHANNEL.EVENT",
    "SYSTEM.ADMIN.CONFIG.EVENT",
    "SYSTEM.ADMIN.COMMAND.EVENT",
]
EVENT_TYPES = {44: "Queue Mgr Event", 45: "Perfm Event", 46: "Channel Event", 99: "Command Event", 43: "Config Event"}
REASONS = {
    C.MQRC_Q_DEPTH_HIGH: "Queue Depth High",
    C.MQRC_Q_DEPTH_LOW: "Queue Depth Low",
    C.MQRC_Q_FULL: "Queue Full",
    C.MQRC_PUT_INHIBITED: "Put Inhibited",
    C.MQRC_GET_INHIBITED: "Get Inhibited",
    C.MQRC_UNKNOWN_OBJECT_NAME: "Unknown Object Name",
    C.MQRC_NOT_AUTHORIZED: "Not Authorized",
}
PARAMETERS = {
    C.MQCA_Q_MGR_NAME: "Queue Mgr Name",
    C.MQCA_BASE_Q_NAME: "Base Object Name",
    C.MQIA_TIME_SINCE_RESET: "Time Since Reset",
    C.MQIA_HIGH_Q_DEPTH: "High Queue Depth",
    C.MQIA_MSG_ENQ_COUNT: "Msg Enq Count",
    C.MQIA_MSG_DEQ_COUNT: "Msg Deq Count",
    C.MQIA_APPL_TYPE: "Appl Type",
    C.MQCACF_APPL_NAME: "Appl Name",
    C.MQCACH_CONNECTION_NAME: "Connection Name",
    C.MQIACF_REASON_QUALIFIER: "Reason Qualifier",
    C.MQIACF_OPEN_OPTIONS: "Open Options",
    C.MQCACF_USER_IDENTIFIER: "User Identifier",
    C.MQCA_Q_NAME: "Queue Name",
    C.MQCA_PROCESS_NAME: "Process Name",
    C.MQIACF_COMMAND: "Command",
}
_WIDTH = 31  # IBM's sample: labels padded to 31 characters, then ": "
# the prefixes of IBM's parameter constants (cmqc.h, cmqcfc.h), whose names give the labels of the others
_PARAMETER_PREFIXES = ("MQCA_", "MQIA_", "MQCACF_", "MQIACF_", "MQCACH_", "MQIACH_", "MQGACF_")


def _words(name: str) -> str:
    """IBM's sample's label of a constant: its words after the prefix, capitalised, Q spelt Queue
    (MQCACF_EVENT_USER_ID: Event User Id; MQRC_Q_MGR_ACTIVE: Queue Mgr Active)."""
    return " ".join("Queue" if w == "Q" else w.capitalize() for w in name.split("_")[1:])


def _names(prefixes: tuple[str, ...]) -> dict[int, str]:
    out: dict[int, str] = {}
    for name, value in vars(C).items():
        if (
            name.startswith(prefixes)
            and isinstance(value, int)
            and not name.endswith(("_FIRST", "_LAST", "_LAST_USED"))
        ):
            out.setdefault(value, _words(name))
    return out


PARAMETERS.update({v: label for v, label in _names(_PARAMETER_PREFIXES).items() if v not in PARAMETERS})
REASONS.update({v: label for v, label in _names(("MQRC_",)).items() if v not in REASONS})


def _created(md: Any) -> datetime | None:
    """The event's creation time: its MQMD's PutDate and PutTime (GMT, hundredths of a second)."""
    date, clock = md.PutDate.decode().strip(), md.PutTime.decode().strip()
    try:
        return datetime.strptime(date + clock[:6], "%Y%m%d%H%M%S").replace(
            microsecond=int(clock[6:8] or 0) * 10_000, tzinfo=UTC
        )
    except ValueError:
        return None


def _camel(label: str) -> str:
    words = label.replace("-", " ").split()
    return words[0].lower() + "".join(w[:1].upper() + w[1:] for w in words[1:]) if words else label


def decode(data: bytes) -> tuple[Any, list[tuple[str, Any]]]:
    """The MQCFH and the (label, value) of each parameter of an event message."""
    from syncpoint.pcf import parse

    cfh, params = parse(data)
    return cfh, _values(params)


def _values(params: list[Any]) -> list[tuple[str, Any]]:
    """(label, value) of each parameter; a group's value is its own members' list (IBM's MQCFGR)."""
    from syncpoint.pcf import MQCFGR, MQCFIN, MQCFST

    out: list[tuple[str, Any]] = []
    for p in params:
        label = PARAMETERS.get(p.Parameter, str(p.Parameter))
        if isinstance(p, MQCFST):
            out.append((label, p.String.decode(errors="replace").rstrip(" \0")))
        elif isinstance(p, MQCFIN):
            out.append((label, p.Value))
        elif isinstance(p, MQCFGR):
            out.append((label, _values(p.members)))
        else:
            out.append((label, repr(p)))
    return out


def _text_lines(params: list[tuple[str, Any]], indent: str = "  ") -> list[str]:
    """A parameter a line; a group's name on its own line, its members indented under it."""
    lines = []
    for label, value in params:
        if isinstance(value, list):
            lines.append(indent + label)
            lines += _text_lines(value, indent + "  ")
        else:
            lines.append(f"{indent + label:<{_WIDTH}}: {value}")
    return lines


def _json_data(params: list[tuple[str, Any]]) -> dict[str, Any]:
    return {_camel(label): _json_data(value) if isinstance(value, list) else value for label, value in params}


def format_text(number: int, queue: str, md: Any, data: bytes) -> str:
    cfh, params = decode(data)
    created = _created(md)
    when = created.strftime("%Y/%m/%d %H:%M:%S.") + f"{created.microsecond // 10_000:02d} GMT" if created else "-"
    lines = [
        f"**** Message #{number} ({len(data)} Bytes) on Queue {queue} ****",
        f"{'Event Type':<{_WIDTH}}: {EVENT_TYPES.get(cfh.Command, 'Event')} [{cfh.Command}]",
        f"{'Reason':<{_WIDTH}}: {REASONS.get(cfh.Reason, 'Reason')} [{cfh.Reason}]",
        f"{'Event created':<{_WIDTH}}: {when}",
    ]
    lines += _text_lines(params)
    return "\n".join(lines) + "\n"


def format_json(queue: str, qmgr: str, md: Any, data: bytes) -> str:
    cfh, params = decode(data)
    created = _created(md)
    event = {
        "eventSource": {"objectName": queue, "objectType": "Queue", "queueMgr": qmgr},
        "eventType": {"name": EVENT_TYPES.get(cfh.Command, "Event"), "value": cfh.Command},
        "eventReason": {"name": REASONS.get(cfh.Reason, "Reason"), "value": cfh.Reason},
        "eventCreation": {
            "timeStamp": created.strftime("%Y-%m-%dT%H:%M:%S.") + f"{created.microsecond // 10_000:02d}Z"
            if created
            else "",
            "epoch": int(created.timestamp()) if created else 0,
        },
        "eventData": _json_data(params),
    }
    return json.dumps(event, indent=2)


def amqsevt(
    m: Annotated[str, typer.Option("-m", help="queue manager")],
    q: Annotated[list[str] | None, typer.Option("-q", help="event queue (repeatable; default: IBM's standard set)")] = (
        None
    ),
    o: Annotated[str, typer.Option("-o", help="output format: text or json")] = "text",
    b: Annotated[bool, typer.Option("-b", help="browse: leave the messages on the queues")] = False,
    w: Annotated[float, typer.Option("-w", help="seconds to wait for a message before ending (default: 0)")] = 0.0,
) -> None:
    """Format the event messages on a queue manager's event queues, as IBM's amqsevt sample."""
    if o not in ("text", "json"):
        typer.echo(f"amqsevt: -o {o}: the output format is text or json", err=True)
        raise typer.Exit(2)
    if w < 0:
        typer.echo("amqsevt: -w takes a number of seconds, 0 or more", err=True)
        raise typer.Exit(2)
    try:
        qm = connect_running(m, appl_name="amqsevt")
    except MQMIError as e:
        typer.echo(f"MQCONN failed: {e.reason}: {e}", err=True)
        raise typer.Exit(20) from None
    number = 0
    try:
        queues = []
        for name in q or STANDARD_QUEUES:
            try:
                queues.append((name, qm.open(name, C.MQOO_BROWSE if b else C.MQOO_INPUT_AS_Q_DEF)))
            except MQMIError as e:
                if q:  # a queue asked for by name must open; of the standard set, those that exist are read
                    typer.echo(f"MQOPEN of {name} failed: {e.reason}: {e}", err=True)
                    raise typer.Exit(20) from None
        if b:  # browse: every message of each queue once, as it is now
            for name, queue in queues:
                for msg in queue.browse_all():
                    number += 1
                    _show(o, number, name, m, msg)
        else:
            # each pass takes what every queue holds; with -w, a pass that found nothing waits up to that long,
            # shared between the queues, before the program ends
            share = w / len(queues) if queues else 0.0
            idle = False
            while queues:
                got = False
                for name, queue in queues:
                    while (msg := _next(queue, share if idle else 0.0)) is not None:
                        got = True
                        number += 1
                        _show(o, number, name, m, msg)
                if not got and (idle or not w):
                    break
                idle = not got
    finally:
        qm.disconnect()
    if o == "text":
        typer.echo(f"{number} event message(s) formatted.", err=True)


def _next(queue: Any, wait: float) -> Any:
    """The next message of ``queue`` (waiting up to ``wait`` seconds), or None."""
    try:
        return queue.get(wait=wait) if wait > 0 else queue.get_or_none()
    except MQMIError as e:
        if e.reason == C.MQRC_NO_MSG_AVAILABLE:
            return None
        raise


def _show(o: str, number: int, queue: str, qmgr: str, msg: Any) -> None:
    print(format_json(queue, qmgr, msg.md, msg.data) if o == "json" else format_text(number, queue, msg.md, msg.data))
    sys.stdout.flush()


def register(app: typer.Typer) -> None:
    app.command("amqsevt")(amqsevt)
