"""A message flow written in Python, and running it as a Spark Structured Streaming query.

    from syncpoint.flow import Flow, MQInput, Output

    def enrich(msg):                       # the flow behind Out
        order = msg.json()
        return {"id": order["id"], "total": order["qty"] * order["price"]}

    flow = Flow(MQInput("ORDERS", parse="json"), out=enrich, output="ORDERS.ENRICHED")

``syncpoint flow run FILE --qmgr QM1`` loads FILE, takes its ``flow`` and runs it (see run_flow).

Implements: seed 004, reference/mqinput-node.md, reference/spark.md (where code runs).
"""

from __future__ import annotations

import json
import os
import runpy
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from syncpoint.spark import (
    BROKEN,
    DISPOSITION_SCHEMA,
    PROGRESS_QUEUE,
    Target,
    ensure_progress_queue,
    merge_progress_part,
    query_key,
)

from ._node import CatchFn, FailureFn, Handlers, OutFn, TransactionMode
from ._spark import flow_source, node_partition

_PARSERS = ("none", "text", "json")
BATCH_PER_UNIT_OF_WORK = 5000  # a flow's default maxMessagesPerBatch, per unit of work (Flow.max_messages_per_batch)


@dataclass
class MQInput:
    """The input node: the queue, its transaction mode (yes / no / automatic), logical order for groups and
    ``all_or_nothing_groups`` (a failure backs out every message of the group; default: the seed's partial
    behaviour), and the node's parser (none / text / json: a parse failure is an internal error → Failure)."""

    queue: str
    transaction_mode: str = "yes"
    logical_order: bool = True
    all_or_nothing_groups: bool = False
    parse: str = "none"

    def __post_init__(self) -> None:
        try:
            TransactionMode(self.transaction_mode.lower())
        except ValueError:
            raise ValueError(f"transaction_mode must be yes, no or automatic, not {self.transaction_mode!r}") from None
        self.transaction_mode = self.transaction_mode.lower()
        if self.parse not in _PARSERS:
            raise ValueError(f"parse must be one of {', '.join(_PARSERS)}, not {self.parse!r}")
        if not self.queue:
            raise ValueError("MQInput needs a queue name")


@dataclass
class Flow:
    """A message flow: input node, Out flow (``out``, per message), the default output queue (``output``,
    an MQOutput node), optional ``catch`` and ``failure`` flows, and an optional DataFrame stage
    (``transform``: DataFrame → DataFrame, applied to the input rows before the node; it must keep every row
    and the ``queue`` and ``token`` columns; the columns it adds reach ``out`` as ``msg.row``)."""

    input: MQInput
    out: OutFn
    output: str | None = None
    catch: CatchFn | None = None
    failure: FailureFn | None = None
    transform: Callable[[Any], Any] | None = None
    name: str = "flow"
    max_messages_per_batch: int | None = None
    """The most messages of a micro-batch (maxMessagesPerBatch); by default 5,000 per unit of work: 5,000 when the
    sink commits the batch, 5,000 per partition when each partition commits its own (within MAXUMSGS for each
    unit of work, a get and an output per message)."""
    extra_columns: list[str] = field(default_factory=list)
    commit: str = "auto"
    """Where a batch's unit of work commits: ``partition`` (each partition's executor gets its messages, runs the
    node and commits, in parallel; docs/flows.md), ``sink`` (the sink's commit on the driver, one unit of work per
    batch), or ``auto`` (the default: ``partition``, and ``sink`` for a flow with a DataFrame stage, whose node
    runs after the read). A flow reading through several members always commits per partition."""

    def handlers(self) -> Handlers:
        return Handlers(
            out=self.out,
            catch=self.catch,
            failure=self.failure,
            default_queue=self.output,
            parse=self.input.parse,
            mode=TransactionMode(self.input.transaction_mode),
        )


