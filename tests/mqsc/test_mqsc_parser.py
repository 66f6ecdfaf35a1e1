"""MQSC reading and grammar: the syntax rules of ../shared/reference/mqsc.md ("MQSC syntax")."""

from __future__ import annotations

import pytest

from syncpoint.mqi import constants as C
from syncpoint.mqi.objects import PROCESS, QALIAS, QLOCAL, QMGR
from syncpoint.mqsc import MqscSyntaxError, parse_command, read_commands, tokenize


def texts(lines: list[str]) -> list[str]:
    return [c.text for c in read_commands(lines)]


# -- reading lines ----------------------------------------------------------------------------------------
def test_plus_continues_from_the_first_nonblank_character_of_the_next_line() -> None:
    # mqsc.md: "`+` at the end of a line continues from the first non-blank character of the next line"
    assert texts(["DEFINE QLOCAL(A) +", "      MAXDEPTH(5)"]) == ["DEFINE QLOCAL(A) MAXDEPTH(5)"]


def test_minus_continues_from_column_1_of_the_next_line() -> None:
    # mqsc.md: "`-` continues from column 1"
    assert texts(["DEFINE QLOCAL(A) DESCR('ab-", "  cd')"]) == ["DEFINE QLOCAL(A) DESCR('ab  cd')"]
    assert texts(["DEFINE QLOCAL(A) DESCR('ab+", "  cd')"]) == ["DEFINE QLOCAL(A) DESCR('abcd')"]


def test_tab_indented_plus_continuations() -> None:
    lines = ["DEFINE QLOCAL(A) +", "\tMAXDEPTH(5) +", "\t\tREPLACE"]
    assert texts(lines) == ["DEFINE QLOCAL(A) MAXDEPTH(5) REPLACE"]


def test_a_star_in_column_1_is_a_comment_and_blank_lines_are_ignored() -> None:
    lines = ["* set-up", "", "   ", "DEFINE QLOCAL(A)", "*DEFINE QLOCAL(B)", " * not a comment"]
    assert texts(lines) == ["DEFINE QLOCAL(A)", "* not a comment"]


def test_a_comment_inside_a_continued_command_is_skipped() -> None:
    assert texts(["DEFINE QLOCAL(A) +", "* why", "  MAXDEPTH(5)"]) == ["DEFINE QLOCAL(A) MAXDEPTH(5)"]


def test_semicolon_ends_a_command_outside_quotes_only() -> None:
    assert texts(["DEF QL(A); DEF QL(B) DESCR('x;y');"]) == ["DEF QL(A)", "DEF QL(B) DESCR('x;y')"]


def test_echo_keeps_the_source_lines_and_first_line_number() -> None:
    (cmd,) = read_commands(["* c", "DEF QL(A) +", "  REPLACE"])
    assert cmd.lines == ["DEF QL(A) +", "  REPLACE"]
    assert cmd.line_no == 2


def test_input_ending_inside_a_continuation_keeps_the_command() -> None:
    assert texts(["DEF QL(A) +"]) == ["DEF QL(A)"]


# -- tokens -----------------------------------------------------------------------------------------------
def test_unquoted_values_fold_to_upper_case_quoted_are_kept_and_double_quote_is_one() -> None:
    # mqsc.md: "Unquoted names and values are folded to upper case; quoted strings are kept exactly, `''`
    # inside quotes is one quote."
    toks = tokenize("alter qlocal(app.in) descr('It''s mine') initq(init.q)")
    assert [t.keyword for t in toks] == ["ALTER", "QLOCAL", "DESCR", "INITQ"]
    assert toks[1].value == "APP.IN"
    assert toks[2].value == "It's mine"
    assert toks[3].value == "INIT.Q"


def test_blanks_and_commas_separate_and_blanks_around_parentheses_are_allowed() -> None:
    # IBM's example: ALTER QLOCAL ('Account' ) TRIGDPTH ( 1)
    toks = tokenize("ALTER QLOCAL ('Account' ),,TRIGDPTH ( 1)")
    assert [(t.keyword, t.value) for t in toks] == [("ALTER", None), ("QLOCAL", "Account"), ("TRIGDPTH", "1")]


