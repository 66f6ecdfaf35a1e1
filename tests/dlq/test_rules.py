"""The rules-table grammar of runmqdlq (../shared/reference/dlq-handler.md, seed 003 note 3).

Each test names the rule of the grammar it checks; the corpora are tables written the ways installations write
them, and broken tables with the line and class of each error.
"""

from __future__ import annotations

import pytest

from syncpoint.dlq import ControlData, ErrorClass, Rule, RulesTableError, parse_rules
from syncpoint.mqi import constants as C

IBM_EXAMPLE = """\
inputqm(' ') inputq(' ')
REASON(MQRC_Q_FULL) ACTION(RETRY) RETRY(5)
REASON(MQRC_PUT_INHIBITED) ACTION(RETRY) RETRY(5)
MSGTYPE(MQMT_REQUEST) REPLYQM(AAAA.*) +
  ACTION(FWD) FWDQ(DEADQ) FWDQM(&REPLYQM)
DESTQM(bbbb.1) +
  action(fwd) fwdq(&DESTQ) fwdqm(bbbb.2) header(no)
REPLYQM(CCCC.*) +
  ACTION(FWD) FWDQ(ALARM) FWDQM(CCCC.SYSTEM)
PERSIST(MQPER_NOT_PERSISTENT) ACTION(DISCARD)
REPLYQM('?*') +
  ACTION(FWD) FWDQ(DEADQ.MANUAL.INTERVENTION) FWDQM(&REPLYQM)
ACTION(FWD) FWDQ(DEADQ.MANUAL.INTERVENTION)
"""


def errors_of(text: str) -> list[tuple[int, ErrorClass]]:
    with pytest.raises(RulesTableError) as exc:
        parse_rules(text)
    return [(e.line, e.cls) for e in exc.value.errors]


# -- IBM's example table -------------------------------------------------------------------------------
def test_ibm_example_table_parses_to_the_expected_rules_field_by_field() -> None:
    table = parse_rules(IBM_EXAMPLE)
    assert table.control == ControlData(inputq="", inputqm="", retryint=60, wait="YES", line=1)
    # every field of every rule: patterns not given are None, the action defaults are FWDQM '' (local),
    # HEADER(YES), PUTAUT(DEF), RETRY(1); unquoted values are folded to upper case
    assert table.rules == (
        Rule(line=2, action="RETRY", reason=C.MQRC_Q_FULL, retry=5),
        Rule(line=3, action="RETRY", reason=C.MQRC_PUT_INHIBITED, retry=5),
        Rule(line=4, action="FWD", msgtype=C.MQMT_REQUEST, replyqm="AAAA.*", fwdq="DEADQ", fwdqm="&REPLYQM"),
        Rule(line=6, action="FWD", destqm="BBBB.1", fwdq="&DESTQ", fwdqm="BBBB.2", header=False),
        Rule(line=8, action="FWD", replyqm="CCCC.*", fwdq="ALARM", fwdqm="CCCC.SYSTEM"),
        Rule(line=10, action="DISCARD", persist=C.MQPER_NOT_PERSISTENT),
        Rule(line=11, action="FWD", replyqm="?*", fwdq="DEADQ.MANUAL.INTERVENTION", fwdqm="&REPLYQM"),
        Rule(line=13, action="FWD", fwdq="DEADQ.MANUAL.INTERVENTION"),
    )
    for rule in table.rules:  # the defaults spelled out, so a changed default fails here too
        assert rule.putaut == "DEF"
        for kw in ("applidat", "applname", "appltype", "destq", "feedback", "format", "replyq", "userid"):
            assert getattr(rule, kw) is None
    assert table.rules[0].fwdq is None and table.rules[0].fwdqm == "" and table.rules[0].header is True


def test_zos_example_rules_with_reason_and_feedback_names() -> None:
    table = parse_rules(
        "REASON(MQRC_NOT_AUTHORIZED) ACTION(FWD) FWDQ(DEADQ.MANUAL.SECURITY)\n"
        "REASON(MQFB_APPL_CANNOT_BE_STARTED) ACTION(FWD) FWDQ(DEADQ.MANUAL.TRIGGER)\n"
    )
    assert table.rules[0].reason == C.MQRC_NOT_AUTHORIZED == 2035
    assert table.rules[1].reason == C.MQFB_APPL_CANNOT_BE_STARTED == 265


