"""PCF namelist commands: Create / Change / Copy / Delete / Inquire Namelist and Inquire Namelist Names.

References: IBM's PCF "Create, Copy, and Change Namelist", "Delete Namelist", "Inquire Namelist", "Inquire
Namelist Names" (distributed platforms); cmqcfc.h for the values (MQCMD_CREATE_NAMELIST 34 …).

Theory of operation
-------------------
Each command is a function of the command server and its :class:`~._request.Request`, registered in the server's
handler table. A namelist is a definition of type NAMELIST kept by the engine (DEFINE NAMELIST in MQSC): its NAMES
travel in PCF as an MQCFSL of MQCA_NAMES (each name up to 48 characters, at most 256), its description as
MQCA_NAMELIST_DESC. Inquire Namelist answers, per namelist matching the generic name, MQCA_NAMELIST_NAME, then the
attributes asked for in MQIACF_NAMELIST_ATTRS (MQIACF_ALL by default): MQCA_NAMELIST_DESC, MQIA_NAME_COUNT,
MQCA_NAMES, MQCA_ALTERATION_DATE / _TIME; with a filter (MQCFIF on MQIA_NAME_COUNT, MQCFSF on the description
or on MQCA_NAMES with MQCFOP_CONTAINS / _EXCLUDES) only the namelists that pass it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from syncpoint.mqi import constants as C
from syncpoint.mqi import matches_generic, mqsc_date_time
from syncpoint.mqi.objects import NAMELIST

from . import _constants as K
from ._request import CommandFailedError, Request, attr_value_to_pcf, passes_filter
from ._structs import MQCFIN, MQCFSL, Param

Reply = list[list[Param]]  # one parameter list per response message
NAME_LENGTH = 48


class CommandServer(Protocol):
    """What these commands use of the command server (``_server.CommandServer``)."""

    def _admin(self, verb: str, *args: Any, **kw: Any) -> Any: ...
    def _replace(self, req: Request) -> bool: ...
    def _no_extra(self, req: Request, filters: bool = False) -> None: ...


def names_param(names: Any) -> MQCFSL:
    """A namelist's NAMES as the MQCFSL of MQCA_NAMES (each name blank-padded to 48)."""
    return MQCFSL(C.MQCA_NAMES, [n.encode().ljust(NAME_LENGTH) for n in names], 0, NAME_LENGTH)


def describe(d: Any) -> list[Param]:
    """Every attribute of namelist ``d`` as response parameters, its name first."""
    names = tuple(d.attrs.get("NAMES", ()))
    adate, atime = mqsc_date_time(d.altered or d.created)
    return [
        attr_value_to_pcf(C.MQCA_NAMELIST_NAME, d.name, NAME_LENGTH),
        attr_value_to_pcf(C.MQCA_NAMELIST_DESC, d.attrs.get("NLDESCR", ""), 64),
        MQCFIN(C.MQIA_NAME_COUNT, len(names)),
        names_param(names),
        attr_value_to_pcf(C.MQCA_ALTERATION_DATE, adate, K.MQ_CREATION_DATE_LENGTH),
        attr_value_to_pcf(C.MQCA_ALTERATION_TIME, atime, K.MQ_CREATION_TIME_LENGTH),
    ]


def _lookup(server: CommandServer, name: str, param: int) -> Any:
    d = server._admin("lookup", NAMELIST, name)
    if d is None:
        raise CommandFailedError(C.MQRC_UNKNOWN_OBJECT_NAME, f"namelist {name} does not exist", param)
    return d


def create_namelist(server: CommandServer, req: Request) -> Reply:
    name = req.string(C.MQCA_NAMELIST_NAME)
    assert name is not None
    replace = server._replace(req)
    server._admin("define", NAMELIST, name, req.attributes(NAMELIST), replace=replace)
    return []


def copy_namelist(server: CommandServer, req: Request) -> Reply:
    src = req.string(K.MQCACF_FROM_NAMELIST_NAME)
    dst = req.string(K.MQCACF_TO_NAMELIST_NAME)
    assert src is not None and dst is not None
    replace = server._replace(req)
    attrs = req.attributes(NAMELIST)
    _lookup(server, src, K.MQCACF_FROM_NAMELIST_NAME)
    server._admin("define", NAMELIST, dst, attrs, like=src, replace=replace)
    return []


def change_namelist(server: CommandServer, req: Request) -> Reply:
    name = req.string(C.MQCA_NAMELIST_NAME)
    assert name is not None
    _lookup(server, name, C.MQCA_NAMELIST_NAME)
    server._admin("alter", NAMELIST, name, req.attributes(NAMELIST))
    return []


def delete_namelist(server: CommandServer, req: Request) -> Reply:
    name = req.string(C.MQCA_NAMELIST_NAME)
    assert name is not None
    server._no_extra(req)
    _lookup(server, name, C.MQCA_NAMELIST_NAME)
    server._admin("delete", NAMELIST, name)
    return []


def _matching(server: CommandServer, pattern: str) -> list[Any]:
    return sorted(
        (d for d in server._admin("list_objects", NAMELIST) if matches_generic(pattern, d.name)),
        key=lambda d: d.name,
    )


def inquire_namelist(server: CommandServer, req: Request) -> Reply:
    pattern = req.string(C.MQCA_NAMELIST_NAME)
    assert pattern is not None
    wanted = req.int_list(K.MQIACF_NAMELIST_ATTRS)
    server._no_extra(req, filters=True)
    found = _matching(server, pattern)
    if not found:
        raise CommandFailedError(C.MQRC_UNKNOWN_OBJECT_NAME, "no namelist matches", C.MQCA_NAMELIST_NAME)
    f = req.filters[0] if req.filters else None
    keep = None if wanted is None or K.MQIACF_ALL in wanted else {*wanted, C.MQCA_NAMELIST_NAME}
    if keep is not None and f is not None:
        keep.add(f.Parameter)  # the filtered attribute is returned too, as IBM does
    out: Reply = []
    for d in found:
        body = describe(d)
        if f is not None and not passes_filter(body, f):
            continue
        out.append([p for p in body if keep is None or p.Parameter in keep])
    return out


def inquire_namelist_names(server: CommandServer, req: Request) -> Reply:
    pattern = req.string(C.MQCA_NAMELIST_NAME)
    assert pattern is not None
    server._no_extra(req)
    names = [d.name.encode().ljust(NAME_LENGTH) for d in _matching(server, pattern)]
    return [[MQCFSL(K.MQCACF_NAMELIST_NAMES, names, 0, NAME_LENGTH)]]


HANDLERS: dict[int, Callable[[CommandServer, Request], Reply]] = {
    K.MQCMD_CREATE_NAMELIST: create_namelist,
    K.MQCMD_COPY_NAMELIST: copy_namelist,
    K.MQCMD_CHANGE_NAMELIST: change_namelist,
    K.MQCMD_DELETE_NAMELIST: delete_namelist,
    K.MQCMD_INQUIRE_NAMELIST: inquire_namelist,
    K.MQCMD_INQUIRE_NAMELIST_NAMES: inquire_namelist_names,
}
