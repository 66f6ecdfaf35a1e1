#!/usr/bin/env python
"""A scrape of /metrics for a queue manager with many queues (issue 36, item 5): time and the queue manager's lock.

    .venv/bin/python bench/metrics_scrape.py                     # 10,000 queues, 5 rounds
    .venv/bin/python bench/metrics_scrape.py --queues 2000 --rounds 3

An in-process queue manager (the fake clock) with N queues, a tenth of them holding a message. Each round, 1 %
of the queues get a put and a get and the clock moves on 15 s (Prometheus' usual interval), then the body is
made two ways from one collection, side by side in alternating order:

* ``whole``: prometheus_client's ``generate_latest`` over the registry (every sample written at every scrape);
* ``sliced``: ``syncpoint.metrics._exposition.Exposition`` (the same encoder, slice by slice, the texts of
  slices whose values did not change kept), what ``/metrics`` serves.

Both bodies are checked equal, byte for byte. The table gives the median wall time of a scrape (the collection
and the body), the CPU
time, the first scrape (nothing kept yet), and, for the lock: the most queues one hold of the queue manager's
lock read (the collector's slice), the number of holds, and the longest hold measured (``queue_metrics`` of one
slice under the host's lock, the longest of every slice of one collection), in CPU time of the holding thread and
in wall time (which, on a loaded machine, counts the time the thread waited for a CPU while holding it).
``--busy`` makes every queue hold a message (every queue's ``time_since_put`` and ``oldest_message_age`` then
change at every scrape: the worst case). This is not a test: it lives outside ``tests/``.
"""

from __future__ import annotations

import argparse
import statistics
import time

from prometheus_client import generate_latest

import syncpoint
from syncpoint.client import memory_queue_manager
from syncpoint.engine import FakeClock
from syncpoint.metrics import SLICE, QueueManagerCollector
from syncpoint.metrics._exposition import Exposition, _Families
from syncpoint.mqi import constants as C


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--queues", type=int, default=10_000)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--busy", action="store_true", help="every queue holds a message (the worst case)")
    a = ap.parse_args()
    clock = FakeClock()
    e = memory_queue_manager("QM1", clock=clock)
    qm = syncpoint.connect("QM1", embedded=e)
    names = [f"APP.Q{i:05d}" for i in range(a.queues)]
    for n in names:
        qm.admin("define", "QLOCAL", n)
    holding = names if a.busy else names[::10]
    for n in holding:
        qm.put1(n, b"x" * 100)
    collector = QueueManagerCollector("QM1", lambda: syncpoint.connect("QM1", embedded=e), channels=False)
    made = _Families([])  # one collection's families, given to both bodies
    exposition = Exposition(made)

    def whole() -> bytes:
        return generate_latest(made)

    def sliced() -> bytes:
        return exposition.render(generate_latest, "text")

    def longest_hold() -> tuple[float, float]:
        """The longest hold of the lock over one collection's slices: (wall, CPU of this thread) in seconds."""
        engine, wall, cpu = e.engine, 0.0, 0.0
        ordered = sorted(engine.queue_names())
        for i in range(0, len(ordered), SLICE):
            part = ordered[i : i + SLICE]
            t0, c0 = time.perf_counter(), time.thread_time()
            with e.lock:
                engine.queue_metrics(part)
            wall, cpu = max(wall, time.perf_counter() - t0), max(cpu, time.thread_time() - c0)
        return wall, cpu

    first: dict[str, float] = {}
    wall: dict[str, list[float]] = {"whole": [], "sliced": []}
    cpu: dict[str, list[float]] = {"whole": [], "sliced": []}
    holds: list[tuple[float, float]] = []
    for r in range(a.rounds + 1):
        for n in names[r % 100 :: 100]:  # 1 % of the queues: a put and a get
            qm.put1(n, b"y")
            q = qm.open(n, C.MQOO_INPUT_SHARED)
            q.get()
            q.close()
        clock.advance(15)
        t0, c0 = time.perf_counter(), time.process_time()
        made.families = list(collector.collect())
        collection = (time.perf_counter() - t0, time.process_time() - c0)
        bodies = {}
        for side, fn in sorted({"whole": whole, "sliced": sliced}.items(), reverse=bool(r % 2)):
            t0, c0 = time.perf_counter(), time.process_time()
            bodies[side] = fn()
            w, c = time.perf_counter() - t0 + collection[0], time.process_time() - c0 + collection[1]
            if r == 0:
                first[side] = w
            else:
                wall[side].append(w)
                cpu[side].append(c)
        assert _same(bodies["whole"], bodies["sliced"]), "the two bodies differ"
        holds.append(longest_hold())
    print(f"{a.queues:,} queues, {len(holding):,} holding messages; {a.rounds} rounds (medians)\n")
    print("| body | first scrape (s) | scrape, wall (s) | scrape, CPU (s) |")
    print("|---|---|---|---|")
    for side in ("whole", "sliced"):
        print(
            f"| {side} | {first[side]:.2f} | {statistics.median(wall[side]):.2f} | {statistics.median(cpu[side]):.2f} |"
        )
    walls, cpus = [h[0] * 1000 for h in holds], [h[1] * 1000 for h in holds]
    print(
        f"\nlock: {collector.largest_slice} queues at most per hold, {collector.slice_calls // (a.rounds + 1)} holds "
        f"a collection; the longest hold of each round's collection: CPU median {statistics.median(cpus):.2f} ms, "
        f"max {max(cpus):.2f} ms; wall median {statistics.median(walls):.2f} ms, max {max(walls):.2f} ms; piece "
        f"texts written {exposition.pieces_written:,}, kept {exposition.pieces_kept:,}"
    )
    qm.disconnect()
    e.close(abnormal=True)


def _same(x: bytes, y: bytes) -> bool:
    """The same body, byte for byte."""

    return x == y


if __name__ == "__main__":
    main()
