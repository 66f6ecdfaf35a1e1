"""The MQI verbs of the engine, one test per rule (issue: the embedded queue manager, deliverable 3)."""

from __future__ import annotations

import threading

import pytest

from syncpoint.client import QueueManager
from syncpoint.engine import FakeClock
from syncpoint.mqi import MQGMO, MQMD, MQOD, MQPMO, MQMIError
from syncpoint.mqi import constants as C


def reason_of(fn, *a, **kw) -> int:
    with pytest.raises(MQMIError) as ei:
        fn(*a, **kw)
    return ei.value.reason


# --------------------------------------------------------------------------------------------------
# objects
# --------------------------------------------------------------------------------------------------
def test_new_queue_manager_has_the_default_objects(qm: QueueManager) -> None:
    # mqsc.md, "Default objects a new queue manager has"
    for name, otype in [
        ("SYSTEM.DEFAULT.LOCAL.QUEUE", "QLOCAL"),
        ("SYSTEM.DEFAULT.MODEL.QUEUE", "QMODEL"),
        ("SYSTEM.DEFAULT.INITIATION.QUEUE", "QLOCAL"),
        ("SYSTEM.DEAD.LETTER.QUEUE", "QLOCAL"),
        ("SYSTEM.ADMIN.COMMAND.QUEUE", "QLOCAL"),
        ("SYSTEM.DEFAULT.PROCESS", "PROCESS"),
    ]:
        assert qm.admin("lookup", otype, name) is not None, name
    assert qm.admin("lookup", "QMODEL", "SYSTEM.DEFAULT.MODEL.QUEUE").attrs["DEFTYPE"] == C.MQQDT_TEMPORARY_DYNAMIC
    assert qm.admin("qm_attr", "DEADQ") == "SYSTEM.DEAD.LETTER.QUEUE"


def test_local_queue_defaults_match_mqsc_reference(qm: QueueManager) -> None:
    d = qm.admin("define", "QLOCAL", "FRESH")
    a = d.attrs
    assert a["TRIGGER"] == C.MQTC_OFF and a["TRIGTYPE"] == C.MQTT_FIRST and a["TRIGDPTH"] == 1
    assert a["TRIGMPRI"] == 0 and a["BOTHRESH"] == 0 and a["HARDENBO"] == C.MQQA_BACKOUT_HARDENED
    assert a["DEFPRTY"] == 0 and a["DEFPSIST"] == C.MQPER_NOT_PERSISTENT and a["MAXDEPTH"] == 5000
    assert a["MAXMSGL"] == 4_194_304 and a["MSGDLVSQ"] == C.MQMDS_PRIORITY and a["SHARE"] == C.MQQA_SHAREABLE
    assert a["DEFSOPT"] == C.MQOO_INPUT_SHARED and a["RETINTVL"] == 999_999_999
    assert a["QDEPTHHI"] == 80 and a["QDEPTHLO"] == 20
    assert qm.admin("qm_attr", "MAXUMSGS") == 10000 and qm.admin("qm_attr", "TRIGINT") == 999_999_999


def test_open_unknown_queue_fails_with_unknown_object_name(qm: QueueManager) -> None:
    assert reason_of(qm.mqopen, MQOD(ObjectName=b"NOPE"), C.MQOO_OUTPUT) == C.MQRC_UNKNOWN_OBJECT_NAME


def test_model_queue_creates_temporary_dynamic_queue_named_from_dynamicqname_and_deleted_on_close(
    qm: QueueManager,
) -> None:
    od = MQOD(ObjectName=b"SYSTEM.DEFAULT.MODEL.QUEUE", DynamicQName=b"REPLY.*")
    h = qm.mqopen(od, C.MQOO_INPUT_EXCLUSIVE)
    name = od.ObjectName.decode().strip()
    assert name.startswith("REPLY.") and len(name) > len("REPLY.")
    assert qm.admin("lookup", "QLOCAL", name) is not None
    qm.put1(name, b"x")
    qm.mqclose(h)
    assert qm.admin("lookup", "QLOCAL", name) is None


def test_temporary_dynamic_queue_refuses_persistent_messages(qm: QueueManager) -> None:
    od = MQOD(ObjectName=b"SYSTEM.DEFAULT.MODEL.QUEUE", DynamicQName=b"TMP.*")
    qm.mqopen(od, C.MQOO_INPUT_EXCLUSIVE)
    name = od.ObjectName.decode().strip()
    assert reason_of(qm.put1, name, b"x", persistent=True) == C.MQRC_PERSISTENT_NOT_ALLOWED