def load_flow(path: str | os.PathLike[str]) -> Flow:
    """Run a flow file and return its ``flow``. Its functions are pickled by value for the executors."""
    p = Path(path)
    if not p.is_file():
        raise FileNotFoundError(f"flow file {p} does not exist")
    ns = runpy.run_path(str(p), run_name="syncpoint_flow_file")
    flow = ns.get("flow")
    if not isinstance(flow, Flow):
        raise ValueError(f"{p} must define `flow = Flow(...)` (syncpoint.flow.Flow); found {type(flow).__name__}")
    return flow


def spark_session(master: str = "local[2]", app_name: str = "syncpoint-flow") -> Any:
    """A SparkSession tuned for small machines (reference/spark.md), with the data source registered.

    Quiet at start: Spark binds to loopback (``SPARK_LOCAL_IP``, unless set: no "hostname resolves to a loopback
    address" warning) and logs errors only once started (warnings such as a batch falling behind are noise for
    a flow; failures still show, and raise). Without pyspark: ImportError saying to install the extra."""
    import sys

    try:
        from pyspark.sql import SparkSession
    except ImportError as e:
        raise ImportError(
            f"message flows run on Spark, which is not installed ({e}): pip install 'syncpoint[spark]'"
        ) from None

    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    home = _installed_spark_home(master)
    if home is not None:  # only the JVM launched below sees it; this process's environment is left as it was
        os.environ["SPARK_HOME"] = home
    try:
        spark = _build_session(SparkSession, master, app_name)
    finally:
        if home is not None and os.environ.get("SPARK_HOME") == home:
            del os.environ["SPARK_HOME"]
    spark.sparkContext.setLogLevel("ERROR")
    register(spark)
    return spark


def _build_session(SparkSession: Any, master: str, app_name: str) -> Any:
    settings = {
        "spark.master": master,
        "spark.app.name": app_name,
        "spark.ui.enabled": "false",
        "spark.sql.shuffle.partitions": "1",
        "spark.sql.adaptive.enabled": "false",
        "spark.sql.codegen.wholeStage": "false",
        "spark.driver.host": "127.0.0.1",
        "spark.driver.bindAddress": "127.0.0.1",
        "spark.driver.extraJavaOptions": f"-XX:+UseSerialGC -XX:TieredStopAtLevel=1 {_log_config()}",
        "spark.ui.showConsoleProgress": "false",
        "spark.sql.streaming.stopGracefullyOnShutdown": "true",
    }
    _start_quiet_jvm(settings)
    builder = SparkSession.builder
    for key, value in settings.items():
        builder = builder.config(key, value)
    return builder.getOrCreate()


_JVM_NOTICES = (b"WARNING: Using incubator modules:",)  # the JVM's, for the module Spark's launcher always adds


def _start_quiet_jvm(settings: dict[str, str]) -> None:
    """Start Spark's JVM (when this process has none yet) with its standard error read through a filter that
    drops the JVM's own start-up notice "WARNING: Using incubator modules: jdk.incubator.vector" (Spark's
    launcher always adds that module; no JVM option silences the notice); every other line — Spark's warnings
    and errors — goes on to this process's standard error as it comes. PySpark then uses this JVM (its gateway
    is the one SparkContext takes), started with the session's settings as it would have started it."""
    import subprocess
    import sys
    import threading

    from pyspark import SparkConf, SparkContext
    from pyspark.java_gateway import launch_gateway

    if SparkContext._gateway is not None or "PYSPARK_GATEWAY_PORT" in os.environ:
        return
    conf = SparkConf(loadDefaults=False)
    for key, value in settings.items():
        conf.set(key, value)
    gateway = launch_gateway(conf, popen_kwargs={"stderr": subprocess.PIPE})  # type: ignore[no-untyped-call]
    SparkContext._ensure_initialized(gateway=gateway)
    err = gateway.proc.stderr

    def relay() -> None:
        open_ = True
        for line in iter(err.readline, b""):
            if not open_ or line.startswith(_JVM_NOTICES):
                continue  # the pipe is still drained: a JVM blocked on a full pipe would stop
            try:
                sys.stderr.write(line.decode(errors="replace"))
                sys.stderr.flush()
            except (OSError, ValueError):  # standard error closed
                open_ = False

    threading.Thread(target=relay, name="syncpoint-jvm-stderr", daemon=True).start()


