"""Timestamps of a micro-batch's parts, for measuring where the time goes (docs/flows.md, Performance).

Off unless the environment variable ``SYNCPOINT_SPARK_PROFILE`` names a file: then every part appends one JSON
line ``{"part", "pid", "ppid", "t0", "t1", "n"}`` (wall-clock seconds) to it. Spark's Python workers inherit the
variable from the driver, so the driver's planning, the executors' reads and node, and the sink's commit all
write to the same file; ``bench/flow.py --profile`` sums the lines per part.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager

ENV = "SYNCPOINT_SPARK_PROFILE"


def enabled() -> bool:
    return bool(os.environ.get(ENV))


def record(part: str, t0: float, n: int = 0) -> None:
    """Append one part that started at ``t0`` (time.time()) and ends now."""
    path = os.environ.get(ENV)
    if not path:
        return
    line = json.dumps({"part": part, "pid": os.getpid(), "ppid": os.getppid(), "t0": t0, "t1": time.time(), "n": n})
    with open(path, "a", encoding="utf-8") as f:
        f.write(line + "\n")


@contextmanager
def span(part: str, n: int = 0) -> Iterator[None]:
    """Time a block as ``part`` (nothing is written when profiling is off)."""
    if not os.environ.get(ENV):
        yield
        return
    t0 = time.time()
    try:
        yield
    finally:
        record(part, t0, n)
