"""run_flow reads the query's progress on one connection for the whole run and notices the query's end within
POLL seconds (it connected, defined the progress queue and waited half a second on every turn of its loop)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from syncpoint.client import QueueManager
from syncpoint.flow import Flow, FlowMessage, MQInput, run_flow

APPL = "syncpoint.flow.progress"


def test_run_flow_reads_every_batchs_progress_on_one_connection_kept_for_the_run(
    spark: Any, server: Any, qm: QueueManager, names: Any, tmp_path: Path
) -> None:
    src, dst = names("P.IN"), names("P.OUT")
    qm.admin("define", "QLOCAL", src)
    qm.admin("define", "QLOCAL", dst)
    qm.open(src).put("first", persistent=True)
    seen: list[dict[str, Any]] = []
    conns: list[set[int]] = []

    def on_progress(p: dict[str, Any], totals: Any) -> None:
        seen.append(p)
        conns.append({c["HCONN"] for c in qm.admin("connection_status") if c["APPLTAG"] == APPL})
        if len(seen) == 1:  # the next batch's progress can only come after this call returned
            qm.open(src).put("second", persistent=True)
        elif totals.outputs >= 2:
            for q in spark.streams.active:
                q.stop()

    def out(m: FlowMessage) -> Any:
        return m.data.upper()

    totals = run_flow(
        Flow(MQInput(src), out=out, output=dst),
        server.target,
        tmp_path / "ckpt",
        spark=spark,
        on_progress=on_progress,
        timeout=300,
    )
    assert totals.outputs == 2 and len(seen) >= 2
    assert all(len(c) == 1 for c in conns), conns  # the reader's connection, and only it
    assert len(set.union(*conns)) == 1, conns  # the same connection for the first batch and the second
    assert not [c for c in qm.admin("connection_status") if c["APPLTAG"] == APPL]  # ended with the run
