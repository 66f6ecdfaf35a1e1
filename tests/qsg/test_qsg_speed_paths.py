"""How a member reaches PostgreSQL for its shared queues (issue 20, item 9; docs/queue-sharing-groups.md,
"Limits"): a unit of work's puts in one statement of its commit's one transaction, a get of many messages in
syncpoint claiming them with one statement, and a member serving its other connections while one of its calls
waits for PostgreSQL. Real member processes and a real PostgreSQL; PostgreSQL's own row versions (``xmin``: the
transaction that wrote a row) say how many transactions wrote the rows."""

from __future__ import annotations

import threading
from typing import Any

import psycopg
import pytest

import syncpoint
from syncpoint.mqi import MQMIError
from syncpoint.mqi import constants as C
from waiting import wait_until

QUEUE = "SPEED.Q"


@pytest.fixture
def member(group: Any) -> Any:
    group.add("QMA")
    qm = syncpoint.connect("QMA")
    qm.admin("define", "QLOCAL", QUEUE, {"QSGDISP": "SHARED"})
    qm.admin("define", "QLOCAL", "PRIVATE.Q", {})
    yield qm
    qm.disconnect()


def writers(url: str, where: str = "") -> tuple[int, int]:
    """(rows of the shared queue, distinct transactions that wrote them)."""
    with psycopg.connect(url, autocommit=True) as conn:
        row = conn.execute(
            f"SELECT count(*), count(DISTINCT xmin::text) FROM qsg_message WHERE queue = %s {where}", (QUEUE,)
        ).fetchone()
    assert row is not None
    return int(row[0]), int(row[1])


def test_a_units_of_work_puts_reach_postgresql_at_its_commit_in_one_transaction(member: Any, postgres_url: str) -> None:
    # reference/queue-sharing-groups.md ("Units of work and recovery"): a put in syncpoint is not visible to any
    # member before MQCMIT; issue 20 item 9: "one PostgreSQL transaction per MQCMIT"
    q = member.open(QUEUE)
    for n in range(20):
        q.put(b"m%d" % n, syncpoint=True, persistent=True)
    assert writers(postgres_url) == (0, 0)  # nothing in the database before the commit
    member.commit()
    assert writers(postgres_url) == (20, 1)
    assert [m.data for m in q.get_many(20)] == [b"m%d" % n for n in range(20)]


def test_a_get_of_many_in_syncpoint_claims_them_with_one_statement_and_backout_adds_one_to_each(
    member: Any, postgres_url: str
) -> None:
    # issue 20 item 9: "gets claiming with SKIP LOCKED in one statement"; seed 000 / reference page: MQBACK
    # reinstates every message got in the unit of work with BackoutCount + 1
    q = member.open(QUEUE)
    q.put_many([b"m%d" % n for n in range(30)], syncpoint=True, commit=True, persistent=True)
    got = q.get_many(30, syncpoint=True)
    assert [m.data for m in got] == [b"m%d" % n for n in range(30)]
    assert writers(postgres_url, "AND owner IS NOT NULL") == (30, 1)  # one claim for the 30 gets
    member.backout()
    again = q.get_many(30, syncpoint=True)
    assert [(m.data, m.md.BackoutCount) for m in again] == [(b"m%d" % n, 1) for n in range(30)]
    member.commit()
    assert writers(postgres_url) == (0, 0)


def test_a_get_of_more_than_the_queue_holds_gets_what_there_is_and_leaves_nothing_claimed(
    member: Any, postgres_url: str
) -> None:
    q = member.open(QUEUE)
    q.put_many([b"a", b"b", b"c"], syncpoint=True, commit=True, persistent=True)
    assert [m.data for m in q.get_many(50, syncpoint=True)] == [b"a", b"b", b"c"]
    member.commit()
    assert writers(postgres_url) == (0, 0)
    q.put(b"d", persistent=True)
    assert [m.data for m in q.get_many(50, syncpoint=True)] == [b"d"]  # the queue is looked at again
    member.commit()


def test_a_member_serves_its_other_connections_while_a_shared_queue_call_waits_for_postgresql(
    member: Any, postgres_url: str
) -> None:
    # issue 20 item 9: "no lock held across network waits": a put on a shared queue that waits for PostgreSQL
    # (here for a table lock the test holds) does not stop the member's other connections
    blocker = psycopg.connect(postgres_url)
    blocker.execute("LOCK TABLE qsg_message IN EXCLUSIVE MODE")  # inserts wait until it ends
    done: list[object] = []

    def shared_put() -> None:
        other = syncpoint.connect("QMA")
        try:
            other.open(QUEUE).put(b"waited", persistent=True)
            done.append(True)
        except MQMIError as e:  # pragma: no cover - reported by the assertion below
            done.append(e)
        finally:
            other.disconnect()

    t = threading.Thread(target=shared_put)
    t.start()
    try:

        def put_waits_in_postgresql() -> bool:
            with psycopg.connect(postgres_url, autocommit=True) as c:
                row = c.execute(
                    "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' "
                    "AND query LIKE 'INSERT INTO qsg_message%%'"
                ).fetchone()
            return bool(row and row[0])

        wait_until(put_waits_in_postgresql, "the shared put waiting for the table lock in PostgreSQL")
        answered: list[object] = []

        def meanwhile() -> None:  # the member answers while its shared put waits
            private = member.open("PRIVATE.Q")
            private.put(b"meanwhile", persistent=True)
            answered.append(private.get().data)
            answered.append(member.open(QUEUE).depth)  # a count needs no lock the test holds

        t2 = threading.Thread(target=meanwhile, daemon=True)
        t2.start()
        t2.join(120)  # bounds a member that does not answer; never reached when it does
        assert answered == [b"meanwhile", 0]
        assert not done
    finally:
        blocker.rollback()
        blocker.close()
        t.join(120)
    assert done == [True]
    got = member.open(QUEUE).get()
    assert got.data == b"waited"
    with pytest.raises(MQMIError) as e:
        member.open(QUEUE).get()
    assert e.value.reason == C.MQRC_NO_MSG_AVAILABLE
