"""The rules table of the dead-letter queue handler: parser and validator (reference page ``dlq-handler.md``,
"Lexical conventions", "Control data", "Pattern keywords", "Action keywords"; seed 003 on the table's role).

Theory of operation
-------------------
A table is text. The lexer shared with runmqsc (:mod:`syncpoint.mqi.syntax`, its
:data:`~syncpoint.mqi.syntax.RULES_TABLE` dialect) joins lines into *entries*: a line whose last non-blank character
is ``+`` continues with the first non-blank character of the next line, one ending in ``-`` continues from column 1
of the next line (so the blanks at its start are kept, which matters inside a quoted value). Comment lines (first
non-blank character ``*``) and blank lines between entries are skipped; tabs read as blanks. Every character of an
entry remembers the line it came from, so an error names the line of the offending keyword even in a continued
entry.

An entry is a sequence of ``KEYWORD`` or ``KEYWORD(value)`` items separated by blanks or commas, with blanks
allowed around the parentheses and the value. A value in quotes keeps its case (``''`` is one quote); a value
without quotes is folded to upper case. What is the rules table's own is here: every value needs one significant
character (``FORMAT(' ')`` is a blank value, ``FORMAT()``, ``FORMAT( )``, ``FORMAT('')`` and a bare ``FORMAT`` are
errors), and every lexical error is reported with its line and the lexer carries on, so one reading of a table
lists all its errors.

The first entry is control data when it holds a control-data keyword (INPUTQ, INPUTQM, RETRYINT, WAIT); every
other entry is a rule. The whole table is validated before anything is processed, and every error found is
reported with its line and class (:class:`ErrorClass`); a table with errors is refused as a whole
(:class:`RulesTableError`).
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass, field
from typing import Literal

from syncpoint.mqi import SyncpointError
from syncpoint.mqi import constants as C
from syncpoint.mqi.syntax import (
    OBJECT_NAME_LENGTH,
    RULES_TABLE,
    Entry,
    Problem,
    ProblemKind,
    is_object_name,
    join_lines,
    scan,
)

# ---------------------------------------------------------------------------------------------------------
# the vocabulary
# ---------------------------------------------------------------------------------------------------------
CONTROL_KEYWORDS = ("INPUTQ", "INPUTQM", "RETRYINT", "WAIT")
CHAR_PATTERNS = {  # keyword -> length of the field it is matched against
    "APPLIDAT": 32,
    "APPLNAME": 28,
    "DESTQ": 48,
    "DESTQM": 48,
    "FORMAT": 8,
    "REPLYQ": 48,
    "REPLYQM": 48,
    "USERID": 12,
}
INT_PATTERNS = ("APPLTYPE", "FEEDBACK", "MSGTYPE", "PERSIST", "REASON")
PATTERN_KEYWORDS = tuple(CHAR_PATTERNS) + INT_PATTERNS
ACTION_KEYWORDS = ("ACTION", "FWDQ", "FWDQM", "HEADER", "PUTAUT", "RETRY")
RULE_KEYWORDS = PATTERN_KEYWORDS + ACTION_KEYWORDS
ALL_KEYWORDS = CONTROL_KEYWORDS + RULE_KEYWORDS

ACTIONS = ("DISCARD", "IGNORE", "RETRY", "FWD")
MAX_INT = 999_999_999

# symbolic values each integer keyword accepts (IBM's constant names, by prefix)
_SYMBOL_PREFIXES = {
    "APPLTYPE": ("MQAT_",),
    "FEEDBACK": ("MQFB_", "MQRC_"),
    "MSGTYPE": ("MQMT_",),
    "PERSIST": ("MQPER_",),
    "REASON": ("MQRC_", "MQFB_"),
}


def _symbols() -> dict[str, int]:
    out: dict[str, int] = {}
    for name, value in vars(C).items():
        if name.startswith(("MQAT_", "MQFB_", "MQRC_", "MQMT_", "MQPER_")) and isinstance(value, int):
            out[name] = value
    return out


SYMBOLS = _symbols()


class ErrorClass(enum.Enum):
    """The classes of rules-table errors (dlq-handler.md, "Error classes to report")."""

    SYNTAX = "syntax error"
    UNKNOWN_KEYWORD = "unknown keyword"
    REPEATED_KEYWORD = "keyword repeated"
    VALUE_TOO_LONG = "value too long"
    INVALID_INTEGER = "invalid integer"
    INVALID_VALUE = "invalid value"
    INVALID_COMBINATION = "invalid combination of keywords"
    MISSING_ACTION = "missing ACTION"
    NO_RULES = "no rules"


@dataclass(frozen=True, slots=True)
class TableError:
    line: int
    cls: ErrorClass
    message: str

    def __str__(self) -> str:
        return f"line {self.line}: {self.cls.value}: {self.message}"


class RulesTableError(SyncpointError, ValueError):
    """The rules table has errors; ``errors`` lists every one, in line order."""

    def __init__(self, errors: list[TableError]) -> None:
        self.errors = errors
        super().__init__("\n".join(str(e) for e in errors))


Wait = Literal["YES", "NO"] | int


@dataclass(frozen=True, slots=True)
class ControlData:
    """The table's control data. Blank names mean the queue manager's DEADQ / the default queue manager."""

    inputq: str = ""
    inputqm: str = ""
    retryint: int = 60
    wait: Wait = "YES"
    line: int = 0  # 0: the table has no control data


@dataclass(frozen=True, slots=True)
class Rule:
    """One rule: its patterns (None: not given, matches anything) and its action.

    Character patterns are kept as written (quoted: as is; unquoted: upper case), trailing blanks removed;
    integer patterns as numbers. ``fwdq`` / ``fwdqm`` may be ``&DESTQ`` / ``&REPLYQ`` / ``&DESTQM`` /
    ``&REPLYQM``; ``fwdqm`` "" means the local queue manager.
    """

    line: int
    action: str
    applidat: str | None = None
    applname: str | None = None
    appltype: int | None = None
    destq: str | None = None
    destqm: str | None = None
    feedback: int | None = None
    format: str | None = None
    msgtype: int | None = None
    persist: int | None = None
    reason: int | None = None
    replyq: str | None = None
    replyqm: str | None = None
    userid: str | None = None
    fwdq: str | None = None
    fwdqm: str = ""
    header: bool = True
    putaut: str = "DEF"
    retry: int = 1

    def patterns(self) -> dict[str, str | int]:
        """The pattern keywords this rule gives, by keyword."""
        out: dict[str, str | int] = {}
        for kw in PATTERN_KEYWORDS:
            v = getattr(self, kw.lower())
            if v is not None:
                out[kw] = v
        return out


@dataclass(frozen=True, slots=True)
class RulesTable:
    control: ControlData
    rules: tuple[Rule, ...] = field(default_factory=tuple)


# ---------------------------------------------------------------------------------------------------------
# entries -> items (the lexer is syncpoint.mqi.syntax, in its rules-table dialect)
# ---------------------------------------------------------------------------------------------------------
@dataclass(slots=True)
class _Item:
    keyword: str  # upper case
    line: int
    value: str | None  # None: no parenthesis
    quoted: bool = False


def _items(entry: Entry, errors: list[TableError]) -> list[_Item]:
    """The entry's ``KEYWORD(value)`` items; every lexical error goes to ``errors`` with its line."""
    items: list[_Item] = []
    for tok in scan(entry.text, RULES_TABLE):
        if isinstance(tok, Problem):
            errors.append(_lexical_error(tok, entry))
            continue
        line = entry.line_at(tok.start)
        if tok.items is None:
            items.append(_Item(tok.keyword, line, None))
        else:
            items.append(_Item(tok.keyword, line, tok.items[0], quoted=tok.quoted[0]))
    return items


