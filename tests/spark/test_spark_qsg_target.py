"""Option ``members`` of the "syncpoint" data source: which members a shared queue is read through (no Spark
needed). Rule (PLAN, from the project brief): every bad input gets a clear error and loses nothing."""

from __future__ import annotations

import pytest

from syncpoint.spark import Target


def test_members_option_names_the_members_in_order_with_one_connection_each() -> None:
    t = Target.from_options({"members": "QMA, QMB", "host": "h1(1414),h2(1415)"})
    assert t.qmgr == "QMA" and t.members == ("QMA", "QMB")
    assert [(m.qmgr, m.host) for m in t.member_targets()] == [("QMA", "h1(1414)"), ("QMB", "h2(1415)")]
    assert Target.from_options(t.options()) == t  # the options a flow hands Spark describe the same target


def test_members_share_one_connection_or_home_when_one_is_given() -> None:
    t = Target.from_options({"qmgr": "QMB", "members": "QMA,QMB", "home": "/h"})
    assert [(m.qmgr, m.home, m.host) for m in t.member_targets()] == [("QMA", "/h", None), ("QMB", "/h", None)]


def test_a_host_list_that_does_not_match_the_members_is_refused_with_the_reason() -> None:
    with pytest.raises(ValueError, match="option host names 3 connections for 2 members"):
        Target.from_options({"members": "QMA,QMB", "host": "a(1),b(2),c(3)"})


def test_a_conname_list_without_members_stays_one_connection() -> None:
    # a single queue manager's CONNAME may list alternatives (the client reads the first): not members
    assert Target.from_options({"qmgr": "QM1", "host": "a(1),b(2)"}).host == "a(1),b(2)"
