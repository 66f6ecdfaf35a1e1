"""``syncpoint amqsevt``'s formats (text and ``-o json``) for every kind of event syncpoint writes (issue 36, item
2): each event is made by its real trigger on an in-process queue manager, read off its event queue and formatted
as IBM's amqsevt sample does — labels from IBM's constant names (MQCACF_EVENT_USER_ID: Event User Id), a group's
name then its members indented (JSON: a nested object)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from syncpoint.cli._amqsevt import format_json, format_text
from syncpoint.engine import FakeClock
from syncpoint.mqi import MQOD, MQMIError
from syncpoint.mqi import constants as C
from syncpoint.mqsc import MqscProcessor


def take(qm: Any, queue: str) -> list[tuple[str, dict[str, Any]]]:
    """Each event on ``queue``, taken off it: (its text form, its JSON form)."""
    out = []
    q = qm.open(queue)
    n = 0
    while (m := q.get_or_none()) is not None:
        n += 1
        out.append((format_text(n, queue, m.md, m.data), json.loads(format_json(queue, "QM1", m.md, m.data))))
    q.close()
    return out


def head(text: str) -> list[str]:
    return text.splitlines()[1:3]  # Event Type, Reason


def test_start_and_remote_events_print_ibms_names(qm: Any) -> None:
    ((text, event),) = take(qm, "SYSTEM.ADMIN.QMGR.EVENT")  # STRSTPEV(ENABLED), IBM's default: the start
    assert head(text) == ["Event Type                     : Queue Mgr Event [44]",
                          "Reason                         : Queue Mgr Active [2222]"]  # fmt: skip
    assert event["eventData"] == {"queueMgrName": "QM1"}
    qm.admin("alter_qmgr", {"REMOTEEV": "ENABLED"})
    with pytest.raises(MQMIError):
        qm.mqopen(MQOD(ObjectName=b"IN", ObjectQMgrName=b"FARAWAY"), C.MQOO_OUTPUT)
    ((text, event),) = take(qm, "SYSTEM.ADMIN.QMGR.EVENT")
    assert "Reason                         : Unknown Remote Queue Mgr [2087]" in text
    assert "  Object Queue Mgr Name        : FARAWAY" in text.splitlines()
    assert event["eventData"]["objectQueueMgrName"] == "FARAWAY"


def test_service_interval_events_print_ibms_names(qm: Any, clock: FakeClock) -> None:
    qm.admin("alter_qmgr", {"PERFMEV": "ENABLED"})
    qm.admin("define", "QLOCAL", "SLOW", {"QSVCINT": 1000, "QSVCIEV": "HIGH"})
    q = qm.open("SLOW")
    q.put(b"1")
    clock.advance(2)
    q.put(b"2")
    ((text, event),) = take(qm, "SYSTEM.ADMIN.PERFM.EVENT")
    assert head(text)[1] == "Reason                         : Queue Service Interval High [2226]"
    assert event["eventReason"] == {"name": "Queue Service Interval High", "value": 2226}
    assert event["eventData"]["baseObjectName"] == "SLOW"


def test_command_and_configuration_events_print_their_groups_and_attributes(qm: Any) -> None:
    out: list[str] = []
    MqscProcessor(qm).run(["ALTER QMGR CMDEV(ENABLED) CONFIGEV(ENABLED)", "DEFINE QLOCAL(FMT.Q) DESCR('shown')"],
                          out.append)  # fmt: skip
    commands = take(qm, "SYSTEM.ADMIN.COMMAND.EVENT")
    text, event = commands[-1]
    lines = text.splitlines()
    assert head(text) == ["Event Type                     : Command Event [99]",
                          "Reason                         : Command Mqsc [2412]"]  # fmt: skip
    assert lines[4] == "  Command Context"
    assert "    Event Origin               : 1" in lines
    assert "    Command                    : 11" in lines
    assert lines[-2:] == ["  Command Data", "    Command Mqsc               : DEFINE QLOCAL(FMT.Q) DESCR('shown')"]
    assert event["eventData"]["commandContext"]["eventQueueMgr"] == "QM1"
    assert event["eventData"]["commandData"] == {"commandMqsc": "DEFINE QLOCAL(FMT.Q) DESCR('shown')"}
    ((text, event),) = take(qm, "SYSTEM.ADMIN.CONFIG.EVENT")
    assert head(text) == ["Event Type                     : Config Event [43]",
                          "Reason                         : Config Create Object [2367]"]  # fmt: skip
    assert "  Queue Name                   : FMT.Q" in text.splitlines()
    assert event["eventData"]["queueDesc"] == "shown" and event["eventData"]["objectType"] == C.MQOT_Q


def test_channel_events_print_ibms_names(qm: Any) -> None:
    qm.admin("alter_qmgr", {"CHLEV": "ENABLED"})
    qm.admin("channel_event", C.MQRC_CHANNEL_STOPPED, "TO.QM2", C.MQRQ_CHANNEL_STOPPED_RETRY, "QM2", "h(1414)",
             [0x20009202, C.MQRC_HOST_NOT_AVAILABLE, 0, "h (1414)", "", ""])  # fmt: skip
    ((text, event),) = take(qm, "SYSTEM.ADMIN.CHANNEL.EVENT")
    assert head(text) == ["Event Type                     : Channel Event [46]",
                          "Reason                         : Channel Stopped [2283]"]  # fmt: skip
    assert "  Channel Name                 : TO.QM2" in text.splitlines()
    assert "  Error Identifier             : 536908290" in text.splitlines()  # 0x20009202: AMQ9202
    assert event["eventData"]["xmitQueueName"] == "QM2" and event["eventData"]["auxErrorDataInt1"] == 2538


def test_a_channel_event_with_a_bad_reason_or_channel_name_is_refused(qm: Any) -> None:
    for reason, name in [(C.MQRC_Q_FULL, "TO.QM2"), (C.MQRC_CHANNEL_STARTED, ""), (C.MQRC_CHANNEL_STARTED, "X" * 21)]:
        with pytest.raises(MQMIError) as e:
            qm.admin("channel_event", reason, name)
        assert e.value.reason == C.MQRC_FUNCTION_NOT_SUPPORTED
