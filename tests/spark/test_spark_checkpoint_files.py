"""A flow's checkpoint on the local file system is written through Hadoop's FileSystem API (docs/flows.md,
Performance, change 17): each offsets and commits file is written to a temporary file and renamed (rename(2),
atomic on a local file system), without the ``readlink`` processes Spark's default file manager (FileContext)
runs for every file on a Hadoop without its native library. A session's own setting is kept.

Rules quoted:
- reference/spark.md: exactly-once rests on the checkpoint's offsets log (a batch's offsets written before the
  batch runs, its commit after): each file is written whole or not at all.
- The kill tests (tests/spark/test_kill.py, test_spark_partition_kill.py) hold unchanged with it.
"""

from __future__ import annotations

import os
import stat
from collections import Counter
from pathlib import Path
from typing import Any

from test_kill import start_worker, stop_group

from syncpoint.client import QueueManager
from syncpoint.flow import Flow, MQInput, build_query
from syncpoint.flow._flow import CHECKPOINT_FILE_MANAGER

_FILE_CONTEXT = "org.apache.spark.sql.execution.streaming.checkpointing.FileContextBasedCheckpointFileManager"


def _load(qm: QueueManager, names: Any, n: int, base: str = "CKF") -> tuple[str, str]:
    src, dst = names.pair(qm, base)
    qm.open(src).put_many([f"m{i}".encode() for i in range(n)], syncpoint=True, commit=True, persistent=True)
    return src, dst


def _logging_tools(bin_dir: Path, log: Path) -> None:
    """``chmod`` and ``readlink`` first on the PATH: each logs its arguments, then runs the system's."""
    bin_dir.mkdir()
    for tool in ("chmod", "readlink"):
        real = next(
            p for d in os.environ["PATH"].split(os.pathsep) if (p := Path(d) / tool).is_file() and os.access(p, os.X_OK)
        )
        script = bin_dir / tool
        script.write_text(f'#!/bin/sh\necho "{tool} $*" >> "{log}"\nexec "{real}" "$@"\n')
        script.chmod(script.stat().st_mode | stat.S_IXUSR)


def test_a_flows_checkpoint_files_start_no_processes(
    server: Any, qm: QueueManager, names: Any, tmp_path: Path, monkeypatch: Any
) -> None:
    src, dst = _load(qm, names, 600)
    log = tmp_path / "tools.log"
    _logging_tools(tmp_path / "bin", log)
    monkeypatch.setenv("PATH", f"{tmp_path / 'bin'}{os.pathsep}{os.environ['PATH']}")
    ckpt = tmp_path / "ckpt"
    p = start_worker(server, src, dst, ckpt, None, commit="partition")  # its own Spark JVM, with that PATH
    rc = p.wait(600)
    stop_group(p)
    assert rc == 0, (tmp_path / "worker.log").read_text()[-4000:]
    assert Counter(m.data for m in qm.open(dst).browse_all()) == Counter(f"out:m{i}".encode() for i in range(600))
    commits = sorted(f.name for f in (ckpt / "commits").iterdir() if not f.name.startswith("."))
    assert commits  # the batches' commits were written ...
    runs = log.read_text().splitlines() if log.exists() else []
    # ... without a readlink process (FileContext's rename ran 8 a file); the file's permission is still set
    # by a chmod (Hadoop's local file system without its native library), 2 a file with its checksum
    assert not [r for r in runs if r.startswith("readlink") and str(ckpt) in r], runs[:10]
    files = [f for d in ("offsets", "commits") for f in (ckpt / d).iterdir() if not f.name.startswith(".")]
    assert len([r for r in runs if r.startswith("chmod 0600") and str(ckpt) in r]) == 2 * (len(files) + 1)
    assert not [f for d in ("offsets", "commits") for f in (ckpt / d).iterdir() if f.name.endswith(".tmp")]


def test_a_sessions_own_checkpoint_file_manager_is_kept(
    spark: Any, server: Any, qm: QueueManager, names: Any, tmp_path: Path
) -> None:
    src, dst = _load(qm, names, 20)
    flow = Flow(MQInput(src), out=lambda m: m.data, output=dst, commit="partition")
    spark.conf.set(CHECKPOINT_FILE_MANAGER, _FILE_CONTEXT)
    try:
        q = build_query(spark, flow, server.target, tmp_path / "ckpt", available_now=True)
        q.awaitTermination(300)
        manager = q._jsq.streamingQuery().offsetLog().fileManager().getClass().getName()
        assert manager == _FILE_CONTEXT
        assert spark.conf.get(CHECKPOINT_FILE_MANAGER) == _FILE_CONTEXT
    finally:
        spark.conf.unset(CHECKPOINT_FILE_MANAGER)
    assert qm.open(dst).depth == 20 and qm.open(src).depth == 0
    # without a setting of the session's own the flow's query uses the FileSystem API, the session left as it was
    src, dst = _load(qm, names, 20, "CKF2")
    flow = Flow(MQInput(src), out=lambda m: m.data, output=dst, commit="partition")
    q = build_query(spark, flow, server.target, tmp_path / "ckpt2", available_now=True)
    q.awaitTermination(300)
    manager = q._jsq.streamingQuery().offsetLog().fileManager().getClass().getName()
    assert manager.endswith(".FileSystemBasedCheckpointFileManager")
    assert spark.conf.get(CHECKPOINT_FILE_MANAGER, None) is None
    assert qm.open(dst).depth == 20 and qm.open(src).depth == 0


def test_a_flows_checkpoint_is_private_from_the_start_so_strmqm_narrows_nothing(
    spark: Any, server: Any, qm: QueueManager, names: Any, tmp_path: Path
) -> None:
    """Issue 33 item 7: a flow's checkpoint under a queue manager's folder (the CLI's default place) is written
    0600 / 0700 from the start, so the next strmqm, which narrows what is wider (one notice per path), has
    nothing to say; Hadoop wrote 0644 / 0755 whatever the process's umask."""
    from syncpoint import _home
    from syncpoint.client import create_queue_manager

    create_queue_manager("CKPRIV", home=tmp_path)
    ckpt = _home.qmgr_dir("CKPRIV", tmp_path) / "flows" / "f" / "checkpoint"
    src, dst = _load(qm, names, 20, "CKPRIV")
    flow = Flow(MQInput(src), out=lambda m: m.data, output=dst)
    q = build_query(spark, flow, server.target, ckpt, available_now=True)
    q.awaitTermination(300)
    assert q.exception() is None and qm.open(dst).depth == 20
    written = [ckpt.parent.parent, *ckpt.parent.parent.rglob("*")]
    assert [p for p in written if p.is_file()]  # offsets, commits, metadata and their checksums
    wide = [f"{p}: {stat.S_IMODE(p.stat().st_mode):o}" for p in written if stat.S_IMODE(p.stat().st_mode) & 0o077]
    assert not wide, wide
    assert _home.make_private("CKPRIV", tmp_path) == []
    # the session is left as it was
    assert spark.conf.get("fs.permissions.umask-mode", None) is None
