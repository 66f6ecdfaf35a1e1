"""The in-process transport: the engine and its store in this process, shared by every connection made here.

Theory of operation
-------------------
One :class:`EmbeddedQueueManager` per queue manager per process owns the engine, the store and one lock.
Each MQI call runs the engine verb under the lock, takes the effects it left, submits the store batch *while
still holding the lock* (so the store sees changes in engine order), releases the lock, and only then waits for
the batch to be written — so the durable writes of many threads are grouped into one transaction and one sync.
Getters that wait (MQGMO_WAIT) sleep on a condition of their queue and are woken by the effects of puts,
commits and backouts of other connections: no polling. Time comes from the injected clock, so waits and expiry
are testable with a fake clock.
"""

from __future__ import annotations

import atexit
import functools
import os
import threading
import weakref
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

from syncpoint import _home
from syncpoint.engine import Clock, Connection, GetResult, QueueManager, SystemClock
from syncpoint.mqi import MQGMO, MQMD, MQOD, MQPMO, MQMIError
from syncpoint.mqi import constants as C
from syncpoint.store import Batch, MemoryStore, Pending, SQLiteStore, Store, StoreError

T = TypeVar("T")

_registry: dict[str, EmbeddedQueueManager] = {}
_registry_lock = threading.Lock()


class EmbeddedQueueManager:
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
        self.lock = threading.Lock()
        self._conds: dict[str, threading.Condition] = {}
        self._all = threading.Condition(self.lock)
        self.connections: weakref.WeakSet[EmbeddedConnection] = weakref.WeakSet()
        self.broken: str | None = None
        self.closed = False
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
        pending: Pending | None = None
        with self.lock:
            self._check()
            try:
                self.engine.housekeeping()
                result = fn(*args)
            finally:
                pending = self._flush()
        if pending is not None:
            self._wait(pending)
        return result

    def _check(self) -> None:
        if self.broken is not None:
            raise MQMIError(C.MQCC_FAILED, C.MQRC_Q_MGR_NOT_AVAILABLE, self.broken)
        if self.closed:
            raise MQMIError(C.MQCC_FAILED, C.MQRC_CONNECTION_BROKEN, f"queue manager {self.name} has ended")

    def _flush(self) -> Pending | None:
        """Under the lock: hand the effects of the last call to the store and wake the waiters."""
        effects = self.engine.take_effects()
        for qname in effects.wake:
            cond = self._conds.get(qname)
            if cond is not None:
                cond.notify_all()
        batch: Batch | None = effects.batch
        if batch is None or batch.is_empty():
            return None
        try:
            return self.store.submit(batch)
        except StoreError as e:
            self._break(e)
            raise MQMIError(C.MQCC_FAILED, C.MQRC_RESOURCE_PROBLEM, str(e)) from None

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

    def cond_for(self, qname: str) -> threading.Condition:
        cond = self._conds.get(qname)
        if cond is None:
            cond = self._conds[qname] = threading.Condition(self.lock)
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
        with self.lock:
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
        with _registry_lock:
            if self.key is not None and _registry.get(self.key) is self:
                del _registry[self.key]


