"""MQCMIT and MQBACK end every unit of work that holds something on a shared queue, however it came to hold it:
a get under the browse cursor of a locked message, a marked get moved to its new unit of work, a put counted for
MAXDEPTH (that one is begun by its put as well). The member skips PostgreSQL at MQCMIT/MQBACK for a unit of work
that holds nothing there; these are the statements other than the plain get and put that make one hold a row.
Two members in this process sharing one real PostgreSQL database.

Rules: reference/queue-sharing-groups.md (units of work: a message got in syncpoint leaves the queue at MQCMIT,
MQBACK reinstates it with BackoutCount + 1); seed 000_d5eead655aeb3bc8.txt ("Skipping backout": "the marked
message is treated as if it had been retrieved under a new unit of work"); constants.md MQRC_Q_FULL (2053) with
IBM counting a put in a unit of work in CurrentQDepth at once.
"""

from __future__ import annotations

from collections.abc import Iterator

import psycopg
import pytest
from qsg_members import member, reason

import syncpoint
from syncpoint.engine import FakeClock
from syncpoint.mqi import MQGMO, MQMD, MQOD
from syncpoint.mqi import constants as C

Pair = tuple[syncpoint.QueueManager, syncpoint.QueueManager]


@pytest.fixture
def pair(postgres_url: str) -> Iterator[Pair]:
    clock = FakeClock()
    hosts = [member("QMA", postgres_url, clock), member("QMB", postgres_url, clock)]
    a = syncpoint.connect("QMA", embedded=hosts[0])
    b = syncpoint.connect("QMB", embedded=hosts[1])
    a.admin("define", "QLOCAL", "UOW.SQ", {"QSGDISP": "SHARED"})
    a.admin("define", "QLOCAL", "UOW.TINY", {"QSGDISP": "SHARED", "MAXDEPTH": 1})
    a.admin("define", "QLOCAL", "UOW.DEEP", {"QSGDISP": "SHARED", "MAXDEPTH": 999_999_999})
    yield a, b
    for h in hosts:
        h.close(abnormal=True)


def _rows(url: str, queue: str = "UOW.SQ") -> int:
    """The queue's rows in the shared database, held or not (a message MQCMIT left held would still be one)."""
    with psycopg.connect(url, autocommit=True) as conn:
        row = conn.execute("SELECT count(*) FROM qsg_message WHERE queue = %s", (queue,)).fetchone()
    assert row is not None
    return int(row[0])


def _get_locked_under_cursor_in_syncpoint(a: syncpoint.QueueManager) -> None:
    h = a.mqopen(MQOD(ObjectName=b"UOW.SQ"), C.MQOO_BROWSE | C.MQOO_INPUT_SHARED)
    a.mqget(h, MQMD(), MQGMO(Options=C.MQGMO_BROWSE_FIRST | C.MQGMO_LOCK))
    assert a.mqget(h, MQMD(), MQGMO(Options=C.MQGMO_MSG_UNDER_CURSOR | C.MQGMO_SYNCPOINT)) == b"m"


def test_mqcmit_deletes_a_locked_message_its_unit_of_work_got_under_the_cursor(pair: Pair, postgres_url: str) -> None:
    a, b = pair
    a.open("UOW.SQ").put(b"m")
    _get_locked_under_cursor_in_syncpoint(a)
    a.commit()
    qb = b.open("UOW.SQ")
    assert reason(qb.get) == C.MQRC_NO_MSG_AVAILABLE
    assert qb.depth == 0
    assert _rows(postgres_url) == 0


def test_mqback_reinstates_a_locked_message_its_unit_of_work_got_under_the_cursor(pair: Pair) -> None:
    a, b = pair
    a.open("UOW.SQ").put(b"m")
    _get_locked_under_cursor_in_syncpoint(a)
    a.backout()
    got = b.open("UOW.SQ").get()
    assert (got.data, got.md.BackoutCount) == (b"m", 1)


def test_mqcmit_of_the_new_unit_of_work_of_a_marked_get_deletes_its_message(pair: Pair, postgres_url: str) -> None:
    a, b = pair
    qa = a.open("UOW.SQ")
    qa.put(b"m")
    assert qa.get(syncpoint=True, mark_skip_backout=True).data == b"m"
    a.backout()  # the marked get moves to a new unit of work, the only thing it holds
    a.commit()
    qb = b.open("UOW.SQ")
    assert reason(qb.get) == C.MQRC_NO_MSG_AVAILABLE
    assert qb.depth == 0
    assert _rows(postgres_url) == 0


@pytest.mark.parametrize("end", ["commit", "backout"])
def test_the_end_of_a_unit_of_work_stops_its_put_counting_towards_maxdepth_on_every_member(
    pair: Pair, end: str
) -> None:
    a, b = pair
    a.open("UOW.TINY").put(b"m", syncpoint=True)
    tb = b.open("UOW.TINY")
    assert tb.depth == 1
    assert reason(lambda: tb.put(b"x")) == C.MQRC_Q_FULL
    getattr(a, end)()
    if end == "commit":
        assert tb.get().data == b"m"
    assert tb.depth == 0
    tb.put(b"x")  # room again: the ended unit of work no longer counts
    assert tb.depth == 1


# A unit of work that only put skips the DELETE of its gets at MQCMIT (a producer's MQCMIT is its puts' COPY
# alone). One that put first and got after must still delete what it got, whichever get claimed it: a get of one
# message, or the claim ahead of a get of many. UOW.SQ takes its puts' counts with a statement (its MAXDEPTH),
# UOW.DEEP from the member's memory (the largest MAXDEPTH).
@pytest.mark.parametrize("queue", ["UOW.SQ", "UOW.DEEP"])
@pytest.mark.parametrize("many", [False, True], ids=["get", "get_many"])
def test_mqcmit_deletes_what_a_unit_of_work_got_after_its_puts(
    pair: Pair, postgres_url: str, queue: str, many: bool
) -> None:
    a, b = pair
    qa = a.open(queue)
    qa.put_many([b"m1", b"m2"])
    qa.put(b"p", syncpoint=True)  # the unit of work's first hold: a put
    if many:
        assert [m.data for m in qa.get_many(2, syncpoint=True)] == [b"m1", b"m2"]
    else:
        assert [qa.get(syncpoint=True).data for _ in range(2)] == [b"m1", b"m2"]
    a.commit()
    qb = b.open(queue)
    assert qb.get().data == b"p"
    assert reason(qb.get) == C.MQRC_NO_MSG_AVAILABLE
    assert _rows(postgres_url, queue) == 0


@pytest.mark.parametrize("queue", ["UOW.SQ", "UOW.DEEP"])
def test_mqcmit_of_puts_alone_makes_them_available_on_every_member(pair: Pair, postgres_url: str, queue: str) -> None:
    a, b = pair
    a.open(queue).put_many([b"p1", b"p2", b"p3"], syncpoint=True, commit=True)
    qb = b.open(queue)
    assert [m.data for m in qb.get_many(5)] == [b"p1", b"p2", b"p3"]
    assert qb.depth == 0
    assert _rows(postgres_url, queue) == 0
