#!/usr/bin/env python
"""What the metrics cost the MQI path (issue 36, item 5): bench rows before and after, measured side by side.

    .venv/bin/python bench/metrics_cost.py --before REF          # REF: the commit without the metrics
    .venv/bin/python bench/metrics_cost.py --before REF --rounds 3 --seconds 5
    .venv/bin/python bench/metrics_cost.py --statistics          # this checkout: STATMQI/STATQ/ACCTMQI off vs on

With ``--statistics`` both sides are this checkout: "off" as created (every statistics and accounting switch OFF,
IBM's default), "on" with STATMQI(ON) STATQ(ON) ACCTMQI(ON) ACCTQ(ON) set before the rows connect (through
SYNCPOINT_BENCH_QMGR_ATTRS, which bench/server.py and bench/embedded.py read), so every call is counted.

"before" is the tree of ``REF`` (``git archive``, imported through PYTHONPATH), "after" this checkout. Each round
runs every row once with each, in alternating order: server rows 1-3 (bench/server.py, syncpoint only when
RabbitMQ is missing) and embedded rows 3a and 5r (bench/embedded.py). While an "after" server row runs, a
scraper reads /metrics once a second (Prometheus' usual interval is 15-60 s: this is harsher). The table shows
the medians and the after/before ratio. This is not a test: it lives outside ``tests/``.
"""

from __future__ import annotations

import argparse
import re
import statistics
import subprocess
import sys
import tarfile
import tempfile
import threading
import urllib.request
from io import BytesIO
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
METRICS_URL = "http://127.0.0.1:9157/metrics"  # bench/server.py's strmqm keeps the default metrics port


def extract(ref: str, into: Path) -> Path:
    data = subprocess.run(["git", "-C", str(ROOT), "archive", ref], capture_output=True, check=True).stdout
    with tarfile.open(fileobj=BytesIO(data)) as tar:
        tar.extractall(into, filter="data")
    return into


def scrape_while(stop: threading.Event, counts: list[int]) -> None:
    while not stop.wait(1.0):
        try:
            with urllib.request.urlopen(METRICS_URL, timeout=5) as r:
                r.read()
            counts[0] += 1
        except OSError:
            pass


STATISTICS_ON = '{"STATMQI": "ON", "QMSTATQ": "ON", "ACCTMQI": "ON", "QMACCTQ": "ON"}'


def run_rows(
    tree: Path, kind: str, rows: str, seconds: float, scrape: bool, extra: dict[str, str] | None = None
) -> dict[str, float]:
    """messages/s by row label, from the bench's markdown table."""
    env = {"PYTHONPATH": str(tree / "src"), "PATH": str(Path(sys.executable).parent) + ":/usr/bin:/bin"}
    env.update(extra or {})
    if kind == "server":
        cmd = [sys.executable, str(tree / "bench" / "server.py"), "--rows", rows, "--rounds", "1"]
        cmd += ["--seconds", str(seconds), "--plain"]
    else:
        cmd = [sys.executable, str(tree / "bench" / "embedded.py"), "--rows", rows, "--rounds", "1"]
        cmd += ["--duration", str(seconds), "--plain"]
    stop, counts = threading.Event(), [0]
    scraper = threading.Thread(target=scrape_while, args=(stop, counts), daemon=True)
    if scrape:
        scraper.start()
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=1800).stdout
    finally:
        stop.set()
    if scrape:
        scraper.join()
    rates: dict[str, float] = {}
    for line in out.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) < 2 or not re.match(r"^\d+[a-z]?\b", cells[0]):
            continue
        numbers = [float(n.replace(",", "")) for c in cells[1:] for n in re.findall(r"^[\d,]+(?:\.\d+)?$", c)]
        if numbers:
            rates[f"{kind} {cells[0]}"] = numbers[0]
    if scrape and kind == "server" and counts[0] == 0:
        print("warning: /metrics did not answer during the server rows (port 9157 taken?)", file=sys.stderr)
    return rates


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--before", help="git ref of the tree without the metrics")
    ap.add_argument("--statistics", action="store_true", help="compare statistics and accounting off and on")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--seconds", type=float, default=5.0)
    a = ap.parse_args()
    if not a.statistics and not a.before:
        ap.error("give --before REF, or --statistics")
    results: dict[str, dict[str, list[float]]] = {"before": {}, "after": {}}
    extra = {"before": {}, "after": {"SYNCPOINT_BENCH_QMGR_ATTRS": STATISTICS_ON} if a.statistics else {}}
    with tempfile.TemporaryDirectory() as tmp:
        before = ROOT if a.statistics else extract(a.before, Path(tmp) / "before")
        trees = {"before": before, "after": ROOT}
        for r in range(a.rounds):
            order = ["before", "after"] if r % 2 == 0 else ["after", "before"]
            for kind, rows in (("server", "1,2,3"), ("embedded", "3a,5r")):
                for side in order:
                    scrape = side == "after" and not a.statistics
                    got = run_rows(trees[side], kind, rows, a.seconds, scrape, extra[side])
                    for row, rate in got.items():
                        results[side].setdefault(row, []).append(rate)
                    print(f"round {r + 1} {side} {kind}: {got}", file=sys.stderr, flush=True)
    if a.statistics:
        print("| row | statistics and accounting off (msg/s) | STATMQI, STATQ, ACCTMQI, ACCTQ on (msg/s) | on / off |")
    else:
        print("| row | before (msg/s) | after, metrics on (msg/s) | after / before |")
    print("|---|---|---|---|")
    for row in sorted(results["before"]):
        b = statistics.median(results["before"][row])
        after = results["after"].get(row)
        if not after:
            continue
        m = statistics.median(after)
        print(f"| {row} | {b:,.0f} | {m:,.0f} | {m / b:.2f} |")


if __name__ == "__main__":
    main()
