"""What a channel's message channel agents ask of the queue manager (issue 23, items 5 and 6; the contract with
the channels in the engine's ``_remote``): ``deliver_inbound`` for each message a receiver gets, and
``dead_letter_xmit_error`` for a transmission-queue message without a valid MQXQH.

IBM's receiving MCA (issue 23, item 5): "A message for an unknown queue, a put-inhibited or full queue goes to the
receiving queue manager's DLQ with an MQDLH (Reason, DestQName, DestQMgrName, PutApplType …), or is discarded
with an exception report when MQRO_DISCARD_MSG asks; no DLQ → the channel stops (IBM's rule), nothing lost."
Two queue managers here share one fake clock; the "channel" is a get from QM1's transmission queue handed to
QM2's ``deliver_inbound``, both in units of work.
"""

from __future__ import annotations

import pytest
from remote_helpers import DLQ, depth, get, new_qm, put, reason_of, settle

from syncpoint.engine import Connection, FakeClock, QueueManager
from syncpoint.engine.remote import build_xmit_message, parse_xmit_message
from syncpoint.mqi import MQDLH, MQGMO, MQMD, MQOD, MQPMO, MQXQH, MQMIError
from syncpoint.mqi import constants as C

CHANNEL = "QM1.TO.QM2"


@pytest.fixture
def qm1(clock: FakeClock) -> QueueManager:
    qm = new_qm("QM1", clock)
    qm.define("QLOCAL", "QM2", {"USAGE": C.MQUS_TRANSMISSION})
    qm.define("QLOCAL", "REPLY")
    qm.define("QREMOTE", "TO.QM2", {"RNAME": "APP.IN", "RQMNAME": "QM2"})
    settle(qm)
    return qm


@pytest.fixture
def qm2(clock: FakeClock) -> QueueManager:
    qm = new_qm("QM2", clock)
    qm.define("QLOCAL", "APP.IN")
    qm.define("QLOCAL", "QM1", {"USAGE": C.MQUS_TRANSMISSION})  # the way back, for reports
    settle(qm)
    return qm


def transfer(sender: QueueManager, receiver: QueueManager, xmitq: str = "QM2") -> object:
    """One message across the 'channel': got from the sender's transmission queue and delivered, each in its
    unit of work, both committed (the delivery first, as a channel's batch is)."""
    s = sender.connect(CHANNEL, appl_type=C.MQAT_DQM)
    r = receiver.connect(CHANNEL, appl_type=C.MQAT_DQM)
    h = sender.open(s, MQOD(ObjectName=xmitq.encode()), C.MQOO_INPUT_EXCLUSIVE)
    md = MQMD()
    got = sender.get(s, h, md, MQGMO(Options=C.MQGMO_SYNCPOINT))
    try:
        result = receiver.deliver_inbound(r, md, got.data, channel=CHANNEL)
    except MQMIError:
        receiver.backout(r)
        sender.backout(s)
        settle(receiver)
        settle(sender)
        raise
    receiver.commit(r)
    settle(receiver)
    sender.commit(s)
    settle(sender)
    return result


def dlh_of(data: bytes) -> MQDLH:
    return MQDLH.unpack(data[:172])


def test_delivered_message_keeps_its_context_and_identifiers(qm1: QueueManager, qm2: QueueManager) -> None:
    app = qm1.connect("payroll", user="alice")
    md = put(qm1, app, "TO.QM2", b"pay", MQMD(Format=C.MQFMT_STRING, Priority=4, Persistence=C.MQPER_PERSISTENT))
    result = transfer(qm1, qm2)
    assert (result.outcome, result.queue, result.reason) == ("delivered", "APP.IN", C.MQRC_NONE)
    got, data = get(qm2, qm2.connect("reader"), "APP.IN")
    assert data == b"pay" and got.MsgId == md.MsgId and got.Format == C.MQFMT_STRING
    assert got.UserIdentifier.rstrip() == b"alice" and got.PutApplName.rstrip() == b"payroll"
    assert got.PutDate == md.PutDate and got.PutTime == md.PutTime
    assert got.Priority == 4 and got.Persistence == C.MQPER_PERSISTENT
    assert got.ReplyToQMgr.rstrip() == b"QM1"
    assert depth(qm1, "QM2") == 0


