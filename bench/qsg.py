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

CPU per message, by role, over the same window: each client process's own CPU time (``time.process_time``), and
utime + stime from ``/proc/<pid>/stat`` for every member process and every PostgreSQL process (the postmaster and
all its children: backends, WAL writer, checkpointer, …), each divided by the messages got. ``machine`` is the
whole machine's busy time (``/proc/stat``) per message: above the sum of the roles when something else ran.
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
from typing import Any, NamedTuple

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


# -- CPU accounting ------------------------------------------------------------------------------------------
TICK = os.sysconf("SC_CLK_TCK")
SCHED_IDLE = getattr(os, "SCHED_IDLE", 5)


def _stat(pid: int) -> tuple[int, float] | None:
    """(parent pid, utime + stime in seconds) of a live process, from /proc/<pid>/stat."""
    try:
        raw = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = raw[raw.rindex(")") + 2 :].split()  # after "pid (comm) ": state ppid … utime(14) stime(15)
    return int(fields[1]), (int(fields[11]) + int(fields[12])) / TICK


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def _polling(pid: int) -> float:
    """CPU seconds so far of the process's threads that run under SCHED_IDLE: the busy poller (syncpoint.host),
    which fills time the CPU would otherwise spend idle."""
    total = 0.0
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return 0.0
    for tid in tids:
        try:
            raw = Path(f"/proc/{pid}/task/{tid}/stat").read_text()
        except OSError:
            continue
        fields = raw[raw.rindex(")") + 2 :].split()
        if int(fields[38]) == SCHED_IDLE:  # field 41, policy
            total += (int(fields[11]) + int(fields[12])) / TICK
    return total


def role_cpu(postmaster: int, home: str | None) -> dict[str, dict[int, float]]:
    """CPU seconds so far of each process, by role: PostgreSQL (the postmaster and its children), the members
    (the server processes of SYNCPOINT_HOME ``home``, and their children) less their busy polling, and that
    polling."""
    stats = {int(d): st for d in os.listdir("/proc") if d.isdigit() and (st := _stat(int(d))) is not None}
    member_pids = {pid for pid in stats if home and "syncpoint.cli._serve" in _cmdline(pid) and home in _cmdline(pid)}
    roles: dict[str, dict[int, float]] = {"postgres": {}, "members": {}, "polling": {}}
    for pid, (ppid, cpu) in stats.items():
        if pid == postmaster or ppid == postmaster:
            roles["postgres"][pid] = cpu
        elif pid in member_pids or ppid in member_pids:
            polled = _polling(pid)
            roles["members"][pid] = cpu - polled
            roles["polling"][pid] = polled
    return roles


def machine_busy() -> float:
    """Busy CPU seconds of the whole machine so far (/proc/stat: every state but idle and iowait)."""
    values = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    return (sum(values[:8]) - values[3] - values[4]) / TICK


def cpu_delta(before: dict[int, float], after: dict[int, float]) -> float:
    """CPU seconds spent in the window: a process born in it counts whole; one that ended in it is missed."""
    return sum(cpu - before.get(pid, 0.0) for pid, cpu in after.items())


# -- the clients (each in its own process) -------------------------------------------------------------------
def syncpoint_client(
    role: str, home: str, member: str, batch: int, ready: Any, go: Any, window: Any, done: Any, out: Any
) -> None:
    os.environ["SYNCPOINT_HOME"] = home
    import syncpoint
    from syncpoint.mqi import MQMIError

    qm = syncpoint.connect(member)
    q = qm.open(QUEUE)
    count = 0
    stop = wait_for_window(ready, go, window)
    cpu = time.process_time()
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
    cpu = time.process_time() - cpu
    done.wait()  # the bench has read the members' and PostgreSQL's CPU: its backends may end now
    if role == "get" and batch > 1:
        qm.commit()
    qm.disconnect()
    out.put((role, count, cpu))


def peer_client(role: str, url: str, batch: int, ready: Any, go: Any, window: Any, done: Any, out: Any) -> None:
    import psycopg

    conn = psycopg.connect(url, autocommit=True)
    count = 0
    stop = wait_for_window(ready, go, window)
    cpu = time.process_time()
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
    cpu = time.process_time() - cpu
    done.wait()  # the bench has read PostgreSQL's CPU: this client's backend may end now
    conn.close()
    out.put((role, count, cpu))


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


class Row(NamedTuple):
    system: str
    members: int
    batch: int
    rate: float  # messages/s through the queue
    pg: float  # PostgreSQL's writing commits/s
    xact: float  # its xact_commit/s
    cpu: dict[str, float]  # µs of CPU per message by role: producers, consumers, members, polling, postgres, machine


