"""A member's listener and notifier threads do not stop silently when they fail of a defect of their own: the
failure is written to the member's error log as an AMQ entry, and the thread goes on.

Rules: issue 20, item 4 (peer recovery: "when a member dies, another member backs out its in-flight units of
work ... within a bounded time") and item 3 ("MQGMO_WAIT gets on one member are woken by a put or commit on
another member promptly"); reference/queue-sharing-groups.md, "Peer recovery"; docs/administration.md: a queue
manager records its problems in errors/AMQERR01.LOG, as IBM MQ does (AMQ6125E: "An internal error has occurred").

Real member processes, a real PostgreSQL; the defect is injected in the thread's first two passes
(``SYNCPOINT_QSG_DEFECT``, ``store._qsg_member._defect_point``).
"""

from __future__ import annotations

import os
import signal
from pathlib import Path

import psycopg
from qsg_members import held

import syncpoint
from syncpoint.store._postgres_shared import channel
from waiting import wait_until

BOUND = 60.0  # seconds (a bound for a loaded machine, not the design's time: peer recovery takes ~2 s)


def error_log(home: Path, qmgr: str) -> str:
    path = home / "qmgrs" / qmgr / "errors" / "AMQERR01.LOG"
    return path.read_text() if path.exists() else ""


def test_a_defect_in_the_listener_is_logged_and_peer_recovery_still_backs_out_a_killed_members_gets(group):
    assert group.create("QMA").returncode == 0
    group.start("QMA", env={"SYNCPOINT_QSG_DEFECT": "listen:2"})
    group.add("QMB")
    b = syncpoint.connect("QMB")
    b.admin("define", "QLOCAL", "WORK", {"QSGDISP": "SHARED"})
    work_b = b.open("WORK")
    for n in range(3):
        work_b.put(b"committed %d" % n, persistent=True)
    wait_until(lambda: error_log(group.home, "QMA").count("AMQ6125E") == 2, "QMA's listener failing twice", BOUND)
    log = error_log(group.home, "QMA")
    assert "listening for other members' notifications and for failed members failed" in log
    assert "RuntimeError" in log  # what failed

    got = [work_b.get(syncpoint=True).data for _ in range(2)]  # QMB's unit of work holds two messages
    assert held(group.url) == 2
    os.kill(group.pid("QMB"), signal.SIGKILL)
    # QMA's listener, past its failures, is the one member left to back QMB's unit of work out
    wait_until(lambda: held(group.url) == 0, "QMA backing out the killed QMB's gets", BOUND)
    a = syncpoint.connect("QMA")
    back = [a.open("WORK").get() for _ in range(3)]
    assert {m.data: m.md.BackoutCount for m in back if m.data in got} == dict.fromkeys(got, 1)
    a.disconnect()
    group.end("QMA")


def test_a_defect_in_the_notifier_is_logged_and_later_commits_still_notify_the_other_members(group):
    assert group.create("QMA").returncode == 0
    group.start("QMA", env={"SYNCPOINT_QSG_DEFECT": "notify:2"})
    a = syncpoint.connect("QMA")
    a.admin("define", "QLOCAL", "WORK", {"QSGDISP": "SHARED"})
    work = a.open("WORK")
    with psycopg.connect(group.url, autocommit=True) as listener:
        listener.execute(f"LISTEN {channel(group.name)}")

        def put_until_failed_twice() -> bool:
            work.put(b"before", persistent=True)  # each commit asks the notifier to notify (its passes fail)
            return error_log(group.home, "QMA").count("AMQ6125E") == 2

        wait_until(put_until_failed_twice, "QMA's notifier failing twice", BOUND)
        assert "notification of messages committed on shared queues failed" in error_log(group.home, "QMA")
        list(listener.notifies(timeout=0.5))  # what the failing passes sent

        work.put(b"after", persistent=True)
        heard: list[str] = []

        def notified() -> bool:
            heard.extend(n.payload for n in listener.notifies(timeout=0.5, stop_after=1))
            return "WORK" in heard

        wait_until(notified, "the notification of the put after the failures", BOUND)
    a.disconnect()
    group.end("QMA")
