"""A member killed in the middle of a publication loses nothing and duplicates nothing (issue 34, item 1): the
publication, in syncpoint on QMA, has a copy for QMA's own subscription (a private queue) and one for the group
subscription QMB made on a shared queue (engine/_group_pubsub); its commit is two-phase (out of syncpoint too:
the queue manager's internal unit of work). QMA is killed inside it
(``SYNCPOINT_QSG_CRASH``, as tests/qsg/test_two_phase.py does): after the shared part is prepared, neither copy
may arrive; after the decision is durable, both arrive, once, when QMA restarts. Real member processes on a real
PostgreSQL."""

from __future__ import annotations

import contextlib

import pytest
from qsg_members import alive, member_session

import syncpoint
from syncpoint.mqi import MQMIError
from waiting import wait_until


# in syncpoint, killed before the decision; out of syncpoint (the queue manager's internal unit of work, as IBM's
# "Publications under syncpoint" under PMSGDLV(ALLDUR)), killed after it
@pytest.mark.parametrize(("crash", "delivered", "in_syncpoint"), [("prepared", False, True), ("decided", True, False)])
def test_a_member_killed_mid_publication_delivers_every_copy_once_or_none(group, crash, delivered, in_syncpoint):
    group.add("QMB")
    assert group.create("QMA").returncode == 0
    group.start("QMA", env={"SYNCPOINT_QSG_CRASH": crash})
    b = syncpoint.connect("QMB")
    b.admin("define", "QLOCAL", "ORDERS.SQ", {"QSGDISP": "SHARED"})
    b.admin("define_sub", "ORDERS.GROUP", {"TOPICSTR": "orders/#", "DEST": "ORDERS.SQ"})  # QMB's, on the group
    a = syncpoint.connect("QMA")
    a.admin("define", "QLOCAL", "ORDERS.AUDIT")
    a.admin("define_sub", "ORDERS.LOCAL", {"TOPICSTR": "orders/#", "DEST": "ORDERS.AUDIT"})  # QMA's own
    pid = group.pid("QMA")
    with contextlib.suppress(MQMIError):  # the member dies inside the commit (its answer may come first)
        a.publish("orders/new", "order 1", persistent=True, syncpoint=in_syncpoint)
        if in_syncpoint:
            a.commit()
    wait_until(lambda: not alive(pid), "QMA ending at its crash point", timeout=60)
    wait_until(lambda: member_session(group.url, "QMA") is None, "QMB's peer recovery of QMA", timeout=60)

    group.start("QMA")  # its restart settles the unit of work by the decision in its own store
    a = syncpoint.connect("QMA")
    expected = ["order 1"] if delivered else []
    assert [m.text for m in b.open("ORDERS.SQ").messages()] == expected
    assert [m.text for m in a.open("ORDERS.AUDIT").messages()] == expected
    if not delivered:  # the publisher saw its commit fail: publishing again delivers it once to each
        a.publish("orders/new", "order 1", persistent=True)
        assert [m.text for m in b.open("ORDERS.SQ").messages()] == ["order 1"]
        assert [m.text for m in a.open("ORDERS.AUDIT").messages()] == ["order 1"]
    a.disconnect()
    b.disconnect()
