"""Publish/subscribe, issue 34: grouped subscriptions (MQSO_GROUP_SUB) and retained publications that keep their
message properties. The engine's ``World`` of test_pubsub drives one queue manager on a MemoryStore; a restart
reads what the store kept.

IBM's rules quoted: MQSUB usage notes ("Subscriptions can be grouped … use the same named queue (not
MQSO_MANAGED) on the same queue manager … share the same SubCorrelId … be of the same SubLevel"; "The
combination of MQSO_GROUP_SUB and MQSO_MANAGED is not allowed"; "MQSO_GROUP_SUB requires MQSO_SET_CORREL_ID"),
MQSD SubCorrelId ("only the most significant subscription in the group is delivered a copy of the
publication"), reason codes 2514 MQRC_DUPLICATE_GROUP_SUB, 2515 MQRC_GROUPING_NOT_ALTERABLE, 2512
MQRC_SUBLEVEL_NOT_ALTERABLE; MQPMO_RETAIN ("a new subscriber gets it first", with the publication's properties).
"""

from __future__ import annotations

import pytest
from test_pubsub import World

from syncpoint.engine import Connection, FakeClock, Handle
from syncpoint.mqi import MQGMO, MQMD, MQOD, MQPMO, MQSD, MQSRO, MQMIError
from syncpoint.mqi import constants as C

CORREL = b"GROUP.ONE".ljust(24, b"\0")
GROUPED = C.MQSO_CREATE | C.MQSO_GROUP_SUB | C.MQSO_SET_CORREL_ID


@pytest.fixture
def w() -> World:
    return World(FakeClock())


def _reason(call: object) -> int:
    with pytest.raises(MQMIError) as e:
        call()  # type: ignore[operator]
    return e.value.reason


def _queue(w: World, conn: Connection, name: str) -> Handle:
    if ("Q", name) not in w.qm.definitions:
        w.qm.define("QLOCAL", name, {})
    return w.qm.open(conn, MQOD(ObjectName=name.encode()), C.MQOO_INPUT_AS_Q_DEF | C.MQOO_BROWSE)


def _sub(
    w: World, conn: Connection, topic: str, q: Handle | None, options: int = GROUPED, name: str = "",
    correl: bytes = CORREL, level: int = 1,
) -> tuple[Handle | None, Handle]:  # fmt: skip
    sd = MQSD(Options=options, SubCorrelId=correl)
    sd.SubLevel = level
    out = w.qm.subscribe(conn, sd, q, {"ObjectString": topic, "SubName": name})
    w.settle()
    return out


def _all(w: World, conn: Connection, q: Handle) -> list[bytes]:
    out = []
    while w.qm.queues[q.name].depth:
        out.append(w.get(conn, q)[1])
    return out


# -- MQSO_GROUP_SUB -----------------------------------------------------------------------------------------
def test_a_group_of_subscriptions_receives_one_copy_from_its_most_significant_match(w: World) -> None:
    conn = w.connect()
    q = _queue(w, conn, "GRP.Q")
    for topic in ("price/#", "price/fruit/+", "price/fruit/apples"):
        _sub(w, conn, topic, q)
    w.publish(conn, "price/fruit/apples", b"apples")  # all three match: one copy
    w.publish(conn, "price/veg/leeks", b"leeks")  # only price/# matches
    assert _all(w, conn, q) == [b"apples", b"leeks"]
    subs = {s.topic: s.msg_count for s in w.qm.list_subs()}
    assert subs == {"price/#": 1, "price/fruit/+": 0, "price/fruit/apples": 1}  # the exact topic was the one


