"""The publish/subscribe verbs of a request (docs/protocol.md): ``sub`` (MQSUB) and ``subrq`` (MQSUBRQ), and the
MQCHARV strings that ``open`` and ``put1`` of a topic carry beside their MQOD.

An MQCHARV (ObjectString, SubName, SubUserData, SelectionString) is a pointer in IBM's structures, so the wire
carries its text beside the structure: ``open`` and ``put1`` take the ObjectString as one more argument and
answer the ResObjectString as one more element; ``sub`` takes a map of the MQSD's strings. A string that is not
text is the structure's MQRC (MQRC_OD_ERROR, MQRC_SD_ERROR); an MQSD that does not unpack is MQRC_SD_ERROR.
"""

from __future__ import annotations

from typing import Any

from syncpoint.engine import Connection
from syncpoint.host import QueueManagerHost
from syncpoint.mqi import MQOD, MQSD, MQSRO, MQMIError
from syncpoint.mqi import constants as C
from syncpoint.store import Pending

SD_STRINGS = ("ObjectString", "SubName", "SubUserData", "SelectionString")


def _unpack(cls: Any, raw: Any, reason: int) -> Any:
    if not isinstance(raw, bytes):
        raise MQMIError(C.MQCC_FAILED, reason, f"{cls.__name__} must be sent as bytes")
    try:
        return cls.unpack(raw)
    except Exception as e:
        raise MQMIError(C.MQCC_FAILED, reason, f"{cls.__name__} is not valid: {e}") from None


def object_string(od: MQOD, args: list[Any], index: int) -> None:
    """The ObjectString an ``open`` or ``put1`` of a topic sent at ``index`` (absent: none), set on ``od``."""
    if len(args) > index and args[index] is not None:
        s = args[index]
        if not isinstance(s, str):
            raise MQMIError(C.MQCC_FAILED, C.MQRC_OBJECT_STRING_ERROR, "ObjectString must be sent as text")
        od.ObjectString = s


def res_object_string(od: MQOD) -> list[str]:
    """The reply's extra element: the resolved topic string of a topic's MQOD (none for a queue)."""
    r = od.__dict__.get("ResObjectString")
    return [r] if isinstance(r, str) else []


def sub(qm: QueueManagerHost, conn: Connection, args: list[Any]) -> tuple[Any, Pending | None]:
    sd = _unpack(MQSD, args[0], C.MQRC_SD_ERROR)
    hobj = args[1]
    if not isinstance(hobj, int) or isinstance(hobj, bool):
        raise MQMIError(C.MQCC_FAILED, C.MQRC_HOBJ_ERROR, "Hobj must be a 32-bit integer")
    strings = args[2] if len(args) > 2 else {}
    if not isinstance(strings, dict) or any(k not in SD_STRINGS or not isinstance(v, str) for k, v in strings.items()):
        raise MQMIError(C.MQCC_FAILED, C.MQRC_SD_ERROR, f"the MQSD's strings must be a map of text: {SD_STRINGS}")
    (h, hsub), pending = qm.run(qm.engine.subscribe, conn, sd, hobj or None, strings)
    return [sd.pack(), h.hobj if h is not None else C.MQHO_NONE, hsub.hobj, sd.ResObjectString], pending


def subrq(qm: QueueManagerHost, conn: Connection, args: list[Any]) -> tuple[Any, Pending | None]:
    hsub, action = args[0], args[1]
    if not isinstance(hsub, int) or not isinstance(action, int):
        raise MQMIError(C.MQCC_FAILED, C.MQRC_HOBJ_ERROR, "Hsub and Action must be integers")
    sro = _unpack(MQSRO, args[2], C.MQRC_SRO_ERROR)
    _, pending = qm.run(qm.engine.subrq, conn, hsub, action, sro)
    return sro.pack(), pending
