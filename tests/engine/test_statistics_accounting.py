"""Statistics and accounting messages (issue 36, item 3) against a known workload, with the fake clock driving the
intervals, over both transports. The rules are IBM's ("Accounting and statistics messages"; "MQI statistics
message data", "Queue statistics message data", "MQI accounting message data", "Queue accounting message data";
"Reference notes": arrays by object type (13) and by persistence [non-persistent, persistent]). Each message is
read back with syncpoint.pcf's parser and rebuilt byte for byte."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from syncpoint.client import QueueManager
from syncpoint.engine import FakeClock
from syncpoint.mqi import MQGMO, MQMD, MQOD, MQPMO, MQMIError
from syncpoint.mqi import constants as C
from syncpoint.mqi import monitoring as M
from syncpoint.mqsc import MqscProcessor
from syncpoint.pcf import MQCFGR, build, parse

STATQ = "SYSTEM.ADMIN.STATISTICS.QUEUE"
ACCTQ = "SYSTEM.ADMIN.ACCOUNTING.QUEUE"


def monitoring_queues(qm: QueueManager) -> None:
    """The two queues (the events helper makes them default objects; until then each test defines them)."""
    for name in (STATQ, ACCTQ):
        if qm.admin("lookup", "QLOCAL", name) is None:
            qm.admin("define", "QLOCAL", name)


def records(qm: QueueManager, queue: str) -> list[tuple[int, dict[int, Any]]]:
    """(Command, {parameter: value}) of each message on ``queue``, taken off it; a group's value is a list of its
    members' dictionaries, in order."""
    out = []
    q = qm.open(queue)
    while (m := q.get_or_none()) is not None:
        assert m.md.Format == C.MQFMT_ADMIN and m.md.MsgType == C.MQMT_DATAGRAM
        cfh, params = parse(m.data)
        assert build(cfh, params) == m.data  # byte-exact PCF, as syncpoint.pcf's structures write it
        assert cfh.Type in (M.MQCFT_STATISTICS, M.MQCFT_ACCOUNTING) and (cfh.CompCode, cfh.Reason) == (0, 0)
        out.append((cfh.Command, _values(params)))
    q.close()
    return out


def _values(params: list[Any]) -> dict[int, Any]:
    values: dict[int, Any] = {}
    for p in params:
        if isinstance(p, MQCFGR):
            values.setdefault(p.Parameter, []).append(_values(p.members))
        elif hasattr(p, "Values"):
            values[p.Parameter] = list(p.Values)
        elif hasattr(p, "Value"):
            values[p.Parameter] = p.Value
        elif p.Parameter == M.MQBACF_CONNECTION_ID:
            values[p.Parameter] = bytes(p.String)
        else:
            values[p.Parameter] = p.String.decode().rstrip(" ")
    return values


def workload(app: QueueManager, queue: str = "Q1") -> None:
    """3 non-persistent puts of 10 bytes, 2 persistent of 100, 1 MQPUT1 (non-persistent, 5 bytes), 1 browse,
    2 destructive gets (the first two messages: non-persistent), one put too big for the queue (failed), one
    open of a queue that does not exist (failed), one commit and one backout."""
    h = app.mqopen(MQOD(ObjectName=queue.encode()), C.MQOO_OUTPUT | C.MQOO_INPUT_AS_Q_DEF | C.MQOO_BROWSE)
    for _ in range(3):
        app.mqput(h, MQMD(Persistence=C.MQPER_NOT_PERSISTENT), MQPMO(), b"x" * 10)
    for _ in range(2):
        app.mqput(h, MQMD(Persistence=C.MQPER_PERSISTENT), MQPMO(), b"p" * 100)
    app.mqput1(MQOD(ObjectName=queue.encode()), MQMD(Persistence=C.MQPER_NOT_PERSISTENT), MQPMO(), b"one")
    app.mqget(h, MQMD(), MQGMO(Options=C.MQGMO_BROWSE_FIRST))
    app.mqget(h, MQMD(), MQGMO(Options=C.MQGMO_NO_SYNCPOINT))
    app.mqget(h, MQMD(), MQGMO(Options=C.MQGMO_NO_SYNCPOINT))
    with pytest.raises(MQMIError) as big:
        app.mqput(h, MQMD(), MQPMO(), b"z" * 2000)  # Q1's MAXMSGL is 1000
    assert big.value.reason == C.MQRC_MSG_TOO_BIG_FOR_Q
    with pytest.raises(MQMIError):
        app.mqopen(MQOD(ObjectName=b"NO.SUCH.QUEUE"), C.MQOO_OUTPUT)
    app.mqcmit()
    app.mqback()
    app.mqclose(h)


@pytest.fixture
def mon(qm: QueueManager) -> QueueManager:
    monitoring_queues(qm)
    qm.admin("alter", "QLOCAL", "Q1", {"MAXMSGL": 1000})
    return qm


