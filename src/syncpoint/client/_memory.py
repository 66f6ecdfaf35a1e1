"""A queue manager held in memory only, for tests, tools and scratch work: ``syncpoint.memory_queue_manager()``.

It is both things a program may want of it. It is the in-process queue manager (an :class:`EmbeddedQueueManager`)
that other connections and a server share: ``syncpoint.connect(name, embedded=qm)``. And it is a connection: the
Pythonic API (``open``, ``put1``, ``commit``, ``backout``, ``unit_of_work``, ``admin``, the raw ``mq*`` verbs)
goes through a connection of its own, made on first use (:attr:`MemoryQueueManager.connection`, a
:class:`QueueManager` for code that wants that type, e.g. a tool).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

from syncpoint.engine import Clock, SystemClock
from syncpoint.engine import QueueManager as Engine
from syncpoint.host import QueueManagerHost
from syncpoint.store import MemoryStore

from ._api import Queue, QueueManager
from ._connect import connect


class MemoryQueueManager(QueueManagerHost):
    """An in-memory queue manager and, on first use, a connection to it (see the module's doc)."""

    _connection: QueueManager | None = None

    @property
    def connection(self) -> QueueManager:
        """This queue manager's own connection (made on first use, and again after a disconnect)."""
        c = self._connection
        if c is None or not c._connected:
            c = self._connection = connect(self.name, embedded=self, appl_name="memory_queue_manager")
        return c

    # the Pythonic API, through that connection
    def open(self, name: str, options: int | None = None, selector: str = "") -> Queue:
        return self.connection.open(name, options, selector)

    def put1(self, qname: str, data: bytes | str, **kw: Any) -> Any:
        return self.connection.put1(qname, data, **kw)

    # MQCMIT and MQBACK passed to the connection (client/_api.QueueManager.commit passes them to its transport):
    # two faces' delegations, alike in shape
    def commit(self) -> None:
        self.connection.commit()

    def backout(self) -> None:
        self.connection.backout()

    @contextlib.contextmanager
    def unit_of_work(self) -> Iterator[QueueManager]:
        with self.connection.unit_of_work() as c:
            yield c

    def admin(self, verb: str, *args: Any, **kwargs: Any) -> Any:
        return self.connection.admin(verb, *args, **kwargs)

    def disconnect(self) -> None:
        """Ends this queue manager's own connection (MQDISC); the queue manager goes on until :meth:`close`."""
        if self._connection is not None:
            self._connection.disconnect()

    def __getattr__(self, name: str) -> Any:
        """The rest of the connection's API (``mqopen``, ``mqput`` …, ``transport``)."""
        if name.startswith("mq") or name == "transport":
            return getattr(self.connection, name)
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def __enter__(self) -> MemoryQueueManager:
        return self

    def __exit__(self, exc_type: object, *exc: object) -> None:
        """Ends the queue manager: normally (its connections' units of work committed), or after an exception
        abnormally (backed out)."""
        self.close(abnormal=exc_type is not None)


def memory_queue_manager(name: str = "QM1", clock: Clock | None = None, dlq: str | None = None) -> MemoryQueueManager:
    """A queue manager held in memory only (tests, tools, throw-away use), with IBM's default objects and
    ``dlq`` as its dead-letter queue: use it as a connection, or connect to it (``connect(name, embedded=...)``).
    Its messages end with it (:meth:`~MemoryQueueManager.close`, or the end of the process)."""
    store = MemoryStore()
    store.open()
    store.write(Engine.initial_batch(name, clock or SystemClock(), dlq))
    return MemoryQueueManager(name, store, clock)
