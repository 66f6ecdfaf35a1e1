"""Create / Inquire / Delete Queue with MQQT_REMOTE in the PCF command server (issue 23, item 1: the QREMOTE
definitions an administrator makes with IBM's PCF as well as with MQSC)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from syncpoint.client import QueueManager
from syncpoint.mqi import constants as C
from syncpoint.pcf import MQCFH, MQCFIN, MQCFST, CommandServer, build, parse
from syncpoint.pcf import constants as K

REMOTE = MQCFIN(C.MQIA_Q_TYPE, C.MQQT_REMOTE)


@pytest.fixture
def server(connect: Callable[..., QueueManager]) -> CommandServer:
    s = CommandServer(lambda: connect(appl_name="amqpcsea"))
    s.qm = connect(appl_name="amqpcsea")
    return s


def ok(server: CommandServer, command: int, params: list) -> list[dict[int, object]]:
    out = []
    for raw in server.execute(build(MQCFH(Command=command, Type=K.MQCFT_COMMAND_XR, Version=3), params)):
        cfh, ps = parse(raw)
        assert (cfh.CompCode, cfh.Reason) == (0, 0)
        out.append({p.Parameter: p for p in ps})
    return out


def test_create_inquire_delete_remote_queue(server: CommandServer, qm: QueueManager) -> None:
    name = MQCFST(C.MQCA_Q_NAME, b"TO.QM2")
    ok(
        server,
        K.MQCMD_CREATE_Q,
        [name, REMOTE, MQCFST(C.MQCA_REMOTE_Q_NAME, b"APP.IN"), MQCFST(C.MQCA_REMOTE_Q_MGR_NAME, b"QM2")],
    )
    d = qm.admin("lookup", "QREMOTE", "TO.QM2")
    assert d is not None and (d.attrs["RNAME"], d.attrs["RQMNAME"]) == ("APP.IN", "QM2")
    (p,) = ok(server, K.MQCMD_INQUIRE_Q, [name, REMOTE])
    assert p[C.MQIA_Q_TYPE].Value == C.MQQT_REMOTE
    assert p[C.MQCA_REMOTE_Q_NAME].String.rstrip() == b"APP.IN"
    assert p[C.MQCA_REMOTE_Q_MGR_NAME].String.rstrip() == b"QM2"
    ok(server, K.MQCMD_DELETE_Q, [name, REMOTE])
    assert qm.admin("lookup", "QREMOTE", "TO.QM2") is None
