"""Operating channels (issue 23 item 3): DISCINT ends an idle channel and the next message starts it again,
PING CHANNEL, STOP CHANNEL and runmqchl."""

from __future__ import annotations

import os
import subprocess

from channel_helpers import SYNCPOINT, QMs, channel_state
from test_end_to_end import connect_pair, depth, put_xmit

from waiting import wait_until


def test_discint_ends_an_idle_channel_and_the_next_message_triggers_it_again(qms: QMs) -> None:
    connect_pair(qms, extra="DISCINT(1)")
    put_xmit(qms, [b"one"])
    wait_until(lambda: depth(qms, "QM2", "APP.IN") == 1, "the first message delivered")
    # DISCINT(1): a second without a message ends the channel normally: no status (INACTIVE)
    wait_until(lambda: channel_state(qms, "QM1", "QM1.TO.QM2") == "INACTIVE", "the channel ended after DISCINT")
    put_xmit(qms, [b"two"])  # seed 001 condition 6 again: the transmission queue triggers its channel
    wait_until(lambda: depth(qms, "QM2", "APP.IN") == 2, "the second message delivered by a new start")


def test_ping_stop_and_runmqchl(qms: QMs) -> None:
    connect_pair(qms)
    assert "AMQ8020I" in qms.mqsc("QM1", "PING CHANNEL(QM1.TO.QM2)\n")
    qms.mqsc("QM2", "DELETE CHANNEL(QM1.TO.QM2)\n")
    assert "AMQ9520E" in qms.mqsc("QM1", "PING CHANNEL(QM1.TO.QM2)\n")  # not defined remotely
    qms.mqsc("QM2", "DEFINE CHANNEL(QM1.TO.QM2) CHLTYPE(RCVR)\n")
    assert "AMQ9533E" in qms.mqsc("QM1", "STOP CHANNEL(QM1.TO.QM2)\n")  # not running
    env = dict(os.environ, SYNCPOINT_HOME=str(qms.home))
    qms.mqsc("QM1", "ALTER CHANNEL(QM1.TO.QM2) CHLTYPE(SDR) DISCINT(1)\nALTER QLOCAL(QM2) NOTRIGGER\n")
    put_xmit(qms, [b"via runmqchl"])
    r = subprocess.run(
        [SYNCPOINT, "runmqchl", "-c", "QM1.TO.QM2", "-m", "QM1"], env=env, capture_output=True, text=True, timeout=120
    )
    assert r.returncode == 0, r.stdout + r.stderr
    assert "ended normally" in r.stdout
    assert depth(qms, "QM2", "APP.IN") == 1
    lsr = subprocess.run([SYNCPOINT, "runmqlsr", "-m", "QM2"], env=env, capture_output=True, text=True)
    assert f"TCP port {qms.port('QM2')}" in lsr.stdout


def test_a_controlled_end_of_the_receiver_does_not_wait_for_its_running_channel(qms: QMs) -> None:
    # IBM: endmqm -c ends the queue manager's channels; it waits for applications, not for channels
    from channel_helpers import run

    connect_pair(qms)
    put_xmit(qms, [b"one"])
    wait_until(lambda: depth(qms, "QM2", "APP.IN") == 1, "delivered")
    assert channel_state(qms, "QM2", "QM1.TO.QM2") == "RUNNING"
    r = run(qms.home, "endmqm", "-c", "QM2", timeout=60)
    assert r.returncode == 0, r.stdout + r.stderr
    put_xmit(qms, [b"two"])  # the sender finds its receiver gone when it next sends, and retries
    wait_until(lambda: channel_state(qms, "QM1", "QM1.TO.QM2") == "RETRYING", "the sender retries")
