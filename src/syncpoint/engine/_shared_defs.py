"""Queue-sharing groups in the engine: the group's definitions as this member sees them.

References: reference/queue-sharing-groups.md ("What is shared"); docs/queue-sharing-groups.md (the design).

Theory of operation
-------------------
A member of a queue-sharing group is given a :class:`~syncpoint.store.SharedQueues` (``self.shared``; None for
a queue manager in no group). At start (:meth:`SharedDefinitionsMixin._load_shared`) the engine reads the group's
definitions from it: a QSGDISP(SHARED) queue becomes a :class:`SharedQueue` (a ``LocalQueue`` whose messages are
not in this member's index but in the shared store, and whose CURDEPTH is the group's); a QSGDISP(GROUP)
definition is copied into this member's own store as a QSGDISP(COPY) object, replaced at every start unless the
copy is open or holds messages (IBM). The names of the copies are kept in the member's store (``COPY_KIND``) so
that ``qsgdisp`` can tell a COPY from a QSGDISP(QMGR) object of the same name.

While the member runs, ``refresh_shared`` makes its view follow the group's: shared queues other members
defined, altered or deleted. DEFINE, ALTER and DELETE of a shared queue write the group's definition
(``define_in_group``, ``_alter_shared``, ``_delete_shared``).

GROUP definitions reach the active members at once, as IBM's z/OS sends the generated DEFINE / ALTER / DELETE …
QSGDISP(COPY) to every active queue manager of the group: DEFINE, ALTER (``alter_in_group``) and DELETE
(``delete_in_group``) with QSGDISP(GROUP) write the group's definition, make this member's COPY follow, and notify
the group (``DEFINITIONS_CHANGED``, a name no queue can have); each member's listener then refreshes at once
(else within a second: ``refresh_shared`` notes that the GROUP definitions changed, and
``refresh_group_copies`` makes, replaces or deletes the COPY objects — never one that is open or holds
messages: the generated command fails on that member, the group's definition stands). ``group_definitions``
lists the GROUP definitions themselves, for DISPLAY … QSGDISP(ALL | GROUP).

The group's authority records (``_authority``: profiles covering GROUP and SHARED objects) are rows of the same
table with disposition ``AUTHREC``; the start and every refresh hand them to the object authority manager
(``_group_authrecs``), so they follow as the GROUP definitions do.

Every call that waits for PostgreSQL goes through ``_io``, which lets the host's lock go meanwhile; a StoreError
becomes MQRC_CF_NOT_AVAILABLE (``group_call``).

The MQI verbs on shared queues are ``_shared``; triggering and expiry on them ``_shared_rules``.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, ParamSpec, TypeVar

from syncpoint.mqi import MQMIError
from syncpoint.mqi import constants as C
from syncpoint.mqi.objects import QLOCAL, Definition, defaults_for
from syncpoint.store import DECISION_KIND, Batch, SharedQueues, StoreError

from ._base import QueueManagerBase
from ._oam import GROUP_AUTHREC
from ._state import LocalQueue
from ._util import fail

SHARED = "SHARED"
GROUP = "GROUP"
COPY = "COPY"
QMGR_DISP = "QMGR"
DISPOSITIONS = (QMGR_DISP, COPY, GROUP, SHARED)
COPY_KIND = "QSGCOPY"  # in the member's store: the names of its QSGDISP(COPY) objects
# notified to the group when a GROUP definition changed (a queue name has no blank: no queue is woken by it)
DEFINITIONS_CHANGED = " definitions"

P = ParamSpec("P")
T = TypeVar("T")


def unavailable(e: StoreError) -> MQMIError:
    """The group's shared store failed: IBM's reason for a coupling facility that cannot be used."""
    return fail(C.MQRC_CF_NOT_AVAILABLE, str(e))


def _counters_only(b: Batch) -> bool:
    """A batch that holds only counters (the MsgId block reserved by this put): whichever call writes it, it
    is written in order before any later batch, so the call may let the lock go meanwhile."""
    counters = b.counters
    b.counters = {}
    empty = b.is_empty()
    b.counters = counters
    return empty


def _direct(fn: Callable[..., T], *args: Any) -> T:
    return fn(*args)


def group_call(fn: Callable[P, T]) -> Callable[P, T]:
    """A verb that reaches the shared store: its StoreError becomes MQRC_CF_NOT_AVAILABLE (2345)."""

    @functools.wraps(fn)
    def call(*args: P.args, **kwargs: P.kwargs) -> T:
        try:
            return fn(*args, **kwargs)
        except StoreError as e:
            raise unavailable(e) from None

    return call


class SharedQueue(LocalQueue):
    """A QSGDISP(SHARED) local queue: its messages live in the group's shared store; CURDEPTH is the group's."""

    shared = True

    def __init__(self, definition: Definition, store: SharedQueues, io: Callable[..., Any] | None = None) -> None:
        self._store = store
        self.io: Callable[..., Any] = io or _direct  # SharedMixin._io: the host's lock let go while it waits
        super().__init__(definition)

    @property
    def depth(self) -> int:
        try:
            return self._store.depth(self.name)
        except StoreError as e:
            raise unavailable(e) from None

    @depth.setter
    def depth(self, value: int) -> None:
        pass  # the group's depth is counted by the shared store

    @property
    def uncommitted(self) -> int:
        """UNCOM: this member's puts and gets in units of work (the shared store holds them)."""
        try:
            n: int = self.io(self._store.uncommitted, self.name)
            return n
        except StoreError as e:
            raise unavailable(e) from None

    @uncommitted.setter
    def uncommitted(self, value: int) -> None:
        pass  # counted by the shared store


