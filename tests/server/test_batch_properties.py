"""Message properties through the batch verbs on a real server: ``putm``, ``putv`` and ``gettokens``.

The rules checked (docs/protocol.md, "Message properties", protocol version 4): a ``putm`` item may be
``[data, properties]`` and a ``putv`` item ``[MQMD, data, properties]``, each put then carrying its own
properties; a ``gettokens`` answer for a message with properties, got with a message handle, carries them last;
a property IBM's MQSETMP refuses in any item fails the whole request before any put (MQRC_PROPERTY_NAME_ERROR
2442, reference/properties-pubsub.md "Names"): nothing is put.
"""

from __future__ import annotations

import struct
from collections.abc import Iterator
from typing import Any

import pytest

import syncpoint
from syncpoint.client import EmbeddedQueueManager, QueueManager, memory_queue_manager
from syncpoint.mqi import MQGMO, MQMD, MQOD, MQPMO, MQMIError
from syncpoint.mqi import constants as C
from syncpoint.mqi.properties import build


@pytest.fixture
def app(serve: Any) -> Iterator[QueueManager]:
    e: EmbeddedQueueManager = memory_queue_manager("QM1", dlq="SYSTEM.DEAD.LETTER.QUEUE")
    srv = serve(e)
    a = syncpoint.connect("QM1", unix_path=srv.unix_path)
    a.admin("define", "QLOCAL", "Q1", {})
    yield a
    e.close(abnormal=True)


def _tokens(app: QueueManager) -> list[int]:
    h = app.mqopen(MQOD(ObjectName=b"Q1"), C.MQOO_BROWSE)
    out = []
    gmo = MQGMO(Version=C.MQGMO_VERSION_3, Options=C.MQGMO_BROWSE_FIRST | C.MQGMO_ACCEPT_TRUNCATED_MSG)
    while True:
        try:
            app.transport.get(h, MQMD(), gmo, 0)
        except MQMIError:
            app.mqclose(h)
            return out
        out.append(struct.unpack(">QQ", gmo.MsgToken)[1])
        gmo = MQGMO(Version=C.MQGMO_VERSION_3, Options=C.MQGMO_BROWSE_NEXT | C.MQGMO_ACCEPT_TRUNCATED_MSG)


def test_putm_carries_each_messages_properties_and_gettokens_returns_them(app: QueueManager) -> None:
    assert app.transport.protocol_version >= 4  # type: ignore[attr-defined]
    q = app.open("Q1")
    props: list[dict[str, Any] | None] = [{"colour": "red", "n": i, "ok": i % 2 == 0} for i in range(4)]
    props.append(None)  # a message without properties in the same batch
    q.put_many([b"a", b"b", b"c", b"d", b"e"], properties=props)
    tokens = _tokens(app)
    browsed = q.browse_tokens(tokens)
    assert [m.properties if m else None for m in browsed] == [*props[:4], {}]
    assert [m.data for m in browsed if m] == [b"a", b"b", b"c", b"d", b"e"]  # no MQRFH2 in front of the data
    got = q.get_tokens(tokens, syncpoint=False)
    assert [m.properties if m else None for m in got] == [*props[:4], {}]
    assert got[0] is not None and got[0].typed_properties == {
        "colour": (C.MQTYPE_STRING, "red"),
        "n": (C.MQTYPE_INT64, 0),
        "ok": (C.MQTYPE_BOOLEAN, True),
    }
    assert q.depth == 0


def test_putv_items_carry_their_own_properties(app: QueueManager) -> None:
    q = app.open("Q1")
    pmo = MQPMO(Options=C.MQPMO_NO_SYNCPOINT)
    items = [
        (MQMD(CorrelId=b"A" * 24), pmo.copy(), b"x", build({"k": "one"})),
        (MQMD(CorrelId=b"B" * 24), pmo.copy(), b"y", None),
        (MQMD(CorrelId=b"C" * 24), pmo.copy(), b"z", build({"k": "three", "f": 1.5})),
    ]
    assert app.transport.put_many(q._h("put"), items, alike=False) == [C.MQRC_NONE] * 3  # type: ignore[attr-defined]
    got = [q.get(wait=0) for _ in range(3)]
    assert [m.properties for m in got] == [{"k": "one"}, {}, {"k": "three", "f": 1.5}]
    assert [m.correl_id for m in got] == [b"A" * 24, b"B" * 24, b"C" * 24]


def test_a_forbidden_property_name_in_one_batch_item_puts_nothing(app: QueueManager) -> None:
    q = app.open("Q1")
    pmo = MQPMO(Options=C.MQPMO_NO_SYNCPOINT)
    good = build({"k": "v"})
    bad = {"NULL": (C.MQTYPE_STRING, "x")}  # an SQL keyword: MQRC_PROPERTY_NAME_ERROR (properties-pubsub.md)
    items = [(MQMD(), pmo.copy(), b"1", good), (MQMD(), pmo.copy(), b"2", bad)]
    with pytest.raises(MQMIError) as e:
        app.transport.put_many(q._h("put"), items, alike=True)  # type: ignore[attr-defined]
    assert e.value.reason == C.MQRC_PROPERTY_NAME_ERROR
    items = [(MQMD(CorrelId=b"X" * 24), pmo.copy(), b"1", good), (MQMD(), pmo.copy(), b"2", bad)]
    with pytest.raises(MQMIError) as e:
        app.transport.put_many(q._h("put"), items, alike=False)  # type: ignore[attr-defined]
    assert e.value.reason == C.MQRC_PROPERTY_NAME_ERROR
    assert q.depth == 0
    with pytest.raises(MQMIError) as e:  # the Pythonic batch checks every item's properties before any put
        q.put_many([b"1", b"2"], properties=[{"k": "v"}, {"NULL": "x"}])
    assert e.value.reason == C.MQRC_PROPERTY_NAME_ERROR
    assert q.depth == 0
