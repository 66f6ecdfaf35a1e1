"""The error log tells the channel's story (issue 33 item 4: "channel start, stop, retry, refusal (AMQ9520E,
AMQ9558E, AMQ9202E for a refused TCP connect as IBM words it) … write an entry in errors/AMQERR01.LOG in IBM's
layout, with IBM's message numbers"). IBM's texts: "AMQ9002I: Channel 'X' is starting.", "AMQ9202E: Remote host
'h (p)' not available, retry later.", "AMQ9520E: Channel not defined remotely.", "AMQ9528I: User requested
closedown of channel 'X'."."""

from __future__ import annotations

import re

from channel_helpers import QMs, channel_state, unused_port
from test_end_to_end import depth, put_xmit

from waiting import wait_until


def error_log(qms: QMs, qm: str) -> str:
    path = qms.home / "qmgrs" / qm / "errors" / "AMQERR01.LOG"
    return path.read_text() if path.exists() else ""


def entries(text: str, message_id: str) -> list[str]:
    """The entries of ``message_id``, each from its message line to the entry's end (IBM's separator)."""
    return re.findall(rf"^{message_id}: .*?^-{{79}}$", text, flags=re.M | re.S)


def test_a_refused_tcp_connect_is_amq9202e_each_retry_and_stop_channel_is_amq9528i(qms: QMs) -> None:
    port = unused_port()  # a port nobody listens on
    qms.create("QM1")
    qms.start("QM1")
    qms.mqsc(
        "QM1",
        "DEFINE QLOCAL(QM2) USAGE(XMITQ)\n"
        f"DEFINE CHANNEL(QM1.TO.QM2) CHLTYPE(SDR) CONNAME('127.0.0.1({port})') XMITQ(QM2) SHORTRTY(2) SHORTTMR(1)\n",
    )
    assert "AMQ8018I" in qms.mqsc("QM1", "START CHANNEL(QM1.TO.QM2)\n")
    wait_until(lambda: len(entries(error_log(qms, "QM1"), "AMQ9202E")) >= 2, "two refused connects in the error log")
    log = error_log(qms, "QM1")
    starting = entries(log, "AMQ9002I")
    assert len(starting) == 1 and "Channel 'QM1.TO.QM2' is starting." in starting[0]
    refused = entries(log, "AMQ9202E")[0]
    assert f"Remote host '127.0.0.1 ({port})' not available, retry later." in refused
    assert "EXPLANATION:" in refused and "ACTION:" in refused  # IBM's layout
    # the entry's header as IBM's: date and time, Process(…), QMgr(QM1)
    assert re.search(r"^\d\d/\d\d/\d{4} \d\d:\d\d:\d\d [AP]M - Process\(", log, flags=re.M)
    assert "QMgr(QM1)" in log
    assert "AMQ8019I" in qms.mqsc("QM1", "STOP CHANNEL(QM1.TO.QM2)\n")
    wait_until(lambda: channel_state(qms, "QM1", "QM1.TO.QM2") == "STOPPED", "STOPPED")
    wait_until(lambda: entries(error_log(qms, "QM1"), "AMQ9528I"), "AMQ9528I in the error log")
    assert "User requested closedown of channel 'QM1.TO.QM2'." in entries(error_log(qms, "QM1"), "AMQ9528I")[0]


def test_a_channel_the_partner_does_not_define_is_amq9520e_in_the_senders_error_log(qms: QMs) -> None:
    for name in ("QM1", "QM2"):
        qms.create(name)
        qms.start(name)
    qms.mqsc(
        "QM1",
        "DEFINE QLOCAL(QM2) USAGE(XMITQ)\n"
        f"DEFINE CHANNEL(QM1.TO.QM2) CHLTYPE(SDR) CONNAME('{qms.conname('QM2')}') XMITQ(QM2)\n",
    )
    put_xmit(qms, [b"nowhere"])
    assert "AMQ8018I" in qms.mqsc("QM1", "START CHANNEL(QM1.TO.QM2)\n")
    wait_until(lambda: entries(error_log(qms, "QM1"), "AMQ9520E"), "AMQ9520E in QM1's error log")
    assert "QM1.TO.QM2" in entries(error_log(qms, "QM1"), "AMQ9520E")[0]
    wait_until(lambda: channel_state(qms, "QM1", "QM1.TO.QM2") == "STOPPED", "the channel stops")
    assert depth(qms, "QM1", "QM2") == 1  # nothing lost
