"""Group commit in the server: which writes share one sync (issue: the server and the remote client, item 4 —
"one durable write acknowledges the commits of all connections waiting").

Two rules beyond "writes queued together commit together":
- a put that wakes a parked get is handed to the sync thread only after that get has run, so the put and the get
  of the same message are made durable by one sync;
- the sync thread waits, for a bounded time, for the sessions its last group answered (their next requests
  usually follow at once), so a producer's put and a consumer's get meet in one group.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Iterator
from typing import Any

import pytest

import syncpoint
from syncpoint.client import EmbeddedQueueManager
from syncpoint.mqi import constants as C
from syncpoint.server._syncer import Syncer

Serve = Callable[..., Any]


def test_a_producer_and_a_consumer_in_step_share_one_sync_per_message(
    sqlite_qm: EmbeddedQueueManager, serve: Serve
) -> None:
    srv = serve(sqlite_qm)
    assert srv.syncer is not None
    srv.syncer.delay = srv.syncer.max_delay = 30.0  # wait for expected sessions as long as it takes
    setup = syncpoint.connect("QMS", embedded=sqlite_qm)  # in-process: the sync thread never waits for it
    setup.admin("define", "QLOCAL", "GQ", {"DEFPSIST": C.MQPER_PERSISTENT})
    producer = syncpoint.connect("QMS", unix_path=srv.unix_path).open("GQ")
    consumer = syncpoint.connect("QMS", unix_path=srv.unix_path).open("GQ")
    rounds = 30
    got: list[bytes] = []
    before = sqlite_qm.store.stats()["syncs"]

    def consume() -> None:
        for _ in range(rounds):
            got.append(consumer.get(wait=30).data)  # persistent, outside syncpoint: durable before the reply

    t = threading.Thread(target=consume)
    t.start()
    while not srv.waiters.get("GQ"):  # the first get is parked: from then on the two go in step
        threading.Event().wait(0.001)
    for i in range(rounds):
        producer.put(f"m{i}".encode())  # persistent, outside syncpoint: durable before the reply
    t.join(60)
    assert got == [f"m{i}".encode() for i in range(rounds)]
    # Each message: its put and its get made durable by ONE sync, whichever of the two sessions came first (a
    # get parked before the put is woken and joins the put's group; a put that comes first waits for the get).
    # Without the rules: close to two syncs per message. With a store that commits in well under a round trip
    # (the journal), a put can now and then reach the sync thread a turn before the get it woke: the pairs then
    # shift by one message (a put alone once, the last get alone at the end), still one sync per message.
    assert rounds <= sqlite_qm.store.stats()["syncs"] - before <= rounds + 2


class _Write:
    """A stand-in for the store's pending write: records which group's wait reached it."""

    def __init__(self, log: list[str], name: str) -> None:
        self.log, self.name = log, name
        self.done = False

    def wait(self) -> None:
        self.log.append(self.name)


@pytest.fixture
def loop() -> Iterator[asyncio.AbstractEventLoop]:
    lp = asyncio.new_event_loop()
    t = threading.Thread(target=lp.run_forever, daemon=True)
    t.start()
    yield lp
    lp.call_soon_threadsafe(lp.stop)
    t.join(5)


class _Session:
    closing = False


def test_the_sync_thread_waits_for_a_session_its_last_group_answered(loop: asyncio.AbstractEventLoop) -> None:
    syncer = Syncer(loop, max_delay=30.0)
    syncer.delay = 30.0  # bounded only by the sessions: the test does not depend on timing
    log: list[str] = []
    delivered: list[list[str]] = []
    got = threading.Event()

    producer, consumer = _Session(), _Session()
    # the last group answered both sessions
    syncer.expected = {producer, consumer}
    batch: list[str] = []

    def note(name: str) -> Callable[[BaseException | None], None]:
        def cb(error: BaseException | None) -> None:
            batch.append(name)
            if len(batch) == 2:
                delivered.append(list(batch))
                got.set()

        return cb

    syncer.hand_over([(_Write(log, "put"), note("put"), producer)], [producer])  # type: ignore[list-item]
    assert not got.wait(0.2)  # the consumer was answered too and has not been heard from: the group waits
    assert log == []
    syncer.hand_over([(_Write(log, "get"), note("get"), consumer)], [consumer])  # type: ignore[list-item]
    assert got.wait(10)
    assert delivered == [["put", "get"]]  # one group: the put and the get were synced together
    assert log == ["put", "get"]
    assert syncer.expected == {producer, consumer}  # the sessions of this group are expected next
    syncer.stop()


def test_the_wait_for_a_silent_session_is_bounded_and_lasts_one_group(loop: asyncio.AbstractEventLoop) -> None:
    syncer = Syncer(loop, max_delay=0.05)
    log: list[str] = []
    done = threading.Event()
    silent, writer = _Session(), _Session()
    syncer.expected = {silent}  # answered by the last group; it will never send anything again
    syncer.hand_over([(_Write(log, "w1"), lambda e: done.set(), writer)], [writer])  # type: ignore[list-item]
    assert done.wait(10)  # committed anyway, once the bounded wait ended
    assert log == ["w1"]
    assert syncer.delays == 1
    assert syncer.expected == {writer}  # the silent session is no longer waited for
    syncer.stop()
