"""``syncpoint compat install ibmmq|pymqi``: IBM's Python layer over syncpoint's backend, without IBM's C client.

Theory of operation: pip downloads the library's source distribution (``pip download --no-binary :all:``; for
ibmmq with ``CI=true``, which makes its setup.py skip the check for IBM's headers). Its Python files are copied
into the target folder (site-packages by default) as the package; the C extension is never compiled. In its
place a small module named as the extension (``ibmmq/ibmmqc.py``, ``pymqi/pymqe.py``) re-exports
:mod:`syncpoint.compat.ibmmqc` / :mod:`syncpoint.compat.pymqe` with the installed version, and a
``<name>-<version>.dist-info`` (METADATA, INSTALLER, RECORD, top_level.txt) makes ``importlib.metadata`` and
``pip uninstall <name>`` see the package as installed. Nothing of those libraries is part of syncpoint.

Implements: reference/ibmmq-compat.md ("Obtaining the libraries without IBM's C client").
"""

from __future__ import annotations

import base64
import hashlib
import os
import shutil
import subprocess
import sys
import sysconfig
import tarfile
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from syncpoint.mqi import SyncpointError

DEFAULT_VERSIONS = {"ibmmq": "2.1.2", "pymqi": "1.12.13"}
_EXTENSION = {"ibmmq": "ibmmqc", "pymqi": "pymqe"}
_INSTALLER = "syncpoint-compat"


class InstallError(SyncpointError):
    """The install cannot be done; the message says why and what to do."""


@dataclass
class InstallReport:
    package: str
    version: str
    sdist: Path
    target: Path
    files: list[Path] = field(default_factory=list)
    replaced: bool = False

    def lines(self) -> list[str]:
        out = [
            f"sdist: {self.sdist}",
            f"installed {self.package} {self.version} (Python files only, C extension not built) into {self.target}",
            f"  {len(self.files)} files, extension {_EXTENSION[self.package]} provided by "
            f"syncpoint.compat.{_EXTENSION[self.package]}",
        ]
        if self.replaced:
            out.append("  replaced an earlier syncpoint-installed copy")
        out.append(f"uninstall with: {sys.executable} -m pip uninstall {self.package}")
        return out


def cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "syncpoint" / "compat"


def download_sdist(package: str, version: str, cache: Path | None = None) -> Path:
    """The library's sdist, downloaded with pip into the cache on first use. Raises InstallError."""
    if package not in DEFAULT_VERSIONS:
        raise InstallError(f"unknown package {package!r}: choose ibmmq or pymqi")
    cache = cache or cache_dir()
    cache.mkdir(parents=True, exist_ok=True)
    for suffix in (".tar.gz", ".zip"):
        found = cache / f"{package}-{version}{suffix}"
        if found.exists():
            return found
    env = dict(os.environ, CI="true")
    # pip writes into a folder of its own, and the sdist is renamed into the cache whole: an install running at
    # the same time (another user's, a parallel test's) never opens a half-written file.
    with tempfile.TemporaryDirectory(prefix=".download-", dir=cache) as scratch:
        cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:", "-d", scratch]
        cmd.append(f"{package}=={version}")
        proc = subprocess.run(cmd, env=env, capture_output=True, text=True)
        if proc.returncode != 0:
            tail = (proc.stderr or proc.stdout).strip().splitlines()[-3:]
            raise InstallError(f"pip could not download {package}=={version}: " + " / ".join(tail))
        for suffix in (".tar.gz", ".zip"):
            downloaded = Path(scratch) / f"{package}-{version}{suffix}"
            if downloaded.exists():
                found = cache / downloaded.name
                os.replace(downloaded, found)
                return found
    raise InstallError(f"pip ran but downloaded no sdist of {package}=={version}")


def extract_sdist(sdist: Path, into: Path) -> Path:
    """Unpack an sdist (tar.gz) under ``into``; returns its top folder."""
    with tarfile.open(sdist) as tf:
        tf.extractall(into, filter="data")
    tops = [p for p in into.iterdir() if p.is_dir()]
    if len(tops) != 1:
        raise InstallError(f"{sdist.name} does not have one top folder")
    return tops[0]


def _package_dir(top: Path, package: str) -> Path:
    for candidate in (top / "code" / package, top / package, top / "src" / package):
        if (candidate / "__init__.py").exists():
            return candidate
    raise InstallError(f"the sdist has no {package}/__init__.py")


