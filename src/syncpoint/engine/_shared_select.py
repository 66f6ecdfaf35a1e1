"""Selecting gets on shared queues: a handle opened with an MQOD SelectionString on a queue of a queue-sharing group.

References: properties-pubsub.md ("Selectors"); queue-sharing-groups.md; IBM MQ for z/OS selects on shared queues
(MQRC_SELECTION_NOT_AVAILABLE, 2551, is IBM's for extended message selection, not for shared queues).

Theory of operation
-------------------
The selector is the private queue's (``_select``: the same language, ``syncpoint.mqi.selector``, and the same
properties: those kept beside the data and those of an MQRFH2 at its start, ``_select.selected``). The group's
store cannot judge it, so the engine does, and — as on a private queue — judges each message once per handle, not
on every get (issue 34): a :class:`SharedSelection` keeps the ids of the messages it judged to match, sorted in the
queue's delivery order (priority, then arrival; arrival alone for MSGDLVSQ(FIFO)), and the store's snapshot up to
which it has judged the queue (``store/_qsg_select``). Each get or browse first judges what arrived since (from
any member: every row committed since the snapshot, whatever its id), then asks the store for the first available
message among its matches (pages of :data:`PAGE` ids, from the browse cursor for BROWSE_NEXT) with the get's other
criteria (match options, locks) — one statement, which takes or browses it as the plain verbs do. A page of which
no message is available is checked for the messages that are gone (got, expired, cleared), which it forgets; the
others are held by units of work or browse locks and stay its matches (a backout brings them back). The first look
reads the queue once, in pages of :data:`PAGE` rows by id.

A selector that reads fields that change while a message waits (BackoutCount, the remaining Expiry:
``Selector.live``) is judged afresh on every walk, in pages of the available messages in delivery order, as on a
private queue.

:func:`shared_message` (the transient ``Message`` standing for a row, which ``_shared``'s verbs deliver) lives
here, below ``_shared``, since judging needs it too.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from sortedcontainers import SortedList

from syncpoint.mqi import MQMD
from syncpoint.mqi.properties import unpack_props
from syncpoint.mqi.selector import Selector
from syncpoint.store import SharedMatch, SharedMessage, SharedQueues

from ._effects import MD2_LENGTH
from ._select import _md_now, selected
from ._state import GONE, Handle, LocalQueue, Message

PAGE = 500  # rows a first look reads at a time; matches a walk offers the store at a time


class SharedSelection:
    """One handle's selector and what it has judged of its shared queue."""

    __slots__ = ("fifo", "keys", "selector", "snapshot")

    def __init__(self, selector: Selector) -> None:
        self.selector = selector
        self.keys: SortedList = SortedList()  # (0 or -priority, id) of the messages judged to match
        self.snapshot: str | None = None  # the store's snapshot judged up to; None before the first look
        self.fifo = False  # the order ``keys`` are in (MSGDLVSQ(FIFO): by id alone)


def shared_message(q: LocalQueue, sm: SharedMessage) -> Message:
    """A transient ``Message`` standing for a row of a shared queue, so that the private queue's rule code
    (``_get.deliver``, the cursor and lock, reports) applies to it. Its ``seq`` is the row's id (the MsgToken);
    its state is never GOT_PENDING: the unit of work's shared part is the store's, not ``UnitOfWork.gets``."""
    fields = MQMD.unpack(sm.md).__dict__
    m = Message(
        sm.id,
        q,
        sm.priority,
        sm.persistent,
        fields,
        sm.data,
        sm.msgid,
        sm.correlid,
        fields["GroupId"],
        fields["MsgSeqNumber"],
        sm.expiry,
        sm.put_time,
        sm.backout,
    )
    if len(sm.md) > MD2_LENGTH:
        m.props = unpack_props(sm.md[MD2_LENGTH:])  # the properties kept after the MQMD
    m.state = GONE
    return m


def attach_shared(h: Handle, selector: Selector) -> None:
    h.selection = SharedSelection(selector)


def _key(fifo: bool, priority: int, ident: int) -> tuple[int, int]:
    return (0 if fifo else -priority, ident)


