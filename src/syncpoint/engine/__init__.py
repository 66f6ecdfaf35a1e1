"""syncpoint.engine: the queue manager itself — pure logic, no sockets, no threads, an injected clock.

Its parts, one module per rule or MQI verb, are listed in ``_qmgr``'s docstring.
"""

from syncpoint.mqi import GetResult, put_date_time
from syncpoint.mqi.objects import (  # an import list, not logic: other modules import many of the same names
    ATTRIBUTES,
    PROCESS,
    QALIAS,
    QLOCAL,
    QMGR,
    QMODEL,
    QREMOTE,
    QUEUE_TYPES,
    Attribute,
    Definition,
    attributes_for,
    char_attr_length,
    defaults_for,
)

from ._admin import MessageView
from ._chlauth import Admission, RefusedError
from ._effects import Effects, SystemPut
from ._qmgr import QueueManager
from ._remote import Delivery
from ._security import ConnAuth
from ._shared_defs import DEFINITIONS_CHANGED
from ._sslpeer import certificate_names
from ._state import Connection, Handle, LocalQueue, Message, UnitOfWork
from .clock import Clock, FakeClock, SystemClock

__all__ = [
    "ATTRIBUTES",
    "DEFINITIONS_CHANGED",
    "PROCESS",
    "QALIAS",
    "QLOCAL",
    "QMGR",
    "QMODEL",
    "QREMOTE",
    "QUEUE_TYPES",
    "Admission",
    "Attribute",
    "Clock",
    "ConnAuth",
    "Connection",
    "Definition",
    "Delivery",
    "Effects",
    "FakeClock",
    "GetResult",
    "Handle",
    "LocalQueue",
    "Message",
    "MessageView",
    "QueueManager",
    "RefusedError",
    "SystemClock",
    "SystemPut",
    "UnitOfWork",
    "attributes_for",
    "certificate_names",
    "char_attr_length",
    "defaults_for",
    "put_date_time",
]
