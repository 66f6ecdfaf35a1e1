"""dmpmqcfg: a queue manager's definitions as MQSC that runmqsc replays.

Implements: IBM's ``dmpmqcfg`` (``-a`` all attributes, else only those that differ from the defaults; ``-o mqsc``
one attribute a line with ``+`` continuations, ``-o 1line`` one command a line, ``-o setmqaut`` the authority
records as setmqaut commands; ``-t`` the object type; ``-n`` a generic name); reference/queue-sharing-groups.md
("A configuration dump of a member … writes each object with its QSGDISP").

Theory of operation: the queue manager's attributes come first (``ALTER QMGR … FORCE``), then the default objects
(SYSTEM.DEFAULT.LOCAL.QUEUE …), then every other predefined object by type and name, each as ``DEFINE … REPLACE``:
local, model, alias and remote queues (a remote queue, a queue-manager alias and a reply-to alias are all
QREMOTE), processes, channels (``CHLTYPE`` first, as a replayed DEFINE CHANNEL needs it) and authentication
information objects (``AUTHTYPE`` first); a CONNAUTH naming another AUTHINFO object than IBM's default one is
set by a last ``ALTER QMGR``, once the object it names is defined. Which types there
are is :data:`DEFINABLE` — every type MQSC's DEFINE takes — so a new object type is dumped once DEFINE knows it.
Without ``-a`` an attribute is written when it differs from the value a replayed DEFINE would otherwise take:
the default object of its type as dumped (runmqsc's DEFINE takes what is not given from it), or the product's
default for the default objects themselves, remote queues, channels and the queue manager. Dynamic queues are not
written (they are created by their applications, as IBM's dmpmqcfg leaves them out).

On a member of a queue-sharing group every object carries its QSGDISP: QMGR for a private one, SHARED for a
shared queue, and GROUP for a COPY (replaying the GROUP definition makes the copy again on every member). Outside
a group no QSGDISP is written, as IBM's dmpmqcfg on Linux writes none. ``-o setmqaut`` writes
the authority records as setmqaut commands (``_authrec``).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from syncpoint.mqi import MQMIError, matches_generic
from syncpoint.mqi import constants as C
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
    SYSTEM_DEFAULT_AUTHINFO,
    TOPIC,
    Definition,
    attributes_for,
)

from ._attrs import format_value, mqsc_keyword
from ._authrec import setmqaut_lines
from ._chlauth import set_chlauth_lines

if TYPE_CHECKING:
    from syncpoint.client import QueueManager

__all__ = ["DEFINABLE", "DUMP_FORMATS", "DUMP_TYPES", "dump_definitions"]

DEFAULT_OBJECTS = {
    QLOCAL: "SYSTEM.DEFAULT.LOCAL.QUEUE",
    QMODEL: "SYSTEM.DEFAULT.MODEL.QUEUE",
    QALIAS: "SYSTEM.DEFAULT.ALIAS.QUEUE",
    PROCESS: "SYSTEM.DEFAULT.PROCESS",
    NAMELIST: "SYSTEM.DEFAULT.NAMELIST",
    AUTHINFO: SYSTEM_DEFAULT_AUTHINFO,
}
# the object types DEFINE makes, in the order the dump writes them (tests/mqsc/test_dmpmqcfg_all_types.py checks
# that this is every type MQSC's DEFINE takes)
SUB = "SUB"  # subscriptions: not definitions; DEFINE SUB from the queue manager's durable subscriptions
DEFINABLE = (QLOCAL, QMODEL, QALIAS, QREMOTE, PROCESS, NAMELIST, CHANNEL, AUTHINFO, TOPIC, SUB)
# IBM's -t types of objects syncpoint does not have
_NO_OBJECTS = [
    "CLNTCONN",
    "COMMINFO",
    "LISTENER",
    "LSTR",
    "POLICY",
    "SERVICE",
    "SRVC",
]
# -t values, IBM's words: which object types each dumps. IBM's types syncpoint has no objects of dump nothing.
CHLAUTH = "CHLAUTH"  # channel authentication records: SET CHLAUTH … ACTION(REPLACE), after the channels
DUMP_TYPES: dict[str, tuple[str, ...]] = {
    "ALL": (QMGR, *DEFINABLE, CHLAUTH),
    "CHLAUTH": (CHLAUTH,),
    "QMGR": (QMGR,),
    "QUEUE": (QLOCAL, QMODEL, QALIAS, QREMOTE),
    "QLOCAL": (QLOCAL,),
    "QMODEL": (QMODEL,),
    "QALIAS": (QALIAS,),
    "QREMOTE": (QREMOTE,),
    "PROCESS": (PROCESS,),
    "NAMELIST": (NAMELIST,),
    "CHANNEL": (CHANNEL,),
    "TOPIC": (TOPIC,),
    "SUB": (SUB,),
    "AUTHINFO": (AUTHINFO,),
    **dict.fromkeys(_NO_OBJECTS, ()),
}
_SENDING = frozenset(
    [
        "CHLTYPE",
        "TRPTYPE",
        "CONNAME",
        "CHLXMITQ",
        "CHLDESCR",
        "BATCHSZ",
        "BATCHINT",
        "DISCINT",
        "SHORTRTY",
        "SHORTTMR",
        "LONGRTY",
        "LONGTMR",
        "HBINT",
        "NPMSPEED",
        "CHLMAXMSGL",
        "MCAUSER",
        "SSLCIPH",
        "SEQWRAP",
    ]
)
_RECEIVING = frozenset(
    [
        "CHLTYPE",
        "TRPTYPE",
        "CHLDESCR",
        "BATCHSZ",
        "HBINT",
        "NPMSPEED",
        "CHLMAXMSGL",
        "MCAUSER",
        "SSLCIPH",
        "SEQWRAP",
        "MRRTY",
        "MRTMR",
        "PUTAUT",
    ]
)
_SVRCONN = frozenset(
    [
        "CHLTYPE",
        "TRPTYPE",
        "CHLDESCR",
        "HBINT",
        "CHLMAXMSGL",
        "MCAUSER",
        "SSLCIPH",
        "SSLCAUTH",
        "SSLPEER",
        "MAXINST",
        "MAXINSTC",
        "SHARECNV",
    ]
)
# -a writes a channel's attributes of its type (IBM's DEFINE CHANNEL takes no others), and any other it was given;
# a requester retries (SHORTRTY … LONGTMR) in syncpoint, as a sender does
CHANNEL_TYPE_KEYS = {
    "SDR": _SENDING,
    "SVR": _SENDING,
    "RCVR": _RECEIVING,
    "RQSTR": _RECEIVING | {"CONNAME", "SHORTRTY", "SHORTTMR", "LONGRTY", "LONGTMR"},
    "SVRCONN": _SVRCONN,
}
DUMP_FORMATS = ("mqsc", "1line", "setmqaut")  # -o: IBM's output types syncpoint has the data for


def _quoted(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def _items(d: Definition, baseline: dict[str, Any] | None, qsgdisp: str = "") -> list[str]:
    """``KEYWORD(value)`` / flag words of ``d`` that differ from ``baseline`` (None: every one), and its QSGDISP
    when it has one (a member of a queue-sharing group)."""
    items: list[tuple[str, str]] = [("QSGDISP", f"QSGDISP({qsgdisp})")] if qsgdisp else []
    of_type = None
    if d.otype == CHANNEL:
        of_type = CHANNEL_TYPE_KEYS.get(format_value("CHLTYPE", d.attrs.get("CHLTYPE"))[1] or "", _SENDING)
    for a in attributes_for(d.otype):
        if a.readonly:
            continue
        value = d.attrs.get(a.keyword, a.default)
        if a.keyword not in _TYPE_KEYS:  # always written: DEFINE CHANNEL, AUTHINFO and TOPIC need them
            if baseline is not None and baseline.get(a.keyword, a.default) == value:
                continue
            if of_type is not None and a.keyword not in of_type and value == a.default:
                continue
        kw, text = format_value(a.keyword, value)
        if text is None:
            item = kw
        elif a.kind == "str" and a.values and text in a.values:  # a kept word attribute: IBM writes STATQ(ON)
            item = f"{kw}({text})"
        elif a.kind == "str":
            item = f"{kw}({_quoted(text)})"
        elif a.kind == "names":  # each name quoted, so that its case survives the replay
            item = f"{kw}({','.join(_quoted(n) for n in value)})"
        else:
            item = f"{kw}({text})"
        items.append((mqsc_keyword(a.keyword) if a.kind != "flag" else a.keyword, item))
    # CHLTYPE / AUTHTYPE first: DEFINE needs it (IBM's dump writes it first too)
    return [item for _, item in sorted(items, key=lambda kv: (kv[0] not in _TYPE_KEYS, kv[0]))]


_TYPE_KEYS = ("CHLTYPE", "AUTHTYPE", "TOPICSTR")


def _command(head: str, items: list[str], tail: str, one_line: bool) -> list[str]:
    words = [head, *items, tail]
    if one_line:
        return [" ".join(words)]
    return [w + " +" if i == 0 else "   " + w + " +" for i, w in enumerate(words[:-1])] + ["   " + words[-1]]


def _dump_disposition(disp: str) -> str:
    """The QSGDISP a dumped object is written with: a COPY comes back from its GROUP definition."""
    return "GROUP" if disp == "COPY" else disp


def dump_definitions(
    qm: QueueManager,
    *,
    all_attributes: bool = False,
    types: Iterable[str] = DUMP_TYPES["ALL"],
    name: str = "*",
    one_line: bool = False,
    command: str = "dmpmqcfg",
    output: str = "",
) -> list[str]:
    """The MQSC lines of ``qm``'s definitions (see the module's documentation), a comment header first.
    ``output`` "setmqaut": the authority records instead, as setmqaut commands."""
    import datetime
    import getpass
    import socket

    wanted = tuple(types)
    now = datetime.datetime.now()
    lines = [
        "*",
        f"* Script generated on {now:%Y-%m-%d}   at {now:%H.%M.%S}",
        f"* Script generated by user {_quoted(getpass.getuser())} on host {_quoted(socket.gethostname())}",
        f"* Queue manager name: {qm.name}",
        "* Queue manager platform: UNIX",
        f"* Queue manager command level: ({C.MQCMDL_CURRENT_LEVEL}/{C.MQCMDL_CURRENT_LEVEL})",
        f"* Command issued: {command}",
        "*",
    ]
    if output == "setmqaut":  # the authority records, as setmqaut commands that make them again
        return lines + setmqaut_lines(qm.name, qm.admin("authrecs"))
    member = bool(qm.admin("qsg_name"))  # a member of a queue-sharing group: each object with its QSGDISP
    connauth_last: list[str] = []
    if QMGR in wanted:
        qmgr: Definition = qm.admin("lookup", QMGR, "")
        items = _items(qmgr, None if all_attributes else {})
        connauth = str(qmgr.attrs.get("CONNAUTH", ""))
        if connauth and connauth != SYSTEM_DEFAULT_AUTHINFO:
            # CONNAUTH must name an AUTHINFO object that exists: set once the objects are defined
            items = [i for i in items if not i.startswith("CONNAUTH(")]
            connauth_last = _command("ALTER QMGR", [f"CONNAUTH({_quoted(connauth)})"], "FORCE", one_line)
        lines += _command("ALTER QMGR", items, "FORCE", one_line)
    defaults: dict[str, Definition] = {}
    for otype, default_name in DEFAULT_OBJECTS.items():
        d = qm.admin("lookup", otype, default_name)
        if d is not None:
            defaults[otype] = d
    for first in (True, False):  # the default objects first: a replayed DEFINE takes what is not given from them
        for otype in DEFINABLE:
            if otype not in wanted:
                continue
            if otype == SUB:
                if not first:
                    lines += _dump_subs(qm, name, one_line)  # subscriptions are the member's own
                continue
            for d in qm.admin("list_objects", otype):
                if (d.name == DEFAULT_OBJECTS.get(otype)) != first or not matches_generic(name, d.name):
                    continue
                if d.otype != otype or getattr(d, "dynamic", C.MQQDT_PREDEFINED) != C.MQQDT_PREDEFINED:
                    continue
                base = defaults.get(otype) if not first else None
                baseline = None if all_attributes else (base.attrs if base is not None else {})
                own = otype == TOPIC  # topic objects are each member's own: no QSGDISP
                disp = _dump_disposition(qm.admin("qsgdisp", otype, d.name)) if member and not own else ""
                head = f"DEFINE {otype}({_quoted(d.name)})"
                lines += _command(head, _items(d, baseline, disp), "REPLACE", one_line)
    if CHLAUTH in wanted:  # the records, each one command (IBM's dmpmqcfg writes SET CHLAUTH on one line too)
        records = qm.admin("chlauth_records", "*", "ALL", "ALL")
        lines += set_chlauth_lines([r for r in records if name == "*" or matches_generic(name, r["profile"])])
    return lines + connauth_last


# a durable subscription's attributes a replayed DEFINE SUB takes (its SUBID, DESTCORL and dates are its own)
_SUB_WORDS = {"WSCHEMA": {C.MQWS_CHAR: "CHAR"}, "REQONLY": {C.MQRU_PUBLISH_ON_REQUEST: "YES"}}


def _dump_subs(qm: QueueManager, name: str, one_line: bool) -> list[str]:
    """DEFINE SUB for every durable subscription: a managed one as DESTCLAS(MANAGED) (replaying makes its queue)."""
    try:
        views = qm.admin("subscriptions")
    except MQMIError:  # none
        return []
    lines: list[str] = []
    for v in views:
        if not matches_generic(name, v["SUB"]) or v["DURABLE"] != C.MQSUB_DURABLE_YES:
            continue
        items = [f"TOPICSTR({_quoted(v['TOPICSTR'])})"]
        if v["TOPICOBJ"]:
            items.append(f"TOPICOBJ({_quoted(v['TOPICOBJ'])})")
        if v["DESTCLAS"] == C.MQDC_MANAGED:
            items.append("DESTCLAS(MANAGED)")
        else:
            items.append(f"DEST({_quoted(v['DEST'])})")
            if v["DESTQMGR"] != qm.name:
                items.append(f"DESTQMGR({_quoted(v['DESTQMGR'])})")
        if v["USERDATA"]:
            items.append(f"USERDATA({_quoted(v['USERDATA'])})")
        if v.get("SELECTOR"):
            items.append(f"SELECTOR({_quoted(v['SELECTOR'])})")
        if v["EXPIRY"] != C.MQEI_UNLIMITED:
            items.append(f"EXPIRY({v['EXPIRY']})")
        if v["PUBPRTY"] >= 0:
            items.append(f"PUBPRTY({v['PUBPRTY']})")
        for kw, words in _SUB_WORDS.items():
            if v[kw] in words:
                items.append(f"{kw}({words[v[kw]]})")
        lines += _command(f"DEFINE SUB({_quoted(v['SUB'])})", items, "REPLACE", one_line)
    return lines
