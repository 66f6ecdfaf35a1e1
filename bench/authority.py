"""Benchmark: what authority checks cost an MQOPEN, an MQPUT and an MQGET (issue 35, item 8).

Two engines side by side in one process, on the same machine and in interleaved rounds:

* **before**: a queue manager whose store names no creator, so no check is made (what every call cost before
  authority checks existed: ``_authorize_open`` returns at its first line);
* **after**: the same with 100 authority records on generic profiles (``APP00.**`` … ``APP98.**`` for other
  groups, and ``BENCH.**`` for the group of the user who connects), the user not an administrator: every MQOPEN
  asks the check.

Rows: MQOPEN + MQCLOSE for output, with the answer cached (every open after the first of a user on an object) and
with the cache dropped before each open (the first open after any change: the profiles are searched); MQPUT +
MQGET of a non-persistent message on open handles (the check was made at MQOPEN and is kept with the handle, so
they ask nothing). The engine is called directly, without a transport, so the check's share is the largest it can
be: through a client or the server each call costs more and the check the same. Rates are per second of this
thread's CPU time, so other processes on a shared machine do not skew one side.

    .venv/bin/python bench/authority.py [--calls 2000] [--chunks 21]
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

from syncpoint.engine import QueueManager, SystemClock
from syncpoint.mqi import MQGMO, MQMD, MQOD, MQPMO
from syncpoint.mqi import constants as C
from syncpoint.store import MemoryStore

PROFILES = 100


def engine(checked: bool) -> tuple[QueueManager, object]:
    store = MemoryStore()
    store.open()
    store.write(QueueManager.initial_batch("BENCH", SystemClock()))
    qm = QueueManager("BENCH", store.open(), SystemClock())
    qm.define("QLOCAL", "BENCH.Q", {"MAXDEPTH": 999_999_999})
    if checked:
        qm.record_creator("admin")
        for i in range(PROFILES - 2):
            qm.group_change(f"g{i}", f"u{i}", True)
            qm.set_authrec("queue", f"APP{i:02d}.**", "group", f"g{i}", ["put", "get"])
        qm.group_change("apps", "alice", True)
        qm.refresh_security()
        qm.set_authrec("qmgr", "", "group", "apps", ["connect"])
        qm.set_authrec("queue", "BENCH.**", "group", "apps", ["put", "get", "browse", "inq"])
        assert len(qm.authrecs()) == PROFILES
    qm.take_effects()
    conn = qm.connect("bench", user="alice")
    return qm, conn


def per_second(fn: Callable[[], None], calls: int) -> float:
    """Calls per second of this thread's CPU time: on a machine other processes share, the time they take the
    CPU away does not count (the rows compare the code, not the load)."""
    t0 = time.thread_time()
    for _ in range(calls):
        fn()
    return calls / (time.thread_time() - t0)


class Side:
    """One engine, a connection of the user alice, and its handles for the put / get row."""

    def __init__(self, checked: bool) -> None:
        self.qm, self.conn = engine(checked)
        self.od = MQOD(ObjectName=b"BENCH.Q")
        self.hp = self.qm.open(self.conn, self.od, C.MQOO_OUTPUT)  # type: ignore[arg-type]
        self.hg = self.qm.open(self.conn, self.od, C.MQOO_INPUT_AS_Q_DEF)  # type: ignore[arg-type]
        self.pmo = MQPMO(Options=C.MQPMO_NO_SYNCPOINT)
        self.gmo = MQGMO(Options=C.MQGMO_NO_SYNCPOINT)

    def open_close(self) -> None:
        self.qm.close(self.conn, self.qm.open(self.conn, self.od, C.MQOO_OUTPUT))  # type: ignore[arg-type]

    def open_close_searched(self) -> None:
        self.qm.oam.cached.clear()
        self.open_close()

    def put_get(self) -> None:
        self.qm.put(self.conn, self.hp, MQMD(), self.pmo, b"x" * 64)  # type: ignore[arg-type]
        self.qm.get(self.conn, self.hg, MQMD(), self.gmo, 1024)  # type: ignore[arg-type]
        self.qm.take_effects()


ROWS = {
    "MQOPEN + MQCLOSE (answer cached)": "open_close",
    "MQOPEN + MQCLOSE (profiles searched)": "open_close_searched",
    "MQPUT + MQGET, non-persistent": "put_get",
}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--calls", type=int, default=2_000, help="calls per chunk")
    ap.add_argument("--chunks", type=int, default=21, help="chunks per row and side, interleaved")
    args = ap.parse_args()
    sides = {"before": Side(False), "after": Side(True)}
    head = f"row (calls per CPU second, median of {args.chunks} interleaved chunks of {args.calls:,})"
    print(f"{head:<64}{'before':>10}{'after':>10}{'after/before':>14}")
    for name, method in ROWS.items():
        rates: dict[str, list[float]] = {"before": [], "after": []}
        for _ in range(args.chunks):
            for side_name, side in sides.items():
                rates[side_name].append(per_second(getattr(side, method), args.calls))
        b = statistics.median(rates["before"])
        a = statistics.median(rates["after"])
        print(f"{name:<64}{b:>10,.0f}{a:>10,.0f}{a / b:>14.3f}")


if __name__ == "__main__":
    main()
