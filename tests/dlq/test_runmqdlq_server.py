"""runmqdlq against a running queue manager (strmqm): several handlers on one queue with one table process each
message exactly once (seed 003 note 7; dlq-handler.md step 8), and the handler started by triggering (a DLQ with
TRIGGER TRIGTYPE(FIRST), a process whose ApplId runs the handler with a rules file, ENVRDATA('&'), runmqtrm).
Every program is a real process."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from dlq_helpers import DLQ, put_dead_letter

import syncpoint
from syncpoint.mqi import constants as C
from waiting import wait_until

QMGR = "QM1"
BIN = Path(sys.executable).with_name("syncpoint")
INITQ = "SYSTEM.DEFAULT.INITIATION.QUEUE"


def env_for(home: Path) -> dict[str, str]:
    return dict(os.environ, SYNCPOINT_HOME=str(home))


def cmd(home: Path, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(BIN), *args], input=stdin, capture_output=True, text=True, env=env_for(home), timeout=120
    )


def has_command(name: str) -> bool:
    return subprocess.run([str(BIN), name, "--help"], capture_output=True, text=True, timeout=60).returncode == 0


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Path]:
    if not has_command("strmqm"):
        pytest.skip("`syncpoint strmqm` (the server issue) is not on main: concurrent handlers need the server")
    assert cmd(tmp_path, "crtmqm", "-u", DLQ, QMGR).returncode == 0
    started = cmd(tmp_path, "strmqm", QMGR, "--no-tcp", "--no-command-server")
    assert started.returncode == 0, started.stdout + started.stderr
    try:
        yield tmp_path
    finally:
        cmd(tmp_path, "endmqm", "-i", QMGR)


MESSAGES = 600


def start_handler(home: Path, table: str) -> subprocess.Popen[str]:
    """``runmqdlq DLQ QM1`` as a process reading ``table`` from its standard input; its output on a pipe."""
    p = subprocess.Popen(
        [str(BIN), "runmqdlq", DLQ, QMGR],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=env_for(home),
    )
    assert p.stdin is not None
    p.stdin.write(table)
    p.stdin.close()
    return p


def test_three_handlers_on_one_queue_process_each_message_exactly_once(server: Path) -> None:
    with syncpoint.connect(QMGR, home=server) as qm:
        qm.admin("define", "QLOCAL", "FWD.A", {"MAXDEPTH": 100_000})
    table = "RETRYINT(2) WAIT(YES)\nACTION(FWD) FWDQ(FWD.A) HEADER(YES)\n"
    handlers = [start_handler(server, table) for _ in range(3)]
    try:
        for p in handlers:
            assert p.stdout is not None
            line = p.stdout.readline()
            assert "AMQ8708I" in line, line + p.stdout.read()
        with syncpoint.connect(QMGR, home=server) as qm:
            ids = [bytes(put_dead_letter(qm, b"%05d" % i).MsgId) for i in range(MESSAGES)]
            fwd = qm.open("FWD.A")
            wait_until(lambda: fwd.depth == MESSAGES, "forwarding every message")
            for p in handlers:  # once every handler has ended nothing more arrives: a message forwarded twice shows
                p.send_signal(signal.SIGTERM)
            for p in handlers:
                p.wait(60)
            forwarded = [m.msg_id for m in fwd.browse_all()]
            assert qm.open(DLQ).depth == 0
    finally:
        outputs = []
        for p in handlers:
            p.send_signal(signal.SIGTERM)
            assert p.stdout is not None
            outputs.append(p.stdout.read())
            p.wait(60)
    assert sorted(forwarded) == sorted(ids)  # each exactly once
    counts = [int(re.search(r"(\d+) forwarded", out).group(1)) for out in outputs]  # type: ignore[union-attr]
    assert sum(counts) == MESSAGES, outputs
    assert all(p.returncode == 0 for p in handlers), outputs


def test_runmqdlq_started_by_triggering_processes_the_dead_letter_queue(server: Path) -> None:
    if not has_command("runmqtrm"):
        pytest.skip("`syncpoint runmqtrm` (the trigger monitor issue) is not on main")
    rules = server / "qrule.rul"
    rules.write_text("WAIT(NO)\nREASON(MQRC_Q_FULL) ACTION(FWD) FWDQ(FWD.A) HEADER(NO)\n")
    log = server / "runmqdlq.log"
    with syncpoint.connect(QMGR, home=server) as qm:
        qm.admin("define", "QLOCAL", "FWD.A", {"MAXDEPTH": 100_000})
        qm.admin(
            "define",
            "PROCESS",
            "DLQ.HANDLER",
            {"APPLICID": f"{BIN} runmqdlq < {rules} > {log} 2>&1", "ENVRDATA": "&"},
        )
        qm.admin(
            "alter",
            "QLOCAL",
            DLQ,
            {"TRIGGER": C.MQTC_ON, "TRIGTYPE": C.MQTT_FIRST, "INITQ": INITQ, "PROCESS": "DLQ.HANDLER"},
        )
    monitor = subprocess.Popen(
        [str(BIN), "runmqtrm", "-m", QMGR],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=env_for(server),
    )
    try:
        with syncpoint.connect(QMGR, home=server) as qm:
            wait_until(lambda: qm.admin("queue_status", INITQ)["IPPROCS"] > 0, "runmqtrm opening its queue")
            put_dead_letter(qm, b"one", reason=C.MQRC_Q_FULL)  # the first message triggers the handler
            put_dead_letter(qm, b"two", reason=C.MQRC_Q_FULL)
            fwd = qm.open("FWD.A")
            wait_until(lambda: fwd.depth == 2, "the triggered handler forwarding the dead letters")
            assert sorted(m.data for m in fwd.browse_all()) == [b"one", b"two"]
            wait_until(lambda: "ending" in (log.read_text() if log.exists() else ""), "the handler ending (WAIT(NO))")
            assert qm.open(DLQ).depth == 0
    finally:
        cmd(server, "endmqm", "-i", QMGR)  # the monitor ends with its queue manager
        monitor_out, _ = monitor.communicate(timeout=60)
    assert f'"TMC    2{DLQ}' in monitor_out  # runmqtrm started the handler for the dead-letter queue
    text = log.read_text()
    assert f"INPUTQ({DLQ})" in text and "2 forwarded" in text, text


def test_handler_ends_normally_when_the_queue_manager_ends(server: Path) -> None:
    p = start_handler(server, "WAIT(YES) RETRYINT(600)\nACTION(DISCARD)\n")
    assert p.stdout is not None and "AMQ8708I" in p.stdout.readline()
    ended = cmd(server, "endmqm", "-i", QMGR)
    assert ended.returncode == 0, ended.stdout + ended.stderr
    rest = p.stdout.read()
    assert p.wait(60) == 0, rest
    assert "is ending" in rest and "Dead-letter queue handler ending" in rest


def test_sigterm_while_acting_on_a_message_ends_after_its_unit_of_work_and_counts_it(server: Path) -> None:
    # A SIGTERM that landed while a forward's commit was in flight ended the handler before it counted the
    # message: the queue manager had moved it, the handler's statistics (dlq-handler.md, the ending report) did not
    # say so. Now the handler ends after that message's unit of work, and its report matches the queues. The
    # moment of the signal is a race, so three handlers are stopped in turn.
    total = 400
    with syncpoint.connect(QMGR, home=server) as qm:
        for round_ in range(3):
            target = f"FWD.{round_}"
            qm.admin("define", "QLOCAL", target, {"MAXDEPTH": 100_000})
            dlq = qm.open(DLQ)
            for i in range(total - dlq.depth):
                put_dead_letter(qm, b"%05d" % i)
            p = start_handler(server, f"WAIT(YES)\nACTION(FWD) FWDQ({target}) HEADER(YES)\n")
            assert p.stdout is not None and "AMQ8708I" in p.stdout.readline()
            fwd = qm.open(target)
            wait_until(lambda: fwd.depth >= total // 4, "the handler forwarding", process=p)  # noqa: B023
            p.send_signal(signal.SIGTERM)
            out = p.stdout.read()
            assert p.wait(60) == 0, out
            forwarded = int(re.search(r"(\d+) forwarded", out).group(1))  # type: ignore[union-attr]
            assert forwarded == fwd.depth, out
            assert fwd.depth + dlq.depth == total
