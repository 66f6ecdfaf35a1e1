"""Publish/subscribe with coroutines: ``await qm.publish(topic, data)`` and ``await qm.subscribe(topic)``, whose
:class:`Subscription` is an async iterable of messages (``async for msg in sub``). The same verbs as the blocking
API's (``syncpoint.client``'s ``_pubsub`` explains them), over the wire protocol's ``put1``, ``sub`` and
``subrq`` (docs/protocol.md)."""

from __future__ import annotations

import math
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any

from syncpoint.client.keywords import put_keywords
from syncpoint.mqi import MQMD, MQOD, MQSD, MQSRO, MQMIError, blank_strip
from syncpoint.mqi import constants as C

if TYPE_CHECKING:
    from syncpoint.client import Message

# the API's QueueManager and Queue (``_api`` builds on this module, so they are passed in, never imported)
QueueManager = Any
Queue = Any


async def publish(qm: QueueManager, topic: str, data: bytes | str, *, retain: bool = False, topic_object: str = "",
                  **kw: Any) -> MQMD:  # fmt: skip
    """Publish ``data`` on ``topic``; the keywords are ``Queue.put``'s (``properties`` included), with ``retain``
    and ``topic_object``."""
    from syncpoint.mqi.properties import build as build_props
    from syncpoint.mqi.properties import to_wire

    props = to_wire(build_props(kw.pop("properties", None)))
    data, md, pmo = put_keywords(data, kw)
    if retain:
        pmo.Options |= C.MQPMO_RETAIN
    od = MQOD(ObjectType=C.MQOT_TOPIC, ObjectName=topic_object.encode())
    # put1: the properties (nil for none), then the topic's ObjectString (docs/protocol.md)
    args = [od.pack(), md.pack(), pmo.pack(), data, props or None, topic]
    reason, _, md_b, _, *_ = await qm.transport.call("put1", args)
    md.unpack_into(md_b)
    if reason != C.MQRC_NONE:
        raise MQMIError(C.MQCC_WARNING, reason)
    return md


class Subscription:
    """A subscription and the queue its publications arrive on; ``async for msg in sub`` gets them."""

    def __init__(self, qm: QueueManager, hsub: int, queue: Queue, sd: MQSD, res: str, wait: float | None) -> None:
        self.qm = qm
        self.hsub = hsub
        self.queue = queue
        self.topic = res
        self.correl_id = bytes(sd.SubCorrelId)
        self.durable = bool(sd.Options & C.MQSO_DURABLE)
        self.managed = bool(sd.Options & C.MQSO_MANAGED)
        self.wait = wait

    async def get(self, *, wait: float | None = None, syncpoint: bool = False) -> Message:
        m: Message = await self.queue.get(wait=wait, syncpoint=syncpoint)
        return m

    def __aiter__(self) -> AsyncIterator[Message]:
        it: AsyncIterator[Message] = self.queue.messages(wait=self.wait)
        return it

    async def request(self) -> int:
        """MQSUBRQ: send the retained publications now; how many were sent."""
        sro_b = await self.qm.transport.call("subrq", [self.hsub, C.MQSR_ACTION_PUBLICATION, MQSRO().pack()])
        return int(MQSRO.unpack(sro_b).NumPubs)

    async def close(self, *, remove: bool = False) -> None:
        await self.qm.transport.call("close", [self.hsub, C.MQCO_REMOVE_SUB if remove else C.MQCO_NONE])
        if self.managed:
            await self.queue.close()

    async def __aenter__(self) -> Subscription:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()


async def subscribe(
    qm: QueueManager,
    queue_cls: Any,
    topic: str = "",
    *,
    name: str | None = None,
    topic_object: str = "",
    queue: Queue | None = None,
    wildcards: str = "topic",
    new_publications_only: bool = False,
    wait: float | None = math.inf,
) -> Subscription:
    """MQSUB, as the blocking API's ``subscribe``: durable with a ``name``, managed unless ``queue`` is given."""
    if wildcards not in ("topic", "char"):
        raise ValueError('wildcards must be "topic" or "char"')
    opts = C.MQSO_CREATE | (C.MQSO_WILDCARD_CHAR if wildcards == "char" else 0)
    opts |= (C.MQSO_DURABLE | C.MQSO_RESUME if name else 0) | (C.MQSO_MANAGED if queue is None else 0)
    opts |= C.MQSO_NEW_PUBLICATIONS_ONLY if new_publications_only else 0
    sd = MQSD(Options=opts, ObjectName=topic_object.encode())
    hobj = await queue._h("get") if queue is not None else C.MQHO_NONE
    sd_b, h, hsub, res = await qm.transport.call(
        "sub", [sd.pack(), hobj, {"ObjectString": topic, "SubName": name or ""}]
    )
    sd.unpack_into(sd_b)
    if queue is None:
        _, chars, _ = await qm.transport.call("inq", [h, [C.MQCA_Q_NAME]])
        queue = queue_cls(qm, blank_strip(chars[0]), C.MQOO_INPUT_AS_Q_DEF | C.MQOO_BROWSE | C.MQOO_INQUIRE)
        queue._handles["all"] = int(h)
    return Subscription(qm, int(hsub), queue, sd, str(res), wait)
