"""Selecting gets: a handle opened with an MQOD SelectionString sees only the messages its selector chooses.

References: properties-pubsub.md ("Selectors"); IBM's "SelectionString (MQCHARV) for MQOD" (MQOPEN of a queue
for browse or input only, else MQRC_SELECTOR_INVALID_FOR_TYPE); the language is ``syncpoint.mqi.selector``'s.

Theory of operation
-------------------
A get must not judge the whole queue again on every call (issue 34): at depth 100,000 with one match that is
100,000 evaluations per get. So each selecting handle keeps a :class:`Selection`: the keys of the available
messages it has judged to match (a sorted list, in delivery order) and how far it has read the queue's
*arrival log*. While any handle of a queue selects, the queue appends to that log every message that becomes
available (``LocalQueue.make_available``: a commit, a put outside syncpoint, a backed-out get, a restart's
recovery). Before a get or browse the handle judges only the messages logged since it last looked, then walks
its own matches from the start (a get) or after the browse cursor (BROWSE_NEXT). The first look judges the
whole queue once.

Entries go stale when a message leaves (another handle got it, it expired, the queue was cleared): a walk drops
those it meets (the message is no longer AVAILABLE on this queue under that key). A re-keying of the queue
(MSGDLVSQ changed) makes every selection judge the queue again. The log is trimmed to what the slowest
selecting handle has not read; a handle that falls more than :data:`LOG_LIMIT` messages behind (it stopped
getting while puts went on) forgets its matches and judges the queue again on its next look; and a log that
reaches ``_state.ARRIVALS_LIMIT`` messages while no handle looks is dropped whole (every selecting handle then
judges the queue again), so the log never grows without bound.

A message may carry its properties in an MQRFH2 at the start of its data (an application built the header, or
the message came over a channel) instead of beside it (``Message.props``): a selector sees those too, as IBM
parses the header's ``usr`` (and ``jms``, ``mcd``, ``mqext``) folders into properties for selection
(``_properties.header_props``; ``<usr><Colour>`` is the property ``Colour``); beside-the-data properties win
over a header's of the same name, as a get delivers them. A header that cannot be read gives no properties.
The header is parsed only for a message whose Format is MQHRF2, once per judging (the incremental judging
above parses each arriving message once).

A selector that reads fields that change while a message waits (BackoutCount, the remaining Expiry:
``Selector.live``) is judged afresh on every walk, in delivery order, without the cache.

Shared queues (queue-sharing groups) keep their messages in the group's store: their selecting handles judge
with this module's :func:`selected`, over what that store hands them (``_shared_select``).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from sortedcontainers import SortedList

from syncpoint.mqi import constants as C
from syncpoint.mqi.constants import MQFMT_RF_HEADER_2
from syncpoint.mqi.selector import Selector, parse

from ._properties import header_props
from ._state import ARRIVALS_LIMIT, AVAILABLE, Handle, LocalQueue, Message
from ._util import fail

LOG_LIMIT = ARRIVALS_LIMIT // 2  # messages a handle may fall behind the others before it rescans instead
_SELECTING_OPTS = C.MQOO_BROWSE | C.MQOO_INPUT_AS_Q_DEF | C.MQOO_INPUT_SHARED | C.MQOO_INPUT_EXCLUSIVE


def compile_selection(text: str, otype: int, options: int) -> Selector | None:
    """The MQOPEN checks of a SelectionString: None for none (an empty string selects every message, as IBM's
    null MQCHARV); MQRC_SELECTOR_INVALID_FOR_TYPE for an object other than a queue or an open without browse or
    input; the parser's reasons for a string it refuses."""
    if not text:
        return None
    if otype != C.MQOT_Q or not options & _SELECTING_OPTS:
        raise fail(
            C.MQRC_SELECTOR_INVALID_FOR_TYPE,
            "a selection string is valid only on an MQOPEN of a queue for browse or input",
        )
    return parse(text)


class Selection:
    """One handle's selector and what it has judged of its queue."""

    __slots__ = ("epoch", "keys", "matched", "pos", "scanned", "selector")

    def __init__(self, selector: Selector, q: LocalQueue) -> None:
        self.selector = selector
        self.keys: SortedList = SortedList()  # keys of available messages judged to match, in delivery order
        self.matched: dict[int, Message] = {}
        self.pos = 0  # absolute position in the queue's arrival log up to which messages are judged
        self.scanned = False  # the first look (or a rescan) judges the whole queue
        self.epoch = q.rekeyed


