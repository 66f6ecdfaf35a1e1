"""Load (the server issue, item 6): 50 concurrent client processes doing transactional put / get for 60 s against
one server lose and duplicate nothing; each message carries a unique id checked at the end.

The duration is SYNCPOINT_LOAD_SECONDS (default 60). Not a timing test: it checks only what was delivered.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
from collections import Counter
from pathlib import Path

import pytest

import syncpoint
from syncpoint.mqi import constants as C

SYNCPOINT = str(Path(sys.executable).parent / "syncpoint")
CLIENTS = 50

WORKER = textwrap.dedent(
    """
    import json, os, random, sys, time
    import syncpoint
    from syncpoint.mqi import MQMIError
    from syncpoint.mqi import constants as C

    me, seconds, out = sys.argv[1], float(sys.argv[2]), sys.argv[3]
    rnd = random.Random(me)
    qm = syncpoint.connect("LOADQM", appl_name=f"load-{me}")
    q = qm.open("LOAD.Q")
    put, got = [], []
    n = 0
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        batch = [f"{me}-{n + i}" for i in range(rnd.randint(1, 3))]
        n += len(batch)
        for mid in batch:
            q.put(mid, syncpoint=True)
        if rnd.random() < 0.1:
            qm.backout()  # these ids were never committed
        else:
            qm.commit()
            put.extend(batch)
        taken = []
        for _ in range(rnd.randint(1, 3)):
            try:
                taken.append(q.get(syncpoint=True, wait=0.05).text)
            except MQMIError as e:
                if e.reason != C.MQRC_NO_MSG_AVAILABLE:
                    raise
        if rnd.random() < 0.1:
            qm.backout()  # back on the queue for someone else
        else:
            qm.commit()
            got.extend(taken)
    qm.disconnect()
    with open(out, "w") as f:
        json.dump({"put": put, "got": got}, f)
    """
)


@pytest.mark.slow  # started first: tests/conftest.py orders the slow modules ahead
def test_fifty_client_processes_lose_and_duplicate_nothing(tmp_path: Path) -> None:
    seconds = float(os.environ.get("SYNCPOINT_LOAD_SECONDS", "60"))
    env = dict(os.environ, SYNCPOINT_HOME=str(tmp_path))
    subprocess.run([SYNCPOINT, "crtmqm", "LOADQM"], env=env, check=True, capture_output=True)
    r = subprocess.run(
        [SYNCPOINT, "strmqm", "LOADQM", "--port", "0"], env=env, capture_output=True, text=True, timeout=120
    )
    assert r.returncode == 0, r.stderr
    pid = json.loads((tmp_path / "qmgrs/LOADQM/server.json").read_text())["pid"]
    try:
        qm = syncpoint.connect("LOADQM", home=tmp_path)
        qm.admin("define", "QLOCAL", "LOAD.Q", {"DEFPSIST": C.MQPER_PERSISTENT, "MAXDEPTH": 999_999_999})
        procs = [
            subprocess.Popen(
                [sys.executable, "-c", WORKER, f"c{i}", str(seconds), str(tmp_path / f"c{i}.json")],
                env=env,
                stderr=subprocess.PIPE,
                text=True,
            )
            for i in range(CLIENTS)
        ]
        for p in procs:
            _, err = p.communicate(timeout=seconds + 300)
            assert p.returncode == 0, err[-2000:]
        put: list[str] = []
        got: list[str] = []
        for i in range(CLIENTS):
            result = json.loads((tmp_path / f"c{i}.json").read_text())
            put += result["put"]
            got += result["got"]
        left = [m.text for m in qm.open("LOAD.Q").messages()]
        delivered = Counter(got + left)
        duplicates = [k for k, v in delivered.items() if v > 1]
        assert not duplicates, duplicates[:10]
        assert set(delivered) == set(put), (len(set(put) - set(delivered)), len(set(delivered) - set(put)))
        assert len(put) > CLIENTS  # the run did real work
        qm.disconnect()
    finally:
        subprocess.run([SYNCPOINT, "endmqm", "-i", "LOADQM"], env=env, capture_output=True, timeout=120)
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
