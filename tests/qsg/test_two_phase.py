"""Units of work over private and shared queues commit atomically across a crash at any point (issue 20, item 3;
docs/queue-sharing-groups.md, "Units of work across private and shared queues").

The member is killed inside its commit at the two points that matter (``SYNCPOINT_QSG_CRASH``, see
``store._qsg_member._crash_point``): after the shared part is prepared and before the private commit (the
decision) is durable — neither part may happen; and after the decision is durable, before the shared part is
completed — both must. Meanwhile a peer's recovery must leave the unit of work in doubt alone.
"""

from __future__ import annotations

import pytest
from qsg_members import alive, held, member_session

import syncpoint
from syncpoint.mqi import MQMIError
from syncpoint.mqi import constants as C
from waiting import wait_until


@pytest.mark.parametrize(("crash", "committed"), [("prepared", False), ("decided", True)])
def test_a_member_killed_inside_a_two_phase_commit_keeps_both_parts_or_neither(group, crash, committed):
    group.add("QMB")
    assert group.create("QMA").returncode == 0
    group.start("QMA", env={"SYNCPOINT_QSG_CRASH": crash})
    b = syncpoint.connect("QMB")
    b.admin("define", "QLOCAL", "REQUESTS", {"QSGDISP": "SHARED"})
    b.open("REQUESTS").put(b"request", persistent=True)
    a = syncpoint.connect("QMA")
    a.admin("define", "QLOCAL", "REPLIES")
    pid = group.pid("QMA")
    assert a.open("REQUESTS").get(syncpoint=True).data == b"request"
    a.open("REPLIES").put(b"reply", syncpoint=True, persistent=True)
    with pytest.raises(MQMIError):
        a.commit()  # the member dies inside it
    wait_until(lambda: not alive(pid), "QMA ending at its crash point", timeout=60)

    # a peer notices the dead member and recovers it, leaving the unit of work in doubt locked
    wait_until(lambda: member_session(group.url, "QMA") is None, "QMB's peer recovery of QMA", timeout=60)
    assert held(group.url) == 1
    # the get in doubt is still an uncommitted get: not in CURDEPTH (IBM's CurrentQDepth, "decremented by
    # MQGET"; the private queue's rule, tests/engine/test_units_of_work.py), and no other get takes it
    assert b.open("REQUESTS").depth == 0
    with pytest.raises(MQMIError) as e:
        b.open("REQUESTS").get()
    assert e.value.reason == C.MQRC_NO_MSG_AVAILABLE

    group.start("QMA")  # its restart settles the unit of work by the decision in its own store
    a = syncpoint.connect("QMA")
    assert held(group.url) == 0
    if committed:
        assert a.open("REPLIES").get().data == b"reply"
        assert b.open("REQUESTS").depth == 0
    else:
        assert a.open("REPLIES").depth == 0
        again = b.open("REQUESTS").get()
        assert (again.data, again.md.BackoutCount) == (b"request", 1)
    a.disconnect()
    b.disconnect()
