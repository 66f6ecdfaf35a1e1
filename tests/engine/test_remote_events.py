"""Remote events (REMOTEEV, issue 36 item 2) on SYSTEM.ADMIN.QMGR.EVENT: an MQOPEN or MQPUT1 of a remote queue
refused in name resolution with one of IBM's remote event reasons (IBM MQ, "Remote events": Default
Transmission Queue Type / Usage Error 2198 / 2199, Queue Type Error 2057, Remote Queue Name Error 2184,
Transmission Queue Type / Usage Error 2091 / 2092, Unknown Default Transmission Queue 2197, Unknown Remote Queue
Manager 2087, Unknown Transmission Queue 2196). The call fails with its reason as before."""

from __future__ import annotations

from typing import Any

import pytest

from syncpoint.mqi import MQOD, MQMIError
from syncpoint.mqi import constants as C
from syncpoint.pcf import MQCFIN, MQCFST, parse

EVENTQ = "SYSTEM.ADMIN.QMGR.EVENT"


def events(qm: Any) -> list[tuple[int, list[tuple[int, Any]]]]:
    out = []
    q = qm.open(EVENTQ)
    while (m := q.get_or_none()) is not None:
        cfh, params = parse(m.data)
        assert (cfh.Type, cfh.Command) == (7, 44)  # MQCFT_EVENT, MQCMD_Q_MGR_EVENT
        out.append(
            (
                cfh.Reason,
                [(p.Parameter, p.String.decode().strip() if isinstance(p, MQCFST) else p.Value) for p in params],
            )
        )
        assert all(isinstance(p, (MQCFST, MQCFIN)) for p in params)
    q.close()
    return out


@pytest.fixture
def remote(qm: Any) -> Any:
    events(qm)  # the start event
    qm.admin("define", "QLOCAL", "PLAIN")  # not USAGE(XMITQ)
    qm.admin("define", "QALIAS", "AN.ALIAS", {"TARGET": "PLAIN"})
    qm.admin("define", "QREMOTE", "VIA.ALIAS", {"RNAME": "IN", "RQMNAME": "QM2", "XMITQ": "AN.ALIAS"})
    qm.admin("define", "QREMOTE", "VIA.PLAIN", {"RNAME": "IN", "RQMNAME": "QM2", "XMITQ": "PLAIN"})
    qm.admin("alter_qmgr", {"REMOTEEV": "ENABLED"})
    return qm


def refused(qm: Any, name: str, qmname: str = "") -> int:
    with pytest.raises(MQMIError) as e:
        qm.mqopen(MQOD(ObjectName=name.encode(), ObjectQMgrName=qmname.encode()), C.MQOO_OUTPUT)
    return int(e.value.reason)


def test_transmission_queue_type_and_usage_errors_name_the_queue_and_its_type(remote: Any, connect: Any) -> None:
    app = connect(appl_name="sender")
    assert refused(app, "VIA.ALIAS") == C.MQRC_XMIT_Q_TYPE_ERROR
    assert refused(app, "VIA.PLAIN") == C.MQRC_XMIT_Q_USAGE_ERROR
    (type_error, usage_error) = events(remote)
    assert type_error == (
        C.MQRC_XMIT_Q_TYPE_ERROR,
        [
            (C.MQCA_Q_MGR_NAME, "QM1"),
            (C.MQCA_Q_NAME, "VIA.ALIAS"),
            (C.MQCA_XMIT_Q_NAME, "AN.ALIAS"),
            (C.MQIA_Q_TYPE, C.MQQT_ALIAS),
            (C.MQIA_APPL_TYPE, C.MQAT_UNIX),
            (C.MQCACF_APPL_NAME, "sender"),
            (C.MQCACF_OBJECT_Q_MGR_NAME, "QM2"),
        ],
    )
    assert usage_error[0] == C.MQRC_XMIT_Q_USAGE_ERROR
    assert (C.MQCA_XMIT_Q_NAME, "PLAIN") in usage_error[1]
    assert not any(p == C.MQIA_Q_TYPE for p, _ in usage_error[1])  # QType is the type errors' only


def test_unknown_remote_queue_manager_and_default_transmission_queue_errors(remote: Any) -> None:
    assert refused(remote, "IN", "NOWHERE") == C.MQRC_UNKNOWN_REMOTE_Q_MGR
    ((reason, params),) = events(remote)
    assert reason == C.MQRC_UNKNOWN_REMOTE_Q_MGR and (C.MQCACF_OBJECT_Q_MGR_NAME, "NOWHERE") in params
    assert not any(p == C.MQCA_XMIT_Q_NAME for p, _ in params)
    remote.admin("alter_qmgr", {"DEFXMITQ": "MISSING"})
    assert refused(remote, "IN", "NOWHERE") == C.MQRC_UNKNOWN_DEF_XMIT_Q
    remote.admin("alter_qmgr", {"DEFXMITQ": "PLAIN"})
    assert refused(remote, "IN", "NOWHERE") == C.MQRC_DEF_XMIT_Q_USAGE_ERROR
    got = events(remote)
    assert [r for r, _ in got] == [C.MQRC_UNKNOWN_DEF_XMIT_Q, C.MQRC_DEF_XMIT_Q_USAGE_ERROR]
    assert [dict(p)[C.MQCA_XMIT_Q_NAME] for _, p in got] == ["MISSING", "PLAIN"]


def test_mqput1_meets_the_same_remote_event(remote: Any) -> None:
    with pytest.raises(MQMIError) as e:
        remote.put1("VIA.PLAIN", b"x")
    assert e.value.reason == C.MQRC_XMIT_Q_USAGE_ERROR
    assert [r for r, _ in events(remote)] == [C.MQRC_XMIT_Q_USAGE_ERROR]


def test_no_remote_event_while_remoteev_is_disabled(remote: Any) -> None:
    remote.admin("alter_qmgr", {"REMOTEEV": "DISABLED"})
    assert refused(remote, "VIA.ALIAS") == C.MQRC_XMIT_Q_TYPE_ERROR
    assert events(remote) == []
