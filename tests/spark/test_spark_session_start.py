"""How quickly a flow's Spark session gets going: its Python workers import the installed, compiled pyspark.

Rule (issue 22 item 3, docs/flows.md "Performance"): the flow's first micro-batch must not pay for Spark
compiling pyspark again in every Python process it starts (``$SPARK_HOME/python/lib/pyspark.zip`` holds sources
only); reference/spark.md "Fast tests": ``PYSPARK_PYTHON=sys.executable``, the workers run this Python.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any


def test_spark_session_workers_import_the_installed_pyspark_not_the_source_zip(spark: Any) -> None:
    def where_pyspark_comes_from(_: Any) -> Any:  # defined here: pickled by value for the workers
        import pyspark

        yield pyspark.__file__

    # every executor Python worker of the flow's session: the module file pyspark was imported from
    where = spark.sparkContext.parallelize(range(2), 2).mapPartitions(where_pyspark_comes_from).collect()
    import pyspark

    installed = str(Path(pyspark.__file__).resolve())
    assert where and all(".zip" not in w for w in where), where
    assert all(str(Path(w).resolve()) == installed for w in where), (where, installed)


def test_spark_session_leaves_spark_home_as_it_was_for_the_calling_process(spark: Any) -> None:
    import os

    # the session's JVM was launched with its own SPARK_HOME; the caller's environment does not keep it
    assert "spark-home-" not in os.environ.get("SPARK_HOME", "")


def test_available_now_marks_what_is_on_the_queue_with_one_marker_message_not_a_scan(
    server: Any, qm: Any, names: Any
) -> None:
    # Rule: reference/spark.md "Guarantees" (availableNow processes what is there when the query starts) and
    # src/syncpoint/engine/_tokens.py (a MsgToken is the queue manager's put sequence): the put sequence of a
    # marker put now is above every message already on the queue and below every message put later, however deep
    # the queue, and the marker's temporary dynamic queue does not stay.
    from syncpoint.spark._qm import QueueAccess, next_token

    q = names("MARK")
    qm.admin("define", "QLOCAL", q, {})
    queue = qm.open(q)
    queue.put_many([b"a", b"b", b"c"], syncpoint=True, commit=True)
    marker = next_token(qm)
    assert marker is not None
    queue.put(b"later")
    access = QueueAccess(qm, q)
    try:
        tokens = [v.token for v in access.scan(from_start=True)]
    finally:
        access.close()
    assert len(tokens) == 4
    assert all(t < marker for t in tokens[:3]) and tokens[3] > marker
    left = [d.name for d in qm.admin("list_objects", "QLOCAL") if d.name.startswith("SYNCPOINT.SPARK.")]
    assert not left, left
