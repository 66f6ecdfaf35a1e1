"""The queue-manager host (src/syncpoint/host/_host.py): the thread adapter of the waiting gets, the lifecycle,
and the identity it gives connections — with a fake clock, so no test waits for time to pass."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterator

import pytest

from syncpoint.engine import Connection, FakeClock, QueueManager
from syncpoint.host import QUIESCING, RUNNING, STOPPED, QueueManagerHost, identity, os_user
from syncpoint.mqi import MQGMO, MQMD, MQOD, MQPMO, MQMIError
from syncpoint.mqi import constants as C
from syncpoint.store import MemoryStore
from waiting import wait_until


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def host(clock: FakeClock) -> Iterator[QueueManagerHost]:
    store = MemoryStore()
    store.open()
    store.write(QueueManager.initial_batch("QM1", clock, None))
    h = QueueManagerHost("QM1", store, clock)
    h.call(h.engine.define, "QLOCAL", "Q1", {})
    yield h
    h.close()


def open_q(host: QueueManagerHost, conn: Connection, options: int) -> int:
    return host.call(host.engine.open, conn, MQOD(ObjectName=b"Q1"), options).hobj


def waiting_get(host: QueueManagerHost, interval: int, options: int = 0) -> tuple[threading.Thread, list[object]]:
    """A thread of this process in MQGET with MQGMO_WAIT on Q1; the list receives its data or its reason."""
    conn = host.connect("waiter")
    hobj = open_q(host, conn, C.MQOO_INPUT_AS_Q_DEF)
    out: list[object] = []

    def run() -> None:
        try:
            gmo = MQGMO(Options=C.MQGMO_WAIT | C.MQGMO_NO_SYNCPOINT | options, WaitInterval=interval)
            out.append(host.get(conn, hobj, MQMD(), gmo, None).data)
        except MQMIError as e:
            out.append(e.reason)

    t = threading.Thread(target=run)
    t.start()
    return t, out


def wait_parked(host: QueueManagerHost, n: int = 1) -> None:
    def parked() -> bool:
        with host.lock:
            return len(host.waiters.parked("Q1")) == n

    wait_until(parked, "the get parking", timeout=10, interval=0.001)


def test_a_put_wakes_a_thread_waiting_in_get(host: QueueManagerHost) -> None:
    t, out = waiting_get(host, C.MQWI_UNLIMITED)
    wait_parked(host)
    producer = host.connect("producer")
    hobj = open_q(host, producer, C.MQOO_OUTPUT)
    host.call(host.engine.put, producer, hobj, MQMD(), MQPMO(Options=C.MQPMO_NO_SYNCPOINT), b"wake")
    t.join(10)
    assert out == [b"wake"]
    assert host.waiters.parked() == []


def test_the_wait_interval_passes_on_the_fake_clock(host: QueueManagerHost, clock: FakeClock) -> None:
    before = clock.monotonic()
    t, out = waiting_get(host, 30_000)
    t.join(10)
    assert out == [C.MQRC_NO_MSG_AVAILABLE]
    assert clock.monotonic() - before == pytest.approx(30.0)


@pytest.mark.parametrize(
    ("end", "options", "reason", "state"),
    [
        (QueueManagerHost.quiesce, C.MQGMO_FAIL_IF_QUIESCING, C.MQRC_Q_MGR_QUIESCING, QUIESCING),
        (QueueManagerHost.stop, 0, C.MQRC_Q_MGR_STOPPING, STOPPED),
    ],
)
def test_quiescing_and_stopping_end_waiting_gets_with_ibms_reasons(
    host: QueueManagerHost, end: Callable[[QueueManagerHost], object], options: int, reason: int, state: str
) -> None:
    t, out = waiting_get(host, C.MQWI_UNLIMITED, options)
    wait_parked(host)
    assert host.state == RUNNING
    end(host)
    t.join(10)
    assert out == [reason]
    assert host.state == state


def test_a_handle_closed_under_a_waiting_get_ends_it_at_the_next_wake(host: QueueManagerHost) -> None:
    t, out = waiting_get(host, C.MQWI_UNLIMITED)
    wait_parked(host)
    conn = next(c for c in host.engine.connections.values() if c.appl_name == "waiter")
    hobj = next(iter(conn.handles))
    host.call(host.engine.close, conn, hobj, C.MQCO_NONE)
    producer = host.connect("producer")  # the next wake of the queue: the woken get finds its handle gone
    host.call(host.engine.put1, producer, MQOD(ObjectName=b"Q1"), MQMD(), MQPMO(Options=C.MQPMO_NO_SYNCPOINT), b"m")
    t.join(10)
    assert out == [C.MQRC_HOBJ_ERROR]


def test_the_host_gives_a_connection_this_processs_user_and_pid(host: QueueManagerHost) -> None:
    conn = host.connect("app")
    assert (conn.user, conn.pid) == (os_user(), os.getpid())
    assert 0 < len(os_user()) <= 12
    assert identity("alice", 42) == ("alice", 42)
    assert identity() == (os_user(), os.getpid())


# -- issue 24, defect 9: a persistent message is available once its commit is durable ----------------------
class _GatedPending:
    """A durable write whose sync the test lets happen (``gate``)."""

    def __init__(self, inner: object, gate: threading.Event) -> None:
        self.inner = inner
        self.gate = gate

    @property
    def done(self) -> bool:
        return self.gate.is_set()

    def wait(self) -> None:
        self.gate.wait()
        self.inner.wait()  # type: ignore[attr-defined]


class GatedStore(MemoryStore):
    """A MemoryStore whose durable writes are synced only when the test opens the gate."""

    def __init__(self) -> None:
        super().__init__()
        self.gate = threading.Event()
        self.gate.set()
        self.held = 0  # durable writes submitted while the gate was shut

    def submit(self, batch):  # type: ignore[no-untyped-def]
        inner = super().submit(batch)
        if not batch.durable or self.gate.is_set():
            return inner
        self.held += 1
        return _GatedPending(inner, self.gate)


@pytest.mark.parametrize("syncpoint", [True, False], ids=["committed", "outside-syncpoint"])
def test_a_persistent_message_is_available_to_other_connections_once_its_write_is_durable(
    clock: FakeClock, syncpoint: bool
) -> None:
    # issue 24, defect 9: "IBM MQ makes committed messages available only once the commit is on the log …
    # group commit keeps the syncs shared: a consumer's get waits for the sync that carries the put"
    store = GatedStore()
    store.open()
    store.write(QueueManager.initial_batch("QM1", clock, None))
    host = QueueManagerHost("QM1", store, clock)
    try:
        host.call(host.engine.define, "QLOCAL", "Q1", {})
        waiter, got = waiting_get(host, C.MQWI_UNLIMITED)
        wait_parked(host)
        consumer = host.connect("consumer")
        hobj = open_q(host, consumer, C.MQOO_INPUT_AS_Q_DEF)
        producer = host.connect("producer")
        out = open_q(host, producer, C.MQOO_OUTPUT)
        store.gate.clear()
        options = C.MQPMO_SYNCPOINT if syncpoint else C.MQPMO_NO_SYNCPOINT

        def produce() -> None:
            host.call(
                host.engine.put, producer, out, MQMD(Persistence=C.MQPER_PERSISTENT), MQPMO(Options=options), b"p"
            )
            if syncpoint:
                host.call(host.engine.commit, producer)

        committer = threading.Thread(target=produce)
        committer.start()
        wait_until(lambda: store.held == 1, "the commit's write", timeout=10, interval=0.001)
        with pytest.raises(MQMIError) as e:  # committed in memory, not yet durable: nobody may have it
            host.get(consumer, hobj, MQMD(), MQGMO(Options=C.MQGMO_NO_WAIT), None)
        assert e.value.reason == C.MQRC_NO_MSG_AVAILABLE
        assert committer.is_alive() and waiter.is_alive() and got == []
        store.gate.set()  # the sync: the committing call returns, the waiting get has the message
        committer.join(10)
        waiter.join(10)
        assert got == [b"p"] and not committer.is_alive()
    finally:
        store.gate.set()
        host.close()