def _installed_spark_home(master: str) -> str | None:
    """A SPARK_HOME for a pip-installed PySpark whose Python workers import the installed, compiled pyspark.

    Spark puts ``$SPARK_HOME/python/lib/pyspark.zip`` first on every Python worker's path, and the zip holds
    sources only: each Python process Spark starts (the data source's planner and stream runners on the driver,
    the executors' daemons, the sink's commit runner: seven for a flow's first micro-batch) compiled about 1,500
    modules again, 0.5-0.9 s of CPU each, most of it before the first batch could run (docs/flows.md,
    Performance). The directory returned (under the user's cache, made once per installation) links everything
    of the installation but that zip, so the workers import the same pyspark from site-packages, compiled.

    None, leaving Spark as it is, when the user set SPARK_HOME, when the master is not local (executors elsewhere
    use their own installation), when the workers' Python is not this one, or when anything is missing."""
    import hashlib
    import sys
    import tempfile

    if os.environ.get("SPARK_HOME") or not master.startswith("local"):
        return None
    if os.path.realpath(os.environ.get("PYSPARK_PYTHON", sys.executable)) != os.path.realpath(sys.executable):
        return None
    try:
        import pyspark
    except ImportError:
        return None
    real = Path(pyspark.__file__).resolve().parent
    lib = real / "python" / "lib"
    if not (lib / "pyspark.zip").is_file() or not (real / "jars").is_dir() or not (real / "bin").is_dir():
        return None
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "syncpoint"
    key = hashlib.sha256(f"{real}:{getattr(pyspark, '__version__', '')}".encode()).hexdigest()[:16]
    home = cache / f"spark-home-{key}"
    if (home / "jars").is_dir():
        return str(home)
    try:
        cache.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=".spark-home-", dir=cache))
        for entry in real.iterdir():
            if entry.name not in ("python", "__pycache__"):
                (tmp / entry.name).symlink_to(entry)
        (tmp / "python" / "lib").mkdir(parents=True)
        for entry in lib.iterdir():
            if entry.name != "pyspark.zip":
                (tmp / "python" / "lib" / entry.name).symlink_to(entry)
        try:
            tmp.rename(home)
        except OSError:  # another process made it first
            import shutil

            shutil.rmtree(tmp, ignore_errors=True)
    except OSError:
        return None
    return str(home) if (home / "jars").is_dir() else None


def _log_config() -> str:
    """The JVM option naming syncpoint's log4j2 settings for Spark (no start-up banner, no native-library notice,
    no progress bar; warnings and errors still on standard error), unless the user names a configuration of
    their own in ``JAVA_TOOL_OPTIONS`` or ``SPARK_SUBMIT_OPTS``."""
    own = os.environ.get("JAVA_TOOL_OPTIONS", "") + os.environ.get("SPARK_SUBMIT_OPTS", "")
    if "log4j2.configurationFile" in own or "log4j.configurationFile" in own:
        return ""
    return f"-Dlog4j2.configurationFile={Path(__file__).with_name('log4j2.properties').as_uri()}"


def register(spark: Any) -> None:
    from syncpoint.spark import SyncpointDataSource

    spark.dataSource.register(SyncpointDataSource)


