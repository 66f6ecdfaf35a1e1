"""Benchmark: a get by selector at depth 100,000 with one match, against a get by CorrelId at the same depth.

A queue holds N messages (Format MQSTR, the same priority). Each round puts one more message at the end of the
queue, with Format TARGET and its own CorrelId, and gets it back: once with MQMO_MATCH_CORREL_ID (the engine
walks the queue comparing CorrelIds) and once on a handle opened with the selection string
``Root.MQMD.Format = 'TARGET'`` (the handle judges only the messages that arrived since its last look:
engine/_select.py). Both run in the same process, interleaved; the table gives medians of the rounds. The
selecting handle's first look (it judges the whole queue once) is timed on its own.

With ``--shared-depth`` (default 10,000; 0: not run) the same two gets run on a shared queue of a queue-sharing
group at that depth (one member in this process, its private store in memory; the group's store a real
PostgreSQL started for the run, as tests/pg.py starts it): the selecting handle judges only the rows committed
since its last look (engine/_shared_select.py), the get by CorrelId is PostgreSQL's search of the queue's rows.

    .venv/bin/python bench/selector_get.py [--depth 100000] [--rounds 30] [--shared-depth 10000]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import syncpoint
from syncpoint.client import EmbeddedQueueManager, memory_queue_manager
from syncpoint.mqi import MQGMO, MQMD, MQOD, MQPMO
from syncpoint.mqi import constants as C

SELECTOR = "Root.MQMD.Format = 'TARGET'"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--depth", type=int, default=100_000)
    ap.add_argument("--rounds", type=int, default=30)
    ap.add_argument("--shared-depth", type=int, default=10_000)
    args = ap.parse_args()
    e = memory_queue_manager("BENCH")
    qm = syncpoint.connect("BENCH", embedded=e)
    qm.admin("define", "QLOCAL", "DEEP", {"MAXDEPTH": 999_999_999})
    out = qm.mqopen(MQOD(ObjectName=b"DEEP"), C.MQOO_OUTPUT)
    payload = b"x" * 64
    for _ in range(args.depth):
        qm.mqput(out, MQMD(Format=C.MQFMT_STRING), MQPMO(), payload)
    c, s, first_look = rounds(qm, "DEEP", args.rounds)
    print(f"depth {args.depth:,}, one matching message, {args.rounds} rounds (medians)")
    print(f"{'what':<60}{'ms per get':>12}")
    print(f"{'get by CorrelId (MQMO_MATCH_CORREL_ID)':<60}{c * 1000:>12.3f}")
    print(f"{'get by selector (handle opened with the selector)':<60}{s * 1000:>12.3f}")
    print(f"{'selecting handle: open + first look (judges all)':<60}{first_look * 1000:>12.3f}")
    print(f"CorrelId / selector = {c / s:.1f}")
    e.close()
    if args.shared_depth:
        shared(args.shared_depth, args.rounds)


def rounds(qm: syncpoint.QueueManager, name: str, n: int) -> tuple[float, float, float]:
    """The medians of ``n`` rounds of a get by CorrelId and a get by selector, and the selecting handle's first
    look, on queue ``name`` (filled already)."""
    od = MQOD(ObjectName=name.encode())
    out = qm.mqopen(od, C.MQOO_OUTPUT)
    payload = b"x" * 64
    plain = qm.mqopen(MQOD(ObjectName=name.encode()), C.MQOO_INPUT_SHARED)
    t0 = time.perf_counter()
    selecting = qm.mqopen(MQOD(ObjectName=name.encode(), Version=C.MQOD_VERSION_4), C.MQOO_INPUT_SHARED, SELECTOR)
    try:
        qm.mqget(selecting, MQMD(), MQGMO())
    except syncpoint.MQMIError as err:
        assert err.reason == C.MQRC_NO_MSG_AVAILABLE
    first_look = time.perf_counter() - t0

    def target(i: int) -> MQMD:
        return MQMD(Format=b"TARGET  ", CorrelId=i.to_bytes(24, "big"))

    by_correlid: list[float] = []
    by_selector: list[float] = []
    for i in range(1, n + 1):
        qm.mqput(out, target(i), MQPMO(), payload)
        md = MQMD(CorrelId=i.to_bytes(24, "big"))
        gmo = MQGMO(Version=C.MQGMO_VERSION_2, MatchOptions=C.MQMO_MATCH_CORREL_ID)
        t0 = time.perf_counter()
        qm.mqget(plain, md, gmo)
        by_correlid.append(time.perf_counter() - t0)
        assert md.Format == b"TARGET  "
        qm.mqput(out, target(i), MQPMO(), payload)
        md = MQMD()
        t0 = time.perf_counter()
        qm.mqget(selecting, md, MQGMO())
        by_selector.append(time.perf_counter() - t0)
        assert md.Format == b"TARGET  "
    return statistics.median(by_correlid), statistics.median(by_selector), first_look


def shared(depth: int, n: int) -> None:
    """The same rounds on a shared queue of a queue-sharing group (one member, a real PostgreSQL)."""
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))  # tests/pg.py
    from pg import PostgresServer
    from syncpoint.engine import QueueManager as Engine
    from syncpoint.engine import SystemClock
    from syncpoint.store import Batch, MemoryStore, create_member, membership_record

    server = PostgresServer(durable=True).start()
    closers: list[Callable[[], None]] = [server.stop]
    try:
        url = server.new_database("sel")
        create_member(url, "BQSG", "BQM")
        store = MemoryStore()
        store.open()
        store.write(Engine.initial_batch("BQM", SystemClock()))
        store.write(Batch(put_objects=[membership_record("BQSG", url)]))
        e = EmbeddedQueueManager("BQM", store)
        closers.append(lambda: e.close(abnormal=True))
        qm = syncpoint.connect("BQM", embedded=e)
        qm.admin(
            "define", "QLOCAL", "SDEEP", {"QSGDISP": "SHARED", "INDXTYPE": C.MQIT_CORREL_ID, "MAXDEPTH": 999_999_999}
        )
        out = qm.mqopen(MQOD(ObjectName=b"SDEEP"), C.MQOO_OUTPUT)
        syncpoint_pmo = MQPMO(Options=C.MQPMO_SYNCPOINT)
        for i in range(depth):
            qm.mqput(out, MQMD(Format=C.MQFMT_STRING), syncpoint_pmo, b"x" * 64)
            if i % 1000 == 999:
                qm.commit()
        qm.commit()
        c, s, first_look = rounds(qm, "SDEEP", n)
    finally:
        for close in reversed(closers):
            close()
    print()
    print(f"shared queue (PostgreSQL), depth {depth:,}, one matching message, {n} rounds (medians)")
    print(f"{'what':<60}{'ms per get':>12}")
    print(f"{'get by CorrelId (MQMO_MATCH_CORREL_ID, INDXTYPE(CORRELID))':<60}{c * 1000:>12.3f}")
    print(f"{'get by selector (judges only the rows committed since)':<60}{s * 1000:>12.3f}")
    print(f"{'selecting handle: open + first look (judges all)':<60}{first_look * 1000:>12.3f}")
    print(f"CorrelId / selector = {c / s:.1f}")


if __name__ == "__main__":
    main()
