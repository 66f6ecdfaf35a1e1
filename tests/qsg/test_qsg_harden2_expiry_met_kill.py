"""Seed 002 on shared queues across a crash of the member whose get or browse meets an expired message (issue 20,
item 6: "an expired message is discarded and reported once").

Rule sources: seed 002_b264ab86f94f09d9.txt — "The message is discarded when a browse or nonbrowse MQGET call occurs
that would have returned the message had it not already expired", "A report is generated when an expired message is
discarded, if the message specified one of the MQRO_EXPIRATION_* report options", note 4: "Discarding an expired
message, and generating an expiration report if requested, are never part of the application's unit of work".
reference/queue-sharing-groups.md: discarding an expired shared-queue message and its expiration report happen
once, whichever queue manager discards it.

Real member processes, a real PostgreSQL. QMA and QMB have no EXPRYINT (no scan: only gets and browses discard);
QMB does the peer recovery. Persistent messages asking for MQRO_EXPIRATION_WITH_FULL_DATA expire on a shared queue;
a get or browse on QMA meets them, and QMA is killed between taking the first of them away and its report being
committed — at the kill points of ``SYNCPOINT_QSG_CRASH`` (the expired message claimed for its discard; the discard's
unit of work prepared, with its report on a private queue; its decision durable) — then restarted, and the queue is
drained. Every expired message must be reported exactly once: none lost, none twice.
"""

from __future__ import annotations

import collections
import os
from typing import Any

import psycopg
import pytest
from qsg_members import alive, drain_reports, member_session

import syncpoint
from syncpoint.mqi import MQMIError
from syncpoint.mqi import constants as C
from waiting import wait_until

COUNT = 3  # expiring messages a run puts
BOUND = 120.0  # seconds a run waits for a state (a bound for a loaded machine, not the design's time)
# (kill point, report queue): a report on a private queue makes the discard's commit two-phase
CRASHES = [("expiry-claimed", "REPORTS"), ("expiry-claimed", "SREP"), ("prepared", "REPORTS"), ("decided", "REPORTS")]
# how the application meets the expired messages
VERBS: dict[str, Any] = {
    "get": lambda q: q.get_or_none(),  # out of syncpoint: the get's statement deletes what has not expired
    "get in syncpoint": lambda q: q.get_or_none(syncpoint=True),
    "get that may truncate": lambda q: q.get_or_none(max_length=4096),  # claimed, then finished
    "browse": lambda q: q.browse(first=True),
    "browse with lock": lambda q: q.browse(first=True, lock=True),
}


def rows_left(url: str) -> int:
    with psycopg.connect(url) as conn:
        return int(conn.execute("SELECT count(*) FROM qsg_message WHERE queue = 'SQ'").fetchone()[0])


def expired_rows(url: str) -> int:
    """Messages of SQ whose Expiry has passed (the members' engine time is the machine's clock)."""
    with psycopg.connect(url) as conn:
        row = conn.execute(
            "SELECT count(*) FROM qsg_message WHERE queue = 'SQ' AND expiry <> -1 "
            "AND put_time + expiry / 10.0 <= extract(epoch FROM clock_timestamp())"
        )
        return int(row.fetchone()[0])


def one_run(group: Any, verb: str, crash: str, reports: str) -> None:
    group.start("QMA", env={"SYNCPOINT_QSG_CRASH": crash})
    pid = group.pid("QMA")
    a = syncpoint.connect("QMA")
    tag = f"{verb}-{crash}-{reports}-"
    sq = a.open("SQ")
    sq.put_many(
        [f"{tag}{n}".encode() for n in range(COUNT)],
        persistent=True,
        expiry=0.2,
        report=C.MQRO_EXPIRATION_WITH_FULL_DATA,
        reply_to=reports,
    )
    wait_until(lambda: expired_rows(group.url) == COUNT, "the messages expiring", timeout=BOUND)
    try:
        VERBS[verb](sq)  # meets the first expired message: QMA dies at the kill point
        reason = None
    except MQMIError as e:
        reason = e.reason
    if crash != "decided":  # the kill point is inside the get or browse: it never answers (at "decided", the
        # completion of the discard once its report is durable, it may have answered)
        assert reason in (C.MQRC_CONNECTION_BROKEN, C.MQRC_Q_MGR_NOT_AVAILABLE), (
            f"{verb}: QMA answered ({reason}) the {verb} that met an expired message: no kill point {crash} in it"
        )
    wait_until(lambda: not alive(pid), f"QMA ending at {crash}", timeout=BOUND)
    # QMB's peer recovery ends QMA's session (what it held and had not prepared is reinstated)
    wait_until(lambda: member_session(group.url, "QMA") is None, "QMB's peer recovery of QMA", timeout=BOUND)
    group.start("QMA")  # settles what was in doubt by its own log
    a = syncpoint.connect("QMA")
    sq = a.open("SQ")
    assert sq.get_or_none() is None  # every message expired: each met, discarded and reported
    sq.close()
    # a discard whose report is on a private queue completes once that report is durable (two-phase)
    wait_until(lambda: rows_left(group.url) == 0, "the discards completing", timeout=BOUND)
    got: list[bytes] = []

    def reported() -> bool:  # a persistent report on a private queue is available once it is durable
        got.extend(drain_reports(a, "REPORTS") + drain_reports(a, "SREP"))
        return len(got) >= COUNT

    try:
        wait_until(reported, "every expiration report", timeout=BOUND)
    except AssertionError:
        pass  # some are lost: said below
    got += drain_reports(a, "REPORTS") + drain_reports(a, "SREP")
    a.disconnect()
    counts = collections.Counter(got)
    expected = {f"{tag}{n}".encode() for n in range(COUNT)}
    lost = sorted(expected - set(counts))
    twice = sorted(d for d, n in counts.items() if n > 1)
    assert not lost and not twice, f"{verb}, killed at {crash}: reports lost {lost}, sent twice {twice}"
    assert set(counts) == expected
    group.end("QMA")


@pytest.mark.parametrize("verb", list(VERBS))
def test_seed002_a_member_killed_while_its_get_discards_an_expired_message_reports_it_once(group, verb):
    setup(group)
    # the two-phase commit of the discard is one piece of code whatever met the message: its kill points are
    # run with one get and one browse
    crashes = CRASHES if verb in ("get", "browse with lock") else CRASHES[:2]
    for crash, reports in crashes:
        one_run(group, verb, crash, reports)


def setup(group: Any) -> None:
    group.add("QMB")  # its peer recovery ends QMA's dead sessions
    assert group.create("QMA").returncode == 0
    group.start("QMA")
    a = syncpoint.connect("QMA")
    a.admin("define", "QLOCAL", "SQ", {"QSGDISP": "SHARED"})
    a.admin("define", "QLOCAL", "SREP", {"QSGDISP": "SHARED"})
    a.admin("define", "QLOCAL", "REPORTS")
    a.disconnect()
    group.end("QMA")
    if os.environ.get("SYNCPOINT_QSG_CRASH"):
        pytest.fail("SYNCPOINT_QSG_CRASH is set for the test process")
