"""The administrative verbs MQSC, PCF and the tools call (issue 24, defect 8): a bad keyword is an MQI reason
naming it, and the message list shows what a browse shows."""

from __future__ import annotations

import pytest

from syncpoint.client import QueueManager
from syncpoint.engine import FakeClock
from syncpoint.mqi import MQMD, MQMIError
from syncpoint.mqi import constants as C


def test_qm_attr_of_an_unknown_keyword_is_a_selector_error_naming_it(qm: QueueManager) -> None:
    # issue 24: "the admin verb qm_attr with an unknown keyword answers 2195 (KeyError) instead of a proper
    # reason"; MQINQ answers MQRC_SELECTOR_ERROR for an attribute the object does not have
    with pytest.raises(MQMIError) as ei:
        qm.admin("qm_attr", "NOSUCHATTR")
    assert ei.value.reason == C.MQRC_SELECTOR_ERROR
    assert "NOSUCHATTR" in str(ei.value)
    assert qm.admin("qm_attr", "MAXUMSGS") > 0  # a known one still answers


def test_messages_shows_the_backout_count_a_browse_shows(qm: QueueManager) -> None:
    # issue 24: "the admin verb messages shows BackoutCount 0 for a message that was backed out (a browse
    # shows 1)"
    q = qm.open("Q1")
    q.put(b"m")
    q.get(syncpoint=True)
    qm.backout()
    browsed = q.browse(first=True)
    listed = qm.admin("messages", "Q1")
    assert browsed.backout_count == 1
    assert [m.backout_count for m in listed] == [1]


def test_messages_shows_the_remaining_expiry_a_browse_shows(qm: QueueManager, clock: FakeClock) -> None:
    q = qm.open("Q1")
    q.put(b"m", md=MQMD(Expiry=100))
    clock.advance(3.0)
    assert q.browse(first=True).expiry == 70
    assert [m.expiry for m in qm.admin("messages", "Q1")] == [70]
