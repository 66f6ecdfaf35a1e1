"""syncpoint.dlq: the dead-letter queue handler (runmqdlq) — rules tables, matching, the handler loop — and
dead-lettering by applications (``dead_letter`` and ``dead_letter_header`` live in the client layer,
``syncpoint.client``, and are named here too).

Implements: seed 003 (how the rules table is processed), reference/dlq-handler.md.
"""

from syncpoint.client import dead_letter, dead_letter_header

from ._handler import DeadLetterHandler, Statistics, resolve_queue_name
from ._match import DeadLetter, char_matches, choose_rule, read_dlh, rule_matches
from ._rules import ControlData, ErrorClass, Rule, RulesTable, RulesTableError, TableError, parse_rules

__all__ = [
    "ControlData",
    "DeadLetter",
    "DeadLetterHandler",
    "ErrorClass",
    "Rule",
    "RulesTable",
    "RulesTableError",
    "Statistics",
    "TableError",
    "char_matches",
    "choose_rule",
    "dead_letter",
    "dead_letter_header",
    "parse_rules",
    "read_dlh",
    "resolve_queue_name",
    "rule_matches",
]
