"""MQSC for publish/subscribe: DEFINE / ALTER / DELETE / DISPLAY TOPIC and SUB, DISPLAY TPSTATUS, SBSTATUS and
PUBSUB, CLEAR TOPICSTR (IBM's MQSC reference, "DEFINE TOPIC", "DEFINE SUB", "DISPLAY TPSTATUS" …).

Parsed here (not by the queue grammar), run through the queue manager's administrative verbs, answered with
IBM's message numbers: AMQ8690I / AMQ8691I / AMQ8692I topic created / changed / deleted, AMQ8633I Display topic
details, AMQ8094I / AMQ8095I / AMQ8093I subscription created / changed / deleted, AMQ8096I subscription inquired,
AMQ8099I subscription status inquired, AMQ8754I Display topic status details, AMQ8723I Display pub/sub status
details, AMQ8733I clear topic string completed. Values are IBM's words (DURSUB(YES), DEFPRTY(ASPARENT) …);
TOPICSTR is case-sensitive, so quote it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from syncpoint.mqi import constants as C
from syncpoint.mqi.objects import ATTRIBUTES, TOPIC, attributes_for, engine_key
from syncpoint.mqi.syntax import is_object_name

from ._parser import MqscSyntaxError, Token

SUB = "SUB"
TPSTATUS = "TPSTATUS"
SBSTATUS = "SBSTATUS"
PUBSUB = "PUBSUB"
TOPICSTR = "TOPICSTR"  # CLEAR TOPICSTR
PUBSUB_OBJECTS = (TOPIC, "SUB", "TPSTATUS", "SBSTATUS", "PUBSUB", "TOPICSTR")
PUBSUB_NOUNS = {"TOPIC": TOPIC, "SUB": SUB, "TPSTATUS": TPSTATUS, "SBSTATUS": SBSTATUS, "PUBSUB": PUBSUB}
_VERBS = {"DEFINE": "DEFINE", "DEF": "DEFINE", "ALTER": "ALTER", "ALT": "ALTER", "DELETE": "DELETE", "DEL": "DELETE"}
_VERBS |= {"DISPLAY": "DISPLAY", "DIS": "DISPLAY", "CLEAR": "CLEAR"}
# DEFINE / ALTER SUB's keywords: kind ("str", "int" or a word table)
_SUB_KEYWORDS: dict[str, Any] = {
    "TOPICSTR": "str",
    "TOPICOBJ": "str",
    "DEST": "str",
    "DESTQMGR": "str",
    "USERDATA": "str",
    "DESTCORL": "str",
    "SELECTOR": "str",  # DEFINE only (ALTER of another string: MQRC_SELECTOR_NOT_ALTERABLE)
    "EXPIRY": "int",
    "PUBPRTY": "int",
    "DESTCLAS": {"MANAGED": C.MQDC_MANAGED, "PROVIDED": C.MQDC_PROVIDED},
    "WSCHEMA": {"CHAR": C.MQWS_CHAR, "TOPIC": C.MQWS_TOPIC},
    "REQONLY": {"YES": True, "NO": False},
}
_SUB_WORDS = {
    "DESTCLAS": {C.MQDC_MANAGED: "MANAGED", C.MQDC_PROVIDED: "PROVIDED"},
    "DURABLE": {C.MQSUB_DURABLE_YES: "YES", C.MQSUB_DURABLE_NO: "NO"},
    "SUBTYPE": {C.MQSUBTYPE_API: "API", C.MQSUBTYPE_ADMIN: "ADMIN"},
    "WSCHEMA": {C.MQWS_CHAR: "CHAR", C.MQWS_TOPIC: "TOPIC"},
    "REQONLY": {C.MQRU_PUBLISH_ON_REQUEST: "YES", C.MQRU_PUBLISH_ALL: "NO"},
    "SUBSCOPE": {C.MQTSCOPE_ALL: "ALL", C.MQTSCOPE_QMGR: "QMGR"},
    "EXPIRY": {C.MQEI_UNLIMITED: "UNLIMITED"},
    "PUBPRTY": {C.MQPRI_PRIORITY_AS_PUBLISHED: "ASPUB", C.MQPRI_PRIORITY_AS_Q_DEF: "ASQDEF"},
}
_SUB_SHOWN = [
    "SUBID",
    "SUB",
    "TOPICSTR",
    "TOPICOBJ",
    "DISTYPE",
    "DEST",
    "DESTQMGR",
    "DESTCORL",
    "DESTCLAS",
    "DURABLE",
    "SUBTYPE",
    "SUBSCOPE",
    "EXPIRY",
    "PUBPRTY",
    "REQONLY",
    "USERDATA",
    "SELECTOR",
    "WSCHEMA",
    "SUBLEVEL",
    "CRDATE",
    "CRTIME",
    "ALTDATE",
    "ALTTIME",
]
_SUB_SUMMARY = ("SUBID", "SUB", "TOPICSTR", "DEST", "DESTCORL", "DESTQMGR", "DURABLE", "SUBTYPE")
_SBSTATUS_SHOWN = [
    "SUB",
    "SUBID",
    "ACTCONN",
    "DURABLE",
    "LMSGDATE",
    "LMSGTIME",
    "NUMMSGS",
    "RESMDATE",
    "RESMTIME",
    "SUBTYPE",
    "SUBUSER",
]
_PUBSUB_SHOWN = ("STATUS", "SUBCOUNT", "TPCOUNT")  # DISPLAY PUBSUB's requested parameters
_PUBSUB_TYPES = ("LOCAL", "PARENT", "CHILD", "ALL")
_TPSTATUS_WORDS = {
    "DURSUB": {1: "YES", 2: "NO"},
    "PUB": {1: "INHIBITED", 2: "ENABLED"},
    "SUB": {1: "INHIBITED", 2: "ENABLED"},
    "DEFPSIST": {0: "NO", 1: "YES"},
    "USEDLQ": {1: "NO", 2: "YES"},
    "PUBSCOPE": {0: "ALL", 4: "QMGR"},
    "SUBSCOPE": {0: "ALL", 4: "QMGR"},
}


def is_pubsub_command(word: str, tokens: list[Token]) -> bool:
    """A command on a topic, a subscription or their status (parsed here, not by the object grammar)."""
    if len(tokens) < 2 or word not in _VERBS:
        return False
    noun = tokens[1].keyword
    return noun in PUBSUB_NOUNS or (_VERBS[word] == "CLEAR" and noun == TOPICSTR)


def _one(t: Token) -> str:
    if not t.has_value or not t.items or len(t.items) != 1:
        raise MqscSyntaxError(f"{t.keyword} takes one value in parentheses", t.end)
    return str(t.items[0])


def parse_pubsub_command(word: str, tokens: list[Token], make: Callable[..., Any]) -> Any:
    """The request of a publish/subscribe command (``make``: the grammar's Request type). ``req.attrs`` holds the
    engine's attributes (a topic's by engine key, a subscription's by MQSC keyword); ``req.wanted`` DISPLAY's."""
    verb = _VERBS[word]
    noun_tok = tokens[1]
    noun = TOPICSTR if noun_tok.keyword == TOPICSTR else PUBSUB_NOUNS[noun_tok.keyword]
    req = make(verb, noun)
    if noun == PUBSUB:
        if verb != "DISPLAY" or noun_tok.has_value:
            raise MqscSyntaxError("DISPLAY PUBSUB takes no name", noun_tok.end)
    elif noun_tok.has_value:
        req.name = _one(noun_tok)
    elif not (noun == SUB and verb in ("DISPLAY", "DELETE")):
        raise MqscSyntaxError(f"{verb} {noun_tok.keyword} needs a name in parentheses", noun_tok.end)
    if (noun in (TPSTATUS, SBSTATUS) and verb != "DISPLAY") or (noun == TOPICSTR and verb != "CLEAR"):
        raise MqscSyntaxError(f"{verb} {noun_tok.keyword} is not a valid command", noun_tok.end)
    if noun == TOPIC and req.name and verb != "DISPLAY" and not is_object_name(req.name):
        raise MqscSyntaxError(f"{req.name!r} is not a valid topic object name", noun_tok.end)
    seen: set[str] = set()
    for t in tokens[2:]:
        k = t.keyword
        if k in seen:
            raise MqscSyntaxError(f"{k} is given twice", t.end)
        seen.add(k)
        if verb == "DISPLAY":
            _display_keyword(req, noun, t)
        elif k in ("REPLACE", "NOREPLACE") and verb == "DEFINE" and not t.has_value:
            req.replace = k == "REPLACE"
        elif k == "LIKE" and verb == "DEFINE" and noun == TOPIC:
            req.like = _one(t)
        elif k == "CLRTYPE" and noun == TOPICSTR:
            if _one(t).upper() != "RETAINED":
                raise MqscSyntaxError("CLRTYPE takes RETAINED", t.end)
        elif k == "QSGDISP" and noun in (TOPIC, SUB) and verb != "DISPLAY":
            if _one(t).upper() != "QMGR":  # topics and subscriptions are each queue manager's own
                raise MqscSyntaxError(f"{noun_tok.keyword} takes QSGDISP(QMGR) only", t.end)
        elif k == "SUBID" and noun == SUB:
            req.attrs["SUBID"] = _one(t)
        elif noun == TOPIC and verb in ("DEFINE", "ALTER"):
            _topic_keyword(req, t)
        elif noun == SUB and verb in ("DEFINE", "ALTER"):
            _sub_keyword(req, t)
        else:
            raise MqscSyntaxError(f"{k} is not a keyword of {verb} {noun_tok.keyword}", t.end)
    if noun == SUB and verb == "DELETE" and not req.name and "SUBID" not in req.attrs:
        raise MqscSyntaxError("DELETE SUB needs SUB(name) or SUBID(id)", noun_tok.end)
    if noun == TOPIC and verb == "DEFINE" and "TOPICSTR" not in req.attrs and req.like is None:
        raise MqscSyntaxError("DEFINE TOPIC needs TOPICSTR", noun_tok.end)
    return req


def _topic_keyword(req: Any, t: Token) -> None:
    key = engine_key(TOPIC, t.keyword)
    a = ATTRIBUTES.get(key)
    if a is None or TOPIC not in a.owners:
        raise MqscSyntaxError(f"{t.keyword} is not an attribute of a topic", t.end)
    if key == "TOPICSTR" and req.verb == "ALTER":
        raise MqscSyntaxError("TOPICSTR cannot be altered", t.end)
    v = _one(t)
    if a.kind == "str":
        req.attrs[key] = v
    elif v.upper() in a.values:
        req.attrs[key] = a.values[v.upper()]
    else:
        raise MqscSyntaxError(f"{t.keyword}({v}) is not valid: use one of {', '.join(a.values)}", t.end)


def _sub_keyword(req: Any, t: Token) -> None:
    kind = _SUB_KEYWORDS.get(t.keyword)
    if kind is None:
        raise MqscSyntaxError(f"{t.keyword} is not a keyword of {req.verb} SUB", t.end)
    v = _one(t)
    if kind == "str":
        req.attrs[t.keyword] = v
    elif kind == "int":
        word = v.upper()
        special = {"UNLIMITED": C.MQEI_UNLIMITED, "ASPUB": C.MQPRI_PRIORITY_AS_PUBLISHED, "ASQDEF": -1}
        try:
            req.attrs[t.keyword] = special[word] if word in special else int(v)
        except ValueError:
            raise MqscSyntaxError(f"{t.keyword} takes a number", t.end) from None
    elif v.upper() in kind:
        req.attrs[t.keyword] = kind[v.upper()]
    else:
        raise MqscSyntaxError(f"{t.keyword}({v}) is not valid: use one of {', '.join(kind)}", t.end)


def _display_keyword(req: Any, noun: str, t: Token) -> None:
    k = t.keyword
    if noun == PUBSUB and k not in (*_PUBSUB_SHOWN, "ALL", "TYPE", "CMDSCOPE"):
        raise MqscSyntaxError(f"{k} is not a keyword of DISPLAY PUBSUB", t.end)
    if noun == PUBSUB and k == "TYPE" and (not t.has_value or _one(t).upper() not in _PUBSUB_TYPES):
        raise MqscSyntaxError(f"TYPE takes one of {', '.join(_PUBSUB_TYPES)}", t.end)
    if k == "ALL":
        req.wanted = None
        req.type_filter = "ALL+"
    elif k in ("TYPE", "DURABLE", "SUBTYPE", "DISTYPE", "CMDSCOPE") and t.has_value:
        req.attrs[k] = _one(t).upper()
    elif k == "SUBID" and noun in (SUB, SBSTATUS) and t.has_value:
        req.attrs["SUBID"] = _one(t)
    elif t.has_value:
        raise MqscSyntaxError(f"{k} takes no value on DISPLAY", t.end)
    else:
        if req.wanted is None and req.type_filter != "ALL+":
            req.wanted = []
        if req.wanted is not None:
            req.wanted.append(k)


# -- running ------------------------------------------------------------------------------------------
def run_pubsub_command(
    admin: Callable[..., Any], qmname: str, req: Any, lines: list[str], fmt: Callable[..., list[str]]
) -> bool:
    noun, verb = req.otype, req.verb
    if noun == TOPIC:
        if verb == "DISPLAY":
            return _display_topics(admin, req, lines, fmt)
        if verb == "DEFINE":
            admin("define", TOPIC, req.name, req.attrs, like=req.like, replace=req.replace)
        elif verb == "ALTER":
            admin("alter", TOPIC, req.name, req.attrs)
        else:
            admin("delete", TOPIC, req.name)
        code = {"DEFINE": ("AMQ8690I", "created"), "ALTER": ("AMQ8691I", "changed"), "DELETE": ("AMQ8692I", "deleted")}
        lines.append(f"{code[verb][0]}: syncpoint topic {code[verb][1]}.")
        return True
    if noun == SUB:
        named = {"sub_id": bytes.fromhex(req.attrs.pop("SUBID"))} if "SUBID" in req.attrs else {}
        if verb == "DISPLAY":
            return _display_subs(admin, req, named, lines, fmt, status=False)
        if verb == "DEFINE":
            admin("define_sub", req.name, req.attrs, req.replace)
            lines.append("AMQ8094I: syncpoint subscription created.")
        elif verb == "ALTER":
            admin("alter_sub", req.name, req.attrs)
            lines.append("AMQ8095I: syncpoint subscription changed.")
        else:
            admin("delete_sub", **(named or {"name": req.name}))
            lines.append("AMQ8093I: syncpoint subscription deleted.")
        return True
    if noun == SBSTATUS:
        named = {"sub_id": bytes.fromhex(req.attrs.pop("SUBID"))} if "SUBID" in req.attrs else {}
        return _display_subs(admin, req, named, lines, fmt, status=True)
    if noun == TPSTATUS:
        return _display_tpstatus(admin, req, lines, fmt)
    if noun == PUBSUB:  # the engine's ``pubsub_status``: what PCF Inquire Pub/Sub Status answers too
        for row in admin("pubsub_status", req.attrs.get("TYPE", "ALL")):
            pairs: list[tuple[str, str | None]] = [("QMNAME", row["QMNAME"]), ("TYPE", row["TYPE"])]
            for k in _PUBSUB_SHOWN:  # IBM: QMNAME and TYPE, the rest when asked for (or ALL)
                if req.type_filter == "ALL+" or (req.wanted is not None and k in req.wanted):
                    pairs.append((k, str(row[k])))
            lines.append("AMQ8723I: Display pub/sub status details.")
            lines.extend(fmt(pairs))
        return True
    admin("clear_topicstr", req.name)  # CLEAR TOPICSTR(…) CLRTYPE(RETAINED)
    lines.append("AMQ8733I: syncpoint clear topic string completed.")
    return True


def _display_topics(admin: Callable[..., Any], req: Any, lines: list[str], fmt: Callable[..., list[str]]) -> bool:
    from syncpoint.mqi import matches_generic, mqsc_date_time

    found = [d for d in admin("list_objects", TOPIC) if matches_generic(req.name, d.name)]
    if not found:
        lines.append(f"AMQ8147E: syncpoint object {req.name} not found.")
        return False
    for d in found:
        pairs: list[tuple[str, str | None]] = [("TOPIC", d.name), ("TYPE", "LOCAL")]
        for a in attributes_for(TOPIC):
            kw = {"TOPDESCR": "DESCR", "TPDEFPSIST": "DEFPSIST", "TPDEFPRTY": "DEFPRTY"}.get(a.keyword, a.keyword)
            if req.wanted is not None and kw not in req.wanted and kw != "TOPICSTR":
                continue
            v = d.attrs.get(a.keyword, a.default)
            pairs.append((kw, str(v) if a.kind == "str" else a.word_for(v)))
        if req.wanted is None or "ALTDATE" in req.wanted:
            pairs += list(zip(("ALTDATE", "ALTTIME"), mqsc_date_time(d.altered), strict=True))
        if req.wanted is None or "CRDATE" in req.wanted:
            pairs += list(zip(("CRDATE", "CRTIME"), mqsc_date_time(d.created), strict=True))
        lines.append("AMQ8633I: Display topic details.")
        lines.extend(fmt(pairs))
    return True


def _display_subs(
    admin: Callable[..., Any], req: Any, named: dict[str, Any], lines: list[str], fmt: Callable[..., list[str]],
    status: bool,
) -> bool:  # fmt: skip
    views = admin("subscriptions", **(named or {"name": req.name or "*"}))
    durable = req.attrs.get("DURABLE", "ALL")
    shown = _SBSTATUS_SHOWN if status else _SUB_SHOWN
    for v in views:
        if durable != "ALL" and _SUB_WORDS["DURABLE"][v["DURABLE"]] != durable:
            continue
        v = dict(v, DISTYPE="RESOLVED", SUBUSER="", RESMDATE=v["CRDATE"], RESMTIME=v["CRTIME"])
        keep = shown if req.wanted is None else [k for k in shown if k in ("SUB", "SUBID") or k in req.wanted]
        if req.wanted is None and not status and req.type_filter != "ALL+":
            keep = list(_SUB_SUMMARY)
        pairs = [(k, _SUB_WORDS[k].get(v[k], str(v[k])) if k in _SUB_WORDS else str(v[k])) for k in keep]
        lines.append("AMQ8099I: syncpoint subscription status inquired." if status else
                     "AMQ8096I: syncpoint subscription inquired.")  # fmt: skip
        lines.extend(fmt(pairs))
    return True


def _display_tpstatus(admin: Callable[..., Any], req: Any, lines: list[str], fmt: Callable[..., list[str]]) -> bool:
    topic = req.name
    if topic.endswith("#"):
        prefix = topic[:-1].rstrip("/")
        topics = [t for t in admin("topic_strings") if not prefix or t == prefix or t.startswith(prefix + "/")]
    else:
        topics = [topic]
    for t in topics:
        st = admin("topic_status", t)
        pairs: list[tuple[str, str | None]] = [("TOPICSTR", t), ("ADMIN", st["ADMIN"])]
        for k in ("DURSUB", "PUB", "SUB", "DEFPSIST", "USEDLQ", "PUBSCOPE", "SUBSCOPE"):
            pairs.append((k, _TPSTATUS_WORDS[k].get(st[k], str(st[k]))))
        pairs += [("MDURMDL", st["MDURMDL"]), ("MNDURMDL", st["MNDURMDL"]), ("DEFPRTY", str(st["DEFPRTY"]))]
        pairs += [("RETAINED", "YES" if st["RETAINED"] else "NO"), ("PUBCOUNT", str(st["PUBCOUNT"]))]
        pairs.append(("SUBCOUNT", str(st["SUBCOUNT"])))
        if req.wanted is not None:
            pairs = [p for p in pairs if p[0] == "TOPICSTR" or p[0] in req.wanted]
        lines.append("AMQ8754I: Display topic status details.")
        lines.extend(fmt(pairs))
    return True
