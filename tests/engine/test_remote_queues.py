"""Remote queues, queue-manager aliases, transmission queues and name resolution (issue 23, items 1 and 2).

IBM's rules (issue 23, item 1): a QREMOTE names a queue (RNAME) at a queue manager (RQMNAME) and optionally the
transmission queue (XMITQ); a blank RNAME makes a queue-manager alias; MQOPEN / MQPUT1 with ObjectQMgrName
resolve to a transmission queue named like the remote queue manager, else DEFXMITQ, else
MQRC_UNKNOWN_REMOTE_Q_MGR (2087). Seed 002, note 9: "When an application puts a message on a remote queue, the
queue manager places the message initially on a local transmission queue, and prefixes the application message
data with an MQXQH structure. The queue manager sets the values of the two Expiry fields to be the same as
that specified by the application."
"""

from __future__ import annotations

import pytest
from remote_helpers import depth, get, new_qm, open_q, put, reason_of, settle

from syncpoint.engine import FakeClock, QueueManager
from syncpoint.mqi import MQMD, MQOD, MQPMO, MQTM, MQXQH
from syncpoint.mqi import constants as C
from syncpoint.store import MemoryStore


@pytest.fixture
def qm(clock: FakeClock) -> QueueManager:
    qm = new_qm("QM1", clock)
    qm.define("QLOCAL", "QM2", {"USAGE": C.MQUS_TRANSMISSION})  # the transmission queue to QM2
    qm.define("QLOCAL", "REPLY")
    qm.define("QREMOTE", "TO.QM2", {"RNAME": "APP.IN", "RQMNAME": "QM2"})
    settle(qm)
    return qm


def xqh_of(data: bytes) -> MQXQH:
    return MQXQH().unpack_into(data)


# -- objects ---------------------------------------------------------------------------------------------
def test_qremote_has_rname_rqmname_xmitq_and_is_kept_across_a_restart(clock: FakeClock) -> None:
    store = MemoryStore()
    store.open()
    store.write(QueueManager.initial_batch("QM1", clock, None))
    qm = QueueManager("QM1", store.open(), clock)
    qm.define("QREMOTE", "R1", {"RNAME": "A", "RQMNAME": "QM2", "XMITQ": "XQ", "DEFPSIST": C.MQPER_PERSISTENT})
    qm.alter_qmgr({"DEFXMITQ": "XQ"})
    store.write(qm.take_effects().batch)
    again = QueueManager("QM1", store.open(), clock)
    d = again.lookup("QREMOTE", "R1")
    assert d is not None and (d.attrs["RNAME"], d.attrs["RQMNAME"], d.attrs["XMITQ"]) == ("A", "QM2", "XQ")
    assert again.qm_attr("DEFXMITQ") == "XQ"
    assert again.lookup("QLOCAL", "R1") is None  # one namespace for queues; the type is QREMOTE


def test_qremote_shares_the_queue_namespace(qm: QueueManager) -> None:
    assert reason_of(qm.define, "QLOCAL", "TO.QM2") == C.MQRC_OBJECT_ALREADY_EXISTS


def test_a_qremote_in_use_cannot_be_deleted(qm: QueueManager) -> None:
    conn = qm.connect("app")
    open_q(qm, conn, "TO.QM2", C.MQOO_OUTPUT)
    assert reason_of(qm.delete, "QREMOTE", "TO.QM2") == C.MQRC_OBJECT_IN_USE


# -- item 2: put to a remote queue = MQXQH + message on the transmission queue -----------------------------
def test_put_to_remote_queue_writes_mqxqh_and_message_on_the_transmission_queue(qm: QueueManager) -> None:
    conn = qm.connect("app", user="alice")
    md = MQMD(Expiry=600, Persistence=C.MQPER_NOT_PERSISTENT, Format=C.MQFMT_STRING, CorrelId=b"c" * 24)
    pmo = MQPMO()
    put(qm, conn, "TO.QM2", b"hello", md, pmo=pmo)
    assert pmo.ResolvedQName.rstrip() == b"APP.IN" and pmo.ResolvedQMgrName.rstrip() == b"QM2"
    assert depth(qm, "QM2") == 1
    outer, data = get(qm, conn, "QM2")
    assert outer.Format == C.MQFMT_XMIT_Q_HEADER
    x = xqh_of(data)
    assert x.RemoteQName.rstrip() == b"APP.IN" and x.RemoteQMgrName.rstrip() == b"QM2"
    inner = x.MsgDesc
    assert inner.Format == C.MQFMT_STRING and inner.MsgId == md.MsgId and inner.CorrelId == b"c" * 24
    assert inner.UserIdentifier.rstrip() == b"alice" and inner.PutApplName.rstrip() == b"app"
    # seed 002, note 9: both Expiry fields are the application's
    assert inner.Expiry == 600 and outer.Expiry == 600
    # ReplyToQMgr filled in with this queue manager's name
    assert inner.ReplyToQMgr.rstrip() == b"QM1"
    assert data[428:] == b"hello"


