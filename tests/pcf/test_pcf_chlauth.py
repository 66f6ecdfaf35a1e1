"""PCF Set Channel Authentication Record (203) and Inquire Channel Authentication Records (204), and Inquire
Channel of a SVRCONN channel, with IBM's parameter ids and values (cmqcfc.h: MQIACF_CHLAUTH_TYPE, MQCAUT_*,
MQIACF_ACTION, MQACT_*, MQIACH_USER_SOURCE, MQUSRC_*, MQIACH_MATCH, MQMATCH_* …; issue 35 item 5). On an embedded
queue manager; the records' effect on connections is tests/server/test_svrconn.py."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from test_command_server import error, ok

from syncpoint.client import QueueManager
from syncpoint.mqsc import MqscProcessor
from syncpoint.pcf import MQCFIN, MQCFSL, MQCFST, CommandServer
from syncpoint.pcf import constants as K

SET, INQUIRE = 203, 204  # MQCMD_SET_CHLAUTH_REC, MQCMD_INQUIRE_CHLAUTH_RECS
CHLAUTH_TYPE, ACTION, USER_SOURCE, MATCH = 1352, 1086, 1638, 1637
CLIENT_USER_ID, USER_ID_LIST, CONNECTION_NAME_LIST = 3567, 3568, 3566
MQCAUT_BLOCKADDR, MQCAUT_ADDRESSMAP, MQCAUT_USERMAP = 2, 4, 5
MQACT_REMOVE = 7
MQUSRC_MAP = 0
MQMATCH_RUNCHECK, MQMATCH_EXACT = 1, 2


@pytest.fixture
def server(connect: Callable[..., QueueManager]) -> CommandServer:
    s = CommandServer(lambda: connect(appl_name="amqpcsea"))
    s.qm = connect(appl_name="amqpcsea")
    return s


def text(p: Any) -> str:
    assert isinstance(p, MQCFST), p
    return p.String.decode().rstrip()


def test_set_and_inquire_records_with_ibms_parameters(server: CommandServer) -> None:
    usermap = [
        MQCFST(K.MQCACH_CHANNEL_NAME, b"APP.*"),
        MQCFIN(CHLAUTH_TYPE, MQCAUT_USERMAP),
        MQCFST(CLIENT_USER_ID, b"bob"),
        MQCFIN(USER_SOURCE, MQUSRC_MAP),
        MQCFST(K.MQCACH_MCA_USER_ID, b"alice"),
    ]
    assert ok(server, SET, usermap) == [{}]  # one response, no parameters
    blockaddr = [MQCFST(K.MQCACH_CHANNEL_NAME, b"*"), MQCFIN(CHLAUTH_TYPE, MQCAUT_BLOCKADDR)]
    assert ok(server, SET, [*blockaddr, MQCFSL(CONNECTION_NAME_LIST, [b"10.*", b"192.0.2.1"])]) == [{}]
    (rec,) = ok(server, INQUIRE, [MQCFST(K.MQCACH_CHANNEL_NAME, b"APP.*"), MQCFIN(MATCH, MQMATCH_EXACT)])
    assert rec[CHLAUTH_TYPE].Value == MQCAUT_USERMAP and text(rec[CLIENT_USER_ID]) == "bob"
    assert text(rec[K.MQCACH_MCA_USER_ID]) == "alice" and rec[USER_SOURCE].Value == MQUSRC_MAP
    (block,) = ok(server, INQUIRE, [MQCFST(K.MQCACH_CHANNEL_NAME, b"*"), MQCFIN(CHLAUTH_TYPE, MQCAUT_BLOCKADDR)])
    assert [s.decode().rstrip() for s in block[CONNECTION_NAME_LIST].Strings] == ["10.*", "192.0.2.1"]
    # RUNCHECK: bob on APP.SVRCONN meets the USERMAP record
    (met,) = ok(
        server,
        INQUIRE,
        [
            MQCFST(K.MQCACH_CHANNEL_NAME, b"APP.SVRCONN"),
            MQCFIN(MATCH, MQMATCH_RUNCHECK),
            MQCFST(K.MQCACH_CONNECTION_NAME, b"192.0.2.9"),
            MQCFST(CLIENT_USER_ID, b"bob"),
        ],
    )
    assert met[CHLAUTH_TYPE].Value == MQCAUT_USERMAP
    # REMOVE, then it is gone: a second REMOVE fails and changes nothing
    assert ok(server, SET, [*usermap[:3], MQCFIN(ACTION, MQACT_REMOVE)]) == [{}]
    assert error(server, SET, [*usermap[:3], MQCFIN(ACTION, MQACT_REMOVE)])[0] == 2085  # MQRC_UNKNOWN_OBJECT_NAME


def test_a_bad_address_is_refused_and_nothing_is_stored(server: CommandServer) -> None:
    before = server.qm.admin("chlauth_records", "*", "ALL", "ALL")
    bad = [
        MQCFST(K.MQCACH_CHANNEL_NAME, b"APP.*"),
        MQCFIN(CHLAUTH_TYPE, MQCAUT_ADDRESSMAP),
        MQCFST(K.MQCACH_CONNECTION_NAME, b"10.1.2.999"),
        MQCFIN(USER_SOURCE, 2),
    ]
    assert error(server, SET, bad)[0] == 2195  # the engine's refusal (AMQ8887E in its text)
    assert server.qm.admin("chlauth_records", "*", "ALL", "ALL") == before


def test_inquire_channel_shows_a_svrconn_channels_attributes(server: CommandServer) -> None:
    p = MqscProcessor(server.qm)
    assert p.execute("DEFINE CHANNEL(APP.SVRCONN) CHLTYPE(SVRCONN) MCAUSER('app') MAXINST(7) MAXINSTC(2)").ok
    (chl,) = ok(server, K.MQCMD_INQUIRE_CHANNEL, [MQCFST(K.MQCACH_CHANNEL_NAME, b"APP.SVRCONN")])
    assert chl[K.MQIACH_CHANNEL_TYPE].Value == K.MQCHT_SVRCONN and text(chl[K.MQCACH_MCA_USER_ID]) == "app"
    assert (chl[K.MQIACH_MAX_INSTANCES].Value, chl[K.MQIACH_MAX_INSTS_PER_CLIENT].Value) == (7, 2)
    assert chl[K.MQIACH_SHARING_CONVERSATIONS].Value == 10  # IBM's default SHARECNV
