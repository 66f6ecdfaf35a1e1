"""What a publisher keeps between publications on one topic string (``_pubsub``'s routes: the matching
subscriptions and the inherited PUB, DEFPRTY, DEFPSIST and USEDLQ) never outlives a change: a subscription made,
altered, removed or expired, a topic object defined, altered or deleted, a destination queue deleted or defined
again. Each test publishes first (so the route is made), changes one thing, and publishes again.

The rules are from reference/properties-pubsub.md ("Publish/subscribe"): a publication goes to every subscription
that matches it when it is put, with the attributes its topic objects give at that moment.
"""

from __future__ import annotations

import pytest
from test_pubsub import DLQ, World, reason_of

from syncpoint.engine import Connection, FakeClock, Handle
from syncpoint.mqi import MQMD, MQOD, MQPMO, MQMIError
from syncpoint.mqi import constants as C

TOPIC = "routes/t"


@pytest.fixture
def w() -> World:
    return World(FakeClock())


def test_a_subscription_made_after_publications_receives_the_next_one(w: World) -> None:
    conn = w.connect()
    q1, _, _ = w.subscribe(conn, TOPIC)
    w.publish(conn, TOPIC, b"one")
    q2, _, _ = w.subscribe(conn, TOPIC)  # the route of TOPIC exists: the new subscription must join it
    assert q1 is not None and q2 is not None
    w.publish(conn, TOPIC, b"two")
    assert w.depth(q1.name) == 2
    assert w.get(conn, q2)[1] == b"two"


def test_a_wildcard_subscription_made_after_publications_receives_the_next_one(w: World) -> None:
    conn = w.connect()
    assert w.publish(conn, TOPIC, b"none", C.MQPMO_NO_SYNCPOINT | C.MQPMO_WARN_IF_NO_SUBS_MATCHED) == (
        C.MQRC_NO_SUBS_MATCHED
    )
    q, _, _ = w.subscribe(conn, "routes/#")
    assert q is not None
    assert w.publish(conn, TOPIC, b"now", C.MQPMO_NO_SYNCPOINT | C.MQPMO_WARN_IF_NO_SUBS_MATCHED) == C.MQRC_NONE
    assert w.get(conn, q)[1] == b"now"


def test_a_subscription_closed_with_remove_sub_receives_nothing_more(w: World) -> None:
    w.qm.define("QLOCAL", "KEEP.Q")
    w.qm.define_sub("GONE", {"TOPICSTR": TOPIC, "DEST": "KEEP.Q"})
    conn = w.connect()
    w.publish(conn, TOPIC, b"before")
    w.qm.delete_sub("GONE")
    assert w.publish(conn, TOPIC, b"after", C.MQPMO_NO_SYNCPOINT | C.MQPMO_WARN_IF_NO_SUBS_MATCHED) == (
        C.MQRC_NO_SUBS_MATCHED
    )
    assert w.depth("KEEP.Q") == 1


def test_a_non_durable_subscription_ending_with_its_handle_receives_nothing_more(w: World) -> None:
    conn = w.connect()
    q, hsub, _ = w.subscribe(conn, TOPIC)
    other, _, _ = w.subscribe(conn, TOPIC)
    assert q is not None and other is not None
    w.publish(conn, TOPIC, b"both")
    w.qm.close(conn, hsub)
    w.settle()
    w.publish(conn, TOPIC, b"one")
    assert w.depth(other.name) == 2
    assert not any(s.dest == q.name for s in w.qm.subs.by_key.values())


def test_an_expired_subscription_receives_nothing_once_its_subexpiry_has_passed(w: World) -> None:
    w.qm.define("QLOCAL", "EXP.Q")
    w.qm.define_sub("SHORT", {"TOPICSTR": TOPIC, "DEST": "EXP.Q", "EXPIRY": 10})  # tenths of a second
    conn = w.connect()
    w.publish(conn, TOPIC, b"in time")
    w.clock.advance(2)
    w.publish(conn, TOPIC, b"too late")
    assert w.depth("EXP.Q") == 1
    assert "SHORT" not in w.qm.subs.by_key


def test_altering_the_topic_object_to_pub_disabled_refuses_the_next_publication(w: World) -> None:
    w.qm.define_topic("RT", {"TOPICSTR": "routes"})
    conn = w.connect()
    q, _, _ = w.subscribe(conn, TOPIC)
    assert q is not None
    w.publish(conn, TOPIC, b"open")
    w.qm.alter_topic("RT", {"PUB": C.MQTA_PUB_INHIBITED})
    with pytest.raises(MQMIError) as e:
        w.publish(conn, TOPIC, b"closed")
    assert reason_of(e) == C.MQRC_PUT_INHIBITED
    w.qm.alter_topic("RT", {"PUB": C.MQTA_PUB_ALLOWED})
    w.publish(conn, TOPIC, b"open again")
    assert [w.get(conn, q)[1] for _ in range(2)] == [b"open", b"open again"]


