"""syncpoint.trigger: the trigger monitor (runmqtrm) — reads trigger messages from an initiation queue and starts
the applications they name, as IBM MQ's Unix trigger monitor does.

Implements: seed 001 (conditions for a trigger event), reference/triggering.md.
"""

from ._monitor import (
    DEFAULT_INITQ,
    EXIT_ERROR,
    EXIT_NORMAL,
    EXIT_NOT_RUN,
    RULE,
    SUPPORTED_APPL_TYPES,
    Started,
    Statistics,
    TriggerMessageError,
    TriggerMonitor,
    command_for,
    parse_trigger_message,
    run_command,
)

__all__ = [
    "DEFAULT_INITQ",
    "EXIT_ERROR",
    "EXIT_NORMAL",
    "EXIT_NOT_RUN",
    "RULE",
    "SUPPORTED_APPL_TYPES",
    "Started",
    "Statistics",
    "TriggerMessageError",
    "TriggerMonitor",
    "command_for",
    "parse_trigger_message",
    "run_command",
]
