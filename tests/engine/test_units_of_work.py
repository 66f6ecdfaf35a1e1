"""Units of work, backout counts and skip-backout (seed 000_d5eead655aeb3bc8.txt)."""

from __future__ import annotations

import pytest

from syncpoint.client import QueueManager
from syncpoint.mqi import MQMIError
from syncpoint.mqi import constants as C


def reason_of(fn, *a, **kw) -> int:
    with pytest.raises(MQMIError) as ei:
        fn(*a, **kw)
    return ei.value.reason


def test_syncpoint_put_is_invisible_to_others_until_commit(qm: QueueManager, connect) -> None:
    other = connect().open("Q1")
    qm.open("Q1").put(b"x", syncpoint=True)
    assert reason_of(other.get) == C.MQRC_NO_MSG_AVAILABLE
    assert reason_of(other.browse) == C.MQRC_NO_MSG_AVAILABLE
    qm.commit()
    assert other.get().data == b"x"


def test_syncpoint_get_is_invisible_to_others_and_removed_at_commit(qm: QueueManager, connect) -> None:
    q = qm.open("Q1")
    q.put(b"x")
    q.get(syncpoint=True)
    other = connect().open("Q1")
    assert reason_of(other.get) == C.MQRC_NO_MSG_AVAILABLE
    qm.commit()
    qm.backout()  # nothing left to back out
    assert reason_of(other.get) == C.MQRC_NO_MSG_AVAILABLE


def test_backout_reinstates_gets_with_backout_count_incremented_and_deletes_puts(qm: QueueManager) -> None:
    q = qm.open("Q1")
    q.put(b"old")
    assert q.get(syncpoint=True).backout_count == 0
    q.put(b"new", syncpoint=True)
    qm.backout()
    m = q.get(syncpoint=True)
    assert (m.data, m.backout_count) == (b"old", 1)
    qm.backout()
    m = q.get()
    assert (m.data, m.backout_count) == (b"old", 2)
    assert reason_of(q.get) == C.MQRC_NO_MSG_AVAILABLE  # the backed-out put is gone


def test_backed_out_message_returns_to_its_original_position(qm: QueueManager) -> None:
    q = qm.open("Q1")
    for x in (b"1", b"2", b"3"):
        q.put(x)
    q.get(syncpoint=True)
    q.get(syncpoint=True)
    qm.backout()
    assert [q.get().data for _ in range(3)] == [b"1", b"2", b"3"]


def test_curdepth_counts_uncommitted_puts_not_uncommitted_gets_and_uncom_shows_pending(qm: QueueManager) -> None:
    # IBM, CurrentQDepth: incremented by MQPUT and by backout of MQGET; decremented by MQGET and by backout of MQPUT
    q = qm.open("Q1")
    q.put(b"a")
    q.put(b"b", syncpoint=True)
    st = qm.admin("queue_status", "Q1")
    assert (st["CURDEPTH"], st["UNCOM"]) == (2, 1)
    q.get(syncpoint=True)
    st = qm.admin("queue_status", "Q1")
    assert (st["CURDEPTH"], st["UNCOM"]) == (1, 2)
    qm.backout()
    st = qm.admin("queue_status", "Q1")
    assert (st["CURDEPTH"], st["UNCOM"]) == (1, 0)


def test_maxumsgs_limits_a_unit_of_work_with_syncpoint_limit_reached(qm: QueueManager) -> None:
    qm.admin("alter_qmgr", {"MAXUMSGS": 3})
    q = qm.open("Q1")
    q.put(b"x")
    q.get(syncpoint=True)
    q.put(b"1", syncpoint=True)
    q.put(b"2", syncpoint=True)
    assert reason_of(q.put, b"3", syncpoint=True) == C.MQRC_SYNCPOINT_LIMIT_REACHED
    q.put(b"outside", syncpoint=False)  # not part of the unit of work
    assert reason_of(q.get, syncpoint=True) == C.MQRC_SYNCPOINT_LIMIT_REACHED
    qm.commit()
    q.put(b"3", syncpoint=True)


