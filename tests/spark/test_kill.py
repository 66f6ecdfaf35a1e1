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

from syncpoint.client import QueueManager

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


def start_worker(server: Any, src: str, dst: str, ckpt: Path, kill: str | None) -> subprocess.Popen[bytes]:
    env = {**os.environ, "PYSPARK_PYTHON": sys.executable, "PYSPARK_DRIVER_PYTHON": sys.executable}
    env["PYTHONPATH"] = os.pathsep.join([str(HERE / "killhooks"), env.get("PYTHONPATH", "")])
    env.pop("SYNCPOINT_TEST_KILL", None)
    if kill:
        env["SYNCPOINT_TEST_KILL"] = kill
    log = open(ckpt.parent / "worker.log", "ab")  # noqa: SIM115 - closed with the process
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


def test_exactly_once_when_the_spark_jvm_is_killed_at_random_points(
    server: Any, qm: QueueManager, names: Any, tmp_path: Path
) -> None:
    src, dst = load(qm, names)
    dlq_before = qm.open(DLQ).depth
    ckpt = tmp_path / "ckpt"
    points = ["read", "write", "commit", "after_commit"]
    rng = random.Random()
    killed: list[str] = []
    for run in range(16):
        clean = run >= 12 or qm.open(src).depth == 0
        point = None if clean else points[run % len(points)]
        p = start_worker(server, src, dst, ckpt, f"{point}:{rng.choice([0.3, 0.5])}" if point else None)
        rc = p.wait(900)
        if rc != 0:
            stop_group(p)
            killed.append(str(point))
            assert point is not None, (tmp_path / "worker.log").read_text()[-4000:]
        elif clean:
            break
    assert set(killed) >= {"read", "write", "commit", "after_commit"} or len(killed) >= 4, killed
    check(qm, src, dst, dlq_before)


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
            deadline = time.monotonic() + rng.uniform(15, 45)
            while time.monotonic() < deadline and p.poll() is None:
                time.sleep(0.2)
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
        if rc == 0:
            c = server.connect()
            try:
                if c.open(src).depth == 0:
                    break
            finally:
                c.disconnect()
    assert kills >= 1
    c = server.connect()
    try:
        check(c, src, dst, dlq_before)
    finally:
        c.disconnect()
