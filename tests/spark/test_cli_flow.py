"""``syncpoint flow run`` and ``syncpoint flow demo`` as real commands in subprocesses (issue 8 items 4 and 10)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from syncpoint.client import QueueManager

SYNCPOINT = str(Path(sys.executable).with_name("syncpoint"))


def run(args: list[str], home: Path, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "SYNCPOINT_HOME": str(home), "COLUMNS": "200", "PYSPARK_PYTHON": sys.executable}
    return subprocess.run([SYNCPOINT, *args], env=env, capture_output=True, text=True, timeout=timeout)


def test_flow_run_refuses_a_file_without_a_flow(tmp_path: Path) -> None:
    f = tmp_path / "noflow.py"
    f.write_text("x = 1\n")
    r = run(["flow", "run", str(f), "--qmgr", "QM1"], tmp_path)
    assert r.returncode != 0 and "must define `flow = Flow(...)`" in r.stderr


def test_flow_run_needs_a_running_server(tmp_path: Path) -> None:
    f = tmp_path / "f.py"
    f.write_text(
        "from syncpoint.flow import Flow, MQInput\nflow = Flow(MQInput('IN'), out=lambda m: m.data, output='O')\n"
    )
    r = run(["flow", "run", str(f), "--qmgr", "NOSERVER"], tmp_path)
    assert r.returncode != 0 and "syncpoint strmqm NOSERVER" in r.stderr


def test_flow_run_processes_the_queue_and_shows_progress(
    server: Any, qm: QueueManager, names: Any, tmp_path: Path
) -> None:
    src, dst = names.pair(qm, "CLI")
    qm.open(src).put_many(["a", "b", "poison"], persistent=True)
    f = tmp_path / "upper.py"
    f.write_text(
        "from syncpoint.flow import Flow, MQInput\n"
        "def out(m):\n"
        "    if m.data == b'poison':\n"
        "        raise ValueError('poison')\n"
        "    return m.data.upper()\n"
        f"flow = Flow(MQInput({src!r}), out=out, output={dst!r}, name='upper')\n"
    )
    r = run(["flow", "run", str(f), "--qmgr", server.name, "--available-now"], server.home)
    assert r.returncode == 0, r.stderr[-3000:]
    assert "to DLQ" in r.stdout and "total" in r.stdout
    # issue 21 item 5: Spark starts quietly — no log4j banner, no native-library notice, no loopback-hostname
    # warning, no progress bar — while warnings and errors would still reach standard error
    noises = ("Using Spark's default log4j profile", "NativeCodeLoader", "resolves to a loopback", "[Stage ")
    for noise in (*noises, "Using incubator modules"):  # and the JVM's notice of its module (issue 33 item 7)
        assert noise not in r.stderr, r.stderr[-3000:]
    assert sorted(m.data for m in qm.open(dst).browse_all()) == [b"A", b"B"]
    assert qm.open(src).depth == 0


def test_flow_demo_shows_where_every_message_went(tmp_path: Path) -> None:
    r = run(["flow", "demo", "--qmgr", "DEMOT"], tmp_path)
    try:
        assert r.returncode == 0, r.stderr[-3000:]
        # the table wraps its cells wherever the width puts them: read its words, not its lines
        out = " ".join(r.stdout.replace("│", " ").replace("┃", " ").split())
        assert out.count("DEMO.ENRICHED") >= 5 and "reply on DEMO.REPLIES" in out
        assert "MQRC_FORMAT_ERROR" in out and "MQRC_BACKOUT_THRESHOLD_REACHED" in out
        assert "expiration report on DEMO.REPORTS" in out and "still on DEMO.ORDERS" not in out
        # issue 21 item 7: a message is never hard-wrapped when the output is piped (grep finds it whole)
        assert r.stdout.splitlines()[-1].endswith("or stop it with `syncpoint endmqm -i DEMOT`."), r.stdout[-500:]
        # issue 33 item 7: the JVM's start-up notice about its incubator module is not shown
        assert "Using incubator modules" not in r.stderr, r.stderr[-3000:]
    finally:
        run(["endmqm", "-i", "DEMOT"], tmp_path, timeout=120)
