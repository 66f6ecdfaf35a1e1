"""The administrative API: ``/admin/qmgr``, ``/admin/qmgr/{qmgr}/queue[/{queue}]`` and
``/admin/action/qmgr/{qmgr}/mqsc``.

The queue resource answers IBM's JSON shape: ``{"queue": [{"name": …, "type": "local" | "alias" | "remote" |
"model", …}]}``; by default each queue shows its name and type, ``attributes=*`` (or a list such as
``general.description,storage``) adds IBM's groups (``general``, ``storage``, ``trigger``, ``alias``, ``remote``,
``timestamps``), ``status=*`` (or ``status.currentDepth,…``) adds the ``status`` group of local queues, ``name``
filters by a generic name (``APP.*``) and ``type`` by type. An unknown query parameter, group or field is refused
(400) rather than ignored.

The MQSC action runs MQSC through the MQSC command processor (``syncpoint.mqsc``), over the request's own
connection. ``runCommand`` answers each command's lines in ``text`` (one item per object for DISPLAY, as IBM);
``runCommandJSON`` builds the command from ``command``, ``qualifier``, ``name``, ``parameters`` and
``responseParameters`` and answers each object's attributes in ``parameters`` (keys in lower case, numbers as JSON
numbers); a command that failed answers its messages in ``message``. HTTP 200 either way: the codes tell
(``completionCode`` / ``reasonCode`` per item, ``overallCompletionCode`` / ``overallReasonCode``; a failed command's
overall reason is MQRCCF_COMMAND_FAILED, 3008).
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse

from syncpoint.mqi import MQMIError, matches_generic
from syncpoint.mqi import constants as C
from syncpoint.mqi.objects import QALIAS, QLOCAL, QMODEL, QREMOTE, QUEUE_TYPES, Definition

from ._errors import MQRCCF_COMMAND_FAILED, RestError, admin_failure, bad_request, malformed_json
from ._messaging import with_connection

if TYPE_CHECKING:
    from syncpoint.client import QueueManager

    from ._context import Rest

TYPE_NAMES = {QLOCAL: "local", QALIAS: "alias", QREMOTE: "remote", QMODEL: "model"}
_ENABLED = {0: False, 1: True}


def _bool_inhibit(value: Any) -> bool:
    return bool(value)


def queue_json(d: Definition, status: dict[str, Any] | None) -> dict[str, Any]:
    """Every group IBM's queue resource has, for definition ``d`` (``status`` for local queues)."""
    a = d.attrs
    out: dict[str, Any] = {"name": d.name, "type": TYPE_NAMES[d.otype]}
    general: dict[str, Any] = {"description": a.get("DESCR", ""), "inhibitPut": _bool_inhibit(a.get("PUT", 0))}
    if "GET" in a:
        general["inhibitGet"] = _bool_inhibit(a["GET"])
    if "USAGE" in a:
        general["isTransmissionQueue"] = a["USAGE"] == C.MQUS_TRANSMISSION
    out["general"] = general
    if d.otype in (QLOCAL, QMODEL):
        out["storage"] = {"maximumDepth": a["MAXDEPTH"], "maximumMessageLength": a["MAXMSGL"]}
        out["trigger"] = {
            "enabled": bool(a["TRIGGER"]),
            "type": {0: "none", 1: "first", 2: "every", 3: "depth"}.get(a["TRIGTYPE"], str(a["TRIGTYPE"])),
            "depth": a["TRIGDPTH"],
            "messagePriority": a["TRIGMPRI"],
            "data": a["TRIGDATA"],
            "initiationQueueName": a["INITQ"],
            "processName": a["PROCESS"],
        }
    if d.otype == QALIAS:
        out["alias"] = {"target": a["TARGET"], "targetType": str(a.get("TARGTYPE", "queue")).lower()}
    if d.otype == QREMOTE:
        out["remote"] = {
            "queueName": a["RNAME"],
            "qmgrName": a["RQMNAME"],
            "transmissionQueueName": a["XMITQ"],
        }
    out["timestamps"] = {"created": _iso(d.created), "altered": _iso(d.altered or d.created)}
    if status is not None:
        qtime = status.get("QTIME") or []
        out["status"] = {
            "currentDepth": status["CURDEPTH"],
            "openInputCount": status["IPPROCS"],
            "openOutputCount": status["OPPROCS"],
            "uncommittedMessages": status["UNCOM"],
            "oldestMessageAge": status["MSGAGE"],
            "lastGet": _mqsc_stamp(status["LGETDATE"], status["LGETTIME"]),
            "lastPut": _mqsc_stamp(status["LPUTDATE"], status["LPUTTIME"]),
            "onQueueTime": {
                "shortSamplePeriod": qtime[0] if qtime else -1,
                "longSamplePeriod": qtime[1] if qtime else -1,
            },
        }
    return out


