"""Matching a dead-letter message against the rules, and choosing the rule whose action applies.

Character patterns (dlq-handler.md): ``?`` matches exactly one character that is not a trailing blank, ``*``
matches zero or more characters; trailing blanks of the field and of the pattern are not significant, leading
and embedded blanks are; matching is case-sensitive. Fields are compared byte for byte (latin-1 both ways, so
any byte matches itself).
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
        md, dlh = self.md, self.dlh
        match keyword:
            case "APPLIDAT":
                return bytes(md.ApplIdentityData)
            case "APPLNAME":
                return bytes(md.PutApplName)
            case "APPLTYPE":
                return int(md.PutApplType)
            case "DESTQ":
                return bytes(dlh.DestQName)
            case "DESTQM":
                return bytes(dlh.DestQMgrName)
            case "FEEDBACK":
                return int(md.Feedback)
            case "FORMAT":
                return bytes(dlh.Format)
            case "MSGTYPE":
                return int(md.MsgType)
            case "PERSIST":
                return int(md.Persistence)
            case "REASON":
                return int(dlh.Reason)
            case "REPLYQ":
                return bytes(md.ReplyToQ)
            case "REPLYQM":
                return bytes(md.ReplyToQMgr)
            case "USERID":
                return bytes(md.UserIdentifier)
        raise KeyError(keyword)


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


def rule_matches(rule: Rule, msg: DeadLetter) -> bool:
    for kw in CHAR_PATTERNS:
        p = getattr(rule, kw.lower())
        if p is not None:
            value = msg.field(kw)
            assert isinstance(value, bytes)
            if not char_matches(p, value):
                return False
    for kw in INT_PATTERNS:
        p = getattr(rule, kw.lower())
        if p is not None and msg.field(kw) != p:
            return False
    return True


def choose_rule(rules: Sequence[Rule], msg: DeadLetter, attempts: int) -> Rule | None:
    """The rule whose action applies now, or None for the implied ACTION(IGNORE).

    Seed 003: rules are searched from the top; each matching rule is tried RETRY times, then the next matching
    rule; when every matching rule is exhausted, or none matches, IGNORE is assumed. So each matching rule adds
    its RETRY to a running total and the first whose total exceeds the attempts made so far applies; an
    IGNORE rule applies as soon as it is reached.
    """
    total = 0
    for rule in rules:
        if not rule_matches(rule, msg):
            continue
        if rule.action == "IGNORE":
            return rule
        total += rule.retry
        if total > attempts:
            return rule
    return None
