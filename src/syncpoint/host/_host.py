"""The queue-manager host: an engine, its store and the lock that serialises calls into it.

Theory of operation
-------------------
One :class:`QueueManagerHost` per queue manager per process owns the engine, the store and one lock. Each MQI
call runs the engine verb under the lock, takes the effects it left, submits the store batch *while still
holding the lock* (so the store sees changes in engine order), releases the lock, and only then waits for the
batch to be written — so the durable writes of many connections are grouped into one transaction and one sync.
The in-process client (``syncpoint.client``) waits in the calling thread (:meth:`call`); the server hands the
pending write to its sync thread (:meth:`run`) and answers when it is durable.

A persistent message that a call committed (or put outside syncpoint) becomes available to other connections
only once the store has made that call's batch durable (the engine's ``Effects.durable_pending``): whoever learns
the write is durable — the calling thread after its wait, the server's loop when its sync thread reports — calls
into the engine under the lock (:meth:`QueueManagerHost.durable_reached`), which makes the messages available and
wakes their getters; every call first makes available what is durable by then. A get that waits for such a message
therefore waits for the sync that carries the put, shared by its group.

Getters that wait (MQGMO_WAIT) park in the host's :class:`~syncpoint.host.Waiters`, where their deadlines, the
wake rule and the queue manager's lifecycle (running, quiescing, stopped) are decided once for every kind of
caller. The effects of puts, commits and backouts name the queues to wake: a thread of this process sleeping
in :meth:`get` is notified on its condition; a session of the server has registered a waiter whose wake
schedules a retry on the event loop. Time comes from the injected clock, which also says how long to sleep, so
waits and expiry are testable with a fake clock.

The engine does not read the OS: the host gives every connection the user and process id of its application,
this process's own when the caller gave none (:func:`identity`).
"""

from __future__ import annotations

import collections
import functools
import os
import threading
from collections.abc import Callable
from typing import Any, TypeVar

from syncpoint.engine import Clock, Connection, GetResult, Message, QueueManager, SystemClock
from syncpoint.mqi import MQGMO, MQMD, MQMIError
from syncpoint.mqi import constants as C
from syncpoint.store import Pending, Store, StoreError, follow_resolutions, open_group

from ._errorlog import error_log_for
from ._group import start_group_wakeups
from ._lock import HostLock
from ._poll import POLLER
from ._waiting import ALL_QUEUES, STOPPED, Waiter, Waiters

T = TypeVar("T")

HOUSEKEEPING_PERIOD = 1.0  # real seconds between two looks at the periodic duties of an idle queue manager


@functools.cache
def os_user() -> str:
    """This process's user name as MQ records it (UserIdentifier: at most 12 characters)."""
    try:
        import pwd

        return pwd.getpwuid(os.getuid()).pw_name[:12]
    except Exception:  # no passwd entry (a container running as an unnamed uid)
        return os.environ.get("USER", "")[:12]


def identity(user: str = "", pid: int = 0) -> tuple[str, int]:
    """The user and process id of a connection: the caller's, else this process's."""
    return user or os_user(), pid or os.getpid()


