"""IBM's ``KEYWORD(value)`` command syntax: the one lexer of runmqsc and of runmqdlq's rules table.

Both tools read text in the syntax IBM describes in "Rules for using MQSC commands" (reference page
``mqsc.md``, "MQSC syntax") and in the rules-table conventions of the dead-letter queue handler (``dlq-handler.md``,
"Lexical conventions"; seed 003). What the two share is here, once:

* a line whose last non-blank character is ``+`` continues with the first non-blank character of the next line;
  ``-`` continues with column 1 of the next line (its leading blanks are kept); either may fall inside a quoted
  value (:func:`join_lines`);
* blank lines between entries are ignored;
* an entry is ``KEYWORD`` or ``KEYWORD(value)`` items separated by blanks or commas, with blanks allowed around
  the parentheses and the value (``ACTION (FWD)``);
* keywords and unquoted values are folded to upper case; ``'quoted strings'`` are kept exactly and ``''`` inside
  one is a single quote (:func:`scan`).

Where IBM's two grammars differ, a :class:`Dialect` says which way (:data:`MQSC`, :data:`RULES_TABLE`):

============================  ===========================================  =============================================
rule                          MQSC                                         rules table
============================  ===========================================  =============================================
comment line                  ``*`` in column 1                            first non-blank character ``*``
comment inside a continuation skipped                                      taken as text of the entry
tab characters                separators; kept inside quotes               read as blanks everywhere
keyword                       any run of characters but blanks, commas,    a letter, ``&`` or ``_``, then letters,
                              parentheses and quotes                       digits, ``&`` or ``_``
value                         a list of comma-separated items, each        one value: a quoted string, or the text up
                              unquoted text and quoted strings; nested     to ``)`` (commas included); no nesting
                              parentheses allowed (``AUTHADD(GET,PUT)``)
after an error                the command is refused at the first one      every error of the entry is reported; the
                                                                           lexer resumes where it can
============================  ===========================================  =============================================

Both tools check object names the same way (:func:`is_object_name`). What belongs to one grammar only stays
with it: MQSC's ``;`` between commands (:func:`split_unquoted` does the quote-aware cut), runmqsc's AMQ8405E
wording, the rules table's "at least one significant character" and its error classes. The lexer reports
:class:`Problem` values; each tool turns them into the error it has always reported (``MqscSyntaxError``, a
rules-table ``TableError``).
"""

from __future__ import annotations

import enum
import re
from bisect import bisect_right
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

__all__ = [
    "MQSC",
    "OBJECT_NAME_LENGTH",
    "RULES_TABLE",
    "Dialect",
    "Entry",
    "Problem",
    "ProblemKind",
    "Token",
    "is_object_name",
    "join_lines",
    "read_quoted",
    "scan",
    "split_unquoted",
]

QUOTE = "'"
CONTINUE_FROM_FIRST_NONBLANK = "+"
CONTINUE_FROM_COLUMN_1 = "-"
_BLANKS = " \t"
_SEPARATORS = " \t,"
_WORD_END = " \t,()'"
OBJECT_NAME_LENGTH = 48  # queue, process and queue manager names
_OBJECT_NAME = re.compile(r"[A-Za-z0-9._/%]{1," + str(OBJECT_NAME_LENGTH) + "}")


def is_object_name(name: str) -> bool:
    """Whether ``name`` is a valid IBM MQ object name: 1 to 48 characters from A-Z a-z 0-9 . / _ %."""
    return _OBJECT_NAME.fullmatch(name) is not None


@dataclass(frozen=True, slots=True)
class Dialect:
    """The choices where IBM's two grammars of ``KEYWORD(value)`` text differ (see the module's table)."""

    name: str
    comment_in_column_1_only: bool  # False: a line whose first non-blank character is '*' is a comment
    comments_inside_continuation: bool  # True: a comment line inside a continued entry is skipped
    tabs_as_blanks: bool  # True: every tab is read as a blank, inside quotes too
    identifier_keywords: bool  # True: keywords are [A-Za-z&_][A-Za-z0-9&_]*; False: any run of non-delimiters
    list_values: bool  # True: comma-separated items, nested parentheses; False: one value up to ')'


MQSC = Dialect(
    "MQSC",
    comment_in_column_1_only=True,
    comments_inside_continuation=True,
    tabs_as_blanks=False,
    identifier_keywords=False,
    list_values=True,
)
RULES_TABLE = Dialect(
    "rules table",
    comment_in_column_1_only=False,
    comments_inside_continuation=False,
    tabs_as_blanks=True,
    identifier_keywords=True,
    list_values=False,
)


