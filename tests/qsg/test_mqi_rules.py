"""The MQI rules of a private queue, on a shared queue (issue 20, item 2): two members in this process (each an
in-process host with its private store in memory) sharing one real PostgreSQL database, on a fake clock.

References: constants.md (MQGMO_* / MQMO_* options and their reasons); seed 002 (a get that meets an expired
message discards it); reference/queue-sharing-groups.md ("MAXMSGL applies", units of work).
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from qsg_members import member, reason

import syncpoint
from syncpoint.engine import FakeClock
from syncpoint.mqi import MQMIError
from syncpoint.mqi import constants as C


@pytest.fixture
def pair(postgres_url: str) -> Iterator[tuple[syncpoint.QueueManager, syncpoint.QueueManager, FakeClock]]:
    clock = FakeClock()
    hosts = [member("QMA", postgres_url, clock), member("QMB", postgres_url, clock)]
    a = syncpoint.connect("QMA", embedded=hosts[0])
    b = syncpoint.connect("QMB", embedded=hosts[1])
    a.admin("define", "QLOCAL", "SQ", {"QSGDISP": "SHARED", "MAXMSGL": 1000})
    a.admin("define", "QLOCAL", "FIFO.SQ", {"QSGDISP": "SHARED", "MSGDLVSQ": C.MQMDS_FIFO})
    a.admin("define", "QLOCAL", "PRIVATE.Q")
    a.admin("define", "QLOCAL", "BYCORREL.SQ", {"QSGDISP": "SHARED", "INDXTYPE": C.MQIT_CORREL_ID})
    yield a, b, clock
    for h in hosts:
        h.close(abnormal=True)


def test_msgdlvsq_fifo_ignores_priority_across_members(pair):
    a, b, _ = pair
    a.open("FIFO.SQ").put(b"first", priority=1)
    b.open("FIFO.SQ").put(b"second", priority=9)
    q = a.open("FIFO.SQ")
    assert [q.get().data, q.get().data] == [b"first", b"second"]


def test_get_by_msgid_and_by_correlid(pair):
    # reference/queue-sharing-groups.md: by CorrelId needs INDXTYPE(CORRELID), by MsgId INDXTYPE(MSGID) or NONE
    a, b, _ = pair
    qa = a.open("SQ")
    qa.put(b"one")
    md = qa.put(b"two")
    qb = b.open("SQ")
    assert qb.get(msg_id=md.MsgId).data == b"two"
    assert reason(lambda: qb.get(msg_id=md.MsgId)) == C.MQRC_NO_MSG_AVAILABLE
    ca = a.open("BYCORREL.SQ")
    ca.put(b"one", correl_id=b"C1")
    ca.put(b"two", correl_id=b"C2")
    cb = b.open("BYCORREL.SQ")
    assert cb.get(correl_id=b"C2").data == b"two"
    assert reason(lambda: cb.get(correl_id=b"C2")) == C.MQRC_NO_MSG_AVAILABLE
    assert cb.get(correl_id=b"C1").data == b"one"


def test_a_truncated_get_without_accept_leaves_the_message_and_with_accept_removes_it(pair):
    a, b, _ = pair
    a.open("SQ").put(b"0123456789")
    qb = b.open("SQ")
    assert reason(lambda: qb.get(max_length=4)) == C.MQRC_TRUNCATED_MSG_FAILED
    assert qb.depth == 1
    # the API raises the warning: MQRC_TRUNCATED_MSG_ACCEPTED, the message is gone
    assert reason(lambda: qb.get(max_length=4, accept_truncated=True)) == C.MQRC_TRUNCATED_MSG_ACCEPTED
    assert qb.depth == 0


def test_maxmsgl_of_the_shared_queue_applies(pair):
    a, _, _ = pair
    assert reason(lambda: a.open("SQ").put(b"x" * 1001)) == C.MQRC_MSG_TOO_BIG_FOR_Q


def test_an_expired_message_is_discarded_by_the_get_that_meets_it(pair):
    # seed 002: a get that would have returned an expired message discards it
    a, b, clock = pair
    a.open("SQ").put(b"short-lived", expiry=1.0)
    a.open("SQ").put(b"lasting")
    clock.advance(2.0)
    qb = b.open("SQ")
    assert qb.get().data == b"lasting"
    assert qb.depth == 0


def test_the_remaining_expiry_is_shown_by_a_get_on_another_member(pair):
    a, b, clock = pair
    a.open("SQ").put(b"m", expiry=10.0)
    clock.advance(4.0)
    assert b.open("SQ").get().md.Expiry == 60


def test_syncpoint_if_persistent_takes_a_persistent_message_into_the_unit_of_work(pair):
    a, b, _ = pair
    a.open("SQ").put(b"p", persistent=True)
    a.open("SQ").put(b"np", persistent=False)
    qb = b.open("SQ")
    from syncpoint.mqi import MQGMO

    gmo = MQGMO()
    gmo.Options = C.MQGMO_SYNCPOINT_IF_PERSISTENT | C.MQGMO_FAIL_IF_QUIESCING
    assert qb.get(gmo=gmo).data == b"p"
    gmo = MQGMO()
    gmo.Options = C.MQGMO_SYNCPOINT_IF_PERSISTENT
    assert qb.get(gmo=gmo).data == b"np"  # not persistent: outside the unit of work
    b.backout()
    assert a.open("SQ").get().data == b"p"  # only the persistent one came back


def test_a_backed_out_get_comes_back_to_its_place_with_backout_count_plus_one(pair):
    a, b, _ = pair
    qa = a.open("SQ")
    qa.put(b"first")
    qa.put(b"second")
    qb = b.open("SQ")
    assert qb.get(syncpoint=True).data == b"first"
    b.backout()
    again = qa.get()
    assert (again.data, again.md.BackoutCount) == (b"first", 1)


def test_a_unit_of_work_over_private_and_shared_queues_commits_both(pair):
    # issue 20, item 3: "a put to a private queue and a get from a shared queue in one unit of work both happen"
    a, b, _ = pair
    b.open("SQ").put(b"request", persistent=True)
    assert a.open("SQ").get(syncpoint=True).data == b"request"
    a.open("PRIVATE.Q").put(b"reply", syncpoint=True, persistent=True)
    a.open("SQ").put(b"forwarded", syncpoint=True)
    a.commit()
    assert a.open("PRIVATE.Q").get().data == b"reply"
    qb = b.open("SQ")
    assert qb.get().data == b"forwarded"
    assert qb.depth == 0


def test_a_unit_of_work_over_private_and_shared_queues_backs_out_both(pair):
    # "... or neither"
    a, b, _ = pair
    b.open("SQ").put(b"request", persistent=True)
    a.open("PRIVATE.Q").put(b"reply", syncpoint=True)
    assert a.open("SQ").get(syncpoint=True).data == b"request"
    a.backout()
    assert a.open("PRIVATE.Q").depth == 0
    again = b.open("SQ").get()
    assert (again.data, again.md.BackoutCount) == (b"request", 1)


def test_put_inhibited_and_get_inhibited_apply_to_a_shared_queue(pair):
    a, _, _ = pair
    a.admin("alter", "QLOCAL", "SQ", {"PUT": C.MQQA_PUT_INHIBITED})
    assert reason(lambda: a.open("SQ").put(b"m")) == C.MQRC_PUT_INHIBITED
    a.admin("alter", "QLOCAL", "SQ", {"PUT": C.MQQA_PUT_ALLOWED, "GET": C.MQQA_GET_INHIBITED})
    a.open("SQ").put(b"m")
    assert reason(lambda: a.open("SQ").get()) == C.MQRC_GET_INHIBITED


def test_alter_of_a_shared_queue_on_one_member_applies_on_the_others(pair):
    # the definition of a shared queue is the group's: PUT(DISABLED) on QMA stops puts on QMB (within a second)
    a, b, _ = pair
    qb = b.open("SQ")
    a.admin("alter", "QLOCAL", "SQ", {"PUT": C.MQQA_PUT_INHIBITED})
    from waiting import wait_until

    def refused() -> bool:
        try:
            qb.put(b"m")
        except MQMIError as e:
            return e.reason == C.MQRC_PUT_INHIBITED
        return False

    wait_until(refused, "QMB seeing QMA's ALTER … PUT(DISABLED)", timeout=30)


def test_input_exclusive_is_exclusive_across_the_group(pair):
    # reference/queue-sharing-groups.md: what a member holds open (an MQOO_INPUT_EXCLUSIVE open) is the group's
    a, b, _ = pair
    excl = a.open("SQ", C.MQOO_INPUT_EXCLUSIVE)
    assert reason(lambda: b.open("SQ", C.MQOO_INPUT_SHARED)) == C.MQRC_OBJECT_IN_USE
    excl.close()
    shared_b = b.open("SQ", C.MQOO_INPUT_SHARED)
    assert reason(lambda: a.open("SQ", C.MQOO_INPUT_EXCLUSIVE)) == C.MQRC_OBJECT_IN_USE
    shared_a = a.open("SQ", C.MQOO_INPUT_SHARED)  # shared opens on both members go together
    shared_a.close()
    shared_b.close()
    a.open("SQ", C.MQOO_INPUT_EXCLUSIVE).close()
