"""Nothing compiled is required (issue 38, item 5): with uvloop absent and msgpack's pure-Python fallback
(``MSGPACK_PUREPYTHON=1``, what msgpack does on a platform without a wheel) a real server process serves a real
client, slower but never blocked."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from servers import servers_of

CLIENT = """
import msgpack, syncpoint
from msgpack import fallback
assert msgpack.Packer is fallback.Packer, "msgpack is not the pure-Python fallback"
try:
    import uvloop
except ImportError:
    pass
else:
    raise AssertionError("uvloop is importable")
qm = syncpoint.connect("QM1")  # the running server, over its Unix socket
q = qm.open("Q1")
q.put(b"no wheels", persistent=True)
assert q.get().data == b"no wheels"
qm.disconnect()
print("ok")
"""


def test_server_and_client_run_without_uvloop_and_with_msgpacks_pure_python_fallback(tmp_path: Path) -> None:
    hidden = tmp_path / "hidden"
    hidden.mkdir()
    # an import of uvloop fails, as where it is not installed
    (hidden / "uvloop.py").write_text("raise ImportError('uvloop is hidden by this test')\n")
    home = tmp_path / "home"
    paths = [str(hidden), *[p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]]
    env = dict(os.environ, SYNCPOINT_HOME=str(home), MSGPACK_PUREPYTHON="1", PYTHONPATH=os.pathsep.join(paths))
    syncpoint = [sys.executable, "-c", "from syncpoint.cli import main; import sys; sys.argv[0] = 'syncpoint'; main()"]

    def run(*args: str, input: str | None = None) -> subprocess.CompletedProcess[str]:
        return subprocess.run([*syncpoint, *args], env=env, capture_output=True, text=True, input=input, timeout=120)

    with servers_of(home):
        assert run("crtmqm", "QM1").returncode == 0
        started = run("strmqm", "QM1", "--no-tcp")
        assert started.returncode == 0, started.stderr
        assert run("runmqsc", "QM1", input="DEFINE QLOCAL(Q1)\n").returncode == 0
        client = subprocess.run([sys.executable, "-c", CLIENT], env=env, capture_output=True, text=True, timeout=120)
        assert client.stdout.strip() == "ok", client.stderr
        log = (home / "qmgrs/QM1/errors/server.log").read_text()
        assert "event loop: asyncio; msgpack: pure Python" in log
        assert run("endmqm", "-i", "QM1").returncode == 0