def build_query(
    spark: Any,
    flow: Flow,
    target: Target,
    checkpoint: str | os.PathLike[str],
    *,
    available_now: bool = False,
    trigger_interval: str = "1 second",
    partitions: int | None = None,
    query_name: str | None = None,
) -> Any:
    """Start the flow as a streaming query (not waiting for it).

    ``partitions``: a micro-batch's partitions. By default 2; twice Spark's cores (``defaultParallelism``) when
    each partition commits its own unit of work on a private queue: a batch, bounded per partition by MAXUMSGS,
    then shares its fixed cost among twice as many messages, and while one task waits for the queue manager
    another runs its node. A batch of fewer than 500 messages a partition is dealt to at most as many
    partitions as Spark has cores (a trickle's batch: a second wave of tasks would only add latency).

    Without a DataFrame stage the node runs inside the source's read (a source class of the flow's own, see
    ``flow_source``): the messages go from the queue manager to the node in one executor Python worker and only
    the dispositions enter Spark. With a ``transform`` the source's rows go through it, then to the node
    (mapInArrow)."""
    register(spark)
    _pickle_by_value(flow)
    fused = flow.transform is None and not flow.extra_columns

    def node(extra: list[str]) -> Callable[[Iterator[Any]], Iterator[Any]]:
        return node_partition(
            flow.handlers(),
            target,
            logical_order=flow.input.logical_order,
            all_or_nothing=flow.input.all_or_nothing_groups,
            extra=extra,
            packed=fused,
        )

    fmt = "syncpoint"
    if fused:
        source = flow_source(node([]), str(Path(checkpoint).resolve()))
        spark.dataSource.register(source)
        fmt = source.name()
    if flow.commit not in ("auto", "sink", "partition"):
        raise ValueError(f"Flow commit must be auto, sink or partition, not {flow.commit!r}")
    if (target.members or flow.commit == "partition") and not fused:
        raise ValueError(
            "a flow committing per partition (commit='partition', or reading a shared queue through several "
            "members) runs its node inside the read: it cannot have a DataFrame stage (transform, extra_columns)"
        )
    reader = spark.readStream.format(fmt).option("queue", flow.input.queue)
    writer_opts = {"mode": "flow"}
    for k, v in target.options().items():
        reader = reader.option(k, v)
        writer_opts[k] = v
    commit = ("partition" if flow.commit == "auto" else flow.commit) if fused else "sink"
    # Partitions that commit on their own leave the sink nothing but the progress message: they put its parts
    # themselves and the query writes to Spark's noop sink (no Python writer or commit runner per batch)
    quiet_sink = commit == "partition" and not target.members
    cores = _cores(spark)
    if partitions is None:
        partitions = 2 * cores if quiet_sink else 2
    per_batch = flow.max_messages_per_batch
    if per_batch is None:
        per_batch = BATCH_PER_UNIT_OF_WORK * (partitions if commit == "partition" or target.members else 1)
    out = (
        reader.option("maxMessagesPerBatch", str(per_batch))
        .option("rowFormat", "packed" if fused else "columns")
        .option("logicalOrder", str(flow.input.logical_order).lower())
        .option("partitions", str(partitions))
        .option("cores", str(cores))
        .option("commit", commit)
        .option("progress", "partition" if quiet_sink else "sink")
        .load()
    )
    if not fused:
        df = out
        extra: list[str] = list(flow.extra_columns)
        if flow.transform is not None:
            base = set(df.columns)
            df = flow.transform(df)
            missing = {"queue", "token"} - set(df.columns)
            if missing:
                raise ValueError(f"the flow's transform dropped the columns {sorted(missing)}; keep queue and token")
            extra = [c for c in df.columns if c not in base]
        out = df.mapInArrow(node(extra), DISPOSITION_SCHEMA)
    w = out.writeStream.format("noop") if quiet_sink else out.writeStream.format("syncpoint").options(**writer_opts)
    w = w.option("checkpointLocation", str(checkpoint))
    if query_name:
        w = w.queryName(query_name)
    w = w.trigger(availableNow=True) if available_now else w.trigger(processingTime=trigger_interval)
    if fused and not target.members:
        warm_executors(spark, target, cores)
    return _start(spark, w, checkpoint)


