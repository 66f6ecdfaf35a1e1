"""syncpoint.mqsc: the MQSC command language — parser, command processor (runmqsc's engine) and the conversion
between MQSC attribute keywords / values and the engine's attributes, shared with PCF.

    from syncpoint.mqsc import MqscProcessor
    summary = MqscProcessor(qm).run(open("setup.mqsc"), print)   # qm: a syncpoint.client connection
    summary.exit_code                                             # 0, 10 or 20, as runmqsc

Implements: reference/mqsc.md ("MQSC syntax", the commands, "Queue attributes and defaults", "Responses"); the
lexer under the grammar is syncpoint.mqi.syntax, shared with the DLQ handler's rules table.
"""

from ._attrs import (
    IGNORED_ATTRIBUTES,
    AttributeValueError,
    KeywordInfo,
    definition_pairs,
    display_keywords,
    format_pairs,
    format_value,
    keyword_info,
    mqsc_keyword,
    parse_attribute,
)
from ._authrec import setmqaut_lines
from ._commands import Request, Where, parse_command
from ._dump import DEFINABLE, DUMP_FORMATS, DUMP_TYPES, dump_definitions
from ._parser import MqscSyntaxError, SourceCommand, Token, read_commands, tokenize
from ._processor import MqscProcessor, Response, Summary, connect_failure_lines, syntax_error_lines
from ._status import handle_status_pairs, queue_status_pairs

__all__ = [
    "DEFINABLE",
    "DUMP_FORMATS",
    "DUMP_TYPES",
    "IGNORED_ATTRIBUTES",
    "AttributeValueError",
    "KeywordInfo",
    "MqscProcessor",
    "MqscSyntaxError",
    "Request",
    "Response",
    "SourceCommand",
    "Summary",
    "Token",
    "Where",
    "connect_failure_lines",
    "definition_pairs",
    "display_keywords",
    "dump_definitions",
    "format_pairs",
    "format_value",
    "handle_status_pairs",
    "keyword_info",
    "mqsc_keyword",
    "parse_attribute",
    "parse_command",
    "queue_status_pairs",
    "read_commands",
    "setmqaut_lines",
    "syntax_error_lines",
    "tokenize",
]