class QueueManagerHost:
    """An engine, its store and the lock that serialises calls, shared by this process's connections."""

    def __init__(self, name: str, store: Store, clock: Clock | None = None, key: str | None = None) -> None:
        self.name = name
        self.store = store
        self.clock: Clock = clock or SystemClock()
        self.key = key
        # the error log (errors/AMQERR01.LOG) of a queue manager in its folder; None for other stores
        self.errorlog = error_log_for(name, store)
        self._log_handler = self.errorlog.attach() if self.errorlog is not None else None
        try:
            snapshot = store.open()
        except StoreError as e:
            self._detach_log(damaged=str(e))
            raise MQMIError(C.MQCC_FAILED, C.MQRC_Q_MGR_NOT_AVAILABLE, str(e)) from None
        try:
            self.shared = open_group(snapshot.objects, name)  # a member of a queue-sharing group: its shared store
            follow_resolutions(self.shared, store, snapshot)  # private parts follow RESOLVE INDOUBT's decisions
        except StoreError as e:
            store.close()
            self._detach_log(damaged=str(e))
            raise MQMIError(C.MQCC_FAILED, C.MQRC_Q_MGR_NOT_AVAILABLE, str(e)) from None
        try:
            self.engine = QueueManager(name, snapshot, self.clock, self.shared)
        except MQMIError as e:
            store.close()
            if self.shared is not None:
                self.shared.close()
            self._detach_log(damaged=str(e))
            raise
        if self.errorlog is not None:
            self.errorlog.started(snapshot.recovered_inflight)
            for nid, action, by, logged in getattr(self.shared, "heuristic", ()):  # RESOLVE INDOUBT (``_qsg``)
                self.errorlog.warning(
                    "AMQ8497W",
                    f"In-doubt unit of work NID={nid} was resolved by {by} with ACTION({action}); the log of queue "
                    f"manager '{name}' said {logged}. Its private part now follows ACTION({action}).",
                    f"RESOLVE INDOUBT settled the unit of work's shared part while '{name}' was not running, the "
                    f"other way than this queue manager's log had it. At this start its persistent private messages "
                    f"were made to follow the decision (docs/queue-sharing-groups.md, 'Resolving in-doubt units of "
                    f"work'); its non-persistent ones were lost with the restart, as always.",
                    "None: the unit of work is whole again. If its application acted on the private part meanwhile, "
                    "check it.",
                )
        self.lock = HostLock()
        self.waiters = Waiters(self.clock)
        self.engine.call_in_progress = self.waiters.waiting_on  # DISPLAY's HSTATE
        self.on_end: list[Callable[[QueueManagerHost], None]] = []
        self.broken: str | None = None
        self.closed = False
        self._ended = threading.Event()
        # writes whose durability makes messages available: [pending, messages], in submission order
        self._undurable: collections.deque[tuple[Pending, list[Message]]] = collections.deque()
        # queue-sharing groups: two-phase commits to complete once their write is durable (engine._shared)
        self._completions: collections.deque[tuple[Pending, list[int]]] = collections.deque()
        self.published = 0  # how many times durable writes made messages available (a waiting get's check)
        if not self.engine.oam_enforced:  # a store naming no creator (made before authority checks existed)
            self.call(self.engine.record_creator, os_user())
        threading.Thread(target=self._housekeeper, name=f"syncpoint-{name}-housekeeping", daemon=True).start()
        if self.shared is not None:
            self.engine.unlocked = self._unlocked  # shared queues wait for PostgreSQL with the lock let go
            start_group_wakeups(self, self.shared, self._ended)

    def _unlocked(self, fn: Callable[..., T], *args: Any) -> T:
        """Run ``fn`` (a call of the shared store, made by the engine under this host's lock) with the lock let
        go: the member's other connections go on while it waits for PostgreSQL (``engine._shared._io``)."""
        lock = self.lock
        lock.release()
        try:
            return fn(*args)
        finally:
            if not lock.try_acquire(False):
                lock.acquire()

    @property
    def state(self) -> str:
        """The lifecycle: ``running``, ``quiescing`` or ``stopped`` (also once the host is closed)."""
        return STOPPED if self.closed else self.waiters.state

    def _housekeeper(self) -> None:
        """Looks at the periodic duties (EXPRYINT scans) while no application calls in (every call looks at them
        first anyway). The engine decides by its clock whether one is due; a clock that has not moved since the
        last look (a fake clock nobody advanced) cannot have made one due, so then nothing is called."""
        clock = self.clock
        last = clock.monotonic()
        while not self._ended.wait(HOUSEKEEPING_PERIOD):
            if self.closed or self.broken is not None:
                return
            now = clock.monotonic()
            if now == last:
                continue
            last = now
            try:
                self.call(_nothing)
            except Exception:  # the queue manager is ending or broken: the loop ends on its own
                pass

    # -- running verbs --------------------------------------------------------------------------------
    def call(self, fn: Callable[..., T], *args: Any) -> T:
        """Run one engine verb: lock, call, submit effects in order, unlock, wait for durability, wake."""
        result, pending = self.run(fn, *args)
        if pending is not None:
            self._wait(pending)
        return result

    def run(self, fn: Callable[..., T], *args: Any) -> tuple[T, Pending | None]:
        """Run one engine verb like :meth:`call` but leave the durability wait to the caller: returns the
        result and the store's pending write (None when nothing was written). The server waits for it off its
        event loop, so many connections' commits share one sync."""
        lock = self.lock
        if not lock.try_acquire(False):
            lock.acquire()
        try:
            self._check()
            if self._undurable:
                self._publish_durable()
            try:
                self.engine.housekeeping()
                result = fn(*args)
            except MQMIError as e:
                if self.engine.monitoring_on:  # a failed MQI call: statistics and accounting count it
                    self.engine.count_failure(getattr(fn, "__name__", ""), args, e.reason)
                raise
            finally:
                pending = self._flush()
        finally:
            lock.release_lock()
            if lock.no_signal():
                lock.give_signal()
        return result, pending

    def connect(self, appl_name: str = "", appl_type: int = C.MQAT_UNIX, user: str = "", pid: int = 0) -> Connection:
        """MQCONN for an application of this process (the user and pid default to this process's)."""
        user, pid = identity(user, pid)
        return self.call(self.engine.connect, appl_name, appl_type, user, pid)

    def _check(self) -> None:
        if self.broken is not None:
            raise MQMIError(C.MQCC_FAILED, C.MQRC_Q_MGR_NOT_AVAILABLE, self.broken)
        if self.closed:
            raise MQMIError(C.MQCC_FAILED, C.MQRC_CONNECTION_BROKEN, f"queue manager {self.name} has ended")

    def _flush(self) -> Pending | None:
        """Under the lock: hand the effects of the last call to the store and wake the waiters."""
        effects = self.engine.take_effects()
        if effects is None:
            return None
        batch, wake = effects.batch, effects.wake
        if wake:
            self.waiters.wake(wake)
        if batch is None or batch.is_empty():
            return None
        try:
            pending = self.store.submit(batch)
        except StoreError as e:
            self._break(e)
            raise MQMIError(C.MQCC_FAILED, C.MQRC_RESOURCE_PROBLEM, str(e)) from None
        if batch.durable and not pending.done:  # a sync in flight: keep the CPU polling while it lasts (_poll.py)
            POLLER.touch()
        if self.shared is not None:  # queue-sharing groups: two-phase commits complete once this batch is durable
            prepared = self.engine.take_shared_completions()
            if prepared:
                self._completions.append((pending, prepared))
                if effects.durable_pending is None:
                    self._undurable.append((pending, []))
                    if pending.done:
                        self._publish_durable()
                    else:
                        pending = PublishingPending(self, pending)
        if effects.durable_pending is not None:
            self._undurable.append((pending, effects.durable_pending))
            if pending.done:  # a store that writes at once (in memory): available now
                self._publish_durable()
            else:
                pending = PublishingPending(self, pending)
        return pending

    def _publish_durable(self) -> None:
        """Under the lock: the messages of every write now durable become available, and their getters wake.

        Run by whoever learns a write is durable (:meth:`durable_reached`) and before every call, never between
        a get that found nothing and the parking of its waiter: a wake then cannot be missed."""
        undurable = self._undurable
        messages: list[Message] = []
        while undurable and undurable[0][0].done:  # the store makes writes durable in submission order
            messages += undurable.popleft()[1]
        if messages:
            self.published += 1
            engine = self.engine
            engine.made_durable(messages)
            effects = engine.take_effects()
            if effects is not None and effects.wake:
                self.waiters.wake(effects.wake)
        completions = self._completions
        if completions and completions[0][0].done:
            self._complete_shared(completions)

    def _complete_shared(self, completions: collections.deque[tuple[Pending, list[int]]]) -> None:
        """Under the lock: phase 3 of the two-phase commits whose decisions are now durable (``engine._shared``);
        the records of those decisions are then dropped from the store."""
        while completions and completions[0][0].done:
            self.engine.complete_shared(completions.popleft()[1])
        effects = self.engine.take_effects()
        if effects is not None:
            if effects.wake:
                self.waiters.wake(effects.wake)
            if effects.batch is not None and not effects.batch.is_empty():
                self.store.submit(effects.batch)

    def durable_reached(self) -> None:
        """A write returned by :meth:`run` is durable (its ``wait()`` returned): make available what it committed.
        The pending write :meth:`run` returns calls this itself when waited on; anything else is harmless."""
        if self._undurable and self.broken is None:
            lock = self.lock
            if not lock.try_acquire(False):
                lock.acquire()
            try:
                self._publish_durable()
            finally:
                lock.release_lock()
                if lock.no_signal():
                    lock.give_signal()

    def _wait(self, pending: Pending) -> None:
        try:
            pending.wait()
        except StoreError as e:
            with self.lock:
                self._break(e)
            raise MQMIError(C.MQCC_FAILED, C.MQRC_RESOURCE_PROBLEM, str(e)) from None

    def storage_failed(self, error: BaseException) -> MQMIError:
        """A write waited for off the lock failed (the server's sync thread): stop serving; the caller's error."""
        if isinstance(error, StoreError) and self.broken is None:
            with self.lock:
                self._break(error)
        return MQMIError(C.MQCC_FAILED, C.MQRC_RESOURCE_PROBLEM, str(error))

    def _break(self, e: Exception) -> None:
        """The store failed: memory and disk may now differ, so the queue manager stops serving."""
        first = self.broken is None
        self.broken = f"queue manager {self.name} stopped after a storage failure: {e}"
        self.waiters.wake(ALL_QUEUES)
        if first and self.errorlog is not None:
            self.errorlog.storage_failed(str(e))

    def _detach_log(self, damaged: str | None = None, ended: str | None = None) -> None:
        """The error log's last entry of this host (``damaged``: the files could not be used; ``ended``: how it
        ended), and its handler of log records removed."""
        errorlog, handler = self.errorlog, self._log_handler
        self._log_handler = None
        if errorlog is None:
            return
        if damaged is not None and " is in use by " not in damaged:  # in use: the holder's log, not ours to write
            errorlog.damaged(damaged)
        if ended is not None:
            errorlog.ended(ended)
        if handler is not None:
            errorlog.detach(handler)

    # -- MQGET with waiting: the thread adapter of Waiters --------------------------------------------
    def get(self, conn: Connection, hobj: int, md: MQMD, gmo: MQGMO, buflen: int | None) -> GetResult:
        """MQGET with MQGMO_WAIT honoured: sleep on a condition until a put, commit or backout of another
        connection wakes us, the wait interval passes by the clock, or the queue manager quiesces."""
        engine = self.engine
        waiters = self.waiters
        deadline = waiters.deadline_of(gmo)
        waiter: Waiter | None = None
        cond: threading.Condition | None = None
        lock = self.lock
        if not lock.try_acquire(False):
            lock.acquire()
        try:
            try:
                while True:
                    self._check()
                    if self._undurable:
                        self._publish_durable()
                    seen = self.published
                    engine.housekeeping()
                    woken = 0
                    if self.shared is not None:  # a shared queue's get lets the lock go: wakes meanwhile count
                        h = conn.handles.get(hobj)
                        qname = "" if h is None or h.queue is None else h.queue.name
                        woken = waiters.woken(qname)
                    try:
                        return engine.get(conn, hobj, md, gmo, buflen)
                    except MQMIError as e:
                        if e.reason != C.MQRC_NO_MSG_AVAILABLE or deadline is None:
                            raise
                    if self.shared is not None and waiters.woken(qname) != woken:
                        continue  # woken while the lock was let go: try again
                    # nothing yet: hand over what the failed attempt discarded (expired messages), then sleep
                    p = self._flush()
                    if p is not None:
                        self.lock.release()
                        try:
                            self._wait(p)
                        finally:
                            self.lock.acquire()
                        if self.published != seen:  # messages became available meanwhile: try again
                            continue
                    h = conn.handles.get(hobj)
                    if waiter is None:
                        cond = threading.Condition(self.lock)  # type: ignore[arg-type]
                        waiter = Waiter(
                            "" if h is None or h.queue is None else h.queue.name,
                            deadline,
                            bool(gmo.Options & C.MQGMO_FAIL_IF_QUIESCING),
                            cond.notify,
                            done=True,
                            hconn=conn.hconn,
                            hobj=hobj,
                        )
                    ended = waiters.end_of_wait(waiter, h is not None and h.queue is not None)
                    if ended is not None:
                        raise ended
                    if waiter.done:
                        waiters.park(waiter)
                    assert cond is not None
                    cond.wait(waiters.sleep_time(deadline))
            finally:
                if waiter is not None:
                    waiters.unpark(waiter)
                pending = self._flush()
                if pending is not None:
                    self._settle(pending)
        finally:
            lock.release_lock()
            if lock.no_signal():
                lock.give_signal()

    def _settle(self, pending: Pending) -> None:
        """Under the lock, after a get: wait for what it wrote (releasing the lock unless already done)."""
        if pending.done:  # e.g. a get in syncpoint: nothing to wait for, keep the lock
            try:
                if isinstance(pending, PublishingPending):
                    pending.pending.wait()
                    self._publish_durable()
                else:
                    pending.wait()
            except StoreError as e:
                self._break(e)
                raise MQMIError(C.MQCC_FAILED, C.MQRC_RESOURCE_PROBLEM, str(e)) from None
        else:
            self.lock.release()
            try:
                self._wait(pending)
            finally:
                self.lock.acquire()

    # -- lifecycle ------------------------------------------------------------------------------------
    def quiesce(self) -> bool:
        """running -> quiescing (endmqm -c): FAIL_IF_QUIESCING calls and new connections are refused, and the
        waiting gets that asked for it end with MQRC_Q_MGR_QUIESCING. True if the state changed."""
        with self.lock:
            changed = self.waiters.quiesce()
            self.engine.quiesce()
            self.waiters.wake(ALL_QUEUES)
            return changed

    def stop(self) -> list[Waiter]:
        """-> stopped (endmqm -i / -p): no call is served any more. Returns the waiters that were parked (the
        threads of this process among them wake and end by themselves; the caller ends the others with
        :meth:`Waiters.stopped_error`)."""
        with self.lock:
            ended = self.waiters.stop()
            for w in ended:
                w.wake()
            return ended

    def close(self, abnormal: bool = True) -> None:
        """End every connection (backing out their units of work when ``abnormal``) and close the store."""
        with self.lock:
            if self.closed:
                return
            if self.broken is None:
                if not abnormal:  # IBM: a controlled end writes the statistics and the open connections' accounting
                    self.engine.monitoring_end()
                self.engine.qmgr_stopping()  # STRSTPEV's Queue Manager Not Active event
            for c in list(self.engine.connections.values()):
                self.engine.disconnect(c, abnormal=abnormal)
            pending = self._flush() if self.broken is None else None
        if pending is not None:
            try:
                pending.wait()
            except StoreError:
                pass
        self._end()
        self._detach_log(ended="immediately" if abnormal else "normally")

    def abandon(self) -> None:
        """Drop the engine as a crash would: no backout, nothing more written. For restart tests."""
        self._end()
        self._detach_log()

    def _end(self) -> None:
        with self.lock:
            self.closed = True
            self._ended.set()
            self.waiters.wake(ALL_QUEUES)
        self.store.close()
        if self.shared is not None:
            self.shared.close()
        for fn in self.on_end:
            fn(self)