def _record_line(path: Path, root: Path) -> str:
    data = path.read_bytes()
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{path.relative_to(root).as_posix()},sha256={digest},{len(data)}"


def _shim(package: str, version: str) -> str:
    ext = _EXTENSION[package]
    extra = "__cmdlevel__, __mqbuild__, __strucversions__" if package == "ibmmq" else "__mqbuild__, __mqlevels__"
    return (
        f'"""{package}\'s extension module {ext}, provided by syncpoint (installed by syncpoint compat install)."""\n'
        f"\n"
        f"from syncpoint.compat import serve_commands_with\n"
        f"from syncpoint.compat.{ext} import *  # noqa: F403\n"
        f"from syncpoint.compat.{ext} import {extra}  # noqa: F401\n"
        f"from syncpoint.pcf import CommandServer\n"
        f"\n"
        f'__version__ = "{version}"\n'
        f"\n"
        f"# PCF commands (PCFExecute) are served beside an embedded queue manager, as its amqpcsea would\n"
        f"serve_commands_with(CommandServer)\n"
    )


def _metadata(package: str, version: str) -> str:
    return (
        "Metadata-Version: 2.1\n"
        f"Name: {package}\n"
        f"Version: {version}\n"
        f"Summary: {package} Python layer installed by syncpoint compat over syncpoint's MQI backend\n"
        "Requires-Dist: syncpoint\n"
    )


def _owned_by_us(target: Path, package: str) -> tuple[bool, list[Path]]:
    """Whether an installed copy of ``package`` in ``target`` was put there by syncpoint, and its dist-infos."""
    infos = sorted(target.glob(f"{package}-*.dist-info"))
    ours = all((i / "INSTALLER").exists() and (i / "INSTALLER").read_text().strip() == _INSTALLER for i in infos)
    return ours, infos


def _remove_installed(target: Path, package: str, infos: list[Path]) -> None:
    for info in infos:
        record = info / "RECORD"
        if record.exists():
            for line in record.read_text().splitlines():
                rel = line.split(",", 1)[0]
                p = target / rel
                if rel and p.is_file():
                    p.unlink()
        shutil.rmtree(info, ignore_errors=True)
    pkg = target / package
    if pkg.exists():
        shutil.rmtree(pkg)


def install(
    package: str,
    version: str | None = None,
    *,
    target: Path | None = None,
    cache: Path | None = None,
    force: bool = False,
) -> InstallReport:
    """Install ``package``'s Python files with syncpoint's backend as its extension. Raises InstallError."""
    if package not in DEFAULT_VERSIONS:
        raise InstallError(f"unknown package {package!r}: choose ibmmq or pymqi")
    version = version or DEFAULT_VERSIONS[package]
    target = Path(target) if target is not None else Path(sysconfig.get_paths()["purelib"])
    target.mkdir(parents=True, exist_ok=True)
    ours, infos = _owned_by_us(target, package)
    existing = (target / package).exists() or bool(infos)
    if existing and not ours and not force:
        raise InstallError(
            f"{package} is already installed in {target} (not by syncpoint); uninstall it first "
            f"({sys.executable} -m pip uninstall {package}) or pass --force"
        )
    sdist = download_sdist(package, version, cache)
    report = InstallReport(package, version, sdist, target, replaced=existing)
    with tempfile.TemporaryDirectory(prefix="syncpoint-compat-") as tmp:
        top = extract_sdist(sdist, Path(tmp))
        src = _package_dir(top, package)
        if existing:
            _remove_installed(target, package, infos)
        dest = target / package
        dest.mkdir(parents=True)
        for f in sorted(src.rglob("*.py")):
            if "__pycache__" in f.parts:
                continue
            out = dest / f.relative_to(src)
            out.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(f, out)
            report.files.append(out)
    ext = dest / f"{_EXTENSION[package]}.py"
    ext.write_text(_shim(package, version))
    report.files.append(ext)
    info = target / f"{package}-{version}.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(_metadata(package, version))
    (info / "INSTALLER").write_text(_INSTALLER + "\n")
    (info / "top_level.txt").write_text(package + "\n")
    entries = [*report.files, info / "METADATA", info / "INSTALLER", info / "top_level.txt"]
    lines = [_record_line(p, target) for p in entries]
    lines.append(f"{(info / 'RECORD').relative_to(target).as_posix()},,")
    (info / "RECORD").write_text("\n".join(lines) + "\n")
    return report
