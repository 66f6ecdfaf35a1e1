"""Dead-lettering with a correct MQDLH (issue 7, item 6): by the queue manager itself (undeliverable reports and
trigger messages) and by applications through syncpoint.dlq.dead_letter. The fields are those of
../shared/reference/dlq-handler.md "The MQDLH on messages the queue manager itself dead-letters" and
structures.md."""

from __future__ import annotations

import time

import pytest
from dlq_helpers import DLQ

from syncpoint.client import QueueManager
from syncpoint.dlq import DeadLetterHandler, dead_letter, parse_rules, read_dlh
from syncpoint.engine import FakeClock
from syncpoint.mqi import MQDLH, MQMD, MQTM, MQMIError
from syncpoint.mqi import constants as C


def utc_date_time(t: float) -> tuple[bytes, bytes]:
    tm = time.gmtime(t)
    return time.strftime("%Y%m%d", tm).encode(), (time.strftime("%H%M%S", tm) + f"{int((t % 1) * 100):02d}").encode()


def the_dead_letter(qm: QueueManager) -> tuple[MQMD, MQDLH, bytes]:
    m = qm.open(DLQ).get()
    dlh = read_dlh(m.data)
    assert dlh is not None
    return m.md, dlh, m.data[172:]


def test_undeliverable_expiration_report_is_dead_lettered_with_every_mqdlh_field(
    qm: QueueManager, clock: FakeClock
) -> None:
    q = qm.open("Q1")
    q.put(
        b"data",
        md=MQMD(
            Expiry=10,
            Report=C.MQRO_EXPIRATION_WITH_DATA,
            ReplyToQ=b"NO.SUCH.REPLY.Q",
            Format=C.MQFMT_STRING,
            Encoding=273,
            CodedCharSetId=500,
        ),
    )
    clock.advance(2)
    assert q.get_or_none() is None  # expired: the report cannot reach NO.SUCH.REPLY.Q
    md, dlh, body = the_dead_letter(qm)
    date, tod = utc_date_time(clock.time())
    assert dlh.Reason == C.MQRC_UNKNOWN_OBJECT_NAME
    assert dlh.DestQName == b"NO.SUCH.REPLY.Q".ljust(48)
    assert dlh.DestQMgrName == b"QM1".ljust(48)
    # the report carries the original's first 100 bytes, so its Format / Encoding / CCSID are the original's
    assert (dlh.Format, dlh.Encoding, dlh.CodedCharSetId) == (C.MQFMT_STRING, 273, 500)
    assert dlh.PutApplType == C.MQAT_QMGR
    assert dlh.PutApplName == b"QM1".ljust(28)
    assert (dlh.PutDate, dlh.PutTime) == (date, tod)
    assert md.Format == C.MQFMT_DEAD_LETTER_HEADER and md.Encoding == C.MQENC_NATIVE
    # the MQMD describes the header, written in the queue manager's CCSID (the MQDLH's own character fields)
    assert md.CodedCharSetId == qm.admin("qm_attr", "CCSID") != 500
    assert md.MsgType == C.MQMT_REPORT and md.Feedback == C.MQFB_EXPIRATION and body == b"data"


def test_undeliverable_trigger_message_is_dead_lettered_with_every_mqdlh_field(
    qm: QueueManager, clock: FakeClock
) -> None:
    qm.admin("define", "QLOCAL", "INITQ", {"MAXDEPTH": 1})
    qm.admin("define", "PROCESS", "PROC", {"APPLICID": "/bin/true"})
    qm.admin(
        "define",
        "QLOCAL",
        "APPQ",
        {"TRIGGER": C.MQTC_ON, "TRIGTYPE": C.MQTT_EVERY, "INITQ": "INITQ", "PROCESS": "PROC"},
    )
    qm.open("INITQ", C.MQOO_INPUT_SHARED)  # a trigger monitor's open
    q = qm.open("APPQ")
    q.put(b"1")
    q.put(b"2")  # INITQ is full: the second trigger message goes to the dead-letter queue
    md, dlh, body = the_dead_letter(qm)
    date, tod = utc_date_time(clock.time())
    assert dlh.Reason == C.MQRC_Q_FULL
    assert dlh.DestQName.rstrip() == b"INITQ" and dlh.DestQMgrName.rstrip() == b"QM1"
    assert dlh.Format == C.MQFMT_TRIGGER
    assert dlh.PutApplType == C.MQAT_QMGR and dlh.PutApplName.rstrip() == b"QM1"
    assert (dlh.PutDate, dlh.PutTime) == (date, tod)
    assert md.Format == C.MQFMT_DEAD_LETTER_HEADER
    assert MQTM.unpack(body).QName.rstrip() == b"APPQ"


