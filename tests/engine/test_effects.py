"""The effects the engine returns, driven sans I/O: ``syncpoint.engine.QueueManager`` on a fake clock, no host,
no store writes, no threads (DESIGN.md: "Effects leave the engine as data").

Every call's consequences come back from ``take_effects()``: the store batch, the queues whose waiting gets may
now succeed (``wake``), and the messages the queue manager put itself (``system_puts``: trigger messages,
reports, dead letters). These tests read them there instead of opening queues.
"""

from __future__ import annotations

import pytest

from syncpoint.engine import Connection, Effects, FakeClock, Handle, QueueManager, SystemPut
from syncpoint.mqi import MQDLH, MQGMO, MQMD, MQOD, MQPMO, MQTM, MQMIError
from syncpoint.mqi import constants as C
from syncpoint.store import MemoryStore

QMGR = "QM1"
DLQ = "SYSTEM.DEAD.LETTER.QUEUE"


# -- set-up ---------------------------------------------------------------------------------------------
@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def engine(clock: FakeClock) -> QueueManager:
    """A new queue manager (crtmqm's objects, a dead-letter queue) built from a MemoryStore snapshot."""
    store = MemoryStore()
    store.open()
    store.write(QueueManager.initial_batch(QMGR, clock, DLQ))
    qm = QueueManager(QMGR, store.open(), clock)
    qm.define("QLOCAL", "Q1")
    qm.define("QLOCAL", "REPLY")
    qm.define("PROCESS", "PROC", {"APPLICID": "/usr/bin/server"})
    qm.define("QLOCAL", "INITQ")
    qm.define(
        "QLOCAL",
        "APPQ",
        {"TRIGGER": C.MQTC_ON, "TRIGTYPE": C.MQTT_FIRST, "INITQ": "INITQ", "PROCESS": "PROC"},
    )
    qm.take_effects()  # the definitions' batch
    return qm


@pytest.fixture
def conn(engine: QueueManager) -> Connection:
    return engine.connect("app", user="alice", pid=4242)


def open_q(engine: QueueManager, conn: Connection, name: str, options: int) -> Handle:
    return engine.open(conn, MQOD(ObjectName=name.encode()), options)


def put(
    engine: QueueManager, conn: Connection, h: Handle, data: bytes, md: MQMD | None = None, options: int = 0
) -> MQMD:
    md = md if md is not None else MQMD()
    engine.put(conn, h, md, MQPMO(Options=options or C.MQPMO_NO_SYNCPOINT), data)
    return md


def effects_of(engine: QueueManager) -> Effects:
    effects = engine.take_effects()
    assert effects is not None
    return effects


def written(engine: QueueManager) -> Effects | None:
    """The host's part after a call: take the effects and, the store having written the batch, tell the engine
    (the persistent messages the call committed become available)."""
    effects = engine.take_effects()
    if effects is not None and effects.durable_pending is not None:
        engine.made_durable(effects.durable_pending)
        engine.take_effects()
    return effects


def kinds(effects: Effects) -> list[tuple[str, str]]:
    return [(p.kind, p.queue) for p in effects.system_puts]


def trigger_monitor(engine: QueueManager) -> None:
    """A connection holding the initiation queue open for input: all the queue manager knows of a trigger
    monitor (seed 001, condition 8)."""
    monitor = engine.connect("runmqtrm")
    open_q(engine, monitor, "INITQ", C.MQOO_INPUT_SHARED)
    engine.take_effects()


# -- seed 001: triggering ---------------------------------------------------------------------------------
def test_condition_1_put_on_a_trigger_first_queue_returns_the_trigger_message_as_an_effect(
    engine: QueueManager, conn: Connection
) -> None:
    # seed 001: "The queue manager creates a trigger message when the following conditions are satisfied:
    # 1. A message is put on a queue." … "3. … Zero (for trigger type MQTT_FIRST)"
    trigger_monitor(engine)
    h = open_q(engine, conn, "APPQ", C.MQOO_OUTPUT)
    put(engine, conn, h, b"work")
    effects = effects_of(engine)
    assert kinds(effects) == [("trigger", "INITQ")]
    (trigger,) = effects.system_puts
    assert isinstance(trigger, SystemPut)
    assert trigger.md.Format == C.MQFMT_TRIGGER and trigger.md.Persistence == C.MQPER_NOT_PERSISTENT
    tm = MQTM.unpack(trigger.data)
    assert tm.QName.rstrip() == b"APPQ" and tm.ProcessName.rstrip() == b"PROC"
    assert effects.wake >= {"APPQ", "INITQ"}  # the put and the trigger message both wake their getters
    assert engine.take_effects() is None  # taken once: nothing left, nothing allocated