def test_statistics_and_accounting_are_off_by_default_and_write_nothing(
    mon: QueueManager, connect: Callable[..., QueueManager], clock: FakeClock
) -> None:
    attrs = mon.admin("lookup", "QMGR", "").attrs  # IBM's defaults
    assert (attrs["STATMQI"], attrs["QMSTATQ"], attrs["ACCTMQI"], attrs["QMACCTQ"]) == ("OFF",) * 4
    assert (attrs["STATINT"], attrs["ACCTINT"]) == (1800, 1800)
    app = connect()
    workload(app)
    app.disconnect()
    clock.advance(3600)
    mon.admin("qmgr_status")  # a call after the interval: nothing is due
    assert records(mon, STATQ) == [] and records(mon, ACCTQ) == []


def test_mqi_statistics_count_a_known_workload_over_statint(
    mon: QueueManager, connect: Callable[..., QueueManager], clock: FakeClock
) -> None:
    mon.admin("alter_qmgr", {"STATMQI": "ON", "STATINT": 60})
    app = connect()
    workload(app)
    clock.advance(30)
    mon.admin("qmgr_status")
    assert records(mon, STATQ) == []  # the interval has not ended
    app.disconnect()
    clock.advance(30)
    mon.admin("qmgr_status")
    ((command, v),) = records(mon, STATQ)
    assert command == M.MQCMD_STATISTICS_MQI
    assert v[M.MQCA_Q_MGR_NAME] == "QM1" and v[M.MQIA_COMMAND_LEVEL] == C.MQCMDL_CURRENT_LEVEL
    assert (v[M.MQCAMO_START_TIME], v[M.MQCAMO_END_TIME]) == ("00.00.00", "00.01.00")  # FakeClock starts 00:00 UTC
    assert v[M.MQIAMO_CONNS] == 1 and v[M.MQIAMO_CONNS_MAX] == 2 and v[M.MQIAMO_DISCS] == [1, 0, 0]
    assert v[M.MQIAMO_PUTS] == [3, 2] and v[M.MQIAMO_PUT1S] == [1, 0]
    assert v[M.MQIAMO64_PUT_BYTES] == [3 * 10 + 3, 2 * 100]
    assert v[M.MQIAMO_GETS] == [2, 0] and v[M.MQIAMO64_GET_BYTES] == [20, 0]
    assert v[M.MQIAMO_BROWSES] == [1, 0] and v[M.MQIAMO64_BROWSE_BYTES] == [10, 0]
    assert v[M.MQIAMO_PUTS_FAILED] == 1 and v[M.MQIAMO_OPENS_FAILED] == 1
    assert v[M.MQIAMO_COMMITS] == 1 and v[M.MQIAMO_BACKOUTS] == 1
    assert len(v[M.MQIAMO_OPENS]) == 13 and v[M.MQIAMO_OPENS][C.MQOT_Q] >= 1  # MQPUT1's own open is not one
    assert v[M.MQIAMO_CLOSES][C.MQOT_Q] >= 1
    # the next interval starts where this one ended, with counts of its own
    clock.advance(60)
    mon.admin("qmgr_status")
    ((_, nxt),) = records(mon, STATQ)
    assert nxt[M.MQCAMO_START_TIME] == "00.01.00" and nxt[M.MQIAMO_PUTS] == [0, 0]


def test_queue_statistics_give_each_used_queue_its_depths_counts_and_time_on_queue(
    mon: QueueManager, connect: Callable[..., QueueManager], clock: FakeClock
) -> None:
    mon.admin("alter_qmgr", {"QMSTATQ": "ON", "STATINT": 60})
    mon.admin("define", "QLOCAL", "QUIET", {"STATQ": "OFF"})  # overrides the queue manager's ON
    app = connect()
    h = app.mqopen(MQOD(ObjectName=b"Q1"), C.MQOO_OUTPUT | C.MQOO_INPUT_AS_Q_DEF)
    app.mqput(h, MQMD(Persistence=C.MQPER_PERSISTENT), MQPMO(), b"a" * 7)
    app.mqput(h, MQMD(Persistence=C.MQPER_NOT_PERSISTENT), MQPMO(), b"b" * 3)
    clock.advance(2)
    app.mqget(h, MQMD(), MQGMO())  # the persistent one, after 2 s on the queue
    app.put1("QUIET", b"q")
    clock.advance(58)
    app.admin("qmgr_status")
    (command, v), *more = records(mon, STATQ)
    assert command == M.MQCMD_STATISTICS_Q and not more
    assert v[M.MQIAMO_OBJECT_COUNT] == 1
    (q1,) = v[M.MQGACF_Q_STATISTICS_DATA]  # QUIET's STATQ(OFF): no record
    assert q1[M.MQCA_Q_NAME] == "Q1" and q1[M.MQIA_Q_TYPE] == C.MQQT_LOCAL
    assert q1[M.MQIA_DEFINITION_TYPE] == C.MQQDT_PREDEFINED
    assert (q1[M.MQIAMO_Q_MIN_DEPTH], q1[M.MQIAMO_Q_MAX_DEPTH]) == (0, 2)
    assert q1[M.MQIAMO_PUTS] == [1, 1] and q1[M.MQIAMO64_PUT_BYTES] == [3, 7]
    assert q1[M.MQIAMO_GETS] == [0, 1] and q1[M.MQIAMO64_GET_BYTES] == [0, 7]
    assert q1[M.MQIAMO_AVG_Q_TIME] == [0, 2_000_000]  # microseconds
    # STATQ(NONE) on the queue manager switches every queue off, whatever its own STATQ
    mon.admin("alter", "QLOCAL", "QUIET", {"STATQ": "ON"})
    mon.admin("alter_qmgr", {"QMSTATQ": "NONE"})
    app.put1("QUIET", b"q")
    clock.advance(60)
    app.admin("qmgr_status")
    assert records(mon, STATQ) == []


