"""The thread of a member that publishes its counts of uncommitted puts on shared queues (the other members'
CURDEPTH and MAXDEPTH count them through it) does not stop silently when it fails of a defect of its own: the
failure is written to the member's error log as an AMQ entry, and the publication goes on.

Rules: constants.md / IBM: CurrentQDepth counts a put in a unit of work at once ("CURDEPTH ... includes messages
put in syncpoint not yet committed"), on a shared queue for every queue manager of the group
(reference/queue-sharing-groups.md); docs/administration.md: a queue manager records its problems in
errors/AMQERR01.LOG, as IBM MQ does (AMQ6125E: "An internal error has occurred").

Real member processes, a real PostgreSQL. QMA runs with a defect injected in its publisher's first two passes
(``SYNCPOINT_QSG_DEFECT``, ``store._qsg_member._defect_point``); its uncommitted put must still reach QMB's
CURDEPTH, and QMA's error log must say what failed.
"""

from __future__ import annotations

from pathlib import Path

import syncpoint
from waiting import wait_until

BOUND = 60.0  # seconds (a bound for a loaded machine, not the design's time: a publication is ~10 ms)


def error_log(home: Path, qmgr: str) -> str:
    path = home / "qmgrs" / qmgr / "errors" / "AMQERR01.LOG"
    return path.read_text() if path.exists() else ""


def test_a_defect_in_the_count_publisher_is_logged_and_the_other_members_still_count_the_uncommitted_puts(group):
    group.add("QMB")
    assert group.create("QMA").returncode == 0
    group.start("QMA", env={"SYNCPOINT_QSG_DEFECT": "publish:2"})
    a = syncpoint.connect("QMA")
    a.admin("define", "QLOCAL", "BIG", {"QSGDISP": "SHARED", "MAXDEPTH": 999_999_999})  # no statement at the put
    b = syncpoint.connect("QMB")
    qa = a.open("BIG")
    qa.put(b"uncommitted", syncpoint=True)  # its count: published by QMA's thread, which fails twice first
    qb = b.open("BIG")
    wait_until(lambda: qb.depth == 1, "QMB counting QMA's uncommitted put (the publisher going on)", BOUND)
    log = error_log(group.home, "QMA")
    assert log.count("AMQ6125E") == 2, log
    assert "publication of its counts of uncommitted puts on shared queues failed" in log
    assert "RuntimeError" in log  # what failed
    a.backout()
    wait_until(lambda: qb.depth == 0, "QMB's count of QMA's put ending with its backout", BOUND)
    a.disconnect()
    b.disconnect()
    group.end("QMA")
    group.end("QMB")
