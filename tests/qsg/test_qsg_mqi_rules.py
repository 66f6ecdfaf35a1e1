"""The MQI rules of a private queue on a shared queue, across members (issue 20, item 2): browse and the browse
cursor, MQGMO_LOCK / UNLOCK, the match options, MQGMO_MARK_SKIP_BACKOUT, MAXDEPTH and IBM's INDXTYPE rules — each
seen from a second member of the group, which the engine-level suite (one member, tests/engine/conftest.py)
cannot show. Two members in this process (each an in-process host, its private store in memory) share one real
PostgreSQL database, on a fake clock.

References: constants.md ("MQGMO_* get-message options", "MQMO_* match options", MQRC_Q_FULL 2053,
MQRC_MSG_ID_ERROR 2206, MQRC_CORREL_ID_ERROR 2207); seed 000_d5eead655aeb3bc8.txt ("Skipping backout");
reference/queue-sharing-groups.md ("Getting by CorrelId from a shared queue needs INDXTYPE(CORRELID) …").
"""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest
from qsg_members import member, reason

import syncpoint
from syncpoint.client import EmbeddedQueueManager
from syncpoint.engine import FakeClock
from syncpoint.mqi import MQGMO, MQMD, MQOD
from syncpoint.mqi import constants as C
from waiting import wait_until

Pair = tuple[syncpoint.QueueManager, syncpoint.QueueManager, FakeClock]
HOSTS: dict[str, EmbeddedQueueManager] = {}


@pytest.fixture
def pair(postgres_url: str) -> Iterator[Pair]:
    clock = FakeClock()
    hosts = [member("QMA", postgres_url, clock), member("QMB", postgres_url, clock)]
    HOSTS.update(QMA=hosts[0], QMB=hosts[1])
    a = syncpoint.connect("QMA", embedded=hosts[0])
    b = syncpoint.connect("QMB", embedded=hosts[1])
    a.admin("define", "QLOCAL", "SQ", {"QSGDISP": "SHARED"})
    a.admin("define", "QLOCAL", "CSQ", {"QSGDISP": "SHARED", "INDXTYPE": C.MQIT_CORREL_ID})
    a.admin("define", "QLOCAL", "TINY", {"QSGDISP": "SHARED", "MAXDEPTH": 3})
    yield a, b, clock
    for h in hosts:
        h.close(abnormal=True)


def browse_handle(qm: syncpoint.QueueManager, name: str = "SQ") -> syncpoint.Queue:
    return qm.open(name, C.MQOO_BROWSE | C.MQOO_INPUT_SHARED)


# -- browse and the browse cursor ---------------------------------------------------------------------------
def test_browse_on_one_member_sees_another_members_messages_in_delivery_order_and_leaves_them(pair: Pair) -> None:
    a, b, _ = pair
    qa = a.open("SQ")
    for data, priority in [(b"low", 1), (b"high", 7), (b"low2", 1)]:
        qa.put(data, priority=priority)
    bb = browse_handle(b)
    assert [bb.browse().data for _ in range(3)] == [b"high", b"low", b"low2"]
    assert reason(bb.browse) == C.MQRC_NO_MSG_AVAILABLE
    assert bb.browse(first=True).data == b"high"
    assert qa.depth == 3  # a browse removes nothing


def test_browse_next_goes_on_after_the_cursor_when_another_member_removed_the_browsed_message(pair: Pair) -> None:
    a, b, _ = pair
    qa = a.open("SQ")
    for x in (b"1", b"2", b"3"):
        qa.put(x)
    bb = browse_handle(b)
    assert bb.browse().data == b"1"
    assert qa.get().data == b"1"  # removed under B's cursor, by A
    assert bb.browse().data == b"2"


def test_get_under_cursor_fails_when_another_member_took_the_browsed_message(pair: Pair) -> None:
    # constants.md: MQRC_NO_MSG_UNDER_CURSOR (2034) "the browse cursor is not positioned on a retrievable message"
    a, b, _ = pair
    a.open("SQ").put(b"only")
    hb = b.mqopen(MQOD(ObjectName=b"SQ"), C.MQOO_BROWSE | C.MQOO_INPUT_SHARED)
    b.mqget(hb, MQMD(), MQGMO(Options=C.MQGMO_BROWSE_FIRST))
    assert a.open("SQ").get().data == b"only"
    under = MQGMO(Options=C.MQGMO_MSG_UNDER_CURSOR | C.MQGMO_NO_SYNCPOINT)
    assert reason(lambda: b.mqget(hb, MQMD(), under)) == C.MQRC_NO_MSG_UNDER_CURSOR