def test_delivery_is_inside_the_channels_unit_of_work(qm1: QueueManager, qm2: QueueManager) -> None:
    put(qm1, qm1.connect("app"), "TO.QM2", b"x")
    s = qm1.connect(CHANNEL)
    r = qm2.connect(CHANNEL)
    h = qm1.open(s, MQOD(ObjectName=b"QM2"), C.MQOO_INPUT_EXCLUSIVE)
    md = MQMD()
    data = qm1.get(s, h, md, MQGMO(Options=C.MQGMO_SYNCPOINT)).data
    qm2.deliver_inbound(r, md, data, channel=CHANNEL)
    assert reason_of(get, qm2, qm2.connect("reader"), "APP.IN") == C.MQRC_NO_MSG_AVAILABLE
    qm2.backout(r)
    assert depth(qm2, "APP.IN") == 0


def test_expiry_carries_on_across_the_channel(qm1: QueueManager, qm2: QueueManager, clock: FakeClock) -> None:
    put(qm1, qm1.connect("app"), "TO.QM2", b"x", MQMD(Expiry=100))
    clock.advance(4)  # waiting on the transmission queue counts (seed 002)
    transfer(qm1, qm2)
    clock.advance(1)
    assert get(qm2, qm2.connect("reader"), "APP.IN")[0].Expiry == 50


def test_coa_is_generated_at_the_destination_and_routed_back(qm1: QueueManager, qm2: QueueManager) -> None:
    md = put(qm1, qm1.connect("app"), "TO.QM2", b"x", MQMD(Report=C.MQRO_COA, ReplyToQ=b"REPLY"))
    transfer(qm1, qm2)
    # the report waits on QM2's transmission queue to QM1, addressed to REPLY at QM1 ...
    assert depth(qm2, "QM1") == 1
    transfer(qm2, qm1, xmitq="QM1")
    rmd, _ = get(qm1, qm1.connect("app"), "REPLY")  # ... and arrives there
    assert rmd.MsgType == C.MQMT_REPORT and rmd.Feedback == C.MQFB_COA and rmd.CorrelId == md.MsgId
    assert rmd.PutApplName.rstrip() == b"QM2"


def test_multi_hop_forwards_to_the_next_transmission_queue(qm1: QueueManager, qm2: QueueManager) -> None:
    qm1.define("QREMOTE", "TO.QM3", {"RNAME": "FAR.Q", "RQMNAME": "QM3", "XMITQ": "QM2"})
    qm2.define("QLOCAL", "QM3", {"USAGE": C.MQUS_TRANSMISSION})
    put(qm1, qm1.connect("app"), "TO.QM3", b"far")
    result = transfer(qm1, qm2)
    assert (result.outcome, result.queue) == ("forwarded", "QM3")
    _outer, data = get(qm2, qm2.connect("x"), "QM3")
    x = MQXQH().unpack_into(data)
    assert (x.RemoteQName.rstrip(), x.RemoteQMgrName.rstrip()) == (b"FAR.Q", b"QM3") and data[428:] == b"far"


# -- undeliverable messages ------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("setup", "reason"),
    [
        (lambda qm: qm.delete("QLOCAL", "APP.IN"), C.MQRC_UNKNOWN_OBJECT_NAME),
        (lambda qm: qm.alter("QLOCAL", "APP.IN", {"PUT": C.MQQA_PUT_INHIBITED}), C.MQRC_PUT_INHIBITED),
        (lambda qm: qm.alter("QLOCAL", "APP.IN", {"MAXMSGL": 2}), C.MQRC_MSG_TOO_BIG_FOR_Q),
        (lambda qm: qm.alter("QLOCAL", "APP.IN", {"MAXDEPTH": 0}), C.MQRC_Q_FULL),
    ],
)
def test_undeliverable_message_goes_to_the_dlq_with_an_mqdlh(
    qm1: QueueManager, qm2: QueueManager, setup, reason: int
) -> None:
    setup(qm2)
    md = put(qm1, qm1.connect("app", user="alice"), "TO.QM2", b"data", MQMD(Format=C.MQFMT_STRING))
    result = transfer(qm1, qm2)
    assert (result.outcome, result.queue, result.reason) == ("dead-lettered", DLQ, reason)
    dmd, ddata = get(qm2, qm2.connect("h"), DLQ)
    dlh = dlh_of(ddata)
    assert dlh.Reason == reason
    assert dlh.DestQName.rstrip() == b"APP.IN" and dlh.DestQMgrName.rstrip() == b"QM2"
    assert dlh.PutApplType == C.MQAT_DQM and dlh.PutApplName.rstrip() == CHANNEL.encode()
    assert dlh.Format == C.MQFMT_STRING and ddata[172:] == b"data"
    assert dmd.Format == C.MQFMT_DEAD_LETTER_HEADER and dmd.MsgId == md.MsgId
    assert dmd.UserIdentifier.rstrip() == b"alice"  # the original context is kept
    assert depth(qm1, "QM2") == 0