def _nothing() -> None:
    pass


class PublishingPending:
    """A pending write that committed persistent messages: :meth:`wait` waits for it and then makes them available
    (:meth:`QueueManagerHost.durable_reached`, which takes the host's lock). A caller that must not take the lock
    where it waits (the server's sync thread: the event loop decides when waiters are parked) waits with
    ``pending.wait()`` and calls ``host.durable_reached()`` where it may."""

    __slots__ = ("host", "pending")

    def __init__(self, host: QueueManagerHost, pending: Pending) -> None:
        self.host = host
        self.pending = pending

    @property
    def done(self) -> bool:
        return self.pending.done

    def wait(self) -> None:
        self.pending.wait()
        self.host.durable_reached()


def durable_write(pending: Pending) -> tuple[Pending, QueueManagerHost | None]:
    """The store's own pending write behind ``pending``, and the host to tell once it is durable (None if
    nothing waits for it to become available)."""
    if isinstance(pending, PublishingPending):
        return pending.pending, pending.host
    return pending, None


ADMIN_VERBS = frozenset(
    {
        "define",
        "alter",
        "delete",
        "clear",
        "alter_qmgr",
        "queue_status",
        "handle_status",
        "qmgr_status",
        "connection_status",
        "lookup",
        "list_objects",
        "messages",
        "qm_attr",
        "refresh_expiry",
        "qsgdisp",
        "qsg_name",  # the queue-sharing group's name ("" outside one): dmpmqcfg, DISPLAY on a member
        "qsg_members",  # the group's members, running or not (the console's queue-manager page)
        "threads",  # DISPLAY THREAD (queue-sharing groups)
        "indoubt_resolve",  # RESOLVE INDOUBT
        "group_definitions",  # DISPLAY … QSGDISP(ALL | GROUP): the group's GROUP definitions
        # publish/subscribe (engine ``_pubsub``, ``_subscribe``)
        "define_topic",
        "alter_topic",
        "delete_topic",
        "topic_status",
        "topic_strings",
        "pubsub_status",  # DISPLAY PUBSUB, Inquire Pub/Sub Status (engine ``_group_pubsub``)
        "clear_topicstr",
        "define_sub",
        "alter_sub",
        "delete_sub",
        "subscriptions",
        "refresh_security",  # REFRESH SECURITY TYPE(CONNAUTH)
        "set_chlauth",  # SET CHLAUTH (engine._chlauth)
        "chlauth_records",  # DISPLAY CHLAUTH
        "connauth_in_force",
        # the object authority manager (engine._authority): setmqaut, SET / DELETE / DISPLAY AUTHREC, groups
        "set_authrec",
        "delete_authrec",
        "authrecs",
        "entity_authority",
        "group_change",
        "groups",
        "as_user",  # an administrative verb for another user (the command server, for a PCF request's user)
        "queue_names",  # the metrics (issue 36): names, then counts and status by slices
        "queue_metrics",
        "qmgr_metrics",
        "reset_statistics",  # RESET QMGR TYPE(STATISTICS) (issue 36: statistics messages)
        "command_event",  # CMDEV: runmqsc and the command server report each command (engine ``_admin_events``)
        "refresh_config",  # REFRESH QMGR TYPE(CONFIGEV)
        "channel_event",  # CHLEV: the sending channels report starts and stops (administrators only)
        "channel_statistics",  # STATCHL: whether a sending channel starting now collects (engine ``_chlstats``)
        "count_channel",  # … and its figures, one call a batch
    }
)
"""The engine's administrative verbs that a client may call (MQSC, PCF and the tools use them)."""