_LEXICAL_ERRORS = {
    ProblemKind.UNCLOSED_QUOTE: "the quoted value has no closing quote",
    ProblemKind.TEXT_AFTER_QUOTE: "')' expected after the quoted value",
    ProblemKind.UNCLOSED_PARENTHESIS: "the value has no closing parenthesis",
}


def _lexical_error(problem: Problem, entry: Entry) -> TableError:
    if problem.kind is ProblemKind.NOT_A_KEYWORD:
        stray = entry.text[problem.at : problem.end]
        return TableError(entry.line_at(problem.at), ErrorClass.SYNTAX, f"unexpected text {stray!r}")
    message = f"{problem.keyword}: {_LEXICAL_ERRORS[problem.kind]}"
    return TableError(entry.line_at(problem.keyword_at), ErrorClass.SYNTAX, message)


# ---------------------------------------------------------------------------------------------------------
# validation
# ---------------------------------------------------------------------------------------------------------
def _int_value(item: _Item, errors: list[TableError], lo: int, hi: int) -> int | None:
    text = (item.value or "").strip()
    if not re.fullmatch(r"[+-]?[0-9]+", text):
        errors.append(TableError(item.line, ErrorClass.INVALID_INTEGER, f"{item.keyword}({text}) is not an integer"))
        return None
    v = int(text)
    if not lo <= v <= hi:
        errors.append(
            TableError(item.line, ErrorClass.INVALID_VALUE, f"{item.keyword}({v}) is out of range {lo} to {hi}")
        )
        return None
    return v