def test_accounting_is_written_at_disconnect_with_the_connections_identity_and_queues(
    mon: QueueManager, connect: Callable[..., QueueManager], clock: FakeClock
) -> None:
    mon.admin("alter_qmgr", {"ACCTMQI": "ON", "QMACCTQ": "ON"})
    app = connect(appl_name="payments")
    workload(app)
    clock.advance(5)
    app.disconnect()
    (mqi_cmd, mqi), (q_cmd, qacct) = records(mon, ACCTQ)
    assert (mqi_cmd, q_cmd) == (M.MQCMD_ACCOUNTING_MQI, M.MQCMD_ACCOUNTING_Q)
    assert mqi[M.MQCACF_APPL_NAME] == "payments" and mqi[M.MQIACF_SEQUENCE_NUMBER] == 0
    assert len(mqi[M.MQBACF_CONNECTION_ID]) == 24 and mqi[M.MQBACF_CONNECTION_ID][:4] == b"AMQC"
    assert mqi[M.MQIAMO_DISC_TYPE] == M.MQDISCONNECT_NORMAL and mqi[M.MQCAMO_DISC_TIME] == "00.00.05"
    assert mqi[M.MQIAMO_PUTS] == [3, 2] and mqi[M.MQIAMO_PUT1S] == [1, 0] and mqi[M.MQIAMO_GETS] == [2, 0]
    assert mqi[M.MQIAMO_PUTS_FAILED] == 1 and mqi[M.MQIAMO_COMMITS] == 1 and mqi[M.MQIAMO_BACKOUTS] == 1
    assert qacct[M.MQBACF_CONNECTION_ID] == mqi[M.MQBACF_CONNECTION_ID]
    (q1,) = qacct[M.MQGACF_Q_ACCOUNTING_DATA]
    assert q1[M.MQCA_Q_NAME] == "Q1" and q1[M.MQIAMO_OPENS] >= 1
    assert q1[M.MQIAMO_PUTS] == [3, 2] and q1[M.MQIAMO_PUT1S] == [1, 0]
    assert (q1[M.MQIAMO_PUT_MIN_BYTES], q1[M.MQIAMO_PUT_MAX_BYTES]) == ([3, 100], [10, 100])
    assert q1[M.MQIAMO_GETS] == [2, 0] and q1[M.MQIAMO_BROWSES] == [1, 0] and q1[M.MQIAMO_PUTS_FAILED] == 1


def test_a_long_running_connection_gets_an_accounting_record_every_acctint(
    mon: QueueManager, connect: Callable[..., QueueManager], clock: FakeClock
) -> None:
    mon.admin("alter_qmgr", {"ACCTMQI": "ON", "ACCTINT": 60})
    app = connect()
    q = app.open("Q1")
    q.put(b"one")
    clock.advance(61)
    q.put(b"two")  # a call after ACCTINT: the intermediate record, then this put counts in the next one
    ((cmd, first),) = records(mon, ACCTQ)
    assert cmd == M.MQCMD_ACCOUNTING_MQI and first[M.MQIACF_SEQUENCE_NUMBER] == 0
    assert first[M.MQIAMO_PUTS] == [1, 0] and M.MQIAMO_DISC_TYPE not in first  # not a disconnect
    app.disconnect()
    ((_, last),) = records(mon, ACCTQ)
    assert last[M.MQIACF_SEQUENCE_NUMBER] == 1 and last[M.MQIAMO_PUTS] == [1, 0]
    assert last[M.MQIAMO_DISC_TYPE] == M.MQDISCONNECT_NORMAL