# -- MQGMO_LOCK / MQGMO_UNLOCK ---------------------------------------------------------------------------------
def test_a_lock_on_one_member_hides_the_message_from_every_other_member_until_unlock(pair: Pair) -> None:
    # constants.md, MQGMO_LOCK: the browsed message "is locked, so that it is not available to other handles"
    a, b, _ = pair
    qa = a.open("SQ")
    qa.put(b"locked")
    qa.put(b"free")
    locker = browse_handle(a)
    assert locker.browse(lock=True).data == b"locked"
    qb = b.open("SQ")
    assert browse_handle(b).browse(first=True).data == b"free"
    assert qb.get().data == b"free"
    assert reason(qb.get) == C.MQRC_NO_MSG_AVAILABLE
    assert qb.depth == 1  # a locked message is still on the queue
    locker.unlock()
    assert qb.get().data == b"locked"


def test_the_locker_gets_its_locked_message_under_the_cursor(pair: Pair) -> None:
    a, b, _ = pair
    a.open("SQ").put(b"mine")
    h = a.mqopen(MQOD(ObjectName=b"SQ"), C.MQOO_BROWSE | C.MQOO_INPUT_SHARED)
    a.mqget(h, MQMD(), MQGMO(Options=C.MQGMO_BROWSE_FIRST | C.MQGMO_LOCK))
    md = MQMD()
    assert a.mqget(h, md, MQGMO(Options=C.MQGMO_MSG_UNDER_CURSOR | C.MQGMO_NO_SYNCPOINT)) == b"mine"
    assert reason(b.open("SQ").get) == C.MQRC_NO_MSG_AVAILABLE


def test_closing_the_locking_handle_releases_the_lock_for_the_other_members(pair: Pair) -> None:
    a, b, _ = pair
    a.open("SQ").put(b"m")
    locker = browse_handle(a)
    locker.browse(lock=True)
    qb = b.open("SQ")
    assert reason(qb.get) == C.MQRC_NO_MSG_AVAILABLE
    locker.close()
    assert qb.get().data == b"m"


def test_a_member_that_ends_releases_its_locks_for_the_others(pair: Pair) -> None:
    # reference/queue-sharing-groups.md: what a queue manager held is released when it ends
    a, b, _ = pair
    a.open("SQ").put(b"m")
    browse_handle(a).browse(lock=True)
    qb = b.open("SQ")
    assert reason(qb.get) == C.MQRC_NO_MSG_AVAILABLE
    HOSTS["QMA"].close(abnormal=True)
    wait_until(lambda: qb.get_or_none() is not None, "QMB getting the message QMA had locked", 60)


# -- match options --------------------------------------------------------------------------------------------
def test_get_matches_group_id_and_sequence_number_of_messages_another_member_put(pair: Pair) -> None:
    a, b, _ = pair
    qa = a.open("SQ")
    group = b"G1".ljust(24, b"\0")
    for n in (1, 2, 3):
        qa.put(b"g%d" % n, md=MQMD(GroupId=group, MsgSeqNumber=n, MsgFlags=C.MQMF_MSG_IN_GROUP))
    qa.put(b"other", md=MQMD(GroupId=b"G2".ljust(24, b"\0"), MsgSeqNumber=2, MsgFlags=C.MQMF_MSG_IN_GROUP))
    gmo = MQGMO(MatchOptions=C.MQMO_MATCH_GROUP_ID | C.MQMO_MATCH_MSG_SEQ_NUMBER)
    assert b.open("SQ").get(md=MQMD(GroupId=group, MsgSeqNumber=2), gmo=gmo).data == b"g2"
    gmo = MQGMO(MatchOptions=C.MQMO_MATCH_MSG_SEQ_NUMBER)
    assert b.open("SQ").get(md=MQMD(MsgSeqNumber=3), gmo=gmo).data == b"g3"