def _pattern_int(item: _Item, errors: list[TableError]) -> int | Literal["*"] | None:
    text = (item.value or "").strip()
    if text == "*":
        return "*"
    up = text.upper()
    if up.startswith("MQ"):
        prefixes = _SYMBOL_PREFIXES[item.keyword]
        if up.startswith(prefixes) and up in SYMBOLS:
            return SYMBOLS[up]
        errors.append(
            TableError(
                item.line,
                ErrorClass.INVALID_VALUE,
                f"{item.keyword}({text}): not a known {' or '.join(p + '*' for p in prefixes)} name",
            )
        )
        return None
    if not re.fullmatch(r"[+-]?[0-9]+", text):
        errors.append(
            TableError(item.line, ErrorClass.INVALID_INTEGER, f"{item.keyword}({text}) is not an integer or name")
        )
        return None
    v = int(text)
    if not -MAX_INT <= v <= MAX_INT:
        errors.append(TableError(item.line, ErrorClass.INVALID_INTEGER, f"{item.keyword}({text}) is too large"))
        return None
    return v


def _too_long(item: _Item, value: str, limit: int, errors: list[TableError]) -> bool:
    """Whether ``value`` of ``item`` is longer than its field (a VALUE_TOO_LONG error when it is)."""
    if len(value) <= limit:
        return False
    errors.append(
        TableError(item.line, ErrorClass.VALUE_TOO_LONG, f"{item.keyword}: {len(value)} characters, at most {limit}")
    )
    return True


def _name_value(item: _Item, errors: list[TableError], *, blank_ok: bool, specials: tuple[str, ...] = ()) -> str | None:
    """A queue or queue manager name: blank (when allowed), one of ``specials``, or a valid MQ name."""
    assert item.value is not None
    v = item.value.rstrip()
    if not v:
        if blank_ok:
            return ""
        errors.append(TableError(item.line, ErrorClass.INVALID_VALUE, f"{item.keyword} needs a name"))
        return None
    if v.upper() in specials:
        return v.upper()
    if v.startswith("&"):
        allowed = ", ".join(specials) if specials else "none"
        errors.append(
            TableError(item.line, ErrorClass.INVALID_VALUE, f"{item.keyword}({v}): substitutions allowed: {allowed}")
        )
        return None
    if _too_long(item, v, OBJECT_NAME_LENGTH, errors):
        return None
    if not is_object_name(v):
        errors.append(
            TableError(
                item.line, ErrorClass.INVALID_VALUE, f"{item.keyword}({v}) is not a valid name (A-Z a-z 0-9 . / _ %)"
            )
        )
        return None
    return v


