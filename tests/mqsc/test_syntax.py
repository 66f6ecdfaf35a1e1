"""The lexer of IBM's KEYWORD(value) syntax (syncpoint.mqi.syntax), which runmqsc and runmqdlq's rules table share.

Each test names the rule it checks: the shared rules of ../shared/reference/mqsc.md ("MQSC syntax") and
dlq-handler.md ("Lexical conventions"), then where the two dialects differ, then what each tool reports for a flaw.
"""

from __future__ import annotations

import pytest

from syncpoint.dlq import ErrorClass, RulesTableError, parse_rules
from syncpoint.mqi.syntax import (
    MQSC,
    RULES_TABLE,
    Dialect,
    Entry,
    Problem,
    ProblemKind,
    Token,
    join_lines,
    read_quoted,
    scan,
    split_unquoted,
)
from syncpoint.mqsc import MqscSyntaxError, tokenize

DIALECTS = pytest.mark.parametrize("dialect", [MQSC, RULES_TABLE], ids=["mqsc", "rules"])


def texts(lines: list[str], dialect: Dialect) -> list[str]:
    return [e.text for e in join_lines(lines, dialect)]


def tokens(text: str, dialect: Dialect) -> list[tuple[str, str | None]]:
    out: list[tuple[str, str | None]] = []
    for t in scan(text, dialect):
        assert isinstance(t, Token), t
        out.append((t.keyword, t.value))
    return out


def problems(text: str, dialect: Dialect) -> list[Problem]:
    return [p for p in scan(text, dialect) if isinstance(p, Problem)]


# -- rules both dialects share -----------------------------------------------------------------------------
@DIALECTS
def test_plus_continues_from_the_first_nonblank_character_of_the_next_line(dialect: Dialect) -> None:
    assert texts(["ALTER QLOCAL(A) +", "      MAXDEPTH(5)"], dialect) == ["ALTER QLOCAL(A) MAXDEPTH(5)"]


@DIALECTS
def test_minus_continues_from_column_1_of_the_next_line(dialect: Dialect) -> None:
    assert texts(["ALTER QLOCAL(A) -", "  MAXDEPTH(5)"], dialect) == ["ALTER QLOCAL(A)   MAXDEPTH(5)"]


@DIALECTS
def test_continuation_inside_a_quoted_value_plus_drops_and_minus_keeps_the_leading_blanks(dialect: Dialect) -> None:
    # dlq-handler.md: APPLNAME('ABC+ / D') is 'ABCD'; APPLNAME('ABC- / D') is 'ABC   D'
    (plus,) = join_lines(["APPLNAME('ABC+", "   D')"], dialect)
    (minus,) = join_lines(["APPLNAME('ABC-", "   D')"], dialect)
    assert tokens(plus.text, dialect) == [("APPLNAME", "ABCD")]
    assert tokens(minus.text, dialect) == [("APPLNAME", "ABC   D")]


@DIALECTS
def test_only_the_last_nonblank_character_continues_a_line(dialect: Dialect) -> None:
    assert texts(["DESCR('a-b') +   ", " X"], dialect) == ["DESCR('a-b') X"]
    assert texts(["DESCR('a+b')", "X"], dialect) == ["DESCR('a+b')", "X"]


@DIALECTS
def test_blank_lines_between_entries_are_ignored_and_a_blank_line_ends_a_continuation(dialect: Dialect) -> None:
    assert texts(["", "   ", "A(1)", "", "B(2) +", "", "C(3)"], dialect) == ["A(1)", "B(2) ", "C(3)"]


@DIALECTS
def test_input_that_ends_inside_a_continuation_ends_the_entry(dialect: Dialect) -> None:
    assert texts(["A(1) +"], dialect) == ["A(1) "]


@DIALECTS
def test_line_ends_are_not_part_of_the_text(dialect: Dialect) -> None:
    assert texts(["A(1) +\r\n", "B(2)\n"], dialect) == ["A(1) B(2)"]


