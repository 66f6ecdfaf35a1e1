"""The shared store of a queue-sharing group, as the engine sees it: shared definitions and shared queues.

Theory of operation
-------------------
A member of a queue-sharing group keeps its private state in its own store (``_base.Store``) and reaches the
group's state through :class:`SharedQueues`: the definitions with QSGDISP(GROUP) and QSGDISP(SHARED), and the
messages of the shared queues. Unlike ``Store``, which only records what the engine already decided in memory,
every call here *is* the operation: the messages of a shared queue live only in the shared store, because every
member puts and gets them. The engine calls it synchronously from its verbs (``engine/_shared``); an
implementation does its I/O behind this interface, so the engine stays pure logic
(``_postgres_shared.PostgresSharedQueues``; docs/queue-sharing-groups.md).

A unit of work's shared part is state in the shared store, not an open transaction: a message put in unit of
work *uow* is held by the member's session (``owner``) until :meth:`SharedQueues.commit` or
:meth:`SharedQueues.backout`; a message got in one is held likewise and reinstated with BackoutCount + 1 by a
backout, from whichever member.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

# QSGDISP values (IBM's MQQSGD_*)
QSGD_Q_MGR = "QMGR"
QSGD_COPY = "COPY"
QSGD_GROUP = "GROUP"
QSGD_SHARED = "SHARED"


@dataclass(slots=True)
class SharedMessage:
    """One message of a shared queue. ``id`` is the group-wide put order (FIFO order, the MsgToken)."""

    id: int
    queue: str
    priority: int
    persistent: bool
    md: bytes  # packed MQMD version 2
    data: bytes
    msgid: bytes
    correlid: bytes
    expiry: int
    put_time: float
    backout: int = 0


class SharedQueues(Protocol):
    """A member's view of its queue-sharing group's shared store."""

    qsg: str  # the group's name
    member: str  # this queue manager's name

    def definitions(self) -> list[tuple[str, str, str, bytes]]:
        """Every shared definition: ``(kind, name, disposition, definition)``; disposition GROUP or SHARED."""
        ...

    def put_definition(self, kind: str, name: str, disposition: str, definition: bytes, replace: bool) -> bool:
        """Store a GROUP or SHARED definition; False (nothing changed) when it exists and not ``replace``."""
        ...

    def delete_definition(self, kind: str, name: str) -> None: ...

    def put(self, message: SharedMessage, uow: int | None) -> int:
        """Add a message; with ``uow`` held by that unit of work until it ends. Returns its id."""
        ...

    def get(
        self, queue: str, uow: int | None, msgid: bytes | None, correlid: bytes | None, claim_only: bool
    ) -> SharedMessage | None:
        """Take the first available message in delivery order (priority, then put order) matching the ids:
        deleted when ``uow`` is None and not ``claim_only``, else held by ``uow`` (``claim_only``: held by
        unit of work 0, to be finished by :meth:`finish_claim`). None when there is none."""
        ...

    def finish_claim(self, message_id: int, take: bool, uow: int | None) -> None:
        """A message held by unit of work 0: taken (deleted, or with ``uow`` held by that unit of work) or, not
        ``take``, made available again as it was."""
        ...

    def discard(self, message_id: int) -> None:
        """Delete a message this member holds (an expired one a get met)."""
        ...

    def commit(self, uow: int) -> list[str]:
        """Make the unit of work's puts available and its gets final; the queues that got messages."""
        ...

    def open_input(self, queue: str, exclusive: bool) -> bool:
        """This member's first input open of a shared queue; False when another member's opens forbid it."""
        ...

    def close_input(self, queue: str) -> None:
        """This member's last input handle of a shared queue was closed."""
        ...

    def decision_name(self, uow: int) -> str:
        """The name of the record in the member's private store that says unit of work ``uow`` committed."""
        ...

    def prepare(self, uow: int) -> None:
        """Two-phase commit, phase 1: the unit of work's shared part made durable and marked in doubt."""
        ...

    def complete(self, uow: int) -> list[str]:
        """Phase 3, after the decision is durable in the member's store: commit the prepared shared part."""
        ...

    def backout(self, uow: int) -> list[str]:
        """Delete the unit of work's puts and reinstate its gets with BackoutCount + 1; the queues that got
        messages back."""
        ...

    def depth(self, queue: str, limit: int | None = None) -> int:
        """CURDEPTH: the group's messages on the queue (those held by units of work too); with ``limit``,
        counted up to that many only (enough to tell whether MAXDEPTH is reached)."""
        ...

    def take_ahead(self, uow: int, queue: str) -> SharedMessage | None:
        """The next message ``uow`` claimed ahead from ``queue`` (:meth:`get_ahead`), without reaching the
        store; None when there is none."""
        ...

    def get_ahead(self, uow: int, queue: str, count: int) -> None:
        """The next ``count`` plain gets of unit of work ``uow`` from ``queue`` (an MQGET of many messages) may
        claim their messages with one statement; 0 ends that, making what was claimed and not got available
        again as it was."""
        ...

    def clear(self, queue: str) -> int:
        """Delete the queue's available messages; how many."""
        ...

    def notify(self, queues: list[str]) -> None:
        """Tell the other members that messages became available on ``queues`` (asynchronously)."""
        ...

    def listen(self, on_wake: Callable[[list[str] | None], None], stop: threading.Event) -> None:
        """Until ``stop`` is set, call ``on_wake(queues)`` with the queues other members notified, and
        ``on_wake(None)`` at least every 100 ms (the fallback poll: notifications can be lost)."""
        ...

    def close(self) -> None: ...