def _check_items(items: list[_Item], errors: list[TableError]) -> dict[str, _Item]:
    """Known keywords, each once, each with a significant value. Returns the good ones by keyword."""
    seen: dict[str, _Item] = {}
    for it in items:
        if it.keyword not in ALL_KEYWORDS:
            hint = ""
            if it.keyword in ACTIONS:
                hint = f" (write ACTION({it.keyword}))"
            elif it.keyword == "RETRIES":
                hint = " (the keyword is RETRY)"
            errors.append(TableError(it.line, ErrorClass.UNKNOWN_KEYWORD, f"unknown keyword {it.keyword}{hint}"))
            continue
        if it.keyword in seen:
            errors.append(
                TableError(
                    it.line,
                    ErrorClass.REPEATED_KEYWORD,
                    f"{it.keyword} is given more than once in this entry (first on line {seen[it.keyword].line})",
                )
            )
            continue
        if it.value is None:
            errors.append(TableError(it.line, ErrorClass.INVALID_VALUE, f"{it.keyword} needs a value in parentheses"))
            seen[it.keyword] = it
            continue
        if it.value == "" or (not it.quoted and not it.value.strip()):
            errors.append(
                TableError(
                    it.line,
                    ErrorClass.INVALID_VALUE,
                    f"{it.keyword}: the value needs at least one significant character",
                )
            )
            seen[it.keyword] = it
            continue
        seen[it.keyword] = it
    return seen


def _misplaced(items: dict[str, _Item], keywords: tuple[str, ...], why: str, errors: list[TableError]) -> None:
    """Each of ``keywords`` given in ``items`` is an invalid combination: ``why`` says where it belongs."""
    for kw, it in items.items():
        if kw in keywords:
            errors.append(TableError(it.line, ErrorClass.INVALID_COMBINATION, f"{kw} {why}"))


def _significant(items: dict[str, _Item], keywords: tuple[str, ...]) -> dict[str, _Item]:
    """The items of ``keywords`` whose value has a significant character (the others are reported already)."""
    return {k: v for k, v in items.items() if v.value and (v.quoted or v.value.strip()) and k in keywords}


def _word(item: _Item, choices: tuple[str, ...], errors: list[TableError], hint: str = "") -> str | None:
    """The value of ``item`` folded, when it is one of ``choices``; else an INVALID_VALUE error."""
    assert item.value is not None
    word = item.value.strip().upper()
    if word in choices:
        return word
    hint = hint or f"{', '.join(choices[:-1])} or {choices[-1]}"
    errors.append(TableError(item.line, ErrorClass.INVALID_VALUE, f"{item.keyword}({item.value}): use {hint}"))
    return None


def _control(first: int, items: dict[str, _Item], errors: list[TableError]) -> ControlData:
    _misplaced(items, RULE_KEYWORDS, "is a rule keyword; it is not valid in control data", errors)
    ok = _significant(items, ALL_KEYWORDS)
    inputq = inputqm = ""
    retryint = 60
    wait: Wait = "YES"
    if "INPUTQ" in ok:
        inputq = _name_value(ok["INPUTQ"], errors, blank_ok=True) or ""
    if "INPUTQM" in ok:
        inputqm = _name_value(ok["INPUTQM"], errors, blank_ok=True) or ""
    if "RETRYINT" in ok:
        r = _int_value(ok["RETRYINT"], errors, 1, MAX_INT)
        retryint = r if r is not None else retryint
    if "WAIT" in ok:
        it = ok["WAIT"]
        assert it.value is not None
        if re.fullmatch(r"[0-9]+", it.value.strip()):
            w = _int_value(it, errors, 0, MAX_INT)
            wait = w if w is not None else wait
        else:
            word = _word(it, ("YES", "NO"), errors, hint="YES, NO or seconds")
            wait = "NO" if word == "NO" else wait
    return ControlData(inputq, inputqm, retryint, wait, first)


