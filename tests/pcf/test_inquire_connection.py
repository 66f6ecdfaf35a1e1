"""PCF Inquire Connection (issue 34, item 4), as IBM's command server answers it (pcf/_connection.py).

Rules: IBM's PCF "Inquire Connection" (GenericConnectionId of zero length for every connection, ConnectionId of 24
bytes, ConnInfoType CONN / HANDLE / ALL, ConnectionAttrs, a filter) and its response; ibmmq 2.1.2's test_pcf.py
(test_mqcfbs: a filter on MQIA_APPL_TYPE equal to MQAT_USER finds the test's own connection).
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

import syncpoint
from syncpoint.client import QueueManager, memory_queue_manager
from syncpoint.mqi import constants as C
from syncpoint.mqsc import MqscProcessor
from syncpoint.pcf import MQCFBF, MQCFBS, MQCFH, MQCFIF, MQCFIL, MQCFIN, CommandServer, Param, build, parse
from syncpoint.pcf import constants as K


@pytest.fixture
def qm() -> Iterator[QueueManager]:
    e = memory_queue_manager("QM1")
    c = syncpoint.connect("QM1", embedded=e, appl_name="amqpcsea")
    c.admin("define", "QLOCAL", "APP.Q")
    yield c
    e.close()


@pytest.fixture
def server(qm: QueueManager) -> CommandServer:
    s = CommandServer(lambda: qm)
    s.qm = qm
    return s


def run(server: CommandServer, params: list[Param]) -> tuple[list[MQCFH], list[dict[int, Param]]]:
    cfhs, bodies = [], []
    for raw in server.execute(build(MQCFH(Command=K.MQCMD_INQUIRE_CONNECTION, Type=K.MQCFT_COMMAND_XR), params)):
        cfh, ps = parse(raw)
        cfhs.append(cfh)
        bodies.append({p.Parameter: p for p in ps})
    return cfhs, bodies


def every(*more: Param) -> list[Param]:
    return [MQCFBS(K.MQBACF_GENERIC_CONNECTION_ID, b""), *more]


def test_every_connection_is_listed_with_its_id_and_application(server: CommandServer, qm: QueueManager) -> None:
    app = syncpoint.connect("QM1", embedded=qm.transport.qm, appl_name="orders.py")  # type: ignore[attr-defined]
    cfhs, bodies = run(server, every(MQCFIL(K.MQIACF_CONNECTION_ATTRS, [K.MQIACF_ALL])))
    assert all(c.CompCode == 0 for c in cfhs)
    tags = {b[K.MQCACF_APPL_TAG].String.strip(): b for b in bodies}
    assert set(tags) == {b"amqpcsea", b"orders.py"}
    for b in bodies:
        assert len(b[K.MQBACF_CONNECTION_ID].String) == 24
        assert b[K.MQIACF_CONN_INFO_TYPE].Value == K.MQIACF_CONN_INFO_CONN
        assert b[C.MQIA_APPL_TYPE].Value == C.MQAT_USER
    app.disconnect()


def test_a_filter_on_the_application_type_and_a_byte_string_filter_on_the_id(server: CommandServer) -> None:
    # ibmmq's test_mqcfbs: MQIA_APPL_TYPE equal to MQAT_USER finds at least the asking connection
    _, users = run(server, every(MQCFIF(C.MQIA_APPL_TYPE, K.MQCFOP_EQUAL, C.MQAT_USER)))
    assert users and all(b[C.MQIA_APPL_TYPE].Value == C.MQAT_USER for b in users)
    _, none = run(server, every(MQCFIF(C.MQIA_APPL_TYPE, K.MQCFOP_EQUAL, C.MQAT_QMGR)))
    assert none == [{}]  # one response without data, as IBM answers an Inquire that finds nothing
    cid = users[0][K.MQBACF_CONNECTION_ID].String
    _, one = run(server, every(MQCFBF(K.MQBACF_CONNECTION_ID, K.MQCFOP_EQUAL, cid)))
    assert [b[K.MQBACF_CONNECTION_ID].String for b in one] == [cid]
    _, exact = run(server, [MQCFBS(K.MQBACF_CONNECTION_ID, cid), MQCFIL(K.MQIACF_CONNECTION_ATTRS, [C.MQIA_APPL_TYPE])])
    assert len(exact) == 1 and set(exact[0]) == {K.MQBACF_CONNECTION_ID, K.MQIACF_CONN_INFO_TYPE, C.MQIA_APPL_TYPE}


def test_handle_information_lists_each_open_object(server: CommandServer, qm: QueueManager) -> None:
    app = syncpoint.connect("QM1", embedded=qm.transport.qm, appl_name="reader.py")  # type: ignore[attr-defined]
    app.open("APP.Q", C.MQOO_INPUT_SHARED | C.MQOO_BROWSE)
    info = MQCFIN(K.MQIACF_CONN_INFO_TYPE, K.MQIACF_CONN_INFO_HANDLE)
    _, bodies = run(server, every(info))
    handles = [b for b in bodies if b[K.MQCACF_OBJECT_NAME].String.strip() == b"APP.Q"]
    assert len(handles) == 1
    h = handles[0]
    assert h[K.MQIACF_CONN_INFO_TYPE].Value == K.MQIACF_CONN_INFO_HANDLE
    assert h[K.MQIACF_OBJECT_TYPE].Value == C.MQOT_Q
    assert h[K.MQIACF_OPEN_OPTIONS].Value & (C.MQOO_INPUT_SHARED | C.MQOO_BROWSE)
    _, both = run(server, every(MQCFIN(K.MQIACF_CONN_INFO_TYPE, K.MQIACF_CONN_INFO_ALL)))
    kinds = [b[K.MQIACF_CONN_INFO_TYPE].Value for b in both]
    assert K.MQIACF_CONN_INFO_CONN in kinds and K.MQIACF_CONN_INFO_HANDLE in kinds
    app.disconnect()


def test_the_connection_id_is_display_conns_extconn_then_conn(server: CommandServer, qm: QueueManager) -> None:
    _, bodies = run(server, every())
    ids = sorted(b[K.MQBACF_CONNECTION_ID].String for b in bodies)
    out: list[str] = []
    MqscProcessor(qm).run(["DISPLAY CONN(*) TYPE(CONN)"], out.append)
    conns = sorted(
        bytes.fromhex(ext) + bytes.fromhex(conn)
        for conn, ext in zip(
            [ln.split("CONN(", 1)[1].split(")")[0] for ln in out if ln.strip().startswith("CONN(")],
            [ln.split("EXTCONN(", 1)[1].split(")")[0] for ln in out if ln.strip().startswith("EXTCONN(")],
            strict=True,
        )
    )
    assert ids == conns


def test_bad_connection_parameters_fail_with_ibms_reasons(server: CommandServer) -> None:
    def reason(params: list[Param]) -> int:
        (cfh,), _ = run(server, params)
        assert cfh.CompCode == C.MQCC_FAILED
        return cfh.Reason

    assert reason([MQCFBS(K.MQBACF_CONNECTION_ID, b"short")]) == K.MQRCCF_CONNECTION_ID_ERROR
    assert reason([]) == K.MQRCCF_PARM_MISSING
    assert reason(every(MQCFIN(K.MQIACF_CONN_INFO_TYPE, 99))) == K.MQRCCF_ATTR_VALUE_ERROR
    assert reason([MQCFBS(K.MQBACF_CONNECTION_ID, b"\0" * 24)]) == K.MQRCCF_NONE_FOUND
    assert reason(every(MQCFBF(K.MQBACF_CONNECTION_ID, K.MQCFOP_LIKE, b"x"))) == K.MQRCCF_CFBF_OPERATOR_ERROR
