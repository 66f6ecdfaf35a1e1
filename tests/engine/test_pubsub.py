"""Publish/subscribe in the engine: topic objects and their inheritance, MQOPEN of a topic, publishing with MQPUT
and MQPUT1, MQSUB (create / resume / alter, durable / non-durable, managed / provided), wildcards, retained
publications, MQSUBRQ, units of work, restart, and the bad input IBM answers with a reason code.

The rules are from reference/properties-pubsub.md ("Publish/subscribe") unless a comment names another source.
"""

from __future__ import annotations

import pytest

from syncpoint.engine import Connection, FakeClock, Handle, QueueManager
from syncpoint.mqi import MQGMO, MQMD, MQOD, MQPMO, MQSD, MQSRO, MQMIError, rfh2
from syncpoint.mqi import constants as C
from syncpoint.store import MemoryStore

QMGR = "QM1"
DLQ = "SYSTEM.DEAD.LETTER.QUEUE"


class World:
    """One queue manager on a MemoryStore whose batches are written as the host would write them, so a restart
    (``restart``) reads what a real one would."""

    def __init__(self, clock: FakeClock) -> None:
        self.clock = clock
        self.store = MemoryStore()
        self.store.open()
        self.store.write(QueueManager.initial_batch(QMGR, clock, DLQ))
        self.qm = QueueManager(QMGR, self.store.open(), clock)
        self.settle()

    def settle(self) -> None:
        e = self.qm.take_effects()
        while e is not None:
            if e.batch is not None:
                self.store.write(e.batch)
            if e.durable_pending is not None:
                self.qm.made_durable(e.durable_pending)
            e = self.qm.take_effects()

    def restart(self) -> None:
        self.settle()
        self.qm = QueueManager(QMGR, self.store.open(), self.clock)
        self.settle()

    def connect(self) -> Connection:
        return self.qm.connect("app", user="alice", pid=1)

    # -- verbs ----------------------------------------------------------------------------------------
    def open_topic(self, conn: Connection, string: str = "", name: str = "") -> tuple[Handle, MQOD]:
        od = MQOD(ObjectType=C.MQOT_TOPIC, ObjectName=name.encode())
        od.ObjectString = string
        h = self.qm.open(conn, od, C.MQOO_OUTPUT)
        self.settle()
        return h, od

    def publish(
        self, conn: Connection, string: str, data: bytes, options: int = C.MQPMO_NO_SYNCPOINT, md: MQMD | None = None
    ) -> int:
        h, _ = self.open_topic(conn, string)
        try:
            reason = self.qm.put(conn, h, md or MQMD(), MQPMO(Options=options), data)
        finally:
            self.qm.close(conn, h)
        self.settle()
        return reason

    def subscribe(
        self,
        conn: Connection,
        string: str,
        options: int = C.MQSO_CREATE | C.MQSO_MANAGED,
        name: str = "",
        hobj: Handle | None = None,
        object_name: str = "",
    ) -> tuple[Handle | None, Handle, MQSD]:
        sd = MQSD(Options=options, ObjectName=object_name.encode())
        strings = {"ObjectString": string, "SubName": name}
        q, hsub = self.qm.subscribe(conn, sd, hobj, strings)
        self.settle()
        return q, hsub, sd

    def get(self, conn: Connection, h: Handle, options: int = C.MQGMO_NO_SYNCPOINT) -> tuple[MQMD, bytes]:
        md = MQMD()
        r = self.qm.get(conn, h, md, MQGMO(Options=options))
        self.settle()
        return md, r.data

    def depth(self, qname: str) -> int:
        return self.qm.queues[qname].depth


@pytest.fixture
def w() -> World:
    return World(FakeClock())


def reason_of(excinfo: pytest.ExceptionInfo[MQMIError]) -> int:
    return excinfo.value.reason


# -- topic objects and topic strings ---------------------------------------------------------------------
def test_a_new_queue_manager_has_system_base_topic_and_the_managed_model_queues(w: World) -> None:
    base = w.qm.lookup("TOPIC", "SYSTEM.BASE.TOPIC")
    assert base is not None and base.attrs["TOPICSTR"] == ""
    assert base.attrs["MDURMDL"] == "SYSTEM.DURABLE.MODEL.QUEUE"
    assert base.attrs["MNDURMDL"] == "SYSTEM.NDURABLE.MODEL.QUEUE"
    assert w.qm.lookup("QMODEL", "SYSTEM.DURABLE.MODEL.QUEUE").attrs["DEFTYPE"] == C.MQQDT_PERMANENT_DYNAMIC
    assert w.qm.lookup("QMODEL", "SYSTEM.NDURABLE.MODEL.QUEUE").attrs["DEFTYPE"] == C.MQQDT_TEMPORARY_DYNAMIC