def test_permanent_dynamic_queue_survives_close_and_is_deleted_with_mqco_delete(qm: QueueManager) -> None:
    qm.admin("define", "QMODEL", "PERM.MODEL", {"DEFTYPE": C.MQQDT_PERMANENT_DYNAMIC})
    od = MQOD(ObjectName=b"PERM.MODEL", DynamicQName=b"MYPERM")
    h = qm.mqopen(od, C.MQOO_OUTPUT)
    assert od.ObjectName.rstrip() == b"MYPERM"
    qm.mqclose(h)
    assert qm.admin("lookup", "QLOCAL", "MYPERM") is not None
    h = qm.mqopen(MQOD(ObjectName=b"MYPERM"), C.MQOO_OUTPUT)
    qm.mqput(h, MQMD(), MQPMO(), b"m")
    assert reason_of(qm.mqclose, h, C.MQCO_DELETE) == C.MQRC_Q_NOT_EMPTY
    qm.mqclose(h, C.MQCO_DELETE_PURGE)
    assert qm.admin("lookup", "QLOCAL", "MYPERM") is None


def test_dynamic_name_with_asterisk_not_last_is_rejected(qm: QueueManager) -> None:
    od = MQOD(ObjectName=b"SYSTEM.DEFAULT.MODEL.QUEUE", DynamicQName=b"A*B")
    assert reason_of(qm.mqopen, od, C.MQOO_INPUT_EXCLUSIVE) == C.MQRC_DYNAMIC_Q_NAME_ERROR


def test_alias_queue_resolves_to_its_target_and_applies_its_own_inhibit_and_defaults(qm: QueueManager) -> None:
    qm.admin("define", "QALIAS", "AL", {"TARGET": "Q1", "DEFPRTY": 7})
    qm.put1("AL", b"via alias")
    m = qm.open("Q1").get()
    assert m.data == b"via alias" and m.priority == 7  # alias DEFPRTY applies to puts through it
    qm.admin("alter", "QALIAS", "AL", {"PUT": C.MQQA_PUT_INHIBITED})
    assert reason_of(qm.put1, "AL", b"x") == C.MQRC_PUT_INHIBITED
    qm.put1("Q1", b"direct still works")


def test_alias_to_missing_queue_fails_unknown_alias_base(qm: QueueManager) -> None:
    qm.admin("define", "QALIAS", "DANGLING", {"TARGET": "NOWHERE"})
    assert reason_of(qm.put1, "DANGLING", b"x") == C.MQRC_UNKNOWN_ALIAS_BASE_Q


def test_process_definitions_are_defined_and_inquirable(qm: QueueManager) -> None:
    qm.admin("define", "PROCESS", "P1", {"APPLICID": "/bin/echo", "USERDATA": "u"})
    od = MQOD(ObjectType=C.MQOT_PROCESS, ObjectName=b"P1")
    h = qm.mqopen(od, C.MQOO_INQUIRE)
    ints, chars = qm.mqinq(h, [C.MQCA_APPL_ID, C.MQIA_APPL_TYPE])
    assert chars[0].rstrip() == b"/bin/echo" and len(chars[0]) == 256 and ints == [C.MQAT_UNIX]


# --------------------------------------------------------------------------------------------------
# open
# --------------------------------------------------------------------------------------------------
def test_open_counts_input_and_output_handles(qm: QueueManager, connect) -> None:
    other = connect()
    h1 = qm.mqopen(MQOD(ObjectName=b"Q1"), C.MQOO_INPUT_SHARED)
    other.mqopen(MQOD(ObjectName=b"Q1"), C.MQOO_OUTPUT)
    other.mqopen(MQOD(ObjectName=b"Q1"), C.MQOO_INPUT_AS_Q_DEF | C.MQOO_OUTPUT)
    st = qm.admin("queue_status", "Q1")
    assert (st["IPPROCS"], st["OPPROCS"]) == (2, 2)
    qm.mqclose(h1)
    assert qm.admin("queue_status", "Q1")["IPPROCS"] == 1


