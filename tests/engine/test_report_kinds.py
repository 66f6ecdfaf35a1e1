"""Report messages besides expiration (issue 23, item 6): confirm on arrival (COA), confirm on delivery (COD),
each with its _DATA (the first 100 bytes) and _WITH_FULL_DATA variants, MQRO_PASS_MSG_ID / PASS_CORREL_ID /
NEW_MSG_ID / COPY_MSG_ID_TO_CORREL_ID, MQRO_PASS_DISCARD_AND_EXPIRY, Feedback, MsgType MQMT_REPORT and the
identity fields — as IBM generates them (constants.md, "MQRO_* report options", "MQFB_* feedback").
"""

from __future__ import annotations

import pytest
from remote_helpers import depth, get, new_qm, put, reason_of, settle

from syncpoint.engine import FakeClock, QueueManager
from syncpoint.mqi import MQMD
from syncpoint.mqi import constants as C

DATA = bytes(range(200))


@pytest.fixture
def qm(clock: FakeClock) -> QueueManager:
    qm = new_qm("QM1", clock)
    qm.define("QLOCAL", "Q1")
    qm.define("QLOCAL", "REPLY")
    qm.define("QLOCAL", "QM2", {"USAGE": C.MQUS_TRANSMISSION})
    qm.define("QREMOTE", "TO.QM2", {"RNAME": "APP.IN", "RQMNAME": "QM2"})
    settle(qm)
    return qm


def asking(report: int, **kw: object) -> MQMD:
    md = MQMD(Report=report, ReplyToQ=b"REPLY", Format=C.MQFMT_STRING, CorrelId=b"corr".ljust(24, b"\0"))
    for k, v in kw.items():
        setattr(md, k, v)
    return md


# -- COA -----------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("report", "data"),
    [(C.MQRO_COA, b""), (C.MQRO_COA_WITH_DATA, DATA[:100]), (C.MQRO_COA_WITH_FULL_DATA, DATA)],
)
def test_coa_report_when_the_message_arrives_on_its_queue(qm: QueueManager, report: int, data: bytes) -> None:
    conn = qm.connect("app", user="alice")
    md = put(qm, conn, "Q1", DATA, asking(report, Priority=6))
    rmd, rdata = get(qm, conn, "REPLY")
    assert rmd.MsgType == C.MQMT_REPORT and rmd.Feedback == C.MQFB_COA
    assert rdata == data
    assert rmd.Format == (C.MQFMT_STRING if data else C.MQFMT_NONE)
    # MQRO_NEW_MSG_ID and MQRO_COPY_MSG_ID_TO_CORREL_ID, the defaults
    assert rmd.MsgId != md.MsgId and rmd.CorrelId == md.MsgId
    assert rmd.Priority == 6 and rmd.Persistence == C.MQPER_NOT_PERSISTENT  # the original's (DEFPSIST(NO))
    assert rmd.UserIdentifier.rstrip() == b"alice"  # identity context: the original's
    assert rmd.PutApplType == C.MQAT_QMGR and rmd.PutApplName.rstrip() == b"QM1"  # origin: the queue manager's
    assert rmd.ReplyToQMgr.rstrip() == b"QM1" and rmd.Report == C.MQRO_NONE and rmd.Expiry == C.MQEI_UNLIMITED


def test_coa_of_a_put_in_syncpoint_is_sent_only_if_it_commits(qm: QueueManager) -> None:
    conn = qm.connect("app")
    put(qm, conn, "Q1", b"x", asking(C.MQRO_COA), syncpoint=True)
    assert reason_of(get, qm, qm.connect("other"), "REPLY") == C.MQRC_NO_MSG_AVAILABLE
    qm.backout(conn)
    assert depth(qm, "REPLY") == 0
    put(qm, conn, "Q1", b"x", asking(C.MQRO_COA), syncpoint=True)
    qm.commit(conn)
    settle(qm)
    assert get(qm, conn, "REPLY")[0].Feedback == C.MQFB_COA