def test_normal_disconnect_commits(qm: QueueManager, connect) -> None:
    c = connect()
    c.open("Q1").put(b"x", syncpoint=True)
    c.disconnect()
    assert qm.open("Q1").get().data == b"x"


def test_abnormal_end_backs_out_and_ignores_skip_backout_mark(qm: QueueManager, connect) -> None:
    q = qm.open("Q1")
    q.put(b"marked")
    q.put(b"plain")
    c = connect()
    cq = c.open("Q1")
    cq.get(syncpoint=True, mark_skip_backout=True)
    cq.get(syncpoint=True)
    cq.put(b"uncommitted", syncpoint=True)
    c.transport.disconnect(abnormal=True)
    got = [q.get() for _ in range(2)]
    assert [(m.data, m.backout_count) for m in got] == [(b"marked", 1), (b"plain", 1)]
    assert reason_of(q.get) == C.MQRC_NO_MSG_AVAILABLE


def test_disconnect_closes_handles_and_open_counts_fall(qm: QueueManager, connect) -> None:
    c = connect()
    c.open("Q1", C.MQOO_INPUT_SHARED | C.MQOO_OUTPUT)
    assert qm.admin("queue_status", "Q1")["IPPROCS"] == 1
    c.disconnect()
    st = qm.admin("queue_status", "Q1")
    assert (st["IPPROCS"], st["OPPROCS"]) == (0, 0)


def test_syncpoint_if_persistent_puts_only_persistent_gets_in_the_unit_of_work(qm: QueueManager) -> None:
    from syncpoint.mqi import MQGMO

    q = qm.open("Q1")
    q.put(b"np", persistent=False)
    q.put(b"p", persistent=True, priority=0)
    gmo = MQGMO(Options=C.MQGMO_SYNCPOINT_IF_PERSISTENT)
    assert q.get(gmo=gmo).data == b"np"
    gmo = MQGMO(Options=C.MQGMO_SYNCPOINT_IF_PERSISTENT)
    assert q.get(gmo=gmo).data == b"p"
    qm.backout()
    m = q.get()
    assert (m.data, m.backout_count) == (b"p", 1)


# ----------------------------------------------------------------------------------------------------
# skip backout — seed 000_d5eead655aeb3bc8.txt
# ----------------------------------------------------------------------------------------------------
def test_mark_skip_backout_requires_syncpoint(qm: QueueManager) -> None:
    q = qm.open("Q1")
    q.put(b"x")
    from syncpoint.mqi import MQGMO

    assert reason_of(q.get, gmo=MQGMO(Options=C.MQGMO_MARK_SKIP_BACKOUT)) == C.MQRC_OPTIONS_ERROR
    assert q.depth == 1


def test_second_mark_in_one_unit_of_work_fails_and_changes_nothing(qm: QueueManager) -> None:
    # seed 000: "any further MQGET calls within the unit of work that specify MQGMO_MARK_SKIP_BACKOUT fail with
    # reason code MQRC_SECOND_MARK_NOT_ALLOWED"
    q = qm.open("Q1")
    for x in (b"1", b"2"):
        q.put(x)
    q.get(syncpoint=True, mark_skip_backout=True)
    with pytest.raises(MQMIError) as ei:
        q.get(syncpoint=True, mark_skip_backout=True)
    assert ei.value.reason == C.MQRC_SECOND_MARK_NOT_ALLOWED == 2062
    assert qm.admin("queue_status", "Q1")["UNCOM"] == 1
    assert q.get(syncpoint=True).data == b"2"  # "2" is still there, unmarked gets still allowed


