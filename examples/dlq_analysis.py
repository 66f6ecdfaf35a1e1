"""Dead-letter-queue analysis with the "syncpoint" Spark data source: group a DLQ by reason and destination, plot it.

    syncpoint strmqm QM1        # Spark's workers reach the queue manager through its server
    python examples/dlq_analysis.py QM1 [SYSTEM.DEAD.LETTER.QUEUE] [dlq.png]

The read only browses: nothing is removed from the queue. Each row carries the MQDLH fields (DLH_Reason,
DLH_DestQName, DLH_PutApplName …) next to the MQMD fields and the payload after the header.
"""

from __future__ import annotations

import sys

from syncpoint.flow import spark_session
from syncpoint.mqi import constants as C


def reason_name(code: int | None) -> str:
    if code is None:
        return "(no MQDLH)"
    for prefix in ("MQRC_", "MQFB_"):
        for name, value in vars(C).items():
            if name.startswith(prefix) and value == code:
                return f"{name} ({code})"
    return str(code)


def main(qmgr: str, dlq: str = "SYSTEM.DEAD.LETTER.QUEUE", png: str | None = "dlq.png") -> None:
    spark = spark_session("local[2]", "dlq-analysis")
    try:
        df = spark.read.format("syncpoint").option("qmgr", qmgr).option("queue", dlq).load()
        by = df.groupBy("DLH_Reason", "DLH_DestQName").count().orderBy("count", ascending=False).collect()
    finally:
        spark.stop()
    if not by:
        print(f"{dlq} on {qmgr} is empty.")
        return
    labels = [f"{reason_name(r['DLH_Reason'])} → {r['DLH_DestQName'] or '?'}" for r in by]
    counts = [int(r["count"]) for r in by]
    width = max(len(s) for s in labels)
    for label, n in zip(labels, counts, strict=True):
        print(f"{label:<{width}}  {n:>6}  {'█' * max(1, round(40 * n / max(counts)))}")
    if png:
        try:
            import matplotlib

            matplotlib.use("Agg")
            import matplotlib.pyplot as plt
        except ImportError:
            print("(install matplotlib for a chart)")
            return
        fig, ax = plt.subplots(figsize=(10, 0.5 * len(labels) + 1.5))
        ax.barh(labels[::-1], counts[::-1])
        ax.set_xlabel("messages")
        ax.set_title(f"{dlq} on {qmgr}: by reason and destination")
        fig.tight_layout()
        fig.savefig(png)
        print(f"chart written to {png}")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(*sys.argv[1:4])
