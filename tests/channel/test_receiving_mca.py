"""The receiving end as IBM's MCA (issue 23 item 5; seed 003): a message it cannot put goes to the receiving
queue manager's DLQ with an MQDLH; runmqdlq's ACTION(RETRY) delivers it once the queue exists; with no DLQ the
channel stops and nothing is lost."""

from __future__ import annotations

import os
import subprocess

from channel_helpers import SYNCPOINT, QMs, channel_state
from test_end_to_end import connect_pair, depth, put_xmit

from syncpoint.mqi import MQDLH
from syncpoint.mqi import constants as C
from waiting import wait_until

DLQ = "SYSTEM.DEAD.LETTER.QUEUE"


def run_dlq_handler(qms: QMs, qm: str, rules: str) -> None:
    """runmqdlq on the queue manager's DLQ with ``rules`` (WAIT(NO): it ends when the queue is done)."""
    env = dict(os.environ, SYNCPOINT_HOME=str(qms.home))
    r = subprocess.run(
        [SYNCPOINT, "runmqdlq", DLQ, qm], input=rules, env=env, capture_output=True, text=True, timeout=120
    )
    assert r.returncode == 0, r.stdout + r.stderr


def test_a_message_for_a_missing_queue_lands_on_the_receivers_dlq_and_runmqdlq_retry_delivers_it(qms: QMs) -> None:
    # dlq-handler.md: "the DLQ handler exists mostly for messages a channel could not deliver"
    connect_pair(qms)
    put_xmit(qms, [b"late order"], qname="APP.LATE")
    wait_until(lambda: depth(qms, "QM2", DLQ) == 1, "the message on QM2's dead-letter queue")
    qm = qms.connect("QM2")
    m = qm.open(DLQ).get(wait=30, syncpoint=True)
    dlh = MQDLH.unpack(m.data[: MQDLH.size()])
    assert dlh.Reason == C.MQRC_UNKNOWN_OBJECT_NAME
    assert dlh.DestQName.rstrip(b" \0") == b"APP.LATE" and dlh.DestQMgrName.rstrip(b" \0") == b"QM2"
    assert m.data[MQDLH.size() :] == b"late order"
    assert m.md.Persistence == C.MQPER_PERSISTENT
    qm.backout()  # left for runmqdlq
    qm.disconnect()
    assert "AMQ8006I" in qms.mqsc("QM2", "DEFINE QLOCAL(APP.LATE)\n")
    run_dlq_handler(qms, "QM2", "WAIT(NO)\nDESTQ(APP.LATE) ACTION(RETRY)\n")
    qm = qms.connect("QM2")
    assert qm.open("APP.LATE").get(wait=30).data == b"late order"
    assert depth(qms, "QM2", DLQ) == 0


def test_with_no_dlq_the_channel_stops_and_the_message_waits_in_doubt_until_it_can_be_put(qms: QMs) -> None:
    # IBM: a receiving MCA that can neither put a message nor dead-letter it stops the channel; nothing is lost
    for name in ("QM1", "QM2"):
        qms.create(name, dlq=name == "QM1")
        qms.start(name)
    qms.mqsc("QM2", "DEFINE CHANNEL(QM1.TO.QM2) CHLTYPE(RCVR)\n")
    qms.mqsc(
        "QM1",
        "DEFINE QLOCAL(QM2) USAGE(XMITQ)\n"
        f"DEFINE CHANNEL(QM1.TO.QM2) CHLTYPE(SDR) CONNAME('{qms.conname('QM2')}') XMITQ(QM2)\n",
    )
    put_xmit(qms, [b"one", b"two"], qname="APP.NOT.YET")
    assert "AMQ8018I" in qms.mqsc("QM1", "START CHANNEL(QM1.TO.QM2)\n")
    wait_until(lambda: channel_state(qms, "QM1", "QM1.TO.QM2") == "STOPPED", "the channel stopped")
    assert depth(qms, "QM1", "QM2") == 0  # held in doubt in the sender's sync record, not lost
    indoubt = qms.mqsc("QM1", "DISPLAY CHSTATUS(QM1.TO.QM2) INDOUBT\n")
    assert "INDOUBT(YES)" in indoubt, indoubt
    qms.mqsc("QM2", "DEFINE QLOCAL(APP.NOT.YET)\n")
    assert "AMQ8018I" in qms.mqsc("QM1", "START CHANNEL(QM1.TO.QM2)\n")
    wait_until(lambda: depth(qms, "QM2", "APP.NOT.YET") == 2, "both messages delivered after the restart")
    qm = qms.connect("QM2")
    q = qm.open("APP.NOT.YET")
    assert [q.get(wait=30).data, q.get(wait=30).data] == [b"one", b"two"]


def test_a_dlq_rule_with_fwdqm_forwards_the_message_back_across_a_channel(qms: QMs) -> None:
    # seed 003: FWDQM names another queue manager: the handler's put resolves to the transmission queue of that
    # name, whose channel carries it back. Needs the queue manager's remote-queue resolution (QREMOTE).
    import pytest

    from syncpoint.mqi import objects

    if not hasattr(objects, "QREMOTE"):
        pytest.skip("remote queues (QREMOTE, ObjectQMgrName resolution) are not on this branch")
    connect_pair(qms)
    qms.mqsc(
        "QM1",
        "DEFINE CHANNEL(QM2.TO.QM1) CHLTYPE(RCVR)\nDEFINE QLOCAL(APP.RETURNED)\n"
        "DEFINE QREMOTE(TO.MISSING) RNAME(APP.MISSING) RQMNAME(QM2) XMITQ(QM2)\n",
    )
    qms.mqsc(
        "QM2",
        "DEFINE QLOCAL(QM1) USAGE(XMITQ) TRIGGER TRIGTYPE(FIRST) INITQ(SYSTEM.CHANNEL.INITQ) TRIGDATA(QM2.TO.QM1)\n"
        f"DEFINE CHANNEL(QM2.TO.QM1) CHLTYPE(SDR) CONNAME('{qms.conname('QM1')}') XMITQ(QM1) SHORTTMR(1)\n",
    )
    qm = qms.connect("QM1")
    qm.open("TO.MISSING").put(b"lost and found", persistent=True)
    qm.disconnect()
    wait_until(lambda: depth(qms, "QM2", DLQ) == 1, "the message on QM2's dead-letter queue")
    run_dlq_handler(qms, "QM2", "WAIT(NO)\nDESTQ(APP.MISSING) ACTION(FWD) FWDQ(APP.RETURNED) FWDQM(QM1) HEADER(NO)\n")
    wait_until(lambda: depth(qms, "QM1", "APP.RETURNED") == 1, "the message back on QM1")
    qm = qms.connect("QM1")
    assert qm.open("APP.RETURNED").get(wait=30).data == b"lost and found"
