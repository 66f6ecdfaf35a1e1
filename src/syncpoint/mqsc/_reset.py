"""MQSC RESET QMGR TYPE(STATISTICS): end the statistics interval now (issue 36, item 3).

IBM's syntax: ``RESET QMGR TYPE( ADVANCELOG | STATISTICS | PUBSUB | REDUCELOG | ARCHLOG )`` (Multiplatforms).
TYPE(STATISTICS) writes the statistics collected so far to SYSTEM.ADMIN.STATISTICS.QUEUE and starts a new
interval (engine ``_statistics``); the other types concern recovery logs and hierarchies syncpoint does not have,
and are answered AMQ8490E (not supported). Parsed here, outside the object grammar of ``_commands``.
"""

from __future__ import annotations

from typing import Any

from ._parser import MqscSyntaxError, Token

RESET_TYPES = ("STATISTICS",)
_OTHER_TYPES = ("ADVANCELOG", "PUBSUB", "REDUCELOG", "ARCHLOG")


def is_reset_qmgr(word: str, tokens: list[Token]) -> bool:
    return word == "RESET" and len(tokens) > 1 and tokens[1].keyword == "QMGR"


def parse_reset_qmgr(tokens: list[Token], request: Any) -> Any:
    """RESET QMGR TYPE(...) -> a request whose ``type_filter`` is the type (``unsupported`` for the others)."""
    if tokens[1].has_value:
        raise MqscSyntaxError("QMGR takes no name: the queue manager is the one runmqsc is connected to", tokens[1].end)
    rtype = None
    for t in tokens[2:]:
        if t.keyword != "TYPE":
            raise MqscSyntaxError(f"{t.keyword} is not a keyword of RESET QMGR", t.end)
        if rtype is not None:
            raise MqscSyntaxError("TYPE is given twice", t.end)
        if not t.has_value or not t.items or len(t.items) != 1:
            raise MqscSyntaxError("TYPE takes one value in parentheses", t.end)
        rtype = t.items[0].strip().upper()
        if rtype in _OTHER_TYPES:
            return request("RESET", "QMGR", unsupported=f"RESET QMGR TYPE({rtype})")
        if rtype not in RESET_TYPES:
            raise MqscSyntaxError(f"TYPE({rtype}) is not a type of RESET QMGR", t.end)
    if rtype is None:
        raise MqscSyntaxError("RESET QMGR needs TYPE(STATISTICS)", tokens[-1].end)
    return request("RESET", "QMGR", type_filter=rtype)
