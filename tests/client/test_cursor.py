"""``Queue.get_under_cursor()`` on a queue opened without options (issue "Tried as a new user would", item 8: it
needed undocumented open options).

IBM, MQGMO_MSG_UNDER_CURSOR: "Retrieve the message pointed to by the browse cursor ... the queue must be opened
with MQOO_BROWSE and one of the MQOO_INPUT_* options"; MQRC_NO_MSG_UNDER_CURSOR (2034) when the cursor is on no
available message. reference/constants.md.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

import syncpoint
from syncpoint.client import EmbeddedQueueManager, QueueManager
from syncpoint.mqi import MQMIError
from syncpoint.mqi import constants as C


def reason(call: Callable[[], object]) -> int:
    with pytest.raises(MQMIError) as e:
        call()
    return e.value.reason


def test_get_under_cursor_removes_the_message_the_last_browse_returned(qm: QueueManager) -> None:
    q = qm.open("Q1")
    for x in (b"1", b"2", b"3"):
        q.put(x)
    assert q.browse(first=True).data == b"1"
    assert q.browse().data == b"2"
    assert q.get_under_cursor().data == b"2"
    assert [m.data for m in q.browse_all()] == [b"1", b"3"]
    assert q.get_under_cursor().data == b"3"  # browse_all left the cursor on its last message
    assert reason(q.get_under_cursor) == C.MQRC_NO_MSG_UNDER_CURSOR  # already got
    assert q.depth == 1


def test_get_under_cursor_before_any_browse_is_no_msg_under_cursor(qm: QueueManager) -> None:
    q = qm.open("Q1")
    q.put(b"1")
    assert reason(q.get_under_cursor) == C.MQRC_NO_MSG_UNDER_CURSOR
    assert q.depth == 1


def test_get_under_cursor_of_a_locked_browse_and_in_a_unit_of_work(qm: QueueManager) -> None:
    q = qm.open("Q1")
    q.put(b"1")
    q.put(b"2")
    assert q.browse(first=True, lock=True).data == b"1"
    assert q.get_under_cursor(syncpoint=True).data == b"1"
    qm.backout()
    assert q.get().backout_count == 1


def test_get_under_cursor_after_another_connection_took_the_message(
    qm: QueueManager, connect: Callable[..., QueueManager]
) -> None:
    q = qm.open("Q1")
    q.put(b"1")
    q.put(b"2")
    assert q.browse(first=True).data == b"1"
    assert connect().open("Q1").get().data == b"1"
    assert reason(q.get_under_cursor) == C.MQRC_NO_MSG_UNDER_CURSOR
    assert q.depth == 1


def test_explicit_options_without_browse_or_input_name_the_missing_option(qm: QueueManager) -> None:
    qm.open("Q1").put(b"1")
    q = qm.open("Q1", C.MQOO_BROWSE)
    q.browse(first=True)
    assert reason(q.get_under_cursor) == C.MQRC_NOT_OPEN_FOR_INPUT
    q2 = qm.open("Q1", C.MQOO_INPUT_SHARED | C.MQOO_BROWSE)
    q2.browse(first=True)
    assert q2.get_under_cursor().data == b"1"


def test_get_under_cursor_over_the_server(embedded: EmbeddedQueueManager, serve: Callable[..., object]) -> None:
    srv = serve(embedded)
    qm = syncpoint.connect("QM1", unix_path=srv.unix_path)  # type: ignore[attr-defined]
    qm.admin("define", "QLOCAL", "Q1")
    q = qm.open("Q1")
    q.put_many([b"1", b"2"])
    assert [m.data for m in q.browse_all()] == [b"1", b"2"]
    assert q.browse(first=True).data == b"1"
    assert q.get_under_cursor().data == b"1"
    assert q.get().data == b"2"
    qm.disconnect()
