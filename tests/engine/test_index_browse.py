"""The index browse (``getm`` with the option ``index``, protocol version 3; the engine's ``browse_index``) and
gets by MsgToken in one engine call: the Spark driver's scan and the sink's gets (issue 22: the server's CPU per
flow message), over both transports (tests/engine/conftest.py).

The rule checked: an index browse answers exactly what MQGMO_BROWSE_NEXT answers on the same handle, message
by message (docs/protocol.md, ``getm``: "the same as that many get requests"), and leaves the queue, the browse
cursor and the expired messages' reports as those browses would (seed 002: "a get that would have returned an
expired message discards it"; reference/structures.md for MQGMO's MsgToken). Two queue managers get the same
script, so their MsgTokens are the same numbers: one is read with plain browses, the other with the index browse.

All times move on the fake clock: no test sleeps.
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Iterator
from typing import Any

import pytest

import syncpoint
from syncpoint.client import QueueManager, memory_queue_manager
from syncpoint.engine import FakeClock
from syncpoint.mqi import MQGMO, MQMD, MQOD, MQMIError
from syncpoint.mqi import constants as C
from syncpoint.spark._qm import QueueAccess

Seen = tuple[int, int, bytes, int, int, int]
Connect = Callable[[], QueueManager]
DLQ = "SYSTEM.DEAD.LETTER.QUEUE"
GROUP = b"G" * 24


@pytest.fixture
def make(transport: str, clock: FakeClock, serve: Callable[..., Any]) -> Iterator[Callable[[], Connect]]:
    """Makes a fresh queue manager on the one fake clock; returns how to connect to it with the test's transport."""
    made: list[Any] = []

    def _make() -> Connect:
        e = memory_queue_manager("QM1", clock=clock, dlq=DLQ)
        made.append(e)
        if transport == "remote":
            path = serve(e).unix_path
            return lambda: syncpoint.connect("QM1", unix_path=path)
        return lambda: syncpoint.connect("QM1", embedded=e)

    yield _make
    for e in made:
        e.close(abnormal=True)


def token_of(gmo: MQGMO) -> int:
    return int(struct.unpack(">QQ", gmo.MsgToken)[1])


def script(connect: Connect, clock: FakeClock) -> tuple[QueueManager, list[QueueManager]]:
    """Every state a browse meets on a queue of priority delivery: an uncommitted put, a get in another unit of
    work, reservations (another connection's, and the browser's own), a message locked by another handle's
    browse, priorities, a group, a backed-out message, expired messages whose expiration report lands on the
    browsed queue itself. Returns the browsing connection and the others (they keep their units of work open)."""
    app = connect()
    app.admin("define", "QLOCAL", "Q1", {"MAXDEPTH": 1000})
    other, locker = connect(), connect()
    q, oq = app.open("Q1"), other.open("Q1")
    q.put(b"first")
    q.put(b"expires-1", expiry=1.0, report=C.MQRO_EXPIRATION_WITH_DATA, reply_to="Q1")
    q.put(b"high", priority=7)
    for i, flags in enumerate((C.MQMF_MSG_IN_GROUP, C.MQMF_MSG_IN_GROUP, C.MQMF_LAST_MSG_IN_GROUP)):
        md = MQMD(Version=C.MQMD_VERSION_2, GroupId=GROUP, MsgSeqNumber=i + 1, MsgFlags=flags)
        q.put(f"group-{i + 1}".encode(), md=md)
    q.put(b"backed-out")
    q.put(b"got-by-other")
    q.put(b"reserved-by-other")
    q.put(b"reserved-by-me")
    q.put(b"expires-2", expiry=1.0, report=C.MQRO_EXPIRATION, reply_to="Q1")
    q.put(b"locked")
    for i in range(7):
        q.put(f"tail-{i}".encode(), priority=i % 3)
    tokens = tokens_by_data(app)
    assert oq.get(syncpoint=True, msg_id=None).data == b"high"  # another unit of work holds it: invisible
    other.backout()
    # "high" is back with BackoutCount 1; now the get that stays in flight
    other_get = oq.get_tokens([tokens[b"got-by-other"]], syncpoint=True)
    assert [m.data for m in other_get if m is not None] == [b"got-by-other"]
    assert oq.reserve([tokens[b"reserved-by-other"]]) == [tokens[b"reserved-by-other"]]
    assert q.reserve([tokens[b"reserved-by-me"]]) == [tokens[b"reserved-by-me"]]
    oq.put(b"uncommitted", syncpoint=True)
    lq = locker.open("Q1")
    h = lq._h("browse")
    gmo = MQGMO(Version=C.MQGMO_VERSION_3, MatchOptions=C.MQMO_MATCH_MSG_TOKEN)
    gmo.Options = C.MQGMO_BROWSE_FIRST | C.MQGMO_LOCK | C.MQGMO_NO_WAIT
    gmo.MsgToken = struct.pack(">QQ", 0, tokens[b"locked"])
    locker.transport.get(h, MQMD(), gmo, None)
    clock.advance(2.0)  # both expiring messages are past their expiry
    return app, [other, locker]


