"""runmqsc and the samples as IBM's reach a queue manager (issue 21): with no name, the default queue manager
(IBM's mqs.ini default, set by ``crtmqm -q``), else AMQ8118E; ``runmqsc -c`` and the client-mode samples
``amqsputc`` / ``amqsgetc`` / ``amqsbcgc`` connect to the server named by MQSERVER (``CHANNEL/TCP/host(port)``),
and DISPLAY CONN / QSTATUS show such a client's address as CONNAME. Real subprocesses, a real server."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from servers import allow_local_clients
from syncpoint import _home
from syncpoint.client import local_server

SYNCPOINT = str(Path(sys.executable).with_name("syncpoint"))


def sp(args: list[str], home: Path, stdin: str = "", **env: str) -> subprocess.CompletedProcess[str]:
    environ = {k: v for k, v in os.environ.items() if k != "MQSERVER"}
    environ.update(SYNCPOINT_HOME=str(home), **env)
    return subprocess.run([SYNCPOINT, *args], input=stdin, capture_output=True, text=True, env=environ, timeout=120)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, str]]:
    """QM1 running with TCP on a free port: (home, MQSERVER naming it)."""
    home = tmp_path_factory.mktemp("home")
    assert sp(["crtmqm", "QM1"], home).returncode == 0
    allow_local_clients(home, "QM1")  # runmqsc -c and the samples: this (administrator) user on SYSTEM.DEF.SVRCONN
    started = sp(["strmqm", "QM1", "--port", "0", "--no-command-server"], home)
    assert started.returncode == 0, started.stderr
    info = local_server("QM1", home)
    assert info is not None and info.get("port")
    yield home, f"SYSTEM.DEF.SVRCONN/TCP/127.0.0.1({info['port']})"
    sp(["endmqm", "-i", "QM1"], home)


def test_runmqsc_without_a_name_uses_the_default_queue_manager(server: tuple[Path, str]) -> None:
    home, _ = server
    _home.set_default_queue_manager("QM1", home)
    try:
        out = sp(["runmqsc"], home, "DISPLAY QMGR QMNAME\n")
    finally:
        _home.set_default_queue_manager(None, home)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "Starting MQSC for queue manager QM1." in out.stdout
    assert "QMNAME(QM1)" in out.stdout


def test_runmqsc_without_a_name_and_no_default_is_amq8118e(tmp_path: Path) -> None:
    out = sp(["runmqsc"], tmp_path, "DISPLAY QMGR\n")
    assert out.returncode == 20
    assert "AMQ8118E: syncpoint queue manager does not exist." in out.stdout
    assert "MQRC_Q_MGR_NAME_ERROR (2058)" in out.stdout


def test_runmqsc_c_connects_by_mqserver_and_display_conn_shows_its_address(server: tuple[Path, str]) -> None:
    home, mqserver = server
    out = sp(["runmqsc", "-c", "QM1"], home, "DISPLAY CONN(*) ALL\n", MQSERVER=mqserver)
    assert out.returncode == 0, out.stdout + out.stderr
    own = [b for b in out.stdout.split("AMQ8276I: Display Connection details.") if "APPLTAG(runmqsc)" in b]
    assert len(own) == 1 and "CONNAME(127.0.0.1)" in own[0]


def test_runmqsc_c_without_mqserver_fails_with_2058(server: tuple[Path, str]) -> None:
    home, _ = server
    out = sp(["runmqsc", "-c", "QM1"], home, "PING QMGR\n")
    assert out.returncode == 20
    assert "MQRC_Q_MGR_NAME_ERROR (2058)" in out.stdout and "MQSERVER" in out.stdout
    bad = sp(["runmqsc", "-c", "QM1"], home, "PING QMGR\n", MQSERVER="SYSTEM.DEF.SVRCONN/LU62/host")
    assert bad.returncode == 20 and "(2538)" in bad.stdout


def test_client_mode_samples_put_browse_and_get_through_mqserver(server: tuple[Path, str]) -> None:
    home, mqserver = server
    assert sp(["runmqsc", "QM1"], home, "DEFINE QLOCAL(APP.C) REPLACE\n").returncode == 0
    put = sp(["amqsputc", "APP.C", "QM1"], home, "over tcp\n", MQSERVER=mqserver)
    assert put.returncode == 0, put.stderr
    shown = sp(["amqsbcgc", "APP.C"], home, MQSERVER=mqserver)  # no name: whichever queue manager MQSERVER reaches
    assert "PutApplName    : 'amqsputc" in shown.stdout
    got = sp(["amqsgetc", "APP.C", "QM1", "--wait", "0"], home, MQSERVER=mqserver)
    assert got.stdout == "over tcp\n"
    missing = sp(["amqsputc", "APP.C", "QM1"], home, "x\n")
    assert missing.returncode != 0 and "2058" in missing.stderr
