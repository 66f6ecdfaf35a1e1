"""Selection strings from unmodified ibmmq and pymqi programs: an MQOD version 4 whose SelectionString MQCHARV
(``od.set_vs("SelectionString", ...)``) points at the selector, read by syncpoint's backend (compat/_charv.py).

Rules: IBM's "SelectionString (MQCHARV) for MQOD"; MQRC_SELECTOR_SYNTAX_ERROR (2459) for one that does not parse.
"""

from __future__ import annotations

import json

from compat_harness import ProgramRunner

PROGRAM = """
import json
import {lib} as mq
C = mq.CMQC
qmgr = mq.connect("QM1")
out = mq.Queue(qmgr, "SYSTEM.DEFAULT.LOCAL.QUEUE", C.MQOO_OUTPUT)
for p in (1, 7, 3, 8):
    out.put(b"p%d" % p, mq.MD(Priority=p))
od = mq.OD(Version=C.MQOD_VERSION_4, ObjectName=b"SYSTEM.DEFAULT.LOCAL.QUEUE")
od.set_vs("SelectionString", b"Root.MQMD.Priority > 5")
q = mq.Queue(qmgr, od, C.MQOO_INPUT_SHARED)
got = []
while True:
    try:
        got.append(q.get().decode())
    except mq.MQMIError as e:
        got.append(e.reason)
        break
bad = mq.OD(Version=C.MQOD_VERSION_4, ObjectName=b"SYSTEM.DEFAULT.LOCAL.QUEUE")
bad.set_vs("SelectionString", b"Root.MQMD.Priority >")
try:
    mq.Queue(qmgr, bad, C.MQOO_INPUT_SHARED)
    reason = 0
except mq.MQMIError as e:
    reason = e.reason
put1_od = mq.OD(Version=C.MQOD_VERSION_4, ObjectName=b"SYSTEM.DEFAULT.LOCAL.QUEUE")
put1_od.set_vs("SelectionString", b"Root.MQMD.Priority > 5")
try:
    qmgr.put1(put1_od, b"x")
    put1 = 0
except mq.MQMIError as e:
    put1 = e.reason
q.close()
out.close()
print(json.dumps({{"got": got, "bad": reason, "put1": put1}}))
"""


def test_ibmmq_and_pymqi_programs_select_with_an_mqod_selection_string(run_program: ProgramRunner) -> None:
    for lib in ("ibmmq", "pymqi"):  # the same queue: the second run leaves p1 and p3 of both runs unchosen
        out = run_program(PROGRAM.format(lib=lib)).stdout.strip().splitlines()
        got = json.loads(out[-1])
        # MQPUT1 opens for output: a selection string there is MQRC_SELECTOR_INVALID_FOR_TYPE (2516)
        assert got == {"got": ["p8", "p7", 2033], "bad": 2459, "put1": 2516}, lib
