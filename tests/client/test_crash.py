"""Crash test: kill -9 a process in the middle of a transactional workload, restart, and account for everything.

Theory of operation
-------------------
A worker process (``_crash_worker.py``) runs an SQLite-backed queue manager and, until it is killed, puts new
numbered persistent messages on IN (a few per unit of work) and moves messages from IN to OUT (get in syncpoint,
put in syncpoint, commit — or back out, one time in five). It reports on stdout, flushed, what it has done:
``BEGIN a b`` before a put unit of work, ``PUT a b`` after its commit returned, ``GOT n count decision`` after a
get, ``MOVED n`` / ``BACKOUT n`` after the commit / backout returned.

The parent keeps a ledger from these lines: which numbers are on IN with which BackoutCount, which are on OUT.
It SIGKILLs the worker at a random moment, reopens the queue manager in its own process (a restart: the store
recovers) and requires the queues to be exactly what the ledger allows, where the kill leaves exactly one thing
open — the unit of work the worker was in, or a call that returned without its line being written:

* every acknowledged put is present, on IN or OUT, exactly once; nothing is duplicated; nothing unknown appears;
* the one unacknowledged put unit of work is present entirely or not at all (never in part);
* an acknowledged move is on OUT and not on IN; an unacknowledged move is on OUT or back on IN, never both, and
  a message is on OUT only if the worker reported getting it;
* IN stays in put order (the gets always took its first message, a backed-out one goes back in front);
* BackoutCount: each GOT line reports the count the ledger predicts (the acknowledged backouts plus one per crash
  that caught the message's get in flight); a get caught in flight by the kill comes back with exactly one more;
  no other message's count changes, except the first message on IN when the kill fell between a get and its
  line; the queue manager's own count of recovered in-flight gets agrees;
* CURDEPTH equals the number of messages browsed.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import syncpoint
from syncpoint.client import create_queue_manager, open_embedded
from waiting import wait_until

WORKER = Path(__file__).with_name("_crash_worker.py")
QMGR = "CRASHQM"
KILLS = 15
SEEDED = 30  # messages on IN before the first worker starts


@dataclass
class Observed:
    """The queues as a freshly restarted queue manager shows them."""

    inq: list[tuple[int, int]]  # (number, BackoutCount) in delivery order
    outq: list[int]
    in_depth: int
    out_depth: int
    recovered_inflight: int


@dataclass
class Ledger:
    """What the parent knows for certain, from the queues it inspected and the lines the worker wrote."""

    inq: dict[int, int] = field(default_factory=dict)  # number -> BackoutCount
    outq: set[int] = field(default_factory=set)
    got_ever: set[int] = field(default_factory=set)
    next_number: int = 1
    # what the kill left open in the last life
    open_batch: tuple[int, int] | None = None
    open_get: tuple[int, int, str] | None = None  # (number, count reported, decision)

    def apply(self, lines: list[str], life: int) -> None:
        """Replay one life's lines: BEGIN/GOT open a unit of work, PUT/MOVED/BACKOUT close it."""
        self.open_batch = None
        self.open_get = None
        for line in lines:
            word, *args = line.split()
            where = f"life {life}, line {line!r}"
            if word == "READY":
                continue
            if word == "PUT":
                a, b = int(args[0]), int(args[1])
                assert self.open_batch == (a, b), f"{where}: acknowledges a unit of work that was not open"
                for n in range(a, b + 1):
                    self.inq[n] = 0
                self.open_batch = None
                continue
            if word in ("MOVED", "BACKOUT"):
                n = int(args[0])
                assert self.open_get is not None and self.open_get[0] == n, f"{where}: no such get open"
                assert self.open_get[2] == ("C" if word == "MOVED" else "B"), f"{where}: not what was decided"
                if word == "MOVED":
                    del self.inq[n]
                    self.outq.add(n)
                else:
                    self.inq[n] += 1
                self.open_get = None
                continue
            assert self.open_batch is None and self.open_get is None, f"{where}: the worker overlapped its work"
            if word == "BEGIN":
                a, b = int(args[0]), int(args[1])
                assert a == self.next_number, f"{where}: expected to start at {self.next_number}"
                self.next_number = b + 1
                self.open_batch = (a, b)
            elif word == "GOT":
                n, count, decision = int(args[0]), int(args[1]), args[2]
                assert self.inq, f"{where}: got a message from IN, which should be empty"
                first = min(self.inq)
                assert n == first, f"{where}: the get returned {n}, but the first message on IN is {first}"
                assert count == self.inq[n], (
                    f"{where}: BackoutCount {count} reported, the ledger says {self.inq[n]} "
                    "(acknowledged backouts plus crashes that caught the get in flight)"
                )
                self.got_ever.add(n)
                self.open_get = (n, count, decision)
            else:
                raise AssertionError(f"{where}: unknown line")

    def reconcile(self, seen: Observed, life: int) -> str:
        """Check the restarted queues against the ledger, adopt them, and say what the kill had caught."""
        where = f"after kill {life}"
        in_numbers = [n for n, _ in seen.inq]
        counts = dict(seen.inq)
        assert seen.in_depth == len(seen.inq), f"{where}: CURDEPTH of IN {seen.in_depth}, {len(seen.inq)} browsed"
        assert seen.out_depth == len(seen.outq), f"{where}: CURDEPTH of OUT {seen.out_depth}, {len(seen.outq)} browsed"
        assert len(set(in_numbers)) == len(in_numbers), f"{where}: a message is on IN twice: {in_numbers}"
        assert len(set(seen.outq)) == len(seen.outq), f"{where}: a message is on OUT twice: {sorted(seen.outq)}"
        both = set(in_numbers) & set(seen.outq)
        assert not both, f"{where}: messages {sorted(both)} are on IN and on OUT"
        assert in_numbers == sorted(in_numbers), f"{where}: IN is not in put order: {in_numbers}"

        # the put unit of work the kill caught: all or nothing
        caught = "nothing in flight"
        extra_in = set(in_numbers) - set(self.inq)
        if self.open_batch is not None:
            a, b = self.open_batch
            batch = set(range(a, b + 1))
            assert extra_in in (set(), batch), (
                f"{where}: the unit of work putting {a}..{b} was caught by the kill; IN now has {sorted(extra_in)} "
                "of it — a unit of work must be all there or not at all"
            )
            for n in extra_in:
                assert counts[n] == 0, f"{where}: new message {n} has BackoutCount {counts[n]}"
                self.inq[n] = 0
            caught = f"put {a}..{b}, {'committed' if extra_in else 'backed out'}"
        else:
            assert not extra_in, f"{where}: unknown (uncommitted or phantom) messages on IN: {sorted(extra_in)}"

        # the get unit of work the kill caught: on OUT (committed) or back on IN with one more, never both
        expected_out = set(self.outq)
        if self.open_get is not None:
            n, count, decision = self.open_get
            if n in seen.outq:
                assert decision == "C", f"{where}: {n} was to be backed out, yet it is on OUT"
                expected_out.add(n)
                del self.inq[n]
                caught = f"move of {n}, committed"
            else:
                assert n in counts, f"{where}: {n}, got in flight at the kill, is neither on IN nor on OUT"
                assert counts[n] == count + 1, (
                    f"{where}: {n} was got (BackoutCount {count}) in a unit of work the kill caught; it is back on "
                    f"IN with BackoutCount {counts[n]}, expected {count + 1}"
                )
                self.inq[n] = count + 1
                caught = f"move of {n} ({decision}), backed out"
        assert set(seen.outq) == expected_out, (
            f"{where}: OUT holds {sorted(set(seen.outq) - expected_out)} unexpectedly and lacks "
            f"{sorted(expected_out - set(seen.outq))}"
        )
        assert set(seen.outq) <= self.got_ever, f"{where}: OUT holds messages never got from IN"
        missing = set(self.inq) - set(in_numbers)
        assert not missing, f"{where}: committed messages lost from IN: {sorted(missing)}"

        # BackoutCounts of every other message: unchanged, except the first one when a get had no line yet
        changed = sorted(n for n in in_numbers if counts[n] != self.inq[n])
        if changed:
            n = changed[0]
            first = min(self.inq)
            assert changed == [first] and counts[n] == self.inq[n] + 1, (
                f"{where}: BackoutCounts changed for {[(m, self.inq[m], counts[m]) for m in changed]} "
                f"(number, ledger, seen); only the first message on IN ({first}) may have one more"
            )
            assert self.open_batch is None and self.open_get is None, (
                f"{where}: BackoutCount of {n} went up although the worker was not between a get and its line"
            )
            self.inq[n] += 1
            caught = f"get of {n} before its line, backed out"

        in_flight = caught.startswith("get of") or (caught.startswith("move of") and caught.endswith("backed out"))
        if caught.startswith("move of") and "(B)" in caught:
            # MQBACK may have returned before the kill (no recovery needed) or not (the store recovered it)
            assert seen.recovered_inflight in (0, 1), f"{where}: {seen.recovered_inflight} gets recovered"
        else:
            assert seen.recovered_inflight == (1 if in_flight else 0), (
                f"{where}: the queue manager backed out {seen.recovered_inflight} in-flight gets at restart; "
                f"the kill caught: {caught}"
            )
        self.outq = set(seen.outq)
        return caught