# -- control data --------------------------------------------------------------------------------------
def test_control_data_defaults_when_absent() -> None:
    table = parse_rules("ACTION(IGNORE)\n")
    assert table.control == ControlData()
    assert (table.control.retryint, table.control.wait, table.control.inputq) == (60, "YES", "")


@pytest.mark.parametrize(("text", "wait"), [("WAIT(YES)", "YES"), ("wait(no)", "NO"), ("WAIT(120)", 120)])
def test_wait_takes_yes_no_or_seconds(text: str, wait: object) -> None:
    assert parse_rules(f"{text}\nACTION(IGNORE)\n").control.wait == wait


def test_control_data_continued_over_lines() -> None:
    table = parse_rules("INPUTQ(MY.DLQ) +\n   INPUTQM(QM9) -\n RETRYINT(5) WAIT(NO)\nACTION(DISCARD)\n")
    assert table.control == ControlData("MY.DLQ", "QM9", 5, "NO", 1)
    assert table.rules[0].line == 4


def test_control_data_is_only_the_first_entry() -> None:
    # a control-data keyword in a later entry is a rule with a control keyword in it
    assert errors_of("ACTION(IGNORE)\nINPUTQ(X) ACTION(DISCARD)\n") == [(2, ErrorClass.INVALID_COMBINATION)]


# -- lexical conventions -------------------------------------------------------------------------------
def test_keywords_are_not_case_sensitive_and_blanks_or_commas_separate() -> None:
    a = parse_rules("reason(MQRC_Q_FULL) action(retry) retry(2)\n").rules[0]
    b = parse_rules("REASON ( MQRC_Q_FULL ) , ACTION (RETRY),RETRY( 2 )\n").rules[0]
    assert a == b == Rule(line=1, action="RETRY", reason=C.MQRC_Q_FULL, retry=2)


def test_keywords_in_any_order() -> None:
    a = parse_rules("FWDQ(X) ACTION(FWD) DESTQ(Y)\n").rules[0]
    assert a == Rule(line=1, action="FWD", destq="Y", fwdq="X")


def test_comments_and_blank_lines_are_ignored_but_counted() -> None:
    table = parse_rules("* a comment\n\n   * indented comment\nACTION(DISCARD)\n\n*\nACTION(IGNORE)\n")
    assert [r.line for r in table.rules] == [4, 7]


def test_plus_continues_from_the_first_non_blank_of_the_next_line() -> None:
    rule = parse_rules("APPLNAME('ABC+\n       D') ACTION(IGNORE)\n").rules[0]
    assert rule.applname == "ABCD"


def test_minus_continues_from_column_one_keeping_the_blanks() -> None:
    rule = parse_rules("APPLNAME('ABC-\n   D') ACTION(IGNORE)\n").rules[0]
    assert rule.applname == "ABC   D"


def test_unquoted_values_are_upper_cased_quoted_values_kept() -> None:
    rule = parse_rules("DESTQ(orders) REPLYQ('Replies.Lower') ACTION(IGNORE)\n").rules[0]
    assert (rule.destq, rule.replyq) == ("ORDERS", "Replies.Lower")


def test_quotes_are_not_significant_and_a_blank_quoted_value_is_valid() -> None:
    r1, r2, r3 = parse_rules(
        "FORMAT('ABC') ACTION(IGNORE)\nFORMAT(ABC) ACTION(IGNORE)\nFORMAT(' ') ACTION(IGNORE)\n"
    ).rules
    assert r1.format == r2.format == "ABC"
    assert r3.format == ""  # a blank pattern: matches a blank field (trailing blanks are not significant)


def test_doubled_quote_inside_a_quoted_value_is_one_quote() -> None:
    assert parse_rules("APPLIDAT('O''Brien') ACTION(IGNORE)\n").rules[0].applidat == "O'Brien"