# ---------------------------------------------------------------------------------------------------------
# lines -> entries
# ---------------------------------------------------------------------------------------------------------
@dataclass(slots=True)
class Entry:
    """One command (MQSC) or entry (rules table) with its continuations joined.

    ``lines`` are the input lines it came from, as read (runmqsc echoes them); ``first_line`` is the number of the
    first. :meth:`line_at` gives the input line of any character of ``text``, so an error in a continued entry
    names the line it is on.
    """

    text: str
    lines: list[str]
    first_line: int
    _starts: list[int] = field(default_factory=list, repr=False)  # offset in text of each non-empty piece
    _numbers: list[int] = field(default_factory=list, repr=False)  # the input line of each piece

    def line_at(self, pos: int) -> int:
        """The input line of the character at offset ``pos`` (clamped to the text)."""
        if not self._starts:
            return self.first_line
        pos = min(max(pos, 0), len(self.text) - 1)
        return self._numbers[bisect_right(self._starts, pos) - 1]


def _is_comment(line: str, dialect: Dialect) -> bool:
    if dialect.comment_in_column_1_only:
        return line.startswith("*")
    return line.lstrip().startswith("*")


def join_lines(lines: Iterable[str], dialect: Dialect) -> Iterator[Entry]:
    """The entries of ``lines`` (each with or without its line end): comment and blank lines between entries
    dropped, ``+`` / ``-`` continuations joined, entries that are only blanks dropped. Input that ends inside a
    continued entry ends the entry as it stands."""
    pieces: list[str] = []
    source: list[str] = []
    starts: list[int] = []
    numbers: list[int] = []
    length = 0
    first = 0
    continuing: str | None = None  # how the line being read continues the previous one
    for number, raw in enumerate(lines, 1):
        line = raw.rstrip("\r\n")
        read = line.replace("\t", " ") if dialect.tabs_as_blanks else line
        if continuing is None:
            if not read.strip() or _is_comment(read, dialect):
                continue
            first = number
            body = read.lstrip()
        elif dialect.comments_inside_continuation and _is_comment(read, dialect):
            continue
        else:
            body = read.lstrip() if continuing == CONTINUE_FROM_FIRST_NONBLANK else read
        source.append(line)
        body = body.rstrip()
        if body.endswith((CONTINUE_FROM_FIRST_NONBLANK, CONTINUE_FROM_COLUMN_1)):
            continuing = body[-1]
            body = body[:-1]
        else:
            continuing = None
        if body:
            starts.append(length)
            numbers.append(number)
            pieces.append(body)
            length += len(body)
        if continuing is None:
            yield from _entry(pieces, source, first, starts, numbers)
            pieces, source, starts, numbers, length = [], [], [], [], 0
    if source:
        yield from _entry(pieces, source, first, starts, numbers)


def _entry(pieces: list[str], source: list[str], first: int, starts: list[int], numbers: list[int]) -> Iterator[Entry]:
    text = "".join(pieces)
    if text.strip():
        yield Entry(text, source, first, starts, numbers)


def split_unquoted(text: str, separator: str) -> list[str]:
    """``text`` cut at every ``separator`` outside quotes (MQSC's ``;`` between commands)."""
    pieces: list[str] = []
    start = 0
    in_quote = False
    for i, ch in enumerate(text):
        if ch == QUOTE:
            in_quote = not in_quote  # a doubled quote turns it off and on again
        elif ch == separator and not in_quote:
            pieces.append(text[start:i])
            start = i + 1
    pieces.append(text[start:])
    return pieces


# ---------------------------------------------------------------------------------------------------------
# entry -> tokens
# ---------------------------------------------------------------------------------------------------------
@dataclass(slots=True)
class Token:
    """``KEYWORD`` or ``KEYWORD(value)``. ``items`` are the value's comma-separated items (folded unless
    quoted; one item in a dialect without list values); ``quoted`` says which were quoted. ``start`` and ``end``
    are the offsets of the keyword's first character and just past the token in the entry's text."""

    keyword: str
    items: list[str] | None = None
    quoted: list[bool] = field(default_factory=list)
    start: int = 0
    end: int = 0

    @property
    def has_value(self) -> bool:
        return self.items is not None

    @property
    def value(self) -> str | None:
        """The value as one string (items joined by commas); None for a bare keyword."""
        if self.items is None:
            return None
        return ",".join(self.items)


class ProblemKind(enum.Enum):
    """What the lexer can find wrong; each tool words it its own way."""

    NOT_A_KEYWORD = "text where a keyword belongs"  # '(' ')' or a quote (MQSC); any non-identifier (rules)
    UNCLOSED_QUOTE = "a quoted string is not closed"
    UNCLOSED_PARENTHESIS = "a '(' is not closed by ')'"
    TEXT_AFTER_QUOTE = "')' expected after the quoted value"  # dialects without list values


@dataclass(frozen=True, slots=True)
class Problem:
    """A flaw at offset ``at`` of the text. ``end``: where the lexer resumed after it, or the end of the text
    when it gave up. ``keyword`` / ``keyword_at``: the keyword whose value it is in ("" for NOT_A_KEYWORD)."""

    kind: ProblemKind
    at: int
    end: int
    keyword: str = ""
    keyword_at: int = 0


def read_quoted(text: str, i: int) -> tuple[str, int] | None:
    """The quoted string whose opening quote is at ``i``: its content (``''`` read as one quote) and the offset
    past its closing quote; None when it is not closed."""
    out: list[str] = []
    j = i + 1
    n = len(text)
    while j < n:
        if text[j] == QUOTE:
            if j + 1 < n and text[j + 1] == QUOTE:
                out.append(QUOTE)
                j += 2
                continue
            return "".join(out), j + 1
        out.append(text[j])
        j += 1
    return None