def test_topic_attributes_are_inherited_asparent_from_the_nearest_topic_object_up_to_system_base_topic(
    w: World,
) -> None:
    w.qm.define_topic("SPORTS", {"TOPICSTR": "sports", "DEFPSIST": C.MQPER_PERSISTENT})
    w.qm.define_topic("FOOTBALL", {"TOPICSTR": "sports/football", "DEFPRTY": 7})
    chain = w.qm.topic_chain("sports/football/results")
    assert [d.name for d in chain] == ["FOOTBALL", "SPORTS", "SYSTEM.BASE.TOPIC"]  # nearest first
    conn = w.connect()
    q, _, _ = w.subscribe(conn, "sports/football/results", C.MQSO_CREATE | C.MQSO_MANAGED | C.MQSO_DURABLE, "S1")
    assert q is not None
    w.publish(conn, "sports/football/results", b"2-1")
    md, data = w.get(conn, q)
    assert data == b"2-1"
    assert md.Persistence == C.MQPER_PERSISTENT  # from SPORTS, two levels up
    assert md.Priority == 7  # from FOOTBALL


def test_mqopen_resolves_the_topic_objects_topicstr_and_objectstring_into_resobjectstring(w: World) -> None:
    w.qm.define_topic("NEWS", {"TOPICSTR": "news"})
    conn = w.connect()
    _, od = w.open_topic(conn, "weather/today", name="NEWS")
    assert od.ResObjectString == "news/weather/today"
    assert od.ResolvedType == C.MQOT_TOPIC
    _, od = w.open_topic(conn, name="NEWS")
    assert od.ResObjectString == "news"


def test_mqopen_of_an_unknown_topic_object_is_mqrc_unknown_object_name(w: World) -> None:
    conn = w.connect()
    with pytest.raises(MQMIError) as e:
        w.open_topic(conn, "a/b", name="NO.SUCH.TOPIC")
    assert reason_of(e) == C.MQRC_UNKNOWN_OBJECT_NAME
    with pytest.raises(MQMIError) as e:
        w.open_topic(conn)  # neither ObjectName nor ObjectString
    assert reason_of(e) == C.MQRC_UNKNOWN_OBJECT_NAME
    assert not conn.handles


def test_a_topic_string_of_10000_characters_is_valid_and_one_over_10240_is_mqrc_topic_string_error(
    w: World,
) -> None:
    # IBM: MQ_TOPIC_STR_LENGTH is 10,240
    conn = w.connect()
    long_topic = "/".join(["level"] * 1666) + "/abcd"
    assert len(long_topic) == 10_000
    q, _, sd = w.subscribe(conn, long_topic)
    assert sd.ResObjectString == long_topic
    w.publish(conn, long_topic, b"far down")
    assert q is not None and w.get(conn, q)[1] == b"far down"
    subs_before = len(w.qm.list_subs())
    queues_before = set(w.qm.queues)
    with pytest.raises(MQMIError) as e:
        w.subscribe(conn, "x" * 10_241)
    assert reason_of(e) == C.MQRC_TOPIC_STRING_ERROR
    assert len(w.qm.list_subs()) == subs_before and set(w.qm.queues) == queues_before  # nothing half-made


def test_delete_of_a_topic_object_that_is_open_is_refused_and_system_base_topic_cannot_go(w: World) -> None:
    w.qm.define_topic("T1", {"TOPICSTR": "t1"})
    conn = w.connect()
    h, _ = w.open_topic(conn, name="T1")
    with pytest.raises(MQMIError) as e:
        w.qm.delete_topic("T1")
    assert reason_of(e) == C.MQRC_OBJECT_IN_USE
    w.qm.close(conn, h)
    w.qm.delete_topic("T1")
    assert w.qm.lookup("TOPIC", "T1") is None
    with pytest.raises(MQMIError):
        w.qm.delete_topic("SYSTEM.BASE.TOPIC")


# -- publishing and subscribing -------------------------------------------------------------------------
def test_each_subscriber_gets_its_own_copy_with_its_own_msgid_and_its_subscriptions_correlid(w: World) -> None:
    conn = w.connect()
    q1, _, sd1 = w.subscribe(conn, "prices/fruit")
    q2, _, sd2 = w.subscribe(conn, "prices/fruit")
    assert q1 is not None and q2 is not None
    assert w.publish(conn, "prices/fruit", b"apple 1.20") == C.MQRC_NONE
    md1, d1 = w.get(conn, q1)
    md2, d2 = w.get(conn, q2)
    assert d1 == d2 == b"apple 1.20"
    assert md1.CorrelId == sd1.SubCorrelId and md2.CorrelId == sd2.SubCorrelId
    assert md1.MsgId != md2.MsgId


