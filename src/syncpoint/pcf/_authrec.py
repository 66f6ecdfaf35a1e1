"""PCF for the object authority manager: Set / Delete / Inquire Authority Records, Inquire Entity Authority.

Each command's parameters are checked here, as IBM's command server checks them (the object type among IBM's
MQOT_* the OAM takes, principal and group names as MQCFSL lists, authorities as MQAUTH_* lists); the records are
the queue manager's administrative verbs' (``set_authrec``, ``delete_authrec``, ``authrecs``,
``entity_authority``: the engine's ``_authority``), which refuse a bad profile, authority or entity with its
reason (MQRCCF_PROFILE_NAME_ERROR, MQRCCF_AUTH_VALUE_ERROR, MQRC_UNKNOWN_ENTITY …) and store nothing. The command
server runs them as the request's UserIdentifier (``_server``), so the requester needs the authority.

Implements: issue 35 item 2 (PCF); IBM's MQCMD_SET_AUTH_REC (90), MQCMD_DELETE_AUTH_REC (89),
MQCMD_INQUIRE_AUTH_RECS (87) and MQCMD_INQUIRE_ENTITY_AUTH (88) with their parameters and response layout.
"""

from __future__ import annotations

from typing import Any

from syncpoint.mqi import constants as C

from . import _constants as K
from ._request import CommandFailedError, Request
from ._structs import MQCFIL, MQCFIN, MQCFSL, MQCFST, Param

CommandServer = Any  # ``_server.CommandServer`` (not imported: it imports this module)

MQCMD_INQUIRE_AUTH_RECS = 87
MQCMD_INQUIRE_ENTITY_AUTH = 88
MQCMD_DELETE_AUTH_REC = 89
MQIACF_AUTH_PROFILE_ATTRS = 1114
MQIACF_AUTHORIZATION_LIST = 1115
MQIACF_ENTITY_TYPE = 1118
MQIACF_AUTH_OPTIONS = 1228
MQCACF_ENTITY_NAME = 3068
MQZAET_PRINCIPAL = 1
MQZAET_GROUP = 2
MQAUTHOPT_ENTITY_EXPLICIT = 0x1
MQAUTHOPT_ENTITY_SET = 0x2
MQAUTHOPT_NAME_EXPLICIT = 0x10
MQAUTHOPT_NAME_ALL_MATCHING = 0x20
MQAUTHOPT_NAME_AS_WILDCARD = 0x40
MQAUTHOPT_CUMULATIVE = 0x100
MQAUTHOPT_EXCLUDE_TEMP = 0x200
MQOT_ALL = 1001

# MQAUTH_* -> setmqaut's names (the engine's), and back
NAME_OF_AUTH = {
    C.MQAUTH_ALT_USER_AUTHORITY: "altusr",
    C.MQAUTH_BROWSE: "browse",
    C.MQAUTH_CHANGE: "chg",
    C.MQAUTH_CLEAR: "clr",
    C.MQAUTH_CONNECT: "connect",
    C.MQAUTH_CREATE: "crt",
    C.MQAUTH_DELETE: "dlt",
    C.MQAUTH_DISPLAY: "dsp",
    C.MQAUTH_INPUT: "get",
    C.MQAUTH_INQUIRE: "inq",
    C.MQAUTH_OUTPUT: "put",
    C.MQAUTH_PASS_ALL_CONTEXT: "passall",
    C.MQAUTH_PASS_IDENTITY_CONTEXT: "passid",
    C.MQAUTH_SET: "set",
    C.MQAUTH_SET_ALL_CONTEXT: "setall",
    C.MQAUTH_SET_IDENTITY_CONTEXT: "setid",
    C.MQAUTH_CONTROL: "ctrl",
    C.MQAUTH_CONTROL_EXTENDED: "ctrlx",
    C.MQAUTH_PUBLISH: "pub",
    C.MQAUTH_SUBSCRIBE: "sub",
    C.MQAUTH_RESUME: "resume",
    C.MQAUTH_SYSTEM: "system",
    C.MQAUTH_ALL: "all",
    C.MQAUTH_ALL_ADMIN: "alladm",
    C.MQAUTH_ALL_MQI: "allmqi",
    C.MQAUTH_NONE: "none",
}
AUTH_OF_NAME = {v: k for k, v in NAME_OF_AUTH.items()}
TYPE_OF_MQOT = {
    C.MQOT_Q: "queue",
    C.MQOT_NAMELIST: "namelist",
    C.MQOT_PROCESS: "process",
    C.MQOT_Q_MGR: "qmgr",
    C.MQOT_CHANNEL: "channel",
    C.MQOT_AUTH_INFO: "authinfo",
    C.MQOT_TOPIC: "topic",
}
MQOT_OF_TYPE = {v: k for k, v in TYPE_OF_MQOT.items()}


