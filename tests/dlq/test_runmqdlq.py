"""`syncpoint runmqdlq` as a real command in subprocesses: rules from standard input, reports on standard output,
positional QName / QMgrName, a table with errors processing nothing, WAIT(YES) running until stopped, the MQTMC2
of a trigger monitor as argument, and SIGKILL at random moments losing and duplicating nothing."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from dlq_helpers import DLQ
from dlq_helpers import put_dead_letter as put_any

import syncpoint
from servers import servers_of, start_server
from syncpoint.client import QueueManager, create_queue_manager
from syncpoint.mqi import MQTM, MQTMC2
from syncpoint.mqi import constants as C

QMGR = "DLQQM"
SYNCPOINT = Path(sys.executable).with_name("syncpoint")


@contextmanager
def queue_manager(home: Path) -> Iterator[QueueManager]:
    """A connection to the running queue manager, ended at the end."""
    qm = syncpoint.connect(QMGR, home=home)
    try:
        yield qm
    finally:
        qm.disconnect()


@pytest.fixture
def home(tmp_path: Path) -> Iterator[Path]:
    """DLQQM running: runmqdlq needs a running queue manager, as IBM's does (issue 21, item 1)."""
    create_queue_manager(QMGR, dlq=DLQ, home=tmp_path)
    with servers_of(tmp_path):
        start_server(tmp_path, QMGR)
        with queue_manager(tmp_path) as qm:
            for name in ("APP.Q", "FWD.A", "OTHER.DLQ"):
                qm.admin("define", "QLOCAL", name, {"MAXDEPTH": 100_000, "DEFPSIST": C.MQPER_PERSISTENT})
        yield tmp_path


def put_dead_letter(qm: QueueManager, data: bytes = b"payload", **kw: object) -> object:
    """A persistent dead letter: these tests restart the queue manager between steps."""
    kw.setdefault("Persistence", C.MQPER_PERSISTENT)
    return put_any(qm, data, **kw)  # type: ignore[arg-type]


def env(home: Path) -> dict[str, str]:
    return dict(os.environ, SYNCPOINT_HOME=str(home))


def runmqdlq(home: Path, rules: str, *args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(SYNCPOINT), "runmqdlq", *args],
        input=rules,
        capture_output=True,
        text=True,
        env=env(home),
        timeout=timeout,
    )


def depths(home: Path, *names: str) -> list[int]:
    with queue_manager(home) as qm:
        return [qm.open(n).depth for n in names]


def test_rules_from_stdin_report_on_stdout(home: Path) -> None:
    with queue_manager(home) as qm:
        for i in range(3):
            put_dead_letter(qm, b"m%d" % i, persistent=True) if False else put_dead_letter(qm, b"m%d" % i)
    out = runmqdlq(home, f"INPUTQM({QMGR}) WAIT(NO)\nACTION(FWD) FWDQ(FWD.A) HEADER(NO)\n")
    assert out.returncode == 0, out.stdout + out.stderr
    assert f"AMQ8708I: Dead-letter queue handler started to process INPUTQ({DLQ})." in out.stdout
    assert "3 forwarded" in out.stdout
    assert depths(home, DLQ, "FWD.A") == [0, 3]


def test_table_with_errors_processes_nothing_and_names_every_error(home: Path) -> None:
    with queue_manager(home) as qm:
        put_dead_letter(qm)
    out = runmqdlq(home, f"INPUTQM({QMGR}) RETRY(3)\nACTION(DISCARD)\nDISCARD\nACTION(FWD) FWDQ(X) RETRIES(2)\n")
    assert out.returncode == 20
    lines = [line for line in out.stdout.splitlines() if "line " in line]
    assert [line.split("line ")[1].split(":")[0] for line in lines] == ["1", "3", "3", "4"]
    assert "RETRY is a rule keyword" in out.stdout and "RETRIES" in out.stdout
    assert "did not start" in out.stdout
    assert depths(home, DLQ) == [1]


def test_positional_queue_and_queue_manager_override_the_table(home: Path) -> None:
    with queue_manager(home) as qm:
        put_dead_letter(qm)  # on the DEADQ: not processed
        first = qm.open(DLQ).browse(first=True)
        qm.open("OTHER.DLQ").put(first.data, md=first.md)
    out = runmqdlq(home, "INPUTQ(NO.SUCH.Q) INPUTQM(NO.SUCH.QM) WAIT(NO)\nACTION(DISCARD)\n", "OTHER.DLQ", QMGR)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "INPUTQ(OTHER.DLQ)" in out.stdout
    assert depths(home, DLQ, "OTHER.DLQ") == [1, 0]


