"""PCF for channel authentication: Set Channel Authentication Record and Inquire Channel Authentication Records.

The parameters are IBM's (cmqcfc.h): the profile in MQCACH_CHANNEL_NAME, the type in MQIACF_CHLAUTH_TYPE (MQCAUT_*),
the action in MQIACF_ACTION (MQACT_ADD, REPLACE, REMOVE, REMOVEALL), the address in MQCACH_CONNECTION_NAME, an
ADDRLIST in MQCACH_CONNECTION_NAME_LIST, CLNTUSER in MQCACH_CLIENT_USER_ID, a USERLIST in MQCACH_MCA_USER_ID_LIST,
MCAUSER in MQCACH_MCA_USER_ID, SSLPEER in MQCACH_SSL_PEER_NAME, QMNAME in MQCA_REMOTE_Q_MGR_NAME, USERSRC in
MQIACH_USER_SOURCE (MQUSRC_*), CHCKCLNT in MQIA_CHECK_CLIENT_BINDING (MQCHK_*), DESCR in MQCA_CHLAUTH_DESC, WARN in
MQIACH_WARNING; Inquire takes MQIACH_MATCH (MQMATCH_*) with the same identity parameters for RUNCHECK. The
records are the queue manager's verbs' (``set_chlauth``, ``chlauth_records``: the engine's ``_chlauth``), which
refuse what IBM refuses and store nothing then; the command fails with the verb's reason (a record to remove that
is not there, or none to inquire: MQRC_UNKNOWN_OBJECT_NAME) and its sentence.

Implements: issue 35 item 5 (PCF); IBM's MQCMD_SET_CHLAUTH_REC (203) and MQCMD_INQUIRE_CHLAUTH_RECS (204).
"""

from __future__ import annotations

from typing import Any

from syncpoint.mqi import MQMIError, mqsc_date_time
from syncpoint.mqi import constants as C

from . import _constants as K
from ._request import CommandFailedError, Request
from ._structs import MQCFIN, MQCFSL, MQCFST, Param

MQCMD_SET_CHLAUTH_REC = 203
MQCMD_INQUIRE_CHLAUTH_RECS = 204
MQIACF_ACTION = 1086
MQIACF_CHLAUTH_TYPE = 1352
MQIACF_CHLAUTH_ATTRS = 1355
MQIACH_USER_SOURCE = 1638
MQIACH_WARNING = 1639
MQIACH_MATCH = 1637
MQCACH_SSL_PEER_NAME = 3545
MQCACH_CONNECTION_NAME_LIST = 3566
MQCACH_CLIENT_USER_ID = 3567
MQCACH_MCA_USER_ID_LIST = 3568
MQCA_CHLAUTH_DESC = 2118
MQCA_REMOTE_Q_MGR_NAME = 2017
MQCA_ALTERATION_DATE = 2027
MQCA_ALTERATION_TIME = 2028
MQIA_CHECK_CLIENT_BINDING = 258
TYPES = {0: "ALL", 1: "BLOCKUSER", 2: "BLOCKADDR", 3: "SSLPEERMAP", 4: "ADDRESSMAP", 5: "USERMAP", 6: "QMGRMAP"}
ACTIONS = {5: "ADD", 6: "REPLACE", 7: "REMOVE", 8: "REMOVEALL"}
USERSRC = {0: "MAP", 1: "NOACCESS", 2: "CHANNEL"}
CHCKCLNT = {2: "REQDADM", 3: "REQUIRED", 4: "ASQMGR"}
MATCHES = {0: "GENERIC", 1: "RUNCHECK", 2: "EXACT", 3: "ALL"}
_STRINGS = (
    ("address", K.MQCACH_CONNECTION_NAME),
    ("clntuser", MQCACH_CLIENT_USER_ID),
    ("mcauser", K.MQCACH_MCA_USER_ID),
    ("sslpeer", MQCACH_SSL_PEER_NAME),
    ("qmname", MQCA_REMOTE_Q_MGR_NAME),
    ("descr", MQCA_CHLAUTH_DESC),
    ("sslcerti", C.MQCA_SSL_CERT_ISSUER_NAME),
)


def _word(req: Request, pid: int, words: dict[int, str], what: str, default: int | None = None) -> str | None:
    value = req.integer(pid, default)
    if value is None:
        return None
    if value not in words:
        raise CommandFailedError(K.MQRCCF_ATTR_VALUE_ERROR, f"{what} {value} is not one of IBM's values", pid)
    return words[value]


def _list(req: Request, pid: int) -> list[str] | None:
    p = req.params.get(pid)
    if p is None:
        return None
    req.used.add(pid)
    if isinstance(p, MQCFSL):
        return [s.decode("utf-8", "replace").rstrip(" \0") for s in p.Strings]
    if isinstance(p, MQCFST):
        return [p.String.decode("utf-8", "replace").rstrip(" \0")]
    raise CommandFailedError(K.MQRCCF_CFSL_PARM_ID_ERROR, f"parameter {pid} must be an MQCFSL", pid)


def _refused(e: MQMIError) -> CommandFailedError:
    return CommandFailedError(e.reason, e.detail or "refused")