def test_put_to_remote_queue_is_inside_the_unit_of_work(qm: QueueManager) -> None:
    conn = qm.connect("app")
    put(qm, conn, "TO.QM2", b"a", syncpoint=True)
    assert qm.queues["QM2"].uncommitted == 1
    assert reason_of(get, qm, qm.connect("other"), "QM2") == C.MQRC_NO_MSG_AVAILABLE
    qm.backout(conn)
    assert depth(qm, "QM2") == 0
    put(qm, conn, "TO.QM2", b"b", syncpoint=True)
    qm.commit(conn)
    settle(qm)
    assert xqh_of(get(qm, conn, "QM2")[1]).RemoteQName.rstrip() == b"APP.IN"


def test_remote_queue_defaults_come_from_the_qremote(qm: QueueManager) -> None:
    qm.alter("QREMOTE", "TO.QM2", {"DEFPRTY": 7, "DEFPSIST": C.MQPER_PERSISTENT})
    conn = qm.connect("app")
    put(qm, conn, "TO.QM2", b"x")
    outer, data = get(qm, conn, "QM2")
    assert outer.Priority == 7 and outer.Persistence == C.MQPER_PERSISTENT
    assert xqh_of(data).MsgDesc.Priority == 7


def test_put_inhibited_qremote_refuses_puts(qm: QueueManager) -> None:
    qm.alter("QREMOTE", "TO.QM2", {"PUT": C.MQQA_PUT_INHIBITED})
    assert reason_of(put, qm, qm.connect("app"), "TO.QM2", b"x") == C.MQRC_PUT_INHIBITED


def test_transmission_queue_maxmsgl_counts_the_mqxqh(qm: QueueManager) -> None:
    qm.alter("QLOCAL", "QM2", {"MAXMSGL": 1000})
    conn = qm.connect("app")
    put(qm, conn, "TO.QM2", b"x" * 572)  # 572 + 428 = 1000
    assert reason_of(put, qm, conn, "TO.QM2", b"x" * 573) == C.MQRC_MSG_TOO_BIG_FOR_Q


def test_xmitq_attribute_names_the_transmission_queue(qm: QueueManager) -> None:
    qm.define("QLOCAL", "XQ.OTHER", {"USAGE": C.MQUS_TRANSMISSION})
    qm.define("QREMOTE", "VIA.OTHER", {"RNAME": "B", "RQMNAME": "QM2", "XMITQ": "XQ.OTHER"})
    put(qm, qm.connect("app"), "VIA.OTHER", b"x")
    assert depth(qm, "XQ.OTHER") == 1 and depth(qm, "QM2") == 0


@pytest.mark.parametrize(
    ("xmitq", "reason"),
    [
        ("NOPE", C.MQRC_UNKNOWN_XMIT_Q),
        ("REPLY", C.MQRC_XMIT_Q_USAGE_ERROR),  # a local queue, but USAGE(NORMAL)
        ("TO.QM2", C.MQRC_XMIT_Q_TYPE_ERROR),  # not a local queue
    ],
)
def test_a_bad_xmitq_fails_the_open_with_ibms_reason(qm: QueueManager, xmitq: str, reason: int) -> None:
    qm.define("QREMOTE", "BAD", {"RNAME": "B", "RQMNAME": "QM2", "XMITQ": xmitq})
    assert reason_of(open_q, qm, qm.connect("app"), "BAD", C.MQOO_OUTPUT) == reason


# -- ObjectQMgrName ------------------------------------------------------------------------------------------
def test_object_qmgr_name_resolves_to_the_transmission_queue_named_like_it(qm: QueueManager) -> None:
    conn = qm.connect("app")
    od = MQOD(ObjectName=b"ANY.Q", ObjectQMgrName=b"QM2", Version=4)
    h = qm.open(conn, od, C.MQOO_OUTPUT)
    assert od.ResolvedQName.rstrip() == b"ANY.Q" and od.ResolvedQMgrName.rstrip() == b"QM2"
    qm.put(conn, h, MQMD(), MQPMO(Options=C.MQPMO_NO_SYNCPOINT), b"x")
    x = xqh_of(get(qm, conn, "QM2")[1])
    assert (x.RemoteQName.rstrip(), x.RemoteQMgrName.rstrip()) == (b"ANY.Q", b"QM2")


