"""Configuration as code, as IBM's automatic configuration (issue 38, item 3): ``crtmqm -ic FILE`` runs the MQSC at
creation and again at each ``strmqm``, DEFINEs replacing what exists; a folder's ``.mqsc`` files run in name order;
a script with a syntax error refuses the start, naming the file, the line and IBM's AMQ8405I; ``-ii FILE`` holds
settings read at every start.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from servers import servers_of, syncpoint_run


@pytest.fixture
def home(tmp_path: Path) -> Iterator[Path]:
    with servers_of(tmp_path / "home") as h:
        yield h


def mqsc(home: Path, text: str) -> str:
    done = syncpoint_run(home, "runmqsc", "QM1", input=text)
    return done.stdout


def start(home: Path) -> None:
    done = syncpoint_run(home, "strmqm", "QM1", "--no-tcp")
    assert done.returncode == 0, done.stdout + done.stderr


def end(home: Path) -> None:
    assert syncpoint_run(home, "endmqm", "-i", "QM1").returncode == 0


def test_crtmqm_ic_runs_the_script_at_creation_and_replaces_changes_at_every_start(home: Path, tmp_path: Path) -> None:
    script = tmp_path / "app.mqsc"
    script.write_text("* the application's queues\nDEFINE QLOCAL(APP.IN) MAXDEPTH(10)\nDEFINE QLOCAL(APP.OUT)\n")
    created = syncpoint_run(home, "crtmqm", "-ic", str(script), "QM1")
    assert created.returncode == 0, created.stderr
    start(home)
    assert "MAXDEPTH(10)" in mqsc(home, "DISPLAY QLOCAL(APP.IN) MAXDEPTH")
    mqsc(home, "ALTER QLOCAL(APP.IN) MAXDEPTH(99)")
    end(home)
    start(home)  # IBM: the script runs again at each start, DEFINE with REPLACE: the file is the truth
    assert "MAXDEPTH(10)" in mqsc(home, "DISPLAY QLOCAL(APP.IN) MAXDEPTH")
    # a change to the file applies at the next start
    script.write_text("DEFINE QLOCAL(APP.IN) MAXDEPTH(20)\n")
    end(home)
    start(home)
    assert "MAXDEPTH(20)" in mqsc(home, "DISPLAY QLOCAL(APP.IN) MAXDEPTH")


def test_a_folder_of_mqsc_files_runs_in_name_order(home: Path, tmp_path: Path) -> None:
    folder = tmp_path / "mqsc"
    folder.mkdir()
    # 20 runs after 10 (name order), so its MAXDEPTH is the one kept; a file not named .mqsc is not run
    (folder / "20-tune.mqsc").write_text("ALTER QLOCAL(ORDERS) MAXDEPTH(7)\n")
    (folder / "10-define.mqsc").write_text("DEFINE QLOCAL(ORDERS) MAXDEPTH(3)\n")
    (folder / "notes.txt").write_text("DEFINE QLOCAL(NOT.RUN)\n")
    assert syncpoint_run(home, "crtmqm", "-ic", str(folder), "QM1").returncode == 0
    start(home)
    assert "MAXDEPTH(7)" in mqsc(home, "DISPLAY QLOCAL(ORDERS) MAXDEPTH")
    shown = mqsc(home, "DISPLAY QLOCAL(NOT.RUN)")
    assert "QUEUE(NOT.RUN)" not in shown and "One valid MQSC command could not be processed." in shown


def test_a_syntax_error_refuses_the_start_naming_the_file_the_line_and_ibms_message(home: Path, tmp_path: Path) -> None:
    script = tmp_path / "app.mqsc"
    script.write_text("DEFINE QLOCAL(GOOD)\n")
    assert syncpoint_run(home, "crtmqm", "-ic", str(script), "QM1").returncode == 0
    script.write_text("DEFINE QLOCAL(GOOD)\n\nDEFINE QLOCL(BAD)\n")
    started = syncpoint_run(home, "strmqm", "QM1", "--no-tcp")
    assert started.returncode == 20
    assert f"{script}, line 3:" in started.stderr
    assert "AMQ8405I: Syntax error detected at or near end of command segment below:-" in started.stderr
    assert "DEFINE QLOCL(BAD)" in started.stderr
    assert "STATUS(Running)" not in syncpoint_run(home, "dspmq", "-m", "QM1").stdout


def test_crtmqm_ic_with_a_syntax_error_creates_nothing(home: Path, tmp_path: Path) -> None:
    script = tmp_path / "bad.mqsc"
    script.write_text("DEFINE QLOCAL(A) MAXDEPTH(\n")
    created = syncpoint_run(home, "crtmqm", "-ic", str(script), "QM1")
    assert created.returncode != 0
    assert f"{script}, line 1:" in created.stderr and "AMQ8405I" in created.stderr
    assert not (home / "qmgrs" / "QM1").exists()


def test_a_failing_command_is_listed_and_the_others_still_run(home: Path, tmp_path: Path) -> None:
    script = tmp_path / "app.mqsc"
    # IBM: a command that fails is reported; the queue manager starts with the rest
    script.write_text("DEFINE QLOCAL(FIRST)\nALTER QLOCAL(MISSING) MAXDEPTH(5)\nDEFINE QLOCAL(LAST)\n")
    assert syncpoint_run(home, "crtmqm", "QM1").returncode == 0
    assert syncpoint_run(home, "setmqini", "QM1", f"mqsc-config={script}").returncode == 0
    start(home)
    assert "QUEUE(LAST)" in mqsc(home, "DISPLAY QLOCAL(LAST)")
    log = (home / "qmgrs/QM1/errors/server.log").read_text()
    assert "line 2: ALTER QLOCAL(MISSING) MAXDEPTH(5)" in log


def test_crtmqm_ii_settings_apply_at_every_start(home: Path, tmp_path: Path) -> None:
    ini = tmp_path / "qm.ini.toml"
    ini.write_text("[server]\ntcp = false\ncommand-server = false\n")
    assert syncpoint_run(home, "crtmqm", "-ii", str(ini), "QM1").returncode == 0
    assert f'ini-config = "{ini}"' in syncpoint_run(home, "dspmqini", "QM1").stdout
    start(home)
    shown = syncpoint_run(home, "dspmq", "-x", "-m", "QM1").stdout
    assert "PORT()" in shown  # tcp = false from the -ii file: no TCP port


def test_crtmqm_ii_of_a_file_that_is_not_settings_is_refused(home: Path, tmp_path: Path) -> None:
    ini = tmp_path / "wrong.toml"
    ini.write_text("[server]\nno-such-setting = 1\n")
    created = syncpoint_run(home, "crtmqm", "-ii", str(ini), "QM1")
    assert created.returncode != 0 and "no-such-setting is not a setting" in created.stderr
    assert not (home / "qmgrs" / "QM1").exists()