def test_trigger_message_of_a_put_in_a_unit_of_work_is_an_effect_of_its_commit(
    engine: QueueManager, conn: Connection
) -> None:
    # seed 001, condition 10: "if … the message that caused the trigger condition is put as part of a unit of
    # work, the trigger message does not become available for retrieval by the trigger monitor application
    # until the unit of work completes"
    trigger_monitor(engine)
    h = open_q(engine, conn, "APPQ", C.MQOO_OUTPUT)
    put(engine, conn, h, b"work", options=C.MQPMO_SYNCPOINT)
    put_effects = engine.take_effects()
    assert put_effects is None or put_effects.system_puts == ()
    engine.commit(conn)
    assert kinds(effects_of(engine)) == [("trigger", "INITQ")]


def test_trigger_message_the_initiation_queue_refuses_is_dead_lettered_as_an_effect(
    engine: QueueManager, conn: Connection
) -> None:
    # dlq-handler.md, "The MQDLH on messages the queue manager itself dead-letters": "MQMD is the original one
    # except Format = "MQDEAD  " …; Reason is the MQRC_* or MQFB_* that caused it; … PutApplType MQAT_QMGR"
    engine.alter("QLOCAL", "INITQ", {"MAXDEPTH": 1})
    trigger_monitor(engine)
    put(engine, conn, open_q(engine, conn, "INITQ", C.MQOO_OUTPUT), b"fills the initiation queue")
    engine.take_effects()
    put(engine, conn, open_q(engine, conn, "APPQ", C.MQOO_OUTPUT), b"work")
    effects = effects_of(engine)
    assert kinds(effects) == [("dead-letter", DLQ)]
    (dead,) = effects.system_puts
    assert dead.md.Format == C.MQFMT_DEAD_LETTER_HEADER and dead.md.PutApplType == C.MQAT_QMGR
    dlh = MQDLH.unpack(dead.data)
    assert dlh.Reason == C.MQRC_Q_FULL and dlh.DestQName.rstrip() == b"INITQ"
    assert dlh.Format == C.MQFMT_TRIGGER and MQTM.unpack(dead.data[MQDLH.size() :]).QName.rstrip() == b"APPQ"
    assert engine.queues["INITQ"].depth == 1 and engine.queues[DLQ].depth == 1


# -- seed 002: expiry ---------------------------------------------------------------------------------------
def expiring(report: int = C.MQRO_EXPIRATION, reply_to: bytes = b"REPLY") -> MQMD:
    return MQMD(Expiry=10, Report=report, ReplyToQ=reply_to, Persistence=C.MQPER_PERSISTENT)


def test_expired_message_discarded_by_a_get_returns_its_expiration_report_as_an_effect(
    engine: QueueManager, conn: Connection, clock: FakeClock
) -> None:
    # seed 002: "The message is discarded when a browse or nonbrowse MQGET call occurs that would have returned
    # the message had it not already expired." … "A report is generated when an expired message is discarded,
    # if the message specified one of the MQRO_EXPIRATION_* report options."
    h = open_q(engine, conn, "Q1", C.MQOO_OUTPUT | C.MQOO_INPUT_SHARED)
    original = put(engine, conn, h, b"too late", expiring())
    written(engine)
    clock.advance(1.5)
    with pytest.raises(MQMIError) as e:
        engine.get(conn, h, MQMD(), MQGMO(Options=C.MQGMO_NO_WAIT))
    assert e.value.reason == C.MQRC_NO_MSG_AVAILABLE
    effects = effects_of(engine)
    assert kinds(effects) == [("report", "REPLY")]
    (report,) = effects.system_puts
    assert report.md.MsgType == C.MQMT_REPORT and report.md.Feedback == C.MQFB_EXPIRATION
    assert report.md.CorrelId == original.MsgId and report.data == b""  # MQRO_COPY_MSG_ID_TO_CORREL_ID, no data
    # the discard and its report are one store batch: durable together or not at all
    assert effects.batch is not None and effects.batch.durable
    assert len(effects.batch.delete_messages) == 1
    assert [m.queue for m in effects.batch.put_messages] == ["REPLY"]


