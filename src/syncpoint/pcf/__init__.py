"""syncpoint.pcf: PCF structures (byte-exact, IBM's names) and the command server on SYSTEM.ADMIN.COMMAND.QUEUE.

Implements: reference/ibmmq-compat.md (PCF through ibmmq / pymqi), reference/constants.md.
"""

from . import _constants as constants
from ._request import CommandFailedError
from ._server import COMMAND_QUEUE, CommandServer
from ._structs import (  # an import list, not logic: other modules import many of the same names
    MQCFBF,
    MQCFBS,
    MQCFGR,
    MQCFH,
    MQCFIF,
    MQCFIL,
    MQCFIL64,
    MQCFIN,
    MQCFIN64,
    MQCFSF,
    MQCFSL,
    MQCFST,
    Param,
    PCFError,
    build,
    parse,
)

__all__ = [
    "COMMAND_QUEUE",
    "MQCFBF",
    "MQCFBS",
    "MQCFGR",
    "MQCFH",
    "MQCFIF",
    "MQCFIL",
    "MQCFIL64",
    "MQCFIN",
    "MQCFIN64",
    "MQCFSF",
    "MQCFSL",
    "MQCFST",
    "CommandFailedError",
    "CommandServer",
    "PCFError",
    "Param",
    "build",
    "constants",
    "parse",
]