@DIALECTS
def test_an_entry_knows_the_line_of_each_of_its_characters(dialect: Dialect) -> None:
    lines = ["* rule for A", "DESTQ(A) +", "   FWDQ(B) -", "ACTION(FWD)"]
    (entry,) = join_lines(lines, dialect)
    assert isinstance(entry, Entry)
    assert (entry.first_line, entry.lines) == (2, lines[1:])
    assert entry.line_at(entry.text.index("DESTQ")) == 2
    assert entry.line_at(entry.text.index("FWDQ")) == 3
    assert entry.line_at(entry.text.index("ACTION")) == 4
    assert entry.line_at(10_000) == 4 and entry.line_at(-1) == 2


@DIALECTS
def test_blanks_and_commas_separate_and_blanks_are_allowed_around_parentheses(dialect: Dialect) -> None:
    assert tokens("ACTION (FWD),, FWDQ( X ) ,HEADER", dialect) == [("ACTION", "FWD"), ("FWDQ", "X"), ("HEADER", None)]


@DIALECTS
def test_keywords_and_unquoted_values_fold_to_upper_case_quoted_values_are_kept(dialect: Dialect) -> None:
    assert tokens("destq(orders) replyq('Replies.Lower')", dialect) == [
        ("DESTQ", "ORDERS"),
        ("REPLYQ", "Replies.Lower"),
    ]


@DIALECTS
def test_a_quote_doubled_inside_a_quoted_value_is_one_quote(dialect: Dialect) -> None:
    assert tokens("DESCR('It''s O''Brien''s')", dialect) == [("DESCR", "It's O'Brien's")]
    assert tokens("DESCR('''')", dialect) == [("DESCR", "'")]


@DIALECTS
def test_blanks_around_a_quoted_value_are_not_part_of_it_blanks_inside_are(dialect: Dialect) -> None:
    (tok,) = (t for t in scan("FORMAT(  ' a b '  )", dialect) if isinstance(t, Token))
    assert (tok.value, tok.quoted) == (" a b ", [True])


@DIALECTS
def test_a_token_knows_where_it_starts_and_ends(dialect: Dialect) -> None:
    a, b = (t for t in scan("  ACTION(FWD) HEADER", dialect) if isinstance(t, Token))
    assert (a.start, a.end, b.start, b.end) == (2, 13, 14, 20)


def test_read_quoted_reads_one_quoted_string() -> None:
    assert read_quoted("x('a''b')", 2) == ("a'b", 8)
    assert read_quoted("'abc", 0) is None
    assert read_quoted("'ab''", 0) is None  # the doubled quote is a quote, not the end


def test_split_unquoted_cuts_only_outside_quotes() -> None:
    assert split_unquoted("A;B('x;y');C('it''s;')", ";") == ["A", "B('x;y')", "C('it''s;')"]


# -- where IBM's two grammars differ ----------------------------------------------------------------------
def test_mqsc_comment_is_a_star_in_column_1_only() -> None:
    assert texts(["* comment", " * not a comment", "\t* nor this"], MQSC) == ["* not a comment", "* nor this"]


def test_rules_table_comment_is_a_line_whose_first_nonblank_character_is_a_star() -> None:
    assert texts(["* comment", "   * comment", "\t* comment", "ACTION(IGNORE)"], RULES_TABLE) == ["ACTION(IGNORE)"]


def test_mqsc_skips_a_comment_inside_a_continuation_the_rules_table_reads_it_as_text() -> None:
    lines = ["A(1) +", "* why", "  B(2)"]
    assert texts(lines, MQSC) == ["A(1) B(2)"]
    assert texts(lines, RULES_TABLE) == ["A(1) * why", "B(2)"]


def test_rules_table_reads_tabs_as_blanks_mqsc_keeps_them_inside_quotes() -> None:
    lines = ["\tDESCR('a\tb')"]
    assert tokens(texts(lines, RULES_TABLE)[0], RULES_TABLE) == [("DESCR", "a b")]
    assert tokens(texts(lines, MQSC)[0], MQSC) == [("DESCR", "a\tb")]


def test_mqsc_keywords_are_any_run_of_characters_rules_table_keywords_are_identifiers() -> None:
    assert tokens("DIS Q(APP.*) SYSTEM.X", MQSC) == [("DIS", None), ("Q", "APP.*"), ("SYSTEM.X", None)]
    (flaw,) = problems("ACTION(IGNORE) A.B", RULES_TABLE)
    assert (flaw.kind, flaw.at, flaw.end) == (ProblemKind.NOT_A_KEYWORD, 16, 18)