def _otype(req: Request, allow_all: bool = False) -> str | None:
    value = req.integer(K.MQIACF_OBJECT_TYPE)
    if value is None:
        raise CommandFailedError(C.MQRCCF_OBJECT_TYPE_MISSING, "ObjectType is required", K.MQIACF_OBJECT_TYPE)
    if allow_all and value == MQOT_ALL:
        return None
    otype = TYPE_OF_MQOT.get(value)
    if otype is None:
        raise CommandFailedError(C.MQRC_OBJECT_TYPE_ERROR, f"ObjectType {value} is not valid", K.MQIACF_OBJECT_TYPE)
    return otype


def _auths(req: Request, pid: int) -> list[str]:
    out = []
    for v in req.int_list(pid) or []:
        name = NAME_OF_AUTH.get(v)
        if name is None:
            raise CommandFailedError(C.MQRCCF_AUTH_VALUE_ERROR, f"authority {v} is not an MQAUTH_* value", pid)
        out.append(name)
    return out


def _names(req: Request, pid: int) -> list[str]:
    p = req.params.get(pid)
    if p is None:
        return []
    req.used.add(pid)
    if isinstance(p, MQCFSL):
        raw = p.Strings
    elif isinstance(p, MQCFST):
        raw = [p.String]
    else:
        raise CommandFailedError(K.MQRCCF_CFST_PARM_ID_ERROR, f"parameter {pid} must be an MQCFSL", pid)
    return [s.decode("utf-8", "replace").rstrip(" \0") for s in raw]


def _entities(req: Request) -> list[tuple[str, str]]:
    out = [("principal", n) for n in _names(req, K.MQCACF_PRINCIPAL_ENTITY_NAMES)]
    out += [("group", n) for n in _names(req, K.MQCACF_GROUP_ENTITY_NAMES)]
    if not out:
        raise CommandFailedError(
            C.MQRCCF_ENTITY_NAME_MISSING, "name a principal or a group", K.MQCACF_PRINCIPAL_ENTITY_NAMES
        )
    return out


def _check_entities(server: CommandServer, entities: list[tuple[str, str]]) -> None:
    """Every entity is valid before the first record changes (a command never half-applies): each verb
    refuses a bad one with MQRC_UNKNOWN_ENTITY; asking each for nothing checks it without a change."""
    for etype, name in entities:
        server._admin("entity_authority", "qmgr", "", etype, name)


def set_auth_rec(server: CommandServer, req: Request) -> list[list[Param]]:
    """Set Authority Record: AuthorityAdd / AuthorityRemove (MQAUTH_* lists) for each principal and group."""
    otype = _otype(req)
    assert otype is not None
    profile = req.string(K.MQCACF_AUTH_PROFILE_NAME, required=otype != "qmgr") or ""
    add = _auths(req, K.MQIACF_AUTH_ADD_AUTHS)
    remove = _auths(req, K.MQIACF_AUTH_REMOVE_AUTHS)
    entities = _entities(req)
    server._no_extra(req)
    if not add and not remove:
        raise CommandFailedError(
            C.MQRCCF_AUTH_VALUE_MISSING, "no authorities to add or remove", K.MQIACF_AUTH_ADD_AUTHS
        )
    _check_entities(server, entities)
    for etype, name in entities:
        server._admin("set_authrec", otype, profile, etype, name, add, remove)
    return []


def delete_auth_rec(server: CommandServer, req: Request) -> list[list[Param]]:
    """Delete Authority Record: the records of each principal and group on the profile."""
    otype = _otype(req)
    assert otype is not None
    profile = req.string(K.MQCACF_AUTH_PROFILE_NAME, required=otype != "qmgr") or ""
    entities = _entities(req)
    server._no_extra(req)
    for etype, name in entities:
        server._admin("delete_authrec", otype, profile, etype, name)
    return []


