"""MQSC attribute names and values: the conversion between what a user types or reads (``TRIGTYPE(EVERY)``,
``NOTRIGGER``, ``EXPRYINT(OFF)``) and what the engine keeps (``{"TRIGTYPE": MQTT_EVERY, "TRIGGER": 0,
"EXPRYINT": 0}``), the attribute lists DISPLAY shows (the status displays, QSTATUS, QMSTATUS and CONN, are ``_status``).

Implements: reference/mqsc.md, "Queue attributes and defaults" and the DISPLAY QSTATUS fields; IBM's DISPLAY
QMSTATUS (AMQ8705I) and DISPLAY CONN (AMQ8276I) attributes; AMQ8427I's keyword syntax.

Theory of operation: the attribute table of the object definitions (:data:`syncpoint.mqi.objects.ATTRIBUTES`)
describes every attribute once. This module adds only what is MQSC's own: the keyword a type shows an attribute
under (DESCR of a process is kept as PROCDESC), the negative word of a flag (NOTRIGGER), special words
(EXPRYINT(OFF)), the attributes computed from status (CURDEPTH, CRDATE …), and which IBM attributes syncpoint does
not act on (kept and shown: mqi.objects.KEPT_ATTRIBUTES; dropped: IGNORED_ATTRIBUTES). The functions here take and
return plain data so PCF (MQCMD_INQUIRE_Q …) and MQSC share them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from syncpoint.mqi import SyncpointError, mqsc_date_time
from syncpoint.mqi import constants as C
from syncpoint.mqi.objects import (  # an import list, not logic: other modules import many of the same names
    ACTED_ON,
    ATTRIBUTES,
    AUTHINFO,
    CHANNEL,
    EVENT_ATTRIBUTES,
    EVENT_SWITCHES,
    KEPT_ATTRIBUTES,
    KEYWORD_ALIASES,
    MQSC_KEYWORD_OF,
    NAMELIST,
    PROCESS,
    QALIAS,
    QLOCAL,
    QMGR,
    QMODEL,
    QREMOTE,
    QUEUE_TYPES,
    Attribute,
    Definition,
    attributes_for,
    check_value,
)

__all__ = [
    "IGNORED_ATTRIBUTES",
    "AttributeValueError",
    "KeywordInfo",
    "definition_pairs",
    "display_keywords",
    "format_pairs",
    "format_value",
    "has_no_effect",
    "keyword_info",
    "keyword_syntax",
    "mqsc_keyword",
    "parse_attribute",
    "takes_list",
]


class AttributeValueError(SyncpointError, ValueError):
    """A value an attribute cannot take (wrong type, too long, out of range); the message is a sentence."""


@dataclass(frozen=True, slots=True)
class KeywordInfo:
    """An MQSC keyword of one object type: the engine attribute behind it and, for a flag, the value it sets."""

    keyword: str
    attr: Attribute
    flag_value: int | None = None  # TRIGGER -> 1, NOTRIGGER -> 0; None for keywords that take a value


def mqsc_keyword(key: str) -> str:
    """The MQSC keyword the engine key ``key`` is shown under (PROCDESC -> DESCR, QMMAXMSGL -> MAXMSGL)."""
    return MQSC_KEYWORD_OF.get(key, key)


def _keyword_table(otype: str) -> dict[str, KeywordInfo]:
    table: dict[str, KeywordInfo] = {}
    for a in attributes_for(otype):
        kw = mqsc_keyword(a.keyword) if a.keyword in KEYWORD_ALIASES.get(otype, {}).values() else a.keyword
        if a.kind == "flag":
            table[a.keyword] = KeywordInfo(a.keyword, a, a.values[a.keyword])
            table[a.off_word] = KeywordInfo(a.off_word, a, a.values[a.off_word])
        else:
            table[kw] = KeywordInfo(kw, a)
    return table


_TABLES: dict[str, dict[str, KeywordInfo]] = {
    t: _keyword_table(t) for t in (QLOCAL, QMODEL, QALIAS, QREMOTE, PROCESS, NAMELIST, QMGR, CHANNEL, AUTHINFO)
}


def keyword_syntax(otype: str) -> list[str]:
    """The keywords DEFINE / ALTER take for ``otype``, each as AMQ8427I shows it: ``[ MAXDEPTH( integer ) ]``,
    ``[ TRIGGER | NOTRIGGER ]``, ``[ TRIGTYPE( FIRST | EVERY | DEPTH | NONE ) ]``, alphabetical."""
    items: dict[str, str] = {}
    for kw, info in _TABLES[otype].items():
        a = info.attr
        if a.readonly:
            continue
        if a.kind == "flag":
            items[a.keyword] = f"[ {a.keyword} | {a.off_word} ]"
        elif a.kind == "enum" or (a.kind == "str" and a.values):  # a kept word attribute (STATQ) too
            items[kw] = f"[ {kw}( {' | '.join(a.values)} ) ]"
        elif a.kind == "names":
            items[kw] = f"[ {kw}( name, ... ) ]"
        else:
            items[kw] = f"[ {kw}( {'string' if a.kind == 'str' else 'integer'} ) ]"
    return [items[k] for k in sorted(items)]


def takes_list(otype: str, keyword: str) -> bool:
    """True for a keyword whose value is a list of names (a namelist's NAMES(A, B, C))."""
    info = _TABLES[otype].get(keyword.upper())
    return info is not None and info.attr.kind == "names"


def keyword_info(otype: str, keyword: str) -> KeywordInfo | None:
    """The attribute behind MQSC ``keyword`` of ``otype`` (``None``: not an attribute of that type)."""
    return _TABLES[otype].get(keyword.upper())


# IBM MQ attributes that syncpoint has no machinery for (clusters, monitoring, statistics, events, channels,
# security set-up). Those in the attribute table (mqi.objects.KEPT_ATTRIBUTES) are kept and shown by DISPLAY; the
# rest (IGNORED_ATTRIBUTES) are accepted on DEFINE / ALTER and dropped. Either way scripts written for IBM MQ run
# unchanged and are told (AMQ8491W).
_QUEUE_IGNORED = frozenset(
    [
        "ACCTQ",
        "CAPEXPRY",
        "CLCHNAME",
        "CLUSNL",
        "CLUSTER",
        "CLWLPRTY",
        "CLWLRANK",
        "CLWLUSEQ",
        "CUSTOM",
        "DEFBIND",
        "DEFPRESP",
        "DEFREADA",
        "DISTL",
        "IMGRCOVQ",
        "MAXFSIZE",
        "MONQ",
        "NPMCLASS",
        "QDPHIEV",
        "QDPLOEV",
        "QDPMAXEV",
        "QSVCIEV",
        "QSVCINT",
        "SCOPE",
        "STATQ",
        "STREAMQ",
        "STRMQOS",
    ]
)
_QMGR_IGNORED = frozenset(
    [
        "ACCTCONO",
        "ACCTINT",
        "ACCTMQI",
        "ACCTQ",
        "ACTIVREC",
        "ACTVCONO",
        "ACTVTRC",
        "ADVCAP",
        "AUTHOREV",
        "BRIDGEEV",
        "CERTLABL",
        "CERTVPOL",
        "CHAD",
        "CHADEV",
        "CHADEXIT",
        "CHLEV",
        "CLWLDATA",
        "CLWLEXIT",
        "CLWLLEN",
        "CLWLMRUC",
        "CLWLUSEQ",
        "CMDEV",
        "CONFIGEV",
        "CUSTOM",
        "DEFCLXQ",
        "DEFXMITQ",
        "IMGINTVL",
        "IMGLOGLN",
        "IMGRCOVO",
        "IMGRCOVQ",
        "IMGSCHED",
        "INHIBTEV",
        "IPADDRV",
        "LOCALEV",
        "LOGGEREV",
        "MARKINT",
        "MAXPROPL",
        "MONACLS",
        "MONCHL",
        "MONQ",
        "PARENT",
        "PERFMEV",
        "PSCLUS",
        "PSMODE",
        "PSNPMSG",
        "PSNPRES",
        "PSRTYCNT",
        "PSSYNCPT",
        "REMOTEEV",
        "REPOS",
        "REPOSNL",
        "REVDNS",
        "ROUTEREC",
        "SCHINIT",
        "SCMDSERV",
        "SPLCAP",
        "SSLCRLNL",
        "SSLCRYP",
        "SSLEV",
        "SSLFIPS",
        "SSLKEYR",
        "SSLRKEYC",
        "STATACLS",
        "STATCHL",
        "STATINT",
        "STATMQI",
        "STATQ",
        "STRSTPEV",
        "SUITEB",
        "TREELIFE",
    ]
)
_NO_EFFECT = {
    QLOCAL: _QUEUE_IGNORED,
    QMODEL: _QUEUE_IGNORED,
    QALIAS: _QUEUE_IGNORED | {"TARGTYPE"},  # DISPLAY shows TARGTYPE(QUEUE): an alias of a queue is all there is
    QREMOTE: _QUEUE_IGNORED,
    PROCESS: frozenset(),
    NAMELIST: frozenset({"NLTYPE"}),  # z/OS only: the type of the names
    QMGR: _QMGR_IGNORED,
    AUTHINFO: frozenset({"AUTHENMD"}),  # IBM's OS (or PAM) checking of IDPWOS: syncpoint checks its password file
    # IBM channel attributes syncpoint's channels do not have (exits, compression, cluster, monitoring …)
    CHANNEL: frozenset(
        [
            "BATCHHB",
            "BATCHLIM",
            "CERTLABL",
            "CLUSNL",
            "CLUSTER",
            "CLWLPRTY",
            "CLWLRANK",
            "CLWLWGHT",
            "COMPHDR",
            "COMPMSG",
            "CONVERT",
            "DEFCDISP",
            "KAINT",
            "LOCLADDR",
            "MODENAME",
            "MONCHL",
            "MRDATA",
            "MREXIT",
            "MSGDATA",
            "MSGEXIT",
            "NETPRTY",
            "PROPCTL",
            "RCVDATA",
            "RCVEXIT",
            "RESETSEQ",
            "SCYDATA",
            "SCYEXIT",
            "SENDDATA",
            "SENDEXIT",
            "SSLCAUTH",
            "SSLPEER",
            "TPNAME",
            "USEDLQ",
        ]
    ),
}
IGNORED_ATTRIBUTES: dict[str, frozenset[str]] = {
    t: frozenset(k for k in words if k not in _TABLES[t] and (t in (QMGR, AUTHINFO) or k == "TARGTYPE"))
    for t, words in _NO_EFFECT.items()
}
"""IBM attributes accepted on DEFINE / ALTER and dropped, by object type (the others of _NO_EFFECT are kept)."""


def has_no_effect(otype: str, keyword: str) -> bool:
    """True for an IBM attribute syncpoint accepts without acting on it (kept and shown, or dropped)."""
    info = _TABLES[otype].get(keyword.upper())
    if info is not None and info.attr.keyword in EVENT_ATTRIBUTES:
        return False  # the events syncpoint writes (engine._events)
    return keyword.upper() in IGNORED_ATTRIBUTES[otype] or (
        info is not None
        and info.attr.keyword in KEPT_ATTRIBUTES.get(otype, frozenset())
        and info.attr.keyword not in ACTED_ON  # statistics and accounting (engine ``_statistics``)
    )


# special words of integer attributes (IBM: EXPRYINT(OFF) is 0, no scan)
_INT_WORDS: dict[str, dict[str, int]] = {"EXPRYINT": {"OFF": 0}}


def parse_attribute(otype: str, keyword: str, value: str | list[str] | None) -> tuple[str, Any]:
    """MQSC ``KEYWORD(value)`` (``value`` None for a bare keyword; the items of a list value, such as a namelist's
    NAMES, as a list) of an ``otype`` object -> (engine key, value).

    Raises :class:`AttributeValueError` for a value of the wrong type, too long or out of range, a missing or
    unexpected value, and ``KeyError`` when ``keyword`` is not an attribute of ``otype``.
    """
    info = keyword_info(otype, keyword)
    if info is None:
        raise KeyError(keyword)
    attr = info.attr
    kw = info.keyword
    if info.flag_value is not None:
        if value is not None:
            raise AttributeValueError(f"{kw} takes no value")
        return attr.keyword, info.flag_value
    if attr.readonly:
        raise AttributeValueError(f"{kw} cannot be set")
    if value is None:
        raise AttributeValueError(f"{kw} needs a value in parentheses")
    try:
        if attr.kind == "names":
            items = [value] if isinstance(value, str) else value
            return attr.keyword, check_value(_renamed(attr, kw), [n for n in items if n.strip()])
        if isinstance(value, list):
            raise AttributeValueError(f"{kw} takes one value")
        if attr.kind == "str":
            words = EVENT_SWITCHES.get(attr.keyword)
            if words is not None:  # an event switch: one of its words
                if value.strip().upper() not in words:
                    raise AttributeValueError(f"{kw}({value}) is not valid; {kw} takes one of {', '.join(words)}")
                return attr.keyword, value.strip().upper()
            return attr.keyword, check_value(_renamed(attr, kw), value)
        word = value.strip().upper()
        if attr.kind == "enum":
            if word not in attr.values:
                raise AttributeValueError(f"{kw}({value}) is not valid; {kw} takes one of {', '.join(attr.values)}")
            return attr.keyword, attr.values[word]
        special = _INT_WORDS.get(attr.keyword, {})
        if word in special:
            return attr.keyword, special[word]
        if not (word.isdigit() or (word[:1] in "+-" and word[1:].isdigit())):
            raise AttributeValueError(f"{kw}({value}) is not valid; {kw} takes a number")
        return attr.keyword, check_value(_renamed(attr, kw), int(word))
    except AttributeValueError:
        raise
    except ValueError as e:
        raise AttributeValueError(str(e)) from None


def _renamed(attr: Attribute, kw: str) -> Attribute:
    """``attr`` under the keyword the user typed, so check_value's sentences name it (DESCR, not PROCDESC)."""
    if attr.keyword == kw:
        return attr
    from dataclasses import replace

    return replace(attr, keyword=kw)


# -- display ----------------------------------------------------------------------------------------------
# attributes DISPLAY computes rather than reads from the definition, by object type
_COMPUTED: dict[str, tuple[str, ...]] = {
    QLOCAL: ("CRDATE", "CRTIME", "ALTDATE", "ALTTIME", "CURDEPTH", "IPPROCS", "OPPROCS", "DEFTYPE"),
    QMODEL: ("CRDATE", "CRTIME", "ALTDATE", "ALTTIME"),
    QALIAS: ("CRDATE", "CRTIME", "ALTDATE", "ALTTIME", "TARGTYPE"),
    QREMOTE: ("CRDATE", "CRTIME", "ALTDATE", "ALTTIME"),
    PROCESS: ("ALTDATE", "ALTTIME"),
    NAMELIST: ("ALTDATE", "ALTTIME", "NAMCOUNT"),
    QMGR: ("CRDATE", "CRTIME", "ALTDATE", "ALTTIME", "QMID"),
    CHANNEL: ("ALTDATE", "ALTTIME"),
    AUTHINFO: ("ALTDATE", "ALTTIME"),
}
STATUS_KEYWORDS = frozenset({"CURDEPTH", "IPPROCS", "OPPROCS"})  # DISPLAY QLOCAL reads them from the status
_IDENTITY = {
    QLOCAL: "QUEUE",
    QMODEL: "QUEUE",
    QALIAS: "QUEUE",
    QREMOTE: "QUEUE",
    PROCESS: "PROCESS",
    NAMELIST: "NAMELIST",
    QMGR: "QMNAME",
    CHANNEL: "CHANNEL",
    AUTHINFO: "AUTHINFO",
}
_WORDS: dict[str, dict[int, str]] = {
    "PLATFORM": {C.MQPL_UNIX: "UNIX"},
    "DEFTYPE": {
        C.MQQDT_PREDEFINED: "PREDEFINED",
        C.MQQDT_PERMANENT_DYNAMIC: "PERMDYN",
        C.MQQDT_TEMPORARY_DYNAMIC: "TEMPDYN",
    },
}
_BARE = {"SYNCPT"}  # shown as a bare word (the queue manager supports syncpoint)


def display_keywords(otype: str) -> frozenset[str]:
    """Every keyword DISPLAY can name for ``otype`` (attributes, both words of flags, computed attributes)."""
    return frozenset(_TABLES[otype]) | frozenset(_COMPUTED[otype]) | {_IDENTITY[otype]}


def format_value(key: str, value: Any) -> tuple[str, str | None]:
    """An engine attribute value as DISPLAY shows it: (keyword, text), text None for a bare word (NOTRIGGER)."""
    attr = ATTRIBUTES.get(key)
    kw = mqsc_keyword(key)
    if attr is not None and attr.kind == "flag":
        return (attr.keyword if value == attr.values[attr.keyword] else attr.off_word), None
    if attr is not None and attr.kind == "enum":
        return kw, attr.word_for(value)
    if key in _BARE:
        return kw, None
    if key in _WORDS and isinstance(value, int):
        return kw, _WORDS[key].get(value, str(value))
    if key == "EXPRYINT" and value == 0:
        return kw, "OFF"
    if attr is not None and attr.kind == "names":
        return kw, ",".join(value)
    return kw, str(value)


# what DISPLAY CHANNEL shows of a server-connection channel, and the attributes only such a channel has
SVRCONN_SHOWN = frozenset(
    {"CHLTYPE", "DESCR", "HBINT", "MAXINST", "MAXINSTC", "MAXMSGL", "MCAUSER", "SHARECNV", "SSLCAUTH", "SSLCIPH"}
    | {"SSLPEER", "TRPTYPE"}
)
SVRCONN_ONLY = frozenset({"MAXINST", "MAXINSTC", "SHARECNV"})


def definition_pairs(
    d: Definition,
    wanted: Iterable[str] | None = None,
    status: Mapping[str, Any] | None = None,
    qmgr_name: str = "",
) -> list[tuple[str, str | None]]:
    """The ``(KEYWORD, value)`` pairs DISPLAY shows for definition ``d``: its identity first (QUEUE and TYPE,
    PROCESS, QMNAME), then ``wanted`` (None: ALL) in alphabetical order, as IBM lists them.

    ``status`` (a ``queue_status`` result) supplies CURDEPTH, IPPROCS and OPPROCS of a local queue.
    """
    otype = d.otype
    values: dict[str, tuple[str, str | None]] = {}
    for a in attributes_for(otype):
        kw, text = format_value(a.keyword, d.attrs.get(a.keyword, a.default))
        values[a.off_word if a.kind == "flag" else kw] = (kw, text)
    if otype == CHANNEL:  # a channel shows its type's attributes (IBM's DISPLAY CHANNEL)
        own = SVRCONN_SHOWN if d.attrs.get("CHLTYPE") == 7 else None  # MQCHT_SVRCONN
        for k in list(values):
            if (own is not None and k not in own) or (own is None and k in SVRCONN_ONLY):
                del values[k]
    crdate, crtime = mqsc_date_time(d.created)
    altdate, alttime = mqsc_date_time(d.altered or d.created)
    computed: dict[str, str] = {"CRDATE": crdate, "CRTIME": crtime, "ALTDATE": altdate, "ALTTIME": alttime}
    if otype == QLOCAL:
        computed["DEFTYPE"] = _WORDS["DEFTYPE"].get(d.dynamic, "PREDEFINED")
        for k in STATUS_KEYWORDS:
            if status is not None and k in status:
                computed[k] = str(status[k])
    if otype == QALIAS:
        computed["TARGTYPE"] = "QUEUE"
    if otype == QMGR:
        computed["QMID"] = f"{d.name}_{crdate}_{crtime}"
    if otype == NAMELIST:
        computed["NAMCOUNT"] = str(len(d.attrs.get("NAMES", ())))
    for k in _COMPUTED[otype]:
        if k in computed:
            values[k] = (k, computed[k])
    keys = set(values) if wanted is None else {_flag_key(otype, w) for w in wanted} & set(values)
    chosen = sorted(keys, key=lambda k: values[k][0])  # alphabetical by the word shown (HARDENBO under H)
    head: list[tuple[str, str | None]]
    if otype in QUEUE_TYPES:
        head = [("QUEUE", d.name), ("TYPE", otype)]
    elif otype == PROCESS:
        head = [("PROCESS", d.name)]
    elif otype == NAMELIST:
        head = [("NAMELIST", d.name)]
    elif otype in (CHANNEL, AUTHINFO):  # the name, then the type, then the rest alphabetically
        kind = "CHLTYPE" if otype == CHANNEL else "AUTHTYPE"
        head = [(otype, d.name), values.pop(kind, (kind, ""))]
        chosen = [k for k in chosen if k != kind]
    else:
        head = [("QMNAME", qmgr_name or d.name)]
    return head + [values[k] for k in chosen]


def _flag_key(otype: str, word: str) -> str:
    """A flag is listed under its negative word's slot whichever of its words is asked for."""
    info = _TABLES[otype].get(word)
    if info is not None and info.flag_value is not None:
        return info.attr.off_word
    return word


def format_pairs(pairs: list[tuple[str, str | None]]) -> list[str]:
    """IBM's DISPLAY layout: three blanks, then two ``KEY(VALUE)`` items a line in 40-character columns; an item
    too long for its column takes a line of its own. An empty value shows as ``( )``."""
    items = [k if v is None else f"{k}({v if v != '' else ' '})" for k, v in pairs]
    lines: list[str] = []
    pending: str | None = None
    for item in items:
        if pending is None:
            if len(item) >= 40:
                lines.append("   " + item)
            else:
                pending = item
        elif len(item) >= 40:
            lines.append("   " + pending)
            lines.append("   " + item)
            pending = None
        else:
            lines.append("   " + pending.ljust(40) + item)
            pending = None
    if pending is not None:
        lines.append("   " + pending)
    return lines
