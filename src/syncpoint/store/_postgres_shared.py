"""PostgresSharedQueues: a queue-sharing group's shared store in PostgreSQL (``_shared.SharedQueues``).

Theory of operation
-------------------
The tables (docs/queue-sharing-groups.md): ``qsg`` (one row a group), ``qsg_member`` (one row a member, with the
session of its running incarnation), ``qsg_object`` (GROUP and SHARED definitions), ``qsg_message`` (the
messages of every shared queue; ``owner``/``uow``/``got`` hold a message in a member's unit of work).

Each verb is one short transaction on one of the member's connections (autocommit; several statements in one
``transaction()``), never a transaction held across verbs: a unit of work's gets are the ``owner, uow`` of their
rows, so nothing is locked between verbs and any member can back out another's work. Its puts stay in this
object until its commit inserts them, in the commit's one transaction (nobody may see them before; a member that
dies takes them along). Gets claim the first available row with ``FOR UPDATE SKIP LOCKED``, so concurrent
getters on any member never wait for each other. What need not survive the loss of the database (a claim before
its commit, a non-persistent message) is written on connections with ``synchronous_commit = off``.

Speed: the verbs take a connection of the member's pool (``_Pool``; the host lets go of its lock while they wait,
so several run at once); the durable ones share group transactions (``_Group``: one PostgreSQL commit for the
verbs that came while the previous one ran); a unit of work's puts are one COPY; a get of many messages in a
unit of work claims them with one statement (:meth:`PostgresSharedQueues.get_ahead`).

``owner`` is ``<member>.<session>``, a fresh session each time the member opens the group: at open, whatever an
earlier session of this member still holds is backed out (its puts deleted, its gets reinstated with
BackoutCount + 1), as a restarted queue manager backs out its units of work.

Wake-ups: :meth:`PostgresSharedQueues.notify` hands queue names to a notifier thread that sends them with
``pg_notify`` on its own autocommit connection, after the commit that made the messages available and outside
any unit of work's transaction (a NOTIFY in a transaction serialises commits and forbids PREPARE TRANSACTION).
:func:`listen` is the other side, run by the host's thread.

The connection string may hold a password: it is kept in this object only and never put in a message.
"""

from __future__ import annotations

import contextlib
import logging
import math
import os
import re
import secrets
import threading
import time
import zlib
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

import psycopg

from ._base import StoreError
from ._postgres import connect, describe_error
from ._shared import InDoubtUnit, SharedMatch, SharedMessage

T = TypeVar("T")
SCHEMA_VERSION = 1
SCHEMA = """
CREATE TABLE IF NOT EXISTS qsg (
    qsg text PRIMARY KEY, version integer NOT NULL, created timestamptz NOT NULL DEFAULT now());
CREATE TABLE IF NOT EXISTS qsg_member (
    qsg text NOT NULL REFERENCES qsg, member text NOT NULL, session text, started timestamptz,
    PRIMARY KEY (qsg, member));
CREATE TABLE IF NOT EXISTS qsg_object (
    qsg text NOT NULL REFERENCES qsg, kind text NOT NULL, name text NOT NULL, disp text NOT NULL,
    definition bytea NOT NULL, PRIMARY KEY (qsg, kind, name));
CREATE TABLE IF NOT EXISTS qsg_message (
    id bigserial PRIMARY KEY, qsg text NOT NULL, queue text NOT NULL, priority integer NOT NULL,
    persistent boolean NOT NULL, msgid bytea NOT NULL, correlid bytea NOT NULL, expiry integer NOT NULL,
    put_time double precision NOT NULL, backout integer NOT NULL DEFAULT 0, md bytea NOT NULL, data bytea NOT NULL,
    owner text, uow bigint, got boolean NOT NULL DEFAULT false);
CREATE INDEX IF NOT EXISTS qsg_message_next ON qsg_message (qsg, queue, priority DESC, id) WHERE owner IS NULL;
CREATE INDEX IF NOT EXISTS qsg_message_owner ON qsg_message (owner, uow) WHERE owner IS NOT NULL;
CREATE TABLE IF NOT EXISTS qsg_open (
    qsg text NOT NULL, queue text NOT NULL, owner text NOT NULL, exclusive boolean NOT NULL,
    PRIMARY KEY (qsg, queue, owner));
CREATE TABLE IF NOT EXISTS qsg_indoubt (
    qsg text NOT NULL, owner text NOT NULL, uow bigint NOT NULL, PRIMARY KEY (owner, uow));
CREATE TABLE IF NOT EXISTS qsg_uncommitted (
    qsg text NOT NULL, queue text NOT NULL, owner text NOT NULL, uow bigint NOT NULL, n integer NOT NULL,
    PRIMARY KEY (qsg, queue, owner, uow));
"""
LIVENESS_WAIT = 5.0  # seconds a starting member waits for its liveness lock (a peer may be recovering it)
NOTIFY_GAP = 0.02  # seconds between two NOTIFYs of a member (the other members' waiters wake that much later)
PEER_CHECK = 1.0  # seconds between two looks for dead peers (peer recovery)
_SCHEMA_LOCK = 7242002  # an advisory lock: one creator of the schema at a time
_INDEX_LOCK = 7242003  # an advisory lock: one builder of the scan's index at a time (_ensure_expiry_index)

# seed 002: the member that scans the group's shared queues for expired messages (lead_expiry_scan)
_SCANNER_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS qsg_scanner (qsg text PRIMARY KEY, member text NOT NULL, since timestamptz NOT NULL)"
)

QSG_NAME = re.compile(r"^[A-Z][A-Z0-9]{0,3}$")
_COLUMNS = "id, queue, priority, persistent, md, data, msgid, correlid, expiry, put_time, backout"
# seed 002: the scan's claim of expired messages (``expire``); the partial index ``qsg_message_expiry`` serves it
_EXPIRES = "put_time + expiry / 10.0"  # a message's deadline (engine seconds); expiry -1: unlimited
_EXPIRE_CLAIM = (
    "UPDATE qsg_message SET owner = %s, uow = %s, got = true WHERE id IN (SELECT id FROM qsg_message WHERE qsg = %s "
    f"AND owner IS NULL AND expiry <> -1 AND {_EXPIRES} <= %s LIMIT %s FOR UPDATE SKIP LOCKED) "
    f"RETURNING {_COLUMNS}"
)
# seed 002: an expired message a get or browse met, claimed by id for the engine's unit of work that discards
# and reports it (``expire``): available (``owner IS NULL``) or held by this session in the get's unit of work,
# its claim (0) or the handle's browse lock
_EXPIRE_MET = (
    "UPDATE qsg_message SET owner = %s, uow = %s, got = true WHERE id = %s AND {} AND expiry <> -1 "
    f"RETURNING {_COLUMNS}"
)


def _take_unexpired(where: str, order: str) -> str:
    """Seed 002: the statement of a get out of syncpoint that deletes the first message ``where`` selects in
    ``order`` — unless it has expired: that one the same statement claims (held by this session's unit of work 0,
    as a claim) instead, and returns with ``expired`` true, for the engine to discard and report in a unit of work
    of its own (:meth:`PostgresSharedQueues.expire`), so that no crash can part the discard from the report. One
    statement either way (the get costs no round trip more). Parameters: now, ``where``'s, the owner."""
    return (
        f"WITH p AS (SELECT id, expiry <> -1 AND {_EXPIRES} <= %s AS expired FROM qsg_message WHERE {where} "
        f"ORDER BY {order} LIMIT 1 FOR UPDATE SKIP LOCKED), "
        f"d AS (DELETE FROM qsg_message WHERE id = (SELECT id FROM p WHERE NOT expired) RETURNING {_COLUMNS}), "
        "c AS (UPDATE qsg_message SET owner = %s, uow = 0, got = true WHERE id = (SELECT id FROM p WHERE expired) "
        f"RETURNING {_COLUMNS}) SELECT *, false FROM d UNION ALL SELECT *, true FROM c"
    )


# only the messages that can expire, by deadline: the scan reads those, not the whole table (created at every
# member's start when missing, so a database made by an earlier version gets it at its first strmqm, online:
# _ensure_expiry_index)
_EXPIRY_INDEX = (
    f"CREATE INDEX CONCURRENTLY IF NOT EXISTS qsg_message_expiry ON qsg_message (qsg, ({_EXPIRES})) "
    "WHERE expiry <> -1 AND owner IS NULL"
)


# the packed MQMD version 2 (SharedMessage.md): GroupId at bytes 324-347, MsgSeqNumber at 348-351
_GROUPID = "substring(md from 325 for 24)"
_SEQNO = "substring(md from 349 for 4)"
# the group's depth as another member sees it: committed and held rows not got, plus the other members' (other
# sessions') uncommitted puts; a member adds its own from memory (PostgresSharedQueues._mine)
_DEPTH = (
    "SELECT (SELECT count(*) FROM qsg_message WHERE qsg = %s AND queue = %s AND NOT got) "
    "+ (SELECT coalesce(sum(n), 0) FROM qsg_uncommitted WHERE qsg = %s AND queue = %s AND owner <> %s)"
)
_ROOM = (
    f"WITH d AS ({_DEPTH} AS depth), up AS (INSERT INTO qsg_uncommitted (qsg, queue, owner, uow, n) "
    "SELECT %s, %s, %s, %s, %s FROM d WHERE d.depth + %s < %s ON CONFLICT (qsg, queue, owner, uow) "
    "DO UPDATE SET n = excluded.n RETURNING 1) SELECT depth, nextval('qsg_message_id_seq') FROM d"
)
# a member's units of work's counts of uncommitted puts, published together (PostgresSharedQueues._publish)
_PUBLISH = (
    "INSERT INTO qsg_uncommitted (qsg, queue, owner, uow, n) SELECT %s, q, %s, u, n "
    "FROM unnest(%s::text[], %s::bigint[], %s::integer[]) AS t(q, u, n) "
    "ON CONFLICT (qsg, queue, owner, uow) DO UPDATE SET n = excluded.n"
)
# the error log's explanation and action for a failure of the publisher (_publish_loop)
_PUBLISH_FAILED = (
    "The thread of the queue manager that writes its counts of uncommitted puts on shared queues to the group's "
    "database (qsg_uncommitted: the other members' CURDEPTH and MAXDEPTH count them) failed with an error that is "
    "not the database's. The counts it was writing are kept, and it tries again; meanwhile the other members "
    "count this member's uncommitted puts late (their own, and this member's CURDEPTH, are exact).",
    "If the entry repeats, save this error log and report the problem. The queue manager goes on serving; "
    "restarting it starts the thread afresh.",
)
# ... and of the member's listener (listen: other members' wake-ups, peer recovery)
_LISTEN_FAILED = (
    "The thread of the queue manager that listens for the other members' notifications (waking the gets that wait "
    "on shared queues) and backs out the units of work of failed members (peer recovery) failed with an error that "
    "is not the database's. It tries again; meanwhile waiting gets and peer recovery are late.",
    "If the entry repeats, save this error log and report the problem. The queue manager goes on serving; "
    "restarting it starts the thread afresh.",
)
# ... and of its notifier (_notify_loop: this member's commits waking the others' gets)
_NOTIFY_FAILED = (
    "The thread of the queue manager that notifies the other members of messages committed on shared queues failed "
    "with an error that is not the database's. It tries again; meanwhile the other members find those messages "
    "by their own look every 100 ms.",
    "If the entry repeats, save this error log and report the problem. The queue manager goes on serving; "
    "restarting it starts the thread afresh.",
)
_ID_BLOCK = "SELECT nextval('qsg_message_id_seq') FROM generate_series(1, %s)"
NO_LIMIT = 999_999_999  # MAXDEPTH's largest value: a put's MAXDEPTH check cannot fail (PostgresSharedQueues.room)
ID_BLOCK = 64  # ids a member takes at least from the group's sequence at once for its puts in syncpoint (_next_id)
ID_BLOCK_MAX = 8192  # and at most
ID_AGE = 0.1  # seconds a block of ids serves: a put's place in FIFO order is at most that much before its put
PUBLISH_GAP = 0.005  # seconds a member gathers counts of uncommitted puts before it publishes them (_publish)
PUBLISH_RETRY = 0.1  # seconds the publisher waits after a failure of its own, doubled at each one in a row ...
PUBLISH_RETRY_MAX = 5.0  # ... up to this
_log = logging.getLogger("syncpoint.store.qsg")  # the member's error log shows its AMQ entries (host/_errorlog)


