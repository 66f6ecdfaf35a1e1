"""MQSC attribute names and values: the conversion between what a user types or reads (``TRIGTYPE(EVERY)``,
``NOTRIGGER``, ``EXPRYINT(OFF)``) and what the engine keeps (``{"TRIGTYPE": MQTT_EVERY, "TRIGGER": 0,
"EXPRYINT": 0}``), the attribute lists DISPLAY shows, and the status displays (QSTATUS, QMSTATUS, CONN).

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
    "connection_pairs",
    "definition_pairs",
    "display_keywords",
    "format_pairs",
    "format_value",
    "handle_status_pairs",
    "has_no_effect",
    "keyword_info",
    "keyword_syntax",
    "mqsc_keyword",
    "open_options_words",
    "parse_attribute",
    "qmgr_status_pairs",
    "queue_status_pairs",
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


_QSTATUS_QUEUE = ("CURDEPTH", "IPPROCS", "LGETDATE", "LGETTIME", "LPUTDATE", "LPUTTIME", "MSGAGE", "OPPROCS")
QSTATUS_QUEUE_KEYWORDS = frozenset(_QSTATUS_QUEUE) | {"QTIME", "UNCOM", "QUEUE", "TYPE"}
_QSTATUS_HANDLE = (
    "APPLTAG",
    "APPLTYPE",
    "ASTATE",
    "BROWSE",
    "CHANNEL",
    "CONNAME",
    "HSTATE",
    "INPUT",
    "INQUIRE",
    "OPENOPTS",
    "OUTPUT",
    "PID",
    "SET",
    "TID",
    "URTYPE",
    "USERID",
)
QSTATUS_HANDLE_KEYWORDS = frozenset(_QSTATUS_HANDLE) | {"QUEUE", "TYPE"}
# DISPLAY QMSTATUS: what syncpoint knows (QMNAME and STATUS lead), and IBM's log / installation / HA attributes
# it has no equivalent of (accepted, not shown)
_QMSTATUS = ("CHINIT", "CMDSERV", "CONNS", "STANDBY", "STARTDA", "STARTTI")
QMSTATUS_KEYWORDS = frozenset(_QMSTATUS) | {"QMNAME", "STATUS"}
QMSTATUS_IGNORED = frozenset(
    {
        "ARCHLOG", "ARCHSZ", "AUTOCLUS", "CHKPTCNT", "CHKPTOPS", "CHKPTSZ", "CURRLOG", "DATFSSZ", "DATFSUSE",
        "DATPATH", "HOSTNAME", "INSTANCE", "INSTDESC", "INSTNAME", "INSTPATH", "LDAPCONN", "LOGPATH", "LOGINUSE",
        "LOGUTIL", "MEDIALOG", "MEDIASZ", "QMFSENCQ", "QUORUM", "RECLOG", "RECSZ", "REUSESZ", "UNICLUS", "CMDSCOPE",
    }
)  # fmt: skip
# DISPLAY CONN: CONN, EXTCONN and TYPE always; these when asked (or ALL)
_CONN = (
    "APPLTAG",
    "APPLTYPE",
    "ASTATE",
    "CHANNEL",
    "CONNAME",
    "CONNOPTS",
    "PID",
    "TID",
    "UOWLOG",
    "UOWSTATE",
    "UOWSTDA",
    "UOWSTTI",
    "URTYPE",
    "USERID",
)
CONN_HANDLE_KEYWORDS = frozenset({"HSTATE", "OBJNAME", "OBJTYPE", "OPENOPTS", "READA"})  # TYPE(HANDLE)
CONN_KEYWORDS = frozenset(_CONN) | {"CONN", "EXTCONN", "TYPE"} | CONN_HANDLE_KEYWORDS
CONN_IGNORED = frozenset({"APPLDESC", "CLIENTID", "EXTURID", "QMURID", "UOWLOGDA", "UOWLOGTI", "CMDSCOPE"})
_OPEN_OPTIONS = [
    (v, k)
    for k, v in vars(C).items()
    if k.startswith("MQOO_") and isinstance(v, int) and v and (v & (v - 1)) == 0 and k != "MQOO_RESOLVE_LOCAL_TOPIC"
]


def open_options_words(options: int) -> str:
    """MQOO options as IBM lists them in OPENOPTS: the option names joined by commas."""
    words = [name for bit, name in sorted(_OPEN_OPTIONS) if options & bit]
    return ",".join(words) if words else "MQOO_INPUT_AS_Q_DEF" if options & 1 else " "


def qmgr_status_pairs(
    qmgr_name: str, st: Mapping[str, Any], wanted: Iterable[str] | None = None
) -> list[tuple[str, str | None]]:
    """DISPLAY QMSTATUS pairs from an engine ``qmgr_status`` result: QMNAME and STATUS first, as IBM."""
    startda, startti = mqsc_date_time(float(st["STARTED"]))
    values = {
        "CHINIT": "RUNNING" if st.get("CHINIT") else "STOPPED",
        "CMDSERV": "RUNNING" if st.get("CMDSERV") else "STOPPED",
        "CONNS": str(st.get("CONNS", 0)),
        "STANDBY": "NOPERMIT",
        "STARTDA": startda,
        "STARTTI": startti,
    }
    keys = sorted(values) if wanted is None else sorted(set(wanted) & set(values))
    head: list[tuple[str, str | None]] = [("QMNAME", qmgr_name), ("STATUS", str(st["STATUS"]))]
    return head + [(k, values[k]) for k in keys]


def connection_id(started: float, hconn: int) -> str:
    """A connection's CONN: 16 hexadecimal digits, unique within the queue manager's run (its start, the hconn)."""
    return f"{int(started) & 0xFFFFFFFF:08X}{hconn & 0xFFFFFFFF:08X}"


def connection_pairs(
    qmgr_name: str, started: float, c: Mapping[str, Any], wanted: Iterable[str] | None = None, ctype: str = "CONN"
) -> list[tuple[str, str | None]]:
    """DISPLAY CONN pairs from one entry of an engine ``connection_status`` result; CONN, EXTCONN, TYPE lead."""
    appltype = c.get("APPLTYPE", C.MQAT_UNIX)
    active = bool(c.get("UOW"))
    uowstda, uowstti = mqsc_date_time(float(c.get("UOWSTARTED", 0.0)))  # blank when no unit of work is active
    values = {
        "APPLTAG": str(c.get("APPLTAG", "")),
        "APPLTYPE": "SYSTEM" if appltype == C.MQAT_QMGR else "USER",
        "ASTATE": "NONE",
        "CHANNEL": str(c.get("CHANNEL", "")),
        "CONNAME": str(c.get("CONNAME", "")),
        "CONNOPTS": "MQCNO_HANDLE_SHARE_BLOCK,MQCNO_SHARED_BINDING",
        "PID": str(c.get("PID", "")),
        "TID": "*",  # any thread may use a syncpoint connection (IBM shows * for shared handles)
        "UOWLOG": "",
        "UOWSTATE": "ACTIVE" if active else "NONE",
        "UOWSTDA": uowstda,
        "UOWSTTI": uowstti,
        "URTYPE": "QMGR",
        "USERID": str(c.get("USERID", "")),
    }
    extconn = (b"AMQC" + qmgr_name.encode("ascii", "replace")[:12].ljust(12)).hex().upper()
    keys = sorted(values) if wanted is None else sorted(set(wanted) & set(values))
    head: list[tuple[str, str | None]] = [
        ("CONN", connection_id(started, int(c["HCONN"]))),
        ("EXTCONN", extconn),
        ("TYPE", "HANDLE" if ctype == "HANDLE" else "CONN"),
    ]
    return head + ([(k, values[k]) for k in keys] if ctype != "HANDLE" else [])


_OBJTYPES = {C.MQOT_Q: "QUEUE", C.MQOT_Q_MGR: "QMGR", C.MQOT_PROCESS: "PROCESS", C.MQOT_TOPIC: "TOPIC"}


def connection_handle_pairs(
    c: Mapping[str, Any], wanted: Iterable[str] | None = None
) -> list[list[tuple[str, str | None]]]:
    """DISPLAY CONN TYPE(HANDLE): the pairs of each object the connection has open."""
    blocks: list[list[tuple[str, str | None]]] = []
    states = list(c.get("HSTATES", []))
    for i, (name, otype, options) in enumerate(c.get("HANDLES", [])):
        values = {
            "OBJNAME": str(name),
            "OBJTYPE": _OBJTYPES.get(int(otype), str(otype)),
            "OPENOPTS": open_options_words(int(options)),
            # IBM: ACTIVE while a call on the handle is in progress (an MQGET waiting), as DISPLAY QSTATUS shows it
            "HSTATE": str(states[i]) if i < len(states) else "INACTIVE",
            "READA": "NO",  # no read ahead in syncpoint
        }
        keys = sorted(values) if wanted is None else sorted(set(wanted) & set(values))
        blocks.append([(k, values[k]) for k in keys])
    return blocks


def queue_status_pairs(st: Mapping[str, Any], wanted: Iterable[str] | None = None) -> list[tuple[str, str | None]]:
    """DISPLAY QSTATUS TYPE(QUEUE) pairs from an engine ``queue_status`` result."""
    values: dict[str, str] = {k: str(st.get(k, "")) for k in _QSTATUS_QUEUE}
    qtime = st.get("QTIME") or []
    values["QTIME"] = f"{qtime[0]}, {qtime[1]}" if len(qtime) == 2 else " , "
    uncom = int(st.get("UNCOM", 0))
    values["UNCOM"] = str(uncom) if uncom else "NO"
    return _status_pairs(str(st["QUEUE"]), "QUEUE", values, wanted)


def handle_status_pairs(h: Mapping[str, Any], wanted: Iterable[str] | None = None) -> list[tuple[str, str | None]]:
    """DISPLAY QSTATUS TYPE(HANDLE) pairs from one entry of an engine ``handle_status`` result."""
    appltype = h.get("APPLTYPE", C.MQAT_UNIX)
    values = {
        "APPLTAG": str(h.get("APPLTAG", "")),
        "APPLTYPE": "SYSTEM" if appltype == C.MQAT_QMGR else "USER",
        "BROWSE": str(h.get("BROWSE", "NO")),
        "HSTATE": str(h.get("HSTATE", "INACTIVE")),  # an MQGET wait in progress (IBM), not a unit of work
        "INPUT": str(h.get("INPUT", "NO")),
        "INQUIRE": str(h.get("INQUIRE", "NO")),
        "OUTPUT": str(h.get("OUTPUT", "NO")),
        "PID": str(h.get("PID", "")),
        "SET": str(h.get("SET", "NO")),
        "URTYPE": "QMGR",
        "ASTATE": "NONE",  # no asynchronous consumer (MQCB) in syncpoint
        "CHANNEL": str(h.get("CHANNEL", "")),
        "CONNAME": str(h.get("CONNAME", "")),
        "OPENOPTS": open_options_words(int(h.get("OPENOPTS", 0))),
        "TID": "*",
        "USERID": str(h.get("USERID", "")),
    }
    return _status_pairs(str(h["QUEUE"]), "HANDLE", values, wanted)


def _status_pairs(
    queue: str, stype: str, values: dict[str, str], wanted: Iterable[str] | None
) -> list[tuple[str, str | None]]:
    keys = sorted(values) if wanted is None else sorted(set(wanted) & set(values))
    head: list[tuple[str, str | None]] = [("QUEUE", queue), ("TYPE", stype)]
    return head + [(k, values[k]) for k in keys]


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
