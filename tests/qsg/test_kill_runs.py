"""Kill test across a group (issue 20, item 4): members killed with SIGKILL at random points while producers and
consumers on different members work a shared queue; every message has a unique id. Afterwards: 0 committed
messages lost, 0 duplicated, 0 uncommitted visible.

What each client knows: a put committed with an answer is *committed*; a put backed out by the application is
*never to be seen*; a commit whose answer was lost (the member died) is *unknown* either way. A get committed
with an answer is *consumed*. The rules checked: every committed id is consumed or still on the queue; no id is
consumed or left twice; no id that was backed out, or never committed, ever shows up.

``SYNCPOINT_QSG_KILL_RUNS`` sets the number of runs (default 50, issue 20's minimum).
"""

from __future__ import annotations

import os
import random
import signal
import threading

import pytest

import syncpoint
from syncpoint.mqi import MQMIError
from syncpoint.mqi import constants as C

RUNS = int(os.environ.get("SYNCPOINT_QSG_KILL_RUNS", "50"))
MEMBERS = ("QMA", "QMB", "QMC")


class Ledger:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.next_id = 0
        self.committed: set[str] = set()
        self.backed_out: set[str] = set()
        self.unknown_puts: set[str] = set()
        self.consumed: list[str] = []
        self.unknown_gets: set[str] = set()

    def new_id(self) -> str:
        with self.lock:
            self.next_id += 1
            return f"m{self.next_id}"


def commit(qm, ledger: Ledger, ids: list[str], unknown: set[str], done) -> bool:
    """MQCMIT; the ids go to ``done`` when it answered, to ``unknown`` when the member died (False then)."""
    try:
        qm.commit()
    except MQMIError:
        with ledger.lock:
            unknown.update(ids)
        return False
    with ledger.lock:
        done(ids)
    return True


def open_queue(member: str):
    try:
        qm = syncpoint.connect(member)
        return qm, qm.open("KILL.Q")
    except MQMIError:
        return None


def producer(member: str, ledger: Ledger, stop: threading.Event, rng: random.Random) -> None:
    opened = open_queue(member)
    if opened is None:
        return  # the member is down at this moment
    qm, q = opened
    while not stop.is_set():
        ids = [ledger.new_id() for _ in range(rng.randint(1, 3))]
        try:
            for i in ids:
                q.put(i.encode(), syncpoint=True, persistent=rng.random() < 0.5)
        except MQMIError:
            with ledger.lock:
                ledger.backed_out.update(ids)  # never committed: the unit of work is backed out
            return
        if rng.random() < 0.2:
            try:
                qm.backout()
                with ledger.lock:
                    ledger.backed_out.update(ids)
            except MQMIError:
                with ledger.lock:
                    ledger.backed_out.update(ids)
                return
            continue
        if not commit(qm, ledger, ids, ledger.unknown_puts, ledger.committed.update):
            return


def consumer(member: str, ledger: Ledger, stop: threading.Event, rng: random.Random) -> None:
    opened = open_queue(member)
    if opened is None:
        return  # the member is down at this moment
    qm, q = opened
    while not stop.is_set():
        got: list[str] = []
        try:
            for _ in range(rng.randint(1, 3)):
                got.append(q.get(syncpoint=True, wait=0.2).data.decode())
        except MQMIError as e:
            if e.reason != C.MQRC_NO_MSG_AVAILABLE:
                return  # the member died: the unit of work is backed out (by a peer or at restart)
        if not got:
            continue
        if not commit(qm, ledger, got, ledger.unknown_gets, ledger.consumed.extend):
            return


@pytest.mark.slow
def test_members_killed_at_random_points_lose_nothing_committed_duplicate_nothing_show_nothing_uncommitted(group):
    for m in MEMBERS:
        group.add(m)
    admin = syncpoint.connect("QMA")
    admin.admin("define", "QLOCAL", "KILL.Q", {"QSGDISP": "SHARED", "MAXDEPTH": 999_999_999})
    admin.disconnect()
    ledger = Ledger()
    rng = random.Random(int(os.environ.get("SYNCPOINT_QSG_KILL_SEED", "20")))
    for _run in range(RUNS):
        stop = threading.Event()
        victim = rng.choice(MEMBERS)
        threads = [
            threading.Thread(target=producer, args=(rng.choice(MEMBERS), ledger, stop, random.Random(rng.random())))
            for _ in range(2)
        ] + [
            threading.Thread(target=consumer, args=(rng.choice(MEMBERS), ledger, stop, random.Random(rng.random())))
            for _ in range(2)
        ]
        for t in threads:
            t.start()
        stop.wait(rng.uniform(0.05, 0.6))  # a random point in the clients' work
        os.kill(group.pid(victim), signal.SIGKILL)
        stop.set()
        for t in threads:
            t.join(60)
        (group.home / "qmgrs" / victim / "server.json").unlink(missing_ok=True)
        group.start(victim)

    drain = syncpoint.connect("QMB")
    q = drain.open("KILL.Q")
    left: list[str] = []
    while True:
        try:
            left.append(q.get().data.decode())
        except MQMIError as e:
            assert e.reason == C.MQRC_NO_MSG_AVAILABLE
            break
    drain.disconnect()

    seen = ledger.consumed + left
    assert len(seen) == len(set(seen)), "a message was delivered twice"
    lost = ledger.committed - set(seen) - ledger.unknown_gets
    assert not lost, f"committed messages lost: {sorted(lost)[:10]}"
    phantom = set(seen) | ledger.unknown_gets
    assert not phantom & ledger.backed_out, "a backed-out put became visible"
    assert phantom <= ledger.committed | ledger.unknown_puts, "a message nobody committed became visible"
    assert len(ledger.committed) > RUNS  # the runs did work
