"""Helpers for the distributed-queuing engine tests: queue managers built sans I/O on one fake clock."""

from __future__ import annotations

from syncpoint.engine import Connection, FakeClock, Handle, QueueManager
from syncpoint.mqi import MQGMO, MQMD, MQOD, MQPMO, MQMIError
from syncpoint.mqi import constants as C
from syncpoint.store import MemoryStore

DLQ = "SYSTEM.DEAD.LETTER.QUEUE"


def new_qm(name: str, clock: FakeClock, dlq: str | None = DLQ) -> QueueManager:
    """A new queue manager (crtmqm's objects, a dead-letter queue unless ``dlq`` is None) from a MemoryStore."""
    store = MemoryStore()
    store.open()
    store.write(QueueManager.initial_batch(name, clock, dlq))
    qm = QueueManager(name, store.open(), clock)
    qm.take_effects()
    return qm


def settle(qm: QueueManager) -> None:
    """The host's part after a call: the store has written the batch; persistent messages become available."""
    effects = qm.take_effects()
    if effects is not None and effects.durable_pending is not None:
        qm.made_durable(effects.durable_pending)


def open_q(qm: QueueManager, conn: Connection, name: str, options: int, qmgr: str = "") -> Handle:
    return qm.open(conn, MQOD(ObjectName=name.encode(), ObjectQMgrName=qmgr.encode()), options)


def put(
    qm: QueueManager,
    conn: Connection,
    name: str,
    data: bytes,
    md: MQMD | None = None,
    *,
    qmgr: str = "",
    syncpoint: bool = False,
    pmo: MQPMO | None = None,
) -> MQMD:
    """MQPUT1 of ``data`` to ``name`` (at ``qmgr``); returns the MQMD as the put left it."""
    md = md if md is not None else MQMD()
    pmo = pmo if pmo is not None else MQPMO()
    pmo.Options |= C.MQPMO_SYNCPOINT if syncpoint else C.MQPMO_NO_SYNCPOINT
    qm.put1(conn, MQOD(ObjectName=name.encode(), ObjectQMgrName=qmgr.encode()), md, pmo, data)
    settle(qm)
    return md


def get(
    qm: QueueManager, conn: Connection, name: str, *, browse: bool = False, syncpoint: bool = False
) -> tuple[MQMD, bytes]:
    """One message off ``name`` (MQRC_NO_MSG_AVAILABLE raised when none)."""
    opts = C.MQOO_BROWSE if browse else C.MQOO_INPUT_SHARED
    h = open_q(qm, conn, name, opts)
    try:
        md = MQMD()
        gopts = C.MQGMO_BROWSE_FIRST if browse else (C.MQGMO_SYNCPOINT if syncpoint else C.MQGMO_NO_SYNCPOINT)
        r = qm.get(conn, h, md, MQGMO(Options=gopts))
        settle(qm)
        return md, r.data
    finally:
        qm.close(conn, h)


def depth(qm: QueueManager, name: str) -> int:
    return qm.queues[name].depth


def reason_of(fn, *a, **kw) -> int:  # type: ignore[no-untyped-def]
    try:
        fn(*a, **kw)
    except MQMIError as e:
        return e.reason
    raise AssertionError("no MQMIError")