def test_symbolic_and_numeric_values_are_the_same() -> None:
    a = parse_rules("MSGTYPE(MQMT_REPORT) PERSIST(MQPER_PERSISTENT) FEEDBACK(MQFB_EXPIRATION) ACTION(IGNORE)\n")
    b = parse_rules("MSGTYPE(4) PERSIST(1) FEEDBACK(258) ACTION(IGNORE)\n")
    assert a.rules[0] == b.rules[0]
    assert parse_rules("APPLTYPE(MQAT_QMGR) ACTION(IGNORE)\n").rules[0].appltype == 7


def test_star_as_a_whole_integer_value_means_any() -> None:
    assert parse_rules("REASON(*) PERSIST(*) ACTION(DISCARD)\n").rules[0] == Rule(line=1, action="DISCARD")


def test_substitutions_in_fwdq_and_fwdqm() -> None:
    rules = parse_rules(
        "ACTION(FWD) FWDQ(&DESTQ) FWDQM(&DESTQM)\nACTION(FWD) FWDQ(&replyq) FWDQM(&replyqm)\n"
        "ACTION(FWD) FWDQ(X) FWDQM(' ')\n"
    ).rules
    assert [(r.fwdq, r.fwdqm) for r in rules] == [("&DESTQ", "&DESTQM"), ("&REPLYQ", "&REPLYQM"), ("X", "")]


def test_every_action_and_its_keywords() -> None:
    rules = parse_rules(
        "ACTION(DISCARD)\nACTION(IGNORE)\nACTION(RETRY) RETRY(999999999) PUTAUT(CTX)\n"
        "ACTION(FWD) FWDQ(Q) FWDQM(QM2) HEADER(NO) PUTAUT(DEF) RETRY(3)\n"
    ).rules
    assert [r.action for r in rules] == ["DISCARD", "IGNORE", "RETRY", "FWD"]
    assert rules[2].retry == 999_999_999 and rules[2].putaut == "CTX"
    assert rules[3] == Rule(line=4, action="FWD", fwdq="Q", fwdqm="QM2", header=False, putaut="DEF", retry=3)


def test_every_pattern_keyword() -> None:
    rule = parse_rules(
        "APPLIDAT('id*') APPLNAME(prog?) APPLTYPE(6) DESTQ(A.*) DESTQM(QM1) FEEDBACK(0) FORMAT(MQSTR) +\n"
        "MSGTYPE(8) PERSIST(0) REASON(2053) REPLYQ(R) REPLYQM(RQM) USERID(mqm) ACTION(IGNORE)\n"
    ).rules[0]
    assert rule.patterns() == {
        "APPLIDAT": "id*",
        "APPLNAME": "PROG?",
        "APPLTYPE": 6,
        "DESTQ": "A.*",
        "DESTQM": "QM1",
        "FEEDBACK": 0,
        "FORMAT": "MQSTR",
        "MSGTYPE": 8,
        "PERSIST": 0,
        "REASON": 2053,
        "REPLYQ": "R",
        "REPLYQM": "RQM",
        "USERID": "MQM",
    }


# -- a corpus of tables as installations write them ---------------------------------------------------
VALID_CORPUS = {
    "lower case throughout": (
        "inputq(system.dead.letter.queue) retryint(30) wait(no)\n"
        "reason(mqrc_q_full) action(retry) retry(3)\n"
        "action(fwd) fwdq(really.dead.queue) header(yes)\n",
        2,
    ),
    "blanks between keyword and parenthesis": (
        "INPUTQ (' ') WAIT (YES)\n"
        "REASON (MQRC_Q_FULL) ACTION (RETRY) RETRY (5)\n"
        " ACTION (FWD) FWDQ (IGNORED.DEAD.QUEUE) HEADER (YES)\n",
        2,
    ),
    "continued control data": (
        "INPUTQM(QM1) +\n  INPUTQ(DLQ) -\nRETRYINT(60) +\n  WAIT(300)\nACTION(DISCARD)\n",
        1,
    ),
    "action-only rules and a catch-all last": (
        "* Dead-letter rules for QM1\n"
        "*\n"
        "DESTQ(PAYROLL.*) ACTION(FWD) FWDQ(PAYROLL.EXCEPTIONS) HEADER(NO)\n"
        "FORMAT(MQSTR) PERSIST(MQPER_NOT_PERSISTENT) ACTION(DISCARD)\n"
        "\n"
        "* everything else is kept for a person to look at\n"
        "ACTION(FWD) FWDQ(REALLY.DEAD.QUEUE) HEADER(YES)\n",
        3,
    ),
    "commas and quoted mixed case": (
        "REPLYQ('?*'),ACTION(FWD),FWDQ(&REPLYQ),FWDQM(&REPLYQM)\nAPPLNAME('amqsput'),ACTION(IGNORE)\nACTION(IGNORE)\n",
        3,
    ),
    "tabs and trailing blanks": ("\tREASON(MQRC_Q_FULL)\tACTION(RETRY)   \n\tACTION(IGNORE)\t\n", 2),
    "no trailing newline": ("ACTION(DISCARD)", 1),
}