def warm_executors(spark: Any, target: Target, cores: int) -> Any:
    """Start the executors' Python workers while the query starts (a thread running a small job; returned).

    Spark starts the Python processes of a query's first batch one after the other: the data source's on the
    driver (the schema, the stream reader's runner, the read planner), then the executors' daemon and its
    workers, which import pyarrow and syncpoint and connect before the first partition is read (1.4-1.7 s from
    the batch's partitions to its first read on a quiet 2-core machine: docs/flows.md, Performance, change 18).
    A job of ``cores`` tasks over ``mapInArrow``, run beside the query's start, has the same daemon (Spark keeps
    one per kind of worker: an SQL job's, not an RDD job's, is the data source read's) fork as many workers,
    each importing what a partition of the flow needs and connecting to the queue manager (the connection kept
    for the process, Target.connection); the batch's tasks then find them idle. Only on a local master (the
    workers are this machine's); any failure is the batch's to meet, not this job's."""
    import threading

    try:
        if not str(spark.sparkContext.master).startswith("local"):
            return None
    except Exception:  # no SparkContext (Spark Connect)
        return None
    options = target.options()

    def warm(batches: Iterator[Any]) -> Iterator[Any]:
        import pyarrow  # noqa: F401  (what a partition of the flow imports, once per worker)

        from syncpoint.spark import profile_span

        with profile_span("executor.warm"):
            from syncpoint.flow import _spark  # noqa: F401
            from syncpoint.spark import SyncpointDataSource, Target  # noqa: F401  (the stream reader's module)

            try:
                Target.from_options(options).connection("syncpoint.spark.read")
            except Exception:  # the partition connects itself, and meets the error there
                pass
        yield from batches

    def run() -> None:
        try:
            sc = spark.sparkContext
            sc.setLocalProperty("spark.job.description", "syncpoint: starting the executors' Python workers")
            spark.range(cores, numPartitions=cores).mapInArrow(warm, "id long").collect()
        except Exception:  # the session stopped meanwhile, …: the flow's own tasks start the workers
            pass

    th = threading.Thread(target=run, name="syncpoint-warm-executors", daemon=True)
    th.start()
    return th


CHECKPOINT_FILE_MANAGER = "spark.sql.streaming.checkpointFileManagerClass"
_FS_CHECKPOINT_FILE_MANAGER = (
    "org.apache.spark.sql.execution.streaming.checkpointing.FileSystemBasedCheckpointFileManager"
)


def _start(spark: Any, writer: Any, checkpoint: str | os.PathLike[str]) -> Any:
    """Start the query; a checkpoint on the local file system is written through Hadoop's FileSystem API.

    Spark's default checkpoint file manager (FileContext) makes every offsets and commits file it writes, two a
    micro-batch, with a permission change and a rename that Hadoop without its native library does by running
    ``chmod`` and ``readlink`` processes (2 and 8 a file, about 35 ms a file: docs/flows.md, Performance,
    change 17). The FileSystem one writes the same way, the file's contents to a hidden temporary file in the
    same directory, then renames it to its name; on a local file system that rename is rename(2), atomic: a
    process killed at any point leaves the batch's file whole or absent (a stray temporary file is ignored),
    as with the default. Only for a checkpoint on the local file system, and only while the query starts (its
    logs make their file managers then); a session's own setting is left alone. The checkpoint's files and
    folders are written private (0600, 0700: ``_PRIVATE_CHECKPOINT``)."""
    if not _local_path(checkpoint):
        return writer.start()
    try:
        own = spark.conf.get(CHECKPOINT_FILE_MANAGER, None)
    except Exception:  # a session that does not say (Spark Connect): as it is
        return writer.start()
    settings = dict(_PRIVATE_CHECKPOINT)
    if own is None:
        settings[CHECKPOINT_FILE_MANAGER] = _FS_CHECKPOINT_FILE_MANAGER
    before = {k: spark.conf.get(k, None) for k in settings}
    for k, v in settings.items():
        spark.conf.set(k, v)
    try:
        return writer.start()
    finally:
        for k, v in before.items():
            if v is None:
                spark.conf.unset(k)
            else:
                spark.conf.set(k, v)


# A local checkpoint is private from the start, as the queue manager's folder it usually sits in (strmqm narrows
# what is wider, one notice per path): Hadoop's local file system sets each file's and folder's permission
# itself, 0644 and 0755 under its default umask 022, whatever the process's umask; with 077 it writes 0600 and
# 0700. A FileSystem object keeps the configuration it was made with and Hadoop caches one per scheme, so the
# query's file managers get one of their own (the cache off while the query starts, the only time they make it).
_PRIVATE_CHECKPOINT = {"fs.permissions.umask-mode": "077", "fs.file.impl.disable.cache": "true"}


