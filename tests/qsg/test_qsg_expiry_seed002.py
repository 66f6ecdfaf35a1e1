"""Seed 002 on shared queues (issue 20, item 6): one member of the group scans the shared queues for expired
messages; another takes over when it ends; an expired message is discarded and reported once.

Seed 002_b264ab86f94f09d9.txt, "Periodic scan": "Shared queues are scanned by only one queue manager in a
queue-sharing group. Generally, it is the first queue manager to restart, or the first to have EXPRYINT set. If
this queue manager terminates, another queue manager in the queue-sharing group takes over the queue scanning."
"A report is generated when an expired message is discarded, if the message specified one of the
MQRO_EXPIRATION_* report options"; reference/queue-sharing-groups.md ("Discarding an expired shared-queue message
and its expiration report happen once, whichever queue manager discards it").

The first tests run two members in this process on one fake clock (engine time is injected); the takeover tests
run real member processes and wait on conditions.
"""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Iterator
from typing import Any

import psycopg
import pytest
from qsg_members import member

import syncpoint
from syncpoint.engine import FakeClock
from syncpoint.mqi import MQMD
from syncpoint.mqi import constants as C
from waiting import wait_until

TAKEOVER_BOUND = 60.0  # seconds the takeover tests allow (a bound for a loaded machine, not the design's time)


def expiring(reply_qmgr: str, seconds: float = 1.0) -> dict[str, Any]:
    """The keywords of a put of a message that expires in ``seconds`` and asks for an expiration report on
    REPORTS at ``reply_qmgr``."""
    md = MQMD(ReplyToQMgr=reply_qmgr.encode().ljust(48))
    return {"md": md, "expiry": seconds, "reply_to": "REPORTS", "report": C.MQRO_EXPIRATION}


def reports(qm: syncpoint.QueueManager) -> list[Any]:
    q = qm.open("REPORTS")
    out = []
    while (m := q.get_or_none()) is not None:
        out.append(m)
    q.close()
    return out


def scanner(url: str) -> str | None:
    """The member the group's records name as its expiry scanner."""
    with psycopg.connect(url) as conn:
        try:
            row = conn.execute("SELECT member FROM qsg_scanner WHERE qsg = 'SPG'").fetchone()
        except psycopg.errors.UndefinedTable:
            return None
    return None if row is None else str(row[0])


def shared_rows(url: str) -> int:
    with psycopg.connect(url) as conn:
        return int(conn.execute("SELECT count(*) FROM qsg_message WHERE qsg = 'SPG'").fetchone()[0])


@pytest.fixture
def pair(postgres_url: str) -> Iterator[tuple[Any, Any, Any, Any, FakeClock]]:
    clock = FakeClock()
    hosts = [member("QMA", postgres_url, clock), member("QMB", postgres_url, clock)]
    a = syncpoint.connect("QMA", embedded=hosts[0])
    b = syncpoint.connect("QMB", embedded=hosts[1])
    a.admin("define", "QLOCAL", "SQ", {"QSGDISP": "SHARED"})
    a.admin("define", "QLOCAL", "REPORTS")
    b.admin("define", "QLOCAL", "REPORTS")
    a.admin("alter_qmgr", {"EXPRYINT": 10})  # A is the first to have EXPRYINT set: its next call takes the scan
    a.open("SQ").close()
    b.admin("alter_qmgr", {"EXPRYINT": 10})
    b.open("SQ").close()
    yield a, b, hosts[0].engine, hosts[1].engine, clock
    for h in hosts:
        h.close(abnormal=True)


def test_seed002_only_one_member_of_the_group_scans_the_shared_queues(pair):
    # seed 002: "Shared queues are scanned by only one queue manager in a queue-sharing group. Generally, it is
    # the first queue manager to restart, or the first to have EXPRYINT set."
    a, b, ea, eb, clock = pair
    for n in range(3):
        a.open("SQ").put(b"short-lived %d" % n, **expiring("QMA"))
    a.open("SQ").put(b"lasting")
    scans = ea.shared_scans  # A's first tick (it took the scan at its first call with EXPRYINT set)
    clock.advance(11.0)  # past the expiry, and an EXPRYINT tick for both members
    b.open("SQ").close()  # each member's call runs its tick (so may its housekeeping thread: the clock moved)
    a.open("SQ").close()
    assert a.open("SQ").depth == 1
    clock.advance(11.0)
    b.open("SQ").close()
    a.open("SQ").close()
    assert ea.shared_scans == scans + 2 and eb.shared_scans == 0  # every tick of A scans, none of B
    assert ea.shared.scanner() == "QMA"
    got = reports(a)
    assert [(r.md.Feedback, r.data) for r in got] == [(C.MQFB_EXPIRATION, b"")] * 3  # MQRO_EXPIRATION: no data
    assert reports(b) == []


