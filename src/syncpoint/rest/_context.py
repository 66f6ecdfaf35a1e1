"""What the REST API's handlers share: the queue manager's name, the one door to it (a connection running as the
request's user), the authenticator, and the put (a hook, so that user properties can be carried once messages
have them)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from syncpoint.mqi import MQMD, MQOD, MQPMO
from syncpoint.mqi import constants as C
from syncpoint.mqi.properties import build as build_props

from ._auth import Authenticator
from ._errors import RestError, qmgr_not_found
from ._headers import UserProperty

if TYPE_CHECKING:
    from syncpoint.client import QueueManager

PutHook = Callable[["QueueManager", MQOD, MQMD, MQPMO, bytes, list[UserProperty]], None]


# ibm-mq-usr's types -> the message property types (string, boolean, i1 … r8; null from the JSON form)
_MQTYPES = {
    "string": C.MQTYPE_STRING,
    "boolean": C.MQTYPE_BOOLEAN,
    "i1": C.MQTYPE_INT8,
    "i2": C.MQTYPE_INT16,
    "i4": C.MQTYPE_INT32,
    "i8": C.MQTYPE_INT64,
    "r4": C.MQTYPE_FLOAT32,
    "r8": C.MQTYPE_FLOAT64,
    "null": C.MQTYPE_NULL,
}


def _put1(qm: QueueManager, od: MQOD, md: MQMD, pmo: MQPMO, data: bytes, properties: list[UserProperty]) -> None:
    """MQPUT1, with ``properties`` (ibm-mq-usr, validated) as the message's user properties, checked and typed
    as MQSETMP would (a name IBM forbids: MQRC_PROPERTY_NAME_ERROR, nothing put)."""
    typed = {p.name: (_MQTYPES[p.type], p.value) for p in properties}
    qm.mqput1(od, md, pmo, data, build_props(typed) if typed else None)


class Rest:
    """What the handlers share: the queue manager's name, how to connect as a user, how to authenticate."""

    def __init__(
        self,
        qmgr: str,
        connect: Callable[[str], QueueManager],
        authenticator: Authenticator,
        put1: PutHook | None = None,
        release: Callable[[QueueManager], None] | None = None,
    ) -> None:
        self.qmgr = qmgr
        self.connect = connect  # the one door to the queue manager: a connection running as this user
        self.release = release or (lambda qm: qm.disconnect())
        self.authenticator = authenticator
        self.put1 = put1 or _put1
        self.max_msg_length: int | None = None  # the queue manager's MAXMSGL as last seen (a POST reads no more)

    def check_qmgr(self, name: str) -> None:
        if name != self.qmgr:
            raise qmgr_not_found(name)

    @staticmethod
    def check_queue(name: str) -> None:
        """A queue name is 1 to 48 bytes (MQ_Q_NAME_LENGTH): anything else is MQRC_OBJECT_NAME_ERROR, refused
        before the queue manager is asked."""
        if not 0 < len(name.encode("utf-8", "replace")) <= 48:
            raise RestError(
                400,
                "MQWB0302E",
                f"The queue name {name[:60]!r} is not valid.",
                f"A queue name is 1 to 48 characters: MQRC_OBJECT_NAME_ERROR ({C.MQRC_OBJECT_NAME_ERROR}).",
                "Resubmit the request with the name of a queue.",
                C.MQCC_FAILED,
                C.MQRC_OBJECT_NAME_ERROR,
            )
