"""MQSC's status displays: DISPLAY QSTATUS (TYPE QUEUE and HANDLE), DISPLAY QMSTATUS and DISPLAY CONN, as pairs
of keyword and value from the engine's status verbs (``queue_status``, ``handle_status``, ``qmgr_status``,
``connection_status``), which ``_attrs.format_pairs`` lays out as IBM does.

Implements: reference/mqsc.md, the DISPLAY QSTATUS fields; IBM's DISPLAY QMSTATUS (AMQ8705I) and DISPLAY CONN
(AMQ8276I) attributes. The keyword sets here are what each display accepts; the functions take and return plain
data so PCF and MQSC share them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from syncpoint.mqi import constants as C
from syncpoint.mqi import mqsc_date_time

__all__ = [
    "CONN_HANDLE_KEYWORDS",
    "CONN_IGNORED",
    "CONN_KEYWORDS",
    "QMSTATUS_IGNORED",
    "QMSTATUS_KEYWORDS",
    "QSTATUS_HANDLE_KEYWORDS",
    "QSTATUS_QUEUE_KEYWORDS",
    "connection_handle_pairs",
    "connection_id",
    "connection_pairs",
    "handle_status_pairs",
    "open_options_words",
    "qmgr_status_pairs",
    "queue_status_pairs",
]

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