def tokens_by_data(app: QueueManager) -> dict[bytes, int]:
    h = browse_handle(app)
    out: dict[bytes, int] = {}
    gmo = MQGMO(Version=C.MQGMO_VERSION_3, Options=C.MQGMO_BROWSE_FIRST)
    while True:
        try:
            result = app.transport.get(h, MQMD(), gmo, None)
        except MQMIError:
            app.mqclose(h)
            return out
        out[result.data] = token_of(gmo)
        gmo = MQGMO(Version=C.MQGMO_VERSION_3, Options=C.MQGMO_BROWSE_NEXT)


def browsed(app: QueueManager, h: int, n: int | None = None) -> list[Seen]:
    """Plain MQGETs with MQGMO_BROWSE_FIRST, then _NEXT, a buffer of 0 and MQGMO_ACCEPT_TRUNCATED_MSG."""
    out: list[Seen] = []
    first = True
    while n is None or len(out) < n:
        md = MQMD()
        gmo = MQGMO(Version=C.MQGMO_VERSION_3)
        gmo.Options = (C.MQGMO_BROWSE_FIRST if first else C.MQGMO_BROWSE_NEXT) | C.MQGMO_ACCEPT_TRUNCATED_MSG
        try:
            app.transport.get(h, md, gmo, 0)
        except MQMIError as e:
            assert e.reason == C.MQRC_NO_MSG_AVAILABLE
            break
        first = False
        out.append((token_of(gmo), md.BackoutCount, md.GroupId, md.MsgSeqNumber, md.MsgFlags, md.Priority))
    return out


def indexed(
    app: QueueManager, h: int, chunk: int, n: int | None = None, first: bool = True, match: int = C.MQMO_NONE
) -> list[Seen]:
    """Index browses of ``chunk`` messages a request (MQGMO_BROWSE_FIRST first, unless ``first`` is false), the
    MQGMO's MatchOptions ``match`` (with a blank MsgId and CorrelId, IBM's default options match nothing)."""
    out: list[Seen] = []
    while n is None or len(out) < n:
        gmo = MQGMO(Version=C.MQGMO_VERSION_3, MatchOptions=match)
        gmo.Options = C.MQGMO_BROWSE_FIRST if first else C.MQGMO_BROWSE_NEXT
        got = app.transport.browse_index(h, MQMD(), gmo, chunk if n is None else min(chunk, n - len(out)))
        assert got is not None
        seen, error = got
        out += seen
        first = False
        if error is not None:
            assert error.reason == C.MQRC_NO_MSG_AVAILABLE
            break
    return out


def left_on_queue(app: QueueManager) -> list[tuple[bytes, int]]:
    """What a fresh browse finds afterwards: the messages' data and Feedback (the expiration reports)."""
    return [(m.data, m.md.Feedback) for m in app.open("Q1").browse_all()]


def browse_handle(app: QueueManager) -> int:
    return app.mqopen(MQOD(ObjectName=b"Q1"), C.MQOO_BROWSE)


@pytest.mark.parametrize("match", [C.MQMO_NONE, C.MQMO_MATCH_MSG_ID | C.MQMO_MATCH_CORREL_ID])
@pytest.mark.parametrize("chunk", [1, 3, 500])
def test_an_index_browse_answers_what_browse_next_answers_and_leaves_the_queue_alike(
    make: Callable[[], Connect], clock: FakeClock, chunk: int, match: int
) -> None:
    # docs/protocol.md getm: "the same as that many get requests"; seed 002: a browse that meets an expired
    # message discards it and sends its report (here onto the browsed queue itself)
    a_app, a_keep = script(make(), clock)
    b_app, b_keep = script(make(), clock)
    ha, hb = browse_handle(a_app), browse_handle(b_app)
    want = browsed(a_app, ha)
    got = indexed(b_app, hb, chunk, match=match)
    assert got == want
    left = left_on_queue(a_app)
    assert (b"expires-1", C.MQFB_NONE) not in left and (b"expires-2", C.MQFB_NONE) not in left  # discarded
    assert sum(1 for _, fb in left_on_queue(a_app) if fb == C.MQFB_EXPIRATION) == 2  # their reports, on Q1
    assert left_on_queue(b_app) == left_on_queue(a_app)
    tokens = [s[0] for s in want]
    assert GROUP in {s[2] for s in want} and any(s[1] == 1 for s in want)
    assert len(tokens) == len(set(tokens))
    for keep in a_keep + b_keep:
        keep.disconnect()


