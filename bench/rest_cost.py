#!/usr/bin/env python
"""What serving the REST API and the console costs the MQI path (issue 37, item 5): bench/server.py's syncpoint
rows 1-3 against a server with ``rest = false`` and one with ``rest = true`` and a console open, side by side.

    .venv/bin/python bench/rest_cost.py                         # 3 rounds of 5 s per row and side
    .venv/bin/python bench/rest_cost.py --rounds 5 --seconds 4

Two queue managers run for the whole run, both started by this script (``strmqm``, as bench/server.py starts its
own): one with the REST API off, one with it on. While a row runs on the second, a thread does what an open
console page does — reads ``/ibmmq/console/api/queues`` every two seconds with basic authentication — so the row
pays for the REST server, its thread and event loop, and the console's polling. The rows are bench/server.py's
(``run_pair``: one producer and one consumer process, 1 KiB messages): 1 persistent, synchronous per message;
2 persistent, 100 per unit of work; 3 non-persistent. Each round runs every row once on each side, the side that
goes first alternating round by round; the table shows the medians, the on/off ratio and every round. This is not
a test: it lives outside ``tests/``.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
_spec = importlib.util.spec_from_file_location("bench_server", HERE / "server.py")
assert _spec is not None and _spec.loader is not None
server = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(server)

USER, PASSWORD = "bench", "b3nch"
ROWS = [("1", "persistent, synchronous per message", "sync"),
        ("2", "persistent, 100 per unit of work", "batch100"),
        ("3", "non-persistent, no syncpoint", "nonpersistent")]  # fmt: skip


class Side:
    """One queue manager server for bench/server.py's ``run_pair``, with the REST API (and console) on or off."""

    name = "syncpoint"  # run_pair's workers are bench/server.py's syncpoint workers

    def __init__(self, root: Path, rest: bool) -> None:
        self.home = root / ("rest-on" if rest else "rest-off")
        self.env = dict(os.environ, SYNCPOINT_HOME=str(self.home))
        self.exe = str(Path(sys.executable).parent / "syncpoint")
        self.run("crtmqm", server.QMGR)
        self.run("passwd", server.QMGR, USER, stdin=PASSWORD + "\n")
        self.run("setmqini", server.QMGR, f"rest={'true' if rest else 'false'}", "rest-port=0", "metrics=false")
        self.run("strmqm", server.QMGR, "--port", "0")
        # the console's user administers the queue manager (IBM: mqm), as an operator's would
        self.run("group", "-m", server.QMGR, "-g", "mqm", "-a", USER)
        self.run("runmqsc", server.QMGR, stdin="REFRESH SECURITY\n")
        import syncpoint

        self.qm = syncpoint.connect(server.QMGR, home=self.home)
        self.pid = int(json.loads((self.home / "qmgrs" / server.QMGR / "server.json").read_text())["pid"])
        self.console: str | None = None
        self.poll = True  # while a row runs: an open console page polling (REST on only)
        if rest:
            info = self.home / "qmgrs" / server.QMGR / "rest.json"
            deadline = time.monotonic() + 60
            while not info.exists():
                if time.monotonic() > deadline:
                    raise SystemExit("the REST API did not start")
                time.sleep(0.05)
            self.console = json.loads(info.read_text())["url"].removesuffix("/rest/v3") + "/console/api/queues"

    def run(self, *args: str, stdin: str | None = None) -> None:
        done = subprocess.run([self.exe, *args], env=self.env, input=stdin, capture_output=True, text=True)
        if done.returncode != 0:
            raise SystemExit(f"syncpoint {' '.join(args)} failed: {done.stdout}{done.stderr}")

    def reset(self) -> None:
        from syncpoint.mqi import constants as C

        attrs = {"MAXDEPTH": 999_999_999, "DEFPSIST": C.MQPER_PERSISTENT}
        self.qm.admin("define", "QLOCAL", server.QUEUE, attrs, replace=True)
        self.qm.admin("clear", server.QUEUE)

    def worker_args(self) -> str:
        return str(self.home)

    def close(self) -> None:
        self.qm.disconnect()
        self.run("endmqm", "-i", server.QMGR)