def _local_path(checkpoint: str | os.PathLike[str]) -> bool:
    """A checkpoint location on the local file system: a path, or a ``file:`` URI."""
    text = os.fspath(checkpoint)
    scheme = text.split(":", 1)[0] if ":" in text.split("/", 1)[0] else ""
    return scheme in ("", "file")


def _cores(spark: Any) -> int:
    """Spark's cores for tasks (``local[2]``: 2); 1 where the session does not say (Spark Connect)."""
    try:
        return max(1, int(spark.sparkContext.defaultParallelism))
    except Exception:
        return 1


def _pickle_by_value(flow: Flow) -> None:
    """Ship the flow's functions to the executors by value: their module (a test, a script) may not be importable
    there."""
    import sys

    from pyspark import cloudpickle

    for fn in (flow.out, flow.catch, flow.failure):
        mod = getattr(fn, "__module__", None)
        if mod and mod in sys.modules and mod != "__main__" and not mod.startswith(("syncpoint.", "pyspark")):
            try:
                cloudpickle.register_pickle_by_value(sys.modules[mod])  # type: ignore[no-untyped-call, unused-ignore]
            except ValueError:
                pass


class ProgressReader:
    """A query's progress messages (one per committed or skipped batch) on one connection kept for the run: the
    parts a batch's partitions put (per-partition commits) are added up into one, kept in ``pending`` until the
    last part arrives. A broken connection is made again on the next read."""

    def __init__(self, target: Target, query_id: str, pending: dict[int, dict[str, Any]] | None = None) -> None:
        self.target, self.key = target, query_key(query_id)
        self.pending: dict[int, dict[str, Any]] = {} if pending is None else pending
        self._qm: Any = None
        self._q: Any = None

    def read(self, wait: float | None = None) -> Iterator[dict[str, Any]]:
        """The progress messages there now, after waiting up to ``wait`` seconds for the first."""
        from syncpoint.mqi import MQMIError

        for attempt in (1, 2):
            try:
                yield from self._read(wait)
                return
            except MQMIError as e:
                self.close()
                if e.reason not in BROKEN or attempt == 2:
                    raise

    def _read(self, wait: float | None) -> Iterator[dict[str, Any]]:
        if self._q is None:
            self._qm = self.target.connect("syncpoint.flow.progress")
            ensure_progress_queue(self._qm)
            self._q = self._qm.open(PROGRESS_QUEUE)
        while True:
            m = self._q.get_or_none(correl_id=self.key, wait=wait)
            wait = None
            if m is None:
                return
            p = json.loads(m.data)
            if "parts" in p:
                p = merge_progress_part(self.pending, p)
                if p is None:
                    continue
            yield p

    def close(self) -> None:
        qm, self._qm, self._q = self._qm, None, None
        if qm is not None:
            try:
                qm.disconnect()
            except Exception:  # a connection already broken: nothing to end
                pass


def progress(
    target: Target, query_id: str, wait: float = 0.5, pending: dict[int, dict[str, Any]] | None = None
) -> Iterator[dict[str, Any]]:
    """The progress messages of a query that arrive within ``wait`` (see :class:`ProgressReader`), on a
    connection of their own."""
    reader = ProgressReader(target, query_id, pending)
    try:
        yield from reader.read(wait)
    finally:
        reader.close()


def _ended(query: Any, seconds: float) -> bool:
    """Wait up to ``seconds`` for the query to end: True once it has (stopped, drained, or failed: the caller
    reads ``query.exception()``)."""
    try:
        return bool(query.awaitTermination(seconds))
    except Exception:  # the query failed: awaitTermination raises its exception
        return True


