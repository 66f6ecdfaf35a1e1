"""Configuration events (CONFIGEV) and command events (CMDEV) from MQSC and PCF (issue 36, item 2), as IBM
documents them ("Configuration events", "Command events"): Create Object 2367, Change Object 2368 (two messages:
before, then after), Delete Object 2369, Refresh Object 2370 on SYSTEM.ADMIN.CONFIG.EVENT; MQRC_COMMAND_MQSC 2412
and MQRC_COMMAND_PCF 2413 on SYSTEM.ADMIN.COMMAND.EVENT with the CommandContext and CommandData groups."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from syncpoint.client import QueueManager
from syncpoint.host import os_user
from syncpoint.mqi import constants as C
from syncpoint.mqsc import MqscProcessor
from syncpoint.pcf import MQCFGR, MQCFH, MQCFIN, MQCFST, CommandServer, build, parse
from syncpoint.pcf import constants as K

USER = os_user()[:12]  # IBM's EventUserId: 12 characters
CONFIGQ = "SYSTEM.ADMIN.CONFIG.EVENT"
COMMANDQ = "SYSTEM.ADMIN.COMMAND.EVENT"


def values(params: list[Any]) -> list[tuple[int, Any]]:
    out: list[tuple[int, Any]] = []
    for p in params:
        if isinstance(p, MQCFST):
            out.append((p.Parameter, p.String.decode().rstrip()))
        elif isinstance(p, MQCFIN):
            out.append((p.Parameter, p.Value))
        elif isinstance(p, MQCFGR):
            out.append((p.Parameter, values(p.members)))
    return out


def events(qm: QueueManager, queue: str) -> list[tuple[MQCFH, list[tuple[int, Any]]]]:
    out = []
    q = qm.open(queue)
    while (m := q.get_or_none()) is not None:
        assert m.md.Format == b"MQEVENT "
        cfh, params = parse(m.data)
        assert build(cfh, params) == m.data  # byte-exact PCF
        out.append((cfh, values(params)))
    q.close()
    return out


def mqsc(qm: QueueManager, script: str) -> list[str]:
    out: list[str] = []
    summary = MqscProcessor(qm).run(script.splitlines(), out.append)
    assert summary.failed == 0 and summary.syntax_errors == 0, out
    return out


@pytest.fixture
def admin(connect: Callable[..., QueueManager]) -> QueueManager:
    return connect(appl_name="runmqsc")  # the operating system's user: the queue manager's creator


def pcf(qm: QueueManager, command: int, params: list[Any], user: str = "") -> MQCFH:
    server = CommandServer(lambda: qm)
    server.qm = qm
    server.requester = user or os_user()  # the request's UserIdentifier: the command server acts for it
    (reply,) = server.execute(build(MQCFH(Command=command, Type=K.MQCFT_COMMAND_XR, Version=3), params))
    cfh, _ = parse(reply)
    assert cfh.CompCode == 0, cfh
    return cfh


def test_define_alter_delete_make_create_change_before_and_after_and_delete_events(admin: QueueManager) -> None:
    mqsc(admin, "ALTER QMGR CONFIGEV(ENABLED)")
    mqsc(admin, "DEFINE QLOCAL(CFG.Q) DESCR('first') MAXDEPTH(50)")
    mqsc(admin, "ALTER QLOCAL(CFG.Q) DESCR('second')")
    mqsc(admin, "DELETE QLOCAL(CFG.Q)")
    got = events(admin, CONFIGQ)
    assert [(h.Reason, h.MsgSeqNumber, h.Control) for h, _ in got] == [
        (C.MQRC_CONFIG_CREATE_OBJECT, 1, K.MQCFC_LAST),
        (C.MQRC_CONFIG_CHANGE_OBJECT, 1, K.MQCFC_NOT_LAST),  # the attributes before the change
        (C.MQRC_CONFIG_CHANGE_OBJECT, 2, K.MQCFC_LAST),  # and after
        (C.MQRC_CONFIG_DELETE_OBJECT, 1, K.MQCFC_LAST),
    ]
    assert all(h.Command == C.MQCMD_CONFIG_EVENT and h.Type == K.MQCFT_EVENT for h, _ in got)
    create = got[0][1]
    assert create[:10] == [
        (C.MQCACF_EVENT_USER_ID, USER),
        (C.MQIACF_EVENT_ORIGIN, C.MQEVO_CONSOLE),
        (C.MQCACF_EVENT_Q_MGR, "QM1"),
        (C.MQCACF_EVENT_APPL_IDENTITY, ""),
        (C.MQIACF_EVENT_APPL_TYPE, C.MQAT_UNIX),
        (C.MQCACF_EVENT_APPL_NAME, "runmqsc"),
        (C.MQCACF_EVENT_APPL_ORIGIN, ""),
        (C.MQIACF_OBJECT_TYPE, C.MQOT_Q),
        (C.MQCA_Q_NAME, "CFG.Q"),
        (C.MQIA_Q_TYPE, C.MQQT_LOCAL),
    ]
    assert (C.MQCA_Q_DESC, "first") in create and (C.MQIA_MAX_Q_DEPTH, 50) in create
    assert (C.MQCA_Q_DESC, "first") in got[1][1] and (C.MQCA_Q_DESC, "second") in got[2][1]
    assert (C.MQCA_Q_DESC, "second") in got[3][1]  # a deleted object's last attributes


def test_refresh_qmgr_type_configev_writes_a_refresh_event_per_object_named(admin: QueueManager) -> None:
    mqsc(admin, "DEFINE QLOCAL(CFG.A)\nDEFINE QLOCAL(CFG.B)\nDEFINE QALIAS(CFG.C) TARGET(CFG.A)")
    refused: list[str] = []
    assert MqscProcessor(admin).run(["REFRESH QMGR TYPE(CONFIGEV) NAME(CFG.*)"], refused.append).failed == 1
    assert events(admin, CONFIGQ) == []  # CONFIGEV(DISABLED): the refresh is refused
    mqsc(admin, "ALTER QMGR CONFIGEV(ENABLED)")
    out = mqsc(admin, "REFRESH QMGR TYPE(CONFIGEV) OBJECT(QLOCAL) NAME(CFG.*)")
    assert "AMQ8559I: Refresh Queue Manager accepted." in out
    got = events(admin, CONFIGQ)
    assert [h.Reason for h, _ in got] == [C.MQRC_CONFIG_REFRESH_OBJECT] * 2
    assert [dict(p)[C.MQCA_Q_NAME] for _, p in got] == ["CFG.A", "CFG.B"]


def test_refresh_configev_is_refused_while_configev_is_disabled_and_bad_object_types_are_syntax_errors(
    admin: QueueManager,
) -> None:
    out: list[str] = []
    summary = MqscProcessor(admin).run(
        [
            "REFRESH QMGR TYPE(CONFIGEV)",
            "REFRESH QMGR TYPE(CONFIGEV) OBJECT(BANANA)",
            "REFRESH QMGR TYPE(EXPIRY) OBJECT(QLOCAL)",
        ],
        out.append,
    )
    assert summary.failed == 1 and summary.syntax_errors == 2
    assert events(admin, CONFIGQ) == []


def test_a_pcf_command_makes_configuration_events_with_the_requests_user_and_origin_msg(admin: QueueManager) -> None:
    mqsc(admin, "ALTER QMGR CONFIGEV(ENABLED)")
    admin.admin("set_authrec", "qmgr", "", "principal", "alice", ["connect", "dsp"])
    admin.admin("set_authrec", "queue", "**", "principal", "alice", ["crt", "dsp"])
    pcf(admin, K.MQCMD_CREATE_Q, [MQCFST(C.MQCA_Q_NAME, b"PCF.Q"), MQCFIN(C.MQIA_Q_TYPE, C.MQQT_LOCAL)], "alice")
    ((cfh, params),) = events(admin, CONFIGQ)
    assert cfh.Reason == C.MQRC_CONFIG_CREATE_OBJECT
    assert params[:2] == [(C.MQCACF_EVENT_USER_ID, "alice"), (C.MQIACF_EVENT_ORIGIN, C.MQEVO_MSG)]
    assert (C.MQCA_Q_NAME, "PCF.Q") in params


def test_command_events_carry_the_context_and_the_mqsc_text_or_the_pcf_parameters(admin: QueueManager) -> None:
    mqsc(admin, "ALTER QMGR CMDEV(ENABLED)")
    assert [h.Reason for h, _ in events(admin, COMMANDQ)] == [C.MQRC_COMMAND_MQSC]  # the ALTER itself
    mqsc(admin, "DEFINE QLOCAL(CMD.Q) MAXDEPTH(7)")
    ((cfh, params),) = events(admin, COMMANDQ)
    assert (cfh.Command, cfh.Reason, cfh.CompCode) == (C.MQCMD_COMMAND_EVENT, C.MQRC_COMMAND_MQSC, C.MQCC_WARNING)
    (context_id, context), (data_id, data) = params
    assert (context_id, data_id) == (C.MQGACF_COMMAND_CONTEXT, C.MQGACF_COMMAND_DATA)
    assert context == [
        (C.MQCACF_EVENT_USER_ID, USER),
        (C.MQIACF_EVENT_ORIGIN, C.MQEVO_CONSOLE),
        (C.MQCACF_EVENT_Q_MGR, "QM1"),
        (C.MQCACF_EVENT_APPL_IDENTITY, ""),
        (C.MQIACF_EVENT_APPL_TYPE, C.MQAT_UNIX),
        (C.MQCACF_EVENT_APPL_NAME, "runmqsc"),
        (C.MQCACF_EVENT_APPL_ORIGIN, ""),
        (C.MQIACF_COMMAND, K.MQCMD_CREATE_Q),
    ]
    assert data == [(C.MQCACF_COMMAND_MQSC, "DEFINE QLOCAL(CMD.Q) MAXDEPTH(7)")]
    pcf(admin, K.MQCMD_CHANGE_Q, [MQCFST(C.MQCA_Q_NAME, b"CMD.Q"), MQCFIN(C.MQIA_Q_TYPE, C.MQQT_LOCAL),
                                  MQCFIN(C.MQIA_MAX_Q_DEPTH, 9)])  # fmt: skip
    ((cfh, params),) = events(admin, COMMANDQ)
    assert cfh.Reason == C.MQRC_COMMAND_PCF
    context, data = params[0][1], params[1][1]
    assert (C.MQIACF_EVENT_ORIGIN, C.MQEVO_MSG) in context and (C.MQIACF_COMMAND, K.MQCMD_CHANGE_Q) in context
    assert data == [(C.MQCA_Q_NAME, "CMD.Q"), (C.MQIA_Q_TYPE, C.MQQT_LOCAL), (C.MQIA_MAX_Q_DEPTH, 9)]


def test_cmdev_nodisplay_leaves_out_display_and_a_failed_command_makes_no_event(admin: QueueManager) -> None:
    mqsc(admin, "ALTER QMGR CMDEV(NODISPLAY)")
    events(admin, COMMANDQ)
    mqsc(admin, "DISPLAY QLOCAL(SYSTEM.DEFAULT.LOCAL.QUEUE)")
    pcf(admin, K.MQCMD_INQUIRE_Q, [MQCFST(C.MQCA_Q_NAME, b"SYSTEM.DEFAULT.LOCAL.QUEUE")])
    assert events(admin, COMMANDQ) == []
    out: list[str] = []
    MqscProcessor(admin).run(["DELETE QLOCAL(NOT.THERE)"], out.append)  # fails: IBM's events are for commands that ran
    assert events(admin, COMMANDQ) == []
    mqsc(admin, "ALTER QMGR CMDEV(DISABLED)")
    assert events(admin, COMMANDQ) == []  # the ALTER switched them off as it ran
    mqsc(admin, "DEFINE QLOCAL(QUIET)")
    assert events(admin, COMMANDQ) == []


def test_a_full_event_queue_drops_the_event_and_the_command_still_runs(admin: QueueManager, embedded: Any) -> None:
    mqsc(admin, "ALTER QLOCAL(SYSTEM.ADMIN.CONFIG.EVENT) MAXDEPTH(1)\nALTER QMGR CONFIGEV(ENABLED)")
    mqsc(admin, "DEFINE QLOCAL(FILL.1)\nDEFINE QLOCAL(FILL.2)")  # the second one's event finds the queue full
    assert admin.admin("lookup", "QLOCAL", "FILL.2") is not None
    assert embedded.engine.events_dropped == 1
    assert len(events(admin, CONFIGQ)) == 1


def test_a_bad_command_report_is_refused_and_writes_nothing(admin: QueueManager) -> None:
    from syncpoint.mqi import MQMIError

    mqsc(admin, "ALTER QMGR CMDEV(ENABLED)")
    events(admin, COMMANDQ)
    for args in [
        ("XML", 1, []),
        ("MQSC", "one", []),
        ("MQSC", 1, [[1]]),
        ("PCF", 1, [["p", 2]]),
        ("PCF", 1, [[1, 2.5]]),
    ]:
        with pytest.raises(MQMIError) as e:
            admin.admin("command_event", *args)
        assert e.value.reason == C.MQRC_FUNCTION_NOT_SUPPORTED, args
    assert events(admin, COMMANDQ) == []
