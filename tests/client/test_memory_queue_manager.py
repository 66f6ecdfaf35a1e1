"""``syncpoint.memory_queue_manager()`` is usable as it is (issue "Tried as a new user would", item 8: it returned
an engine object that tools could not use): a connection with the Pythonic API, and still the in-process queue
manager other connections and a server share."""

from __future__ import annotations

import io

import syncpoint
from syncpoint.client import QueueManager
from syncpoint.mqi import MQMD, MQOD, MQPMO
from syncpoint.mqi import constants as C


def test_a_memory_queue_manager_is_a_connection_with_the_pythonic_api() -> None:
    with syncpoint.memory_queue_manager("QMM", dlq="SYSTEM.DEAD.LETTER.QUEUE") as qm:
        qm.admin("define", "QLOCAL", "ORDERS")
        q = qm.open("ORDERS")
        q.put(b"one", syncpoint=True)
        assert q.depth == 1
        qm.backout()
        with qm.unit_of_work():
            qm.put1("ORDERS", "two")
        assert q.get().text == "two"
        # the raw MQI through the same connection
        h = qm.mqopen(MQOD(ObjectName=b"ORDERS"), C.MQOO_OUTPUT)
        qm.mqput(h, MQMD(), MQPMO(), b"three")
        assert q.get().data == b"three"
        assert isinstance(qm.connection, QueueManager)


def test_a_tool_runs_on_a_memory_queue_manager() -> None:
    from syncpoint.mqsc import MqscProcessor

    with syncpoint.memory_queue_manager("QMM") as qm:
        out: list[str] = []
        MqscProcessor(qm.connection).run(io.StringIO("DEFINE QLOCAL(APP.IN) MAXDEPTH(7)\n"), out.append)
        assert qm.open("APP.IN").inquire(C.MQIA_MAX_Q_DEPTH) == 7


def test_other_connections_share_a_memory_queue_manager() -> None:
    qm = syncpoint.memory_queue_manager("QMM")
    try:
        qm.admin("define", "QLOCAL", "Q")
        other = syncpoint.connect("QMM", embedded=qm)
        other.open("Q").put(b"m")
        assert qm.open("Q").get().data == b"m"
        qm.disconnect()
        assert qm.open("Q").depth == 0  # a new connection of its own after a disconnect
    finally:
        qm.close()
