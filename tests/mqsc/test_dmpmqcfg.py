"""dmpmqcfg dumps a queue manager's definitions as MQSC that runmqsc replays (issue 21: "dmpmqcfg (dump the queue
manager's definitions as MQSC that runmqsc can replay: a round-trip test)"; IBM's dmpmqcfg -a / -o mqsc / 1line)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import syncpoint
from syncpoint.client import QueueManager, memory_queue_manager
from syncpoint.mqsc import MqscProcessor, dump_definitions

SETUP = """\
ALTER QMGR DEADQ(APP.DLQ) MAXUMSGS(500) DESCR('Orders'' queue manager') MONQ(MEDIUM) STATINT(60)
ALTER QLOCAL(SYSTEM.DEFAULT.LOCAL.QUEUE) MAXDEPTH(9999)
DEFINE QLOCAL(APP.DLQ)
DEFINE QLOCAL(APP.IN) MAXDEPTH(5000) DEFPSIST(YES) TRIGGER TRIGTYPE(EVERY) PROCESS(APP.PROC) +
       INITQ(SYSTEM.DEFAULT.INITIATION.QUEUE) DESCR('it''s the input') NOSHARE BOTHRESH(3) BOQNAME(APP.BO) +
       MONQ(HIGH) DEFBIND(NOTFIXED) QDPHIEV(ENABLED) CLUSTER(CL1)
DEFINE QLOCAL(APP.BO) GET(DISABLED) USAGE(XMITQ)
DEFINE QMODEL(APP.MODEL) DEFTYPE(PERMDYN) MAXDEPTH(42)
DEFINE QALIAS(APP.ALIAS) TARGET(APP.IN) PUT(DISABLED) PROPCTL(NONE)
DEFINE PROCESS(APP.PROC) APPLICID('/opt/app/run') ENVRDATA('&') USERDATA('x y') DESCR('the app')
"""


def run(qm: QueueManager, lines: list[str]) -> list[str]:
    out: list[str] = []
    summary = MqscProcessor(qm).run(lines, out.append)
    assert summary.exit_code == 0, "\n".join(out)
    return out


def body(lines: list[str]) -> list[str]:
    return [line for line in lines if not line.startswith("*")]  # the header comments name the time and host


@pytest.mark.parametrize(("all_attributes", "one_line"), [(False, False), (True, False), (False, True)])
def test_a_dump_replayed_on_a_new_queue_manager_dumps_the_same(all_attributes: bool, one_line: bool) -> None:
    first = memory_queue_manager("QM1")
    second = memory_queue_manager("QM1")
    try:
        a = syncpoint.connect("QM1", embedded=first)
        run(a, SETUP.splitlines())
        a.open("SYSTEM.DEFAULT.MODEL.QUEUE")  # a dynamic queue: created by its application, never dumped
        dumped = dump_definitions(a, all_attributes=all_attributes, one_line=one_line)
        assert not any("AMQ.*" in line or "'AMQ." in line for line in dumped)
        b = syncpoint.connect("QM1", embedded=second)
        run(b, dumped)
        assert body(dump_definitions(b, all_attributes=all_attributes, one_line=one_line)) == body(dumped)
        assert body(dump_definitions(b, all_attributes=True)) == body(dump_definitions(a, all_attributes=True))
    finally:
        first.close()
        second.close()


def test_the_dump_is_ibms_mqsc_layout() -> None:
    e = memory_queue_manager("QM1")
    try:
        qm = syncpoint.connect("QM1", embedded=e)
        run(qm, ["DEFINE QLOCAL(APP.IN) MAXDEPTH(10) DESCR('in') NOSHARE"])
        lines = dump_definitions(qm)
        assert lines[0] == "*" and "* Queue manager name: QM1" in lines
        i = lines.index("DEFINE QLOCAL('APP.IN') +")
        assert lines[i + 1 : i + 5] == ["   DESCR('in') +", "   MAXDEPTH(10) +", "   NOSHARE +", "   REPLACE"]
        one = dump_definitions(qm, one_line=True, types=("QLOCAL",), name="APP.*")
        assert body(one) == ["DEFINE QLOCAL('APP.IN') DESCR('in') MAXDEPTH(10) NOSHARE REPLACE"]
    finally:
        e.close()


def test_dmpmqcfg_command_dumps_what_runmqsc_replays(tmp_path: Path) -> None:
    cmd = str(Path(sys.executable).with_name("syncpoint"))
    env = dict(os.environ, SYNCPOINT_HOME=str(tmp_path))

    def sp(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
        return subprocess.run([cmd, *args], input=stdin, capture_output=True, text=True, env=env, timeout=120)

    for qmgr in ("QMA", "QMB"):
        assert sp("crtmqm", qmgr).returncode == 0
        assert sp("strmqm", qmgr, "--no-tcp", "--no-command-server").returncode == 0
    try:
        assert sp("runmqsc", "QMA", stdin=SETUP).returncode == 0
        dumped = sp("dmpmqcfg", "-m", "QMA", "-a", "-o", "mqsc")
        assert dumped.returncode == 0, dumped.stderr
        replayed = sp("runmqsc", "QMB", stdin=dumped.stdout)
        assert replayed.returncode == 0, replayed.stdout
        again = sp("dmpmqcfg", "-m", "QMB", "-a")
        assert body(again.stdout.splitlines()) == body(dumped.stdout.splitlines())
        assert sp("dmpmqcfg", "-m", "QMA", "-o", "xml").returncode == 2
    finally:
        for qmgr in ("QMA", "QMB"):
            sp("endmqm", "-i", qmgr)
