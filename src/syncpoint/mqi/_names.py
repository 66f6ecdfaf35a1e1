"""IBM's generic object names: one matcher for MQSC, PCF, REFRESH QMGR and the engine alike.

A generic name ends in a single asterisk and matches every name that starts with the characters before it
(``APP.*`` matches ``APP.IN`` and ``APP.``; ``*`` matches every name). A name without the trailing asterisk
matches only itself. An asterisk anywhere else is an ordinary character, as in IBM MQ.
"""

from __future__ import annotations


def is_generic(pattern: str) -> bool:
    """True when ``pattern`` is a generic name (ends in ``*``)."""
    return pattern.endswith("*")


def matches_generic(pattern: str, name: str) -> bool:
    """Whether ``name`` is selected by ``pattern`` (a generic name or a plain one)."""
    if pattern.endswith("*"):
        return name.startswith(pattern[:-1])
    return name == pattern