def test_unknown_queue_manager_at_the_receiver_is_dead_lettered_with_2087(qm1: QueueManager, qm2: QueueManager) -> None:
    qm1.define("QREMOTE", "TO.QM9", {"RNAME": "Q", "RQMNAME": "QM9", "XMITQ": "QM2"})
    put(qm1, qm1.connect("app"), "TO.QM9", b"x")
    result = transfer(qm1, qm2)
    assert result.reason == C.MQRC_UNKNOWN_REMOTE_Q_MGR
    assert dlh_of(get(qm2, qm2.connect("h"), DLQ)[1]).DestQMgrName.rstrip() == b"QM9"


def test_exception_report_with_data_when_dead_lettered(qm1: QueueManager, qm2: QueueManager) -> None:
    qm2.delete("QLOCAL", "APP.IN")
    md = put(
        qm1,
        qm1.connect("app"),
        "TO.QM2",
        bytes(150),
        MQMD(Report=C.MQRO_EXCEPTION_WITH_DATA, ReplyToQ=b"REPLY"),
    )
    transfer(qm1, qm2)
    assert depth(qm2, DLQ) == 1
    transfer(qm2, qm1, xmitq="QM1")
    rmd, rdata = get(qm1, qm1.connect("app"), "REPLY")
    assert rmd.MsgType == C.MQMT_REPORT and rmd.Feedback == C.MQRC_UNKNOWN_OBJECT_NAME
    assert rmd.CorrelId == md.MsgId and len(rdata) == 100


def test_discard_msg_discards_with_an_exception_report(qm1: QueueManager, qm2: QueueManager) -> None:
    qm2.delete("QLOCAL", "APP.IN")
    md = MQMD(Report=C.MQRO_DISCARD_MSG | C.MQRO_EXCEPTION_WITH_FULL_DATA, ReplyToQ=b"REPLY")
    put(qm1, qm1.connect("app"), "TO.QM2", b"abc", md)
    result = transfer(qm1, qm2)
    assert (result.outcome, result.reason) == ("discarded", C.MQRC_UNKNOWN_OBJECT_NAME)
    assert depth(qm2, DLQ) == 0
    transfer(qm2, qm1, xmitq="QM1")
    rmd, rdata = get(qm1, qm1.connect("app"), "REPLY")
    assert rmd.Feedback == C.MQRC_UNKNOWN_OBJECT_NAME and rdata == b"abc"


def test_discard_msg_without_exception_discards_silently(qm1: QueueManager, qm2: QueueManager) -> None:
    qm2.delete("QLOCAL", "APP.IN")
    put(qm1, qm1.connect("app"), "TO.QM2", b"abc", MQMD(Report=C.MQRO_DISCARD_MSG))
    assert transfer(qm1, qm2).outcome == "discarded"
    assert depth(qm2, DLQ) == 0 and depth(qm2, "QM1") == 0


def test_no_dlq_stops_the_channel_and_loses_nothing(qm1: QueueManager, clock: FakeClock) -> None:
    qm2 = new_qm("QM2", clock, dlq=None)
    put(qm1, qm1.connect("app"), "TO.QM2", b"precious", MQMD(Persistence=C.MQPER_PERSISTENT))
    assert reason_of(transfer, qm1, qm2) == C.MQRC_UNKNOWN_OBJECT_NAME
    assert depth(qm1, "QM2") == 1  # still on the sender's transmission queue after the channel's backout


def test_a_full_dlq_stops_the_channel_too(qm1: QueueManager, qm2: QueueManager) -> None:
    qm2.delete("QLOCAL", "APP.IN")
    qm2.alter("QLOCAL", DLQ, {"MAXDEPTH": 0})
    put(qm1, qm1.connect("app"), "TO.QM2", b"x")
    assert reason_of(transfer, qm1, qm2) == C.MQRC_UNKNOWN_OBJECT_NAME
    assert depth(qm1, "QM2") == 1 and depth(qm2, DLQ) == 0


def test_message_expired_in_transit_is_discarded_with_its_report(qm1: QueueManager, qm2: QueueManager) -> None:
    md = MQMD(Expiry=50, Report=C.MQRO_EXPIRATION, ReplyToQ=b"REPLY", ReplyToQMgr=b"QM1")
    outer, data = build_xmit_message("APP.IN", "QM2", md, b"late")
    outer.Format = C.MQFMT_XMIT_Q_HEADER
    data = data[:120] + (0).to_bytes(4, "little") + data[124:]  # the embedded Expiry ran out on the way
    r = qm2.connect(CHANNEL)
    assert qm2.deliver_inbound(r, outer, data, channel=CHANNEL).outcome == "discarded"
    qm2.commit(r)
    settle(qm2)
    assert depth(qm2, "APP.IN") == 0
    rep = parse_xmit_message(*get(qm2, qm2.connect("x"), "QM1"))
    assert rep is not None and rep.md.Feedback == C.MQFB_EXPIRATION