def attach(h: Handle, q: LocalQueue, selector: Selector) -> None:
    """Give a new handle its selection and start the queue's arrival log (if no other handle selects). A shared
    queue's handles select otherwise (``_shared_select``)."""
    h.selection = Selection(selector, q)
    if q.arrivals is None:
        q.arrivals = []
        q.arrivals_base = 0
    q.selecting.add(h)
    h.selection.pos = q.arrivals_base + len(q.arrivals)


def detach(h: Handle, q: LocalQueue) -> None:
    """MQCLOSE of a selecting handle: the last one to go stops the arrival log."""
    h.selection = None
    q.selecting.discard(h)
    if not q.selecting:
        q.arrivals = None
        q.arrivals_base = 0


def _md_now(m: Message, now: float) -> dict[str, Any]:
    """The MQMD fields a live selector reads as they are now (BackoutCount; the remaining Expiry)."""
    d = dict(m.md)
    d["BackoutCount"] = m.backout
    d["Expiry"] = m.remaining_expiry(now)
    return d


def selected(selector: Selector, md: Any, props: Any, data: bytes | None = None) -> bool:
    """Does ``selector`` select the message? A value no comparison expects selects nothing. With ``data``, the
    properties of an MQRFH2 at its start count too (module doc)."""
    if data is not None and md["Format"] == MQFMT_RF_HEADER_2:
        found, _ = header_props(md, data)
        if found:
            props = {**found, **props} if props else found
    try:
        return selector.matches(md, props)
    except (ArithmeticError, TypeError, ValueError):  # a property value no comparison expects: not selected
        return False


def _judge(sel: Selection, m: Message) -> None:
    if selected(sel.selector, m.md, m.props, m.data):
        key = m.key
        if sel.matched.get(key) is not m:
            if key not in sel.matched:
                sel.keys.add(key)
            sel.matched[key] = m


def _catch_up(h: Handle, sel: Selection, q: LocalQueue) -> None:
    """Judge what this handle has not judged yet: the whole queue on the first look, else the log's tail."""
    log = q.arrivals
    assert log is not None  # a selecting handle's queue keeps its log while the handle is open
    end = q.arrivals_base + len(log)
    if not sel.scanned or sel.epoch != q.rekeyed or sel.pos < q.arrivals_base:
        sel.keys.clear()
        sel.matched.clear()
        for m in q.iter_all():
            _judge(sel, m)
        sel.scanned = True
        sel.epoch = q.rekeyed
    else:
        for m in log[sel.pos - q.arrivals_base :]:
            if m.state == AVAILABLE and m.queue is q:
                _judge(sel, m)
    sel.pos = end
    _trim(q, log)


def _trim(q: LocalQueue, log: list[Message]) -> None:
    """Drop the log's prefix every selecting handle has read; past LOG_LIMIT, leave the laggards to rescan."""
    if len(log) < 1024:
        return
    positions = [x.selection.pos for x in q.selecting if x.selection is not None]
    low = min(positions, default=q.arrivals_base + len(log))
    end = q.arrivals_base + len(log)
    if end - low > LOG_LIMIT:
        low = end - LOG_LIMIT // 2  # handles behind this judge the whole queue again on their next look
    cut = low - q.arrivals_base
    if cut >= len(log) // 2 and cut > 0:
        del log[:cut]
        q.arrivals_base = low


def candidates(h: Handle, q: LocalQueue, after: int | None, now: float) -> Iterator[Message]:
    """The available messages this handle's selector chooses, in delivery order, after key ``after`` (from the
    start for None). The caller applies the rest of MQGET's rules (locks, reservations, match options, expiry)."""
    sel: Selection = h.selection
    selector = sel.selector
    if selector.live:
        for m in q.iter_from(after) if after is not None else q.iter_all():
            if selected(selector, _md_now(m, now), m.props, m.data):
                yield m
        return
    _catch_up(h, sel, q)
    keys = sel.keys
    matched = sel.matched
    i = 0 if after is None else keys.bisect_right(after)
    while i < len(keys):  # by position: a stale entry is dropped where it is met, without breaking the walk
        key = keys[i]
        m = matched[key]
        if m.state != AVAILABLE or m.queue is not q or m.key != key:
            del keys[i]
            del matched[key]
            continue
        yield m
        i += 1


def chooses(h: Handle, m: Message, now: float) -> bool:
    """Does this handle's selector choose message ``m`` (found by its MsgToken, not by a walk)?"""
    sel: Selection = h.selection
    return selected(sel.selector, _md_now(m, now) if sel.selector.live else m.md, m.props, m.data)