def test_an_index_browse_leaves_the_cursor_where_the_browses_would(
    make: Callable[[], Connect], clock: FakeClock
) -> None:
    # the browse cursor (MQGMO_BROWSE_NEXT, MQGMO_BROWSE_MSG_UNDER_CURSOR) is where the last answered browse left it
    a_app, a_keep = script(make(), clock)
    b_app, b_keep = script(make(), clock)
    ha, hb = browse_handle(a_app), browse_handle(b_app)
    assert indexed(b_app, hb, 4, n=5) == browsed(a_app, ha, n=5)
    for app, h in ((a_app, ha), (b_app, hb)):
        md, gmo = MQMD(), MQGMO(Version=C.MQGMO_VERSION_3, Options=C.MQGMO_BROWSE_MSG_UNDER_CURSOR)
        app.transport.get(h, md, gmo, None)
        app.open("Q1").put(b"later", priority=9)  # before the cursor in priority order: not met by browse-next
    under = []
    for app, h in ((a_app, ha), (b_app, hb)):
        md, gmo = MQMD(), MQGMO(Version=C.MQGMO_VERSION_3, Options=C.MQGMO_BROWSE_MSG_UNDER_CURSOR)
        app.transport.get(h, md, gmo, None)
        under.append(token_of(gmo))
    assert under[0] == under[1]
    assert indexed(b_app, hb, 2, first=False) == browsed_next(a_app, ha)
    for keep in a_keep + b_keep:
        keep.disconnect()


def browsed_next(app: QueueManager, h: int) -> list[Seen]:
    """:func:`browsed` going on from the cursor (MQGMO_BROWSE_NEXT from the first)."""
    out: list[Seen] = []
    while True:
        md = MQMD()
        gmo = MQGMO(Version=C.MQGMO_VERSION_3, Options=C.MQGMO_BROWSE_NEXT | C.MQGMO_ACCEPT_TRUNCATED_MSG)
        try:
            app.transport.get(h, md, gmo, 0)
        except MQMIError as e:
            assert e.reason == C.MQRC_NO_MSG_AVAILABLE
            return out
        out.append((token_of(gmo), md.BackoutCount, md.GroupId, md.MsgSeqNumber, md.MsgFlags, md.Priority))


def test_the_spark_scan_reads_the_same_visible_messages_through_the_index_browse(
    make: Callable[[], Connect], clock: FakeClock
) -> None:
    # spark/_qm.py QueueAccess.scan yields Visible in browse order; an older server (protocol version 2) is read
    # with getm browses carrying their structures: the same answers
    a_app, a_keep = script(make(), clock)
    b_app, b_keep = script(make(), clock)
    if hasattr(a_app.transport, "protocol_version"):
        a_app.transport.protocol_version = 2  # as negotiated with a server of protocol version 2
    old = list(QueueAccess(a_app, "Q1").scan(from_start=True))
    new = list(QueueAccess(b_app, "Q1").scan(from_start=True))
    assert new == old and len(new) > 10
    access = QueueAccess(b_app, "Q1")
    assert [v.token for v in access.scan(from_start=True, limit=4)] == [v.token for v in new[:4]]
    assert [v.token for v in access.scan(from_start=False, limit=3)] == [v.token for v in new[4:7]]
    assert [v.token for v in access.scan(from_start=False)] == [v.token for v in new[7:]]
    for keep in a_keep + b_keep:
        keep.disconnect()


def test_an_index_browse_of_a_get_lock_or_cursor_is_an_options_error_and_changes_nothing(
    make: Callable[[], Connect], clock: FakeClock
) -> None:
    # the index answers browses without data only: anything else would lose what a get returns
    app = make()()
    app.admin("define", "QLOCAL", "Q1", {})
    app.open("Q1").put(b"kept")
    h = app.mqopen(MQOD(ObjectName=b"Q1"), C.MQOO_BROWSE | C.MQOO_INPUT_SHARED)
    for options in (C.MQGMO_NO_WAIT, C.MQGMO_BROWSE_FIRST | C.MQGMO_LOCK, C.MQGMO_BROWSE_MSG_UNDER_CURSOR):
        with pytest.raises(MQMIError) as e:
            app.transport.browse_index(h, MQMD(), MQGMO(Version=C.MQGMO_VERSION_3, Options=options), 5)
        assert e.value.reason == C.MQRC_OPTIONS_ERROR
    assert [m.data for m in app.open("Q1").browse_all()] == [b"kept"]


def test_an_index_browse_with_match_criteria_answers_only_the_matching_messages(
    make: Callable[[], Connect], clock: FakeClock
) -> None:
    # MQGMO MatchOptions with the MQMD's CorrelId (constants.md, "MQMO_* match options") apply to every browse
    app = make()()
    app.admin("define", "QLOCAL", "Q1", {})
    q = app.open("Q1")
    for i in range(8):
        q.put(f"m{i}".encode(), correl_id=(b"A" if i % 3 == 0 else b"B") * 24)
    tokens = tokens_by_data(app)
    h = browse_handle(app)
    gmo = MQGMO(Version=C.MQGMO_VERSION_3, MatchOptions=C.MQMO_MATCH_CORREL_ID, Options=C.MQGMO_BROWSE_FIRST)
    seen, error = app.transport.browse_index(h, MQMD(CorrelId=b"A" * 24), gmo, 10)
    assert error is not None and error.reason == C.MQRC_NO_MSG_AVAILABLE
    assert [s[0] for s in seen] == [tokens[f"m{i}".encode()] for i in (0, 3, 6)]