@pytest.mark.parametrize("name", list(VALID_CORPUS))
def test_valid_corpus_parses(name: str) -> None:
    text, count = VALID_CORPUS[name]
    assert len(parse_rules(text).rules) == count


# -- a corpus of broken tables: line and class of each error ------------------------------------------
INVALID_CORPUS: dict[str, tuple[str, list[tuple[int, ErrorClass]]]] = {
    "RETRY in control data": (
        "INPUTQ(DLQ) RETRY(3)\nACTION(IGNORE)\n",
        [(1, ErrorClass.INVALID_COMBINATION)],
    ),
    "a bare action word": (
        "REASON(MQRC_Q_FULL) ACTION(RETRY)\nDISCARD\n",
        [(2, ErrorClass.UNKNOWN_KEYWORD), (2, ErrorClass.MISSING_ACTION)],
    ),
    "unknown keyword PUT": ("ACTION(FWD) FWDQ(X) PUT(CTX)\n", [(1, ErrorClass.UNKNOWN_KEYWORD)]),
    "unknown keyword RETRIES": ("ACTION(RETRY) RETRIES(3)\n", [(1, ErrorClass.UNKNOWN_KEYWORD)]),
    "FWDQ with a non-FWD action": ("ACTION(DISCARD) FWDQ(X)\n", [(1, ErrorClass.INVALID_COMBINATION)]),
    "HEADER without FWD": ("ACTION(RETRY) HEADER(NO)\n", [(1, ErrorClass.INVALID_COMBINATION)]),
    "FWDQM without FWD": ("ACTION(IGNORE) FWDQM(QM2)\n", [(1, ErrorClass.INVALID_COMBINATION)]),
    "FWD without FWDQ": ("ACTION(FWD) HEADER(NO)\n", [(1, ErrorClass.INVALID_COMBINATION)]),
    "empty parentheses": ("FORMAT() ACTION(IGNORE)\n", [(1, ErrorClass.INVALID_VALUE)]),
    "blank unquoted value": ("FORMAT( ) ACTION(IGNORE)\n", [(1, ErrorClass.INVALID_VALUE)]),
    "empty quoted value": ("FORMAT('') ACTION(IGNORE)\n", [(1, ErrorClass.INVALID_VALUE)]),
    "keyword without a value": ("FORMAT ACTION(IGNORE)\n", [(1, ErrorClass.INVALID_VALUE)]),
    "missing ACTION": ("REASON(MQRC_Q_FULL) RETRY(3)\n", [(1, ErrorClass.MISSING_ACTION)]),
    "repeated keyword": ("ACTION(IGNORE) DESTQ(A) DESTQ(B)\n", [(1, ErrorClass.REPEATED_KEYWORD)]),
    "value too long": ("FORMAT(TOOLONGFMT) ACTION(IGNORE)\n", [(1, ErrorClass.VALUE_TOO_LONG)]),
    "userid too long": ("USERID(ABCDEFGHIJKLM) ACTION(IGNORE)\n", [(1, ErrorClass.VALUE_TOO_LONG)]),
    "invalid integer": ("ACTION(RETRY) RETRY(five)\n", [(1, ErrorClass.INVALID_INTEGER)]),
    "RETRY out of range": ("ACTION(RETRY) RETRY(0)\n", [(1, ErrorClass.INVALID_VALUE)]),
    "unknown reason name": ("REASON(MQRC_NO_SUCH_THING) ACTION(IGNORE)\n", [(1, ErrorClass.INVALID_VALUE)]),
    "wrong name family": ("MSGTYPE(MQPER_PERSISTENT) ACTION(IGNORE)\n", [(1, ErrorClass.INVALID_VALUE)]),
    "wildcard in an integer": ("REASON(20*) ACTION(IGNORE)\n", [(1, ErrorClass.INVALID_INTEGER)]),
    "unknown action": ("ACTION(DELETE)\n", [(1, ErrorClass.INVALID_VALUE)]),
    "bad WAIT": ("WAIT(MAYBE)\nACTION(IGNORE)\n", [(1, ErrorClass.INVALID_VALUE)]),
    "bad RETRYINT": ("RETRYINT(soon)\nACTION(IGNORE)\n", [(1, ErrorClass.INVALID_INTEGER)]),
    "substitution in the wrong keyword": ("ACTION(FWD) FWDQ(&DESTQM)\n", [(1, ErrorClass.INVALID_VALUE)]),
    "invalid queue name": ("ACTION(FWD) FWDQ(NOT A NAME)\n", [(1, ErrorClass.INVALID_VALUE)]),
    "unclosed parenthesis": ("ACTION(FWD FWDQ(X)\n", [(1, ErrorClass.SYNTAX), (1, ErrorClass.MISSING_ACTION)]),
    "unclosed quote": ("APPLNAME('abc) ACTION(IGNORE)\n", [(1, ErrorClass.SYNTAX), (1, ErrorClass.MISSING_ACTION)]),
    "no rules": ("INPUTQ(DLQ)\n* only control data\n", [(2, ErrorClass.NO_RULES)]),
    "empty table": ("", [(1, ErrorClass.NO_RULES)]),
}


