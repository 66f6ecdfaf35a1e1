"""Fixtures for the compat tests: ibmmq 2.1.2 and pymqi 1.12.13 installed (once per session) into a scratch
folder with ``syncpoint compat install``, and a queue manager home. Tests that need the libraries skip, saying
why, when pip cannot download the sdists (no network and nothing in ~/.cache/syncpoint/compat)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from compat_harness import ProgramRunner, env_for, install_libraries

from syncpoint.client import create_queue_manager
from syncpoint.compat import InstallError


@pytest.fixture(scope="session")
def compat_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    target = tmp_path_factory.mktemp("compat-site")
    try:
        install_libraries(target)
    except InstallError as e:
        pytest.skip(f"ibmmq / pymqi sdists cannot be had (pip download failed): {e}")
    return target


@pytest.fixture
def qm_home(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    create_queue_manager("QM1", home=home)
    return home


@pytest.fixture
def run_program(compat_site: Path, qm_home: Path, tmp_path: Path) -> ProgramRunner:
    """Run Python source in a fresh process that sees the installed libraries and the queue manager home."""

    def run(source: str, *, check: bool = True, **env: str) -> subprocess.CompletedProcess[str]:
        script = tmp_path / "program.py"
        script.write_text(source)
        proc = subprocess.run(
            [sys.executable, str(script)],
            env=env_for(qm_home, compat_site, **env),
            capture_output=True,
            text=True,
            timeout=120,
            cwd=tmp_path,
        )
        if check and proc.returncode != 0:
            raise AssertionError(f"program failed ({proc.returncode}):\n{proc.stdout}\n{proc.stderr}")
        return proc

    return run
