"""Channel events (CHLEV, issue 36 item 2) on SYSTEM.ADMIN.CHANNEL.EVENT, from a real sender / receiver pair of
servers (IBM: "Channel events": Channel Started 2282 with QMgrName, ChannelName, XmitQName for a sending channel,
ConnectionName; Channel Stopped 2283 with ReasonQualifier MQRQ_CHANNEL_STOPPED_OK for a normal end (disconnect
interval), MQRQ_CHANNEL_STOPPED_RETRY for an attempt that will be retried, ErrorIdentifier 0x2000nnnn for AMQnnnn;
Channel Stopped By User 2279 for STOP CHANNEL)."""

from __future__ import annotations

from typing import Any

from channel_helpers import QMs, channel_state, unused_port
from test_ch_error_log import entries, error_log
from test_ch_modes_requester import pair
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


def stopped_error(qms: QMs, qm_name: str, channel: str) -> dict[int, Any]:
    """The Channel Stopped (error) event ``qm_name`` writes for ``channel``, once it is there."""
    seen: list[tuple[int, dict[int, Any]]] = []

    def found() -> bool:
        seen.extend(events(qms, qm_name))
        return any(r == C.MQRC_CHANNEL_STOPPED and v[C.MQCACH_CHANNEL_NAME] == channel for r, v in seen)

    wait_until(found, f"Channel Stopped for {channel} on {qm_name}")
    assert [r for r, v in seen if v[C.MQCACH_CHANNEL_NAME] == channel] == [
        C.MQRC_CHANNEL_STARTED,
        C.MQRC_CHANNEL_STOPPED,
    ]
    return next(v for r, v in seen if r == C.MQRC_CHANNEL_STOPPED)


# IBM's receiving MCA that loses its connection logs AMQ9209E (connection to host closed) or AMQ9208E (error on
# receive), and its Channel Stopped event says ReasonQualifier MQRQ_CHANNEL_STOPPED_ERROR with that message's
# ErrorIdentifier ("Channel Stopped" in IBM's event reference: each end writes on its own queue manager)
BROKEN = {0x20009209: "AMQ9209E", 0x20009208: "AMQ9208E"}


def test_a_receiving_channel_whose_sender_is_killed_writes_channel_stopped_error(qms: QMs) -> None:
    connect_pair(qms)
    qms.mqsc("QM2", "ALTER QMGR CHLEV(ENABLED)\n")
    put_xmit(qms, [b"one"])
    wait_until(lambda: depth(qms, "QM2", "APP.IN") == 1, "the message crossed")
    wait_until(lambda: channel_state(qms, "QM2", "QM1.TO.QM2") == "RUNNING", "the receiving end runs")
    qms.kill("QM1")  # the sending side's process dies: its socket is dropped without the channel's close
    stopped = stopped_error(qms, "QM2", "QM1.TO.QM2")
    assert stopped[C.MQCA_Q_MGR_NAME] == "QM2"
    assert stopped[C.MQIACF_REASON_QUALIFIER] == C.MQRQ_CHANNEL_STOPPED_ERROR
    assert stopped[C.MQIACF_ERROR_IDENTIFIER] in BROKEN
    # the partner's host, as the receiving end's ConnectionName names it (IBM: the address, no port)
    assert stopped[C.MQCACF_AUX_ERROR_DATA_STR_1] == stopped[C.MQCACH_CONNECTION_NAME] == "127.0.0.1"
    assert C.MQCACH_XMIT_Q_NAME not in stopped
    message = BROKEN[stopped[C.MQIACF_ERROR_IDENTIFIER]]
    wait_until(lambda: entries(error_log(qms, "QM2"), message), "the error log's entry (errors/AMQERR01.LOG)")
    assert channel_state(qms, "QM2", "QM1.TO.QM2") == "INACTIVE"  # ended, not STOPPED (IBM: no status kept)


def test_a_requesters_end_writes_channel_stopped_error_when_its_server_dies(qms: QMs) -> None:
    pair(qms, "SVR")
    qms.mqsc("QM2", "ALTER QMGR CHLEV(ENABLED)\n")
    put_xmit(qms, [b"r1"])
    assert "AMQ8018I" in qms.mqsc("QM2", "START CHANNEL(QM2.REQ)\n")
    wait_until(lambda: depth(qms, "QM2", "APP.IN") == 1, "the server's message on the requester's queue manager")
    qms.kill("QM1")  # the SVR's queue manager dies: the requester's connection breaks
    stopped = stopped_error(qms, "QM2", "QM2.REQ")  # the requester's own queue manager writes it, once
    assert stopped[C.MQIACF_REASON_QUALIFIER] == C.MQRQ_CHANNEL_STOPPED_ERROR
    assert stopped[C.MQIACF_ERROR_IDENTIFIER] in BROKEN
    qms.mqsc("QM2", "STOP CHANNEL(QM2.REQ)\n")  # the requester would retry its partner: end it


def test_a_receiving_channel_that_can_neither_put_nor_dead_letter_writes_channel_stopped_error(qms: QMs) -> None:
    # IBM: the receiving MCA stops the channel (AMQ9544E here) and its queue manager writes Channel Stopped, error
    for name in ("QM1", "QM2"):
        qms.create(name, dlq=name == "QM1")
        qms.start(name)
    qms.mqsc("QM2", "ALTER QMGR CHLEV(ENABLED)\nDEFINE CHANNEL(QM1.TO.QM2) CHLTYPE(RCVR)\n")
    qms.mqsc(
        "QM1",
        "DEFINE QLOCAL(QM2) USAGE(XMITQ)\n"
        f"DEFINE CHANNEL(QM1.TO.QM2) CHLTYPE(SDR) CONNAME('{qms.conname('QM2')}') XMITQ(QM2)\n",
    )
    put_xmit(qms, [b"one"], qname="APP.NOT.YET")  # no such queue at QM2, and no dead-letter queue there
    assert "AMQ8018I" in qms.mqsc("QM1", "START CHANNEL(QM1.TO.QM2)\n")
    wait_until(lambda: channel_state(qms, "QM1", "QM1.TO.QM2") == "STOPPED", "the channel stopped")
    stopped = stopped_error(qms, "QM2", "QM1.TO.QM2")  # one event: the sender going away adds none
    assert stopped[C.MQIACF_REASON_QUALIFIER] == C.MQRQ_CHANNEL_STOPPED_ERROR
    assert stopped[C.MQIACF_ERROR_IDENTIFIER] == 0x20009544
    assert stopped[C.MQIACF_AUX_ERROR_DATA_INT_1] != 0  # the MQRC of the put that failed
    assert channel_state(qms, "QM2", "QM1.TO.QM2") == "STOPPED"
