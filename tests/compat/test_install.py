"""``syncpoint compat install``: the library's Python files, syncpoint's backend as its extension, matching
metadata; ``pip uninstall`` removes it. Nothing is compiled. Rules: issue 5 (acceptance 1)."""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest
from compat_harness import CACHE, SYNCPOINT

from syncpoint.compat import InstallError, install


def syncpoint_cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([SYNCPOINT, *args], capture_output=True, text=True, timeout=300, env=env)


def test_cli_installs_into_a_target_and_says_what_it_did(compat_site: Path, tmp_path: Path) -> None:
    target = tmp_path / "site"
    proc = syncpoint_cli("compat", "install", "pymqi", "--target", str(target), "--cache-dir", str(CACHE))
    assert proc.returncode == 0, proc.stderr
    assert "installed pymqi 1.12.13 (Python files only, C extension not built)" in proc.stdout
    assert "pip uninstall pymqi" in proc.stdout
    assert (target / "pymqi" / "__init__.py").exists() and (target / "pymqi" / "pymqe.py").exists()
    record = (target / "pymqi-1.12.13.dist-info" / "RECORD").read_text()
    assert "pymqi/pymqe.py,sha256=" in record


def test_reinstalling_replaces_our_copy_but_not_someone_elses(compat_site: Path, tmp_path: Path) -> None:
    target = tmp_path / "site"
    install("pymqi", target=target, cache=CACHE)
    again = install("pymqi", target=target, cache=CACHE)
    assert again.replaced
    foreign = tmp_path / "other"
    (foreign / "pymqi").mkdir(parents=True)
    (foreign / "pymqi" / "__init__.py").write_text("# a real pymqi\n")
    (foreign / "pymqi-1.12.13.dist-info").mkdir()
    (foreign / "pymqi-1.12.13.dist-info" / "INSTALLER").write_text("pip\n")
    with pytest.raises(InstallError, match="not by syncpoint"):
        install("pymqi", target=foreign, cache=CACHE)
    assert (foreign / "pymqi" / "__init__.py").read_text() == "# a real pymqi\n"  # nothing lost
    proc = syncpoint_cli("compat", "install", "nosuchlib", "--target", str(foreign))
    assert proc.returncode == 20 and "choose ibmmq or pymqi" in proc.stderr


def test_install_into_an_environment_then_pip_uninstall(compat_site: Path, tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    py = venv / "bin" / "python"
    purelib = Path(
        subprocess.run(
            [str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    )
    # the new environment sees syncpoint and its dependencies from this one
    here = [str(Path(__file__).resolve().parents[2] / "src"), sysconfig.get_paths()["purelib"]]
    (purelib / "syncpoint-dev.pth").write_text("\n".join(here) + "\n")
    env = dict(os.environ, XDG_CACHE_HOME=str(CACHE.parent.parent))
    run = [str(py), "-c", "import sys; from syncpoint.cli import main; sys.argv[0] = 'syncpoint'; main()"]
    proc = subprocess.run([*run, "compat", "install", "ibmmq"], capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert f"into {purelib}" in proc.stdout
    check = subprocess.run([str(py), "-c", "import ibmmq; print(ibmmq.__version__)"], capture_output=True, text=True)
    assert check.stdout.strip() == "2.1.2", check.stderr
    gone = subprocess.run([str(py), "-m", "pip", "uninstall", "-y", "ibmmq"], capture_output=True, text=True)
    assert gone.returncode == 0, gone.stderr
    assert not (purelib / "ibmmq").exists() and not list(purelib.glob("ibmmq-*.dist-info"))
