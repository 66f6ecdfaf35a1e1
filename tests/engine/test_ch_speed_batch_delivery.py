"""A receiving channel's batch delivered in one engine call (issue 23 item 9, the channel's speed; the rules stay
those of items 4 and 5).

Issue 23, item 5: "A message for an unknown queue, a put-inhibited or full queue goes to the receiving queue
manager's DLQ with an MQDLH (Reason, DestQName, DestQMgrName, PutApplType …) … no DLQ → the channel stops (IBM's
rule), nothing lost." Item 4: "batches with sequence numbers, committed at both ends".
"""

from __future__ import annotations

import pytest
from remote_helpers import DLQ, depth, get, new_qm, put, settle

from syncpoint.engine import FakeClock, QueueManager
from syncpoint.mqi import MQDLH, MQGMO, MQMD, MQOD, MQMIError
from syncpoint.mqi import constants as C

CHANNEL = "QM1.TO.QM2"


@pytest.fixture
def qm1(clock: FakeClock) -> QueueManager:
    qm = new_qm("QM1", clock)
    qm.define("QLOCAL", "QM2", {"USAGE": C.MQUS_TRANSMISSION})
    qm.define("QREMOTE", "TO.QM2", {"RNAME": "APP.IN", "RQMNAME": "QM2"})
    qm.define("QREMOTE", "TO.NOWHERE", {"RNAME": "NO.SUCH.QUEUE", "RQMNAME": "QM2"})
    settle(qm)
    return qm


@pytest.fixture
def qm2(clock: FakeClock) -> QueueManager:
    qm = new_qm("QM2", clock)
    qm.define("QLOCAL", "APP.IN")
    settle(qm)
    return qm


def xmit_batch(qm1: QueueManager, n: int) -> list[bytes]:
    """The transmission-queue messages (MQXQH + data) a sending channel would send: the n on QM1's queue."""
    s = qm1.connect(CHANNEL, appl_type=C.MQAT_DQM)
    h = qm1.open(s, MQOD(ObjectName=b"QM2"), C.MQOO_INPUT_EXCLUSIVE)
    out = [qm1.get(s, h, MQMD(), MQGMO(Options=C.MQGMO_SYNCPOINT)).data for _ in range(n)]
    qm1.commit(s)
    settle(qm1)
    return out


def test_a_batch_delivered_in_one_call_puts_each_message_as_a_single_delivery_would(
    qm1: QueueManager, qm2: QueueManager
) -> None:
    # item 5: the message for an unknown queue goes to the DLQ with an MQDLH; the others to their queue, in order
    app = qm1.connect("app")
    put(qm1, app, "TO.QM2", b"first")
    put(qm1, app, "TO.NOWHERE", b"lost")
    put(qm1, app, "TO.QM2", b"second")
    r = qm2.connect(CHANNEL, appl_type=C.MQAT_DQM)
    outcomes = qm2.deliver_batch(r, xmit_batch(qm1, 3), channel=CHANNEL)
    assert [(d.outcome, d.queue, d.reason) for d in outcomes] == [
        ("delivered", "APP.IN", C.MQRC_NONE),
        ("dead-lettered", DLQ, C.MQRC_UNKNOWN_OBJECT_NAME),
        ("delivered", "APP.IN", C.MQRC_NONE),
    ]
    qm2.commit(r)
    settle(qm2)
    reader = qm2.connect("reader")
    assert [get(qm2, reader, "APP.IN")[1] for _ in range(2)] == [b"first", b"second"]
    _, data = get(qm2, reader, DLQ)
    dlh = MQDLH.unpack(data[:172])
    assert dlh.Reason == C.MQRC_UNKNOWN_OBJECT_NAME and dlh.DestQName.rstrip() == b"NO.SUCH.QUEUE"
    assert dlh.PutApplType == C.MQAT_DQM and data[172:] == b"lost"


def test_a_batch_delivered_in_one_call_is_one_unit_of_work(qm1: QueueManager, qm2: QueueManager) -> None:
    # item 4: a batch is committed (or backed out) whole at the receiving end
    app = qm1.connect("app")
    for i in range(5):
        put(qm1, app, "TO.QM2", b"m%d" % i)
    r = qm2.connect(CHANNEL, appl_type=C.MQAT_DQM)
    qm2.deliver_batch(r, xmit_batch(qm1, 5), channel=CHANNEL)
    assert depth(qm2, "APP.IN") == 5  # counted, not yet available to a getter
    qm2.backout(r)
    settle(qm2)
    assert depth(qm2, "APP.IN") == 0


def test_a_batch_with_an_undeliverable_message_and_no_dlq_raises_for_the_channel_to_back_out(
    clock: FakeClock, qm1: QueueManager
) -> None:
    # item 5: "no DLQ → the channel stops (IBM's rule), nothing lost"
    qm2 = new_qm("QM2", clock, dlq=None)
    qm2.define("QLOCAL", "APP.IN")
    settle(qm2)
    app = qm1.connect("app")
    put(qm1, app, "TO.QM2", b"ok")
    put(qm1, app, "TO.NOWHERE", b"lost")
    r = qm2.connect(CHANNEL, appl_type=C.MQAT_DQM)
    with pytest.raises(MQMIError):
        qm2.deliver_batch(r, xmit_batch(qm1, 2), channel=CHANNEL)
    qm2.backout(r)
    settle(qm2)
    assert depth(qm2, "APP.IN") == 0
