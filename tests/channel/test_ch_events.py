"""Channel events (CHLEV, issue 36 item 2) on SYSTEM.ADMIN.CHANNEL.EVENT, from a real sender / receiver pair of
servers (IBM: "Channel events": Channel Started 2282 with QMgrName, ChannelName, XmitQName for a sending channel,
ConnectionName; Channel Stopped 2283 with ReasonQualifier MQRQ_CHANNEL_STOPPED_OK for a normal end (disconnect
interval), MQRQ_CHANNEL_STOPPED_RETRY for an attempt that will be retried, ErrorIdentifier 0x2000nnnn for AMQnnnn;
Channel Stopped By User 2279 for STOP CHANNEL)."""

from __future__ import annotations

from typing import Any

from channel_helpers import QMs, channel_state, unused_port
from test_end_to_end import connect_pair, depth, put_xmit

from syncpoint.mqi import constants as C
from syncpoint.pcf import MQCFIN, MQCFST, parse
from waiting import wait_until

EVENTQ = "SYSTEM.ADMIN.CHANNEL.EVENT"


def events(qms: QMs, qm_name: str) -> list[tuple[int, dict[int, Any]]]:
    qm = qms.connect(qm_name)
    try:
        out = []
        q = qm.open(EVENTQ)
        while (m := q.get_or_none()) is not None:
            cfh, params = parse(m.data)
            assert (cfh.Type, cfh.Command) == (7, 46)  # MQCFT_EVENT, MQCMD_CHANNEL_EVENT
            values = {p.Parameter: p.String.decode().strip() if isinstance(p, MQCFST) else p.Value for p in params}
            assert all(isinstance(p, (MQCFST, MQCFIN)) for p in params)
            out.append((cfh.Reason, values))
        return out
    finally:
        qm.disconnect()


def test_a_channel_pair_reports_started_and_stopped_on_both_ends(qms: QMs) -> None:
    connect_pair(qms, extra="DISCINT(1)")  # the sender ends normally one second after its last batch
    for name in ("QM1", "QM2"):
        qms.mqsc(name, "ALTER QMGR CHLEV(ENABLED)\n")
    put_xmit(qms, [b"one", b"two"])
    wait_until(lambda: depth(qms, "QM2", "APP.IN") == 2, "the messages crossed")
    wait_until(lambda: channel_state(qms, "QM1", "QM1.TO.QM2") == "INACTIVE", "the sender ended (DISCINT)")
    sent = events(qms, "QM1")
    assert [r for r, _ in sent] == [C.MQRC_CHANNEL_STARTED, C.MQRC_CHANNEL_STOPPED]
    started, stopped = sent[0][1], sent[1][1]
    assert started == {
        C.MQCA_Q_MGR_NAME: "QM1",
        C.MQCACH_CHANNEL_NAME: "QM1.TO.QM2",
        C.MQCACH_XMIT_Q_NAME: "QM2",
        C.MQCACH_CONNECTION_NAME: qms.conname("QM2"),
    }
    assert stopped[C.MQIACF_REASON_QUALIFIER] == C.MQRQ_CHANNEL_STOPPED_OK
    assert stopped[C.MQIACF_ERROR_IDENTIFIER] == 0 and stopped[C.MQCACH_CHANNEL_NAME] == "QM1.TO.QM2"
    received: list[tuple[int, dict[int, Any]]] = []
    wait_until(lambda: received.extend(events(qms, "QM2")) or len(received) >= 2, "the receiving end's two events")
    assert [r for r, _ in received] == [C.MQRC_CHANNEL_STARTED, C.MQRC_CHANNEL_STOPPED]
    assert received[0][1][C.MQCACH_CHANNEL_NAME] == "QM1.TO.QM2" and C.MQCACH_XMIT_Q_NAME not in received[0][1]
    assert received[1][1][C.MQIACF_REASON_QUALIFIER] == C.MQRQ_CHANNEL_STOPPED_OK


def test_a_refused_connection_is_stopped_retry_and_stop_channel_is_stopped_by_user(qms: QMs) -> None:
    port = unused_port()  # nobody listens there
    qms.create("QM1")
    qms.start("QM1")
    qms.mqsc(
        "QM1",
        "ALTER QMGR CHLEV(ENABLED)\nDEFINE QLOCAL(QM2) USAGE(XMITQ)\n"
        f"DEFINE CHANNEL(QM1.TO.QM2) CHLTYPE(SDR) CONNAME('127.0.0.1({port})') XMITQ(QM2) SHORTRTY(5) SHORTTMR(1)\n",
    )
    qms.mqsc("QM1", "START CHANNEL(QM1.TO.QM2)\n")
    seen: list[tuple[int, dict[int, Any]]] = []
    wait_until(lambda: seen.extend(events(qms, "QM1")) or seen, "a Channel Stopped (retry) event")
    reason, retry = seen[0]
    assert reason == C.MQRC_CHANNEL_STOPPED
    assert retry[C.MQIACF_REASON_QUALIFIER] == C.MQRQ_CHANNEL_STOPPED_RETRY
    assert retry[C.MQIACF_ERROR_IDENTIFIER] == 0x20009202  # AMQ9202E: remote host not available
    assert retry[C.MQIACF_AUX_ERROR_DATA_INT_1] == C.MQRC_HOST_NOT_AVAILABLE
    qms.mqsc("QM1", "STOP CHANNEL(QM1.TO.QM2)\n")
    wait_until(lambda: channel_state(qms, "QM1", "QM1.TO.QM2") == "STOPPED", "STOPPED")
    wait_until(
        lambda: seen.extend(events(qms, "QM1")) or any(r == C.MQRC_CHANNEL_STOPPED_BY_USER for r, _ in seen),
        "Channel Stopped By User",
    )
    by_user = next(v for r, v in seen if r == C.MQRC_CHANNEL_STOPPED_BY_USER)
    assert by_user == {
        C.MQCA_Q_MGR_NAME: "QM1",
        C.MQIACF_REASON_QUALIFIER: C.MQRQ_CHANNEL_STOPPED_DISABLED,
        C.MQCACH_CHANNEL_NAME: "QM1.TO.QM2",
    }
