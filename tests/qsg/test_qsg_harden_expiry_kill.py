"""Seed 002 on shared queues across a crash of the scanning member (issue 20, item 6: "an expired message is
discarded and reported once").

Rule sources: seed 002_b264ab86f94f09d9.txt — "A report is generated when an expired message is discarded, if the
message specified one of the MQRO_EXPIRATION_* report options", and "Any other program that discards messages
based on expiry time must also send an appropriate report message if one was requested"; "Shared queues are
scanned by only one queue manager in a queue-sharing group". reference/queue-sharing-groups.md: discarding an
expired shared-queue message and its expiration report happen once, whichever queue manager discards it.

Real member processes, a real PostgreSQL. QMA is the group's scanner (EXPRYINT 1; QMB has no EXPRYINT and does
the peer recovery). Many persistent messages asking for MQRO_EXPIRATION_WITH_FULL_DATA expire on a shared queue,
half with a private reply queue of QMA, half with a shared reply queue. QMA is killed inside its scan — at the
points that matter (``SYNCPOINT_QSG_CRASH``: the expired messages claimed, the scan's unit of work prepared, its
decision durable) and by SIGKILL at random moments — then restarted. Every expired message must be reported
exactly once: none lost, none twice.
"""

from __future__ import annotations

import collections
import os
import random
import signal
import time

import psycopg
import pytest
from qsg_members import alive, drain_reports, member_session

import syncpoint
from syncpoint.mqi import MQMIError
from syncpoint.mqi import constants as C
from waiting import wait_until

COUNT = 240  # expiring messages a run puts (half report to a private queue, half to a shared one)
BOUND = 120.0  # seconds a run waits for a state (a bound for a loaded machine, not the design's time)


def rows_left(url: str) -> int:
    with psycopg.connect(url) as conn:
        return int(conn.execute("SELECT count(*) FROM qsg_message WHERE queue = 'SQ'").fetchone()[0])


def claimed(url: str) -> int:
    """Expiring messages no longer available: gone, or held by a unit of work (the scan's claim)."""
    with psycopg.connect(url) as conn:
        row = conn.execute("SELECT count(*) FILTER (WHERE owner IS NULL) FROM qsg_message WHERE queue = 'SQ'")
        return COUNT - int(row.fetchone()[0])


def one_run(group, run: int, crash: str | None) -> None:
    env = {"SYNCPOINT_QSG_CRASH": crash} if crash else None
    group.start("QMA", env=env)
    pid = group.pid("QMA")
    a = syncpoint.connect("QMA")
    tag = f"r{run}-"
    expiring = {"persistent": True, "expiry": 0.5, "report": C.MQRO_EXPIRATION_WITH_FULL_DATA}
    sq = a.open("SQ")
    half = COUNT // 2
    sq.put_many([f"{tag}{n}".encode() for n in range(half)], reply_to="REPORTS", **expiring)
    sq.put_many([f"{tag}{n}".encode() for n in range(half, COUNT)], reply_to="SREP", **expiring)
    sq.close()
    a.disconnect()
    if crash is None:  # SIGKILL at a random moment of the scan (once it has begun: some messages claimed)
        wait_until(lambda: claimed(group.url) > 0, "QMA's scan beginning", timeout=BOUND, interval=0.005)
        time.sleep(random.uniform(0, 0.08))  # not a wait for a state: where in the scan the kill lands
        os.kill(pid, signal.SIGKILL)
    wait_until(lambda: not alive(pid), f"QMA ending ({crash or 'SIGKILL'})", timeout=BOUND)
    # QMB's peer recovery ends QMA's session (what the scan held and had not prepared is reinstated)
    wait_until(lambda: member_session(group.url, "QMA") is None, "QMB's peer recovery of QMA", timeout=BOUND)
    group.start("QMA")  # settles what was in doubt by its own log, then scans again
    wait_until(lambda: rows_left(group.url) == 0, "every expired message discarded", timeout=BOUND)
    a = syncpoint.connect("QMA")
    got = drain_reports(a, "REPORTS") + drain_reports(a, "SREP")
    a.disconnect()
    counts = collections.Counter(got)
    expected = {f"{tag}{n}".encode() for n in range(COUNT)}
    lost = sorted(expected - set(counts))
    twice = sorted(d for d, n in counts.items() if n > 1)
    assert not lost and not twice, f"{crash or 'SIGKILL'}: {len(lost)} reports lost, {len(twice)} sent twice"
    assert set(counts) == expected
    group.end("QMA")


@pytest.mark.parametrize("crash", ["expiry-claimed", "prepared", "decided"])
def test_seed002_a_scanner_killed_at_a_crash_point_of_its_scan_reports_every_expired_message_once(group, crash):
    setup(group)
    one_run(group, 0, crash)


def test_seed002_a_scanner_killed_at_random_moments_of_its_scan_reports_every_expired_message_once(group):
    setup(group)
    for run in range(4):
        one_run(group, run, None)


def setup(group) -> None:
    group.add("QMB")  # EXPRYINT 0: never the scanner; its peer recovery ends QMA's dead sessions
    assert group.create("QMA").returncode == 0
    group.start("QMA")
    a = syncpoint.connect("QMA")
    a.admin("define", "QLOCAL", "SQ", {"QSGDISP": "SHARED", "MAXDEPTH": 100000})
    a.admin("define", "QLOCAL", "SREP", {"QSGDISP": "SHARED", "MAXDEPTH": 100000})
    a.admin("define", "QLOCAL", "REPORTS", {"MAXDEPTH": 100000})
    a.admin("alter_qmgr", {"EXPRYINT": 1})
    a.disconnect()
    group.end("QMA")
    try:
        syncpoint.connect("QMB").disconnect()
    except MQMIError:
        pass
