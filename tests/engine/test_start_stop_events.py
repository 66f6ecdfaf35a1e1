"""The queue manager's own event queues (issue 36, item 2) and its start and stop events (STRSTPEV).

IBM MQ: crtmqm makes SYSTEM.ADMIN.QMGR.EVENT, .PERFM.EVENT, .CHANNEL.EVENT, .CONFIG.EVENT, .COMMAND.EVENT,
.LOGGER.EVENT, .PUBSUB.EVENT, SYSTEM.ADMIN.STATISTICS.QUEUE, .ACCOUNTING.QUEUE, .ACTIVITY.QUEUE and the trace
queues ("System and default objects"); Queue Manager Active (2222) and Queue Manager Not Active (2223, reason
qualifier MQRQ_Q_MGR_STOPPING or MQRQ_Q_MGR_QUIESCING) on SYSTEM.ADMIN.QMGR.EVENT when STRSTPEV is ENABLED,
its default."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import syncpoint
from syncpoint.client import MemoryQueueManager, open_embedded
from syncpoint.engine import FakeClock
from syncpoint.engine import QueueManager as Engine
from syncpoint.mqi import constants as C
from syncpoint.mqi.objects import QLOCAL, SYSTEM_ADMIN_QUEUES
from syncpoint.pcf import MQCFIN, MQCFST, parse
from syncpoint.store import MemoryStore

EVENTQ = "SYSTEM.ADMIN.QMGR.EVENT"


def events(qm: Any) -> list[tuple[int, list[tuple[int, Any]], int]]:
    """(Reason, [(parameter, value)], Persistence) of each event on the queue manager event queue, taken off it."""
    out = []
    q = qm.open(EVENTQ)
    while (m := q.get_or_none()) is not None:
        cfh, params = parse(m.data)
        assert (cfh.Type, cfh.Command, cfh.CompCode) == (7, 44, C.MQCC_WARNING)  # MQCMD_Q_MGR_EVENT
        values = [(p.Parameter, p.String.decode().strip() if isinstance(p, MQCFST) else p.Value) for p in params]
        assert all(isinstance(p, (MQCFST, MQCFIN)) for p in params)
        out.append((cfh.Reason, values, m.md.Persistence))
    q.close()
    return out


def test_a_new_queue_manager_has_ibms_event_statistics_and_accounting_queues(qm: Any) -> None:
    for name in [
        "SYSTEM.ADMIN.QMGR.EVENT",
        "SYSTEM.ADMIN.PERFM.EVENT",
        "SYSTEM.ADMIN.CHANNEL.EVENT",
        "SYSTEM.ADMIN.COMMAND.EVENT",
        "SYSTEM.ADMIN.CONFIG.EVENT",
        "SYSTEM.ADMIN.STATISTICS.QUEUE",
        "SYSTEM.ADMIN.ACCOUNTING.QUEUE",
        "SYSTEM.ADMIN.TRACE.ROUTE.QUEUE",
    ]:
        d = qm.admin("lookup", QLOCAL, name)
        assert d is not None and d.attrs["MAXDEPTH"] == 3000, name  # IBM's MAXDEPTH(3000)
    assert len(SYSTEM_ADMIN_QUEUES) == 12


def test_a_queue_manager_made_before_them_gains_the_queues_once_at_start(clock: FakeClock) -> None:
    batch = Engine.initial_batch("OLD", clock)
    batch.put_objects = [o for o in batch.put_objects if o[1] not in SYSTEM_ADMIN_QUEUES]
    del batch.counters["adminqs"]
    store = MemoryStore()
    store.open()
    store.write(batch)
    qm = MemoryQueueManager("OLD", store, clock)
    try:
        c = syncpoint.connect("OLD", embedded=qm)
        assert all(c.admin("lookup", QLOCAL, name) is not None for name in SYSTEM_ADMIN_QUEUES)
        c.admin("delete", QLOCAL, "SYSTEM.ADMIN.TRACE.ROUTE.QUEUE")
    finally:
        qm.close(abnormal=False)
    qm = MemoryQueueManager("OLD", store, clock)  # a restart: a queue the administrator deleted stays deleted
    try:
        c = syncpoint.connect("OLD", embedded=qm)
        assert c.admin("lookup", QLOCAL, "SYSTEM.ADMIN.TRACE.ROUTE.QUEUE") is None
        assert c.admin("lookup", QLOCAL, "SYSTEM.ADMIN.CONFIG.EVENT") is not None
    finally:
        qm.close(abnormal=False)


def test_queue_manager_active_at_start_and_not_active_at_the_end_survive_a_restart(tmp_path: Path) -> None:
    syncpoint.create_queue_manager("QMS", home=tmp_path)
    e = open_embedded("QMS", home=tmp_path)
    qm = syncpoint.connect("QMS", embedded=e)
    ((reason, params, persistence),) = events(qm)
    assert reason == C.MQRC_Q_MGR_ACTIVE and params == [(C.MQCA_Q_MGR_NAME, "QMS")]
    assert persistence == C.MQPER_NOT_PERSISTENT
    qm.disconnect()
    e.close(abnormal=False)
    e = open_embedded("QMS", home=tmp_path)
    try:
        qm = syncpoint.connect("QMS", embedded=e)
        (stopped, started) = events(qm)  # the end's event is persistent: it is there after the restart
        assert stopped == (
            C.MQRC_Q_MGR_NOT_ACTIVE,
            [(C.MQCA_Q_MGR_NAME, "QMS"), (C.MQIACF_REASON_QUALIFIER, C.MQRQ_Q_MGR_STOPPING)],
            C.MQPER_PERSISTENT,
        )
        assert started[0] == C.MQRC_Q_MGR_ACTIVE
        e.quiesce()  # endmqm -c: the queue manager quiesces first
        qm.admin("alter_qmgr", {"STRSTPEV": "ENABLED"})
    finally:
        e.close(abnormal=False)
    e = open_embedded("QMS", home=tmp_path)
    try:
        qm = syncpoint.connect("QMS", embedded=e)
        assert next(p for r, p, _ in events(qm) if r == C.MQRC_Q_MGR_NOT_ACTIVE)[1] == (
            C.MQIACF_REASON_QUALIFIER,
            C.MQRQ_Q_MGR_QUIESCING,
        )
        qm.admin("alter_qmgr", {"STRSTPEV": "DISABLED"})
    finally:
        e.close(abnormal=False)
    e = open_embedded("QMS", home=tmp_path)
    try:
        assert events(syncpoint.connect("QMS", embedded=e)) == []  # STRSTPEV(DISABLED): neither event
    finally:
        e.close(abnormal=False)