# -- the application API --------------------------------------------------------------------------------
def test_application_dead_letters_a_message_it_cannot_process_in_its_unit_of_work(
    qm: QueueManager, clock: FakeClock
) -> None:
    q = qm.open("Q1")
    put = q.put(
        b"poison",
        md=MQMD(Format=C.MQFMT_STRING, Encoding=273, CodedCharSetId=500, Expiry=1000, Priority=6),
        persistent=True,
        correl_id=b"corr",
    )
    clock.advance(10)
    m = q.get(syncpoint=True)  # Expiry 900 now
    out = dead_letter(
        qm, m.md, m.data, C.MQRC_BACKOUT_THRESHOLD_REACHED, dest_q="Q1", put_appl_name="order-flow", now=clock.time()
    )
    assert list(qm.open(DLQ).browse_all()) == []  # not visible before the commit
    qm.commit()
    assert q.depth == 0
    md, dlh, body = the_dead_letter(qm)
    date, tod = utc_date_time(clock.time())
    assert body == b"poison"
    assert dlh.Reason == C.MQRC_BACKOUT_THRESHOLD_REACHED
    assert (dlh.DestQName.rstrip(), dlh.DestQMgrName.rstrip()) == (b"Q1", b"QM1")
    assert (dlh.Format, dlh.Encoding, dlh.CodedCharSetId) == (C.MQFMT_STRING, 273, 500)
    assert dlh.PutApplType == C.MQAT_UNIX and dlh.PutApplName.rstrip() == b"order-flow"
    assert (dlh.PutDate, dlh.PutTime) == (date, tod)
    assert md.Format == C.MQFMT_DEAD_LETTER_HEADER and md.Encoding == C.MQENC_NATIVE
    assert md.CodedCharSetId == 1208 == out.CodedCharSetId  # the queue manager's CCSID describes the header
    assert md.MsgId == put.MsgId and md.CorrelId == put.CorrelId
    assert md.PutApplName == put.PutApplName and md.PutDate == put.PutDate and md.PutTime == put.PutTime
    assert md.Priority == 6 and md.Persistence == C.MQPER_PERSISTENT
    assert md.Expiry == 1000 - 100  # the remaining expiry


def test_application_dead_letter_is_undone_by_backout(qm: QueueManager) -> None:
    q = qm.open("Q1")
    q.put(b"x")
    m = q.get(syncpoint=True)
    dead_letter(qm, m.md, m.data, C.MQRC_BACKOUT_THRESHOLD_REACHED, dest_q="Q1")
    qm.backout()
    assert q.depth == 1 and qm.open(DLQ).depth == 0


def test_application_dead_letter_without_deadq_fails_and_puts_nothing(qm: QueueManager) -> None:
    qm.admin("alter_qmgr", {"DEADQ": ""})
    with pytest.raises(MQMIError) as e:
        dead_letter(qm, MQMD(), b"x", C.MQRC_Q_FULL, dest_q="Q1")
    assert e.value.reason == C.MQRC_UNKNOWN_OBJECT_NAME and "DEADQ" in str(e.value)


def test_application_dead_letter_to_a_full_dlq_raises_its_reason(qm: QueueManager) -> None:
    qm.admin("alter", "QLOCAL", DLQ, {"MAXDEPTH": 0})
    with pytest.raises(MQMIError) as e:
        dead_letter(qm, MQMD(), b"x", C.MQRC_Q_FULL, dest_q="Q1")
    assert e.value.reason == C.MQRC_Q_FULL


def test_application_dead_letter_needs_a_destination_and_a_numeric_reason(qm: QueueManager) -> None:
    with pytest.raises(MQMIError):
        dead_letter(qm, MQMD(), b"x", C.MQRC_Q_FULL, dest_q=" ")
    with pytest.raises(TypeError):
        dead_letter(qm, MQMD(), b"x", "MQRC_Q_FULL", dest_q="Q1")  # type: ignore[arg-type]


def test_dead_lettered_message_round_trips_through_the_handler(qm: QueueManager, clock: FakeClock) -> None:
    q = qm.open("Q1")
    q.put(b"redo", md=MQMD(Format=C.MQFMT_STRING, CodedCharSetId=819))
    m = q.get(syncpoint=True)
    dead_letter(qm, m.md, m.data, C.MQRC_BACKOUT_THRESHOLD_REACHED, dest_q="Q1")
    qm.commit()
    table = parse_rules("WAIT(NO)\nREASON(MQRC_BACKOUT_THRESHOLD_REACHED) ACTION(RETRY)\n")
    DeadLetterHandler(qm, table, clock=clock, report=lambda s: None).run()
    back = q.get()
    assert back.data == b"redo" and back.md.Format == C.MQFMT_STRING and back.md.CodedCharSetId == 819
    assert back.msg_id == m.msg_id
