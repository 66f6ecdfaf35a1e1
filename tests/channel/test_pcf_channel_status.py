"""PCF Inquire Channel Status answers as IBM's and agrees with DISPLAY CHSTATUS (issue 33 item 2; IBM MQ "Inquire
Channel Status", cmqcfc.h): a real server's channel initiator, a sending channel retrying a refused connect."""

from __future__ import annotations

import re
from typing import Any

from channel_helpers import QMs, unused_port

import syncpoint
from syncpoint.mqi import constants as C
from syncpoint.mqsc import MqscProcessor
from syncpoint.pcf import MQCFH, MQCFIL, MQCFIN, MQCFST, CommandServer, build, parse
from syncpoint.pcf import constants as K
from waiting import wait_until


def text(p: Any) -> str:
    assert isinstance(p, MQCFST), p
    return p.String.decode().rstrip()


def run(server: CommandServer, command: int, params: list[Any]) -> list[tuple[MQCFH, dict[int, Any]]]:
    out = []
    for raw in server.execute(build(MQCFH(Command=command, Type=K.MQCFT_COMMAND_XR, Version=3), params)):
        cfh, ps = parse(raw)
        out.append((cfh, {p.Parameter: p for p in ps}))
    return out


def ok(server: CommandServer, command: int, params: list[Any]) -> list[dict[int, Any]]:
    replies = run(server, command, params)
    assert all((cfh.CompCode, cfh.Reason) == (0, 0) for cfh, _ in replies), replies
    return [p for _, p in replies]


def error(server: CommandServer, command: int, params: list[Any]) -> tuple[int, int]:
    ((cfh, ps),) = run(server, command, params)
    assert cfh.CompCode == C.MQCC_FAILED
    pid = ps.get(K.MQIACF_PARAMETER_ID)
    return cfh.Reason, pid.Value if isinstance(pid, MQCFIN) else 0


def test_inquire_channel_status_agrees_with_display_chstatus(qms: QMs) -> None:
    qms.create("QM1")
    qms.start("QM1")
    qm = qms.connect("QM1")
    p = MqscProcessor(qm)
    assert p.execute("DEFINE QLOCAL(QM2) USAGE(XMITQ)").ok
    conname = f"127.0.0.1({unused_port()})"  # refused: the channel retries
    assert p.execute(f"DEFINE CHANNEL(TO.QM2) CHLTYPE(SDR) CONNAME('{conname}') XMITQ(QM2) SHORTRTY(3)").ok
    assert p.execute("START CHANNEL(TO.QM2)").ok

    def shown() -> dict[str, str]:
        lines = " ".join(p.execute("DISPLAY CHSTATUS(TO.QM2) ALL").lines)
        return dict(re.findall(r"(\w+)\(([^)]*)\)", lines))

    wait_until(lambda: shown().get("STATUS") == "RETRYING", "the channel retrying")
    server = CommandServer(lambda: syncpoint.connect("QM1", home=qms.home))
    server.qm = syncpoint.connect("QM1", home=qms.home)
    (row,) = ok(server, K.MQCMD_INQUIRE_CHANNEL_STATUS, [MQCFST(K.MQCACH_CHANNEL_NAME, b"TO.*")])
    mqsc = shown()
    assert text(row[K.MQCACH_CHANNEL_NAME]) == "TO.QM2" and row[K.MQIACH_CHANNEL_TYPE].Value == 1
    assert row[K.MQIACH_CHANNEL_INSTANCE_TYPE].Value == K.MQOT_CURRENT_CHANNEL
    assert row[K.MQIACH_CHANNEL_STATUS].Value == C.MQCHS_RETRYING
    assert text(row[K.MQCACH_CONNECTION_NAME]) == conname and text(row[K.MQCACH_XMIT_Q_NAME]) == "QM2"
    assert row[K.MQIACH_SHORT_RETRIES_LEFT].Value == int(mqsc["SHORTRTS"]) <= 3
    assert row[K.MQIACH_LONG_RETRIES_LEFT].Value == int(mqsc["LONGRTS"])
    assert text(row[K.MQCACH_LAST_LUWID]) == mqsc["LSTLUWID"] == "0" * 16
    assert row[K.MQIACH_INDOUBT_STATUS].Value == K.MQCHIDS_NOT_INDOUBT
    assert (text(row[K.MQCACH_CHANNEL_START_DATE]), text(row[K.MQCACH_CHANNEL_START_TIME])) == (
        mqsc["CHSTADA"],
        mqsc["CHSTATI"],
    )
    # only the attributes asked for, beside those IBM always returns
    (some,) = ok(
        server,
        K.MQCMD_INQUIRE_CHANNEL_STATUS,
        [MQCFST(K.MQCACH_CHANNEL_NAME, b"TO.QM2"), MQCFIL(K.MQIACH_CHANNEL_INSTANCE_ATTRS, [K.MQIACH_MSGS])],
    )
    assert K.MQIACH_MSGS in some and K.MQIACH_BATCHES not in some and K.MQIACH_CHANNEL_TYPE in some
    missing = [MQCFST(K.MQCACH_CHANNEL_NAME, b"NOPE")]
    assert error(server, K.MQCMD_INQUIRE_CHANNEL_STATUS, missing)[0] == K.MQRCCF_CHL_STATUS_NOT_FOUND
    bad = [MQCFST(K.MQCACH_CHANNEL_NAME, b"*"), MQCFIN(K.MQIACH_CHANNEL_INSTANCE_TYPE, C.MQOT_Q)]
    assert error(server, K.MQCMD_INQUIRE_CHANNEL_STATUS, bad) == (
        K.MQRCCF_CHL_INST_TYPE_ERROR,
        K.MQIACH_CHANNEL_INSTANCE_TYPE,
    )
    assert p.execute("STOP CHANNEL(TO.QM2)").ok
    server.qm.disconnect()
    qm.disconnect()