def test_grouping_is_by_queue_correlid_and_sublevel_and_ungrouped_subscriptions_keep_their_copies(w: World) -> None:
    conn = w.connect()
    q, other = _queue(w, conn, "GRP.Q"), _queue(w, conn, "GRP.OTHER")
    _sub(w, conn, "news/#", q)
    _sub(w, conn, "news/+", q, correl=b"GROUP.TWO".ljust(24, b"\0"))  # another SubCorrelId: another group
    _sub(w, conn, "news/#", other)  # another queue: another group
    _sub(w, conn, "news/+", q, options=C.MQSO_CREATE | C.MQSO_SET_CORREL_ID)  # not grouped, same queue and id
    w.publish(conn, "news/today", b"n")
    assert _all(w, conn, q) == [b"n", b"n", b"n"] and _all(w, conn, other) == [b"n"]


def test_group_sub_needs_set_correl_id_and_a_provided_destination_mqrc_options_error(w: World) -> None:
    conn = w.connect()
    q = _queue(w, conn, "GRP.Q")
    subs = len(w.qm.list_subs())
    assert _reason(lambda: _sub(w, conn, "x/y", q, options=C.MQSO_CREATE | C.MQSO_GROUP_SUB)) == C.MQRC_OPTIONS_ERROR
    managed = C.MQSO_CREATE | C.MQSO_GROUP_SUB | C.MQSO_SET_CORREL_ID | C.MQSO_MANAGED
    assert _reason(lambda: _sub(w, conn, "x/y", None, options=managed)) == C.MQRC_OPTIONS_ERROR
    assert len(w.qm.list_subs()) == subs  # nothing made


def test_a_second_grouped_subscription_with_the_same_full_topic_name_is_mqrc_duplicate_group_sub(w: World) -> None:
    conn = w.connect()
    q = _queue(w, conn, "GRP.Q")
    _sub(w, conn, "dup/t", q, name="FIRST")
    assert _reason(lambda: _sub(w, conn, "dup/t", q, name="SECOND")) == C.MQRC_DUPLICATE_GROUP_SUB
    assert [s.name for s in w.qm.list_subs()] == ["FIRST"]
    _sub(w, conn, "dup/t", q, name="LEVEL2", level=2)  # another SubLevel is another group


def test_alter_may_not_change_grouping_or_sublevel(w: World) -> None:
    conn = w.connect()
    q, other = _queue(w, conn, "GRP.Q"), _queue(w, conn, "GRP.OTHER")
    _, hsub = _sub(w, conn, "alt/t", q, options=GROUPED | C.MQSO_DURABLE, name="GALT")
    w.qm.close(conn, hsub)
    alter = C.MQSO_ALTER | C.MQSO_DURABLE | C.MQSO_GROUP_SUB | C.MQSO_SET_CORREL_ID
    assert _reason(lambda: _sub(w, conn, "", other, options=alter, name="GALT")) == C.MQRC_GROUPING_NOT_ALTERABLE
    new_id = b"OTHER".ljust(24, b"\0")
    assert _reason(lambda: _sub(w, conn, "", q, alter, "GALT", new_id)) == C.MQRC_GROUPING_NOT_ALTERABLE
    ungroup = C.MQSO_ALTER | C.MQSO_DURABLE | C.MQSO_SET_CORREL_ID
    assert _reason(lambda: _sub(w, conn, "", q, ungroup, "GALT")) == C.MQRC_GROUPING_NOT_ALTERABLE
    assert _reason(lambda: _sub(w, conn, "", q, alter, "GALT", level=3)) == C.MQRC_SUBLEVEL_NOT_ALTERABLE
    _, hsub = _sub(w, conn, "", q, alter, "GALT")  # the same grouping: altered
    sub = w.qm.find_sub("GALT")
    assert sub.grouped and sub.dest == "GRP.Q" and sub.correl_id == CORREL
    w.qm.close(conn, hsub)