def test_object_qmgr_name_falls_back_to_defxmitq_then_2087(qm: QueueManager) -> None:
    conn = qm.connect("app")
    # IBM: MQRC_UNKNOWN_REMOTE_Q_MGR when no transmission queue is named like it and there is no DEFXMITQ
    assert reason_of(put, qm, conn, "ANY.Q", b"x", qmgr="QM9") == C.MQRC_UNKNOWN_REMOTE_Q_MGR
    qm.alter_qmgr({"DEFXMITQ": "QM2"})
    put(qm, conn, "ANY.Q", b"x", qmgr="QM9")
    x = xqh_of(get(qm, conn, "QM2")[1])
    assert (x.RemoteQName.rstrip(), x.RemoteQMgrName.rstrip()) == (b"ANY.Q", b"QM9")


@pytest.mark.parametrize(
    ("defxmitq", "reason"),
    [("NOPE", C.MQRC_UNKNOWN_DEF_XMIT_Q), ("REPLY", C.MQRC_DEF_XMIT_Q_USAGE_ERROR)],
)
def test_a_bad_defxmitq_fails_with_ibms_reason(qm: QueueManager, defxmitq: str, reason: int) -> None:
    qm.alter_qmgr({"DEFXMITQ": defxmitq})
    assert reason_of(put, qm, qm.connect("app"), "ANY.Q", b"x", qmgr="QM9") == reason


def test_object_qmgr_name_of_this_queue_manager_is_local(qm: QueueManager) -> None:
    conn = qm.connect("app")
    put(qm, conn, "REPLY", b"x", qmgr="QM1")
    assert depth(qm, "REPLY") == 1


def test_a_queue_named_like_the_queue_manager_must_be_a_transmission_queue(qm: QueueManager) -> None:
    qm.define("QLOCAL", "QM5")  # USAGE(NORMAL)
    assert reason_of(put, qm, qm.connect("app"), "ANY.Q", b"x", qmgr="QM5") == C.MQRC_XMIT_Q_USAGE_ERROR


# -- queue-manager aliases -----------------------------------------------------------------------------------
def test_queue_manager_alias_renames_the_queue_manager_and_picks_its_xmitq(qm: QueueManager) -> None:
    qm.define("QLOCAL", "XQ.B", {"USAGE": C.MQUS_TRANSMISSION})
    qm.define("QREMOTE", "BIG.BANK", {"RQMNAME": "QM2", "XMITQ": "XQ.B"})  # RNAME blank: a queue-manager alias
    put(qm, qm.connect("app"), "PAY.IN", b"x", qmgr="BIG.BANK")
    x = xqh_of(get(qm, qm.connect("app"), "XQ.B")[1])
    assert (x.RemoteQName.rstrip(), x.RemoteQMgrName.rstrip()) == (b"PAY.IN", b"QM2")


def test_queue_manager_alias_without_xmitq_resolves_its_rqmname(qm: QueueManager) -> None:
    qm.define("QREMOTE", "OLD.NAME", {"RQMNAME": "QM2"})
    put(qm, qm.connect("app"), "PAY.IN", b"x", qmgr="OLD.NAME")
    assert xqh_of(get(qm, qm.connect("app"), "QM2")[1]).RemoteQMgrName.rstrip() == b"QM2"


def test_queue_manager_alias_to_this_queue_manager_is_local(qm: QueueManager) -> None:
    qm.define("QREMOTE", "ANY.NAME", {"RQMNAME": "QM1"})
    put(qm, qm.connect("app"), "REPLY", b"x", qmgr="ANY.NAME")
    assert depth(qm, "REPLY") == 1


def test_a_queue_manager_alias_cannot_be_opened_as_a_queue(qm: QueueManager) -> None:
    qm.define("QREMOTE", "OLD.NAME", {"RQMNAME": "QM2"})
    # IBM: MQRC_REMOTE_Q_NAME_ERROR — a local definition of a remote queue whose RemoteQName is blank
    assert reason_of(open_q, qm, qm.connect("app"), "OLD.NAME", C.MQOO_OUTPUT) == C.MQRC_REMOTE_Q_NAME_ERROR


