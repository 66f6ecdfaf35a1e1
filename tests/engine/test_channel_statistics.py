"""Channel statistics (STATCHL, issue 36 item 3) and what a controlled end writes, with the fake clock driving the
interval. IBM's rules: ALTER QMGR STATCHL (OFF | LOW | MEDIUM | HIGH | NONE) and the channel's STATCHL (QMGR | OFF |
LOW | MEDIUM | HIGH: QMGR inherits, NONE at the queue manager overrides every channel); "Channel statistics message
data" (MQCMD_STATISTICS_CHANNEL 166, one ChlStatisticsData group a channel); "Statistics message generation":
statistics are written every STATINT "and when a queue manager shuts down in a controlled fashion". The figures
reach the engine as the MCAs give them (``count_channel``); tests/channel/test_ch_statistics.py runs a real channel
pair."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from test_statistics_accounting import ACCTQ, STATQ, monitoring_queues, records

from syncpoint.client import QueueManager, memory_queue_manager
from syncpoint.engine import FakeClock
from syncpoint.mqi import MQMIError
from syncpoint.mqi import constants as C
from syncpoint.mqi import monitoring as M
from syncpoint.mqi.objects import MQCHT_RECEIVER, MQCHT_SENDER
from syncpoint.pcf import parse

RCVR = {"CHLTYPE": MQCHT_RECEIVER}


@pytest.fixture
def qm(connect: Callable[..., QueueManager]) -> QueueManager:
    q = connect()
    monitoring_queues(q)
    q.admin("define", "CHANNEL", "FROM.QM9", dict(RCVR))
    return q


def test_a_channel_collects_as_its_statchl_and_the_queue_managers_say(qm: QueueManager) -> None:
    assert not qm.admin("channel_statistics", "FROM.QM9")  # IBM's defaults: STATCHL(OFF), the channel's QMGR
    assert qm.admin("lookup", "CHANNEL", "FROM.QM9").attrs["CHLSTATCHL"] == "QMGR"
    qm.admin("alter_qmgr", {"STATCHL": "MEDIUM"})
    assert qm.admin("channel_statistics", "FROM.QM9")  # QMGR inherits LOW / MEDIUM / HIGH
    qm.admin("alter", "CHANNEL", "FROM.QM9", {"CHLSTATCHL": "OFF"})
    assert not qm.admin("channel_statistics", "FROM.QM9")  # the channel's OFF overrides
    qm.admin("alter_qmgr", {"STATCHL": "OFF"})
    qm.admin("alter", "CHANNEL", "FROM.QM9", {"CHLSTATCHL": "HIGH"})
    assert qm.admin("channel_statistics", "FROM.QM9")  # the channel's own, the queue manager's OFF
    qm.admin("alter_qmgr", {"STATCHL": "NONE"})
    assert not qm.admin("channel_statistics", "FROM.QM9")  # NONE: no channel, whatever its own
    assert not qm.admin("channel_statistics", "NO.SUCH.CHANNEL")


def test_statchl_refuses_values_ibm_refuses_and_changes_nothing(qm: QueueManager) -> None:
    for bad in ("ON", "QMGR"):  # the queue manager's takes OFF, LOW, MEDIUM, HIGH, NONE
        with pytest.raises(MQMIError):
            qm.admin("alter_qmgr", {"STATCHL": bad})
    for bad in ("ON", "NONE"):  # a channel's takes QMGR, OFF, LOW, MEDIUM, HIGH
        with pytest.raises(MQMIError):
            qm.admin("alter", "CHANNEL", "FROM.QM9", {"CHLSTATCHL": bad})
    assert qm.admin("lookup", "QMGR", "").attrs["STATCHL"] == "OFF"
    assert qm.admin("lookup", "CHANNEL", "FROM.QM9").attrs["CHLSTATCHL"] == "QMGR"


def test_a_channels_batches_are_written_every_statint_in_ibms_layout(qm: QueueManager, clock: FakeClock) -> None:
    qm.admin("alter_qmgr", {"STATCHL": "LOW", "STATINT": 60})
    qm.admin("define", "CHANNEL", "TO.QM9", {"CHLTYPE": MQCHT_SENDER, "CONNAME": "qm9(1414)", "CHLXMITQ": "QM9"})
    # a receiver: two batches (one full), a put that entered the message-retry loop
    qm.admin("count_channel", "FROM.QM9", MQCHT_RECEIVER, "QM9", "10.0.0.9", 10, 1000, True)
    qm.admin("count_channel", "FROM.QM9", MQCHT_RECEIVER, "QM9", "10.0.0.9", 5, 500, False)
    qm.admin("count_channel", "FROM.QM9", MQCHT_RECEIVER, "QM9", "10.0.0.9", put_retries=1)
    # a sender: its round trips (microseconds)
    qm.admin("count_channel", "TO.QM9", MQCHT_SENDER, "QM9", "qm9(1414)", 3, 300, False, 2000)
    qm.admin("count_channel", "TO.QM9", MQCHT_SENDER, "QM9", "qm9(1414)", 3, 300, False, 4000)
    clock.advance(30)
    qm.admin("qmgr_status")
    assert records(qm, STATQ) == []  # the interval has not ended
    clock.advance(30)
    qm.admin("qmgr_status")
    ((command, v),) = records(qm, STATQ)  # STATMQI and STATQ are off: the channels' message only
    assert command == M.MQCMD_STATISTICS_CHANNEL and v[M.MQIAMO_OBJECT_COUNT] == 2
    assert (v[M.MQCAMO_START_TIME], v[M.MQCAMO_END_TIME]) == ("00.00.00", "00.01.00")
    rcvr, sdr = v[M.MQGACF_CHL_STATISTICS_DATA]
    assert rcvr[M.MQCACH_CHANNEL_NAME] == "FROM.QM9" and rcvr[M.MQIACH_CHANNEL_TYPE] == MQCHT_RECEIVER
    assert rcvr[M.MQCA_REMOTE_Q_MGR_NAME] == "QM9" and rcvr[M.MQCACH_CONNECTION_NAME] == "10.0.0.9"
    assert rcvr[M.MQIAMO_MSGS] == 15 and rcvr[M.MQIAMO64_BYTES] == [1500]
    assert (rcvr[M.MQIAMO_FULL_BATCHES], rcvr[M.MQIAMO_INCOMPLETE_BATCHES]) == (1, 1)
    assert rcvr[M.MQIAMO_AVG_BATCH_SIZE] == 7 and rcvr[M.MQIAMO_PUT_RETRIES] == 1
    assert M.MQIAMO_NET_TIME_AVG not in rcvr  # IBM: "when available"; only a sending MCA measures it
    assert M.MQIAMO_EXIT_TIME_AVG not in rcvr  # no channel exits: never available
    assert sdr[M.MQIACH_CHANNEL_TYPE] == MQCHT_SENDER and sdr[M.MQIAMO_MSGS] == 6
    assert (sdr[M.MQIAMO_NET_TIME_MIN], sdr[M.MQIAMO_NET_TIME_AVG], sdr[M.MQIAMO_NET_TIME_MAX]) == (2000, 3000, 4000)
    # the next interval has no batch: no channel message
    clock.advance(60)
    qm.admin("qmgr_status")
    assert records(qm, STATQ) == []


def test_a_channel_started_while_statchl_is_off_is_not_counted_and_nothing_is_written(
    qm: QueueManager, clock: FakeClock
) -> None:
    qm.admin("count_channel", "FROM.QM9", MQCHT_RECEIVER, "QM9", "", 10, 1000, True)  # no collection: ignored
    clock.advance(3600)
    qm.admin("qmgr_status")
    assert records(qm, STATQ) == []


def test_count_channel_refuses_bad_figures_and_counts_nothing(qm: QueueManager, clock: FakeClock) -> None:
    qm.admin("alter_qmgr", {"STATCHL": "HIGH", "STATINT": 60})
    for args in (
        ("FROM.QM9", MQCHT_RECEIVER, "QM9", "", -1, 0, True),  # a negative count
        ("FROM.QM9", 7, "QM9", "", 1, 0, True),  # not a message channel's type
        ("", MQCHT_RECEIVER, "QM9", "", 1, 0, True),  # no name
        ("FROM.QM9", MQCHT_RECEIVER, "QM9", "", "1", 0, True),  # not a number
        ("FROM.QM9", MQCHT_RECEIVER, "QM9", "", 1, 0, "yes"),  # full: a bool or None
        ("FROM.QM9", MQCHT_RECEIVER, "QM9", "", 1, 0, True, "5"),  # a net time that is not a number
        ("FROM.QM9", MQCHT_RECEIVER, "QM9", "", 1, 0, True, -2),  # -1 is "not measured"; below, nonsense
    ):
        with pytest.raises(MQMIError) as e:
            qm.admin("count_channel", *args)
        assert e.value.reason == C.MQRC_UNEXPECTED_ERROR
    clock.advance(60)
    qm.admin("qmgr_status")
    assert records(qm, STATQ) == []


def _taken(engine: Any, queue: str) -> list[tuple[int, list[Any]]]:
    """(Command, parameters) of each message left on ``queue`` of an ended queue manager's engine."""
    return [(cfh.Command, params) for cfh, params in (parse(m.data) for m in engine.queues[queue].iter_all())]


