"""The MQI vocabulary: IBM's constants, byte-exact structures and the one error type."""

from . import constants
from ._errors import MQMIError, completion_name, lookup, reason_name
from ._structs import (
    MQCNO,
    MQDLH,
    MQGMO,
    MQMD,
    MQMDE,
    MQOD,
    MQPMO,
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
    "MQTM",
    "MQTMC2",
    "MQXQH",
    "MQMIError",
    "Structure",
    "blank_strip",
    "char_field",
    "completion_name",
    "constants",
    "lookup",
    "reason_name",
]