def test_alias_loops_end_with_2087(qm: QueueManager) -> None:
    qm.define("QREMOTE", "LOOP.A", {"RQMNAME": "LOOP.B"})
    qm.define("QREMOTE", "LOOP.B", {"RQMNAME": "LOOP.A"})
    assert reason_of(put, qm, qm.connect("app"), "X", b"x", qmgr="LOOP.A") == C.MQRC_UNKNOWN_REMOTE_Q_MGR


def test_an_alias_of_a_remote_queue_puts_to_the_transmission_queue(qm: QueueManager) -> None:
    qm.define("QALIAS", "AL", {"TARGET": "TO.QM2"})
    put(qm, qm.connect("app"), "AL", b"x")
    assert depth(qm, "QM2") == 1


# -- open options and MQINQ on a remote queue -----------------------------------------------------------------
@pytest.mark.parametrize("option", [C.MQOO_INPUT_SHARED, C.MQOO_BROWSE, C.MQOO_SET])
def test_remote_queue_opens_for_output_only(qm: QueueManager, option: int) -> None:
    assert reason_of(open_q, qm, qm.connect("app"), "TO.QM2", option) == C.MQRC_OPTION_NOT_VALID_FOR_TYPE


def test_mqinq_on_a_local_definition_of_a_remote_queue(qm: QueueManager) -> None:
    conn = qm.connect("app")
    h = open_q(qm, conn, "TO.QM2", C.MQOO_INQUIRE)
    ints, chars, reason = qm.inq(
        conn, h, [C.MQIA_Q_TYPE, C.MQCA_REMOTE_Q_NAME, C.MQCA_REMOTE_Q_MGR_NAME, C.MQCA_XMIT_Q_NAME, C.MQCA_Q_NAME]
    )
    assert reason == C.MQRC_NONE and ints == [C.MQQT_REMOTE]
    assert [c.rstrip() for c in chars] == [b"APP.IN", b"QM2", b"", b"TO.QM2"]
    _, _, r = qm.inq(conn, h, [C.MQIA_CURRENT_Q_DEPTH])
    assert r == C.MQRC_SELECTOR_NOT_FOR_TYPE  # a remote queue has no depth here


def test_mqinq_is_not_valid_for_a_queue_named_by_its_queue_manager(qm: QueueManager) -> None:
    conn = qm.connect("app")
    assert reason_of(open_q, qm, conn, "X", C.MQOO_INQUIRE, qmgr="QM2") == C.MQRC_OPTION_NOT_VALID_FOR_TYPE


# -- ReplyToQMgr and reply-to queue aliases -------------------------------------------------------------------
def test_blank_reply_to_qmgr_is_filled_with_this_queue_manager(qm: QueueManager) -> None:
    md = put(qm, qm.connect("app"), "REPLY", b"x", MQMD(ReplyToQ=b"REPLY", MsgType=C.MQMT_REQUEST))
    assert md.ReplyToQMgr.rstrip() == b"QM1"


def test_reply_to_queue_alias_replaces_reply_to_q_and_qmgr(qm: QueueManager) -> None:
    qm.define("QREMOTE", "MY.REPLY", {"RNAME": "REPLY", "RQMNAME": "QM1.HOME"})
    conn = qm.connect("app")
    md = put(qm, conn, "TO.QM2", b"x", MQMD(ReplyToQ=b"MY.REPLY", MsgType=C.MQMT_REQUEST))
    assert (md.ReplyToQ.rstrip(), md.ReplyToQMgr.rstrip()) == (b"REPLY", b"QM1.HOME")
    inner = xqh_of(get(qm, conn, "QM2")[1]).MsgDesc
    assert (inner.ReplyToQ.rstrip(), inner.ReplyToQMgr.rstrip()) == (b"REPLY", b"QM1.HOME")


def test_reply_to_qmgr_given_is_kept(qm: QueueManager) -> None:
    qm.define("QREMOTE", "MY.REPLY", {"RNAME": "REPLY", "RQMNAME": "QM1.HOME"})
    md = put(qm, qm.connect("app"), "REPLY", b"x", MQMD(ReplyToQ=b"MY.REPLY", ReplyToQMgr=b"QMX"))
    assert (md.ReplyToQ.rstrip(), md.ReplyToQMgr.rstrip()) == (b"MY.REPLY", b"QMX")


