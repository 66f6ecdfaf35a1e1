"""PostgresStore: the store contract (``_base``) kept in a PostgreSQL database, under a namespace.

Theory of operation
-------------------
The tables ``store_message``, ``store_inflight``, ``store_object`` and ``store_counter`` hold what a SQLite store
holds, each row keyed by a *namespace* (e.g. a member of a queue-sharing group), so several stores share one
database. A batch is one PostgreSQL transaction applying its changes in the documented order (``APPLY_ORDER`` of
the SQLite store); any failure (a duplicate ``seq``, a counter out of 64 bits) rolls the whole batch back and is
reported as :class:`~syncpoint.store.StoreError`. ``submit`` applies the batch at once under one lock (one
connection, so batches apply in submission order) and returns its outcome. Every transaction commits with
PostgreSQL's own durability (``synchronous_commit`` of the database), so ``durable`` needs nothing more.

Connection strings may carry a password: they are never put in an error message (:func:`describe_error`).
"""

from __future__ import annotations

import threading
from typing import Any

import psycopg

from ._base import Batch, Snapshot, StoredMessage, StoreError

SCHEMA = """
CREATE TABLE IF NOT EXISTS store_message (
    ns text NOT NULL, seq bigint NOT NULL, queue text NOT NULL, priority integer NOT NULL,
    md bytea NOT NULL, data bytea NOT NULL, backout bigint NOT NULL, put_time double precision NOT NULL,
    PRIMARY KEY (ns, seq));
CREATE TABLE IF NOT EXISTS store_inflight (ns text NOT NULL, seq bigint NOT NULL, PRIMARY KEY (ns, seq));
CREATE TABLE IF NOT EXISTS store_object (
    ns text NOT NULL, kind text NOT NULL, name text NOT NULL, definition bytea NOT NULL,
    PRIMARY KEY (ns, kind, name));
CREATE TABLE IF NOT EXISTS store_counter (ns text NOT NULL, name text NOT NULL, value bigint NOT NULL,
    PRIMARY KEY (ns, name));
"""


def describe_error(e: BaseException) -> str:
    """A PostgreSQL or connection error as a sentence without the connection string (it may hold a password)."""
    if isinstance(e, psycopg.Error):
        diag = getattr(e, "diag", None)
        primary = diag.message_primary if diag is not None else None
        state = getattr(e, "sqlstate", None)
        lines = str(e).strip().splitlines()
        text = primary or (lines[0] if lines else type(e).__name__)
        return f"{text} (SQLSTATE {state})" if state else text
    return type(e).__name__


def connect(url: str, **kwargs: Any) -> psycopg.Connection[Any]:
    """Connect to PostgreSQL; StoreError naming the problem, never the URL, when it cannot."""
    try:
        return psycopg.connect(url, connect_timeout=10, **kwargs)
    except psycopg.Error as e:
        raise StoreError(
            f"PostgreSQL cannot be reached: {describe_error(e)}. Check the shared database's connection string."
        ) from None


class _Done:
    __slots__ = ("error",)

    done = True

    def __init__(self, error: StoreError | None = None) -> None:
        self.error = error

    def wait(self) -> None:
        if self.error is not None:
            raise self.error


