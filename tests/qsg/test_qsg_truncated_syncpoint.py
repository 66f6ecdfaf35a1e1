"""A get in syncpoint from a shared queue that fails with MQRC_TRUNCATED_MSG_FAILED leaves the message on the
queue as it was: the unit of work does not hold it, so its MQCMIT does not delete it and its MQBACK does not add
1 to its BackoutCount. Two members in this process sharing one real PostgreSQL database.

Rule: reference/ibmmq-compat.md, "Semantics these suites pin down", 1: "without MQGMO_ACCEPT_TRUNCATED_MSG a
too-small buffer gives CC 2 / RC 2080, the message stays on the queue"; seed 000 / reference/queue-sharing-groups.md
(units of work): MQBACK adds 1 to the BackoutCount of the messages the unit of work got, and only those.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from qsg_members import member, reason

import syncpoint
from syncpoint.engine import FakeClock
from syncpoint.mqi import constants as C


@pytest.fixture
def pair(postgres_url: str) -> Iterator[tuple[syncpoint.QueueManager, syncpoint.QueueManager]]:
    clock = FakeClock()
    hosts = [member("QMA", postgres_url, clock), member("QMB", postgres_url, clock)]
    a = syncpoint.connect("QMA", embedded=hosts[0])
    b = syncpoint.connect("QMB", embedded=hosts[1])
    a.admin("define", "QLOCAL", "TRUNC.SQ", {"QSGDISP": "SHARED"})
    yield a, b
    for h in hosts:
        h.close(abnormal=True)


@pytest.mark.parametrize("end", ["commit", "backout"])
def test_a_truncated_failed_get_in_syncpoint_leaves_the_message_on_the_queue_with_backout_count_unchanged(
    pair: tuple[syncpoint.QueueManager, syncpoint.QueueManager], end: str
) -> None:
    a, b = pair
    a.open("TRUNC.SQ").put(b"0123456789", persistent=True)
    qb = b.open("TRUNC.SQ")
    assert reason(lambda: qb.get(max_length=4, syncpoint=True)) == C.MQRC_TRUNCATED_MSG_FAILED
    # the message stays on the queue: another member gets it meanwhile ... or after the unit of work ends
    getattr(b, end)()
    got = a.open("TRUNC.SQ").get()
    assert (got.data, got.md.BackoutCount) == (b"0123456789", 0)


def test_a_truncated_failed_get_in_syncpoint_leaves_the_message_available_to_other_members_at_once(
    pair: tuple[syncpoint.QueueManager, syncpoint.QueueManager],
) -> None:
    a, b = pair
    a.open("TRUNC.SQ").put(b"0123456789", persistent=True)
    qb = b.open("TRUNC.SQ")
    assert reason(lambda: qb.get(max_length=4, syncpoint=True)) == C.MQRC_TRUNCATED_MSG_FAILED
    got = a.open("TRUNC.SQ").get()  # before b's unit of work ends
    assert (got.data, got.md.BackoutCount) == (b"0123456789", 0)
    b.commit()
    assert reason(lambda: a.open("TRUNC.SQ").get()) == C.MQRC_NO_MSG_AVAILABLE
