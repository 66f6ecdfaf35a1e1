"""A model queue opened through the Pythonic API (issue "Tried as a new user would", item 3): one open creates one
dynamic queue, and the Queue carries its real name, usable as the ReplyToQ of a request.

IBM, MQOPEN: "If the object being opened is a model queue, the queue manager creates a dynamic local queue ...
the name of the dynamic queue is returned in the ObjectName field of MQOD"; the application then uses that name,
e.g. as ReplyToQ. reference/structures.md (MQOD ObjectName, DynamicQName), reference/constants.md.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

import syncpoint
from syncpoint.client import EmbeddedQueueManager, QueueManager
from syncpoint.mqi import MQMIError
from syncpoint.mqi import constants as C

MODEL = "SYSTEM.DEFAULT.MODEL.QUEUE"


def dynamic_queues(qm: QueueManager) -> list[str]:
    return [d.name for d in qm.admin("list_objects", "QLOCAL") if d.name.startswith("AMQ.")]


def request_reply(requester: QueueManager, responder: QueueManager) -> None:
    """The request/reply pattern of docs/programming-model.md: a reply queue from the model, its name as ReplyToQ."""
    requester.admin("define", "QLOCAL", "REQUESTS", replace=True)
    with requester.open(MODEL) as replies:
        assert replies.name.startswith("AMQ.") and replies.name != MODEL
        request = requester.open("REQUESTS").put(b"ping", reply_to=replies.name, msg_type=C.MQMT_REQUEST)

        got = responder.open("REQUESTS").get(wait=5)
        assert got.reply_to == replies.name
        responder.put1(got.reply_to, b"pong", correl_id=got.msg_id, msg_type=C.MQMT_REPLY)

        answer = replies.get(wait=5, correl_id=request.MsgId)
        assert answer.data == b"pong"
        assert dynamic_queues(requester) == [replies.name]
    # a temporary dynamic queue goes with the close of the handle that created it
    assert dynamic_queues(requester) == []


def test_one_open_of_a_model_queue_makes_one_dynamic_queue_and_exposes_its_name(qm: QueueManager) -> None:
    q = qm.open(MODEL)
    assert dynamic_queues(qm) == [q.name]
    q.put(b"m")  # put and get reach the same dynamic queue (before: two queues, and the get found nothing)
    assert q.get().data == b"m"
    q.browse_all()
    assert q.depth == 0
    assert dynamic_queues(qm) == [q.name]
    q.close()
    assert dynamic_queues(qm) == []


def test_a_model_queue_opened_with_options_is_named_by_its_dynamic_queue(qm: QueueManager) -> None:
    q = qm.open(MODEL, C.MQOO_INPUT_AS_Q_DEF | C.MQOO_OUTPUT)
    assert q.name.startswith("AMQ.")
    assert dynamic_queues(qm) == [q.name]
    q.close()
    assert dynamic_queues(qm) == []


def test_other_queues_keep_their_names_and_hold_no_handle_until_used(qm: QueueManager) -> None:
    qm.admin("define", "QALIAS", "A1", {"TARGET": "Q1"})
    for name in ("Q1", "A1"):
        q = qm.open(name)
        assert q.name == name
        assert qm._handles == set()  # the inquire handle that told it is no model was closed again
    # an unknown queue still fails at its first use, with IBM's reason
    q = qm.open("NO.SUCH.QUEUE")
    with pytest.raises(MQMIError) as e:
        q.put(b"m")
    assert e.value.reason == C.MQRC_UNKNOWN_OBJECT_NAME


def test_request_reply_through_a_model_queue_embedded(connect: Callable[..., QueueManager]) -> None:
    request_reply(connect(), connect())


def test_request_reply_through_a_model_queue_over_the_server(
    embedded: EmbeddedQueueManager, serve: Callable[..., object]
) -> None:
    srv = serve(embedded)
    requester = syncpoint.connect("QM1", unix_path=srv.unix_path)  # type: ignore[attr-defined]
    responder = syncpoint.connect("QM1", host=f"127.0.0.1({srv.bound_port})")  # type: ignore[attr-defined]
    assert type(requester.transport).__name__ == "RemoteTransport"
    request_reply(requester, responder)
    requester.disconnect()
    responder.disconnect()
