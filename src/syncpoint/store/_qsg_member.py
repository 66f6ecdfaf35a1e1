"""A member of a queue-sharing group: its membership, its sessions, its threads, and the recovery of its peers.

Theory of operation
-------------------
Owns: membership (:func:`create_member`, :func:`remove_member`: ``qsg_member``), the member's sessions and
connections (:class:`_Session`, the base of ``PostgresSharedQueues``), peer recovery (:meth:`_Session.recover_peers`)
and the wake-ups between members (:meth:`_Session.notify`, :meth:`_Session.listen`).

``owner`` is ``<member>.<session>``, a fresh session each time the member opens the group: at open, whatever an
earlier session of this member still holds is backed out (its puts deleted, its gets reinstated with
BackoutCount + 1), as a restarted queue manager backs out its units of work. A session holds the member's
liveness lock (a PostgreSQL advisory lock, :func:`member_lock`) for its life: the peers' sign that it lives. A
member whose lock is free has ended, and any peer backs out its units of work (not those in doubt).

Each verb is one short transaction on one of the member's connections (autocommit), never a transaction held
across verbs: a unit of work's gets are the ``owner, uow`` of their rows, so nothing is locked between verbs and
any member can back out another's work. The verbs take a connection of the member's pool (:meth:`_Session._use`;
``_qsg_pool``), or the session's own two (:meth:`_Session._c`, :meth:`_Session._f`). A lost connection ends the
session: :meth:`_Session._fail` starts one new session for that loss, however many verbs met it; the units of
work begun in the lost one fail at their commit (:meth:`_Session._check_uow`). The layers above add their own
state to a session and drop it when the session is lost (:meth:`_Session._session_ended`, ``_forget_lost``).

Wake-ups: :meth:`_Session.notify` hands queue names to a notifier thread that sends them with ``pg_notify`` on its
own autocommit connection, after the commit that made the messages available and outside any unit of work's
transaction (a NOTIFY in a transaction serialises commits and forbids PREPARE TRANSACTION).
:meth:`_Session.listen` is the other side, run by the host's thread, which also recovers dead peers.

The connection string may hold a password: it is kept in this object only and never put in a message.
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
import secrets
import threading
import time
import zlib
from collections.abc import Callable, Iterator
from typing import Any

import psycopg

from ._base import StoreError
from ._postgres import connect, describe_error
from ._qsg_pool import _Group, _Pool
from ._qsg_schema import SCHEMA_VERSION, _ensure_schema
from ._shared import SharedMessage

LIVENESS_WAIT = 5.0  # seconds a starting member waits for its liveness lock (a peer may be recovering it)
NOTIFY_GAP = 0.02  # seconds between two NOTIFYs of a member (the other members' waiters wake that much later)
PEER_CHECK = 1.0  # seconds between two looks for dead peers (peer recovery)
QSG_NAME = re.compile(r"^[A-Z][A-Z0-9]{0,3}$")
# the error log's explanation and action for a failure of the member's listener
# (listen: other members' wake-ups, peer recovery)
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
PUBLISH_RETRY = 0.1  # seconds a member's thread waits after a failure of its own, doubled at each one in a row ...
PUBLISH_RETRY_MAX = 5.0  # ... up to this
_log = logging.getLogger("syncpoint.store.qsg")  # the member's error log shows its AMQ entries (host/_errorlog)


def channel(qsg: str) -> str:
    """The LISTEN/NOTIFY channel of a group."""
    return f"syncpoint_{qsg.lower()}"


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


def member_lock(qsg: str, member: str) -> tuple[int, int]:
    """The two keys of a member's advisory lock (held by its session while it runs)."""

    def key(text: str) -> int:
        return zlib.crc32(text.encode()) - 2**31

    return key("syncpoint qsg " + qsg), key(member)


def _back_out_member(conn: psycopg.Connection[Any], qsg: str, member: str) -> int:
    """Back out what any session of ``member`` holds in units of work: its puts deleted, its gets reinstated
    with BackoutCount + 1. Returns how many messages."""
    like = _like(member)
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
        conn.execute("DELETE FROM qsg_sub WHERE qsg = %s AND member = %s", (qsg, member))  # its subscriptions
    except psycopg.Error:
        pass
    finally:
        conn.close()


def _like(member: str) -> str:
    """A LIKE pattern for every session (``owner``) of ``member``."""
    return member.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + ".%"


