"""No get ever returns a message whose put is later lost: a real server process SIGKILLed at random points
under producers of persistent units of work and consumers waiting for them, restarted each time.

Issue 24, defect 9: "A kill test (40 SIGKILLs of a queue manager under producers putting 4-message persistent
units of work and consumers getting them) found, 3 times, a consumer holding a message whose whole unit of work
was gone after the restart … IBM MQ makes committed messages available only once the commit is on the log."

What is asserted, exactly: the consumers get under syncpoint and never commit (they back out, or the kill backs
their unit of work out at the restart), so no message ever leaves the queue for good. Every message whose put
was durably committed is therefore on the queue after the last restart, and only those. A consumer writes each
MsgId it receives to a file (flushed) before it does anything else; the test asserts that every MsgId in that
file is on the queue at the end: a get that returned a message whose commit a crash then lost would leave a
MsgId in the file that is on no queue. The kills fall where the file has grown by a random number of lines,
that is, while consumers are receiving messages as they are committed.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

import syncpoint
from syncpoint.mqi import MQMIError
from syncpoint.mqi import constants as C
from waiting import wait_until

SYNCPOINT = str(Path(sys.executable).parent / "syncpoint")
QMGR = "QMKILL"
RUNS = 20
UNITS_PER_PRODUCER = 40  # per run: bounds the queue's growth (no get is ever committed)
MAX_HELD = 4000


def _run(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, SYNCPOINT_HOME=str(home))
    return subprocess.run([SYNCPOINT, *args], env=env, capture_output=True, text=True, timeout=120)


SERVE = "import sys; from syncpoint.server import run_server; sys.exit(run_server(sys.argv[1], port=None))"


def _start(home: Path) -> subprocess.Popen[bytes]:
    """The queue manager's server as a child process (what strmqm starts, without its detaching), accepting."""
    proc = subprocess.Popen([sys.executable, "-c", SERVE, QMGR], env=dict(os.environ, SYNCPOINT_HOME=str(home)))
    info = home / "qmgrs" / QMGR / "server.json"

    def accepting() -> bool:
        try:
            return bool(json.loads(info.read_text())["pid"] == proc.pid)
        except (OSError, ValueError, KeyError):
            return False

    wait_until(accepting, "the server accepting", timeout=60, interval=0.01, process=proc)
    return proc


def _producer(stop: threading.Event, run: int, seed: int) -> None:
    try:
        qm = syncpoint.connect(QMGR)
        q = qm.open("KILL.Q")
        for unit in range(UNITS_PER_PRODUCER):
            if stop.is_set():
                break
            for i in range(4):
                q.put(b"%d %d/%d/%d" % (run, seed, unit, i), persistent=True, syncpoint=True)
            qm.commit()
    except (MQMIError, OSError):
        return  # the server was killed


class Received:
    """The consumers' file of MsgIds, and how many messages of the current run they received."""

    def __init__(self, path: Path) -> None:
        self.file = path.open("a")
        self.lock = threading.Lock()
        self.run = -1
        self.fresh = 0

    def note(self, msg_id: bytes, data: bytes) -> None:
        with self.lock:  # first of all: the MsgId this get returned, on disk
            self.file.write(msg_id.hex() + "\n")
            self.file.flush()
            if data.split(b" ", 1)[0] == b"%d" % self.run:
                self.fresh += 1


def _consumer(stop: threading.Event, received: Received) -> None:
    try:
        qm = syncpoint.connect(QMGR)
        q = qm.open("KILL.Q")
        held = 0
        while not stop.is_set():
            try:
                m = q.get(wait=0.2, syncpoint=True)
            except MQMIError as e:
                if e.reason != C.MQRC_NO_MSG_AVAILABLE:
                    raise
                continue  # keep the unit of work: the next message committed is the next one got
            received.note(m.msg_id, m.data)
            held += 1
            if held >= MAX_HELD:  # under MAXUMSGS; every message goes back to the queue
                qm.backout()
                held = 0
    except (MQMIError, OSError):
        return


@pytest.mark.slow
def test_no_get_ever_returns_a_message_whose_put_is_later_lost(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SYNCPOINT_HOME", str(tmp_path))
    assert _run(tmp_path, "crtmqm", QMGR).returncode == 0
    server = _start(tmp_path)
    qm = syncpoint.connect(QMGR)
    qm.admin("define", "QLOCAL", "KILL.Q", {"MAXDEPTH": 1_000_000})
    qm.disconnect()
    rng = random.Random(24)
    got_path = tmp_path / "got.txt"
    received = Received(got_path)
    started = time.monotonic()
    for run in range(RUNS):
        stop = threading.Event()
        with received.lock:
            received.run, received.fresh = run, 0
        kill_at = rng.randrange(1, 120)  # messages of this run received
        threads = [threading.Thread(target=_producer, args=(stop, run, i)) for i in range(2)]
        threads += [threading.Thread(target=_consumer, args=(stop, received)) for _ in range(2)]
        for t in threads:
            t.start()
        try:
            wait_until(
                lambda k=kill_at, ts=threads: received.fresh >= k or not any(t.is_alive() for t in ts[:2]),
                "the consumers receiving messages",
                timeout=30,
                interval=0.001,
            )
        finally:
            server.send_signal(signal.SIGKILL)
            stop.set()
        for t in threads:
            t.join(30)
            assert not t.is_alive()
        server.wait(30)
        server = _start(tmp_path)
    received.file.close()
    try:
        ids = {line.strip() for line in got_path.read_text().splitlines() if line.strip()}
        qm = syncpoint.connect(QMGR)
        on_queue = {m.msg_id.hex() for m in qm.open("KILL.Q").browse_all()}
        qm.disconnect()
    finally:
        server.send_signal(signal.SIGKILL)
        server.wait(30)
    assert ids, "no consumer received anything"
    lost = ids - on_queue
    assert not lost, f"{len(lost)} message(s) a consumer received are gone after a restart: their put was lost"
    assert time.monotonic() - started < 120