def test_expired_message_discarded_by_the_expryint_scan_returns_its_report_as_an_effect(
    engine: QueueManager, conn: Connection, clock: FakeClock
) -> None:
    # seed 002, "Periodic scan": "Each time the expiry interval is reached, the queue manager looks for candidate
    # queues that are worth scanning to discard expired messages." Note 3: "An expiration report is generated, if
    # requested, when the message is discarded"
    engine.alter_qmgr({"EXPRYINT": 5})
    put(engine, conn, open_q(engine, conn, "Q1", C.MQOO_OUTPUT), b"x", expiring(C.MQRO_EXPIRATION_WITH_FULL_DATA))
    written(engine)
    clock.advance(6)
    engine.housekeeping()
    effects = effects_of(engine)
    assert kinds(effects) == [("report", "REPLY")]
    assert effects.system_puts[0].data == b"x"  # MQRO_EXPIRATION_WITH_FULL_DATA


def test_expiration_report_its_reply_to_queue_refuses_is_dead_lettered_as_an_effect(
    engine: QueueManager, conn: Connection, clock: FakeClock
) -> None:
    # seed 002, note 4: "Discarding an expired message, and generating an expiration report if requested, are
    # never part of the application's unit of work"; the report that cannot reach its ReplyToQ goes to the DLQ
    h = open_q(engine, conn, "Q1", C.MQOO_OUTPUT | C.MQOO_BROWSE)
    put(engine, conn, h, b"x", expiring(reply_to=b"NO.SUCH.QUEUE"))
    written(engine)
    clock.advance(2)
    with pytest.raises(MQMIError):
        engine.get(conn, h, MQMD(), MQGMO(Options=C.MQGMO_BROWSE_FIRST))
    effects = effects_of(engine)
    assert kinds(effects) == [("dead-letter", DLQ)]
    dlh = MQDLH.unpack(effects.system_puts[0].data)
    assert dlh.Reason == C.MQRC_UNKNOWN_OBJECT_NAME and dlh.DestQName.rstrip() == b"NO.SUCH.QUEUE"


# -- units of work and waiting gets ---------------------------------------------------------------------
def test_commit_of_a_put_wakes_the_queue_and_puts_nothing_of_the_queue_managers_own(
    engine: QueueManager, conn: Connection
) -> None:
    # DESIGN.md, The engine: "Effects leave the engine as data: … 'these waiters can now be woken'"; a message
    # put in a unit of work is seen by other connections — and by their waiting gets — once its commit is
    # durable (issue 24: "IBM MQ makes committed messages available only once the commit is on the log")
    h = open_q(engine, conn, "Q1", C.MQOO_OUTPUT)
    put(engine, conn, h, b"a", MQMD(Persistence=C.MQPER_PERSISTENT), options=C.MQPMO_SYNCPOINT)
    put_effects = engine.take_effects()
    assert put_effects is None or not put_effects.wake  # uncommitted: no getter can have it yet
    engine.commit(conn)
    effects = effects_of(engine)
    assert effects.wake == set() and effects.system_puts == ()  # committed, not yet durable: nobody to wake
    assert effects.batch is not None and effects.batch.durable and len(effects.batch.put_messages) == 1
    assert effects.durable_pending is not None and [m.data for m in effects.durable_pending] == [b"a"]
    assert engine.take_effects() is None
    engine.made_durable(effects.durable_pending)  # the host: the store has synced the batch
    durable = effects_of(engine)
    assert durable.wake == {"Q1"} and durable.batch is None and durable.durable_pending is None


@pytest.mark.parametrize("syncpoint", [True, False], ids=["committed", "outside-syncpoint"])
def test_a_persistent_put_is_not_gettable_by_another_connection_until_its_batch_is_durable(
    engine: QueueManager, conn: Connection, syncpoint: bool
) -> None:
    # issue 24, defect 9: "A message is visible before its commit is durable … IBM MQ makes committed messages
    # available only once the commit is on the log."
    producer = open_q(engine, conn, "Q1", C.MQOO_OUTPUT)
    other = engine.connect("consumer")
    consumer = open_q(engine, other, "Q1", C.MQOO_INPUT_SHARED | C.MQOO_BROWSE)
    options = C.MQPMO_SYNCPOINT if syncpoint else C.MQPMO_NO_SYNCPOINT
    put(engine, conn, producer, b"p", MQMD(Persistence=C.MQPER_PERSISTENT), options=options)
    if syncpoint:
        engine.commit(conn)
    effects = effects_of(engine)
    assert effects.durable_pending is not None
    for options in (C.MQGMO_NO_WAIT, C.MQGMO_BROWSE_FIRST):
        with pytest.raises(MQMIError) as e:
            engine.get(other, consumer, MQMD(), MQGMO(Options=options))
        assert e.value.reason == C.MQRC_NO_MSG_AVAILABLE
    q = engine.queues["Q1"]
    assert q.depth == 1 and q.uncommitted == 1  # counted, not yet available: CLEAR and DELETE wait for it
    with pytest.raises(MQMIError) as e:
        engine.clear("Q1")
    assert e.value.reason == C.MQRC_OBJECT_IN_USE
    engine.made_durable(effects.durable_pending)
    assert engine.get(other, consumer, MQMD(), MQGMO(Options=C.MQGMO_NO_WAIT)).data == b"p"
    assert q.depth == 0 and q.uncommitted == 0


