"""MQSC for queue-sharing groups' units of work: DISPLAY THREAD and RESOLVE INDOUBT, as IBM MQ for z/OS has them.

IBM's syntax (z/OS)::

    DISPLAY THREAD(*|connection-name) TYPE(ACTIVE|INDOUBT|REGIONS|*) QMNAME(qmgr) CMDSCOPE(...)     synonym DIS THD
    RESOLVE INDOUBT(connection-name) ACTION(COMMIT|BACKOUT) NID(*|network-id,...) QMNAME(qmgr) CMDSCOPE(...)
                                                                                                   synonym RES IND

The subset syncpoint keeps (docs/queue-sharing-groups.md, "Resolving in-doubt units of work"): the connection
name of a shared unit of work in doubt is the member that coordinates it (IBM: "for an IMS bridge connection, the
queue manager's name"), so ``*`` or a member name, generic names allowed on DISPLAY; NID is the unit of work's
network id as DISPLAY THREAD shows it (``QMA.3F9A0C1B2D4E.17``) or ``*``; QMNAME names the member whose units of
work are meant (default: the member running the command). TYPE(REGIONS) is not kept (no IMS or CICS regions);
CMDSCOPE is accepted and ignored (the command runs where it is entered).

Answers use IBM's z/OS message numbers: CSQV401I DISPLAY THREAD REPORT FOLLOWS, CSQV402I ACTIVE THREADS,
CSQV406I INDOUBT THREADS, CSQV436I INDOUBT THREADS FOR qmgr, CSQV414I/CSQV415I THREAD NID=… COMMIT / ABORT
SCHEDULED, CSQ9022I … NORMAL COMPLETION; each thread is then shown as KEY(VALUE) pairs, as runmqsc shows a
DISPLAY.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from syncpoint.mqi.syntax import is_object_name

from ._parser import MqscSyntaxError, Token

THREAD = "THREAD"
INDOUBT = "INDOUBT"
THREAD_NOUNS = ("THREAD", "THD")
INDOUBT_NOUNS = ("INDOUBT", "IND")
_TYPES = ("ACTIVE", "INDOUBT", "*")


def is_qsg_command(word: str, tokens: list[Token]) -> bool:
    """DISPLAY THREAD or RESOLVE INDOUBT (parsed here, not by the object grammar)."""
    if len(tokens) < 2:
        return False
    noun = tokens[1].keyword
    if word in ("DISPLAY", "DIS"):
        return noun in THREAD_NOUNS
    return word in ("RESOLVE", "RES") and noun in INDOUBT_NOUNS


def _one(t: Token, what: str) -> str:
    if not t.has_value or not t.items or len(t.items) != 1 or not t.items[0].strip():
        raise MqscSyntaxError(f"{t.keyword} takes one {what} in parentheses", t.end)
    return t.items[0].strip()


def _name(t: Token, generic: bool) -> str:
    name = _one(t, "connection name")
    if name == "*":
        return name
    bare = name[:-1] if generic and name.endswith("*") else name
    if not bare or not is_object_name(bare.upper()) or len(bare) > 48:
        raise MqscSyntaxError("the connection name is a queue manager name (or * for every one)", t.end)
    return name.upper()


def parse_qsg_command(word: str, tokens: list[Token], make: Callable[..., Any]) -> Any:
    """DISPLAY THREAD(...) / RESOLVE INDOUBT(...) → a request (``make``: the grammar's Request type).

    DISPLAY THREAD: ``req.name`` the connection name, ``req.type_filter`` ACTIVE / INDOUBT / *, ``req.attrs``
    QMNAME. RESOLVE INDOUBT: ``req.name``, ``req.attrs`` ACTION, NID (a list, or None for ``*``) and QMNAME."""
    display = word in ("DISPLAY", "DIS")
    noun = tokens[1]
    req = make("DISPLAY" if display else "RESOLVE", THREAD if display else INDOUBT, _name(noun, display))
    req.type_filter = "ACTIVE"  # IBM's default TYPE of DISPLAY THREAD
    seen: set[str] = set()
    for t in tokens[2:]:
        k = t.keyword
        if k in seen:
            raise MqscSyntaxError(f"{k} is given twice", t.end)
        seen.add(k)
        if k == "QMNAME":
            qm = _one(t, "queue manager name").upper()
            if not is_object_name(qm) or len(qm) > 48:
                raise MqscSyntaxError("QMNAME takes a queue manager name", t.end)
            req.attrs["QMNAME"] = qm
        elif k == "CMDSCOPE":
            continue  # the command runs on the member it is entered on
        elif display and k == "TYPE":
            value = _one(t, "type").upper()
            if value == "REGIONS":
                req.unsupported = "DISPLAY THREAD TYPE(REGIONS)"
                return req
            if value not in _TYPES:
                raise MqscSyntaxError("TYPE of DISPLAY THREAD is ACTIVE, INDOUBT or *", t.end)
            req.type_filter = value
        elif not display and k == "ACTION":
            value = _one(t, "action").upper()
            if value not in ("COMMIT", "BACKOUT"):
                raise MqscSyntaxError("ACTION takes COMMIT or BACKOUT", t.end)
            req.attrs["ACTION"] = value
        elif not display and k == "NID":
            if not t.has_value or not t.items:
                raise MqscSyntaxError("NID takes * or one or more network ids (as DISPLAY THREAD shows them)", t.end)
            items = [i.strip() for i in t.items if i.strip()]
            req.attrs["NID"] = None if items == ["*"] else items
        else:
            command = "DISPLAY THREAD" if display else "RESOLVE INDOUBT"
            raise MqscSyntaxError(f"{k} is not a keyword of {command}", t.end)
    if not display:
        if "ACTION" not in req.attrs:
            raise MqscSyntaxError("RESOLVE INDOUBT needs ACTION(COMMIT) or ACTION(BACKOUT)", tokens[-1].end)
        if "NID" not in req.attrs:
            raise MqscSyntaxError("RESOLVE INDOUBT needs NID(*) or NID(network-id, ...)", tokens[-1].end)
    return req


def qsg_syntax(noun: str) -> list[str]:
    """AMQ8427I's valid syntax of these commands."""
    if noun == THREAD:
        return ["DISPLAY THREAD( * | connection_name ) [ TYPE( ACTIVE | INDOUBT | * ) ] [ QMNAME( qmgr_name ) ]"]
    return [
        "RESOLVE INDOUBT( connection_name ) ACTION( COMMIT | BACKOUT ) NID( * | network_id, ... )",
        "        [ QMNAME( qmgr_name ) ]",
    ]


def run_qsg_command(
    admin: Callable[..., Any],
    qmgr: str,
    req: Any,
    out_lines: list[str],
    format_pairs: Callable[[list[tuple[str, str | None]]], list[str]],
) -> bool:
    """Run DISPLAY THREAD / RESOLVE INDOUBT with the connection's administrative verbs (``admin``); the answer's
    lines into ``out_lines``; True when it succeeded. MQMIError (a refusal) is the caller's to report."""
    qmname = req.attrs.get("QMNAME")
    if req.verb == "RESOLVE":
        answer = admin("indoubt_resolve", req.name, req.attrs["ACTION"], req.attrs["NID"], qmname)
        word = "COMMIT" if req.attrs["ACTION"] == "COMMIT" else "ABORT"
        number = "CSQV414I" if word == "COMMIT" else "CSQV415I"
        for nid in answer["resolved"]:
            out_lines.append(f"{number} THREAD NID={nid} {word} SCHEDULED")
        for nid in answer["missing"]:
            out_lines.append(f"AMQ8147E: syncpoint in-doubt unit of work NID={nid} of {qmname or qmgr} not found.")
        if not answer["resolved"] and not answer["missing"]:
            out_lines.append(f"AMQ8147E: syncpoint in-doubt units of work of {qmname or qmgr} not found.")
        ok = bool(answer["resolved"]) and not answer["missing"]
        out_lines.append("CSQ9022I CSQVRI ' RESOLVE INDOUBT' NORMAL COMPLETION" if ok else _abnormal("RESOLVE INDOUBT"))
        return ok
    out_lines.append("CSQV401I DISPLAY THREAD REPORT FOLLOWS -")
    kinds = ["ACTIVE", "INDOUBT"] if req.type_filter == "*" else [req.type_filter]
    for kind in kinds:
        rows = admin("threads", kind, req.name, qmname)
        if kind == "ACTIVE":
            out_lines.append("CSQV402I ACTIVE THREADS -")
        elif qmname is not None:
            out_lines.append(f"CSQV436I INDOUBT THREADS FOR {qmname} -")
        else:
            out_lines.append("CSQV406I INDOUBT THREADS -")
        for row in rows:
            pairs: list[tuple[str, str | None]] = []
            for key, value in row.items():
                if key == "QUEUES":
                    value = ",".join(value)
                elif key == "ACTIVE":
                    value = "YES" if value else "NO"
                pairs.append((key, str(value)))
            out_lines.extend(format_pairs(pairs))
        out_lines.append(f"DISPLAY {kind} REPORT COMPLETE ({len(rows)} THREAD{'' if len(rows) == 1 else 'S'})")
    out_lines.append("CSQ9022I CSQVDT ' DISPLAY THREAD' NORMAL COMPLETION")
    return True


def _abnormal(what: str) -> str:
    return f"CSQ9023E CSQVRI ' {what}' ABNORMAL COMPLETION"