def test_exclusive_input_conflicts_give_object_in_use(qm: QueueManager, connect) -> None:
    other = connect()
    qm.mqopen(MQOD(ObjectName=b"Q1"), C.MQOO_INPUT_EXCLUSIVE)
    assert reason_of(other.mqopen, MQOD(ObjectName=b"Q1"), C.MQOO_INPUT_SHARED) == C.MQRC_OBJECT_IN_USE
    other.mqopen(MQOD(ObjectName=b"Q1"), C.MQOO_OUTPUT)  # output is not affected
    qm.admin("define", "QLOCAL", "Q2")
    other.mqopen(MQOD(ObjectName=b"Q2"), C.MQOO_INPUT_SHARED)
    assert reason_of(qm.mqopen, MQOD(ObjectName=b"Q2"), C.MQOO_INPUT_EXCLUSIVE) == C.MQRC_OBJECT_IN_USE


def test_input_as_q_def_follows_defsopt_and_noshare(qm: QueueManager, connect) -> None:
    qm.admin("define", "QLOCAL", "EXQ", {"DEFSOPT": C.MQOO_INPUT_EXCLUSIVE})
    qm.mqopen(MQOD(ObjectName=b"EXQ"), C.MQOO_INPUT_AS_Q_DEF)
    assert reason_of(connect().mqopen, MQOD(ObjectName=b"EXQ"), C.MQOO_INPUT_AS_Q_DEF) == C.MQRC_OBJECT_IN_USE
    qm.admin("define", "QLOCAL", "NOSH", {"SHARE": C.MQQA_NOT_SHAREABLE})
    qm.mqopen(MQOD(ObjectName=b"NOSH"), C.MQOO_INPUT_SHARED)  # treated as exclusive on a NOSHARE queue
    assert reason_of(connect().mqopen, MQOD(ObjectName=b"NOSH"), C.MQOO_INPUT_SHARED) == C.MQRC_OBJECT_IN_USE


def test_open_option_errors(qm: QueueManager) -> None:
    od = MQOD(ObjectName=b"Q1")
    assert reason_of(qm.mqopen, od, C.MQOO_INPUT_SHARED | C.MQOO_INPUT_EXCLUSIVE) == C.MQRC_OPTIONS_ERROR
    assert reason_of(qm.mqopen, od, 0) == C.MQRC_OPTIONS_ERROR
    assert reason_of(qm.mqopen, MQOD(ObjectName=b"Q1", StrucId=b"XX  "), C.MQOO_OUTPUT) == C.MQRC_OD_ERROR
    assert reason_of(qm.mqopen, MQOD(ObjectName=b"Q1", ObjectQMgrName=b"OTHER"), C.MQOO_OUTPUT) == (
        C.MQRC_UNKNOWN_REMOTE_Q_MGR
    )


def test_verb_on_handle_not_open_for_it_fails(qm: QueueManager) -> None:
    h = qm.mqopen(MQOD(ObjectName=b"Q1"), C.MQOO_OUTPUT)
    assert reason_of(qm.mqget, h, MQMD(), MQGMO()) == C.MQRC_NOT_OPEN_FOR_INPUT
    assert reason_of(qm.mqget, h, MQMD(), MQGMO(Options=C.MQGMO_BROWSE_FIRST)) == C.MQRC_NOT_OPEN_FOR_BROWSE
    assert reason_of(qm.mqinq, h, [C.MQIA_CURRENT_Q_DEPTH]) == C.MQRC_NOT_OPEN_FOR_INQUIRE
    assert reason_of(qm.mqset, h, [C.MQIA_INHIBIT_PUT], [1], []) == C.MQRC_NOT_OPEN_FOR_SET
    hin = qm.mqopen(MQOD(ObjectName=b"Q1"), C.MQOO_INPUT_SHARED)
    assert reason_of(qm.mqput, hin, MQMD(), MQPMO(), b"x") == C.MQRC_NOT_OPEN_FOR_OUTPUT
    qm.mqclose(hin)
    assert reason_of(qm.mqget, hin, MQMD(), MQGMO()) == C.MQRC_HOBJ_ERROR


# --------------------------------------------------------------------------------------------------
# put
# --------------------------------------------------------------------------------------------------
def test_put_generates_unique_msgid_and_sets_context(qm: QueueManager, clock: FakeClock) -> None:
    q = qm.open("Q1")
    a = q.put(b"a")
    b = q.put(b"b")
    assert a.MsgId != b.MsgId and a.MsgId.startswith(b"AMQ QM1")
    assert a.PutDate == b"20260101" and a.PutTime == b"00000000"
    assert a.PutApplType == C.MQAT_UNIX and a.PutApplName.strip()


