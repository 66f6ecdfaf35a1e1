"""PCF Inquire Channel, Inquire Channel Names and Inquire Channel Status answer as IBM's (issue 33 item 2: "today
3007", MQRCCF_CFH_COMMAND_ERROR), with IBM's parameter ids and types (cmqcfc.h; IBM MQ "Inquire Channel",
"Inquire Channel Names", "Inquire Channel Status"). Definitions on an embedded queue manager; the status from a
real server's channel initiator is tests/channel/test_pcf_channel_status.py."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from test_command_server import error, ok

from syncpoint.client import QueueManager
from syncpoint.mqsc import MqscProcessor
from syncpoint.pcf import MQCFIL, MQCFIN, MQCFSL, MQCFST, CommandServer
from syncpoint.pcf import constants as K


@pytest.fixture
def server(connect: Callable[..., QueueManager]) -> CommandServer:
    s = CommandServer(lambda: connect(appl_name="amqpcsea"))
    s.qm = connect(appl_name="amqpcsea")
    return s


def text(p: Any) -> str:
    assert isinstance(p, MQCFST), p
    return p.String.decode().rstrip()


def define_channels(qm: Any) -> None:
    p = MqscProcessor(qm)
    for line in (
        "DEFINE QLOCAL(QM2) USAGE(XMITQ)",
        "DEFINE CHANNEL(QM1.TO.QM2) CHLTYPE(SDR) CONNAME('host2(1414)') XMITQ(QM2) BATCHSZ(20) DESCR('to two')",
        "DEFINE CHANNEL(QM2.TO.QM1) CHLTYPE(RCVR) MCAUSER('app')",
    ):
        assert p.execute(line).ok, line


def test_inquire_channel_returns_each_definition_with_ibms_selectors(server: CommandServer) -> None:
    define_channels(server.qm)
    (sdr,) = ok(server, K.MQCMD_INQUIRE_CHANNEL, [MQCFST(K.MQCACH_CHANNEL_NAME, b"QM1.TO.QM2")])
    assert text(sdr[K.MQCACH_CHANNEL_NAME]) == "QM1.TO.QM2"
    assert sdr[K.MQIACH_CHANNEL_TYPE].Value == 1  # MQCHT_SENDER
    assert text(sdr[K.MQCACH_CONNECTION_NAME]) == "host2(1414)" and text(sdr[K.MQCACH_XMIT_Q_NAME]) == "QM2"
    assert (sdr[K.MQIACH_BATCH_SIZE].Value, text(sdr[K.MQCACH_DESC])) == (20, "to two")
    assert sdr[K.MQIACH_XMIT_PROTOCOL_TYPE].Value == 2  # MQXPT_TCP
    assert sdr[K.MQIACH_SHORT_RETRY].Value == 10 and sdr[K.MQIACH_HB_INTERVAL].Value == 300
    # generic, with ChannelType, and only the attributes asked for (name and type always)
    rows = ok(
        server,
        K.MQCMD_INQUIRE_CHANNEL,
        [
            MQCFST(K.MQCACH_CHANNEL_NAME, b"QM*"),
            MQCFIN(K.MQIACH_CHANNEL_TYPE, 3),
            MQCFIL(K.MQIACF_CHANNEL_ATTRS, [K.MQCACH_MCA_USER_ID]),
        ],
    )
    assert [sorted(r) for r in rows] == [sorted([K.MQCACH_CHANNEL_NAME, K.MQIACH_CHANNEL_TYPE, K.MQCACH_MCA_USER_ID])]
    assert text(rows[0][K.MQCACH_MCA_USER_ID]) == "app"


def test_inquire_channel_names_lists_the_names_of_the_type_asked(server: CommandServer) -> None:
    define_channels(server.qm)
    (all_,) = ok(server, K.MQCMD_INQUIRE_CHANNEL_NAMES, [MQCFST(K.MQCACH_CHANNEL_NAME, b"*")])
    names = all_[K.MQCACH_CHANNEL_NAMES]
    assert isinstance(names, MQCFSL) and names.StringLength == 20
    # with IBM's server-connection channels of a new queue manager
    assert [s.decode().rstrip() for s in names.Strings] == [
        "QM1.TO.QM2",
        "QM2.TO.QM1",
        "SYSTEM.ADMIN.SVRCONN",
        "SYSTEM.DEF.SVRCONN",
    ]
    (rcvr,) = ok(
        server,
        K.MQCMD_INQUIRE_CHANNEL_NAMES,
        [MQCFST(K.MQCACH_CHANNEL_NAME, b"*"), MQCFIN(K.MQIACH_CHANNEL_TYPE, 3)],
    )
    assert [s.decode().rstrip() for s in rcvr[K.MQCACH_CHANNEL_NAMES].Strings] == ["QM2.TO.QM1"]


def test_inquire_channel_bad_input_gets_ibms_reasons(server: CommandServer) -> None:
    define_channels(server.qm)
    name = MQCFST(K.MQCACH_CHANNEL_NAME, b"NOPE")
    assert error(server, K.MQCMD_INQUIRE_CHANNEL, [name]) == (K.MQRCCF_CHANNEL_NOT_FOUND, K.MQCACH_CHANNEL_NAME)
    bad_type = [MQCFST(K.MQCACH_CHANNEL_NAME, b"*"), MQCFIN(K.MQIACH_CHANNEL_TYPE, 99)]
    assert error(server, K.MQCMD_INQUIRE_CHANNEL, bad_type) == (K.MQRCCF_CHANNEL_TYPE_ERROR, K.MQIACH_CHANNEL_TYPE)
    assert error(server, K.MQCMD_INQUIRE_CHANNEL, [])[0] == K.MQRCCF_PARM_MISSING
    # no channel initiator runs in an embedded queue manager: said at once, not waited for
    status = [MQCFST(K.MQCACH_CHANNEL_NAME, b"*")]
    assert error(server, K.MQCMD_INQUIRE_CHANNEL_STATUS, status)[0] == K.MQRCCF_NO_CHANNEL_INITIATOR
