#!/usr/bin/env python
"""Dead-letter queue handler throughput: 10,000 dead-lettered messages through a 20-rule table.

    .venv/bin/python bench/dlq_handler.py              # 10,000 messages per row
    .venv/bin/python bench/dlq_handler.py --messages 2000 --plain

Every row loads the dead-letter queue of a fresh embedded queue manager (SQLite under /tmp) with dead-lettered
1 KiB messages (MQDLH + data, built by syncpoint.dlq.dead_letter), then times ``DeadLetterHandler.run()`` with
WAIT(NO) until the queue is empty. The table has 20 rules: 18 that these messages do not match (so every message
is matched against 18 rules first, with character wildcards and integer patterns) and the two rules that act.
Each message is handled as runmqdlq handles it: browse with lock, get under the cursor in syncpoint, put with
PASS_ALL_CONTEXT in syncpoint, commit — one unit of work per message.

The same run measures the limit: a bare loop doing the same MQI calls per message (browse with lock, get under
cursor, put1 in syncpoint, commit) without rules or bookkeeping, so the handler's own cost shows as the gap.
Compare ratios, not absolute numbers across runs: the machines this runs on are shared.

This is not a test: it lives outside ``tests/`` and is never collected by pytest.
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass

import syncpoint
from syncpoint.client import QueueManager, create_queue_manager, open_embedded
from syncpoint.dlq import DeadLetterHandler, dead_letter, parse_rules
from syncpoint.mqi import MQMD, MQOD, MQPMO, MQMIError
from syncpoint.mqi import constants as C

QMGR = "DLQBENCH"
DLQ = "SYSTEM.DEAD.LETTER.QUEUE"
DATA = b"d" * 1024

FILLER = "\n".join(
    [
        "DESTQ(PAYROLL.*) ACTION(FWD) FWDQ(PAYROLL.EXCEPTIONS) HEADER(NO)",
        "DESTQ(BILLING.?) ACTION(FWD) FWDQ(BILLING.EXCEPTIONS)",
        "APPLNAME('batch*') ACTION(DISCARD)",
        "USERID(nobody) ACTION(IGNORE)",
        "REASON(MQRC_NOT_AUTHORIZED) ACTION(FWD) FWDQ(DEADQ.MANUAL.SECURITY)",
        "REASON(MQFB_APPL_CANNOT_BE_STARTED) ACTION(FWD) FWDQ(DEADQ.MANUAL.TRIGGER)",
        "REASON(MQRC_MSG_TOO_BIG_FOR_Q) ACTION(FWD) FWDQ(DEADQ.BIG)",
        "FORMAT(MQHRF2) ACTION(FWD) FWDQ(DEADQ.RFH2)",
        "MSGTYPE(MQMT_REQUEST) REPLYQM(AAAA.*) ACTION(FWD) FWDQ(DEADQ) FWDQM(&REPLYQM)",
        "DESTQM(BBBB.1) ACTION(FWD) FWDQ(&DESTQ) FWDQM(BBBB.2) HEADER(NO)",
        "REPLYQM(CCCC.*) ACTION(FWD) FWDQ(ALARM) FWDQM(CCCC.SYSTEM)",
        "APPLIDAT('audit?*') ACTION(FWD) FWDQ(AUDIT.EXCEPTIONS)",
        "FEEDBACK(MQFB_COA) ACTION(DISCARD)",
        "APPLTYPE(MQAT_CICS) ACTION(FWD) FWDQ(CICS.EXCEPTIONS)",
        "DESTQ(ORDERS.*) PERSIST(MQPER_NOT_PERSISTENT) ACTION(DISCARD)",
        "REASON(MQRC_PERSISTENT_NOT_ALLOWED) ACTION(FWD) FWDQ(DEADQ.PERSISTENCE)",
        "REPLYQ(LEGACY.*) ACTION(FWD) FWDQ(LEGACY.EXCEPTIONS)",
        "DESTQ(TEST.*) ACTION(DISCARD)",
    ]
)


def table(fwd_header: str) -> str:
    return (
        "WAIT(NO)\n"
        + FILLER
        + "\nREASON(MQRC_PUT_INHIBITED) ACTION(DISCARD)\n"
        + f"ACTION(FWD) FWDQ(FWD.TARGET) HEADER({fwd_header})\n"
    )


@dataclass
class Result:
    name: str
    messages: int
    seconds: float

    @property
    def rate(self) -> float:
        return self.messages / self.seconds if self.seconds else 0.0


def load(qm: QueueManager, n: int, discard_share: float, persistent: bool) -> None:
    every = round(1 / discard_share) if discard_share > 0 else 0
    for i in range(n):
        reason = C.MQRC_PUT_INHIBITED if every and (discard_share == 1 or i % every == 0) else C.MQRC_Q_FULL
        md = MQMD(
            Format=C.MQFMT_STRING,
            Persistence=C.MQPER_PERSISTENT if persistent else C.MQPER_NOT_PERSISTENT,
            PutApplName=b"orders-app",
        )
        dead_letter(qm, md, DATA, reason, dest_q="APP.Q", put_appl_name="orders-app")
        if i % 500 == 499:
            qm.commit()
    qm.commit()


def fresh(home: str) -> QueueManager:
    create_queue_manager(QMGR, dlq=DLQ, home=home)
    qm = syncpoint.connect(QMGR, home=home, appl_name="dlq-bench")
    qm.admin("alter", "QLOCAL", DLQ, {"MAXDEPTH": 1_000_000})
    qm.admin("define", "QLOCAL", "FWD.TARGET", {"MAXDEPTH": 1_000_000})
    return qm


def measure(name: str, n: int, discard_share: float, persistent: bool, run: Callable[[QueueManager], None]) -> Result:
    home = tempfile.mkdtemp(prefix="dlqbench-", dir="/tmp")
    try:
        qm = fresh(home)
        load(qm, n, discard_share, persistent)
        start = time.perf_counter()
        run(qm)
        seconds = time.perf_counter() - start
        assert qm.open(DLQ).depth == 0, "the handler left messages"
        qm.disconnect()
        open_embedded(QMGR, home=home).close()
        return Result(name, n, seconds)
    finally:
        shutil.rmtree(home, ignore_errors=True)


def handler(header: str) -> Callable[[QueueManager], None]:
    def run(qm: QueueManager) -> None:
        DeadLetterHandler(qm, parse_rules(table(header)), report=lambda s: None).run()

    return run


def bare_loop(qm: QueueManager) -> None:
    """The same MQI calls per message as the handler, without rules: the limit the handler approaches."""
    q = qm.open(DLQ, C.MQOO_INPUT_AS_Q_DEF | C.MQOO_BROWSE | C.MQOO_SAVE_ALL_CONTEXT)
    od = MQOD(ObjectName=b"FWD.TARGET")
    first = True
    while True:
        try:
            q.browse(first=first, lock=True)
        except MQMIError as e:
            if e.reason != C.MQRC_NO_MSG_AVAILABLE:
                raise
            break
        first = False
        m = q.get_under_cursor(syncpoint=True)
        pmo = MQPMO(Options=C.MQPMO_SYNCPOINT | C.MQPMO_PASS_ALL_CONTEXT, Context=q.handle)
        qm.mqput1(od, m.md, pmo, m.data)
        qm.commit()
    q.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--messages", type=int, default=10_000)
    ap.add_argument("--plain", action="store_true", help="markdown table only")
    args = ap.parse_args()
    n = args.messages
    rows: list[tuple[str, str, float, Callable[[QueueManager], None]]] = [
        ("limit: bare browse-lock/get/put1/commit loop", "persistent", 0.0, bare_loop),
        ("100% FWD HEADER(YES)", "persistent", 0.0, handler("YES")),
        ("100% FWD HEADER(NO)", "persistent", 0.0, handler("NO")),
        ("50% FWD / 50% DISCARD", "persistent", 0.5, handler("YES")),
        ("100% DISCARD", "persistent", 1.0, handler("YES")),
        ("limit: bare browse-lock/get/put1/commit loop", "non-persistent", 0.0, bare_loop),
        ("100% FWD HEADER(YES)", "non-persistent", 0.0, handler("YES")),
        ("50% FWD / 50% DISCARD", "non-persistent", 0.5, handler("YES")),
        ("100% DISCARD", "non-persistent", 1.0, handler("YES")),
    ]
    results = []
    for name, pers, share, run in rows:
        r = measure(name, n, share, pers == "persistent", run)
        results.append((pers, r))
        if not args.plain:
            print(f"  {pers:14} {name:46} {r.rate:10,.0f} msg/s", flush=True)
    print()
    print(f"| messages ({n:,} x 1 KiB, 20-rule table) | persistence | messages/s | seconds |")
    print("|---|---|---:|---:|")
    for pers, r in results:
        print(f"| {r.name} | {pers} | {r.rate:,.0f} | {r.seconds:.2f} |")


if __name__ == "__main__":
    main()
