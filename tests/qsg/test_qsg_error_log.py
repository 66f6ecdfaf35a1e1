"""The error log tells the story of a queue-sharing group's recovery (issue 33 item 4): the member that recovers a
failed peer writes IBM's peer-recovery entries (z/OS CSQE011I recovery started, CSQE013I completed, with what it
backed out), and a member that settles its units of work in doubt at its restart writes IBM's restart counts
(CSQR004I: IN COMMIT for those its log had decided, INDOUBT for those it had not). RESOLVE INDOUBT's entries
(CSQV414I / CSQV415I) are checked in test_qsg_indoubt_resolve.py. Real members, real PostgreSQL."""

from __future__ import annotations

import pytest
from qsg_members import alive, member_session
from test_qsg_indoubt_resolve import error_log

import syncpoint
from syncpoint.mqi import MQMIError
from waiting import wait_until


def test_peer_recovery_and_the_restarts_in_doubt_settlement_are_written_to_the_error_logs(group):
    group.add("QMB")
    assert group.create("QMA").returncode == 0
    group.start("QMA", env={"SYNCPOINT_QSG_CRASH": "decided"})  # QMA dies after its decision is durable
    b = syncpoint.connect("QMB")
    for q in ("REQUESTS", "WORK"):
        b.admin("define", "QLOCAL", q, {"QSGDISP": "SHARED"})
    b.open("REQUESTS").put(b"request", persistent=True)
    b.open("WORK").put(b"work", persistent=True)
    a = syncpoint.connect("QMA")
    a.admin("define", "QLOCAL", "REPLIES")
    other = syncpoint.connect("QMA")  # a second application of QMA with a get in flight: peer recovery's work
    assert other.open("WORK").get(syncpoint=True).data == b"work"
    pid = group.pid("QMA")
    assert a.open("REQUESTS").get(syncpoint=True).data == b"request"
    a.open("REPLIES").put(b"reply", syncpoint=True, persistent=True)
    with pytest.raises(MQMIError):
        a.commit()  # the member dies inside it
    wait_until(lambda: not alive(pid), "QMA ending at its crash point", timeout=60)
    wait_until(lambda: member_session(group.url, "QMA") is None, "QMB's peer recovery of QMA", timeout=60)

    log_b = error_log(group, "QMB")
    started = log_b.find("CSQE011I: Recovery phase 1 started for structure SPG connection name QMA")
    completed = log_b.find("CSQE013I: Recovery phase 1 completed for structure SPG connection name QMA")
    assert 0 <= started < completed, log_b
    assert "1 messages of its units of work in flight on shared queues were backed out" in log_b[completed:]
    assert "QMgr(QMB)" in log_b[:started] and log_b[completed:].count("-" * 79) >= 1  # IBM's entry layout

    group.start("QMA")  # its restart commits the unit of work its log had decided
    log_a = error_log(group, "QMA")
    assert "CSQR004I: RESTART - UR COUNTS - IN COMMIT=1, INDOUBT=0, INFLIGHT=0, IN BACKOUT=0" in log_a, log_a
    a = syncpoint.connect("QMA")
    assert a.open("REPLIES").get().data == b"reply"
    assert b.open("WORK").get().data == b"work"  # backed out by the peer: available again
    a.disconnect()
    b.disconnect()
