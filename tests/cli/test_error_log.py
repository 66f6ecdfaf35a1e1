"""The error log like IBM's (issue 21, "IBM's formats"): ``errors/AMQERR01.LOG`` in the queue manager's folder,
rotated to AMQERR02.LOG and AMQERR03.LOG, one entry per event (start, end, connections refused, recovery,
damaged files), written by the server and by embedded use alike.

IBM's entry: a header (date and time, Process, User, Program, Host, Installation, VRMF, QMgr, Time), a blank
line, the AMQnnnnX message, EXPLANATION:, ACTION:, and a line of dashes."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

import syncpoint
from servers import servers_of, syncpoint_run
from syncpoint.client import create_queue_manager, open_embedded
from syncpoint.host import ERROR_LOG_FILES as FILES
from syncpoint.host import ErrorLog
from syncpoint.mqi import MQMIError
from syncpoint.mqi import constants as C

SEPARATOR = "-" * 79


def entries(home: Path, qmgr: str = "QM1", name: str = "AMQERR01.LOG") -> list[str]:
    path = home / "qmgrs" / qmgr / "errors" / name
    text = path.read_text() if path.exists() else ""
    return [e.strip("\n") for e in text.split(SEPARATOR + "\n") if e.strip()]


def ids(home: Path, qmgr: str = "QM1") -> list[str]:
    return [re.search(r"^(AMQ\d{4}[IWES]):", e, re.M).group(1) for e in entries(home, qmgr)]  # type: ignore[union-attr]


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.setenv("SYNCPOINT_HOME", str(tmp_path))
    with servers_of(tmp_path):
        yield tmp_path


def test_an_entry_has_ibms_layout(tmp_path: Path) -> None:
    log = ErrorLog(tmp_path, "QM1")
    log.write("AMQ8003I", "syncpoint queue manager 'QM1' started using V1.", "It started.", "None.")
    text = (tmp_path / "AMQERR01.LOG").read_text()
    lines = text.splitlines()
    assert re.fullmatch(
        r"\d\d/\d\d/\d{4} \d\d:\d\d:\d\d [AP]M - Process\(\d+\.\d+\) User\(.+\) Program\(.+\)", lines[0]
    )
    assert re.fullmatch(r" {20}Host\(.+\) Installation\(syncpoint\)", lines[1])
    assert re.fullmatch(rf" {{20}}VRMF\({re.escape(syncpoint.__version__)}\) QMgr\(QM1\)", lines[2])
    assert re.fullmatch(r" {20}Time\(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z\)", lines[3])
    assert lines[4:] == [
        "",
        "AMQ8003I: syncpoint queue manager 'QM1' started using V1.",
        "",
        "EXPLANATION:",
        "It started.",
        "ACTION:",
        "None.",
        SEPARATOR,
    ]


def test_the_log_rotates_to_02_and_03_at_its_size_limit(tmp_path: Path) -> None:
    log = ErrorLog(tmp_path, "QM1", max_bytes=2000)
    for i in range(40):
        log.write("AMQ8003I", f"entry {i}", "x" * 200)
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == list(FILES)  # never an AMQERR04.LOG
    for name in FILES:
        assert (tmp_path / name).stat().st_size <= 2000
    newest = (tmp_path / "AMQERR01.LOG").read_text()
    assert "entry 39" in newest
    older, oldest = (tmp_path / "AMQERR02.LOG").read_text(), (tmp_path / "AMQERR03.LOG").read_text()
    last_of = [int(m) for m in re.findall(r"entry (\d+)", oldest + older + newest)]
    assert last_of == sorted(last_of) and last_of[-1] == 39 and last_of[0] > 0  # the oldest entries were dropped


def test_the_server_writes_its_start_and_end(home: Path) -> None:
    assert syncpoint_run(home, "crtmqm", "QM1").returncode == 0
    assert syncpoint_run(home, "strmqm", "QM1", "--no-tcp").returncode == 0
    assert ids(home) == ["AMQ8003I"]
    assert "Program(" in entries(home)[0] and "started using V" in entries(home)[0]
    assert syncpoint_run(home, "endmqm", "-i", "QM1").returncode == 0
    assert ids(home) == ["AMQ8003I", "AMQ8004I"]
    assert "ended immediately" in entries(home)[1]


def test_embedded_use_writes_the_same_log(home: Path) -> None:
    create_queue_manager("QM1", home=home)
    with syncpoint.connect("QM1", home=home) as qm:
        qm.open("SYSTEM.DEFAULT.LOCAL.QUEUE").put(b"x")
    open_embedded("QM1", home=home).close(abnormal=False)
    assert ids(home) == ["AMQ8003I", "AMQ8004I"]
    assert "ended normally" in entries(home)[1]


def test_recovery_at_start_is_logged(home: Path) -> None:
    create_queue_manager("QM1", home=home)
    qm = syncpoint.connect("QM1", home=home)
    q = qm.open("SYSTEM.DEFAULT.LOCAL.QUEUE")
    q.put(b"x", persistent=True)
    q.get(syncpoint=True)  # in flight when the process "crashes"
    open_embedded("QM1", home=home).abandon()
    open_embedded("QM1", home=home).close(abnormal=False)
    assert ids(home) == ["AMQ8003I", "AMQ7233I", "AMQ8003I", "AMQ8004I"]
    assert "1 in-flight gets were backed out" in entries(home)[1]


def test_damaged_files_are_logged(home: Path) -> None:
    create_queue_manager("QM1", home=home)
    (home / "qmgrs/QM1/qm.db").write_bytes(b"this is not a database" * 100)
    with pytest.raises(MQMIError):
        open_embedded("QM1", home=home)
    assert ids(home) == ["AMQ6184E"]
    assert "cannot use its files" in entries(home)[0] and "EXPLANATION:" in entries(home)[0]


def test_a_refused_connection_is_logged_by_the_server(home: Path) -> None:
    assert syncpoint_run(home, "crtmqm", "QM1").returncode == 0
    assert syncpoint_run(home, "passwd", "QM1", "app", input="pw-1\n").returncode == 0
    assert syncpoint_run(home, "strmqm", "QM1", "--port", "0").returncode == 0
    port = json.loads((home / "qmgrs/QM1/server.json").read_text())["port"]
    with pytest.raises(MQMIError) as e:
        # on SYSTEM.ADMIN.SVRCONN, which IBM's default channel authentication rules leave open to non-administrators
        syncpoint.connect(
            "QM1", host=f"localhost({port})", user="app", password="wrong", channel="SYSTEM.ADMIN.SVRCONN"
        )
    assert e.value.reason == C.MQRC_NOT_AUTHORIZED
    assert syncpoint_run(home, "endmqm", "-i", "QM1").returncode == 0  # returns once the server has ended
    assert ids(home) == ["AMQ8003I", "AMQ5534E", "AMQ8004I"]
    assert "authentication failed for user 'app'" in entries(home)[1]
