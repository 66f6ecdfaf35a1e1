"""Message expiry and expiration reports — seed 002_b264ab86f94f09d9.txt, every paragraph a rule.

All times move on the fake clock: no test sleeps.
"""

from __future__ import annotations

import struct

import pytest

from syncpoint.client import EmbeddedQueueManager, QueueManager
from syncpoint.engine import FakeClock
from syncpoint.mqi import MQDLH, MQGMO, MQMD, MQXQH, MQMIError
from syncpoint.mqi import constants as C


def reason_of(fn, *a, **kw) -> int:
    with pytest.raises(MQMIError) as ei:
        fn(*a, **kw)
    return ei.value.reason


@pytest.fixture
def reply(qm: QueueManager) -> QueueManager:
    qm.admin("define", "QLOCAL", "REPLY")
    return qm


# seed 002 gives the scan of shared queues (EXPRYINT, REFRESH QMGR TYPE(EXPIRY)) to one member of the group:
# those rules are checked with several members (tests/qsg/test_qsg_expiry_*.py)
_SCAN = pytest.mark.not_on_shared_queue("the scan for expired messages of shared queues is the group's (seed 002)")


def put_expiring(q, data: bytes, tenths: int, **kw) -> MQMD:
    md = MQMD(Expiry=tenths)
    for k, v in kw.items():
        setattr(md, k, v)
    return q.put(data, md=md)


# 1 -------------------------------------------------------------------------------------------------
def test_expiry_is_in_tenths_of_a_second(qm: QueueManager, clock: FakeClock) -> None:
    q = qm.open("Q1")
    put_expiring(q, b"x", 50)  # five seconds
    clock.advance(4.9)
    assert q.browse(first=True).data == b"x"
    clock.advance(0.1)
    assert reason_of(q.browse, first=True) == C.MQRC_NO_MSG_AVAILABLE


def test_unlimited_expiry_never_expires(qm: QueueManager, clock: FakeClock) -> None:
    q = qm.open("Q1")
    put_expiring(q, b"x", C.MQEI_UNLIMITED)
    clock.advance(10 * 365 * 86400)
    m = q.get()
    assert m.expiry == C.MQEI_UNLIMITED


@pytest.mark.parametrize("expiry", [0, -2, -100])
def test_put_with_expiry_zero_or_below_minus_one_fails_with_no_report(reply: QueueManager, expiry: int) -> None:
    q = reply.open("Q1")
    md = MQMD(Expiry=expiry, Report=C.MQRO_EXPIRATION, ReplyToQ=b"REPLY")
    assert reason_of(q.put, b"x", md=md) == C.MQRC_EXPIRY_ERROR
    assert reply.open("REPLY").depth == 0 and q.depth == 0


def test_expiry_of_a_syncpoint_put_counts_from_the_put_not_the_commit(qm: QueueManager, clock: FakeClock) -> None:
    q = qm.open("Q1")
    put_expiring(q, b"x", 100, Version=2)
    q.put(b"y", md=MQMD(Expiry=100), syncpoint=True)
    clock.advance(8)
    qm.commit()
    clock.advance(2.5)
    assert reason_of(q.get) == C.MQRC_NO_MSG_AVAILABLE


# 2 -------------------------------------------------------------------------------------------------
def test_got_message_expiry_is_the_remaining_time(qm: QueueManager, clock: FakeClock) -> None:
    q = qm.open("Q1")
    put_expiring(q, b"x", 600)
    clock.advance(25.0)
    m = q.browse(first=True)
    assert m.expiry == 350
    clock.advance(34.95)
    m = q.get()
    assert 0 < m.expiry <= 1  # never 0 or below for a returned message


def test_browse_and_get_never_return_an_expired_message(qm: QueueManager, clock: FakeClock) -> None:
    q = qm.open("Q1")
    put_expiring(q, b"old", 10)
    q.put(b"fresh")
    clock.advance(1.0)
    assert q.browse(first=True).data == b"fresh"
    assert q.get().data == b"fresh"
    assert reason_of(q.get) == C.MQRC_NO_MSG_AVAILABLE