def test_list_values() -> None:
    (tok,) = tokenize("AUTHADD(get, put,'Inq')")
    assert tok.items == ["GET", "PUT", "Inq"]


@pytest.mark.parametrize(
    "text",
    ["DEFINE QLOCAL(A", "DEFINE QLOCAL(A) DESCR('abc)", "DEFINE QLOCAL(A))", "DEFINE 'A'", "DEFINE (A)", "(A)"],
)
def test_unbalanced_quotes_and_parentheses_are_syntax_errors(text: str) -> None:
    with pytest.raises(MqscSyntaxError):
        parse_command(text)


# -- grammar ----------------------------------------------------------------------------------------------
def test_abbreviations_users_type() -> None:
    # mqsc.md: DEF, ALT, DIS, DEL, QL/QLOCAL, QMODEL, QA/QALIAS, PRO/PROCESS, QS/QSTATUS, QMGR
    assert parse_command("DEF QL(A)").verb == "DEFINE"
    assert parse_command("ALT QA(A) TARGET(B)").otype == QALIAS
    assert parse_command("DIS QS(A)").otype == "QSTATUS"
    assert parse_command("DEL PRO(P)").otype == PROCESS
    assert parse_command("dis qmgr").otype == QMGR


def test_define_attributes_become_engine_values() -> None:
    r = parse_command("def ql(a) notrigger trigtype(every) defpsist(yes) maxdepth(10) get(disabled) like(b) replace")
    assert r.attrs == {
        "TRIGGER": C.MQTC_OFF,
        "TRIGTYPE": C.MQTT_EVERY,
        "DEFPSIST": C.MQPER_PERSISTENT,
        "MAXDEPTH": 10,
        "GET": C.MQQA_GET_INHIBITED,
    }
    assert (r.like, r.replace, r.otype, r.name) == ("B", True, QLOCAL, "A")


def test_descr_of_a_process_and_the_queue_manager_is_kept_under_their_own_keys() -> None:
    assert parse_command("DEFINE PROCESS(P) DESCR('x')").attrs == {"PROCDESC": "x"}
    assert parse_command("ALTER QMGR DESCR('y') MAXMSGL(1000)").attrs == {"QMDESCR": "y", "QMMAXMSGL": 1000}
    assert parse_command("ALTER QMGR EXPRYINT(OFF)").attrs == {"EXPRYINT": 0}


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("DEFINE QLOCAL(A) FOO(1)", "FOO is not a keyword of DEFINE QLOCAL"),
        ("DEFINE QLOCAL(A) MAXDEPTH(lots)", "MAXDEPTH takes a number"),
        ("DEFINE QLOCAL(A) DEFPSIST(MAYBE)", "DEFPSIST takes one of NO, YES"),
        ("DEFINE QLOCAL(A) DESCR('" + "x" * 65 + "')", "DESCR is at most 64 characters long"),
        ("DEFINE QLOCAL(A) DEFPRTY(10)", "DEFPRTY must be from 0 to 9"),
        ("DEFINE QALIAS(A) MAXDEPTH(5)", "MAXDEPTH is not valid for a QALIAS"),
        ("DEFINE QLOCAL(A) TARGET(B)", "TARGET is not valid for a QLOCAL"),
        ("DEFINE QLOCAL(A) REPLACE NOREPLACE", "NOREPLACE contradicts REPLACE"),
        ("DEFINE QLOCAL(A) MAXDEPTH(1) MAXDEPTH(2)", "MAXDEPTH is repeated"),
        ("DEFINE QLOCAL(A) TRIGGER(YES)", "TRIGGER takes no value"),
        ("DEFINE QLOCAL(A) MAXDEPTH", "MAXDEPTH needs a value"),
        ("DEFINE QLOCAL(APP.*)", "generic name"),
        ("DEFINE QLOCAL(" + "A" * 49 + ")", "not a valid object name"),
        ("DEFINE QLOCAL", "needs the object's name"),
        ("DEFINE QSTATUS(A)", "DEFINE QSTATUS is not a valid command"),
        ("CLEAR QALIAS(A)", "CLEAR QALIAS is not a valid command"),
        ("FROB QLOCAL(A)", "FROB is not an MQSC command"),
        ("DELETE QALIAS(A) PURGE", "PURGE is not a keyword of DELETE QALIAS"),
        ("DISPLAY QLOCAL(A) TARGET", "TARGET is not a keyword of DISPLAY QLOCAL"),
        ("ALTER QMGR COMMANDQ(X)", "COMMANDQ cannot be set"),
        ("REFRESH QMGR NAME(A*)", "needs TYPE(EXPIRY)"),
        ("DISPLAY QLOCAL(A) TYPE(QLOCAL)", "TYPE is valid on DISPLAY QUEUE, QSTATUS and CONN only"),
        ("DISPLAY QLOCAL(A) MAXDEPTH(5)", "MAXDEPTH takes no value on DISPLAY"),
    ],
)
def test_each_bad_input_is_a_syntax_error_with_a_clear_sentence(text: str, says: str) -> None:
    with pytest.raises(MqscSyntaxError) as e:
        parse_command(text)
    assert says in e.value.reason


