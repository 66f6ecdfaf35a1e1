"""STOP CHANNEL's MODE and STATUS, and the PAUSED state of message retry, as IBM's (issue 23 item 3).

Rules (IBM MQ, "Channel errors" and STOP CHANNEL in the MQSC reference; issue 23 item 3): "A STOP command with
STATUS(STOPPED) takes the side that issued it to STOPPED state; only expiry of the disconnect interval or a STOP
command with STATUS(INACTIVE) makes it end normally and become inactive"; a STOPPED channel needs an operator's
START (a trigger does not start it). MODE(QUIESCE) (the default) lets the current batch finish; MODE(FORCE) and
MODE(TERMINATE) stop at once and may leave the batch in doubt, resolved when the channel next starts.
Message retry (IBM's MQCD MsgRetryCount / MsgRetryInterval, MQSC MRRTY / MRTMR of a receiving channel): a put the
destination refuses with MQRC_Q_FULL or MQRC_PUT_INHIBITED is tried again MRRTY times MRTMR milliseconds apart,
the channel PAUSED meanwhile, before the message goes to the dead-letter queue.
"""

from __future__ import annotations

import re

from channel_helpers import QMs, channel_state
from test_end_to_end import connect_pair, depth, put_xmit

from syncpoint.mqi import MQDLH
from syncpoint.mqi import constants as C
from waiting import wait_until

DLQ = "SYSTEM.DEAD.LETTER.QUEUE"


def chstatus(qms: QMs, qm: str, channel: str, field: str) -> str:
    """One field of DISPLAY CHSTATUS ALL ("" when the channel has no status)."""
    found = re.search(rf"\b{field}\(([^)]*)\)", qms.mqsc(qm, f"DISPLAY CHSTATUS({channel}) ALL\n"))
    return found.group(1) if found else ""


def paused_pair(qms: QMs, mrrty: int = 999_999, mrtmr: int = 200) -> None:
    """QM1 → QM2 with QM2's APP.IN put-inhibited and its receiver retrying each batch MRRTY times."""
    connect_pair(qms)
    out = qms.mqsc(
        "QM2",
        f"ALTER CHANNEL(QM1.TO.QM2) CHLTYPE(RCVR) MRRTY({mrrty}) MRTMR({mrtmr})\nALTER QLOCAL(APP.IN) PUT(DISABLED)\n",
    )
    assert out.count("AMQ8016I") == 1 and "AMQ8008I" in out, out


def test_message_retry_pauses_the_receiving_channel_until_the_queue_takes_the_message(qms: QMs) -> None:
    paused_pair(qms)
    put_xmit(qms, [b"waits"])
    wait_until(lambda: channel_state(qms, "QM2", "QM1.TO.QM2") == "PAUSED", "the receiver PAUSED in message retry")
    assert depth(qms, "QM2", DLQ) == 0  # retried, not dead-lettered
    assert chstatus(qms, "QM1", "QM1.TO.QM2", "INDOUBT") == "YES"  # the batch waits at the sender, in doubt
    qms.mqsc("QM2", "ALTER QLOCAL(APP.IN) PUT(ENABLED)\n")
    wait_until(lambda: depth(qms, "QM2", "APP.IN") == 1, "delivered once the queue takes it")
    wait_until(lambda: channel_state(qms, "QM2", "QM1.TO.QM2") == "RUNNING", "the receiver RUNNING again")
    assert depth(qms, "QM2", DLQ) == 0


def test_message_retry_ends_after_mrrty_attempts_and_the_message_goes_to_the_dead_letter_queue(qms: QMs) -> None:
    paused_pair(qms, mrrty=2, mrtmr=100)
    put_xmit(qms, [b"refused"])
    wait_until(lambda: depth(qms, "QM2", DLQ) == 1, "dead-lettered after MRRTY retries")
    qm = qms.connect("QM2")
    dlh = MQDLH.unpack(qm.open(DLQ).get(wait=30).data[: MQDLH.size()])
    assert dlh.Reason == C.MQRC_PUT_INHIBITED
    assert depth(qms, "QM2", "APP.IN") == 0
    assert channel_state(qms, "QM2", "QM1.TO.QM2") == "RUNNING"


def test_stop_channel_mode_quiesce_lets_the_current_batch_finish(qms: QMs) -> None:
    paused_pair(qms)
    put_xmit(qms, [b"in flight"])
    wait_until(lambda: channel_state(qms, "QM2", "QM1.TO.QM2") == "PAUSED", "the batch waits at the receiver")
    assert "AMQ8019I" in qms.mqsc("QM1", "STOP CHANNEL(QM1.TO.QM2) MODE(QUIESCE)\n")
    assert channel_state(qms, "QM1", "QM1.TO.QM2") == "STOPPING"  # it waits for its batch
    qms.mqsc("QM2", "ALTER QLOCAL(APP.IN) PUT(ENABLED)\n")
    wait_until(lambda: channel_state(qms, "QM1", "QM1.TO.QM2") == "STOPPED", "STOPPED once the batch finished")
    assert chstatus(qms, "QM1", "QM1.TO.QM2", "INDOUBT") == "NO"
    assert "AMQ9528I" in chstatus(qms, "QM1", "QM1.TO.QM2", "STOPREASON")
    assert depth(qms, "QM2", "APP.IN") == 1