# 3 -------------------------------------------------------------------------------------------------
def test_fifo_get_discards_every_expired_message_up_to_the_first_unexpired(qm: QueueManager, clock: FakeClock) -> None:
    qm.admin("define", "QLOCAL", "FQ", {"MSGDLVSQ": C.MQMDS_FIFO})
    q = qm.open("FQ")
    put_expiring(q, b"e1", 10)
    put_expiring(q, b"e2", 10)
    q.put(b"u1")
    put_expiring(q, b"e3", 10)
    q.put(b"u2")
    clock.advance(2)
    assert q.depth == 5  # expired but not yet discarded: still counted (seed 002, note 2)
    assert q.get().data == b"u1"
    assert q.depth == 2  # e1 and e2 discarded, e3 (after u1) still there
    assert [m.data for m in qm.admin("messages", "FQ")] == [b"e3", b"u2"]


def test_priority_get_discards_higher_and_earlier_equal_priority_expired_messages(
    qm: QueueManager, clock: FakeClock
) -> None:
    q = qm.open("Q1")
    put_expiring(q, b"A-p5-expired", 10, Priority=5)
    q.put(b"B-p5", priority=5)
    put_expiring(q, b"C-p5-expired-after-B", 10, Priority=5)
    put_expiring(q, b"D-p9-expired", 10, Priority=9)
    put_expiring(q, b"E-p1-expired", 10, Priority=1)
    clock.advance(2)
    assert q.get().data == b"B-p5"
    left = [m.data for m in qm.admin("messages", "Q1")]
    assert left == [b"C-p5-expired-after-B", b"E-p1-expired"]


def test_browse_discards_the_expired_messages_it_passes(qm: QueueManager, clock: FakeClock) -> None:
    q = qm.open("Q1")
    put_expiring(q, b"e", 10)
    q.put(b"u")
    clock.advance(2)
    assert q.browse(first=True).data == b"u"
    assert q.depth == 1


def test_match_get_discards_only_expired_messages_it_would_have_returned(qm: QueueManager, clock: FakeClock) -> None:
    q = qm.open("Q1")
    put_expiring(q, b"other", 10, CorrelId=b"B".ljust(24, b"\0"))
    put_expiring(q, b"mine-expired", 10, CorrelId=b"A".ljust(24, b"\0"))
    q.put(b"mine", correl_id=b"A")
    clock.advance(2)
    assert q.get(correl_id=b"A").data == b"mine"
    assert [m.data for m in qm.admin("messages", "Q1")] == [b"other"]


# 4 -------------------------------------------------------------------------------------------------
def test_expired_messages_not_yet_discarded_count_towards_maxdepth(qm: QueueManager, clock: FakeClock) -> None:
    qm.admin("define", "QLOCAL", "SMALL", {"MAXDEPTH": 2})
    q = qm.open("SMALL")
    put_expiring(q, b"1", 10)
    put_expiring(q, b"2", 10)
    clock.advance(5)
    assert reason_of(q.put, b"3") == C.MQRC_Q_FULL
    assert reason_of(q.get) == C.MQRC_NO_MSG_AVAILABLE  # discards both
    q.put(b"3")


# 5 -------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("report", "expected_data"),
    [
        (C.MQRO_EXPIRATION, b""),
        (C.MQRO_EXPIRATION_WITH_DATA, bytes(range(100))),
        (C.MQRO_EXPIRATION_WITH_FULL_DATA, bytes(range(200))),
    ],
)
def test_expiration_report_is_sent_when_the_message_is_discarded(
    reply: QueueManager, clock: FakeClock, report: int, expected_data: bytes
) -> None:
    q = reply.open("Q1")
    md = put_expiring(q, bytes(range(200)), 10, Report=report, ReplyToQ=b"REPLY", Format=C.MQFMT_STRING)
    r = reply.open("REPLY")
    clock.advance(2)
    assert r.depth == 0  # eligible is not discarded: no report yet (seed 002, note 3)
    assert reason_of(q.get) == C.MQRC_NO_MSG_AVAILABLE
    rep = r.get()
    assert rep.md.MsgType == C.MQMT_REPORT and rep.md.Feedback == C.MQFB_EXPIRATION
    assert rep.data == expected_data
    assert rep.md.CorrelId == md.MsgId  # MQRO_COPY_MSG_ID_TO_CORREL_ID is the default
    assert rep.md.MsgId != md.MsgId  # MQRO_NEW_MSG_ID is the default
    assert rep.md.Format == (C.MQFMT_STRING if expected_data else C.MQFMT_NONE)


