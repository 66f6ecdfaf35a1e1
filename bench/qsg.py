#!/usr/bin/env python
"""Queue-sharing groups on PostgreSQL: a shared queue through 1, 2 and 4 members against one PostgreSQL, and in
the same run the peer — a plain ``SELECT … FOR UPDATE SKIP LOCKED`` table queue driven by psycopg with the same
clients.

    .venv/bin/python bench/qsg.py                      # members 1,2,4; batches 1 and 100; 10 s a row
    .venv/bin/python bench/qsg.py --seconds 3 --members 1,2

1 KiB persistent messages. ``--clients`` producer processes and as many consumer processes run at once, spread
round-robin over the members (the peer's clients all talk to PostgreSQL). Rows:

* batch 1 — syncpoint: each put and each get outside syncpoint, durable before it returns; peer: one INSERT /
  one ``DELETE … WHERE id = (SELECT … FOR UPDATE SKIP LOCKED LIMIT 1)`` per autocommit transaction.
* batch 100 — syncpoint: 100 puts in syncpoint then MQCMIT (``put_many(commit=True)``), 100 gets in syncpoint
  then MQCMIT (``get_many(commit_first=True)``); peer: 100 INSERTs in one transaction, one DELETE of up to 100
  rows.

messages/s is what went through the queue (the consumers' count over the measured window, which opens once every
client is connected). PostgreSQL's own commits/s over the same window is the limit the group runs into: the
transactions that wrote (its transaction-id counter, exact), and ``pg_stat_database.xact_commit`` (read-only ones
too, reported by each backend at most once a second); messages per PG commit is how many messages each writing
commit carried. Member i runs on CPU i mod CPUs (``--member-cpus``). PostgreSQL runs with fsync on (tests/pg.py,
``durable``).
This is not a test: it lives outside ``tests/`` and is never collected by pytest.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve()
sys.path.insert(0, str(HERE.parent.parent / "tests"))  # tests/pg.py: the PostgreSQL server the tests use

MSG = b"m" * 1024
QUEUE = "BENCH.SHARED"
SYNCPOINT = str(Path(sys.executable).parent / "syncpoint")


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def run(home: Path, *args: str) -> None:
    env = dict(os.environ, SYNCPOINT_HOME=str(home))
    r = subprocess.run([SYNCPOINT, *args], env=env, capture_output=True, text=True, timeout=300)
    if r.returncode != 0:
        raise SystemExit(f"syncpoint {args[0]} failed: {r.stderr.strip()}")


def wait_for_window(ready: Any, go: Any, window: Any) -> float:
    """Tell the bench this client is connected, wait for every client, and return the window's end."""
    ready.put(1)
    go.wait()
    return float(window.value)


# -- the clients (each in its own process) -------------------------------------------------------------------
def syncpoint_client(role: str, home: str, member: str, batch: int, ready: Any, go: Any, window: Any, out: Any) -> None:
    os.environ["SYNCPOINT_HOME"] = home
    import syncpoint
    from syncpoint.mqi import MQMIError

    qm = syncpoint.connect(member)
    q = qm.open(QUEUE)
    count = 0
    stop = wait_for_window(ready, go, window)
    while time.time() < stop:
        if role == "put":
            if batch == 1:
                q.put(MSG, persistent=True)
            else:
                q.put_many([MSG] * batch, syncpoint=True, commit=True, persistent=True)
            count += batch
        elif batch == 1:
            try:
                q.get(wait=0.2)
                count += 1
            except MQMIError:
                pass
        else:
            got = q.get_many(batch, syncpoint=True, commit_first=True)
            count += len(got)
            if not got:
                time.sleep(0.001)
    if role == "get" and batch > 1:
        qm.commit()
    qm.disconnect()
    out.put((role, count))


def peer_client(role: str, url: str, batch: int, ready: Any, go: Any, window: Any, out: Any) -> None:
    import psycopg

    conn = psycopg.connect(url, autocommit=True)
    count = 0
    stop = wait_for_window(ready, go, window)
    while time.time() < stop:
        if role == "put":
            if batch == 1:
                conn.execute("INSERT INTO peer_q (payload) VALUES (%s)", (MSG,))
            else:
                with conn.transaction():
                    conn.cursor().executemany("INSERT INTO peer_q (payload) VALUES (%s)", [(MSG,)] * batch)
            count += batch
        else:
            rows = conn.execute(
                "DELETE FROM peer_q WHERE id IN (SELECT id FROM peer_q ORDER BY id FOR UPDATE SKIP LOCKED LIMIT %s) "
                "RETURNING payload",
                (batch,),
            ).fetchall()
            count += len(rows)
            if not rows:
                time.sleep(0.001)
    conn.close()
    out.put((role, count))