def test_altering_system_base_topic_defaults_changes_the_next_publications_priority_and_persistence(
    w: World,
) -> None:
    conn = w.connect()
    q, _, _ = w.subscribe(conn, TOPIC, C.MQSO_CREATE | C.MQSO_MANAGED | C.MQSO_DURABLE, "DUR")
    assert q is not None
    w.publish(conn, TOPIC, b"default")
    w.qm.alter_topic("SYSTEM.BASE.TOPIC", {"DEFPRTY": 8, "DEFPSIST": C.MQPER_PERSISTENT})
    w.publish(conn, TOPIC, b"altered")
    got = {data: (md.Priority, md.Persistence) for md, data in (w.get(conn, q) for _ in range(2))}
    assert got[b"altered"] == (8, C.MQPER_PERSISTENT)  # as the topic now defines
    assert got[b"default"] == (0, C.MQPER_NOT_PERSISTENT)


def test_a_topic_object_defined_nearer_then_deleted_gives_and_takes_back_its_attributes(w: World) -> None:
    conn = w.connect()
    q, _, _ = w.subscribe(conn, TOPIC)
    assert q is not None
    w.publish(conn, TOPIC, b"base")
    w.qm.define_topic("NEAR", {"TOPICSTR": TOPIC, "DEFPRTY": 6})
    w.publish(conn, TOPIC, b"near")
    w.qm.delete_topic("NEAR")
    w.publish(conn, TOPIC, b"base again")
    got = {data: md.Priority for md, data in (w.get(conn, q) for _ in range(3))}
    assert got == {b"base": 0, b"near": 6, b"base again": 0}


def test_altering_usedlq_sends_the_next_refused_copy_to_the_dead_letter_queue_or_not(w: World) -> None:
    w.qm.define_topic("RT", {"TOPICSTR": "routes", "USEDLQ": C.MQUSEDLQ_NO})
    w.qm.define("QLOCAL", "ONE.Q", {"MAXDEPTH": 1})
    w.qm.define_sub("ONE", {"TOPICSTR": TOPIC, "DEST": "ONE.Q"})
    conn = w.connect()
    w.publish(conn, TOPIC, b"fills it")
    w.publish(conn, TOPIC, b"dropped")  # USEDLQ(NO): a non-persistent copy its queue refuses is dropped
    assert w.depth(DLQ) == 0
    w.qm.alter_topic("RT", {"USEDLQ": C.MQUSEDLQ_YES})
    w.publish(conn, TOPIC, b"dead-lettered")
    assert w.depth(DLQ) == 1 and w.depth("ONE.Q") == 1


def test_a_destination_queue_deleted_and_defined_again_receives_the_next_copy(w: World) -> None:
    w.qm.define("QLOCAL", "D.Q")
    w.qm.define_sub("D", {"TOPICSTR": TOPIC, "DEST": "D.Q"})
    conn = w.connect()
    w.publish(conn, TOPIC, b"first")
    w.qm.delete("QLOCAL", "D.Q", purge=True)
    # a persistent publication its durable subscription cannot take fails whole (PMSGDLV(ALLDUR))
    with pytest.raises(MQMIError) as e:
        w.publish(conn, TOPIC, b"nowhere", md=MQMD(Persistence=C.MQPER_PERSISTENT))
    assert reason_of(e) == C.MQRC_PUBLICATION_FAILURE
    w.qm.define("QLOCAL", "D.Q")
    w.publish(conn, TOPIC, b"again")
    assert w.depth("D.Q") == 1
    h = w.qm.open(conn, MQOD(ObjectName=b"D.Q"), C.MQOO_INPUT_AS_Q_DEF)
    assert w.get(conn, h)[1] == b"again"


def test_a_destination_redefined_as_an_alias_delivers_through_the_alias(w: World) -> None:
    w.qm.define("QLOCAL", "A.Q")
    w.qm.define("QLOCAL", "BASE.Q")
    w.qm.define_sub("A", {"TOPICSTR": TOPIC, "DEST": "A.Q"})
    conn = w.connect()
    w.publish(conn, TOPIC, b"local")
    w.qm.delete("QLOCAL", "A.Q", purge=True)
    w.qm.define("QALIAS", "A.Q", {"TARGET": "BASE.Q"})
    w.publish(conn, TOPIC, b"through the alias")
    assert w.depth("BASE.Q") == 1
    w.qm.alter("QALIAS", "A.Q", {"PUT": C.MQQA_PUT_INHIBITED})  # the alias's PUT applies, as name resolution says
    w.publish(conn, TOPIC, b"refused")
    assert w.depth("BASE.Q") == 1 and w.depth(DLQ) == 1


