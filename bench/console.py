#!/usr/bin/env python
"""The web console at scale: how long its pages take with 10,000 queues and a queue of 1,000,000 messages.

    .venv/bin/python bench/console.py                       # 10,000 queues, 1,000,000 messages
    .venv/bin/python bench/console.py --queues 2000 --messages 100000

An in-memory queue manager (the console's functions run over a ``syncpoint.client`` connection, as in the server
process) is filled with ``--queues`` local queues, one queue of ``--messages`` 100-byte non-persistent messages and
a tenth as many dead letters (at most 10,000); then each page the console polls is timed (median of 5): the first
and the last page of the queue list, the first page of the big queue's messages, a page 10,000 messages in and one
half-way, the dead-letter workbench's first page. This is not a test: it lives outside ``tests/``.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from typing import Any

import syncpoint
from syncpoint.console import dead_letters, message_page, queue_page
from syncpoint.dlq import dead_letter
from syncpoint.mqi import MQMD
from syncpoint.mqi import constants as C

DLQ = "SYSTEM.DEAD.LETTER.QUEUE"


def timed(fn: Callable[[], Any], rounds: int = 5) -> float:
    times = []
    for _ in range(rounds):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--queues", type=int, default=10_000)
    ap.add_argument("--messages", type=int, default=1_000_000)
    args = ap.parse_args()
    mqm = syncpoint.memory_queue_manager("BENCH", dlq=DLQ)
    qm = syncpoint.connect("BENCH", embedded=mqm)
    t = time.perf_counter()
    for i in range(args.queues):
        qm.admin("define", "QLOCAL", f"APP.Q{i:05d}", {})
    qm.admin("define", "QLOCAL", "BIG.Q", {"MAXDEPTH": 999_999_999})
    qm.admin("alter", "QLOCAL", DLQ, {"MAXDEPTH": 999_999_999})
    print(f"{args.queues} queues defined in {time.perf_counter() - t:.1f} s")
    t = time.perf_counter()
    body = b"x" * 100
    with qm.open("BIG.Q", C.MQOO_OUTPUT) as q:
        for start in range(0, args.messages, 10_000):
            q.put_many([body] * min(10_000, args.messages - start))
    for _ in range(min(args.messages // 10, 10_000)):
        dead_letter(qm, MQMD(Format=C.MQFMT_STRING), body, C.MQRC_Q_FULL, dest_q="BIG.Q", syncpoint=False)
    print(f"{args.messages} messages put in {time.perf_counter() - t:.1f} s")
    last = max(0, args.queues - 50)
    rows = [
        ("queue list, first page (50 queues)", lambda: queue_page(qm, "*", 0, 50)),
        (f"queue list, page at {last}", lambda: queue_page(qm, "*", last, 50)),
        ("queue list, filtered APP.Q099*", lambda: queue_page(qm, "APP.Q099*", 0, 50)),
        (f"messages of BIG.Q ({args.messages}), first page", lambda: message_page(qm, "BIG.Q", 0, 50)),
        ("messages of BIG.Q, page at 10,000", lambda: message_page(qm, "BIG.Q", 10_000, 50)),
        (f"messages of BIG.Q, page at {args.messages // 2}", lambda: message_page(qm, "BIG.Q", args.messages // 2, 50)),
        ("dead-letter workbench, first 200", lambda: dead_letters(qm, DLQ, 0, 200)),
    ]
    print(f"{'page':<48} {'median':>10}")
    for name, fn in rows:
        print(f"{name:<48} {timed(fn) * 1000:>8.1f} ms")
    qm.disconnect()
    mqm.close()


if __name__ == "__main__":
    main()
