"""The queue-manager host: an engine, its store and the lock that serialises calls into it.

Theory of operation
-------------------
One :class:`QueueManagerHost` per queue manager per process owns the engine, the store and one lock. Each MQI
call runs the engine verb under the lock, takes the effects it left, submits the store batch *while still
holding the lock* (so the store sees changes in engine order), releases the lock, and only then waits for the
batch to be written — so the durable writes of many connections are grouped into one transaction and one sync.
The in-process client (``syncpoint.client``) waits in the calling thread (:meth:`call`); the server hands the
pending write to its sync thread (:meth:`run`) and answers when it is durable. Getters that wait (MQGMO_WAIT)
are woken by the effects of puts, commits and backouts of other connections: threads sleep on a condition of
their queue, the server registers a wake listener. Time comes from the injected clock, so waits and expiry are
testable with a fake clock.
"""

from __future__ import annotations

import _thread
import threading
import time
from collections.abc import Callable
from typing import Any, TypeVar

from syncpoint.engine import Clock, Connection, GetResult, QueueManager, SystemClock
from syncpoint.mqi import MQGMO, MQMD, MQMIError
from syncpoint.mqi import constants as C
from syncpoint.store import Pending, Store, StoreError

from ._poll import POLLER

T = TypeVar("T")


class HostLock:
    """The host's lock: a thread that releases it and calls in again takes it again at once.

    A plain lock belongs, the moment it is released, to a thread sleeping in ``acquire()``: that thread wakes on
    another CPU and takes it while the releasing thread (which still holds the GIL) is on its way to its next
    call, which then blocks. Two busy threads so alternate at every call, each call costing two thread switches
    (a lock convoy). Here a waiter does not sleep in the lock: it sleeps on a signal that every release gives,
    and on waking tries the lock without blocking. The running thread therefore keeps calling in until the GIL
    passes to a waiter between two of its calls, as it does when the running thread blocks or its switch
    interval ends. So that a waiter is not passed over for long (the running thread may give the GIL up only
    inside its calls, e.g. in a write(2)), a waiter that has waited :data:`PATIENCE` seconds waits in the lock
    itself, as with a plain lock: it then has it at the next release.
    """

    PATIENCE = 0.005  # CPython's switch interval: a waiter has had one turn of the GIL by then

    __slots__ = ("_lock", "_signal", "no_signal", "release_lock", "try_acquire")

    def __init__(self) -> None:
        self._lock = _thread.allocate_lock()
        self._signal = _thread.allocate_lock()  # held: no signal pending; released: a release happened
        self._signal.acquire()
        # The uncontended path as C calls, for the host's hot paths (a ``with`` on this class costs two Python
        # calls): ``if not try_acquire(False): acquire()`` … ``release_lock(); if no_signal(): give_signal()``.
        self.try_acquire = self._lock.acquire
        self.release_lock = self._lock.release
        self.no_signal = self._signal.locked

    def acquire(self, blocking: bool = True, timeout: float = -1) -> bool:
        lock = self._lock
        if lock.acquire(False):
            return True
        if not blocking:
            return False
        signal = self._signal
        now = time.monotonic()
        patience = now + self.PATIENCE
        deadline = now + timeout if timeout >= 0 else None  # the host never times out; Condition may
        while True:
            wait = patience - now if deadline is None else min(patience, deadline) - now
            if wait > 0 and signal.acquire(True, wait) and lock.acquire(False):
                return True
            now = time.monotonic()
            if deadline is not None and now >= deadline:
                return lock.acquire(False)
            if now >= patience:
                return lock.acquire() if deadline is None else lock.acquire(True, deadline - now)

    def release(self) -> None:
        self._lock.release()
        if self._signal.locked():
            self.give_signal()

    def give_signal(self) -> None:
        try:
            self._signal.release()
        except RuntimeError:  # another release gave the signal meanwhile
            pass

    def locked(self) -> bool:
        return self._lock.locked()

    __enter__ = acquire

    def __exit__(self, *exc: object) -> None:
        self.release()


