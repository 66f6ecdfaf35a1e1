"""The MQI vocabulary: IBM's constants, byte-exact structures and the one error type."""

from . import constants
from ._dates import mqsc_date_time, put_date_time
from ._deadletter import dead_letter_header, dead_letter_message
from ._errors import MQMIError, SyncpointError, completion_name, lookup, reason_name
from ._names import is_generic, matches_generic
from ._results import GetResult
from ._structs import (
    MQCNO,
    MQDLH,
    MQGMO,
    MQMD,
    MQMDE,
    MQOD,
    MQPMO,
    MQSD,
    MQSRO,
    MQTM,
    MQTMC2,
    MQXQH,
    Structure,
    blank_strip,
    char_field,
)

CMQC = constants

__all__ = [
    "CMQC",
    "MQCNO",
    "MQDLH",
    "MQGMO",
    "MQMD",
    "MQMDE",
    "MQOD",
    "MQPMO",
    "MQSD",
    "MQSRO",
    "MQTM",
    "MQTMC2",
    "MQXQH",
    "GetResult",
    "MQMIError",
    "Structure",
    "SyncpointError",
    "blank_strip",
    "char_field",
    "completion_name",
    "constants",
    "dead_letter_header",
    "dead_letter_message",
    "is_generic",
    "lookup",
    "matches_generic",
    "mqsc_date_time",
    "put_date_time",
    "reason_name",
]
