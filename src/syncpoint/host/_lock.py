"""The host's lock (:class:`HostLock`): no lock convoy between threads that call into the engine in turn."""

from __future__ import annotations

import _thread
import time


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