def test_put_with_msgid_keeps_it_unless_new_msg_id(qm: QueueManager) -> None:
    q = qm.open("Q1")
    md = q.put(b"a", msg_id=b"MINE")
    assert md.MsgId == b"MINE".ljust(24, b"\0")
    md = q.put(b"b", msg_id=b"MINE", pmo=MQPMO(Options=C.MQPMO_NEW_MSG_ID))
    assert md.MsgId != b"MINE".ljust(24, b"\0")


def test_put_takes_default_priority_and_persistence_from_the_queue(qm: QueueManager) -> None:
    qm.admin("define", "QLOCAL", "DEFQ", {"DEFPRTY": 4, "DEFPSIST": C.MQPER_PERSISTENT})
    qm.open("DEFQ").put(b"x")
    m = qm.open("DEFQ").get()
    assert m.priority == 4 and m.persistent


def test_put_longer_than_maxmsgl_fails(qm: QueueManager) -> None:
    qm.admin("define", "QLOCAL", "SMALL", {"MAXMSGL": 10})
    assert reason_of(qm.put1, "SMALL", b"x" * 11) == C.MQRC_MSG_TOO_BIG_FOR_Q
    qm.put1("SMALL", b"x" * 10)
    qm.admin("alter_qmgr", {"MAXMSGL": 100})
    qm.admin("alter", "QLOCAL", "SMALL", {"MAXMSGL": 1000})
    assert reason_of(qm.put1, "SMALL", b"x" * 101) == C.MQRC_MSG_TOO_BIG_FOR_Q_MGR


def test_put_beyond_maxdepth_fails_q_full_counting_uncommitted_puts(qm: QueueManager) -> None:
    qm.admin("define", "QLOCAL", "TINY", {"MAXDEPTH": 2})
    q = qm.open("TINY")
    q.put(b"1")
    q.put(b"2", syncpoint=True)
    assert reason_of(q.put, b"3") == C.MQRC_Q_FULL
    qm.backout()
    q.put(b"3")


def test_put_disabled_gives_put_inhibited_and_get_disabled_gives_get_inhibited(qm: QueueManager) -> None:
    q = qm.open("Q1")
    q.put(b"x")
    qm.admin("alter", "QLOCAL", "Q1", {"PUT": C.MQQA_PUT_INHIBITED, "GET": C.MQQA_GET_INHIBITED})
    assert reason_of(q.put, b"y") == C.MQRC_PUT_INHIBITED
    assert reason_of(q.get) == C.MQRC_GET_INHIBITED
    assert reason_of(q.browse) == C.MQRC_GET_INHIBITED
    qm.admin("alter", "QLOCAL", "Q1", {"GET": C.MQQA_GET_ALLOWED})
    assert q.get().data == b"x"


@pytest.mark.parametrize(
    ("field", "value", "reason"),
    [
        ("Priority", -2, C.MQRC_PRIORITY_ERROR),
        ("Persistence", 5, C.MQRC_PERSISTENCE_ERROR),
        ("Expiry", 0, C.MQRC_EXPIRY_ERROR),
        ("Expiry", -2, C.MQRC_EXPIRY_ERROR),
        ("StrucId", b"XX  ", C.MQRC_MD_ERROR),
        ("Version", 7, C.MQRC_MD_ERROR),
        ("MsgType", 0, C.MQRC_MSG_TYPE_ERROR),
    ],
)
def test_invalid_mqmd_field_fails_and_puts_nothing(qm: QueueManager, field: str, value, reason: int) -> None:
    q = qm.open("Q1")
    md = MQMD()
    md[field] = value
    assert reason_of(q.put, b"x", md=md) == reason
    assert q.depth == 0


def test_priority_above_nine_is_put_at_nine_with_warning(qm: QueueManager) -> None:
    q = qm.open("Q1")
    assert reason_of(q.put, b"x", priority=12) == C.MQRC_PRIORITY_EXCEEDS_MAXIMUM
    assert q.get().priority == 9