def test_mqsc_values_are_lists_with_nested_parentheses_a_rules_table_value_is_one() -> None:
    (mq,) = (t for t in scan("AUTHADD(get, 'Put',x(y))", MQSC) if isinstance(t, Token))
    assert (mq.items, mq.quoted) == (["GET", "Put", "X(Y)"], [False, True, False])
    (rt,) = (t for t in scan("DESTQ(a, b )", RULES_TABLE) if isinstance(t, Token))
    assert (rt.items, rt.quoted) == (["A, B"], [False])


def test_empty_parentheses_are_no_items_in_mqsc_and_one_empty_value_in_a_rules_table() -> None:
    assert [t.items for t in scan("FORMAT()", MQSC) if isinstance(t, Token)] == [[]]
    assert [t.items for t in scan("FORMAT( )", RULES_TABLE) if isinstance(t, Token)] == [[""]]


def test_rules_table_scan_resumes_after_stray_text_and_after_text_after_a_quote() -> None:
    found = list(scan("9X ACTION(IGNORE) FORMAT('a' b) DESTQ(Q)", RULES_TABLE))
    kinds = [f.kind if isinstance(f, Problem) else f.keyword for f in found]
    assert kinds == [ProblemKind.NOT_A_KEYWORD, "ACTION", ProblemKind.TEXT_AFTER_QUOTE, "DESTQ"]


@DIALECTS
def test_the_lexer_gives_up_at_an_unclosed_quote_or_parenthesis(dialect: Dialect) -> None:
    (quote,) = problems("APPLNAME('abc) ACTION(IGNORE)", dialect)
    assert (quote.kind, quote.keyword, quote.keyword_at, quote.at) == (ProblemKind.UNCLOSED_QUOTE, "APPLNAME", 0, 9)
    (paren,) = problems("X(1) ACTION(FWD", dialect)
    assert (paren.kind, paren.keyword, paren.keyword_at) == (ProblemKind.UNCLOSED_PARENTHESIS, "ACTION", 5)


# -- what each tool reports for a flaw the lexer finds ---------------------------------------------------
def rules_errors(text: str) -> list[str]:
    with pytest.raises(RulesTableError) as exc:
        parse_rules(text)
    return [str(e) for e in exc.value.errors if e.cls is ErrorClass.SYNTAX]


def test_an_unterminated_quote_is_amq8405e_at_the_end_of_the_command_in_mqsc() -> None:
    with pytest.raises(MqscSyntaxError) as exc:
        tokenize("DEFINE QLOCAL(A) DESCR('abc)")
    assert (exc.value.reason, exc.value.end) == ("a quoted string is not closed", 28)


def test_an_unterminated_quote_is_a_syntax_error_on_the_keywords_line_in_a_rules_table() -> None:
    assert rules_errors("ACTION(IGNORE) +\n APPLNAME('abc)\n") == [
        "line 2: syntax error: APPLNAME: the quoted value has no closing quote"
    ]


@pytest.mark.parametrize(
    ("text", "reason", "end"),
    [
        ("DEFINE, (A)", "a value in parentheses must follow a keyword", 9),
        ("DEFINE QLOCAL(A))", "')' without '('", 17),
        ("DEFINE 'A'", "a quoted string must be the value of a keyword, in parentheses", 8),
        ("DEFINE QLOCAL(A", "a '(' is not closed by ')'", 15),
    ],
)
def test_mqsc_words_each_flaw_and_marks_where_it_was_found(text: str, reason: str, end: int) -> None:
    with pytest.raises(MqscSyntaxError) as exc:
        tokenize(text)
    assert (exc.value.reason, exc.value.end) == (reason, end)


def test_a_rules_table_reports_every_lexical_flaw_with_its_line() -> None:
    assert rules_errors("9X ACTION(IGNORE)\nFORMAT('a' b) ACTION(IGNORE)\nACTION(FWD FWDQ(X)\n") == [
        "line 1: syntax error: unexpected text '9X'",
        "line 2: syntax error: FORMAT: ')' expected after the quoted value",
        "line 3: syntax error: ACTION: the value has no closing parenthesis",
    ]