# -- issue 21: MQRC_MISSING_REPLY_TO_Q --------------------------------------------------------------------------
@pytest.mark.parametrize(
    "report", [C.MQRO_COA, C.MQRO_COD_WITH_DATA, C.MQRO_EXCEPTION, C.MQRO_EXPIRATION_WITH_FULL_DATA, C.MQRO_PAN]
)
def test_asking_for_a_report_without_reply_to_q_fails_with_2027(qm: QueueManager, report: int) -> None:
    # IBM, MQRC_MISSING_REPLY_TO_Q: "the ReplyToQ field in the message descriptor MQMD is blank, but … a report
    # message was requested in the Report field"
    conn = qm.connect("app")
    assert reason_of(put, qm, conn, "REPLY", b"x", MQMD(Report=report)) == C.MQRC_MISSING_REPLY_TO_Q
    h = open_q(qm, conn, "REPLY", C.MQOO_OUTPUT)
    pmo = MQPMO(Options=C.MQPMO_NO_SYNCPOINT)
    assert reason_of(qm.put, conn, h, MQMD(Report=report), pmo, b"x") == C.MQRC_MISSING_REPLY_TO_Q
    assert depth(qm, "REPLY") == 0


@pytest.mark.parametrize("report", [C.MQRO_PASS_MSG_ID, C.MQRO_DISCARD_MSG, C.MQRO_PASS_DISCARD_AND_EXPIRY])
def test_report_options_that_ask_for_no_report_need_no_reply_to_q(qm: QueueManager, report: int) -> None:
    put(qm, qm.connect("app"), "REPLY", b"x", MQMD(Report=report))
    assert depth(qm, "REPLY") == 1


# -- expiry on a transmission queue (issue 23, item 6) ----------------------------------------------------------
def test_expired_message_on_xmitq_is_discarded_with_its_report_routed_to_reply_to_qmgr(
    qm: QueueManager, clock: FakeClock
) -> None:
    qm.define("QLOCAL", "QM3", {"USAGE": C.MQUS_TRANSMISSION})
    conn = qm.connect("app")
    md = MQMD(Expiry=50, Report=C.MQRO_EXPIRATION_WITH_DATA, ReplyToQ=b"R.Q", ReplyToQMgr=b"QM3")
    put(qm, conn, "TO.QM2", b"payload", md)
    clock.advance(6)
    # the channel's get from the transmission queue finds it expired (seed 002: discarded on the get's way)
    assert reason_of(get, qm, conn, "QM2") == C.MQRC_NO_MSG_AVAILABLE
    _outer, data = get(qm, conn, "QM3")  # the report, on its way to QM3
    x = xqh_of(data)
    assert (x.RemoteQName.rstrip(), x.RemoteQMgrName.rstrip()) == (b"R.Q", b"QM3")
    rep = x.MsgDesc
    assert rep.MsgType == C.MQMT_REPORT and rep.Feedback == C.MQFB_EXPIRATION
    assert rep.CorrelId == md.MsgId
    assert data[428:] == b"payload"  # the application data, not the MQXQH


def test_got_xmitq_message_has_both_expiry_fields_decremented(qm: QueueManager, clock: FakeClock) -> None:
    conn = qm.connect("app")
    put(qm, conn, "TO.QM2", b"x", MQMD(Expiry=100))
    clock.advance(3)
    outer, data = get(qm, conn, "QM2")
    assert outer.Expiry == 70 and xqh_of(data).MsgDesc.Expiry == 70


# -- a triggered transmission queue (seed 001, condition 6: the trigger message names the channel) --------------
def test_put_to_remote_queue_triggers_its_transmission_queue(qm: QueueManager) -> None:
    qm.define("QLOCAL", "SYSTEM.CHANNEL.INITQ")
    qm.alter(
        "QLOCAL",
        "QM2",
        {"TRIGGER": C.MQTC_ON, "TRIGTYPE": C.MQTT_FIRST, "INITQ": "SYSTEM.CHANNEL.INITQ", "TRIGDATA": "QM1.TO.QM2"},
    )
    conn = qm.connect("app")
    open_q(qm, conn, "SYSTEM.CHANNEL.INITQ", C.MQOO_INPUT_SHARED)  # the channel initiator serves it
    put(qm, conn, "TO.QM2", b"x")
    md, data = get(qm, qm.connect("chinit"), "SYSTEM.CHANNEL.INITQ")
    tm = MQTM.unpack(data)
    assert md.Format == C.MQFMT_TRIGGER and tm.QName.rstrip() == b"QM2"
    assert tm.TriggerData.rstrip() == b"QM1.TO.QM2"