# -- a transmission-queue message without a valid MQXQH ----------------------------------------------------------
def _bad_xmit(qm: QueueManager, conn: Connection) -> tuple[MQMD, bytes]:
    """A message an application put straight onto the transmission queue: no MQXQH (Format MQSTR)."""
    md = MQMD(Format=C.MQFMT_STRING)
    put(qm, conn, "QM2", b"not an xqh", md)
    h = qm.open(conn, MQOD(ObjectName=b"QM2"), C.MQOO_INPUT_EXCLUSIVE)
    got = MQMD()
    data = qm.get(conn, h, got, MQGMO(Options=C.MQGMO_SYNCPOINT)).data
    return got, data


def test_sender_dead_letters_a_message_without_mqxqh_with_feedback_271(qm1: QueueManager) -> None:
    conn = qm1.connect(CHANNEL)
    md, data = _bad_xmit(qm1, conn)
    assert parse_xmit_message(md, data) is None
    qm1.dead_letter_xmit_error(conn, md, data, "QM2", channel=CHANNEL)
    qm1.commit(conn)
    settle(qm1)
    _dmd, ddata = get(qm1, qm1.connect("h"), DLQ)
    dlh = dlh_of(ddata)
    assert dlh.Reason == C.MQFB_XMIT_Q_MSG_ERROR and dlh.DestQName.rstrip() == b"QM2"
    assert dlh.PutApplType == C.MQAT_DQM and ddata[172:] == b"not an xqh"
    assert depth(qm1, "QM2") == 0


def test_receiver_dead_letters_a_message_without_valid_mqxqh(qm2: QueueManager) -> None:
    r = qm2.connect(CHANNEL)
    md = MQMD(Format=C.MQFMT_XMIT_Q_HEADER)
    result = qm2.deliver_inbound(r, md, b"XQH garbage", channel=CHANNEL)
    assert (result.outcome, result.reason) == ("dead-lettered", C.MQFB_XMIT_Q_MSG_ERROR)
    qm2.commit(r)
    settle(qm2)
    assert dlh_of(get(qm2, qm2.connect("h"), DLQ)[1]).Reason == C.MQFB_XMIT_Q_MSG_ERROR


def test_xmit_error_without_a_dlq_raises_and_leaves_the_message(clock: FakeClock) -> None:
    qm = new_qm("QM1", clock, dlq=None)
    qm.define("QLOCAL", "QM2", {"USAGE": C.MQUS_TRANSMISSION})
    conn = qm.connect(CHANNEL)
    md, data = _bad_xmit(qm, conn)
    with pytest.raises(MQMIError):
        qm.dead_letter_xmit_error(conn, md, data, "QM2", channel=CHANNEL)
    qm.backout(conn)
    settle(qm)
    assert depth(qm, "QM2") == 1


def test_properties_travel_inside_the_transmission_message_and_arrive_as_properties(
    qm1: QueueManager, qm2: QueueManager
) -> None:
    """reference/properties-pubsub.md: "A message put with an MQRFH2 and read with a handle yields properties":
    the properties of a message for another queue manager travel in an MQRFH2 inside its MQXQH message."""
    conn = qm1.connect("app")
    md = MQMD(Format=C.MQFMT_STRING)
    props = {"color": (C.MQTYPE_STRING, "red"), "n": (C.MQTYPE_INT32, 7)}
    qm1.put1(conn, MQOD(ObjectName=b"TO.QM2"), md, MQPMO(Options=C.MQPMO_NO_SYNCPOINT), b"hello", props)
    settle(qm1)
    assert md.Format == C.MQFMT_STRING  # the application's MQMD is its own
    transfer(qm1, qm2)
    c2 = qm2.connect("getter")
    h = qm2.open(c2, MQOD(ObjectName=b"APP.IN"), C.MQOO_INPUT_SHARED)
    got_md = MQMD()
    got = qm2.get(c2, h, got_md, MQGMO(Options=C.MQGMO_NO_SYNCPOINT, MsgHandle=1))
    assert got.data == b"hello" and got_md.Format == C.MQFMT_STRING
    assert got.props == props
