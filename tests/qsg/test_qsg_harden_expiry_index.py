"""Seed 002's periodic scan of shared queues reads only the messages that can expire (issue 20, item 6).

Seed 002_b264ab86f94f09d9.txt, "Periodic scan": "The queue manager maintains information about the expired messages
on each queue, and knows whether a scan for expired messages is worthwhile. So, only a selection of queues is
scanned at any time." On a shared queue the scan is one statement on the group's table (``store._qsg_expiry``,
``expire``): it must use the partial index of the messages with an Expiry (``qsg_message_expiry``), not read every
message of the group at every EXPRYINT; and a database made before that index existed gets it at a member's start.
"""

from __future__ import annotations

import psycopg
from qsg_members import member

from syncpoint.engine import FakeClock
from syncpoint.store._qsg_expiry import _EXPIRE_CLAIM

LASTING = 20000  # messages without an Expiry (never the scan's business)


def has_index(url: str) -> bool:
    with psycopg.connect(url) as conn:
        row = conn.execute("SELECT 1 FROM pg_indexes WHERE indexname = 'qsg_message_expiry'").fetchone()
        return row is not None


def test_seed002_the_shared_scan_reads_only_the_messages_that_can_expire(postgres_url):
    host = member("QMA", postgres_url, FakeClock())
    try:
        with psycopg.connect(postgres_url) as conn:
            conn.execute(
                "INSERT INTO qsg_message (qsg, queue, priority, persistent, msgid, correlid, expiry, put_time, md, "
                "data) SELECT 'SPG', 'SQ', 0, true, '', '', CASE WHEN n %% 2000 = 0 THEN 10 ELSE -1 END, 0, '', '' "
                "FROM generate_series(1, %s) n",
                (LASTING,),
            )
            conn.execute("ANALYZE qsg_message")
            plan = "\n".join(r[0] for r in conn.execute("EXPLAIN " + _EXPIRE_CLAIM, ("QMA.x", 1, "SPG", 5.0, 500)))
            conn.rollback()
    finally:
        host.close(abnormal=True)
    assert "qsg_message_expiry" in plan, plan
    assert "Seq Scan on qsg_message" not in plan, plan


def test_seed002_a_database_made_without_the_scans_index_gets_it_at_a_members_start(postgres_url):
    host = member("QMA", postgres_url, FakeClock())
    host.close(abnormal=True)
    with psycopg.connect(postgres_url) as conn:  # as a database made by a version without the index
        conn.execute("DROP INDEX IF EXISTS qsg_message_expiry")
    assert not has_index(postgres_url)
    from syncpoint.store._postgres_shared import PostgresSharedQueues

    store = PostgresSharedQueues(postgres_url, "SPG", "QMA")
    store.open()  # strmqm: the member's new session
    try:
        assert has_index(postgres_url)
    finally:
        store.close()
