"""Triggering — seed 001_30538df842c6cd11.txt ("Conditions for a trigger event"), every condition a rule.

For each condition: a trigger message when it holds, none when it is the only one that fails. Everything runs
on the fake clock; no test sleeps. "The monitor" is a connection holding the initiation queue open for input,
which is all the queue manager can know of a trigger monitor (condition 8).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from pathlib import Path
from typing import Any

import hypothesis.strategies as st
import pytest
from hypothesis import HealthCheck, given, settings

import syncpoint
from syncpoint.client import EmbeddedQueueManager, QueueManager, create_queue_manager, open_embedded
from syncpoint.engine import FakeClock
from syncpoint.engine._trigger import trigger_depth
from syncpoint.mqi import MQDLH, MQMD, MQOD, MQTM
from syncpoint.mqi import constants as C

Connect = Callable[..., QueueManager]
INPUT = C.MQOO_INPUT_SHARED | C.MQOO_FAIL_IF_QUIESCING


# -- set-up -------------------------------------------------------------------------------------------
@pytest.fixture
def admin(connect: Connect) -> QueueManager:
    a = connect(appl_name="admin")
    a.admin("define", "PROCESS", "PROC", {"APPLICID": "/usr/bin/server", "ENVRDATA": "env", "USERDATA": "user"})
    a.admin("define", "QLOCAL", "INITQ")
    return a


def define_app(admin: QueueManager, name: str = "APPQ", **attrs: Any) -> None:
    base: dict[str, Any] = {
        "TRIGGER": C.MQTC_ON,
        "TRIGTYPE": C.MQTT_FIRST,
        "PROCESS": "PROC",
        "INITQ": "INITQ",
        "TRIGDATA": "trigger data",
    }
    base.update(attrs)
    admin.admin("define", "QLOCAL", name, base)


class Monitor:
    """A connection holding the initiation queue open for input; reads the trigger messages."""

    def __init__(self, connect: Connect, initq: str = "INITQ") -> None:
        self.conn = connect(appl_name="runmqtrm")
        self.q = self.conn.open(initq, INPUT)

    def take(self) -> list[tuple[MQMD, MQTM]]:
        out = []
        while (m := self.q.get_or_none()) is not None:
            out.append((m.md, MQTM.unpack(m.data)))
        return out

    def names(self) -> list[str]:
        return [tm.QName.decode().rstrip() for _, tm in self.take()]

    def close(self) -> None:
        self.q.close()


@pytest.fixture
def monitor(admin: QueueManager, connect: Connect) -> Monitor:
    return Monitor(connect)


def depth(qm: QueueManager, name: str) -> int:
    return int(qm.admin("queue_status", name)["CURDEPTH"])


def attr(qm: QueueManager, name: str, keyword: str) -> Any:
    return qm.admin("lookup", "QLOCAL", name).attrs[keyword]


# == the trigger message ===============================================================================
def test_trigger_message_is_an_mqtm_with_format_mqtrig_nonpersistent_unlimited_expiry(
    admin: QueueManager, monitor: Monitor
) -> None:
    # triggering.md: MQMD Format "MQTRIG  ", non-persistent, Expiry MQEI_UNLIMITED, the initiation queue's
    # default priority; QName, ProcessName, TriggerData from the queue, the rest from the process.
    admin.admin("alter", "QLOCAL", "INITQ", {"DEFPRTY": 3})
    define_app(admin)
    admin.open("APPQ").put(b"x", priority=7)
    msgs = monitor.q.get()
    md = msgs.md
    assert md.Format == C.MQFMT_TRIGGER
    assert md.Persistence == C.MQPER_NOT_PERSISTENT
    assert md.Expiry == C.MQEI_UNLIMITED
    assert md.Priority == 3
    assert md.MsgType == C.MQMT_DATAGRAM
    assert md.PutApplType == C.MQAT_QMGR
    expected = MQTM(
        QName=b"APPQ".ljust(48),
        ProcessName=b"PROC".ljust(48),
        TriggerData=b"trigger data".ljust(64),
        ApplType=C.MQAT_UNIX,
        ApplId=b"/usr/bin/server".ljust(256),
        EnvData=b"env".ljust(128),
        UserData=b"user".ljust(128),
    ).pack()
    assert len(msgs.data) == 684
    assert msgs.data == expected
    assert msgs.data[:8] == b"TM  \x01\x00\x00\x00"


def test_trigger_message_takes_the_attributes_of_the_moment_it_is_created(
    admin: QueueManager, monitor: Monitor
) -> None:
    define_app(admin, TRIGTYPE=C.MQTT_EVERY)
    q = admin.open("APPQ")
    q.put(b"1")
    admin.admin("alter", "QLOCAL", "APPQ", {"TRIGDATA": "second"})
    admin.admin("define", "PROCESS", "PROC", {"APPLICID": "/usr/bin/other"}, replace=True)
    q.put(b"2")
    (_, first), (_, second) = monitor.take()
    assert first.TriggerData.rstrip() == b"trigger data" and first.ApplId.rstrip() == b"/usr/bin/server"
    assert second.TriggerData.rstrip() == b"second" and second.ApplId.rstrip() == b"/usr/bin/other"


# == conditions 1 and 2: a message put, of priority >= TRIGMPRI =========================================
def test_condition_2_priority_at_or_above_trigmpri_triggers(admin: QueueManager, monitor: Monitor) -> None:
    define_app(admin, TRIGMPRI=5)
    admin.open("APPQ").put(b"x", priority=5)
    assert monitor.names() == ["APPQ"]


def test_condition_2_priority_below_trigmpri_does_not_trigger(admin: QueueManager, monitor: Monitor) -> None:
    define_app(admin, TRIGMPRI=5)
    admin.open("APPQ").put(b"x", priority=4)
    assert monitor.take() == []


def test_condition_2_trigmpri_zero_lets_any_message_qualify(admin: QueueManager, monitor: Monitor) -> None:
    define_app(admin, TRIGMPRI=0)
    admin.open("APPQ").put(b"x", priority=0)
    assert monitor.names() == ["APPQ"]


def test_condition_1_mqput1_and_a_put_through_an_alias_trigger(admin: QueueManager, monitor: Monitor) -> None:
    define_app(admin, TRIGTYPE=C.MQTT_EVERY)
    admin.admin("define", "QALIAS", "ALIAS", {"TARGET": "APPQ"})
    admin.put1("APPQ", b"1")
    admin.open("ALIAS").put(b"2")
    assert monitor.names() == ["APPQ", "APPQ"]


def test_condition_1_a_report_the_queue_manager_puts_triggers(
    admin: QueueManager, monitor: Monitor, clock: FakeClock
) -> None:
    # a message put by the queue manager itself (here an expiration report, seed 002) is "a message put"
    define_app(admin, "REPLY")
    admin.admin("define", "QLOCAL", "Q1")
    q = admin.open("Q1")
    q.put(b"x", md=MQMD(Expiry=10, Report=C.MQRO_EXPIRATION, ReplyToQ=b"REPLY"))
    clock.advance(2)
    assert q.get_or_none() is None  # discards the expired message and sends the report
    assert depth(admin, "REPLY") == 1
    assert monitor.names() == ["REPLY"]


# == condition 3: the previous count of messages of sufficient priority ==================================
def test_condition_3_first_triggers_when_the_queue_was_empty(admin: QueueManager, monitor: Monitor) -> None:
    define_app(admin)
    q = admin.open("APPQ")
    q.put(b"1")
    q.put(b"2")
    q.put(b"3")
    assert monitor.names() == ["APPQ"]


def test_condition_3_first_does_not_trigger_when_the_queue_was_not_empty(admin: QueueManager, monitor: Monitor) -> None:
    define_app(admin, TRIGGER=C.MQTC_OFF)
    q = admin.open("APPQ")
    q.put(b"1")
    admin.admin("alter", "QLOCAL", "APPQ", {"TRIGGER": C.MQTC_ON})
    assert monitor.names() == ["APPQ"]  # condition 13: the ALTER itself (counted, then drained)
    q.put(b"2")  # not previously empty, and TRIGINT (default 999999999 ms) has not passed
    assert monitor.take() == []


def test_condition_3_every_triggers_for_every_message(admin: QueueManager, monitor: Monitor) -> None:
    define_app(admin, TRIGTYPE=C.MQTT_EVERY)
    q = admin.open("APPQ")
    for i in range(4):
        q.put(b"%d" % i)
    assert monitor.names() == ["APPQ"] * 4


def test_condition_3_depth_triggers_when_the_count_was_trigdpth_minus_1(admin: QueueManager, monitor: Monitor) -> None:
    define_app(admin, TRIGTYPE=C.MQTT_DEPTH, TRIGDPTH=3)
    q = admin.open("APPQ")
    q.put(b"1")
    q.put(b"2")
    assert monitor.take() == []  # the count before the second put was 1, not TRIGDPTH - 1
    q.put(b"3")
    assert monitor.names() == ["APPQ"]


def test_condition_3_counts_uncommitted_messages_on_non_shared_queues(
    admin: QueueManager, monitor: Monitor, connect: Connect
) -> None:
    # note a: "For non-shared local queues, the queue manager counts both committed and uncommitted messages"
    define_app(admin)
    other = connect()
    other.open("APPQ").put(b"uncommitted", syncpoint=True)
    admin.open("APPQ").put(b"committed")
    other.commit()
    assert monitor.names() == ["APPQ"]  # one trigger: the uncommitted put's; the second put's count was 1


def test_condition_3_depth_counts_uncommitted_messages(admin: QueueManager, monitor: Monitor, connect: Connect) -> None:
    define_app(admin, TRIGTYPE=C.MQTT_DEPTH, TRIGDPTH=3)
    other = connect()
    oq = other.open("APPQ")
    oq.put(b"1", syncpoint=True)
    oq.put(b"2", syncpoint=True)
    admin.open("APPQ").put(b"3")  # 2 uncommitted + this one = TRIGDPTH
    assert monitor.names() == ["APPQ"]
    other.backout()


def test_condition_3_only_messages_of_sufficient_priority_count(admin: QueueManager, monitor: Monitor) -> None:
    define_app(admin, TRIGTYPE=C.MQTT_DEPTH, TRIGDPTH=2, TRIGMPRI=5)
    q = admin.open("APPQ")
    q.put(b"high", priority=6)
    q.put(b"low", priority=1)  # below TRIGMPRI: neither triggers nor counts
    assert monitor.take() == []
    q.put(b"high", priority=5)
    assert monitor.names() == ["APPQ"]


# == condition 4: IPPROCS = 0 for FIRST and DEPTH ========================================================
@pytest.mark.parametrize("ttype", [C.MQTT_FIRST, C.MQTT_DEPTH])
def test_condition_4_first_and_depth_do_not_trigger_while_the_queue_is_open_for_input(
    admin: QueueManager, monitor: Monitor, connect: Connect, ttype: int
) -> None:
    define_app(admin, TRIGTYPE=ttype)
    server = connect()
    server.open("APPQ", INPUT)
    admin.open("APPQ").put(b"x")
    assert monitor.take() == []


@pytest.mark.parametrize("ttype", [C.MQTT_FIRST, C.MQTT_DEPTH])
def test_condition_4_first_and_depth_trigger_when_the_queue_is_open_only_for_output_and_browse(
    admin: QueueManager, monitor: Monitor, connect: Connect, ttype: int
) -> None:
    define_app(admin, TRIGTYPE=ttype)
    other = connect()
    other.open("APPQ", C.MQOO_BROWSE | C.MQOO_OUTPUT | C.MQOO_INQUIRE)
    admin.open("APPQ").put(b"x")
    assert monitor.names() == ["APPQ"]


def test_condition_4_does_not_apply_to_every(admin: QueueManager, monitor: Monitor, connect: Connect) -> None:
    define_app(admin, TRIGTYPE=C.MQTT_EVERY)
    server = connect()
    server.open("APPQ", INPUT)
    admin.open("APPQ").put(b"x")
    assert monitor.names() == ["APPQ"]


# == condition 5: gets not inhibited =====================================================================
def test_condition_5_get_inhibited_application_queue_does_not_trigger(admin: QueueManager, monitor: Monitor) -> None:
    define_app(admin, GET=C.MQQA_GET_INHIBITED)
    admin.open("APPQ").put(b"x")
    assert monitor.take() == []


def test_condition_5_get_inhibited_transmission_queue_does_not_trigger(admin: QueueManager, monitor: Monitor) -> None:
    define_app(admin, USAGE=C.MQUS_TRANSMISSION, GET=C.MQQA_GET_INHIBITED)
    admin.open("APPQ").put(b"x")
    assert monitor.take() == []


# == condition 6: a process definition, or a blank one on a transmission queue ===========================
def test_condition_6_process_that_does_not_exist_does_not_trigger(admin: QueueManager, monitor: Monitor) -> None:
    define_app(admin, PROCESS="NO.SUCH.PROCESS")
    admin.open("APPQ").put(b"x")
    assert monitor.take() == []


def test_condition_6_blank_process_on_a_normal_queue_does_not_trigger(admin: QueueManager, monitor: Monitor) -> None:
    define_app(admin, PROCESS="")
    admin.open("APPQ").put(b"x")
    assert monitor.take() == []


def test_condition_6_blank_process_on_a_transmission_queue_triggers_with_blank_process_fields(
    admin: QueueManager, monitor: Monitor
) -> None:
    # "QName: queue name, ProcessName: blanks, TriggerData: trigger data, ApplType: MQAT_UNKNOWN,
    #  ApplId: blanks, EnvData: blanks, UserData: blanks"
    define_app(admin, "XMITQ", PROCESS="", USAGE=C.MQUS_TRANSMISSION, TRIGDATA="TO.QM2")
    admin.open("XMITQ").put(b"x")
    ((_, tm),) = monitor.take()
    assert tm.QName == b"XMITQ".ljust(48)
    assert tm.ProcessName == b" " * 48
    assert tm.TriggerData == b"TO.QM2".ljust(64)
    assert tm.ApplType == C.MQAT_UNKNOWN
    assert tm.ApplId == b" " * 256 and tm.EnvData == b" " * 128 and tm.UserData == b" " * 128


def test_condition_6_transmission_queue_with_a_missing_process_does_not_trigger(
    admin: QueueManager, monitor: Monitor
) -> None:
    define_app(admin, "XMITQ", PROCESS="NO.SUCH.PROCESS", USAGE=C.MQUS_TRANSMISSION)
    admin.open("XMITQ").put(b"x")
    assert monitor.take() == []


# == condition 7: the initiation queue ===================================================================
def test_condition_7_blank_initq_does_not_trigger(admin: QueueManager, monitor: Monitor) -> None:
    define_app(admin, INITQ="")
    admin.open("APPQ").put(b"x")
    assert monitor.take() == []


def test_condition_7_initq_that_does_not_exist_does_not_trigger(admin: QueueManager, monitor: Monitor) -> None:
    define_app(admin, INITQ="NO.SUCH.QUEUE")
    admin.open("APPQ").put(b"x")
    assert monitor.take() == []


@pytest.mark.parametrize(
    "initq_attrs",
    [
        {"GET": C.MQQA_GET_INHIBITED},
        {"PUT": C.MQQA_PUT_INHIBITED},
        {"USAGE": C.MQUS_TRANSMISSION},
    ],
    ids=["get-inhibited", "put-inhibited", "usage-xmitq"],
)
def test_condition_7_initq_get_put_inhibited_or_not_usage_normal_does_not_trigger(
    admin: QueueManager, monitor: Monitor, initq_attrs: dict[str, int]
) -> None:
    define_app(admin)
    admin.admin("alter", "QLOCAL", "INITQ", initq_attrs)
    admin.open("APPQ").put(b"x")
    assert depth(admin, "INITQ") == 0
    assert depth(admin, "SYSTEM.DEAD.LETTER.QUEUE") == 0


def test_condition_7_deleted_dynamic_initq_does_not_trigger(admin: QueueManager, connect: Connect) -> None:
    owner = connect()
    od = MQOD(ObjectName=b"SYSTEM.DEFAULT.MODEL.QUEUE", DynamicQName=b"DYN.INITQ")
    h = owner.mqopen(od, INPUT)
    define_app(admin, INITQ="DYN.INITQ")
    owner.mqclose(h)  # the temporary dynamic initiation queue is deleted with its creator's close
    admin.open("APPQ").put(b"x")
    assert admin.admin("lookup", "QLOCAL", "DYN.INITQ") is None
    assert depth(admin, "SYSTEM.DEAD.LETTER.QUEUE") == 0


def test_condition_7_dynamic_initq_that_exists_triggers(admin: QueueManager, connect: Connect) -> None:
    owner = connect()
    od = MQOD(ObjectName=b"SYSTEM.DEFAULT.MODEL.QUEUE", DynamicQName=b"DYN.INITQ")
    owner.mqopen(od, INPUT)
    define_app(admin, INITQ="DYN.INITQ")
    admin.open("APPQ").put(b"x")
    assert depth(admin, "DYN.INITQ") == 1


# == condition 8: a trigger monitor holds the initiation queue open for input ============================
def test_condition_8_no_trigger_without_the_initq_open_for_input(admin: QueueManager, connect: Connect) -> None:
    define_app(admin)
    watcher = connect()
    watcher.open("INITQ", C.MQOO_BROWSE | C.MQOO_INQUIRE | C.MQOO_OUTPUT)  # not for input
    admin.open("APPQ").put(b"x")
    assert depth(admin, "INITQ") == 0


def test_condition_8_trigger_with_the_initq_open_for_input(admin: QueueManager, monitor: Monitor) -> None:
    define_app(admin)
    admin.open("APPQ").put(b"x")
    assert depth(admin, "INITQ") == 1


# == conditions 9 and 10: TRIGGER on, TRIGTYPE not NONE ==================================================
def test_condition_9_notrigger_does_not_trigger(admin: QueueManager, monitor: Monitor) -> None:
    define_app(admin, TRIGGER=C.MQTC_OFF)
    admin.open("APPQ").put(b"x")
    assert monitor.take() == []


def test_condition_10_trigtype_none_does_not_trigger(admin: QueueManager, monitor: Monitor) -> None:
    define_app(admin, TRIGTYPE=C.MQTT_NONE)
    admin.open("APPQ").put(b"x")
    assert monitor.take() == []


# == units of work (after condition 10) ==================================================================
@pytest.mark.parametrize("ttype", [C.MQTT_FIRST, C.MQTT_EVERY, C.MQTT_DEPTH])
def test_unit_of_work_trigger_is_available_only_at_commit(
    admin: QueueManager, monitor: Monitor, connect: Connect, ttype: int
) -> None:
    # "the trigger message does not become available for retrieval by the trigger monitor application until
    #  the unit of work completes"
    define_app(admin, TRIGTYPE=ttype)
    app = connect()
    app.open("APPQ").put(b"x", syncpoint=True)
    assert monitor.take() == []
    app.commit()
    assert monitor.names() == ["APPQ"]


@pytest.mark.parametrize("ttype", [C.MQTT_FIRST, C.MQTT_DEPTH])
def test_unit_of_work_first_and_depth_trigger_is_available_on_backout_too(
    admin: QueueManager, monitor: Monitor, connect: Connect, ttype: int
) -> None:
    define_app(admin, TRIGTYPE=ttype)
    app = connect()
    app.open("APPQ").put(b"x", syncpoint=True)
    app.backout()
    assert monitor.names() == ["APPQ"]
    assert depth(admin, "APPQ") == 0


def test_unit_of_work_every_trigger_is_dropped_on_backout(
    admin: QueueManager, monitor: Monitor, connect: Connect
) -> None:
    define_app(admin, TRIGTYPE=C.MQTT_EVERY)
    app = connect()
    app.open("APPQ").put(b"x", syncpoint=True)
    app.backout()
    assert monitor.take() == []


def test_unit_of_work_abnormal_end_backs_out_and_releases_a_first_trigger(
    admin: QueueManager, monitor: Monitor, connect: Connect
) -> None:
    define_app(admin)
    app = connect()
    app.open("APPQ").put(b"x", syncpoint=True)
    app.transport.disconnect(True)
    assert monitor.names() == ["APPQ"]


def test_unit_of_work_first_put_creates_the_trigger_later_puts_in_it_do_not(
    admin: QueueManager, monitor: Monitor, connect: Connect
) -> None:
    define_app(admin)
    app = connect()
    q = app.open("APPQ")
    for i in range(5):
        q.put(b"%d" % i, syncpoint=True)
    app.commit()
    assert monitor.names() == ["APPQ"]


def test_unit_of_work_trigger_refused_by_the_initq_at_commit_goes_to_the_dead_letter_queue(
    admin: QueueManager, monitor: Monitor, connect: Connect
) -> None:
    define_app(admin)
    app = connect()
    app.open("APPQ").put(b"x", syncpoint=True)
    admin.admin("alter", "QLOCAL", "INITQ", {"PUT": C.MQQA_PUT_INHIBITED})
    app.commit()
    dead = admin.open("SYSTEM.DEAD.LETTER.QUEUE").get()
    dlh = MQDLH.unpack(dead.data[:172])
    assert dlh.Reason == C.MQRC_PUT_INHIBITED
    assert dlh.DestQName.rstrip() == b"INITQ"
    assert dlh.Format == C.MQFMT_TRIGGER
    assert dead.md.Format == C.MQFMT_DEAD_LETTER_HEADER
    assert MQTM.unpack(dead.data[172:]).QName.rstrip() == b"APPQ"


def test_trigger_message_the_initq_cannot_take_goes_to_the_dead_letter_queue(
    admin: QueueManager, monitor: Monitor
) -> None:
    define_app(admin, TRIGTYPE=C.MQTT_EVERY)
    admin.admin("alter", "QLOCAL", "INITQ", {"MAXDEPTH": 1})
    q = admin.open("APPQ")
    q.put(b"1")
    q.put(b"2")  # the initiation queue is full
    assert depth(admin, "INITQ") == 1
    dead = admin.open("SYSTEM.DEAD.LETTER.QUEUE").get()
    dlh = MQDLH.unpack(dead.data[:172])
    assert dlh.Reason == C.MQRC_Q_FULL and dlh.DestQName.rstrip() == b"INITQ"
    assert dlh.PutApplType == C.MQAT_QMGR
    assert len(dead.data) == 172 + 684


# == condition 11: FIRST on a non-empty queue after TRIGINT; DEPTH with TRIGDPTH or more ==================
def test_condition_11_first_retriggers_on_a_non_empty_queue_only_after_trigint(
    admin: QueueManager, monitor: Monitor, clock: FakeClock
) -> None:
    admin.admin("alter_qmgr", {"TRIGINT": 10_000})  # milliseconds
    define_app(admin)
    q = admin.open("APPQ")
    q.put(b"1")
    assert monitor.names() == ["APPQ"]
    clock.advance(9.9)
    q.put(b"2")
    assert monitor.take() == []
    clock.advance(0.1)
    q.put(b"3")
    assert monitor.names() == ["APPQ"]
    clock.advance(5)
    q.put(b"4")
    assert monitor.take() == []  # the interval counts from the last trigger message


def test_condition_11_trigint_counts_from_any_trigger_message_of_the_queue(
    admin: QueueManager, monitor: Monitor, clock: FakeClock
) -> None:
    admin.admin("alter_qmgr", {"TRIGINT": 10_000})
    define_app(admin, TRIGGER=C.MQTC_OFF)
    q = admin.open("APPQ")
    q.put(b"1")
    clock.advance(60)
    admin.admin("alter", "QLOCAL", "APPQ", {"TRIGGER": C.MQTC_ON})  # condition 13 writes one
    assert monitor.names() == ["APPQ"]
    q.put(b"2")
    assert monitor.take() == []


def test_condition_11_first_on_a_non_empty_queue_that_never_triggered_triggers(
    admin: QueueManager, monitor: Monitor
) -> None:
    # no trigger message was ever written for the queue, so "a sufficient interval" has elapsed
    define_app(admin, PROCESS="LATER")
    q = admin.open("APPQ")
    q.put(b"1")  # condition 6 fails
    admin.admin("define", "PROCESS", "LATER", {"APPLICID": "/usr/bin/later"})  # defining a process is no event
    assert monitor.take() == []
    q.put(b"2")  # not previously empty
    assert monitor.names() == ["APPQ"]


def test_condition_11_depth_triggers_with_trigdpth_or_more_already_on_the_queue(
    admin: QueueManager, monitor: Monitor, connect: Connect
) -> None:
    define_app(admin, TRIGTYPE=C.MQTT_DEPTH, TRIGDPTH=2)
    server = connect()
    sq = server.open("APPQ", C.MQOO_INPUT_SHARED | C.MQOO_SET)
    q = admin.open("APPQ")
    q.put(b"1")
    q.put(b"2")
    q.put(b"3")  # condition 4 fails throughout
    assert monitor.take() == []
    admin.admin("alter", "QLOCAL", "INITQ", {"PUT": C.MQQA_PUT_INHIBITED})
    sq.close()  # condition 12 fails on condition 7
    admin.admin("alter", "QLOCAL", "INITQ", {"PUT": C.MQQA_PUT_ALLOWED})  # condition 13: one trigger
    assert monitor.names() == ["APPQ"]
    admin.admin("alter", "QLOCAL", "APPQ", {"TRIGGER": C.MQTC_ON})  # re-enabled, and it triggers at once
    assert monitor.names() == ["APPQ"]
    assert attr(admin, "APPQ", "TRIGGER") == C.MQTC_OFF


def test_condition_11_restart_resets_the_trigger_interval(tmp_path: Path) -> None:
    # "If you stop and restart the queue manager, the TriggerInterval timer is reset."
    clock = FakeClock()
    create_queue_manager("QM1", home=tmp_path, clock=clock)

    def start() -> tuple[QueueManager, Monitor]:
        e = open_embedded("QM1", home=tmp_path, clock=clock)
        qm = syncpoint.connect("QM1", embedded=e)
        return qm, Monitor(lambda **kw: syncpoint.connect("QM1", embedded=e, **kw))

    e = open_embedded("QM1", home=tmp_path, clock=clock)
    setup = syncpoint.connect("QM1", embedded=e)
    setup.admin("alter_qmgr", {"TRIGINT": 3_600_000})
    setup.admin("define", "PROCESS", "PROC", {"APPLICID": "/usr/bin/server"})
    setup.admin("define", "QLOCAL", "INITQ")
    define_app(setup)
    qm, mon = start()
    q = qm.open("APPQ")
    q.put(b"1", persistent=True)
    assert mon.names() == ["APPQ"]
    clock.advance(1)
    q.put(b"2", persistent=True)
    assert mon.names() == []  # within the hour
    qm.admin("delete", "PROCESS", "PROC")  # so the monitor's open after the restart finds condition 6 failing
    open_embedded("QM1", home=tmp_path, clock=clock).close(abnormal=False)
    clock.advance(1)

    qm, mon = start()
    assert mon.names() == []
    qm.admin("define", "PROCESS", "PROC", {"APPLICID": "/usr/bin/server"})
    assert depth(qm, "APPQ") == 2
    qm.open("APPQ").put(b"3", persistent=True)  # not empty, 2 s after the last trigger: but the timer was reset
    assert mon.names() == ["APPQ"]
    open_embedded("QM1", home=tmp_path, clock=clock).close()


# == condition 12: the only server closes the queue ======================================================
def test_condition_12_close_by_the_only_server_leaving_a_message_triggers_first(
    admin: QueueManager, monitor: Monitor, connect: Connect
) -> None:
    define_app(admin)
    server = connect()
    sq = server.open("APPQ", INPUT)
    admin.open("APPQ").put(b"x")
    assert monitor.take() == []
    sq.close()
    assert monitor.names() == ["APPQ"]


def test_condition_12_close_leaving_the_queue_empty_does_not_trigger(
    admin: QueueManager, monitor: Monitor, connect: Connect
) -> None:
    define_app(admin)
    server = connect()
    sq = server.open("APPQ", INPUT)
    admin.open("APPQ").put(b"x")
    sq.get()
    sq.close()
    assert monitor.take() == []


def test_condition_12_close_by_one_of_two_servers_does_not_trigger(
    admin: QueueManager, monitor: Monitor, connect: Connect
) -> None:
    define_app(admin)
    s1 = connect().open("APPQ", INPUT)
    s2 = connect().open("APPQ", INPUT)
    admin.open("APPQ").put(b"x")
    s1.close()
    assert monitor.take() == []
    s2.close()
    assert monitor.names() == ["APPQ"]


def test_condition_12_depth_close_needs_trigdpth_messages(
    admin: QueueManager, monitor: Monitor, connect: Connect
) -> None:
    define_app(admin, TRIGTYPE=C.MQTT_DEPTH, TRIGDPTH=2)
    sq = connect().open("APPQ", INPUT)
    q = admin.open("APPQ")
    q.put(b"1")
    sq.close()
    assert monitor.take() == []
    sq = connect().open("APPQ", INPUT)
    q.put(b"2")
    sq.close()
    assert monitor.names() == ["APPQ"]


def test_condition_12_does_not_apply_to_every(admin: QueueManager, monitor: Monitor, connect: Connect) -> None:
    define_app(admin, TRIGTYPE=C.MQTT_EVERY)
    sq = connect().open("APPQ", INPUT)
    admin.open("APPQ").put(b"x")
    assert monitor.names() == ["APPQ"]  # the put itself
    sq.close()
    assert monitor.take() == []


def test_condition_12_closing_a_non_input_handle_does_not_trigger(
    admin: QueueManager, monitor: Monitor, connect: Connect
) -> None:
    define_app(admin)
    sq = connect().open("APPQ", INPUT)
    admin.open("APPQ").put(b"x")
    browser = connect().open("APPQ", C.MQOO_BROWSE)
    browser.close()
    assert monitor.take() == []
    sq.close()
    assert monitor.names() == ["APPQ"]


def test_condition_12_checks_conditions_6_to_10_only(admin: QueueManager, monitor: Monitor, connect: Connect) -> None:
    # "and conditions 6 through 10 are also satisfied" — condition 5 (GET) is not among them …
    define_app(admin)
    sq = connect().open("APPQ", INPUT)
    admin.open("APPQ").put(b"x")
    admin.admin("alter", "QLOCAL", "APPQ", {"GET": C.MQQA_GET_INHIBITED})
    sq.close()
    assert monitor.names() == ["APPQ"]


def test_condition_12_fails_when_one_of_6_to_10_fails(admin: QueueManager, monitor: Monitor, connect: Connect) -> None:
    define_app(admin)
    sq = connect().open("APPQ", INPUT)
    admin.open("APPQ").put(b"x")
    admin.admin("alter", "QLOCAL", "APPQ", {"PROCESS": "NO.SUCH.PROCESS"})
    sq.close()
    assert monitor.take() == []


def test_condition_12_note_b_backout_before_close_triggers(
    admin: QueueManager, monitor: Monitor, connect: Connect
) -> None:
    define_app(admin)
    admin.open("APPQ").put(b"x")
    assert monitor.names() == ["APPQ"]
    server = connect()
    sq = server.open("APPQ", INPUT)
    sq.get(syncpoint=True)
    server.backout()
    sq.close()
    assert monitor.names() == ["APPQ"]


def test_condition_12_note_b_close_before_backout_leaves_no_trigger(
    admin: QueueManager, monitor: Monitor, connect: Connect
) -> None:
    # "if the program closes the queue before backing out the get request, and the queue is otherwise empty,
    #  no trigger message is created"
    define_app(admin)
    admin.open("APPQ").put(b"x")
    assert monitor.names() == ["APPQ"]
    server = connect()
    sq = server.open("APPQ", INPUT)
    sq.get(syncpoint=True)
    sq.close()
    server.backout()
    assert depth(admin, "APPQ") == 1
    assert monitor.take() == []


def test_condition_12_abnormal_end_of_the_server_backs_out_then_triggers(
    admin: QueueManager, monitor: Monitor, connect: Connect
) -> None:
    define_app(admin)
    admin.open("APPQ").put(b"x")
    assert monitor.names() == ["APPQ"]
    server = connect()
    server.open("APPQ", INPUT).get(syncpoint=True)
    server.transport.disconnect(True)  # abend: backout, then the handles close
    assert monitor.names() == ["APPQ"]


# == condition 13: MQSET or a command ====================================================================
def test_condition_13_alter_trigger_on_with_messages_present_triggers(admin: QueueManager, monitor: Monitor) -> None:
    define_app(admin, TRIGGER=C.MQTC_OFF)
    admin.open("APPQ").put(b"x")
    assert monitor.take() == []
    admin.admin("alter", "QLOCAL", "APPQ", {"TRIGGER": C.MQTC_ON})
    assert monitor.names() == ["APPQ"]


def test_condition_13_mqset_trigger_on_with_messages_present_triggers(admin: QueueManager, monitor: Monitor) -> None:
    define_app(admin, TRIGGER=C.MQTC_OFF)
    q = admin.open("APPQ")
    q.put(b"x")
    q.set(C.MQIA_TRIGGER_CONTROL, C.MQTC_ON)
    assert monitor.names() == ["APPQ"]


def test_condition_13_trigger_on_with_an_empty_queue_does_not_trigger(admin: QueueManager, monitor: Monitor) -> None:
    define_app(admin, TRIGGER=C.MQTC_OFF)
    admin.admin("alter", "QLOCAL", "APPQ", {"TRIGGER": C.MQTC_ON})
    assert monitor.take() == []


@pytest.mark.parametrize(
    ("initial", "change"),
    [
        ({"TRIGTYPE": C.MQTT_DEPTH, "TRIGDPTH": 5}, {"TRIGTYPE": C.MQTT_FIRST}),
        ({"TRIGMPRI": 0}, {"TRIGMPRI": 3}),
        ({"TRIGTYPE": C.MQTT_DEPTH, "TRIGDPTH": 5}, {"TRIGDPTH": 2}),
    ],
    ids=["trigtype", "trigmpri", "trigdpth"],
)
def test_condition_13_changing_a_trigger_criterion_while_trigger_is_on_triggers(
    admin: QueueManager, monitor: Monitor, connect: Connect, initial: dict[str, int], change: dict[str, int]
) -> None:
    define_app(admin, **initial)
    sq = connect().open("APPQ", INPUT)  # so the puts do not trigger
    q = admin.open("APPQ")
    for _ in range(2):
        q.put(b"x", priority=5)
    sq.close()
    monitor.take()  # the close (condition 12) may have written one; start counting from here
    admin.admin("alter", "QLOCAL", "APPQ", change)
    assert monitor.names() == ["APPQ"]


def test_condition_13_changing_trigdpth_of_a_first_queue_does_not_trigger(
    admin: QueueManager, monitor: Monitor
) -> None:
    # "TriggerDepth (if relevant)": it is not for FIRST
    define_app(admin, TRIGGER=C.MQTC_OFF)
    admin.open("APPQ").put(b"x")
    admin.admin("alter", "QLOCAL", "APPQ", {"TRIGGER": C.MQTC_ON})
    monitor.take()
    admin.admin("alter", "QLOCAL", "APPQ", {"TRIGDPTH": 7})
    assert monitor.take() == []


def test_condition_13_changing_other_attributes_does_not_trigger(admin: QueueManager, monitor: Monitor) -> None:
    define_app(admin, TRIGGER=C.MQTC_OFF)
    admin.open("APPQ").put(b"x")
    admin.admin("alter", "QLOCAL", "APPQ", {"TRIGGER": C.MQTC_ON})
    monitor.take()
    admin.admin("alter", "QLOCAL", "APPQ", {"TRIGDATA": "new", "DESCR": "d", "PROCESS": "PROC"})
    assert monitor.take() == []


def test_condition_13_every_gives_one_trigger_message_only(admin: QueueManager, monitor: Monitor) -> None:
    define_app(admin, TRIGTYPE=C.MQTT_EVERY, TRIGGER=C.MQTC_OFF)
    q = admin.open("APPQ")
    for _ in range(3):
        q.put(b"x")
    admin.admin("alter", "QLOCAL", "APPQ", {"TRIGGER": C.MQTC_ON})
    assert monitor.names() == ["APPQ"]


def test_condition_13_does_not_need_a_trigger_monitor(admin: QueueManager, connect: Connect) -> None:
    # "conditions 4 through 10 (excluding 8)"
    define_app(admin, TRIGGER=C.MQTC_OFF)
    admin.open("APPQ").put(b"x")
    admin.admin("alter", "QLOCAL", "APPQ", {"TRIGGER": C.MQTC_ON})
    assert depth(admin, "INITQ") == 1


def test_condition_13_needs_condition_4(admin: QueueManager, monitor: Monitor, connect: Connect) -> None:
    define_app(admin, TRIGGER=C.MQTC_OFF)
    connect().open("APPQ", INPUT)
    admin.open("APPQ").put(b"x")
    admin.admin("alter", "QLOCAL", "APPQ", {"TRIGGER": C.MQTC_ON})
    assert monitor.take() == []


def test_condition_13_needs_condition_5(admin: QueueManager, monitor: Monitor) -> None:
    define_app(admin, TRIGGER=C.MQTC_OFF, GET=C.MQQA_GET_INHIBITED)
    admin.open("APPQ").put(b"x")
    admin.admin("alter", "QLOCAL", "APPQ", {"TRIGGER": C.MQTC_ON})
    assert monitor.take() == []


def test_condition_13_trigger_is_not_part_of_the_unit_of_work(
    admin: QueueManager, monitor: Monitor, connect: Connect
) -> None:
    define_app(admin, TRIGGER=C.MQTC_OFF)
    app = connect()
    q = app.open("APPQ")
    q.put(b"x", syncpoint=True)  # uncommitted messages count (note a)
    q.set(C.MQIA_TRIGGER_CONTROL, C.MQTC_ON)
    assert monitor.names() == ["APPQ"]
    app.backout()
    assert monitor.take() == []


def test_condition_13_put_enable_of_the_initq_triggers_once_per_application_queue(
    admin: QueueManager, monitor: Monitor
) -> None:
    define_app(admin, "APPQ1")
    define_app(admin, "APPQ2", TRIGTYPE=C.MQTT_EVERY)
    define_app(admin, "APPQ3")  # empty: nothing for it
    admin.admin("alter", "QLOCAL", "INITQ", {"PUT": C.MQQA_PUT_INHIBITED})
    for name in ("APPQ1", "APPQ2", "APPQ2"):
        admin.open(name).put(b"x")
    admin.admin("alter", "QLOCAL", "INITQ", {"PUT": C.MQQA_PUT_ALLOWED})
    assert sorted(monitor.names()) == ["APPQ1", "APPQ2"]


def test_condition_13_put_enable_of_the_initq_needs_the_monitor(admin: QueueManager, connect: Connect) -> None:
    # "conditions 4 through 10 are also satisfied" — 8 included
    define_app(admin)
    admin.admin("alter", "QLOCAL", "INITQ", {"PUT": C.MQQA_PUT_INHIBITED})
    admin.open("APPQ").put(b"x")
    admin.admin("alter", "QLOCAL", "INITQ", {"PUT": C.MQQA_PUT_ALLOWED})
    assert depth(admin, "INITQ") == 0


def test_condition_13_get_enable_of_the_application_queue_triggers(admin: QueueManager, monitor: Monitor) -> None:
    define_app(admin, GET=C.MQQA_GET_INHIBITED)
    q = admin.open("APPQ")
    q.put(b"x")
    assert monitor.take() == []
    q.set(C.MQIA_INHIBIT_GET, C.MQQA_GET_ALLOWED)
    assert monitor.names() == ["APPQ"]


def test_condition_13_get_enable_needs_the_monitor(admin: QueueManager) -> None:
    define_app(admin, GET=C.MQQA_GET_INHIBITED)
    admin.open("APPQ").put(b"x")
    admin.admin("alter", "QLOCAL", "APPQ", {"GET": C.MQQA_GET_ALLOWED})
    assert depth(admin, "INITQ") == 0


def test_condition_13_get_enable_together_with_trigger_on_triggers_once(admin: QueueManager, monitor: Monitor) -> None:
    define_app(admin, GET=C.MQQA_GET_INHIBITED, TRIGGER=C.MQTC_OFF, TRIGTYPE=C.MQTT_EVERY)
    admin.open("APPQ").put(b"x")
    admin.admin("alter", "QLOCAL", "APPQ", {"GET": C.MQQA_GET_ALLOWED, "TRIGGER": C.MQTC_ON})
    assert monitor.names() == ["APPQ"]


def test_condition_13_monitor_opening_the_initq_triggers_once_per_application_queue(
    admin: QueueManager, connect: Connect
) -> None:
    define_app(admin, "APPQ1")
    define_app(admin, "APPQ2", TRIGTYPE=C.MQTT_EVERY)
    define_app(admin, "APPQ3", TRIGTYPE=C.MQTT_DEPTH, TRIGDPTH=3)  # only 2 messages: not enough
    define_app(admin, "APPQ4", INITQ="SYSTEM.DEFAULT.INITIATION.QUEUE")  # another initiation queue
    for name in ("APPQ1", "APPQ2", "APPQ2", "APPQ3", "APPQ3", "APPQ4"):
        admin.open(name).put(b"x")
    assert depth(admin, "INITQ") == 0
    mon = Monitor(connect)
    assert sorted(mon.names()) == ["APPQ1", "APPQ2"]


def test_condition_13_monitor_opening_the_initq_finds_queues_defined_altered_or_deleted_since(
    admin: QueueManager, connect: Connect
) -> None:
    define_app(admin, "GONE")
    Monitor(connect).close()  # an earlier open of the initiation queue
    define_app(admin, "NEW")
    define_app(admin, "MOVED", INITQ="OTHER.INITQ")
    admin.admin("alter", "QLOCAL", "MOVED", {"INITQ": "INITQ"})
    admin.admin("delete", "QLOCAL", "GONE")
    define_app(admin, "GONE", INITQ="OTHER.INITQ")  # same name, another initiation queue
    for name in ("NEW", "MOVED", "GONE"):
        admin.open(name).put(b"x")
    assert depth(admin, "INITQ") == 0
    assert Monitor(connect).names() == ["MOVED", "NEW"]


def test_condition_13_monitor_opening_the_initq_when_another_has_it_open_does_not_trigger(
    admin: QueueManager, monitor: Monitor, connect: Connect
) -> None:
    define_app(admin, TRIGGER=C.MQTC_OFF)
    admin.open("APPQ").put(b"x")
    admin.admin("alter", "QLOCAL", "APPQ", {"TRIGGER": C.MQTC_ON})
    monitor.take()
    second = Monitor(connect)
    assert second.take() == [] and monitor.take() == []


def test_condition_13_monitor_opening_the_initq_needs_condition_4(admin: QueueManager, connect: Connect) -> None:
    define_app(admin)
    connect().open("APPQ", INPUT)
    admin.open("APPQ").put(b"x")
    mon = Monitor(connect)
    assert mon.take() == []


# == DEPTH: TRIGGER goes off after its trigger message ===================================================
def test_depth_sets_trigger_off_after_its_trigger_message(admin: QueueManager, monitor: Monitor) -> None:
    # triggering.md: "After a DEPTH trigger message is generated, the queue manager sets TriggerControl to OFF"
    define_app(admin, TRIGTYPE=C.MQTT_DEPTH, TRIGDPTH=2)
    q = admin.open("APPQ")
    q.put(b"1")
    q.put(b"2")
    assert monitor.names() == ["APPQ"]
    assert attr(admin, "APPQ", "TRIGGER") == C.MQTC_OFF
    assert q.inquire(C.MQIA_TRIGGER_CONTROL) == C.MQTC_OFF
    q.put(b"3")
    q.put(b"4")
    assert monitor.take() == []


def test_depth_re_enabled_with_enough_messages_triggers_again(admin: QueueManager, monitor: Monitor) -> None:
    define_app(admin, TRIGTYPE=C.MQTT_DEPTH, TRIGDPTH=2)
    q = admin.open("APPQ")
    q.put(b"1")
    q.put(b"2")
    monitor.take()
    q.set(C.MQIA_TRIGGER_CONTROL, C.MQTC_ON)
    assert monitor.names() == ["APPQ"]
    assert attr(admin, "APPQ", "TRIGGER") == C.MQTC_OFF


def test_depth_re_enabled_with_too_few_messages_waits_for_trigdpth(admin: QueueManager, monitor: Monitor) -> None:
    define_app(admin, TRIGTYPE=C.MQTT_DEPTH, TRIGDPTH=2)
    q = admin.open("APPQ")
    q.put(b"1")
    q.put(b"2")
    monitor.take()
    q.get()
    q.get()
    q.close()  # the gets' input handle would fail condition 4
    q = admin.open("APPQ")
    q.set(C.MQIA_TRIGGER_CONTROL, C.MQTC_ON)
    assert monitor.take() == []
    q.put(b"3")
    assert monitor.take() == []
    q.put(b"4")
    assert monitor.names() == ["APPQ"]


def test_depth_trigger_off_is_kept_across_a_restart(tmp_path: Path) -> None:
    clock = FakeClock()
    create_queue_manager("QM1", home=tmp_path, clock=clock)
    e = open_embedded("QM1", home=tmp_path, clock=clock)
    qm = syncpoint.connect("QM1", embedded=e)
    qm.admin("define", "PROCESS", "PROC", {"APPLICID": "/usr/bin/server"})
    qm.admin("define", "QLOCAL", "INITQ")
    define_app(qm, TRIGTYPE=C.MQTT_DEPTH, TRIGDPTH=1)
    Monitor(lambda **kw: syncpoint.connect("QM1", embedded=e, **kw))
    qm.open("APPQ").put(b"1")
    e.close()
    e = open_embedded("QM1", home=tmp_path, clock=clock)
    qm = syncpoint.connect("QM1", embedded=e)
    assert attr(qm, "APPQ", "TRIGGER") == C.MQTC_OFF
    e.close()


# == condition 14: MSGDLVSQ ===============================================================================
def test_condition_14_fifo_with_trigmpri_above_defprty_never_triggers(admin: QueueManager, monitor: Monitor) -> None:
    define_app(admin, MSGDLVSQ=C.MQMDS_FIFO, DEFPRTY=4, TRIGMPRI=5, TRIGTYPE=C.MQTT_EVERY)
    q = admin.open("APPQ")
    q.put(b"x", priority=9)  # the priority is ignored: the message gets DEFPRTY 4
    assert monitor.take() == []
    assert q.get().priority == 4


@pytest.mark.parametrize("ttype", [C.MQTT_FIRST, C.MQTT_EVERY, C.MQTT_DEPTH])
def test_condition_14_fifo_with_trigmpri_at_or_below_defprty_always_triggers(
    admin: QueueManager, monitor: Monitor, ttype: int
) -> None:
    define_app(admin, MSGDLVSQ=C.MQMDS_FIFO, DEFPRTY=5, TRIGMPRI=5, TRIGTYPE=ttype, TRIGDPTH=1)
    admin.open("APPQ").put(b"x", priority=0)  # assigned DEFPRTY 5
    assert monitor.names() == ["APPQ"]


def test_condition_14_priority_100_low_priority_messages_then_one_of_sufficient_priority_triggers_first(
    admin: QueueManager, monitor: Monitor
) -> None:
    # "if you put 100 messages of lower priority than the TriggerMsgPriority, the effective queue depth for
    #  triggering purposes is still zero. If you then put another message on the queue, but this time the
    #  priority is greater than or equal to the TriggerMsgPriority, the effective queue depth increases from
    #  zero to one and the condition for TriggerType FIRST is satisfied."
    define_app(admin, MSGDLVSQ=C.MQMDS_PRIORITY, TRIGMPRI=5)
    q = admin.open("APPQ")
    for i in range(100):
        q.put(b"low %d" % i, priority=i % 5)
    assert monitor.take() == []
    assert depth(admin, "APPQ") == 100
    q.put(b"high", priority=5)
    assert monitor.names() == ["APPQ"]


@pytest.mark.parametrize("ttype", [C.MQTT_EVERY, C.MQTT_DEPTH])
def test_condition_14_priority_only_messages_at_or_above_trigmpri_count_for_every_and_depth(
    admin: QueueManager, monitor: Monitor, ttype: int
) -> None:
    define_app(admin, TRIGMPRI=5, TRIGTYPE=ttype, TRIGDPTH=2)
    q = admin.open("APPQ")
    for _ in range(10):
        q.put(b"low", priority=4)
    q.put(b"high", priority=6)
    expected = ["APPQ"] if ttype == C.MQTT_EVERY else []
    assert monitor.names() == expected
    q.put(b"high", priority=9)
    assert monitor.names() == ["APPQ"]


def test_condition_14_fifo_queue_counts_messages_kept_from_its_priority_days(
    admin: QueueManager, monitor: Monitor
) -> None:
    # messages keep their priority when MSGDLVSQ changes; a FIFO queue's count still reads them
    define_app(admin, TRIGGER=C.MQTC_OFF, TRIGTYPE=C.MQTT_DEPTH, TRIGDPTH=3, TRIGMPRI=5, DEFPRTY=5)
    q = admin.open("APPQ")
    q.put(b"high", priority=7)
    q.put(b"low", priority=1)
    admin.admin("alter", "QLOCAL", "APPQ", {"MSGDLVSQ": C.MQMDS_FIFO, "TRIGGER": C.MQTC_ON})
    assert monitor.take() == []  # 1 of sufficient priority
    q.put(b"x")  # DEFPRTY 5: 2
    assert monitor.take() == []
    q.put(b"y")  # 3
    assert monitor.names() == ["APPQ"]


# == expiry (issue 3's pending item): expired messages count =============================================
def test_expired_messages_still_on_the_queue_count_for_depth_triggering(
    admin: QueueManager, monitor: Monitor, clock: FakeClock
) -> None:
    define_app(admin, TRIGTYPE=C.MQTT_DEPTH, TRIGDPTH=3)
    q = admin.open("APPQ")
    q.put(b"1", expiry=1.0)
    q.put(b"2", expiry=1.0)
    clock.advance(5)  # both expired, neither discarded yet
    q.put(b"3")
    assert monitor.names() == ["APPQ"]


def test_expired_messages_count_for_first_so_the_queue_is_not_empty(
    admin: QueueManager, monitor: Monitor, clock: FakeClock
) -> None:
    define_app(admin, TRIGGER=C.MQTC_OFF)
    q = admin.open("APPQ")
    q.put(b"1", expiry=1.0)
    admin.admin("alter", "QLOCAL", "APPQ", {"TRIGGER": C.MQTC_ON})
    assert monitor.names() == ["APPQ"]
    clock.advance(5)
    q.put(b"2")
    assert monitor.take() == []


# == no loops ============================================================================================
def test_trigger_messages_on_a_triggered_initiation_queue_do_not_trigger(admin: QueueManager, monitor: Monitor) -> None:
    # a trigger message never causes a trigger message (our choice, see _trigger's module doc)
    define_app(admin, TRIGTYPE=C.MQTT_EVERY)
    admin.admin(
        "alter",
        "QLOCAL",
        "INITQ",
        {"TRIGGER": C.MQTC_ON, "TRIGTYPE": C.MQTT_EVERY, "PROCESS": "PROC", "INITQ": "INITQ"},
    )
    admin.open("APPQ").put(b"x")
    assert monitor.names() == ["APPQ"]


# == the counting rule (condition 3, note a) against a model =============================================
_OPS = st.lists(
    st.tuples(
        st.sampled_from(["put", "put-sync", "get", "get-sync", "commit", "backout", "fifo", "priority"]),
        st.integers(0, 1),  # which connection
        st.integers(0, 9),  # priority of a put
    ),
    max_size=40,
)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(ops=_OPS)
def test_trigger_depth_counts_committed_and_uncommitted_messages_of_sufficient_priority(
    embedded: EmbeddedQueueManager, ops: list[tuple[str, int, int]]
) -> None:
    # "For non-shared local queues, the queue manager counts both committed and uncommitted messages": a
    # model of (priority, state) per message against trigger_depth, at every priority and with a cap
    name = f"COUNT.{next(_queue_numbers)}"
    conns = [syncpoint.connect("QM1", embedded=embedded) for _ in range(2)]
    conns[0].admin("define", "QLOCAL", name, {"DEFPRTY": 4})
    queues = [c.open(name) for c in conns]
    fifo = False
    model: dict[bytes, list[Any]] = {}  # data -> [priority, state, connection]
    ident = 0
    for op, c, prio in ops:
        if op.startswith("put"):
            ident += 1
            data = b"%d" % ident
            queues[c].put(data, priority=prio, syncpoint=op == "put-sync")
            model[data] = [4 if fifo else prio, "pending-put" if op == "put-sync" else "committed", c]
        elif op.startswith("get"):
            m = queues[c].get_or_none(syncpoint=op == "get-sync")
            if m is not None:
                model[m.data] = [model[m.data][0], "pending-get" if op == "get-sync" else "gone", c]
        elif op in ("commit", "backout"):
            (conns[c].commit if op == "commit" else conns[c].backout)()
            for entry in model.values():
                if entry[2] == c and entry[1].startswith("pending"):
                    keep = (entry[1] == "pending-put") == (op == "commit")
                    entry[1] = "committed" if keep else "gone"
        else:
            fifo = op == "fifo"
            conns[0].admin("alter", "QLOCAL", name, {"MSGDLVSQ": C.MQMDS_FIFO if fifo else C.MQMDS_PRIORITY})
        engine = embedded.engine
        q = engine.queues[name]
        for p in range(10):
            expected = sum(1 for pr, state, _ in model.values() if pr >= p and state in ("committed", "pending-put"))
            for limit in (1, 3, 1000):
                assert trigger_depth(engine, q, p, limit) == min(expected, limit), (op, p, limit)
    for c in conns:
        c.backout()
        c.disconnect()


_queue_numbers = itertools.count()


# == the rules for puts, units of work, closes and ALTER against a model =================================
_TRIGGER_OPS = st.lists(
    st.tuples(
        st.sampled_from(["put", "put-sync", "get", "get-sync", "commit", "backout", "open", "close", "on"]),
        st.integers(0, 1),  # which connection
        st.integers(0, 9),  # priority of a put
    ),
    max_size=30,
)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    ttype=st.sampled_from([C.MQTT_FIRST, C.MQTT_EVERY, C.MQTT_DEPTH]),
    tmpri=st.integers(0, 9),
    tdepth=st.integers(1, 4),
    ops=_TRIGGER_OPS,
)
def test_trigger_messages_follow_the_seed_for_any_sequence_of_puts_gets_units_of_work_closes_and_alters(
    embedded: EmbeddedQueueManager, ttype: int, tmpri: int, tdepth: int, ops: list[tuple[str, int, int]]
) -> None:
    # A model of seed 001 for one application queue with a trigger monitor always there (conditions 5-8 hold):
    # conditions 2-4 and 11 on puts (TRIGINT never passes, so FIRST re-triggers only if it never triggered),
    # the unit-of-work rule, condition 12 on the last input close, condition 13 on TRIGGER set on, and DEPTH's
    # switch to NOTRIGGER. Compared after every step: trigger messages on the initiation queue, and TRIGGER.
    n = next(_queue_numbers)
    app, initq = f"APP.{n}", f"INIT.{n}"
    admin = syncpoint.connect("QM1", embedded=embedded)
    if admin.admin("lookup", "PROCESS", "PROC") is None:
        admin.admin("define", "PROCESS", "PROC", {"APPLICID": "/bin/true"})
    admin.admin("define", "QLOCAL", initq)
    attrs = {"TRIGGER": C.MQTC_ON, "TRIGTYPE": ttype, "TRIGMPRI": tmpri, "TRIGDPTH": tdepth}
    admin.admin("define", "QLOCAL", app, {**attrs, "PROCESS": "PROC", "INITQ": initq})
    monitor = syncpoint.connect("QM1", embedded=embedded)
    monitor.open(initq, INPUT)
    conns = [syncpoint.connect("QM1", embedded=embedded) for _ in range(2)]
    output = [c.open(app, C.MQOO_OUTPUT) for c in conns]
    inputs: list[Any] = [None, None]
    msgs: dict[bytes, list[Any]] = {}  # data -> [priority, state, connection]
    pending: list[list[int]] = [[], []]
    model = {"delivered": 0, "on": True, "ever": False}
    ident = 0

    def count() -> int:
        return sum(1 for p, s, _ in msgs.values() if p >= tmpri and s in ("avail", "pput"))

    def ipprocs() -> int:
        return sum(1 for h in inputs if h is not None)

    def fire(c: int | None) -> None:
        model["ever"] = True
        if ttype == C.MQTT_DEPTH:
            model["on"] = False
        if c is None:
            model["delivered"] += 1
        else:
            pending[c].append(ttype)

    for op, c, prio in ops:
        if op.startswith("put"):
            ident += 1
            data = b"%d" % ident
            sync = op == "put-sync"
            output[c].put(data, priority=prio, syncpoint=sync)
            msgs[data] = [prio, "pput" if sync else "avail", c]
            if model["on"] and prio >= tmpri and not (ttype != C.MQTT_EVERY and ipprocs() > 0):
                now = count()
                if (
                    ttype == C.MQTT_EVERY
                    or (ttype == C.MQTT_FIRST and (now == 1 or not model["ever"]))
                    or (ttype == C.MQTT_DEPTH and now >= tdepth)
                ):
                    fire(c if sync else None)
        elif op.startswith("get"):
            if inputs[c] is None:
                continue
            m = inputs[c].get_or_none(syncpoint=op == "get-sync")
            if m is not None:
                msgs[m.data][1:] = ["pget" if op == "get-sync" else "gone", c]
        elif op in ("commit", "backout"):
            (conns[c].commit if op == "commit" else conns[c].backout)()
            for entry in msgs.values():
                if entry[2] == c and entry[1] in ("pput", "pget"):
                    if op == "commit":
                        entry[1] = "avail" if entry[1] == "pput" else "gone"
                    else:
                        entry[1] = "gone" if entry[1] == "pput" else "avail"
            released = pending[c] if op == "commit" else [t for t in pending[c] if t != C.MQTT_EVERY]
            model["delivered"] += len(released)
            pending[c] = []
        elif op == "open":
            if inputs[c] is None:
                inputs[c] = conns[c].open(app, INPUT)
        elif op == "close":
            if inputs[c] is not None:
                inputs[c].close()
                inputs[c] = None
                need = tdepth if ttype == C.MQTT_DEPTH else 1
                if ipprocs() == 0 and model["on"] and ttype != C.MQTT_EVERY and count() >= need:
                    fire(None)
        else:  # ALTER QLOCAL … TRIGGER
            was_on = model["on"]
            admin.admin("alter", "QLOCAL", app, {"TRIGGER": C.MQTC_ON})
            model["on"] = True
            need = tdepth if ttype == C.MQTT_DEPTH else 1
            if not was_on and count() >= need and not (ttype != C.MQTT_EVERY and ipprocs() > 0):
                fire(None)
        assert depth(admin, initq) == model["delivered"], (op, c, prio)
        assert (attr(admin, app, "TRIGGER") == C.MQTC_ON) == model["on"], (op, c, prio)
    for conn in (*conns, monitor, admin):
        conn.backout()
        conn.disconnect()
