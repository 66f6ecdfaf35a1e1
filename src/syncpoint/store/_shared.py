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
    # seed 002: a get out of syncpoint met this message expired, and its statement claimed it (held by this
    # session's unit of work 0) instead of deleting it: the engine discards and reports it (SharedQueues.expire)
    expired: bool = False


def expired_at(m: SharedMessage, now: float) -> bool:
    """Seed 002: whether ``m``'s Expiry has passed at ``now`` (engine time, seconds). The store's own test: the
    same deadline its statements compare (``put_time + expiry / 10.0``), so the engine and the store agree."""
    return m.expired or (m.expiry != -1 and m.put_time + m.expiry / 10.0 <= now)


@dataclass(slots=True)
class InDoubtUnit:
    """One unit of work left in doubt in the shared store: what DISPLAY THREAD TYPE(INDOUBT) shows."""

    member: str  # the member (coordinator) that prepared it
    nid: str
    uow: int
    puts: int  # messages it put, held until it is settled
    gets: int  # messages it got, held likewise
    queues: list[str]
    active: bool  # its member runs (its liveness lock is held): only the member may settle it


@dataclass(slots=True, frozen=True)
class SharedMatch:
    """What a get on a shared queue selects by, beyond "the first available message" (the MQMO_* match options
    and the browse cursor, as the engine decided them). ``groupid`` and ``seqno`` are compared with the packed
    MQMD version 2 (``SharedMessage.md``): GroupId is its bytes 324-347, MsgSeqNumber its bytes 348-351 as
    packed; ``token`` is a message's id (its MsgToken)."""

    msgid: bytes | None = None
    correlid: bytes | None = None
    groupid: bytes | None = None
    seqno: bytes | None = None
    token: int | None = None
    message_id: int | None = None  # exactly this message (the one under the browse cursor)
    after: tuple[int, int] | None = None  # (priority, id) of the browse cursor: only messages after it
    fifo: bool = False  # delivery order by id alone (MSGDLVSQ(FIFO)), else priority then id
    ids: tuple[int, ...] | None = None  # only these messages (a selecting handle's matches: engine/_shared_select)


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
        self,
        queue: str,
        uow: int | None,
        msgid: bytes | None,
        correlid: bytes | None,
        claim_only: bool,
        now: float | None = None,
    ) -> SharedMessage | None:
        """Take the first available message in delivery order (priority, then put order) matching the ids:
        deleted when ``uow`` is None and not ``claim_only``, else held by ``uow`` (``claim_only``: held by
        unit of work 0, to be finished by :meth:`finish_claim`). None when there is none. With ``now`` (engine
        time), a message it would delete that has expired at ``now`` is held by unit of work 0 instead and
        returned with ``expired`` set (seed 002: its discard and its report are the engine's, :meth:`expire`)."""
        ...

    def finish_claim(self, message_id: int, take: bool, uow: int | None) -> None:
        """A message held by unit of work 0: taken (deleted, or with ``uow`` held by that unit of work) or, not
        ``take``, made available again as it was (the get of unit of work ``uow`` when given: a get in syncpoint
        that failed with MQRC_TRUNCATED_MSG_FAILED)."""
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

    def prepare(self, uow: int, private: bytes = b"") -> None:
        """Two-phase commit, phase 1: the unit of work's shared part made durable and marked in doubt."""
        ...

    def complete(self, uow: int) -> list[str]:
        """Phase 3, after the decision is durable in the member's store: commit the prepared shared part."""
        ...

    def backout(self, uow: int) -> list[str]:
        """Delete the unit of work's puts and reinstate its gets with BackoutCount + 1; the queues that got
        messages back."""
        ...

    # -- the MQI rules beyond the plain get (browse, cursor, lock, match options, MAXDEPTH) ------------------
    # the protocol's signature: each implementation (store/_qsg_verbs.py) restates it; mypy checks they agree
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
        """The first message in delivery order that ``match`` selects and that is available to the handle
        whose browse lock is ``lock`` (available, or locked by that handle). ``take``: taken as :meth:`get`
        takes it (``uow``, ``claim_only``, ``now``); else browsed, and with ``hold`` locked by that handle (its
        previous lock released)."""
        ...

    def unlock(self, lock: int) -> bool:
        """Release the browse lock ``lock`` (MQGMO_UNLOCK, MQCLOSE); False when it held no message."""
        ...

    def move_get(self, message_id: int, from_uow: int, to_uow: int) -> None:
        """A get of unit of work ``from_uow`` becomes a get of ``to_uow`` (MQGMO_MARK_SKIP_BACKOUT, seed 000)."""
        ...

    def room(self, queue: str, maxdepth: int, uow: int | None) -> int:
        """The group's depth before a put (committed, held and uncommitted messages of every member); with
        ``uow`` and room left, the put is counted as that unit of work's uncommitted put (MAXDEPTH)."""
        ...

    def uncommitted(self, queue: str) -> int:
        """UNCOM: this member's puts and gets on ``queue`` in units of work not yet ended."""
        ...

    def available(self, queue: str, fifo: bool) -> list[SharedMessage]:
        """The available messages of ``queue`` in delivery order (for tests and tools)."""
        ...

    def depth(self, queue: str) -> int:
        """CURDEPTH: the group's messages on the queue, as IBM counts them: uncommitted puts in, uncommitted
        gets out (CurrentQDepth "incremented by MQPUT … decremented by MQGET")."""
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

    # selecting handles (MQOD SelectionString) on shared queues (engine/_shared_select, store/_qsg_select)
    def arrivals(self, queue: str, since: str | None, after: int, limit: int) -> tuple[list[SharedMessage], str]:
        """Rows for a selecting handle to judge and the snapshot for its next call: ``since`` None, a page of
        its first look (``limit`` rows with ids above ``after``, every row whoever holds it); else every row
        committed since the snapshot ``since``."""
        ...

    def existing(self, queue: str, ids: list[int]) -> set[int]:
        """Which of ``ids`` are still messages of ``queue``, held or not."""
        ...

    def page(self, queue: str, match: SharedMatch, lock: int | None, limit: int) -> list[SharedMessage]:
        """Up to ``limit`` messages ``match`` selects, available to the handle of browse lock ``lock``, in
        delivery order (browsed)."""
        ...

    # seeds 001 and 002 on shared queues (engine/_shared_rules)
    def input_opens(self, queue: str) -> tuple[bool, int]:
        """Whether any member has ``queue`` open for exclusive input; how many others have it open shared."""
        ...

    def trigger_counts(self, queue: str, min_priority: int, after: int) -> tuple[int, int, int]:
        """Committed messages of priority ``min_priority`` or above; those with an id above ``after``; the
        highest committed id."""
        ...

    def lead_expiry_scan(self) -> bool:
        """Whether this member is (now) the group's one scanner of shared queues for expired messages."""
        ...

    def release_expiry_scan(self) -> None:
        """This member stops scanning (EXPRYINT turned off): another member may take the scan."""
        ...

    def scanner(self) -> str | None:
        """The member that last took the group's expiry scan."""
        ...

    def expire(
        self, now: float, uow: int, limit: int, message_id: int | None = None, held: int | None = None
    ) -> list[SharedMessage]:
        """Claim for unit of work ``uow`` (as its gets) and return up to ``limit`` available messages expired at
        ``now`` (engine time, seconds): its commit discards them, with the reports it put (seed 002). With
        ``message_id``: that one message, an expired one a get or browse met — held by this session's unit of
        work (or browse lock) ``held``, or available when ``held`` is None; none when another took it first."""
        ...

    def members(self) -> list[tuple[str, bool, float | None]]:
        """The group's members by name: (name, running, when its latest session started: Unix time, None if
        never)."""
        ...

    def indoubt_units(self, member: str | None) -> list[InDoubtUnit]:
        """The units of work in doubt of ``member`` (None: of every member): DISPLAY THREAD TYPE(INDOUBT)."""
        ...

    def resolve_units(self, member: str, nids: list[str] | None, commit: bool, by: str) -> list[str] | None:
        """RESOLVE INDOUBT: settle a stopped member's units of work in doubt; the NIDs settled, None if it runs."""
        ...

    def forget_resolved(self) -> None:
        """At start, after the private parts followed the RESOLVE decisions: drop those decisions."""
        ...

    # publish/subscribe across the group (engine/_group_pubsub)
    def group_subs(self) -> list[tuple[str, str, bytes]]:
        """Every durable subscription on a shared queue recorded in the group: ``(member, name, subscription)``."""
        ...

    def put_group_sub(self, name: str, sub: bytes) -> None:
        """Record (or replace) this member's subscription ``name``."""
        ...

    def delete_group_subs(self, names: list[str], keep: bool = False) -> None:
        """Forget this member's subscriptions ``names`` (``keep``: all of this member's but those)."""
        ...

    def close(self) -> None: ...
