"""Publish/subscribe through every door: the Pythonic ``qm.publish`` / ``qm.subscribe`` in-process and over the
wire protocol (a real server on a real Unix socket), ``syncpoint.aio``'s async iterable, the wire's ``sub`` verb
refusing malformed input with IBM's reasons, and a durable subscription and a retained publication surviving a
restart on a real SQLite file (reference/properties-pubsub.md)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

import pytest

import syncpoint
import syncpoint.aio
from syncpoint.client import EmbeddedQueueManager, QueueManager, create_queue_manager, open_embedded
from syncpoint.mqi import MQSD, MQMIError
from syncpoint.mqi import constants as C


@pytest.fixture(params=["embedded", "remote"])
def door(request: pytest.FixtureRequest, embedded: EmbeddedQueueManager, serve: Callable[..., object]) -> QueueManager:
    if request.param == "embedded":
        return syncpoint.connect("QM1", embedded=embedded)
    srv = serve(embedded)
    return syncpoint.connect("QM1", unix_path=srv.unix_path)  # type: ignore[attr-defined]


def test_a_subscription_is_an_iterable_of_the_publications_on_its_topic(door: QueueManager) -> None:
    sub = door.subscribe("prices/+", wait=None)
    door.publish("prices/apples", "1.20")
    door.publish("prices/pears", b"0.90", persistent=True)
    door.publish("stock/apples", "not for this subscriber")
    got = list(sub)
    assert [m.data for m in got] == [b"1.20", b"0.90"]
    assert all(m.correl_id == sub.correl_id for m in got)
    assert sub.topic == "prices/+" and sub.managed and not sub.durable
    sub.close()


def test_a_named_subscription_is_durable_and_resumed_on_the_same_managed_queue(door: QueueManager) -> None:
    first = door.subscribe("news/#", name="NEWS.READER", wait=None)
    first.close()  # a durable subscription outlives its handle
    door.publish("news/today", "kept for the subscriber")
    again = door.subscribe("news/#", name="NEWS.READER", wait=None)
    assert again.durable and again.managed and again.queue.name == first.queue.name
    assert [m.text for m in again] == ["kept for the subscriber"]
    again.close(remove=True)
    door.publish("news/today", "nobody")
    with pytest.raises(MQMIError) as e:
        door.subscribe("", name="NEWS.READER", wait=None).close()  # gone: created afresh needs a topic
    assert e.value.reason == C.MQRC_UNKNOWN_OBJECT_NAME


def test_a_subscription_to_a_provided_queue_and_a_retained_publication_on_request(door: QueueManager) -> None:
    door.admin("define", "QLOCAL", "MY.PUBS")
    q = door.open("MY.PUBS")
    door.publish("config/level", "3", retain=True)
    sub = door.subscribe("config/level", queue=q, new_publications_only=True, wait=None)
    assert q.depth == 0  # the retained publication was not sent
    assert sub.request() == 1  # MQSUBRQ
    assert q.get().text == "3"
    sub.close()


def test_wire_sub_refuses_bad_input_with_ibms_reasons(
    embedded: EmbeddedQueueManager, serve: Callable[..., object]
) -> None:
    srv = serve(embedded)
    qm = syncpoint.connect("QM1", unix_path=srv.unix_path)  # type: ignore[attr-defined]
    t = qm.transport
    cases = [
        ([b"not an MQSD", 0, {}], C.MQRC_SD_ERROR),
        ([MQSD(Options=C.MQSO_CREATE | C.MQSO_MANAGED).pack(), 0, {"ObjectString": 7}], C.MQRC_SD_ERROR),
        ([MQSD(Options=C.MQSO_CREATE | C.MQSO_MANAGED).pack(), 0, {"Bogus": "x"}], C.MQRC_SD_ERROR),
        ([MQSD(Options=C.MQSO_CREATE | C.MQSO_MANAGED).pack(), 0, {"ObjectString": "x" * 10_241}], 2425),
    ]
    for args, rc in cases:
        with pytest.raises(MQMIError) as e:
            t._call("sub", args)  # type: ignore[attr-defined]
        assert e.value.reason == rc
    with pytest.raises(MQMIError) as e:
        qm.admin("subscriptions")  # nothing was made
    assert e.value.reason == C.MQRC_NO_SUBSCRIPTION


def test_aio_subscription_is_an_async_iterable(embedded: EmbeddedQueueManager, serve: Callable[..., object]) -> None:
    srv = serve(embedded)

    async def main() -> list[bytes]:
        qm = await syncpoint.aio.connect("QM1", unix_path=srv.unix_path)  # type: ignore[attr-defined]
        sub = await qm.subscribe("async/#", wait=None)
        await qm.publish("async/a", b"one")
        await qm.publish("async/b/c", b"two")
        got = [m.data async for m in sub]
        await sub.close()
        await qm.disconnect()
        return got

    assert asyncio.run(main()) == [b"one", b"two"]


def test_durable_subscription_and_retained_publication_survive_restart_on_sqlite(tmp_path: Path) -> None:
    create_queue_manager("QMR", home=tmp_path)
    qm = syncpoint.connect("QMR", home=tmp_path)
    sub = qm.subscribe("orders/#", name="ORDERS", wait=None)
    sub.close()
    qm.publish("orders/1", "persistent order", persistent=True)
    qm.publish("orders/last", "retained", persistent=True, retain=True)
    qm.disconnect()
    open_embedded("QMR", home=tmp_path).close(abnormal=True)
    qm = syncpoint.connect("QMR", home=tmp_path)
    again = qm.subscribe("orders/#", name="ORDERS", wait=None)
    assert [m.text for m in again] == ["persistent order", "retained"]
    late = qm.subscribe("orders/last", wait=None)
    assert [m.text for m in late] == ["retained"]  # the retained publication, after the restart
    qm.disconnect()


def test_a_publications_properties_reach_every_subscriber(door: QueueManager) -> None:
    # properties-pubsub.md: properties travel with the message, through every door
    first, second = door.subscribe("props/t", wait=0), door.subscribe("props/t", wait=0)
    door.publish("props/t", b"apple", properties={"colour": "red", "weight": 120})
    for sub in (first, second):
        got = sub.get(wait=0)
        # IBM's queue manager adds MQTopicString (mqps.Top) to every publication it delivers
        assert got.data == b"apple" and got.properties == {"colour": "red", "weight": 120, "MQTopicString": "props/t"}