# the flow's counters (a record: the dead-letter handler's Statistics has the same shape, other counters)
@dataclass
class Totals:
    batches: int = 0
    inputs: int = 0
    outputs: int = 0
    backed_out: int = 0
    to_boq: int = 0
    to_dlq: int = 0
    stayed: int = 0
    failure: int = 0
    catch: int = 0
    discarded: int = 0
    gone: int = 0
    where: dict[str, str] = field(default_factory=dict)
    spark_ms: dict[str, int] = field(default_factory=dict)  # Spark's own durations (durationMs), summed
    spark_batches: dict[int, int] = field(default_factory=dict)  # batch id -> triggerExecution ms
    batch_inputs: dict[int, int] = field(default_factory=dict)  # batch id -> input messages (the sink's count)

    def add_spark(self, progress: Any) -> None:
        """Add a StreamingQueryProgress's durationMs (latestOffset, addBatch, walCommit …). Its numInputRows is
        not a message count for a flow (the source's rows are the node's, one per partition)."""
        durations = getattr(progress, "durationMs", None) or {}
        for k, v in durations.items():
            self.spark_ms[k] = self.spark_ms.get(k, 0) + int(v)
        if progress.numInputRows:
            self.spark_ms["batches"] = self.spark_ms.get("batches", 0) + 1
            self.spark_batches[int(progress.batchId)] = int(durations.get("triggerExecution", 0))

    def steady_rate(self) -> float | None:
        """Messages per second of the batches after the first (a query's first batch also starts its workers)."""
        later = [b for b in sorted(self.spark_batches)[1:] if b in self.batch_inputs]
        ms = sum(self.spark_batches[b] for b in later)
        return 1000.0 * sum(self.batch_inputs[b] for b in later) / ms if later and ms else None

    def add(self, p: dict[str, Any]) -> None:
        if p.get("skipped"):
            return
        self.batches += 1
        self.batch_inputs[int(p.get("batch_id", -1))] = int(p.get("inputs", 0))
        for k in (
            "inputs",
            "outputs",
            "backed_out",
            "to_boq",
            "to_dlq",
            "stayed",
            "failure",
            "catch",
            "discarded",
            "gone",
        ):
            setattr(self, k, getattr(self, k) + int(p.get(k, 0)))
        self.where.update(p.get("where", {}))


POLL = 0.1
"""How often run_flow looks for progress messages and for the query's end, in seconds."""


def run_flow(
    flow: Flow,
    target: Target,
    checkpoint: str | os.PathLike[str],
    *,
    master: str = "local[2]",
    available_now: bool = False,
    trigger_interval: str = "1 second",
    on_progress: Callable[[dict[str, Any], Totals], None] | None = None,
    timeout: float | None = None,
    spark: Any = None,
) -> Totals:
    """Run a flow until it stops (availableNow: when the queue is drained), calling ``on_progress`` per batch."""
    own = spark is None
    spark = spark or spark_session(master)
    totals = Totals()
    query = build_query(spark, flow, target, checkpoint, available_now=available_now, trigger_interval=trigger_interval)
    deadline = None if timeout is None else time.monotonic() + timeout
    pending: dict[int, dict[str, Any]] = {}
    reader = ProgressReader(target, str(query.id), pending)
    try:
        while True:
            # a batch's progress is reported within POLL seconds, and the run returns within POLL of the query's
            # end (an availableNow query's last batch), on one connection for the whole run
            ended = _ended(query, POLL)
            for p in reader.read():
                totals.add(p)
                if on_progress is not None:
                    on_progress(p, totals)
            if ended:
                for bid in sorted(pending):  # a part lost (its put is best effort): what the others said
                    p = pending.pop(bid)
                    p.pop("_parts", None)
                    totals.add(p)
                    if on_progress is not None:
                        on_progress(p, totals)
                break
            if deadline is not None and time.monotonic() > deadline:
                break
        if query.exception() is not None:
            raise RuntimeError(f"the flow's streaming query failed: {query.exception()}")
        for p in query.recentProgress:
            totals.add_spark(p)
    finally:
        reader.close()
        if query.isActive:
            query.stop()
        if own:
            spark.stop()
    return totals
