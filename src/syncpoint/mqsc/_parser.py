"""Reading MQSC: lines into commands, commands into tokens (reference page ``mqsc.md``, "MQSC syntax").

The rules of IBM's "Rules for using MQSC commands" that runmqsc shares with the dead-letter handler's rules table
(``+`` / ``-`` continuation, blanks and commas between ``KEYWORD(value)`` items, quoted strings with ``''``, folding
of what is not quoted) are read by :mod:`syncpoint.mqi.syntax` in its :data:`~syncpoint.mqi.syntax.MQSC` dialect:

* A ``*`` in column 1 makes a line a comment, also inside a continued command; blank lines are ignored.
* A value may be a list (``AUTHADD(GET,PUT)``), and parentheses may nest inside it.

What is MQSC's alone is here: ``;`` outside quotes ends a command, so one line may hold several
(:func:`read_commands`), and a syntax error is reported with the segment "at or near" which it was found, as
runmqsc does (AMQ8405I): :class:`MqscSyntaxError` carries the offset and, once the command's verb and object type
are known, them too (for AMQ8427I's valid syntax); a :class:`Token` knows where it ends.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from syncpoint.mqi import SyncpointError
from syncpoint.mqi.syntax import MQSC, Problem, ProblemKind, Token, join_lines, scan, split_unquoted

__all__ = ["MqscSyntaxError", "SourceCommand", "Token", "read_commands", "tokenize"]


class MqscSyntaxError(SyncpointError):
    """A command that does not follow MQSC syntax: ``end`` is where in the command text it was found; ``verb`` and
    ``noun`` the command's verb and object type when they were recognised (else "")."""

    def __init__(self, reason: str, end: int) -> None:
        super().__init__(reason)
        self.reason = reason
        self.end = end
        self.verb = ""
        self.noun = ""


@dataclass(slots=True)
class SourceCommand:
    """One command as read: its text with continuations joined, the input lines it came from (for the echo),
    and the number of its first line."""

    text: str
    lines: list[str]
    line_no: int


def read_commands(lines: Iterable[str]) -> Iterator[SourceCommand]:
    """Commands in ``lines`` (each line without or with its newline), continuations joined, comments dropped."""
    for entry in join_lines(lines, MQSC):
        pieces = [p.strip() for p in split_unquoted(entry.text, ";") if p.strip()]
        if len(pieces) == 1:
            yield SourceCommand(pieces[0], list(entry.lines), entry.first_line)
        else:
            for p in pieces:
                yield SourceCommand(p, [p], entry.first_line)


_NOT_A_KEYWORD = {
    "(": "a value in parentheses must follow a keyword",
    ")": "')' without '('",
    "'": "a quoted string must be the value of a keyword, in parentheses",
}


_UNREADABLE = {  # the rest of the command cannot be read: the error is at its end
    ProblemKind.UNCLOSED_QUOTE: "a quoted string is not closed",
    ProblemKind.UNCLOSED_PARENTHESIS: "a '(' is not closed by ')'",
}


def _error(problem: Problem, text: str) -> MqscSyntaxError:
    if problem.kind is ProblemKind.NOT_A_KEYWORD:
        return MqscSyntaxError(_NOT_A_KEYWORD[text[problem.at]], problem.at + 1)
    return MqscSyntaxError(_UNREADABLE[problem.kind], len(text))


def tokenize(text: str) -> list[Token]:
    """The tokens of one command. Raises :class:`MqscSyntaxError` for an unbalanced parenthesis or quote,
    a value with no keyword, or a quoted string where a keyword belongs."""
    tokens: list[Token] = []
    for tok in scan(text, MQSC):
        if isinstance(tok, Problem):
            raise _error(tok, text)
        tokens.append(tok)
    return tokens