def test_put_option_errors(qm: QueueManager) -> None:
    q = qm.open("Q1")
    both = MQPMO(Options=C.MQPMO_SYNCPOINT | C.MQPMO_NO_SYNCPOINT)
    assert reason_of(q.put, b"x", pmo=both) == C.MQRC_OPTIONS_ERROR
    two_ctx = MQPMO(Options=C.MQPMO_NO_CONTEXT | C.MQPMO_DEFAULT_CONTEXT)
    assert reason_of(q.put, b"x", pmo=two_ctx) == C.MQRC_OPTIONS_ERROR
    set_all = MQPMO(Options=C.MQPMO_SET_ALL_CONTEXT)
    assert reason_of(q.put, b"x", pmo=set_all) == C.MQRC_OPTIONS_ERROR
    assert reason_of(q.put, b"x", pmo=MQPMO(StrucId=b"ZZZ ")) == C.MQRC_PMO_ERROR
    assert q.depth == 0


def test_set_all_context_keeps_the_applications_context(qm: QueueManager) -> None:
    h = qm.mqopen(MQOD(ObjectName=b"Q1"), C.MQOO_OUTPUT | C.MQOO_SET_ALL_CONTEXT)
    md = MQMD(PutApplName=b"ORIGINAL", PutDate=b"20000101", UserIdentifier=b"alice")
    qm.mqput(h, md, MQPMO(Options=C.MQPMO_SET_ALL_CONTEXT), b"x")
    m = qm.open("Q1").get()
    assert m.md.PutApplName.rstrip() == b"ORIGINAL" and m.md.PutDate == b"20000101"
    assert m.md.UserIdentifier.rstrip() == b"alice"


def test_pass_all_context_copies_context_of_message_got_on_the_input_handle(qm: QueueManager) -> None:
    qm.admin("define", "QLOCAL", "DEST")
    hs = qm.mqopen(MQOD(ObjectName=b"Q1"), C.MQOO_OUTPUT | C.MQOO_SET_ALL_CONTEXT)
    qm.mqput(hs, MQMD(PutApplName=b"SENDER", UserIdentifier=b"bob"), MQPMO(Options=C.MQPMO_SET_ALL_CONTEXT), b"x")
    hin = qm.mqopen(MQOD(ObjectName=b"Q1"), C.MQOO_INPUT_SHARED | C.MQOO_SAVE_ALL_CONTEXT)
    md = MQMD()
    data = qm.mqget(hin, md, MQGMO())
    hout = qm.mqopen(MQOD(ObjectName=b"DEST"), C.MQOO_OUTPUT | C.MQOO_PASS_ALL_CONTEXT)
    qm.mqput(hout, MQMD(), MQPMO(Options=C.MQPMO_PASS_ALL_CONTEXT, Context=hin), data)
    m = qm.open("DEST").get()
    assert m.md.PutApplName.rstrip() == b"SENDER" and m.md.UserIdentifier.rstrip() == b"bob"


# --------------------------------------------------------------------------------------------------
# get: order, matching, browse, lock, truncation, wait
# --------------------------------------------------------------------------------------------------
def test_get_in_priority_order_then_fifo_within_priority(qm: QueueManager) -> None:
    q = qm.open("Q1")
    for data, prio in [(b"a", 1), (b"b", 5), (b"c", 1), (b"d", 9), (b"e", 5)]:
        q.put(data, priority=prio)
    assert [q.get().data for _ in range(5)] == [b"d", b"b", b"e", b"a", b"c"]


def test_fifo_queue_ignores_priority_and_assigns_default_priority(qm: QueueManager) -> None:
    # seed 001, condition 14: MSGDLVSQ(FIFO) assigns the queue's default priority
    qm.admin("define", "QLOCAL", "FIFOQ", {"MSGDLVSQ": C.MQMDS_FIFO, "DEFPRTY": 3})
    q = qm.open("FIFOQ")
    for data, prio in [(b"a", 1), (b"b", 9), (b"c", 5)]:
        q.put(data, priority=prio)
    got = [q.get() for _ in range(3)]
    assert [m.data for m in got] == [b"a", b"b", b"c"]
    assert {m.priority for m in got} == {3}


