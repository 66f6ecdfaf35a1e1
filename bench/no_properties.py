#!/usr/bin/env python
"""What a message without properties costs, in CPU time, so that two versions of syncpoint can be compared on a
machine other work shares (issue 34, item 6: "a message with no properties costs what it costs today").

    .venv/bin/python bench/no_properties.py                    # 5 rounds of 3,000 messages per row
    .venv/bin/python bench/no_properties.py --messages 5000 --rounds 7

Throughput on a shared machine moves 2-5x from one minute to the next; the CPU a message takes moves far less.
Each row puts and gets 1 KiB messages without properties, one at a time, on one connection, and reports the CPU
microseconds per message (put + get), the median of the rounds:

3a. embedded, persistent, each put and each get in syncpoint and committed (the shape of ``bench/embedded.py``'s
    row 3a): this process's CPU (every thread: the store's writer too).
5r. embedded, non-persistent, outside syncpoint, raw MQI with reused structures (row 5r's loop).
s1. server, persistent, each put and get durable before it returns (``bench/server.py``'s row 1, one connection
    doing both): the server process's CPU plus the client's.
s3. server, non-persistent, no syncpoint (row 3's messages, one at a time): the server's CPU plus the client's.

The server runs without busy polling (``--no-busy-poll``), so a sync in flight costs no CPU. To compare two
versions, run this script with each in turn (``PYTHONPATH=<tree>/src``), alternating, and compare the medians.
This is not a test: it lives outside ``tests/`` and is never collected by pytest.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve()
sys.path.insert(0, str(HERE.parent))

import syncpoint  # noqa: E402
from server import QMGR, Syncpoint  # noqa: E402
from syncpoint.client import create_queue_manager  # noqa: E402
from syncpoint.mqi import MQGMO, MQMD, MQOD, MQPMO  # noqa: E402
from syncpoint.mqi import constants as C  # noqa: E402

MSG = b"n" * 1024
QUEUE = "NOPROPS.Q"
VERBOSE = "-v" in sys.argv


def _proc_cpu(pid: int) -> float:
    """CPU seconds (user + system) process ``pid`` has used, every thread."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _loop(qm: object, persistent: bool, raw: bool) -> Callable[[], None]:
    """One message: put, then get it back (committing each when persistent)."""
    hp = qm.mqopen(MQOD(ObjectName=QUEUE.encode()), C.MQOO_OUTPUT)  # type: ignore[attr-defined]
    hg = qm.mqopen(MQOD(ObjectName=QUEUE.encode()), C.MQOO_INPUT_AS_Q_DEF)  # type: ignore[attr-defined]
    put, get = qm.mqput, qm.mqget  # type: ignore[attr-defined]
    commit = qm.commit  # type: ignore[attr-defined]
    if persistent:
        pmo_opts, gmo_opts = C.MQPMO_SYNCPOINT, C.MQGMO_SYNCPOINT | C.MQGMO_NO_WAIT

        def op() -> None:
            put(hp, MQMD(Persistence=C.MQPER_PERSISTENT), MQPMO(Options=pmo_opts), MSG)
            commit()
            get(hg, MQMD(), MQGMO(Options=gmo_opts))
            commit()

        return op
    md = MQMD(Persistence=C.MQPER_NOT_PERSISTENT)
    pmo = MQPMO(Options=C.MQPMO_NO_SYNCPOINT | C.MQPMO_NEW_MSG_ID)
    gmd = MQMD()
    gmo = MQGMO(Options=C.MQGMO_NO_SYNCPOINT | C.MQGMO_NO_WAIT, MatchOptions=C.MQMO_NONE)
    if raw:

        def raw_op() -> None:
            put(hp, md, pmo, MSG)
            get(hg, gmd, gmo)

        return raw_op

    def np_op() -> None:
        put(hp, MQMD(Persistence=C.MQPER_NOT_PERSISTENT), MQPMO(Options=C.MQPMO_NO_SYNCPOINT), MSG)
        get(hg, MQMD(), MQGMO(Options=C.MQGMO_NO_SYNCPOINT | C.MQGMO_NO_WAIT))

    return np_op


def measure(op: Callable[[], None], n: int, server_pid: int | None) -> float:
    """CPU µs per message over ``n`` messages: this process's, plus the server's when there is one."""
    for _ in range(min(200, n)):  # warm up
        op()
    c0 = time.process_time()
    s0 = _proc_cpu(server_pid) if server_pid else 0.0
    w0 = time.perf_counter()
    for _ in range(n):
        op()
    cpu = time.process_time() - c0
    if VERBOSE:
        print(
            f"client {cpu / n * 1e6:.1f} µs, wall {(time.perf_counter() - w0) / n * 1e6:.1f} µs",
            end="",
            file=sys.stderr,
        )
    if server_pid:
        server = _proc_cpu(server_pid) - s0
        if VERBOSE:
            print(f", server {server / n * 1e6:.1f} µs", end="", file=sys.stderr)
        cpu += server
    if VERBOSE:
        print(file=sys.stderr)
    return cpu / n * 1e6


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--messages", type=int, default=3000)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--rows", default="3a,5r,s1,s3")
    ap.add_argument("--json", help="also write the medians and every round to this file")
    ap.add_argument("-v", action="store_true", help="each round's client CPU, wall time and server CPU on stderr")
    a = ap.parse_args()
    rows = a.rows.split(",")
    results: dict[str, list[float]] = {r: [] for r in rows}
    with tempfile.TemporaryDirectory(prefix="bench-noprops-") as tmp:
        root = Path(tmp)
        if "3a" in rows or "5r" in rows:
            home = root / "embedded"
            create_queue_manager("NPQM", home=home)
            qm = syncpoint.connect("NPQM", home=home)
            qm.admin("define", "QLOCAL", QUEUE, {"MAXDEPTH": 999_999_999})
            ops = {"3a": _loop(qm, True, False), "5r": _loop(qm, False, True)}
            for _ in range(a.rounds):
                for r in ("3a", "5r"):
                    if r in rows:
                        n = a.messages // 5 if r == "3a" else a.messages  # a persistent message costs syncs
                        results[r].append(measure(ops[r], n, None))
            qm.disconnect()
        if "s1" in rows or "s3" in rows:
            sp = Syncpoint(root, cpus="all", busy_poll=False)
            try:
                sp.qm.admin("define", "QLOCAL", QUEUE, {"MAXDEPTH": 999_999_999})
                pid = int(json.loads((sp.home / "qmgrs" / QMGR / "server.json").read_text())["pid"])
                client = syncpoint.connect(QMGR, home=sp.home)
                ops = {"s1": _loop(client, True, False), "s3": _loop(client, False, False)}
                for _ in range(a.rounds):
                    for r in ("s1", "s3"):
                        if r in rows:
                            n = a.messages // 5 if r == "s1" else a.messages
                            results[r].append(measure(ops[r], n, pid))
                client.disconnect()
            finally:
                sp.close()
    names = {
        "3a": "embedded, persistent, put and get each committed",
        "5r": "embedded, non-persistent, raw MQI put + get",
        "s1": "server, persistent, put and get each durable (server + client CPU)",
        "s3": "server, non-persistent put + get (server + client CPU)",
    }
    print("| row | CPU µs per message (median) | rounds |")
    print("|---|---:|---|")
    for r in rows:
        xs = results[r]
        print(f"| {r} {names[r]} | {statistics.median(xs):,.1f} | {' / '.join(f'{x:,.1f}' for x in xs)} |")
    if a.json:
        Path(a.json).write_text(
            json.dumps({r: {"median": statistics.median(x), "rounds": x} for r, x in results.items()})
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