def _inspect(home: Path) -> Observed:
    """Restart the queue manager in this process, read both queues, and end it again (releasing the store)."""
    qm = syncpoint.connect(QMGR, home=home)
    try:
        recovered = open_embedded(QMGR, home=home).engine.recovered_inflight
        qin, qout = qm.open("IN"), qm.open("OUT")
        inq = []
        for m in qin.browse_all():
            assert m.persistent
            inq.append((int(m.data), m.backout_count))
        outq = [int(m.data) for m in qout.browse_all()]
        return Observed(inq, outq, qin.depth, qout.depth, recovered)
    finally:
        qm.disconnect()
        open_embedded(QMGR, home=home).close()


def _lines(path: Path) -> list[str]:
    text = path.read_text()
    # a line cut by the kill (no newline yet) was never acknowledged
    return text.split("\n")[:-1]


def test_kill_9_loses_no_committed_message_and_shows_no_uncommitted_one(tmp_path: Path) -> None:
    home = tmp_path / "home"
    create_queue_manager(QMGR, home=home)
    qm = syncpoint.connect(QMGR, home=home)
    qm.admin("define", "QLOCAL", "IN", {"MAXDEPTH": 1_000_000})
    qm.admin("define", "QLOCAL", "OUT", {"MAXDEPTH": 1_000_000})
    qin = qm.open("IN")
    for n in range(1, SEEDED + 1):
        qin.put(str(n).encode(), persistent=True)
    qm.disconnect()
    open_embedded(QMGR, home=home).close()

    ledger = Ledger(inq=dict.fromkeys(range(1, SEEDED + 1), 0), next_number=SEEDED + 1)
    seed = random.randrange(1 << 30)
    rng = random.Random(seed)
    env = dict(os.environ, SYNCPOINT_HOME=str(home))
    caught: list[str] = []
    recovered = 0
    for life in range(1, KILLS + 1):
        out_path = tmp_path / f"worker{life}.out"
        err_path = tmp_path / f"worker{life}.err"
        with out_path.open("w") as out, err_path.open("w") as err:
            worker = subprocess.Popen(
                [sys.executable, str(WORKER), str(home), QMGR, str(ledger.next_number), str(seed + life)],
                stdout=out,
                stderr=err,
                env=env,
            )
        try:
            wait_until(
                lambda: out_path.read_text().startswith("READY\n"),  # noqa: B023
                f"worker {life} getting ready",
                30,
                0.01,
                process=worker,
                detail=err_path.read_text,
            )
            time.sleep(rng.uniform(0.05, 0.5))  # the moment of the kill, at random: the test's input, not a wait
            assert worker.poll() is None, f"worker {life} ended by itself (seed {seed}): {err_path.read_text()}"
            worker.send_signal(signal.SIGKILL)
            worker.wait(timeout=30)
        finally:
            if worker.poll() is None:
                worker.kill()
                worker.wait()
        assert worker.returncode == -signal.SIGKILL
        lines = _lines(out_path)
        context = f"(seed {seed}; worker {life} wrote {len(lines)} lines, the last {lines[-3:]})"
        try:
            ledger.apply(lines, life)
            seen = _inspect(home)
            caught.append(ledger.reconcile(seen, life))
            recovered += seen.recovered_inflight
        except AssertionError as e:
            raise AssertionError(f"{e} {context}") from None

    # the test must have tested something: work done, and kills that caught units of work in flight
    assert ledger.outq, f"no message was ever moved (seed {seed})"
    assert recovered > 0, f"no kill caught a get in flight, so no restart backed one out: {caught} (seed {seed})"
