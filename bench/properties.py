#!/usr/bin/env python
"""A put with 10 message properties against a put with none, measured side by side in one run (issue 34, item 6:
"a put with 10 properties costs less than twice a put with none").

    .venv/bin/python bench/properties.py                  # embedded and served, 3 rounds
    .venv/bin/python bench/properties.py --rounds 5 --seconds 2 --no-server

Each row puts 1 KiB non-persistent messages outside syncpoint through the Pythonic API (``Queue.put``) on one
connection for the measured time, then gets them back (the gets are not timed: the row is the put). Rows with and
without properties alternate within every round, so a noisy machine slows both alike; the verdict compares their
medians. The served rows go to a ``syncpoint strmqm`` server over its Unix socket (the properties travel as the
put's fifth argument, docs/protocol.md).

This is not a test: it lives outside ``tests/`` and is never collected by pytest.
"""

# ruff: noqa: RUF001
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import syncpoint
from syncpoint.client import create_queue_manager, open_embedded
from syncpoint.mqi import constants as C

MSG = b"m" * 1024
QUEUE = "Q1"
TEN = {
    "orderId": "A-10023",
    "customer": "ACME Corp",
    "region": "emea",
    "priorityClass": (C.MQTYPE_INT32, 3),
    "amount": 1234.5,
    "currency": "EUR",
    "express": True,
    "retries": (C.MQTYPE_INT16, 0),
    "traceId": b"\x01\x02\x03\x04\x05\x06\x07\x08",
    "sequence": 42,
}


def rate(put: Callable[[], Any], drain: Callable[[], None], seconds: float) -> float:
    """Puts per second over ``seconds`` (the queue drained after, untimed)."""
    n = 0
    start = time.perf_counter()
    end = start + seconds
    while True:
        for _ in range(200):
            put()
        n += 200
        now = time.perf_counter()
        if now >= end:
            break
    elapsed = now - start
    drain()
    return n / elapsed


def measure(qm: Any, rounds: int, seconds: float) -> tuple[list[float], list[float]]:
    q = qm.open(QUEUE)

    def drain() -> None:
        while q.get_many(1000):
            pass

    none: list[float] = []
    ten: list[float] = []
    for _ in range(rounds):
        none.append(rate(lambda: q.put(MSG), drain, seconds))
        ten.append(rate(lambda: q.put(MSG, properties=TEN), drain, seconds))
    q.put(MSG, properties=TEN)  # the properties arrive whole
    got = q.get()
    assert got.properties == {k: (v[1] if type(v) is tuple else v) for k, v in TEN.items()}, got.properties
    return none, ten


def report(title: str, none: list[float], ten: list[float]) -> None:
    a, b = statistics.median(none), statistics.median(ten)
    runs = lambda xs: " / ".join(f"{x:,.0f}" for x in xs)  # noqa: E731
    ratio = a / b
    verdict = "pass" if ratio < 2 else "miss"
    print(f"| {title}: no properties | {a:,.0f} | {runs(none)} | |")
    print(f"| {title}: 10 properties | {b:,.0f} | {runs(ten)} | cost {ratio:.2f}× a put with none (< 2×): {verdict} |")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--seconds", type=float, default=1.0)
    ap.add_argument("--no-server", action="store_true", help="embedded rows only")
    args = ap.parse_args()
    print("| row | puts/s (median) | rounds | verdict |")
    print("|---|---:|---|---|")
    with tempfile.TemporaryDirectory(prefix="syncpoint-bench-props-") as tmp:
        home = Path(tmp)
        create_queue_manager("BENCH", home=home)
        qm = syncpoint.connect("BENCH", home=home)
        qm.admin("define", "QLOCAL", QUEUE, {"MAXDEPTH": 999_999_999})
        report("embedded", *measure(qm, args.rounds, args.seconds))
        qm.disconnect()
        open_embedded("BENCH", home=home).close()  # this process lets the queue manager go: the server takes it
        if args.no_server:
            return 0
        env = dict(os.environ, SYNCPOINT_HOME=str(home))
        cli = str(Path(sys.executable).parent / "syncpoint")
        subprocess.run([cli, "strmqm", "BENCH", "--port", "0"], env=env, check=True, capture_output=True)
        try:
            qm = syncpoint.connect("BENCH", home=home)
            report("server (Unix socket)", *measure(qm, args.rounds, args.seconds))
            qm.disconnect()
        finally:
            subprocess.run([cli, "endmqm", "-i", "BENCH"], env=env, capture_output=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
