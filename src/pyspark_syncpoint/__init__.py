"""The "syncpoint" Spark data source, found by PySpark 4 on its own: ``spark.read.format("syncpoint")`` works with
nothing but ``pip install 'syncpoint[spark]'`` — no ``spark.dataSource.register`` call.

PySpark 4 looks, at the first use of a Python data source, through every installed top-level module whose name
starts with ``pyspark_`` and registers the ``DefaultSource`` class of each under the name that class gives
(``pyspark/sql/worker/lookup_data_sources.py``). ``DefaultSource`` here is ``syncpoint.spark.SyncpointDataSource``,
whose name is ``syncpoint``. See docs/spark.md.
"""

from __future__ import annotations

from syncpoint.spark import SyncpointDataSource as DefaultSource

__all__ = ["DefaultSource"]
