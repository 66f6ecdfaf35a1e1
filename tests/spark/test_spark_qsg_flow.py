"""A message flow reads ONE shared queue through several members of a queue-sharing group (issue 20 item 7,
issue 22 item 5): each partition of a micro-batch gets, processes and commits in one unit of work on its member.

Real components: a real PostgreSQL (tests/pg.py), real member processes (``syncpoint strmqm``), the tests' one
SparkSession (local[2]).

Rules quoted:
- reference/queue-sharing-groups.md: "Shared queues … can be accessed by any queue manager in the queue-sharing
  group"; peer recovery: "another queue manager in the group … backs out its in-flight units of work".
- reference/spark.md: exactly-once — "the sink's commit and the consumption of the batch's messages happen
  together".
- seed 004 (MQInput): a message backed out comes back with BackoutCount + 1 and is tried again while below
  BOTHRESH.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import syncpoint
from syncpoint.flow import Flow, MQInput, build_query, run_flow
from syncpoint.spark import Target, current_member
from waiting import wait_until

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "qsg"))
from qsg_members import Group


@pytest.fixture
def group(tmp_path: Path, postgres_url: str) -> Iterator[Group]:
    home = tmp_path / "group"
    home.mkdir()
    g = Group(home, postgres_url)
    yield g
    for info in home.glob("qmgrs/*/server.json"):  # never leave a member behind
        try:
            os.kill(json.loads(info.read_text())["pid"], signal.SIGKILL)
        except (OSError, ValueError, KeyError):
            pass


def _shared(g: Group, *queues: str, bothresh: int = 0) -> None:
    cmds = "".join(f"DEFINE QLOCAL({q}) QSGDISP(SHARED) BOTHRESH({bothresh})\n" for q in queues)
    r = g.mqsc("QMA", cmds)
    assert r.returncode == 0, r.stdout + r.stderr


def _put(g: Group, member: str, queue: str, bodies: list[bytes]) -> None:
    qm = syncpoint.connect(member, home=str(g.home))
    try:
        q = qm.open(queue)
        for b in bodies:
            q.put(b, persistent=True, syncpoint=True)
        qm.commit()
    finally:
        qm.disconnect()


def _drain(g: Group, member: str, queue: str) -> list[bytes]:
    qm = syncpoint.connect(member, home=str(g.home))
    try:
        q = qm.open(queue)
        out = []
        while (m := q.get_or_none()) is not None:
            out.append(m.data)
        return out
    finally:
        qm.disconnect()


def _depth(g: Group, member: str, queue: str) -> int:
    qm = syncpoint.connect(member, home=str(g.home))
    try:
        return qm.open(queue).depth
    finally:
        qm.disconnect()


def tagged(m: Any) -> bytes:
    """Out: the member the partition reads through, the message's BackoutCount, its body."""
    member = current_member()
    return f"{member.qmgr if member else '?'}|{m.md.get('BackoutCount', 0)}|".encode() + m.data


def test_flow_reads_one_shared_queue_through_all_members_exactly_once(spark: Any, group: Group, tmp_path: Path) -> None:
    # reference/queue-sharing-groups.md: a shared queue "can be accessed by any queue manager in the group";
    # issue 20 item 7: partitions spread over members, exactly-once as today.
    group.add("QMA")
    group.add("QMB")
    _shared(group, "SIN", "SOUT")
    bodies = [f"order-{i:04d}".encode() for i in range(400)]
    _put(group, "QMB", "SIN", bodies)
    flow = Flow(MQInput("SIN"), out=tagged, output="SOUT", max_messages_per_batch=100)
    target = Target("QMA", home=str(group.home), members=("QMA", "QMB"))
    run_flow(flow, target, tmp_path / "ckpt", spark=spark, available_now=True, timeout=300)
    out = _drain(group, "QMA", "SOUT")
    seen = [o.split(b"|", 2) for o in out]
    assert sorted(b for _, _, b in seen) == sorted(bodies)  # each message once: none lost, none twice
    assert {m for m, _, _ in seen} == {b"QMA", b"QMB"}  # the partitions were spread over both members
    assert _depth(group, "QMB", "SIN") == 0


def test_plain_stream_through_members_is_refused_with_a_reason(spark: Any, group: Group) -> None:
    # Every bad input gets a clear error (PLAN rules): rows handed to an arbitrary sink cannot commit in the
    # member's unit of work, so option members without in-read processing is refused at start, not half done.
    from syncpoint.spark import SyncpointDataSource

    group.add("QMA")
    group.add("QMB")
    _shared(group, "SIN")
    spark.dataSource.register(SyncpointDataSource)
    reader = spark.readStream.format("syncpoint").option("home", str(group.home)).option("members", "QMA,QMB")
    df = reader.option("queue", "SIN").load
    with pytest.raises(Exception, match="option members reads a shared queue through several members"):
        df().writeStream.format("console").start()


def test_member_killed_mid_batch_its_gets_come_back_once(spark: Any, group: Group, tmp_path: Path) -> None:
    # reference/queue-sharing-groups.md (peer recovery): a surviving member backs out the dead member's in-flight
    # units of work; seed 004: a backed-out message comes back with BackoutCount + 1 and is tried again.
    # Issue 20 item 7: exactly-once "including when a member is killed in the middle of a batch".
    group.add("QMA")
    group.add("QMB")
    _shared(group, "KIN", "KOUT", bothresh=5)
    bodies = [f"kill-{i:04d}".encode() for i in range(300)]
    _put(group, "QMA", "KIN", bodies)
    marker, go = tmp_path / "in-flight", tmp_path / "killed"

    def out(m: Any) -> bytes:
        member = current_member()
        if member is not None and member.qmgr == "QMB":
            try:  # the first message QMB's partition processes: stop here until the test killed QMB
                fd = os.open(marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
            except FileExistsError:
                pass
            else:
                os.write(fd, m.data)
                os.close(fd)
                deadline = time.monotonic() + 120
                while not go.exists() and time.monotonic() < deadline:  # waiting on a condition, bounded
                    time.sleep(0.05)
        return tagged(m)

    flow = Flow(MQInput("KIN"), out=out, output="KOUT", max_messages_per_batch=100)
    target = Target("QMA", home=str(group.home), members=("QMA", "QMB"))
    query = build_query(spark, flow, target, tmp_path / "ckpt", trigger_interval="200 milliseconds")
    try:
        wait_until(marker.exists, "QMB's partition holding messages in its unit of work", 180)
        os.kill(group.pid("QMB"), signal.SIGKILL)
        go.touch()
        wait_until(
            lambda: _depth(group, "QMA", "KOUT") >= len(bodies) and _depth(group, "QMA", "KIN") == 0,
            "the survivors processing every message",
            240,
            detail=lambda: f"KOUT {_depth(group, 'QMA', 'KOUT')}, KIN {_depth(group, 'QMA', 'KIN')}",
        )
    finally:
        query.stop()
    assert query.exception() is None
    out_msgs = [o.split(b"|", 2) for o in _drain(group, "QMA", "KOUT")]
    assert sorted(b for _, _, b in out_msgs) == sorted(bodies)  # 0 lost, 0 duplicated
    first = marker.read_bytes()
    again = {b: (m, int(c)) for m, c, b in out_msgs if int(c) > 0}
    assert again.get(first) == (b"QMA", 1)  # back with BackoutCount + 1, processed by the survivor
    assert all(m == b"QMA" for m, _ in again.values())
