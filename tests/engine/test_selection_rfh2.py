"""Selectors see the properties a message carries in its own MQRFH2 (issue 34, item 5).

IBM's rule (reference/properties-pubsub.md, "MQRFH2 mapping": "A message put with an MQRFH2 and read with a
handle yields properties, and the reverse"): the ``usr`` folder's elements are the message's properties, so a
selector (MQOD SelectionString) chooses a message put with ``<usr><Colour>blue</Colour></usr>`` in front of its
data by ``Colour = 'blue'`` exactly as one put with that property beside its data — and the queue is still judged
once, each arriving message once (issue 34, item 2), not rescanned on every get.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

import syncpoint
from syncpoint.client import EmbeddedQueueManager, QueueManager, memory_queue_manager
from syncpoint.mqi import constants as C
from syncpoint.mqi import rfh2
from syncpoint.mqi.properties import build
from syncpoint.mqi.selector import Selector

GET = C.MQOO_INPUT_SHARED | C.MQOO_FAIL_IF_QUIESCING


@pytest.fixture
def qm() -> Iterator[QueueManager]:
    e: EmbeddedQueueManager = memory_queue_manager("QM1")
    c = syncpoint.connect("QM1", embedded=e)
    c.admin("define", "QLOCAL", "Q1")
    yield c
    e.close(abnormal=True)


def with_header(props: dict[str, object], body: bytes) -> bytes:
    built = build(props)
    assert built is not None
    return rfh2.build(built, [], C.MQENC_NATIVE, 1208, C.MQFMT_STRING, C.MQENC_NATIVE) + body


def test_a_selector_chooses_by_the_usr_folder_of_the_messages_own_mqrfh2(qm: QueueManager) -> None:
    out = qm.open("Q1", C.MQOO_OUTPUT)
    out.put(with_header({"Colour": "red", "Size": (C.MQTYPE_INT32, 3)}, b"red"), format=C.MQFMT_RF_HEADER_2)
    out.put(with_header({"Colour": "blue", "Size": (C.MQTYPE_INT32, 4)}, b"blue"), format=C.MQFMT_RF_HEADER_2)
    out.put("plain")  # no properties at all: Colour is NULL
    out.put("beside", properties={"Colour": "blue", "Size": 9})  # the same property beside the data
    q = qm.open("Q1", GET, selector="Colour = 'blue' AND Size > 3")
    got = [q.get_or_none() for _ in range(3)]
    assert [m.data if m else None for m in got] == [b"blue", b"beside", None]
    assert got[0] is not None and got[0].properties == {"Colour": "blue", "Size": 4}  # delivered to the handle
    nulls = qm.open("Q1", GET, selector="Colour IS NULL")
    assert [m.data for m in iter(nulls.get_or_none, None)] == [b"plain"]


def test_a_header_property_and_the_same_name_beside_the_data_the_one_beside_wins(qm: QueueManager) -> None:
    # a get delivers beside-the-data properties over the header's of the same name (engine/_properties.present)
    out = qm.open("Q1", C.MQOO_OUTPUT)
    out.put(with_header({"Colour": "red"}, b"x"), format=C.MQFMT_RF_HEADER_2, properties={"Colour": "blue"})
    assert qm.open("Q1", GET, selector="Colour = 'red'").get_or_none() is None
    assert qm.open("Q1", GET, selector="Colour = 'blue'").get().data == b"x"


def test_messages_with_their_own_mqrfh2_are_judged_once_each(qm: QueueManager, monkeypatch: pytest.MonkeyPatch) -> None:
    judged: list[int] = []
    real = Selector.matches
    monkeypatch.setattr(Selector, "matches", lambda self, md, props=None: judged.append(1) or real(self, md, props))
    out = qm.open("Q1", C.MQOO_OUTPUT)
    for i in range(200):
        out.put(with_header({"Colour": "red", "n": i}, b"r"), format=C.MQFMT_RF_HEADER_2)
    q = qm.open("Q1", GET, selector="Colour = 'green'")
    assert q.get_or_none() is None
    assert len(judged) == 200  # the first look judges the queue once
    for i in range(10):
        judged.clear()
        out.put(with_header({"Colour": "green", "n": i}, b"g%d" % i), format=C.MQFMT_RF_HEADER_2)
        assert q.get().data == b"g%d" % i
        assert len(judged) == 1  # then only what arrived since
