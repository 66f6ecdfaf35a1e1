"""An embedded connection gets several messages in one call (issue 23 item 9: a sending channel takes its batch
off the transmission queue in one call to its queue manager, under one hold of its lock).

The contract is the remote transport's ``get_many`` (docs/protocol.md, ``getm``): each item's MQMD completed in
place, one result per message, the list ending at the first failure; the gets are in the caller's unit of work.
"""

from __future__ import annotations

from pathlib import Path

from syncpoint.client import connect, create_queue_manager
from syncpoint.mqi import MQGMO, MQMD, MQOD, MQMIError
from syncpoint.mqi import constants as C


def test_an_embedded_connection_gets_several_messages_in_one_call_up_to_the_first_failure(tmp_path: Path) -> None:
    create_queue_manager("QMB", home=tmp_path)
    qm = connect("QMB", home=tmp_path)
    q = qm.open("SYSTEM.DEFAULT.LOCAL.QUEUE")
    for i in range(3):
        q.put(b"m%d" % i, persistent=True)
    h = qm.mqopen(MQOD(ObjectName=b"SYSTEM.DEFAULT.LOCAL.QUEUE"), C.MQOO_INPUT_SHARED)
    items = [(MQMD(), MQGMO(Options=C.MQGMO_SYNCPOINT | C.MQGMO_NO_WAIT), None) for _ in range(5)]
    results = qm.transport.get_many(h, items)  # type: ignore[attr-defined]
    assert [r.data for r in results[:3]] == [b"m0", b"m1", b"m2"]
    assert [items[i][0].Persistence for i in range(3)] == [C.MQPER_PERSISTENT] * 3
    assert len(results) == 4 and isinstance(results[3], MQMIError)
    assert results[3].reason == C.MQRC_NO_MSG_AVAILABLE
    qm.mqback()  # in the unit of work: backed out, all three are there again
    assert q.depth == 3
    qm.disconnect()
