"""Helpers of the channel tests: real queue-manager server processes on loopback ports (issue 23 item 8)."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import syncpoint
from syncpoint.mqi import MQMD, MQXQH
from syncpoint.mqi import constants as C

SYNCPOINT = str(Path(sys.executable).parent / "syncpoint")


def run(home: Path, *args: str, input: str | None = None, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, SYNCPOINT_HOME=str(home))
    return subprocess.run([SYNCPOINT, *args], env=env, capture_output=True, text=True, input=input, timeout=timeout)


class QMs:
    """Queue managers of one test, each a real ``syncpoint strmqm`` server on its own loopback port."""

    def __init__(self, home: Path) -> None:
        self.home = home

    def create(self, name: str, dlq: bool = True) -> None:
        args = ["crtmqm", *(["-u", "SYSTEM.DEAD.LETTER.QUEUE"] if dlq else []), name]
        r = run(self.home, *args)
        assert r.returncode == 0, r.stdout + r.stderr

    def start(self, name: str) -> None:
        r = run(self.home, "strmqm", name, "--port", "0", "--cpus", "all", "--metrics-port", "0")
        assert r.returncode == 0, r.stdout + r.stderr

    def info(self, name: str) -> dict[str, Any]:
        data: dict[str, Any] = json.loads((self.home / "qmgrs" / name / "server.json").read_text())
        return data

    def port(self, name: str) -> int:
        return int(self.info(name)["port"])

    def conname(self, name: str) -> str:
        return f"127.0.0.1({self.port(name)})"

    def kill(self, name: str) -> None:
        try:
            os.kill(self.info(name)["pid"], signal.SIGKILL)
        except (OSError, ValueError, KeyError):
            pass

    def connect(self, name: str) -> syncpoint.QueueManager:
        return syncpoint.connect(name, home=self.home)

    def mqsc(self, name: str, text: str) -> str:
        r = run(self.home, "runmqsc", name, input=text)
        return r.stdout + r.stderr

    def log(self, name: str) -> str:
        p = self.home / "qmgrs" / name / "errors" / "server.log"
        return p.read_text() if p.exists() else ""


def unused_port() -> int:
    """A loopback port nobody listens on (the kernel's free port, released): a channel's connect to it is refused."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def xmit_message(qname: str, qmgr: str, data: bytes, **md: Any) -> tuple[MQMD, bytes]:
    """A transmission-queue message as the queue manager puts one for a remote queue: MQXQH + data, the outer
    MQMD with Format MQXMIT (what a put to a QREMOTE leaves on the transmission queue)."""
    inner = MQMD(Version=C.MQMD_VERSION_1, **md)
    xqh = MQXQH(RemoteQName=qname.encode().ljust(48), RemoteQMgrName=qmgr.encode().ljust(48), MsgDesc=inner)
    outer = MQMD(
        Format=C.MQFMT_XMIT_Q_HEADER,
        Persistence=inner.Persistence,
        Priority=inner.Priority,
        Expiry=inner.Expiry,
        MsgId=inner.MsgId,
    )
    return outer, xqh.pack() + data


def channel_state(qms: QMs, qm: str, channel: str) -> str:
    """The channel's STATUS in DISPLAY CHSTATUS (INACTIVE when it has none)."""
    import re

    found = re.search(r"\s STATUS\((\w+)\)|\sSTATUS\((\w+)\)", qms.mqsc(qm, f"DISPLAY CHSTATUS({channel}) STATUS\n"))
    return (found.group(1) or found.group(2)) if found else "INACTIVE"
