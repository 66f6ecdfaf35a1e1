"""syncpoint.aio: an asyncio client of a queue manager server, on syncpoint's protocol (docs/protocol.md).

    import syncpoint.aio

    async with await syncpoint.aio.connect("QM1") as qm:      # the server: syncpoint strmqm QM1
        q = await qm.open("ORDERS")
        await q.put(b"order 1", persistent=True, syncpoint=True)
        await qm.commit()
        async for msg in q:                                    # waits in the server; the loop runs on
            ...

The API is ``syncpoint.connect``'s with coroutines: ``open``, ``put``, ``put1``, ``get(wait=)``, ``browse``,
``commit``, ``backout``, ``unit_of_work``, ``admin``, ``disconnect``, ``async for`` over a queue. One connection
runs its calls one after another, as an MQ connection does: a task waiting in ``get`` holds the connection, so
give each task that waits a connection of its own. Cancelling a call in flight ends its connection (the server
backs out its unit of work): bound a get with ``wait=``, not with ``asyncio.timeout``.

Implements: docs/protocol.md; docs/programming-model.md ("The asyncio client").
"""

from __future__ import annotations

from syncpoint.client import Message
from syncpoint.mqi import MQMIError

from ._api import Queue, QueueManager, connect
from ._connection import AsyncConnection

__all__ = ["AsyncConnection", "MQMIError", "Message", "Queue", "QueueManager", "connect"]