def test_a_grouped_durable_subscription_stays_grouped_after_a_restart(w: World) -> None:
    conn = w.connect()
    q = _queue(w, conn, "GRP.Q")
    _, h1 = _sub(w, conn, "keep/#", q, options=GROUPED | C.MQSO_DURABLE, name="G1")
    _, h2 = _sub(w, conn, "keep/t", q, options=GROUPED | C.MQSO_DURABLE, name="G2")
    w.qm.close(conn, h1)
    w.qm.close(conn, h2)
    w.restart()
    conn = w.connect()
    q = _queue(w, conn, "GRP.Q")
    w.publish(conn, "keep/t", b"once")
    assert _all(w, conn, q) == [b"once"]
    assert w.qm.find_sub("G2").grouped and w.qm.find_sub("G2").msg_count == 1


# -- retained publications keep their properties ------------------------------------------------------------
def _publish_with(w: World, conn: Connection, topic: str, data: bytes, props: dict, md: MQMD | None = None) -> None:
    h, _ = w.open_topic(conn, topic)
    w.qm.put(conn, h, md or MQMD(), MQPMO(Options=C.MQPMO_RETAIN), data, props)
    w.qm.close(conn, h)
    w.settle()


def _get_props(w: World, conn: Connection, q: Handle) -> tuple[bytes, dict | None]:
    r = w.qm.get(conn, q, MQMD(), MQGMO(Version=4, Options=C.MQGMO_NO_SYNCPOINT, MsgHandle=1))
    w.settle()
    return r.data, r.props


def test_a_retained_publication_keeps_its_properties_for_a_new_subscriber_and_mqsubrq(w: World) -> None:
    conn = w.connect()
    props = {"colour": (C.MQTYPE_STRING, "red"), "size": (C.MQTYPE_INT32, 7)}
    _publish_with(w, conn, "prop/t", b"kept", props)
    q, _, _ = w.subscribe(conn, "prop/t")  # a new subscription is sent it
    # IBM's queue manager adds the topic (MQTopicString) and, from the retained store, MQIsRetained
    sent = {**props, "MQTopicString": (C.MQTYPE_STRING, "prop/t"), "MQIsRetained": (C.MQTYPE_BOOLEAN, True)}
    assert q is not None and _get_props(w, conn, q) == (b"kept", sent)
    rq, hsub, _ = w.subscribe(conn, "prop/#", C.MQSO_CREATE | C.MQSO_MANAGED | C.MQSO_PUBLICATIONS_ON_REQUEST)
    sro = MQSRO()
    w.qm.subrq(conn, hsub, C.MQSR_ACTION_PUBLICATION, sro)
    assert rq is not None and sro.NumPubs == 1 and _get_props(w, conn, rq) == (b"kept", sent)


def test_a_persistent_retained_publications_properties_survive_a_restart(w: World) -> None:
    conn = w.connect()
    props = {"when": (C.MQTYPE_INT64, 2**40), "flag": (C.MQTYPE_BOOLEAN, True)}
    _publish_with(w, conn, "rest/t", b"durable", props, MQMD(Persistence=C.MQPER_PERSISTENT))
    _publish_with(w, conn, "rest/none", b"no properties", {}, MQMD(Persistence=C.MQPER_PERSISTENT))
    w.restart()
    conn = w.connect()
    q, _, _ = w.subscribe(conn, "rest/#")
    assert q is not None
    got = dict([_get_props(w, conn, q), _get_props(w, conn, q)])
    retained = {"MQIsRetained": (C.MQTYPE_BOOLEAN, True)}
    assert got == {
        b"durable": {**props, "MQTopicString": (C.MQTYPE_STRING, "rest/t"), **retained},
        b"no properties": {"MQTopicString": (C.MQTYPE_STRING, "rest/none"), **retained},
    }


def test_a_retained_record_written_before_properties_were_kept_still_reads() -> None:
    from syncpoint.engine._pubsub import Retained

    md = MQMD(Persistence=C.MQPER_PERSISTENT).pack()
    old = Retained.from_bytes(md + b"old layout")  # an earlier version stored the MQMD and the data only
    assert (old.md, old.data, old.props) == (md, b"old layout", None)
    new = Retained(md, b"new", True, {"a": (C.MQTYPE_STRING, "b")})
    assert Retained.from_bytes(new.to_bytes()) == new
