"""Publish/subscribe in the Pythonic API: ``qm.publish(topic, data)`` and ``qm.subscribe(topic)``.

``publish`` is an MQPUT1 of an MQOT_TOPIC object whose ObjectString is the topic string (and ObjectName a topic
object, when one is named); ``retain=True`` adds MQPMO_RETAIN. ``subscribe`` is an MQSUB: managed (the queue
manager makes the destination queue) unless a :class:`~syncpoint.client.Queue` is given; durable when it has a
``name`` (created, or resumed when it exists). The :class:`Subscription` it returns is an iterable of messages:
iteration gets the next publication, waiting ``wait`` seconds for one (``math.inf``: for ever) and ends when
none arrives in time. ``close()`` ends a non-durable subscription; ``close(remove=True)`` a durable one too.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from syncpoint.mqi import MQMD, MQOD, MQSD, MQSRO, blank_strip
from syncpoint.mqi import constants as C

from .keywords import put_keywords

if TYPE_CHECKING:
    from ._message import Message

# the API's QueueManager and Queue (``_api`` builds on this module, so they are passed in, never imported)
QueueManager = Any
Queue = Any


def publish(qm: QueueManager, topic: str, data: bytes | str, *, retain: bool = False, topic_object: str = "",
            **kw: Any) -> MQMD:  # fmt: skip
    """Publish ``data`` on ``topic`` (under topic object ``topic_object`` when given); the keywords are
    :meth:`Queue.put`'s (``properties`` included: every subscriber's copy carries them). Returns the MQMD as the
    queue manager completed it."""
    from syncpoint.mqi.properties import build as build_props

    properties = kw.pop("properties", None)
    data, md, pmo = put_keywords(data, kw)
    if retain:
        pmo.Options |= C.MQPMO_RETAIN
    od = MQOD(ObjectType=C.MQOT_TOPIC, ObjectName=topic_object.encode())
    od.ObjectString = topic
    qm._raise_warning(qm.transport.put1(od, md, pmo, data, build_props(properties) if properties else None))
    return md


def adopt_queue(queue_cls: Any, qm: QueueManager, hobj: int) -> Queue:
    """The destination queue of a managed subscription as a ``queue_cls`` (the API's Queue) over the handle MQSUB
    opened, with explicit options (as ``qm.open(name, options)`` would make it)."""
    q = queue_cls.__new__(queue_cls)
    q.qm = qm
    q._fixed = C.MQOO_INPUT_AS_Q_DEF | C.MQOO_BROWSE | C.MQOO_INQUIRE
    q._handles = {"all": hobj}
    q._closed = False
    q._cursor = None
    q._locked = False
    qm._handles.add(hobj)
    q.name = blank_strip(qm.mqinq(hobj, [C.MQCA_Q_NAME])[1][0])
    return q


class Subscription:
    """A subscription (MQSUB's Hsub) and the queue its publications arrive on; iterate it for messages."""

    def __init__(self, qm: QueueManager, hsub: int, queue: Queue, sd: MQSD, name: str, wait: float | None) -> None:
        self.qm = qm
        self.hsub = hsub
        self.queue = queue
        self.name = name
        self.topic: str = sd.ResObjectString  # the resolved topic string
        self.correl_id: bytes = bytes(sd.SubCorrelId)  # the CorrelId its publications carry
        self.durable = bool(sd.Options & C.MQSO_DURABLE)
        self.managed = bool(sd.Options & C.MQSO_MANAGED)
        self.wait = wait
        self._closed = False

    def get(self, *, wait: float | None = None, syncpoint: bool = False) -> Message:
        """The next publication (MQRC_NO_MSG_AVAILABLE when none arrives within ``wait`` seconds)."""
        m: Message = self.queue.get(wait=wait, syncpoint=syncpoint)
        return m

    def messages(self, *, wait: float | None = None, syncpoint: bool = False) -> Iterator[Message]:
        """Publications until none arrives within ``wait`` seconds."""
        it: Iterator[Message] = self.queue.messages(wait=wait, syncpoint=syncpoint)
        return it

    def __iter__(self) -> Iterator[Message]:
        it: Iterator[Message] = self.queue.messages(wait=self.wait)
        return it

    def request(self) -> int:
        """MQSUBRQ: send the retained publications now; how many were sent."""
        sro = MQSRO()
        self.qm.transport.subrq(self.hsub, C.MQSR_ACTION_PUBLICATION, sro)
        return int(sro.NumPubs)

    def close(self, *, remove: bool = False) -> None:
        """MQCLOSE of the subscription (MQCO_REMOVE_SUB with ``remove``), then of a managed queue's handle."""
        if self._closed:
            return
        self._closed = True
        self.qm.mqclose(self.hsub, C.MQCO_REMOVE_SUB if remove else C.MQCO_NONE)
        if self.managed:
            self.queue.close()

    def __enter__(self) -> Subscription:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def subscribe(
    qm: QueueManager,
    queue_cls: Any,
    topic: str = "",
    *,
    name: str | None = None,
    topic_object: str = "",
    queue: Queue | None = None,
    wildcards: str = "topic",
    new_publications_only: bool = False,
    on_request: bool = False,
    wait: float | None = math.inf,
) -> Subscription:
    """MQSUB on ``topic`` (under ``topic_object``): a durable subscription when ``name`` is given (created, or
    resumed if it exists), managed unless ``queue`` is the destination; ``wildcards`` "topic" (``#``, ``+``) or
    "char" (``*``, ``?``). Iterating the result waits ``wait`` seconds for each publication."""
    if wildcards not in ("topic", "char"):
        raise ValueError('wildcards must be "topic" or "char"')
    opts = C.MQSO_CREATE | (C.MQSO_WILDCARD_CHAR if wildcards == "char" else 0)
    if name:
        opts |= C.MQSO_DURABLE | C.MQSO_RESUME
    if queue is None:
        opts |= C.MQSO_MANAGED
    if new_publications_only:
        opts |= C.MQSO_NEW_PUBLICATIONS_ONLY
    if on_request:
        opts |= C.MQSO_PUBLICATIONS_ON_REQUEST
    sd = MQSD(Options=opts, ObjectName=topic_object.encode())
    strings = {"ObjectString": topic, "SubName": name or ""}
    hobj, hsub = qm.transport.sub(sd, queue._h("get") if queue is not None else C.MQHO_NONE, strings)
    qm._handles.add(hsub)
    dest = queue if queue is not None else adopt_queue(queue_cls, qm, hobj)
    return Subscription(qm, hsub, dest, sd, name or "", wait)
