"""PCF Inquire Connection: the connections to the queue manager and the objects each has open.

References: IBM's PCF "Inquire Connection" and "Inquire Connection (Response)" (distributed platforms):
ConnectionId (MQBACF_CONNECTION_ID, 24 bytes) or GenericConnectionId (MQBACF_GENERIC_CONNECTION_ID, a prefix; zero
length for all), ConnInfoType (MQIACF_CONN_INFO_TYPE: _CONN by default, _HANDLE, _ALL), ConnectionAttrs
(MQIACF_CONNECTION_ATTRS), and a filter (MQCFIF / MQCFSF / MQCFBF); cmqcfc.h for the values.

Theory of operation
-------------------
The engine's ``connection_status`` gives each connection (its hconn, application, process, user, network
address, unit of work, open handles). A connection's ConnectionId is the 24 bytes DISPLAY CONN shows in two parts:
EXTCONN (``AMQC`` and the queue manager's name, 16 bytes) then CONN (the queue manager's start and the hconn, 8
bytes). With MQIACF_CONN_INFO_CONN each connection is one response (its ConnectionId and ConnInfoType first);
with _HANDLE each open object is one response (ObjectName, ObjectType, OpenOptions, HandleState); _ALL gives
both. MQIA_APPL_TYPE is MQAT_QMGR for the queue manager's own connections and MQAT_USER for applications, as
IBM's command server reports them. A filter is tested against every attribute of the response, which then
carries the filtered attribute as well as those asked for.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from syncpoint.mqi import constants as C
from syncpoint.mqi import mqsc_date_time

from . import _constants as K
from ._request import CommandFailedError, Request, attr_value_to_pcf, passes_filter
from ._structs import MQCFBS, MQCFIN, Param

Reply = list[list[Param]]
CONNECTION_ID_LENGTH = 24
_INFO_TYPES = (K.MQIACF_CONN_INFO_CONN, K.MQIACF_CONN_INFO_HANDLE, K.MQIACF_CONN_INFO_ALL)
_CONNECT_OPTIONS = C.MQCNO_HANDLE_SHARE_BLOCK | C.MQCNO_SHARED_BINDING  # as DISPLAY CONN's CONNOPTS shows them


class CommandServer(Protocol):
    """What this command uses of the command server (``_server.CommandServer``)."""

    def _admin(self, verb: str, *args: Any, **kw: Any) -> Any: ...
    def _no_extra(self, req: Request, filters: bool = False) -> None: ...


def connection_id(qmgr: str, started: float, hconn: int) -> bytes:
    """The 24-byte ConnectionId: DISPLAY CONN's EXTCONN (16 bytes) then its CONN (8 bytes)."""
    ext = b"AMQC" + qmgr.encode("ascii", "replace")[:12].ljust(12)
    return ext + (int(started) & 0xFFFFFFFF).to_bytes(4, "big") + (hconn & 0xFFFFFFFF).to_bytes(4, "big")


def _wanted_ids(req: Request) -> tuple[bytes | None, bytes]:
    """(an exact ConnectionId or None, a generic prefix) from the request; MQRCCF_CONNECTION_ID_ERROR for a
    ConnectionId that is not 24 bytes; one of the two is required."""
    exact = req.params.get(K.MQBACF_CONNECTION_ID)
    generic = req.params.get(K.MQBACF_GENERIC_CONNECTION_ID)
    for p in (exact, generic):
        if p is not None and not isinstance(p, MQCFBS):
            raise CommandFailedError(K.MQRCCF_CFBS_PARM_ID_ERROR, "a connection identifier is an MQCFBS", p.Parameter)
    req.used.update({K.MQBACF_CONNECTION_ID, K.MQBACF_GENERIC_CONNECTION_ID})
    if isinstance(exact, MQCFBS):
        if len(exact.String) != CONNECTION_ID_LENGTH:
            raise CommandFailedError(K.MQRCCF_CONNECTION_ID_ERROR, "a ConnectionId is 24 bytes", K.MQBACF_CONNECTION_ID)
        return exact.String, b""
    if isinstance(generic, MQCFBS):
        if len(generic.String) > CONNECTION_ID_LENGTH:
            raise CommandFailedError(
                K.MQRCCF_CONNECTION_ID_ERROR,
                "a GenericConnectionId is at most 24 bytes",
                K.MQBACF_GENERIC_CONNECTION_ID,
            )
        return None, generic.String
    raise CommandFailedError(
        K.MQRCCF_PARM_MISSING, "give ConnectionId or GenericConnectionId", K.MQBACF_GENERIC_CONNECTION_ID
    )


