"""Processing of the dead-letter queue by the handler (seed 003 and dlq-handler.md "Processing"), on a fake clock
against the embedded queue manager, through the client API."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from dlq_helpers import DLQ, Reports, depth, put_dead_letter

from syncpoint.client import QueueManager, dead_letter
from syncpoint.dlq import DeadLetterHandler, parse_rules
from syncpoint.engine import FakeClock
from syncpoint.mqi import MQDLH, MQMIError
from syncpoint.mqi import constants as C

Make = Callable[..., DeadLetterHandler]


@pytest.fixture(autouse=True)
def queues(qm: QueueManager) -> None:
    for name in ("APP.Q", "FWD.A", "FWD.B", "REALLY.DEAD"):
        qm.admin("define", "QLOCAL", name, {"MAXDEPTH": 10_000})
    qm.admin("define", "QLOCAL", "FULL.Q", {"MAXDEPTH": 1})


def texts(qm: QueueManager, name: str) -> list[bytes]:
    with qm.open(name) as q:
        return [m.data for m in q.browse_all()]


# -- rules in order, accumulated RETRY counts, implied IGNORE (seed 003) --------------------------------
def test_rules_are_searched_in_order_and_the_first_match_acts(qm: QueueManager, handler_for: Make) -> None:
    put_dead_letter(qm, b"one", reason=C.MQRC_Q_FULL)
    put_dead_letter(qm, b"two", reason=C.MQRC_PUT_INHIBITED)
    handler_for(
        "WAIT(NO)\n"
        "REASON(MQRC_Q_FULL) ACTION(FWD) FWDQ(FWD.A)\n"
        "ACTION(FWD) FWDQ(FWD.B)\n"
        "REASON(MQRC_PUT_INHIBITED) ACTION(FWD) FWDQ(FWD.A)\n"
    ).run()
    assert [d[172:] for d in texts(qm, "FWD.A")] == [b"one"]
    assert [d[172:] for d in texts(qm, "FWD.B")] == [b"two"]
    assert depth(qm, DLQ) == 0


def test_retry_counts_accumulate_across_matching_rules(qm: QueueManager, handler_for: Make, clock: FakeClock) -> None:
    # seed 003: a rule is tried RETRY times, then the next matching rule; rule 2's RETRY(2) is tried at the
    # start and at interval 1; rule 3 (the first whose running total 2 + 1 exceeds 2 attempts) at interval 2.
    put_dead_letter(qm, b"m", reason=C.MQRC_Q_FULL)
    start = clock.monotonic()
    h = handler_for(
        "WAIT(NO) RETRYINT(10)\nREASON(MQRC_Q_FULL) ACTION(FWD) FWDQ(NO.SUCH.Q) RETRY(2)\nACTION(FWD) FWDQ(FWD.A)\n"
    )
    stats = h.run()
    assert [d[172:] for d in texts(qm, "FWD.A")] == [b"m"]
    assert stats.failed_puts == 2 and stats.forwarded == 1
    assert clock.monotonic() - start == pytest.approx(20)  # two intervals of RETRYINT(10)


def test_ignore_is_implied_when_no_rule_matches(qm: QueueManager, handler_for: Make) -> None:
    put_dead_letter(qm, b"left", reason=C.MQRC_Q_FULL)
    stats = handler_for("WAIT(NO)\nREASON(MQRC_PUT_INHIBITED) ACTION(DISCARD)\n").run()
    assert texts(qm, DLQ)[0][172:] == b"left"
    assert stats.discarded == 0


def test_ignore_after_all_attempts_leaves_the_message(qm: QueueManager, handler_for: Make, clock: FakeClock) -> None:
    put_dead_letter(qm, b"stuck", reason=C.MQRC_UNKNOWN_OBJECT_NAME, dest_q="GONE.Q")
    start = clock.monotonic()
    stats = handler_for("WAIT(NO) RETRYINT(5)\nACTION(RETRY) RETRY(3)\nACTION(FWD) FWDQ(NO.SUCH.Q) RETRY(2)\n").run()
    assert stats.failed_puts == 5
    assert texts(qm, DLQ)[0][172:] == b"stuck"
    assert clock.monotonic() - start == pytest.approx(20)  # attempts at 0, 5, 10, 15, 20


def test_an_ignore_rule_applies_at_once(qm: QueueManager, handler_for: Make, clock: FakeClock) -> None:
    put_dead_letter(qm, b"kept")
    start = clock.monotonic()
    stats = handler_for("WAIT(NO)\nREASON(MQRC_Q_FULL) ACTION(IGNORE)\nACTION(DISCARD)\n").run()
    assert stats.discarded == 0 and depth(qm, DLQ) == 1
    assert clock.monotonic() == start


def test_attempt_counts_are_kept_by_the_handler_and_lost_on_restart(
    qm: QueueManager, handler_for: Make, reports: Reports
) -> None:
    put_dead_letter(qm, b"m")
    table = "WAIT(NO) RETRYINT(1)\nACTION(FWD) FWDQ(NO.SUCH.Q) RETRY(2)\n"
    handler_for(table).run()
    assert len(reports.matching("could not be put")) == 2
    handler_for(table).run()  # a new handler knows nothing of the earlier attempts
    assert len(reports.matching("could not be put")) == 4


def test_message_is_got_and_put_in_one_unit_of_work_and_a_failed_put_leaves_it_on_the_dlq(
    qm: QueueManager, handler_for: Make
) -> None:
    put_dead_letter(qm, b"m")
    md_before = next(iter(qm.open(DLQ).browse_all())).md
    handler_for("WAIT(NO)\nACTION(FWD) FWDQ(NO.SUCH.Q)\n").run()
    after = next(iter(qm.open(DLQ).browse_all()))
    assert after.msg_id == bytes(md_before.MsgId) and after.data[172:] == b"m"
    assert after.backout_count == 1  # the get was backed out, not the message lost or copied
    assert qm.admin("queue_status", DLQ)["UNCOM"] == 0 and depth(qm, "FWD.A") == 0


# -- DISCARD, FWD, RETRY: descriptor and data -----------------------------------------------------------
def test_discard_removes_the_message(qm: QueueManager, handler_for: Make) -> None:
    put_dead_letter(qm)
    assert handler_for("WAIT(NO)\nACTION(DISCARD)\n").run().discarded == 1
    assert depth(qm, DLQ) == 0


def test_fwd_header_yes_forwards_byte_for_byte_with_all_context(qm: QueueManager, handler_for: Make) -> None:
    original = put_dead_letter(
        qm,
        b"body",
        CorrelId=b"C" * 24,
        UserIdentifier=b"alice",
        ApplIdentityData=b"ident",
        PutApplName=b"orders-app",
        PutApplType=C.MQAT_JAVA,
        PutDate=b"20260102",
        PutTime=b"03040506",
        ApplOriginData=b"orig",
        AccountingToken=b"T" * 32,
        Priority=7,
        Persistence=C.MQPER_PERSISTENT,
        ReplyToQ=b"R.Q",
        ReplyToQMgr=b"RQM",
        MsgType=C.MQMT_DATAGRAM,
        Feedback=C.MQFB_NONE,
    )
    dl = next(iter(qm.open(DLQ).browse_all()))
    handler_for("WAIT(NO)\nACTION(FWD) FWDQ(FWD.A) HEADER(YES)\n").run()
    fwd = qm.open("FWD.A").get()
    assert fwd.data == dl.data  # MQDLH included, byte for byte
    assert fwd.md.Format == C.MQFMT_DEAD_LETTER_HEADER
    for f in (
        "MsgId",
        "CorrelId",
        "UserIdentifier",
        "ApplIdentityData",
        "PutApplName",
        "PutApplType",
        "PutDate",
        "PutTime",
        "ApplOriginData",
        "AccountingToken",
        "Priority",
        "Persistence",
        "ReplyToQ",
        "ReplyToQMgr",
        "MsgType",
        "Encoding",
        "CodedCharSetId",
    ):
        assert getattr(fwd.md, f) == getattr(dl.md, f), f
    assert fwd.md.MsgId == original.MsgId


def test_fwd_header_no_strips_the_header_and_restores_format_encoding_ccsid(
    qm: QueueManager, handler_for: Make
) -> None:
    put_dead_letter(qm, b"body", Format=C.MQFMT_STRING, Encoding=273, CodedCharSetId=500)
    dl = next(iter(qm.open(DLQ).browse_all()))
    assert dl.md.Format == C.MQFMT_DEAD_LETTER_HEADER and dl.md.Encoding == C.MQENC_NATIVE
    handler_for("WAIT(NO)\nACTION(FWD) FWDQ(FWD.A) HEADER(NO)\n").run()
    fwd = qm.open("FWD.A").get()
    assert fwd.data == b"body"
    assert (fwd.md.Format, fwd.md.Encoding, fwd.md.CodedCharSetId) == (C.MQFMT_STRING, 273, 500)
    assert fwd.msg_id == dl.msg_id and fwd.md.PutApplName == dl.md.PutApplName


def test_retry_puts_to_the_header_destination_without_the_header(qm: QueueManager, handler_for: Make) -> None:
    put_dead_letter(qm, b"again", reason=C.MQRC_Q_FULL, dest_q="APP.Q", Encoding=546, CodedCharSetId=819)
    stats = handler_for("WAIT(NO)\nREASON(MQRC_Q_FULL) ACTION(RETRY)\n").run()
    assert stats.retried == 1
    m = qm.open("APP.Q").get()
    assert m.data == b"again" and m.md.Format == C.MQFMT_STRING and m.md.CodedCharSetId == 819


def test_remaining_expiry_is_kept(qm: QueueManager, handler_for: Make, clock: FakeClock) -> None:
    put_dead_letter(qm, b"x", Expiry=600)  # 60 s
    clock.advance(10)
    handler_for("WAIT(NO)\nACTION(FWD) FWDQ(FWD.A)\n").run()
    clock.advance(5)
    assert qm.open("FWD.A").get().expiry == 450


def test_substitutions_destq_replyq_destqm_replyqm(qm: QueueManager, handler_for: Make) -> None:
    put_dead_letter(qm, b"1", dest_q="FWD.A", dest_qmgr="QM1", ReplyToQ=b"FWD.B", ReplyToQMgr=b"QM1")
    put_dead_letter(qm, b"2", dest_q="FWD.B", dest_qmgr="QM1", ReplyToQ=b"FWD.A", ReplyToQMgr=b"QM1")
    handler_for(
        "WAIT(NO)\n"
        "REPLYQ(FWD.B) ACTION(FWD) FWDQ(&DESTQ) FWDQM(&DESTQM) HEADER(NO)\n"
        "ACTION(FWD) FWDQ(&REPLYQ) FWDQM(&REPLYQM) HEADER(NO)\n"
    ).run()
    assert texts(qm, "FWD.A") == [b"1", b"2"]


def test_putaut_ctx_puts_with_the_message_user(qm: QueueManager, handler_for: Make) -> None:
    # IBM: PUTAUT(CTX) puts with the authority of the message's UserIdentifier (MQOO_ALTERNATE_USER_AUTHORITY):
    # bob needs put (and passall: the handler passes the context) on the destination (issue 35)
    put_dead_letter(qm, b"ctx", UserIdentifier=b"bob")
    assert handler_for("WAIT(NO)\nACTION(FWD) FWDQ(FWD.A) PUTAUT(CTX)\n").run().forwarded == 0
    qm.admin("set_authrec", "queue", "FWD.A", "principal", "bob", ["put", "passall"])
    assert handler_for("WAIT(NO)\nACTION(FWD) FWDQ(FWD.A) PUTAUT(CTX)\n").run().forwarded == 1
    assert qm.open("FWD.A").get().md.UserIdentifier.rstrip() == b"bob"


def test_patterns_select_messages(qm: QueueManager, handler_for: Make) -> None:
    put_dead_letter(qm, b"a", PutApplName=b"payroll", Persistence=C.MQPER_NOT_PERSISTENT)
    put_dead_letter(qm, b"b", PutApplName=b"orders", ReplyToQ=b"X")
    put_dead_letter(qm, b"c", PutApplName=b"orders", Persistence=C.MQPER_PERSISTENT)
    handler_for(
        "WAIT(NO)\n"
        "APPLNAME('pay*') PERSIST(MQPER_NOT_PERSISTENT) ACTION(FWD) FWDQ(FWD.A) HEADER(NO)\n"
        "REPLYQ('?*') ACTION(FWD) FWDQ(FWD.B) HEADER(NO)\n"
        "FORMAT(MQSTR) DESTQ(APP.*) ACTION(FWD) FWDQ(REALLY.DEAD) HEADER(NO)\n"
    ).run()
    assert (texts(qm, "FWD.A"), texts(qm, "FWD.B"), texts(qm, "REALLY.DEAD")) == ([b"a"], [b"b"], [b"c"])


# -- put failures ---------------------------------------------------------------------------------------
def test_put_failing_for_the_header_reason_to_the_original_destination_is_retried_quietly(
    qm: QueueManager, handler_for: Make, reports: Reports, clock: FakeClock
) -> None:
    qm.open("FULL.Q").put(b"occupant")
    put_dead_letter(qm, b"late", reason=C.MQRC_Q_FULL, dest_q="FULL.Q")
    h = handler_for("WAIT(YES) RETRYINT(30)\nREASON(MQRC_Q_FULL) ACTION(RETRY) RETRY(10)\n")
    h.full_scan()
    assert depth(qm, DLQ) == 1 and h.stats.failed_puts == 1
    h.step()  # waits for new messages until the interval
    assert depth(qm, DLQ) == 1
    qm.open("FULL.Q").get()  # room again
    h.step()  # interval 1: the retry
    assert texts(qm, "FULL.Q") == [b"late"] and depth(qm, DLQ) == 0
    assert reports.matching("could not be put") == []  # quietly


def test_other_put_failures_are_reported_with_rule_line_and_reason(
    qm: QueueManager, handler_for: Make, reports: Reports
) -> None:
    put_dead_letter(qm, b"x", reason=C.MQRC_Q_FULL, dest_q="APP.Q")
    handler_for("WAIT(NO)\n* comment\nACTION(FWD) FWDQ(NO.SUCH.Q)\n").run()
    (line,) = reports.matching("could not be put")
    assert "rule at line 3" in line.lower() and "2085" in line and "MQRC_UNKNOWN_OBJECT_NAME" in line


def test_failed_retry_with_another_reason_is_reported(qm: QueueManager, handler_for: Make, reports: Reports) -> None:
    qm.admin("alter", "QLOCAL", "APP.Q", {"PUT": C.MQQA_PUT_INHIBITED})
    put_dead_letter(qm, b"x", reason=C.MQRC_Q_FULL, dest_q="APP.Q")
    handler_for("WAIT(NO)\nACTION(RETRY)\n").run()
    (line,) = reports.matching("could not be put")
    assert "line 2" in line and str(C.MQRC_PUT_INHIBITED) in line


def test_unknown_forward_queue_manager_is_reported(qm: QueueManager, handler_for: Make, reports: Reports) -> None:
    put_dead_letter(qm, b"x")
    handler_for("WAIT(NO)\nACTION(FWD) FWDQ(FWD.A) FWDQM(OTHER.QM)\n").run()
    (line,) = reports.matching("could not be put")
    assert str(C.MQRC_UNKNOWN_REMOTE_Q_MGR) in line and depth(qm, DLQ) == 1


# -- RETRYINT, rescans, WAIT ----------------------------------------------------------------------------
def test_retry_waits_for_the_next_interval(qm: QueueManager, handler_for: Make, clock: FakeClock) -> None:
    put_dead_letter(qm, b"x", reason=C.MQRC_Q_FULL, dest_q="FULL.Q")
    qm.open("FULL.Q").put(b"occupant")
    h = handler_for("RETRYINT(60)\nACTION(RETRY) RETRY(5)\n")
    h.full_scan()
    start = clock.monotonic()
    qm.open("FULL.Q").get()
    h.step()  # no new message: waits until the interval is due, retries nothing yet
    assert depth(qm, DLQ) == 1 and clock.monotonic() - start == pytest.approx(60)
    h.step()
    assert depth(qm, DLQ) == 0


def test_new_message_after_the_cursor_is_processed_between_intervals(
    qm: QueueManager, handler_for: Make, clock: FakeClock
) -> None:
    h = handler_for("RETRYINT(60)\nACTION(FWD) FWDQ(FWD.A)\n")
    h.full_scan()
    put_dead_letter(qm, b"new")
    start = clock.monotonic()
    h.step()
    assert [d[172:] for d in texts(qm, "FWD.A")] == [b"new"]
    assert clock.monotonic() == start  # found at once by the waiting browse


def test_message_arriving_behind_the_cursor_waits_for_the_full_rescan_every_ten_intervals(
    qm: QueueManager, handler_for: Make
) -> None:
    # dlq-handler.md step 7: every ten RETRYINTs the whole queue is rescanned, because new messages can
    # arrive behind the browse cursor. An ignored message keeps the cursor; a priority-9 arrival goes before it.
    put_dead_letter(qm, b"ignored", reason=C.MQRC_PUT_INHIBITED, Priority=0)
    h = handler_for("RETRYINT(10)\nREASON(MQRC_PUT_INHIBITED) ACTION(IGNORE)\nACTION(FWD) FWDQ(FWD.A)\n")
    h.full_scan()
    put_dead_letter(qm, b"urgent", Priority=9)
    while h.interval < 10:
        assert depth(qm, "FWD.A") == 0, h.interval
        h.step()
    assert depth(qm, "FWD.A") == 1 and h.interval == 10


def test_messages_without_a_valid_mqdlh_are_reported_periodically_and_left(
    qm: QueueManager, handler_for: Make, reports: Reports
) -> None:
    qm.open(DLQ).put(b"no header here")
    qm.open(DLQ).put(b"DLH " + b"\0" * 10)  # too short to be an MQDLH
    h = handler_for("RETRYINT(10)\nACTION(DISCARD)\n")
    h.full_scan()
    assert len(reports.matching("does not begin with a valid MQDLH")) == 2
    while h.interval < 9:
        h.step()
    assert len(reports.matching("does not begin with a valid MQDLH")) == 2  # not at every interval
    while h.interval < 10:
        h.step()
    assert len(reports.matching("does not begin with a valid MQDLH")) == 4  # again at the rescan
    assert depth(qm, DLQ) == 2


def test_wrong_version_mqdlh_is_not_a_valid_header(qm: QueueManager, handler_for: Make, reports: Reports) -> None:
    dlh = MQDLH(Reason=C.MQRC_Q_FULL)
    raw = bytearray(dlh.pack())
    raw[4:8] = (2).to_bytes(4, "little")
    qm.open(DLQ).put(bytes(raw) + b"data")
    handler_for("WAIT(NO)\nACTION(DISCARD)\n").run()
    assert depth(qm, DLQ) == 1 and reports.matching("valid MQDLH")


def test_wait_no_ends_when_nothing_is_left_to_do(qm: QueueManager, handler_for: Make, clock: FakeClock) -> None:
    start = clock.monotonic()
    handler_for("WAIT(NO)\nACTION(DISCARD)\n").run()
    assert clock.monotonic() == start


def test_wait_seconds_ends_after_that_long_without_work(qm: QueueManager, handler_for: Make, clock: FakeClock) -> None:
    start = clock.monotonic()
    handler_for("WAIT(45) RETRYINT(20)\nACTION(DISCARD)\n").run()
    assert clock.monotonic() - start == pytest.approx(45)


def test_wait_yes_keeps_waiting(qm: QueueManager, handler_for: Make, clock: FakeClock) -> None:
    h = handler_for("WAIT(YES) RETRYINT(20)\nACTION(DISCARD)\n")
    h.full_scan()
    for _ in range(30):
        h.step()
    put_dead_letter(qm)
    h.step()
    assert depth(qm, DLQ) == 0 and h.stats.discarded == 1


# -- queue selection ------------------------------------------------------------------------------------
def test_blank_queue_name_means_the_queue_managers_deadq(qm: QueueManager, handler_for: Make) -> None:
    assert handler_for("ACTION(DISCARD)\n").qname == DLQ
    assert handler_for("INPUTQ(' ')\nACTION(DISCARD)\n").qname == DLQ


def test_inputq_and_the_positional_name_override(qm: QueueManager, handler_for: Make) -> None:
    assert handler_for("INPUTQ(FWD.A)\nACTION(DISCARD)\n").qname == "FWD.A"
    assert handler_for("INPUTQ(FWD.A)\nACTION(DISCARD)\n", qname="FWD.B").qname == "FWD.B"
    assert handler_for("INPUTQ(FWD.A)\nACTION(DISCARD)\n", qname=" ").qname == DLQ


def test_no_deadq_and_no_name_is_an_error(qm: QueueManager, clock: FakeClock) -> None:
    qm.admin("alter_qmgr", {"DEADQ": ""})
    with pytest.raises(MQMIError) as e:
        DeadLetterHandler(qm, parse_rules("ACTION(DISCARD)\n"), clock=clock)
    assert e.value.reason == C.MQRC_UNKNOWN_OBJECT_NAME


# -- several handlers on one queue ----------------------------------------------------------------------
def test_a_message_locked_by_one_handler_is_not_seen_by_another(
    connect: Callable[..., QueueManager], qm: QueueManager, clock: FakeClock
) -> None:
    put_dead_letter(qm, b"one")
    put_dead_letter(qm, b"two")
    table = parse_rules("ACTION(FWD) FWDQ(FWD.A)\n")
    a = DeadLetterHandler(connect(), table, clock=clock, report=lambda s: None)
    b = DeadLetterHandler(connect(), table, clock=clock, report=lambda s: None)
    first = a.queue.browse(first=True, lock=True)
    seen_by_b = b.queue.browse(first=True, lock=True)
    assert seen_by_b.msg_id != first.msg_id
    b.full_scan()  # b forwards only what it can see
    a.full_scan()
    assert sorted(d[172:] for d in texts(qm, "FWD.A")) == [b"one", b"two"]
    assert a.stats.forwarded == 1 and b.stats.forwarded == 1


def test_the_handler_starts_with_amq8708i_and_ends_with_amq8709i(qm: QueueManager, handler_for: Make) -> None:
    # IBM's runmqdlq: AMQ8708I "Dead-letter queue handler started to process INPUTQ(...)." and AMQ8709I
    # "Dead-letter queue handler ending."
    put_dead_letter(qm, b"one")
    reports: list[str] = []
    DeadLetterHandler(qm, parse_rules("WAIT(NO)\nACTION(DISCARD)\n"), report=reports.append).run()
    assert reports[0] == f"AMQ8708I: Dead-letter queue handler started to process INPUTQ({DLQ})."
    assert reports[-1] == "AMQ8709I: Dead-letter queue handler ending."
    assert "1 discarded" in reports[-2]


def test_retry_keeps_the_properties_of_a_dead_letter(qm: QueueManager, handler_for: Make) -> None:
    """Properties stay with a dead letter (an MQRFH2 after its MQDLH, the headers chained) and the handler's
    RETRY with MQPMO_PASS_ALL_CONTEXT forwards them: the getter at the destination reads them as properties."""
    qm.open("FWD.A").put(b"order", properties={"usr.color": "red", "jms.Dst": "queue:///APP.Q"})
    got = qm.open("FWD.A").get()
    dead_letter(qm, got.md, got.data, C.MQRC_Q_FULL, dest_q="APP.Q", properties=got.typed_properties)
    qm.commit()
    stats = handler_for("WAIT(NO)\nREASON(MQRC_Q_FULL) ACTION(RETRY)\n").run()
    assert stats.retried == 1
    m = qm.open("APP.Q").get()
    assert m.data == b"order" and m.properties == {"color": "red", "jms.Dst": "queue:///APP.Q"}