@_SCAN
def test_expiration_report_passes_msgid_and_correlid_when_asked(reply: QueueManager, clock: FakeClock) -> None:
    q = reply.open("Q1")
    opts = C.MQRO_EXPIRATION | C.MQRO_PASS_MSG_ID | C.MQRO_PASS_CORREL_ID
    md = put_expiring(q, b"x", 10, Report=opts, ReplyToQ=b"REPLY", CorrelId=b"CID".ljust(24, b"\0"))
    clock.advance(2)
    reply.admin("refresh_expiry", "Q1")
    rep = reply.open("REPLY").get()
    assert rep.md.MsgId == md.MsgId and rep.md.CorrelId == b"CID".ljust(24, b"\0")


def test_no_report_options_no_report(reply: QueueManager, clock: FakeClock) -> None:
    q = reply.open("Q1")
    put_expiring(q, b"x", 10, ReplyToQ=b"REPLY")
    clock.advance(2)
    assert reason_of(q.get) == C.MQRC_NO_MSG_AVAILABLE
    assert reply.open("REPLY").depth == 0


def test_report_that_cannot_be_put_goes_to_the_dead_letter_queue(reply: QueueManager, clock: FakeClock) -> None:
    q = reply.open("Q1")
    put_expiring(q, b"x", 10, Report=C.MQRO_EXPIRATION, ReplyToQ=b"NO.SUCH.QUEUE")
    clock.advance(2)
    assert reason_of(q.get) == C.MQRC_NO_MSG_AVAILABLE
    dl = reply.open("SYSTEM.DEAD.LETTER.QUEUE").get()
    assert dl.md.Format == C.MQFMT_DEAD_LETTER_HEADER
    dlh = MQDLH.unpack(dl.data)
    assert dlh.Reason == C.MQRC_UNKNOWN_OBJECT_NAME and dlh.DestQName.rstrip() == b"NO.SUCH.QUEUE"
    assert dl.md.MsgType == C.MQMT_REPORT and dl.md.Feedback == C.MQFB_EXPIRATION


# 6 -------------------------------------------------------------------------------------------------
def test_discard_and_report_are_not_undone_by_backing_out_the_get_that_caused_them(
    reply: QueueManager, clock: FakeClock
) -> None:
    q = reply.open("Q1")
    put_expiring(q, b"expired", 10, Report=C.MQRO_EXPIRATION, ReplyToQ=b"REPLY")
    q.put(b"live")
    clock.advance(2)
    assert q.get(syncpoint=True).data == b"live"
    reply.backout()
    assert [m.data for m in reply.admin("messages", "Q1")] == [b"live"]
    assert reply.open("REPLY").depth == 1


# 7 -------------------------------------------------------------------------------------------------
def test_nearly_expired_message_backed_out_can_expire_before_it_is_got_again(
    qm: QueueManager, clock: FakeClock
) -> None:
    q = qm.open("Q1")
    put_expiring(q, b"x", 20)
    clock.advance(1.5)
    assert q.get(syncpoint=True).data == b"x"
    clock.advance(1.0)
    qm.backout()
    assert reason_of(q.get) == C.MQRC_NO_MSG_AVAILABLE
    assert q.depth == 0  # discarded, not returned


def test_locked_message_that_expires_gives_no_msg_under_cursor(qm: QueueManager, clock: FakeClock) -> None:
    put_expiring(qm.open("Q1"), b"x", 10)
    h = qm.open("Q1", C.MQOO_BROWSE | C.MQOO_INPUT_SHARED)
    h.browse(lock=True)
    clock.advance(2)
    assert reason_of(h.get_under_cursor) == C.MQRC_NO_MSG_UNDER_CURSOR