def test_publications_on_more_topic_strings_than_routes_are_kept_all_arrive(w: World) -> None:
    from syncpoint.engine._pubsub import ROUTES_KEPT

    conn = w.connect()
    q, _, _ = w.subscribe(conn, "many/#")
    assert q is not None
    strings = [f"many/{i}" for i in range(ROUTES_KEPT + 5)] + ["many/0"]  # past the bound, then the first again
    for i, topic in enumerate(strings):
        od = MQOD(ObjectType=C.MQOT_TOPIC)
        od.ObjectString = topic
        th = w.qm.open(conn, od, C.MQOO_OUTPUT)
        w.qm.put(conn, th, MQMD(), MQPMO(Options=C.MQPMO_NO_SYNCPOINT), str(i).encode())
        w.qm.close(conn, th)
    w.settle()
    assert w.depth(q.name) == len(strings)
    assert len(w.qm._routes) <= ROUTES_KEPT  # the routes kept stay bounded (memory), whatever the publishers do


# -- the publishing fast path keeps MQPUT's rules (tests/engine/test_hot_path_rules.py for a queue) ------------
def _topic_handle(w: World, conn: Connection, options: int = C.MQOO_OUTPUT) -> Handle:
    od = MQOD(ObjectType=C.MQOT_TOPIC)
    od.ObjectString = TOPIC
    return w.qm.open(conn, od, options)


@pytest.mark.parametrize(
    "options",
    [C.MQPMO_SYNCPOINT | C.MQPMO_NO_SYNCPOINT, 0x40000000],
    ids=["both syncpoint options", "an undefined option bit"],
)
def test_a_publication_with_bad_put_options_is_mqrc_options_error_and_delivers_nothing(w: World, options: int) -> None:
    # mqi.md, MQPMO Options: "MQPMO_SYNCPOINT and MQPMO_NO_SYNCPOINT are mutually exclusive" (MQRC_OPTIONS_ERROR)
    conn = w.connect()
    q, _, _ = w.subscribe(conn, TOPIC)
    assert q is not None
    h = _topic_handle(w, conn)
    with pytest.raises(MQMIError) as e:
        w.qm.put(conn, h, MQMD(), MQPMO(Options=options), b"x")
    assert reason_of(e) == C.MQRC_OPTIONS_ERROR
    assert w.depth(q.name) == 0


def test_a_publication_with_fail_if_quiescing_fails_while_the_queue_manager_ends(w: World) -> None:
    conn = w.connect()
    q, _, _ = w.subscribe(conn, TOPIC)
    assert q is not None
    h = _topic_handle(w, conn)
    w.qm.quiesce()
    with pytest.raises(MQMIError) as e:
        w.qm.put(conn, h, MQMD(), MQPMO(Options=C.MQPMO_NO_SYNCPOINT | C.MQPMO_FAIL_IF_QUIESCING), b"x")
    assert reason_of(e) == C.MQRC_Q_MGR_QUIESCING
    w.qm.put(conn, h, MQMD(), MQPMO(Options=C.MQPMO_NO_SYNCPOINT), b"y")
    assert w.depth(q.name) == 1  # without the option a publication still goes while quiescing


def test_a_publication_normalises_the_fields_the_application_set_in_every_copy(w: World) -> None:
    conn = w.connect()
    q, _, _ = w.subscribe(conn, TOPIC)
    assert q is not None
    h = _topic_handle(w, conn)
    md = MQMD(Format="MQSTR", ReplyToQ=bytearray(b"REPLY"), ReplyToQMgr=b"QMX", GroupId="g1")
    w.qm.put(conn, h, md, MQPMO(Options=C.MQPMO_NO_SYNCPOINT), b"x")
    w.settle()
    assert md.Format == b"MQSTR   " and md.ReplyToQ == b"REPLY".ljust(48) and type(md.ReplyToQ) is bytes
    assert md.GroupId == b"g1".ljust(24, b"\0")
    got, _ = w.get(conn, q)
    for name in ("Format", "ReplyToQ", "ReplyToQMgr", "GroupId", "PutDate", "PutTime", "UserIdentifier"):
        assert getattr(got, name) == getattr(md, name), name


def test_a_publication_with_set_all_context_normalises_the_context_fields_too(w: World) -> None:
    conn = w.connect()
    q, _, _ = w.subscribe(conn, TOPIC)
    assert q is not None
    h = _topic_handle(w, conn, C.MQOO_OUTPUT | C.MQOO_SET_ALL_CONTEXT)
    md = MQMD(UserIdentifier="bob", PutApplName=bytearray(b"APP"), PutDate=b"2000", ApplOriginData="o")
    w.qm.put(conn, h, md, MQPMO(Options=C.MQPMO_NO_SYNCPOINT | C.MQPMO_SET_ALL_CONTEXT), b"x")
    w.settle()
    assert md.UserIdentifier == b"bob".ljust(12) and md.PutApplName == b"APP".ljust(28)
    got, _ = w.get(conn, q)
    assert got.UserIdentifier == b"bob".ljust(12) and got.PutDate == b"2000    " and got.ApplOriginData == b"o   "
