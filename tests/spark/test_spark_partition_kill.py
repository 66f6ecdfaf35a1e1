"""Exactly-once across failures with ``Flow(commit="partition")`` (issue 22 item 4: "exactly-once … and the kill
tests hold unchanged"): the flow's own Spark JVM and workers are SIGKILLed inside a partition's unit of work
(before its MQCMIT), right after it (before Spark hears of the partition), and once Spark has taken the committed
partition's row (the batch not yet committed in Spark's checkpoint: the flow writes to Spark's noop sink, whose
write runs no Python; this was the sink's ``write``); then run to the end. Every output exactly once, the input
queue empty, nothing on the dead-letter queue (reference/spark.md: a batch's outputs and the consumption of its
messages happen together)."""

from __future__ import annotations

import os
import random
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from test_kill import DLQ, start_worker, stop_group

from syncpoint.client import QueueManager

N = int(os.environ.get("SYNCPOINT_KILL_MESSAGES", "4000"))  # CI's minutes: the sink's kill test runs 10,000


def load(qm: QueueManager, names: Any) -> tuple[str, str]:
    src, dst = names("PK.IN"), names("PK.OUT")
    qm.admin("define", "QLOCAL", src, {"BOTHRESH": 1000, "MAXDEPTH": 100_000})  # crash backouts stay below it
    qm.admin("define", "QLOCAL", dst, {"MAXDEPTH": 100_000})
    q = qm.open(src)
    for i in range(0, N, 500):
        bodies = [f"m{j:05d}".encode() for j in range(i, min(N, i + 500))]
        q.put_many(bodies, syncpoint=True, commit=True, persistent=True)
    return src, dst


def check(qm: QueueManager, src: str, dst: str, dlq_before: int) -> None:
    outputs = Counter(m.data for m in qm.open(dst).browse_all())
    assert not [k for k, c in outputs.items() if c > 1], "outputs more than once"
    assert set(outputs) == {f"out:m{j:05d}".encode() for j in range(N)}
    assert qm.open(src).depth == 0
    assert qm.open(DLQ).depth == dlq_before


@pytest.mark.slow  # started first: tests/conftest.py orders the slow modules ahead
def test_exactly_once_when_the_spark_jvm_is_killed_in_and_after_a_partitions_commit(
    server: Any, qm: QueueManager, names: Any, tmp_path: Path
) -> None:
    src, dst = load(qm, names)
    dlq_before = qm.open(DLQ).depth
    ckpt = tmp_path / "ckpt"
    points = ["commit_partition", "after_commit_partition", "handed"]
    rng = random.Random()
    rng.shuffle(points)
    killed: list[str] = []
    for run, point in enumerate([*points, None, None]):
        spec = None if point is None else f"{point}:{rng.randint(1, 2)}:{tmp_path / f'counter-{run}'}"
        p = start_worker(server, src, dst, ckpt, spec, commit="partition")
        rc = p.wait(900)
        stop_group(p)
        if rc != 0:
            assert point is not None, (tmp_path / "worker.log").read_text()[-4000:]
            killed.append(point)
        elif point is None:
            break
    assert sorted(killed) == sorted(points), killed
    check(qm, src, dst, dlq_before)