def test_a_provided_destination_receives_the_publications(w: World) -> None:
    w.qm.define("QLOCAL", "MYSUBQ")
    conn = w.connect()
    qh = w.qm.open(conn, MQOD(ObjectName=b"MYSUBQ"), C.MQOO_INPUT_AS_Q_DEF)
    q, _, sd = w.subscribe(conn, "orders/new", C.MQSO_CREATE, hobj=qh)
    assert q is qh and not sd.Options & C.MQSO_MANAGED
    w.publish(conn, "orders/new", b"order 7")
    assert w.get(conn, qh)[1] == b"order 7"


def test_topic_wildcards_hash_is_zero_or_more_levels_and_plus_exactly_one(w: World) -> None:
    conn = w.connect()
    hash_q, _, _ = w.subscribe(conn, "a/#")
    plus_q, _, _ = w.subscribe(conn, "a/+/c")
    assert hash_q is not None and plus_q is not None
    for topic in ("a", "a/b", "a/b/c", "a/x/y/c", "b/c"):
        w.publish(conn, topic, topic.encode())
    assert w.depth(hash_q.name) == 4  # a, a/b, a/b/c, a/x/y/c
    assert w.depth(plus_q.name) == 1  # a/b/c only
    assert w.get(conn, plus_q)[1] == b"a/b/c"


def test_character_wildcards_star_and_question_mark_match_across_levels(w: World) -> None:
    conn = w.connect()
    q, _, _ = w.subscribe(conn, "sp*s?", C.MQSO_CREATE | C.MQSO_MANAGED | C.MQSO_WILDCARD_CHAR)
    assert q is not None
    for topic in ("sports/s1", "sport/s1", "spa", "sports/xy"):
        w.publish(conn, topic, topic.encode())
    assert [w.get(conn, q)[1] for _ in range(2)] == [b"sports/s1", b"sport/s1"]
    assert w.depth(q.name) == 0


def test_wildcard_characters_in_a_publication_are_plain_characters(w: World) -> None:
    conn = w.connect()
    exact, _, _ = w.subscribe(conn, "a/b")
    w.publish(conn, "a/#", b"literal")
    assert exact is not None and w.depth(exact.name) == 0


def test_mqput1_publishes_and_warn_if_no_subs_matched_warns(w: World) -> None:
    conn = w.connect()
    od = MQOD(ObjectType=C.MQOT_TOPIC)
    od.ObjectString = "nobody/listens"
    reason = w.qm.put1(conn, od, MQMD(), MQPMO(Options=C.MQPMO_WARN_IF_NO_SUBS_MATCHED), b"x")
    assert reason == C.MQRC_NO_SUBS_MATCHED
    q, _, _ = w.subscribe(conn, "nobody/listens")
    od.ObjectString = "nobody/listens"
    assert w.qm.put1(conn, od, MQMD(), MQPMO(Options=C.MQPMO_WARN_IF_NO_SUBS_MATCHED), b"y") == C.MQRC_NONE
    assert q is not None and w.get(conn, q)[1] == b"y"
    assert not conn.handles.keys() - {q.hobj} - {h.hobj for h in conn.handles.values() if h.queue is None}


def test_publications_in_syncpoint_join_the_publishers_unit_of_work(w: World) -> None:
    conn = w.connect()
    reader = w.connect()
    q, _, _ = w.subscribe(conn, "uow/t")
    assert q is not None
    w.publish(conn, "uow/t", b"backed out", C.MQPMO_SYNCPOINT)
    w.qm.backout(conn)
    w.settle()
    assert w.depth(q.name) == 0
    w.publish(conn, "uow/t", b"committed", C.MQPMO_SYNCPOINT)
    assert w.qm.queues[q.name].uncommitted == 1  # not yet available
    w.qm.commit(conn)
    w.settle()
    assert w.get(conn, q)[1] == b"committed"
    del reader


def test_a_non_durable_subscription_ends_with_its_handle_and_a_durable_one_stays(w: World) -> None:
    conn = w.connect()
    q, hsub, _ = w.subscribe(conn, "life/t")
    w.subscribe(conn, "life/t", C.MQSO_CREATE | C.MQSO_MANAGED | C.MQSO_DURABLE, name="KEEPER")
    assert len(w.qm.subs.matching("life/t")) == 2
    w.qm.close(conn, hsub)
    assert [s.name for s in w.qm.subs.matching("life/t")] == ["KEEPER"]
    assert q is not None
    w.qm.close(conn, q)
    assert q.name not in w.qm.queues  # the managed temporary dynamic queue went with its handle
    w.qm.disconnect(conn)
    assert [s.name for s in w.qm.subs.matching("life/t")] == ["KEEPER"]