def test_no_coa_at_the_sending_end_of_a_put_to_a_remote_queue(qm: QueueManager) -> None:
    # COA is generated where the message reaches its destination queue: the other queue manager
    put(qm, qm.connect("app"), "TO.QM2", b"x", asking(C.MQRO_COA))
    assert depth(qm, "REPLY") == 0 and depth(qm, "QM2") == 1


def test_report_to_a_remote_reply_to_qmgr_goes_onto_its_transmission_queue(qm: QueueManager) -> None:
    conn = qm.connect("app")
    put(qm, conn, "Q1", b"x", asking(C.MQRO_COA, ReplyToQMgr=b"QM2"))
    outer, data = get(qm, conn, "QM2")
    assert outer.Format == C.MQFMT_XMIT_Q_HEADER and data[8:56].rstrip() == b"REPLY"


# -- COD -----------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("report", "data"),
    [(C.MQRO_COD, b""), (C.MQRO_COD_WITH_DATA, DATA[:100]), (C.MQRO_COD_WITH_FULL_DATA, DATA)],
)
def test_cod_report_when_an_application_gets_the_message(qm: QueueManager, report: int, data: bytes) -> None:
    conn = qm.connect("app")
    md = put(qm, conn, "Q1", DATA, asking(report))
    get(qm, conn, "Q1", browse=True)
    assert depth(qm, "REPLY") == 0  # a browse is not a delivery
    get(qm, conn, "Q1")
    rmd, rdata = get(qm, conn, "REPLY")
    assert rmd.Feedback == C.MQFB_COD and rmd.MsgType == C.MQMT_REPORT and rdata == data
    assert rmd.CorrelId == md.MsgId


def test_cod_of_a_get_in_syncpoint_is_sent_only_if_it_commits(qm: QueueManager) -> None:
    conn = qm.connect("app")
    put(qm, conn, "Q1", b"x", asking(C.MQRO_COD))
    get(qm, conn, "Q1", syncpoint=True)
    qm.backout(conn)
    settle(qm)
    assert depth(qm, "REPLY") == 0
    get(qm, conn, "Q1", syncpoint=True)
    qm.commit(conn)
    settle(qm)
    assert get(qm, conn, "REPLY")[0].Feedback == C.MQFB_COD


def test_no_cod_when_a_channel_takes_the_message_off_a_transmission_queue(qm: QueueManager) -> None:
    conn = qm.connect("app")
    put(qm, conn, "TO.QM2", b"x", asking(C.MQRO_COD))
    get(qm, conn, "QM2")
    assert depth(qm, "REPLY") == 0


# -- identifiers, discard and expiry ------------------------------------------------------------------------
def test_pass_msg_id_and_pass_correl_id(qm: QueueManager) -> None:
    conn = qm.connect("app")
    md = put(qm, conn, "Q1", b"x", asking(C.MQRO_COA | C.MQRO_PASS_MSG_ID | C.MQRO_PASS_CORREL_ID))
    rmd, _ = get(qm, conn, "REPLY")
    assert rmd.MsgId == md.MsgId and rmd.CorrelId == md.CorrelId


def test_pass_discard_and_expiry_passes_discard_and_the_remaining_expiry(qm: QueueManager, clock: FakeClock) -> None:
    conn = qm.connect("app")
    put(qm, conn, "Q1", b"x", asking(C.MQRO_COD | C.MQRO_PASS_DISCARD_AND_EXPIRY | C.MQRO_DISCARD_MSG, Expiry=600))
    clock.advance(10)
    get(qm, conn, "Q1")
    rmd, _ = get(qm, conn, "REPLY")
    assert rmd.Report == C.MQRO_DISCARD_MSG and 490 <= rmd.Expiry <= 500


def test_report_to_a_missing_reply_queue_goes_to_the_dead_letter_queue(qm: QueueManager) -> None:
    conn = qm.connect("app")
    put(qm, conn, "Q1", b"x", asking(C.MQRO_COA, ReplyToQ=b"NO.SUCH.Q"))
    dmd, ddata = get(qm, conn, "SYSTEM.DEAD.LETTER.QUEUE")
    assert dmd.Format == C.MQFMT_DEAD_LETTER_HEADER
    assert int.from_bytes(ddata[8:12], "little") == C.MQRC_UNKNOWN_OBJECT_NAME