def test_a_non_persistent_put_is_gettable_at_its_commit(engine: QueueManager, conn: Connection) -> None:
    # issue 24: "Non-persistent messages are unaffected": they never reach the store
    producer = open_q(engine, conn, "Q1", C.MQOO_OUTPUT)
    other = engine.connect("consumer")
    consumer = open_q(engine, other, "Q1", C.MQOO_INPUT_SHARED)
    put(engine, conn, producer, b"n", MQMD(Persistence=C.MQPER_NOT_PERSISTENT), options=C.MQPMO_SYNCPOINT)
    engine.commit(conn)
    effects = effects_of(engine)
    assert effects.durable_pending is None and effects.wake == {"Q1"}
    assert engine.get(other, consumer, MQMD(), MQGMO(Options=C.MQGMO_NO_WAIT)).data == b"n"


def test_a_unit_of_work_with_a_persistent_put_becomes_available_whole(engine: QueueManager, conn: Connection) -> None:
    # issue 24: a unit of work's non-persistent put waits with its persistent one for the sync, so no consumer
    # sees part of a committed unit of work
    producer = open_q(engine, conn, "Q1", C.MQOO_OUTPUT)
    other = engine.connect("consumer")
    consumer = open_q(engine, other, "Q1", C.MQOO_INPUT_SHARED)
    put(engine, conn, producer, b"n", MQMD(Persistence=C.MQPER_NOT_PERSISTENT), options=C.MQPMO_SYNCPOINT)
    put(engine, conn, producer, b"p", MQMD(Persistence=C.MQPER_PERSISTENT), options=C.MQPMO_SYNCPOINT)
    engine.commit(conn)
    effects = effects_of(engine)
    assert effects.durable_pending is not None and sorted(m.data for m in effects.durable_pending) == [b"n", b"p"]
    with pytest.raises(MQMIError):
        engine.get(other, consumer, MQMD(), MQGMO(Options=C.MQGMO_NO_WAIT))
    engine.made_durable(effects.durable_pending)
    got = [engine.get(other, consumer, MQMD(), MQGMO(Options=C.MQGMO_NO_WAIT)).data for _ in range(2)]
    assert got == [b"n", b"p"]  # in put order


def test_a_trigger_message_waits_for_the_persistent_message_it_announces(
    engine: QueueManager, conn: Connection
) -> None:
    # seed 001: the trigger monitor starts an application to get the message; it must be there by then
    trigger_monitor(engine)
    h = open_q(engine, conn, "APPQ", C.MQOO_OUTPUT)
    put(engine, conn, h, b"work", MQMD(Persistence=C.MQPER_PERSISTENT))
    effects = effects_of(engine)
    assert kinds(effects) == [("trigger", "INITQ")]
    assert engine.queues["INITQ"].index == [] and effects.durable_pending is not None
    engine.made_durable(effects.durable_pending)
    assert len(engine.queues["INITQ"].index) == 1 and len(engine.queues["APPQ"].index) == 1


# -- no I/O -------------------------------------------------------------------------------------------------
def test_connect_takes_the_user_and_pid_the_host_gives_and_reads_nothing_of_the_os(engine: QueueManager) -> None:
    # DESIGN.md, The engine: "pure logic, no sockets, no threads, injected clock" — the host passes who connects
    given = engine.connect("app", user="alice", pid=4242)
    assert (given.user, given.pid, given.user12) == ("alice", 4242, b"alice".ljust(12))
    blank = engine.connect("app")
    assert (blank.user, blank.pid) == ("", 0)
    md = MQMD()
    engine.put(blank, open_q(engine, blank, "Q1", C.MQOO_OUTPUT), md, MQPMO(Options=C.MQPMO_NO_SYNCPOINT), b"x")
    assert md.UserIdentifier == b" " * 12
