#!/usr/bin/env python
"""What the event messages cost the MQI path (issue 36, items 2 and 5): CPU time per MQI call, before and after,
measured side by side.

    .venv/bin/python bench/events_cost.py --before REF            # REF: the commit without these events
    .venv/bin/python bench/events_cost.py --before REF --runs 4 --messages 20000

"before" is the tree of ``REF`` (``git archive``, imported through PYTHONPATH), "after" this checkout. Each run
starts one process per tree and setting, in alternating order, that puts then gets ``--messages`` non-persistent
1 KiB messages on an in-process queue manager and reports ``time.process_time`` per MQI call (µs), the best of
five passes: CPU time, which the load of a shared machine blurs far less than throughput. Settings: events off
(PERFMEV, CONFIGEV, CMDEV DISABLED: the defaults) and on (PERFMEV ENABLED; the queue's QDPHIEV, QDPLOEV ENABLED
and QSVCIEV(HIGH) with a long QSVCINT, so the rules run on every call without an event being written). This is
not a test: it lives outside ``tests/``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from metrics_cost import ROOT, extract

_PROBE = r"""
import json, sys, time
import syncpoint
from syncpoint.client import memory_queue_manager
n, on = int(sys.argv[1]), sys.argv[2] == "on"
e = memory_queue_manager("QMB")
qm = syncpoint.connect("QMB", embedded=e)
attrs = {"MAXDEPTH": n + 10}
if on:
    qm.admin("alter_qmgr", {"PERFMEV": "ENABLED"})
    attrs.update({"QDPHIEV": "ENABLED", "QDPLOEV": "ENABLED", "QDEPTHHI": 100, "QDEPTHLO": 0,
                  "QSVCIEV": "HIGH", "QSVCINT": 999999999})
qm.admin("define", "QLOCAL", "BENCH.Q", attrs)
q = qm.open("BENCH.Q")
body = b"x" * 1024
best = float("inf")
for _ in range(5):
    t = time.process_time()
    for _ in range(n):
        q.put(body, persistent=False)
    for _ in range(n):
        q.get()
    best = min(best, (time.process_time() - t) / (2 * n) * 1e6)
print(json.dumps(best))
"""


def probe(tree: Path, messages: int, setting: str) -> float:
    env = {"PYTHONPATH": str(tree / "src"), "PATH": "/usr/bin:/bin"}
    out = subprocess.run(
        [sys.executable, "-c", _PROBE, str(messages), setting], env=env, capture_output=True, text=True, check=True
    )
    return float(json.loads(out.stdout))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--before", required=True, help="git ref of the tree without these events")
    ap.add_argument("--runs", type=int, default=4)
    ap.add_argument("--messages", type=int, default=20_000)
    a = ap.parse_args()
    columns = [("before", "off"), ("after", "off"), ("before", "on"), ("after", "on")]
    got: dict[tuple[str, str], list[float]] = {c: [] for c in columns}
    with tempfile.TemporaryDirectory() as tmp:
        trees = {"before": extract(a.before, Path(tmp) / "before"), "after": ROOT}
        print("| run | before, events off | after, events off | before, events on | after, events on |")
        print("|---|---|---|---|---|")
        for r in range(a.runs):
            order = columns if r % 2 == 0 else list(reversed(columns))
            row = {c: probe(trees[c[0]], a.messages, c[1]) for c in order}
            for c in columns:
                got[c].append(row[c])
            print(f"| {r + 1} | " + " | ".join(f"{row[c]:.2f}" for c in columns) + " |", flush=True)
        print("| median | " + " | ".join(f"{statistics.median(got[c]):.2f}" for c in columns) + " |")


if __name__ == "__main__":
    main()
