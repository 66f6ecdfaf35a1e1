#!/usr/bin/env python
"""How long a queue manager takes to be there for a test, and to go: syncpoint beside IBM's developer container.

    .venv/bin/python bench/startup.py              # 5 rounds of each, medians
    .venv/bin/python bench/startup.py --rounds 9 --tests 100

Rows (wall-clock seconds, medians of the rounds; each round in a new temporary home):

* embedded: create a queue manager and connect to it in this process (the ``mq_embedded`` fixture's work, the
  imports already done), then close it;
* served, commands: ``syncpoint crtmqm`` + ``syncpoint strmqm --port 0`` until strmqm returns (the server accepts
  connections), a TCP client's connect, and ``syncpoint endmqm -i`` until it returns (the process has gone);
* served, fixture: what ``mq_server`` does (create in this process, start the server, wait for it) and its end;
* a test file: pytest on a file of ``--tests`` tests, each with its own ``mq_embedded`` (and a put to it) and all
  sharing one ``mq_server`` (the plugin's cost in a 100-test file), against the same file without fixtures.

Wall-clock figures depend on what else the machine runs; the CPU column (this process, its children and the
server's process) much less: on a busy machine compare that.

IBM's developer container (icr.io/ibm-messaging/mq) is not run here (no container runtime on this machine, and no
image for arm64 laptops): the figure printed beside ours is the 30-60 s that users report for it in the issue
(issue 38, "takes 30-60 s to start (projects raise their wait limits for it)"), for comparison only.

This is not a test: it lives outside ``tests/`` and is never collected by pytest.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SYNCPOINT = [sys.executable, "-c", "import sys; from syncpoint.cli import main; sys.argv[0] = 'syncpoint'; main()"]
IBM_CONTAINER = "30-60 s (reported start of IBM's developer container; issue 38)"


def cpu() -> float:
    """CPU seconds of this process and of its children that have ended (and theirs)."""
    me, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + children.ru_utime + children.ru_stime


def server_cpu(pid: int) -> float:
    """CPU seconds a running server's process has used so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(") ", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def timed(fn) -> float:  # type: ignore[no-untyped-def]
    t = time.perf_counter()
    fn()
    return time.perf_counter() - t


CPU: dict[str, list[float]] = {}


def note_cpu(row: str, seconds: float) -> None:
    CPU.setdefault(row, []).append(seconds)


def run(home: Path, *args: str) -> None:
    env = dict(os.environ, SYNCPOINT_HOME=str(home))
    subprocess.run([*SYNCPOINT, *args], env=env, check=True, capture_output=True)


def embedded_round(base: Path) -> float:
    from syncpoint.cli._testing import Config, embedded

    def go() -> None:
        mq = embedded(base / "embedded", Config())
        mq.connect().disconnect()
        mq.close()

    c = cpu()
    wall = timed(go)
    note_cpu("embedded", cpu() - c)
    return wall


def commands_round(base: Path) -> tuple[float, float]:
    import json

    import syncpoint

    home = base / "commands"
    c = cpu()
    t = time.perf_counter()
    run(home, "crtmqm", "QM1")
    run(home, "strmqm", "QM1", "--port", "0", "--cpus", "all", "--no-busy-poll")
    info = json.loads((home / "qmgrs/QM1/server.json").read_text())
    syncpoint.connect("QM1", host=f"127.0.0.1({info['port']})").disconnect()
    up = time.perf_counter() - t
    note_cpu("cmd up", cpu() - c + server_cpu(info["pid"]))
    c = cpu()
    down = timed(lambda: run(home, "endmqm", "-i", "QM1"))
    note_cpu("cmd down", cpu() - c)
    return up, down


def fixture_round(base: Path) -> tuple[float, float]:
    from syncpoint.cli._testing import Config, serve

    c = cpu()
    t = time.perf_counter()
    mq = serve(base / "fixture", Config())
    mq.connect().disconnect()
    up = time.perf_counter() - t
    before = server_cpu(mq.pid)
    note_cpu("fix up", cpu() - c + before)
    c = cpu()
    down = timed(mq.end)
    note_cpu("fix down", cpu() - c - before)  # the server, reaped by mq.end, counts among the children
    return up, down


TEST_FILE = """
import pytest

@pytest.mark.parametrize("n", range({n}))
def test_case(n{fixtures}):
    {body}
"""


def test_file_seconds(base: Path, n: int, with_fixtures: bool) -> float:
    folder = base / ("with" if with_fixtures else "without")
    folder.mkdir()
    fixtures = ", mq_embedded, mq_server" if with_fixtures else ""
    body = "mq_embedded.connect().open('DEV.QUEUE.1').put(b'x'); assert mq_server.port"  # the test's own work
    (folder / "test_many.py").write_text(
        TEST_FILE.format(n=n, fixtures=fixtures, body=body if with_fixtures else "pass")
    )
    c = cpu()
    wall = timed(
        lambda: subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(folder)],
            cwd=folder,
            check=True,
            capture_output=True,
        )
    )
    note_cpu("with" if with_fixtures else "without", cpu() - c)
    return wall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--tests", type=int, default=100)
    a = parser.parse_args()
    rows: dict[str, list[float]] = {k: [] for k in ("embedded", "cmd up", "cmd down", "fix up", "fix down")}
    for _ in range(a.rounds):
        base = Path(tempfile.mkdtemp(prefix="sp-startup-"))
        try:
            rows["embedded"].append(embedded_round(base))
            up, down = commands_round(base)
            rows["cmd up"].append(up)
            rows["cmd down"].append(down)
            up, down = fixture_round(base)
            rows["fix up"].append(up)
            rows["fix down"].append(down)
        finally:
            shutil.rmtree(base, ignore_errors=True)
    base = Path(tempfile.mkdtemp(prefix="sp-startup-"))
    try:
        with_fixtures = test_file_seconds(base, a.tests, True)
        without = test_file_seconds(base, a.tests, False)
    finally:
        shutil.rmtree(base, ignore_errors=True)
    load = os.getloadavg()[0]
    med = {k: statistics.median(v) for k, v in rows.items()}
    mcpu = {k: statistics.median(v) for k, v in CPU.items()}
    print(f"load average {load:.1f} on {os.cpu_count()} CPUs; medians of {a.rounds} rounds (seconds)")
    print("| what | syncpoint, wall | its CPU (all processes) | IBM's developer container |")
    print("|---|---|---|---|")
    ibm = IBM_CONTAINER
    print(f"| embedded: create + connect | {med['embedded']:.3f} | {mcpu['embedded']:.3f} | - |")
    print(f"| commands: crtmqm + strmqm + a client's connect | {med['cmd up']:.3f} | {mcpu['cmd up']:.3f} | {ibm} |")
    print(f"| commands: endmqm -i | {med['cmd down']:.3f} | {mcpu['cmd down']:.3f} | - |")
    print(f"| fixture mq_server: up, a client's connect | {med['fix up']:.3f} | {mcpu['fix up']:.3f} | {ibm} |")
    print(f"| fixture mq_server: ended | {med['fix down']:.3f} | {mcpu['fix down']:.3f} | - |")
    print(
        f"| a {a.tests}-test file, mq_embedded each + one mq_server: the fixtures' cost | "
        f"{with_fixtures - without:.2f} ({with_fixtures:.2f} - {without:.2f}) | "
        f"{mcpu['with'] - mcpu['without']:.2f} ({mcpu['with']:.2f} - {mcpu['without']:.2f}) | - |"
    )


if __name__ == "__main__":
    main()
