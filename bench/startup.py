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
* a test file: pytest on a file of ``--tests`` tests, each with its own ``mq_embedded`` and all sharing one
  ``mq_server`` (the plugin's cost in a 100-test file), against the same file without fixtures.

IBM's developer container (icr.io/ibm-messaging/mq) is not run here (no container runtime on this machine, and no
image for arm64 laptops): the figure printed beside ours is the 30-60 s that users report for it in the issue
(issue 38, "takes 30-60 s to start (projects raise their wait limits for it)"), for comparison only.

This is not a test: it lives outside ``tests/`` and is never collected by pytest.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SYNCPOINT = [sys.executable, "-c", "import sys; from syncpoint.cli import main; sys.argv[0] = 'syncpoint'; main()"]
IBM_CONTAINER = "30-60 s (reported start of IBM's developer container; issue 38)"


def timed(fn) -> float:  # type: ignore[no-untyped-def]
    t = time.perf_counter()
    fn()
    return time.perf_counter() - t


def run(home: Path, *args: str) -> None:
    env = dict(os.environ, SYNCPOINT_HOME=str(home))
    subprocess.run([*SYNCPOINT, *args], env=env, check=True, capture_output=True)


def embedded_round(base: Path) -> float:
    from syncpoint.cli._testing import Config, embedded

    def go() -> None:
        mq = embedded(base / "embedded", Config())
        mq.connect().disconnect()
        mq.close()

    return timed(go)


def commands_round(base: Path) -> tuple[float, float]:
    import json

    import syncpoint

    home = base / "commands"
    t = time.perf_counter()
    run(home, "crtmqm", "QM1")
    run(home, "strmqm", "QM1", "--port", "0", "--cpus", "all", "--no-busy-poll")
    port = json.loads((home / "qmgrs/QM1/server.json").read_text())["port"]
    syncpoint.connect("QM1", host=f"127.0.0.1({port})").disconnect()
    up = time.perf_counter() - t
    down = timed(lambda: run(home, "endmqm", "-i", "QM1"))
    return up, down


def fixture_round(base: Path) -> tuple[float, float]:
    from syncpoint.cli._testing import Config, serve

    t = time.perf_counter()
    mq = serve(base / "fixture", Config())
    mq.connect().disconnect()
    up = time.perf_counter() - t
    return up, timed(mq.end)


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
    body = "mq_embedded.connect().open('DEV.QUEUE.1').put(b'x'); mq_server.connect().disconnect()"
    (folder / "test_many.py").write_text(
        TEST_FILE.format(n=n, fixtures=fixtures, body=body if with_fixtures else "pass")
    )
    return timed(
        lambda: subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(folder)],
            cwd=folder,
            check=True,
            capture_output=True,
        )
    )


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
    print(f"load average {load:.1f} on {os.cpu_count()} CPUs; medians of {a.rounds} rounds (seconds)")
    print("| what | syncpoint | IBM's developer container |")
    print("|---|---|---|")
    print(f"| embedded: create + connect | {med['embedded']:.3f} | - |")
    print(f"| served, commands: crtmqm + strmqm + a client's connect | {med['cmd up']:.3f} | {IBM_CONTAINER} |")
    print(f"| served, commands: endmqm -i | {med['cmd down']:.3f} | - |")
    print(f"| served, fixture (mq_server): up and a client's connect | {med['fix up']:.3f} | {IBM_CONTAINER} |")
    print(f"| served, fixture (mq_server): ended | {med['fix down']:.3f} | - |")
    print(
        f"| a {a.tests}-test file, mq_embedded each + one mq_server: fixtures' cost | "
        f"{with_fixtures - without:.2f} ({with_fixtures:.2f} - {without:.2f} without) | - |"
    )


if __name__ == "__main__":
    main()