def set_chlauth_rec(server: Any, req: Request) -> list[list[Param]]:
    """Set Channel Authentication Record."""
    profile = req.string(K.MQCACH_CHANNEL_NAME) or ""
    rtype = _word(req, MQIACF_CHLAUTH_TYPE, TYPES, "ChlauthType", None)
    if rtype is None or rtype == "ALL":
        raise CommandFailedError(K.MQRCCF_PARM_MISSING, "ChlauthType is required (not MQCAUT_ALL)", MQIACF_CHLAUTH_TYPE)
    action = _word(req, MQIACF_ACTION, ACTIONS, "Action", 5) or "ADD"
    attrs: dict[str, Any] = {}
    for key, pid in _STRINGS:
        if pid in req.params:
            attrs[key] = req.string(pid, required=False) or ""
    for key, pid in (("addrlist", MQCACH_CONNECTION_NAME_LIST), ("userlist", MQCACH_MCA_USER_ID_LIST)):
        values = _list(req, pid)
        if values is not None:
            attrs[key] = values
    usersrc = _word(req, MQIACH_USER_SOURCE, USERSRC, "UserSource")
    if usersrc is not None:
        attrs["usersrc"] = usersrc
    chckclnt = _word(req, MQIA_CHECK_CLIENT_BINDING, CHCKCLNT, "CheckClient")
    if chckclnt is not None:
        attrs["chckclnt"] = chckclnt
    warn = req.integer(MQIACH_WARNING)
    if warn is not None:
        attrs["warn"] = "YES" if warn == 1 else "NO"
    server._no_extra(req)
    try:
        server._admin("set_chlauth", profile, rtype, action, **attrs)
    except MQMIError as e:
        raise _refused(e) from None
    return []


def _record(r: dict[str, Any]) -> list[Param]:
    code = {v: k for k, v in TYPES.items()}[r["type"]]
    out: list[Param] = [
        MQCFST(K.MQCACH_CHANNEL_NAME, r["profile"].encode()),
        MQCFIN(MQIACF_CHLAUTH_TYPE, code),
        MQCFIN(MQIACH_WARNING, 1 if r["warn"] else 0),
        MQCFST(MQCA_CHLAUTH_DESC, r["descr"].encode()),
    ]
    if r["type"] == "BLOCKADDR":
        out.append(MQCFSL(MQCACH_CONNECTION_NAME_LIST, [a.encode() for a in r["addrlist"]]))
    elif r["type"] == "BLOCKUSER":
        out.append(MQCFSL(MQCACH_MCA_USER_ID_LIST, [u.encode() for u in r["userlist"]]))
    else:
        for key, pid in _STRINGS[:5]:
            if r[key]:
                out.append(MQCFST(pid, r[key].encode()))
        if r.get("sslcerti"):
            out.append(MQCFST(C.MQCA_SSL_CERT_ISSUER_NAME, r["sslcerti"].encode()))
        out.append(MQCFIN(MQIACH_USER_SOURCE, {v: k for k, v in USERSRC.items()}[r["usersrc"]]))
        out.append(MQCFIN(MQIA_CHECK_CLIENT_BINDING, {v: k for k, v in CHCKCLNT.items()}[r["chckclnt"]]))
    date, time = mqsc_date_time(r["altered"])
    out += [MQCFST(MQCA_ALTERATION_DATE, date.encode()), MQCFST(MQCA_ALTERATION_TIME, time.encode())]
    return out


def inquire_chlauth_recs(server: Any, req: Request) -> list[list[Param]]:
    """Inquire Channel Authentication Records: one response per record (RUNCHECK: the one a connection meets, or
    its MCAUSER alone when none does)."""
    profile = req.string(K.MQCACH_CHANNEL_NAME) or "*"
    rtype = _word(req, MQIACF_CHLAUTH_TYPE, TYPES, "ChlauthType", 0) or "ALL"
    match = _word(req, MQIACH_MATCH, MATCHES, "Match", 0) or "GENERIC"
    identity = {}
    for key, pid in (("address", K.MQCACH_CONNECTION_NAME), ("clntuser", MQCACH_CLIENT_USER_ID)):
        if pid in req.params:
            identity[key] = req.string(pid, required=False) or ""
    for key, pid in (
        ("sslpeer", MQCACH_SSL_PEER_NAME),
        ("qmname", MQCA_REMOTE_Q_MGR_NAME),
        ("sslcerti", C.MQCA_SSL_CERT_ISSUER_NAME),
    ):
        if pid in req.params:
            identity[key] = req.string(pid, required=False) or ""
    req.int_list(MQIACF_CHLAUTH_ATTRS)  # every attribute is returned
    server._no_extra(req)
    try:
        records = server._admin("chlauth_records", profile, rtype, match, **identity)
    except MQMIError as e:
        raise _refused(e) from None
    if not records:
        raise CommandFailedError(C.MQRC_UNKNOWN_OBJECT_NAME, "no channel authentication record matches")
    out: list[list[Param]] = []
    for r in records:
        if r["type"] == "RUNCHECK":
            out.append(
                [MQCFST(K.MQCACH_CHANNEL_NAME, profile.encode()), MQCFST(K.MQCACH_MCA_USER_ID, r["mcauser"].encode())]
            )
        else:
            out.append(_record(r))
    return out


HANDLERS = {MQCMD_SET_CHLAUTH_REC: set_chlauth_rec, MQCMD_INQUIRE_CHLAUTH_RECS: inquire_chlauth_recs}
