"""Benchmark: scanning a deep queue for expired messages (REFRESH QMGR TYPE(EXPIRY) / EXPRYINT).

A queue holds N messages of which E carry an expiry that has passed. The scan looks only at messages with a
limited expiry (a deadline heap per queue), so its cost follows E, not N. For comparison the same run times a
full walk of the queue in delivery order — what a scan that visits every message would cost at least.

    .venv/bin/python bench/expiry_scan.py [--depth 1000000] [--expiring 1000]
"""

from __future__ import annotations

import argparse
import time

import syncpoint
from syncpoint.client import memory_queue_manager
from syncpoint.engine import FakeClock
from syncpoint.mqi import MQMD, MQPMO
from syncpoint.mqi import constants as C


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--depth", type=int, default=1_000_000)
    ap.add_argument("--expiring", type=int, default=1_000)
    args = ap.parse_args()
    clock = FakeClock()
    e = memory_queue_manager("BENCH", clock=clock)
    qm = syncpoint.connect("BENCH", embedded=e)
    qm.admin("define", "QLOCAL", "DEEP", {"MAXDEPTH": 999_999_999})
    h = qm.mqopen(syncpoint.mqi.MQOD(ObjectName=b"DEEP"), C.MQOO_OUTPUT)
    payload = b"x" * 64
    every = max(1, args.depth // max(1, args.expiring))
    t0 = time.perf_counter()
    for i in range(args.depth):
        md = MQMD(Expiry=10 if i % every == 0 else C.MQEI_UNLIMITED)
        qm.mqput(h, md, MQPMO(), payload)
    fill = time.perf_counter() - t0
    clock.advance(5)
    t0 = time.perf_counter()
    walked = sum(1 for _ in e.engine.queues["DEEP"].iter_from(None))
    walk = time.perf_counter() - t0
    t0 = time.perf_counter()
    discarded = qm.admin("refresh_expiry", "DEEP")
    scan = time.perf_counter() - t0
    print(f"{'what':<44}{'messages':>12}{'seconds':>12}")
    print(f"{'fill (non-persistent puts)':<44}{args.depth:>12,}{fill:>12.3f}")
    print(f"{'full walk in delivery order (a lower bound)':<44}{walked:>12,}{walk:>12.4f}")
    print(f"{'REFRESH QMGR TYPE(EXPIRY): discarded':<44}{discarded:>12,}{scan:>12.4f}")
    print(f"scan / walk = {scan / walk:.4f}")
    e.close()


if __name__ == "__main__":
    main()
