"""PostgreSQL restarted under a running member (issue 20, "Bad input": "PostgreSQL restarted under a running group
(members reconnect; in-flight units of work are backed out, nothing committed lost)").

A member's verbs run on several threads at once: some on the session's own connection (definitions, triggering,
two-phase commit), some on the pool's. When PostgreSQL cuts them all, every one of them fails, and the member
must start ONE new session for that loss: a second one would back out the units of work begun in the first
(reference/queue-sharing-groups.md, "Units of work and recovery": a queue manager's restart backs out its own
in-flight work — a member's new session is that restart for its shared part), and leave the group counting two
sessions of one member. Afterwards exactly one session holds the member's liveness lock, and every message whose
put returned is in the group's table.

Real PostgreSQL of this test's own (tests/pg.py), a member's shared store driven from many threads.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator

import psycopg
import pytest

from pg import PostgresServer
from syncpoint.store import SharedMessage, StoreError, create_member
from syncpoint.store._postgres_shared import PostgresSharedQueues, member_lock
from waiting import wait_until

SESSION_THREADS = 6  # threads whose verbs run on the session's connection
POOL_THREADS = 4  # threads whose verbs take a connection of the pool


@pytest.fixture
def own_server() -> Iterator[PostgresServer]:
    server = PostgresServer().start()
    yield server
    server.stop()


def message(data: bytes) -> SharedMessage:
    return SharedMessage(0, "SQ", 0, True, b"\0" * 364, data, b"\0" * 24, b"\0" * 24, -1, 0.0)


def liveness_holders(url: str) -> int:
    hi, lo = member_lock("SPG", "QMA")
    with psycopg.connect(url) as conn:
        row = conn.execute(
            "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND granted AND classid = %s::oid "
            "AND objid = %s::oid AND objsubid = 2",
            (hi % 2**32, lo % 2**32),
        ).fetchone()
        return int(row[0])


def test_one_lost_connection_starts_one_new_session_however_many_verbs_met_it(own_server):
    url = own_server.new_database()
    create_member(url, "SPG", "QMA")
    store = PostgresSharedQueues(url, "SPG", "QMA")
    store.open()
    first = store.session
    put: list[bytes] = []  # the puts that returned: committed
    lock = threading.Lock()
    go = threading.Barrier(SESSION_THREADS + POOL_THREADS + 1)
    outcome: dict[str, int] = {"failed": 0, "ok": 0}

    def session_verb(n: int) -> None:
        go.wait()
        try:
            store.definitions()  # the session's own connection
            store.trigger_counts("SQ", 0, 0)
            with lock:
                outcome["ok"] += 1
        except StoreError:
            with lock:
                outcome["failed"] += 1

    def pool_verb(n: int) -> None:
        go.wait()
        data = b"after %d" % n
        try:
            store.put(message(data), None)  # out of syncpoint: committed when it returns
            with lock:
                put.append(data)
                outcome["ok"] += 1
        except StoreError:
            with lock:
                outcome["failed"] += 1

    try:
        for n in range(3):
            store.put(message(b"before %d" % n), None)
            put.append(b"before %d" % n)
        store.definitions()
        assert liveness_holders(url) == 1

        own_server.restart()  # every connection of the member is cut

        threads = [threading.Thread(target=session_verb, args=(n,)) for n in range(SESSION_THREADS)]
        threads += [threading.Thread(target=pool_verb, args=(n,)) for n in range(POOL_THREADS)]
        for t in threads:
            t.start()
        go.wait()  # every verb at once: each meets the lost connection, or the new session
        for t in threads:
            t.join(120)
        assert outcome["failed"] + outcome["ok"] == SESSION_THREADS + POOL_THREADS

        def working() -> bool:
            try:
                store.definitions()
                return True
            except StoreError:
                return False

        wait_until(working, "the member's new session")
        assert store.sessions == 2, f"{store.sessions - 1} new sessions for one lost connection"
        assert store.session != first
        assert liveness_holders(url) == 1
        with psycopg.connect(url) as conn:
            row = conn.execute("SELECT session FROM qsg_member WHERE qsg = 'SPG' AND member = 'QMA'").fetchone()
            assert row is not None and row[0] == store.session
            kept = {bytes(r[0]) for r in conn.execute("SELECT data FROM qsg_message WHERE queue = 'SQ'")}
        assert set(put) <= kept  # nothing committed lost
    finally:
        store.close()
