"""The shared store's connections and group commit: the pool of a member's verbs, and one PostgreSQL commit
for the durable verbs that come together.

Theory of operation
-------------------
Owns: :class:`_Pool` (idle connections of one kind, durable or fast — ``synchronous_commit = off`` — for the
member's verbs: a connection serves one verb at a time, so several of the member's applications wait for
PostgreSQL at once), :class:`_Group` (group commit: the verbs that come while a group transaction runs go
together in the next one, one commit for all of them, as PostgreSQL's clients share a WAL flush), and the
COPY of many messages in one statement (:func:`_insert_all`, :func:`_insert_puts`).

Invariants: a connection goes back to the pool only when it is idle, not broken and not in a transaction; a
group of verbs whose transaction fails for another reason than a lost connection is run again verb by verb, so
each verb gets its own error and nothing is lost or doubled (the aborted transaction did nothing).

How it talks to the others: the session (``_qsg_member``) owns the two pools and the group; :class:`_Group`
borrows a connection through the session's ``_use`` and reports failures through its ``_fail`` (given to it at
construction), so a lost connection here replaces the session as it does for any verb. The verbs
(``_qsg_verbs``) and the two-phase commit (``_qsg_indoubt``) insert a unit of work's puts with
:func:`_insert_puts`.
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Callable
from typing import Any, TypeVar

import psycopg

from ._base import StoreError
from ._postgres import connect
from ._qsg_schema import _values
from ._shared import SharedMessage

T = TypeVar("T")

_COPY = (
    "COPY qsg_message ({}qsg, queue, priority, persistent, msgid, correlid, expiry, put_time, backout, md, data{}) "
    "FROM STDIN (FORMAT BINARY)"
)
# the types of _COPY's columns (binary COPY: a row costs a tenth of the text format's escaping of its bytea)
_COPY_TYPES = ["text", "text", "int4", "bool", "bytea", "bytea", "int4", "float8", "int4", "bytea", "bytea"]
GROUPS_IN_FLIGHT = int(os.environ.get("SYNCPOINT_QSG_GROUPS", "4"))  # a member's group transactions at once
POOL_IDLE = 16  # idle connections a member keeps of each kind (durable, fast) for its verbs


def _insert_all(conn: psycopg.Connection[Any], rows: list[tuple[Any, ...]], held: bool, ids: bool = False) -> None:
    """Insert many messages with one COPY (one statement, inside the caller's transaction); ``ids``: each row
    starts with its message's id."""
    copy_sql = _COPY.format("id, " if ids else "", ", owner, uow" if held else "")
    types = (["int8"] if ids else []) + _COPY_TYPES + (["text", "int8"] if held else [])
    with conn.cursor().copy(copy_sql) as copy:
        copy.set_types(types)
        for row in rows:
            copy.write_row(row)


class _Job:
    """One verb's durable statements, waiting for the member's next group transaction (``_Group``)."""

    __slots__ = ("done", "error", "fn", "result", "single")

    def __init__(self, fn: Callable[[psycopg.Connection[Any]], Any], single: bool) -> None:
        self.fn = fn
        self.single = single  # one statement: alone in a group, it needs no BEGIN and COMMIT (see _Group._commit)
        self.done = False
        self.result: Any = None
        self.error: BaseException | None = None


class _Group:
    """Group commit for the member's durable verbs: a put or get outside syncpoint, an MQCMIT or MQBACK.
    The first verb to come while no group transaction runs leads: it takes every verb waiting (its own
    among them), runs their statements in one PostgreSQL transaction and commits it once, for all of them;
    the verbs that come meanwhile wait and go in the next transaction. So the member's concurrent applications
    share one commit (one wait for PostgreSQL's disk) as PostgreSQL's clients share a WAL flush, and the
    member's PostgreSQL commits per message fall as its load rises. A statement that fails for another reason
    than a lost connection aborts the transaction: each verb of the group is then run again on its own (its
    own error for the one that failed, nothing lost or doubled for the others: the aborted transaction did
    nothing)."""

    def __init__(
        self,
        use: Callable[[], contextlib.AbstractContextManager[psycopg.Connection[Any]]],
        fail: Callable[[psycopg.Error], StoreError],
    ) -> None:
        self._use = use  # the session's connection for one verb (a lost one replaces the session)
        self._fail = fail  # the session's reading of a failed statement
        self._cond = threading.Condition()
        self._waiting: list[_Job] = []
        self._leading = 0  # group transactions in flight

    def run(self, fn: Callable[[psycopg.Connection[Any]], T], single: bool = False) -> T:
        """``fn``'s statements in the member's next group transaction; ``single``: ``fn`` runs one statement."""
        job = _Job(fn, single)
        cond = self._cond
        with cond:
            self._waiting.append(job)
            while not job.done:
                if self._leading >= GROUPS_IN_FLIGHT or job not in self._waiting:
                    cond.wait()
                    continue
                jobs, self._waiting = self._waiting, []
                self._leading += 1
                cond.release()
                try:
                    self._commit(jobs)
                finally:
                    cond.acquire()
                    self._leading -= 1
                    for j in jobs:
                        j.done = True
                    cond.notify_all()
        if job.error is not None:
            raise job.error
        result: T = job.result
        return result

    def _commit(self, jobs: list[_Job]) -> None:
        try:
            with self._use() as conn:
                if len(jobs) == 1 and jobs[0].single:
                    # one statement alone: its own transaction on the autocommit connection, as atomic and as
                    # durable, in one round trip instead of three (BEGIN, the statement, COMMIT)
                    jobs[0].result = jobs[0].fn(conn)
                    return
                try:
                    with conn.transaction():
                        for j in jobs:
                            j.result = j.fn(conn)
                    return
                except psycopg.OperationalError:
                    raise
                except psycopg.Error:
                    if conn.broken or len(jobs) == 1:
                        raise
                for j in jobs:  # one failed: each on its own
                    try:
                        with conn.transaction():
                            j.result = j.fn(conn)
                    except psycopg.OperationalError:
                        raise
                    except psycopg.Error as e:
                        if conn.broken:
                            raise
                        j.error = self._fail(e)
        except StoreError as e:
            for j in jobs:
                if j.error is None:
                    j.error = e
        except BaseException as e:  # a defect: every verb of the group learns it
            for j in jobs:
                if j.error is None:
                    j.error = e


class _Pool:
    """Idle connections of one kind (durable, or fast: ``synchronous_commit = off``) for the member's verbs. A
    connection serves one verb at a time, so several verbs of the member (several of its applications) wait
    for PostgreSQL at once, each on its own connection; psycopg prepares a statement a connection runs often."""

    def __init__(self, url: str, fast: bool) -> None:
        self._url = url
        self._fast = fast
        self._idle: list[psycopg.Connection[Any]] = []
        self._lock = threading.Lock()

    def take(self) -> psycopg.Connection[Any]:
        with self._lock:
            if self._idle:
                return self._idle.pop()
        conn = connect(self._url, autocommit=True)
        if self._fast:
            try:
                conn.execute("SET synchronous_commit = off")
            except psycopg.Error:
                conn.close()
                raise
        return conn

    def give(self, conn: psycopg.Connection[Any]) -> None:
        if not conn.closed and not conn.broken and conn.info.transaction_status == psycopg.pq.TransactionStatus.IDLE:
            with self._lock:
                if len(self._idle) < POOL_IDLE:
                    self._idle.append(conn)
                    return
        conn.close()

    def close(self) -> None:
        with self._lock:
            idle, self._idle = self._idle, []
        for conn in idle:
            conn.close()


def _insert_puts(
    conn: psycopg.Connection[Any], qsg: str, puts: list[SharedMessage], owner: str | None, uow: int | None
) -> None:
    """A unit of work's puts inserted at its commit (``owner`` None) or prepare, with one COPY for those whose
    id is the commit's and one for those whose id was taken at the put (:meth:`PostgresSharedQueues.room`): these
    keep it, so their place in FIFO order is their put's, as on a private queue, not their commit's."""
    held = () if owner is None else (owner, uow)
    plain = [(*_values(qsg, m), *held) for m in puts if not m.id]
    placed = [(m.id, *_values(qsg, m), *held) for m in puts if m.id]
    if plain:
        _insert_all(conn, plain, held=owner is not None)
    if placed:
        _insert_all(conn, placed, held=owner is not None, ids=True)