class _Session:
    """A member's session of its group's shared store: its connections, its units of work's bookkeeping, its
    threads (see the module doc). ``PostgresSharedQueues`` is this and the verbs above it."""

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
        self._group = _Group(self._use, self._fail)  # the durable verbs' group commit
        # an MQGET of many messages in a unit of work (get_ahead): unit of work -> [queue, gets still to come,
        # messages claimed ahead and not yet got]
        self._ahead: dict[int, list[Any]] = {}
        self._epoch = 0  # sessions lost so far (a PostgreSQL restart): a unit of work is of one session
        self._uow_epoch: dict[int, int] = {}  # unit of work -> the epoch it began in
        # units of work that may hold rows of qsg_message (a get's claim, a lock moved to it, the expiry scan's
        # claim): their commit deletes them; one that only put (and counted its puts) skips that DELETE
        self._holds_rows: set[int] = set()
        self._opened = False
        self._notify_lock = threading.Condition()
        self._to_notify: set[str] = set()
        self._closed = False
        self._notifier: threading.Thread | None = None
        self.recovered = 0  # gets of earlier sessions of this member backed out at open
        self.sessions = 0  # sessions this object started: its open, and one for each connection lost since

    # -- life ------------------------------------------------------------------------------------------
    def open(self) -> None:
        """Join the group as this member's new session; back out what earlier sessions left in flight."""
        self._connect_session()
        self._opened = True
        self._notifier = threading.Thread(target=self._notify_loop, name=f"syncpoint-{self.member}-notify", daemon=True)
        self._notifier.start()

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

    def members(self) -> list[tuple[str, bool, float | None]]:
        """The group's members by name: (name, running, when its latest session started as Unix time, None if
        it never ran). A member runs while a session of it holds its liveness lock (:func:`member_lock`), which
        ``pg_locks`` shows to any connection: read there, not by trying the lock (a try would hold it a moment
        and make a peer's recovery or a starting member wait)."""
        with self._use() as conn:
            rows = conn.execute(
                "SELECT member, extract(epoch FROM started)::float8 FROM qsg_member WHERE qsg = %s ORDER BY member",
                (self.qsg,),
            ).fetchall()
            held = {
                (int(a), int(b))
                for a, b in conn.execute(
                    "SELECT classid::bigint, objid::bigint FROM pg_locks "
                    "WHERE locktype = 'advisory' AND objsubid = 2 AND granted"
                ).fetchall()
            }
        out: list[tuple[str, bool, float | None]] = []
        for name, started in rows:
            k1, k2 = member_lock(self.qsg, name)  # int4 keys; pg_locks shows them as unsigned oids
            out.append((name, (k1 & 0xFFFFFFFF, k2 & 0xFFFFFFFF) in held, started))
        return out

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
                self._recovery_entry("CSQE011I", member, 1, "started")
                with conn.transaction():
                    n = _back_out_member(conn, self.qsg, member)
                    conn.execute(
                        "UPDATE qsg_member SET session = NULL WHERE qsg = %s AND member = %s", (self.qsg, member)
                    )
                done += n
                self._recovery_entry("CSQE013I", member, n, "completed")
            finally:
                conn.execute("SELECT pg_advisory_unlock(%s, %s)", keys)
        return done

    def _recovery_entry(self, message_id: str, member: str, n: int, phase: str) -> None:
        """Peer recovery in this member's error log, with IBM's z/OS numbers (CSQE011I recovery started for a
        failed peer's connection, CSQE013I completed); ``n``: how many messages it backed out (when completed)."""
        if phase == "started":
            text = f"Recovery phase 1 started for structure {self.qsg} connection name {member}"
            why = (
                f"Queue manager {member} of queue-sharing group {self.qsg} ended without ending its session with "
                f"the shared store; {self.member} began peer recovery: the units of work {member} had in flight "
                "on shared queues are backed out and what it held open is released."
            )
            action = f"Find out why queue manager {member} failed (its own error log), and restart it."
        else:
            text = f"Recovery phase 1 completed for structure {self.qsg} connection name {member}"
            why = (
                f"Peer recovery of queue manager {member} by {self.member} ended: {n} messages of its units of "
                "work in flight on shared queues were backed out (its uncommitted puts removed, its uncommitted "
                "gets made available again with BackoutCount + 1). Units of work in doubt keep their messages "
                "until its restart or RESOLVE INDOUBT."
            )
            action = "None."
        _log.info("%s: %s", message_id, text, extra={"qmgr": self.member, "amq": (why, action)})

    def close(self) -> None:
        self._stop_threads()
        if self._conn is not None:
            self._conn.close()
            self._conn = None
        if self._fast is not None:
            self._fast.close()
            self._fast = None
        self._pool.close()
        self._fast_pool.close()

    def _stop_threads(self) -> None:
        """The member's threads end (a layer that runs one of its own adds it: super() first)."""
        with self._notify_lock:
            self._closed = True
            self._notify_lock.notify_all()
        if self._notifier is not None:
            self._notifier.join(10)

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
        self._session_ended()
        self._connect_quietly()

    def _connect_quietly(self) -> None:
        try:  # a new session at once, whose start backs the lost one's units of work out
            self._connect_session()
        except StoreError:
            pass  # the database is still away: the next call tries again (:meth:`_reconnect`)

    def _session_ended(self) -> None:
        """The lost session's state in this object goes with it (its units of work were backed out by the new
        session's start). A layer that keeps state of its own for a session drops it too: super() first."""
        self._pending.clear()
        self._ahead.clear()

    def _forget_lost(self, uow: int) -> None:
        """A unit of work of a lost session ends (backed out when the new session began): what a layer keeps of it
        beyond its rows goes too (the counts of its puts: ``_qsg_counts``). Nothing here."""

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
