"""Publish/subscribe with a queue-sharing group's shared queue as the destination: two members in this process on
one real PostgreSQL database (issue 34, item 3: "A subscriber on a shared queue of a group receives publications
made on any member").

The design (docs/queue-sharing-groups.md, "Publish/subscribe across the group"; engine/_group_pubsub): a durable
subscription whose destination is a shared queue is recorded in the group's database by the member that made it;
a publication on any member matches it and that member puts the one copy on the shared queue, in the publisher's
unit of work when the publication is in syncpoint. Non-durable subscriptions stay their queue manager's own."""

from __future__ import annotations

from collections.abc import Iterator

import psycopg
import pytest
from qsg_members import member

import syncpoint
from syncpoint.client import EmbeddedQueueManager
from syncpoint.engine import FakeClock


@pytest.fixture
def pair(postgres_url: str) -> Iterator[tuple[syncpoint.QueueManager, syncpoint.QueueManager]]:
    clock = FakeClock()
    hosts = [member("QMA", postgres_url, clock), member("QMB", postgres_url, clock)]
    a = syncpoint.connect("QMA", embedded=hosts[0])
    b = syncpoint.connect("QMB", embedded=hosts[1])
    a.admin("define", "QLOCAL", "SCORES.SQ", {"QSGDISP": "SHARED"})
    yield a, b
    for h in hosts:
        h.close(abnormal=True)


def _texts(qm: syncpoint.QueueManager, queue: str) -> list[str]:
    return sorted(m.text for m in qm.open(queue).messages())


def test_a_subscription_on_a_shared_queue_receives_publications_made_on_any_member_once(pair) -> None:
    a, b = pair
    a.admin("define_sub", "SCORES", {"TOPICSTR": "scores/#", "DEST": "SCORES.SQ"})  # defined on QMA only
    a.publish("scores/football", "2-1 (published on QMA)", persistent=True)
    b.publish("scores/tennis", "6-4 (published on QMB)")
    b.publish("scores/golf", "par (published on QMB, persistent)", persistent=True)
    with b.unit_of_work():
        b.publish("scores/rugby", "in a unit of work (QMB)", syncpoint=True)
    assert _texts(b, "SCORES.SQ") == [  # read on QMB: each publication once, whichever member published it
        "2-1 (published on QMA)",
        "6-4 (published on QMB)",
        "in a unit of work (QMB)",
        "par (published on QMB, persistent)",
    ]


def test_a_publication_backed_out_on_another_member_delivers_nothing(pair) -> None:
    a, b = pair
    a.admin("define_sub", "SCORES", {"TOPICSTR": "scores/#", "DEST": "SCORES.SQ"})
    with pytest.raises(RuntimeError), b.unit_of_work():
        b.publish("scores/rugby", "backed out", syncpoint=True)
        raise RuntimeError("the application fails: MQBACK")
    b.publish("scores/rugby", "after the backout")
    assert _texts(a, "SCORES.SQ") == ["after the backout"]


def test_a_persistent_publication_out_of_syncpoint_is_whole_and_leaves_the_applications_unit_of_work(pair) -> None:
    # IBM, "Publications under syncpoint": out of syncpoint, under PMSGDLV(ALLDUR), "the queue manager uses internal
    # syncpoints": the copies (a private one and the group's) commit together, apart from the application's work
    a, b = pair
    a.admin("define", "QLOCAL", "AUDIT")
    a.admin("define_sub", "AUDIT", {"TOPICSTR": "scores/#", "DEST": "AUDIT"})  # QMA's own, private
    b.admin("define_sub", "SCORES", {"TOPICSTR": "scores/#", "DEST": "SCORES.SQ"})  # QMB's, on the shared queue
    work = a.open("AUDIT")
    work.put("the application's own put", syncpoint=True)  # its unit of work, open
    a.publish("scores/chess", "mate", persistent=True)  # out of syncpoint: committed at once
    assert _texts(b, "SCORES.SQ") == ["mate"]
    a.backout()  # the application's unit of work only
    assert _texts(a, "AUDIT") == ["mate"]


