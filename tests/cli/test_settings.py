"""A queue manager's settings kept in its folder (qm.toml), dspmqini / setmqini, and strmqm --foreground for
systemd and containers (issue 21, item 6: "strmqm --port/--tls-cert/--cpus must be repeated at every start")."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import tomllib
from collections.abc import Iterator
from pathlib import Path

import pytest

from servers import SYNCPOINT, servers_of, syncpoint_run
from waiting import wait_until


@pytest.fixture
def home(tmp_path: Path) -> Iterator[Path]:
    assert syncpoint_run(tmp_path, "crtmqm", "QM1").returncode == 0
    with servers_of(tmp_path):
        yield tmp_path


def settings_file(home: Path) -> Path:
    return home / "qmgrs/QM1/qm.toml"


def server_json(home: Path) -> dict[str, object]:
    info: dict[str, object] = json.loads((home / "qmgrs/QM1/server.json").read_text())
    return info


def test_strmqm_flags_given_once_apply_at_the_next_starts(home: Path) -> None:
    started = syncpoint_run(home, "strmqm", "QM1", "--no-tcp", "--limit", "max-connections=50")
    assert started.returncode == 0, started.stderr
    assert "settings kept in" in started.stdout
    assert tomllib.loads(settings_file(home).read_text()) == {
        "server": {"tcp": False},
        "limits": {"max-connections": 50},
    }
    assert syncpoint_run(home, "endmqm", "-i", "QM1").returncode == 0
    again = syncpoint_run(home, "strmqm", "QM1")  # no flags: the kept settings
    assert again.returncode == 0, again.stderr
    assert "no TCP" in again.stdout and "settings kept" not in again.stdout
    assert server_json(home)["port"] is None
    assert "max-connections=50" in (home / "qmgrs/QM1/errors/server.log").read_text().rsplit("limits:", 1)[1]


def test_a_port_given_after_a_start_without_tcp_serves_tcp_again(home: Path) -> None:
    assert syncpoint_run(home, "strmqm", "QM1", "--no-tcp").returncode == 0
    assert syncpoint_run(home, "endmqm", "-i", "QM1").returncode == 0
    again = syncpoint_run(home, "strmqm", "QM1", "--port", "0")
    assert again.returncode == 0, again.stderr
    assert isinstance(server_json(home)["port"], int)
    assert tomllib.loads(settings_file(home).read_text()) == {"server": {"tcp": True, "port": 0}}


def test_setmqini_changes_and_dspmqini_shows_the_settings(home: Path) -> None:
    changed = syncpoint_run(home, "setmqini", "QM1", "port=1415", "cpus=all", "busy-poll=no")
    assert changed.returncode == 0, changed.stderr
    shown = syncpoint_run(home, "dspmqini", "QM1").stdout
    assert "port = 1415" in shown and 'cpus = "all"' in shown and "busy-poll = false" in shown
    assert '# host = "127.0.0.1"' in shown  # a default, as a comment
    assert syncpoint_run(home, "setmqini", "QM1", "--reset", "cpus").returncode == 0
    assert tomllib.loads(settings_file(home).read_text()) == {"server": {"port": 1415, "busy-poll": False}}


@pytest.mark.parametrize("bad", ["colour=red", "port=abc", "port=70000", "max-connections=0", "tcp=maybe", "port"])
def test_setmqini_refuses_what_is_not_a_setting_and_changes_nothing(home: Path, bad: str) -> None:
    assert syncpoint_run(home, "setmqini", "QM1", "port=1415").returncode == 0
    before = settings_file(home).read_text()
    out = syncpoint_run(home, "setmqini", "QM1", bad)
    assert out.returncode == 20 and "AMQ8101E" in out.stderr and "nothing changed" in out.stderr
    assert settings_file(home).read_text() == before


def test_strmqm_with_a_damaged_settings_file_names_it_and_does_not_start(home: Path) -> None:
    settings_file(home).write_text("[server]\nport = 'twelve'\n")
    out = syncpoint_run(home, "strmqm", "QM1")
    assert out.returncode == 20 and "qm.toml" in out.stderr and "port" in out.stderr
    assert "STATUS(Ended normally)" in syncpoint_run(home, "dspmq").stdout


def test_strmqm_foreground_serves_until_sigterm_then_ends_cleanly(home: Path) -> None:
    # systemd (Type=simple) and containers: the server runs in the command's process, its log on standard
    # error, and SIGTERM ends it cleanly (exit 0, status Ended immediately, the error log's end entry)
    proc = subprocess.Popen(
        [SYNCPOINT, "strmqm", "QM1", "--foreground", "--no-tcp"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=dict(os.environ, SYNCPOINT_HOME=str(home)),
    )
    try:
        wait_until(lambda: (home / "qmgrs/QM1/server.json").exists(), "the server serving", process=proc)
        assert server_json(home)["pid"] == proc.pid  # in the command's own process
        put = syncpoint_run(home, "amqsput", "SYSTEM.DEFAULT.LOCAL.QUEUE", "QM1", input="hello\n")
        assert put.returncode == 0, put.stderr
        proc.send_signal(signal.SIGTERM)
        out, errors = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, errors
    assert "starting" in out
    assert "serving" in errors  # the server's log, on standard error
    assert "STATUS(Ended immediately)" in syncpoint_run(home, "dspmq").stdout
    log = (home / "qmgrs/QM1/errors/AMQERR01.LOG").read_text()
    assert "AMQ8003I" in log and "AMQ8004I" in log
