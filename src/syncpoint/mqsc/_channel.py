"""MQSC for message channels: DEFINE / ALTER / DELETE / DISPLAY CHANNEL checks, START / STOP / PING / RESET /
RESOLVE CHANNEL and DISPLAY CHSTATUS.

The channel commands that act on a running channel are requests to the queue manager's channel initiator: a
message of Format SPCHLCMD (JSON) on SYSTEM.CHANNEL.INITQ with a temporary dynamic reply queue, answered there
(docs/distributed-queuing.md). So they work the same from runmqsc on the queue manager's machine and over the
network, and a queue manager whose channel initiator is not running says so (AMQ8494E) instead of hanging.

Implements: reference/mqsc.md (channel commands); issue 23 item 3.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from syncpoint.client import channel_command, svrconn_status

from ._parser import MqscSyntaxError, Token

CHANNEL_VERBS = {
    "START": "START",
    "STA": "START",
    "STOP": "STOP",
    "PING": "PING",
    "RESET": "RESET",
    "RESOLVE": "RESOLVE",
}
# what DISPLAY CHSTATUS shows (ALL) and what it shows without ALL (IBM's default set)
CHSTATUS_KEYWORDS = frozenset(
    {
        "CHANNEL",
        "CHLTYPE",
        "STATUS",
        "XMITQ",
        "CONNAME",
        "RQMNAME",
        "CURSEQNO",
        "LSTLUWID",
        "INDOUBT",
        "MSGS",
        "BATCHES",
        "LONGRTS",
        "SHORTRTS",
        "LSTMSGDA",
        "LSTMSGTI",
        "CHSTADA",
        "CHSTATI",
        "MCAUSER",
        "STOPREASON",
        "CURRENT",
        "SAVED",
        "CURSHCNV",
        "RAPPLTAG",
        "SSLPEER",
        "SSLCERTI",
    }
)
CHSTATUS_DEFAULT = ("CHLTYPE", "CONNAME", "CURRENT", "RQMNAME", "STATUS", "XMITQ")
CHSTATUS_IGNORED = frozenset({"CMDSCOPE", "CHLDISP", "MONITOR", "SHORT", "SUBSTATE", "STATCHL", "JOBNAME", "MCASTAT"})
MAX_CHANNEL_NAME = 20
REPLY_WAIT_MS = 15_000


_UNSUPPORTED_TYPES = frozenset({"CLNTCONN", "CLUSSDR", "CLUSRCVR", "AMQP", "MQTT"})


def unsupported_channel_type(tokens: list[Token]) -> str | None:
    """The phrase for a channel type syncpoint has no such channels of (client channel tables, clusters), else
    None."""
    for t in tokens:
        if t.keyword == "CHLTYPE" and (t.value or "").strip().upper() in _UNSUPPORTED_TYPES:
            return f"{(t.value or '').strip().upper()} channels"
    return None


def parse_channel_command(verb: str, tokens: list[Token], make: Callable[..., Any]) -> Any:
    """START / STOP / PING / RESET / RESOLVE CHANNEL(name) [SEQNUM(n)] [ACTION(COMMIT|BACKOUT)] → a request
    (``make``: the grammar's Request type)."""
    noun = tokens[1]
    if not noun.has_value or not noun.items or len(noun.items) != 1:
        raise MqscSyntaxError(f"{verb} CHANNEL needs the channel's name in parentheses", noun.end)
    name = noun.items[0]
    _check_name(name, noun)
    req = make(verb, "CHANNEL", name)
    for t in tokens[2:]:
        k = t.keyword
        if verb == "RESET" and k == "SEQNUM":
            value = (t.value or "").strip()
            if not value.isdigit() or not 1 <= int(value) <= 999_999_999:
                raise MqscSyntaxError("SEQNUM takes a number from 1 to 999999999", t.end)
            req.attrs["SEQNUM"] = int(value)
        elif verb == "RESOLVE" and k == "ACTION":
            value = (t.value or "").strip().upper()
            if value not in ("COMMIT", "BACKOUT"):
                raise MqscSyntaxError("ACTION takes COMMIT or BACKOUT", t.end)
            req.attrs["ACTION"] = value
        elif verb == "STOP" and k in ("MODE", "STATUS"):
            # IBM's STOP CHANNEL: MODE(QUIESCE) finishes the current batch, MODE(FORCE|TERMINATE) stop now (the
            # batch may be left in doubt); STATUS(STOPPED) needs a START, STATUS(INACTIVE) ends it normally
            value = (t.value or "").strip().upper()
            allowed = ("QUIESCE", "FORCE", "TERMINATE") if k == "MODE" else ("STOPPED", "INACTIVE")
            if value not in allowed:
                raise MqscSyntaxError(f"{k} takes {' or '.join(allowed)}", t.end)
            req.attrs[k] = value
        elif verb == "STOP" and k in ("CONNAME", "QMNAME"):
            continue  # IBM's instance selectors: a syncpoint channel has one instance
        elif k in ("CMDSCOPE", "CHLDISP", "DATALEN"):
            continue
        else:
            raise MqscSyntaxError(f"{k} is not a keyword of {verb} CHANNEL", t.end)
    if verb == "RESOLVE" and "ACTION" not in req.attrs:
        raise MqscSyntaxError("RESOLVE CHANNEL needs ACTION(COMMIT) or ACTION(BACKOUT)", tokens[-1].end)
    return req


def _check_name(name: str, tok: Token) -> None:
    if len(name.rstrip("*")) > MAX_CHANNEL_NAME:
        raise MqscSyntaxError(f"a channel name has at most {MAX_CHANNEL_NAME} characters", tok.end)


def check_channel_request(req: Any, noun: Token) -> None:
    """What DEFINE / ALTER / DELETE / DISPLAY CHANNEL need beyond the common grammar."""
    if req.name is not None:
        _check_name(req.name, noun)
    if req.verb == "DEFINE" and "CHLTYPE" not in req.attrs and req.like is None:
        raise MqscSyntaxError("DEFINE CHANNEL needs CHLTYPE(SDR|SVR|RCVR|RQSTR|SVRCONN)", noun.end)


def channel_request(qm: Any, request: dict[str, Any]) -> dict[str, Any]:
    """Send one command to the queue manager's channel initiator and wait for its answer."""
    return channel_command(qm, request, REPLY_WAIT_MS)


def run_channel_command(
    qm: Any, req: Any, out_lines: list[str], format_pairs: Callable[[list[tuple[str, str | None]]], list[str]]
) -> bool:
    """START / STOP / PING / RESET / RESOLVE CHANNEL or DISPLAY CHSTATUS; the answer's lines into ``out_lines``;
    True when it succeeded."""
    if req.otype == "CHSTATUS":
        clients = svrconn_status(qm, req.name or "*")  # clients' connections: the queue manager's own
        answer = channel_request(qm, {"op": "DISPLAY", "channel": req.name})
        if not answer.get("ok") and not clients:
            out_lines.extend(answer.get("lines", []))
            return False
        rows = sorted(answer.get("status", []) + clients, key=lambda r: str(r.get("CHANNEL", "")))
        wanted = req.wanted if req.wanted else list(CHSTATUS_DEFAULT) if req.wanted is not None else None
        for row in rows:
            if req.where is not None and str(row.get(req.where.keyword, "")) != req.where.value:
                continue
            out_lines.append("AMQ8417I: Display Channel Status details.")
            out_lines.extend(format_pairs(status_pairs(row, wanted)))
        if not rows:
            out_lines.append("AMQ8420I: Channel Status not found.")
            return False
        return True
    request: dict[str, Any] = {"op": req.verb, "channel": req.name}
    if "SEQNUM" in req.attrs:
        request["seqnum"] = req.attrs["SEQNUM"]
    if "ACTION" in req.attrs:
        request["action"] = req.attrs["ACTION"]
    if "MODE" in req.attrs:
        request["mode"] = req.attrs["MODE"]
    if "STATUS" in req.attrs:
        request["status"] = req.attrs["STATUS"]
    answer = channel_request(qm, request)
    out_lines.extend(answer.get("lines", []))
    return bool(answer.get("ok"))


def luwid(batch_id: str) -> str:
    """LSTLUWID as IBM shows it: 16 hexadecimal digits, zeros before the first batch (an id kept by an older
    syncpoint, 32 digits, shows its first 16)."""
    return batch_id[:16].upper() if batch_id else "0" * 16


def status_pairs(row: dict[str, Any], wanted: list[str] | None) -> list[tuple[str, str | None]]:
    """A channel's status as DISPLAY CHSTATUS lists it: CHANNEL first, then the rest alphabetically."""
    values: dict[str, str | None] = {k: str(v) for k, v in row.items() if k != "CHANNEL"}
    if "LSTLUWID" in values:
        values["LSTLUWID"] = luwid(str(row["LSTLUWID"]))
    values["CURRENT"] = None
    keys = sorted(values) if wanted is None else sorted(set(wanted) & set(values))
    return [("CHANNEL", str(row["CHANNEL"]))] + [(k, values[k]) for k in keys]