def test_figure_12_skip_backout_sequence_step_by_step(qm: QueueManager, connect) -> None:
    """Seed 000, Figure 12: the ten steps of a get that skips backout."""
    qm.admin("define", "QLOCAL", "WORK.IN")
    qm.admin("define", "QLOCAL", "OTHER")
    qm.admin("define", "QLOCAL", "EXCEPTIONS")
    feeder = connect()
    feeder.open("WORK.IN").put(b"poison")
    feeder.open("OTHER").put(b"other-1")
    watcher = connect()

    # Step 1: initial processing, MQOPEN with an MQOO_INPUT_* option
    q = qm.open("WORK.IN", C.MQOO_INPUT_SHARED)
    other = qm.open("OTHER", C.MQOO_INPUT_SHARED | C.MQOO_OUTPUT)
    # Step 2: MQGET with MQGMO_SYNCPOINT and MQGMO_MARK_SKIP_BACKOUT (UOW1)
    m = q.get(syncpoint=True, mark_skip_backout=True)
    assert m.data == b"poison" and m.backout_count == 0
    # Step 3: other resource updates in UOW1, including a further MQGET without the mark, and a put
    assert other.get(syncpoint=True).data == b"other-1"
    other.put(b"side-effect", syncpoint=True)
    # Step 4 (the path not taken here is shown by test_skip_backout_commit_of_uow1_removes_the_message)
    # Step 5: some updates fail; the application requests backout
    qm.backout()
    # Step 6: the updates of step 3 are backed out
    w_other = watcher.open("OTHER")
    got = w_other.browse(first=True)
    assert (got.data, got.backout_count) == (b"other-1", 1)
    with pytest.raises(MQMIError):
        w_other.browse()  # the side-effect put is gone
    # Step 7: the marked get skipped backout and is part of a new unit of work UOW2: still not available
    assert reason_of(watcher.open("WORK.IN").browse, first=True) == C.MQRC_NO_MSG_AVAILABLE
    assert qm.admin("queue_status", "WORK.IN")["UNCOM"] == 1
    # Step 8: UOW2 does exception handling, e.g. an MQPUT to another queue
    qm.open("EXCEPTIONS").put(b"UOW1 backed out for poison", syncpoint=True)
    # Step 10: exception handling fails; the application backs out UOW2: the message is reinstated
    qm.backout()
    back = watcher.open("WORK.IN").browse(first=True)
    assert (back.data, back.backout_count) == (b"poison", 1)
    assert reason_of(watcher.open("EXCEPTIONS").browse, first=True) == C.MQRC_NO_MSG_AVAILABLE
    # ... it is now available to further MQGET calls by this or another application
    m = q.get(syncpoint=True, mark_skip_backout=True)
    assert m.backout_count == 1
    qm.backout()  # UOW1' backed out: the marked get moves to UOW2'
    qm.open("EXCEPTIONS").put(b"report", syncpoint=True)
    # Step 9: step 8 completes, the application commits UOW2: the message is removed from the queue
    qm.commit()
    assert reason_of(watcher.open("WORK.IN").browse, first=True) == C.MQRC_NO_MSG_AVAILABLE
    assert watcher.open("EXCEPTIONS").get().data == b"report"
    assert qm.admin("queue_status", "WORK.IN")["CURDEPTH"] == 0


def test_skip_backout_commit_of_uow1_removes_the_message(qm: QueueManager) -> None:
    # Figure 12, step 4: all updates complete and the application commits UOW1
    q = qm.open("Q1")
    q.put(b"m")
    q.get(syncpoint=True, mark_skip_backout=True)
    qm.commit()
    assert q.depth == 0
    qm.backout()
    assert q.depth == 0


def test_new_unit_of_work_after_skip_backout_may_mark_again(qm: QueueManager) -> None:
    q = qm.open("Q1")
    for x in (b"1", b"2"):
        q.put(x)
    q.get(syncpoint=True, mark_skip_backout=True)
    qm.backout()
    # UOW2 holds the first message unmarked: a new mark is allowed
    assert q.get(syncpoint=True, mark_skip_backout=True).data == b"2"
