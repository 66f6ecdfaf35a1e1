"""The process test_crash.py kills: a transactional workload on an SQLite-backed queue manager.

    python _crash_worker.py HOME QMGR FIRST_NUMBER SEED

Forever (until SIGKILL, or a safety limit of 60 s), chosen at random:

* produce: ``BEGIN a b`` then put the numbered persistent messages a..b on IN in one unit of work, commit, then
  ``PUT a b``;
* move: get the next message from IN in syncpoint, ``GOT n backout_count decision``, put it (persistent) on OUT
  in the same unit of work, then commit (``MOVED n``) or, for decision B, back out (``BACKOUT n``).

Every line is written and flushed *after* the call it reports has returned (BEGIN and GOT before the unit of
work ends), so a line names a fact; the kill can fall between a call's return and its line, which the parent
allows for. A short random pause inside each unit of work widens the window in which the kill finds work in
flight.
"""

from __future__ import annotations

import random
import sys
import time

import syncpoint
from syncpoint.mqi import MQMIError
from syncpoint.mqi import constants as C


def main() -> None:
    home, name, first, seed = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    rng = random.Random(seed)
    out = sys.stdout

    def say(line: str) -> None:
        out.write(line + "\n")
        out.flush()

    qm = syncpoint.connect(name, home=home)
    qin = qm.open("IN")
    qout = qm.open("OUT")
    say("READY")
    next_number = first
    give_up = time.monotonic() + 60.0
    while time.monotonic() < give_up:
        if rng.random() < 0.4:
            a = next_number
            b = a + rng.randint(1, 3) - 1
            next_number = b + 1
            say(f"BEGIN {a} {b}")
            for n in range(a, b + 1):
                qin.put(str(n).encode(), persistent=True, syncpoint=True)
            time.sleep(rng.uniform(0, 0.004))  # widen the window a kill lands in with a unit of work in flight
            qm.commit()
            say(f"PUT {a} {b}")
        else:
            try:
                m = qin.get(syncpoint=True)
            except MQMIError as e:
                if e.reason == C.MQRC_NO_MSG_AVAILABLE:
                    continue
                raise
            n = int(m.data)
            decision = "B" if rng.random() < 0.2 else "C"
            say(f"GOT {n} {m.backout_count} {decision}")
            qout.put(m.data, persistent=True, syncpoint=True)
            time.sleep(rng.uniform(0, 0.004))
            if decision == "B":
                qm.backout()
                say(f"BACKOUT {n}")
            else:
                qm.commit()
                say(f"MOVED {n}")
    qm.disconnect()


if __name__ == "__main__":
    main()
