"""Heartbeats (HBINT) of a running channel (issue 23 item 3: "HBINT").

Rule (IBM MQ, HBINT in DEFINE CHANNEL): "the approximate time between heartbeat flows that are to be passed
from a sending MCA when there are no messages on the transmission queue"; heartbeats let the sending end find a
partner that stopped answering without waiting for the next message, and the channel then goes into retry
(IBM's AMQ9259E "Connection timed out"). A batch left in doubt by a partner that stopped is resolved when the
channel starts again (issue 23 item 4): each message delivered once.

The partner "stops answering" for real: its server process is suspended (SIGSTOP) and resumed (SIGCONT).
"""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator
from contextlib import contextmanager

from channel_helpers import QMs, channel_state
from test_ch_modes_stop import chstatus
from test_end_to_end import connect_pair, depth, put_xmit

from waiting import wait_until


@contextmanager
def suspended(qms: QMs, name: str) -> Iterator[None]:
    pid = int(qms.info(name)["pid"])
    os.kill(pid, signal.SIGSTOP)
    try:
        yield
    finally:
        os.kill(pid, signal.SIGCONT)


def test_an_idle_channel_sends_heartbeats_and_a_partner_that_stops_answering_puts_it_in_retry(qms: QMs) -> None:
    connect_pair(qms, extra="HBINT(1) SHORTRTY(1000)")
    put_xmit(qms, [b"one"])
    wait_until(lambda: depth(qms, "QM2", "APP.IN") == 1, "delivered")
    # and confirmed at the sending end (its answer read): else a late answer, not a heartbeat, finds QM2 stopped
    wait_until(lambda: "INDOUBT(NO)" in qms.mqsc("QM1", "DISPLAY CHSTATUS(QM1.TO.QM2) INDOUBT\n"), "confirmed")
    with suspended(qms, "QM2"):
        # nothing to send: only a heartbeat can find that QM2 no longer answers
        wait_until(lambda: channel_state(qms, "QM1", "QM1.TO.QM2") == "RETRYING", "the heartbeat found it")
    # the first failure was the heartbeat's (later attempts may say more: their hello is not answered either)
    assert "AMQ9259E: Connection timed out" in qms.log("QM1")
    wait_until(lambda: channel_state(qms, "QM1", "QM1.TO.QM2") == "RUNNING", "running again once QM2 answers")
    put_xmit(qms, [b"two"])
    wait_until(lambda: depth(qms, "QM2", "APP.IN") == 2, "the next message delivered")


def test_a_batch_sent_to_a_partner_that_stopped_answering_is_resolved_once_when_it_answers_again(qms: QMs) -> None:
    # HBINT(5): the batch, sent at once, is what finds QM2 silent (a reply is awaited 2 x HBINT, 10 s at least)
    connect_pair(qms, extra="HBINT(5) SHORTRTY(1000)")
    put_xmit(qms, [b"first"])
    wait_until(lambda: depth(qms, "QM2", "APP.IN") == 1, "delivered")
    # and confirmed at the sending end: else the first batch's late answer, not the new batch, finds QM2 stopped
    # (the sender then waits on the first batch in doubt and never takes the new one off the transmission queue)
    wait_until(lambda: "INDOUBT(NO)" in qms.mqsc("QM1", "DISPLAY CHSTATUS(QM1.TO.QM2) INDOUBT\n"), "confirmed")
    with suspended(qms, "QM2"):
        put_xmit(qms, [b"b%d" % i for i in range(20)])
        wait_until(lambda: depth(qms, "QM1", "QM2") == 0, "the batch left the transmission queue")
        # the batch waits for an answer that does not come: in doubt, retrying
        wait_until(lambda: channel_state(qms, "QM1", "QM1.TO.QM2") == "RETRYING", "the sender gave up waiting")
        assert chstatus(qms, "QM1", "QM1.TO.QM2", "INDOUBT") == "YES"
        assert depth(qms, "QM1", "QM2") == 0
    wait_until(lambda: depth(qms, "QM2", "APP.IN") == 21, "the batch delivered")
    wait_until(
        lambda: chstatus(qms, "QM1", "QM1.TO.QM2", "INDOUBT") == "NO",
        "resolved",
        detail=lambda: qms.mqsc("QM2", "DISPLAY CHSTATUS(*) ALL\n") + qms.log("QM2")[-4000:],
    )
    qm = qms.connect("QM2")
    q = qm.open("APP.IN")
    got = sorted(q.get(wait=30).data for _ in range(21))
    assert got == sorted([b"first"] + [b"b%d" % i for i in range(20)])  # each once
    assert depth(qms, "QM2", "APP.IN") == 0