def test_get_matches_the_msg_token_a_browse_on_another_member_returned(pair: Pair) -> None:
    a, b, _ = pair
    qa = a.open("SQ")
    qa.put(b"first")
    qa.put(b"second")
    ha = a.mqopen(MQOD(ObjectName=b"SQ"), C.MQOO_BROWSE)
    browse = MQGMO(Version=C.MQGMO_VERSION_3, Options=C.MQGMO_BROWSE_FIRST)
    a.mqget(ha, MQMD(), browse)
    browse.Options = C.MQGMO_BROWSE_NEXT
    a.mqget(ha, MQMD(), browse)  # the token of "second"
    hb = b.mqopen(MQOD(ObjectName=b"SQ"), C.MQOO_INPUT_SHARED)
    by_token = MQGMO(Version=C.MQGMO_VERSION_3, MatchOptions=C.MQMO_MATCH_MSG_TOKEN, MsgToken=browse.MsgToken)
    assert b.mqget(hb, MQMD(), by_token) == b"second"


def test_match_offset_and_group_options_are_refused_as_on_a_private_queue(pair: Pair) -> None:
    # syncpoint does not support segments or logical order on any queue: the same reason on a shared one
    a, _, _ = pair
    a.admin("define", "QLOCAL", "PRIVATE.Q")
    a.open("SQ").put(b"m")
    a.open("PRIVATE.Q").put(b"m")
    for name in ("SQ", "PRIVATE.Q"):
        q = a.open(name)
        offset = MQGMO(MatchOptions=C.MQMO_MATCH_OFFSET)
        assert reason(lambda q=q, g=offset: q.get(gmo=g)) == C.MQRC_MATCH_OPTIONS_ERROR, name
        for option in (C.MQGMO_LOGICAL_ORDER, C.MQGMO_ALL_MSGS_AVAILABLE, C.MQGMO_COMPLETE_MSG):
            gmo = MQGMO(Options=option)
            assert reason(lambda q=q, g=gmo: q.get(gmo=g)) == C.MQRC_OPTIONS_ERROR, (name, option)
        assert q.depth == 1


# -- INDXTYPE (reference/queue-sharing-groups.md) -------------------------------------------------------------
def test_get_by_correlid_from_a_shared_queue_needs_indxtype_correlid(pair: Pair) -> None:
    # "Getting by CorrelId from a shared queue needs INDXTYPE(CORRELID) (else MQRC_CORREL_ID_ERROR 2207)"
    a, b, _ = pair
    a.open("SQ").put(b"m", correl_id=b"C1")
    assert reason(lambda: b.open("SQ").get(correl_id=b"C1")) == C.MQRC_CORREL_ID_ERROR
    assert reason(lambda: browse_handle(b).browse(correl_id=b"C1")) == C.MQRC_CORREL_ID_ERROR
    a.open("CSQ").put(b"m", correl_id=b"C1")
    assert b.open("CSQ").get(correl_id=b"C1").data == b"m"


def test_get_by_msgid_from_a_shared_queue_needs_indxtype_msgid_or_none(pair: Pair) -> None:
    # "by MsgId, INDXTYPE(MSGID) or NONE" — else MQRC_MSG_ID_ERROR (2206)
    a, b, _ = pair
    md = a.open("CSQ").put(b"m")
    assert reason(lambda: b.open("CSQ").get(msg_id=md.MsgId)) == C.MQRC_MSG_ID_ERROR
    md = a.open("SQ").put(b"m")  # INDXTYPE(NONE)
    assert b.open("SQ").get(msg_id=md.MsgId).data == b"m"


def test_indxtype_is_defined_displayed_and_a_private_queue_ignores_it(pair: Pair) -> None:
    a, _, _ = pair
    assert a.admin("lookup", "QLOCAL", "CSQ").attrs["INDXTYPE"] == C.MQIT_CORREL_ID
    a.admin("define", "QLOCAL", "PRIVATE.C", {"INDXTYPE": C.MQIT_MSG_ID})
    a.open("PRIVATE.C").put(b"m", correl_id=b"C1")
    assert a.open("PRIVATE.C").get(correl_id=b"C1").data == b"m"  # IBM's rule is for shared queues


