"""Harness for running IBM's ibmmq (and pymqi) programs and test files unchanged against a syncpoint server.

Used by tests/compat and runnable on its own to produce the counts in docs/compatibility.md:

    .venv/bin/python tests/compat/compat_harness.py [--port 1413] [--keep DIR]

It installs ibmmq 2.1.2 and pymqi 1.12.13 into a scratch folder with ``syncpoint compat install`` (sdists are
downloaded once by pip into ~/.cache/syncpoint/compat, or $SYNCPOINT_COMPAT_CACHE), creates queue manager QM1
with IBM's developer users (admin / app, password "password") and DEV.QUEUE.1-3, starts it with
``syncpoint strmqm --port``, runs each of ibmmq's test files with pytest and prints passed / skipped / failed
per file. Nothing of those libraries is kept in this repository.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from syncpoint.compat import InstallError, download_sdist, extract_sdist, install
from syncpoint.compat._install import cache_dir

ProgramRunner = Callable[..., subprocess.CompletedProcess[str]]

BIN = Path(sys.executable).parent
SYNCPOINT = str(BIN / "syncpoint")
CACHE = Path(os.environ.get("SYNCPOINT_COMPAT_CACHE") or cache_dir())
USERS = {"admin": "password", "app": "password"}
DEV_QUEUES = ("DEV.QUEUE.1", "DEV.QUEUE.2", "DEV.QUEUE.3")

# ibmmq 2.1.2's test files: those the issue requires, then the rest (features syncpoint does not have)
REQUIRED_FILES = (
    "test_base_api.py",
    "test_get_buffers.py",
    "test_rfh2_put_get.py",
    "test_rfh2.py",
    "test_api_transition_pep8.py",
    "test_h2py.py",
    "test_message_property.py",
)
CONNECTION_FILES = ("test_queue_manager.py", "test_mq80.py")
OTHER_FILES = ("test_pcf.py", "test_pubsub.py", "test_tls.py")


def install_libraries(target: Path) -> None:
    """ibmmq and pymqi (Python files + syncpoint's backend) into ``target``. Raises InstallError."""
    install("ibmmq", target=target, cache=CACHE)
    install("pymqi", target=target, cache=CACHE)


def install_test_dependencies(target: Path) -> bool:
    """ddt (imported by ibmmq's test_pcf) into ``target``; False when pip cannot get it."""
    proc = subprocess.run(
        [sys.executable, "-m", "pip", "install", "-q", "--target", str(target), "ddt"], capture_output=True
    )
    return proc.returncode == 0


def ibmmq_code_tree(into: Path, version: str = "2.1.2") -> Path:
    """The sdist's ``code`` folder (tests/, examples/) extracted under ``into``."""
    top = extract_sdist(download_sdist("ibmmq", version, CACHE), into)
    return top / "code"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def port_is_free(port: int) -> bool:
    with socket.socket() as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as the server binds: TIME_WAIT does not count
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def env_for(home: Path, target: Path, **extra: str) -> dict[str, str]:
    env = dict(os.environ)
    env["SYNCPOINT_HOME"] = str(home)
    env["PYTHONPATH"] = os.pathsep.join([str(target), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    env.pop("MQSERVER", None)
    env.update(extra)
    return env


def _run(cmd: list[str], env: dict[str, str], stdin: str | None = None) -> str:
    proc = subprocess.run(cmd, env=env, input=stdin, capture_output=True, text=True, timeout=120)
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed ({proc.returncode}): {proc.stderr.strip() or proc.stdout}")
    return proc.stdout


def create_qmgr(home: Path, qmgr: str = "QM1") -> None:
    """crtmqm, IBM's developer users and queues (as in IBM's developer container)."""
    env = env_for(home, home)
    _run([SYNCPOINT, "crtmqm", qmgr], env)
    for user, password in USERS.items():
        _run([SYNCPOINT, "passwd", qmgr, user], env, stdin=password + "\n")
    script = (
        "import syncpoint\n"
        f"qm = syncpoint.connect({qmgr!r})\n"
        f"for q in {DEV_QUEUES!r}:\n"
        "    qm.admin('define', 'QLOCAL', q)\n"
        # IBM's developer container's authorities: admin an administrator (group mqm), app in group app with
        # connect and inq on the queue manager and browse / get / inq / put on DEV.** (docs/security.md)
        # its channels DEV.APP.SVRCONN and DEV.ADMIN.SVRCONN and their channel authentication records
        "from syncpoint.cli._autoconfig import DEV_CHANNELS\n"
        "from syncpoint.mqsc import MqscProcessor\n"
        "assert MqscProcessor(qm, echo=False).run(DEV_CHANNELS.splitlines(), print).exit_code == 0\n"
        "qm.admin('group_change', 'mqm', 'admin', True)\n"
        "qm.admin('group_change', 'app', 'app', True)\n"
        "qm.admin('refresh_security')\n"
        "qm.admin('set_authrec', 'qmgr', '', 'group', 'app', ['connect', 'inq'])\n"
        "qm.admin('set_authrec', 'queue', 'DEV.**', 'group', 'app', ['browse', 'get', 'inq', 'put'])\n"
        "qm.admin('set_authrec', 'queue', 'SYSTEM.DEFAULT.MODEL.QUEUE', 'group', 'app',"
        " ['browse', 'dsp', 'get', 'inq', 'put'])\n"
        "qm.admin('set_authrec', 'queue', 'SYSTEM.ADMIN.COMMAND.QUEUE', 'group', 'app', ['dsp', 'inq', 'put'])\n"
        # IBM's example inq_set.py changes DEV.QUEUE.1's attributes (MQSET) as app: set on DEV.** for it
        "qm.admin('set_authrec', 'queue', 'DEV.**', 'principal', 'app', ['set'])\n"
        "qm.disconnect()\n"
    )
    _run([sys.executable, "-c", script], env)


@contextlib.contextmanager
def running_server(home: Path, port: int, qmgr: str = "QM1") -> Iterator[int]:
    """``syncpoint strmqm qmgr --port port`` for the duration of the block, then ``endmqm -i``."""
    env = env_for(home, home)
    _run([SYNCPOINT, "strmqm", qmgr, "--port", str(port)], env)
    try:
        yield port
    finally:
        ended = subprocess.run([SYNCPOINT, "endmqm", "-i", qmgr], env=env, capture_output=True, timeout=120)
        if ended.returncode != 0:  # not ended in an orderly way: stop it at once rather than leave it running
            subprocess.run([SYNCPOINT, "endmqm", "-p", qmgr], env=env, capture_output=True, timeout=120)


@dataclass
class Counts:
    passed: int = 0
    skipped: int = 0
    failed: int = 0

    @property
    def total(self) -> int:
        return self.passed + self.skipped + self.failed


def run_test_files(tests_dir: Path, files: tuple[str, ...], env: dict[str, str]) -> dict[str, Counts]:
    """Each file with pytest (its own process); counts from the JUnit XML report."""
    out: dict[str, Counts] = {}
    for name in files:
        with tempfile.TemporaryDirectory() as tmp:
            xml = Path(tmp) / "report.xml"
            subprocess.run(
                [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", f"--junitxml={xml}", name],
                cwd=tests_dir,
                env=env,
                capture_output=True,
                timeout=600,
            )
            counts = Counts()
            if xml.exists():
                for case in ET.parse(xml).getroot().iter("testcase"):
                    kinds = {child.tag for child in case}
                    if kinds & {"failure", "error"}:
                        counts.failed += 1
                    elif "skipped" in kinds:
                        counts.skipped += 1
                    else:
                        counts.passed += 1
            else:
                counts.failed = 1  # the file could not even be collected
            out[name] = counts
    return out


def suite_env(home: Path, target: Path, port: int) -> dict[str, str]:
    return env_for(
        home,
        target,
        PY_IBMMQ_TEST_QM_NAME="QM1",
        PY_IBMMQ_TEST_QM_HOST="localhost",
        PY_IBMMQ_TEST_QM_PORT=str(port),
        PY_IBMMQ_TEST_QM_CHANNEL="DEV.ADMIN.SVRCONN",
        PY_IBMMQ_TEST_QM_USER="admin",
        PY_IBMMQ_TEST_QM_PASSWORD="password",
    )


PYMQI_FILES = (
    "test_base_api.py",
    "test_rfh2_put_get.py",
    "test_rfh2.py",
    "test_api_transition_pep8.py",
    "test_h2py.py",
    "test_queue_manager.py",
    "test_mq80.py",
    "test_pcf.py",
    "test_message_property.py",
    "test_pubsub.py",
    "test_tls.py",
)


def pymqi_suite_env(home: Path, target: Path, port: int) -> dict[str, str]:
    return env_for(
        home,
        target,
        PYMQI_TEST_QM_NAME="QM1",
        PYMQI_TEST_QM_HOST="127.0.0.1",
        PYMQI_TEST_QM_PORT=str(port),
        PYMQI_TEST_QM_CHANNEL="DEV.ADMIN.SVRCONN",
        PYMQI_TEST_QM_USER="admin",
        PYMQI_TEST_QM_PASSWORD="password",
        PYMQI_TEST_QM_APP_CHANNEL="DEV.APP.SVRCONN",
        PYMQI_TEST_QM_APP_USER="app",
        PYMQI_TEST_QM_APP_PASSWORD="password",
        PYMQI_TEST_QM_CONN_AUTH_USE_PW="REQUIRED",  # users exist: every TCP connection must authenticate
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--port", type=int, default=0, help="TCP port for the server (default: a free one)")
    parser.add_argument("--keep", type=Path, help="work in this folder and keep it")
    parser.add_argument(
        "--pymqi-tests",
        type=Path,
        help="pymqi's code/tests folder from a checkout of its repository (its sdist has no tests)",
    )
    args = parser.parse_args()
    work = args.keep or Path(tempfile.mkdtemp(prefix="syncpoint-compat-suite-"))
    work.mkdir(parents=True, exist_ok=True)
    target, home = work / "site", work / "home"
    try:
        install_libraries(target)
    except InstallError as e:
        print(f"cannot install the libraries: {e}", file=sys.stderr)
        return 2
    install_test_dependencies(target)
    code = ibmmq_code_tree(work / "sdist")
    create_qmgr(home)
    port = args.port or free_port()
    files = REQUIRED_FILES + CONNECTION_FILES + OTHER_FILES
    pymqi_counts: dict[str, Counts] = {}
    with running_server(home, port):
        counts = run_test_files(code / "tests", files, suite_env(home, target, port))
        if args.pymqi_tests:
            present = tuple(f for f in PYMQI_FILES if (args.pymqi_tests / f).exists())
            pymqi_counts = run_test_files(args.pymqi_tests, present, pymqi_suite_env(home, target, port))
    for title, table in (("ibmmq 2.1.2", counts), ("pymqi 1.12.13", pymqi_counts)):
        if not table:
            continue
        print(f"\n{title}\n\n| file | passed | skipped | failed |")
        print("| --- | ---: | ---: | ---: |")
        for name, c in table.items():
            print(f"| {name} | {c.passed} | {c.skipped} | {c.failed} |")
    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)
    return 0 if all(counts[f].failed == 0 for f in REQUIRED_FILES + CONNECTION_FILES) else 1


if __name__ == "__main__":
    raise SystemExit(main())