def channel(qsg: str) -> str:
    """The LISTEN/NOTIFY channel of a group."""
    return f"syncpoint_{qsg.lower()}"


def _row(r: tuple[Any, ...]) -> SharedMessage:
    return SharedMessage(r[0], r[1], r[2], r[3], bytes(r[4]), bytes(r[5]), bytes(r[6]), bytes(r[7]), r[8], r[9], r[10])


def _taken(r: tuple[Any, ...]) -> SharedMessage:
    """A row of :func:`_take_unexpired`: deleted, or claimed because it expired (``expired``)."""
    m = _row(r)
    m.expired = r[11]
    return m


_INSERT = (
    "INSERT INTO qsg_message (qsg, queue, priority, persistent, msgid, correlid, expiry, put_time, backout, md, "
    "data) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)"
)


_INSERT_HELD = (
    "INSERT INTO qsg_message (qsg, queue, priority, persistent, msgid, correlid, expiry, put_time, backout, md, "
    "data, owner, uow) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)"
)
_COPY = (
    "COPY qsg_message ({}qsg, queue, priority, persistent, msgid, correlid, expiry, put_time, backout, md, data{}) "
    "FROM STDIN (FORMAT BINARY)"
)
# the types of _COPY's columns (binary COPY: a row costs a tenth of the text format's escaping of its bytea)
_COPY_TYPES = ["text", "text", "int4", "bool", "bytea", "bytea", "int4", "float8", "int4", "bytea", "bytea"]
_RELEASE = "UPDATE qsg_message SET owner = NULL, uow = NULL, got = false WHERE id = ANY(%s) AND owner = %s"
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

    def __init__(self, store: PostgresSharedQueues) -> None:
        self._store = store
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
            with self._store._use() as conn:
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
                        j.error = self._store._fail(e)
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


def _crash_point(name: str) -> None:
    """The kill tests of the two-phase commit end the process here (``SYNCPOINT_QSG_CRASH``), as a crash would."""
    if os.environ.get("SYNCPOINT_QSG_CRASH") == name:
        os._exit(137)


_defects: dict[str, int] = {}  # defect point -> times it raised (_defect_point)


def _defect_point(name: str) -> None:
    """The tests of the member's own threads make a defect happen here (``SYNCPOINT_QSG_DEFECT=name:times``): the
    first ``times`` passes raise RuntimeError, as a bug in the code after this point would."""
    wanted = os.environ.get("SYNCPOINT_QSG_DEFECT")
    if wanted is None or not wanted.startswith(name + ":"):
        return
    done = _defects.get(name, 0)
    if done < int(wanted.rpartition(":")[2]):
        _defects[name] = done + 1
        raise RuntimeError(f"the defect injected at {name} (SYNCPOINT_QSG_DEFECT), pass {done + 1}")


def _values(qsg: str, m: SharedMessage) -> tuple[Any, ...]:
    return (qsg, m.queue, m.priority, m.persistent, m.msgid, m.correlid, m.expiry, m.put_time, m.backout, m.md, m.data)


def member_lock(qsg: str, member: str) -> tuple[int, int]:
    """The two keys of a member's advisory lock (held by its session while it runs)."""

    def key(text: str) -> int:
        return zlib.crc32(text.encode()) - 2**31

    return key("syncpoint qsg " + qsg), key(member)


def _back_out_member(conn: psycopg.Connection[Any], qsg: str, member: str) -> int:
    """Back out what any session of ``member`` holds in units of work: its puts deleted, its gets reinstated
    with BackoutCount + 1. Returns how many messages."""
    like = member.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + ".%"
    not_in_doubt = "NOT EXISTS (SELECT 1 FROM qsg_indoubt i WHERE i.owner = m.owner AND i.uow = m.uow)"
    deleted = conn.execute(
        f"DELETE FROM qsg_message m WHERE qsg = %s AND owner LIKE %s AND NOT got AND uow >= 0 AND {not_in_doubt}",
        (qsg, like),
    ).rowcount
    _release_member_locks(conn, qsg, like)
    reinstated = conn.execute(
        "UPDATE qsg_message m SET owner = NULL, uow = NULL, got = false, backout = backout + 1 "
        f"WHERE qsg = %s AND owner LIKE %s AND got AND {not_in_doubt}",
        (qsg, like),
    ).rowcount
    conn.execute("DELETE FROM qsg_open WHERE qsg = %s AND owner LIKE %s", (qsg, like))  # its input opens end
    return deleted + reinstated


def _release_member_locks(conn: psycopg.Connection[Any], qsg: str, like: str) -> None:
    """A member's session ended: its browse locks (rows held with a negative ``uow``, never got) are released
    and its uncommitted puts no longer count towards MAXDEPTH."""
    conn.execute(
        "UPDATE qsg_message SET owner = NULL, uow = NULL WHERE qsg = %s AND owner LIKE %s AND NOT got AND uow < 0",
        (qsg, like),
    )
    conn.execute("DELETE FROM qsg_uncommitted WHERE qsg = %s AND owner LIKE %s", (qsg, like))


def _ensure_schema(conn: psycopg.Connection[Any]) -> None:
    """The group's tables, made when missing (under the schema lock: one creator at a time), then seed 002's scan
    index (:func:`_ensure_expiry_index`). ``conn`` is in autocommit. When they all exist (every start but the
    first on a database) no DDL runs: a ``CREATE INDEX IF NOT EXISTS`` locks its table against writes before it
    finds the index there, so it would wait for the running members' writes and hold the next ones."""
    row = conn.execute(
        "SELECT count(*) FROM unnest(%s::text[]) AS t(name) WHERE to_regclass(name) IS NULL", (_SCHEMA_OBJECTS,)
    ).fetchone()
    if row is None or row[0]:
        with conn.transaction():
            conn.execute("SELECT pg_advisory_xact_lock(%s)", (_SCHEMA_LOCK,))
            conn.execute(SCHEMA)
            conn.execute(INDOUBT_SCHEMA)
    _ensure_expiry_index(conn)


def _ensure_expiry_index(conn: psycopg.Connection[Any]) -> None:
    """Seed 002's scan index (``qsg_message_expiry``), on a database made before it existed: built by the first
    member to start, ``CONCURRENTLY`` and outside the schema lock — so on a large ``qsg_message`` the running
    members' puts and gets go on while it is built (a plain CREATE INDEX would hold their writes for the whole
    build) and the other members' starts do not wait for it. Only the starting member waits (its strmqm); a
    member that finds another building it goes on without it (the scan reads the table meanwhile). A build cut
    short (the member killed) leaves an invalid index: the next start drops it and builds it again. The usual
    case, the index there and valid, is one catalog query."""
    valid = "SELECT indisvalid FROM pg_index WHERE indexrelid = to_regclass('qsg_message_expiry')"
    row = conn.execute(valid).fetchone()
    if row is not None and row[0]:
        return
    got = conn.execute("SELECT pg_try_advisory_lock(%s)", (_INDEX_LOCK,)).fetchone()
    if not got or not got[0]:
        return  # another member is building it
    try:
        row = conn.execute(valid).fetchone()
        if row is not None and not row[0]:  # left invalid by a build cut short
            conn.execute("DROP INDEX CONCURRENTLY IF EXISTS qsg_message_expiry")
        if row is None or not row[0]:
            conn.execute(_EXPIRY_INDEX)
    finally:
        conn.execute("SELECT pg_advisory_unlock(%s)", (_INDEX_LOCK,))


def create_member(url: str, qsg: str, member: str) -> None:
    """crtmqm -qsg: make ``member`` a member of group ``qsg`` (created when new) in the database at ``url``.

    StoreError with a sentence (never the URL) when the database cannot be reached or used, the group name is
    not valid or is the member's name, or the group already has a member of that name. Nothing is changed then.
    """
    if not QSG_NAME.match(qsg):
        raise StoreError(
            f"The queue-sharing group name {qsg!r} is not valid: 1 to 4 characters, A-Z and 0-9, starting with a "
            "letter."
        )
    if qsg == member:
        raise StoreError(f"The queue-sharing group name {qsg} must differ from the queue manager's name.")
    conn = connect(url, autocommit=True)
    try:
        _ensure_schema(conn)
        with conn.transaction():
            conn.execute("INSERT INTO qsg (qsg, version) VALUES (%s, %s) ON CONFLICT DO NOTHING", (qsg, SCHEMA_VERSION))
            taken = conn.execute(
                "SELECT 1 FROM qsg_member WHERE qsg = %s AND member = %s FOR UPDATE", (qsg, member)
            ).fetchone()
            if taken:
                raise StoreError(
                    f"Queue-sharing group {qsg} already has a member named {member}: choose another queue manager "
                    "name, or remove the old member from the group first."
                )
            other = conn.execute(
                "SELECT qsg FROM qsg_member WHERE member = %s AND qsg <> %s LIMIT 1", (member, qsg)
            ).fetchone()
            if other:  # IBM: a queue manager is a member of one queue-sharing group
                raise StoreError(
                    f"Queue manager {member} is already a member of queue-sharing group {other[0]} in this database: "
                    "a queue manager belongs to one group; choose another name."
                )
            clash = conn.execute("SELECT 1 FROM qsg WHERE qsg = %s", (member,)).fetchone()
            if clash:
                raise StoreError(f"{member} is the name of a queue-sharing group: a queue manager needs another name.")
            conn.execute("INSERT INTO qsg_member (qsg, member) VALUES (%s, %s)", (qsg, member))
    except psycopg.Error as e:
        raise StoreError(f"The shared database cannot be used: {describe_error(e)}.") from None
    finally:
        conn.close()