# -- MQGMO_MARK_SKIP_BACKOUT (seed 000) -------------------------------------------------------------------------
def test_a_marked_get_skips_mqback_and_stays_out_of_every_members_reach_until_its_new_unit_of_work_ends(
    pair: Pair,
) -> None:
    # seed 000: "the marked message is treated as if it had been retrieved under a new unit of work … If the new
    # unit of work is backed out (for any reason) the message is reinstated on the queue"
    a, b, _ = pair
    qa = a.open("SQ")
    qa.put(b"request")
    qa.put(b"other")
    assert qa.get(syncpoint=True, mark_skip_backout=True).data == b"request"
    assert qa.get(syncpoint=True).data == b"other"
    a.backout()  # the application's backout: "other" comes back, "request" stays got
    qb = b.open("SQ")
    again = qb.get()
    assert (again.data, again.md.BackoutCount) == (b"other", 1)
    assert reason(qb.get) == C.MQRC_NO_MSG_AVAILABLE
    a.backout()  # the new unit of work backed out: the marked message is reinstated
    back = qb.get()
    assert (back.data, back.md.BackoutCount) == (b"request", 1)


def test_a_second_mark_in_one_unit_of_work_fails_on_a_shared_queue(pair: Pair) -> None:
    # seed 000: "any further MQGET calls within the unit of work that specify MQGMO_MARK_SKIP_BACKOUT fail with
    # reason code MQRC_SECOND_MARK_NOT_ALLOWED"
    a, _, _ = pair
    qa = a.open("SQ")
    qa.put(b"1")
    qa.put(b"2")
    qa.get(syncpoint=True, mark_skip_backout=True)
    assert reason(lambda: qa.get(syncpoint=True, mark_skip_backout=True)) == C.MQRC_SECOND_MARK_NOT_ALLOWED
    assert qa.depth == 1


# -- MAXDEPTH -------------------------------------------------------------------------------------------------
def test_maxdepth_counts_the_uncommitted_puts_of_every_member(pair: Pair) -> None:
    # constants.md, MQRC_Q_FULL (2053); IBM counts a put in a unit of work in CurrentQDepth at once
    a, b, _ = pair
    ta = a.open("TINY")
    ta.put(b"1", syncpoint=True)
    ta.put(b"2", syncpoint=True)
    tb = b.open("TINY")
    assert tb.depth == 2  # QMA's uncommitted puts, seen from QMB
    tb.put(b"3")
    assert reason(lambda: tb.put(b"4")) == C.MQRC_Q_FULL
    assert reason(lambda: tb.put(b"4", syncpoint=True)) == C.MQRC_Q_FULL
    a.backout()
    assert tb.depth == 1
    tb.put(b"4", syncpoint=True)
    tb.put(b"5")
    assert reason(lambda: ta.put(b"6")) == C.MQRC_Q_FULL
    b.commit()
    assert [tb.get().data for _ in range(3)] == [b"3", b"4", b"5"]


def test_the_uncommitted_puts_of_a_member_that_ends_stop_counting_towards_maxdepth(pair: Pair) -> None:
    a, b, _ = pair
    ta = a.open("TINY")
    for n in range(3):
        ta.put(b"%d" % n, syncpoint=True)
    tb = b.open("TINY")
    assert reason(lambda: tb.put(b"x")) == C.MQRC_Q_FULL
    HOSTS["QMA"].close(abnormal=True)
    wait_until(lambda: tb.depth == 0, "QMB no longer counting QMA's uncommitted puts", 60)
    tb.put(b"x")


def test_a_put_in_syncpoint_keeps_the_place_of_its_put_in_fifo_order_as_on_a_private_queue(pair: Pair) -> None:
    # a message is on the queue from its MQPUT (IBM counts it in CURDEPTH at once); its commit makes it visible
    # where it was put, before a message another member put outside syncpoint meanwhile
    a, b, _ = pair
    a.admin("define", "QLOCAL", "PRIVATE.Q")
    for name in ("SQ", "PRIVATE.Q"):
        a.open(name).put(b"first", syncpoint=True)
        (b if name == "SQ" else a).open(name).put(b"second")
        a.commit()
        q = a.open(name)
        assert [q.get().data, q.get().data] == [b"first", b"second"], name