# 8 -------------------------------------------------------------------------------------------------
def test_dead_letter_put_keeps_the_remaining_expiry_and_keeps_decrementing(
    qm: QueueManager, embedded: EmbeddedQueueManager, clock: FakeClock
) -> None:
    q = qm.open("Q1")
    put_expiring(q, b"payload", 100)
    clock.advance(3)
    m = q.get()  # Expiry now 70
    embedded.call(embedded.engine.dead_letter_message, m.md, m.data, C.MQRC_Q_FULL, "Q1", "QM1")
    clock.advance(2)
    dl = qm.open("SYSTEM.DEAD.LETTER.QUEUE").get()
    assert dl.expiry == 50
    assert MQDLH.unpack(dl.data).Reason == C.MQRC_Q_FULL and dl.data[172:] == b"payload"


# 9 -------------------------------------------------------------------------------------------------
def xmit_data(inner_expiry: int, payload: bytes = b"app") -> bytes:
    return MQXQH(RemoteQName=b"FAR.Q", MsgDesc=MQMD(Expiry=inner_expiry)).pack() + payload


def test_xqh_message_has_both_expiry_fields_decremented_on_get(qm: QueueManager, clock: FakeClock) -> None:
    q = qm.open("Q1")
    q.put(xmit_data(80), md=MQMD(Expiry=100, Format=C.MQFMT_XMIT_Q_HEADER))
    clock.advance(3)
    m = q.get()
    assert m.expiry == 70
    assert MQXQH.unpack(m.data).MsgDesc.Expiry == 50 and m.data.endswith(b"app")


def test_xqh_embedded_expiry_run_out_is_set_to_zero_while_outer_decides(qm: QueueManager, clock: FakeClock) -> None:
    # seed 002, note 9: the outer MQMD decides discarding; an elapsed inner Expiry is set to zero
    q = qm.open("Q1")
    q.put(xmit_data(20), md=MQMD(Expiry=100, Format=C.MQFMT_XMIT_Q_HEADER))
    clock.advance(5)
    m = q.get()
    assert m.expiry == 50 and MQXQH.unpack(m.data).MsgDesc.Expiry == 0


@pytest.mark.parametrize(
    ("outer", "data"),
    [
        (100, xmit_data(200)),  # embedded outlives the message itself
        (100, xmit_data(C.MQEI_UNLIMITED)),
        (C.MQEI_UNLIMITED, xmit_data(0)),  # embedded Expiry not valid
        (100, b"XQH " + b"\0" * 40),  # too short to hold the embedded Expiry
    ],
)
def test_xqh_put_with_inconsistent_expiry_values_is_rejected(qm: QueueManager, outer: int, data: bytes) -> None:
    q = qm.open("Q1")
    assert reason_of(q.put, data, md=MQMD(Expiry=outer, Format=C.MQFMT_XMIT_Q_HEADER)) == C.MQRC_EXPIRY_ERROR
    assert q.depth == 0


def test_xqh_short_data_is_not_an_error_on_get(
    qm: QueueManager, embedded: EmbeddedQueueManager, clock: FakeClock
) -> None:
    md = MQMD(Expiry=100, Format=C.MQFMT_XMIT_Q_HEADER)
    embedded.call(embedded.engine.system_put, "Q1", md, b"XQH short")
    clock.advance(1)
    m = qm.open("Q1").get()
    assert m.data == b"XQH short" and m.expiry == 90


# 10 ------------------------------------------------------------------------------------------------
def test_periodic_scan_by_expryint_discards_expired_messages_and_reports(reply: QueueManager, clock: FakeClock) -> None:
    reply.admin("alter_qmgr", {"EXPRYINT": 10})
    reply.admin("define", "QLOCAL", "Q2")
    q = reply.open("Q1")
    for i in range(3):
        put_expiring(q, f"e{i}".encode(), 50, Report=C.MQRO_EXPIRATION, ReplyToQ=b"REPLY")
    q.put(b"stays")
    status = reply.open("Q2")
    clock.advance(6)  # expired after 5 s, but the next scan is due 10 s after the last one
    assert reply.admin("queue_status", "Q1")["CURDEPTH"] == 4
    clock.advance(5)
    assert status.depth == 0  # any call runs what is due: this one runs the scan
    assert reply.admin("queue_status", "Q1")["CURDEPTH"] == 1
    assert reply.open("REPLY").depth == 3


