"""``gettokens`` without a buffer length (the Spark sink's gets by MsgToken) on a real server: one engine call
for the request's tokens within the reply frame's budget (issue 22: the server's CPU per flow message).

The rules checked (docs/protocol.md, ``gettokens``): "the reply stops early where the next message might not
fit in a frame: fewer answers than tokens and no error; the client asks again for the tokens left" — so the
message that does not fit stays on the queue and comes in the next request, nothing lost or duplicated; nil
where the message is gone; MQRC_MSG_TOO_BIG_FOR_CHANNEL (2218) when the first message cannot fit at all, and
that message stays where it was.
"""

from __future__ import annotations

import struct
from collections.abc import Iterator
from typing import Any

import pytest

import syncpoint
from syncpoint.client import EmbeddedQueueManager, QueueManager, memory_queue_manager
from syncpoint.engine._tokens import ANSWER_ROOM
from syncpoint.mqi import MQGMO, MQMD, MQOD, MQMIError
from syncpoint.mqi import constants as C

FRAME = 20_000  # the server's frame limit: a reply has room for 3 messages of 3,000 bytes (and their answers)
BODY = 3000


@pytest.fixture
def qm() -> Iterator[EmbeddedQueueManager]:
    e = memory_queue_manager("QM1", dlq="SYSTEM.DEAD.LETTER.QUEUE")
    yield e
    e.close(abnormal=True)


def tokens_of(app: QueueManager) -> list[int]:
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


def test_gets_by_token_stop_before_a_message_that_does_not_fit_and_the_next_request_gets_it(
    qm: Any, serve: Any
) -> None:
    srv = serve(qm, max_frame=FRAME)
    app = syncpoint.connect("QM1", unix_path=srv.unix_path)
    app.admin("define", "QLOCAL", "Q1", {})
    q = app.open("Q1")
    datas = [bytes([65 + i]) * BODY for i in range(10)]
    for d in datas:
        q.put(d, persistent=True)
    tokens = tokens_of(app)
    gone = tokens[4]
    assert [m.data for m in q.get_tokens([gone], syncpoint=False) if m is not None] == [datas[4]]
    q._h("get")
    calls = srv.stats.calls
    got = q.get_tokens(tokens, syncpoint=True)
    # 3 messages a reply (a nil takes no room): 3 requests for 9 messages and one gone token, in the order asked
    assert srv.stats.calls - calls == 3
    assert [m.data if m is not None else None for m in got] == [*datas[:4], None, *datas[5:]]
    assert q.depth == 0
    app.backout()
    assert sorted(m.data for m in q.browse_all()) == datas[:4] + datas[5:]  # all back, once each


def test_a_first_message_too_big_for_a_reply_is_msg_too_big_for_channel_and_stays(qm: Any, serve: Any) -> None:
    srv = serve(qm, max_frame=FRAME)
    app = syncpoint.connect("QM1", unix_path=srv.unix_path)
    app.admin("define", "QLOCAL", "Q1", {})
    q = app.open("Q1")
    q.put(b"small")
    q.put(b"x" * (FRAME - 4096 - ANSWER_ROOM + 1))
    small, big = tokens_of(app)
    with pytest.raises(MQMIError) as e:
        q.get_tokens([small, big], syncpoint=True)
    assert e.value.reason == C.MQRC_MSG_TOO_BIG_FOR_CHANNEL
    assert [m.data for m in e.value.messages] == [b"small"]  # type: ignore[attr-defined]
    app.commit()
    assert q.depth == 1  # the big one stays


def test_the_engine_gets_by_token_within_a_budget_and_leaves_the_rest(qm: Any) -> None:
    # the engine's get_tokens with a budget: the answers' data and ANSWER_ROOM each within it; the message that
    # would pass it is not got (it stays available), and no error says "ask again"
    app = syncpoint.connect("QM1", embedded=qm)
    app.admin("define", "QLOCAL", "Q1", {})
    q = app.open("Q1")
    for i in range(5):
        q.put(bytes([65 + i]) * 100)
    tokens = tokens_of(app)
    h = q._h("get")
    conn = app.transport.conn
    gmo = MQGMO(Options=C.MQGMO_SYNCPOINT)
    budget = 3 * (100 + ANSWER_ROOM) + 99
    results, error = qm.call(qm.engine.get_tokens, conn, h, tokens, gmo, None, budget)
    assert error is None and [r[1].data[:1] for r in results] == [b"A", b"B", b"C"]
    results, error = qm.call(qm.engine.get_tokens, conn, h, tokens[3:], gmo, None, budget)
    assert error is None and [r[1].data[:1] for r in results] == [b"D", b"E"]
    app.commit()
    assert q.depth == 0