def test_the_other_members_copy_follows_the_subscriptions_selection_keeps_properties_and_ends(pair) -> None:
    a, b = pair
    a.admin("define_sub", "RED", {"TOPICSTR": "paint", "DEST": "SCORES.SQ", "SELECTOR": "colour = 'red'"})
    b.publish("paint", "blue", properties={"colour": "blue"})
    b.publish("paint", "red", properties={"colour": "red", "coats": 2})
    [copy] = a.open("SCORES.SQ").messages()  # the copy on the shared queue keeps the publication's properties
    # with the topic IBM's queue manager names on every publication (MQTopicString, mqps.Top)
    assert copy.text == "red" and copy.properties == {"colour": "red", "coats": 2, "MQTopicString": "paint"}
    a.admin("delete_sub", name="RED")  # the subscription ends: no member publishes to it any more
    b.publish("paint", "red again", properties={"colour": "red"})
    assert _texts(a, "SCORES.SQ") == []


def test_alter_sub_of_dest_moves_a_subscription_into_and_out_of_the_group(pair) -> None:
    a, b = pair
    a.admin("define", "QLOCAL", "PRIVATE.Q")
    a.admin("define_sub", "MOVER", {"TOPICSTR": "move", "DEST": "PRIVATE.Q"})  # a private queue: QMA's alone
    b.publish("move", "1 (QMB, not for a private queue of QMA)")
    a.admin("alter_sub", "MOVER", {"DEST": "SCORES.SQ"})  # now on the shared queue: in the group
    b.publish("move", "2 (QMB)")
    a.admin("alter_sub", "MOVER", {"DEST": "PRIVATE.Q"})  # back: out of the group
    b.publish("move", "3 (QMB, not for a private queue of QMA)")
    assert _texts(a, "SCORES.SQ") == ["2 (QMB)"] and _texts(a, "PRIVATE.Q") == []


def test_an_mqsub_durable_subscriber_gets_what_any_member_publishes_and_a_non_durable_one_its_own(pair) -> None:
    a, b = pair
    a.admin("define", "QLOCAL", "LIVE.SQ", {"QSGDISP": "SHARED"})
    sq = a.open("LIVE.SQ")
    durable = a.subscribe("scores/live", queue=sq, name="LIVE")  # MQSUB on QMA, provided dest
    b.publish("scores/live", "goal (QMB)")
    assert b.open("LIVE.SQ").get().text == "goal (QMB)"
    durable.close(remove=True)
    b.publish("scores/live", "after the subscription ended")
    assert _texts(a, "LIVE.SQ") == []
    local = a.subscribe("scores/live", queue=a.open("LIVE.SQ"))  # non-durable: QMA's own publications only
    a.publish("scores/live", "on QMA")
    b.publish("scores/live", "on QMB")
    assert _texts(b, "LIVE.SQ") == ["on QMA"]
    local.close()


def test_a_member_start_makes_the_groups_table_agree_with_its_own_subscriptions(postgres_url: str) -> None:
    clock = FakeClock()
    host = member("QMA", postgres_url, clock)
    a = syncpoint.connect("QMA", embedded=host)
    a.admin("define", "QLOCAL", "SCORES.SQ", {"QSGDISP": "SHARED"})
    a.admin("define_sub", "KEPT", {"TOPICSTR": "t", "DEST": "SCORES.SQ"})
    with psycopg.connect(postgres_url, autocommit=True) as conn:  # a row left by a crash between the two writes
        conn.execute("INSERT INTO qsg_sub (qsg, member, name, sub) VALUES ('SPG', 'QMA', 'STALE', 'x')")
    host.close(abnormal=True)
    host = EmbeddedQueueManager("QMA", host.store, clock)  # restarted on the same private store
    with psycopg.connect(postgres_url) as conn:
        names = [r[0] for r in conn.execute("SELECT name FROM qsg_sub WHERE member = 'QMA'")]
    assert names == ["KEPT"]
    host.close(abnormal=True)
