"""strmqm / endmqm / dspmq and remote clients as real processes (issues: the server; MQSC and control commands)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import syncpoint
from syncpoint.mqi import MQMIError
from syncpoint.mqi import constants as C
from waiting import wait_until

SYNCPOINT = str(Path(sys.executable).parent / "syncpoint")


def run(home: Path, *args: str, input: str | None = None, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, SYNCPOINT_HOME=str(home))
    return subprocess.run([SYNCPOINT, *args], env=env, capture_output=True, text=True, input=input, timeout=timeout)


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.setenv("SYNCPOINT_HOME", str(tmp_path))
    yield tmp_path
    # never leave a server behind
    for info in tmp_path.glob("qmgrs/*/server.json"):
        try:
            import json

            os.kill(json.loads(info.read_text())["pid"], signal.SIGKILL)
        except (OSError, ValueError, KeyError):
            pass


def dspmq_status(home: Path, qm: str) -> str:
    out = run(home, "dspmq", "-m", qm).stdout
    return out.split("STATUS(", 1)[1].split(")", 1)[0]


@pytest.fixture
def started(home: Path) -> str:
    assert run(home, "crtmqm", "-u", "SYSTEM.DEAD.LETTER.QUEUE", "QM1").returncode == 0
    r = run(home, "strmqm", "QM1", "--port", "0")
    assert r.returncode == 0, r.stderr
    return "QM1"


def test_strmqm_returns_when_accepting_and_dspmq_says_running(home: Path, started: str) -> None:
    assert dspmq_status(home, "QM1") == "Running"
    qm = syncpoint.connect("QM1")
    assert type(qm.transport).__name__ == "RemoteTransport"
    qm.disconnect()


def test_second_strmqm_says_running_and_fails(home: Path, started: str) -> None:
    r = run(home, "strmqm", "QM1", "--port", "0")
    assert r.returncode != 0 and "already running" in r.stderr


def test_endmqm_controlled_waits_for_applications_then_ended_normally(home: Path, started: str) -> None:
    qm = syncpoint.connect("QM1")
    r = run(home, "endmqm", "-c", "QM1")
    assert r.returncode == 0 and "Quiesce request accepted" in r.stdout
    wait_until(lambda: dspmq_status(home, "QM1") == "Quiescing", "dspmq showing Quiescing", timeout=30)
    qm.disconnect()
    wait_until(lambda: dspmq_status(home, "QM1") == "Ended normally", "dspmq showing Ended normally", timeout=30)


def test_endmqm_immediate_then_status_ended_immediately_and_nothing_lost(home: Path, started: str) -> None:
    qm = syncpoint.connect("QM1")
    qm.admin("define", "QLOCAL", "Q1", {"DEFPSIST": C.MQPER_PERSISTENT})
    q = qm.open("Q1")
    q.put(b"one")
    q.get(syncpoint=True)  # in flight when the queue manager ends
    r = run(home, "endmqm", "-i", "QM1")
    assert r.returncode == 0, r.stderr
    with pytest.raises(MQMIError) as e:
        q.put(b"two")
    assert e.value.reason in (C.MQRC_Q_MGR_STOPPING, C.MQRC_CONNECTION_BROKEN)
    wait_until(lambda: dspmq_status(home, "QM1") == "Ended immediately", "dspmq showing Ended immediately", 30)
    again = syncpoint.connect("QM1")  # embedded now: the server has ended
    m = again.open("Q1").get()
    assert (m.data, m.backout_count) == (b"one", 1)


def test_endmqm_preemptive_and_restart_backs_out_in_flight_work(home: Path, started: str) -> None:
    qm = syncpoint.connect("QM1")
    qm.admin("define", "QLOCAL", "Q1", {"DEFPSIST": C.MQPER_PERSISTENT})
    q = qm.open("Q1")
    q.put_many([b"a", b"b"])
    q.get(syncpoint=True)
    assert run(home, "endmqm", "-p", "QM1").returncode == 0
    assert dspmq_status(home, "QM1") == "Ended preemptively"
    assert run(home, "strmqm", "QM1", "--port", "0").returncode == 0
    qm2 = syncpoint.connect("QM1")
    got = [(m.data, m.backout_count) for m in qm2.open("Q1").messages()]
    assert got == [(b"a", 1), (b"b", 0)]
    qm2.disconnect()
    assert run(home, "endmqm", "-i", "QM1").returncode == 0


def test_killed_server_shows_ended_unexpectedly_and_restart_recovers(home: Path, started: str) -> None:
    import json

    qm = syncpoint.connect("QM1")
    qm.admin("define", "QLOCAL", "Q1", {"DEFPSIST": C.MQPER_PERSISTENT})
    qm.open("Q1").put_many([b"x", b"y"], syncpoint=True)
    qm.commit()
    pid = json.loads((home / "qmgrs/QM1/server.json").read_text())["pid"]
    os.kill(pid, signal.SIGKILL)
    wait_until(lambda: dspmq_status(home, "QM1") == "Ended unexpectedly", "dspmq showing Ended unexpectedly", 30)
    assert run(home, "strmqm", "QM1", "--port", "0").returncode == 0
    assert [m.data for m in syncpoint.connect("QM1").open("Q1").messages()] == [b"x", b"y"]
    run(home, "endmqm", "-i", "QM1")


def test_strmqm_of_unreadable_data_says_what_is_wrong_and_changes_nothing(home: Path) -> None:
    assert run(home, "crtmqm", "QMX").returncode == 0
    db = home / "qmgrs/QMX/qm.db"
    db.write_bytes(b"this is not a database" * 100)
    before = db.read_bytes()
    r = run(home, "strmqm", "QMX", "--port", "0")
    assert r.returncode != 0
    assert "QMX" in r.stderr and "cannot start" in r.stderr
    assert db.read_bytes() == before
    assert dspmq_status(home, "QMX") != "Running"


def test_strmqm_of_missing_queue_manager_fails(home: Path) -> None:
    r = run(home, "strmqm", "NOPE")
    assert r.returncode != 0 and "does not exist" in r.stderr


CLIENT = textwrap.dedent(
    """
    import sys, time, syncpoint
    qm = syncpoint.connect("QM1")
    q = qm.open("Q1")
    for _ in range(int(sys.argv[1])):
        q.get(syncpoint=True)
    print("holding", flush=True)
    time.sleep(600)
    """
)


def test_sigkilled_client_holding_uncommitted_gets_has_them_backed_out(home: Path, started: str) -> None:
    qm = syncpoint.connect("QM1")
    qm.admin("define", "QLOCAL", "Q1", {"DEFPSIST": C.MQPER_PERSISTENT})
    q = qm.open("Q1")
    q.put_many([b"m1", b"m2", b"m3"])
    proc = subprocess.Popen([sys.executable, "-c", CLIENT, "2"], stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None and proc.stdout.readline().strip() == "holding"
    status = qm.admin("queue_status", "Q1")
    assert (status["UNCOM"], status["IPPROCS"]) == (2, 1)  # the client's input handle
    proc.kill()
    proc.wait()
    wait_until(lambda: not qm.admin("queue_status", "Q1")["UNCOM"], "the backout", timeout=10, interval=0.05)
    status = qm.admin("queue_status", "Q1")
    assert (status["UNCOM"], status["IPPROCS"], status["CURDEPTH"]) == (0, 0, 3)
    got = [(m.data, m.backout_count) for m in q.messages()]
    assert got == [(b"m1", 1), (b"m2", 1), (b"m3", 0)]
    qm.disconnect()
    run(home, "endmqm", "-i", "QM1")


RESERVER = textwrap.dedent(
    """
    import struct, sys, time, syncpoint
    from syncpoint.mqi import MQGMO, MQMD
    from syncpoint.mqi import constants as C
    qm = syncpoint.connect("QM1")
    q = qm.open("Q1")
    tokens, opts = [], C.MQGMO_BROWSE_FIRST
    while True:
        gmo = MQGMO(Version=C.MQGMO_VERSION_3, Options=opts | C.MQGMO_NO_WAIT)
        try:
            qm.mqget(q._h("browse"), MQMD(), gmo)
        except Exception:
            break
        tokens.append(struct.unpack(">QQ", gmo.MsgToken)[1])
        opts = C.MQGMO_BROWSE_NEXT
    print(len(q.reserve(tokens)), flush=True)
    time.sleep(600)
    """
)


def test_sigkilled_client_holding_reservations_has_them_released(home: Path, started: str) -> None:
    qm = syncpoint.connect("QM1")
    qm.admin("define", "QLOCAL", "Q1", {})
    q = qm.open("Q1")
    q.put_many([b"m1", b"m2"])
    proc = subprocess.Popen([sys.executable, "-c", RESERVER], stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None and proc.stdout.readline().strip() == "2"
    assert q.get_or_none() is None and q.depth == 2  # reserved by the other process
    proc.kill()
    proc.wait()
    got: list[Any] = [None]

    def released() -> bool:  # the reservations of the killed process end with its connection
        got[0] = q.get_or_none()
        return got[0] is not None

    wait_until(released, "the release of the reservations", timeout=10, interval=0.05)
    assert got[0].data == b"m1"
    assert q.get().data == b"m2"
    qm.disconnect()
    run(home, "endmqm", "-i", "QM1")


WAITER = textwrap.dedent(
    """
    import syncpoint
    qm = syncpoint.connect("QM1")
    print(qm.open("Q1").get(wait=60).text, flush=True)
    """
)


def test_get_waiting_in_one_process_is_woken_by_a_put_from_another(home: Path, started: str) -> None:
    qm = syncpoint.connect("QM1")
    qm.admin("define", "QLOCAL", "Q1", {})
    proc = subprocess.Popen([sys.executable, "-c", WAITER], stdout=subprocess.PIPE, text=True)
    wait_until(lambda: qm.admin("queue_status", "Q1")["IPPROCS"], "the waiter's open", timeout=20, interval=0.05)
    start = time.monotonic()
    qm.open("Q1").put("across processes")
    out, _ = proc.communicate(timeout=30)
    assert out.strip() == "across processes"
    assert time.monotonic() - start < 10
    qm.disconnect()
    run(home, "endmqm", "-i", "QM1")


def test_passwd_then_tcp_needs_it(home: Path, started: str) -> None:
    import json

    assert run(home, "passwd", "QM1", "app", input="pw-1\n").returncode == 0
    assert run(home, "setmqaut", "-m", "QM1", "-t", "qmgr", "-p", "app", "+connect").returncode == 0  # issue 35
    port = json.loads((home / "qmgrs/QM1/server.json").read_text())["port"]
    # SYSTEM.ADMIN.SVRCONN: the channel IBM's default channel authentication rules leave open to non-administrators
    with pytest.raises(MQMIError) as e:
        syncpoint.connect("QM1", host=f"localhost({port})", channel="SYSTEM.ADMIN.SVRCONN")
    assert e.value.reason == C.MQRC_NOT_AUTHORIZED
    qm = syncpoint.connect(
        "QM1", host=f"localhost({port})", user="app", password="pw-1", channel="SYSTEM.ADMIN.SVRCONN"
    )
    qm.disconnect()
    run(home, "endmqm", "-i", "QM1")


INTERRUPTED = textwrap.dedent(
    """
    import signal, sys, syncpoint
    from syncpoint.mqi import MQMIError
    def stop(signum, frame):
        raise SystemExit(0)
    signal.signal(signal.SIGTERM, stop)
    qm = syncpoint.connect("QM1")
    q = qm.open("Q1")
    q.get(syncpoint=True)
    print("waiting", flush=True)
    try:
        q.get(wait=600)  # interrupted by SIGTERM while the server holds the wait
    except SystemExit:
        try:
            qm.backout()
        except MQMIError as e:
            print(e.reason, flush=True)
    """
)


def test_signal_during_a_waiting_get_ends_the_connection_at_once_and_backs_out(home: Path, started: str) -> None:
    qm = syncpoint.connect("QM1")
    qm.admin("define", "QLOCAL", "Q1", {"DEFPSIST": C.MQPER_PERSISTENT})
    qm.open("Q1").put(b"held")
    proc = subprocess.Popen([sys.executable, "-c", INTERRUPTED], stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None and proc.stdout.readline().strip() == "waiting"
    time.sleep(0.3)  # the get(wait=600) reaching the server: nothing outside the client shows that it has
    proc.send_signal(signal.SIGTERM)
    out, _ = proc.communicate(timeout=20)  # not the 600 s of the wait
    assert out.strip() == str(C.MQRC_CONNECTION_BROKEN)
    wait_until(lambda: not qm.admin("queue_status", "Q1")["UNCOM"], "the backout", timeout=10, interval=0.05)
    m = qm.open("Q1").get()
    assert (m.data, m.backout_count) == (b"held", 1)
    qm.disconnect()
    run(home, "endmqm", "-i", "QM1")


def test_endmqm_immediate_falls_back_to_a_signal_when_the_socket_does_not_answer(home: Path, started: str) -> None:
    import json

    info = json.loads((home / "qmgrs/QM1/server.json").read_text())
    os.unlink(info["unix"])  # e.g. removed by a clean-up of /tmp: the server cannot be reached on it
    r = run(home, "endmqm", "-i", "QM1")
    assert r.returncode == 0, r.stderr
    assert "signalling process" in r.stderr
    wait_until(lambda: dspmq_status(home, "QM1") == "Ended immediately", "dspmq showing Ended immediately", 30)
