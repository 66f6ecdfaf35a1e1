"""Queue manager events (issue 36, item 2) on SYSTEM.ADMIN.QMGR.EVENT, as IBM's PCF event messages (MQCFH
Command MQCMD_Q_MGR_EVENT): Put Inhibited and Get Inhibited when INHIBTEV is ENABLED, and the Not Authorized
event's emitter (AUTHOREV) that the object authority manager's checks call. Read back with syncpoint.pcf."""

from __future__ import annotations

import functools
from typing import Any

import pytest

from syncpoint.mqi import MQOD, MQMIError
from syncpoint.mqi import constants as C
from syncpoint.pcf import MQCFIN, MQCFST, build, parse

EVENTQ = "SYSTEM.ADMIN.QMGR.EVENT"


def events(qm: Any) -> list[tuple[int, list[tuple[int, Any]]]]:
    """(Reason, [(parameter, value) in order]) of each event on the queue manager event queue, taken off it."""
    out = []
    q = qm.open(EVENTQ)
    while (m := q.get_or_none()) is not None:
        cfh, params = parse(m.data)
        assert build(cfh, params) == m.data and m.md.Format == b"MQEVENT "
        assert (cfh.Type, cfh.Command, cfh.CompCode) == (7, 44, C.MQCC_WARNING)  # MQCFT_EVENT, MQCMD_Q_MGR_EVENT
        values = []
        for p in params:
            if isinstance(p, MQCFST):
                values.append((p.Parameter, p.String.decode().strip()))
            elif isinstance(p, MQCFIN):
                values.append((p.Parameter, p.Value))
        out.append((cfh.Reason, values))
    q.close()
    return out


@pytest.fixture
def qmgr_events(qm: Any) -> Any:
    events(qm)  # the event queue is a default object, as IBM's; empty it (the start event of STRSTPEV)
    return qm


def test_put_and_get_inhibited_events_name_the_queue_and_the_application(qmgr_events: Any, connect: Any) -> None:
    qm = qmgr_events
    qm.admin("alter_qmgr", {"INHIBTEV": "ENABLED"})
    qm.admin("define", "QLOCAL", "HELD", {"PUT": C.MQQA_PUT_INHIBITED, "GET": C.MQQA_GET_INHIBITED})
    app = connect(appl_name="payments")
    q = app.open("HELD", C.MQOO_OUTPUT | C.MQOO_INPUT_SHARED)
    with pytest.raises(MQMIError) as e:
        q.put(b"x")
    assert e.value.reason == C.MQRC_PUT_INHIBITED  # the call fails as before; the event is the queue manager's
    with pytest.raises(MQMIError) as e:
        q.get()
    assert e.value.reason == C.MQRC_GET_INHIBITED
    (put_reason, put_params), (get_reason, get_params) = events(qm)
    assert (put_reason, get_reason) == (C.MQRC_PUT_INHIBITED, C.MQRC_GET_INHIBITED)
    expected = [
        (C.MQCA_Q_MGR_NAME, "QM1"),
        (C.MQCA_BASE_Q_NAME, "HELD"),
        (C.MQIA_APPL_TYPE, C.MQAT_UNIX),
        (C.MQCACF_APPL_NAME, "payments"),
    ]
    assert put_params == expected and get_params == expected


def test_no_inhibited_event_while_inhibtev_is_disabled(qmgr_events: Any) -> None:
    qmgr_events.admin("define", "QLOCAL", "HELD", {"PUT": C.MQQA_PUT_INHIBITED})
    with pytest.raises(MQMIError):
        qmgr_events.open("HELD").put(b"x")
    assert events(qmgr_events) == []


def test_the_not_authorized_emitter_writes_ibms_type_2_event_when_authorev_is_enabled(
    qmgr_events: Any, embedded: Any
) -> None:
    emit = functools.partial(
        embedded.engine.not_authorized,
        C.MQRQ_OPEN_NOT_AUTHORIZED,
        user="app",
        appl_name="orders",
        options=C.MQOO_OUTPUT,
        queue="PAYROLL",
    )
    assert embedded.call(emit) is False  # AUTHOREV is DISABLED by default (IBM's default)
    assert events(qmgr_events) == []
    qmgr_events.admin("alter_qmgr", {"AUTHOREV": "ENABLED"})
    assert embedded.call(emit) is True
    ((reason, params),) = events(qmgr_events)
    assert reason == C.MQRC_NOT_AUTHORIZED
    assert params == [
        (C.MQCA_Q_MGR_NAME, "QM1"),
        (C.MQIACF_REASON_QUALIFIER, C.MQRQ_OPEN_NOT_AUTHORIZED),
        (C.MQIACF_OPEN_OPTIONS, C.MQOO_OUTPUT),
        (C.MQCACF_USER_IDENTIFIER, "app"),
        (C.MQIA_APPL_TYPE, C.MQAT_UNIX),
        (C.MQCACF_APPL_NAME, "orders"),
        (C.MQCA_Q_NAME, "PAYROLL"),
    ]


def test_a_command_not_authorized_event_names_the_command_and_user(qmgr_events: Any, embedded: Any) -> None:
    qmgr_events.admin("alter_qmgr", {"AUTHOREV": "ENABLED"})
    emit = functools.partial(embedded.engine.not_authorized, C.MQRQ_CMD_NOT_AUTHORIZED, user="bob", command=8)
    assert embedded.call(emit) is True
    ((_, params),) = events(qmgr_events)
    assert params == [
        (C.MQCA_Q_MGR_NAME, "QM1"),
        (C.MQIACF_REASON_QUALIFIER, C.MQRQ_CMD_NOT_AUTHORIZED),
        (C.MQIACF_COMMAND, 8),  # MQCMD_CHANGE_Q
        (C.MQCACF_USER_IDENTIFIER, "bob"),
    ]


def test_an_unknown_object_name_event_names_the_queue_the_application_opened(qmgr_events: Any, connect: Any) -> None:
    qmgr_events.admin("alter_qmgr", {"LOCALEV": "ENABLED"})
    app = connect(appl_name="billing")
    with pytest.raises(MQMIError) as e:
        app.mqopen(MQOD(ObjectName=b"NO.SUCH.QUEUE"), C.MQOO_OUTPUT)
    assert e.value.reason == C.MQRC_UNKNOWN_OBJECT_NAME
    ((reason, params),) = events(qmgr_events)
    assert reason == C.MQRC_UNKNOWN_OBJECT_NAME
    assert params == [
        (C.MQCA_Q_MGR_NAME, "QM1"),
        (C.MQIA_APPL_TYPE, C.MQAT_UNIX),
        (C.MQCACF_APPL_NAME, "billing"),
        (C.MQCA_Q_NAME, "NO.SUCH.QUEUE"),
    ]
    qmgr_events.admin("alter_qmgr", {"LOCALEV": "DISABLED"})
    with pytest.raises(MQMIError):
        app.mqopen(MQOD(ObjectName=b"NO.SUCH.QUEUE"), C.MQOO_OUTPUT)
    assert events(qmgr_events) == []
