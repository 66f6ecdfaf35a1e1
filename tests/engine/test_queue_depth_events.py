"""Queue depth performance events (issue 36, item 2), each rule as IBM documents it ("Enabling queue depth events";
event reference "Queue Depth High", "Queue Depth Low", "Queue Full"), on an in-process queue manager with a fake
clock. The event messages are read back with syncpoint.pcf's parser and rebuilt byte for byte."""

from __future__ import annotations

from typing import Any

import pytest

from syncpoint.engine import FakeClock
from syncpoint.mqi import MQMIError
from syncpoint.mqi import constants as C
from syncpoint.pcf import MQCFIN, MQCFST, build, parse

EVENTQ = "SYSTEM.ADMIN.PERFM.EVENT"


@pytest.fixture
def perf(qm: Any) -> Any:
    qm.admin("alter_qmgr", {"PERFMEV": "ENABLED"})  # the event queue is a default object, as IBM's
    qm.admin(
        "define",
        "QLOCAL",
        "WATCHED",
        {"MAXDEPTH": 10, "QDEPTHHI": 80, "QDEPTHLO": 20, "QDPHIEV": "ENABLED", "QDPLOEV": "DISABLED"},
    )
    return qm


def events(qm: Any) -> list[tuple[int, dict[int, Any]]]:
    """(Reason, {parameter: value}) of each event message on the event queue, taken off it."""
    out = []
    q = qm.open(EVENTQ)
    while (m := q.get_or_none()) is not None:
        assert m.md.Format == b"MQEVENT " and m.md.MsgType == C.MQMT_DATAGRAM
        cfh, params = parse(m.data)
        assert build(cfh, params) == m.data  # byte-exact PCF, as syncpoint.pcf's structures write it
        assert (cfh.Type, cfh.Version, cfh.Command, cfh.CompCode) == (7, 2, 45, C.MQCC_WARNING)  # MQCFT_EVENT …
        values: dict[int, Any] = {}
        for p in params:
            if isinstance(p, MQCFST):
                values[p.Parameter] = p.String.decode().strip()
            elif isinstance(p, MQCFIN):
                values[p.Parameter] = p.Value
        out.append((cfh.Reason, values))
    q.close()
    return out


def attrs(qm: Any, name: str) -> tuple[str, str, str]:
    a = qm.admin("lookup", "QLOCAL", name).attrs
    return a["QDPHIEV"], a["QDPLOEV"], a["QDPMAXEV"]


def test_queue_depth_high_is_generated_at_the_limit_disables_itself_and_enables_low_and_full(
    perf: Any, clock: FakeClock
) -> None:
    q = perf.open("WATCHED")
    for _ in range(7):
        q.put(b"m")
    assert events(perf) == []  # 7 of 10 is under QDEPTHHI(80)
    clock.advance(12)
    q.put(b"m")  # 8 of 10: 80 %
    (reason, values), *more = events(perf)
    assert not more and reason == C.MQRC_Q_DEPTH_HIGH
    assert values[C.MQCA_Q_MGR_NAME] == "QM1" and values[C.MQCA_BASE_Q_NAME] == "WATCHED"
    assert values[C.MQIA_HIGH_Q_DEPTH] == 8 and values[C.MQIA_MSG_ENQ_COUNT] == 8
    assert values[C.MQIA_MSG_DEQ_COUNT] == 0
    assert attrs(perf, "WATCHED") == ("DISABLED", "ENABLED", "ENABLED")
    q.put(b"m")
    assert events(perf) == []  # disabled by its own event


def test_queue_depth_low_is_generated_by_a_get_to_the_limit_and_reenables_high(perf: Any, clock: FakeClock) -> None:
    q = perf.open("WATCHED")
    for _ in range(8):
        q.put(b"m")
    events(perf)  # the Queue Depth High event; its statistics were reset
    clock.advance(30)
    for _ in range(5):
        q.get()
    assert events(perf) == []  # 3 of 10: over QDEPTHLO(20)
    q.get()  # 2 of 10
    ((reason, values),) = events(perf)
    assert reason == C.MQRC_Q_DEPTH_LOW
    assert values[C.MQIA_TIME_SINCE_RESET] == 30  # since the Queue Depth High event reset the statistics
    assert values[C.MQIA_MSG_DEQ_COUNT] == 6 and values[C.MQIA_MSG_ENQ_COUNT] == 0
    assert attrs(perf, "WATCHED") == ("ENABLED", "DISABLED", "ENABLED")
    for _ in range(6):
        q.put(b"m")  # back to 8: Queue Depth High again
    assert [r for r, _ in events(perf)] == [C.MQRC_Q_DEPTH_HIGH]


def test_queue_full_is_generated_when_a_put_is_refused_and_the_put_still_fails(perf: Any) -> None:
    perf.admin("alter", "QLOCAL", "WATCHED", {"QDPHIEV": "DISABLED", "QDPMAXEV": "ENABLED"})
    q = perf.open("WATCHED")
    for _ in range(10):
        q.put(b"m")
    with pytest.raises(MQMIError) as e:
        q.put(b"one too many")
    assert e.value.reason == C.MQRC_Q_FULL
    assert [r for r, _ in events(perf)] == [C.MQRC_Q_FULL]
    assert attrs(perf, "WATCHED") == ("DISABLED", "ENABLED", "DISABLED")
    with pytest.raises(MQMIError):
        q.put(b"again")
    assert events(perf) == []  # Queue Full disabled itself


def test_no_performance_event_while_perfmev_is_disabled(perf: Any) -> None:
    perf.admin("alter_qmgr", {"PERFMEV": "DISABLED"})
    q = perf.open("WATCHED")
    for _ in range(10):
        q.put(b"m")
    assert events(perf) == []
    assert attrs(perf, "WATCHED")[0] == "ENABLED"  # nothing changed either


def test_an_event_the_event_queue_cannot_take_is_dropped_and_counted_and_the_put_succeeds(
    perf: Any, embedded: Any
) -> None:
    perf.admin("delete", "QLOCAL", EVENTQ)
    q = perf.open("WATCHED")
    for _ in range(8):
        q.put(b"m")  # the 8th makes a Queue Depth High event: no queue to take it
    assert q.depth == 8
    assert embedded.engine.events_dropped == 1
    perf.admin("define", "QLOCAL", EVENTQ, {"MAXDEPTH": 1})
    perf.open(EVENTQ).put(b"filler")  # the event queue is full
    for _ in range(7):
        q.get()  # Queue Depth Low: the event queue refuses it
    assert embedded.engine.events_dropped == 2
    assert embedded.engine.qmgr_metrics()["EVENTS_DROPPED"] == 2  # served as syncpoint_events_dropped
    assert attrs(perf, "WATCHED")[0] == "ENABLED"  # the event's rule applied even though its message was lost
