"""The sample programs amqsput, amqsget and amqsbcg as real subprocesses in shell pipelines (issue 4,
acceptance 5; ../shared/reference/mqsc.md: "put each input line as a message; get and print messages until 15 s
without one; browse and print each message's MQMD fields and a hex dump of its data")."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

import syncpoint
from servers import servers_of, start_server
from waiting import wait_until

SYNCPOINT = str(Path(sys.executable).with_name("syncpoint"))


def env_for(home: Path) -> dict[str, str]:
    return dict(os.environ, SYNCPOINT_HOME=str(home))


def sp(args: list[str], home: Path, stdin: bytes = b"") -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([SYNCPOINT, *args], input=stdin, capture_output=True, env=env_for(home), timeout=120)


def shell(pipeline: str, home: Path) -> subprocess.CompletedProcess[bytes]:
    cmd = pipeline.replace("syncpoint ", shlex.quote(SYNCPOINT) + " ")
    return subprocess.run(["bash", "-o", "pipefail", "-c", cmd], capture_output=True, env=env_for(home), timeout=120)


@pytest.fixture
def home(tmp_path: Path) -> Iterator[Path]:
    """QM1 running as a server with APP.IN and APP.OUT: IBM's samples need a running queue manager."""
    assert sp(["crtmqm", "QM1"], tmp_path).returncode == 0
    with servers_of(tmp_path):
        start_server(tmp_path, "QM1")
        mqsc = b"DEFINE QLOCAL(APP.IN) DEFPSIST(YES)\nDEFINE QLOCAL(APP.OUT)\n"
        assert sp(["runmqsc", "QM1"], tmp_path, mqsc).returncode == 0
        yield tmp_path


def test_amqsput_puts_each_line_and_amqsget_prints_each_message(home: Path) -> None:
    put = shell("printf 'first\\nsecond line\\nthird\\n' | syncpoint amqsput APP.IN QM1", home)
    assert put.returncode == 0, put.stderr
    assert b"Sample AMQSPUT0 start" in put.stderr and b"target queue is APP.IN" in put.stderr
    got = sp(["amqsget", "APP.IN", "QM1", "--wait", "0"], home)
    assert got.returncode == 0, got.stderr
    assert got.stdout == b"first\nsecond line\nthird\n"  # only the messages on standard output
    assert b"no more messages" in got.stderr
    again = sp(["amqsget", "APP.IN", "QM1", "--wait", "0"], home)
    assert again.stdout == b""  # they were got, not browsed


def test_an_empty_line_ends_amqsput_input(home: Path) -> None:
    sp(["amqsput", "APP.IN", "QM1"], home, b"one\n\ntwo\n")
    assert sp(["amqsget", "APP.IN", "QM1", "--wait", "0"], home).stdout == b"one\n"


def test_samples_in_pipelines_with_other_tools(home: Path) -> None:
    put = shell("seq 1 100 | syncpoint amqsput APP.IN QM1", home)
    assert put.returncode == 0, put.stderr
    counted = shell("syncpoint amqsget APP.IN QM1 --wait 0 | grep -c 7", home)
    assert counted.stdout == b"19\n"  # 7, 17, 27 … 97 and 70-79
    assert shell("syncpoint amqsbcg APP.IN QM1 | grep -c 'MQGET of message'", home).stdout == b"0\n"


@pytest.fixture
def running(home: Path) -> None:
    """The queue manager running as a server (so several sample processes can use it at once): ``home``'s."""


def test_amqsget_to_amqsput_pipeline_moves_every_message_through_a_running_queue_manager(
    home: Path, running: object
) -> None:
    lines = b"".join(f"order {i}\n".encode() for i in range(50))
    assert sp(["amqsput", "APP.IN", "QM1"], home, lines).returncode == 0
    moved = shell("syncpoint amqsget APP.IN QM1 --wait 1 | syncpoint amqsput APP.OUT QM1", home)
    assert moved.returncode == 0, moved.stderr
    out = sp(["amqsget", "APP.OUT", "QM1", "--wait", "0"], home)
    assert out.stdout == lines
    # runmqsc answers from the same running queue manager
    status = sp(["runmqsc", "QM1"], home, b"DIS QS(APP.*) CURDEPTH LPUTDATE\n")
    assert status.returncode == 0
    assert status.stdout.count(b"CURDEPTH(0)") == 2


