"""A message flow on a Spark standalone cluster, not local[n] (issue 32 item 3): a master and two workers started
from PySpark's own ``bin/spark-class``, the flow (``syncpoint flow run --master spark://…``) reading the queue
manager over TCP from its real server process, and one worker SIGKILLed in the middle of a batch.

The claim checked is the one docs/flows.md makes for any master: every input message ends exactly once on the
flow's output or the dead-letter queue — none lost with the dead worker's partition (its unit of work was not
committed, so the queue manager backs it out when the connection breaks and Spark runs the task again on the
surviving worker) and none twice (a partition's get and its outputs commit together).

The cluster is this module's own: free loopback ports, its own work and log folders, and its SPARK_* settings in
the environment of the processes it starts only, so it runs beside other tests' Spark sessions (pytest-xdist).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from conftest import DLQ, _free_port
from syncpoint.client import QueueManager
from syncpoint.mqi import MQDLH
from syncpoint.mqi import constants as C
from waiting import wait_for_value, wait_until

pytestmark = pytest.mark.slow

SYNCPOINT = str(Path(sys.executable).with_name("syncpoint"))
COUNT = 300  # messages: a few batches of 60 across two executors


def _spark_home() -> Path:
    """PySpark's installation as SPARK_HOME, through the folder of links syncpoint.flow makes for local masters
    (everything but ``python/lib/pyspark.zip``), so that the Python workers of the driver and the executors import
    the installed, compiled pyspark instead of compiling the zip's sources in every process: on a loaded machine
    those took long enough for Spark to give up on a Python worker connecting back (10 s, fixed)."""
    pyspark = pytest.importorskip("pyspark")
    from syncpoint.flow._flow import _installed_spark_home

    links = _installed_spark_home("local[1]") if "SPARK_HOME" not in os.environ else None
    return Path(links) if links else Path(pyspark.__file__).resolve().parent


def _session_pids(sid: int) -> list[int]:
    """Every process of the session ``sid`` (a worker started in a session of its own: the worker's JVM, the
    executor JVM it launched and the executor's Python daemon and workers)."""
    pids = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                if os.getsid(int(entry)) == sid:
                    pids.append(int(entry))
            except (ProcessLookupError, PermissionError):
                pass
    return pids


class Cluster:
    """A Spark standalone master and workers on loopback, each a process of its own session."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.home = _spark_home()
        self.port = _free_port()
        self.url = f"spark://127.0.0.1:{self.port}"
        self.procs: dict[str, subprocess.Popen[bytes]] = {}
        self.conf = root / "conf"  # spark-defaults.conf for the drivers started against it (small executors)
        self.conf.mkdir(parents=True, exist_ok=True)
        (self.conf / "spark-defaults.conf").write_text(
            "spark.executor.memory 512m\nspark.executor.cores 1\nspark.cores.max 2\n"
            "spark.executor.extraJavaOptions -XX:+UseSerialGC -XX:TieredStopAtLevel=1\n"
        )

    def env(self, name: str) -> dict[str, str]:
        """The environment of a process of the cluster or a driver: Spark's settings here only, never in this
        test process's own environment."""
        work = self.root / name
        work.mkdir(parents=True, exist_ok=True)
        env = {k: v for k, v in os.environ.items() if not k.startswith("SPARK_")}
        env.update(
            SPARK_HOME=str(self.home),
            SPARK_CONF_DIR=str(self.conf),
            SPARK_LOCAL_IP="127.0.0.1",
            SPARK_LOCAL_DIRS=str(work / "local"),
            SPARK_LOG_DIR=str(work / "logs"),
            SPARK_WORKER_DIR=str(work / "work"),
            SPARK_DAEMON_MEMORY="256m",
            # the master's REST submission server listens on a fixed port (6066) by default: not wanted here
            SPARK_MASTER_OPTS="-Dspark.master.rest.enabled=false",
            PYSPARK_PYTHON=sys.executable,
            PYSPARK_DRIVER_PYTHON=sys.executable,
        )
        return env

    def log(self, name: str) -> Path:
        return self.root / f"{name}.log"

    def _start(self, name: str, args: list[str]) -> None:
        cmd = [str(self.home / "bin" / "spark-class"), *args]
        with open(self.log(name), "ab") as log:
            self.procs[name] = subprocess.Popen(
                cmd, env=self.env(name), stdout=log, stderr=subprocess.STDOUT, start_new_session=True
            )

    def start(self, workers: int) -> None:
        master = ["org.apache.spark.deploy.master.Master", "--host", "127.0.0.1", "--port", str(self.port)]
        self._start("master", [*master, "--webui-port", str(_free_port())])
        wait_until(
            lambda: "I have been elected leader" in self.log("master").read_text(errors="replace"),
            "the Spark master starting",
            180,
            process=self.procs["master"],
            detail=lambda: self.log("master").read_text(errors="replace")[-3000:],
        )
        for i in range(workers):
            name = f"worker{i}"
            worker = ["org.apache.spark.deploy.worker.Worker", self.url, "--host", "127.0.0.1"]
            ports = ["--port", str(_free_port()), "--webui-port", str(_free_port())]
            small = ["--cores", "1", "--memory", "512m", "--work-dir", str(self.root / name / "work")]
            self._start(name, [*worker, *ports, *small])
        for i in range(workers):
            name = f"worker{i}"
            wait_until(
                lambda name=name: "Successfully registered with master" in self.log(name).read_text(errors="replace"),
                f"Spark {name} registering with the master",
                180,
                process=self.procs[name],
                detail=lambda name=name: self.log(name).read_text(errors="replace")[-3000:],
            )

    def worker_of(self, pid: int) -> str | None:
        """The worker whose session holds process ``pid`` (an executor's Python worker), if any."""
        try:
            sid = os.getsid(pid)
        except ProcessLookupError:
            return None
        for name, p in self.procs.items():
            if name.startswith("worker") and p.pid == sid and p.poll() is None:
                return name
        return None

    def kill(self, name: str) -> None:
        """SIGKILL every process of the worker's session, as if its machine died: the worker, its executor and
        the executor's Python workers (mid-batch: their units of work are not committed)."""
        p = self.procs[name]
        for pid in _session_pids(p.pid):
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        p.wait()

    def stop(self) -> None:
        """Ends every process this cluster started (its sessions only), whatever state the test left them in."""
        for p in self.procs.values():
            pids = _session_pids(p.pid)
            for pid in pids:
                try:
                    os.kill(pid, signal.SIGTERM)
                except ProcessLookupError:
                    pass
            try:
                p.wait(20)
            except subprocess.TimeoutExpired:
                pass
            for pid in _session_pids(p.pid):
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            if p.poll() is None:
                p.wait()


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    c = Cluster(tmp_path_factory.mktemp("spark-cluster"))
    try:
        c.start(workers=2)
        yield c
    finally:
        c.stop()


def _flow_file(tmp_path: Path, src: str, dst: str, marks: Path) -> Path:
    """A flow whose node notes, per message, which Python worker processed it (a file named after its pid) and
    takes a little time, so that a batch's partitions are seen running before they commit."""
    f = tmp_path / "cluster_flow.py"
    f.write_text(
        "import os, time\n"
        "from syncpoint.flow import Flow, MQInput, Output\n"
        f"MARKS = {str(marks)!r}\n"
        "def out(m):\n"
        "    with open(os.path.join(MARKS, str(os.getpid())), 'a') as f:\n"
        "        f.write('x')\n"
        "    time.sleep(0.02)\n"
        "    return Output(m.data, correl_id=m.msg_id)\n"
        f"flow = Flow(MQInput({src!r}), out=out, output={dst!r}, name='cluster')\n"
    )
    return f


def _processed(marks: Path) -> dict[int, int]:
    """Messages the node processed so far, per Python worker's pid."""
    return {int(p.name): p.stat().st_size for p in marks.iterdir() if p.name.isdigit()}


def test_a_flow_on_a_standalone_cluster_loses_nothing_and_duplicates_nothing_when_a_worker_dies_mid_batch(
    cluster: Cluster, server: Any, qm: QueueManager, names: Any, tmp_path: Path
) -> None:
    src, dst = names.pair(qm, "CLUSTER")
    qm.admin("alter", "QLOCAL", src, {"BOTHRESH": 3})
    ids = {bytes(qm.open(src).put(f"m{i:04d}".encode(), persistent=True).MsgId): f"m{i:04d}" for i in range(COUNT)}
    assert len(ids) == COUNT
    dlq_before = {bytes(m.md.MsgId) for m in qm.open(DLQ).browse_all()}
    marks = tmp_path / "marks"
    marks.mkdir()
    flow = _flow_file(tmp_path, src, dst, marks)
    args = [SYNCPOINT, "flow", "run", str(flow), "--qmgr", server.name, "--host", f"127.0.0.1({server.port})"]
    args += ["--master", cluster.url, "--available-now", "--max-messages", "60"]
    args += ["--checkpoint", str(tmp_path / "ckpt")]
    env = cluster.env("driver") | {"SYNCPOINT_HOME": str(tmp_path / "home"), "COLUMNS": "200"}
    out_log = tmp_path / "flow.log"
    with open(out_log, "wb") as log:
        driver = subprocess.Popen(args, env=env, stdout=log, stderr=subprocess.STDOUT)
    try:

        def in_flight() -> str | None:
            """The worker whose executor's Python worker processed a message last, while the node has processed
            more messages than the output and the DLQ hold (read in that order: a commit in between never makes
            it true), so a partition's unit of work is open; once a batch has committed and before the last."""
            done = _processed(marks)
            committed = qm.open(dst).depth + qm.open(DLQ).depth - len(dlq_before)
            if not committed or sum(done.values()) <= committed or committed >= COUNT - 60:
                return None
            newest = max(done, key=lambda pid: (marks / str(pid)).stat().st_mtime_ns)
            return cluster.worker_of(newest)

        victim = wait_for_value(
            in_flight,
            "a batch running on a worker's executor",
            600,
            0.05,
            process=driver,
            detail=lambda: out_log.read_text(errors="replace")[-3000:],
        )
        cluster.kill(victim)
        driver.wait(900)
    finally:
        if driver.poll() is None:
            driver.kill()
            driver.wait()
    output = out_log.read_text(errors="replace")
    assert driver.returncode == 0, output[-5000:]

    # every message exactly once: on the output (CorrelId = its MsgId) or the DLQ (its MsgId kept, behind an MQDLH)
    outs = [(bytes(m.md.CorrelId), m.data) for m in qm.open(dst).browse_all()]
    dead = []
    for m in qm.open(DLQ).browse_all():
        mid = bytes(m.md.MsgId)
        if mid in ids and mid not in dlq_before:
            dlh = MQDLH.unpack(m.data[: C.MQDLH_LENGTH_1])
            assert dlh.DestQName.decode().strip() == src
            dead.append((mid, m.data[C.MQDLH_LENGTH_1 :]))
    ended = [mid for mid, _ in outs + dead]
    assert len(ended) == len(set(ended)), "a message ended twice"
    assert set(ended) == set(ids), f"lost: {sorted(ids[m] for m in set(ids) - set(ended))}"
    assert all(data == ids[mid].encode() for mid, data in outs + dead)
    assert qm.open(src).depth == 0
    assert cluster.procs[victim].poll() is not None  # the worker stayed dead: the survivor finished the run