def test_blank_positional_queue_name_means_deadq(home: Path) -> None:
    with queue_manager(home) as qm:
        put_dead_letter(qm)
    out = runmqdlq(home, "INPUTQ(OTHER.DLQ) WAIT(NO)\nACTION(DISCARD)\n", " ", QMGR)
    assert out.returncode == 0 and f"INPUTQ({DLQ})" in out.stdout
    assert depths(home, DLQ) == [0]


def test_unknown_queue_manager_is_a_clear_error(home: Path) -> None:
    out = runmqdlq(home, "WAIT(NO)\nACTION(DISCARD)\n", " ", "NOSUCHQM")
    assert out.returncode == 20 and "NOSUCHQM" in out.stdout


def test_with_no_running_queue_manager_it_fails_with_2059(tmp_path: Path) -> None:
    # issue 21, item 1: the handler connects to the running queue manager, never runs one in its own process
    create_queue_manager(QMGR, dlq=DLQ, home=tmp_path)
    out = runmqdlq(tmp_path, "WAIT(NO)\nACTION(DISCARD)\n", " ", QMGR)
    assert out.returncode == 20 and ("2059" in out.stdout or "MQRC_Q_MGR_NOT_AVAILABLE" in out.stdout), out.stdout


def test_more_than_two_arguments_is_an_error(home: Path) -> None:
    out = runmqdlq(home, "WAIT(NO)\nACTION(DISCARD)\n", DLQ, QMGR, "EXTRA")
    assert out.returncode == 20 and "EXTRA" in out.stdout


def test_wait_yes_keeps_running_until_stopped(home: Path) -> None:
    with queue_manager(home) as qm:
        put_dead_letter(qm)
    p = subprocess.Popen(
        [str(SYNCPOINT), "runmqdlq", " ", QMGR],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env=env(home),
    )
    assert p.stdin is not None and p.stdout is not None
    p.stdin.write("RETRYINT(1) WAIT(YES)\nACTION(DISCARD)\n")
    p.stdin.close()
    assert "AMQ8708I" in p.stdout.readline()
    time.sleep(3)  # "it does not end by itself" needs real time to pass (3 RETRYINTs): there is no event to wait for
    assert p.poll() is None  # still waiting for work
    p.send_signal(signal.SIGTERM)
    rest = p.stdout.read()
    assert p.wait(30) == 0
    assert "1 discarded" in rest
    assert depths(home, DLQ) == [0]


def test_started_with_a_trigger_message_it_processes_the_queue_named_in_it(home: Path) -> None:
    with queue_manager(home) as qm:
        put_dead_letter(qm)
    tm = MQTM(QName=b"OTHER.DLQ", ProcessName=b"DLQ.HANDLER")
    tmc2 = MQTMC2.from_tm(tm, QMGR).pack().decode()
    with queue_manager(home) as qm:
        data = qm.open(DLQ).get().data
        put_dead_letter(qm, data[172:])
        m = qm.open(DLQ).get()
        qm.open("OTHER.DLQ").put(m.data, md=m.md)
    out = runmqdlq(home, "WAIT(NO)\nACTION(FWD) FWDQ(FWD.A)\n", tmc2, "env", "words")  # then EnvData
    assert out.returncode == 0, out.stdout + out.stderr
    assert "INPUTQ(OTHER.DLQ)" in out.stdout
    assert depths(home, "OTHER.DLQ", "FWD.A") == [0, 1]


def test_triggered_with_names_in_the_applid_the_names_win_and_the_mqtmc2_is_accepted(home: Path) -> None:
    """A process ApplicId 'runmqdlq OTHER.DLQ QM1 < rules': runmqtrm appends the MQTMC2 (and EnvData)."""
    tmc2 = MQTMC2.from_tm(MQTM(QName=b"APP.Q", ProcessName=b"P"), QMGR).pack().decode()
    with queue_manager(home) as qm:
        put_dead_letter(qm)
        dl = qm.open(DLQ).get()
        qm.open("OTHER.DLQ").put(dl.data, md=dl.md)
    out = runmqdlq(home, "WAIT(NO)\nACTION(FWD) FWDQ(FWD.A)\n", "OTHER.DLQ", QMGR, tmc2, "&")
    assert out.returncode == 0, out.stdout + out.stderr
    assert "INPUTQ(OTHER.DLQ)" in out.stdout
    assert depths(home, "OTHER.DLQ", "FWD.A") == [0, 1]