def remove_member(url: str, qsg: str, member: str) -> None:
    """Undo :func:`create_member` (a crtmqm that failed after it; dltmqm). Errors are ignored."""
    try:
        conn = connect(url, autocommit=True)
    except StoreError:
        return
    try:
        conn.execute("DELETE FROM qsg_member WHERE qsg = %s AND member = %s", (qsg, member))
    except psycopg.Error:
        pass
    finally:
        conn.close()


# -- in-doubt units of work settled by a peer (RESOLVE INDOUBT; docs/queue-sharing-groups.md) ------------------------
INDOUBT_SCHEMA = """
CREATE TABLE IF NOT EXISTS qsg_resolved (
    qsg text NOT NULL, owner text NOT NULL, uow bigint NOT NULL, action text NOT NULL, by text NOT NULL,
    at timestamptz NOT NULL DEFAULT now(), PRIMARY KEY (owner, uow));
CREATE TABLE IF NOT EXISTS qsg_indoubt_private (
    qsg text NOT NULL, owner text NOT NULL, uow bigint NOT NULL, part bytea NOT NULL, PRIMARY KEY (owner, uow));
"""


# every table and index of SCHEMA and INDOUBT_SCHEMA (_ensure_schema makes them when one is missing)
_SCHEMA_OBJECTS = re.findall(r"(?:TABLE|INDEX) IF NOT EXISTS (\w+)", SCHEMA + INDOUBT_SCHEMA)


def nid(owner: str, uow: int) -> str:
    """The network id (IBM's NID) of a unit of work: its member's session and its number, ``QMA.3F9A0C1B2D4E.17``
    (in capitals: MQSC folds what is not quoted)."""
    member, _, session = owner.rpartition(".")
    return f"{member}.{session.upper()}.{uow}"


def _like(member: str) -> str:
    """A LIKE pattern for every session (``owner``) of ``member``."""
    return member.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + ".%"


