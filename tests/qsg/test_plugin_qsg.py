"""The pytest plugin's queue-sharing group (issue 38, item 1): ``mq_qsg`` gives N members of one group, each a
real server, on a new database of the PostgreSQL server it is given; a message put to a shared queue through one
member is got through another (IBM: a shared queue is one queue for every member of the group)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

SAMPLE = """
import pytest

from syncpoint.mqsc import MqscProcessor

pytestmark = pytest.mark.mq_config(members=3, qsg="QSGT", dev=False)


def test_three_members_share_a_queue(mq_qsg):
    assert [m.name for m in mq_qsg] == ["QM1", "QM2", "QM3"]
    first, last = mq_qsg[0].connect(), mq_qsg[2].connect()
    assert MqscProcessor(first, echo=False).execute("DEFINE QLOCAL(SHARED.Q) QSGDISP(SHARED)").ok
    first.open("SHARED.Q").put(b"through QM1")
    assert last.open("SHARED.Q").get().data == b"through QM1"
"""


def test_mq_qsg_gives_members_of_one_group_on_postgresql(tmp_path: Path, postgres_server: object) -> None:
    (tmp_path / "test_group.py").write_text(textwrap.dedent(SAMPLE))
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    server_url = postgres_server.url("postgres")  # type: ignore[attr-defined]
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-rA", "--mq-postgres", server_url],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert "1 passed" in done.stdout, done.stdout + done.stderr


def test_mq_qsg_without_postgresql_skips_saying_how_to_give_one(tmp_path: Path) -> None:
    (tmp_path / "test_group.py").write_text("def test_group(mq_qsg):\n    pass\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_") and k != "SYNCPOINT_TEST_POSTGRES"}
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-rs"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert "1 skipped" in done.stdout and "--mq-postgres URL" in done.stdout, done.stdout
