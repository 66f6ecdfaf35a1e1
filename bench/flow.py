"""Benchmark: a message flow on Spark against a plain Python consumer loop doing the same work (issues 8 and 22).

The work: get a persistent 1 KiB JSON message, parse it, enrich it (net, tax, total), put the result (persistent),
exactly once. Rows of the table, all against the same queue-manager server (Unix socket; ``--cpus all`` unless
``--cpus`` says otherwise: the server shares the machine's CPUs with Spark, see docs/protocol.md), in one run:

- the Python loop with syncpoint's client, one unit of work per message (get + put + MQCMIT: what an MQ
  application does for exactly-once), and one unit of work per 100 messages;
- the flow on Spark local[1] and local[2] with availableNow (the rate counts from the query's start to the
  drained queue; the SparkSession's start-up is shown apart), with the sink's commit on the driver and with
  per-partition commits on the executors (``--commits sink,partition``);
- the queue manager's own rate: a producer process putting 100 per unit of work and a consumer process getting
  100 per unit of work at the same time (as bench/server.py row 2), messages through per second;
- the flow's end-to-end latency, put on the input queue to output committed, p50 and p99, for a trickle of
  ``--rate`` messages/s (default 20) for ``--trickle`` seconds, with the flow's default trigger;
- the flow on the last master with its input and output queues SHARED in a queue-sharing group of two members
  (``syncpoint strmqm`` processes) on a PostgreSQL the run starts (tests/pg.py, fsync on), each partition
  reading through one member (Target members; ``--shared-count`` messages, default ``--count``; skip with
  ``--skip shared``).

``--profile`` also prints where a micro-batch's time goes (syncpoint's parts from timestamps each process
writes, and Spark's own durations from the query's progress), per batch.

    .venv/bin/python bench/flow.py [--count 100000] [--masters local[1],local[2]] [--batch 5000] [--profile]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import syncpoint
from syncpoint.client import QueueManager, create_queue_manager
from syncpoint.flow import Flow, FlowMessage, MQInput, Output, build_query, run_flow, spark_session
from syncpoint.spark import Target

QM = "BENCHFLOW"
IN, OUT = "BENCH.IN", "BENCH.OUT"
TAX = {"FR": 0.20, "DE": 0.19, "ES": 0.21}
PROFILE_ENV = "SYNCPOINT_SPARK_PROFILE"


def enrich_order(order: dict[str, Any]) -> dict[str, Any]:
    net = round(order["qty"] * order["price"], 2)
    tax = round(net * TAX.get(order["country"], 0.0), 2)
    return {**order, "net": net, "tax": tax, "total": round(net + tax, 2)}


def flow_out(msg: FlowMessage) -> Output:
    return Output(enrich_order(msg.parsed), correl_id=msg.msg_id, persistent=True)


def body(i: int, t: float = 0.0) -> bytes:
    order = {"id": f"O{i:08d}", "country": ("FR", "DE", "ES")[i % 3], "qty": i % 7 + 1, "price": 9.99, "t": t}
    raw = json.dumps({**order, "pad": ""})
    data = json.dumps({**order, "pad": "x" * (1024 - len(raw))}).encode()
    assert len(data) == 1024
    return data


def define(qm: QueueManager, *names: str) -> None:
    for name in names:
        qm.admin("define", "QLOCAL", name, {"MAXDEPTH": 10_000_000})


def load(qm: QueueManager, n: int, run: int) -> tuple[str, str]:
    """Fresh queues per run (a finished Spark application's sessions may still be closing on the old ones)."""
    src, dst = f"{IN}.{run}", f"{OUT}.{run}"
    define(qm, src, dst)
    q = qm.open(src)
    payload = [body(i) for i in range(n)]
    for i in range(0, n, 1000):
        q.put_many(payload[i : i + 1000], syncpoint=True, commit=True, persistent=True, format="MQSTR")
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


# -- the queue manager's own rate: a producer and a consumer process, 100 per unit of work -------------------
def worker(role: str, home: str, queue: str, n: int) -> None:
    qm = syncpoint.connect(QM, home=home, appl_name=f"bench.flow.{role}")
    q = qm.open(queue)
    data = body(0)
    done = 0
    if role == "producer":
        while done < n:
            k = min(100, n - done)
            q.put_many([data] * k, persistent=True, syncpoint=True, commit=True)
            done += k
    else:
        held = 0
        while done < n:
            got = q.get_many(100, syncpoint=True, commit_first=held > 0)
            held = len(got)
            done += held
            if not got:
                qm.commit()
                held = 0
                time.sleep(0.001)
        qm.commit()
    qm.disconnect()
    print(time.time(), flush=True)


def qm_rate(home: Path, n: int, run: int) -> float:
    queue = f"{IN}.QM.{run}"
    qm = syncpoint.connect(QM, home=home, appl_name="bench.flow")
    define(qm, queue)
    qm.disconnect()
    t0 = time.time()
    procs = [
        subprocess.Popen(
            [sys.executable, __file__, "--worker", role, "--home", str(home), "--queue", queue, "--count", str(n)],
            stdout=subprocess.PIPE,
        )
        for role in ("producer", "consumer")
    ]
    ends = [float(p.communicate()[0].split()[-1]) for p in procs]
    return n / (ends[1] - t0)


# -- where a batch's time goes ------------------------------------------------------------------------------
def profile_table(path: Path, spark_ms: dict[str, int]) -> list[str]:
    parts: dict[str, list[float]] = {}
    if path.exists():
        for line in path.read_text().splitlines():
            d = json.loads(line)
            parts.setdefault(d["part"], []).append(d["t1"] - d["t0"])
    batches = max(1, spark_ms.get("batches", 0))
    out = [f"  per micro-batch ({batches} batches with data), ms:"]
    for k in ("triggerExecution", "latestOffset", "queryPlanning", "walCommit", "addBatch", "commitOffsets"):
        if k in spark_ms:
            out.append(f"    spark {k:<34} {spark_ms[k] / batches:>9.1f}")
    for k in sorted(parts):
        out.append(f"    {k:<40} {1000 * sum(parts[k]) / batches:>9.1f}   ({len(parts[k])} spans)")
    return out


# -- latency: a trickle of messages through a continuously running flow ---------------------------------------
def trickle(
    home: Path, master: str, rate: float, seconds: float, batch: int | None, run: int
) -> tuple[float, float, int]:
    src, dst = f"{IN}.{run}", f"{OUT}.{run}"
    qm = syncpoint.connect(QM, home=home, appl_name="bench.flow")
    define(qm, src, dst)
    spark = spark_session(master, "bench-flow-latency")
    flow = Flow(MQInput(src, parse="json"), out=flow_out, output=dst, max_messages_per_batch=batch)
    query = build_query(spark, flow, Target(QM, home=str(home)), home / f"ckpt-latency-{run}")
    latencies: list[float] = []
    out_q = qm.open(dst)
    in_q = syncpoint.connect(QM, home=home, appl_name="bench.flow.put").open(src)
    try:
        in_q.put(body(-1, time.time()), persistent=True)  # warm-up: the first batch of a query is slow
        out_q.get(wait=120.0)
        n = int(rate * seconds)
        stop = threading.Event()

        def putter() -> None:
            t_start = time.time()
            for i in range(n):
                delay = t_start + i / rate - time.time()
                if delay > 0:
                    time.sleep(delay)
                in_q.put(body(i, time.time()), persistent=True)
            stop.set()

        th = threading.Thread(target=putter)
        th.start()
        while len(latencies) < n:
            m = out_q.get_or_none(wait=30.0)
            if m is None:
                break
            latencies.append(time.time() - json.loads(m.data)["t"])
        th.join()
    finally:
        query.stop()
        spark.stop()
        qm.disconnect()
    latencies.sort()
    if not latencies:
        return float("nan"), float("nan"), 0
    p99 = latencies[min(len(latencies) - 1, int(0.99 * len(latencies)))]
    return statistics.median(latencies), p99, len(latencies)


def shared_row(master: str, n: int, batch: int | None) -> tuple[float, str]:
    """The flow over a shared input queue (and a shared output queue) read through two members of a group."""
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))  # tests/pg.py
    from pg import PostgresServer

    syncpoint_cmd = str(Path(sys.executable).parent / "syncpoint")
    pg = PostgresServer(durable=True).start()
    home = Path(tempfile.mkdtemp(prefix="bench-flow-qsg-"))
    env = dict(os.environ, SYNCPOINT_HOME=str(home))
    members = ("QMA", "QMB")
    try:
        url = pg.new_database("flow")
        for m in members:
            for args in (["crtmqm", "-qsg", "BF", "--shared", url, m], ["strmqm", m, "--port", "0"]):
                r = subprocess.run([syncpoint_cmd, *args], env=env, capture_output=True, text=True, timeout=300)
                if r.returncode != 0:
                    raise SystemExit(f"syncpoint {args[0]} failed: {r.stderr.strip()}")
        qm = syncpoint.connect("QMA", home=home, appl_name="bench.flow")
        src, dst = "BENCH.SHARED.IN", "BENCH.SHARED.OUT"
        for name in (src, dst):
            qm.admin("define", "QLOCAL", name, {"QSGDISP": "SHARED", "MAXDEPTH": 999_999_999})
        q = qm.open(src)
        payload = [body(i) for i in range(n)]
        for i in range(0, n, 1000):
            q.put_many(payload[i : i + 1000], syncpoint=True, commit=True, persistent=True, format="MQSTR")
        q.close()
        spark = spark_session(master, "bench-flow-shared")
        flow = Flow(MQInput(src, parse="json"), out=flow_out, output=dst, max_messages_per_batch=batch)
        target = Target("QMA", home=str(home), members=members)
        t1 = time.perf_counter()
        totals = run_flow(flow, target, home / "ckpt-shared", available_now=True, spark=spark)
        elapsed = time.perf_counter() - t1
        actual = spark.sparkContext.master
        spark.stop()
        assert qm.open(dst).depth == n and qm.open(src).depth == 0, "the flow lost or duplicated messages"
        qm.disconnect()
        note = f"{n:,} messages, {totals.batches} batches, {actual}, PostgreSQL fsync on"
        steady = totals.steady_rate()
        if steady is not None:
            note += f", {steady:,.0f} msg/s after the first batch"
        return totals.outputs / elapsed, note
    finally:
        for m in members:
            subprocess.run([syncpoint_cmd, "endmqm", "-i", m], env=env, capture_output=True, timeout=120)
        pg.stop()
        shutil.rmtree(home, ignore_errors=True)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--count", "--messages", dest="count", type=int, default=100_000)
    ap.add_argument("--masters", default="local[1],local[2]")
    ap.add_argument(
        "--batch",
        type=int,
        default=None,
        help="the flow's maxMessagesPerBatch (default: the flow's: 5000 per unit of work)",
    )
    ap.add_argument("--commits", default="sink,partition", help="the flow's commit modes to run: sink,partition")
    ap.add_argument(
        "--cpus",
        default="all",
        help="the server's --cpus (default all: the server shares the CPUs with Spark's processes, where "
        "docs/protocol.md advises all; auto pins it to one CPU, as strmqm does by default)",
    )
    ap.add_argument("--rate", type=float, default=20.0, help="the latency trickle's messages/s")
    ap.add_argument("--trickle", type=float, default=30.0, help="the latency trickle's seconds (0: skip it)")
    ap.add_argument("--skip", default="", help="rows to skip: loop1,loop100,qm,shared")
    ap.add_argument("--shared-count", type=int, default=0, help="messages of the shared-queue row (default --count)")
    ap.add_argument("--profile", action="store_true", help="print where a micro-batch's time goes")
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    ap.add_argument("--home", help=argparse.SUPPRESS)
    ap.add_argument("--queue", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.worker:
        worker(a.worker, a.home, a.queue, a.count)
        return 0
    skip = set(a.skip.split(","))
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
    rows: dict[str, tuple[str, float, str]] = {}
    profiles: list[str] = []
    latency: tuple[float, float, int] | None = None
    try:
        from syncpoint.server import server_info

        while server_info(QM, home) is None:
            time.sleep(0.1)
        qm = syncpoint.connect(QM, home=home, appl_name="bench.flow")
        run = 0
        for every in (1, 100):
            if f"loop{every}" in skip:
                continue
            run += 1
            src, dst = load(qm, a.count, run)
            rate = loop(qm, every, src, dst)
            rows[f"loop{every}"] = (f"Python loop, 1 unit of work per {every} message(s)", rate, "")
            print(f"{rows[f'loop{every}'][0]}: {rate:,.0f} msg/s", file=sys.stderr, flush=True)
        for master, commit in [(m, c) for c in a.commits.split(",") for m in a.masters.split(",")]:
            key = master if commit == "sink" else f"{master}/{commit}"
            run += 1
            src, dst = load(qm, a.count, run)
            prof = home / f"profile-{run}.jsonl"
            if a.profile:  # Spark's workers inherit the variable from the JVM started with the first session
                os.environ[PROFILE_ENV] = str(home / "profile.jsonl")
            t0 = time.perf_counter()
            spark = spark_session(master, "bench-flow")
            started = time.perf_counter() - t0
            actual = spark.sparkContext.master
            flow = Flow(
                MQInput(src, parse="json"), out=flow_out, output=dst, max_messages_per_batch=a.batch, commit=commit
            )
            t1 = time.perf_counter()
            totals = run_flow(flow, Target(QM, home=str(home)), home / f"ckpt-{run}", available_now=True, spark=spark)
            elapsed = time.perf_counter() - t1
            spark.stop()
            if a.profile and (home / "profile.jsonl").exists():
                (home / "profile.jsonl").rename(prof)  # the next run's parts go to a new file
            assert qm.open(dst).depth == a.count and qm.open(src).depth == 0, "the flow lost or duplicated messages"
            rate = totals.outputs / elapsed
            steady = totals.steady_rate() if hasattr(totals, "steady_rate") else None
            note = f"{totals.batches} batches, {actual}, session start {started:.1f} s"
            batches = getattr(totals, "spark_batches", {})
            if batches:
                note += f", first batch {batches[min(batches)] / 1000:.1f} s"
            if steady is not None:
                note += f", {steady:,.0f} msg/s after the first batch"
            label = "" if commit == "sink" else ", commit per partition"
            rows[key] = (f"flow on Spark {master}, exactly-once{label}", rate, note)
            print(f"{rows[key][0]}: {rate:,.0f} msg/s ({note})", file=sys.stderr, flush=True)
            if a.profile:
                profiles += [f"flow on {key}:", *profile_table(prof, getattr(totals, "spark_ms", {}))]
        if "qm" not in skip:
            run += 1
            rate = qm_rate(home, a.count, run)
            rows["qm"] = ("queue manager put + get, 100 per unit of work", rate, "a producer and a consumer process")
            print(f"{rows['qm'][0]}: {rate:,.0f} msg/s", file=sys.stderr, flush=True)
        if a.trickle > 0:
            run += 1
            master = a.masters.split(",")[-1]
            latency = trickle(home, master, a.rate, a.trickle, a.batch, run)
        if "shared" not in skip:
            master = a.masters.split(",")[-1]
            n = a.shared_count or a.count
            rate, note = shared_row(master, n, a.batch)
            rows["shared"] = (f"flow on {master}, input SHARED, 2 members", rate, note)
            print(f"{rows['shared'][0]}: {rate:,.0f} msg/s ({note})", file=sys.stderr, flush=True)
        qm.disconnect()
    finally:
        server.terminate()
        server.wait()
        shutil.rmtree(home, ignore_errors=True)
    per_batch = a.batch or "the flow's default (5000 per unit of work)"
    print(f"\n{a.count:,} persistent 1 KiB JSON messages, parse + enrich + put; maxMessagesPerBatch {per_batch}")
    masters = a.masters.split(",")
    loop1 = rows.get("loop1", ("", 0.0, ""))[1]
    loop100 = rows.get("loop100", ("", 0.0, ""))[1]
    qmr = rows.get("qm", ("", 0.0, ""))[1]
    order = ["loop1", "loop100", *[m if c == "sink" else f"{m}/{c}" for c in a.commits.split(",") for m in masters]]
    order += ["qm", "shared"]
    width = max([len("run"), *(len(rows[k][0]) for k in order if k in rows)])  # every row's name fits
    print(f"{'run':<{width}} {'msg/s':>9} {'vs loop':>8} {'vs loop@100':>12} {'vs QM':>7}")
    for key in order:
        if key not in rows:
            continue
        name, rate, note = rows[key]

        def ratio(base: float, rate: float = rate) -> str:
            return f"{rate / base:.2f}x" if base else "-"

        print(f"{name:<{width}} {rate:>9,.0f} {ratio(loop1):>8} {ratio(loop100):>12} {ratio(qmr):>7}  {note}")
    for c in a.commits.split(","):
        ks = [m if c == "sink" else f"{m}/{c}" for m in masters[:2]]
        if len(ks) == 2 and all(k in rows for k in ks):
            print(f"{ks[1]} / {ks[0]}: {rows[ks[1]][1] / rows[ks[0]][1]:.2f}x")
    if latency is not None:
        p50, p99, n = latency
        print(
            f"latency put -> output committed, {a.rate:g} msg/s for {a.trickle:g} s on {a.masters.split(',')[-1]}, "
            f"default trigger: p50 {1000 * p50:,.0f} ms, p99 {1000 * p99:,.0f} ms ({n} messages)"
        )
    for line in profiles:
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
