"""Authority checks (IBM's object authority manager), issue 35 items 1, 3 and 7: every rule on an in-process
queue manager whose creator (this process's user) is the administrator and whose other users hold what they are
granted, nothing more.

IBM's rules quoted where they are checked: reference/operations.md, "The object authority manager (OAM)".
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

import syncpoint
from syncpoint.client import EmbeddedQueueManager, QueueManager, memory_queue_manager, open_embedded
from syncpoint.mqi import MQMD, MQOD, MQPMO, MQMIError
from syncpoint.mqi import constants as C


@pytest.fixture
def qmgr() -> Iterator[EmbeddedQueueManager]:
    e = memory_queue_manager("QM1")
    yield e
    e.close(abnormal=True)


@pytest.fixture
def admin(qmgr: EmbeddedQueueManager) -> QueueManager:
    """The creator's connection (this process's user): an administrator."""
    qm = syncpoint.connect("QM1", embedded=qmgr)
    for q in ("Q1", "A.B", "A.BC", "A.X.Y", "Z"):
        qm.admin("define", "QLOCAL", q)
    qm.admin("define", "QALIAS", "AL1", {"TARGET": "Q1"})
    qm.admin("define", "PROCESS", "P1")
    qm.admin("set_authrec", "qmgr", "", "principal", "alice", ["connect"])
    return qm


def as_user(qmgr: EmbeddedQueueManager, user: str) -> QueueManager:
    return syncpoint.connect("QM1", embedded=qmgr, user=user)


def refused(fn: object, *args: object) -> int:
    with pytest.raises(MQMIError) as e:
        fn(*args)  # type: ignore[operator]
    return e.value.reason


# -- MQCONN ------------------------------------------------------------------------------------------------------
def test_mqconn_needs_connect_on_the_queue_manager(qmgr: EmbeddedQueueManager, admin: QueueManager) -> None:
    # "Where checks happen: MQCONN (connect on the queue manager)"
    assert refused(as_user, qmgr, "bob") == C.MQRC_NOT_AUTHORIZED
    admin.admin("set_authrec", "qmgr", "", "principal", "bob", ["connect"])
    as_user(qmgr, "bob").disconnect()


def test_the_creator_and_the_mqm_group_hold_every_authority(qmgr: EmbeddedQueueManager, admin: QueueManager) -> None:
    # "the queue manager's administrators (IBM: the mqm group) hold every authority"
    assert refused(as_user, qmgr, "carol") == C.MQRC_NOT_AUTHORIZED
    admin.admin("group_change", "mqm", "carol", True)
    admin.admin("refresh_security")
    carol = as_user(qmgr, "carol")
    carol.admin("define", "QLOCAL", "CAROLS")
    carol.mqclose(carol.mqopen(MQOD(ObjectName=b"CAROLS"), C.MQOO_OUTPUT | C.MQOO_SET_ALL_CONTEXT))


# -- MQOPEN: one authority per option -------------------------------------------------------------------------------
OPTION_AUTHORITY = [
    (C.MQOO_INPUT_SHARED, ["get"]),
    (C.MQOO_INPUT_EXCLUSIVE, ["get"]),
    (C.MQOO_INPUT_AS_Q_DEF, ["get"]),
    (C.MQOO_BROWSE, ["browse"]),
    (C.MQOO_OUTPUT, ["put"]),
    (C.MQOO_INQUIRE, ["inq"]),
    (C.MQOO_SET, ["set"]),
    (C.MQOO_OUTPUT | C.MQOO_PASS_IDENTITY_CONTEXT, ["put", "passid"]),
    (C.MQOO_OUTPUT | C.MQOO_PASS_ALL_CONTEXT, ["put", "passall"]),
    (C.MQOO_OUTPUT | C.MQOO_SET_IDENTITY_CONTEXT, ["put", "setid"]),
    (C.MQOO_OUTPUT | C.MQOO_SET_ALL_CONTEXT, ["put", "setall"]),
]


@pytest.mark.parametrize(("options", "needed"), OPTION_AUTHORITY, ids=lambda v: str(v))
def test_each_open_option_needs_its_authority(
    qmgr: EmbeddedQueueManager, admin: QueueManager, options: int, needed: list[str]
) -> None:
    # "MQOPEN (one authority per open option, e.g. MQOO_INPUT_* → get, BROWSE → browse, OUTPUT → put, INQUIRE →
    # inq, SET → set, context options → the context authorities)": each missing one refuses; all granted opens
    alice = as_user(qmgr, "alice")
    for missing in needed:
        others = [a for a in needed if a != missing]
        if others:
            admin.admin("set_authrec", "queue", "Q1", "principal", "alice", others)
        assert refused(alice.mqopen, MQOD(ObjectName=b"Q1"), options) == C.MQRC_NOT_AUTHORIZED
        if others:
            admin.admin("delete_authrec", "queue", "Q1", "principal", "alice")
    admin.admin("set_authrec", "queue", "Q1", "principal", "alice", needed)
    alice.mqclose(alice.mqopen(MQOD(ObjectName=b"Q1"), options))


def test_a_refused_open_changes_nothing(qmgr: EmbeddedQueueManager, admin: QueueManager) -> None:
    # a refusal "changes nothing": no handle counted, no dynamic queue made from a model
    alice = as_user(qmgr, "alice")
    assert refused(alice.mqopen, MQOD(ObjectName=b"Q1"), C.MQOO_INPUT_SHARED) == C.MQRC_NOT_AUTHORIZED
    assert admin.admin("queue_status", "Q1")["IPPROCS"] == 0
    before = len(admin.admin("list_objects", "QLOCAL"))
    od = MQOD(ObjectName=b"SYSTEM.DEFAULT.MODEL.QUEUE", DynamicQName=b"ALICE.*")
    assert refused(alice.mqopen, od, C.MQOO_INPUT_EXCLUSIVE) == C.MQRC_NOT_AUTHORIZED
    assert len(admin.admin("list_objects", "QLOCAL")) == before


def test_an_alias_is_checked_by_its_own_name_not_its_base(qmgr: EmbeddedQueueManager, admin: QueueManager) -> None:
    alice = as_user(qmgr, "alice")
    admin.admin("set_authrec", "queue", "AL1", "principal", "alice", ["put"])
    alice.mqclose(alice.mqopen(MQOD(ObjectName=b"AL1"), C.MQOO_OUTPUT))
    assert refused(alice.mqopen, MQOD(ObjectName=b"Q1"), C.MQOO_OUTPUT) == C.MQRC_NOT_AUTHORIZED


def test_queue_manager_and_process_opens_need_inq(qmgr: EmbeddedQueueManager, admin: QueueManager) -> None:
    alice = as_user(qmgr, "alice")
    qm_od = MQOD(ObjectType=C.MQOT_Q_MGR)
    pr_od = MQOD(ObjectType=C.MQOT_PROCESS, ObjectName=b"P1")
    assert refused(alice.mqopen, qm_od, C.MQOO_INQUIRE) == C.MQRC_NOT_AUTHORIZED
    assert refused(alice.mqopen, pr_od, C.MQOO_INQUIRE) == C.MQRC_NOT_AUTHORIZED
    admin.admin("set_authrec", "qmgr", "", "principal", "alice", ["inq"])
    admin.admin("set_authrec", "process", "P*", "principal", "alice", ["inq"])
    alice.mqclose(alice.mqopen(qm_od, C.MQOO_INQUIRE))
    alice.mqclose(alice.mqopen(pr_od, C.MQOO_INQUIRE))


def test_alternate_user_needs_altusr_and_then_checks_the_alternate_user(
    qmgr: EmbeddedQueueManager, admin: QueueManager
) -> None:
    alice = as_user(qmgr, "alice")
    od = MQOD(ObjectName=b"Q1", AlternateUserId=b"bob", Version=2)
    opts = C.MQOO_OUTPUT | C.MQOO_ALTERNATE_USER_AUTHORITY
    admin.admin("set_authrec", "queue", "Q1", "principal", "alice", ["put"])
    assert refused(alice.mqopen, od, opts) == C.MQRC_NOT_AUTHORIZED  # no altusr
    admin.admin("set_authrec", "qmgr", "", "principal", "alice", ["altusr"])
    assert refused(alice.mqopen, od, opts) == C.MQRC_NOT_AUTHORIZED  # bob may not put
    admin.admin("set_authrec", "queue", "Q1", "principal", "bob", ["put"])
    alice.mqclose(alice.mqopen(od, opts))


# -- MQPUT1 and the context options ------------------------------------------------------------------------------
def test_mqput1_needs_put_and_set_all_context_needs_setall(qmgr: EmbeddedQueueManager, admin: QueueManager) -> None:
    alice = as_user(qmgr, "alice")
    od = MQOD(ObjectName=b"Q1")
    assert refused(alice.mqput1, od, MQMD(), MQPMO(), b"x") == C.MQRC_NOT_AUTHORIZED
    admin.admin("set_authrec", "queue", "Q1", "principal", "alice", ["put"])
    alice.mqput1(MQOD(ObjectName=b"Q1"), MQMD(), MQPMO(), b"x")
    forged = MQMD(UserIdentifier=b"mallory")
    pmo = MQPMO(Options=C.MQPMO_SET_ALL_CONTEXT)
    assert refused(alice.mqput1, MQOD(ObjectName=b"Q1"), forged, pmo, b"y") == C.MQRC_NOT_AUTHORIZED
    assert admin.admin("queue_status", "Q1")["CURDEPTH"] == 1  # the refused put1 put nothing
    admin.admin("set_authrec", "queue", "Q1", "principal", "alice", ["setall"])
    alice.mqput1(MQOD(ObjectName=b"Q1"), forged, MQPMO(Options=C.MQPMO_SET_ALL_CONTEXT), b"y")


# -- generic profiles ---------------------------------------------------------------------------------------------
def test_the_most_specific_generic_profile_applies(qmgr: EmbeddedQueueManager, admin: QueueManager) -> None:
    # "Generic profiles: ? one character, * any characters within one dot-separated part, ** any parts. The most
    # specific matching profile applies."
    for profile, auths in (("**", ["browse"]), ("A.**", ["get"]), ("A.B*", ["put"]), ("A.B", ["inq"])):
        admin.admin("set_authrec", "queue", profile, "principal", "alice", auths)

    def held(name: str) -> list[str]:
        return list(admin.admin("entity_authority", "queue", name, "principal", "alice"))

    assert held("A.B") == ["inq"]  # the exact profile wins over A.B* and A.**
    assert held("A.BC") == ["put"]  # A.B* beats A.** ('*' before '**')
    assert held("A.X.Y") == ["get"]  # '*' stays within one part: only A.** matches
    assert held("Z") == ["browse"]
    admin.admin("set_authrec", "queue", "A.?C", "principal", "alice", ["set"])
    assert held("A.BC") == ["put"]  # at the first difference a plain 'B' beats '?'
    assert held("A.XC") == ["set"]


def test_a_record_of_none_hides_a_less_specific_grant(qmgr: EmbeddedQueueManager, admin: QueueManager) -> None:
    alice = as_user(qmgr, "alice")
    admin.admin("set_authrec", "queue", "A.**", "principal", "alice", ["put"])
    admin.admin("set_authrec", "queue", "A.B", "principal", "alice", ["none"])
    alice.mqclose(alice.mqopen(MQOD(ObjectName=b"A.BC"), C.MQOO_OUTPUT))
    assert refused(alice.mqopen, MQOD(ObjectName=b"A.B"), C.MQOO_OUTPUT) == C.MQRC_NOT_AUTHORIZED


def test_a_user_in_two_groups_holds_the_union_each_from_its_most_specific_profile(
    qmgr: EmbeddedQueueManager, admin: QueueManager
) -> None:
    for group in ("readers", "writers"):
        admin.admin("group_change", group, "alice", True)
    admin.admin("refresh_security")
    admin.admin("set_authrec", "queue", "A.**", "group", "readers", ["get"])
    admin.admin("set_authrec", "queue", "A.B", "group", "readers", ["browse"])  # readers' most specific on A.B
    admin.admin("set_authrec", "queue", "A.B*", "group", "writers", ["put"])
    assert admin.admin("entity_authority", "queue", "A.B", "principal", "alice") == ["browse", "put"]
    assert admin.admin("entity_authority", "queue", "A.BC", "principal", "alice") == ["get", "put"]
    assert admin.admin("entity_authority", "queue", "A.X.Y", "principal", "alice") == ["get"]


def test_group_membership_reaches_checks_at_refresh_security(qmgr: EmbeddedQueueManager, admin: QueueManager) -> None:
    # IBM's OAM keeps a user's groups until REFRESH SECURITY; authority records reach new opens at once
    alice = as_user(qmgr, "alice")
    admin.admin("group_change", "writers", "bob", True)
    admin.admin("set_authrec", "queue", "Q1", "group", "writers", ["put"])
    admin.admin("group_change", "writers", "alice", True)
    assert refused(alice.mqopen, MQOD(ObjectName=b"Q1"), C.MQOO_OUTPUT) == C.MQRC_NOT_AUTHORIZED
    admin.admin("refresh_security")
    alice.mqclose(alice.mqopen(MQOD(ObjectName=b"Q1"), C.MQOO_OUTPUT))


# -- a handle keeps what it was granted ----------------------------------------------------------------------------
def test_revoking_while_a_handle_is_open_keeps_the_handle_working(
    qmgr: EmbeddedQueueManager, admin: QueueManager
) -> None:
    # IBM: the authority is checked at MQOPEN; the handle keeps it until MQCLOSE
    alice = as_user(qmgr, "alice")
    admin.admin("set_authrec", "queue", "Q1", "principal", "alice", ["put"])
    h = alice.mqopen(MQOD(ObjectName=b"Q1"), C.MQOO_OUTPUT)
    admin.admin("set_authrec", "queue", "Q1", "principal", "alice", [], ["put"])
    alice.mqput(h, MQMD(), MQPMO(), b"still mine")
    assert refused(alice.mqopen, MQOD(ObjectName=b"Q1"), C.MQOO_OUTPUT) == C.MQRC_NOT_AUTHORIZED
    alice.mqclose(h)
    assert admin.admin("queue_status", "Q1")["CURDEPTH"] == 1


# -- administrative verbs (MQSC, PCF, the tools) -----------------------------------------------------------------
def test_commands_need_the_administration_authority_on_the_object(
    qmgr: EmbeddedQueueManager, admin: QueueManager
) -> None:
    alice = as_user(qmgr, "alice")
    assert refused(alice.admin, "define", "QLOCAL", "APP.NEW") == C.MQRC_NOT_AUTHORIZED
    assert refused(alice.admin, "clear", "Q1") == C.MQRC_NOT_AUTHORIZED
    assert refused(alice.admin, "set_authrec", "queue", "**", "principal", "alice", ["all"]) == 2035
    assert refused(alice.admin, "group_change", "mqm", "alice", True) == C.MQRC_NOT_AUTHORIZED
    admin.admin("set_authrec", "queue", "APP.**", "principal", "alice", ["crt", "dsp", "dlt"])
    alice.admin("define", "QLOCAL", "APP.NEW")
    assert alice.admin("queue_status", "APP.NEW")["CURDEPTH"] == 0
    alice.admin("delete", "QLOCAL", "APP.NEW")
    assert admin.admin("lookup", "QLOCAL", "Q1") is not None  # nothing else changed


# -- bad input: IBM's reason, nothing stored ----------------------------------------------------------------------
@pytest.mark.parametrize(
    ("args", "reason"),
    [
        (("queue", "A.**B", "principal", "alice", ["get"]), C.MQRCCF_PROFILE_NAME_ERROR),
        (("queue", "A.***", "principal", "alice", ["get"]), C.MQRCCF_PROFILE_NAME_ERROR),
        (("queue", "A B", "principal", "alice", ["get"]), C.MQRCCF_PROFILE_NAME_ERROR),
        (("queue", "Q" * 49, "principal", "alice", ["get"]), C.MQRCCF_PROFILE_NAME_ERROR),
        (("queue", "Q1", "principal", "alice", ["fly"]), C.MQRCCF_AUTH_VALUE_ERROR),
        (("queue", "Q1", "principal", "alice", ["connect"]), C.MQRCCF_AUTH_VALUE_ERROR),  # not a queue's
        (("queue", "Q1", "principal", "alice", []), C.MQRCCF_AUTH_VALUE_MISSING),
        (("queue", "Q1", "group", "nosuchgroup", ["get"]), C.MQRC_UNKNOWN_ENTITY),
        (("queue", "Q1", "principal", "u" * 1000, ["get"]), C.MQRC_UNKNOWN_ENTITY),
        (("queue", "Q1", "robot", "alice", ["get"]), C.MQRC_UNKNOWN_ENTITY),
        (("listener", "L1", "principal", "alice", ["get"]), C.MQRC_OBJECT_TYPE_ERROR),
    ],
)
def test_a_bad_record_is_refused_with_ibms_reason_and_nothing_is_stored(
    admin: QueueManager, args: tuple[object, ...], reason: int
) -> None:
    before = admin.admin("authrecs")
    assert refused(admin.admin, "set_authrec", *args) == reason
    assert admin.admin("authrecs") == before


# -- durability -----------------------------------------------------------------------------------------------------
def test_records_groups_and_the_creator_survive_a_restart(tmp_path: Path) -> None:
    syncpoint.create_queue_manager("QMD", home=tmp_path)
    e = open_embedded("QMD", home=tmp_path)
    qm = syncpoint.connect("QMD", embedded=e)
    qm.admin("group_change", "apps", "alice", True)
    qm.admin("set_authrec", "qmgr", "", "group", "apps", ["connect"])
    qm.admin("set_authrec", "queue", "SYSTEM.DEFAULT.LOCAL.QUEUE", "group", "apps", ["put"])
    e.close()
    e = open_embedded("QMD", home=tmp_path)
    try:
        alice = syncpoint.connect("QMD", embedded=e, user="alice")  # the group as stored, at the start
        alice.mqclose(alice.mqopen(MQOD(ObjectName=b"SYSTEM.DEFAULT.LOCAL.QUEUE"), C.MQOO_OUTPUT))
        with pytest.raises(MQMIError) as refusal:
            syncpoint.connect("QMD", embedded=e, user="bob")
        assert refusal.value.reason == C.MQRC_NOT_AUTHORIZED
        assert len(syncpoint.connect("QMD", embedded=e).admin("authrecs")) == 2  # the creator is still admin
    finally:
        e.close()


# -- PCF: the request's user needs the authority, not the command server -----------------------------------------
def test_a_pcf_command_is_checked_as_the_requests_user(qmgr: EmbeddedQueueManager, admin: QueueManager) -> None:
    # IBM's command server checks the authority of the request's UserIdentifier on the object the command names
    from syncpoint.pcf import MQCFH, MQCFST, CommandServer, build, parse
    from syncpoint.pcf import constants as K

    server = CommandServer(lambda: syncpoint.connect("QM1", embedded=qmgr, appl_name="amqpcsea"))
    thread, stop = server.start()
    admin.admin("define", "QLOCAL", "ALICE.REPLY")
    admin.admin("set_authrec", "queue", "SYSTEM.ADMIN.COMMAND.QUEUE", "principal", "alice", ["put"])
    admin.admin("set_authrec", "queue", "ALICE.REPLY", "principal", "alice", ["get", "put"])
    alice = as_user(qmgr, "alice")
    replies = alice.open("ALICE.REPLY")

    def delete_z() -> int:
        request = build(
            MQCFH(Command=K.MQCMD_DELETE_Q, Type=K.MQCFT_COMMAND_XR, Version=3), [MQCFST(C.MQCA_Q_NAME, b"Z")]
        )
        md = MQMD(Format=C.MQFMT_ADMIN, MsgType=C.MQMT_REQUEST, ReplyToQ=b"ALICE.REPLY")
        alice.mqput1(MQOD(ObjectName=b"SYSTEM.ADMIN.COMMAND.QUEUE"), md, MQPMO(), request)
        cfh, _ = parse(replies.get(wait=10.0).data)
        return int(cfh.Reason)

    try:
        assert delete_z() == C.MQRC_NOT_AUTHORIZED
        assert admin.admin("lookup", "QLOCAL", "Z") is not None
        admin.admin("set_authrec", "queue", "Z", "principal", "alice", ["dlt", "dsp"])
        assert delete_z() == 0
        assert admin.admin("lookup", "QLOCAL", "Z") is None
    finally:
        stop.set()
        thread.join(10)


# -- a receiving channel's puts: PUTAUT(DEF | CTX) ----------------------------------------------------------------
@pytest.mark.parametrize("putaut", [C.MQPA_DEFAULT, C.MQPA_CONTEXT])
def test_a_receiving_channel_puts_with_its_user_or_the_messages_as_putaut_says(
    qmgr: EmbeddedQueueManager, admin: QueueManager, putaut: int
) -> None:
    # IBM: PUTAUT(DEF) checks the MCA's user (MCAUSER), PUTAUT(CTX) the UserIdentifier in the message; a put the
    # check refuses goes to the dead-letter queue with MQRC_NOT_AUTHORIZED
    from syncpoint.engine.remote import xqh_bytes

    admin.admin("define", "QLOCAL", "DLQ")
    admin.admin("alter_qmgr", {"DEADQ": "DLQ"})
    engine = qmgr.engine
    admin.admin("set_authrec", "qmgr", "", "principal", "chl", ["connect"])
    mca = qmgr.call(engine.connect, "mca", C.MQAT_DQM, "chl", 0)

    def deliver(user: bytes) -> str:
        md = MQMD(UserIdentifier=user)
        raw = xqh_bytes(b"Q1".ljust(48), b"QM1".ljust(48), md) + b"payload"
        (d,) = qmgr.call(lambda: engine.deliver_batch(mca, [raw], putaut=putaut, mcauser=""))
        qmgr.call(engine.commit, mca)
        return str(d.outcome)

    assert deliver(b"alice") == "dead-lettered"  # neither chl nor alice may put to Q1
    assert admin.admin("queue_status", "DLQ")["CURDEPTH"] == 1
    granted = "chl" if putaut == C.MQPA_DEFAULT else "alice"
    admin.admin("set_authrec", "queue", "Q1", "principal", granted, ["put"])
    assert deliver(b"alice") == "delivered"
    assert deliver(b"mallory") == ("delivered" if putaut == C.MQPA_DEFAULT else "dead-lettered")


def test_the_creator_of_a_dynamic_queue_may_use_it_and_the_record_goes_with_it(
    qmgr: EmbeddedQueueManager, admin: QueueManager
) -> None:
    # IBM's OAM gives the user who made a dynamic queue every authority on it, and deletes the profile with it
    alice = as_user(qmgr, "alice")
    admin.admin("set_authrec", "queue", "SYSTEM.DEFAULT.MODEL.QUEUE", "principal", "alice", ["get"])
    od = MQOD(ObjectName=b"SYSTEM.DEFAULT.MODEL.QUEUE", DynamicQName=b"ALICE.*")
    h = alice.mqopen(od, C.MQOO_INPUT_EXCLUSIVE)
    name = od.ObjectName.rstrip()
    alice.mqput1(MQOD(ObjectName=name), MQMD(), MQPMO(), b"to myself")  # put on her own dynamic queue
    held = admin.admin("entity_authority", "queue", name.decode(), "principal", "alice")
    assert {"browse", "dlt", "get", "put", "setall"} <= set(held)
    alice.mqclose(h)  # a temporary dynamic queue goes with its handle, and its record with it
    assert admin.admin("authrecs", "queue", name.decode()) == []


def test_a_covering_topic_object_that_grants_is_enough(qmgr: EmbeddedQueueManager, admin: QueueManager) -> None:
    # IBM: pub / sub on a topic string is granted if any topic object covering it grants it (nearest first)
    admin.admin("set_authrec", "topic", "SPORTS", "principal", "alice", ["sub"])
    engine = qmgr.engine
    alice = qmgr.call(engine.connect, "app", C.MQAT_UNIX, "alice", 0)
    qmgr.call(engine.authorize, alice, "topic", ["SPORTS.FOOTBALL", "SPORTS"], "sub")
    with pytest.raises(MQMIError) as e:
        qmgr.call(engine.authorize, alice, "topic", ["SPORTS.FOOTBALL", "SPORTS"], "pub")
    assert e.value.reason == C.MQRC_NOT_AUTHORIZED


# -- publish/subscribe: pub and sub on the topic objects covering the topic string ---------------------------------
def test_publishing_and_subscribing_need_pub_and_sub_on_a_covering_topic_object(
    qmgr: EmbeddedQueueManager, admin: QueueManager
) -> None:
    # "MQSUB (sub)" and publishing (pub); IBM grants if any topic object covering the topic string grants it
    admin.admin("define_topic", "PRICES", {"TOPICSTR": "prices"})
    admin.admin("define", "QLOCAL", "ALICE.SUBQ")
    admin.admin("set_authrec", "queue", "ALICE.SUBQ", "principal", "alice", ["put", "get"])
    alice = as_user(qmgr, "alice")
    assert refused(alice.publish, "prices/fruit/apple", b"1.20") == C.MQRC_NOT_AUTHORIZED
    assert refused(alice.subscribe, "prices/fruit/#") == C.MQRC_NOT_AUTHORIZED
    admin.admin("set_authrec", "topic", "PRICES", "principal", "alice", ["pub", "sub"])
    sub = alice.subscribe("prices/fruit/#")
    alice.publish("prices/fruit/apple", b"1.20")
    assert sub.get(wait=0).data == b"1.20"
    # granted on SYSTEM.BASE.TOPIC only: a topic outside PRICES is covered by it, PRICES' own record says nothing
    assert refused(alice.publish, "news/today", b"x") == C.MQRC_NOT_AUTHORIZED
    admin.admin("set_authrec", "topic", "SYSTEM.BASE.TOPIC", "principal", "alice", ["pub"])
    alice.publish("news/today", b"x")


def test_a_refusal_puts_ibms_not_authorized_event_when_authorev_is_enabled(
    qmgr: EmbeddedQueueManager, admin: QueueManager
) -> None:
    # IBM: Not Authorized type 2 (MQOPEN) on SYSTEM.ADMIN.QMGR.EVENT, reason 2035, when AUTHOREV is ENABLED
    from syncpoint.pcf import MQCFIN, MQCFST, parse

    admin.admin("clear", "SYSTEM.ADMIN.QMGR.EVENT")  # a default object; without its start event
    alice = as_user(qmgr, "alice")
    assert refused(alice.mqopen, MQOD(ObjectName=b"Q1"), C.MQOO_OUTPUT) == C.MQRC_NOT_AUTHORIZED
    assert admin.open("SYSTEM.ADMIN.QMGR.EVENT").depth == 0  # AUTHOREV(DISABLED), the default: no event
    admin.admin("alter_qmgr", {"AUTHOREV": "ENABLED"})
    assert refused(alice.mqopen, MQOD(ObjectName=b"Q1"), C.MQOO_OUTPUT) == C.MQRC_NOT_AUTHORIZED
    (event,) = list(admin.open("SYSTEM.ADMIN.QMGR.EVENT").messages(wait=0))
    cfh, params = parse(event.data)
    assert cfh.Reason == C.MQRC_NOT_AUTHORIZED
    values = {p.Parameter: p.String.decode().strip() if isinstance(p, MQCFST) else p.Value for p in params
              if isinstance(p, (MQCFST, MQCFIN))}  # fmt: skip
    assert values[C.MQIACF_REASON_QUALIFIER] == C.MQRQ_OPEN_NOT_AUTHORIZED
    assert values[C.MQCACF_USER_IDENTIFIER] == "alice" and values[C.MQCA_Q_NAME] == "Q1"


# -- AMQ8077W in the error log ----------------------------------------------------------------------------------
def test_a_refusal_writes_ibms_amq8077w_in_the_error_log_at_most_100_a_minute(tmp_path: Path) -> None:
    """IBM's OAM writes "AMQ8077W: Entity 'x' has insufficient authority to access object 'y'." with the
    permissions that were missing, for each refusal; syncpoint writes at most REFUSALS_LOGGED a minute (the
    engine's clock), and the next entry says how many were not (a storm of refusals cannot fill the disk)."""
    from syncpoint.engine import FakeClock
    from syncpoint.engine._authority import REFUSALS_LOGGED

    clock = FakeClock()
    syncpoint.create_queue_manager("QME", home=tmp_path)
    e = open_embedded("QME", home=tmp_path, clock=clock)
    log = tmp_path / "qmgrs" / "QME" / "errors" / "AMQERR01.LOG"
    try:
        qm = syncpoint.connect("QME", embedded=e)
        qm.admin("define", "QLOCAL", "PAY.IN")
        qm.admin("set_authrec", "qmgr", "", "principal", "alice", ["connect"])
        qm.admin("set_authrec", "queue", "PAY.IN", "principal", "alice", ["get"])
        alice = syncpoint.connect("QME", embedded=e, user="alice")
        assert refused(alice.mqopen, MQOD(ObjectName=b"PAY.IN"), C.MQOO_OUTPUT | C.MQOO_INQUIRE) == (
            C.MQRC_NOT_AUTHORIZED
        )
        text = log.read_text()
        assert "AMQ8077W: Entity 'alice' has insufficient authority to access object 'PAY.IN'." in text
        assert "The following requested permissions are unauthorized: inq put" in text
        assert text.count("AMQ8077W") == 1  # once per refusal
        for _ in range(2 * REFUSALS_LOGGED):
            refused(alice.mqopen, MQOD(ObjectName=b"PAY.IN"), C.MQOO_OUTPUT)
        assert log.read_text().count("AMQ8077W") == REFUSALS_LOGGED
        clock.advance(60)
        refused(alice.mqopen, MQOD(ObjectName=b"PAY.IN"), C.MQOO_OUTPUT)
        text = log.read_text()
        assert text.count("AMQ8077W") == REFUSALS_LOGGED + 1
        assert f"{REFUSALS_LOGGED + 1} earlier refusals were not written" in text
    finally:
        e.close()


# -- the metrics' verbs (issue 36's exporter user) -----------------------------------------------------------------
def test_the_metrics_verbs_need_dsp_and_answer_only_for_the_queues_the_user_may_display(
    qmgr: EmbeddedQueueManager, admin: QueueManager
) -> None:
    """IBM's exporter runs as a user with connect and dsp (DISPLAY QMSTATUS: dsp on the queue manager; DISPLAY
    QSTATUS(*) and Inquire Queue Names leave out the queues the user holds no dsp on)."""
    alice = as_user(qmgr, "alice")  # connect only
    assert refused(alice.admin, "qmgr_metrics") == C.MQRC_NOT_AUTHORIZED
    assert alice.admin("queue_names") == []
    assert alice.admin("queue_metrics", ["Q1", "A.B"]) == []
    admin.admin("set_authrec", "qmgr", "", "principal", "alice", ["dsp"])
    admin.admin("set_authrec", "queue", "A.*", "principal", "alice", ["dsp"])
    assert alice.admin("qmgr_metrics")["CONNS"] >= 2
    assert sorted(alice.admin("queue_names")) == ["A.B", "A.BC"]
    assert [row[0] for row in alice.admin("queue_metrics", ["Q1", "A.B", "A.BC"])] == ["A.B", "A.BC"]
    assert len(admin.admin("queue_metrics", ["Q1", "A.B"])) == 2  # an administrator: every queue
