"""MSGDLVSQ changed while messages are held by units of work: they join the queue in the new order.

IBM keeps the messages when MSGDLVSQ changes and delivers by the new sequence; a message put (or got) in a unit
of work that ends after the change is no exception. Found by the triggering count model
(tests/engine/test_triggering.py).
"""

from __future__ import annotations

from syncpoint.client import QueueManager
from syncpoint.mqi import constants as C


def test_a_put_committed_after_fifo_became_priority_is_delivered_by_its_priority(qm: QueueManager) -> None:
    qm.admin("define", "QLOCAL", "Q2", {"MSGDLVSQ": C.MQMDS_FIFO, "DEFPRTY": 4})
    q = qm.open("Q2")
    q.put(b"in unit of work", syncpoint=True)  # FIFO: priority 4
    qm.admin("alter", "QLOCAL", "Q2", {"MSGDLVSQ": C.MQMDS_PRIORITY})
    q.put(b"priority 7", priority=7)
    qm.commit()
    assert [m.data for m in q.messages()] == [b"priority 7", b"in unit of work"]


def test_a_get_backed_out_after_priority_became_fifo_returns_to_its_arrival_place(qm: QueueManager) -> None:
    qm.admin("define", "QLOCAL", "Q2")
    q = qm.open("Q2")
    q.put(b"first, priority 8", priority=8)
    q.put(b"second, priority 1", priority=1)
    assert q.get(syncpoint=True).data == b"first, priority 8"
    qm.admin("alter", "QLOCAL", "Q2", {"MSGDLVSQ": C.MQMDS_FIFO})
    qm.backout()
    assert [m.data for m in q.messages()] == [b"first, priority 8", b"second, priority 1"]