@pytest.mark.parametrize("name", list(INVALID_CORPUS))
def test_invalid_corpus_is_rejected_with_line_and_class(name: str) -> None:
    text, expected = INVALID_CORPUS[name]
    assert errors_of(text) == expected


def test_every_error_of_a_table_is_reported_with_its_line() -> None:
    text = (
        "* control data\n"
        "INPUTQ(DLQ) ACTION(IGNORE)\n"  # 2: rule keyword in control data
        "REASON(MQRC_Q_FULL) ACTION(RETRY) RETRY(5)\n"  # 3: fine
        "DESTQ(A) +\n"
        "   FWDQ(B) ACTION(DISCARD)\n"  # 5: FWDQ with DISCARD, on the continuation line
        "ACTION(FWD) FWDQ(C) RETRIES(2)\n"  # 6: unknown keyword
        "FORMAT() ACTION(IGNORE)\n"  # 7: empty value
        "ACTION(FWD) FWDQ(D)\n"  # 8: fine
    )
    assert errors_of(text) == [
        (2, ErrorClass.INVALID_COMBINATION),
        (5, ErrorClass.INVALID_COMBINATION),
        (6, ErrorClass.UNKNOWN_KEYWORD),
        (7, ErrorClass.INVALID_VALUE),
    ]


def test_error_message_names_line_class_and_keyword() -> None:
    with pytest.raises(RulesTableError) as exc:
        parse_rules("ACTION(RETRY) RETRIES(3)\n")
    text = str(exc.value.errors[0])
    assert text.startswith("line 1: unknown keyword:") and "RETRIES" in text


def test_a_rules_table_error_is_a_syncpoint_error_and_still_a_value_error() -> None:
    from syncpoint.mqi import SyncpointError

    for base in (SyncpointError, ValueError):
        with pytest.raises(base):
            parse_rules("ACTION(RETRY) RETRIES(3)\n")


def test_a_lone_surrogate_from_an_undecodable_byte_is_an_invalid_value_of_its_line() -> None:
    # seed 003: the rules table is validated when the handler starts; bytes read with surrogateescape
    with pytest.raises(RulesTableError) as e:
        parse_rules("ACTION(DISCARD)\nACTION(DISCARD) APPLNAME('x\udcff')\n")
    assert [(err.line, err.cls) for err in e.value.errors] == [(2, ErrorClass.INVALID_VALUE)]
