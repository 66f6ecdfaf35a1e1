"""A channel STOPPED by STOP CHANNEL stays STOPPED across endmqm / strmqm until START CHANNEL (issue 33 item 3:
"today its status is gone and a trigger starts it again"). IBM: STOP CHANNEL STATUS(STOPPED) "takes the side that
issued it to STOPPED state"; a STOPPED channel needs an operator's START — the queue manager's restart does not
change that (the channel's status is kept with the queue manager, not in the running process)."""

from __future__ import annotations

import re

from channel_helpers import QMs, channel_state, run
from test_end_to_end import connect_pair, depth, put_xmit

from waiting import wait_until


def test_a_stopped_channel_stays_stopped_after_a_restart_until_start_channel(qms: QMs) -> None:
    connect_pair(qms)
    put_xmit(qms, [b"first"])
    wait_until(lambda: depth(qms, "QM2", "APP.IN") == 1, "the first message across")
    assert "AMQ8019I" in qms.mqsc("QM1", "STOP CHANNEL(QM1.TO.QM2)\n")
    wait_until(lambda: channel_state(qms, "QM1", "QM1.TO.QM2") == "STOPPED", "STOPPED by the operator")

    assert run(qms.home, "endmqm", "-i", "QM1").returncode == 0
    qms.start("QM1")
    # after the restart: still STOPPED, with the operator's reason, and messages put meanwhile wait for START
    status = qms.mqsc("QM1", "DISPLAY CHSTATUS(QM1.TO.QM2) ALL\n")
    assert re.search(r"\bSTATUS\(STOPPED\)", status), status
    assert "AMQ9528I" in status, status
    put_xmit(qms, [b"second"])  # the transmission queue's trigger fires: a STOPPED channel is not started by it
    assert channel_state(qms, "QM1", "QM1.TO.QM2") == "STOPPED"
    assert depth(qms, "QM1", "QM2") == 1 and depth(qms, "QM2", "APP.IN") == 1

    assert "AMQ8018I" in qms.mqsc("QM1", "START CHANNEL(QM1.TO.QM2)\n")
    wait_until(lambda: depth(qms, "QM2", "APP.IN") == 2, "START CHANNEL sends what waited")
    # START is kept too: after another restart the channel is not STOPPED
    assert run(qms.home, "endmqm", "-i", "QM1").returncode == 0
    qms.start("QM1")
    assert channel_state(qms, "QM1", "QM1.TO.QM2") != "STOPPED"


def test_stop_channel_status_inactive_is_not_kept_across_a_restart(qms: QMs) -> None:
    # STATUS(INACTIVE) ends the channel normally: after a restart its trigger starts it as before
    connect_pair(qms)
    put_xmit(qms, [b"first"])
    wait_until(lambda: depth(qms, "QM2", "APP.IN") == 1, "the first message across")
    assert "AMQ8019I" in qms.mqsc("QM1", "STOP CHANNEL(QM1.TO.QM2) STATUS(INACTIVE)\n")
    wait_until(lambda: channel_state(qms, "QM1", "QM1.TO.QM2") == "INACTIVE", "ended normally")
    assert run(qms.home, "endmqm", "-i", "QM1").returncode == 0
    qms.start("QM1")
    put_xmit(qms, [b"second"])
    wait_until(lambda: depth(qms, "QM2", "APP.IN") == 2, "the trigger starts the channel")
