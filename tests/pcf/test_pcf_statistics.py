"""PCF for statistics and accounting (issue 36, item 3): Change Queue Manager sets STATMQI / STATQ / STATINT /
ACCTMQI / ACCTQ / ACCTINT by IBM's selectors and values (MQIA_STATISTICS_MQI 127 … MQMON_ON 1), Change Queue a
queue's STATQ / ACCTQ (MQMON_Q_MGR -3), Inquire Queue Manager answers them, and Reset Queue Manager with Action
MQACT_COLLECT_STATISTICS writes the statistics now. Values IBM does not have are refused and change nothing."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from syncpoint.client import QueueManager
from syncpoint.engine import FakeClock
from syncpoint.mqi import constants as C
from syncpoint.mqi import monitoring as M
from syncpoint.pcf import MQCFH, MQCFIN, MQCFST, CommandServer, Param, build, parse
from syncpoint.pcf import constants as K


@pytest.fixture
def server(connect: Callable[..., QueueManager]) -> CommandServer:
    s = CommandServer(lambda: connect(appl_name="amqpcsea"))
    s.qm = connect(appl_name="amqpcsea")
    return s


def run(server: CommandServer, command: int, params: list[Param]) -> list[tuple[MQCFH, dict[int, Param]]]:
    out = []
    for raw in server.execute(build(MQCFH(Command=command, Type=K.MQCFT_COMMAND_XR, Version=3), params)):
        cfh, ps = parse(raw)
        out.append((cfh, {p.Parameter: p for p in ps}))
    return out


def test_change_q_mgr_sets_the_statistics_and_accounting_switches_by_ibms_values(
    server: CommandServer, qm: QueueManager
) -> None:
    params: list[Param] = [
        MQCFIN(C.MQIA_STATISTICS_MQI, C.MQMON_ON),
        MQCFIN(C.MQIA_STATISTICS_Q, C.MQMON_ON),
        MQCFIN(C.MQIA_STATISTICS_INTERVAL, 600),
        MQCFIN(C.MQIA_ACCOUNTING_MQI, C.MQMON_ON),
        MQCFIN(C.MQIA_ACCOUNTING_Q, C.MQMON_NONE),
        MQCFIN(C.MQIA_ACCOUNTING_INTERVAL, 900),
    ]
    ((cfh, _),) = run(server, K.MQCMD_CHANGE_Q_MGR, params)
    assert (cfh.CompCode, cfh.Reason) == (0, 0)
    a = qm.admin("lookup", "QMGR", "").attrs
    assert (a["STATMQI"], a["QMSTATQ"], a["STATINT"]) == ("ON", "ON", 600)
    assert (a["ACCTMQI"], a["QMACCTQ"], a["ACCTINT"]) == ("ON", "NONE", 900)
    ((_, shown),) = run(server, K.MQCMD_INQUIRE_Q_MGR, [])
    assert shown[C.MQIA_STATISTICS_MQI].Value == C.MQMON_ON and shown[C.MQIA_STATISTICS_INTERVAL].Value == 600
    assert shown[C.MQIA_ACCOUNTING_Q].Value == C.MQMON_NONE


def test_change_q_sets_a_queues_statq_and_acctq(server: CommandServer, qm: QueueManager) -> None:
    name = MQCFST(C.MQCA_Q_NAME, b"Q1")
    local = MQCFIN(C.MQIA_Q_TYPE, C.MQQT_LOCAL)
    ((cfh, _),) = run(server, K.MQCMD_CHANGE_Q, [name, local, MQCFIN(C.MQIA_STATISTICS_Q, C.MQMON_ON)])
    assert cfh.CompCode == 0
    assert qm.admin("lookup", "QLOCAL", "Q1").attrs["STATQ"] == "ON"
    run(server, K.MQCMD_CHANGE_Q, [name, local, MQCFIN(C.MQIA_ACCOUNTING_Q, C.MQMON_Q_MGR)])
    assert qm.admin("lookup", "QLOCAL", "Q1").attrs["ACCTQ"] == "QMGR"
    ((_, shown),) = run(server, K.MQCMD_INQUIRE_Q, [name])  # Inquire Queue answers them as IBM's values
    assert shown[C.MQIA_STATISTICS_Q].Value == C.MQMON_ON and shown[C.MQIA_ACCOUNTING_Q].Value == C.MQMON_Q_MGR


@pytest.mark.parametrize(
    "param",
    [MQCFIN(C.MQIA_STATISTICS_MQI, 7), MQCFIN(C.MQIA_STATISTICS_INTERVAL, 0), MQCFIN(C.MQIA_ACCOUNTING_MQI, -3)],
)
def test_change_q_mgr_refuses_a_value_ibm_has_not_and_changes_nothing(
    server: CommandServer, qm: QueueManager, param: MQCFIN
) -> None:
    before = dict(qm.admin("lookup", "QMGR", "").attrs)
    ((cfh, _),) = run(server, K.MQCMD_CHANGE_Q_MGR, [param])
    assert cfh.CompCode == C.MQCC_FAILED and cfh.Reason != 0
    assert qm.admin("lookup", "QMGR", "").attrs == before


def test_reset_q_mgr_collect_statistics_writes_them_now(
    server: CommandServer, qm: QueueManager, clock: FakeClock
) -> None:
    # SYSTEM.ADMIN.STATISTICS.QUEUE is one of the default objects (as IBM's)
    qm.admin("alter_qmgr", {"STATMQI": "ON"})
    clock.advance(5)
    ((cfh, _),) = run(server, M.MQCMD_RESET_Q_MGR, [MQCFIN(M.MQIACF_ACTION, M.MQACT_COLLECT_STATISTICS)])
    assert (cfh.CompCode, cfh.Reason) == (0, 0)
    m = qm.open(M.MONITORING_QUEUES[M.MQCFT_STATISTICS]).get()
    assert parse(m.data)[0].Command == M.MQCMD_STATISTICS_MQI
    ((bad, _),) = run(server, M.MQCMD_RESET_Q_MGR, [MQCFIN(M.MQIACF_ACTION, 2)])  # MQACT_ADVANCE_LOG
    assert (bad.CompCode, bad.Reason) == (C.MQCC_FAILED, C.MQRC_FUNCTION_NOT_SUPPORTED)
