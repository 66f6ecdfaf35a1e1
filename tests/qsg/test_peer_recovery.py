"""Peer recovery: a member killed with SIGKILL has its in-flight units of work on shared queues backed out by
another member, without waiting for it to restart (issue 20, item 4; reference/queue-sharing-groups.md, "Peer
recovery": "its uncommitted puts disappear, its uncommitted gets are reinstated").

The bound: a member notices a dead peer at its next look (every second, ``PEER_CHECK``) once PostgreSQL has
ended the dead member's session (at once for a killed process on a live machine): about one to two seconds.
"""

from __future__ import annotations

import os
import signal
import time

import pytest
from qsg_members import held

import syncpoint
from syncpoint.mqi import MQMIError
from syncpoint.mqi import constants as C
from waiting import wait_until

RECOVERY_BOUND = 30.0  # seconds the test allows (the design's bound is ~2 s; the margin is for a loaded machine)


def test_a_killed_members_uncommitted_gets_come_back_with_backout_count_plus_one_and_its_puts_vanish(group):
    group.add("QMA")
    group.add("QMB")
    b = syncpoint.connect("QMB")
    b.admin("define", "QLOCAL", "WORK", {"QSGDISP": "SHARED"})
    work_b = b.open("WORK")
    for n in range(10):
        work_b.put(b"committed %d" % n, persistent=True)
    a = syncpoint.connect("QMA")
    work_a = a.open("WORK")
    in_flight = [work_a.get(syncpoint=True).data for _ in range(3)]
    work_a.put(b"uncommitted put", syncpoint=True)
    # IBM's CurrentQDepth, as on a private queue: "incremented by MQPUT … decremented by MQGET" — 7 available
    # + 1 put in A's unit of work; its 3 gets are out until a backout brings them back
    assert work_a.depth == 8
    assert held(group.url) == 3

    os.kill(group.pid("QMA"), signal.SIGKILL)
    killed = time.monotonic()
    wait_until(lambda: held(group.url) == 0, "QMB backing out QMA's unit of work", timeout=RECOVERY_BOUND)
    assert time.monotonic() - killed < RECOVERY_BOUND
    assert work_b.depth == 10

    got = [work_b.get() for _ in range(10)]
    assert sorted(m.data for m in got) == sorted(b"committed %d" % n for n in range(10))
    assert {m.data: m.md.BackoutCount for m in got if m.data in in_flight} == dict.fromkeys(in_flight, 1)
    assert all(m.md.BackoutCount == 0 for m in got if m.data not in in_flight)
    assert work_b.depth == 0
    b.disconnect()

    # the killed member starts again: its earlier session's work is already settled, nothing is backed out twice
    (group.home / "qmgrs" / "QMA" / "server.json").unlink(missing_ok=True)
    group.start("QMA")
    a2 = syncpoint.connect("QMA")
    assert a2.open("WORK").depth == 0
    a2.disconnect()


def test_a_killed_members_exclusive_open_is_released_by_a_peer(group):
    # "releases what it held open (an MQOO_INPUT_EXCLUSIVE open, for example)"
    group.add("QMA")
    group.add("QMB")
    a = syncpoint.connect("QMA")
    a.admin("define", "QLOCAL", "SERIAL", {"QSGDISP": "SHARED"})
    a.open("SERIAL", C.MQOO_INPUT_EXCLUSIVE)
    b = syncpoint.connect("QMB")
    with pytest.raises(MQMIError) as e:
        b.open("SERIAL", C.MQOO_INPUT_SHARED)
    assert e.value.reason == C.MQRC_OBJECT_IN_USE

    os.kill(group.pid("QMA"), signal.SIGKILL)

    def opened() -> bool:
        try:
            b.open("SERIAL", C.MQOO_INPUT_EXCLUSIVE).close()
        except MQMIError as e:
            assert e.reason == C.MQRC_OBJECT_IN_USE
            return False
        return True

    wait_until(opened, "QMB opening the queue QMA held exclusively", timeout=RECOVERY_BOUND)
    b.disconnect()


def test_a_second_member_of_the_same_name_cannot_start_while_the_first_runs(group, tmp_path):
    # "two members with one name": the running one holds the member's liveness lock
    group.add("QMA")
    import shutil

    from qsg_members import run

    other = tmp_path / "copy-of-the-folder"
    shutil.copytree(
        group.home / "qmgrs" / "QMA",
        other / "qmgrs" / "QMA",
        ignore=shutil.ignore_patterns("server.json", "*.sock", "status"),
    )
    r = run(other, "strmqm", "QMA", "--port", "0")
    assert r.returncode != 0
    assert "already running" in " ".join(r.stderr.split())
