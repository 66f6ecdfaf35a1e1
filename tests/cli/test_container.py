"""IBM's container probes and entry point without the container (issue 38, items 3 and 4).

IBM's probes (ibm-messaging/mq-container, cmd/chkmqstarted, chkmqready, chkmqhealthy) exit 0 for yes and 1 for
no (2: chkmqstarted and chkmqhealthy could not tell): chkmqstarted is yes for RUNNING and STARTING, chkmqhealthy for
RUNNING only, chkmqready once the configuration has run and the listener accepts a connection. Each is asked of a
starting, a running, a quiescing and a killed queue manager.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

import syncpoint
from servers import SYNCPOINT, servers_of, start_server, syncpoint_run
from syncpoint.mqi import MQMIError
from syncpoint.mqi import constants as C
from syncpoint.server import pid_alive
from waiting import wait_until

PROBES = ("chkmqstarted", "chkmqready", "chkmqhealthy")


@pytest.fixture
def home(tmp_path: Path) -> Iterator[Path]:
    with servers_of(tmp_path / "home") as h:
        assert syncpoint_run(h, "crtmqm", "QM1").returncode == 0
        yield h


def probes(home: Path) -> dict[str, int]:
    return {probe: syncpoint_run(home, probe, "QM1").returncode for probe in PROBES}


def test_probes_of_a_queue_manager_that_is_starting(home: Path, tmp_path: Path) -> None:
    # the start waits on its configuration script: a pipe that the test writes when it has asked the probes
    fifo = tmp_path / "config.mqsc"
    os.mkfifo(fifo)
    assert syncpoint_run(home, "setmqini", "QM1", f"mqsc-config={fifo}").returncode == 0
    env = dict(os.environ, SYNCPOINT_HOME=str(home))
    strmqm = subprocess.Popen([SYNCPOINT, "strmqm", "QM1", "--no-tcp"], env=env, stdout=subprocess.PIPE, text=True)
    try:
        wait_until(lambda: "STATUS(Starting)" in syncpoint_run(home, "dspmq").stdout, "dspmq says Starting")
        assert probes(home) == {"chkmqstarted": 0, "chkmqready": 1, "chkmqhealthy": 1}
        with open(fifo, "w") as f:
            f.write("DEFINE QLOCAL(CONFIGURED)\n")
        assert strmqm.wait(120) == 0
    finally:
        if strmqm.poll() is None:
            strmqm.kill()
            strmqm.wait()
    assert probes(home) == {"chkmqstarted": 0, "chkmqready": 0, "chkmqhealthy": 0}


def test_probes_of_a_running_queue_manager_on_tcp(home: Path) -> None:
    start_server(home, "QM1", "--tcp", "--port", "0")
    assert probes(home) == {"chkmqstarted": 0, "chkmqready": 0, "chkmqhealthy": 0}
    # IBM's probes take the queue manager's name from MQ_QMGR_NAME
    env = dict(os.environ, SYNCPOINT_HOME=str(home), MQ_QMGR_NAME="QM1")
    assert subprocess.run([SYNCPOINT, "chkmqready"], env=env, capture_output=True).returncode == 0


def test_probes_of_a_quiescing_queue_manager(home: Path) -> None:
    start_server(home, "QM1")
    qm = syncpoint.connect("QM1", home=home)  # an application holds the controlled end back
    try:
        assert syncpoint_run(home, "endmqm", "-c", "QM1").returncode == 0
        wait_until(lambda: "STATUS(Quiescing)" in syncpoint_run(home, "dspmq").stdout, "dspmq says Quiescing")
        assert probes(home) == {"chkmqstarted": 1, "chkmqready": 1, "chkmqhealthy": 1}
    finally:
        qm.disconnect()


def test_probes_of_a_killed_queue_manager(home: Path) -> None:
    start_server(home, "QM1")
    pid = json.loads((home / "qmgrs/QM1/server.json").read_text())["pid"]
    os.kill(pid, signal.SIGKILL)
    wait_until(lambda: not pid_alive(pid), "the server's process has gone")
    assert probes(home) == {"chkmqstarted": 1, "chkmqready": 1, "chkmqhealthy": 1}


def test_probes_that_cannot_tell_exit_2_and_readiness_1(home: Path) -> None:
    assert syncpoint_run(home, "chkmqstarted", "NOSUCH").returncode == 2
    assert syncpoint_run(home, "chkmqhealthy", "NOSUCH").returncode == 2
    assert syncpoint_run(home, "chkmqready", "NOSUCH").returncode == 1  # IBM's chkmqready: 1 whatever went wrong


def _devserver(home: Path, **env: str) -> subprocess.Popen[str]:
    full = dict(os.environ, SYNCPOINT_HOME=str(home), **env)
    return subprocess.Popen(
        [SYNCPOINT, "runmqdevserver", "--host", "127.0.0.1", "--port", "0"],
        env=full,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )


def test_runmqdevserver_honours_ibms_container_variables(tmp_path: Path) -> None:
    home = tmp_path / "home"
    server = _devserver(home, MQ_QMGR_NAME="QMDEV", MQ_APP_PASSWORD="app-pw", MQ_ADMIN_PASSWORD="admin-pw")
    try:
        wait_until(
            lambda: syncpoint_run(home, "chkmqready", "QMDEV").returncode == 0, "runmqdevserver ready", process=server
        )
        port = json.loads((home / "qmgrs/QMDEV/server.json").read_text())["port"]
        app_channel, admin_channel = "DEV.APP.SVRCONN", "DEV.ADMIN.SVRCONN"  # its channels, as IBM's container's
        qm = syncpoint.connect("QMDEV", host=f"127.0.0.1({port})", user="app", password="app-pw", channel=app_channel)
        q = qm.open("DEV.QUEUE.1")  # IBM's developer configuration (MQ_DEV defaults to true)
        q.put(b"hello")
        assert q.get().data == b"hello"
        qm.disconnect()
        admin = syncpoint.connect(
            "QMDEV", host=f"127.0.0.1({port})", user="admin", password="admin-pw", channel=admin_channel
        )
        admin.disconnect()
        for user, password, channel in (
            ("app", "wrong", app_channel),
            ("app", "app-pw", admin_channel),  # the admin channel maps the user admin only (IBM's USERMAP)
            ("admin", "admin-pw", app_channel),  # an administrator on the app channel: BLOCKUSER *MQADMIN
            ("app", "app-pw", "SYSTEM.DEF.SVRCONN"),  # the back-stop rule blocks every other channel
        ):
            with pytest.raises(MQMIError) as e:
                syncpoint.connect("QMDEV", host=f"127.0.0.1({port})", user=user, password=password, channel=channel)
            assert e.value.reason == C.MQRC_NOT_AUTHORIZED, (user, channel)
        server.send_signal(signal.SIGTERM)  # a container's stop: an immediate end, exit 0
        assert server.wait(60) == 0
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()


def test_runmqdevserver_with_mq_dev_false_has_no_developer_queues(tmp_path: Path) -> None:
    home = tmp_path / "home"
    with servers_of(home):
        server = _devserver(home, MQ_QMGR_NAME="QMPLAIN", MQ_DEV="false")
        try:
            wait_until(lambda: syncpoint_run(home, "chkmqready", "QMPLAIN").returncode == 0, "ready", process=server)
            shown = syncpoint_run(home, "runmqsc", "QMPLAIN", input="DISPLAY QLOCAL(DEV.*)\n").stdout
            assert "DEV.QUEUE.1" not in shown
        finally:
            server.send_signal(signal.SIGTERM)
            server.wait(60)