def _judge(sel: SharedSelection, q: LocalQueue, rows: list[SharedMessage]) -> None:
    for sm in rows:
        m = shared_message(q, sm)
        if selected(sel.selector, m.md, m.props, m.data):
            key = _key(sel.fifo, sm.priority, sm.id)
            if key not in sel.keys:  # a row a first look's later page read and its next look reads again
                sel.keys.add(key)


def _catch_up(io: Callable[..., Any], shared: SharedQueues, sel: SharedSelection, q: LocalQueue) -> None:
    """Judge what the handle has not judged: the whole queue on its first look, else what arrived since."""
    if sel.fifo != q.fifo:  # MSGDLVSQ changed: the same matches in the queue's new order
        if q.fifo:
            sel.keys = SortedList((0, k[1]) for k in sel.keys)
        else:  # back from FIFO the priorities are needed again: judge the queue again
            sel.keys = SortedList()
            sel.snapshot = None
        sel.fifo = q.fifo
    if sel.snapshot is not None:
        rows, sel.snapshot = io(shared.arrivals, q.name, sel.snapshot, 0, 0)
        _judge(sel, q, rows)
        return
    sel.keys.clear()
    rows, first = io(shared.arrivals, q.name, None, 0, PAGE)
    while True:
        _judge(sel, q, rows)
        if len(rows) < PAGE:
            break
        rows, _ = io(shared.arrivals, q.name, None, rows[-1].id, PAGE)
    sel.snapshot = first


def select_selected(
    io: Callable[..., Any],
    shared: SharedQueues,
    h: Handle,
    q: LocalQueue,
    match: SharedMatch,
    lock: int | None,
    take: bool,
    uow: int | None,
    claim_only: bool,
    hold: bool,
    now: float,
) -> SharedMessage | None:
    """``SharedQueues.select`` for a selecting handle: the first available message, in delivery order, that its
    selector chooses and ``match`` selects (taken or browsed as ``select`` does). ``io`` runs a call of the store
    (``SharedDefinitionsMixin._io``)."""
    sel: SharedSelection = h.selection
    if match.message_id is not None:  # the message under the browse cursor: chosen when the cursor was placed
        return io(shared.select, q.name, match, lock, take, uow, claim_only, hold, now)  # type: ignore[no-any-return]
    if sel.selector.live:
        return _live(io, shared, sel, q, match, lock, take, uow, claim_only, hold, now)
    _catch_up(io, shared, sel, q)
    keys = sel.keys
    i = 0 if match.after is None else keys.bisect_right(_key(match.fifo, *match.after))
    while i < len(keys):
        page = keys[i : i + PAGE]
        ids = tuple(k[1] for k in page)
        sm: SharedMessage | None = io(
            shared.select, q.name, replace(match, ids=ids), lock, take, uow, claim_only, hold, now
        )
        if sm is not None:
            if take and uow is None and not claim_only:  # deleted: no backout brings it back
                keys.discard(_key(sel.fifo, sm.priority, sm.id))
            return sm
        alive = io(shared.existing, q.name, list(ids))  # none available: forget those that are gone
        gone = [k for k in page if k[1] not in alive]
        for k in gone:
            keys.remove(k)
        i += len(page) - len(gone)
    return None


def _live(
    io: Callable[..., Any],
    shared: SharedQueues,
    sel: SharedSelection,
    q: LocalQueue,
    match: SharedMatch,
    lock: int | None,
    take: bool,
    uow: int | None,
    claim_only: bool,
    hold: bool,
    now: float,
) -> SharedMessage | None:
    """A selector over BackoutCount or the remaining Expiry: the available messages judged as they are now."""
    after = match.after
    while True:
        rows: list[SharedMessage] = io(shared.page, q.name, replace(match, after=after), lock, PAGE)
        for sm in rows:
            m = shared_message(q, sm)
            if selected(sel.selector, _md_now(m, now), m.props, m.data):
                one = replace(match, message_id=sm.id)
                got: SharedMessage | None = io(shared.select, q.name, one, lock, take, uow, claim_only, hold, now)
                if got is not None:
                    return got
        if len(rows) < PAGE:
            return None
        last = rows[-1]
        after = (0, last.id) if match.fifo else (last.priority, last.id)