@pytest.mark.not_on_shared_queue(
    "one queue indexed by both MsgId and CorrelId; a shared queue has one INDXTYPE (tests/qsg/test_qsg_mqi_rules.py)"
)
def test_get_matches_msgid_correlid_and_none_matches_any(qm: QueueManager) -> None:
    q = qm.open("Q1")
    q.put(b"1", correl_id=b"A")
    q.put(b"2", correl_id=b"B", msg_id=b"M2")
    q.put(b"3", correl_id=b"B")
    assert q.get(correl_id=b"B").data == b"2"
    assert reason_of(q.get, msg_id=b"M2") == C.MQRC_NO_MSG_AVAILABLE
    assert q.get(correl_id=b"B").data == b"3"
    assert q.get().data == b"1"


def test_get_matches_group_id_and_sequence_number(qm: QueueManager) -> None:
    q = qm.open("Q1")
    for i in (1, 2):
        q.put(f"g{i}".encode(), md=MQMD(GroupId=b"G".ljust(24, b"\0"), MsgSeqNumber=i, MsgFlags=C.MQMF_MSG_IN_GROUP))
    md = MQMD(GroupId=b"G".ljust(24, b"\0"), MsgSeqNumber=2)
    gmo = MQGMO(MatchOptions=C.MQMO_MATCH_GROUP_ID | C.MQMO_MATCH_MSG_SEQ_NUMBER)
    assert q.get(md=md, gmo=gmo).data == b"g2"


def test_browse_first_and_next_with_independent_cursors_per_handle(qm: QueueManager) -> None:
    q = qm.open("Q1")
    for x in (b"1", b"2", b"3"):
        q.put(x)
    b1 = qm.open("Q1", C.MQOO_BROWSE)
    b2 = qm.open("Q1", C.MQOO_BROWSE)
    assert b1.browse().data == b"1" and b1.browse().data == b"2"
    assert b2.browse().data == b"1"
    assert b1.browse().data == b"3"
    assert reason_of(b1.browse) == C.MQRC_NO_MSG_AVAILABLE
    assert b1.browse(first=True).data == b"1"
    assert q.depth == 3


def test_browse_next_skips_messages_removed_behind_the_cursor(qm: QueueManager) -> None:
    q = qm.open("Q1")
    for x in (b"1", b"2", b"3"):
        q.put(x)
    b = qm.open("Q1", C.MQOO_BROWSE)
    assert b.browse().data == b"1"
    q.get()  # removes "1", under the cursor
    q.get(msg_id=None)  # removes "2"
    assert b.browse().data == b"3"


def test_msg_under_cursor_gets_the_browsed_message_and_fails_when_it_is_gone(qm: QueueManager, connect) -> None:
    q = qm.open("Q1")
    q.put(b"1")
    q.put(b"2")
    bq = qm.open("Q1", C.MQOO_BROWSE | C.MQOO_INPUT_SHARED)
    assert bq.browse().data == b"1"
    assert bq.browse().data == b"2"
    assert bq.get_under_cursor().data == b"2"
    assert reason_of(bq.get_under_cursor) == C.MQRC_NO_MSG_UNDER_CURSOR
    fresh = qm.open("Q1", C.MQOO_BROWSE | C.MQOO_INPUT_SHARED)
    assert reason_of(fresh.get_under_cursor) == C.MQRC_NO_MSG_UNDER_CURSOR  # cursor before the first message
    assert fresh.browse().data == b"1"
    connect().open("Q1").get()  # another application removes it
    assert reason_of(fresh.get_under_cursor) == C.MQRC_NO_MSG_UNDER_CURSOR


def test_lock_hides_the_message_from_other_handles_until_unlock(qm: QueueManager, connect) -> None:
    q = qm.open("Q1")
    q.put(b"1")
    q.put(b"2")
    locker = qm.open("Q1", C.MQOO_BROWSE | C.MQOO_INPUT_SHARED)
    assert locker.browse(lock=True).data == b"1"
    other = connect().open("Q1")
    assert other.browse(first=True).data == b"2"
    assert other.get().data == b"2"
    assert reason_of(other.get) == C.MQRC_NO_MSG_AVAILABLE
    locker.unlock()
    assert other.get().data == b"1"


def test_locked_message_can_be_got_under_cursor_by_its_locker(qm: QueueManager, connect) -> None:
    qm.open("Q1").put(b"1")
    locker = qm.open("Q1", C.MQOO_BROWSE | C.MQOO_INPUT_SHARED)
    locker.browse(lock=True)
    assert locker.get_under_cursor().data == b"1"
    assert reason_of(connect().open("Q1").get) == C.MQRC_NO_MSG_AVAILABLE