def test_triggered_with_only_the_queue_in_the_applid_takes_the_manager_from_the_mqtmc2(home: Path) -> None:
    tmc2 = MQTMC2.from_tm(MQTM(QName=b"APP.Q", ProcessName=b"P"), QMGR).pack().decode()
    with queue_manager(home) as qm:
        put_dead_letter(qm)
    out = runmqdlq(home, "WAIT(NO)\nACTION(DISCARD)\n", DLQ, tmc2)
    assert out.returncode == 0, out.stdout + out.stderr
    assert depths(home, DLQ) == [0]


# -- crash safety ---------------------------------------------------------------------------------------
MESSAGES = 1000
KILLS = 8


@pytest.mark.slow
def test_sigkill_at_any_point_leaves_each_message_on_the_dlq_or_at_its_destination_once(home: Path) -> None:
    """Issue 7, item 4: get in syncpoint + put in syncpoint + commit, so a kill at any moment leaves every
    message either still on the DLQ or at its destination — never both, never neither."""
    rng = random.Random(7)
    with queue_manager(home) as qm:
        ids = set()
        for i in range(MESSAGES):
            md = put_any(qm, b"%06d" % i, Persistence=C.MQPER_PERSISTENT)
            ids.add(bytes(md.MsgId))
    rules = "WAIT(NO)\nACTION(FWD) FWDQ(FWD.A) HEADER(YES)\n"
    kills = 0
    finished = False
    for life in range(60):
        p = subprocess.Popen(
            [str(SYNCPOINT), "runmqdlq", DLQ, QMGR],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env(home),
        )
        assert p.stdin is not None and p.stdout is not None
        p.stdin.write(rules.encode())
        p.stdin.close()
        if life % 5 == 4:
            time.sleep(rng.uniform(0.0, 0.5))  # now and then during start-up
        else:
            assert b"AMQ8708I" in p.stdout.readline()  # the handler has opened the queue: kill while it works
            time.sleep(rng.uniform(0.0, 0.25))
        if p.poll() is None and kills < KILLS:
            p.send_signal(signal.SIGKILL)
            p.wait()
            kills += 1
        else:
            p.stdout.read()  # after KILLS kills, this life handles the rest (a client of the server: slower)
            p.wait(300)
            assert p.returncode == 0, f"runmqdlq ended with {p.returncode}"
            finished = True
        p.stdout.close()
        # after every life: each message exactly once, on the DLQ or at FWD.A
        with queue_manager(home) as qm:
            on_dlq = [m.msg_id for m in qm.open(DLQ).browse_all()]
            at_dest = [m.msg_id for m in qm.open("FWD.A").browse_all()]
        assert len(on_dlq) == len(set(on_dlq)) and len(at_dest) == len(set(at_dest))
        assert not set(on_dlq) & set(at_dest), "a message is both on the DLQ and at its destination"
        assert set(on_dlq) | set(at_dest) == ids, "a message is neither on the DLQ nor at its destination"
        if finished:
            break
    assert finished and kills >= 3, (finished, kills)
    assert len(at_dest) == MESSAGES


@pytest.mark.parametrize("locale", ["C.UTF-8", "C"])
def test_a_byte_that_is_not_utf8_in_the_rules_table_is_a_table_error_naming_its_line(home: Path, locale: str) -> None:
    # seed 003: "The rules table is validated when the DLQ handler starts" — a non-UTF-8 byte once crashed the
    # handler with a UnicodeEncodeError traceback when it matched the first message.
    with queue_manager(home) as qm:
        put_dead_letter(qm)
    r = subprocess.run(
        [str(SYNCPOINT), "runmqdlq"],
        input=b"INPUTQ(' ')\nACTION(DISCARD) APPLNAME('x\xff')\n",
        capture_output=True,
        env=dict(env(home), LC_ALL=locale),
        timeout=120,
    )
    out = r.stdout.decode()
    assert r.returncode == 20, (out, r.stderr)
    assert "line 2" in out and "0xFF" in out and "Traceback" not in r.stderr.decode()
    assert depths(home, DLQ) == [1]  # nothing processed
