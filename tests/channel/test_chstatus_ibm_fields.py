"""DISPLAY CHSTATUS as IBM shows it (issue 33 item 2): LSTMSGDA / LSTMSGTI as IBM's date and time, both selectable
by name; SHORTRTS / LONGRTS counting the retries left (never above SHORTRTY / LONGRTY); LSTLUWID in IBM's form.

IBM (DISPLAY CHSTATUS): "LSTMSGDA: Date when the last message was sent … (yyyy-mm-dd)", "LSTMSGTI: Time …
(hh.mm.ss)", "SHORTRTS: Number of short retry start attempts remaining", "LONGRTS: Number of long retry start
attempts remaining", "LSTLUWID: The logical unit of work identifier associated with the last committed batch"
(16 hexadecimal digits).
"""

from __future__ import annotations

import re

from channel_helpers import QMs, channel_state, unused_port
from test_end_to_end import connect_pair, depth, put_xmit

from waiting import wait_until


def fields(text: str) -> dict[str, str]:
    return dict(re.findall(r"\b([A-Z]+)\(([^)]*)\)", text))


def test_retries_left_count_down_shortrts_first_and_never_exceed_shortrty_and_longrty(qms: QMs) -> None:
    port = unused_port()  # a port nobody listens on
    qms.create("QM1")
    qms.start("QM1")
    qms.mqsc(
        "QM1",
        "DEFINE QLOCAL(QM2) USAGE(XMITQ)\n"
        f"DEFINE CHANNEL(QM1.TO.QM2) CHLTYPE(SDR) CONNAME('127.0.0.1({port})') XMITQ(QM2) SHORTRTY(3) "
        "SHORTTMR(1) LONGRTY(2) LONGTMR(1)\n",
    )
    assert "AMQ8018I" in qms.mqsc("QM1", "START CHANNEL(QM1.TO.QM2)\n")
    seen: list[tuple[int, int]] = []

    def retries() -> bool:
        shown = fields(qms.mqsc("QM1", "DISPLAY CHSTATUS(QM1.TO.QM2) STATUS SHORTRTS LONGRTS\n"))
        if "SHORTRTS" in shown:
            seen.append((int(shown["SHORTRTS"]), int(shown["LONGRTS"])))
        return shown.get("STATUS") == "STOPPED"

    wait_until(retries, "the channel stops when its retries are spent")
    assert seen, "DISPLAY CHSTATUS showed no SHORTRTS"
    assert all(short <= 3 and long_ <= 2 for short, long_ in seen), seen
    # the long retries are spent only once the short ones are: never a long one gone while short ones are left
    assert all(long_ == 2 for short, long_ in seen if short > 0), seen
    assert seen[-1] == (0, 0), seen
    assert seen == sorted(seen, reverse=True), seen  # counting down


def test_last_message_date_and_time_and_luwid_are_ibms_forms(qms: QMs) -> None:
    connect_pair(qms)
    put_xmit(qms, [b"one", b"two"])
    wait_until(lambda: depth(qms, "QM2", "APP.IN") == 2, "two messages on QM2")
    for qm in ("QM1", "QM2"):
        shown = fields(qms.mqsc(qm, "DISPLAY CHSTATUS(QM1.TO.QM2) ALL\n"))
        assert re.fullmatch(r"\d{4}-\d\d-\d\d", shown["LSTMSGDA"]), (qm, shown)
        assert re.fullmatch(r"\d\d\.\d\d\.\d\d", shown["LSTMSGTI"]), (qm, shown)
        assert re.fullmatch(r"\d{4}-\d\d-\d\d", shown["CHSTADA"]) and re.fullmatch(
            r"\d\d\.\d\d\.\d\d", shown["CHSTATI"]
        )
        assert re.fullmatch(r"[0-9A-F]{16}", shown["LSTLUWID"]) and shown["LSTLUWID"] != "0" * 16, (qm, shown)
    # both ends name the same last unit of work
    assert (
        fields(qms.mqsc("QM1", "DISPLAY CHSTATUS(QM1.TO.QM2) LSTLUWID\n"))["LSTLUWID"]
        == fields(qms.mqsc("QM2", "DISPLAY CHSTATUS(QM1.TO.QM2) LSTLUWID\n"))["LSTLUWID"]
    )
    # selectable by name: only what was asked for (and IBM's identity) is shown
    picked = fields(qms.mqsc("QM1", "DISPLAY CHSTATUS(QM1.TO.QM2) LSTMSGDA LSTMSGTI\n"))
    assert {"LSTMSGDA", "LSTMSGTI"} <= set(picked) and "MSGS" not in picked
    assert channel_state(qms, "QM1", "QM1.TO.QM2") == "RUNNING"
