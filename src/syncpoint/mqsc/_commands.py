"""MQSC grammar: a tokenized command into a :class:`Request` (verb, object type, name, attributes, options).

Everything that can be checked without the queue manager is checked here, so ``runmqsc -v`` finds it: unknown
verbs, nouns and keywords, keywords not valid for the object type, repeated or contradicting keywords, values of
the wrong type, too long or out of range, generic names where a single object is meant. Commands for objects
syncpoint does not have (channels, listeners, services, authority records …) parse into a request marked
``unsupported``; the processor reports them and carries on.

Implements: reference/mqsc.md, "MQSC syntax" (the abbreviations users type, the commands and their keywords).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from syncpoint.mqi import is_generic
from syncpoint.mqi.objects import (
    AUTHINFO,
    CHANNEL,
    NAMELIST,
    PROCESS,
    QALIAS,
    QLOCAL,
    QMGR,
    QMODEL,
    QREMOTE,
    QUEUE_TYPES,
)
from syncpoint.mqi.syntax import is_object_name

from ._attrs import (
    IGNORED_ATTRIBUTES,
    AttributeValueError,
    display_keywords,
    has_no_effect,
    keyword_info,
    keyword_syntax,
    parse_attribute,
    takes_list,
)
from ._authrec import is_authrec_command, parse_authrec_command
from ._channel import (
    CHANNEL_VERBS,
    CHSTATUS_IGNORED,
    CHSTATUS_KEYWORDS,
    check_channel_request,
    parse_channel_command,
    unsupported_channel_type,
)
from ._chlauth import is_chlauth_command, parse_chlauth_command
from ._events import CONFIGEV_OBJECTS
from ._parser import MqscSyntaxError, Token, tokenize
from ._pubsub import is_pubsub_command, parse_pubsub_command
from ._qsg import INDOUBT, THREAD, is_qsg_command, parse_qsg_command, qsg_syntax
from ._reset import is_reset_qmgr, parse_reset_qmgr
from ._status import (
    CONN_HANDLE_KEYWORDS,
    CONN_IGNORED,
    CONN_KEYWORDS,
    QMSTATUS_IGNORED,
    QMSTATUS_KEYWORDS,
    QSTATUS_HANDLE_KEYWORDS,
    QSTATUS_QUEUE_KEYWORDS,
)

__all__ = [
    "CHSTATUS",
    "CONN",
    "QMSTATUS",
    "QSTATUS",
    "QUEUE",
    "SECURITY",
    "Request",
    "Where",
    "parse_command",
    "valid_syntax",
]

QUEUE = "QUEUE"  # DISPLAY QUEUE: any queue type
QSTATUS = "QSTATUS"
QMSTATUS = "QMSTATUS"
CONN = "CONN"
CHSTATUS = "CHSTATUS"
SECURITY = "SECURITY"  # REFRESH SECURITY

VERBS = {
    "DEFINE": "DEFINE",
    "DEF": "DEFINE",
    "ALTER": "ALTER",
    "ALT": "ALTER",
    "DELETE": "DELETE",
    "DEL": "DELETE",
    "CLEAR": "CLEAR",
    "DISPLAY": "DISPLAY",
    "DIS": "DISPLAY",
    "REFRESH": "REFRESH",
    "REF": "REFRESH",
    "PING": "PING",
    "END": "END",
}
# IBM verbs syncpoint has no objects or machinery for
UNSUPPORTED_VERBS = {
    "START": "START",
    "STA": "START",
    "STOP": "STOP",
    "SET": "SET",
    "RESET": "RESET",
    "RESOLVE": "RESOLVE",
    "RESUME": "RESUME",
    "SUSPEND": "SUSPEND",
    "ARCHIVE": "ARCHIVE",
    "BACKUP": "BACKUP",
    "RECOVER": "RECOVER",
    "PURGE": "PURGE",
    "MOVE": "MOVE",
    "RVERIFY": "RVERIFY",
}
_QUEUE_NOUNS = {
    "QLOCAL": QLOCAL,
    "QL": QLOCAL,
    "QMODEL": QMODEL,
    "QM": QMODEL,
    "QALIAS": QALIAS,
    "QA": QALIAS,
    "QREMOTE": QREMOTE,
    "QR": QREMOTE,
}
NOUNS = {
    **_QUEUE_NOUNS,
    "PROCESS": PROCESS,
    "PRO": PROCESS,
    "NAMELIST": NAMELIST,
    "NL": NAMELIST,
    "QUEUE": QUEUE,
    "Q": QUEUE,
    "QSTATUS": QSTATUS,
    "QS": QSTATUS,
    "QMGR": QMGR,
    "QMSTATUS": QMSTATUS,
    "CONN": CONN,
    "CHANNEL": CHANNEL,
    "CHL": CHANNEL,
    "CHSTATUS": CHSTATUS,
    "CHS": CHSTATUS,
    "AUTHINFO": AUTHINFO,
    "SECURITY": SECURITY,
}
UNSUPPORTED_NOUNS = {
    "LISTENER": "LISTENER",
    "LSTR": "LISTENER",
    "SERVICE": "SERVICE",
    "COMMINFO": "COMMINFO",
    "LSSTATUS": "LSSTATUS",
    "SVSTATUS": "SVSTATUS",
    "CLUSQMGR": "CLUSQMGR",
    "CLUSTER": "CLUSTER",
    "POLICY": "POLICY",
    "APSTATUS": "APSTATUS",
    "AUTHSERV": "AUTHSERV",
    "CHINIT": "CHINIT",
    "TRACE": "TRACE",
    "CFSTRUCT": "CFSTRUCT",
    "STGCLASS": "STGCLASS",
    "LOG": "LOG",
    "SYSTEM": "SYSTEM",
    "THREAD": "THREAD",
    "CMDSERV": "CMDSERV",
    "SMDSCONN": "SMDSCONN",
}
_NOUNS_OF = {
    "DEFINE": (
        QLOCAL,
        QMODEL,
        QALIAS,
        QREMOTE,
        PROCESS,
        NAMELIST,
        CHANNEL,
        AUTHINFO,
        "TOPIC",
        "SUB",
    ),  # TOPIC, SUB: ``_pubsub``
    "ALTER": (QLOCAL, QMODEL, QALIAS, QREMOTE, PROCESS, NAMELIST, QMGR, CHANNEL, AUTHINFO),
    "DELETE": (QLOCAL, QMODEL, QALIAS, QREMOTE, PROCESS, NAMELIST, CHANNEL, AUTHINFO),
    "CLEAR": (QLOCAL,),
    "DISPLAY": (
        *(QLOCAL, QMODEL, QALIAS, QREMOTE, PROCESS, NAMELIST, QUEUE, QSTATUS),
        *(QMGR, QMSTATUS, CONN, CHANNEL, CHSTATUS, AUTHINFO),
    ),
    "REFRESH": (QMGR, SECURITY),
    "PING": (QMGR,),
}
QSGDISP_DEFINE = ("QMGR", "GROUP", "SHARED")
QSGDISP_CHANGE = ("QMGR", "COPY", "GROUP", "SHARED")  # ALTER and DELETE: which of the objects of that name
_QSGDISP_NOUNS = (QLOCAL, QMODEL, QALIAS, QREMOTE, QUEUE, PROCESS)  # what DISPLAY shows with its QSGDISP
QSGDISP_DISPLAY = ("ALL", "LIVE", "QMGR", "COPY", "GROUP", "SHARED")
_QUEUE_TYPE_WORDS = {
    **_QUEUE_NOUNS,
    "ALL": "ALL",
    "QCLUSTER": "QCLUSTER",
    "QC": "QCLUSTER",
}
# status keywords of IBM's DISPLAY QSTATUS syncpoint does not keep: accepted, not shown
_QSTATUS_IGNORED = frozenset(
    {"CURFSIZE", "CURMAXFS", "MEDIALOG", "MONQ", "OPENTYPE", "CMDSCOPE", "APPLDESC", "QMURID", "URID", "HCONN", "HOBJ"}
)
_NEGATABLE = frozenset({"REPLACE", "PURGE", "TRIGGER", "SHARE", "HARDENBO"})  # NOREPLACE contradicts REPLACE
_OPS = ("LT", "GT", "EQ", "NE", "LE", "GE", "LK", "NL")


@dataclass(slots=True)
class Where:
    """DISPLAY … WHERE(keyword operator value)."""

    keyword: str
    op: str
    value: str


@dataclass(slots=True)
class Request:
    """One parsed command. ``otype`` is an engine object type, or QUEUE / QSTATUS for DISPLAY."""

    verb: str
    otype: str = ""
    name: str | None = None
    attrs: dict[str, Any] = field(default_factory=dict)
    like: str | None = None
    replace: bool = False
    purge: bool = False
    wanted: list[str] | None = None  # DISPLAY: keywords to show; None: ALL
    type_filter: str = "ALL"  # DISPLAY QUEUE TYPE(...), DISPLAY QSTATUS TYPE(QUEUE|HANDLE)
    where: Where | None = None
    ignored: list[str] = field(default_factory=list)  # IBM attributes accepted and ignored
    unsupported: str | None = None  # what syncpoint does not support, as a phrase
    qsgdisp: str | None = None  # DISPLAY … QSGDISP(…): the dispositions to show (queue-sharing groups)
    text: str = ""  # the command as typed (continuations joined): a Command event's CommandMQSC

    @property
    def generic(self) -> bool:
        return self.name is not None and is_generic(self.name)


def parse_command(text: str) -> Request:
    """Parse one command (continuations already joined). Raises :class:`MqscSyntaxError`."""
    tokens = tokenize(text)
    if not tokens:
        raise MqscSyntaxError("the command is empty", len(text))
    verb_tok = tokens[0]
    if verb_tok.has_value:
        raise MqscSyntaxError(f"{verb_tok.keyword} is a command verb and takes no value", verb_tok.end)
    word = verb_tok.keyword
    if is_qsg_command(word, tokens):  # DISPLAY THREAD, RESOLVE INDOUBT (queue-sharing groups: ``_qsg``)
        try:
            qsg: Request = parse_qsg_command(word, tokens, Request)
        except MqscSyntaxError as e:
            e.verb, e.noun = ("DISPLAY", THREAD) if word.startswith("DIS") else ("RESOLVE", INDOUBT)
            raise
        return qsg
    if is_pubsub_command(word, tokens):  # topics, subscriptions and their status (``_pubsub``)
        try:
            ps: Request = parse_pubsub_command(word, tokens, Request)
        except MqscSyntaxError as e:
            e.verb = e.verb or word
            raise
        return ps
    if is_authrec_command(word, tokens):  # SET / DELETE / DISPLAY AUTHREC, DISPLAY ENTAUTH, REFRESH SECURITY
        try:
            oam: Request = parse_authrec_command(word, tokens, Request)
        except MqscSyntaxError as e:
            e.verb = e.verb or VERBS.get(word, word)
            raise
        return oam
    if is_chlauth_command(word, tokens):  # SET / DISPLAY CHLAUTH (``_chlauth``)
        try:
            ca: Request = parse_chlauth_command(word, tokens, Request)
        except MqscSyntaxError as e:
            e.verb, e.noun = VERBS.get(word, word), "CHLAUTH"
            raise
        return ca
    if word in CHANNEL_VERBS and len(tokens) > 1 and tokens[1].keyword in ("CHANNEL", "CHL"):
        req: Request = parse_channel_command(CHANNEL_VERBS[word], tokens, Request)
        return req
    if is_reset_qmgr(word, tokens):  # RESET QMGR TYPE(STATISTICS) (``_reset``)
        try:
            reset: Request = parse_reset_qmgr(tokens, Request)
        except MqscSyntaxError as e:
            e.verb = "RESET"
            raise
        return reset
    if word in UNSUPPORTED_VERBS:
        return Request(UNSUPPORTED_VERBS[word], unsupported=f"the {UNSUPPORTED_VERBS[word]} command")
    verb = VERBS.get(word)
    if verb is None:
        raise MqscSyntaxError(f"{word} is not an MQSC command", verb_tok.end)
    try:
        return _parse(verb, tokens)
    except MqscSyntaxError as e:
        e.verb = e.verb or verb
        raise


def _parse(verb: str, tokens: list[Token]) -> Request:
    verb_tok = tokens[0]
    if verb == "END":
        if len(tokens) > 1:
            raise MqscSyntaxError("END takes nothing after it", tokens[1].end)
        return Request("END")
    if len(tokens) < 2:
        raise MqscSyntaxError(f"{verb} needs an object type, e.g. {verb} QLOCAL(name)", verb_tok.end)
    noun_tok = tokens[1]
    noun_word = noun_tok.keyword
    if noun_word in UNSUPPORTED_NOUNS:
        kind = UNSUPPORTED_NOUNS[noun_word]
        return Request(verb, unsupported=f"{kind} objects" if verb != "REFRESH" else f"REFRESH {kind}")
    otype = NOUNS.get(noun_word)
    if otype is None:
        raise MqscSyntaxError(f"{noun_word} is not an object type of {verb}", noun_tok.end)
    if otype not in _NOUNS_OF[verb]:
        raise MqscSyntaxError(f"{verb} {noun_word} is not a valid command", noun_tok.end)
    if otype == CHANNEL and (phrase := unsupported_channel_type(tokens[2:])) is not None:
        return Request(verb, unsupported=phrase)
    try:
        return _parse_object(verb, otype, noun_tok, tokens[2:])
    except MqscSyntaxError as e:
        e.noun = otype
        raise


def _parse_object(verb: str, otype: str, noun_tok: Token, rest: list[Token]) -> Request:
    req = Request(verb, otype)
    _object_name(req, noun_tok)
    _check_repeats(rest)
    if verb in ("DEFINE", "ALTER"):
        _define_alter(req, rest)
    elif verb == "DELETE":
        _delete(req, rest)
    elif verb == "CLEAR":
        if rest:
            raise MqscSyntaxError(f"CLEAR QLOCAL takes no keyword {rest[0].keyword}", rest[0].end)
    elif verb == "DISPLAY":
        _display(req, rest)
    elif verb == "REFRESH":
        _refresh(req, rest)
    elif verb == "PING" and rest:
        raise MqscSyntaxError(f"PING QMGR takes no keyword {rest[0].keyword}", rest[0].end)
    if otype == CHANNEL:
        check_channel_request(req, noun_tok)
    if otype == AUTHINFO and verb == "DEFINE" and "AUTHTYPE" not in req.attrs and req.like is None:
        raise MqscSyntaxError("DEFINE AUTHINFO needs AUTHTYPE(IDPWOS)", noun_tok.end)
    return req


def _object_name(req: Request, tok: Token) -> None:
    if req.otype == SECURITY:
        if tok.has_value and (tok.items or [""])[0] not in ("*", ""):
            raise MqscSyntaxError("REFRESH SECURITY takes no name, or (*)", tok.end)
        return
    if req.otype in (QMGR, QMSTATUS):
        if tok.has_value:
            raise MqscSyntaxError(
                f"{req.otype} takes no name: the queue manager is the one runmqsc is connected to", tok.end
            )
        return
    if not tok.has_value or not tok.items:
        raise MqscSyntaxError(f"{req.verb} {tok.keyword} needs the object's name in parentheses", tok.end)
    if len(tok.items) != 1:
        raise MqscSyntaxError("one object name is expected", tok.end)
    name = tok.items[0]
    generic_ok = req.verb == "DISPLAY"
    if is_generic(name):
        if not generic_ok:
            raise MqscSyntaxError(f"a generic name ({name}) is valid only on DISPLAY", tok.end)
        if name != "*" and not is_object_name(name[:-1]):
            raise MqscSyntaxError(f"{name} is not a valid generic name", tok.end)
    elif not is_object_name(name):
        raise MqscSyntaxError(
            f"{name!r} is not a valid object name: 1 to 48 characters from A-Z a-z 0-9 . / _ %", tok.end
        )
    req.name = name


def _check_repeats(tokens: list[Token]) -> None:
    seen: dict[str, str] = {}
    for t in tokens:
        k = t.keyword
        base = k[2:] if k.startswith("NO") and k[2:] in _NEGATABLE else k
        if base in seen:
            what = "is repeated" if seen[base] == k else f"contradicts {seen[base]}"
            raise MqscSyntaxError(f"{k} {what}", t.end)
        seen[base] = k


def _single(tok: Token) -> str | None:
    if tok.items is not None and len(tok.items) > 1:
        raise MqscSyntaxError(f"{tok.keyword} takes one value", tok.end)
    return tok.value


def _define_alter(req: Request, tokens: list[Token]) -> None:
    for t in tokens:
        k = t.keyword
        if req.verb == "DEFINE" and k == "LIKE":
            like = _single(t)
            if not like or not is_object_name(like):
                raise MqscSyntaxError("LIKE needs the name of an object of the same type", t.end)
            req.like = like
            continue
        if req.verb == "DEFINE" and k in ("REPLACE", "NOREPLACE"):
            if t.has_value:
                raise MqscSyntaxError(f"{k} takes no value", t.end)
            req.replace = k == "REPLACE"
            continue
        if req.verb == "ALTER" and k == "FORCE":
            continue  # IBM's FORCE overrides checks syncpoint does not make
        if req.verb in ("DEFINE", "ALTER") and k == "QSGDISP" and req.otype != QMGR:  # queue-sharing groups
            word = (_single(t) or "").upper()
            allowed = QSGDISP_DEFINE if req.verb == "DEFINE" else QSGDISP_CHANGE
            if word not in allowed:
                raise MqscSyntaxError(f"QSGDISP of {req.verb} is {', '.join(allowed[:-1])} or {allowed[-1]}", t.end)
            req.attrs["QSGDISP"] = word
            continue
        _attribute(req, t)


def _attribute(req: Request, t: Token) -> None:
    otype = req.otype
    k = t.keyword
    if keyword_info(otype, k) is None:
        if k in IGNORED_ATTRIBUTES[otype]:
            req.ignored.append(k)
            return
        owners = [
            o
            for o in (QLOCAL, QMODEL, QALIAS, QREMOTE, PROCESS, NAMELIST, QMGR, CHANNEL, AUTHINFO)
            if keyword_info(o, k) is not None
        ]
        if owners:
            raise MqscSyntaxError(f"{k} is not valid for a {otype} (it is an attribute of {', '.join(owners)})", t.end)
        raise MqscSyntaxError(f"{k} is not a keyword of {req.verb} {otype}", t.end)
    try:
        key, value = parse_attribute(otype, k, (t.items or []) if takes_list(otype, k) else _single(t))
    except AttributeValueError as e:
        raise MqscSyntaxError(str(e), t.end) from None
    req.attrs[key] = value
    info = keyword_info(otype, k)
    if has_no_effect(otype, k) and info is not None and value != info.attr.default:
        req.ignored.append(k)  # asking for what syncpoint does not do (IBM's default asks for nothing): say so


def _delete(req: Request, tokens: list[Token]) -> None:
    for t in tokens:
        if req.otype == QLOCAL and t.keyword in ("PURGE", "NOPURGE"):
            if t.has_value:
                raise MqscSyntaxError(f"{t.keyword} takes no value", t.end)
            req.purge = t.keyword == "PURGE"
        elif t.keyword == "AUTHREC":
            continue  # IBM: whether to delete the object's authority records; syncpoint keeps none
        elif t.keyword == "QSGDISP":  # queue-sharing groups: which object of that name (a GROUP one: every COPY)
            word = (_single(t) or "").upper()
            if word not in QSGDISP_CHANGE:
                raise MqscSyntaxError("QSGDISP of DELETE is QMGR, COPY, GROUP or SHARED", t.end)
            req.qsgdisp = word
        else:
            raise MqscSyntaxError(f"{t.keyword} is not a keyword of DELETE {req.otype}", t.end)


def _display_vocabulary(otype: str, type_filter: str) -> tuple[frozenset[str], frozenset[str]]:
    """(keywords DISPLAY shows for this noun, IBM keywords accepted and not shown)."""
    if otype == QSTATUS:
        shown = QSTATUS_HANDLE_KEYWORDS if type_filter == "HANDLE" else QSTATUS_QUEUE_KEYWORDS
        return shown, _QSTATUS_IGNORED
    if otype == QMSTATUS:
        return QMSTATUS_KEYWORDS, QMSTATUS_IGNORED
    if otype == CONN:
        return CONN_KEYWORDS, CONN_IGNORED
    if otype == CHSTATUS:
        return CHSTATUS_KEYWORDS, CHSTATUS_IGNORED
    types = QUEUE_TYPES if otype == QUEUE else (otype,)
    shown = frozenset().union(*(display_keywords(t) for t in types))
    ignored = frozenset().union(*(IGNORED_ATTRIBUTES[t] for t in types))
    return shown, ignored


def _display(req: Request, tokens: list[Token]) -> None:
    otype = req.otype
    if otype == CONN:
        req.type_filter = "CONN"  # IBM's default for DISPLAY CONN
    names: list[str] = []
    saw_all = False
    for t in tokens:
        if t.keyword == "TYPE" and otype in (QUEUE, QSTATUS, CONN):
            word = (_single(t) or "").upper()
            if otype == CONN:
                if word not in ("CONN", "HANDLE", "ALL"):
                    raise MqscSyntaxError("TYPE of DISPLAY CONN is CONN, HANDLE or ALL", t.end)
                req.type_filter = word
            elif otype == QSTATUS:
                if word not in ("QUEUE", "HANDLE"):
                    raise MqscSyntaxError("TYPE of DISPLAY QSTATUS is QUEUE or HANDLE", t.end)
                req.type_filter = word
            else:
                if word not in _QUEUE_TYPE_WORDS:
                    raise MqscSyntaxError("TYPE of DISPLAY QUEUE is QLOCAL, QMODEL, QALIAS, QREMOTE or ALL", t.end)
                req.type_filter = _QUEUE_TYPE_WORDS[word]
    shown, ignored = _display_vocabulary(otype, req.type_filter)
    for t in tokens:
        k = t.keyword
        if k == "TYPE" and otype in (QUEUE, QSTATUS, CONN):
            continue
        if k == "AUTHTYPE" and otype == AUTHINFO and t.has_value:  # IBM's DISPLAY AUTHINFO(…) AUTHTYPE(…) filter
            word = (_single(t) or "").upper()
            if word not in ("ALL", "IDPWOS", "IDPWLDAP", "CRLLDAP", "OCSP"):
                raise MqscSyntaxError("AUTHTYPE of DISPLAY AUTHINFO is ALL, IDPWOS, IDPWLDAP, CRLLDAP or OCSP", t.end)
            if word != "ALL" and req.where is None:
                req.where = Where("AUTHTYPE", "EQ", word)  # syncpoint's objects are all IDPWOS
            continue
        if k == "ALL":
            saw_all = True
        elif k == "WHERE":  # on a member of a queue-sharing group every object shows (and filters on) QSGDISP
            req.where = _where(t, shown | {"QSGDISP"} if otype in _QSGDISP_NOUNS else shown)
        elif k == "CMDSCOPE":
            continue
        elif k == "QSGDISP" and otype not in (QMGR, QSTATUS):  # queue-sharing groups: which dispositions
            word = (_single(t) or "").upper()
            if word not in QSGDISP_DISPLAY:
                raise MqscSyntaxError("QSGDISP of DISPLAY is ALL, LIVE, QMGR, COPY, GROUP or SHARED", t.end)
            req.qsgdisp = word
        elif k == "TYPE":
            raise MqscSyntaxError("TYPE is valid on DISPLAY QUEUE, QSTATUS and CONN only", t.end)
        elif t.has_value:
            raise MqscSyntaxError(f"{k} takes no value on DISPLAY", t.end)
        elif k in shown:
            names.append(k)
        elif k in ignored:
            continue
        else:
            raise MqscSyntaxError(f"{k} is not a keyword of DISPLAY {otype}", t.end)
    if saw_all or (not names and (otype in (QMGR, QMSTATUS) or (otype == QSTATUS and req.type_filter == "HANDLE"))):
        req.wanted = None  # IBM: ALL is the default of DISPLAY QMGR, QMSTATUS and QSTATUS TYPE(HANDLE)
    elif not names and otype in (QLOCAL, QMODEL, QALIAS, QUEUE, PROCESS, NAMELIST, AUTHINFO) and not req.generic:
        req.wanted = None  # IBM: ALL is the default for one object named without a generic name
    elif not names and otype == QSTATUS:
        req.wanted = ["CURDEPTH"]  # IBM: DISPLAY QSTATUS TYPE(QUEUE) shows CURDEPTH unless more is asked
    elif not names and otype == CONN and req.type_filter != "CONN":
        req.wanted = sorted(CONN_HANDLE_KEYWORDS) if req.type_filter == "HANDLE" else None
    else:
        req.wanted = names  # DISPLAY CONN with none: CONN, EXTCONN and TYPE only, as IBM
    if req.where is not None and req.wanted is not None and req.where.keyword not in (*req.wanted, "QSGDISP"):
        req.wanted.append(req.where.keyword)  # IBM shows the attribute a WHERE tests


def _where(t: Token, shown: frozenset[str]) -> Where:
    text = _single(t) or ""
    parts = text.split(None, 2)
    if len(parts) != 3 or parts[1].upper() not in _OPS:
        raise MqscSyntaxError("WHERE takes (keyword operator value), operator one of " + " ".join(_OPS), t.end)
    kw, op, value = parts[0].upper(), parts[1].upper(), parts[2]
    if kw not in shown:
        raise MqscSyntaxError(f"WHERE names {kw}, which is not shown by this DISPLAY", t.end)
    return Where(kw, op, value)


def _refresh(req: Request, tokens: list[Token]) -> None:
    if req.otype == SECURITY:
        _refresh_security(req, tokens)
        return
    rtype = None
    for t in tokens:
        if t.keyword == "TYPE":
            rtype = (_single(t) or "").upper()
        elif t.keyword == "NAME":
            name = _single(t) or ""
            if not name or not (name == "*" or is_object_name(name.rstrip("*"))):
                raise MqscSyntaxError("NAME takes a queue name or a generic name such as APP.*", t.end)
            req.name = name
        elif t.keyword == "OBJECT":
            obj = (_single(t) or "").upper()
            if obj not in CONFIGEV_OBJECTS:
                raise MqscSyntaxError(f"OBJECT takes one of {', '.join(CONFIGEV_OBJECTS)}", t.end)
            req.attrs["OBJECT"] = obj
        else:
            raise MqscSyntaxError(f"{t.keyword} is not a keyword of REFRESH QMGR", t.end)
    if rtype is None:
        raise MqscSyntaxError("REFRESH QMGR needs TYPE(EXPIRY)", tokens[-1].end if tokens else 0)
    if "OBJECT" in req.attrs and rtype != "CONFIGEV":
        raise MqscSyntaxError("OBJECT is a keyword of REFRESH QMGR TYPE(CONFIGEV) only", len(tokens))
    if rtype == "CONFIGEV":  # IBM: a Refresh Object configuration event for each object named
        req.type_filter = "CONFIGEV"
        req.name = req.name or "*"
        return
    if rtype != "EXPIRY":
        if rtype in ("EARLY", "PROXYSUB", "ALL"):
            req.unsupported = f"REFRESH QMGR TYPE({rtype})"
            return
        raise MqscSyntaxError(f"TYPE({rtype}) is not a type of REFRESH QMGR", len(tokens))
    req.type_filter = "EXPIRY"
    if req.name is None:
        req.name = "*"


# REFRESH SECURITY's types: those syncpoint has (connection authentication, the object authority manager), those
# it has not
REFRESH_SECURITY_TYPES = ("ALL", "CONNAUTH", "AUTHSERV")
_REFRESH_SECURITY_OTHER = ("CLASSES", "SSL")


def _refresh_security(req: Request, tokens: list[Token]) -> None:
    """REFRESH SECURITY [TYPE(ALL | CONNAUTH | AUTHSERV | CLASSES | SSL)]; IBM's default type is ALL."""
    req.type_filter = "ALL"
    for t in tokens:
        if t.keyword != "TYPE":
            raise MqscSyntaxError(f"{t.keyword} is not a keyword of REFRESH SECURITY", t.end)
        word = (_single(t) or "").upper()
        if word in _REFRESH_SECURITY_OTHER:
            req.unsupported = f"REFRESH SECURITY TYPE({word})"
            return
        if word not in REFRESH_SECURITY_TYPES:
            raise MqscSyntaxError("TYPE of REFRESH SECURITY is ALL, CONNAUTH, AUTHSERV, CLASSES or SSL", t.end)
        req.type_filter = word