def test_amqsget_prints_a_message_put_while_it_waits(home: Path, running: object) -> None:
    getter = subprocess.Popen(
        [SYNCPOINT, "amqsget", "APP.IN", "QM1", "--wait", "20"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env_for(home),
    )
    try:
        with syncpoint.connect("QM1", home=home) as qm:  # asking in this process: cheaper than a runmqsc each time
            wait_until(
                lambda: qm.admin("queue_status", "APP.IN")["IPPROCS"] > 0, "amqsget opening APP.IN", process=getter
            )
        handles = sp(["runmqsc", "QM1"], home, b"DIS QSTATUS(APP.IN) TYPE(HANDLE) APPLTAG INPUT\n").stdout
        assert b"APPLTAG(amqsget)" in handles and b"INPUT(SHARED)" in handles
        assert sp(["amqsput", "APP.IN", "QM1"], home, b"late arrival\n").returncode == 0
        assert getter.stdout is not None
        assert getter.stdout.readline() == b"late arrival\n"
    finally:
        getter.terminate()
        getter.wait(timeout=30)


def test_amqsget_waits_the_given_seconds_for_a_message_then_ends(home: Path) -> None:
    start = time.monotonic()
    out = sp(["amqsget", "APP.IN", "QM1", "--wait", "1.5"], home)
    elapsed = time.monotonic() - start
    assert out.returncode == 0 and out.stdout == b""
    assert elapsed >= 1.5


def test_amqsget_waits_15_seconds_by_default() -> None:
    # mqsc.md: "get and print messages until 15 s without one"
    from syncpoint.cli._mqsc import amqsget

    assert amqsget.__defaults__ == (None, 15.0)  # (qmgr: the default queue manager, wait)


def test_amqsbcg_browses_and_prints_every_mqmd_field_and_a_hex_dump(home: Path) -> None:
    sp(["amqsput", "APP.IN", "QM1"], home, b"Hello, syncpoint! \x01\x02\n")
    out = sp(["amqsbcg", "APP.IN", "QM1"], home)
    assert out.returncode == 0, out.stderr
    text = out.stdout.decode()
    assert "MQGET of message number 1, CompCode:0 Reason:0" in text
    for field in (
        "StrucId",
        "Version",
        "Report",
        "MsgType",
        "Expiry",
        "Feedback",
        "Encoding",
        "CodedCharSetId",
        "Format",
        "Priority",
        "Persistence",
        "MsgId",
        "CorrelId",
        "BackoutCount",
        "ReplyToQ",
        "ReplyToQMgr",
        "UserIdentifier",
        "AccountingToken",
        "ApplIdentityData",
        "PutApplType",
        "PutApplName",
        "PutDate",
        "PutTime",
        "ApplOriginData",
        "GroupId",
        "MsgSeqNumber",
        "Offset",
        "MsgFlags",
        "OriginalLength",
    ):
        assert f"  {field}" in text, field
    assert "  Format : 'MQSTR   '" in text  # IBM's amqsbcg layout (tests/mqsc/test_amqsbcg.py)
    assert "Persistence : 1" in text
    assert "PutApplName    : 'amqsput" in text
    assert "MsgId : X'414D5120514D3120" in text  # 'AMQ QM1 ' in hex
    assert " length - 20 of 20 bytes" in text
    assert "00000000:  4865 6C6C 6F2C 2073 796E 6370 6F69 6E74 'Hello, syncpoint'" in text
    assert "00000010:  2120 0102" + " " * 30 + " '! ..            '" in text
    # browsing leaves the message in place
    assert sp(["amqsget", "APP.IN", "QM1", "--wait", "0"], home).stdout == b"Hello, syncpoint! \x01\x02\n"


def test_amqsbcg_numbers_every_message_in_delivery_order(home: Path) -> None:
    sp(["amqsput", "APP.IN", "QM1"], home, b"a\nb\nc\n")
    text = sp(["amqsbcg", "APP.IN", "QM1"], home).stdout.decode()
    assert [line.strip() for line in text.splitlines() if "MQGET of message number" in line] == [
        f"MQGET of message number {n}, CompCode:0 Reason:0" for n in (1, 2, 3)
    ]
    assert text.rstrip().endswith("MQDISC")


@pytest.mark.parametrize("sample", ["amqsput", "amqsget", "amqsbcg"])
def test_a_sample_on_a_missing_queue_says_why_and_fails(home: Path, sample: str) -> None:
    out = sp([sample, "NO.SUCH.QUEUE", "QM1"], home, b"x\n")
    assert out.returncode != 0
    assert b"MQOPEN ended with reason code 2085 (MQRC_UNKNOWN_OBJECT_NAME)" in out.stderr


def test_amqsput_to_a_put_inhibited_queue_reports_the_reason(home: Path) -> None:
    sp(["runmqsc", "QM1"], home, b"ALTER QLOCAL(APP.IN) PUT(DISABLED)\n")
    out = sp(["amqsput", "APP.IN", "QM1"], home, b"x\n")
    assert out.returncode != 0
    assert b"MQPUT ended with reason code 2051 (MQRC_PUT_INHIBITED)" in out.stderr


def test_a_sample_with_no_running_queue_manager_fails_with_2059_and_keeps_no_message(tmp_path: Path) -> None:
    # issue 21, item 1: "seq 1 1000 | syncpoint amqsput APP.IN QM1 exits 0, then amqsget finds nothing" — the
    # queue manager ran inside amqsput's process. IBM's amqsput needs a running queue manager; with none it
    # prints "MQCONNX ended with reason code 2059" and ends.
    assert sp(["crtmqm", "QM1"], tmp_path).returncode == 0
    put = shell("seq 1 1000 | syncpoint amqsput SYSTEM.DEFAULT.LOCAL.QUEUE QM1", tmp_path)
    assert put.returncode != 0
    assert b"MQCONNX ended with reason code 2059 (MQRC_Q_MGR_NOT_AVAILABLE)" in put.stderr
    assert b"strmqm QM1" in put.stderr  # and says how to start it
    for tool in (["amqsget", "SYSTEM.DEFAULT.LOCAL.QUEUE", "QM1"], ["amqsbcg", "SYSTEM.DEFAULT.LOCAL.QUEUE", "QM1"]):
        out = sp(tool, tmp_path)
        assert out.returncode != 0 and b"reason code 2059" in out.stderr, out
    # nothing ran in their processes: the queue manager's files were never opened by them
    with servers_of(tmp_path):
        start_server(tmp_path, "QM1")
        assert sp(["amqsget", "SYSTEM.DEFAULT.LOCAL.QUEUE", "QM1", "--wait", "0"], tmp_path).stdout == b""


def test_non_persistent_messages_of_one_sample_reach_the_next_through_the_running_queue_manager(home: Path) -> None:
    # issue 21, item 1: the samples' messages live in the running queue manager, not in the sample's process
    put = shell("seq 1 1000 | syncpoint amqsput APP.OUT QM1", home)  # APP.OUT: DEFPSIST(NO)
    assert put.returncode == 0, put.stderr
    got = sp(["amqsget", "APP.OUT", "QM1", "--wait", "0"], home)
    assert got.stdout.decode().split() == [str(i) for i in range(1, 1001)]


def test_a_sample_on_a_missing_queue_manager_fails(tmp_path: Path) -> None:
    out = sp(["amqsget", "APP.IN", "NOQM"], tmp_path)
    assert out.returncode != 0
    assert b"MQCONNX ended with reason code 2058 (MQRC_Q_MGR_NAME_ERROR)" in out.stderr


def test_amqsget_leaves_the_message_it_could_not_write_on_the_queue(home: Path) -> None:
    sp(["amqsput", "APP.IN", "QM1"], home, b"one\ntwo\n")
    closed = shell("syncpoint amqsget APP.IN QM1 --wait 0 | true", home)  # the reader is gone before any write
    assert b"the output pipe was closed" in closed.stderr
    assert sp(["amqsget", "APP.IN", "QM1", "--wait", "0"], home).stdout == b"one\ntwo\n"
