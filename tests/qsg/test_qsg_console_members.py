"""The console's queue-manager page lists the members of its queue-sharing group (issue 37, item 3: "queue managers
(members of a group …)"), as z/OS's DISPLAY GROUP does: each member's name and status, ACTIVE while it runs (its
session holds its liveness lock in the shared database) or INACTIVE, and when its latest session started. Real
PostgreSQL, members in this process on a fake clock."""

from __future__ import annotations

import time

from qsg_members import member
from tests.waiting import wait_until

import syncpoint
from syncpoint.console import _data
from syncpoint.engine import FakeClock
from syncpoint.store import create_member


def test_the_queue_manager_page_lists_the_groups_members_with_their_status(postgres_url):
    before = time.time()
    qma = member("QMA", postgres_url, FakeClock())
    qmb = member("QMB", postgres_url, FakeClock())
    create_member(postgres_url, "SPG", "QMC")  # a member that never ran
    try:
        qm = syncpoint.connect("QMA", embedded=qma)
        page = _data.qmgr_overview(qm)
        assert page["queueSharingGroup"] == "SPG"
        by_name = {m["name"]: m for m in page["members"]}
        assert [m["name"] for m in page["members"]] == ["QMA", "QMB", "QMC"]
        assert by_name["QMA"]["status"] == by_name["QMB"]["status"] == "ACTIVE"
        assert by_name["QMC"] == {"name": "QMC", "status": "INACTIVE", "started": None}
        assert before - 5 <= by_name["QMB"]["started"] <= time.time() + 5  # the database's clock, UTC seconds
        qmb.close()  # QMB ends: its lock is free once PostgreSQL has seen its connections close
        qmb = None

        def status_of_qmb() -> str:
            return str({m["name"]: m["status"] for m in _data.qmgr_overview(qm)["members"]}["QMB"])

        wait_until(lambda: status_of_qmb() == "INACTIVE", "QMB shown INACTIVE once it ended")
        qm.disconnect()
    finally:
        qma.close(abnormal=True)
        if qmb is not None:
            qmb.close(abnormal=True)


def test_a_queue_manager_in_no_group_lists_no_members() -> None:
    from syncpoint.client import memory_queue_manager

    e = memory_queue_manager("QM1")
    try:
        page = _data.qmgr_overview(syncpoint.connect("QM1", embedded=e))
        assert page["queueSharingGroup"] == "" and page["members"] == []
    finally:
        e.close()
