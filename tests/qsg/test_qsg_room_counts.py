"""A put in syncpoint on a shared queue whose MAXDEPTH check cannot fail (the largest MAXDEPTH, 999999999) costs
no statement at the put (docs/queue-sharing-groups.md, "Limits"): its place in FIFO order comes from the member's
block of ids, its count reaches the other members a few ms later. These are the rules that must still hold: the
put keeps its place in FIFO order among the member's other puts, every member's CURDEPTH counts it, and a unit of
work that ends leaves no count behind. Two members in this process share one real PostgreSQL database.

Rules: constants.md MQRC_Q_FULL (2053) with IBM counting a put in a unit of work in CurrentQDepth at once
("CURDEPTH ... includes messages put in syncpoint not yet committed"); reference/queue-sharing-groups.md (a put
in syncpoint is not visible to any member before MQCMIT; MQBACK removes it); MSGDLVSQ(FIFO): messages are
delivered in the order they were put.
"""

from __future__ import annotations

from collections.abc import Iterator

import psycopg
import pytest
from qsg_members import member, reason

import syncpoint
from pg import PostgresServer
from syncpoint.client import EmbeddedQueueManager
from syncpoint.engine import FakeClock
from syncpoint.mqi import MQMIError
from syncpoint.mqi import constants as C
from syncpoint.store import _qsg_counts
from waiting import wait_for_value, wait_until

BIG = "ROOM.BIG"  # MAXDEPTH 999999999: the check cannot fail
OTHER = "ROOM.OTHER"
Pair = tuple[EmbeddedQueueManager, EmbeddedQueueManager]


@pytest.fixture
def hosts(postgres_url: str) -> Iterator[Pair]:
    clock = FakeClock()
    a, b = member("QMA", postgres_url, clock), member("QMB", postgres_url, clock)
    qm = syncpoint.connect("QMA", embedded=a)
    for name in (BIG, OTHER):
        qm.admin("define", "QLOCAL", name, {"QSGDISP": "SHARED", "MAXDEPTH": 999_999_999, "MSGDLVSQ": C.MQMDS_FIFO})
    qm.disconnect()
    yield a, b
    for h in (a, b):
        h.close(abnormal=True)


def counts(url: str) -> int:
    """Rows of qsg_uncommitted: the published counts of units of work not ended."""
    with psycopg.connect(url, autocommit=True) as conn:
        row = conn.execute("SELECT count(*) FROM qsg_uncommitted").fetchone()
    assert row is not None
    return int(row[0])


def test_uncommitted_puts_on_a_queue_with_the_largest_maxdepth_count_in_every_members_curdepth(
    hosts: Pair, postgres_url: str
) -> None:
    # IBM counts a put in syncpoint in CurrentQDepth at once: on its member at once, on the others within the
    # publication bound (a few ms; waited for here, never a fixed sleep)
    a = syncpoint.connect("QMA", embedded=hosts[0])
    b = syncpoint.connect("QMB", embedded=hosts[1])
    qa, qb = a.open(BIG), b.open(BIG)
    for n in range(3):
        qa.put(b"%d" % n, syncpoint=True)
    assert qa.depth == 3
    wait_until(lambda: qb.depth == 3, "QMB counting QMA's 3 uncommitted puts", 30)
    a.backout()
    assert qa.depth == 0 and qb.depth == 0  # the backout's transaction deleted the count
    assert counts(postgres_url) == 0
    qa.put(b"kept", syncpoint=True)
    wait_until(lambda: qb.depth == 1, "QMB counting QMA's uncommitted put", 30)
    a.commit()
    assert qb.depth == 1 and counts(postgres_url) == 0
    assert qb.get().data == b"kept"


