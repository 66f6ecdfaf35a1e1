"""PCF for connection authentication: Create / Copy / Change / Delete / Inquire Authentication Information
(AUTHINFO objects), Inquire Authentication Information Names and Refresh Security.

Theory of operation: an AUTHINFO object is an object definition like a process, kept by the engine; these
commands are the administration verbs (``define``, ``alter``, ``delete``, ``list_objects``) through the command
server's connection, so PCF, MQSC and MQINQ read the same objects and the same CONNAUTH. Refresh Security of
type MQSECTYPE_CONNAUTH makes the CONNAUTH object's settings the ones in force (``engine._security``); the other
types are those of IBM's authority service and TLS, which this module does not refresh (the engine answers
MQRC_FUNCTION_NOT_SUPPORTED).

Implements: reference/operations.md (CONNAUTH); IBM's PCF commands of the same names.
"""

from __future__ import annotations

from typing import Any, Protocol

from syncpoint.mqi import constants as C
from syncpoint.mqi import matches_generic
from syncpoint.mqi.objects import AUTHINFO

from . import _constants as K
from ._request import CommandFailedError, Request
from ._structs import Param

Reply = list[list[Param]]  # one parameter list per response message (as ``_server``'s)


class CommandServer(Protocol):
    """What these commands use of the command server (``_server.CommandServer``)."""

    def _admin(self, verb: str, *args: Any, **kw: Any) -> Any: ...

    def _replace(self, req: Request) -> bool: ...

    def _no_extra(self, req: Request, filters: bool = False) -> None: ...

    def _filtered(self, req: Request, objects: list[Any], wanted: list[int] | None) -> Reply: ...


_SECURITY_TYPES = {
    K.MQSECTYPE_AUTHSERV: "AUTHSERV",
    K.MQSECTYPE_SSL: "SSL",
    K.MQSECTYPE_CLASSES: "CLASSES",
    K.MQSECTYPE_CONNAUTH: "CONNAUTH",
}


def _name(req: Request, pid: int = K.MQCA_AUTH_INFO_NAME) -> str:
    name = req.string(pid, required=True)
    assert name is not None
    return name


def create_auth_info(server: CommandServer, req: Request) -> Reply:
    name = _name(req)
    replace = server._replace(req)
    attrs = req.attributes(AUTHINFO)
    if "AUTHTYPE" not in attrs:  # IBM: AuthInfoType is required on Create
        raise CommandFailedError(K.MQRCCF_PARM_MISSING, "AuthInfoType is required", K.MQIA_AUTH_INFO_TYPE)
    server._admin("define", AUTHINFO, name, attrs, replace=replace)
    return []


def copy_auth_info(server: CommandServer, req: Request) -> Reply:
    src = _name(req, K.MQCACF_FROM_AUTH_INFO_NAME)
    dst = _name(req, K.MQCACF_TO_AUTH_INFO_NAME)
    replace = server._replace(req)
    attrs = req.attributes(AUTHINFO)
    if server._admin("lookup", AUTHINFO, src) is None:
        raise CommandFailedError(
            C.MQRC_UNKNOWN_OBJECT_NAME, f"AUTHINFO {src} does not exist", K.MQCACF_FROM_AUTH_INFO_NAME
        )
    server._admin("define", AUTHINFO, dst, attrs, like=src, replace=replace)
    return []


def change_auth_info(server: CommandServer, req: Request) -> Reply:
    name = _name(req)
    server._admin("alter", AUTHINFO, name, req.attributes(AUTHINFO))
    return []


def delete_auth_info(server: CommandServer, req: Request) -> Reply:
    name = _name(req)
    server._no_extra(req)
    server._admin("delete", AUTHINFO, name)
    return []


def _matching(server: CommandServer, req: Request) -> list[Any]:
    pattern = _name(req)
    atype = req.integer(K.MQIA_AUTH_INFO_TYPE)
    if atype is not None and atype != K.MQAIT_IDPW_OS:
        return []
    return [d for d in server._admin("list_objects", AUTHINFO) if matches_generic(pattern, d.name)]


def inquire_auth_info(server: CommandServer, req: Request) -> Reply:
    """The AUTHINFO objects whose names match, with the attributes asked for (all by default)."""
    found = _matching(server, req)
    wanted = req.int_list(K.MQIACF_AUTH_INFO_ATTRS)
    server._no_extra(req, filters=True)
    if not found:
        raise CommandFailedError(C.MQRC_UNKNOWN_OBJECT_NAME, "no authentication information object matches")
    return server._filtered(req, found, wanted)


def inquire_auth_info_names(server: CommandServer, req: Request) -> Reply:
    from ._structs import MQCFSL

    found = _matching(server, req)
    server._no_extra(req)
    names = sorted(d.name.encode().ljust(48) for d in found)
    return [[MQCFSL(K.MQCACF_AUTH_INFO_NAMES, names, 0, 48)]]


def refresh_security(server: CommandServer, req: Request) -> Reply:
    """Refresh Security: SecurityType MQSECTYPE_CONNAUTH takes the CONNAUTH object's settings now; IBM's default
    type is MQSECTYPE_AUTHSERV."""
    kind = req.integer(K.MQIACF_SECURITY_TYPE, K.MQSECTYPE_AUTHSERV)
    server._no_extra(req)
    word = _SECURITY_TYPES.get(kind or 0)
    if word is None:
        raise CommandFailedError(K.MQRCCF_ATTR_VALUE_ERROR, f"SecurityType {kind} is not valid", K.MQIACF_SECURITY_TYPE)
    server._admin("refresh_security", word)
    return []


HANDLERS = {
    K.MQCMD_CREATE_AUTH_INFO: create_auth_info,
    K.MQCMD_COPY_AUTH_INFO: copy_auth_info,
    K.MQCMD_CHANGE_AUTH_INFO: change_auth_info,
    K.MQCMD_DELETE_AUTH_INFO: delete_auth_info,
    K.MQCMD_INQUIRE_AUTH_INFO: inquire_auth_info,
    K.MQCMD_INQUIRE_AUTH_INFO_NAMES: inquire_auth_info_names,
    K.MQCMD_REFRESH_SECURITY: refresh_security,
}
"""The commands of this module, by command code (joined to the command server's table)."""