def cpu_seconds(pid: int) -> float:
    """The process's CPU time so far (user + system), from /proc (Linux)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def poll_console(url: str, stop: threading.Event, count: list[int]) -> None:
    """An open console page: the queue list every two seconds."""
    import httpx

    with httpx.Client(auth=(USER, PASSWORD), timeout=30) as c:
        while True:
            r = c.get(url, params={"name": "*", "offset": 0, "limit": 50})
            if r.status_code != 200:
                raise SystemExit(f"the console answered {r.status_code}: {r.text[:200]}")
            count[0] += 1
            if stop.wait(2.0):
                return


def measure(side: Side, mode: str, seconds: float, root: Path) -> tuple[float, float]:
    """The row's rate (messages/s) and the server process's CPU per message (µs)."""
    stop, count = threading.Event(), [0]
    polls = side.console is not None and side.poll
    poller = threading.Thread(target=poll_console, args=(side.console, stop, count)) if polls else None
    if poller is not None:
        poller.start()
    try:
        cpu0 = cpu_seconds(side.pid)
        rate, got = server.run_pair(side, mode, seconds, root)
        cpu = (cpu_seconds(side.pid) - cpu0) / max(got, 1) * 1e6
    finally:
        stop.set()
        if poller is not None:
            poller.join()
    if poller is not None and count[0] == 0:
        raise SystemExit("the console did not answer while the row ran")
    return float(rate), cpu


def idle_cpu(side: Side, seconds: float, console: bool) -> float:
    """The server process's CPU while no application uses it, in ms per second (with a console polling or not)."""
    stop, count = threading.Event(), [0]
    poller = threading.Thread(target=poll_console, args=(side.console, stop, count)) if console else None
    if poller is not None:
        poller.start()
    cpu0, t0 = cpu_seconds(side.pid), time.monotonic()
    time.sleep(seconds)
    used = (cpu_seconds(side.pid) - cpu0) / (time.monotonic() - t0) * 1000
    stop.set()
    if poller is not None:
        poller.join()
    return used


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--seconds", type=float, default=5.0)
    ap.add_argument("--rows", default="1,2,3", help="the rows to run (default 1,2,3)")
    ap.add_argument("--no-console", action="store_true", help="REST on, but no console polling during the rows")
    a = ap.parse_args()
    root = Path(tempfile.mkdtemp(prefix="sp-restcost-", dir="/tmp"))
    sides = {"off": Side(root, rest=False), "on": Side(root, rest=True)}
    if a.no_console:
        sides["on"].poll = False
    results: dict[str, dict[str, list[float]]] = {"off": {}, "on": {}}
    cpus: dict[str, dict[str, list[float]]] = {"off": {}, "on": {}}
    idle: dict[str, list[float]] = {"off": [], "on, idle": [], "on, console polling": []}
    try:
        for r in range(a.rounds):
            idle["off"].append(idle_cpu(sides["off"], a.seconds, False))
            idle["on, idle"].append(idle_cpu(sides["on"], a.seconds, False))
            idle["on, console polling"].append(idle_cpu(sides["on"], a.seconds, True))
            for key, _, mode in [row for row in ROWS if row[0] in a.rows.split(",")]:
                for name in ("off", "on") if r % 2 == 0 else ("on", "off"):
                    rate, cpu = measure(sides[name], mode, a.seconds, root)
                    results[name].setdefault(key, []).append(rate)
                    cpus[name].setdefault(key, []).append(cpu)
                    server.log(f"round {r + 1}/{a.rounds}, row {key}, REST {name}: {rate:,.0f} msg/s, {cpu:.0f} µs")
    finally:
        for side in sides.values():
            side.close()
    load = os.getloadavg()
    print(f"load average at the end: {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}")
    on_label = "REST on, idle" if a.no_console else "REST on, console polling"
    print(f"| server row | REST off (msg/s) | {on_label} (msg/s) | on / off, median of the rounds' |")
    print("|---|---|---|---|")
    for key, label, _ in ROWS:
        if key not in results["off"]:
            continue
        off, on = results["off"][key], results["on"][key]
        ratio = statistics.median([b / a for a, b in zip(off, on, strict=True)])
        m_off, m_on = statistics.median(off), statistics.median(on)
        each = ", ".join(f"{b / a:.2f}" for a, b in zip(off, on, strict=True))
        print(f"| {key} ({label}) | {m_off:,.0f} | {m_on:,.0f} | {ratio:.2f} ({each}) |")
    print()
    print(f"| server row | server CPU per message, REST off (µs) | {on_label} (µs) |")
    print("|---|---|---|")
    for key, label, _ in ROWS:
        if key not in cpus["off"]:
            continue
        off, on = cpus["off"][key], cpus["on"][key]
        print(f"| {key} ({label}) | {statistics.median(off):,.0f} | {statistics.median(on):,.0f} |")
    print()
    print("| server idle | CPU (ms per second), median | the rounds |")
    print("|---|---|---|")
    for name, values in idle.items():
        print(f"| REST {name} | {statistics.median(values):.2f} | {', '.join(f'{v:.2f}' for v in values)} |")


if __name__ == "__main__":
    main()