class PostgresSharedQueues:
    """A member's connection to its group's shared store (see the module doc)."""

    def __init__(self, url: str, qsg: str, member: str) -> None:
        self._url = url
        self.qsg = qsg
        self.member = member
        self.session = secrets.token_hex(6)
        self.owner = f"{member}.{self.session}"
        self._conn: psycopg.Connection[Any] | None = None  # durable commits (synchronous_commit on)
        self._fast: psycopg.Connection[Any] | None = None  # see _f
        self._pending: dict[int, list[SharedMessage]] = {}  # unit of work -> its puts, inserted at commit
        self._pool = _Pool(url, fast=False)  # the verbs' connections (see _use)
        self._fast_pool = _Pool(url, fast=True)
        self._session_lock = threading.RLock()  # one thread at a time replaces a lost session
        self._local = threading.local()  # epoch: the session of the connection this thread last took (_session_conn)
        self._group = _Group(self)  # the durable verbs' group commit
        # an MQGET of many messages in a unit of work (get_ahead): unit of work -> [queue, gets still to come,
        # messages claimed ahead and not yet got]
        self._ahead: dict[int, list[Any]] = {}
        self._epoch = 0  # sessions lost so far (a PostgreSQL restart): a unit of work is of one session
        self._uow_epoch: dict[int, int] = {}  # unit of work -> the epoch it began in
        # units of work that may hold rows of qsg_message (a get's claim, a lock moved to it, the expiry scan's
        # claim): their commit deletes them; one that only put (and counted its puts) skips that DELETE
        self._holds_rows: set[int] = set()
        self._prepared_owner: dict[int, str] = {}  # unit of work prepared -> the session (owner) that prepared it
        self._opened = False
        self._notify_lock = threading.Condition()
        self._to_notify: set[str] = set()
        self._closed = False
        self._notifier: threading.Thread | None = None
        self.recovered = 0  # gets of earlier sessions of this member backed out at open
        self.sessions = 0  # sessions this object started: its open, and one for each connection lost since
        # the counts of uncommitted puts (MAXDEPTH and CURDEPTH, :meth:`room`), guarded by _pub: unit of work ->
        # queue -> its puts counted; -> those in qsg_uncommitted; -> queues whose count waits for _publish; units
        # of work whose counts _publish is writing
        self._pub = threading.Condition()
        self._counted: dict[int, dict[str, int]] = {}
        self._published: dict[int, dict[str, int]] = {}
        self._dirty: dict[int, set[str]] = {}
        self._flushing: set[int] = set()
        self._publisher: threading.Thread | None = None
        self.publish_failures = 0  # failures of the publisher's own (not the database's): see _publish_loop
        self._put_ids: dict[tuple[int, str], int] = {}  # (unit of work, queue) -> the id :meth:`room` took
        self._ids: list[int] = []  # the member's block of ids for its puts in syncpoint, highest first (_next_id)
        self._ids_at = 0.0  # when it was taken (time.monotonic)
        self._ids_size = ID_BLOCK  # how many the next block takes
        self._ids_lock = threading.Lock()
        self._scan_lock_conn: psycopg.Connection[Any] | None = None  # the connection holding the scan lock
        self.heuristic: list[tuple[str, str, str, str]] = []  # RESOLVE decisions its log disagrees with (at open)
        self.follow: list[tuple[str, bytes]] = []  # (action, private part) its private part must follow (at open)
        self._with_private: dict[int, bool] = {}  # units of work prepared with a private part (see prepare)

    # -- life ------------------------------------------------------------------------------------------
    def open(self) -> None:
        """Join the group as this member's new session; back out what earlier sessions left in flight."""
        self._connect_session()
        self._opened = True
        self._notifier = threading.Thread(target=self._notify_loop, name=f"syncpoint-{self.member}-notify", daemon=True)
        self._notifier.start()
        self._publisher = threading.Thread(
            target=self._publish_loop, name=f"syncpoint-{self.member}-counts", daemon=True
        )
        self._publisher.start()

    def _connect_session(self) -> None:
        """A new session of this member: its connections, its liveness lock, and the earlier sessions' work
        backed out. Also after the database was lost (a PostgreSQL restart): the units of work of the lost
        session are then backed out here, and their commits fail (:meth:`_check_uow`)."""
        self.session = secrets.token_hex(6)
        self.owner = f"{self.member}.{self.session}"
        conn = connect(self._url, autocommit=True)
        try:
            _ensure_schema(conn)
            row = conn.execute(
                "SELECT 1 FROM qsg_member WHERE qsg = %s AND member = %s", (self.qsg, self.member)
            ).fetchone()
            if row is None:
                raise StoreError(
                    f"Queue manager {self.member} is not a member of queue-sharing group {self.qsg} in the shared "
                    "database: it was created for another group or another database."
                )
            self._take_liveness_lock(conn)
            with conn.transaction():
                conn.execute(
                    "UPDATE qsg_member SET session = %s, started = now() WHERE qsg = %s AND member = %s",
                    (self.session, self.qsg, self.member),
                )
                self.recovered = _back_out_member(conn, self.qsg, self.member)
        except psycopg.Error as e:
            conn.close()
            raise StoreError(f"The shared database cannot be used: {describe_error(e)}.") from None
        except StoreError:
            conn.close()
            raise
        self._conn = conn
        try:
            self._fast = connect(self._url, autocommit=True)
            self._fast.execute("SET synchronous_commit = off")
        except (StoreError, psycopg.Error) as e:
            conn.close()
            self._conn = None
            raise StoreError(f"The shared database cannot be used: {describe_error(e)}.") from None
        self.sessions += 1

    def _take_liveness_lock(self, conn: psycopg.Connection[Any]) -> None:
        """Hold this member's advisory lock for the life of the session: the peers' sign that it lives. A peer
        recovering this member's previous session holds it for a moment, so try for a while; a member of the
        same name running elsewhere holds it for good."""
        deadline = time.monotonic() + LIVENESS_WAIT
        while True:
            row = conn.execute("SELECT pg_try_advisory_lock(%s, %s)", member_lock(self.qsg, self.member)).fetchone()
            if row is not None and row[0]:
                return
            if time.monotonic() > deadline:
                raise StoreError(
                    f"Queue manager {self.member} of queue-sharing group {self.qsg} is already running, on this or "
                    "another machine: a group has one member of a name."
                )
            time.sleep(0.1)

    def recover_peers(self, conn: psycopg.Connection[Any]) -> int:
        """Peer recovery: back out the in-flight units of work of every member whose session has ended (its
        liveness lock is free), as IBM's queue managers do for a failed peer. Returns how many messages were
        reinstated or deleted. ``conn`` is a connection of this member's other than the verbs' one."""
        done = 0
        rows = conn.execute(
            "SELECT member FROM qsg_member WHERE qsg = %s AND member <> %s AND session IS NOT NULL",
            (self.qsg, self.member),
        ).fetchall()
        for (member,) in rows:
            keys = member_lock(self.qsg, member)
            got = conn.execute("SELECT pg_try_advisory_lock(%s, %s)", keys).fetchone()
            if got is None or not got[0]:
                continue  # alive
            try:
                with conn.transaction():
                    done += _back_out_member(conn, self.qsg, member)
                    conn.execute(
                        "UPDATE qsg_member SET session = NULL WHERE qsg = %s AND member = %s", (self.qsg, member)
                    )
            finally:
                conn.execute("SELECT pg_advisory_unlock(%s, %s)", keys)
        return done

    def close(self) -> None:
        with self._notify_lock:
            self._closed = True
            self._notify_lock.notify_all()
        if self._notifier is not None:
            self._notifier.join(10)
        with self._pub:
            self._pub.notify_all()
        if self._publisher is not None:
            self._publisher.join(10)
        if self._conn is not None:
            self._conn.close()
            self._conn = None
        if self._fast is not None:
            self._fast.close()
            self._fast = None
        self._pool.close()
        self._fast_pool.close()

    @contextlib.contextmanager
    def _use(self, fast: bool = False) -> Iterator[psycopg.Connection[Any]]:
        """A connection of the pool for one verb (fast: ``synchronous_commit = off``, see :meth:`_f`). The verbs
        may run on several threads at once (the host lets go of its lock while they wait for PostgreSQL); a
        failure is reported as :meth:`_fail` says."""
        if self._conn is None:
            self._reconnect()
        epoch = self._epoch
        pool = self._fast_pool if fast else self._pool
        try:
            conn = pool.take()
        except psycopg.Error as e:
            raise self._fail(e, epoch) from None
        try:
            yield conn
        except psycopg.Error as e:
            raise self._fail(e, epoch) from None
        finally:
            if epoch == self._epoch:
                pool.give(conn)
            else:
                conn.close()

    def _f(self) -> psycopg.Connection[Any]:
        """The connection whose commits do not wait for the disk (``synchronous_commit = off``): for what need not
        survive the loss of the database — a unit of work's puts and gets before its commit (a crash backs them
        out anyway), non-persistent messages. The commit's own flush then carries them to disk too (PostgreSQL's
        log is one sequence)."""
        return self._session_conn(fast=True)

    def _c(self) -> psycopg.Connection[Any]:
        """The session's connection: its liveness lock, the expiry scan's lock (``_scan_lock_conn``), and the
        statements made under the host's lock (definitions, two-phase commit, RESOLVE INDOUBT, triggering)."""
        return self._session_conn(fast=False)

    def _session_conn(self, fast: bool) -> psycopg.Connection[Any]:
        """One of the session's own connections (a new session first when there is none), noting in this thread
        which session it is of: a statement on it that meets a lost connection replaces that session, not one
        another thread started since (:meth:`_fail`)."""
        if not self._opened or self._closed:
            raise StoreError("The shared store is not open.")
        with self._session_lock:
            if self._conn is None or self._fast is None:
                self._connect_session()
            conn = self._fast if fast else self._conn
            assert conn is not None
            self._local.epoch = self._epoch
            return conn

    def _reconnect(self) -> None:
        """A new session, unless another thread (a verb on the pool, :meth:`_use`) made one meanwhile."""
        if not self._opened or self._closed:
            raise StoreError("The shared store is not open.")
        with self._session_lock:
            if self._conn is None or self._fast is None:
                self._connect_session()

    def _fail(self, e: psycopg.Error, epoch: int | None = None) -> StoreError:
        """A failed statement. A lost connection ends this session: a new one is connected at once, or by the
        next call while the database is away (its start backs out the lost one's units of work); the units of
        work begun before fail at their commit. One loss makes one new session, however many verbs met it
        (:meth:`_replace_session`)."""
        lost = any(c is not None and c.broken for c in (self._conn, self._fast)) or isinstance(
            e, psycopg.OperationalError
        )
        if lost:
            if epoch is None:  # a statement on the session's own connections: the session this thread took them of
                epoch = getattr(self._local, "epoch", None)
            with self._session_lock:
                self._replace_session(epoch)
            return StoreError(
                f"The shared database was lost ({describe_error(e)}); the units of work in flight on shared queues "
                "are backed out. Check that PostgreSQL runs and is reachable."
            )
        return StoreError(f"The shared database failed: {describe_error(e)}.")

    def _replace_session(self, epoch: int | None) -> None:
        """Under the session lock, after a statement met a lost connection: end the session it ran in and start
        a new one — unless another thread already did. ``epoch``: the session a pool connection belonged to
        (:meth:`_use`) or of the session's own connections (:meth:`_session_conn`); None when unknown: then
        the session is replaced only if the connections this object holds now are lost (closed or broken).
        Without that, each verb that met the same loss would start a session of its own, and each new session's
        start would back out the units of work begun in the one before."""
        current = (self._conn, self._fast)
        if epoch is not None and epoch != self._epoch:
            return  # its session was replaced already
        if all(c is None for c in current):  # ended, and no new one could connect yet: try again, nothing to end
            self._connect_quietly()
            return
        if epoch is None and not any(c is None or c.closed or c.broken for c in current):
            return  # the failed statement ran on connections another thread has replaced since
        for c in current:
            if c is not None:
                c.close()
        self._conn = self._fast = None
        self._pool.close()
        self._fast_pool.close()
        self._epoch += 1
        self._pending.clear()
        self._ahead.clear()
        with self._pub:  # the lost session's counts went with it (its start deletes their rows)
            self._counted.clear()
            self._published.clear()
            self._dirty.clear()
        self._put_ids.clear()
        self._connect_quietly()

    def _connect_quietly(self) -> None:
        try:  # a new session at once, whose start backs the lost one's units of work out
            self._connect_session()
        except StoreError:
            pass  # the database is still away: the next call tries again (:meth:`_reconnect`)

    def _begin_uow(self, uow: int, epoch: int | None = None, rows: bool = True) -> None:
        """Unit of work ``uow`` holds something in the database from here (of session ``epoch``, the current
        one when None): its MQCMIT/MQBACK must reach it; ``rows``: it may hold rows of qsg_message (False: its
        puts, kept here until its commit, and their counts in qsg_uncommitted)."""
        self._uow_epoch.setdefault(uow, self._epoch if epoch is None else epoch)
        if rows:
            self._holds_rows.add(uow)

    def _forget_uow(self, uow: int) -> None:
        """Unit of work ``uow`` holds nothing in the database after all (undoes :meth:`_begin_uow`)."""
        self._uow_epoch.pop(uow, None)
        self._holds_rows.discard(uow)

    def _check_uow(self, uow: int) -> None:
        """A unit of work begun in a session since lost cannot commit: it was backed out."""
        if self._uow_epoch.pop(uow, self._epoch) != self._epoch:
            self._holds_rows.discard(uow)
            self._pending.pop(uow, None)
            self._forget_lost(uow)
            raise StoreError(
                "The connection to the shared database was lost during this unit of work: it was backed out."
            )

    # -- definitions -----------------------------------------------------------------------------------
    def definitions(self) -> list[tuple[str, str, str, bytes]]:
        try:
            rows = self._c().execute(
                "SELECT kind, name, disp, definition FROM qsg_object WHERE qsg = %s ORDER BY kind, name", (self.qsg,)
            )
            return [(k, n, d, bytes(b)) for k, n, d, b in rows]
        except psycopg.Error as e:
            raise self._fail(e) from None

    def put_definition(self, kind: str, name: str, disposition: str, definition: bytes, replace: bool) -> bool:
        sql = "INSERT INTO qsg_object VALUES (%s, %s, %s, %s, %s) ON CONFLICT (qsg, kind, name) DO " + (
            "UPDATE SET disp = excluded.disp, definition = excluded.definition" if replace else "NOTHING"
        )
        try:
            return self._c().execute(sql, (self.qsg, kind, name, disposition, definition)).rowcount == 1
        except psycopg.Error as e:
            raise self._fail(e) from None

    def delete_definition(self, kind: str, name: str) -> None:
        try:
            with self._c().transaction():
                self._c().execute(
                    "DELETE FROM qsg_object WHERE qsg = %s AND kind = %s AND name = %s", (self.qsg, kind, name)
                )
        except psycopg.Error as e:
            raise self._fail(e) from None

    # -- messages --------------------------------------------------------------------------------------
    def put(self, message: SharedMessage, uow: int | None) -> int:
        """A put in a unit of work is kept here until its commit inserts it (nobody may see it before, and a
        member that dies takes it along: its uncommitted puts vanish); outside one it is inserted at once,
        durably for a persistent message. Returns the message's id (0 while it waits for its commit)."""
        if uow is not None:
            self._begin_uow(uow, rows=False)
            if self._put_ids:
                message.id = self._put_ids.pop((uow, message.queue), 0)
            self._pending.setdefault(uow, []).append(message)
            return 0
        values = _values(self.qsg, message)
        if message.persistent:
            row = self._group.run(lambda conn: conn.execute(_INSERT + " RETURNING id", values).fetchone(), True)
        else:
            with self._use(fast=True) as conn:
                row = conn.execute(_INSERT + " RETURNING id", values).fetchone()
        assert row is not None
        ident: int = row[0]
        self._seen_id(ident)
        return ident

    def get(
        self,
        queue: str,
        uow: int | None,
        msgid: bytes | None,
        correlid: bytes | None,
        claim_only: bool,
        now: float | None = None,
    ) -> SharedMessage | None:
        if uow is not None and msgid is None and correlid is None:
            ahead = self._ahead.get(uow)
            if ahead is not None and ahead[0] == queue:
                return self.take_ahead(uow, queue) or self._get_ahead(uow, ahead)
        where = "qsg = %s AND queue = %s AND owner IS NULL"
        args: list[Any] = [self.qsg, queue]
        if msgid is not None:
            where += " AND msgid = %s"
            args.append(msgid)
        if correlid is not None:
            where += " AND correlid = %s"
            args.append(correlid)
        if uow is None and not claim_only:
            return self._take(where, "priority DESC, id", args, now)
        pick = f"(SELECT id FROM qsg_message WHERE {where} ORDER BY priority DESC, id LIMIT 1 FOR UPDATE SKIP LOCKED)"
        sql = f"UPDATE qsg_message SET owner = %s, uow = %s, got = true WHERE id = {pick} RETURNING {_COLUMNS}"
        epoch = self._epoch
        with self._use(fast=True) as conn:  # binary: the message's bytea comes as it is, not as hex to decode
            r = conn.execute(sql, [self.owner, 0 if uow is None else uow, *args], binary=True).fetchone()
        if r is None:
            return None
        if uow is not None:  # the unit of work holds a row from here (of the session it was claimed in)
            self._begin_uow(uow, epoch)
        return _row(r)

    def _take(self, where: str, order: str, args: list[Any], now: float | None) -> SharedMessage | None:
        """A get out of syncpoint (:meth:`get`, :meth:`select`): the first message ``where`` selects in ``order``
        deleted — or, expired at ``now`` (engine time; None: nothing has expired), claimed instead and returned with
        ``expired`` set (seed 002, :func:`_take_unexpired`). Durable: with the member's other durable verbs
        (_Group); binary: the message's bytea comes as it is, not as hex to decode."""
        sql = _take_unexpired(where, order)
        targs = [-math.inf if now is None else now, *args, self.owner]
        r = self._group.run(lambda conn: conn.execute(sql, targs, binary=True).fetchone(), True)
        return None if r is None else _taken(r)

    # -- MQGET of many messages in a unit of work: one claim for them all ----------------------------------------
    def get_ahead(self, uow: int, queue: str, count: int) -> None:
        """The next ``count`` plain gets of ``uow`` from ``queue`` claim their messages with one statement (the
        first of them claims up to ``count``); 0: the messages claimed and not got are released as they were
        (no BackoutCount + 1: no application saw them)."""
        if count > 1:
            self._ahead[uow] = [queue, count, []]
            return
        ahead = self._ahead.pop(uow, None)
        if ahead is not None and ahead[2]:
            with self._use(fast=True) as conn:
                conn.execute(_RELEASE, ([m.id for m in ahead[2]], self.owner))

    def take_ahead(self, uow: int, queue: str) -> SharedMessage | None:
        """The next message ``uow`` claimed ahead from ``queue``, without a statement; None when there is none
        (then :meth:`get` claims)."""
        ahead = self._ahead.get(uow)
        if ahead is None or ahead[0] != queue or not ahead[2]:
            return None
        ahead[1] -= 1
        m: SharedMessage = ahead[2].pop()
        return m

    def _get_ahead(self, uow: int, ahead: list[Any]) -> SharedMessage | None:
        claimed: list[SharedMessage] = ahead[2]
        if not claimed and ahead[1] > 0:  # claim, in one statement, as many as the gets still to come
            epoch = self._epoch
            sql = (
                f"UPDATE qsg_message SET owner = %s, uow = %s, got = true WHERE id IN (SELECT id FROM qsg_message "
                "WHERE qsg = %s AND queue = %s AND owner IS NULL ORDER BY priority DESC, id LIMIT %s "
                f"FOR UPDATE SKIP LOCKED) RETURNING {_COLUMNS}"
            )
            with self._use(fast=True) as conn:
                # binary: the messages' bytea come as they are, not as hex to decode
                rows = conn.execute(sql, (self.owner, uow, self.qsg, ahead[0], ahead[1]), binary=True).fetchall()
            if rows:
                self._begin_uow(uow, epoch)
            claimed.extend(sorted((_row(r) for r in rows), key=lambda m: (-m.priority, m.id), reverse=True))
            if not claimed:
                ahead[1] = 0  # the queue is empty: the next gets look again one by one
                return None
        if not claimed:
            return None
        ahead[1] -= 1
        return claimed.pop()

    def _release_ahead(self, conn: psycopg.Connection[Any], uow: int) -> None:
        """In the transaction that ends ``uow``: what it claimed ahead and did not get is released as it was."""
        ahead = self._ahead.pop(uow, None)
        if ahead is not None and ahead[2]:
            conn.execute(_RELEASE, ([m.id for m in ahead[2]], self.owner))

    def finish_claim(self, message_id: int, take: bool, uow: int | None) -> None:
        args: tuple[Any, ...] = (message_id, self.owner)
        if not take:  # released as it was (no BackoutCount + 1): a claim, or a get of unit of work ``uow``
            with self._use(fast=True) as conn:
                conn.execute(
                    "UPDATE qsg_message SET owner = NULL, uow = NULL, got = false WHERE id = %s AND owner = %s "
                    "AND uow = %s AND got",
                    (*args, 0 if uow is None else uow),
                )
            return
        if uow is None:
            sql = "DELETE FROM qsg_message WHERE id = %s AND owner = %s AND uow = 0"
        else:
            self._begin_uow(uow)
            sql = "UPDATE qsg_message SET uow = %s WHERE id = %s AND owner = %s AND uow = 0"
            args = (uow, *args)
        self._group.run(lambda conn: conn.execute(sql, args), True)

    def commit(self, uow: int) -> list[str]:
        """One durable transaction, the unit of work's one PostgreSQL commit: its puts inserted (one COPY), its
        gets deleted. A unit of work that got nothing from the group and put nothing there costs nothing."""
        holds = uow in self._uow_epoch  # every statement that makes it hold a row begins it (_begin_uow)
        got = uow in self._holds_rows
        self._check_uow(uow)
        self._holds_rows.discard(uow)
        puts = self._pending.pop(uow, [])
        if not holds:
            self._ahead.pop(uow, None)
            return []
        owner = self.owner
        ahead = self._ahead.pop(uow, None)
        released = [m.id for m in ahead[2]] if ahead is not None else []
        published = self._end_counts(uow)

        def commit(conn: psycopg.Connection[Any]) -> None:
            if released:  # claimed ahead and not got: available again as they were
                conn.execute(_RELEASE, (released, owner))
            if puts:
                _insert_puts(conn, self.qsg, puts, None, None)
            if got:  # its gets (a unit of work that only put holds no row: nothing to delete)
                conn.execute("DELETE FROM qsg_message WHERE owner = %s AND uow = %s", (owner, uow))
            if published:  # its uncommitted puts stop counting towards MAXDEPTH (qsg_uncommitted)
                conn.execute("DELETE FROM qsg_uncommitted WHERE owner = %s AND uow = %s", (owner, uow))

        # with the member's other durable verbs: one PostgreSQL commit for them all; one statement alone needs no
        # BEGIN and COMMIT (a producer's MQCMIT: its puts' COPY)
        copies = len({bool(m.id) for m in puts})  # _insert_puts: one COPY for each kind of id
        self._group.run(commit, bool(released) + copies + got + published == 1)
        return sorted({m.queue for m in puts})

    # -- input opens, group-wide -------------------------------------------------------------------------
    def open_input(self, queue: str, exclusive: bool) -> bool:
        """This member's first input open of a shared queue: False (nothing recorded) when another member has
        it open for exclusive input, or, for an exclusive open, for any input."""
        conn = self._c()
        try:
            with conn.transaction():
                conn.execute("SELECT pg_advisory_xact_lock(%s, %s)", member_lock(self.qsg, "open " + queue))
                others = conn.execute(
                    "SELECT bool_or(exclusive), count(*) FROM qsg_open WHERE qsg = %s AND queue = %s AND owner <> %s",
                    (self.qsg, queue, self.owner),
                ).fetchone()
                assert others is not None
                if others[0] or (exclusive and others[1]):
                    return False
                conn.execute(
                    "INSERT INTO qsg_open VALUES (%s, %s, %s, %s) ON CONFLICT (qsg, queue, owner) "
                    "DO UPDATE SET exclusive = excluded.exclusive",
                    (self.qsg, queue, self.owner, exclusive),
                )
        except psycopg.Error as e:
            raise self._fail(e) from None
        return True

    def close_input(self, queue: str) -> None:
        """This member's last input handle of a shared queue was closed."""
        try:
            self._c().execute(
                "DELETE FROM qsg_open WHERE qsg = %s AND queue = %s AND owner = %s", (self.qsg, queue, self.owner)
            )
        except psycopg.Error as e:
            raise self._fail(e) from None

    # -- two-phase commit with the member's private store (docs/queue-sharing-groups.md) ----------------------
    def decision_name(self, uow: int) -> str:
        """The name of the record in the member's private store that says unit of work ``uow`` committed."""
        return f"{self.owner}:{uow}"

    def prepare(self, uow: int, private: bytes = b"") -> None:
        """Phase 1: the unit of work's puts written (still held by it) and the unit of work marked in doubt, in
        one durable transaction. From here no peer backs it out; only its member's decision (or RESOLVE INDOUBT)
        settles it. ``private``: its private part (``store.encode_private_part``), kept beside it so that the
        member's restart can make that part follow a RESOLVE INDOUBT decision."""
        self._check_uow(uow)
        self._holds_rows.discard(uow)  # settled by _settle, which deletes what it got in any case
        self._prepared_owner[uow] = self.owner
        puts = self._pending.pop(uow, [])
        conn = self._c()
        try:
            with conn.transaction():
                self._release_ahead(conn, uow)
                if puts:
                    _insert_puts(conn, self.qsg, puts, self.owner, uow)
                conn.execute("INSERT INTO qsg_indoubt VALUES (%s, %s, %s)", (self.qsg, self.owner, uow))
                if private:
                    conn.execute(
                        "INSERT INTO qsg_indoubt_private VALUES (%s, %s, %s, %s)", (self.qsg, self.owner, uow, private)
                    )
                    self._with_private[uow] = True
                self._end_published(conn, uow)  # its puts are in the table now
        except psycopg.Error as e:
            raise self._fail(e) from None
        _crash_point("prepared")

    def complete(self, uow: int) -> list[str]:
        """Phase 3, once the decision is durable in the member's private store: the prepared unit of work
        committed here too. Returns the queues that got messages."""
        _crash_point("decided")
        owner = self._prepared_owner.get(uow, self.owner)
        queues = self._settle(owner, uow, commit=True)
        self._prepared_owner.pop(uow, None)
        return queues

    def _settle(self, owner: str, uow: int, commit: bool, resolved_by: str | None = None) -> list[str]:
        conn = self._c()
        try:
            with conn.transaction():
                if resolved_by is not None:  # RESOLVE INDOUBT: the decision is kept for the member's restart
                    conn.execute(
                        "INSERT INTO qsg_resolved VALUES (%s, %s, %s, %s, %s) ON CONFLICT DO NOTHING",
                        (self.qsg, owner, uow, "COMMIT" if commit else "BACKOUT", resolved_by),
                    )
                if commit:
                    conn.execute("DELETE FROM qsg_message WHERE owner = %s AND uow = %s AND got", (owner, uow))
                    rows = conn.execute(
                        "UPDATE qsg_message SET owner = NULL, uow = NULL WHERE owner = %s AND uow = %s RETURNING queue",
                        (owner, uow),
                    ).fetchall()
                else:
                    conn.execute("DELETE FROM qsg_message WHERE owner = %s AND uow = %s AND NOT got", (owner, uow))
                    rows = conn.execute(
                        "UPDATE qsg_message SET owner = NULL, uow = NULL, got = false, backout = backout + 1 "
                        "WHERE owner = %s AND uow = %s RETURNING queue",
                        (owner, uow),
                    ).fetchall()
                conn.execute("DELETE FROM qsg_indoubt WHERE owner = %s AND uow = %s", (owner, uow))
                if resolved_by is None and (owner != self.owner or self._with_private.pop(uow, None) is not None):
                    # settled by its member: its private part is no longer needed (RESOLVE keeps it for the
                    # member's restart)
                    conn.execute("DELETE FROM qsg_indoubt_private WHERE owner = %s AND uow = %s", (owner, uow))
        except psycopg.Error as e:
            raise self._fail(e) from None
        return sorted({r[0] for r in rows})

    def resolve_indoubt(self, decided: set[str]) -> int:
        """At start: every unit of work of this member's earlier sessions left in doubt is committed if the
        member's private store holds its decision (``decided``: :meth:`decision_name` values), else backed out.
        Units of work a peer settled meanwhile (``RESOLVE INDOUBT``) are checked against the same decisions: each
        that disagrees is kept in :attr:`heuristic` (for the error log) and, with its private part, in
        :attr:`follow` (``store.follow_resolutions`` makes the private part follow the decision; docs/
        queue-sharing-groups.md, "Resolving in-doubt units of work"). Returns how many were settled."""
        like = _like(self.member)
        try:
            rows = (
                self._c()
                .execute("SELECT owner, uow FROM qsg_indoubt WHERE qsg = %s AND owner LIKE %s", (self.qsg, like))
                .fetchall()
            )
            resolved = (
                self._c()
                .execute(
                    "SELECT owner, uow, action, by FROM qsg_resolved WHERE qsg = %s AND owner LIKE %s",
                    (self.qsg, like),
                )
                .fetchall()
            )
            parts = {
                (o, u): bytes(p)
                for o, u, p in self._c().execute(
                    "SELECT owner, uow, part FROM qsg_indoubt_private WHERE qsg = %s AND owner LIKE %s",
                    (self.qsg, like),
                )
            }
        except psycopg.Error as e:
            raise self._fail(e) from None
        for owner, uow in rows:
            self._settle(owner, uow, commit=f"{owner}:{uow}" in decided)
        for owner, uow, action, by in resolved:
            logged = "COMMIT" if f"{owner}:{uow}" in decided else "BACKOUT"
            if logged != action:
                self.heuristic.append((nid(owner, uow), action, by, logged))
                self.follow.append((action, parts.get((owner, uow), b"")))
        return len(rows)

    def forget_resolved(self) -> None:
        """At start, once the private parts followed (:attr:`follow`, written durably by the member's store): the
        RESOLVE decisions and the private parts of earlier sessions are dropped. Until then a crash leaves them,
        and the next start follows them again (what follows is idempotent)."""
        like = _like(self.member)
        try:
            with self._c().transaction():
                self._c().execute("DELETE FROM qsg_resolved WHERE qsg = %s AND owner LIKE %s", (self.qsg, like))
                self._c().execute(
                    "DELETE FROM qsg_indoubt_private i WHERE qsg = %s AND owner LIKE %s AND owner <> %s AND NOT "
                    "EXISTS (SELECT 1 FROM qsg_indoubt d WHERE d.owner = i.owner AND d.uow = i.uow)",
                    (self.qsg, like, self.owner),
                )
        except psycopg.Error as e:
            raise self._fail(e) from None

    def indoubt_units(self, member: str | None) -> list[InDoubtUnit]:
        """DISPLAY THREAD TYPE(INDOUBT): the units of work in doubt of ``member`` (None: of every member)."""
        sql = (
            "SELECT i.owner, i.uow, count(m.id) FILTER (WHERE NOT m.got), count(m.id) FILTER (WHERE m.got), "
            "coalesce(array_agg(DISTINCT m.queue) FILTER (WHERE m.queue IS NOT NULL), '{}') FROM qsg_indoubt i "
            "LEFT JOIN qsg_message m ON m.owner = i.owner AND m.uow = i.uow WHERE i.qsg = %s"
        )
        args: list[Any] = [self.qsg]
        if member is not None:
            sql += " AND i.owner LIKE %s"
            args.append(_like(member))
        try:
            conn = self._c()
            rows = conn.execute(sql + " GROUP BY i.owner, i.uow ORDER BY i.owner, i.uow", args).fetchall()
            units = []
            for owner, uow, puts, gets, queues in rows:
                who = str(owner).rsplit(".", 1)[0]
                units.append(InDoubtUnit(who, nid(owner, uow), uow, puts, gets, sorted(queues), self._active(who)))
        except psycopg.Error as e:
            raise self._fail(e) from None
        return units

    def _active(self, member: str) -> bool:
        """Whether ``member`` runs: its liveness lock is held by a session (this one, for this member)."""
        if member == self.member:
            return True
        keys = member_lock(self.qsg, member)
        got = self._c().execute("SELECT pg_try_advisory_lock(%s, %s)", keys).fetchone()
        if got is not None and got[0]:
            self._c().execute("SELECT pg_advisory_unlock(%s, %s)", keys)
            return False
        return True

    def resolve_units(self, member: str, nids: list[str] | None, commit: bool, by: str) -> list[str] | None:
        """RESOLVE INDOUBT QMNAME(member): settle the units of work in doubt of ``member`` whose NID is in ``nids``
        (None: all of them) — committed (puts made available, gets deleted) or backed out (puts deleted, gets
        reinstated with BackoutCount + 1) — and record each decision for the member's restart. The member's
        liveness lock is held meanwhile, so it cannot start and settle them at the same time. Returns the NIDs
        settled, or None when ``member`` runs (a running member settles its own units of work)."""
        if member == self.member:
            return None
        keys = member_lock(self.qsg, member)
        try:
            conn = self._c()
            got = conn.execute("SELECT pg_try_advisory_lock(%s, %s)", keys).fetchone()
            if got is None or not got[0]:
                return None
            try:
                rows = conn.execute(
                    "SELECT owner, uow FROM qsg_indoubt WHERE qsg = %s AND owner LIKE %s ORDER BY owner, uow",
                    (self.qsg, _like(member)),
                ).fetchall()
                done = []
                wanted = None if nids is None else {n.upper() for n in nids}
                for owner, uow in rows:
                    ident = nid(owner, uow)
                    if wanted is None or ident.upper() in wanted:
                        self.notify(self._settle(owner, uow, commit, resolved_by=by))
                        done.append(ident)
                return done
            finally:
                if not conn.closed:
                    conn.execute("SELECT pg_advisory_unlock(%s, %s)", keys)
        except psycopg.Error as e:
            raise self._fail(e) from None

    def backout(self, uow: int) -> list[str]:
        self._pending.pop(uow, None)  # its puts were never inserted
        self._holds_rows.discard(uow)
        if uow not in self._uow_epoch or self._uow_epoch.pop(uow) != self._epoch:
            self._ahead.pop(uow, None)
            self._forget_lost(uow)
            return []  # holds nothing, or of a lost session: backed out when the new session began
        owner = self.owner
        ahead = self._ahead.pop(uow, None)
        released = [m.id for m in ahead[2]] if ahead is not None else []
        published = self._end_counts(uow)

        def backout(conn: psycopg.Connection[Any]) -> list[Any]:
            if released:  # claimed ahead and not got: available again as they were (no BackoutCount + 1)
                conn.execute(_RELEASE, (released, owner))
            if published:  # its uncommitted puts stop counting towards MAXDEPTH (qsg_uncommitted)
                conn.execute("DELETE FROM qsg_uncommitted WHERE owner = %s AND uow = %s", (owner, uow))
            return conn.execute(
                "UPDATE qsg_message SET owner = NULL, uow = NULL, got = false, backout = backout + 1 "
                "WHERE owner = %s AND uow = %s RETURNING queue",
                (owner, uow),
            ).fetchall()

        rows = self._group.run(backout)
        return sorted({r[0] for r in rows})

    def depth(self, queue: str) -> int:
        with self._use(fast=True) as conn:
            row = conn.execute(_DEPTH, (self.qsg, queue, self.qsg, queue, self.owner)).fetchone()
        # IBM counts a put in a unit of work in CURDEPTH at once: the members' uncommitted puts are not in the
        # table yet; the other members' are counted in qsg_uncommitted (:meth:`room`), this member's are added here
        return (int(row[0]) if row else 0) + self._mine(queue)

    def _mine(self, queue: str) -> int:
        """This member's uncommitted puts on ``queue`` (in memory until their commit)."""
        return sum(1 for puts in list(self._pending.values()) for m in list(puts) if m.queue == queue)

    def clear(self, queue: str) -> int:
        try:
            return (
                self._c()
                .execute("DELETE FROM qsg_message WHERE qsg = %s AND queue = %s AND owner IS NULL", (self.qsg, queue))
                .rowcount
            )
        except psycopg.Error as e:
            raise self._fail(e) from None

    # -- the MQI rules beyond the plain get: browse, cursor, lock, match options, MAXDEPTH -----------------
    # A browse lock is the row held by this session with ``uow`` the lock's (negative) number and ``got``
    # false: no other get or browse sees it (they want ``owner IS NULL``), its handle does (_AVAILABLE_TO).
    def select(
        self,
        queue: str,
        match: SharedMatch,
        lock: int | None,
        take: bool,
        uow: int | None,
        claim_only: bool,
        hold: bool = False,
        now: float | None = None,
    ) -> SharedMessage | None:
        where, args = self._where(queue, match, lock)
        order = "id" if match.fifo else "priority DESC, id"
        pick = f"SELECT id FROM qsg_message WHERE {where} ORDER BY {order} LIMIT 1"
        r: Any
        if take:
            if uow is None and not claim_only:
                return self._take(where, order, args, now)
            epoch = self._epoch
            pick += " FOR UPDATE SKIP LOCKED"
            sql = f"UPDATE qsg_message SET owner = %s, uow = %s, got = true WHERE id = ({pick}) RETURNING {_COLUMNS}"
            with self._use(fast=True) as conn:
                r = conn.execute(sql, [self.owner, 0 if uow is None else uow, *args]).fetchone()
            if r is not None and uow is not None:  # the unit of work holds a row from here (see get)
                self._begin_uow(uow, epoch)
        elif not hold or lock is None:
            sql = f"SELECT {_COLUMNS} FROM qsg_message WHERE {where} ORDER BY {order} LIMIT 1"
            with self._use(fast=True) as conn:
                r = conn.execute(sql, args).fetchone()
        else:
            with self._use(fast=True) as conn, conn.transaction():
                sql = (
                    f"UPDATE qsg_message SET owner = %s, uow = %s WHERE id = ({pick} FOR UPDATE SKIP LOCKED) "
                    f"RETURNING {_COLUMNS}"
                )
                r = conn.execute(sql, [self.owner, lock, *args]).fetchone()
                if r is not None:  # the handle's previous lock ends (one locked message a handle)
                    conn.execute(
                        "UPDATE qsg_message SET owner = NULL, uow = NULL "
                        "WHERE owner = %s AND uow = %s AND NOT got AND id <> %s",
                        (self.owner, lock, r[0]),
                    )
        return None if r is None else _row(r)

    def _where(self, queue: str, match: SharedMatch, lock: int | None) -> tuple[str, list[Any]]:
        where = "qsg = %s AND queue = %s AND "
        args: list[Any] = [self.qsg, queue]
        if lock is None:
            where += "owner IS NULL"
        else:
            where += "(owner IS NULL OR (owner = %s AND uow = %s AND NOT got))"
            args += [self.owner, lock]
        for column, value in (
            ("msgid", match.msgid),
            ("correlid", match.correlid),
            (_GROUPID, match.groupid),
            (_SEQNO, match.seqno),
            ("id", match.token),
            ("id", match.message_id),
        ):
            if value is not None:
                where += f" AND {column} = %s"
                args.append(value)
        if match.after is not None:
            priority, ident = match.after
            if match.fifo:
                where += " AND id > %s"
                args.append(ident)
            else:
                where += " AND (priority < %s OR (priority = %s AND id > %s))"
                args += [priority, priority, ident]
        return where, args

    def unlock(self, lock: int) -> bool:
        with self._use(fast=True) as conn:
            return (
                conn.execute(
                    "UPDATE qsg_message SET owner = NULL, uow = NULL WHERE owner = %s AND uow = %s AND NOT got",
                    (self.owner, lock),
                ).rowcount
                > 0
            )

    def move_get(self, message_id: int, from_uow: int, to_uow: int) -> None:
        # the new unit of work holds the row from here: its MQCMIT/MQBACK must reach the database (_begin_uow)
        self._begin_uow(to_uow, self._uow_epoch.get(from_uow, self._epoch))
        with self._use(fast=True) as conn:
            conn.execute(
                "UPDATE qsg_message SET uow = %s WHERE id = %s AND owner = %s AND uow = %s",
                (to_uow, message_id, self.owner, from_uow),
            )

    def room(self, queue: str, maxdepth: int, uow: int | None) -> int:
        """The group's depth for a put's MAXDEPTH check and, in a unit of work, this put counted for every
        member's MAXDEPTH check and CURDEPTH (IBM counts uncommitted puts in CURDEPTH) and its place in FIFO order
        taken (:func:`_insert_puts`). The unit of work then holds a row (its qsg_uncommitted row, deleted by its
        end): it is begun (:meth:`_begin_uow`) first.

        With the largest MAXDEPTH (:data:`NO_LIMIT`) the check cannot fail: no statement — the put's id comes from
        the member's block (:meth:`_next_id`) and its count reaches qsg_uncommitted with the member's next
        publication (:meth:`_publish`, a few ms later). Any other MAXDEPTH: one statement counts the group's depth
        and, when there is room, this put (and takes its id), so the check is exact as far as the members' puts
        are not racing for the last places."""
        if uow is None:
            with self._use(fast=True) as conn:
                row = conn.execute(_DEPTH, (self.qsg, queue, self.qsg, queue, self.owner)).fetchone()
            return (int(row[0]) if row else 0) + self._mine(queue)
        self._begin_uow(uow, rows=False)
        if maxdepth >= NO_LIMIT:
            self._put_ids[(uow, queue)] = self._next_id()
            with self._pub:
                if self._uow_epoch.get(uow) == self._epoch:  # a lost session's unit of work is backed out
                    counts = self._counted.setdefault(uow, {})
                    counts[queue] = counts.get(queue, 0) + 1
                    self._dirty.setdefault(uow, set()).add(queue)
                    self._pub.notify_all()
            return 0
        with self._pub:  # the count below is the whole of the unit of work's: no publication may follow it
            self._pub.wait_for(lambda: uow not in self._flushing)
            dirty = self._dirty.get(uow)
            if dirty is not None:
                dirty.discard(queue)
            n = self._counted.get(uow, {}).get(queue, 0) + 1
        mine = self._mine(queue)
        args = (self.qsg, queue, self.qsg, queue, self.owner, self.qsg, queue, self.owner, uow, n, mine, maxdepth)
        with self._use(fast=True) as conn:
            row = conn.execute(_ROOM, args).fetchone()
        assert row is not None
        depth = int(row[0]) + mine
        if depth < maxdepth:
            with self._pub:
                self._counted.setdefault(uow, {})[queue] = n
                self._published.setdefault(uow, {})[queue] = n
            ident = int(row[1])
            self._seen_id(ident)
            self._put_ids[(uow, queue)] = ident  # the put's place in FIFO order (:func:`_insert_puts`)
        return depth

    # -- the member's block of ids for its puts in syncpoint ------------------------------------------------------
    def _next_id(self) -> int:
        """The id of a put in syncpoint, which keeps its place in FIFO order: the next of the member's block of
        ids, taken from the group's sequence with one statement for many puts (:data:`ID_BLOCK` or more). Every
        put of the member comes after its earlier puts (a put out of syncpoint, whose id is the sequence's next,
        drops the block: :meth:`_seen_id`); a block serves :data:`ID_AGE` seconds at most, so a put's place is at
        most that much before its put among other members' puts."""
        with self._ids_lock:  # one thread takes a block at a time: the member's ids rise in the order given
            now = time.monotonic()
            if not self._ids or now - self._ids_at > ID_AGE:
                # as many as the member's puts use in about half the block's life (a block used up sooner: twice
                # as many; one that aged with more than half of it left: half as many)
                if not self._ids and now - self._ids_at < ID_AGE / 2:
                    self._ids_size = min(self._ids_size * 2, ID_BLOCK_MAX)
                elif len(self._ids) > self._ids_size // 2:
                    self._ids_size = max(self._ids_size // 2, ID_BLOCK)
                with self._use(fast=True) as conn:
                    rows = conn.execute(_ID_BLOCK, (self._ids_size,)).fetchall()
                self._ids = sorted((int(r[0]) for r in rows), reverse=True)
                self._ids_at = time.monotonic()
            return self._ids.pop()

    def _seen_id(self, ident: int) -> None:
        """A put of this member took ``ident`` from the sequence: the ids of its block below it are dropped,
        so that its later puts in syncpoint come after it."""
        if self._ids and self._ids[-1] < ident:
            with self._ids_lock:
                if self._ids and self._ids[-1] < ident:
                    self._ids = []

    # -- the published counts of uncommitted puts (CURDEPTH on the other members) -------------------------------
    def _publish_loop(self) -> None:
        """Write the counts of uncommitted puts that changed (:meth:`room` with :data:`NO_LIMIT`) to
        qsg_uncommitted, one statement for those gathered over :data:`PUBLISH_GAP`.

        The other members' CURDEPTH and MAXDEPTH count this member's uncommitted puts only through this thread,
        so it never ends before the store closes: a failure of its own (a defect: the database's are handled in
        :meth:`_publish`) is written to the member's error log (AMQ6125E, with the error) and the publication
        is tried again — the counts it was writing are kept for it — after :data:`PUBLISH_RETRY` seconds,
        doubled at each failure in a row up to :data:`PUBLISH_RETRY_MAX` (``publish_failures`` counts them)."""
        wait = PUBLISH_RETRY
        while True:
            with self._pub:
                self._pub.wait_for(lambda: bool(self._dirty) or self._closed)
                if self._closed:
                    return
            time.sleep(PUBLISH_GAP)
            try:
                self._publish()
            except Exception as e:
                self.publish_failures += 1
                self._internal_error(
                    "the publication of its counts of uncommitted puts on shared queues", e, wait, _PUBLISH_FAILED
                )
                with self._pub:
                    self._pub.wait_for(lambda: self._closed, wait)
                wait = min(wait * 2, PUBLISH_RETRY_MAX)
            else:
                wait = PUBLISH_RETRY

    def _internal_error(self, what: str, e: Exception, wait: float, explanation: tuple[str, str]) -> None:
        """A failure of one of the member's own threads that is not the database's (a defect): an AMQ6125E entry in
        the member's error log naming ``what`` failed and how, before the thread tries again in ``wait`` seconds."""
        _log.error(
            "AMQ6125E: An internal error has occurred in queue manager '%s': %s failed (%s: %s); it is tried again "
            "in %.1f seconds.",
            self.member,
            what,
            type(e).__name__,
            e,
            wait,
            exc_info=True,
            extra={"qmgr": self.member, "amq": explanation},
        )

    def _publish(self) -> None:
        # the session (owner, epoch) these counts are of, not one being replaced
        with self._session_lock, self._pub:
            epoch, owner = self._epoch, self.owner
            rows = [
                (q, uow, self._counted[uow][q])
                for uow, queues in self._dirty.items()
                if self._uow_epoch.get(uow) == epoch
                for q in queues
            ]
            self._flushing.update(self._dirty)
            flushing = set(self._dirty)
            self._dirty.clear()
        done = False
        try:
            _defect_point("publish")
            if rows:
                with self._use(fast=True) as conn:
                    conn.execute(
                        _PUBLISH,
                        (self.qsg, owner, [r[0] for r in rows], [r[1] for r in rows], [r[2] for r in rows]),
                    )
            done = True
        except StoreError:
            pass  # tried again below (a lost session: its start deleted them, and they are forgotten)
        finally:
            with self._pub:
                self._flushing -= flushing
                if epoch == self._epoch:
                    for q, uow, n in rows:
                        if done:
                            self._published.setdefault(uow, {})[q] = n
                        elif uow in self._counted:
                            self._dirty.setdefault(uow, set()).add(q)
                self._pub.notify_all()
        if not done:
            with self._pub:
                self._pub.wait_for(lambda: self._closed, 0.1)

    def _forget_lost(self, uow: int) -> None:
        """A unit of work of a lost session ends (backed out when the new session began): a count :meth:`room` made
        for a put of it in the new session goes too."""
        if self._end_counts(uow):
            try:
                with self._use(fast=True) as conn:
                    conn.execute("DELETE FROM qsg_uncommitted WHERE owner = %s AND uow = %s", (self.owner, uow))
            except StoreError:
                pass  # this session is lost too: the next one's start deletes the member's counts

    def _end_counts(self, uow: int) -> bool:
        """Unit of work ``uow`` ends: its counts are forgotten once no publication of them is under way (one
        committing after its end's DELETE would leave a row for good); True when qsg_uncommitted may hold a
        row of it (the end's transaction then deletes it)."""
        with self._pub:
            self._pub.wait_for(lambda: uow not in self._flushing)
            self._dirty.pop(uow, None)
            self._counted.pop(uow, None)
            return self._published.pop(uow, None) is not None

    def uncommitted(self, queue: str) -> int:
        """UNCOM: this member's puts and gets on ``queue`` in units of work not yet ended."""
        puts = sum(1 for pending in list(self._pending.values()) for m in list(pending) if m.queue == queue)
        with self._use(fast=True) as conn:
            row = conn.execute(
                "SELECT count(*) FROM qsg_message WHERE qsg = %s AND queue = %s AND owner = %s AND got AND uow > 0",
                (self.qsg, queue, self.owner),
            ).fetchone()
        return puts + (int(row[0]) if row else 0)

    def available(self, queue: str, fifo: bool) -> list[SharedMessage]:
        """The available messages of ``queue`` in delivery order (neither held by a unit of work nor locked)."""
        order = "id" if fifo else "priority DESC, id"
        with self._use(fast=True) as conn:
            rows = conn.execute(
                f"SELECT {_COLUMNS} FROM qsg_message WHERE qsg = %s AND queue = %s AND owner IS NULL ORDER BY {order}",
                (self.qsg, queue),
            ).fetchall()
        return [_row(r) for r in rows]

    def _end_published(self, conn: psycopg.Connection[Any], uow: int) -> None:
        """Inside the transaction ending unit of work ``uow``: its uncommitted puts stop counting."""
        if self._end_counts(uow):
            conn.execute("DELETE FROM qsg_uncommitted WHERE owner = %s AND uow = %s", (self.owner, uow))

    # -- wake-ups --------------------------------------------------------------------------------------
    def notify(self, queues: list[str]) -> None:
        with self._notify_lock:
            self._to_notify.update(queues)
            self._notify_lock.notify()

    def _notify_loop(self) -> None:
        """Send the queued names with pg_notify on a connection of its own, coalescing what waits meanwhile. A
        failure of its own (a defect) is written to the error log (AMQ6125E) and the thread goes on, as the
        publisher's (:meth:`_publish_loop`)."""
        conn: psycopg.Connection[Any] | None = None
        wait = PUBLISH_RETRY
        while True:
            with self._notify_lock:
                while not self._to_notify and not self._closed:
                    self._notify_lock.wait()
                if self._closed:
                    break
                names = sorted(self._to_notify)
                self._to_notify.clear()
            try:
                if conn is None or conn.closed:
                    conn = psycopg.connect(self._url, autocommit=True, connect_timeout=10)
                    # a NOTIFY's transaction writes a commit record: it need not wait for the disk (a lost
                    # wake-up is caught by the members' 100 ms poll)
                    conn.execute("SET synchronous_commit = off")
                conn.execute(  # one statement, one round trip, however many names
                    "SELECT pg_notify(%s, n) FROM unnest(%s::text[]) n", (channel(self.qsg), names)
                )
                _defect_point("notify")
                wait = PUBLISH_RETRY
            except psycopg.Error:
                conn = None  # lost: the members' 100 ms poll wakes the waiters anyway
            except Exception as e:  # a defect: said, and the thread goes on (the names are found by the poll)
                self._internal_error("the notification of messages committed on shared queues", e, wait, _NOTIFY_FAILED)
                if conn is not None:
                    conn.close()
                conn = None
                with self._notify_lock:
                    self._notify_lock.wait_for(lambda: self._closed, wait)
                wait = min(wait * 2, PUBLISH_RETRY_MAX)
            with self._notify_lock:  # what comes meanwhile goes in the next one: a NOTIFY is a commit too
                self._notify_lock.wait_for(lambda: self._closed, NOTIFY_GAP)
        if conn is not None:
            conn.close()

    def listen(self, on_wake: Callable[[list[str] | None], None], stop: threading.Event) -> None:
        """Run until ``stop`` is set: call ``on_wake(names)`` with the queues another member notified, and
        ``on_wake(None)`` at least every 100 ms (the fallback poll: notifications can be lost).

        The member's waiting gets and peer recovery depend on this thread, so it ends only with ``stop``: a
        failure of its own or of ``on_wake`` (a defect, not the database's) is written to the error log
        (AMQ6125E) and it goes on after :data:`PUBLISH_RETRY` seconds, doubled at each failure in a row up to
        :data:`PUBLISH_RETRY_MAX`."""
        conn: psycopg.Connection[Any] | None = None
        next_check = 0.0
        wait = PUBLISH_RETRY
        while not stop.is_set():
            try:
                if conn is None:
                    conn = psycopg.connect(self._url, autocommit=True, connect_timeout=10)
                    conn.execute(f"LISTEN {channel(self.qsg)}")
                names = [n.payload for n in conn.notifies(timeout=0.1, stop_after=1)]
                _defect_point("listen")
                on_wake(names or None)
                if time.monotonic() >= next_check:  # peer recovery, on this thread's connection
                    next_check = time.monotonic() + PEER_CHECK
                    if self.recover_peers(conn):
                        on_wake(None)
                wait = PUBLISH_RETRY
            except psycopg.Error:
                if conn is not None:
                    conn.close()
                conn = None
                self._wake_safely(on_wake)
                stop.wait(0.1)
            except Exception as e:
                self._internal_error(
                    "the listening for other members' notifications and for failed members", e, wait, _LISTEN_FAILED
                )
                if conn is not None:  # afresh: a defect may have left it inside a transaction
                    conn.close()
                conn = None
                stop.wait(wait)
                wait = min(wait * 2, PUBLISH_RETRY_MAX)
        if conn is not None:
            conn.close()

    def _wake_safely(self, on_wake: Callable[[list[str] | None], None]) -> None:
        """``on_wake(None)`` after the database was lost; a defect in it is said (AMQ6125E), not raised."""
        try:
            on_wake(None)
        except Exception as e:
            self._internal_error("the waking of the gets waiting on shared queues", e, 0.1, _LISTEN_FAILED)

    # == seeds 001 and 002 on shared queues: the group's trigger state and the expiry scan =====================
    # (docs/queue-sharing-groups.md, "Triggering on shared queues", "Expiry on shared queues"; engine/_shared_rules)
    def input_opens(self, queue: str) -> tuple[bool, int]:
        """Seed 001, condition 4, notes a and b: whether any member of the group has ``queue`` open for exclusive
        input, and how many *other* members have it open for shared input."""
        try:
            row = (
                self._c()
                .execute(
                    "SELECT coalesce(bool_or(exclusive), false), count(*) FILTER (WHERE owner <> %s AND NOT exclusive) "
                    "FROM qsg_open WHERE qsg = %s AND queue = %s",
                    (self.owner, self.qsg, queue),
                )
                .fetchone()
            )
        except psycopg.Error as e:
            raise self._fail(e) from None
        return (bool(row[0]), int(row[1])) if row else (False, 0)

    def trigger_counts(self, queue: str, min_priority: int, after: int) -> tuple[int, int, int]:
        """Seed 001, condition 3, note b: on a shared queue committed messages only count. Returns how many
        committed messages of priority ``min_priority`` or above ``queue`` holds, how many of those have an id
        above ``after`` (arrived since a look that saw ids up to ``after``), and the highest committed id.

        Committed: not a put held by a unit of work (prepared or in doubt); a message got in a unit of work that
        has not ended is still on the queue."""
        try:
            row = (
                self._c()
                .execute(
                    "SELECT count(*) FILTER (WHERE priority >= %s), "
                    "count(*) FILTER (WHERE priority >= %s AND id > %s), coalesce(max(id), 0) "
                    "FROM qsg_message WHERE qsg = %s AND queue = %s AND (owner IS NULL OR got)",
                    (min_priority, min_priority, after, self.qsg, queue),
                )
                .fetchone()
            )
        except psycopg.Error as e:
            raise self._fail(e) from None
        return (int(row[0]), int(row[1]), int(row[2])) if row else (0, 0, 0)

    def lead_expiry_scan(self) -> bool:
        """Seed 002: whether this member is the one of its group that scans the shared queues for expired
        messages. The scanner holds the group's scan lock, a PostgreSQL advisory lock of its session: the first
        member to ask takes it; it is released when the member ends (its connections close, also when the
        process is killed), and the next member to ask then takes it over. The holder's name is kept in
        ``qsg_scanner`` for DISPLAY and for the operator."""
        conn = self._c()
        if self._scan_lock_conn is conn and not conn.closed:
            return True
        try:
            got = conn.execute("SELECT pg_try_advisory_lock(%s, %s)", member_lock(self.qsg, " expiry scan")).fetchone()
            if not got or not got[0]:
                return False
            with conn.transaction():
                conn.execute("SELECT pg_advisory_xact_lock(%s)", (_SCHEMA_LOCK,))
                conn.execute(_SCANNER_SCHEMA)
                conn.execute(
                    "INSERT INTO qsg_scanner VALUES (%s, %s, now()) ON CONFLICT (qsg) "
                    "DO UPDATE SET member = excluded.member, since = excluded.since",
                    (self.qsg, self.member),
                )
        except psycopg.Error as e:
            raise self._fail(e) from None
        self._scan_lock_conn = conn
        return True

    def release_expiry_scan(self) -> None:
        """Seed 002: this member no longer scans (its EXPRYINT was turned off): free the scan lock for another."""
        conn = self._scan_lock_conn
        self._scan_lock_conn = None
        if conn is None or conn is not self._conn or conn.closed:
            return  # a session since lost released it with its end
        try:
            conn.execute("SELECT pg_advisory_unlock(%s, %s)", member_lock(self.qsg, " expiry scan"))
        except psycopg.Error as e:
            raise self._fail(e) from None

    def scanner(self) -> str | None:
        """The member that last took the group's expiry scan (None before any did)."""
        try:
            with self._c().transaction():
                self._c().execute("SELECT pg_advisory_xact_lock(%s)", (_SCHEMA_LOCK,))
                self._c().execute(_SCANNER_SCHEMA)
                row = self._c().execute("SELECT member FROM qsg_scanner WHERE qsg = %s", (self.qsg,)).fetchone()
        except psycopg.Error as e:
            raise self._fail(e) from None
        return None if row is None else str(row[0])

    def expire(
        self, now: float, uow: int, limit: int, message_id: int | None = None, held: int | None = None
    ) -> list[SharedMessage]:
        """Seed 002, the periodic scan: claim for unit of work ``uow`` (as its gets: ``owner``, ``uow``, ``got``)
        up to ``limit`` of the group's available messages whose Expiry has passed at ``now`` (engine time,
        seconds) and return them, for their expiration reports. The engine puts the reports in the same unit of
        work and commits it (:meth:`commit`; with a report on a private queue, two-phase: :meth:`prepare`), so
        the messages' discard and their reports happen together or not at all: a scanner that dies before its
        commit leaves the messages to peer recovery, which reinstates them for the next scan (docs/
        queue-sharing-groups.md, "Expiry on shared queues"). A message is claimed by one member only (rows held
        by a unit of work are skipped, and so are rows a get is claiming), so it is reported once.

        ``message_id``: the expired message a get or browse met (the engine tested its Expiry), moved from this
        session's unit of work, claim or browse lock ``held`` — or, None, taken while still available — to
        ``uow``: the same unit of work's discard and report as the scan's, for the message the get would have
        returned (a get that meets it claims it first, so a crash before this leaves it to peer recovery)."""
        self._begin_uow(uow)
        args: tuple[Any, ...]
        if message_id is None:
            sql, args = _EXPIRE_CLAIM, (self.owner, uow, self.qsg, now, limit)
        elif held is None:
            sql, args = _EXPIRE_MET.format("owner IS NULL"), (self.owner, uow, message_id)
        else:
            sql = _EXPIRE_MET.format("owner = %s AND uow = %s")
            args = (self.owner, uow, message_id, self.owner, held)
        try:
            with self._use(fast=True) as conn:  # a claim need not be durable: a crash backs it out
                rows = conn.execute(sql, args).fetchall()
        except StoreError:
            self._forget_uow(uow)
            raise
        if not rows:
            self._forget_uow(uow)  # it holds nothing: its end reaches no database
            return []
        _crash_point("expiry-claimed")
        return [_row(r) for r in rows]
