"""Matching a dead-letter message against the rules, and choosing the rule whose action applies.

Character patterns (dlq-handler.md): ``?`` matches exactly one character that is not a trailing blank, ``*``
matches zero or more characters; trailing blanks of the field and of the pattern are not significant, leading
and embedded blanks are; matching is case-sensitive. Fields are compared byte for byte (latin-1 both ways, so
any byte matches itself).

Implements: seed 003, "How the rules table is processed" (the search from the top, RETRY counts, the implied
ACTION(IGNORE); note 1: only messages that begin with an MQDLH); reference/dlq-handler.md, "Pattern keywords".
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from syncpoint.mqi import MQDLH, MQMD
from syncpoint.mqi import constants as C

from ._rules import CHAR_PATTERNS, INT_PATTERNS, Rule

DLH_LENGTH = C.MQDLH_LENGTH_1


@lru_cache(maxsize=4096)
def _compile(pattern: str) -> re.Pattern[bytes]:
    raw = pattern.rstrip(" ").encode("utf-8")
    out = []
    for ch in raw.decode("latin-1"):
        if ch == "?":
            out.append(".")
        elif ch == "*":
            out.append(".*")
        else:
            out.append(re.escape(ch))
    return re.compile("".join(out).encode("latin-1"), re.DOTALL)


def char_matches(pattern: str, value: bytes) -> bool:
    """Does the blank-padded field ``value`` match ``pattern``?"""
    return _compile(pattern).fullmatch(value.rstrip(b" \0")) is not None


@dataclass(slots=True)
class DeadLetter:
    """A message from the dead-letter queue with its header read: what the rules are matched against."""

    md: MQMD
    data: bytes
    dlh: MQDLH

    def field(self, keyword: str) -> bytes | int:
        """The value a pattern keyword is matched against (KeyError for a keyword that is not a pattern)."""
        from_dlh, name = _FIELDS[keyword]
        value = (self.dlh if from_dlh else self.md).__dict__[name]
        return value if isinstance(value, int) else bytes(value)


def read_dlh(data: bytes) -> MQDLH | None:
    """The MQDLH at the start of ``data``, or None when there is no valid one (StrucId "DLH ", Version 1,
    at least 172 bytes)."""
    if len(data) < DLH_LENGTH or data[:4] != C.MQDLH_STRUC_ID:
        return None
    try:
        dlh = MQDLH.unpack(data[:DLH_LENGTH])
    except ValueError:
        return None
    if dlh.Version != C.MQDLH_VERSION_1:
        return None
    return dlh


# keyword -> (read from the MQDLH?, field name)
# a table of IBM's rules-table keywords (reference: runmqdlq's pattern keywords), one entry a keyword
_FIELDS: dict[str, tuple[bool, str]] = {
    "APPLIDAT": (False, "ApplIdentityData"),
    "APPLNAME": (False, "PutApplName"),
    "APPLTYPE": (False, "PutApplType"),
    "DESTQ": (True, "DestQName"),
    "DESTQM": (True, "DestQMgrName"),
    "FEEDBACK": (False, "Feedback"),
    "FORMAT": (True, "Format"),
    "MSGTYPE": (False, "MsgType"),
    "PERSIST": (False, "Persistence"),
    "REASON": (True, "Reason"),
    "REPLYQ": (False, "ReplyToQ"),
    "REPLYQM": (False, "ReplyToQMgr"),
    "USERID": (False, "UserIdentifier"),
}


@dataclass(frozen=True, slots=True)
class CompiledRule:
    """A rule with its patterns ready to test: (from the MQDLH?, field, compiled pattern or integer)."""

    rule: Rule
    tests: tuple[tuple[bool, str, re.Pattern[bytes] | int], ...]

    def matches(self, msg: DeadLetter) -> bool:
        md = msg.md.__dict__
        dlh = msg.dlh.__dict__
        for from_dlh, name, want in self.tests:
            value = dlh[name] if from_dlh else md[name]
            if isinstance(want, int):
                if value != want:
                    return False
            elif want.fullmatch(bytes(value).rstrip(b" \0")) is None:
                return False
        return True


def compile_rule(rule: Rule) -> CompiledRule:
    tests: list[tuple[bool, str, re.Pattern[bytes] | int]] = []
    for kw in CHAR_PATTERNS:
        p = getattr(rule, kw.lower())
        if p is not None:
            tests.append((*_FIELDS[kw], _compile(p)))
    for kw in INT_PATTERNS:
        p = getattr(rule, kw.lower())
        if p is not None:
            tests.append((*_FIELDS[kw], int(p)))
    return CompiledRule(rule, tuple(tests))


def rule_matches(rule: Rule | CompiledRule, msg: DeadLetter) -> bool:
    compiled = rule if isinstance(rule, CompiledRule) else compile_rule(rule)
    return compiled.matches(msg)


def choose_rule(rules: Sequence[Rule | CompiledRule], msg: DeadLetter, attempts: int) -> Rule | None:
    """The rule whose action applies now, or None for the implied ACTION(IGNORE).

    Seed 003: rules are searched from the top; each matching rule is tried RETRY times, then the next matching
    rule; when every matching rule is exhausted, or none matches, IGNORE is assumed. So each matching rule adds
    its RETRY to a running total and the first whose total exceeds the attempts made so far applies; an
    IGNORE rule applies as soon as it is reached.
    """
    total = 0
    for r in rules:
        compiled = r if isinstance(r, CompiledRule) else compile_rule(r)
        if not compiled.matches(msg):
            continue
        rule = compiled.rule
        if rule.action == "IGNORE":
            return rule
        total += rule.retry
        if total > attempts:
            return rule
    return None