class EmbeddedConnection:
    """One MQI connection to an in-process queue manager: the transport the client API drives."""

    def __init__(self, qm: EmbeddedQueueManager, appl_name: str, appl_type: int, user: str) -> None:
        self.qm = qm
        self.conn = qm.call(qm.engine.connect, appl_name, appl_type, user, os.getpid())
        qm.connections.add(self)

    @property
    def qmgr_name(self) -> str:
        return self.qm.name

    def open(self, od: MQOD, options: int) -> int:
        return self.qm.call(self.qm.engine.open, self.conn, od, options).hobj

    def close(self, hobj: int, options: int = C.MQCO_NONE) -> None:
        self.qm.call(self.qm.engine.close, self.conn, hobj, options)

    def put(self, hobj: int, md: MQMD, pmo: MQPMO, data: bytes) -> int:
        return self.qm.call(self.qm.engine.put, self.conn, hobj, md, pmo, data)

    def put1(self, od: MQOD, md: MQMD, pmo: MQPMO, data: bytes) -> int:
        return self.qm.call(self.qm.engine.put1, self.conn, od, md, pmo, data)

    def get(self, hobj: int, md: MQMD, gmo: MQGMO, buflen: int | None) -> GetResult:
        return self.qm.get(self.conn, hobj, md, gmo, buflen)

    def inq(self, hobj: int, selectors: Sequence[int]) -> tuple[list[int], list[bytes], int]:
        return self.qm.call(self.qm.engine.inq, self.conn, hobj, selectors)

    def set(self, hobj: int, selectors: Sequence[int], ints: Sequence[int], chars: Sequence[bytes]) -> None:
        self.qm.call(self.qm.engine.set, self.conn, hobj, selectors, ints, chars)

    def commit(self) -> None:
        self.qm.call(self.qm.engine.commit, self.conn)

    def backout(self) -> None:
        self.qm.call(self.qm.engine.backout, self.conn)

    def disconnect(self, abnormal: bool = False) -> None:
        if self.conn.alive and not self.qm.closed:
            self.qm.call(self.qm.engine.disconnect, self.conn, abnormal)

    def admin(self, verb: str, *args: Any, **kwargs: Any) -> Any:
        """Administrative verbs (define, alter, delete, clear, alter_qmgr, queue_status, handle_status, …)."""
        fn = getattr(self.qm.engine, verb, None)
        if verb.startswith("_") or fn is None or verb not in _ADMIN_VERBS:
            raise MQMIError(C.MQCC_FAILED, C.MQRC_FUNCTION_NOT_SUPPORTED, f"unknown administrative verb {verb}")
        return self.qm.call(functools.partial(fn, *args, **kwargs))


_ADMIN_VERBS = frozenset(
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


# ------------------------------------------------------------------------------------------------------
# opening queue managers in this process
# ------------------------------------------------------------------------------------------------------
def open_embedded(
    name: str,
    *,
    home: str | os.PathLike[str] | None = None,
    store: Store | None = None,
    clock: Clock | None = None,
) -> EmbeddedQueueManager:
    """The process's embedded queue manager ``name``, opened on first use.

    With ``store`` given (e.g. a MemoryStore), that store is used and the queue manager is not shared through
    the registry.
    """
    if store is not None:
        return EmbeddedQueueManager(name, store, clock)
    path = _home.qmgr_db(name, home)
    key = str(path.resolve())
    with _registry_lock:
        qm = _registry.get(key)
        if qm is not None and not qm.closed:
            return qm
        if not path.exists():
            raise MQMIError(
                C.MQCC_FAILED,
                C.MQRC_Q_MGR_NAME_ERROR,
                f"queue manager {name} does not exist under {path.parent.parent}; create it with "
                f"'syncpoint crtmqm {name}'",
            )
        try:
            sqlite_store = SQLiteStore(path)
        except StoreError as e:
            raise MQMIError(C.MQCC_FAILED, C.MQRC_Q_MGR_NOT_AVAILABLE, str(e)) from None
        qm = EmbeddedQueueManager(name, sqlite_store, clock, key)
        _registry[key] = qm
        return qm


def create_queue_manager(
    name: str,
    *,
    dlq: str | None = None,
    home: str | os.PathLike[str] | None = None,
    clock: Clock | None = None,
) -> Path:
    """crtmqm: a new queue manager with its default objects under ``$SYNCPOINT_HOME``. Returns its folder."""
    from syncpoint.engine._objects import valid_object_name

    if not valid_object_name(name):
        raise MQMIError(C.MQCC_FAILED, C.MQRC_Q_MGR_NAME_ERROR, f"{name!r} is not a valid queue manager name")
    path = _home.qmgr_db(name, home)
    if path.exists():
        raise MQMIError(C.MQCC_FAILED, C.MQRC_OBJECT_ALREADY_EXISTS, f"queue manager {name} already exists")
    path.parent.mkdir(parents=True, exist_ok=True)
    store = SQLiteStore(path, create=True)
    try:
        store.open()
        store.write(QueueManager.initial_batch(name, clock or SystemClock(), dlq))
    finally:
        store.close()
    return path.parent


def memory_queue_manager(name: str = "QM1", clock: Clock | None = None, dlq: str | None = None) -> EmbeddedQueueManager:
    """A queue manager held in memory only (tests, throw-away use)."""
    store = MemoryStore()
    store.open()
    store.write(QueueManager.initial_batch(name, clock or SystemClock(), dlq))
    return EmbeddedQueueManager(name, store, clock)


@atexit.register
def _end_process() -> None:
    """A process that ends without MQDISC ends abnormally: its units of work are backed out (IBM on Linux)."""
    for qm in list(_registry.values()):
        try:
            qm.close(abnormal=True)
        except Exception:
            pass