def test_a_unit_of_work_that_ends_right_after_its_puts_leaves_no_count_behind(hosts: Pair, postgres_url: str) -> None:
    # a count published after its unit of work's end would count forever: the end waits for a publication under
    # way, and what was not yet published is dropped
    a = syncpoint.connect("QMA", embedded=hosts[0])
    b = syncpoint.connect("QMB", embedded=hosts[1])
    qa = a.open(BIG)
    for n in range(40):
        qa.put(b"%d" % n, syncpoint=True)
        (a.commit if n % 2 else a.backout)()
    # a later publication reaches QMB: any earlier one of the ended units of work would have been written by then
    a.open(OTHER).put(b"marker", syncpoint=True)
    qb_other = b.open(OTHER)
    wait_until(lambda: qb_other.depth == 1, "QMB counting the marker put", 30)
    assert counts(postgres_url) == 1  # the marker's unit of work only
    assert b.open(BIG).depth == 20  # the 20 committed puts, nothing uncommitted left counting
    a.backout()
    assert counts(postgres_url) == 0


def test_a_members_puts_keep_their_put_order_across_its_blocks_of_ids(
    hosts: Pair, monkeypatch: pytest.MonkeyPatch
) -> None:
    # MSGDLVSQ(FIFO): delivered in put order; a put in syncpoint keeps the place of its put, as on a private queue,
    # also when the member's block of ids runs out in the middle, and after a put out of syncpoint (whose id is
    # the group sequence's next) — the member's later puts in syncpoint come after it
    monkeypatch.setattr(_qsg_counts, "ID_BLOCK", 2)
    monkeypatch.setattr(_qsg_counts, "ID_BLOCK_MAX", 2)
    first = syncpoint.connect("QMA", embedded=hosts[0])
    second = syncpoint.connect("QMA", embedded=hosts[0])
    plain = syncpoint.connect("QMA", embedded=hosts[0])
    q1, q2, qp = first.open(BIG), second.open(BIG), plain.open(BIG)
    q1.put(b"1", syncpoint=True)
    qp.put(b"2")  # out of syncpoint: in the table at once
    q1.put(b"3", syncpoint=True)
    q2.put(b"4", syncpoint=True)
    q1.put(b"5", syncpoint=True)  # the block of 2 ran out: a new one
    qp.put(b"6")
    q2.put(b"7", syncpoint=True)
    second.commit()  # committed in another order than put
    first.commit()
    reader = syncpoint.connect("QMB", embedded=hosts[1]).open(BIG)
    assert [reader.get().data for _ in range(7)] == [b"%d" % n for n in range(1, 8)]


def test_a_unit_of_work_of_a_lost_session_leaves_no_count_behind() -> None:
    # issue 20, "Bad input": PostgreSQL restarted under a running member backs its units of work out; a put that
    # unit of work makes after the restart (counted for MAXDEPTH in the new session) must stop counting when its
    # commit fails (MQRC_BACKED_OUT), or every member's CURDEPTH and MAXDEPTH would count it for good
    server = PostgresServer().start()
    hosts = []
    try:
        url = server.new_database()
        clock = FakeClock()
        hosts = [member("QMA", url, clock), member("QMB", url, clock)]
        a = syncpoint.connect("QMA", embedded=hosts[0])
        b = syncpoint.connect("QMB", embedded=hosts[1])
        a.admin("define", "QLOCAL", "SMALL", {"QSGDISP": "SHARED", "MAXDEPTH": 10})
        qa = a.open("SMALL")
        qa.put(b"before", syncpoint=True)
        server.restart()

        def put_again() -> bool | None:
            try:
                qa.put(b"after", syncpoint=True)
            except MQMIError as e:
                assert e.reason == C.MQRC_CF_NOT_AVAILABLE
                return None
            return True

        wait_for_value(put_again, "QMA putting again after the restart", timeout=60)
        assert reason(a.commit) == C.MQRC_BACKED_OUT
        assert wait_for_value(lambda: _depth(b, "SMALL"), "QMB reading the depth", timeout=60) == (0,)
        assert counts(url) == 0
    finally:
        for h in hosts:
            h.close(abnormal=True)
        server.stop()


def _depth(qm: syncpoint.QueueManager, name: str) -> tuple[int] | None:
    try:
        return (qm.open(name).depth,)
    except MQMIError as e:
        assert e.reason == C.MQRC_CF_NOT_AVAILABLE
        return None
