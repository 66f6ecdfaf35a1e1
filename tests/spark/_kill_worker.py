"""A flow run in its own process (own Spark JVM) for the kill tests: IN → "out:<text>" on OUT, availableNow.

python _kill_worker.py QMGR HOME IN OUT CHECKPOINT
"""

import os
import sys

from syncpoint.flow import Flow, MQInput, run_flow
from syncpoint.spark import Target


def out(m):  # type: ignore[no-untyped-def]
    return b"out:" + m.data


def main() -> int:
    qmgr, home, src, dst, ckpt = sys.argv[1:6]
    commit = os.environ.get("SYNCPOINT_KILL_COMMIT", "sink")  # the flow's commit mode (sink or partition)
    flow = Flow(MQInput(src), out=out, output=dst, max_messages_per_batch=1000, commit=commit)
    run_flow(flow, Target(qmgr, home=home), ckpt, master="local[2]", available_now=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
