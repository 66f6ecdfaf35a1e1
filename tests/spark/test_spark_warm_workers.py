"""A flow's query starts the executors' Python workers beside its own start (docs/flows.md, Performance, change
18): a small SQL job (mapInArrow) has the executors' daemon fork the workers, which import what a partition needs
and connect, while Spark starts the data source's processes on the driver; the first batch's partitions then run
in those workers. Spark keeps one daemon per kind of worker, so the job must be of the data source read's kind:
one daemon serves both (an RDD job would start a second one and warm nothing the flow uses).

Rules quoted:
- issue 22 item 3: the flow's whole run, its first batch included, against the queue manager's own rate.
- reference/spark.md (where code runs): the read and the node run in the executors' Python workers.

The flow runs in its own process with its own Spark JVM (tests/spark/_kill_worker.py, no kill), profiled: every
part of every process appends its pid and its parent's to the profile (syncpoint.spark._profile).
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

from test_kill import start_worker, stop_group

from syncpoint.client import QueueManager


def test_the_first_batch_runs_in_the_python_workers_started_beside_the_querys_start(
    server: Any, qm: QueueManager, names: Any, tmp_path: Path, monkeypatch: Any
) -> None:
    src, dst = names.pair(qm, "WARM")
    qm.open(src).put_many([f"m{i}".encode() for i in range(900)], syncpoint=True, commit=True, persistent=True)
    profile = tmp_path / "profile.jsonl"
    monkeypatch.setenv("SYNCPOINT_SPARK_PROFILE", str(profile))
    p = start_worker(server, src, dst, tmp_path / "ckpt", None, commit="partition")
    rc = p.wait(600)
    stop_group(p)
    assert rc == 0, (tmp_path / "worker.log").read_text()[-4000:]
    assert Counter(m.data for m in qm.open(dst).browse_all()) == Counter(f"out:m{i}".encode() for i in range(900))
    spans = [json.loads(line) for line in profile.read_text().splitlines()]
    warm = [s for s in spans if s["part"] == "executor.warm"]
    reads = [s for s in spans if s["part"] == "executor.read.connect"]
    assert warm, "no worker started beside the query's start"
    assert reads
    # one daemon forked every executor worker of the run, the warm-up's and the partitions' alike
    assert len({s["ppid"] for s in warm + reads}) == 1, {(s["part"], s["pid"], s["ppid"]) for s in warm + reads}
