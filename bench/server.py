#!/usr/bin/env python
"""syncpoint's server against RabbitMQ, both started by this script in the same run, over loopback.

    .venv/bin/python bench/server.py              # every row, 3 rounds of 15 s per system (about 7 minutes)
    .venv/bin/python bench/server.py --seconds 5  # shorter measurements
    .venv/bin/python bench/server.py --rounds 1   # one measurement per system and row, as before
    .venv/bin/python bench/server.py --rows 1,3 --plain

1 KiB messages; one producer process and one consumer process running at the same time; messages/s is what
went through the queue (the consumer's count over the time from the first put to the last get). Every row is
measured ``--rounds`` times (default 3) per system, the two systems back to back in each round and in alternating
order; the table shows the medians, the ratio is the median of the rounds' ratios, and every round is listed. Rows:

1. persistent, synchronous per message — syncpoint: each put and each get durable before it returns (outside
   syncpoint); RabbitMQ: publish with a synchronous publisher confirm, consume with a manual ack per message.
2. persistent, 100 messages per unit of work — syncpoint: 100 puts / gets in syncpoint, then MQCMIT, the commit
   travelling with its batch (``put_many(commit=True)``; ``get_many(commit_first=True)`` commits the batch got
   before, once it is processed, and gets the next); RabbitMQ: channel transactions, tx_commit per 100 publishes /
   per 100 acks. Either way one round trip per batch and side.
3. non-persistent, no syncpoint — RabbitMQ: transient messages, no confirms, automatic acks.
4. 16 producer + 16 consumer connections, persistent, a commit per message (syncpoint only): messages/s and
   messages per fsync (the server's store counts its syncs).

RabbitMQ is Debian's ``rabbitmq-server`` started by hand bound to 127.0.0.1 with its own data directory; the
client is pika (``pip install pika``). When either is missing its rows say so and syncpoint is still measured.
This is not a test: it lives outside ``tests/`` and is never collected by pytest.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import platform
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

MSG = b"m" * 1024
QUEUE = "BENCH.Q"
QMGR = "BENCHQM"
HERE = Path(__file__).resolve()


# ruff: noqa: RUF001


def log(message: str) -> None:
    """Progress, on stderr: the table alone goes to stdout."""
    print(message, file=sys.stderr, flush=True)


# ------------------------------------------------------------------------------------------------------
# the workers (run as separate processes: python bench/server.py --worker ...)
# ------------------------------------------------------------------------------------------------------
def syncpoint_worker(role: str, mode: str, seconds: float, home: str, out: str) -> None:
    import syncpoint
    from syncpoint.mqi import MQMIError
    from syncpoint.mqi import constants as C

    qm = syncpoint.connect(QMGR, home=home)
    q = qm.open(QUEUE)
    persistent = mode != "nonpersistent"
    count = 0
    first = time.time()
    end = time.monotonic() + seconds
    if role == "producer":
        while time.monotonic() < end:
            if mode == "batch100":
                q.put_many([MSG] * 100, persistent=True, syncpoint=True, commit=True)
                count += 100
            elif mode == "nonpersistent":  # pipelined, as RabbitMQ's publishes without confirms are
                q.put_many([MSG] * 100, persistent=False)
                count += 100
            else:
                q.put(MSG, persistent=persistent, syncpoint=mode == "commit")
                if mode == "commit":
                    qm.commit()
                count += 1
        last = time.time()
    else:
        last = first
        idle_until = None
        held = 0  # batch100: messages got in the unit of work not committed yet
        while True:
            try:
                if mode == "batch100":
                    # commit the batch got before (it has been "processed") and get the next: one round trip
                    got = q.get_many(100, syncpoint=True, commit_first=held > 0)
                    count += held
                    if held:
                        last = time.time()
                    held = len(got)
                    if not got:  # the queue is dry: wait for the next message
                        held = len([q.get(wait=0.5, syncpoint=True)])
                elif mode == "nonpersistent":
                    # a batch of gets in one round trip; when the queue is dry, wait for the next message
                    got = q.get_many(100)
                    if not got:
                        got = [q.get(wait=0.5)]
                    count += len(got)
                    last = time.time()
                else:
                    q.get(wait=0.5, syncpoint=mode == "commit")
                    if mode == "commit":
                        qm.commit()
                    count += 1
                    last = time.time()
                idle_until = None
            except MQMIError as e:
                if e.reason != C.MQRC_NO_MSG_AVAILABLE:
                    raise
                if held:
                    qm.commit()
                    count += held
                    held = 0
                    last = time.time()
                if time.monotonic() > end:
                    if idle_until is None:
                        idle_until = time.monotonic() + 2
                    elif time.monotonic() > idle_until:
                        break
    qm.disconnect()
    Path(out).write_text(json.dumps({"count": count, "first": first, "last": last}))


def rabbit_worker(role: str, mode: str, seconds: float, port: str, out: str) -> None:
    import pika

    conn = pika.BlockingConnection(pika.ConnectionParameters("127.0.0.1", int(port)))
    ch = conn.channel()
    ch.queue_declare(QUEUE, durable=True)
    persistent = mode != "nonpersistent"
    props = pika.BasicProperties(delivery_mode=2 if persistent else 1)
    count = 0
    first = time.time()
    end = time.monotonic() + seconds
    if role == "producer":
        if mode == "sync":
            ch.confirm_delivery()
        if mode == "batch100":
            ch.tx_select()
        while time.monotonic() < end:
            if mode == "batch100":
                for _ in range(100):
                    ch.basic_publish("", QUEUE, MSG, props)
                ch.tx_commit()
                count += 100
            else:
                ch.basic_publish("", QUEUE, MSG, props)
                count += 1
        last = time.time()
    else:
        last = first
        if mode == "batch100":
            ch.tx_select()
            ch.basic_qos(prefetch_count=100)
        elif mode == "sync":
            ch.basic_qos(prefetch_count=1)
        auto_ack = mode == "nonpersistent"
        pending = 0
        idle_since = None
        for method, _props, _body in ch.consume(QUEUE, auto_ack=auto_ack, inactivity_timeout=0.5):
            if method is None:
                if mode == "batch100" and pending:
                    ch.tx_commit()
                    pending = 0
                if time.monotonic() > end:
                    if idle_since is None:
                        idle_since = time.monotonic()
                    elif time.monotonic() - idle_since > 2:
                        break
                continue
            idle_since = None
            count += 1
            last = time.time()
            if not auto_ack:
                ch.basic_ack(method.delivery_tag)
                if mode == "batch100":
                    pending += 1
                    if pending == 100:
                        ch.tx_commit()
                        pending = 0
        ch.cancel()
    conn.close()
    Path(out).write_text(json.dumps({"count": count, "first": first, "last": last}))


# ------------------------------------------------------------------------------------------------------
# the systems
# ------------------------------------------------------------------------------------------------------
def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Syncpoint:
    name = "syncpoint"

    def __init__(self, root: Path, cpus: str = "auto", busy_poll: bool = True) -> None:
        self.home = root / "syncpoint"
        self.env = dict(os.environ, SYNCPOINT_HOME=str(self.home))
        exe = str(Path(sys.executable).parent / "syncpoint")
        subprocess.run([exe, "crtmqm", QMGR], env=self.env, check=True, capture_output=True)
        subprocess.run(
            [exe, "strmqm", QMGR, "--port", "0", "--cpus", cpus] + ([] if busy_poll else ["--no-busy-poll"]),
            env=self.env,
            check=True,
            capture_output=True,
        )
        self.exe = exe
        import syncpoint

        self.qm = syncpoint.connect(QMGR, home=self.home)
        attrs = os.environ.get("SYNCPOINT_BENCH_QMGR_ATTRS")  # bench/metrics_cost.py --statistics: e.g. STATMQI ON
        if attrs:
            for name in ("SYSTEM.ADMIN.STATISTICS.QUEUE", "SYSTEM.ADMIN.ACCOUNTING.QUEUE"):
                self.qm.admin("define", "QLOCAL", name, {"MAXDEPTH": 999_999_999}, replace=True)
            self.qm.admin("alter_qmgr", json.loads(attrs))
        info = json.loads((self.home / "qmgrs" / QMGR / "server.json").read_text())
        self.cpus = info.get("cpus") or "all"
        self.busy_poll = bool(info.get("busy_poll"))

    def reset(self) -> None:
        from syncpoint.mqi import constants as C

        self.qm.admin(
            "define", "QLOCAL", QUEUE, {"MAXDEPTH": 999_999_999, "DEFPSIST": C.MQPER_PERSISTENT}, replace=True
        )
        self.qm.admin("clear", QUEUE)

    def worker_args(self) -> str:
        return str(self.home)

    def syncs(self) -> int:
        return int(self.qm.transport.ping()["store"].get("syncs", 0))

    def close(self) -> None:
        self.qm.disconnect()
        subprocess.run([self.exe, "endmqm", "-i", QMGR], env=self.env, capture_output=True)


class Rabbit:
    name = "RabbitMQ"

    def __init__(self, root: Path) -> None:
        # Debian's /usr/sbin wrapper switches to the rabbitmq user; the real script runs as whoever starts it
        exe = "/usr/lib/rabbitmq/bin/rabbitmq-server"
        if not os.path.exists(exe):
            raise RuntimeError("rabbitmq-server is not installed (apt-get install rabbitmq-server)")
        try:
            import pika  # noqa: F401
        except ImportError:
            raise RuntimeError("pika is not installed (pip install pika)") from None
        base = root / "rabbit"
        for d in ("mnesia", "log"):
            (base / d).mkdir(parents=True)
        self.port = free_port()
        name = f"bench{os.getpid()}@localhost"
        self.env = dict(
            os.environ,
            RABBITMQ_NODENAME=name,
            RABBITMQ_NODE_IP_ADDRESS="127.0.0.1",
            RABBITMQ_NODE_PORT=str(self.port),
            RABBITMQ_DIST_PORT=str(free_port()),
            RABBITMQ_MNESIA_BASE=str(base / "mnesia"),
            RABBITMQ_LOG_BASE=str(base / "log"),
            RABBITMQ_CONFIG_FILE=str(base / "rabbitmq"),
            RABBITMQ_ENABLED_PLUGINS_FILE=str(base / "enabled_plugins"),
            HOME=str(base),
        )
        (base / "enabled_plugins").write_text("[].\n")
        (base / "rabbitmq.conf").write_text("loopback_users = none\n")
        with open(base / "out.log", "wb") as log:
            self.proc = subprocess.Popen(
                [exe], env=self.env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
            )
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1):
                    break
            except OSError:
                if self.proc.poll() is not None:
                    raise RuntimeError(f"rabbitmq-server exited: {(base / 'out.log').read_text()[-500:]}") from None
                time.sleep(0.5)
        else:
            raise RuntimeError("rabbitmq-server did not start within 90 s")
        self.version = ""
        out = subprocess.run(["dpkg-query", "-W", "rabbitmq-server"], capture_output=True, text=True).stdout
        self.version = out.split()[-1] if out else "?"

    def reset(self) -> None:
        import pika

        conn = pika.BlockingConnection(pika.ConnectionParameters("127.0.0.1", self.port))
        ch = conn.channel()
        ch.queue_declare(QUEUE, durable=True)
        ch.queue_purge(QUEUE)
        conn.close()

    def worker_args(self) -> str:
        return str(self.port)

    def close(self) -> None:
        import signal

        try:
            os.killpg(self.proc.pid, signal.SIGTERM)
            self.proc.wait(30)
        except Exception:
            os.killpg(self.proc.pid, signal.SIGKILL)


def run_pair(
    system: Any, mode: str, seconds: float, root: Path, producers: int = 1, consumers: int = 1
) -> tuple[float, int]:
    system.reset()
    procs = []
    outs = []
    for role, n in (("consumer", consumers), ("producer", producers)):
        for i in range(n):
            out = root / f"{system.name}-{mode}-{role}-{i}.json"
            outs.append((role, out))
            procs.append(
                subprocess.Popen(
                    [sys.executable, str(HERE), "--worker", system.name, role, mode, str(seconds),
                     system.worker_args(), str(out)]
                )
            )  # fmt: skip
    for p in procs:
        p.wait(seconds + 600)
        if p.returncode != 0:
            raise RuntimeError(f"a {system.name} worker failed ({p.returncode})")
    results = [(role, json.loads(out.read_text())) for role, out in outs]
    got = sum(r["count"] for role, r in results if role == "consumer")
    first = min(r["first"] for role, r in results if role == "producer")
    last = max(r["last"] for role, r in results if role == "consumer")
    return got / max(last - first, 1e-9), got


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seconds", type=float, default=15.0)
    ap.add_argument("--rounds", type=int, default=3, help="measurements per system and row; medians are shown")
    ap.add_argument("--rows", default="1,2,3,4")
    ap.add_argument("--plain", action="store_true", help="markdown table only")
    ap.add_argument("--cpus", default="auto", help="strmqm --cpus for the syncpoint server (default auto)")
    ap.add_argument("--no-busy-poll", action="store_true", help="strmqm --no-busy-poll for the syncpoint server")
    ap.add_argument("--worker", nargs=6, help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.rounds < 1:
        ap.error("--rounds must be at least 1")
    if a.worker:
        system, role, mode, seconds, arg, out = a.worker
        fn = syncpoint_worker if system == "syncpoint" else rabbit_worker
        fn(role, mode, float(seconds), arg, out)
        return
    rows = set(a.rows.split(","))
    root = Path(tempfile.mkdtemp(prefix="sp-bench-", dir="/tmp"))
    sp = Syncpoint(root, a.cpus, not a.no_busy_poll)
    rabbit: Rabbit | None = None
    rabbit_note = ""
    try:
        try:
            rabbit = Rabbit(root)
        except Exception as e:
            rabbit_note = f"RabbitMQ skipped: {e}"
        table = []
        plan = [
            ("1", "persistent, synchronous per message", "sync", 2.0),
            ("2", "persistent, 100 per unit of work", "batch100", 3.0),
            ("3", "non-persistent, no syncpoint", "nonpersistent", 1.5),
        ]
        for key, label, mode, target in plan:
            if key not in rows:
                continue
            # each round measures both systems back to back, in alternating order, so that a machine getting
            # faster or slower during the run does not favour either; the ratio is the median of the rounds'
            ours_runs: list[float] = []
            theirs_runs: list[float] = []
            for r in range(a.rounds):
                for system in (sp, rabbit) if r % 2 == 0 else (rabbit, sp):
                    if system is not None:
                        log(f"row {key}, round {r + 1}/{a.rounds}: {system.name} …")
                        (ours_runs if system is sp else theirs_runs).append(run_pair(system, mode, a.seconds, root)[0])
            ours = statistics.median(ours_runs)
            theirs = statistics.median(theirs_runs) if theirs_runs else None
            ratios = [o / t for o, t in zip(ours_runs, theirs_runs, strict=False) if t]
            ratio = statistics.median(ratios) if ratios else None
            verdict = "" if ratio is None else ("PASS" if ratio >= target else "MISS")
            rounds = "; ".join(
                f"{o:,.0f}" + (f" / {t:,.0f} ({o / t:.2f}×)" if t else "")
                for o, t in itertools.zip_longest(ours_runs, theirs_runs)
            )
            table.append(
                [key, label, f"{ours:,.0f}", f"{theirs:,.0f}" if theirs else "—",
                 f"{ratio:.2f}× (target ≥ {target}×) {verdict}" if ratio else f"target ≥ {target}×", rounds]
            )  # fmt: skip
        if "4" in rows:
            rates: list[float] = []
            per_sync: list[float] = []
            for r in range(a.rounds):
                log(f"row 4, round {r + 1}/{a.rounds}: syncpoint …")
                before = sp.syncs()
                rate, total = run_pair(sp, "commit", a.seconds, root, producers=16, consumers=16)
                syncs = sp.syncs() - before
                rates.append(rate)
                if syncs:
                    per_sync.append(total / syncs)
            note = f"{statistics.median(per_sync):.1f} messages per fsync" if per_sync else "no syncs counted"
            table.append(["4", "16 producers + 16 consumers, persistent, commit per message",
                          f"{statistics.median(rates):,.0f}", "—", note,
                          "; ".join(f"{x:,.0f}" for x in rates)])  # fmt: skip
        header = ["row", "mode (1 KiB, loopback)", "syncpoint msg/s", "RabbitMQ msg/s", "ratio", "rounds"]
        lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
        lines += ["| " + " | ".join(r) + " |" for r in table]
        if not a.plain:
            peer = rabbit.version if rabbit else "-"
            print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
                  f"{platform.platform()}; {a.seconds:.0f} s per measurement, {a.rounds} rounds (medians); "
                  f"RabbitMQ {peer}; "
                  f"syncpoint server on CPU {sp.cpus} (--cpus {a.cpus}), busy polling "
                  f"{'on' if sp.busy_poll else 'off'}")  # fmt: skip
        print("\n".join(lines))
        if rabbit_note:
            print(rabbit_note)
    finally:
        sp.close()
        if rabbit is not None:
            rabbit.close()
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
