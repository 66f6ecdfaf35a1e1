"""MQSC for the object authority manager: SET / DELETE / DISPLAY AUTHREC, DISPLAY ENTAUTH, REFRESH SECURITY.

Each command is checked here (its keywords, IBM's OBJTYPE words, exactly one of PRINCIPAL and GROUP), then run
by the queue manager's administrative verbs (``set_authrec``, ``delete_authrec``, ``authrecs``,
``entity_authority``, ``refresh_security``: the engine's ``_authority``), which refuse a bad profile, authority or
entity with nothing stored. Authority names are MQSC's (GET, PUT, ALLMQI …); the engine speaks setmqaut's.

Implements: reference/operations.md ("The object authority manager"); issue 35 item 2. IBM's messages:
AMQ8862I (set), AMQ8863I (deleted), AMQ8864I (DISPLAY AUTHREC), AMQ8866I (DISPLAY ENTAUTH), AMQ8560I (REFRESH
SECURITY).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ._parser import MqscSyntaxError, Token

AUTHREC = "AUTHREC"
ENTAUTH = "ENTAUTH"
SECURITY = "SECURITY"
_OBJTYPES = {
    "QUEUE": "queue",
    "Q": "queue",
    "QMGR": "qmgr",
    "PROCESS": "process",
    "NAMELIST": "namelist",
    "TOPIC": "topic",
    "CHANNEL": "channel",
    "AUTHINFO": "authinfo",
}
_UNSUPPORTED_OBJTYPES = frozenset({"CLNTCONN", "COMMINFO", "LISTENER", "RQMNAME", "SERVICE"})
_KEYWORDS = {
    ("SET", AUTHREC): {"PROFILE", "OBJTYPE", "PRINCIPAL", "GROUP", "AUTHADD", "AUTHRMV", "SERVCOMP"},
    ("DELETE", AUTHREC): {"PROFILE", "OBJTYPE", "PRINCIPAL", "GROUP", "SERVCOMP"},
    ("DISPLAY", AUTHREC): {"PROFILE", "OBJTYPE", "PRINCIPAL", "GROUP", "MATCH", "SERVCOMP", "ALL", "ENTITY"},
    ("DISPLAY", ENTAUTH): {"OBJNAME", "OBJTYPE", "PRINCIPAL", "GROUP", "SERVCOMP", "ALL"},
    ("REFRESH", SECURITY): {"TYPE"},
}
_VERB_WORDS = {"SET": "SET", "DELETE": "DELETE", "DEL": "DELETE", "DISPLAY": "DISPLAY", "DIS": "DISPLAY"}
_REFRESH_WORDS = {"REFRESH", "REF"}
_PRODUCT = "syncpoint"


def is_authrec_command(word: str, tokens: list[Token]) -> bool:
    if len(tokens) < 2:
        return False
    noun = tokens[1].keyword
    if word in _REFRESH_WORDS:
        return False  # REFRESH SECURITY [TYPE(…)]: one command for every type (``_commands._refresh_security``)
    return word in _VERB_WORDS and (noun == AUTHREC or (noun == ENTAUTH and _VERB_WORDS[word] == "DISPLAY"))


def parse_authrec_command(word: str, tokens: list[Token], make: Callable[..., Any]) -> Any:
    """The command as a request (``make``: the grammar's Request type): ``otype`` AUTHREC, ENTAUTH or SECURITY,
    ``attrs`` the checked keywords (OBJTYPE as the engine's type, AUTHADD / AUTHRMV as lists of setmqaut
    names)."""
    verb = "REFRESH" if word in _REFRESH_WORDS else _VERB_WORDS[word]
    noun = tokens[1]
    if noun.has_value and noun.keyword != SECURITY:
        raise MqscSyntaxError(f"{noun.keyword} takes no value", noun.end)
    allowed = _KEYWORDS[(verb, noun.keyword)]
    attrs: dict[str, Any] = {}
    for t in tokens[2:]:
        kw = t.keyword
        if kw not in allowed:
            raise MqscSyntaxError(f"{kw} is not a keyword of {verb} {noun.keyword}", t.end)
        if kw in attrs:
            raise MqscSyntaxError(f"{kw} is given twice", t.end)
        if kw == "ALL":
            attrs[kw] = True
            continue
        if not t.has_value or not t.items:
            raise MqscSyntaxError(f"{kw} needs a value", t.end)
        if kw in ("AUTHADD", "AUTHRMV"):
            attrs[kw] = [i.strip().lower() for i in t.items]
        elif kw == "OBJTYPE":
            v = (t.value or "").strip().upper()
            if v in _UNSUPPORTED_OBJTYPES:
                return make(verb, otype=noun.keyword, unsupported=f"authority records of OBJTYPE({v})")
            if v not in _OBJTYPES:
                raise MqscSyntaxError(f"OBJTYPE({v}) is not an object type", t.end)
            attrs[kw] = _OBJTYPES[v]
        else:
            attrs[kw] = (t.value or "").strip()
    if "PRINCIPAL" in attrs and "GROUP" in attrs:
        raise MqscSyntaxError("name PRINCIPAL or GROUP, not both", tokens[-1].end)
    needs_entity = verb in ("SET", "DELETE") or noun.keyword == ENTAUTH
    if needs_entity and "PRINCIPAL" not in attrs and "GROUP" not in attrs:
        raise MqscSyntaxError(f"{verb} {noun.keyword} needs PRINCIPAL or GROUP", tokens[-1].end)
    if needs_entity and "OBJTYPE" not in attrs:
        raise MqscSyntaxError(f"{verb} {noun.keyword} needs OBJTYPE", tokens[-1].end)
    if verb == "SET" and "AUTHADD" not in attrs and "AUTHRMV" not in attrs:
        raise MqscSyntaxError("SET AUTHREC needs AUTHADD or AUTHRMV", tokens[-1].end)
    if verb in ("SET", "DELETE") and attrs.get("OBJTYPE") != "qmgr" and "PROFILE" not in attrs:
        raise MqscSyntaxError(f"{verb} AUTHREC needs PROFILE", tokens[-1].end)
    if noun.keyword == ENTAUTH and attrs["OBJTYPE"] != "qmgr" and "OBJNAME" not in attrs:
        raise MqscSyntaxError("DISPLAY ENTAUTH needs OBJNAME", tokens[-1].end)
    if verb == "REFRESH":
        kind = str(attrs.get("TYPE", "ALL")).upper()
        if kind not in ("ALL", "AUTHSERV"):
            raise MqscSyntaxError(f"TYPE({kind}) is not a type of REFRESH SECURITY", tokens[-1].end)
    return make(verb, otype=noun.keyword, attrs=attrs)


def _entity(attrs: dict[str, Any]) -> tuple[str, str]:
    if "GROUP" in attrs:
        return "group", str(attrs["GROUP"])
    return "principal", str(attrs["PRINCIPAL"])


def run_authrec_command(
    admin: Callable[..., Any],
    req: Any,
    lines: list[str],
    format_pairs: Callable[[list[tuple[str, str | None]]], list[str]],
) -> bool:
    """Run one parsed command; its answer goes to ``lines``. False when it failed (an MQMIError propagates)."""
    a = req.attrs
    if req.verb == "REFRESH":
        admin("refresh_security")
        lines.append(f"AMQ8560I: {_PRODUCT} security cache refreshed.")
        return True
    if req.otype == ENTAUTH:
        etype, ename = _entity(a)
        name = str(a.get("OBJNAME", ""))
        auths = admin("entity_authority", a["OBJTYPE"], name, etype, ename)
        lines.append("AMQ8866I: Display entity authority details.")
        shown = name if a["OBJTYPE"] != "qmgr" or name else "(the queue manager)"
        lines += format_pairs(
            [
                ("ENTITY", ename),
                ("ENTTYPE", etype.upper()),
                ("OBJNAME", shown),
                ("OBJTYPE", _mqsc_type(a["OBJTYPE"])),
                ("AUTHLIST", ",".join(x.upper() for x in auths) or "NONE"),
            ]
        )
        return True
    if req.verb == "SET":
        etype, ename = _entity(a)
        admin("set_authrec", a["OBJTYPE"], a.get("PROFILE", ""), etype, ename, a.get("AUTHADD"), a.get("AUTHRMV"))
        lines.append(f"AMQ8862I: {_PRODUCT} authority record set.")
        return True
    if req.verb == "DELETE":
        etype, ename = _entity(a)
        admin("delete_authrec", a["OBJTYPE"], a.get("PROFILE", ""), etype, ename)
        lines.append(f"AMQ8863I: {_PRODUCT} authority record deleted.")
        return True
    # DISPLAY AUTHREC
    etype_s: str | None = None
    ename_s: str | None = None
    if "PRINCIPAL" in a or "GROUP" in a:
        etype_s, ename_s = _entity(a)
    elif "ENTITY" in a:
        ename_s = str(a["ENTITY"])
    records = admin("authrecs", a.get("OBJTYPE"), a.get("PROFILE"), etype_s, ename_s)
    if not records:
        lines.append(f"AMQ8147E: {_PRODUCT} object {a.get('PROFILE', '*')} not found.")
        return False
    for r in records:
        lines.append("AMQ8864I: Display authority record details.")
        lines += format_pairs(
            [
                ("PROFILE", r["profile"]),
                ("ENTITY", r["entity"]),
                ("ENTTYPE", r["entity_type"].upper()),
                ("OBJTYPE", _mqsc_type(r["objtype"])),
                ("AUTHLIST", ",".join(x.upper() for x in r["authorities"]) or "NONE"),
            ]
        )
    return True


def _mqsc_type(otype: str) -> str:
    return next(k for k, v in _OBJTYPES.items() if v == otype)


def setmqaut_lines(qmgr: str, records: list[dict[str, Any]]) -> list[str]:
    """Authority records as the setmqaut commands that make them again (dmpmqaut -a, dmpmqcfg -o setmqaut)."""
    import shlex

    out = []
    for r in records:
        who = "-p" if r["entity_type"] == "principal" else "-g"
        auths = " ".join("+" + a for a in r["authorities"]) or "+none"
        name = "" if r["objtype"] == "qmgr" else f"-n {shlex.quote(r['profile'])} "
        out.append(f"setmqaut -m {qmgr} {name}-t {r['objtype']} {who} {shlex.quote(r['entity'])} {auths}")
    return out
