"""Assured delivery across failures (issue 23 item 4): SIGKILL of the sending or the receiving queue manager's
server at random points while persistent messages with unique ids cross a channel: none lost, none duplicated.

Runs: ``SYNCPOINT_CHANNEL_KILL_RUNS`` (default 50), each putting a few messages on QM1's transmission queue and
killing one of the two servers (the channel runs inside QM1's server: killing it kills the channel too) at a
random moment of their transfer, then starting it again; the channel resumes by itself (the channel initiator
restarts a channel with work or a batch in doubt; the sender retries a receiver that went away). At the end
every message must be on QM2's queue exactly once. ``SYNCPOINT_CHANNEL_KILL_SEED`` repeats a run's choices.
"""

from __future__ import annotations

import os
import random
import socket
import time

import pytest
from channel_helpers import QMs
from test_end_to_end import depth, put_xmit

from waiting import wait_until

RUNS = int(os.environ.get("SYNCPOINT_CHANNEL_KILL_RUNS", "50"))
PER_RUN = 12


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_on(qms: QMs, name: str, port: int) -> None:
    from channel_helpers import run

    r = run(qms.home, "strmqm", name, "--port", str(port), "--cpus", "all")
    assert r.returncode == 0, r.stdout + r.stderr


@pytest.mark.slow  # started first: tests/conftest.py orders the slow modules ahead
def test_sigkill_of_either_queue_manager_loses_and_duplicates_no_persistent_message(qms: QMs) -> None:
    seed = int(os.environ.get("SYNCPOINT_CHANNEL_KILL_SEED", str(random.randrange(1 << 30))))
    rng = random.Random(seed)
    ports = {"QM1": free_port(), "QM2": free_port()}
    for name in ("QM1", "QM2"):
        qms.create(name)
        start_on(qms, name, ports[name])
    qms.mqsc("QM2", "DEFINE CHANNEL(QM1.TO.QM2) CHLTYPE(RCVR)\nDEFINE QLOCAL(APP.IN) MAXDEPTH(999999)\n")
    qms.mqsc(
        "QM1",
        "DEFINE QLOCAL(QM2) USAGE(XMITQ) MAXDEPTH(999999) TRIGGER TRIGTYPE(FIRST) INITQ(SYSTEM.CHANNEL.INITQ)"
        " TRIGDATA(QM1.TO.QM2)\n"
        f"DEFINE CHANNEL(QM1.TO.QM2) CHLTYPE(SDR) CONNAME('127.0.0.1({ports['QM2']})') XMITQ(QM2) BATCHSZ(3)"
        " SHORTRTY(1000) SHORTTMR(1)\n",
    )
    sent: list[bytes] = []
    kills = {"QM1": 0, "QM2": 0}
    for run_no in range(RUNS):
        bodies = [b"run %d message %d" % (run_no, i) for i in range(PER_RUN)]
        put_xmit(qms, bodies)  # committed on QM1 before anything is killed: these must arrive
        sent.extend(bodies)
        victim = rng.choice(("QM1", "QM2"))
        time.sleep(rng.uniform(0.0, 0.4))  # the random point of the transfer at which the server dies
        qms.kill(victim)
        kills[victim] += 1
        start_on(qms, victim, ports[victim])
    wait_until(
        lambda: depth(qms, "QM2", "APP.IN") >= len(sent),
        f"all {len(sent)} messages on QM2 (seed {seed})",
        timeout=300,
        detail=lambda: qms.mqsc("QM1", "DISPLAY CHSTATUS(*) ALL\n") + qms.log("QM1")[-3000:] + qms.log("QM2")[-2000:],
    )
    qm = qms.connect("QM2")
    q = qm.open("APP.IN")
    # every message CURDEPTH counts, each got with a wait: a get sees a message once its put is durable
    got = [q.get(wait=30).data for _ in range(depth(qms, "QM2", "APP.IN"))]
    missing = set(sent) - set(got)
    duplicated = {b for b in got if got.count(b) > 1}
    assert not missing and not duplicated and len(got) == len(sent), (
        f"seed {seed}, kills {kills}: {len(missing)} lost, {len(duplicated)} duplicated"
    )
    assert depth(qms, "QM1", "QM2") == 0