def test_unlock_without_lock_warns_no_msg_locked(qm: QueueManager) -> None:
    b = qm.open("Q1", C.MQOO_BROWSE)
    assert reason_of(b.unlock) == C.MQRC_NO_MSG_LOCKED


def test_truncated_msg_failed_leaves_message_and_returns_length_and_mqmd(qm: QueueManager) -> None:
    q = qm.open("Q1")
    q.put(b"0123456789", correl_id=b"C1")
    with pytest.raises(MQMIError) as ei:
        q.get(max_length=4)
    e = ei.value
    assert e.reason == C.MQRC_TRUNCATED_MSG_FAILED and e.comp == C.MQCC_WARNING
    assert e.original_length == 10 and e.message.data == b"0123"
    assert e.message.md.CorrelId == b"C1".ljust(24, b"\0")
    assert q.depth == 1


def test_accept_truncated_msg_removes_it_with_warning(qm: QueueManager) -> None:
    q = qm.open("Q1")
    q.put(b"0123456789")
    with pytest.raises(MQMIError) as ei:
        q.get(max_length=4, accept_truncated=True)
    assert ei.value.reason == C.MQRC_TRUNCATED_MSG_ACCEPTED and ei.value.message.data == b"0123"
    assert q.depth == 0


def test_get_option_errors(qm: QueueManager) -> None:
    h = qm.mqopen(MQOD(ObjectName=b"Q1"), C.MQOO_INPUT_SHARED | C.MQOO_BROWSE)
    qm.open("Q1").put(b"x")
    cases = [
        C.MQGMO_MARK_SKIP_BACKOUT,  # without SYNCPOINT
        C.MQGMO_BROWSE_FIRST | C.MQGMO_SYNCPOINT,
        C.MQGMO_SYNCPOINT | C.MQGMO_NO_SYNCPOINT,
        C.MQGMO_BROWSE_FIRST | C.MQGMO_BROWSE_NEXT,
        C.MQGMO_LOCK,  # without browse
        C.MQGMO_UNLOCK | C.MQGMO_BROWSE_FIRST,
    ]
    for opts in cases:
        assert reason_of(qm.mqget, h, MQMD(), MQGMO(Options=opts)) == C.MQRC_OPTIONS_ERROR, hex(opts)
    bad_wait = MQGMO(Options=C.MQGMO_WAIT, WaitInterval=-5)
    assert reason_of(qm.mqget, h, MQMD(), bad_wait) == C.MQRC_WAIT_INTERVAL_ERROR
    assert reason_of(qm.mqget, h, MQMD(), MQGMO(StrucId=b"BAD ")) == C.MQRC_GMO_ERROR
    assert reason_of(qm.mqget, h, MQMD(), MQGMO(), -1) == C.MQRC_BUFFER_LENGTH_ERROR
    assert qm.admin("queue_status", "Q1")["CURDEPTH"] == 1  # nothing was taken


def test_wait_interval_elapses_on_the_injected_clock(qm: QueueManager, clock: FakeClock) -> None:
    start = clock.monotonic()
    assert reason_of(qm.open("Q1").get, wait=30.0) == C.MQRC_NO_MSG_AVAILABLE
    assert clock.monotonic() - start == pytest.approx(30.0)


def test_waiting_get_is_woken_by_a_put_from_another_connection(qm: QueueManager, connect) -> None:
    got: list[bytes] = []
    q = qm.open("Q1")
    q._h("get")  # open the input handle before the waiter starts

    def waiter() -> None:
        got.append(q.get(wait=float("inf")).data)

    t = threading.Thread(target=waiter)
    t.start()
    producer = connect()
    producer.open("Q1").put(b"wake", syncpoint=True)
    t.join(0.2)
    assert t.is_alive() and not got  # not visible before commit
    producer.commit()
    t.join(10)
    assert got == [b"wake"]


def test_many_waiters_on_one_queue_each_get_a_different_message(qm: QueueManager, connect) -> None:
    results: list[bytes] = []
    lock = threading.Lock()
    queues = []
    for _ in range(5):
        q = connect().open("Q1")
        q._h("get")
        queues.append(q)

    def waiter(q) -> None:
        m = q.get(wait=float("inf"))
        with lock:
            results.append(m.data)

    threads = [threading.Thread(target=waiter, args=(q,)) for q in queues]
    for t in threads:
        t.start()
    p = qm.open("Q1")
    for i in range(5):
        p.put(str(i).encode())
    for t in threads:
        t.join(10)
    assert sorted(results) == [b"0", b"1", b"2", b"3", b"4"]