def measure(
    targets: list[tuple[Any, tuple[Any, ...]]], url: str, seconds: float, postmaster: int, home: str | None
) -> tuple[float, float, float, dict[str, float]]:
    """Run the clients; (messages/s through the queue, PostgreSQL's writing commits/s, its xact_commit/s, µs of
    CPU per message by role) over the window, which opens once every client is connected."""
    ctx = multiprocessing.get_context("spawn")
    out, ready, go, done = ctx.Queue(), ctx.Queue(), ctx.Event(), ctx.Event()
    window = ctx.Value("d", 0.0)
    procs = [ctx.Process(target=fn, args=(*args, ready, go, window, done, out)) for fn, args in targets]
    for p in procs:
        p.start()
    for _ in procs:
        ready.get(timeout=300)
    before = commits(url)
    cpu_before, busy_before = role_cpu(postmaster, home), machine_busy()
    start = time.time()
    window.value = start + seconds
    go.set()
    while time.time() < start + seconds:
        time.sleep(0.01)
    cpu_after, busy_after = role_cpu(postmaster, home), machine_busy()
    after = commits(url)
    done.set()
    results = [out.get(timeout=120) for _ in procs]
    for p in procs:
        p.join(60)
    got = sum(n for role, n, _cpu in results if role == "get")
    us = 1e6 / max(got, 1)
    cpu = {
        "producers": sum(c for role, _n, c in results if role == "put") * us,
        "consumers": sum(c for role, _n, c in results if role == "get") * us,
        "members": cpu_delta(cpu_before["members"], cpu_after["members"]) * us,
        "polling": cpu_delta(cpu_before["polling"], cpu_after["polling"]) * us,
        "postgres": cpu_delta(cpu_before["postgres"], cpu_after["postgres"]) * us,
        "machine": (busy_after - busy_before) * us,
    }
    return got / seconds, (after[0] - before[0]) / seconds, (after[1] - before[1]) / seconds, cpu


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
    parser.add_argument(
        "--no-busy-poll", action="store_true", help="start the members with strmqm --no-busy-poll (see syncpoint.host)"
    )
    args = parser.parse_args()
    members = [int(x) for x in args.members.split(",")]
    batches = [int(x) for x in args.batches.split(",")]

    from pg import PostgresServer

    server = PostgresServer(durable=True).start()
    assert server.process is not None
    postmaster = server.process.pid
    rows: list[Row] = []
    try:
        for n in members:
            url = server.new_database("qsg")
            home = Path(tempfile.mkdtemp(prefix="syncpoint-bench-qsg-"))
            names = [f"QM{i + 1}" for i in range(n)]
            for i, name in enumerate(names):
                cpus = str(i % (os.cpu_count() or 1)) if args.member_cpus == "spread" else args.member_cpus
                run(home, "crtmqm", "-qsg", "BQ", "--shared", url, name)
                poll = ["--no-busy-poll"] if args.no_busy_poll else []
                run(home, "strmqm", name, "--port", "0", "--cpus", cpus, *poll)
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
                rows.append(Row("shared queue", n, batch, *measure(targets, url, args.seconds, postmaster, str(home))))
            for name in names:
                run(home, "endmqm", "-i", name)
        url = server.new_database("peer")
        import psycopg

        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute("CREATE TABLE peer_q (id bigserial PRIMARY KEY, payload bytea NOT NULL)")
        for batch in batches:
            log(f"peer: SKIP LOCKED table, batch {batch} …")
            targets = [(peer_client, (role, url, batch)) for role in ("put", "get") for _ in range(args.clients)]
            rows.append(
                Row("SKIP LOCKED table (peer)", 0, batch, *measure(targets, url, args.seconds, postmaster, None))
            )
    finally:
        server.stop()

    print(f"# queue-sharing groups on PostgreSQL: {platform.node()}, {os.cpu_count()} CPUs, {args.seconds:g} s a row,")
    print(f"# {args.clients} producer + {args.clients} consumer processes, 1 KiB persistent messages, fsync on")
    print()
    peer = {r.batch: r.rate for r in rows if r.system.startswith("SKIP")}
    print(
        "| system | members | msgs/commit (app) | messages/s | x peer | PostgreSQL commits/s (writing) "
        "| messages per PG commit | xact_commit/s |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        per = r.rate / r.pg if r.pg else 0.0
        ratio = r.rate / peer[r.batch] if peer.get(r.batch) else 0.0
        print(
            f"| {r.system} | {r.members or '-'} | {r.batch} | {r.rate:,.0f} | {ratio:.2f} | {r.pg:,.0f} | {per:.2f} "
            f"| {r.xact:,.0f} |"
        )
    print()
    print(
        "CPU per message (µs over the window; members without their busy polling, which only fills idle time; "
        "sum = producers + consumers + members + PostgreSQL; machine = all busy CPU, other work included)"
    )
    print()
    print(
        "| system | members | msgs/commit (app) | producers | consumers | members | (polling) | PostgreSQL "
        "| clients + PostgreSQL | sum | machine |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        c = r.cpu
        clients_pg = c["producers"] + c["consumers"] + c["postgres"]
        print(
            f"| {r.system} | {r.members or '-'} | {r.batch} | {c['producers']:.1f} | {c['consumers']:.1f} "
            f"| {c['members']:.1f} | {c['polling']:.1f} | {c['postgres']:.1f} | {clients_pg:.1f} "
            f"| {clients_pg + c['members']:.1f} | {c['machine']:.1f} |"
        )


if __name__ == "__main__":
    main()