def test_stop_channel_mode_force_stops_at_once_and_the_batch_in_doubt_is_resolved_at_the_next_start(
    qms: QMs,
) -> None:
    paused_pair(qms)
    put_xmit(qms, [b"in doubt"])
    wait_until(lambda: channel_state(qms, "QM2", "QM1.TO.QM2") == "PAUSED", "the batch waits at the receiver")
    assert "AMQ8019I" in qms.mqsc("QM1", "STOP CHANNEL(QM1.TO.QM2) MODE(FORCE)\n")
    wait_until(lambda: channel_state(qms, "QM1", "QM1.TO.QM2") == "STOPPED", "STOPPED without the batch finishing")
    assert chstatus(qms, "QM1", "QM1.TO.QM2", "INDOUBT") == "YES"
    # the receiving end, its sender gone, ends: INACTIVE (no status), not STOPPED (IBM: only an error stops it)
    wait_until(lambda: channel_state(qms, "QM2", "QM1.TO.QM2") == "INACTIVE", "the receiver ended")
    assert depth(qms, "QM2", "APP.IN") == 0 and depth(qms, "QM1", "QM2") == 0  # held in the sync record
    qms.mqsc("QM2", "ALTER QLOCAL(APP.IN) PUT(ENABLED)\n")
    assert "AMQ8018I" in qms.mqsc("QM1", "START CHANNEL(QM1.TO.QM2)\n")
    wait_until(lambda: depth(qms, "QM2", "APP.IN") == 1, "the in-doubt batch delivered at the restart")
    wait_until(lambda: chstatus(qms, "QM1", "QM1.TO.QM2", "INDOUBT") == "NO", "no longer in doubt")
    assert depth(qms, "QM2", "APP.IN") == 1  # once


def test_stop_channel_mode_terminate_stops_at_once_too(qms: QMs) -> None:
    paused_pair(qms)
    put_xmit(qms, [b"in doubt"])
    wait_until(lambda: channel_state(qms, "QM2", "QM1.TO.QM2") == "PAUSED", "the batch waits at the receiver")
    assert "AMQ8019I" in qms.mqsc("QM1", "STOP CHANNEL(QM1.TO.QM2) MODE(TERMINATE)\n")
    wait_until(lambda: channel_state(qms, "QM1", "QM1.TO.QM2") == "STOPPED", "STOPPED at once")
    assert chstatus(qms, "QM1", "QM1.TO.QM2", "INDOUBT") == "YES"


def test_stop_channel_status_stopped_needs_start_but_status_inactive_lets_a_trigger_start_it(qms: QMs) -> None:
    connect_pair(qms)
    put_xmit(qms, [b"one"])
    wait_until(lambda: depth(qms, "QM2", "APP.IN") == 1, "delivered")
    # STATUS(INACTIVE): ends normally, no status; the next message's trigger starts it again (seed 001 cond. 6)
    assert "AMQ8019I" in qms.mqsc("QM1", "STOP CHANNEL(QM1.TO.QM2) STATUS(INACTIVE)\n")
    wait_until(lambda: channel_state(qms, "QM1", "QM1.TO.QM2") == "INACTIVE", "INACTIVE")
    put_xmit(qms, [b"two"])
    wait_until(lambda: depth(qms, "QM2", "APP.IN") == 2, "a trigger started the inactive channel")
    # STATUS(STOPPED), the default: a trigger does not start it; START CHANNEL does
    assert "AMQ8019I" in qms.mqsc("QM1", "STOP CHANNEL(QM1.TO.QM2)\n")
    wait_until(lambda: channel_state(qms, "QM1", "QM1.TO.QM2") == "STOPPED", "STOPPED")
    put_xmit(qms, [b"three"])
    # the initiator reads SYSTEM.CHANNEL.INITQ in order: this DISPLAY is answered after the trigger was handled
    assert channel_state(qms, "QM1", "QM1.TO.QM2") == "STOPPED"
    assert depth(qms, "QM1", "QM2") == 1
    assert "AMQ8018I" in qms.mqsc("QM1", "START CHANNEL(QM1.TO.QM2)\n")
    wait_until(lambda: depth(qms, "QM2", "APP.IN") == 3, "START CHANNEL delivered it")


def test_stop_channel_rejects_a_mode_or_status_ibm_does_not_have(qms: QMs) -> None:
    connect_pair(qms)
    out = qms.mqsc("QM1", "STOP CHANNEL(QM1.TO.QM2) MODE(SOON)\n")
    assert "MODE takes QUIESCE or FORCE or TERMINATE" in out, out
    out = qms.mqsc("QM1", "STOP CHANNEL(QM1.TO.QM2) STATUS(RUNNING)\n")
    assert "STATUS takes STOPPED or INACTIVE" in out, out


def test_stop_channel_at_the_receiving_end_makes_the_sender_retry_until_start_channel_there(qms: QMs) -> None:
    # IBM: STOP CHANNEL takes the side that issued it to STOPPED; the partner's sending end goes into retry
    connect_pair(qms, extra="SHORTRTY(1000)")
    put_xmit(qms, [b"one"])
    wait_until(lambda: depth(qms, "QM2", "APP.IN") == 1, "delivered")
    assert "AMQ8019I" in qms.mqsc("QM2", "STOP CHANNEL(QM1.TO.QM2)\n")
    assert channel_state(qms, "QM2", "QM1.TO.QM2") == "STOPPED"
    assert "AMQ9528I" in chstatus(qms, "QM2", "QM1.TO.QM2", "STOPREASON")
    put_xmit(qms, [b"two"])
    wait_until(lambda: channel_state(qms, "QM1", "QM1.TO.QM2") == "RETRYING", "the sender retries")
    assert depth(qms, "QM2", "APP.IN") == 1  # refused while STOPPED there
    assert "AMQ8018I" in qms.mqsc("QM2", "START CHANNEL(QM1.TO.QM2)\n")
    wait_until(lambda: depth(qms, "QM2", "APP.IN") == 2, "delivered once the receiving end runs again")
    wait_until(lambda: channel_state(qms, "QM1", "QM1.TO.QM2") == "RUNNING", "the sender RUNNING again")
