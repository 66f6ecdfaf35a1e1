"""endmqm as IBM defines it, with an application connected (issue 21, item 4: "endmqm -i says ended when it has
not (a client still connected: dspmq shows Ending immediately, strmqm refuses)").

IBM's endmqm: -c controlled (the default) "Control is returned to you immediately and you are not notified of
when the queue manager has stopped"; -w "equivalent to a controlled shutdown except that control is returned to
you only after the queue manager has stopped"; -i "Any MQI requests issued after the command has been issued
fail ... Control is returned after the queue manager has ended"; -p preemptive.
"""

from __future__ import annotations

import json
import os
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


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.setenv("SYNCPOINT_HOME", str(tmp_path))
    assert syncpoint_run(tmp_path, "crtmqm", "QM1").returncode == 0
    with servers_of(tmp_path):
        start_server(tmp_path, "QM1")
        yield tmp_path


def server_pid(home: Path) -> int:
    pid: int = json.loads((home / "qmgrs/QM1/server.json").read_text())["pid"]
    return pid


def status(home: Path) -> str:
    return syncpoint_run(home, "dspmq", "-m", "QM1").stdout.split("STATUS(", 1)[1].split(")", 1)[0]


def test_endmqm_i_with_a_client_connected_returns_once_the_queue_manager_has_ended(home: Path) -> None:
    pid = server_pid(home)
    client = syncpoint.connect("QM1", appl_name="connected client")
    q = client.open("SYSTEM.DEFAULT.LOCAL.QUEUE")
    q.put(b"in flight", syncpoint=True)
    ended = syncpoint_run(home, "endmqm", "-i", "QM1")
    assert ended.returncode == 0, ended.stderr
    assert ended.stdout.splitlines() == [
        "syncpoint queue manager 'QM1' ending.",
        "syncpoint queue manager 'QM1' ended.",
    ]
    # what it says is true: the process is gone, dspmq agrees and strmqm starts it again at once
    assert not pid_alive(pid)
    assert status(home) == "Ended immediately"
    with pytest.raises(MQMIError) as e:
        q.put(b"after")
    assert e.value.reason in (C.MQRC_Q_MGR_STOPPING, C.MQRC_CONNECTION_BROKEN)
    start_server(home, "QM1")
    with syncpoint.connect("QM1") as again:
        assert again.open("SYSTEM.DEFAULT.LOCAL.QUEUE").depth == 0  # the unit of work was backed out


def test_endmqm_w_waits_for_the_applications_then_says_ended(home: Path) -> None:
    pid = server_pid(home)
    client = syncpoint.connect("QM1", appl_name="connected client")
    waiting = subprocess.Popen(
        [SYNCPOINT, "endmqm", "-w", "QM1"],
        stdout=subprocess.PIPE,
        text=True,
        env=dict(os.environ, SYNCPOINT_HOME=str(home)),
    )
    try:
        assert waiting.stdout is not None
        assert waiting.stdout.readline().strip() == "Waiting for queue manager 'QM1' to end."
        wait_until(lambda: status(home) == "Quiescing", "dspmq showing Quiescing")
        assert waiting.poll() is None  # a client is connected: the controlled end cannot have happened
        client.disconnect()
        rest = waiting.communicate(timeout=120)[0]
    finally:
        if waiting.poll() is None:
            waiting.kill()
    assert waiting.returncode == 0
    assert rest.strip() == "syncpoint queue manager 'QM1' ended."
    assert not pid_alive(pid) and status(home) == "Ended normally"


def test_endmqm_c_returns_at_once_and_the_queue_manager_ends_when_the_client_leaves(home: Path) -> None:
    client = syncpoint.connect("QM1")
    ended = syncpoint_run(home, "endmqm", "QM1")  # -c is the default
    assert ended.returncode == 0 and "Quiesce request accepted" in ended.stdout
    assert status(home) == "Quiescing"
    with pytest.raises(MQMIError) as e:  # a new connection is refused while quiescing
        syncpoint.connect("QM1")
    assert e.value.reason in (C.MQRC_Q_MGR_QUIESCING, C.MQRC_Q_MGR_STOPPING, C.MQRC_Q_MGR_NOT_AVAILABLE)
    client.disconnect()
    wait_until(lambda: status(home) == "Ended normally", "dspmq showing Ended normally")


def test_endmqm_p_returns_once_the_process_has_ended(home: Path) -> None:
    pid = server_pid(home)
    client = syncpoint.connect("QM1")
    ended = syncpoint_run(home, "endmqm", "-p", "QM1")
    assert ended.returncode == 0 and ended.stdout.strip().endswith("ended.")
    assert not pid_alive(pid) and status(home) == "Ended preemptively"
    del client


def test_endmqm_of_a_queue_manager_that_is_not_running_says_so(home: Path) -> None:
    assert syncpoint_run(home, "endmqm", "-i", "QM1").returncode == 0
    again = syncpoint_run(home, "endmqm", "QM1")
    assert again.returncode == 40 and "is not running" in again.stderr
