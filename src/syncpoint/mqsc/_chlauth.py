"""MQSC for channel authentication: SET CHLAUTH and DISPLAY CHLAUTH.

The command is checked here (its keywords, each once, the values IBM's words take); the queue manager's
administrative verbs (``set_chlauth``, ``chlauth_records``: the engine's ``_chlauth``) check the rest — the
profile, an address pattern IBM refuses (AMQ8887E), the attributes a type takes — and store nothing on a refusal.

Implements: reference/operations.md ("Connection authentication and channel authentication"); issue 35 item 5.
IBM's messages: AMQ8877I (set), AMQ8878I (display), AMQ8884I (not found), AMQ9783I (RUNCHECK: the user a
connection would run as).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from syncpoint.mqi import MQMIError, mqsc_date_time

from ._parser import MqscSyntaxError, Token

CHLAUTH = "CHLAUTH"
_TYPES = ("BLOCKADDR", "ADDRESSMAP", "USERMAP", "SSLPEERMAP", "QMGRMAP", "BLOCKUSER")
_SET_KEYWORDS = frozenset(
    {
        "TYPE",
        "ACTION",
        "ADDRESS",
        "ADDRLIST",
        "CLNTUSER",
        "USERLIST",
        "SSLPEER",
        "QMNAME",
        "USERSRC",
        "MCAUSER",
        "CHCKCLNT",
        "DESCR",
        "WARN",
        "CUSTOM",
        "SSLCERTI",
        "CMDSCOPE",
    }
)
_DISPLAY_KEYWORDS = frozenset(
    {"TYPE", "MATCH", "ADDRESS", "CLNTUSER", "SSLPEER", "QMNAME", "ALL", "CMDSCOPE", "SSLCERTI"}
) | {"USERSRC", "MCAUSER", "CHCKCLNT", "DESCR", "WARN", "USERLIST", "ADDRLIST", "ALTDATE", "ALTTIME", "CUSTOM"}
_WORDS = {
    "TYPE": _TYPES,
    "ACTION": ("ADD", "REPLACE", "REMOVE", "REMOVEALL"),
    "USERSRC": ("MAP", "NOACCESS", "CHANNEL"),
    "CHCKCLNT": ("ASQMGR", "REQUIRED", "REQDADM"),
    "WARN": ("YES", "NO"),
    "MATCH": ("RUNCHECK", "EXACT", "GENERIC", "ALL"),
}
_PRODUCT = "syncpoint"


def is_chlauth_command(word: str, tokens: list[Token]) -> bool:
    return len(tokens) > 1 and tokens[1].keyword == CHLAUTH and word in ("SET", "DISPLAY", "DIS")


def parse_chlauth_command(word: str, tokens: list[Token], make: Callable[..., Any]) -> Any:
    """SET / DISPLAY CHLAUTH(profile) … as a request (``make``: the grammar's Request type)."""
    verb = "SET" if word == "SET" else "DISPLAY"
    noun = tokens[1]
    if not noun.has_value or not noun.items or len(noun.items) != 1 or not noun.items[0].strip():
        raise MqscSyntaxError(f"{verb} CHLAUTH needs the channel profile in parentheses", noun.end)
    profile = noun.items[0].strip()
    allowed = _SET_KEYWORDS if verb == "SET" else _DISPLAY_KEYWORDS
    attrs: dict[str, Any] = {}
    wanted: list[str] = []
    for t in tokens[2:]:
        kw = t.keyword
        if kw not in allowed:
            raise MqscSyntaxError(f"{kw} is not a keyword of {verb} CHLAUTH", t.end)
        if verb == "DISPLAY" and not t.has_value and kw not in ("ALL",):
            wanted.append(kw)
            continue
        if kw in attrs:
            raise MqscSyntaxError(f"{kw} is given twice", t.end)
        if kw == "ALL":
            attrs[kw] = True
            continue
        if not t.has_value or t.items is None:
            raise MqscSyntaxError(f"{kw} needs a value", t.end)
        if kw in ("USERLIST", "ADDRLIST"):
            attrs[kw] = [i.strip() for i in t.items if i.strip()]
            continue
        value = (t.value or "").strip()
        if kw in _WORDS:
            value = value.upper()
            if value not in _WORDS[kw]:
                raise MqscSyntaxError(f"{kw} takes {', '.join(_WORDS[kw])}", t.end)
        attrs[kw] = value
    if verb == "SET" and "TYPE" not in attrs:
        raise MqscSyntaxError("SET CHLAUTH needs TYPE(…)", tokens[-1].end)
    if verb == "DISPLAY" and attrs.get("MATCH") == "RUNCHECK" and "ADDRESS" not in attrs:
        raise MqscSyntaxError("DISPLAY CHLAUTH MATCH(RUNCHECK) needs ADDRESS", tokens[-1].end)
    req = make(verb, CHLAUTH, profile, attrs=attrs)
    req.wanted = wanted or None
    return req


_ATTR_OF = {"ADDRESS", "ADDRLIST", "CLNTUSER", "USERLIST", "SSLPEER", "SSLCERTI", "QMNAME", "USERSRC", "MCAUSER"}
_ATTR_OF |= {"CHCKCLNT"}


def run_chlauth_command(
    admin: Callable[..., Any],
    req: Any,
    lines: list[str],
    format_pairs: Callable[[list[tuple[str, str | None]]], list[str]],
) -> bool:
    """Run one parsed SET / DISPLAY CHLAUTH; its answer into ``lines``. False when it failed."""
    a = dict(req.attrs)
    try:
        if req.verb == "SET":
            kwargs = {k.lower(): v for k, v in a.items() if k in _ATTR_OF or k in ("DESCR", "WARN")}
            lines.append(admin("set_chlauth", req.name, a["TYPE"], a.get("ACTION", "ADD"), **kwargs))
            return True
        identity = {k.lower(): str(a[k]) for k in ("ADDRESS", "CLNTUSER", "SSLPEER", "QMNAME", "SSLCERTI") if k in a}
        match = str(a.get("MATCH", "GENERIC"))
        records = admin("chlauth_records", req.name, str(a.get("TYPE", "ALL")), match, **identity)
    except MQMIError as e:
        detail = e.detail or ""
        if detail.startswith("AMQ"):
            lines.append(detail)
        else:
            lines.append(f"AMQ8101E: {_PRODUCT} error ({e.reason}) has occurred.")
            lines.append(f"   {detail}")
        return False
    if not records:
        lines.append("AMQ8884I: Channel authentication record not found.")
        return False
    for r in records:
        if r["type"] == "RUNCHECK":
            lines.append(f"AMQ9783I: Channel will run using MCAUSER('{r['mcauser']}').")
            continue
        lines.append("AMQ8878I: Display channel authentication record details.")
        lines += format_pairs(record_pairs(r, bool(a.get("ALL")), req.wanted))
    return True


def record_pairs(
    r: dict[str, Any], all_attributes: bool, wanted: list[str] | None = None
) -> list[tuple[str, str | None]]:
    """A record as DISPLAY CHLAUTH lists it: CHLAUTH and TYPE, then the type's identity and mapping (with ALL or
    named: DESCR, WARN, CHCKCLNT, ALTDATE, ALTTIME)."""
    t = r["type"]
    pairs: list[tuple[str, str | None]] = [("CHLAUTH", r["profile"]), ("TYPE", t)]
    rest: list[tuple[str, str]] = []
    if t == "BLOCKADDR":
        rest.append(("ADDRLIST", ",".join(r["addrlist"])))
    elif t == "BLOCKUSER":
        rest.append(("USERLIST", ",".join(r["userlist"])))
    else:
        ident = {"ADDRESSMAP": "ADDRESS", "USERMAP": "CLNTUSER", "SSLPEERMAP": "SSLPEER", "QMGRMAP": "QMNAME"}[t]
        rest.append((ident, r[ident.lower()]))
        if t == "SSLPEERMAP" and r.get("sslcerti"):
            rest.append(("SSLCERTI", r["sslcerti"]))
        if ident != "ADDRESS" and r["address"]:
            rest.append(("ADDRESS", r["address"]))
        rest.append(("USERSRC", r["usersrc"]))
        if r["usersrc"] == "MAP" or r["mcauser"]:
            rest.append(("MCAUSER", r["mcauser"]))
    extra: list[tuple[str, str]] = [("DESCR", r["descr"]), ("WARN", "YES" if r["warn"] else "NO")]
    if t in ("ADDRESSMAP", "USERMAP", "SSLPEERMAP"):
        extra.append(("CHCKCLNT", r["chckclnt"]))
    date, time = mqsc_date_time(r["altered"])
    extra += [("ALTDATE", date), ("ALTTIME", time)]
    if all_attributes:
        rest += extra
    elif wanted:
        rest += [p for p in extra if p[0] in wanted]
    return pairs + rest


def set_chlauth_lines(records: list[dict[str, Any]]) -> list[str]:
    """Records as the SET CHLAUTH commands that make them again (dmpmqcfg)."""
    out = []
    for r in records:
        items = [f"SET CHLAUTH('{r['profile']}')", f"TYPE({r['type']})"]
        for kw, shown in record_pairs(r, True)[2:]:
            value = shown or ""
            if (
                kw in ("ALTDATE", "ALTTIME")
                or (kw in ("DESCR", "MCAUSER") and not value)
                or (kw == "WARN" and value == "NO")
            ):
                continue
            if kw == "CHCKCLNT" and value == "ASQMGR":
                continue
            if kw in ("USERLIST", "ADDRLIST"):
                items.append(f"{kw}({','.join(_quoted(v) for v in value.split(','))})")
            elif kw in ("USERSRC", "CHCKCLNT", "WARN"):
                items.append(f"{kw}({value})")
            else:
                items.append(f"{kw}({_quoted(value)})")
        out.append(" ".join([*items, "ACTION(REPLACE)"]))
    return out


def _quoted(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"