class QueueManagerHost:
    """An engine, its store and the lock that serialises calls, shared by this process's connections."""

    def __init__(self, name: str, store: Store, clock: Clock | None = None, key: str | None = None) -> None:
        self.name = name
        self.store = store
        self.clock = clock or SystemClock()
        self.key = key
        try:
            snapshot = store.open()
        except StoreError as e:
            raise MQMIError(C.MQCC_FAILED, C.MQRC_Q_MGR_NOT_AVAILABLE, str(e)) from None
        try:
            self.engine = QueueManager(name, snapshot, self.clock)
        except MQMIError:
            store.close()
            raise
        self.lock = HostLock()
        self._conds: dict[str, threading.Condition] = {}
        self._all = threading.Condition(self.lock)  # type: ignore[arg-type]
        self.on_end: list[Callable[[QueueManagerHost], None]] = []
        self.broken: str | None = None
        self.closed = False
        # called under the lock with the names of the queues whose waiters may now succeed (the server's hook)
        self.wake_listeners: list[Callable[[set[str]], None]] = []
        if isinstance(self.clock, SystemClock):
            threading.Thread(target=self._housekeeper, name=f"syncpoint-{name}-housekeeping", daemon=True).start()

    def _housekeeper(self) -> None:
        """Runs the periodic duties (EXPRYINT scans) while no application calls in; a fake clock has none."""
        import time

        while not self.closed and self.broken is None:
            time.sleep(1.0)
            if self.closed or self.broken is not None:
                return
            try:
                self.call(lambda: None)
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
            try:
                self.engine.housekeeping()
                result = fn(*args)
            finally:
                pending = self._flush()
        finally:
            lock.release_lock()
            if lock.no_signal():
                lock.give_signal()
        return result, pending

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
            conds = self._conds
            if conds:
                for qname in wake:
                    cond = conds.get(qname)
                    if cond is not None:
                        cond.notify_all()
            for listener in self.wake_listeners:
                listener(wake)
        if batch is None or batch.is_empty():
            return None
        try:
            pending = self.store.submit(batch)
        except StoreError as e:
            self._break(e)
            raise MQMIError(C.MQCC_FAILED, C.MQRC_RESOURCE_PROBLEM, str(e)) from None
        if batch.durable and not pending.done:  # a sync in flight: keep the CPU polling while it lasts (_poll.py)
            POLLER.touch()
        return pending

    def _wait(self, pending: Pending) -> None:
        try:
            pending.wait()
        except StoreError as e:
            with self.lock:
                self._break(e)
            raise MQMIError(C.MQCC_FAILED, C.MQRC_RESOURCE_PROBLEM, str(e)) from None

    def _break(self, e: Exception) -> None:
        """The store failed: memory and disk may now differ, so the queue manager stops serving."""
        self.broken = f"queue manager {self.name} stopped after a storage failure: {e}"
        for cond in self._conds.values():
            cond.notify_all()
        for listener in self.wake_listeners:
            listener(set(self._conds) | {"*"})

    def cond_for(self, qname: str) -> threading.Condition:
        cond = self._conds.get(qname)
        if cond is None:
            cond = self._conds[qname] = threading.Condition(self.lock)  # type: ignore[arg-type]
        return cond

    def get(self, conn: Connection, hobj: int, md: MQMD, gmo: MQGMO, buflen: int | None) -> GetResult:
        """MQGET with MQGMO_WAIT honoured: sleep on the queue's condition until a put, commit or backout of
        another connection wakes us, the wait interval passes, or the queue manager quiesces."""
        engine = self.engine
        wait = bool(gmo.Options & C.MQGMO_WAIT) and gmo.WaitInterval != 0
        deadline: float | None = None
        if wait and gmo.WaitInterval != C.MQWI_UNLIMITED:
            deadline = self.clock.monotonic() + gmo.WaitInterval / 1000.0
        pending: Pending | None = None
        lock = self.lock
        if not lock.try_acquire(False):
            lock.acquire()
        try:
            try:
                while True:
                    self._check()
                    engine.housekeeping()
                    try:
                        return engine.get(conn, hobj, md, gmo, buflen)
                    except MQMIError as e:
                        if e.reason != C.MQRC_NO_MSG_AVAILABLE or not wait:
                            raise
                    # nothing yet: hand over what the failed attempt discarded (expired messages), then sleep
                    p = self._flush()
                    if p is not None:
                        self.lock.release()
                        try:
                            self._wait(p)
                        finally:
                            self.lock.acquire()
                    if engine.quiescing and gmo.Options & C.MQGMO_FAIL_IF_QUIESCING:
                        raise MQMIError(C.MQCC_FAILED, C.MQRC_Q_MGR_QUIESCING, "the queue manager is ending")
                    h = conn.handles.get(hobj)
                    if h is None or h.queue is None:
                        raise MQMIError(C.MQCC_FAILED, C.MQRC_HOBJ_ERROR, "the handle was closed while waiting")
                    remaining = None if deadline is None else deadline - self.clock.monotonic()
                    if remaining is not None and remaining <= 0:
                        raise MQMIError(C.MQCC_FAILED, C.MQRC_NO_MSG_AVAILABLE)
                    self.clock.wait(self.cond_for(h.queue.name), remaining)
            finally:
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

    def quiesce(self) -> None:
        with self.lock:
            self.engine.quiesce()
            for cond in self._conds.values():
                cond.notify_all()
            for listener in self.wake_listeners:
                listener({"*"})

    # -- lifetime -------------------------------------------------------------------------------------
    def close(self, abnormal: bool = True) -> None:
        """End every connection (backing out their units of work when ``abnormal``) and close the store."""
        with self.lock:
            if self.closed:
                return
            for c in list(self.engine.connections.values()):
                self.engine.disconnect(c, abnormal=abnormal)
            pending = self._flush() if self.broken is None else None
        if pending is not None:
            try:
                pending.wait()
            except StoreError:
                pass
        self._end()

    def abandon(self) -> None:
        """Drop the engine as a crash would: no backout, nothing more written. For restart tests."""
        self._end()

    def _end(self) -> None:
        with self.lock:
            self.closed = True
            for cond in self._conds.values():
                cond.notify_all()
        self.store.close()
        for fn in self.on_end:
            fn(self)


ADMIN_VERBS = frozenset(
    {
        "define",
        "alter",
        "delete",
        "clear",
        "alter_qmgr",
        "queue_status",
        "handle_status",
        "lookup",
        "list_objects",
        "messages",
        "qm_attr",
        "refresh_expiry",
    }
)