def test_close_with_mqco_remove_sub_deletes_a_durable_subscription_and_its_managed_queue(w: World) -> None:
    conn = w.connect()
    q, hsub, _ = w.subscribe(conn, "rm/t", C.MQSO_CREATE | C.MQSO_MANAGED | C.MQSO_DURABLE, name="GONE")
    assert q is not None
    w.qm.close(conn, q)
    w.qm.close(conn, hsub, C.MQCO_REMOVE_SUB)
    w.settle()
    assert w.qm.subs.by_key.get("GONE") is None and q.name not in w.qm.queues
    w.restart()
    assert w.qm.subs.by_key.get("GONE") is None


def test_durable_subscriptions_and_persistent_retained_publications_survive_a_restart(w: World) -> None:
    conn = w.connect()
    q, _, sd = w.subscribe(conn, "keep/t", C.MQSO_CREATE | C.MQSO_MANAGED | C.MQSO_DURABLE, name="DUR1")
    assert q is not None
    managed = q.name
    md = MQMD(Persistence=C.MQPER_PERSISTENT)
    w.publish(conn, "keep/t", b"retained and kept", C.MQPMO_RETAIN, md=md)
    w.publish(conn, "keep/np", b"non-persistent retained", C.MQPMO_RETAIN)
    w.restart()
    conn = w.connect()
    q2, _, sd2 = w.subscribe(conn, "", C.MQSO_RESUME, name="DUR1")
    assert q2 is not None and q2.name == managed
    assert sd2.Options & C.MQSO_MANAGED and sd2.Options & C.MQSO_DURABLE  # returned on resume
    assert sd2.ResObjectString == "keep/t" and sd2.SubCorrelId == sd.SubCorrelId
    assert w.get(conn, q2)[1] == b"retained and kept"  # delivered before the restart, persistent
    assert set(w.qm.retained) == {"keep/t"}  # a non-persistent retained publication is gone, as in MQ
    w.publish(conn, "keep/t", b"after restart")
    assert w.get(conn, q2)[1] == b"after restart"


def test_a_new_subscriber_gets_the_retained_publication_unless_new_publications_only(w: World) -> None:
    conn = w.connect()
    w.publish(conn, "ret/t", b"old", C.MQPMO_RETAIN)
    w.publish(conn, "ret/t", b"latest", C.MQPMO_RETAIN)  # one retained publication per topic: the last
    q1, _, _ = w.subscribe(conn, "ret/#")
    q2, _, _ = w.subscribe(conn, "ret/t", C.MQSO_CREATE | C.MQSO_MANAGED | C.MQSO_NEW_PUBLICATIONS_ONLY)
    assert q1 is not None and q2 is not None
    assert w.get(conn, q1)[1] == b"latest" and w.depth(q1.name) == 0
    assert w.depth(q2.name) == 0


def test_mqsubrq_sends_the_retained_publication_on_request(w: World) -> None:
    conn = w.connect()
    q, hsub, _ = w.subscribe(conn, "req/t", C.MQSO_CREATE | C.MQSO_MANAGED | C.MQSO_PUBLICATIONS_ON_REQUEST)
    assert q is not None
    sro = MQSRO()
    with pytest.raises(MQMIError) as e:
        w.qm.subrq(conn, hsub, C.MQSR_ACTION_PUBLICATION, sro)
    assert reason_of(e) == C.MQRC_NO_RETAINED_MSG
    w.publish(conn, "req/t", b"on request", C.MQPMO_RETAIN)
    assert w.depth(q.name) == 0  # on-request subscriptions get publications only through MQSUBRQ
    w.qm.subrq(conn, hsub, C.MQSR_ACTION_PUBLICATION, sro)
    assert sro.NumPubs == 1 and w.get(conn, q)[1] == b"on request"
    with pytest.raises(MQMIError) as e:
        w.qm.subrq(conn, hsub, 99, MQSRO())
    assert reason_of(e) == C.MQRC_ACTION_ERROR


def test_retained_publication_in_syncpoint_takes_effect_at_commit_only(w: World) -> None:
    conn = w.connect()
    w.publish(conn, "rs/t", b"rolled back", C.MQPMO_SYNCPOINT | C.MQPMO_RETAIN)
    w.qm.backout(conn)
    assert "rs/t" not in w.qm.retained
    w.publish(conn, "rs/t", b"committed", C.MQPMO_SYNCPOINT | C.MQPMO_RETAIN)
    w.qm.commit(conn)
    assert "rs/t" in w.qm.retained


