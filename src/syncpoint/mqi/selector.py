"""Message selectors: IBM MQ's SQL-92 subset, parsed once and evaluated against a message's MQMD and properties.

References: properties-pubsub.md ("Selectors"); IBM's "Message selector syntax" and "Selection behavior" pages;
the JMS header / property mapping tables (JMSPriority … JMSXDeliveryCount onto MQMD fields).

Theory of operation
-------------------
:func:`parse` reads a selection string once, at MQOPEN, into a tree of small closures; :meth:`Selector.matches`
runs the tree against one message. Nothing here touches a queue: the engine decides which messages to ask about.

The language: string literals in single quotes (``''`` for a quote), byte strings ``0x2F1C``, exact numbers
(``42``) and approximate ones (``4.2``, ``42E-1``), ``TRUE`` / ``FALSE``; ``AND`` ``OR`` ``NOT``; ``=`` ``<>``
``<`` ``<=`` ``>`` ``>=``; ``+`` ``-`` ``*`` ``/`` (unary too); ``[NOT] BETWEEN … AND …``; ``[NOT] IN (…)``;
``[NOT] LIKE 'pattern' [ESCAPE 'c']`` (``_`` one character, ``%`` any run); ``IS [NOT] NULL``; parentheses.
Keywords are case-insensitive, names are not. Precedence, lowest first: OR, AND, NOT, the predicates, ``+ -``,
``* /``, unary sign.

Names: ``Root.MQMD.<Field>`` is the MQMD field (MQCHAR fields as strings without their trailing blanks, MQBYTE
fields as byte strings); the JMS names IBM maps onto the MQMD (``JMSPriority``, ``JMSDeliveryMode`` as
``'PERSISTENT'`` / ``'NON_PERSISTENT'``, ``JMSMessageID`` / ``JMSCorrelationID`` as ``'ID:'`` and lower-case hex,
``JMSTimestamp`` in milliseconds, ``JMSXDeliveryCount``, ``JMSRedelivered``, ``JMS_IBM_*`` …); every other
name is a message property (``usr.Color`` and ``Color`` name the same one). A property the message does not
have is NULL. Evaluation is SQL's three-valued logic: a comparison with NULL is unknown, and a message is
selected only when the whole selector is TRUE. Values of types that cannot be compared (a string with a number)
compare FALSE; strings, byte strings and booleans compare only with ``=`` and ``<>``.

Errors, as IBM's reason codes (raised as :class:`SelectorError`, an :class:`MQMIError`):

- MQRC_SELECTOR_SYNTAX_ERROR (2459): the string does not parse, names an MQMD field or JMS name that does not
  exist, or uses an operator on a literal of the wrong type. ``offset`` is the 0-based character offset of the
  token where the parser stopped (also in the error's text).
- MQRC_SELECTION_STRING_ERROR (2519): longer than MQ_SELECTOR_LENGTH (10,240 bytes in UTF-8).
- MQRC_SELECTOR_ALWAYS_FALSE (2504): a selector that names nothing of the message and is not TRUE (IBM's
  "early evaluation": ``1 = 2``).
- MQRC_SELECTION_NOT_AVAILABLE (2551): a name under ``Root.`` other than ``Root.MQMD`` (the message's content,
  ``Root.MQBody``…), which only IBM's extended message selection provider evaluates.

``Selector.live`` is True when the selector reads a field that changes while a message waits on its queue
(BackoutCount, the remaining Expiry, and their JMS names): the engine then judges a message again each time.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from typing import Any

from . import constants as C
from ._errors import MQMIError
from ._selector_names import JMS_NAMES, LIVE_FIELDS, MD_FIELDS, Fn, Props, Value, md_field, message_property

MQ_SELECTOR_LENGTH = 10240
MAX_NESTING = 50  # deeper nesting is refused as a syntax error (it would exhaust the parser's stack)


class SelectorError(MQMIError):
    """A selection string the queue manager refuses: MQCC_FAILED, the reason, and where (``offset``)."""

    def __init__(self, reason: int, detail: str, offset: int = -1) -> None:
        super().__init__(C.MQCC_FAILED, reason, detail, offset=offset)
        self.offset = offset


# -- tokens -----------------------------------------------------------------------------------------------
_KEYWORDS = frozenset(["AND", "OR", "NOT", "BETWEEN", "LIKE", "IN", "IS", "NULL", "ESCAPE", "TRUE", "FALSE"])
_TOKEN = re.compile(
    r"""
    (?P<ws>\s+)
  | (?P<bytes>0[xX][0-9A-Fa-f]*)
  | (?P<num>(?:\d+\.\d*|\.\d+|\d+)(?:[eE][+-]?\d+)?)
  | (?P<str>'(?:[^']|'')*')
  | (?P<name>[A-Za-z_$][A-Za-z0-9_$]*(?:\.[A-Za-z_$][A-Za-z0-9_$]*)*)
  | (?P<op><>|<=|>=|[=<>+\-*/(),])
    """,
    re.VERBOSE,
)

Token = tuple[str, Any, int]  # (kind, value, offset); kinds: num str bytes name kw op end


def _syntax(offset: int, what: str) -> SelectorError:
    return SelectorError(
        C.MQRC_SELECTOR_SYNTAX_ERROR, f"the selection string has a syntax error at offset {offset}: {what}", offset
    )


def _tokens(text: str) -> list[Token]:
    out: list[Token] = []
    pos = 0
    n = len(text)
    while pos < n:
        m = _TOKEN.match(text, pos)
        if m is None:
            if text[pos] == "'":
                raise _syntax(pos, "a string literal is not closed")
            raise _syntax(pos, f"{text[pos]!r} is not part of the selector language")
        kind = m.lastgroup
        s = m.group()
        if kind == "bytes":
            digits = s[2:]
            if not digits or len(digits) % 2:
                raise _syntax(pos, "a byte string is 0x followed by pairs of hexadecimal digits")
            out.append(("bytes", bytes.fromhex(digits), pos))
        elif kind == "num":
            exact = not any(c in s for c in ".eE")
            out.append(("num", int(s) if exact else float(s), pos))
        elif kind == "str":
            out.append(("str", s[1:-1].replace("''", "'"), pos))
        elif kind == "name":
            up = s.upper()
            if up in _KEYWORDS:
                out.append(("kw", up, pos))
            else:
                out.append(("name", s, pos))
        elif kind == "op":
            out.append(("op", s, pos))
        if kind in ("num", "name", "bytes") and m.end() < n:
            nxt = text[m.end()]
            if nxt.isalnum() or nxt in "_$'":
                raise _syntax(m.end(), f"{nxt!r} cannot follow {s!r}")
        pos = m.end()
    out.append(("end", None, n))
    return out


# -- evaluation helpers -----------------------------------------------------------------------------------
_KINDS: dict[type, str] = {
    type(None): "null",
    bool: "bool",
    int: "num",
    float: "num",
    str: "str",
    bytes: "bytes",
    bytearray: "bytes",
}


def _kind(v: Value) -> str:
    kind = _KINDS.get(type(v))  # the common types by one lookup; subclasses below
    if kind is not None:
        return kind
    if v is True or v is False:
        return "bool"
    if isinstance(v, (int, float)):
        return "num"
    if isinstance(v, str):
        return "str"
    if isinstance(v, (bytes, bytearray)):
        return "bytes"
    return "other"


def _compare(op: str, a: Value, b: Value) -> Value:
    if a is None or b is None:
        return None
    ka, kb = _kind(a), _kind(b)
    if ka != kb or ka == "other":
        return False  # values of types that cannot be compared compare FALSE
    if ka == "num":
        if (isinstance(a, float) and math.isnan(a)) or (isinstance(b, float) and math.isnan(b)):
            return None
    elif op not in ("=", "<>"):
        return None  # strings, byte strings and booleans: = and <> only
    if op == "=":
        return a == b
    if op == "<>":
        return a != b
    if op == "<":
        return a < b
    if op == "<=":
        return a <= b
    if op == ">":
        return a > b
    return a >= b


def _arith(op: str, a: Value, b: Value) -> Value:
    if _kind(a) != "num" or _kind(b) != "num":
        return None
    if op == "+":
        return a + b
    if op == "-":
        return a - b
    if op == "*":
        return a * b
    if b == 0:
        return None  # division by zero: unknown
    if isinstance(a, int) and isinstance(b, int):
        q = abs(a) // abs(b)  # exact division truncates toward zero, as Java's long division
        return q if (a >= 0) == (b >= 0) else -q
    return a / b


def _arith_chain(first: Fn, rest: list[tuple[str, Fn]]) -> Fn:
    """``first op1 b op2 c …`` left to right, in a loop: a long chain of ``+`` does not deepen the call stack."""

    def chain(md: Mapping[str, Any], props: Props) -> Value:
        acc = first(md, props)
        for op, fn in rest:
            acc = _arith(op, acc, fn(md, props))
        return acc

    return chain


def _truth(v: Value) -> Value:
    """A value in a condition: TRUE, FALSE or unknown (None); a non-boolean value is unknown."""
    if v is True or v is False:
        return v
    return None


def _like_regex(pattern: str, escape: str | None, offset: int) -> re.Pattern[str]:
    out = []
    i = 0
    while i < len(pattern):
        ch = pattern[i]
        if escape is not None and ch == escape:
            i += 1
            if i >= len(pattern):
                raise _syntax(offset, "the LIKE pattern ends with its escape character")
            out.append(re.escape(pattern[i]))
        elif ch == "_":
            out.append(".")
        elif ch == "%":
            out.append(".*")
        else:
            out.append(re.escape(ch))
        i += 1
    return re.compile("".join(out), re.DOTALL)


# -- parser -----------------------------------------------------------------------------------------------
# a node is (fn, static kind, names used): the kind is bool, num, str, bytes, null or any (a name's value)
Node = tuple[Fn, str]


class _Parser:
    def __init__(self, text: str) -> None:
        self.toks = _tokens(text)
        self.i = 0
        self.names = 0  # how many message names the selector reads
        self.live = False
        self.depth = 0  # parentheses, NOT and signs open around the token being read (at most MAX_NESTING)

    def nest(self, off: int) -> None:
        self.depth += 1
        if self.depth > MAX_NESTING:
            raise _syntax(off, f"the selector nests parentheses, NOT or signs more than {MAX_NESTING} deep")

    # token helpers
    def peek(self) -> Token:
        return self.toks[self.i]

    def take(self) -> Token:
        t = self.toks[self.i]
        self.i += 1
        return t

    def at_kw(self, *words: str) -> bool:
        t = self.peek()
        return t[0] == "kw" and t[1] in words

    def at_op(self, *ops: str) -> bool:
        t = self.peek()
        return t[0] == "op" and t[1] in ops

    def expect_kw(self, word: str) -> None:
        t = self.take()
        if t[0] != "kw" or t[1] != word:
            raise _syntax(t[2], f"{word} expected")

    def expect_op(self, op: str) -> None:
        t = self.take()
        if t[0] != "op" or t[1] != op:
            raise _syntax(t[2], f"{op!r} expected")

    # grammar
    def condition(self) -> Node:
        fn, kind = self.or_expr()
        end = self.peek()
        if end[0] != "end":
            raise _syntax(end[2], "unexpected text after the end of the condition")
        if kind not in ("bool", "any", "null"):
            raise _syntax(0, "a selector must be a condition, not a value")
        return fn, kind

    def _boolean(self, node: Node, offset: int) -> Fn:
        fn, kind = node
        if kind not in ("bool", "any", "null"):
            raise _syntax(offset, "AND, OR and NOT take conditions")
        return fn

    def or_expr(self) -> Node:
        off = self.peek()[2]
        left = self.and_expr()
        if not self.at_kw("OR"):
            return left
        parts = [self._boolean(left, off)]
        while self.at_kw("OR"):
            self.take()
            off = self.peek()[2]
            parts.append(self._boolean(self.and_expr(), off))

        def either(md: Mapping[str, Any], props: Props) -> Value:
            result: Value = False
            for p in parts:
                v = _truth(p(md, props))
                if v is True:
                    return True
                if v is None:
                    result = None
            return result

        return either, "bool"

    def and_expr(self) -> Node:
        off = self.peek()[2]
        left = self.not_expr()
        if not self.at_kw("AND"):
            return left
        parts = [self._boolean(left, off)]
        while self.at_kw("AND"):
            self.take()
            off = self.peek()[2]
            parts.append(self._boolean(self.not_expr(), off))

        def both(md: Mapping[str, Any], props: Props) -> Value:
            result: Value = True
            for p in parts:
                v = _truth(p(md, props))
                if v is False:
                    return False
                if v is None:
                    result = None
            return result

        return both, "bool"

    def not_expr(self) -> Node:
        if self.at_kw("NOT"):
            self.nest(self.take()[2])
            off = self.peek()[2]
            inner = self._boolean(self.not_expr(), off)
            self.depth -= 1

            def negate(md: Mapping[str, Any], props: Props) -> Value:
                v = _truth(inner(md, props))
                return None if v is None else not v

            return negate, "bool"
        return self.predicate()

    def predicate(self) -> Node:
        start = self.peek()
        left = self.sum()
        lfn, lkind = left
        if self.at_op("=", "<>", "<", "<=", ">", ">="):
            op = self.take()[1]
            roff = self.peek()[2]
            ri = self.i
            rfn, rkind = self.sum()
            literal_right = self.i == ri + 1 and self.toks[ri][0] in ("num", "str", "bytes")
            if op not in ("=", "<>"):
                for kind, off in ((lkind, start[2]), (rkind, roff)):
                    if kind in ("str", "bytes", "bool"):
                        raise _syntax(off, f"{op} compares numbers only; strings and booleans take = and <>")
            if literal_right and op == "=":  # NAME = literal, the common case: one type lookup per message
                literal = rfn({}, None)
                lit_kind = _kind(literal)

                def equals(md: Mapping[str, Any], props: Props) -> Value:
                    v = lfn(md, props)
                    if v is None:
                        return None
                    if _KINDS.get(type(v)) == lit_kind and lit_kind != "num":
                        return v == literal
                    return _compare("=", v, literal)

                return equals, "bool"
            return (lambda md, props: _compare(op, lfn(md, props), rfn(md, props))), "bool"
        negated = False
        if (
            self.at_kw("NOT")
            and self.toks[self.i + 1][0] == "kw"
            and self.toks[self.i + 1][1]
            in (
                "BETWEEN",
                "IN",
                "LIKE",
            )
        ):
            self.take()
            negated = True
        if self.at_kw("BETWEEN"):
            self.take()
            lo_off = self.peek()[2]
            lo, lo_kind = self.sum()
            self.expect_kw("AND")
            hi_off = self.peek()[2]
            hi, hi_kind = self.sum()
            for kind, off in ((lkind, start[2]), (lo_kind, lo_off), (hi_kind, hi_off)):
                if kind in ("str", "bytes", "bool"):
                    raise _syntax(off, "BETWEEN takes numbers")

            def between(md: Mapping[str, Any], props: Props) -> Value:
                v = lfn(md, props)
                a = _compare(">=", v, lo(md, props))
                b = _compare("<=", v, hi(md, props))
                if a is False or b is False:
                    r: Value = False
                elif a is None or b is None:
                    r = None
                else:
                    r = True
                return r if r is None or not negated else not r

            return between, "bool"
        if self.at_kw("IN"):
            self.take()
            if lkind != "any":
                raise _syntax(start[2], "IN follows a name")
            self.expect_op("(")
            values: list[Value] = []
            while True:
                t = self.take()
                if t[0] == "op" and t[1] in "+-" and self.peek()[0] == "num":
                    n = self.take()[1]
                    values.append(-n if t[1] == "-" else n)
                elif t[0] in ("str", "num"):
                    values.append(t[1])
                else:
                    raise _syntax(t[2], "IN takes a list of literals")
                if self.at_op(","):
                    self.take()
                    continue
                self.expect_op(")")
                break

            def member(md: Mapping[str, Any], props: Props) -> Value:
                v = lfn(md, props)
                if v is None:
                    return None
                found = any(_compare("=", v, x) is True for x in values)
                return found != negated

            return member, "bool"
        if self.at_kw("LIKE"):
            self.take()
            if lkind != "any":
                raise _syntax(start[2], "LIKE follows a name")
            t = self.take()
            if t[0] != "str":
                raise _syntax(t[2], "LIKE takes a string literal")
            escape = None
            if self.at_kw("ESCAPE"):
                self.take()
                e = self.take()
                if e[0] != "str" or len(e[1]) != 1:
                    raise _syntax(e[2], "ESCAPE takes a string literal of one character")
                escape = e[1]
            rx = _like_regex(t[1], escape, t[2])

            def like(md: Mapping[str, Any], props: Props) -> Value:
                v = lfn(md, props)
                if not isinstance(v, str):
                    return None
                return (rx.fullmatch(v) is not None) != negated

            return like, "bool"
        if negated:
            raise _syntax(self.peek()[2], "BETWEEN, IN or LIKE expected after NOT")
        if self.at_kw("IS"):
            self.take()
            not_null = False
            if self.at_kw("NOT"):
                self.take()
                not_null = True
            self.expect_kw("NULL")
            if lkind != "any":
                raise _syntax(start[2], "IS NULL follows a name")
            return (lambda md, props: (lfn(md, props) is None) != not_null), "bool"
        return left

    def sum(self) -> Node:
        return self._binary(self.term, ("+", "-"))

    def term(self) -> Node:
        return self._binary(self.unary, ("*", "/"))

    def _binary(self, operand: Callable[[], Node], ops: tuple[str, ...]) -> Node:
        off = self.peek()[2]
        node = operand()
        rest: list[tuple[str, Fn]] = []
        while self.at_op(*ops):
            op = self.take()[1]
            roff = self.peek()[2]
            right = operand()
            checks = [(right, roff)] if rest else [(node, off), (right, roff)]
            for (_, kind), o in checks:
                if kind not in ("num", "any"):
                    raise _syntax(o, f"{op} takes numbers")
            rest.append((op, right[0]))
        if not rest:
            return node
        return _arith_chain(node[0], rest), "num"

    def unary(self) -> Node:
        if self.at_op("+", "-"):
            op, _, off = self.take()
            self.nest(off)
            fn, kind = self.unary()
            self.depth -= 1
            if kind not in ("num", "any"):
                raise _syntax(off, f"unary {op} takes a number")
            if op == "+":
                return (lambda md, props: fn(md, props) if _kind(fn(md, props)) == "num" else None), "num"
            return (lambda md, props: -v if _kind(v := fn(md, props)) == "num" else None), "num"
        return self.primary()

    def primary(self) -> Node:
        t = self.take()
        kind, value, off = t
        if kind in ("num", "str", "bytes"):
            return (lambda md, props: value), kind
        if kind == "kw" and value in ("TRUE", "FALSE"):
            b = value == "TRUE"
            return (lambda md, props: b), "bool"
        if kind == "op" and value == "(":
            self.nest(off)
            node = self.or_expr()
            self.expect_op(")")
            self.depth -= 1
            return node
        if kind == "name":
            return self.name(value, off), "any"
        if kind == "end":
            raise _syntax(off, "the selection string ends too soon")
        raise _syntax(off, f"{value!r} is not expected here")

    def name(self, name: str, off: int) -> Fn:
        self.names += 1
        if name.startswith("Root."):
            head, _, field = name[5:].partition(".")
            if head != "MQMD":  # message content (Root.MQBody …): IBM's extended message selection
                raise SelectorError(
                    C.MQRC_SELECTION_NOT_AVAILABLE,
                    f"{name} needs extended message selection (content filtering), which is not available; "
                    "select on Root.MQMD fields and message properties",
                    off,
                )
            if field not in MD_FIELDS:
                raise _syntax(off, f"{name} is not an MQMD field (Root.MQMD.<Field>)")
            if field in LIVE_FIELDS:
                self.live = True
            return md_field(field)
        if name.startswith("JMS"):
            entry = JMS_NAMES.get(name)
            if entry is None:
                raise _syntax(off, f"{name} is not a JMS name IBM MQ maps (JMS, JMSX and JMS_ names are reserved)")
            if entry[1]:
                self.live = True
            return entry[0]
        return message_property(name)


class Selector:
    """A parsed selection string: ``matches(md, props)`` is True when the message is selected."""

    __slots__ = ("_fn", "live", "text")

    def __init__(self, text: str, fn: Fn, live: bool) -> None:
        self.text = text
        self._fn = fn
        self.live = live

    def matches(self, md: Mapping[str, Any], props: Props = None) -> bool:
        """``md``: the MQMD fields by name (as the engine keeps them: MQCHAR and MQBYTE fields as bytes);
        ``props``: the message's properties, name -> (MQTYPE_*, value), or None when it has none."""
        return self._fn(md, props) is True

    def __repr__(self) -> str:
        return f"Selector({self.text!r})"


def parse(text: str) -> Selector:
    """Parse a selection string (MQOD / MQSD SelectionString). Raises :class:`SelectorError` with IBM's reason."""
    if len(text.encode("utf-8")) > MQ_SELECTOR_LENGTH:
        raise SelectorError(
            C.MQRC_SELECTION_STRING_ERROR,
            f"the selection string is longer than {MQ_SELECTOR_LENGTH} bytes (MQ_SELECTOR_LENGTH)",
        )
    p = _Parser(text)
    fn, _ = p.condition()
    if p.names == 0 and fn({}, None) is not True:
        raise SelectorError(
            C.MQRC_SELECTOR_ALWAYS_FALSE, "the selection string names nothing of a message and is never TRUE"
        )
    return Selector(text, fn, p.live)
