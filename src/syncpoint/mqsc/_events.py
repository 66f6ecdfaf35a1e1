"""MQSC's side of IBM's command and configuration events (issue 36, item 2): the PCF command (MQCMD_*) each MQSC
command is — a Command event's Command parameter — and the object types REFRESH QMGR TYPE(CONFIGEV) OBJECT(…)
names. The events themselves are the queue manager's (engine ``_admin_events``)."""

from __future__ import annotations

# REFRESH QMGR TYPE(CONFIGEV) OBJECT(…): IBM's words -> the object types syncpoint has
CONFIGEV_OBJECTS: dict[str, tuple[str, ...]] = {
    "ALL": ("QLOCAL", "QMODEL", "QALIAS", "QREMOTE", "PROCESS", "NAMELIST", "CHANNEL", "AUTHINFO", "TOPIC", "QMGR"),
    "QUEUE": ("QLOCAL", "QMODEL", "QALIAS", "QREMOTE"),
    **{t: (t,) for t in ("QLOCAL", "QMODEL", "QALIAS", "QREMOTE", "PROCESS", "NAMELIST", "CHANNEL", "AUTHINFO")},
    "TOPIC": ("TOPIC",),
    "QMGR": ("QMGR",),
    "NONE": (),
}


# The PCF command each MQSC command is (IBM's MQCMD_* of cmqcfc.h): a Command event's Command parameter
_Q = ("QLOCAL", "QMODEL", "QALIAS", "QREMOTE", "QUEUE")
_MQCMD: dict[tuple[str, str], int] = {
    **{("DEFINE", t): 11 for t in _Q},  # MQCMD_CREATE_Q
    **{("ALTER", t): 8 for t in _Q},  # MQCMD_CHANGE_Q
    **{("DELETE", t): 12 for t in _Q},  # MQCMD_DELETE_Q
    **{("DISPLAY", t): 13 for t in _Q},  # MQCMD_INQUIRE_Q
    ("CLEAR", "QLOCAL"): 9,
    ("ALTER", "QMGR"): 1,
    ("DISPLAY", "QMGR"): 2,
    ("DEFINE", "PROCESS"): 5,
    ("ALTER", "PROCESS"): 3,
    ("DELETE", "PROCESS"): 6,
    ("DISPLAY", "PROCESS"): 7,
    ("DEFINE", "NAMELIST"): 34,
    ("ALTER", "NAMELIST"): 32,
    ("DELETE", "NAMELIST"): 35,
    ("DISPLAY", "NAMELIST"): 36,
    ("DEFINE", "CHANNEL"): 23,
    ("ALTER", "CHANNEL"): 21,
    ("DELETE", "CHANNEL"): 24,
    ("DISPLAY", "CHANNEL"): 25,
    ("PING", "CHANNEL"): 26,
    ("RESET", "CHANNEL"): 27,
    ("START", "CHANNEL"): 28,
    ("STOP", "CHANNEL"): 29,
    ("RESOLVE", "CHANNEL"): 39,
    ("PING", "QMGR"): 40,
    ("DISPLAY", "QSTATUS"): 41,
    ("DISPLAY", "CHSTATUS"): 42,
    ("REFRESH", "QMGR"): 16,  # MQCMD_REFRESH_Q_MGR
    ("REFRESH", "SECURITY"): 78,
    ("DEFINE", "AUTHINFO"): 81,
    ("ALTER", "AUTHINFO"): 79,
    ("DELETE", "AUTHINFO"): 82,
    ("DISPLAY", "AUTHINFO"): 83,
    ("DISPLAY", "CONN"): 85,
    ("DISPLAY", "AUTHREC"): 87,
    ("DISPLAY", "ENTAUTH"): 88,
    ("DELETE", "AUTHREC"): 89,
    ("SET", "AUTHREC"): 90,
    ("DISPLAY", "QMSTATUS"): 161,
    ("ALTER", "TOPIC"): 170,
    ("DEFINE", "TOPIC"): 172,
    ("DELETE", "TOPIC"): 173,
    ("DISPLAY", "TOPIC"): 174,
    ("DISPLAY", "SUB"): 176,
    ("DEFINE", "SUB"): 177,
    ("ALTER", "SUB"): 178,
    ("DELETE", "SUB"): 179,
    ("DISPLAY", "TPSTATUS"): 183,
}


def mqcmd_of(verb: str, otype: str) -> int:
    """The MQCMD_* of an MQSC command (MQCMD_NONE, 0, for one PCF has no equivalent of)."""
    return _MQCMD.get((verb, otype), 0)