def test_clear_topicstr_forgets_the_retained_publication(w: World) -> None:
    conn = w.connect()
    w.publish(conn, "clr/t", b"x", C.MQPMO_RETAIN)
    w.qm.clear_topicstr("clr/t")
    assert "clr/t" not in w.qm.retained
    with pytest.raises(MQMIError) as e:
        w.qm.clear_topicstr("clr/t")
    assert reason_of(e) == C.MQRC_NO_RETAINED_MSG


# -- bad input: IBM's reasons, nothing half-applied -----------------------------------------------------
def test_create_of_an_existing_durable_subscription_is_mqrc_sub_already_exists(w: World) -> None:
    conn = w.connect()
    opts = C.MQSO_CREATE | C.MQSO_MANAGED | C.MQSO_DURABLE
    w.subscribe(conn, "dup/t", opts, name="DUP")
    queues = set(w.qm.queues)
    with pytest.raises(MQMIError) as e:
        w.subscribe(conn, "dup/t", opts, name="DUP")
    assert reason_of(e) == C.MQRC_SUB_ALREADY_EXISTS
    assert set(w.qm.queues) == queues  # no second managed queue


def test_resume_of_a_missing_subscription_is_mqrc_no_subscription(w: World) -> None:
    conn = w.connect()
    with pytest.raises(MQMIError) as e:
        w.subscribe(conn, "", C.MQSO_RESUME, name="NOBODY")
    assert reason_of(e) == C.MQRC_NO_SUBSCRIPTION


def test_resume_of_a_subscription_open_elsewhere_is_mqrc_subscription_in_use(w: World) -> None:
    a, b = w.connect(), w.connect()
    w.subscribe(a, "use/t", C.MQSO_CREATE | C.MQSO_MANAGED | C.MQSO_DURABLE, name="BUSY")
    with pytest.raises(MQMIError) as e:
        w.subscribe(b, "", C.MQSO_RESUME, name="BUSY")
    assert reason_of(e) == C.MQRC_SUBSCRIPTION_IN_USE


def test_a_durable_subscription_name_reused_with_other_options_is_refused_and_changes_nothing(w: World) -> None:
    conn = w.connect()
    w.qm.define("QLOCAL", "PROVIDED")
    qh = w.qm.open(conn, MQOD(ObjectName=b"PROVIDED"), C.MQOO_INPUT_AS_Q_DEF)
    _, hsub, _ = w.subscribe(conn, "re/t", C.MQSO_CREATE | C.MQSO_DURABLE, name="RE", hobj=qh)
    w.qm.close(conn, hsub)
    before = w.qm.subs.by_key["RE"].to_bytes()
    queues = set(w.qm.queues)
    cases = [
        ("other/topic", C.MQSO_RESUME | C.MQSO_DURABLE, qh, C.MQRC_TOPIC_NOT_ALTERABLE),
        ("", C.MQSO_RESUME | C.MQSO_DURABLE | C.MQSO_MANAGED, None, C.MQRC_DEST_CLASS_NOT_ALTERABLE),
        ("", C.MQSO_ALTER, qh, C.MQRC_DURABILITY_NOT_ALTERABLE),
    ]
    for topic, opts, hobj, rc in cases:
        with pytest.raises(MQMIError) as e:
            w.subscribe(conn, topic, opts, name="RE", hobj=hobj)
        assert reason_of(e) == rc, (topic, opts)
    assert w.qm.subs.by_key["RE"].to_bytes() == before and set(w.qm.queues) == queues
    assert w.qm.subs.by_key["RE"].handle is None


@pytest.mark.parametrize(
    ("options", "name", "rc"),
    [
        (C.MQSO_DURABLE | C.MQSO_MANAGED, "", C.MQRC_OPTIONS_ERROR),  # none of CREATE / RESUME / ALTER
        (C.MQSO_CREATE | C.MQSO_DURABLE | C.MQSO_MANAGED, "", C.MQRC_SUB_NAME_ERROR),  # durable needs a name
        (C.MQSO_CREATE | C.MQSO_MANAGED | C.MQSO_WILDCARD_CHAR | C.MQSO_WILDCARD_TOPIC, "", C.MQRC_OPTIONS_ERROR),
        (C.MQSO_CREATE, "", C.MQRC_HOBJ_ERROR),  # a provided destination needs the queue's handle
        (C.MQSO_CREATE | C.MQSO_MANAGED | 0x40000000, "", C.MQRC_OPTIONS_ERROR),  # an unknown option
    ],
)
def test_wrong_subscription_option_combinations_get_ibms_reason_and_make_nothing(
    w: World, options: int, name: str, rc: int
) -> None:
    conn = w.connect()
    queues = set(w.qm.queues)
    with pytest.raises(MQMIError) as e:
        w.subscribe(conn, "opt/t", options, name=name)
    assert reason_of(e) == rc
    assert not w.qm.list_subs() and set(w.qm.queues) == queues and not conn.handles