def test_seed002_an_expired_message_a_get_meets_is_discarded_and_reported_once(pair):
    # seed 002: "The message is discarded when a browse or nonbrowse MQGET call occurs that would have returned
    # the message had it not already expired"; the scan later does not find it again: one report, not two
    a, b, ea, eb, clock = pair
    a.open("SQ").put(b"short-lived", **expiring("QMB"))
    a.open("SQ").put(b"lasting")
    clock.advance(2.0)  # expired, before the next EXPRYINT tick
    assert b.open("SQ").get().data == b"lasting"  # the get met the expired message first and discarded it
    assert [r.md.Feedback for r in reports(b)] == [C.MQFB_EXPIRATION]
    clock.advance(11.0)  # the scanner's tick: nothing is left to discard
    a.open("SQ").close()
    assert ea.shared_scans >= 1
    assert reports(a) == [] and reports(b) == []
    assert (ea.expired_discarded, eb.expired_discarded) == (0, 1)


def test_seed002_an_expired_message_the_scan_discards_is_reported_once_with_its_data_when_asked(pair):
    # seed 002: MQRO_EXPIRATION_WITH_FULL_DATA asks for the whole message in the report; discarded and reported
    # once, even when a get on another member looks for it after the scan
    a, b, ea, _eb, clock = pair
    kw = expiring("QMA")
    kw["report"] = C.MQRO_EXPIRATION_WITH_FULL_DATA
    a.open("SQ").put(b"the whole of it", **kw)
    clock.advance(11.0)
    a.open("SQ").close()  # A's tick: the scan discards it
    assert b.open("SQ").get_or_none() is None
    got = reports(a)
    assert [(r.md.Feedback, r.data) for r in got] == [(C.MQFB_EXPIRATION, b"the whole of it")]
    assert ea.expired_discarded == 1


def test_seed002_the_scan_passes_to_another_member_when_the_scanners_expryint_is_turned_off(pair):
    # seed 002: the scanner is "the first to have EXPRYINT set": a scanner whose EXPRYINT is turned off leaves
    # the scan to another member (else nobody would scan the shared queues)
    a, b, _ea, eb, clock = pair
    a.admin("alter_qmgr", {"EXPRYINT": 0})
    a.open("SQ").put(b"short-lived", **expiring("QMB"))
    clock.advance(11.0)
    a.open("SQ").close()  # A's call: it lets the scan go
    b.open("SQ").close()  # B's tick: B takes the scan and discards the message
    assert eb.shared.scanner() == "QMB"
    assert eb.shared_scans >= 1 and b.open("SQ").depth == 0
    assert [r.md.Feedback for r in reports(b)] == [C.MQFB_EXPIRATION]


# -- takeover, with real member processes ---------------------------------------------------------------------
@pytest.fixture
def scanning(group: Any) -> Iterator[Any]:
    group.add("QMA")
    a = syncpoint.connect("QMA")
    a.admin("define", "QLOCAL", "SQ", {"QSGDISP": "SHARED"})
    a.admin("alter_qmgr", {"EXPRYINT": 1})
    wait_until(lambda: scanner(group.url) == "QMA", "QMA taking the group's expiry scan", timeout=TAKEOVER_BOUND)
    a.disconnect()
    group.add("QMB")
    b = syncpoint.connect("QMB")
    b.admin("define", "QLOCAL", "REPORTS")
    b.admin("alter_qmgr", {"EXPRYINT": 1})
    b.open("SQ").close()
    yield b
    b.disconnect()


def takeover(group: Any, b: Any, end: Any) -> float:
    """End QMA (the scanner) with ``end``; B must take the scan over and discard and report a message it put
    that expired. Returns the seconds from the end to the takeover."""
    assert scanner(group.url) == "QMA"
    end()
    ended = time.monotonic()  # QMA has ended (endmqm returned; a killed process's session ends at once)
    b.open("SQ").put(b"short-lived", **expiring("QMB", 0.5))
    wait_until(lambda: scanner(group.url) == "QMB", "QMB taking the scan over", timeout=TAKEOVER_BOUND)
    took = time.monotonic() - ended
    report = b.open("REPORTS").get(wait=TAKEOVER_BOUND)  # discarded by B's scan (nobody gets from SQ)
    assert report.md.Feedback == C.MQFB_EXPIRATION
    wait_until(lambda: shared_rows(group.url) == 0, "the expired message gone", timeout=TAKEOVER_BOUND)
    assert reports(b) == []  # once
    return took


def test_seed002_when_the_scanning_member_is_killed_another_takes_over(group, scanning):
    # seed 002: "If this queue manager terminates, another queue manager in the queue-sharing group takes over the
    # queue scanning."
    took = takeover(group, scanning, lambda: os.kill(group.pid("QMA"), signal.SIGKILL))
    print(f"takeover after SIGKILL: {took:.2f} s (EXPRYINT 1)")


def test_seed002_when_the_scanning_member_ends_another_takes_over(group, scanning):
    took = takeover(group, scanning, lambda: group.end("QMA"))
    print(f"takeover after endmqm: {took:.2f} s (EXPRYINT 1)")