# --------------------------------------------------------------------------------------------------
# inquire / set
# --------------------------------------------------------------------------------------------------
def test_inquire_returns_queue_attributes_and_status(qm: QueueManager) -> None:
    q = qm.open("Q1")
    q.put(b"x")
    h = qm.mqopen(MQOD(ObjectName=b"Q1"), C.MQOO_INQUIRE)
    ints, chars = qm.mqinq(h, [C.MQIA_CURRENT_Q_DEPTH, C.MQIA_MAX_Q_DEPTH, C.MQIA_Q_TYPE, C.MQCA_Q_NAME])
    assert ints == [1, 100_000, C.MQQT_LOCAL]
    assert chars == [b"Q1".ljust(48)]


def test_inquire_unknown_selector_fails_selector_error(qm: QueueManager) -> None:
    h = qm.mqopen(MQOD(ObjectName=b"Q1"), C.MQOO_INQUIRE)
    assert reason_of(qm.mqinq, h, [99_999]) == C.MQRC_SELECTOR_ERROR


def test_inquire_queue_manager_attributes(qm: QueueManager) -> None:
    h = qm.mqopen(MQOD(ObjectType=C.MQOT_Q_MGR), C.MQOO_INQUIRE)
    ints, chars = qm.mqinq(h, [C.MQIA_MAX_UNCOMMITTED_MSGS, C.MQCA_Q_MGR_NAME, C.MQCA_DEAD_LETTER_Q_NAME])
    assert ints == [10000] and chars[0].rstrip() == b"QM1" and chars[1].rstrip() == b"SYSTEM.DEAD.LETTER.QUEUE"


def test_set_changes_settable_attributes_all_or_nothing(qm: QueueManager) -> None:
    h = qm.mqopen(MQOD(ObjectName=b"Q1"), C.MQOO_SET | C.MQOO_INQUIRE)
    qm.mqset(h, [C.MQIA_INHIBIT_PUT, C.MQCA_TRIGGER_DATA], [C.MQQA_PUT_INHIBITED], [b"hello"])
    ints, chars = qm.mqinq(h, [C.MQIA_INHIBIT_PUT, C.MQCA_TRIGGER_DATA])
    assert ints == [C.MQQA_PUT_INHIBITED] and chars[0].rstrip() == b"hello"
    # a bad value anywhere changes nothing
    with pytest.raises(MQMIError) as ei:
        qm.mqset(h, [C.MQIA_INHIBIT_PUT, C.MQIA_TRIGGER_TYPE], [C.MQQA_PUT_ALLOWED, 42], [])
    assert ei.value.reason == C.MQRC_TRIGGER_TYPE_ERROR
    assert qm.mqinq(h, [C.MQIA_INHIBIT_PUT])[0] == [C.MQQA_PUT_INHIBITED]
    assert reason_of(qm.mqset, h, [C.MQIA_MAX_Q_DEPTH], [5], []) == C.MQRC_SELECTOR_ERROR


def test_put_replaces_ccsid_q_mgr_by_the_queue_managers_ccsid_and_fills_a_blank_reply_to_q_mgr(
    qm: QueueManager,
) -> None:
    # IBM MQ on MQPUT: MQCCSI_Q_MGR becomes the queue manager's CCSID; a blank ReplyToQMgr gets its name
    q = qm.open("Q1")
    md = q.put(b"x", md=MQMD(CodedCharSetId=C.MQCCSI_Q_MGR))
    assert md.CodedCharSetId == qm.admin("qm_attr", "CCSID") == 1208
    assert md.ReplyToQMgr == b"QM1".ljust(48)
    got = q.get()
    assert (got.md.CodedCharSetId, got.md.ReplyToQMgr) == (1208, b"QM1".ljust(48))
    md = q.put(b"y", md=MQMD(CodedCharSetId=819, ReplyToQ=b"R", ReplyToQMgr=b"OTHER"))
    assert (md.CodedCharSetId, md.ReplyToQMgr.rstrip()) == (819, b"OTHER")