def test_topic_attributes_pub_sub_and_dursub_disabled_refuse_with_ibms_reasons(w: World) -> None:
    w.qm.define_topic("LOCKED", {"TOPICSTR": "locked", "PUB": C.MQTA_PUB_INHIBITED, "SUB": C.MQTA_SUB_INHIBITED})
    w.qm.define_topic("NODUR", {"TOPICSTR": "nodur", "DURSUB": C.MQSUB_DURABLE_INHIBITED})
    conn = w.connect()
    with pytest.raises(MQMIError) as e:
        w.publish(conn, "locked/x", b"no")
    assert reason_of(e) == C.MQRC_PUT_INHIBITED
    with pytest.raises(MQMIError) as e:
        w.subscribe(conn, "locked/x")
    assert reason_of(e) == C.MQRC_SUB_INHIBITED
    with pytest.raises(MQMIError) as e:
        w.subscribe(conn, "nodur/x", C.MQSO_CREATE | C.MQSO_MANAGED | C.MQSO_DURABLE, name="D")
    assert reason_of(e) == C.MQRC_DURABILITY_NOT_ALLOWED
    w.subscribe(conn, "nodur/x")  # non-durable is still allowed


def test_a_managed_subscription_whose_model_queue_is_missing_is_mqrc_invalid_destination(w: World) -> None:
    w.qm.define_topic("NOMODEL", {"TOPICSTR": "nomodel", "MNDURMDL": "NO.SUCH.MODEL"})
    conn = w.connect()
    with pytest.raises(MQMIError) as e:
        w.subscribe(conn, "nomodel/x")
    assert reason_of(e) == C.MQRC_INVALID_DESTINATION
    assert not w.qm.list_subs()


def test_a_persistent_publication_a_durable_subscriber_cannot_take_fails_whole(w: World) -> None:
    # IBM's default PMSGDLV(ALLDUR): a persistent publication that a durable subscription cannot receive fails
    w.qm.define("QLOCAL", "SMALL", {"MAXDEPTH": 1})
    conn = w.connect()
    small = w.qm.open(conn, MQOD(ObjectName=b"SMALL"), C.MQOO_INPUT_AS_Q_DEF)
    w.subscribe(conn, "full/t", C.MQSO_CREATE | C.MQSO_DURABLE, name="FULL", hobj=small)
    other, _, _ = w.subscribe(conn, "full/t")
    assert other is not None
    w.publish(conn, "full/t", b"fills it", md=MQMD(Persistence=C.MQPER_PERSISTENT))
    w.get(conn, other)
    with pytest.raises(MQMIError) as e:
        w.publish(conn, "full/t", b"no room", md=MQMD(Persistence=C.MQPER_PERSISTENT))
    assert reason_of(e) == C.MQRC_PUBLICATION_FAILURE
    assert w.depth(other.name) == 0 and w.depth("SMALL") == 1  # nothing delivered to anyone
    # a non-persistent one goes to those that can take it; the refused copy to the dead-letter queue (USEDLQ)
    w.publish(conn, "full/t", b"non-persistent")
    assert w.depth(other.name) == 1 and w.depth(DLQ) == 1


def test_a_subscriptions_selection_string_selects_the_publications_it_receives(w: World) -> None:
    # properties-pubsub.md: "Also on MQSD for subscriptions" — the subscription receives only the publications its
    # SelectionString selects (here on MQMD fields, as a selecting MQGET judges a message)
    conn = w.connect()
    q, _ = w.qm.subscribe(conn, MQSD(Options=C.MQSO_CREATE | C.MQSO_MANAGED), None,
                          {"ObjectString": "sel/t", "SelectionString": "Root.MQMD.Priority > 4"})  # fmt: skip
    w.settle()
    all_q, _, _ = w.subscribe(conn, "sel/t")
    w.publish(conn, "sel/t", b"low", md=MQMD(Priority=1))
    w.publish(conn, "sel/t", b"high", md=MQMD(Priority=7))
    assert q is not None and all_q is not None
    assert w.get(conn, q)[1] == b"high" and w.depth(q.name) == 0
    assert w.depth(all_q.name) == 2  # a subscription without one takes everything