def test_reset_qmgr_type_statistics_writes_the_interval_now_and_starts_another(
    mon: QueueManager, connect: Callable[..., QueueManager], clock: FakeClock
) -> None:
    mon.admin("alter_qmgr", {"STATMQI": "ON"})  # STATINT 1800
    app = connect()
    app.put1("Q1", b"m")
    clock.advance(10)
    lines = MqscProcessor(mon, echo=False).execute("RESET QMGR TYPE(STATISTICS)").lines
    assert lines == ["AMQ8733I: Reset syncpoint queue manager accepted."]
    ((_, v),) = records(mon, STATQ)
    assert v[M.MQIAMO_PUT1S] == [1, 0] and v[M.MQCAMO_END_TIME] == "00.00.10"
    clock.advance(1790)
    mon.admin("qmgr_status")
    assert records(mon, STATQ) == []  # the new interval ends 1800 s after the reset, not at the old end
    bad = MqscProcessor(mon, echo=False).execute("RESET QMGR TYPE(NOTHING)")
    assert not bad.ok and any("TYPE(NOTHING) is not a type of RESET QMGR" in line for line in bad.lines)


def test_a_full_statistics_queue_drops_the_message_and_fails_no_call(
    mon: QueueManager, connect: Callable[..., QueueManager], clock: FakeClock
) -> None:
    mon.admin("alter", "QLOCAL", STATQ, {"MAXDEPTH": 1})
    mon.admin("alter_qmgr", {"STATMQI": "ON", "STATINT": 10})
    app = connect()
    for _ in range(3):
        clock.advance(10)
        app.put1("Q1", b"m")  # each ends an interval; the queue takes only the first message
    assert len(records(mon, STATQ)) == 1


@pytest.mark.parametrize(
    ("attrs", "words"),
    [
        ({"STATMQI": "MAYBE"}, "STATMQI(MAYBE) is not valid"),
        ({"QMSTATQ": "QMGR"}, "is not valid"),
        ({"STATINT": 0}, "STATINT must be from 1 to 604800"),
        ({"ACCTINT": 604_801}, "ACCTINT must be from 1 to 604800"),
    ],
)
def test_statistics_attributes_refuse_values_ibm_refuses_and_change_nothing(
    mon: QueueManager, attrs: dict[str, Any], words: str
) -> None:
    before = dict(mon.admin("lookup", "QMGR", "").attrs)
    with pytest.raises(MQMIError) as e:
        mon.admin("alter_qmgr", attrs)
    assert words in str(e.value)
    assert mon.admin("lookup", "QMGR", "").attrs == before


def test_the_switches_and_intervals_survive_a_restart_and_start_collecting_at_once(clock: FakeClock) -> None:
    from syncpoint.engine import QueueManager as Engine
    from syncpoint.store import MemoryStore

    store = MemoryStore()
    store.open()
    store.write(Engine.initial_batch("QM1", clock, "SYSTEM.DEAD.LETTER.QUEUE"))

    def settle(engine: Engine) -> None:
        while (e := engine.take_effects()) is not None:
            if e.batch is not None:
                store.write(e.batch)

    engine = Engine("QM1", store.open(), clock)
    engine.alter_qmgr({"STATMQI": "ON", "STATINT": 120, "ACCTMQI": "ON", "ACCTINT": 300})
    engine.define("QLOCAL", "Q1", {"STATQ": "ON", "ACCTQ": "OFF"})
    settle(engine)
    restarted = Engine("QM1", store.open(), clock)
    a = restarted.qmgr.attrs
    assert (a["STATMQI"], a["STATINT"], a["ACCTMQI"], a["ACCTINT"]) == ("ON", 120, "ON", 300)
    assert restarted.queues["Q1"].attrs["STATQ"] == "ON" and restarted.queues["Q1"].attrs["ACCTQ"] == "OFF"
    assert restarted.monitoring_on  # collecting from the start, the first interval ending STATINT later
    assert restarted._mon_next == clock.time() + 120


def test_an_abnormal_end_is_accounted_as_implicit_and_switching_off_stops_the_counting(
    mon: QueueManager, embedded: Any, clock: FakeClock
) -> None:
    mon.admin("alter_qmgr", {"ACCTMQI": "ON"})
    engine = embedded.engine
    from syncpoint.host import os_user

    conn = embedded.call(engine.connect, "broken.app", C.MQAT_UNIX, os_user(), 7)  # it will end without MQDISC
    mon.admin("alter_qmgr", {"ACCTMQI": "OFF"})  # decided at MQCONN: this one is still accounted
    assert engine.monitoring_on
    embedded.call(engine.disconnect, conn, True)
    ((_, v),) = records(mon, ACCTQ)
    assert v[M.MQIAMO_DISC_TYPE] == M.MQDISCONNECT_IMPLICIT and v[M.MQCACF_APPL_NAME] == "broken.app"
    assert not engine.monitoring_on  # nothing is counted any more
