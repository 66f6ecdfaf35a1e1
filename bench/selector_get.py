"""Benchmark: a get by selector at depth 100,000 with one match, against a get by CorrelId at the same depth.

A queue holds N messages (Format MQSTR, the same priority). Each round puts one more message at the end of the
queue, with Format TARGET and its own CorrelId, and gets it back: once with MQMO_MATCH_CORREL_ID (the engine
walks the queue comparing CorrelIds) and once on a handle opened with the selection string
``Root.MQMD.Format = 'TARGET'`` (the handle judges only the messages that arrived since its last look:
engine/_select.py). Both run in the same process, interleaved; the table gives medians of the rounds. The
selecting handle's first look (it judges the whole queue once) is timed on its own.

    .venv/bin/python bench/selector_get.py [--depth 100000] [--rounds 30]
"""

from __future__ import annotations

import argparse
import statistics
import time

import syncpoint
from syncpoint.client import memory_queue_manager
from syncpoint.mqi import MQGMO, MQMD, MQOD, MQPMO
from syncpoint.mqi import constants as C

SELECTOR = "Root.MQMD.Format = 'TARGET'"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--depth", type=int, default=100_000)
    ap.add_argument("--rounds", type=int, default=30)
    args = ap.parse_args()
    e = memory_queue_manager("BENCH")
    qm = syncpoint.connect("BENCH", embedded=e)
    qm.admin("define", "QLOCAL", "DEEP", {"MAXDEPTH": 999_999_999})
    out = qm.mqopen(MQOD(ObjectName=b"DEEP"), C.MQOO_OUTPUT)
    payload = b"x" * 64
    for _ in range(args.depth):
        qm.mqput(out, MQMD(Format=C.MQFMT_STRING), MQPMO(), payload)
    plain = qm.mqopen(MQOD(ObjectName=b"DEEP"), C.MQOO_INPUT_SHARED)
    t0 = time.perf_counter()
    selecting = qm.mqopen(MQOD(ObjectName=b"DEEP"), C.MQOO_INPUT_SHARED, SELECTOR)
    try:
        qm.mqget(selecting, MQMD(), MQGMO())
    except syncpoint.MQMIError as err:
        assert err.reason == C.MQRC_NO_MSG_AVAILABLE
    first_look = time.perf_counter() - t0

    def target(i: int) -> MQMD:
        return MQMD(Format=b"TARGET  ", CorrelId=i.to_bytes(24, "big"))

    by_correlid: list[float] = []
    by_selector: list[float] = []
    for i in range(1, args.rounds + 1):
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
    c, s = statistics.median(by_correlid), statistics.median(by_selector)
    print(f"depth {args.depth:,}, one matching message, {args.rounds} rounds (medians)")
    print(f"{'what':<52}{'ms per get':>12}")
    print(f"{'get by CorrelId (MQMO_MATCH_CORREL_ID)':<52}{c * 1000:>12.3f}")
    print(f"{'get by selector (handle opened with the selector)':<52}{s * 1000:>12.3f}")
    print(f"{'selecting handle: open + first look (judges all)':<52}{first_look * 1000:>12.3f}")
    print(f"CorrelId / selector = {c / s:.1f}")
    e.close()


if __name__ == "__main__":
    main()
