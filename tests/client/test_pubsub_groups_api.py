"""Issue 34's publish/subscribe additions through every door — in-process and over the wire protocol (a real
server on a real Unix socket): grouped subscriptions (MQSO_GROUP_SUB, the MQSD carried whole by the ``sub``
verb) and DISPLAY PUBSUB's engine verb (``pubsub_status``, which runmqsc reaches through the admin verbs)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

import syncpoint
from syncpoint.client import EmbeddedQueueManager, QueueManager
from syncpoint.mqi import MQOD, MQSD, MQMIError
from syncpoint.mqi import constants as C

CORREL = b"GROUPED".ljust(24, b"\0")


@pytest.fixture(params=["embedded", "remote"])
def door(request: pytest.FixtureRequest, embedded: EmbeddedQueueManager, serve: Callable[..., object]) -> QueueManager:
    if request.param == "embedded":
        return syncpoint.connect("QM1", embedded=embedded)
    srv = serve(embedded)
    return syncpoint.connect("QM1", unix_path=srv.unix_path)  # type: ignore[attr-defined]


def _grouped(door: QueueManager, hobj: int, topic: str, name: str) -> MQSD:
    sd = MQSD(Options=C.MQSO_CREATE | C.MQSO_GROUP_SUB | C.MQSO_SET_CORREL_ID, SubCorrelId=CORREL)
    door.transport.sub(sd, hobj, {"ObjectString": topic, "SubName": name})
    return sd


def test_grouped_subscriptions_get_one_copy_through_every_door(door: QueueManager) -> None:
    door.admin("define", "QLOCAL", "GROUPED.Q")
    hobj = door.transport.open(MQOD(ObjectName=b"GROUPED.Q"), C.MQOO_INPUT_AS_Q_DEF | C.MQOO_OUTPUT)
    _grouped(door, hobj, "fruit/#", "ALL.FRUIT")
    sd = _grouped(door, hobj, "fruit/apples", "APPLES")
    assert sd.SubCorrelId == CORREL and sd.SubLevel == 1  # the output fields came back
    with pytest.raises(MQMIError) as e:
        _grouped(door, hobj, "fruit/apples", "APPLES.AGAIN")
    assert e.value.reason == C.MQRC_DUPLICATE_GROUP_SUB
    door.publish("fruit/apples", "one copy")
    q = door.open("GROUPED.Q")
    assert [m.text for m in q.messages()] == ["one copy"]


def test_display_pubsubs_engine_verb_answers_through_every_door(door: QueueManager) -> None:
    [row] = door.admin("pubsub_status", "LOCAL")
    assert row["QMNAME"] == "QM1" and row["TYPE"] == "LOCAL" and row["STATUS"] == "ACTIVE"
    assert door.admin("pubsub_status", "CHILD") == []