def test_a_subscriptions_selector_sees_the_publications_properties(w: World) -> None:
    conn = w.connect()
    q, _ = w.qm.subscribe(conn, MQSD(Options=C.MQSO_CREATE | C.MQSO_MANAGED), None,
                          {"ObjectString": "sel/p", "SelectionString": "colour = 'red'"})  # fmt: skip
    w.settle()
    h, _ = w.open_topic(conn, "sel/p")
    for colour in ("blue", "red"):
        w.qm.put(conn, h, MQMD(), MQPMO(), colour.encode(), {"colour": (C.MQTYPE_STRING, colour)})
    w.qm.close(conn, h)
    w.settle()
    assert q is not None and w.get(conn, q)[1] == b"red" and w.depth(q.name) == 0


def test_a_selection_string_that_does_not_parse_is_mqrc_selector_syntax_error_and_makes_nothing(w: World) -> None:
    conn = w.connect()
    queues = set(w.qm.queues)
    with pytest.raises(MQMIError) as e:
        w.qm.subscribe(conn, MQSD(Options=C.MQSO_CREATE | C.MQSO_MANAGED), None,
                       {"ObjectString": "sel/t", "SelectionString": "colour = = 'red'"})  # fmt: skip
    assert reason_of(e) == C.MQRC_SELECTOR_SYNTAX_ERROR
    assert not w.qm.list_subs() and set(w.qm.queues) == queues


def test_a_durable_subscriptions_selection_string_survives_a_restart_and_cannot_be_altered(w: World) -> None:
    w.qm.define("QLOCAL", "SEL.DEST", {})
    w.qm.define_sub("SEL.SUB", {"TOPICSTR": "sel/d", "DEST": "SEL.DEST", "SELECTOR": "Root.MQMD.Priority = 3"})
    w.restart()
    conn = w.connect()
    w.publish(conn, "sel/d", b"other", md=MQMD(Priority=2))
    w.publish(conn, "sel/d", b"three", md=MQMD(Priority=3))
    assert w.depth("SEL.DEST") == 1
    with pytest.raises(MQMIError) as e:
        w.qm.alter_sub("SEL.SUB", {"SELECTOR": "Root.MQMD.Priority = 4"})
    assert reason_of(e) == C.MQRC_SELECTOR_NOT_ALTERABLE


def test_set_correl_id_suppress_replyto_not_own_subs_and_pub_priority(w: World) -> None:
    me, other = w.connect(), w.connect()
    sd = MQSD(Options=C.MQSO_CREATE | C.MQSO_MANAGED | C.MQSO_SET_CORREL_ID, SubCorrelId=b"MY.CORREL".ljust(24, b"\0"))
    sd.PubPriority = 8
    mine, _ = w.qm.subscribe(me, sd, None, {"ObjectString": "opt/t"})
    theirs, _, _ = w.subscribe(other, "opt/t")
    assert mine is not None and theirs is not None
    md = MQMD(ReplyToQ=b"REPLY.HERE", Priority=2)
    w.publish(me, "opt/t", b"x", C.MQPMO_NO_SYNCPOINT | C.MQPMO_SUPPRESS_REPLYTO, md=md)
    got, _ = w.get(me, mine)
    assert got.CorrelId == b"MY.CORREL".ljust(24, b"\0") and got.Priority == 8
    assert got.ReplyToQ.strip() == b""  # MQPMO_SUPPRESS_REPLYTO
    w.get(other, theirs)
    w.publish(me, "opt/t", b"y", C.MQPMO_NO_SYNCPOINT | C.MQPMO_NOT_OWN_SUBS)
    assert w.depth(mine.name) == 0 and w.depth(theirs.name) == 1  # not to the publisher's own subscription


def test_alter_changes_what_may_change_and_keeps_the_subscription(w: World) -> None:
    conn = w.connect()
    _, hsub, _ = w.subscribe(conn, "alt/t", C.MQSO_CREATE | C.MQSO_MANAGED | C.MQSO_DURABLE, name="ALT")
    w.qm.close(conn, hsub)
    sd = MQSD(Options=C.MQSO_ALTER | C.MQSO_DURABLE | C.MQSO_MANAGED, SubExpiry=600)
    w.qm.subscribe(conn, sd, None, {"SubName": "ALT", "SubUserData": "new data"})
    sub = w.qm.subs.by_key["ALT"]
    assert sub.expiry == 600 and sub.user_data == "new data" and sub.topic == "alt/t"
    w.restart()
    assert w.qm.subs.by_key["ALT"].user_data == "new data"