def _skip(text: str, i: int, chars: str) -> int:
    while i < len(text) and text[i] in chars:
        i += 1
    return i


def _keyword_end(text: str, i: int, dialect: Dialect) -> int:
    """The offset past the keyword starting at ``i``; ``i`` itself when no keyword starts there."""
    n = len(text)
    if dialect.identifier_keywords:
        c = text[i]
        if not (c.isalpha() or c in "&_"):
            return i
        i += 1
        while i < n and (text[i].isalnum() or text[i] in "&_"):
            i += 1
        return i
    while i < n and text[i] not in _WORD_END:
        i += 1
    return i


def scan(text: str, dialect: Dialect) -> Iterator[Token | Problem]:
    """The tokens of one entry, in order, with a :class:`Problem` where the text breaks the syntax.

    After a problem the lexer resumes where it can (past a stray word; past the ``)`` that should have followed
    a quoted value) and gives up when the rest cannot be read (an unclosed quote or parenthesis). A tool that
    refuses an entry at its first flaw stops iterating there."""
    n = len(text)
    i = 0
    while True:
        i = _skip(text, i, _SEPARATORS)
        if i >= n:
            return
        end = _keyword_end(text, i, dialect)
        if end == i:
            stray_end = i + 1
            while stray_end < n and text[stray_end] not in _SEPARATORS:
                stray_end += 1
            yield Problem(ProblemKind.NOT_A_KEYWORD, i, stray_end, "", i)
            i = stray_end
            continue
        tok = Token(text[i:end].upper(), start=i, end=end)
        j = _skip(text, end, _BLANKS)
        if j >= n or text[j] != "(":
            yield tok
            i = end
            continue
        value = _list_value(text, j, tok) if dialect.list_values else _single_value(text, j, tok)
        if isinstance(value, Problem):
            yield value
            if value.kind is not ProblemKind.TEXT_AFTER_QUOTE:
                return
            i = value.end
            continue
        tok.items, tok.quoted, tok.end = value
        yield tok
        i = tok.end


_Value = tuple[list[str], list[bool], int]


def _single_value(text: str, open_at: int, tok: Token) -> _Value | Problem:
    """One value (the rules table): a quoted string between the parentheses, or the text up to ')'."""
    n = len(text)
    j = _skip(text, open_at + 1, _BLANKS)
    if j < n and text[j] == QUOTE:
        quoted = read_quoted(text, j)
        if quoted is None:
            return Problem(ProblemKind.UNCLOSED_QUOTE, j, n, tok.keyword, tok.start)
        value, k = quoted
        k = _skip(text, k, _BLANKS)
        if k >= n or text[k] != ")":
            close = text.find(")", k)
            resume = n + 1 if close < 0 else close + 1
            return Problem(ProblemKind.TEXT_AFTER_QUOTE, k, resume, tok.keyword, tok.start)
        return [value], [True], k + 1
    k = j
    while k < n and text[k] not in ")(":
        k += 1
    if k >= n or text[k] == "(":
        return Problem(ProblemKind.UNCLOSED_PARENTHESIS, open_at, k, tok.keyword, tok.start)
    return [text[j:k].rstrip().upper()], [False], k + 1


def _list_value(text: str, open_at: int, tok: Token) -> _Value | Problem:
    """A list value (MQSC): comma-separated items, each unquoted text (folded) and quoted strings (kept);
    parentheses inside nest. Blanks around a quoted string are not part of its item."""
    items: list[str] = []
    quoted: list[bool] = []
    cur = ""
    cur_quoted = False
    depth = 0
    i = open_at + 1
    n = len(text)
    while i < n:
        ch = text[i]
        if ch == QUOTE:
            if not cur.strip():
                cur = ""  # blanks before a quoted string are not part of it
            read = read_quoted(text, i)
            if read is None:
                return Problem(ProblemKind.UNCLOSED_QUOTE, i, n, tok.keyword, tok.start)
            s, i = read
            cur += s
            cur_quoted = True
            k = _skip(text, i, _BLANKS)
            if k < n and text[k] in ",)":
                i = k  # nor are blanks after it
            continue
        if ch == "(":
            depth += 1
            cur += ch
        elif ch == ")":
            if depth == 0:
                if cur.strip() or cur_quoted or items:
                    _add(items, quoted, cur, cur_quoted)
                return items, quoted, i + 1
            depth -= 1
            cur += ch
        elif ch == "," and depth == 0:
            _add(items, quoted, cur, cur_quoted)
            cur, cur_quoted = "", False
        else:
            cur += ch.upper()
        i += 1
    return Problem(ProblemKind.UNCLOSED_PARENTHESIS, open_at, n, tok.keyword, tok.start)


def _add(items: list[str], quoted: list[bool], cur: str, cur_quoted: bool) -> None:
    items.append(cur if cur_quoted else cur.strip())
    quoted.append(cur_quoted)