def _iso(t: float) -> str:
    import datetime as dt

    return dt.datetime.fromtimestamp(t, dt.UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z" if t else ""


def _mqsc_stamp(date: str, time: str) -> str:
    return f"{date}T{time.replace('.', ':')}" if date else ""


_GROUPS = ("general", "storage", "trigger", "alias", "remote", "timestamps")
_QUERY = {"name", "type", "attributes", "status"}


def _selection(value: str | None, allowed: tuple[str, ...], what: str) -> set[str] | None:
    """``*`` → every group; ``a,b.c`` → those groups / fields; None → none."""
    if value is None:
        return None
    if value == "*":
        return set(allowed)
    chosen = {v.strip() for v in value.split(",") if v.strip()}
    for item in chosen:
        if item.split(".")[0] not in allowed:
            raise bad_request("MQWB0302E", f"{item[:60]} is not a {what} of a queue; they are: {', '.join(allowed)}.")
    return chosen


def _filtered(full: dict[str, Any], chosen: set[str]) -> dict[str, Any]:
    out = {"name": full["name"], "type": full["type"]}
    for item in sorted(chosen):
        group, _, field = item.partition(".")
        if group not in full:
            continue
        if not field:
            out[group] = full[group]
        elif field in full[group]:
            out.setdefault(group, {})[field] = full[group][field]
        else:
            raise bad_request("MQWB0302E", f"{item[:60]} is not an attribute of a queue.")
    return out


def list_queues(qm: QueueManager, name: str | None, params: dict[str, str]) -> list[dict[str, Any]]:
    for key in params:
        if key not in _QUERY:
            raise bad_request("MQWB0302E", f"The query parameter {key[:40]} is not valid: {', '.join(sorted(_QUERY))}.")
    wanted_type = params.get("type", "all").lower()
    types = [t for t in QUEUE_TYPES if wanted_type in ("all", TYPE_NAMES[t])]
    if not types:
        raise bad_request("MQWB0302E", f"type={wanted_type[:20]} is not all, local, alias, remote or model.")
    attributes = _selection(params.get("attributes"), _GROUPS, "group")
    status = _selection(params.get("status"), ("status",), "status field")
    pattern = params.get("name", "*")
    defs: list[Definition] = []
    if name is not None:
        for t in types:
            d = qm.admin("lookup", t, name)
            if d is not None:
                defs.append(d)
        if not defs:
            raise admin_failure(MQMIError(C.MQCC_FAILED, C.MQRC_UNKNOWN_OBJECT_NAME, f"queue {name} does not exist"))
    else:
        for t in types:
            defs.extend(d for d in qm.admin("list_objects", t) if matches_generic(pattern.upper(), d.name))
        defs.sort(key=lambda d: d.name)
    out = []
    for d in defs:
        st = qm.admin("queue_status", d.name) if status is not None and d.otype == QLOCAL else None
        full = queue_json(d, st)
        out.append(_filtered(full, (attributes or set()) | (status or set())))
    return out


async def get_queues(rest: Rest, request: Request, user: str, qmgr: str, name: str | None) -> JSONResponse:
    rest.check_qmgr(qmgr)
    try:
        queues = await run_in_threadpool(with_connection, rest, user, list_queues, name, dict(request.query_params))
    except MQMIError as e:
        raise admin_failure(e) from None
    return JSONResponse({"queue": queues})


# ---------------------------------------------------------------------------------------------------------------
# MQSC
# ---------------------------------------------------------------------------------------------------------------
_REASON_LINE = re.compile(r"^\s+MQRC\w*\s+\((\d+)\)")
_HEADER = re.compile(r"^AMQ\d{4}I: Display")


def _reason_of(lines: list[str]) -> int:
    for line in lines:
        m = _REASON_LINE.match(line)
        if m:
            return int(m.group(1))
    return MQRCCF_COMMAND_FAILED


def _display_items(lines: list[str]) -> list[list[str]]:
    """A DISPLAY's lines, one list per object (each starts with its AMQ84xxI header)."""
    items: list[list[str]] = []
    for line in lines:
        if _HEADER.match(line) or not items:
            items.append([line])
        else:
            items[-1].append(line)
    return items


def _json_value(value: str) -> Any:
    text = value.strip()
    if re.fullmatch(r"-?\d{1,18}", text):
        return int(text)
    return value


def _parameters(pairs: list[tuple[str, str | None]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if value is None:  # a bare word: NOTRIGGER is trigger: "NOTRIGGER"
            base = key[2:] if key.startswith("NO") else key
            out[base.lower()] = key
        else:
            out[key.lower()] = _json_value(value)
    return out


def _quote(value: Any) -> str:
    if isinstance(value, bool):
        return "YES" if value else "NO"
    if isinstance(value, (int, float)):
        return str(value)
    if isinstance(value, list):
        return ",".join(_quote(v) for v in value)
    if isinstance(value, str):
        return "'" + value.replace("'", "''") + "'"
    raise ValueError(f"{value!r} is not a value an MQSC attribute takes")


def command_text(body: dict[str, Any]) -> str:
    """The MQSC text of a runCommandJSON request; ValueError naming what is wrong."""
    for key in body:
        if key not in ("type", "command", "qualifier", "name", "parameters", "responseParameters"):
            raise ValueError(f"{key} is not a field of runCommandJSON")
    command, qualifier = body.get("command"), body.get("qualifier")
    if not isinstance(command, str) or not re.fullmatch(r"[A-Za-z]{1,16}", command):
        raise ValueError("command is a word such as display, define, alter, delete")
    if not isinstance(qualifier, str) or not re.fullmatch(r"[A-Za-z]{1,16}", qualifier):
        raise ValueError("qualifier is a word such as qlocal, qstatus, qmgr, channel")
    text = f"{command.upper()} {qualifier.upper()}"
    name = body.get("name")
    if name is not None:
        if not isinstance(name, str) or not name:
            raise ValueError("name is a non-empty string")
        text += f"({_quote(name)})"
    params = body.get("parameters", {})
    if not isinstance(params, dict):
        raise ValueError("parameters is an object of attribute names and values")
    for key, value in params.items():
        if not re.fullmatch(r"[A-Za-z][A-Za-z0-9]{0,15}", key):
            raise ValueError(f"{key[:40]} is not an attribute name")
        text += f" {key.upper()}" if value is None else f" {key.upper()}({_quote(value)})"
    wanted = body.get("responseParameters")
    if wanted is not None:
        if not isinstance(wanted, list) or not all(
            isinstance(w, str) and re.fullmatch(r"[A-Za-z][A-Za-z0-9]{0,15}|\*", w) for w in wanted
        ):
            raise ValueError("responseParameters is a list of attribute names")
        text += "".join(f" {'ALL' if w == '*' else w.upper()}" for w in wanted)
    return text


def run_mqsc(qm: QueueManager, text: str, as_json: bool) -> dict[str, Any]:
    from syncpoint.mqsc import MqscProcessor

    response = MqscProcessor(qm, echo=False).execute(text)
    items: list[dict[str, Any]] = []
    if response.ok:
        if as_json and response.objects:
            items = [{"completionCode": 0, "reasonCode": 0, "parameters": _parameters(p)} for p in response.objects]
        elif as_json:
            items = [{"completionCode": 0, "reasonCode": 0, "message": response.lines}]
        elif response.lines and _HEADER.match(response.lines[0]):
            items = [{"completionCode": 0, "reasonCode": 0, "text": lines} for lines in _display_items(response.lines)]
        else:
            items = [{"completionCode": 0, "reasonCode": 0, "text": response.lines}]
        overall = (C.MQCC_OK, C.MQRC_NONE)
    else:
        reason = _reason_of(response.lines)
        items = [
            {"completionCode": C.MQCC_FAILED, "reasonCode": reason, ("message" if as_json else "text"): response.lines}
        ]
        overall = (C.MQCC_FAILED, MQRCCF_COMMAND_FAILED)
    return {"commandResponse": items, "overallCompletionCode": overall[0], "overallReasonCode": overall[1]}


async def post_mqsc(rest: Rest, request: Request, user: str, qmgr: str) -> JSONResponse:
    rest.check_qmgr(qmgr)
    media = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if media != "application/json":
        raise RestError(
            415,
            "MQWB0306E",
            "The media type is unsupported for this type of request.",
            f"The MQSC action takes application/json, not {media or 'a body without a Content-Type'}.",
            "Resubmit the request with Content-Type: application/json.",
        )
    raw = await request.body()
    try:
        body = json.loads(raw)
    except (ValueError, UnicodeDecodeError) as e:
        raise malformed_json(str(e)) from None
    if not isinstance(body, dict):
        raise malformed_json("the body is not a JSON object")
    kind = body.get("type")
    if kind == "runCommand":
        params = body.get("parameters")
        extra = set(body) - {"type", "parameters"}
        if (
            extra
            or not isinstance(params, dict)
            or set(params) != {"command"}
            or not isinstance(params["command"], str)
        ):
            raise malformed_json('runCommand takes {"type": "runCommand", "parameters": {"command": "MQSC text"}}')
        text, as_json = params["command"], False
        if not text.strip():
            raise malformed_json("the command is empty")
    elif kind == "runCommandJSON":
        try:
            text = command_text(body)
        except ValueError as e:
            raise malformed_json(str(e)) from None
        as_json = True
    else:
        raise malformed_json("type is runCommand or runCommandJSON")
    answer = await run_in_threadpool(with_connection, rest, user, run_mqsc, text, as_json)
    return JSONResponse(answer)