# -- reports (constants.md, "MQRO_* report options") -----------------------------------------------------------
def test_coa_and_cod_reports_of_a_shared_queue_reach_a_shared_reply_queue_only_if_the_unit_of_work_commits(
    pair: Pair,
) -> None:
    a, b, _ = pair
    a.admin("define", "QLOCAL", "REPLY.SQ", {"QSGDISP": "SHARED"})
    qa = a.open("SQ")
    asking = MQMD(Report=C.MQRO_COA | C.MQRO_COD, ReplyToQ=b"REPLY.SQ")
    md = qa.put(b"request", md=asking, syncpoint=True)
    a.backout()  # the put never arrived: no COA
    replies = b.open("REPLY.SQ")
    assert replies.depth == 0
    md = qa.put(b"request", md=MQMD(Report=C.MQRO_COA | C.MQRO_COD, ReplyToQ=b"REPLY.SQ"), syncpoint=True)
    a.commit()
    coa = replies.get()
    assert (coa.md.Feedback, coa.md.CorrelId) == (C.MQFB_COA, md.MsgId)
    assert qa.get(syncpoint=True).data == b"request"
    assert replies.depth == 0  # COD of a get in syncpoint: at its commit
    a.commit()
    cod = replies.get()
    assert (cod.md.Feedback, cod.md.CorrelId) == (C.MQFB_COD, md.MsgId)


# -- waiting (MQGMO_WAIT) -------------------------------------------------------------------------------------
def test_a_waiting_get_on_one_member_is_woken_when_another_member_unlocks_the_only_message(pair: Pair) -> None:
    # MQGMO_WAIT: the get waits "for a suitable message to arrive" — an unlocked message becomes suitable
    a, b, _ = pair
    a.open("SQ").put(b"m")
    locker = browse_handle(a)
    locker.browse(lock=True)
    qb = b.open("SQ")
    qb._h("get")  # open the input handle before the waiter starts
    got: list[bytes] = []
    waiter = threading.Thread(target=lambda: got.append(qb.get(wait=float("inf")).data))
    waiter.start()
    wait_until(lambda: HOSTS["QMB"].waiters.parked("SQ"), "QMB's get waiting", 60)
    locker.unlock()
    waiter.join(60)
    assert got == [b"m"]


def test_a_waiting_browse_on_one_member_is_woken_by_a_put_on_another(pair: Pair) -> None:
    a, b, _ = pair
    bb = browse_handle(b)
    bb._h("browse")
    seen: list[bytes] = []
    waiter = threading.Thread(target=lambda: seen.append(bb.browse(wait=float("inf")).data))
    waiter.start()
    wait_until(lambda: HOSTS["QMB"].waiters.parked("SQ"), "QMB's browse waiting", 60)
    a.open("SQ").put(b"arrived")
    waiter.join(60)
    assert seen == [b"arrived"]
    assert a.open("SQ").depth == 1


def test_mqsc_defines_and_displays_indxtype_of_a_shared_queue(pair: Pair) -> None:
    # IBM's DEFINE QLOCAL keyword INDXTYPE(NONE | MSGID | CORRELID | MSGTOKEN | GROUPID)
    from syncpoint.mqsc import MqscProcessor

    a, b, _ = pair
    out: list[str] = []
    script = "DEFINE QLOCAL(BYCORREL) QSGDISP(SHARED) INDXTYPE(CORRELID)\nDISPLAY QLOCAL(BYCORREL) INDXTYPE"
    summary = MqscProcessor(a).run(script.splitlines(), out.append)
    assert "INDXTYPE(CORRELID)" in "\n".join(out), out
    assert summary.failed == 0, out
    b.open("BYCORREL").put(b"m", correl_id=b"C")
    assert a.open("BYCORREL").get(correl_id=b"C").data == b"m"


# -- MsgToken reservations ----------------------------------------------------------------------------------
def test_a_msgtoken_reservation_on_a_shared_queue_is_refused_not_silently_empty(pair: Pair) -> None:
    # A reservation lives in one member's memory and would bind no other member: refused with a reason
    # (MQRC_ENVIRONMENT_ERROR) instead of answering "nothing reserved" for a message that is there.
    a, b, _ = pair
    a.open("SQ").put(b"x")
    bb = browse_handle(b)
    assert bb.browse().data == b"x"
    assert reason(lambda: bb.reserve([1])) == C.MQRC_ENVIRONMENT_ERROR
    assert bb.get().data == b"x"  # nothing half done: the message is there for a get