class SharedDefinitionsMixin(QueueManagerBase):
    """The group's definitions in this member: start, refresh, DEFINE / ALTER / DELETE, QSGDISP."""

    shared: SharedQueues | None
    _shared_uows: dict[int, int]  # Hconn -> the number of its unit of work's shared part
    _shared_counts: dict[int, int]  # the number of a unit of work's shared part -> its puts and gets (MAXUMSGS)
    _next_shared_uow: int
    copies: set[str]  # names of this member's QSGDISP(COPY) objects
    copies_stale: bool  # the group's GROUP definitions changed since the COPY objects were made
    _group_seen: dict[tuple[str, str], bytes]
    _shared_prepared: list[int]  # units of work prepared (two-phase) since the host last took them
    # set by the host: run a call with its lock let go (see _io); None: the caller keeps whatever it holds
    unlocked: Callable[..., Any] | None = None

    def _io(self, fn: Callable[..., T], *args: Any) -> T:
        """Run a call of the shared store that waits for PostgreSQL, with the host's lock let go (``unlocked``)
        so that the member's other connections go on meanwhile, each on a connection of its own (the store's
        pool). Only while this call has left nothing for the host to write (its store batch, the queue
        manager's own puts): those must stay with the call that made them."""
        unlocked = self.unlocked
        b = self._batch
        if unlocked is None or self._system_puts or (b is not None and not _counters_only(b)):
            return fn(*args)
        result: T = unlocked(fn, *args)
        return result

    # -- start -----------------------------------------------------------------------------------------
    def _load_shared(self, copies: set[str], decisions: set[str]) -> None:
        """Read the group's definitions: SHARED queues join this member; GROUP ones refresh their COPY."""
        self._shared_uows = {}
        self._shared_counts = {}
        self._next_shared_uow = 1
        self._shared_prepared = []
        self.copies = set(copies)
        self._group_seen = {}
        self.copies_stale = False
        shared = self.shared
        if shared is None:
            return
        for name in decisions:  # the group's store settled these in-doubt units of work at open (store/_group)
            self._b().delete_objects.append((DECISION_KIND, name))
        every = shared.definitions()
        self._group_authrecs([(n, raw) for _k, n, disp, raw in every if disp == GROUP_AUTHREC])
        for kind, name, disposition, raw in every:
            if disposition not in (SHARED, GROUP):
                continue
            d = Definition.from_bytes(raw)
            if disposition == SHARED:
                if ("Q", name) not in self.definitions:
                    self._add_shared_queue(d)
            elif disposition == GROUP:
                self._refresh_copy(kind, d)
                self._group_seen[(kind, name)] = raw

    def _add_shared_queue(self, d: Definition) -> SharedQueue:
        assert self.shared is not None
        self.definitions[("Q", d.name)] = d
        q = SharedQueue(d, self.shared, self._io)
        self.queues[d.name] = q
        self.triggering.queue_added(q)  # seed 001 (``_shared_rules``)
        return q

    def _refresh_copy(self, kind: str, d: Definition) -> None:
        """The COPY of a GROUP definition, made or replaced (not while it is open or holds messages: IBM)."""
        key = (self._ns(kind), d.name)
        existing = self.definitions.get(key)
        if existing is not None:
            if d.name not in self.copies:
                return  # a QSGDISP(QMGR) object of that name stays, as IBM keeps it
            q = self.queues.get(d.name)
            if q is not None and (q.depth or q.handles or q.uncommitted):
                return
            if existing.attrs == d.attrs and existing.otype == d.otype:
                return
            self.delete(existing.otype, d.name, purge=False)
        self.define(d.otype, d.name, dict(d.attrs))
        self.copies.add(d.name)
        self._b().put_objects.append((COPY_KIND, d.name, b""))

    @group_call
    def refresh_shared(self, name: str | None = None) -> bool:
        """Shared queues other members defined or deleted since: this member's view follows the group's. With
        ``name``, True if that queue is now known (an open of a name this member did not know)."""
        shared = self.shared
        if shared is None:
            return False
        every = shared.definitions()
        self._group_authrecs([(n, raw) for _k, n, disp, raw in every if disp == GROUP_AUTHREC])
        current = {n: raw for _k, n, disp, raw in every if disp == SHARED}
        groups = {(k, n): raw for k, n, disp, raw in every if disp == GROUP}
        if groups != self._group_seen:
            self.copies_stale = True  # refresh_group_copies follows, in a verb (it writes this member's store)
        for qname, raw in current.items():
            known = self.queues.get(qname)
            if ("Q", qname) not in self.definitions:
                self._add_shared_queue(Definition.from_bytes(raw))
            elif known is not None and known.shared:
                attrs = Definition.from_bytes(raw).attrs
                if attrs != known.attrs:  # ALTERed on another member: the same dict, so every handle sees it
                    if attrs.get("INITQ") != known.attrs.get("INITQ"):
                        self.triggering.initq_changed()  # seed 001 (``_shared_rules``)
                    known.attrs.update(attrs)
                    known.fifo = attrs.get("MSGDLVSQ") == C.MQMDS_FIFO
        for qname, q in list(self.queues.items()):
            if q.shared and qname not in current and not q.handles:
                del self.queues[qname]
                self.definitions.pop(("Q", qname), None)
        return name is not None and name in current

    @group_call
    def _alter_shared(self, q: LocalQueue) -> None:
        """ALTER of a shared queue: the group's definition changes; the other members follow within a second."""
        assert self.shared is not None
        self.shared.put_definition(QLOCAL, q.name, SHARED, q.definition.to_bytes(), True)

    @group_call
    def _delete_shared(self, q: LocalQueue, purge: bool) -> None:
        """DELETE QLOCAL of a shared queue: from the group (refused while it holds messages, without PURGE)."""
        shared = self.shared
        assert shared is not None
        if q.handles:
            raise fail(C.MQRC_OBJECT_IN_USE, f"queue {q.name} is open")
        depth = q.depth
        if depth and not purge:
            raise fail(C.MQRC_Q_NOT_EMPTY, f"shared queue {q.name} has {depth} messages; use PURGE")
        shared.clear(q.name)
        shared.delete_definition(QLOCAL, q.name)
        del self.queues[q.name]
        del self.definitions[("Q", q.name)]

    def group_shared_queue(self, qmname: str, name: str) -> bool:
        """Whether (queue ``name``, queue manager ``qmname``) is a shared queue named with its group's name, which
        IBM lets stand where a queue manager's name goes: it reaches the shared queue from any member (an MQOPEN /
        MQPUT1's ObjectQMgrName, a report's ReplyToQMgr, an MQXQH's RemoteQMgrName)."""
        shared = self.shared
        if shared is None or qmname != shared.qsg or not name:
            return False
        q = self.queues.get(name)
        if q is None and ("Q", name) not in self.definitions and self.refresh_shared(name):
            q = self.queues.get(name)  # defined SHARED by another member since this one last looked
        return q is not None and q.shared

    def qsg_name(self) -> str:
        """The name of this member's queue-sharing group; "" for a queue manager in no group."""
        return self.shared.qsg if self.shared is not None else ""

    @group_call
    def qsg_members(self) -> list[dict[str, Any]]:
        """The members of this queue manager's queue-sharing group (none outside one), as z/OS's DISPLAY GROUP
        lists them: ``name``, ``status`` ACTIVE (running: its session holds its liveness lock in the shared
        store) or INACTIVE, and ``started`` (when its latest session began, Unix time; None if it never ran)."""
        shared = self.shared
        if shared is None:
            return []
        return [
            {"name": name, "status": "ACTIVE" if running else "INACTIVE", "started": started}
            for name, running, started in shared.members()
        ]

    def qsgdisp(self, otype: str, name: str) -> str:
        """The QSGDISP of this member's object ``name`` of type ``otype``: SHARED, COPY or QMGR."""
        q = self.queues.get(name) if otype == QLOCAL else None
        if q is not None and q.shared:
            return SHARED
        return COPY if name in self.copies else QMGR_DISP

    # -- DEFINE … QSGDISP(…) ----------------------------------------------------------------------------
    @group_call
    def define_in_group(self, otype: str, name: str, attrs: dict[str, Any], disposition: str, replace: bool) -> None:
        """DEFINE with QSGDISP(GROUP) or QSGDISP(SHARED): the definition goes to the group's shared store."""
        shared = self.shared
        if disposition not in (GROUP, SHARED):
            raise fail(C.MQRC_SELECTOR_ERROR, f"QSGDISP({disposition}) cannot be defined: use QMGR, GROUP or SHARED")
        if shared is None:
            raise fail(
                C.MQRC_ENVIRONMENT_ERROR,
                f"queue manager {self.name} is not a member of a queue-sharing group: QSGDISP({disposition}) needs one",
            )
        if disposition == SHARED and otype != QLOCAL:
            raise fail(C.MQRC_Q_TYPE_ERROR, "QSGDISP(SHARED) is for local queues only, not for a " + otype)
        existing = self.definitions.get((self._ns(otype), name))
        if existing is not None and not replace:
            raise fail(C.MQRC_OBJECT_ALREADY_EXISTS, f"{name} already exists")
        values = defaults_for(otype)
        values.update(self._validated(otype, attrs))
        now = self.clock.time()
        d = Definition(otype, name, values, now, now)
        if not shared.put_definition(otype, name, disposition, d.to_bytes(), replace):
            raise fail(C.MQRC_OBJECT_ALREADY_EXISTS, f"{name} already exists in queue-sharing group {shared.qsg}")
        if disposition == SHARED:
            self._add_shared_queue(d)
        else:
            self._refresh_copy(otype, d)
            shared.notify([DEFINITIONS_CHANGED])  # every active member's COPY follows at once

    # -- GROUP definitions: every active member's COPY follows at once ------------------------------------
    @group_call
    def refresh_group_copies(self) -> None:
        """Make, replace or delete this member's COPY objects after the group's GROUP definitions (a COPY that
        is open or holds messages stays as it is, as IBM's generated command fails on that member)."""
        shared = self.shared
        if shared is None:
            return
        groups = {(k, n): raw for k, n, disp, raw in shared.definitions() if disp == GROUP}
        for (kind, _name), raw in sorted(groups.items()):
            self._refresh_copy(kind, Definition.from_bytes(raw))
        names = {n for _k, n in groups}
        for name in sorted(self.copies - names):
            self._drop_copy(name)
        self._group_seen = groups
        self.copies_stale = False

    def _drop_copy(self, name: str) -> None:
        """The GROUP definition of a COPY went: the COPY goes too, unless it is open or holds messages."""
        d = next((d for (_ns, n), d in self.definitions.items() if n == name), None)
        if d is not None:
            q = self.queues.get(name)
            if q is not None and (q.depth or q.handles or q.uncommitted):
                return
            try:
                self.delete(d.otype, name, purge=False)
            except MQMIError:
                return  # in use (an alias open): it stays, as the generated DELETE fails on this member
        self.copies.discard(name)
        self._b().delete_objects.append((COPY_KIND, name))

    def _group_definition(self, otype: str, name: str) -> Definition | None:
        assert self.shared is not None
        for kind, n, disp, raw in self.shared.definitions():
            if disp == GROUP and n == name and self._ns(kind) == self._ns(otype):
                d = Definition.from_bytes(raw)
                if otype not in (QLOCAL, "QMODEL", "QALIAS", "QREMOTE") or d.otype == otype:
                    return d
        return None

    def _group_only(self, verb: str) -> SharedQueues:
        shared = self.shared
        if shared is None:
            raise fail(
                C.MQRC_ENVIRONMENT_ERROR,
                f"queue manager {self.name} is not a member of a queue-sharing group: {verb} QSGDISP(GROUP) needs one",
            )
        return shared

    @group_call
    def alter_in_group(self, otype: str, name: str, attrs: dict[str, Any]) -> Definition:
        """ALTER … QSGDISP(GROUP): the group's definition changes, and every active member's COPY with it."""
        shared = self._group_only("ALTER")
        d = self._group_definition(otype, name)
        if d is None:
            raise fail(
                C.MQRC_UNKNOWN_OBJECT_NAME, f"{otype} {name} has no QSGDISP(GROUP) definition in group {shared.qsg}"
            )
        values = dict(d.attrs)
        values.update(self._validated(otype, attrs))
        changed = Definition(d.otype, name, values, d.created, self.clock.time())
        shared.put_definition(d.otype, name, GROUP, changed.to_bytes(), True)
        self._refresh_copy(d.otype, changed)
        shared.notify([DEFINITIONS_CHANGED])
        return self.definitions.get((self._ns(otype), name), changed)

    @group_call
    def delete_in_group(self, otype: str, name: str) -> None:
        """DELETE … QSGDISP(GROUP): the group's definition goes, and every active member's COPY with it."""
        shared = self._group_only("DELETE")
        d = self._group_definition(otype, name)
        if d is None:
            raise fail(
                C.MQRC_UNKNOWN_OBJECT_NAME, f"{otype} {name} has no QSGDISP(GROUP) definition in group {shared.qsg}"
            )
        shared.delete_definition(d.otype, name)
        if name in self.copies:
            self._drop_copy(name)
        shared.notify([DEFINITIONS_CHANGED])

    def check_disposition(self, otype: str, name: str, disposition: str) -> None:
        """ALTER / DELETE … QSGDISP(COPY | SHARED | QMGR): the object of that name must have that disposition."""
        if disposition not in (COPY, SHARED, QMGR_DISP):
            raise fail(C.MQRC_SELECTOR_ERROR, f"QSGDISP({disposition}) is QMGR, COPY, GROUP or SHARED")
        if (self._ns(otype), name) in self.definitions and self.qsgdisp(otype, name) != disposition:
            raise fail(C.MQRC_UNKNOWN_OBJECT_NAME, f"{otype} {name} has no QSGDISP({disposition}) object here")

    @group_call
    def group_definitions(self, otype: str) -> list[Definition]:
        """The group's QSGDISP(GROUP) definitions of type ``otype`` (DISPLAY … QSGDISP(ALL | GROUP))."""
        if self.shared is None:
            return []
        out = []
        for kind, _n, disp, raw in self.shared.definitions():
            if disp == GROUP and self._ns(kind) == self._ns(otype):
                d = Definition.from_bytes(raw)
                if d.otype == otype:
                    out.append(d)
        return sorted(out, key=lambda d: d.name)