# -- AMQ8427I: the valid syntax of a command ---------------------------------------------------------------
_NAME_WORD = {
    QLOCAL: "q_name",
    QMODEL: "q_name",
    QALIAS: "q_name",
    PROCESS: "process_name",
    QSTATUS: "q_name",
    NAMELIST: "namelist_name",
    AUTHINFO: "authinfo_name",
}
_NOUN_WORD = {QLOCAL: "QLOCAL", QMODEL: "QMODEL", QALIAS: "QALIAS", PROCESS: "PROCESS", QUEUE: "QUEUE"}


def valid_syntax(verb: str, noun: str = "") -> list[str]:
    """The syntax of ``verb`` (and object type ``noun``) as runmqsc's AMQ8427I shows it after a syntax error:
    the command, then its keywords in brackets; for a verb alone, the object types it takes."""
    if verb == "END":
        return ["END"]
    if noun in (THREAD, INDOUBT):
        return qsg_syntax(noun)
    if not noun:
        nouns = [_NOUN_WORD.get(n, n) for n in _NOUNS_OF.get(verb, ())]
        return [f"{verb} " + " | ".join(nouns)]
    word = _NOUN_WORD.get(noun, noun)
    name = _NAME_WORD.get(noun, "name")
    if noun in (QMGR, QMSTATUS, SECURITY):
        head = f"{verb} {word}"
    elif verb == "DISPLAY":
        head = f"{verb} {word}( generic_{name} )"
    else:
        head = f"{verb} {word}( {name} )"
    items: list[str] = []
    if verb == "DEFINE":
        items = ["[ LIKE( " + name + " ) ]", "[ REPLACE | NOREPLACE ]", *keyword_syntax(noun)]
    elif verb == "ALTER":
        items = (["[ FORCE ]"] if noun != QMGR else []) + keyword_syntax(noun)
    elif verb == "DELETE":
        items = ["[ PURGE | NOPURGE ]"] if noun == QLOCAL else []
    elif verb == "REFRESH" and noun == SECURITY:
        items = ["[ TYPE( ALL | CONNAUTH | AUTHSERV | CLASSES | SSL ) ]"]
    elif verb == "REFRESH":
        items = ["TYPE( EXPIRY )", "[ NAME( generic_q_name ) ]"]
    elif verb == "DISPLAY":
        type_word = {QUEUE: "[ TYPE( QLOCAL | QMODEL | QALIAS | ALL ) ]", QSTATUS: "[ TYPE( QUEUE | HANDLE ) ]"}
        items = [type_word[noun]] if noun in type_word else []
        if noun == CONN:
            items = ["[ TYPE( CONN | HANDLE | ALL ) ]"]
        shown, _ = _display_vocabulary(noun, "HANDLE" if noun == QSTATUS else "ALL")
        if noun == QSTATUS:
            shown = shown | QSTATUS_QUEUE_KEYWORDS
        items += ["[ ALL ]", "[ WHERE( keyword operator value ) ]"]
        items += [f"[ {k} ]" for k in sorted(shown)]
    lines = [head]
    for item in items:
        if len(lines[-1]) + 1 + len(item) > 78 and lines[-1].strip():
            lines.append("       " + item)
        else:
            lines[-1] += " " + item
    return lines
