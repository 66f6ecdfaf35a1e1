"""``putv`` on a real server: a batch whose items share MQMD bytes (the Spark sink's outputs from a few MQMD
templates) is decoded once per distinct descriptor, and each put still completes a descriptor of its own.

The rule checked (docs/protocol.md, ``putv``: "each item carries its own MQMD"; reference/structures.md, MQMD
MsgId: a put with MsgId MQMI_NONE gets a new unique MsgId): identical MQMD bytes in one request give messages
with different MsgIds, each answered with its own MQMD, and the items' CorrelIds stay their own.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

import syncpoint
from syncpoint.client import EmbeddedQueueManager, memory_queue_manager
from syncpoint.mqi import MQMD, MQPMO
from syncpoint.mqi import constants as C


@pytest.fixture
def qm() -> Iterator[EmbeddedQueueManager]:
    e = memory_queue_manager("QM1", dlq="SYSTEM.DEAD.LETTER.QUEUE")
    yield e
    e.close(abnormal=True)


def test_putv_items_with_the_same_mqmd_bytes_each_get_their_own_msgid(qm: Any, serve: Any) -> None:
    srv = serve(qm)
    app = syncpoint.connect("QM1", unix_path=srv.unix_path)
    app.admin("define", "QLOCAL", "Q1", {})
    q = app.open("Q1")
    items = []
    for i in range(6):
        md = MQMD(CorrelId=(b"A" if i % 2 else b"B") * 24, Persistence=C.MQPER_PERSISTENT)
        items.append((md, MQPMO(Options=C.MQPMO_SYNCPOINT), f"m{i}".encode()))
    assert app.transport.put_many(q._h("put"), items) == [C.MQRC_NONE] * 6
    app.commit()
    sent = [md.MsgId for md, _, _ in items]
    assert len(set(sent)) == 6 and C.MQMI_NONE not in sent
    got = list(q.browse_all())
    assert [m.msg_id for m in got] == sent
    assert [m.correl_id for m in got] == [(b"A" if i % 2 else b"B") * 24 for i in range(6)]
    assert [m.data for m in got] == [f"m{i}".encode() for i in range(6)]
