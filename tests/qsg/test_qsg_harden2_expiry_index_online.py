"""The first start of a member on a group database made before seed 002's scan index existed builds that index
without stopping the group (issue 20, item 6; docs/queue-sharing-groups.md, "Expiry on shared queues").

Seed 002_b264ab86f94f09d9.txt, "Periodic scan": "The queue manager maintains information about the expired messages
on each queue, and knows whether a scan for expired messages is worthwhile" — the shared scan reads the messages
that can expire through their index (``qsg_message_expiry``). reference/queue-sharing-groups.md: the members of a
group serve the shared queues independently; one member's start must not stop the others' puts and gets.

Real member processes, a real PostgreSQL. QMA runs; the index is dropped (a database of an earlier version); a
transaction of the test holds the table as a writer would, so that the index build of QMB's start waits for it (a
large table's build, made to last). Meanwhile QMA's put and get on a shared queue complete, and the group's schema
lock is free; once the transaction ends, QMB's start completes with the index built and valid.
"""

from __future__ import annotations

import threading

import psycopg

import syncpoint
from syncpoint.store._qsg_schema import _SCHEMA_LOCK
from waiting import wait_until

BOUND = 60.0  # seconds (a bound for a loaded machine, not the design's time)


def index_state(url: str) -> bool | None:
    """Whether the scan's index is valid (None: there is none)."""
    with psycopg.connect(url) as conn:
        row = conn.execute(
            "SELECT indisvalid FROM pg_index WHERE indexrelid = to_regclass('qsg_message_expiry')"
        ).fetchone()
        return None if row is None else bool(row[0])


def building(url: str) -> bool:
    """A member's start is waiting for the test's transaction in an index's DDL."""
    with psycopg.connect(url) as conn:
        row = conn.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE query ILIKE '%%CREATE INDEX%%' AND wait_event_type = 'Lock'"
        ).fetchone()
        return int(row[0]) > 0


def schema_lock_held(url: str) -> bool:
    with psycopg.connect(url) as conn:
        row = conn.execute(
            "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND objid = %s AND granted", (_SCHEMA_LOCK,)
        ).fetchone()
        return int(row[0]) > 0


def test_seed002_a_members_first_start_builds_the_scans_index_while_the_group_puts_and_gets(group):
    assert group.create("QMA").returncode == 0
    assert group.create("QMB").returncode == 0
    group.start("QMA")
    a = syncpoint.connect("QMA")
    a.admin("define", "QLOCAL", "SQ", {"QSGDISP": "SHARED"})
    with psycopg.connect(group.url, autocommit=True) as conn:  # as a database made by a version without the index
        conn.execute("DROP INDEX qsg_message_expiry")
    writer = psycopg.connect(group.url)  # a writer's transaction on the table: an index build waits for it
    writer.execute("LOCK TABLE qsg_message IN ROW EXCLUSIVE MODE")
    started: list[BaseException | None] = []

    def start_b() -> None:
        try:
            group.start("QMB")
            started.append(None)
        except BaseException as e:  # said by the main thread
            started.append(e)

    starting = threading.Thread(target=start_b, daemon=True)
    starting.start()
    try:
        wait_until(lambda: building(group.url), "QMB's start waiting to build the scan's index", timeout=BOUND)
        assert not schema_lock_held(group.url), "the index is built under the group's schema lock"
        done: list[bytes] = []

        def put_and_get() -> None:
            q = a.open("SQ")
            q.put(b"while the index is built")
            done.append(q.get().data)

        worker = threading.Thread(target=put_and_get, daemon=True)
        worker.start()
        wait_until(lambda: bool(done), "QMA's put and get while QMB's start builds the index", timeout=BOUND)
        assert done == [b"while the index is built"]
        assert index_state(group.url) is not True  # still being built: QMB's start waits for it
    finally:
        writer.rollback()
        writer.close()
    starting.join(BOUND * 2)
    assert started == [None], started
    assert index_state(group.url) is True
    a.disconnect()
    group.end("QMA")
    group.end("QMB")


def test_seed002_an_index_build_cut_short_is_built_again_at_the_next_start(postgres_url):
    # a CREATE INDEX CONCURRENTLY that does not finish (its member killed) leaves an invalid index of that name,
    # which IF NOT EXISTS would keep for good: the next start drops it and builds the scan's index
    from qsg_members import member

    from syncpoint.engine import FakeClock
    from syncpoint.store._postgres_shared import PostgresSharedQueues

    member("QMA", postgres_url, FakeClock()).close(abnormal=True)
    with psycopg.connect(postgres_url, autocommit=True) as conn:
        conn.execute("DROP INDEX qsg_message_expiry")
        conn.execute(
            "INSERT INTO qsg_message (qsg, queue, priority, persistent, msgid, correlid, expiry, put_time, md, data) "
            "SELECT 'SPG', 'SQ', 0, true, '', '', -1, 0, '', '' FROM generate_series(1, 2)"
        )
        try:  # a build that fails half-way (here: a unique index on duplicates) leaves its index invalid
            conn.execute("CREATE UNIQUE INDEX CONCURRENTLY qsg_message_expiry ON qsg_message (qsg)")
        except psycopg.errors.UniqueViolation:
            pass
    assert index_state(postgres_url) is False
    store = PostgresSharedQueues(postgres_url, "SPG", "QMA")
    store.open()  # strmqm: the member's new session
    try:
        assert index_state(postgres_url) is True
        with psycopg.connect(postgres_url) as conn:
            definition = conn.execute("SELECT pg_get_indexdef(to_regclass('qsg_message_expiry'))").fetchone()[0]
        assert "put_time" in definition and "UNIQUE" not in definition, definition
    finally:
        store.close()