class PostgresStore:
    """A :class:`~syncpoint.store.Store` in PostgreSQL, under ``namespace`` (see the module doc)."""

    def __init__(self, url: str, namespace: str) -> None:
        self._url = url
        self.namespace = namespace
        self._lock = threading.Lock()
        self._conn: psycopg.Connection[Any] | None = None

    def open(self) -> Snapshot:
        """Recover (back out in-flight gets with their backout counts + 1) and return the state."""
        with self._lock:
            if self._conn is None:
                conn = connect(self._url, autocommit=False)
                try:
                    with conn.transaction():
                        conn.execute("SELECT pg_advisory_xact_lock(7242001)")  # one creator of the schema at a time
                        conn.execute(SCHEMA)
                except psycopg.Error as e:
                    conn.close()
                    raise StoreError(f"The PostgreSQL store cannot be opened: {describe_error(e)}.") from None
                self._conn = conn
            conn = self._conn
            ns = self.namespace
            try:
                with conn.transaction():
                    cur = conn.execute(
                        "UPDATE store_message m SET backout = backout + 1 FROM store_inflight i "
                        "WHERE i.ns = %s AND m.ns = i.ns AND m.seq = i.seq",
                        (ns,),
                    )
                    recovered = cur.rowcount
                    conn.execute("DELETE FROM store_inflight WHERE ns = %s", (ns,))
                    objects: dict[str, dict[str, bytes]] = {}
                    for kind, name, definition in conn.execute(
                        "SELECT kind, name, definition FROM store_object WHERE ns = %s ORDER BY kind, name", (ns,)
                    ):
                        objects.setdefault(kind, {})[name] = bytes(definition)
                    messages = [
                        StoredMessage(seq, queue, priority, bytes(md), bytes(data), backout, put_time)
                        for seq, queue, priority, md, data, backout, put_time in conn.execute(
                            "SELECT seq, queue, priority, md, data, backout, put_time FROM store_message "
                            "WHERE ns = %s ORDER BY seq",
                            (ns,),
                        )
                    ]
                    counters = dict(
                        conn.execute("SELECT name, value FROM store_counter WHERE ns = %s", (ns,)).fetchall()
                    )
            except psycopg.Error as e:
                raise StoreError(f"The PostgreSQL store cannot be read: {describe_error(e)}.") from None
            return Snapshot(objects=objects, messages=messages, counters=counters, recovered_inflight=recovered)

    def submit(self, batch: Batch) -> _Done:
        with self._lock:
            conn = self._conn
            if conn is None:
                raise StoreError("The PostgreSQL store is not open; call open() before writing to it.")
            if batch.is_empty():
                return _Done()
            try:
                with conn.transaction():
                    self._apply(conn, batch)
            except (psycopg.Error, OverflowError) as e:
                return _Done(
                    StoreError(
                        f"The batch was not applied, and nothing of it was kept: {describe_error(e)}. "
                        "Correct the batch (each message seq may be stored once) and write it again."
                    )
                )
            return _Done()

    def write(self, batch: Batch) -> None:
        self.submit(batch).wait()

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None

    def _apply(self, conn: psycopg.Connection[Any], b: Batch) -> None:
        ns = self.namespace
        cur = conn.cursor()
        if b.put_objects:
            cur.executemany(
                "INSERT INTO store_object VALUES (%s, %s, %s, %s) "
                "ON CONFLICT (ns, kind, name) DO UPDATE SET definition = excluded.definition",
                [(ns, kind, name, bytes(d)) for kind, name, d in b.put_objects],
            )
        if b.delete_objects:
            cur.executemany(
                "DELETE FROM store_object WHERE ns = %s AND kind = %s AND name = %s",
                [(ns, kind, name) for kind, name in b.delete_objects],
            )
        if b.put_messages:
            with cur.copy(
                "COPY store_message (ns, seq, queue, priority, md, data, backout, put_time) FROM STDIN"
            ) as copy:
                for m in b.put_messages:
                    copy.write_row(
                        (ns, m.seq, m.queue, m.priority, bytes(m.md), bytes(m.data), m.backout_count, m.put_time)
                    )
        if b.delete_queue_messages:
            queues = list(b.delete_queue_messages)
            cur.execute(
                "DELETE FROM store_inflight i USING store_message m WHERE i.ns = %s AND m.ns = i.ns "
                "AND m.seq = i.seq AND m.queue = ANY(%s)",
                (ns, queues),
            )
            cur.execute("DELETE FROM store_message WHERE ns = %s AND queue = ANY(%s)", (ns, queues))
        if b.backout_updates:
            cur.executemany(
                "UPDATE store_message SET backout = %s WHERE ns = %s AND seq = %s",
                [(count, ns, seq) for seq, count in b.backout_updates],
            )
        if b.delete_messages:
            seqs = list(b.delete_messages)
            cur.execute("DELETE FROM store_message WHERE ns = %s AND seq = ANY(%s)", (ns, seqs))
            cur.execute("DELETE FROM store_inflight WHERE ns = %s AND seq = ANY(%s)", (ns, seqs))
        if b.inflight_add:
            cur.executemany(
                "INSERT INTO store_inflight VALUES (%s, %s) ON CONFLICT DO NOTHING", [(ns, s) for s in b.inflight_add]
            )
        if b.inflight_remove:
            cur.execute("DELETE FROM store_inflight WHERE ns = %s AND seq = ANY(%s)", (ns, list(b.inflight_remove)))
        if b.counters:
            cur.executemany(
                "INSERT INTO store_counter VALUES (%s, %s, %s) "
                "ON CONFLICT (ns, name) DO UPDATE SET value = excluded.value",
                [(ns, name, value) for name, value in b.counters.items()],
            )
