"""The Spark examples of docs/spark.md run, in the Spark tests' one shared session (issue 21: "every example in
them is run by a test"). tests/test_docs_examples.py runs every other example; it leaves these to this file because
only the Spark tests start Spark.

Each page's blocks marked ``<!-- example: skip needs Spark … -->`` run in order in one namespace, as a reader
pastes them into one PySpark session, with two substitutions a test needs: the queue manager QM1 is the Spark
tests' server (``.option("qmgr", "QM1")`` gains its ``home``) and the checkpoint folder is a temporary one.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import Any

from conftest import Server

ROOT = Path(__file__).resolve().parents[2]


def _docs_runner() -> Any:
    spec = importlib.util.spec_from_file_location("docs_examples", ROOT / "tests" / "test_docs_examples.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def spark_blocks(page: Path) -> list[Any]:
    """The page's Python blocks that the docs runner leaves to the Spark tests."""
    return [b for b in _docs_runner().blocks_of(page) if b.lang == "python" and b.skip and "Spark" in b.skip]


def test_docs_spark_examples_read_write_and_stream_through_the_data_source(
    spark: Any, server: Server, tmp_path: Path
) -> None:
    blocks = spark_blocks(ROOT / "docs" / "spark.md")
    assert len(blocks) >= 4, "docs/spark.md's Spark examples were not found"
    qm = server.connect()
    try:
        for queue in ("ORDERS", "IN", "OUT"):
            qm.admin("define", "QLOCAL", queue)
        inq = qm.open("IN")
        inq.put_many([b"first", b"second"], persistent=True)
        qm.open("ORDERS").put(b"an order", persistent=True)
        namespace: dict[str, Any] = {}
        for block in blocks:
            here = f'.option("qmgr", {server.name!r}).option("home", {str(server.home)!r})'
            code = block.text.replace('.option("qmgr", "QM1")', here)
            code = code.replace("/data/ckpt/in-to-out", str(tmp_path / "ckpt"))
            exec(compile(code, f"{block.page.name}:{block.line}", "exec"), namespace)
        for query in namespace["spark"].streams.active:  # the streaming example runs availableNow: it ends
            query.awaitTermination(120)
        assert namespace["df"].count() >= 1  # the first example's batch read of ORDERS
        out = sorted(m.data for m in qm.open("OUT").browse_all())
        # the batch write put "hello" (Priority 5); the stream moved IN's messages, upper-cased, exactly once
        assert out == [b"FIRST", b"SECOND", b"hello"]
        assert inq.depth == 0
    finally:
        qm.disconnect()
