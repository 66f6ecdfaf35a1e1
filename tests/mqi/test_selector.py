"""The selector language (syncpoint.mqi.selector): IBM MQ's SQL-92 subset, its evaluation and its reason codes.

Rules from properties-pubsub.md ("Selectors") and IBM's "Message selector syntax" / "Selection behavior" pages.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from syncpoint.mqi import constants as C
from syncpoint.mqi.selector import MQ_SELECTOR_LENGTH, SelectorError, parse

STRING, INT32, FLOAT64, BOOLEAN, BYTES = 1024, 64, 512, 4, 8  # MQTYPE_* values: the props dict's type tags


def md(**fields: object) -> dict[str, object]:
    base: dict[str, object] = {
        "Priority": 0,
        "Persistence": 0,
        "Format": b"MQSTR   ",
        "MsgId": b"\x01" * 24,
        "CorrelId": b"\0" * 24,
        "BackoutCount": 0,
        "Expiry": -1,
        "PutDate": b"20261207",
        "PutTime": b"10203040",
        "UserIdentifier": b"app         ",
        "MsgFlags": 0,
        "Report": 0,
    }
    base.update(fields)
    return base


def props(**values: object) -> dict[str, tuple[int, object]]:
    kinds = {str: STRING, int: INT32, float: FLOAT64, bool: BOOLEAN, bytes: BYTES}
    return {k: (kinds[type(v)], v) for k, v in values.items()}


def selects(text: str, m: dict[str, object] | None = None, p: dict[str, tuple[int, object]] | None = None) -> bool:
    return parse(text).matches(m if m is not None else md(), p)


def syntax_error(text: str) -> SelectorError:
    with pytest.raises(SelectorError) as ei:
        parse(text)
    assert ei.value.reason == C.MQRC_SELECTOR_SYNTAX_ERROR, ei.value
    return ei.value


# -- evaluation ----------------------------------------------------------------------------------------------
def test_string_literals_double_their_quote_and_compare_with_equals() -> None:
    assert selects("Name = 'O''Brien'", p=props(Name="O'Brien"))
    assert not selects("Name <> 'O''Brien'", p=props(Name="O'Brien"))


def test_a_missing_property_is_null_and_a_comparison_with_null_selects_nothing() -> None:
    # "If a selection string references a message property that does not exist, this property is assumed to have
    # the value of NULL" (Selection behavior): Color = 'red' and NOT (Color = 'red') are both unknown
    assert not selects("Color = 'red'", p=props(Size=1))
    assert not selects("NOT (Color = 'red')", p=props(Size=1))
    assert selects("Color IS NULL", p=None)
    assert selects("Size IS NOT NULL", p=props(Size=1))


def test_and_or_follow_three_valued_logic() -> None:
    p = props(Size=3)
    assert selects("Color = 'red' OR Size = 3", p=p)  # unknown OR true
    assert not selects("Color = 'red' AND Size = 3", p=p)  # unknown AND true is unknown
    assert not selects("Color = 'red' AND Size = 4", p=p)
    assert selects("NOT (Color = 'red' AND Size = 4)", p=p)  # unknown AND false is false


def test_not_binds_tighter_than_and_and_and_tighter_than_or() -> None:
    p = props(A=1, B=2, C=3)
    assert selects("A = 9 AND B = 9 OR C = 3", p=p)  # (A AND B) OR C
    assert not selects("A = 9 AND (B = 9 OR C = 3)", p=p)
    assert selects("NOT A = 9 AND B = 2", p=p)


def test_arithmetic_follows_precedence_and_exact_division_truncates() -> None:
    p = props(N=7, X=2.5)
    assert selects("N + 2 * 3 = 13", p=p)
    assert selects("(N + 2) * 3 = 27", p=p)
    assert selects("N / 2 = 3", p=p)
    assert selects("-N / 2 = -3", p=p)
    assert selects("X * 2 = 5.0", p=p)
    assert selects("N - -1 = 8", p=p)
    assert not selects("N / 0 = 0", p=p)  # division by zero is unknown
    assert selects("1.5E1 = 15", p=p)


def test_between_includes_its_ends_and_not_between_excludes_them() -> None:
    assert selects("Size BETWEEN 1 AND 3", p=props(Size=3))
    assert selects("Size BETWEEN 1 AND 3", p=props(Size=1))
    assert not selects("Size NOT BETWEEN 1 AND 3", p=props(Size=2))
    assert selects("Size NOT BETWEEN 1 AND 3", p=props(Size=4))
    assert not selects("Size NOT BETWEEN 1 AND 3", p=None)


def test_in_matches_a_member_of_the_list() -> None:
    assert selects("Color IN ('red', 'green')", p=props(Color="green"))
    assert not selects("Color IN ('red', 'green')", p=props(Color="blue"))
    assert selects("Color NOT IN ('red', 'green')", p=props(Color="blue"))
    assert not selects("Color NOT IN ('red')", p=None)  # NULL NOT IN (...) is unknown
    assert selects("Size IN (1, -2)", p=props(Size=-2))


def test_like_underscore_is_one_character_percent_any_run_and_escape_quotes_them() -> None:
    assert selects("Code LIKE 'A_C%'", p=props(Code="ABCDEF"))
    assert not selects("Code LIKE 'A_C%'", p=props(Code="ACDEF"))
    assert selects("Code LIKE '100!%' ESCAPE '!'", p=props(Code="100%"))
    assert not selects("Code LIKE '100!%' ESCAPE '!'", p=props(Code="1000"))
    assert selects("Code NOT LIKE 'x%'", p=props(Code="abc"))
    assert not selects("Code LIKE '%'", p=props(Code=5))  # LIKE of a number: unknown


def test_a_comparison_with_an_expression_reads_the_message_on_both_sides() -> None:
    p = props(A=3, B=2, C=1, T=True)
    assert selects("A = B + C", p=p) and selects("A = (B + 1)", p=p) and selects("T = (B = 2)", p=p)
    assert not selects("A = B", p=p) and selects("A = 3") is False
    assert selects("A = 3.0", p=p) and selects("3 = A", p=p)


def test_values_of_types_that_cannot_be_compared_compare_false() -> None:
    assert not selects("Size = '3'", p=props(Size=3))
    assert selects("NOT (Size = '3')", p=props(Size=3))
    assert not selects("Flag = 1", p=props(Flag=True))  # a boolean is not a number


def test_boolean_properties_and_literals_are_conditions() -> None:
    assert selects("Urgent", p=props(Urgent=True))
    assert not selects("Urgent", p=props(Urgent=False))
    assert selects("Urgent = TRUE", p=props(Urgent=True))
    assert selects("NOT Urgent", p=props(Urgent=False))
    assert not selects("Urgent", p=props(Urgent="yes"))  # a non-boolean value in a condition is unknown


def test_keywords_are_case_insensitive_and_names_are_not() -> None:
    assert selects("color is null and SIZE between 1 And 2", p=props(Color="red", SIZE=2))
    assert not selects("color = 'red'", p=props(Color="red"))


def test_byte_strings_compare_with_bytes_properties_and_mqbyte_fields() -> None:
    assert selects("Token = 0x2F1C", p=props(Token=b"\x2f\x1c"))
    assert selects("Root.MQMD.CorrelId = 0X" + "AB" * 24, m=md(CorrelId=b"\xab" * 24))
    assert not selects("Root.MQMD.CorrelId = 0x" + "AB" * 23, m=md(CorrelId=b"\xab" * 24))


def test_usr_folder_prefix_names_the_same_property() -> None:
    assert selects("usr.Color = 'red'", p=props(Color="red"))
    assert selects("Color = 'red'", p=props(Color="red"))


def test_root_mqmd_fields_select_on_the_message_descriptor() -> None:
    m = md(Priority=7, Format=b"MQSTR   ", UserIdentifier=b"app         ", Persistence=1)
    assert selects("Root.MQMD.Priority > 5", m=m)
    assert selects("Root.MQMD.Format = 'MQSTR'", m=m)  # MQCHAR fields without their trailing blanks
    assert selects("Root.MQMD.UserIdentifier = 'app' AND Root.MQMD.Persistence = 1", m=m)


def test_jms_names_map_onto_mqmd_fields_as_ibm_maps_them() -> None:
    m = md(Priority=4, Persistence=1, CorrelId=b"\xab" * 24, BackoutCount=2, MsgFlags=C.MQMF_LAST_MSG_IN_GROUP)
    assert selects("JMSPriority = 4 AND JMSDeliveryMode = 'PERSISTENT'", m=m)
    assert selects("JMSCorrelationID = 'ID:" + "ab" * 24 + "'", m=m)
    assert selects("JMSXDeliveryCount = 3 AND JMSRedelivered", m=m)
    assert selects("JMSXUserID = 'app' AND JMS_IBM_Last_Msg_In_Group", m=m)
    # PutDate 2026-12-07, PutTime 10:20:30.40 GMT in milliseconds since 1970
    assert selects("JMSTimestamp = 1796638830400", m=m)
    assert selects("JMSType = 'order'", m=m, p={"mcd.Type": (STRING, "order")})
    assert not selects("JMSType = 'order'", m=m, p=None)
    assert parse("JMSXDeliveryCount > 1").live and not parse("JMSPriority > 1").live
    assert parse("Root.MQMD.BackoutCount > 1").live


# -- errors --------------------------------------------------------------------------------------------------
def test_a_syntax_error_is_2459_with_the_offset_where_parsing_stopped() -> None:
    assert syntax_error("Color = ").offset == 8
    assert syntax_error("Color == 'red'").offset == 7
    assert syntax_error("Color = 'red").offset == 8
    assert syntax_error("Color = 'red' Size").offset == 14
    e = syntax_error("(A = 1")
    assert e.offset == 6 and "offset 6" in str(e)


@pytest.mark.parametrize(
    "text",
    [
        "",  # nothing
        "Color = 'red' AND",
        "Color LIKE 5",
        "'a' < 'b'",  # strings compare with = and <> only
        "Size + 'a' = 1",
        "Size IN ()",
        "Size IN (Other)",
        "Code LIKE 'a' ESCAPE 'xy'",
        "Code LIKE 'a!' ESCAPE '!'",
        "Root.MQMD.NoSuchField = 1",
        "JMSNoSuchName = 1",
        "NULL = 1",
        "Size = 0x1",  # a byte string is pairs of hex digits
        "Size = 3a",
        "Color # 'red'",
        "5",  # a value, not a condition
        "NOT 5",
    ],
)
def test_text_the_grammar_refuses_is_a_syntax_error(text: str) -> None:
    syntax_error(text)


def test_selecting_on_message_content_is_selection_not_available_2551() -> None:
    # IBM: without an extended message selection provider, a selector it cannot evaluate is
    # MQRC_SELECTION_NOT_AVAILABLE
    with pytest.raises(SelectorError) as ei:
        parse("Color = 'red' AND Root.MQBody.Order.Total > 5")
    assert ei.value.reason == C.MQRC_SELECTION_NOT_AVAILABLE and ei.value.offset == 18


def test_nesting_deeper_than_the_parser_takes_is_a_syntax_error_not_a_crash() -> None:
    assert parse("(" * 50 + "A = 1" + ")" * 50).matches(md(), props(A=1))
    for text in ("(" * 3000 + "A = 1" + ")" * 3000, "NOT " * 2000 + "A", "A = " + "-" * 3000 + "1"):
        assert 0 < syntax_error(text).offset < len(text)
    # a long chain of operators (10,240 characters of them) is evaluated in a loop, not by recursion
    long_sum = "A = " + "+".join(["1"] * 3000)
    assert parse(long_sum).matches(md(), props(A=3000))
    assert parse("A = 3000 AND " + " AND ".join(["A > 0"] * 1000)).matches(md(), props(A=3000))


def test_a_selection_string_longer_than_10240_bytes_is_2519() -> None:
    exact = "A = '" + "x" * (MQ_SELECTOR_LENGTH - 6) + "'"
    assert len(exact) == MQ_SELECTOR_LENGTH
    parse(exact)
    with pytest.raises(SelectorError) as ei:
        parse(exact[:-1] + "x'")
    assert ei.value.reason == C.MQRC_SELECTION_STRING_ERROR


def test_a_selector_naming_nothing_of_a_message_and_not_true_is_always_false_2504() -> None:
    # Selection behavior: "If a selection string resolves to FALSE before any message properties are considered,
    # a reason code of MQRC_SELECTOR_ALWAYS_FALSE" is returned on the call that presented it
    for text in ("1 = 2", "TRUE = FALSE", "NOT TRUE"):
        with pytest.raises(SelectorError) as ei:
            parse(text)
        assert ei.value.reason == C.MQRC_SELECTOR_ALWAYS_FALSE
    assert parse("TRUE <> FALSE").matches(md(), None)


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet="AB.'()=<>+-*/,%_ 0123456789xXeE" + "NOTANDORINLIKEISNULLBETWEEN", max_size=40))
def test_any_text_either_parses_or_is_refused_with_an_ibm_reason(text: str) -> None:
    try:
        s = parse(text)
    except SelectorError as e:
        assert e.reason in (C.MQRC_SELECTOR_SYNTAX_ERROR, C.MQRC_SELECTOR_ALWAYS_FALSE, C.MQRC_SELECTION_NOT_AVAILABLE)
        assert e.reason != C.MQRC_SELECTOR_SYNTAX_ERROR or 0 <= e.offset <= len(text)
        return
    assert s.matches(md(), props(A=1, B="x")) in (True, False)
