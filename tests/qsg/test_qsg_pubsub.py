"""Publish/subscribe with a queue-sharing group's shared queue as the destination: two members in this process on
one real PostgreSQL database (issue 34, item 3: "A subscriber on a shared queue of a group receives publications
made on any member"). Subscriptions are each queue manager's own, as in IBM MQ: the subscription is defined on
every member, all with the shared queue as destination, and a consumer on any member gets every publication."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from qsg_members import member

import syncpoint
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


def test_a_subscriber_on_a_shared_queue_receives_publications_made_on_either_member(pair) -> None:
    a, b = pair
    for qm in (a, b):  # the subscription on every member, its destination the group's shared queue
        qm.admin("define_sub", "SCORES", {"TOPICSTR": "scores/#", "DEST": "SCORES.SQ"})
    a.publish("scores/football", "2-1 (published on QMA)", persistent=True)
    b.publish("scores/tennis", "6-4 (published on QMB)")
    with a.unit_of_work():
        a.publish("scores/rugby", "in a unit of work (QMA)", syncpoint=True)
    got_on_b = [m.text for m in b.open("SCORES.SQ").messages()]  # the subscriber reads on QMB
    assert sorted(got_on_b) == ["2-1 (published on QMA)", "6-4 (published on QMB)", "in a unit of work (QMA)"]


def test_an_mqsub_subscriber_with_the_shared_queue_gets_publications_through_any_member(pair) -> None:
    a, b = pair
    sq = a.open("SCORES.SQ")
    sub = a.subscribe("scores/live", queue=sq)  # an application's MQSUB on QMA, provided destination
    a.publish("scores/live", "goal")
    assert b.open("SCORES.SQ").get().text == "goal"  # a consumer on the other member gets it
    sub.close()