def _entity_filter(req: Request) -> tuple[str | None, str | None]:
    name = req.string(MQCACF_ENTITY_NAME, required=False)
    etype = req.integer(MQIACF_ENTITY_TYPE)
    if etype not in (None, MQZAET_PRINCIPAL, MQZAET_GROUP):
        raise CommandFailedError(C.MQRC_UNKNOWN_ENTITY, f"EntityType {etype} is not valid", MQIACF_ENTITY_TYPE)
    kind = None if etype is None else ("principal" if etype == MQZAET_PRINCIPAL else "group")
    return kind, name


def _record(profile: str, otype: str, etype: str, entity: str, auths: list[str]) -> list[Param]:
    return [
        MQCFST(K.MQCACF_AUTH_PROFILE_NAME, profile.encode()),
        MQCFIN(K.MQIACF_OBJECT_TYPE, MQOT_OF_TYPE[otype]),
        MQCFST(MQCACF_ENTITY_NAME, entity.encode()),
        MQCFIN(MQIACF_ENTITY_TYPE, MQZAET_PRINCIPAL if etype == "principal" else MQZAET_GROUP),
        MQCFIL(MQIACF_AUTHORIZATION_LIST, [AUTH_OF_NAME[a] for a in auths] or [C.MQAUTH_NONE]),
    ]


def inquire_auth_recs(server: CommandServer, req: Request) -> list[list[Param]]:
    """Inquire Authority Records: Options says how ProfileName selects (MQAUTHOPT_NAME_EXPLICIT: that profile;
    MQAUTHOPT_NAME_ALL_MATCHING: every profile that applies to that object name; MQAUTHOPT_NAME_AS_WILDCARD or no
    ProfileName: all) and how the entity does (MQAUTHOPT_ENTITY_EXPLICIT: that one; MQAUTHOPT_ENTITY_SET: a
    principal with its groups). One response per record."""
    options = req.integer(MQIACF_AUTH_OPTIONS, required=True) or 0
    profile = req.string(K.MQCACF_AUTH_PROFILE_NAME, required=False)
    otype = _otype(req, allow_all=True)
    etype, entity = _entity_filter(req)
    req.int_list(MQIACF_AUTH_PROFILE_ATTRS)  # every attribute is returned
    server._no_extra(req)
    matching = None
    if profile in (None, "*") or options & MQAUTHOPT_NAME_AS_WILDCARD:
        profile = None
    elif options & MQAUTHOPT_NAME_ALL_MATCHING:
        matching, profile = profile, None
    entities: list[tuple[str | None, str | None]] = [(etype, entity)]
    if entity and options & MQAUTHOPT_ENTITY_SET and etype in (None, "principal"):
        groups = server._admin("groups")
        entities = [("principal", entity)] + [("group", g) for g, members in groups.items() if entity in members]
    out: list[list[Param]] = []
    for et, en in entities:
        for r in server._admin("authrecs", otype, profile, et, en, matching):
            out.append(_record(r["profile"], r["objtype"], r["entity_type"], r["entity"], r["authorities"]))
    if not out:
        raise CommandFailedError(C.MQRC_UNKNOWN_OBJECT_NAME, "no authority record matches", K.MQCACF_AUTH_PROFILE_NAME)
    return out


def inquire_entity_auth(server: CommandServer, req: Request) -> list[list[Param]]:
    """Inquire Entity Authority: what the entity holds on the object (ObjectName: MQCACF_AUTH_PROFILE_NAME; a
    principal with its groups')."""
    req.integer(MQIACF_AUTH_OPTIONS)
    otype = _otype(req)
    assert otype is not None
    name = req.string(K.MQCACF_AUTH_PROFILE_NAME, required=otype != "qmgr") or ""
    etype, entity = _entity_filter(req)
    if entity is None or etype is None:
        raise CommandFailedError(
            C.MQRCCF_ENTITY_NAME_MISSING, "EntityName and EntityType are required", MQCACF_ENTITY_NAME
        )
    server._no_extra(req)
    auths = server._admin("entity_authority", otype, name, etype, entity)
    return [_record(name or server._qm.name, otype, etype, entity, list(auths))]