def _value(params: list[Any], parameter: int) -> Any:
    return next(p.Value for p in params if p.Parameter == parameter)


def test_a_controlled_end_writes_the_statistics_and_the_open_connections_accounting(clock: FakeClock) -> None:
    host = memory_queue_manager("QM1", clock=clock)
    import syncpoint

    admin = syncpoint.connect("QM1", embedded=host)
    monitoring_queues(admin)
    admin.admin("alter_qmgr", {"STATMQI": "ON", "ACCTMQI": "ON", "STATINT": 3600})
    app = syncpoint.connect("QM1", embedded=host, appl_name="still.running")
    app.open(STATQ.replace("STATISTICS", "ACCOUNTING"))  # an open: the MQI figures are not empty
    clock.advance(10)
    host.close(abnormal=False)  # endmqm -c: the server's normal close
    ((command, stats),) = _taken(host.engine, STATQ)
    assert command == M.MQCMD_STATISTICS_MQI and _value(stats, M.MQIAMO_CONNS) == 1
    # the application still connected (accounting is decided at MQCONN: the admin connection came before it)
    ((command, acct),) = _taken(host.engine, ACCTQ)  # once: its disconnect by the close writes nothing more
    assert command == M.MQCMD_ACCOUNTING_MQI
    assert _value(acct, M.MQIAMO_DISC_TYPE) == M.MQDISCONNECT_Q_MGR  # IBM: "broken by the queue manager"
    assert next(p.String for p in acct if p.Parameter == M.MQCACF_APPL_NAME).rstrip() == b"still.running"


def test_an_immediate_end_writes_no_statistics(clock: FakeClock) -> None:
    host = memory_queue_manager("QM1", clock=clock)
    import syncpoint

    admin = syncpoint.connect("QM1", embedded=host)
    monitoring_queues(admin)
    admin.admin("alter_qmgr", {"STATMQI": "ON", "STATINT": 3600})
    host.close(abnormal=True)  # endmqm -i: IBM writes them at a controlled end only
    assert _taken(host.engine, STATQ) == []


def test_pcf_inquire_channel_answers_channel_statistics_as_mqmon(qm: QueueManager) -> None:
    from syncpoint.pcf._channels import describe_channel

    qm.admin("alter", "CHANNEL", "FROM.QM9", {"CHLSTATCHL": "MEDIUM"})
    params = describe_channel(qm.admin("lookup", "CHANNEL", "FROM.QM9"), [C.MQIA_STATISTICS_CHANNEL])
    assert [p.Value for p in params if p.Parameter == C.MQIA_STATISTICS_CHANNEL] == [C.MQMON_MEDIUM]