def test_non_durable_subscriptions_and_their_managed_queues_end_with_the_connection(w: World) -> None:
    conn = w.connect()
    q, _, _ = w.subscribe(conn, "bye/t")
    assert q is not None and w.qm.subs.matching("bye/t")
    w.qm.disconnect(conn)
    assert not w.qm.subs.matching("bye/t") and q.name not in w.qm.queues


def test_a_subscription_ends_when_its_subexpiry_has_passed(w: World) -> None:
    # MQSD SubExpiry, in tenths of a second, from its creation (or last ALTER): then it receives nothing and ends
    conn = w.connect()
    sd = MQSD(Options=C.MQSO_CREATE | C.MQSO_MANAGED | C.MQSO_DURABLE, SubExpiry=50)
    q, hsub = w.qm.subscribe(conn, sd, None, {"ObjectString": "exp/t", "SubName": "SHORT"})
    assert q is not None
    w.publish(conn, "exp/t", b"in time")
    assert w.depth(q.name) == 1
    w.clock.advance(6)
    w.publish(conn, "exp/t", b"too late")
    assert w.depth(q.name) == 1  # an expired subscription still held open receives nothing
    w.qm.close(conn, hsub)  # and ends at its close
    with pytest.raises(MQMIError) as e:
        w.subscribe(conn, "", C.MQSO_RESUME, name="SHORT")
    assert reason_of(e) == C.MQRC_NO_SUBSCRIPTION
    w.restart()
    assert "SHORT" not in w.qm.subs.by_key


# IBM ("Retained publications"; the mqps folder of the MQRFH2, properties MQTopicString = mqps.Top and
# MQIsRetained = mqps.Ret): the queue manager names the topic of every publication it delivers, and marks one it
# sends from the retained store (a new subscription's first delivery, MQSUBRQ) with MQIsRetained TRUE
def props_of(w: World, conn: Connection, q: Handle, options: int = 0) -> tuple[bytes, dict[str, object]]:
    gmo = MQGMO(Version=4, Options=C.MQGMO_NO_SYNCPOINT | C.MQGMO_PROPERTIES_IN_HANDLE | options, MsgHandle=1)
    r = w.qm.get(conn, q, MQMD(), gmo)
    w.settle()
    return r.data, {k: v for k, (_, v) in (r.props or {}).items()}


def test_every_publication_carries_mqtopicstring_and_only_a_retained_delivery_mqisretained(w: World) -> None:
    conn = w.connect()
    live, _, _ = w.subscribe(conn, "mark/#")
    assert live is not None
    w.publish(conn, "mark/a", b"kept", C.MQPMO_RETAIN)  # a current subscriber gets it as any publication
    assert props_of(w, conn, live) == (b"kept", {"MQTopicString": "mark/a"})
    late, _, _ = w.subscribe(conn, "mark/+")  # a new subscription: the retained publication first
    assert late is not None and props_of(w, conn, late) == (b"kept", {"MQTopicString": "mark/a", "MQIsRetained": True})
    od = MQOD(ObjectType=C.MQOT_TOPIC)
    od.ObjectString = "mark/a"
    h = w.qm.open(conn, od, C.MQOO_OUTPUT)
    w.qm.put(conn, h, MQMD(), MQPMO(), b"later", {"colour": (C.MQTYPE_STRING, "red")})
    w.qm.close(conn, h)
    w.settle()
    assert props_of(w, conn, late) == (b"later", {"colour": "red", "MQTopicString": "mark/a"})


def test_mqsubrq_marks_its_publications_mqisretained_in_the_mqps_folder(w: World) -> None:
    conn = w.connect()
    w.publish(conn, "req2/t", b"on request", C.MQPMO_RETAIN)
    q, hsub, _ = w.subscribe(conn, "req2/t", C.MQSO_CREATE | C.MQSO_MANAGED | C.MQSO_PUBLICATIONS_ON_REQUEST)
    assert q is not None
    w.qm.subrq(conn, hsub, C.MQSR_ACTION_PUBLICATION, MQSRO())
    md = MQMD()  # without a handle, forced into an MQRFH2: IBM's mqps folder, <Top> and <Ret>
    r = w.qm.get(conn, q, md, MQGMO(Options=C.MQGMO_NO_SYNCPOINT | C.MQGMO_PROPERTIES_FORCE_MQRFH2))
    w.settle()
    assert md.Format == C.MQFMT_RF_HEADER_2 and r.data.endswith(b"on request")
    assert b"<mqps><Top>req2/t</Top><Ret dt='boolean'>1</Ret></mqps>".replace(b"'", b'"') in r.data
    assert rfh2.parse(r.data, md.Encoding).props == {
        "MQTopicString": (C.MQTYPE_STRING, "req2/t"),
        "MQIsRetained": (C.MQTYPE_BOOLEAN, True),
    }
