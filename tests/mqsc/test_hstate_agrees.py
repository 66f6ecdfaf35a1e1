"""HSTATE is the same in DISPLAY QSTATUS TYPE(HANDLE) and DISPLAY CONN TYPE(HANDLE) for the same handle, as IBM
defines it (issue 33 item 2): "ACTIVE: an API call from a connection is currently in progress for this object.
For a queue, this condition can arise when an MQGET WAIT call is in progress. INACTIVE: no API call from a
connection is currently in progress for this object" (IBM MQ, DISPLAY QSTATUS / DISPLAY CONN). A unit of work
open on the handle does not make it ACTIVE. Checked embedded and through a real server (whose waiting gets are
parked by the server, not the host)."""

from __future__ import annotations

import threading
from typing import Any

import pytest

import syncpoint
from syncpoint.client import memory_queue_manager
from syncpoint.mqi import constants as C
from syncpoint.mqsc import MqscProcessor
from syncpoint.pcf import MQCFBS, MQCFH, MQCFIN, CommandServer, build, parse
from syncpoint.pcf import constants as K
from waiting import wait_until


def hstates(admin: Any, appl: str) -> tuple[str, str]:
    """(HSTATE of DISPLAY QSTATUS TYPE(HANDLE), HSTATE of DISPLAY CONN TYPE(HANDLE)) of ``appl``'s handle on Q."""
    p = MqscProcessor(admin)
    qs = p.execute(f"DISPLAY QSTATUS(Q) TYPE(HANDLE) WHERE(APPLTAG EQ '{appl}') HSTATE").lines
    conn = p.execute(f"DISPLAY CONN(*) TYPE(HANDLE) WHERE(APPLTAG EQ '{appl}') OBJNAME HSTATE").lines
    q_state = [line.split("HSTATE(")[1].split(")")[0] for line in qs if "HSTATE(" in line]
    blocks = "\n".join(conn).split("AMQ8276I")
    c_state = [b.split("HSTATE(")[1].split(")")[0] for b in blocks if "OBJNAME(Q)" in b and "HSTATE(" in b]
    assert len(q_state) == 1 and len(c_state) == 1, (qs, conn)
    assert pcf_hstate(admin, appl) == c_state[0]  # PCF Inquire Connection says the same
    return q_state[0], c_state[0]


def pcf_hstate(admin: Any, appl: str) -> str:
    """MQIACF_HANDLE_STATE of ``appl``'s handle on Q in PCF Inquire Connection (ConnInfoType ALL: each
    connection's CONN answer, with its application tag, then one answer per handle, with the same id)."""
    server = CommandServer(lambda: admin)
    server.qm = admin
    params = [
        MQCFBS(K.MQBACF_GENERIC_CONNECTION_ID, b""),
        MQCFIN(K.MQIACF_CONN_INFO_TYPE, K.MQIACF_CONN_INFO_ALL),
    ]
    tags: dict[bytes, bytes] = {}
    handles: list[tuple[bytes, int]] = []
    for raw in server.execute(build(MQCFH(Command=K.MQCMD_INQUIRE_CONNECTION, Type=K.MQCFT_COMMAND_XR), params)):
        _, ps = parse(raw)
        body = {p.Parameter: p for p in ps}
        cid = body[K.MQBACF_CONNECTION_ID].String
        if K.MQCACF_APPL_TAG in body:
            tags[cid] = body[K.MQCACF_APPL_TAG].String.strip()
        elif body[K.MQCACF_OBJECT_NAME].String.strip() == b"Q":
            handles.append((cid, body[K.MQIACF_HANDLE_STATE].Value))
    states = [state for cid, state in handles if tags.get(cid) == appl.encode()]
    assert len(states) == 1, (tags, handles)
    return {K.MQHSTATE_ACTIVE: "ACTIVE", K.MQHSTATE_INACTIVE: "INACTIVE"}[states[0]]


@pytest.mark.parametrize("remote", [False, True], ids=["embedded", "server"])
def test_hstate_is_active_in_both_displays_while_an_mqget_waits_and_inactive_otherwise(
    remote: bool, serve: Any
) -> None:
    host = memory_queue_manager("QM1")
    admin = syncpoint.connect("QM1", embedded=host)
    admin.admin("define", "QLOCAL", "Q", {})
    if remote:
        srv: Any = serve(host)
        worker = syncpoint.connect("QM1", unix_path=srv.unix_path, appl_name="worker")
    else:
        worker = syncpoint.connect("QM1", embedded=host, appl_name="worker")
    q = worker.open("Q", C.MQOO_INPUT_SHARED | C.MQOO_FAIL_IF_QUIESCING)
    assert hstates(admin, "worker") == ("INACTIVE", "INACTIVE")
    admin.put1("Q", b"one")
    assert q.get(syncpoint=True).data == b"one"  # a unit of work on the handle, no call in progress
    assert hstates(admin, "worker") == ("INACTIVE", "INACTIVE")  # (QSTATUS said ACTIVE for a unit of work)
    worker.commit()
    got: list[bytes] = []
    waiting = threading.Thread(target=lambda: got.append(q.get(wait=60).data))
    waiting.start()
    wait_until(lambda: len(host.waiters.parked("Q")) == 1, "the get waits")
    assert hstates(admin, "worker") == ("ACTIVE", "ACTIVE")
    admin.put1("Q", b"two")
    waiting.join(30)
    assert got == [b"two"]
    assert hstates(admin, "worker") == ("INACTIVE", "INACTIVE")
    worker.disconnect()
    admin.disconnect()
    host.close()
