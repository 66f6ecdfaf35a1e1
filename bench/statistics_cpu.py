#!/usr/bin/env python
"""CPU time per MQI call with statistics and accounting off and on (issue 36, item 5), side by side.

    .venv/bin/python bench/statistics_cpu.py --before REF [--runs 4] [--messages 20000]

Each run measures, in a fresh process for each side and in turn: N non-persistent 1 KiB puts then N gets (raw MQI,
reused structures) on an in-process queue manager in memory, best of 5 passes, ``time.process_time`` per call.
The sides: ``before`` (the tree of REF, ``git archive``: without the statistics code), ``off`` (this checkout,
every switch OFF: IBM's default) and ``on`` (this checkout with STATMQI, STATQ, ACCTMQI and ACCTQ ON, so every call
is counted). CPU time per call is what a loaded machine does not blur as it blurs throughput. Not a test.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tarfile
import tempfile
from io import BytesIO
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

PROBE = r"""
import sys, time
from syncpoint.client import memory_queue_manager
from syncpoint.engine import SystemClock
from syncpoint.mqi import MQGMO, MQMD, MQOD, MQPMO
from syncpoint.mqi import constants as C
import syncpoint

n, on = int(sys.argv[1]), sys.argv[2] == "on"
e = memory_queue_manager("QB", clock=SystemClock(), dlq="SYSTEM.DEAD.LETTER.QUEUE")
admin = syncpoint.connect("QB", embedded=e)
admin.admin("define", "QLOCAL", "Q1", {"MAXDEPTH": 999_999_999})
if on:
    for name in ("SYSTEM.ADMIN.STATISTICS.QUEUE", "SYSTEM.ADMIN.ACCOUNTING.QUEUE"):
        admin.admin("define", "QLOCAL", name, {"MAXDEPTH": 999_999_999}, replace=True)  # defaults since events
    admin.admin("alter_qmgr", {"STATMQI": "ON", "QMSTATQ": "ON", "ACCTMQI": "ON", "QMACCTQ": "ON"})
app = syncpoint.connect("QB", embedded=e)
h = app.mqopen(MQOD(ObjectName=b"Q1"), C.MQOO_OUTPUT | C.MQOO_INPUT_AS_Q_DEF)
md, pmo, data = MQMD(Persistence=C.MQPER_NOT_PERSISTENT), MQPMO(Options=C.MQPMO_NO_SYNCPOINT), b"x" * 1024
best = float("inf")
for _ in range(5):
    t = time.process_time()
    for _ in range(n):
        md.MsgId = b"\0" * 24
        app.mqput(h, md, pmo, data)
    for _ in range(n):
        app.mqget(h, MQMD(), MQGMO(Options=C.MQGMO_NO_SYNCPOINT | C.MQGMO_NO_WAIT))
    best = min(best, (time.process_time() - t) / (2 * n))
print(f"{best * 1e6:.2f}")
"""


def measure(tree: Path, side: str, n: int) -> float:
    env = {"PYTHONPATH": str(tree / "src"), "PATH": "/usr/bin:/bin"}
    out = subprocess.run(
        [sys.executable, "-c", PROBE, str(n), side], capture_output=True, text=True, env=env, check=True
    ).stdout
    return float(out.strip())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--before", required=True, help="git ref of the tree without the statistics code")
    ap.add_argument("--runs", type=int, default=4)
    ap.add_argument("--messages", type=int, default=20_000)
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        data = subprocess.run(["git", "-C", str(ROOT), "archive", a.before], capture_output=True, check=True).stdout
        with tarfile.open(fileobj=BytesIO(data)) as tar:
            tar.extractall(Path(tmp) / "before", filter="data")
        before = Path(tmp) / "before"
        print("| run | before (µs/call) | statistics and accounting off | STATMQI, STATQ, ACCTMQI, ACCTQ on |")
        print("|---|---|---|---|")
        for r in range(a.runs):
            row = [
                measure(before, "off", a.messages),
                measure(ROOT, "off", a.messages),
                measure(ROOT, "on", a.messages),
            ]
            print(f"| {r + 1} | " + " | ".join(f"{v:.2f}" for v in row) + " |", flush=True)


if __name__ == "__main__":
    main()
