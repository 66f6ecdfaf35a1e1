"""A queue manager's files are private to their owner: folders 0700, files 0600; wider ones are fixed at start.

Issue "Hardening", defect 6: "crtmqm creates $SYNCPOINT_HOME, qmgrs/ and the queue manager's folder 0755 and qm.db,
the journal and the WAL 0644: user nobody read a persistent message body from the files. Create them private to
the owner (as IBM's data directories are to mqm); fix existing ones at strmqm with a notice." The tests walk the
whole tree, so a file added later is covered too.
"""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

import syncpoint
from syncpoint.client import create_queue_manager, open_embedded

QM = "QMPRIVATE"


def modes(root: Path) -> dict[str, int]:
    """Every folder and file under ``root`` (and ``root`` itself), relative path -> permission bits."""
    found = {".": stat.S_IMODE(os.stat(root).st_mode)}
    for parent, dirs, files in os.walk(root):
        for name in dirs + files:
            path = Path(parent, name)
            found[str(path.relative_to(root))] = stat.S_IMODE(os.lstat(path).st_mode)
    return found


def wider_than_private(root: Path) -> dict[str, str]:
    """The paths whose mode is not 0700 (folders) or 0600 (files)."""
    bad = {}
    for relative, mode in modes(root).items():
        wanted = 0o700 if (root / relative).is_dir() else 0o600
        if mode != wanted:
            bad[relative] = f"{mode:04o}"
    return bad


@pytest.fixture
def permissive_umask() -> Iterator[None]:
    """A umask that lets everything through: the modes must come from syncpoint, not from the umask."""
    old = os.umask(0)
    try:
        yield
    finally:
        os.umask(old)


def test_crtmqm_creates_the_home_and_every_file_and_folder_private_to_the_owner(tmp_path, permissive_umask):
    home = tmp_path / "home"  # crtmqm creates it
    create_queue_manager(QM, home=home)
    assert wider_than_private(home) == {}
    assert {"qmgrs", f"qmgrs/{QM}", f"qmgrs/{QM}/qm.db", f"qmgrs/{QM}/qm.db.journal"} <= set(modes(home))


def test_a_running_queue_manager_keeps_its_log_journal_and_marker_files_private(tmp_path, permissive_umask):
    home = tmp_path / "home"
    create_queue_manager(QM, home=home)
    qm = syncpoint.connect(QM, home=home)
    try:
        qm.admin("define", "QLOCAL", "Q1", {"DEFPSIST": 1})
        queue = qm.open("Q1")
        queue.put(b"a secret body", syncpoint=True)
        qm.commit()
        queue.get(syncpoint=True)  # a marker record in flight
        files = set(modes(home))
        assert {f"qmgrs/{QM}/qm.db-wal", f"qmgrs/{QM}/qm.db-shm", f"qmgrs/{QM}/qm.db.inflight"} <= files
        assert wider_than_private(home) == {}  # while it runs: SQLite's -wal and -shm take qm.db's mode
        qm.backout()
    finally:
        qm.disconnect()
        open_embedded(QM, home=home).close()
    assert wider_than_private(home) == {}


def make_wide(home: Path) -> None:
    """What an older syncpoint (or a careless operator) left: folders 0755, files 0644."""
    for relative in modes(home):
        path = home / relative
        os.chmod(path, 0o755 if path.is_dir() else 0o644)


def test_an_embedded_open_makes_a_queue_manager_with_wider_modes_private_with_a_logged_notice(tmp_path, caplog):
    home = tmp_path / "home"
    create_queue_manager(QM, home=home)
    make_wide(home)
    with caplog.at_level("WARNING"):
        qm = syncpoint.connect(QM, home=home)
    qm.disconnect()
    open_embedded(QM, home=home).close()
    assert wider_than_private(home) == {}
    assert "readable by other users" in caplog.text and "qm.db: 0644 -> 0600" in caplog.text


def test_strmqm_makes_a_queue_manager_with_wider_modes_private_with_a_notice_and_the_server_files_too(tmp_path):
    home = tmp_path / "h"  # short: the server's Unix socket goes into the queue manager's folder
    create_queue_manager(QM, home=home)
    make_wide(home)
    env = dict(os.environ, SYNCPOINT_HOME=str(home))
    cli = [sys.executable, "-c", "from syncpoint.cli import main; main()"]
    started = subprocess.run([*cli, "strmqm", QM, "--no-tcp"], env=env, capture_output=True, text=True, timeout=120)
    assert started.returncode == 0, started.stderr
    try:
        assert "readable by other users" in started.stderr and f"qmgrs/{QM}: 0755 -> 0700" in started.stderr
        assert (home / "qmgrs" / QM / "server.json").exists()
        assert wider_than_private(home) == {}  # the server's own files (server.json, its log, the socket) too
    finally:
        ended = subprocess.run([*cli, "endmqm", QM], env=env, capture_output=True, text=True, timeout=120)
        assert ended.returncode == 0, ended.stderr
    assert wider_than_private(home) == {}
