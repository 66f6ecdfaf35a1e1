"""Exactly-once across failures (issue 8 item 8): a flow over 10,000 messages is run in its own process with its own
Spark JVM; the JVM is SIGKILLed at random points (during read, during write, inside the sink's commit, between the
commit and Spark's checkpoint) and restarted from the checkpoint until the input queue is drained; then the same
with the queue manager's server SIGKILLed and restarted. The output queue must hold every expected output exactly
once, the input queue must be empty, nothing may reach the dead-letter queue.

SYNCPOINT_KILL_MESSAGES overrides the number of messages (default 10,000).
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from syncpoint.client import QueueManager
from waiting import wait_until

HERE = Path(__file__).parent
N = int(os.environ.get("SYNCPOINT_KILL_MESSAGES", "10000"))
DLQ = "SYSTEM.DEAD.LETTER.QUEUE"


def load(qm: QueueManager, names: Any) -> tuple[str, str]:
    src, dst = names("K.IN"), names("K.OUT")
    # Killed units of work are backed out by the queue manager (BackoutCount + 1): a high threshold keeps the
    # crash-induced backouts from routing good messages to the DLQ.
    qm.admin("define", "QLOCAL", src, {"BOTHRESH": 1000, "MAXDEPTH": 100_000})
    qm.admin("define", "QLOCAL", dst, {"MAXDEPTH": 100_000})
    q = qm.open(src)
    for i in range(0, N, 500):
        with qm.unit_of_work():
            for j in range(i, min(N, i + 500)):
                q.put(f"m{j:05d}", syncpoint=True, persistent=True)
    return src, dst


def start_worker(
    server: Any, src: str, dst: str, ckpt: Path, kill: str | None, commit: str = "sink"
) -> subprocess.Popen[bytes]:
    env = {**os.environ, "PYSPARK_PYTHON": sys.executable, "PYSPARK_DRIVER_PYTHON": sys.executable}
    env["SYNCPOINT_KILL_COMMIT"] = commit
    env["PYTHONPATH"] = os.pathsep.join([str(HERE / "killhooks"), env.get("PYTHONPATH", "")])
    env.pop("SYNCPOINT_TEST_KILL", None)
    if kill:
        env["SYNCPOINT_TEST_KILL"] = kill
    log = open(ckpt.parent / "worker.log", "ab")  # noqa: SIM115 - closed with the process
    log.write(f"--- worker: SYNCPOINT_TEST_KILL={kill}\n".encode())
    log.flush()
    return subprocess.Popen(
        [sys.executable, str(HERE / "_kill_worker.py"), server.name, str(server.home), src, dst, str(ckpt)],
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )


def stop_group(p: subprocess.Popen[bytes]) -> None:
    """SIGKILL what is left of the worker's session (its JVM and Python workers)."""
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            if int(fields[3]) == p.pid:
                os.kill(int(name), signal.SIGKILL)
        except (OSError, ValueError, IndexError):
            pass
    p.wait()


def check(qm: QueueManager, src: str, dst: str, dlq_before: int) -> None:
    outputs = Counter(m.data for m in qm.open(dst).browse_all())
    expected = {f"out:m{j:05d}".encode() for j in range(N)}
    duplicates = [k for k, c in outputs.items() if c > 1]
    assert not duplicates, f"{len(duplicates)} outputs more than once, e.g. {duplicates[:3]}"
    assert set(outputs) == expected, (
        f"missing {len(expected - set(outputs))}, unexpected {len(set(outputs) - expected)}"
    )
    assert qm.open(src).depth == 0
    assert qm.open(DLQ).depth == dlq_before


@pytest.mark.slow  # started first: tests/conftest.py orders the slow modules ahead
def test_exactly_once_when_the_spark_jvm_is_killed_at_random_points(
    server: Any, qm: QueueManager, names: Any, tmp_path: Path
) -> None:
    src, dst = load(qm, names)
    dlq_before = qm.open(DLQ).depth
    ckpt = tmp_path / "ckpt"
    # The k-th passage of a point (k random, small enough that the queue is not drained before every point
    # has been hit): at most two batches of 1,000 are committed per killed run, 10 batches in all.
    points = ["commit", "after_commit", "read", "write"]
    rng = random.Random()
    rng.shuffle(points)
    killed: list[str] = []
    for run, point in enumerate([*points, None, None]):
        spec = None
        if point is not None:
            k = rng.randint(1, 2) if point in ("commit", "after_commit") else rng.randint(1, 3)
            spec = f"{point}:{k}:{tmp_path / f'counter-{run}'}"
        p = start_worker(server, src, dst, ckpt, spec)
        rc = p.wait(900)
        stop_group(p)
        print(f"run {run}: kill {spec}, exit code {rc}, input depth {qm.open(src).depth}")
        if rc != 0:
            assert point is not None, (tmp_path / "worker.log").read_text()[-4000:]
            killed.append(point)
        elif point is None:
            break
    assert sorted(killed) == sorted(points), killed
    check(qm, src, dst, dlq_before)


def output_depth(server: Any, queue: str) -> int:
    c = server.connect()
    try:
        return int(c.open(queue).depth)
    finally:
        c.disconnect()


@pytest.mark.slow  # started first: tests/conftest.py orders the slow modules ahead
def test_exactly_once_when_the_queue_manager_server_is_killed_and_restarted(
    server: Any, qm: QueueManager, names: Any, tmp_path: Path
) -> None:
    src, dst = load(qm, names)
    dlq_before = qm.open(DLQ).depth
    qm.disconnect()
    ckpt = tmp_path / "ckpt"
    rng = random.Random()
    kills = 0
    for _run in range(8):
        p = start_worker(server, src, dst, ckpt, None)
        if kills < 3:
            # wait for the flow to commit a batch, then kill the server at a random moment of the next ones
            before = output_depth(server, dst)
            wait_until(
                lambda: p.poll() is not None or output_depth(server, dst) != before,  # noqa: B023
                "the flow committing a batch (or ending)",
                600,
                0.3,
            )
            # within the next batch or so: a batch of 1,000 takes well under a second now, and a kill after the
            # flow has drained the queue would leave fewer than three kills
            time.sleep(rng.uniform(0.0, 0.5))
            if p.poll() is None:
                server.kill()
                kills += 1
                try:
                    p.wait(120)
                except subprocess.TimeoutExpired:
                    pass
                stop_group(p)
                server.start()
                continue
        rc = p.wait(900)
        stop_group(p)
        if rc == 0 and output_depth(server, src) == 0:
            break
    assert kills == 3
    c = server.connect()
    try:
        check(c, src, dst, dlq_before)
    finally:
        c.disconnect()