# -- measuring -----------------------------------------------------------------------------------------------
def commits(url: str) -> tuple[int, int]:
    """(transactions that wrote: the next transaction id, exact at once; PostgreSQL's xact_commit, which each
    backend reports at most once a second)."""
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        row = conn.execute(
            "SELECT pg_snapshot_xmax(pg_current_snapshot())::text::bigint, "
            "(SELECT xact_commit FROM pg_stat_database WHERE datname = current_database())"
        ).fetchone()
        return (int(row[0]), int(row[1])) if row else (0, 0)


def measure(targets: list[tuple[Any, tuple[Any, ...]]], url: str, seconds: float) -> tuple[float, float, float]:
    """Run the clients; (messages/s through the queue, PostgreSQL's writing commits/s, its xact_commit/s) over
    the window, which opens once every client is connected."""
    ctx = multiprocessing.get_context("spawn")
    out, ready, go = ctx.Queue(), ctx.Queue(), ctx.Event()
    window = ctx.Value("d", 0.0)
    procs = [ctx.Process(target=fn, args=(*args, ready, go, window, out)) for fn, args in targets]
    for p in procs:
        p.start()
    for _ in procs:
        ready.get(timeout=300)
    before = commits(url)
    start = time.time()
    window.value = start + seconds
    go.set()
    while time.time() < start + seconds:
        time.sleep(0.01)
    after = commits(url)
    results = [out.get(timeout=120) for _ in procs]
    for p in procs:
        p.join(60)
    got = sum(n for role, n in results if role == "get")
    return got / seconds, (after[0] - before[0]) / seconds, (after[1] - before[1]) / seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--members", default="1,2,4")
    parser.add_argument("--batches", default="1,100")
    parser.add_argument("--clients", type=int, default=4, help="producer processes (and as many consumers)")
    parser.add_argument(
        "--member-cpus",
        default="spread",
        help="strmqm --cpus of each member: spread (member i on CPU i mod CPUs, as members on machines of their "
        "own would not share one), or auto / all / a list for every member",
    )
    args = parser.parse_args()
    members = [int(x) for x in args.members.split(",")]
    batches = [int(x) for x in args.batches.split(",")]

    from pg import PostgresServer

    server = PostgresServer(durable=True).start()
    rows: list[tuple[str, int, int, float, float, float]] = []
    try:
        for n in members:
            url = server.new_database("qsg")
            home = Path(tempfile.mkdtemp(prefix="syncpoint-bench-qsg-"))
            names = [f"QM{i + 1}" for i in range(n)]
            for i, name in enumerate(names):
                cpus = str(i % (os.cpu_count() or 1)) if args.member_cpus == "spread" else args.member_cpus
                run(home, "crtmqm", "-qsg", "BQ", "--shared", url, name)
                run(home, "strmqm", name, "--port", "0", "--cpus", cpus)
            os.environ["SYNCPOINT_HOME"] = str(home)
            import syncpoint

            admin = syncpoint.connect(names[0])
            admin.admin("define", "QLOCAL", QUEUE, {"QSGDISP": "SHARED", "MAXDEPTH": 999_999_999})
            admin.disconnect()
            for batch in batches:
                log(f"syncpoint: {n} member(s), batch {batch} …")
                targets = [
                    (syncpoint_client, (role, str(home), names[i % n], batch))
                    for role in ("put", "get")
                    for i in range(args.clients)
                ]
                rows.append(("shared queue", n, batch, *measure(targets, url, args.seconds)))
            for name in names:
                run(home, "endmqm", "-i", name)
        url = server.new_database("peer")
        import psycopg

        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute("CREATE TABLE peer_q (id bigserial PRIMARY KEY, payload bytea NOT NULL)")
        for batch in batches:
            log(f"peer: SKIP LOCKED table, batch {batch} …")
            targets = [(peer_client, (role, url, batch)) for role in ("put", "get") for _ in range(args.clients)]
            rows.append(("SKIP LOCKED table (peer)", 0, batch, *measure(targets, url, args.seconds)))
    finally:
        server.stop()

    print(f"# queue-sharing groups on PostgreSQL: {platform.node()}, {os.cpu_count()} CPUs, {args.seconds:g} s a row,")
    print(f"# {args.clients} producer + {args.clients} consumer processes, 1 KiB persistent messages, fsync on")
    print()
    peer = {batch: rate for system, _n, batch, rate, _pg, _x in rows if system.startswith("SKIP")}
    print(
        "| system | members | msgs/commit (app) | messages/s | x peer | PostgreSQL commits/s (writing) "
        "| messages per PG commit | xact_commit/s |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for system, n, batch, rate, pg, xact in rows:
        per = rate / pg if pg else 0.0
        ratio = rate / peer[batch] if peer.get(batch) else 0.0
        print(f"| {system} | {n or '-'} | {batch} | {rate:,.0f} | {ratio:.2f} | {pg:,.0f} | {per:.2f} | {xact:,.0f} |")


if __name__ == "__main__":
    main()
