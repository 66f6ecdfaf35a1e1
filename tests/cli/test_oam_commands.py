"""IBM's authority commands against a running queue manager (issue 35 item 2, "Bad input"): setmqaut, dspmqaut,
dmpmqaut and syncpoint's group, with IBM's syntax, output and exit codes; a refused command stores nothing.

One server for the module (every command is a process of its own); exit codes are setmqaut's table (IBM's
setmqaut reference: 36 invalid arguments, 40 queue manager not available, 147 object type missing, 148 invalid
object type, 149 entity name missing, 150 authorization specification missing, 151 invalid authorization).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from servers import kill_servers, start_server, syncpoint_run


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    home = tmp_path_factory.mktemp("oam-home")
    assert syncpoint_run(home, "crtmqm", "QM1").returncode == 0
    start_server(home)
    yield home
    kill_servers(home)


@pytest.mark.parametrize(
    ("args", "code"),
    [
        (["-n", "A.**B", "-t", "q", "-p", "alice", "+put"], 36),  # a generic pattern IBM refuses
        (["-n", "Q1", "-t", "q", "-p", "u" * 1000, "+put"], 36),  # a user name of 1,000 characters
        (["-n", "Q1", "-t", "q", "-p", "alice", "+fly"], 151),  # an unknown authority
        (["-n", "Q1", "-t", "listener", "-p", "alice", "+put"], 148),  # a type syncpoint has no objects of
        (["-n", "Q1", "-p", "alice", "+put"], 147),
        (["-n", "Q1", "-t", "q", "+put"], 149),
        (["-n", "Q1", "-t", "q", "-p", "alice"], 150),
    ],
)
def test_setmqaut_refuses_bad_input_with_ibms_exit_code_and_stores_nothing(
    home: Path, args: list[str], code: int
) -> None:
    out = syncpoint_run(home, "setmqaut", "-m", "QM1", *args)
    assert out.returncode == code, out.stdout + out.stderr
    assert out.stderr.strip() and "completed successfully" not in out.stdout


@pytest.mark.parametrize(
    ("args", "first_line", "code"),
    [
        (["-n", "Q1", "-t", "q", "-p", "u" * 1000, "+put"], "AMQ7026E: A principal or group name was invalid.", 36),
        (["-n", "Q1", "-t", "q", "-g", "nosuchgroup", "+put"], "AMQ7026E: A principal or group name was invalid.", 36),
        (["-n", "Q1", "-t", "listener", "-p", "alice", "+put"], "AMQ7085E: The object type is not valid.", 148),
    ],
)
def test_setmqaut_names_a_bad_entity_or_type_with_ibms_message(
    home: Path, args: list[str], first_line: str, code: int
) -> None:
    # IBM's setmqaut: AMQ7026E for a principal or group it cannot use (exit 36), AMQ7085E for the type (148)
    out = syncpoint_run(home, "setmqaut", "-m", "QM1", *args)
    assert out.stderr.splitlines()[0] == first_line, out.stderr
    assert out.returncode == code
    assert "nosuchgroup" not in syncpoint_run(home, "dmpmqaut", "-m", "QM1").stdout


def test_setmqaut_dspmqaut_dmpmqaut_round_trip(home: Path) -> None:
    ok = syncpoint_run(home, "setmqaut", "-m", "QM1", "-n", "PAY.*", "-t", "queue", "-p", "bob", "+put", "+inq")
    assert (ok.returncode, ok.stdout) == (0, "The setmqaut command completed successfully.\n"), ok.stderr
    shown = syncpoint_run(home, "dspmqaut", "-m", "QM1", "-n", "PAY.IN", "-t", "q", "-p", "bob")
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout == "Entity bob has the following authorizations for object PAY.IN:\n\tinq\n\tput\n"
    dumped = syncpoint_run(home, "dmpmqaut", "-m", "QM1", "-p", "bob", "-a")
    assert dumped.stdout.splitlines() == ["setmqaut -m QM1 -n 'PAY.*' -t queue -p bob +inq +put"]
    gone = syncpoint_run(home, "setmqaut", "-m", "QM1", "-n", "PAY.*", "-t", "queue", "-p", "bob", "-remove")
    assert gone.returncode == 0, gone.stderr
    assert syncpoint_run(home, "dmpmqaut", "-m", "QM1", "-p", "bob").stdout == ""  # and the bad ones stored nothing
    assert "alice" not in syncpoint_run(home, "dmpmqaut", "-m", "QM1").stdout


def test_a_queue_manager_that_is_not_running_is_exit_code_40(home: Path) -> None:
    assert syncpoint_run(home, "crtmqm", "QM2").returncode == 0
    out = syncpoint_run(home, "setmqaut", "-m", "QM2", "-t", "qmgr", "-p", "bob", "+connect")
    assert out.returncode == 40 and "AMQ8146E" in out.stderr, out.stderr