def test_unsupported_objects_parse_as_unsupported_not_as_syntax_errors() -> None:
    for text in (
        "DEFINE CHANNEL(APP.CLNTCONN) CHLTYPE(CLNTCONN) TRPTYPE(TCP) REPLACE",
        "DEFINE LISTENER(L) TRPTYPE(TCP) PORT(1414) CONTROL(QMGR)",
        "START SERVICE(S)",
        "REFRESH SECURITY TYPE(SSL)",
    ):
        assert parse_command(text).unsupported, text


def test_ibm_attributes_syncpoint_does_not_act_on_are_kept_and_listed() -> None:
    # issue 21: "attributes accepted on DEFINE are shown by DISPLAY — accepted and never shown again is not
    # acceptable": they are kept in the definition (DISPLAY shows them) and the notice names them
    r = parse_command("DEFINE QLOCAL(A) DEFBIND(NOTFIXED) CLUSTER(C1) MAXDEPTH(9) MONQ(QMGR)")
    assert r.attrs == {"DEFBIND": "NOTFIXED", "CLUSTER": "C1", "MAXDEPTH": 9, "MONQ": "QMGR"}
    assert r.ignored == ["DEFBIND", "CLUSTER"]  # MONQ(QMGR), IBM's default, asks for nothing syncpoint lacks


def test_display_named_attributes_all_and_where() -> None:
    r = parse_command("dis ql(app.*) curdepth maxdepth")
    assert (r.name, r.generic, r.wanted) == ("APP.*", True, ["CURDEPTH", "MAXDEPTH"])
    assert parse_command("DIS QL(A) ALL").wanted is None
    assert parse_command("DIS QL(A)").wanted is None  # IBM: one object named, no attributes: ALL
    assert parse_command("DIS QL(A*)").wanted == []  # a generic name: only QUEUE and TYPE
    assert parse_command("DIS QMGR").wanted is None  # IBM: the queue manager shows everything
    w = parse_command("DIS Q(*) WHERE(CURDEPTH GT 0)")
    assert w.where is not None and (w.where.keyword, w.where.op, w.where.value) == ("CURDEPTH", "GT", "0")
    assert w.wanted == ["CURDEPTH"]


def test_qstatus_type() -> None:
    assert parse_command("DIS QSTATUS(A) TYPE(HANDLE)").type_filter == "HANDLE"
    assert parse_command("DIS QS(A)").type_filter == "ALL"
    with pytest.raises(MqscSyntaxError):
        parse_command("DIS QS(A) TYPE(CHANNEL)")


def test_mqsc_errors_are_syncpoint_errors_and_keep_their_bases() -> None:
    from syncpoint.mqi import SyncpointError
    from syncpoint.mqsc import AttributeValueError

    with pytest.raises(SyncpointError):
        parse_command("DEFINE QLOCAL(A")
    assert issubclass(AttributeValueError, SyncpointError) and issubclass(AttributeValueError, ValueError)
