"""Benchmark: a message flow on Spark against a plain Python consumer loop doing the same work (issue 8 item 9).

The work: get a persistent 1 KiB JSON message, parse it, enrich it (net, tax, total), put the result (persistent),
exactly once. The loop uses syncpoint's client with one unit of work per message (get + put + MQCMIT: what an MQ
application does for exactly-once), and with one unit of work per 100 messages. The flow runs on local[1] and
local[2] with availableNow; its rate counts from the query's start to the drained queue (the SparkSession's
start-up is shown apart). Everything talks to the same queue-manager server (Unix socket).

    .venv/bin/python bench/flow.py [--messages 100000] [--masters local[1],local[2]] [--batch 2000]
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import syncpoint
from syncpoint.client import QueueManager, create_queue_manager
from syncpoint.flow import Flow, FlowMessage, MQInput, Output, run_flow, spark_session
from syncpoint.spark import Target

QM = "BENCHFLOW"
IN, OUT = "BENCH.IN", "BENCH.OUT"
TAX = {"FR": 0.20, "DE": 0.19, "ES": 0.21}


def enrich_order(order: dict[str, Any]) -> dict[str, Any]:
    net = round(order["qty"] * order["price"], 2)
    tax = round(net * TAX.get(order["country"], 0.0), 2)
    return {**order, "net": net, "tax": tax, "total": round(net + tax, 2)}


def flow_out(msg: FlowMessage) -> Output:
    return Output(enrich_order(msg.parsed), correl_id=msg.msg_id, persistent=True)


def body(i: int) -> bytes:
    order = {"id": f"O{i:08d}", "country": ("FR", "DE", "ES")[i % 3], "qty": i % 7 + 1, "price": 9.99}
    raw = json.dumps({**order, "pad": ""})
    data = json.dumps({**order, "pad": "x" * (1024 - len(raw))}).encode()
    assert len(data) == 1024
    return data


def load(qm: QueueManager, n: int, run: int) -> tuple[str, str]:
    """Fresh queues per run (a finished Spark application's sessions may still be closing on the old ones)."""
    src, dst = f"{IN}.{run}", f"{OUT}.{run}"
    qm.admin("define", "QLOCAL", src, {"MAXDEPTH": 10_000_000})
    qm.admin("define", "QLOCAL", dst, {"MAXDEPTH": 10_000_000})
    q = qm.open(src)
    payload = [body(i) for i in range(n)]
    for i in range(0, n, 1000):
        for b in payload[i : i + 1000]:
            q.put(b, syncpoint=True, persistent=True, format="MQSTR")
        qm.commit()
    q.close()
    return src, dst


def loop(qm: QueueManager, commit_every: int, src_name: str, dst_name: str) -> float:
    src, dst = qm.open(src_name), qm.open(dst_name)
    t0 = time.perf_counter()
    n = 0
    while True:
        m = src.get_or_none(syncpoint=True)
        if m is None:
            break
        out = json.dumps(enrich_order(json.loads(m.data)), separators=(",", ":"))
        dst.put(out, syncpoint=True, persistent=True, correl_id=m.msg_id)
        n += 1
        if n % commit_every == 0:
            qm.commit()
    qm.commit()
    rate = n / (time.perf_counter() - t0)
    src.close()
    dst.close()
    return rate


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--messages", type=int, default=100_000)
    ap.add_argument("--masters", default="local[1],local[2]")
    ap.add_argument("--batch", type=int, default=2000, help="maxMessagesPerBatch")
    ap.add_argument("--cpus", default="auto", help="the server's --cpus (default auto, as strmqm)")
    a = ap.parse_args()
    home = Path(tempfile.mkdtemp(prefix="bench-flow-"))
    create_queue_manager(QM, dlq="SYSTEM.DEAD.LETTER.QUEUE", home=home)
    server = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "syncpoint.cli._serve",
            QM,
            "--home",
            str(home),
            "--no-tcp",
            "--no-command-server",
            "--cpus",
            a.cpus,
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    rows: list[tuple[str, float, str]] = []
    try:
        from syncpoint.server import server_info

        while server_info(QM, home) is None:
            time.sleep(0.1)
        qm = syncpoint.connect(QM, home=home, appl_name="bench.flow")
        run = 0
        for every in (1, 100):
            run += 1
            src, dst = load(qm, a.messages, run)
            rate = loop(qm, every, src, dst)
            rows.append((f"Python loop, 1 unit of work per {every} message(s)", rate, ""))
            print(f"{rows[-1][0]}: {rate:,.0f} msg/s", flush=True)
        for master in a.masters.split(","):
            run += 1
            src, dst = load(qm, a.messages, run)
            t0 = time.perf_counter()
            spark = spark_session(master, "bench-flow")
            started = time.perf_counter() - t0
            flow = Flow(MQInput(src, parse="json"), out=flow_out, output=dst, max_messages_per_batch=a.batch)
            t1 = time.perf_counter()
            totals = run_flow(
                flow, Target(QM, home=str(home)), home / f"ckpt-{master}", available_now=True, spark=spark
            )
            elapsed = time.perf_counter() - t1
            spark.stop()
            assert qm.open(dst).depth == a.messages and qm.open(src).depth == 0, "the flow lost or duplicated messages"
            rate = totals.outputs / elapsed
            rows.append((f"flow on Spark {master}, exactly-once", rate, f"session start {started:.1f} s"))
            print(f"{rows[-1][0]}: {rate:,.0f} msg/s ({rows[-1][2]})", flush=True)
        qm.disconnect()
    finally:
        server.terminate()
        server.wait()
        shutil.rmtree(home, ignore_errors=True)
    base = rows[0][1]
    print(f"\n{a.messages:,} persistent 1 KiB JSON messages, parse + enrich + put")
    print(f"{'run':<52} {'msg/s':>10} {'vs loop':>8}")
    for name, rate, note in rows:
        print(f"{name:<52} {rate:>10,.0f} {rate / base:>7.2f}x  {note}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
