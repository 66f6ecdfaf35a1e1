"""The README's main job runs: `syncpoint demo` on a fresh $SYNCPOINT_HOME (a real subprocess)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path


def run(args: list[str], home: Path) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, SYNCPOINT_HOME=str(home), COLUMNS="200")
    return subprocess.run(
        [sys.executable, "-c", "from syncpoint.cli import main; main()", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )


def test_demo_creates_the_default_queue_manager_and_moves_every_order(tmp_path: Path) -> None:
    out = run(["demo"], tmp_path)
    assert out.returncode == 0, out.stderr
    assert (tmp_path / "qmgrs" / "DEMO" / "qm.db").exists()
    assert "order 2, order 3, order 4" in out.stdout
    assert "BackoutCount 1" in out.stdout
    again = run(["demo"], tmp_path)  # idempotent on an existing queue manager
    assert again.returncode == 0, again.stderr


def test_crtmqm_dspmq_dltmqm(tmp_path: Path) -> None:
    assert run(["crtmqm", "QMX"], tmp_path).returncode == 0
    dup = run(["crtmqm", "QMX"], tmp_path)
    assert dup.returncode != 0 and "already exists" in dup.stderr.replace("\n", " ")
    assert "QMNAME(QMX)" in run(["dspmq"], tmp_path).stdout
    assert run(["dltmqm", "QMX"], tmp_path).returncode == 0
    assert "QMX" not in run(["dspmq"], tmp_path).stdout


def test_crtmqm_of_an_existing_queue_manager_is_amq8110e_with_exit_8_and_a_bad_name_exit_72(tmp_path: Path) -> None:
    # IBM's crtmqm return codes: 8 "queue manager exists", 72 "queue manager name error"
    assert run(["crtmqm", "QMX"], tmp_path).returncode == 0
    dup = run(["crtmqm", "QMX"], tmp_path)
    assert dup.returncode == 8 and "AMQ8110E" in dup.stderr
    bad = run(["crtmqm", "BAD NAME!"], tmp_path)
    assert bad.returncode == 72 and "AMQ8110E" not in bad.stderr


def test_crtmqm_of_a_bad_or_too_long_name_prints_amq8102e_and_exits_72(tmp_path: Path) -> None:
    # IBM's crtmqm answers a QMgrName that breaks the naming rules (characters, more than 48) with its numbered
    # message AMQ8102E "object name specified in ... not valid" and return code 72 "queue manager name error"
    for name in ("BAD NAME!", "Q" * 49):
        bad = run(["crtmqm", name], tmp_path)
        assert bad.returncode == 72, bad.stderr
        assert bad.stderr.startswith("AMQ8102E: ") and name in bad.stderr, bad.stderr
        assert not (tmp_path / "qmgrs" / name).exists()
    assert run(["crtmqm", "Q" * 48], tmp_path).returncode == 0  # 48 is IBM's limit, not past it