def _rule(first: int, items: dict[str, _Item], errors: list[TableError]) -> Rule | None:
    before = len(errors)
    _misplaced(items, CONTROL_KEYWORDS, "is control data; it is valid only in the table's first entry", errors)
    ok = _significant(items, RULE_KEYWORDS)
    values: dict[str, object] = {}
    for kw in CHAR_PATTERNS:
        cit = ok.get(kw)
        if cit is None:
            continue
        assert cit.value is not None
        v = cit.value.rstrip(" ")
        if not _too_long(cit, v, CHAR_PATTERNS[kw], errors):
            values[kw.lower()] = v
    for kw in INT_PATTERNS:
        iit = ok.get(kw)
        if iit is None:
            continue
        iv = _pattern_int(iit, errors)
        if iv is not None and iv != "*":
            values[kw.lower()] = iv
    action: str | None = None
    if "ACTION" in ok:
        action = _word(ok["ACTION"], ACTIONS, errors)
    elif "ACTION" not in items:
        errors.append(TableError(first, ErrorClass.MISSING_ACTION, "every rule needs ACTION(...)"))
    if action is not None and action != "FWD":
        for kw in ("FWDQ", "FWDQM", "HEADER"):
            if kw in items:
                errors.append(
                    TableError(
                        items[kw].line,
                        ErrorClass.INVALID_COMBINATION,
                        f"{kw} is valid only with ACTION(FWD), not ACTION({action})",
                    )
                )
    if action == "FWD" and "FWDQ" not in items:
        errors.append(TableError(first, ErrorClass.INVALID_COMBINATION, "ACTION(FWD) needs FWDQ(...)"))
    if "FWDQ" in ok:
        fq = _name_value(ok["FWDQ"], errors, blank_ok=False, specials=("&DESTQ", "&REPLYQ"))
        if fq is not None:
            values["fwdq"] = fq
    if "FWDQM" in ok:
        fqm = _name_value(ok["FWDQM"], errors, blank_ok=True, specials=("&DESTQM", "&REPLYQM"))
        if fqm is not None:
            values["fwdqm"] = fqm
    if "HEADER" in ok and (header := _word(ok["HEADER"], ("YES", "NO"), errors)) is not None:
        values["header"] = header == "YES"
    if "PUTAUT" in ok and (putaut := _word(ok["PUTAUT"], ("DEF", "CTX"), errors)) is not None:
        values["putaut"] = putaut
    if "RETRY" in ok:
        r = _int_value(ok["RETRY"], errors, 1, MAX_INT)
        if r is not None:
            values["retry"] = r
    if len(errors) != before or action is None:
        return None
    return Rule(line=first, action=action, **values)  # type: ignore[arg-type]


def _check_text(text: str, errors: list[TableError]) -> None:
    """Every line must be text: a byte that is not UTF-8 (read as a lone surrogate, as Python's surrogateescape
    decodes it) would match nothing a queue manager writes and cannot be encoded again; it is an error of its
    line, found when the table is validated at start-up (seed 003: "The rules table is validated when the DLQ
    handler starts")."""
    for number, line in enumerate(text.splitlines(), 1):
        bad = [ch for ch in line if "\ud800" <= ch <= "\udfff"]
        if bad:
            shown = ", ".join(f"0x{ord(ch) & 0xFF:02X}" for ch in bad[:3])
            errors.append(
                TableError(number, ErrorClass.INVALID_VALUE, f"the line has bytes that are not UTF-8 text ({shown})")
            )


def parse_rules(text: str) -> RulesTable:
    """Parse and validate a whole rules table. Raises :class:`RulesTableError` listing every error."""
    errors: list[TableError] = []
    control = ControlData()
    rules: list[Rule] = []
    _check_text(text, errors)
    entries = join_lines(text.splitlines(), RULES_TABLE)
    for index, entry in enumerate(entries):
        items = _items(entry, errors)
        checked = _check_items(items, errors)
        is_control = index == 0 and any(k in CONTROL_KEYWORDS for k in checked)
        if is_control:
            control = _control(entry.first_line, checked, errors)
            continue
        rule = _rule(entry.first_line, checked, errors)
        if rule is not None:
            rules.append(rule)
    if not errors and not rules:
        last = len(text.splitlines()) or 1
        errors.append(TableError(last, ErrorClass.NO_RULES, "the table has no rules; at least one is required"))
    if errors:
        errors.sort(key=lambda e: e.line)
        raise RulesTableError(errors)
    return RulesTable(control, tuple(rules))
