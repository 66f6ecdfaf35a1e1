"""Helpers of the queue-sharing-group tests: run the ``syncpoint`` command, and a group of real member processes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import psycopg
import pytest

from syncpoint.client import EmbeddedQueueManager
from syncpoint.engine import FakeClock, QueueManager
from syncpoint.mqi import MQMIError
from syncpoint.mqi import constants as C
from syncpoint.store import Batch, MemoryStore, create_member, membership_record

SYNCPOINT = str(Path(sys.executable).parent / "syncpoint")


def run(
    home: Path, *args: str, input: str | None = None, timeout: float = 120, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, SYNCPOINT_HOME=str(home), **(env or {}))
    return subprocess.run([SYNCPOINT, *args], env=env, capture_output=True, text=True, input=input, timeout=timeout)


class Group:
    """Members of one queue-sharing group, each a real ``syncpoint strmqm`` server process."""

    def __init__(self, home: Path, url: str, name: str = "SPG") -> None:
        self.home = home
        self.url = url
        self.name = name

    def create(self, member: str) -> subprocess.CompletedProcess[str]:
        return run(self.home, "crtmqm", "-qsg", self.name, "--shared", self.url, member)

    def start(self, member: str, env: dict[str, str] | None = None) -> None:
        (self.home / "qmgrs" / member / "server.json").unlink(missing_ok=True)  # left by a killed member
        r = run(self.home, "strmqm", member, "--port", "0", env=env)
        assert r.returncode == 0, r.stderr

    def add(self, member: str) -> str:
        r = self.create(member)
        assert r.returncode == 0, r.stderr + r.stdout
        self.start(member)
        return member

    def end(self, member: str) -> None:
        r = run(self.home, "endmqm", "-i", member)
        assert r.returncode == 0, r.stderr

    def mqsc(self, member: str, commands: str) -> subprocess.CompletedProcess[str]:
        return run(self.home, "runmqsc", member, input=commands)

    def pid(self, member: str) -> int:
        return int(json.loads((self.home / "qmgrs" / member / "server.json").read_text())["pid"])


def member(name: str, url: str, clock: FakeClock) -> EmbeddedQueueManager:
    """A member of group SPG in this process, its private store in memory (fast tests on a fake clock)."""
    create_member(url, "SPG", name)
    store = MemoryStore()
    store.open()
    store.write(QueueManager.initial_batch(name, clock))
    store.write(Batch(put_objects=[membership_record("SPG", url)]))
    return EmbeddedQueueManager(name, store, clock)


def reason(call: Any) -> int:
    """The reason code of the MQMIError ``call()`` raises."""
    with pytest.raises(MQMIError) as e:
        call()
    return e.value.reason


def member_session(url: str, member: str) -> str | None:
    """The member's PostgreSQL session as the group's table records it (None: no such member)."""
    with psycopg.connect(url) as conn:
        row = conn.execute("SELECT session FROM qsg_member WHERE member = %s", (member,)).fetchone()
        return row[0] if row else None


def held(url: str) -> int:
    """Messages held by units of work, as the shared database shows them."""
    with psycopg.connect(url) as conn:
        return int(conn.execute("SELECT count(*) FROM qsg_message WHERE owner IS NOT NULL").fetchone()[0])


def alive(pid: int) -> bool:
    """Whether process ``pid`` still exists."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def drain_reports(qm: Any, queue: str) -> list[bytes]:
    """Get every message of ``queue``, each an expiration report (MQFB_EXPIRATION); their data."""
    q = qm.open(queue)
    out = []
    while (m := q.get_or_none()) is not None:
        assert m.md.Feedback == C.MQFB_EXPIRATION
        out.append(m.data)
    q.close()
    return out