def _conn_body(cid: bytes, c: dict[str, Any]) -> list[Param]:
    active = bool(c.get("UOW"))
    date, time = mqsc_date_time(float(c.get("UOWSTARTED", 0.0))) if active else ("", "")
    appl_type = C.MQAT_QMGR if c.get("APPLTYPE") == C.MQAT_QMGR else C.MQAT_USER
    fields: list[tuple[int, Any, int]] = [
        (K.MQCACF_APPL_TAG, c.get("APPLTAG", ""), 28),
        (C.MQIA_APPL_TYPE, appl_type, 0),
        (K.MQIACF_ASYNC_STATE, K.MQAS_NONE, 0),
        (K.MQCACH_CHANNEL_NAME, "", 20),
        (K.MQCACH_CONNECTION_NAME, c.get("CONNAME", ""), 264),
        (K.MQIACF_CONNECT_OPTIONS, _CONNECT_OPTIONS, 0),
        (K.MQIACF_PROCESS_ID, c.get("PID", 0), 0),
        (K.MQIACF_THREAD_ID, 0, 0),
        (K.MQIACF_UOW_STATE, K.MQUOWST_ACTIVE if active else K.MQUOWST_NONE, 0),
        (K.MQIACF_UOW_TYPE, K.MQUOWT_Q_MGR, 0),
        (K.MQCACF_UOW_START_DATE, date, 12),
        (K.MQCACF_UOW_START_TIME, time, 8),
        (K.MQCACF_USER_IDENTIFIER, c.get("USERID", ""), 12),
    ]
    return [attr_value_to_pcf(s, v, n) for s, v, n in fields]


def _handle_bodies(c: dict[str, Any]) -> list[list[Param]]:
    # HSTATE as DISPLAY CONN and DISPLAY QSTATUS show it: ACTIVE while a call on the handle is in progress (an
    # MQGET waiting), whatever the connection's unit of work
    states = list(c.get("HSTATES", []))
    out = []
    for i, (name, otype, options) in enumerate(c.get("HANDLES", [])):
        active = i < len(states) and states[i] == "ACTIVE"
        fields: list[tuple[int, Any, int]] = [
            (K.MQCACF_OBJECT_NAME, name, 48),
            (K.MQIACF_OBJECT_TYPE, int(otype), 0),
            (K.MQIACF_OPEN_OPTIONS, int(options), 0),
            (K.MQIACF_HANDLE_STATE, K.MQHSTATE_ACTIVE if active else K.MQHSTATE_INACTIVE, 0),
        ]
        out.append([attr_value_to_pcf(s, v, n) for s, v, n in fields])
    return out


def inquire_connection(server: CommandServer, req: Request) -> Reply:
    exact, prefix = _wanted_ids(req)
    info = req.integer(K.MQIACF_CONN_INFO_TYPE, K.MQIACF_CONN_INFO_CONN)
    if info not in _INFO_TYPES:
        raise CommandFailedError(
            K.MQRCCF_ATTR_VALUE_ERROR, f"ConnInfoType {info} is not valid", K.MQIACF_CONN_INFO_TYPE
        )
    wanted = req.int_list(K.MQIACF_CONNECTION_ATTRS)
    server._no_extra(req, filters=True)
    f = req.filters[0] if req.filters else None
    keep = None if wanted is None or K.MQIACF_ALL in wanted else set(wanted)
    if keep is not None and f is not None:
        keep.add(f.Parameter)
    qmgr = server._admin("lookup", "QMGR", "").name
    started = float(server._admin("qmgr_status")["STARTED"])
    out: Reply = []
    for c in server._admin("connection_status"):
        cid = connection_id(qmgr, started, int(c["HCONN"]))
        if (exact is not None and cid != exact) or not cid.startswith(prefix):
            continue
        head: list[Param] = [MQCFBS(K.MQBACF_CONNECTION_ID, cid)]
        bodies: list[tuple[int, list[Param]]] = []
        if info in (K.MQIACF_CONN_INFO_CONN, K.MQIACF_CONN_INFO_ALL):
            bodies.append((K.MQIACF_CONN_INFO_CONN, _conn_body(cid, c)))
        if info in (K.MQIACF_CONN_INFO_HANDLE, K.MQIACF_CONN_INFO_ALL):
            bodies.extend((K.MQIACF_CONN_INFO_HANDLE, b) for b in _handle_bodies(c))
        for kind, body in bodies:
            full = [*head, MQCFIN(K.MQIACF_CONN_INFO_TYPE, kind), *body]
            if f is not None and not passes_filter(full, f):
                continue
            out.append([*full[:2], *(p for p in body if keep is None or p.Parameter in keep)])
    if not out and exact is not None:
        raise CommandFailedError(K.MQRCCF_NONE_FOUND, "no such connection", K.MQBACF_CONNECTION_ID)
    return out


HANDLERS: dict[int, Callable[[CommandServer, Request], Reply]] = {K.MQCMD_INQUIRE_CONNECTION: inquire_connection}
