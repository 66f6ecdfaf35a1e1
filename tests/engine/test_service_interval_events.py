"""Queue service interval events (issue 36, item 2) by IBM's rules ("Service interval events", "Rules for queue
service interval events"): the service timer starts at a put to an empty queue and restarts at every get that
leaves messages; a get that empties the queue stops it. Queue Service Interval High (2226) when more than QSVCINT
milliseconds passed since the timer was reset (QSVCIEV then becomes OK); Queue Service Interval OK (2227) on a get
within QSVCINT (QSVCIEV then becomes HIGH). On SYSTEM.ADMIN.PERFM.EVENT when PERFMEV is ENABLED; fake clock."""

from __future__ import annotations

from typing import Any

import pytest

from syncpoint.engine import FakeClock
from syncpoint.mqi import constants as C
from syncpoint.pcf import MQCFIN, MQCFST, parse

EVENTQ = "SYSTEM.ADMIN.PERFM.EVENT"


@pytest.fixture
def svc(qm: Any) -> Any:
    qm.admin("alter_qmgr", {"PERFMEV": "ENABLED"})
    qm.admin("define", "QLOCAL", "SERVED", {"QSVCINT": 10_000, "QSVCIEV": "HIGH"})  # 10 seconds
    return qm


def events(qm: Any) -> list[tuple[int, dict[int, Any]]]:
    out = []
    q = qm.open(EVENTQ)
    while (m := q.get_or_none()) is not None:
        cfh, params = parse(m.data)
        assert (cfh.Type, cfh.Command, cfh.CompCode) == (7, 45, C.MQCC_WARNING)  # MQCFT_EVENT, MQCMD_PERFM_EVENT
        values: dict[int, Any] = {}
        for p in params:
            if isinstance(p, MQCFST):
                values[p.Parameter] = p.String.decode().strip()
            elif isinstance(p, MQCFIN):
                values[p.Parameter] = p.Value
        out.append((cfh.Reason, values))
    q.close()
    return out


def qsvciev(qm: Any) -> str:
    return str(qm.admin("lookup", "QLOCAL", "SERVED").attrs["QSVCIEV"])


def test_service_interval_high_when_no_get_within_qsvcint_then_qsvciev_becomes_ok(svc: Any, clock: FakeClock) -> None:
    q = svc.open("SERVED")
    q.put(b"1")  # a put to an empty queue starts the service timer
    clock.advance(10)
    q.put(b"2")  # 10 s: not more than the interval
    assert events(svc) == []
    clock.advance(1)
    q.put(b"3")  # 11 s without a get
    ((reason, values),) = events(svc)
    assert reason == C.MQRC_Q_SERVICE_INTERVAL_HIGH
    assert values[C.MQCA_BASE_Q_NAME] == "SERVED" and values[C.MQIA_MSG_ENQ_COUNT] == 3
    assert values[C.MQIA_TIME_SINCE_RESET] == 11 and values[C.MQIA_HIGH_Q_DEPTH] == 3
    assert qsvciev(svc) == "OK"  # IBM: a High event enables OK events and disables High ones
    clock.advance(30)
    q.put(b"4")
    assert events(svc) == []  # High is disabled until an OK event


def test_service_interval_ok_on_a_get_within_qsvcint_after_a_high_event(svc: Any, clock: FakeClock) -> None:
    q = svc.open("SERVED")
    q.put(b"1")
    q.put(b"2")
    q.put(b"3")
    clock.advance(12)
    q.get()  # 12 s: High, on the get itself; the get restarts the timer (the queue is not empty)
    assert [r for r, _ in events(svc)] == [C.MQRC_Q_SERVICE_INTERVAL_HIGH] and qsvciev(svc) == "OK"
    clock.advance(4)
    q.get()  # 4 s since the last get: within the interval
    ((reason, values),) = events(svc)
    assert reason == C.MQRC_Q_SERVICE_INTERVAL_OK
    assert values[C.MQIA_MSG_DEQ_COUNT] == 1 and values[C.MQIA_TIME_SINCE_RESET] == 4  # since the High event
    assert qsvciev(svc) == "HIGH"


def test_a_get_that_leaves_messages_restarts_the_service_timer(svc: Any, clock: FakeClock) -> None:
    q = svc.open("SERVED")
    q.put(b"1")
    q.put(b"2")
    clock.advance(8)
    q.get()  # the timer restarts
    clock.advance(8)
    q.put(b"3")  # 16 s since the first put, 8 s since the get: no event
    assert events(svc) == []
    clock.advance(3)
    q.put(b"4")  # 11 s since the get
    assert [r for r, _ in events(svc)] == [C.MQRC_Q_SERVICE_INTERVAL_HIGH]


def test_an_empty_queue_stops_the_timer_and_a_put_to_it_starts_it_again(svc: Any, clock: FakeClock) -> None:
    q = svc.open("SERVED")
    q.put(b"1")
    clock.advance(2)
    q.get()  # the queue is empty: the timer is off
    clock.advance(100)
    q.put(b"2")  # a put to an empty queue: the timer starts now, whatever the time since the last get
    clock.advance(5)
    q.put(b"3")
    assert events(svc) == []
    clock.advance(6)
    q.put(b"4")
    assert [r for r, _ in events(svc)] == [C.MQRC_Q_SERVICE_INTERVAL_HIGH]


def test_no_service_interval_event_with_qsvciev_none_or_perfmev_disabled(svc: Any, clock: FakeClock) -> None:
    svc.admin("alter", "QLOCAL", "SERVED", {"QSVCIEV": "NONE"})
    q = svc.open("SERVED")
    q.put(b"1")
    clock.advance(60)
    q.put(b"2")
    assert events(svc) == []
    svc.admin("alter", "QLOCAL", "SERVED", {"QSVCIEV": "HIGH"})
    svc.admin("alter_qmgr", {"PERFMEV": "DISABLED"})
    clock.advance(60)
    q.put(b"3")
    q.get()
    assert events(svc) == [] and qsvciev(svc) == "HIGH"  # nothing changed either


def test_an_event_switch_takes_only_ibms_words_and_a_bad_one_changes_nothing(svc: Any) -> None:
    from syncpoint.mqsc import MqscProcessor

    out: list[str] = []
    script = "ALTER QLOCAL(SERVED) QSVCIEV(SOMETIMES)\nALTER QMGR CMDEV(MAYBE)\nALTER QMGR CMDEV(NODISPLAY)"
    summary = MqscProcessor(svc).run(script.splitlines(), out.append)
    assert summary.syntax_errors == 2
    assert any("QSVCIEV(SOMETIMES) is not valid; QSVCIEV takes one of HIGH, OK, NONE" in line for line in out)
    assert qsvciev(svc) == "HIGH" and svc.admin("lookup", "QMGR", "QM1").attrs["CMDEV"] == "NODISPLAY"
    assert not any(line.startswith("AMQ8491W") for line in out)  # the event attributes are acted on now