@_SCAN
def test_scan_tracks_only_queues_holding_messages_with_an_expiry(
    qm: QueueManager, embedded: EmbeddedQueueManager, clock: FakeClock
) -> None:
    qm.admin("define", "QLOCAL", "PLAIN")
    qm.open("PLAIN").put(b"forever")
    put_expiring(qm.open("Q1"), b"x", 10)
    assert {q.name for q in embedded.engine._expiry_candidates} == {"Q1"}
    clock.advance(2)
    assert qm.admin("refresh_expiry", "*") == 1
    assert not embedded.engine._expiry_candidates


@_SCAN
def test_refresh_expiry_scans_only_the_named_queues(qm: QueueManager, clock: FakeClock) -> None:
    for name in ("APP.A", "APP.B", "OTHER"):
        qm.admin("define", "QLOCAL", name)
        put_expiring(qm.open(name), b"x", 10)
    clock.advance(2)
    assert qm.admin("refresh_expiry", "APP.*") == 2
    depths = {n: qm.admin("queue_status", n)["CURDEPTH"] for n in ("APP.A", "APP.B", "OTHER")}
    assert depths == {"APP.A": 0, "APP.B": 0, "OTHER": 1}


# 11 ------------------------------------------------------------------------------------------------
@_SCAN
def test_messages_held_by_a_unit_of_work_are_not_discarded_under_it_but_checked_when_reinstated(
    qm: QueueManager, clock: FakeClock
) -> None:
    q = qm.open("Q1")
    put_expiring(q, b"x", 10)
    q.get(syncpoint=True)
    clock.advance(5)
    assert qm.admin("refresh_expiry", "*") == 0
    qm.backout()
    assert qm.admin("queue_status", "Q1")["CURDEPTH"] == 1
    assert qm.admin("refresh_expiry", "*") == 1
    assert qm.admin("queue_status", "Q1")["CURDEPTH"] == 0


def test_expired_message_committed_get_is_not_discarded_twice(qm: QueueManager, clock: FakeClock) -> None:
    q = qm.open("Q1")
    put_expiring(q, b"x", 10)
    assert q.get(syncpoint=True).data == b"x"
    clock.advance(5)
    qm.commit()
    assert qm.admin("refresh_expiry", "*") == 0


def test_gmo_returned_for_expiry_uses_mqgmo_version_1_too(qm: QueueManager, clock: FakeClock) -> None:
    q = qm.open("Q1")
    put_expiring(q, b"x", 100)
    clock.advance(1)
    m = q.get(gmo=MQGMO(Version=1))
    assert m.expiry == 90
    assert struct.unpack_from("=i", m.md.pack(), 16)[0] == 90


# issue 24, defect 4 ---------------------------------------------------------------------------------
@_SCAN
def test_a_backed_out_get_leaves_one_expiry_entry_and_the_scan_discards_it_once(
    qm: QueueManager, clock: FakeClock
) -> None:
    # "A get under syncpoint backed out gives the message a second entry in the expiry schedule; REFRESH QMGR
    # TYPE(EXPIRY) then fails with 2195 … and skips the rest of the scan."
    q = qm.open("Q1")
    q.put(b"m", md=MQMD(Expiry=10))
    q.get(syncpoint=True)
    qm.backout()
    q.put(b"after", md=MQMD(Expiry=10))  # a later deadline in the same scan: the rest of the scan must run
    clock.advance(1.2)
    assert qm.admin("refresh_expiry", "*") == 2
    assert q.depth == 0
    assert qm.admin("refresh_expiry", "*") == 0


@_SCAN
def test_repeated_backouts_keep_one_expiry_entry_per_message(qm: QueueManager, clock: FakeClock) -> None:
    q = qm.open("Q1")
    q.put(b"m", md=MQMD(Expiry=10))
    for _ in range(5):
        q.get(syncpoint=True)
        qm.backout()
    q.put(b"later", md=MQMD(Expiry=50))
    clock.advance(1.2)
    assert qm.admin("refresh_expiry", "*") == 1
    assert [m.data for m in qm.admin("messages", "Q1")] == [b"later"]
