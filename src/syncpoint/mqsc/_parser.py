"""Reading MQSC: lines into commands, commands into tokens.

Theory of operation (the rules of IBM's "Rules for using MQSC commands", as ``../shared/reference/mqsc.md``
states them):

* A ``*`` in column 1 makes a line a comment; blank lines are ignored.
* A line whose last non-blank character is ``+`` continues with the first non-blank character of the next line;
  ``-`` continues with column 1 of the next line. Either may fall inside a quoted string.
* ``;`` outside quotes ends a command, so one line may hold several.
* Keywords, parentheses and values are separated by blanks or commas, any number of them; ``KEYWORD ( value )``
  is ``KEYWORD(value)``.
* Unquoted names and values are folded to upper case; ``'quoted strings'`` are kept exactly, ``''`` inside one is
  a quote. A value may be a list (``AUTHADD(GET,PUT)``).

:func:`read_commands` does the first three, :func:`tokenize` the rest. A token knows where it ends in the command
text, so a syntax error can show the segment "at or near" which it was found, as runmqsc does (AMQ8405E).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

__all__ = ["MqscSyntaxError", "SourceCommand", "Token", "read_commands", "tokenize"]


class MqscSyntaxError(Exception):
    """A command that does not follow MQSC syntax: ``end`` is where in the command text it was found."""

    def __init__(self, reason: str, end: int) -> None:
        super().__init__(reason)
        self.reason = reason
        self.end = end


@dataclass(slots=True)
class SourceCommand:
    """One command as read: its text with continuations joined, the input lines it came from (for the echo),
    and the number of its first line."""

    text: str
    lines: list[str]
    line_no: int


@dataclass(slots=True)
class Token:
    """``KEYWORD`` or ``KEYWORD(value)``. ``items`` are the value's comma-separated items (folded unless
    quoted); ``quoted`` says which were quoted. ``end`` is the offset just past the token in the command text."""

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


_CONTINUE_FIRST_NONBLANK = "+"
_CONTINUE_COLUMN_1 = "-"


def read_commands(lines: Iterable[str]) -> Iterator[SourceCommand]:
    """Commands in ``lines`` (each line without or with its newline), continuations joined, comments dropped."""
    text = ""
    source: list[str] = []
    first = 0
    mode: str | None = None  # how the line being read continues the previous one
    n = 0
    for n, raw in enumerate(lines, 1):
        line = raw.rstrip("\r\n")
        if mode is None:
            if line.startswith("*") or not line.strip():
                continue
            first = n
        elif line.startswith("*"):
            continue  # a comment inside a continued command is skipped as well
        source.append(line)
        body = line.rstrip()
        if mode == _CONTINUE_FIRST_NONBLANK:
            body = body.lstrip()
        if body.endswith((_CONTINUE_FIRST_NONBLANK, _CONTINUE_COLUMN_1)):
            mode = body[-1]
            text += body[:-1]
            continue
        text += body
        mode = None
        yield from _split(text, source, first)
        text, source = "", []
    if source:  # the input ended inside a continued command: take it as it stands
        yield from _split(text, source, first)


def _split(text: str, source: list[str], first: int) -> Iterator[SourceCommand]:
    """``text`` cut at every ``;`` outside quotes; pieces that are only blanks are dropped."""
    pieces: list[str] = []
    start = 0
    in_quote = False
    for i, ch in enumerate(text):
        if ch == "'":
            in_quote = not in_quote
        elif ch == ";" and not in_quote:
            pieces.append(text[start:i])
            start = i + 1
    pieces.append(text[start:])
    pieces = [p.strip() for p in pieces if p.strip()]
    if len(pieces) == 1:
        yield SourceCommand(pieces[0], list(source), first)
    else:
        for p in pieces:
            yield SourceCommand(p, [p], first)


_SEPARATORS = " \t,"
_WORD_END = " \t,()'"


def tokenize(text: str) -> list[Token]:
    """The tokens of one command. Raises :class:`MqscSyntaxError` for an unbalanced parenthesis or quote,
    a value with no keyword, or a quoted string where a keyword belongs."""
    tokens: list[Token] = []
    i = 0
    n = len(text)
    while True:
        while i < n and text[i] in _SEPARATORS:
            i += 1
        if i >= n:
            return tokens
        ch = text[i]
        if ch in "()":
            raise MqscSyntaxError(
                "a value in parentheses must follow a keyword" if ch == "(" else "')' without '('", i + 1
            )
        if ch == "'":
            raise MqscSyntaxError("a quoted string must be the value of a keyword, in parentheses", i + 1)
        start = i
        while i < n and text[i] not in _WORD_END:
            i += 1
        tok = Token(text[start:i].upper(), start=start, end=i)
        j = i
        while j < n and text[j] in " \t":
            j += 1
        if j < n and text[j] == "(":
            items, quoted, i = _value(text, j)
            tok.items, tok.quoted, tok.end = items, quoted, i
        tokens.append(tok)


def _value(text: str, open_at: int) -> tuple[list[str], list[bool], int]:
    """The items of the value whose '(' is at ``open_at``; returns them and the offset past its ')'."""
    items: list[str] = []
    quoted: list[bool] = []
    cur = ""
    cur_quoted = False
    depth = 0
    i = open_at + 1
    n = len(text)
    while i < n:
        ch = text[i]
        if ch == "'":
            if not cur.strip():
                cur = ""  # blanks before a quoted string are not part of it
            j = i + 1
            s = ""
            while True:
                if j >= n:
                    raise MqscSyntaxError("a quoted string is not closed", n)
                if text[j] == "'":
                    if j + 1 < n and text[j + 1] == "'":
                        s += "'"
                        j += 2
                        continue
                    break
                s += text[j]
                j += 1
            cur += s
            cur_quoted = True
            i = j + 1
            k = i
            while k < n and text[k] in " \t":
                k += 1
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
    raise MqscSyntaxError("a '(' is not closed by ')'", n)


def _add(items: list[str], quoted: list[bool], cur: str, cur_quoted: bool) -> None:
    items.append(cur if cur_quoted else cur.strip())
    quoted.append(cur_quoted)
