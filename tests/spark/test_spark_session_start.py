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
