"""Two real queue managers joined by a channel (issue 23 items 3, 4, 8): QM1's transmission queue → QM2."""

from __future__ import annotations

from channel_helpers import QMs, xmit_message

from syncpoint.mqi import MQOD, MQPMO
from syncpoint.mqi import constants as C
from waiting import wait_until


def connect_pair(qms: QMs, batchsz: int = 50, extra: str = "") -> None:
    """QM1 → QM2: QM2 has a receiver and queue APP.IN; QM1 has transmission queue QM2 (triggered: seed 001
    condition 6) and sender QM1.TO.QM2."""
    for name in ("QM1", "QM2"):
        qms.create(name)
        qms.start(name)
    out = qms.mqsc("QM2", "DEFINE CHANNEL(QM1.TO.QM2) CHLTYPE(RCVR)\nDEFINE QLOCAL(APP.IN) MAXDEPTH(100000)\n")
    assert "AMQ8014I" in out, out
    out = qms.mqsc(
        "QM1",
        "DEFINE QLOCAL(QM2) USAGE(XMITQ) TRIGGER TRIGTYPE(FIRST) INITQ(SYSTEM.CHANNEL.INITQ) TRIGDATA(QM1.TO.QM2)"
        " MAXDEPTH(100000)\n"
        f"DEFINE CHANNEL(QM1.TO.QM2) CHLTYPE(SDR) CONNAME('{qms.conname('QM2')}') XMITQ(QM2) BATCHSZ({batchsz})"
        f" SHORTTMR(1) {extra}\n",
    )
    assert "AMQ8014I" in out, out


def put_xmit(qms: QMs, bodies: list[bytes], persistent: bool = True, qname: str = "APP.IN") -> None:
    qm = qms.connect("QM1")
    h = qm.mqopen(MQOD(ObjectName=b"QM2"), C.MQOO_OUTPUT)
    per = C.MQPER_PERSISTENT if persistent else C.MQPER_NOT_PERSISTENT
    for body in bodies:
        md, data = xmit_message(qname, "QM2", body, Persistence=per)
        qm.mqput(h, md, MQPMO(Options=C.MQPMO_SYNCPOINT), data)
    qm.mqcmit()
    qm.disconnect()


def depth(qms: QMs, qm_name: str, q: str) -> int:
    qm = qms.connect(qm_name)
    try:
        return int(qm.admin("queue_status", q)["CURDEPTH"])
    finally:
        qm.disconnect()


def test_messages_on_a_triggered_transmission_queue_cross_the_channel_to_the_remote_queue(qms: QMs) -> None:
    # seed 001 condition 6: the transmission queue's trigger message starts the channel named by TRIGDATA
    connect_pair(qms)
    put_xmit(qms, [b"m%d" % i for i in range(120)])
    wait_until(lambda: depth(qms, "QM2", "APP.IN") == 120, "120 messages on QM2's APP.IN")
    assert depth(qms, "QM1", "QM2") == 0
    qm = qms.connect("QM2")
    q = qm.open("APP.IN")
    got = [q.get(wait=30).data for _ in range(120)]
    assert got == [b"m%d" % i for i in range(120)]  # in order, each once
    status = qms.mqsc("QM1", "DISPLAY CHSTATUS(QM1.TO.QM2) ALL\n")
    assert "STATUS(RUNNING)" in status and "MSGS(120)" in status, status
    rstatus = qms.mqsc("QM2", "DISPLAY CHSTATUS(*) ALL\n")
    assert "CHLTYPE(RCVR)" in rstatus and "RQMNAME(QM1)" in rstatus, rstatus
    # non-persistent messages on an NPMSPEED(FAST) channel travel in the batches too (outside the sync record)
    put_xmit(qms, [b"np%d" % i for i in range(5)], persistent=False)
    wait_until(lambda: depth(qms, "QM2", "APP.IN") == 5, "the non-persistent messages on QM2")
    # CURDEPTH counts them as the receiving unit of work commits; a get sees them once its sync is durable
    assert sorted(q.get(wait=30).data for _ in range(5)) == [b"np%d" % i for i in range(5)]
