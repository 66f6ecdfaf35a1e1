#!/usr/bin/env python
"""The REST API against the native client, and what serving REST costs the native (MQI) path.

    .venv/bin/python bench/rest.py                 # 3 rounds of 5 s per row
    .venv/bin/python bench/rest.py --seconds 2 --rounds 1

1 KiB messages (bytes), non-persistent, outside syncpoint, one client at a time, each call waiting for its answer
(no pipelining), against one queue manager server started by this script (``strmqm``, TCP on loopback, a user
with a password, so the native client authenticates as a REST request does):

* put and get rates: the native client over TCP (``syncpoint.connect(host=…)``: MQPUT, then MQGET of another
  round) beside the REST API over HTTP on the same host (POST …/message, DELETE …/message, one kept-alive HTTP
  connection, basic auth and the CSRF header on every request, as IBM's REST clients send them);
* the MQI path with and without REST: the native client's put + get rate with the server started with
  ``rest = false``, with ``rest = true`` and the REST API idle, and with ``rest = true`` while another process
  keeps the REST API busy (which competes for the same 2 CPUs: that row shows the cost of REST traffic, not of
  serving REST).

Rounds alternate the rows; the table shows medians. This is not a test: it lives outside ``tests/``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

MSG = bytes(range(256)) * 4  # 1 KiB
QMGR = "RESTQM"
QUEUE = "BENCH.Q"
USER, PASSWORD = "bench", "b3nch"
SYNCPOINT = str(Path(sys.executable).with_name("syncpoint"))


def run(home: Path, *args: str, stdin: str | None = None) -> str:
    done = subprocess.run(
        [SYNCPOINT, *args], env=dict(os.environ, SYNCPOINT_HOME=str(home)), input=stdin, capture_output=True, text=True
    )
    if done.returncode != 0:
        raise SystemExit(f"syncpoint {' '.join(args)} failed: {done.stdout}{done.stderr}")
    return done.stdout


def start(home: Path, rest: bool) -> tuple[int, str | None]:
    run(home, "setmqini", QMGR, f"rest={'true' if rest else 'false'}", "rest-port=0", "port=0")
    run(home, "strmqm", QMGR)
    qdir = home / "qmgrs" / QMGR
    port = int(json.loads((qdir / "server.json").read_text())["port"])
    url = None
    if rest:
        deadline = time.monotonic() + 60
        while not (qdir / "rest.json").exists():
            if time.monotonic() > deadline:
                raise SystemExit("the REST API did not start")
            time.sleep(0.05)
        url = json.loads((qdir / "rest.json").read_text())["url"]
    return port, url


def stop(home: Path) -> None:
    run(home, "endmqm", "-i", QMGR)


def native_rates(port: int, seconds: float) -> tuple[float, float]:
    import syncpoint

    qm = syncpoint.connect(QMGR, host=f"127.0.0.1({port})", user=USER, password=PASSWORD)
    q = qm.open(QUEUE)
    n, end = 0, time.perf_counter() + seconds
    t0 = time.perf_counter()
    while time.perf_counter() < end:
        q.put(MSG, persistent=False)
        n += 1
    put_rate = n / (time.perf_counter() - t0)
    t0 = time.perf_counter()
    for _ in range(n):
        q.get()
    get_rate = n / (time.perf_counter() - t0)
    qm.disconnect()
    return put_rate, get_rate


def rest_rates(url: str, seconds: float) -> tuple[float, float]:
    import httpx

    target = f"{url}/messaging/qmgr/{QMGR}/queue/{QUEUE}/message"
    headers = {
        "ibm-mq-rest-csrf-token": "x",
        "Content-Type": "application/octet-stream",
        "ibm-mq-md-persistence": "nonPersistent",
    }
    with httpx.Client(auth=(USER, PASSWORD), timeout=30) as c:
        c.get(f"{url}/admin/qmgr")  # the password's one check, then the credential cache
        n, end = 0, time.perf_counter() + seconds
        t0 = time.perf_counter()
        while time.perf_counter() < end:
            r = c.post(target, content=MSG, headers=headers)
            assert r.status_code == 201, r.text
            n += 1
        put_rate = n / (time.perf_counter() - t0)
        t0 = time.perf_counter()
        for _ in range(n):
            r = c.delete(target, headers={"ibm-mq-rest-csrf-token": "x"})
            assert r.status_code == 200 and r.content == MSG, r.text
        get_rate = n / (time.perf_counter() - t0)
    return put_rate, get_rate


def rest_load(url: str, seconds: float) -> None:
    """Another process keeping the REST API busy (POST and DELETE on its own queue)."""
    import httpx

    target = f"{url}/messaging/qmgr/{QMGR}/queue/LOAD.Q/message"
    with httpx.Client(auth=(USER, PASSWORD), timeout=30) as c:
        end = time.perf_counter() + seconds
        while time.perf_counter() < end:
            c.post(
                target, content=MSG, headers={"ibm-mq-rest-csrf-token": "x", "Content-Type": "application/octet-stream"}
            )
            c.delete(target, headers={"ibm-mq-rest-csrf-token": "x"})


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--seconds", type=float, default=5.0)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--worker", nargs=2, metavar=("URL", "SECONDS"), help=argparse.SUPPRESS)
    a = p.parse_args()
    if a.worker:
        rest_load(a.worker[0], float(a.worker[1]))
        return
    rows: dict[str, list[float]] = {}

    def add(name: str, value: float) -> None:
        rows.setdefault(name, []).append(value)

    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        run(home, "crtmqm", QMGR)
        run(home, "passwd", QMGR, USER, stdin=PASSWORD + "\n")
        run(home, "setmqini", QMGR, "cpus=all", "busy-poll=false")
        for r in range(a.rounds):
            print(f"round {r + 1} of {a.rounds}", file=sys.stderr, flush=True)
            for rest in (r % 2 == 0, r % 2 != 0):
                port, url = start(home, rest)
                try:
                    if r == 0 and rest:
                        import syncpoint

                        qm = syncpoint.connect(QMGR, host=f"127.0.0.1({port})", user=USER, password=PASSWORD)
                        for name in (QUEUE, "LOAD.Q"):
                            qm.admin("define", "QLOCAL", name, {"MAXDEPTH": 999_999_999}, replace=True)
                        qm.disconnect()
                    put, get = native_rates(port, a.seconds)
                    add(f"native put (REST {'on, idle' if rest else 'off'})", put)
                    add(f"native get (REST {'on, idle' if rest else 'off'})", get)
                    if rest:
                        assert url is not None
                        put, get = rest_rates(url, a.seconds)
                        add("REST POST (put)", put)
                        add("REST DELETE (get)", get)
                        load = subprocess.Popen([sys.executable, __file__, "--worker", url, str(a.seconds * 2 + 2)])
                        try:
                            time.sleep(1.0)  # the load is running
                            put, get = native_rates(port, a.seconds / 2)
                            add("native put (REST on, busy in another process)", put)
                            add("native get (REST on, busy in another process)", get)
                        finally:
                            load.wait()
                finally:
                    stop(home)
    print(f"1 KiB, non-persistent, one call at a time; {a.rounds} rounds of {a.seconds:g} s; messages/s, median")
    print()
    print("| row | msg/s | µs per call | every round |")
    print("|---|---|---|---|")
    for name, values in rows.items():
        m = statistics.median(values)
        print(f"| {name} | {m:,.0f} | {1e6 / m:,.0f} | {' '.join(f'{v:,.0f}' for v in values)} |")


if __name__ == "__main__":
    main()
