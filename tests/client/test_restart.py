"""Durability and restart through the embedded client on a real SQLite file (issue: deliverable 4)."""

from __future__ import annotations

import hashlib
import subprocess
import sys
from pathlib import Path

import pytest

import syncpoint
from syncpoint.client import create_queue_manager, open_embedded
from syncpoint.mqi import MQOD, MQMIError
from syncpoint.mqi import constants as C


@pytest.fixture
def home(tmp_path: Path) -> Path:
    create_queue_manager("QM1", home=tmp_path)
    return tmp_path


def restart(home: Path, crash: bool = False) -> syncpoint.QueueManager:
    e = open_embedded("QM1", home=home)
    if crash:
        e.abandon()
    else:
        e.close(abnormal=True)
    return syncpoint.connect("QM1", home=home)


def test_persistent_messages_survive_restart_with_order_mqmd_and_backout_count(home: Path) -> None:
    qm = syncpoint.connect("QM1", home=home)
    qm.admin("define", "QLOCAL", "Q1")
    q = qm.open("Q1")
    sent = [q.put(f"m{i}".encode(), persistent=True, priority=i % 3, correl_id=f"c{i}") for i in range(6)]
    m = q.get(syncpoint=True)
    qm.backout()
    assert m.backout_count == 0
    qm = restart(home)
    q = qm.open("Q1")
    got = [q.get() for _ in range(6)]
    expected = sorted(sent, key=lambda md: -md.Priority)  # priority order, FIFO within a priority
    assert [g.msg_id for g in got] == [md.MsgId for md in expected]
    assert [g.correl_id for g in got] == [md.CorrelId for md in expected]
    assert [g.md.PutTime for g in got] == [md.PutTime for md in expected]
    assert got[0].backout_count == 1 and all(g.backout_count == 0 for g in got[1:])


def test_non_persistent_messages_are_gone_after_restart(home: Path) -> None:
    qm = syncpoint.connect("QM1", home=home)
    qm.admin("define", "QLOCAL", "Q1")
    q = qm.open("Q1")
    q.put(b"np", persistent=False)
    q.put(b"p", persistent=True)
    qm = restart(home)
    q = qm.open("Q1")
    assert q.get().data == b"p"
    with pytest.raises(MQMIError):
        q.get()


def test_object_definitions_and_changes_persist(home: Path) -> None:
    qm = syncpoint.connect("QM1", home=home)
    qm.admin("define", "QLOCAL", "Q1", {"MAXDEPTH": 7, "DESCR": "orders"})
    qm.admin("alter", "QLOCAL", "Q1", {"DEFPRTY": 6})
    qm.admin("define", "PROCESS", "P1", {"APPLICID": "/bin/true"})
    qm.admin("alter_qmgr", {"MAXUMSGS": 55})
    qm.admin("define", "QLOCAL", "GONE")
    qm.admin("delete", "QLOCAL", "GONE")
    qm = restart(home)
    d = qm.admin("lookup", "QLOCAL", "Q1")
    assert (d.attrs["MAXDEPTH"], d.attrs["DESCR"], d.attrs["DEFPRTY"]) == (7, "orders", 6)
    assert qm.admin("lookup", "PROCESS", "P1").attrs["APPLICID"] == "/bin/true"
    assert qm.admin("qm_attr", "MAXUMSGS") == 55
    assert qm.admin("lookup", "QLOCAL", "GONE") is None


def test_units_of_work_in_flight_at_a_crash_are_backed_out_with_backout_count_incremented(home: Path) -> None:
    qm = syncpoint.connect("QM1", home=home)
    qm.admin("define", "QLOCAL", "Q1")
    q = qm.open("Q1")
    q.put(b"a", persistent=True)
    q.put(b"b", persistent=True)
    assert q.get(syncpoint=True, mark_skip_backout=True).data == b"a"  # the mark is ignored by a crash
    assert q.get(syncpoint=True).data == b"b"
    q.put(b"uncommitted", persistent=True, syncpoint=True)
    qm = restart(home, crash=True)
    q = qm.open("Q1")
    got = [(m.data, m.backout_count) for m in q.messages()]
    assert got == [(b"a", 1), (b"b", 1)]


def test_committed_gets_stay_removed_after_restart(home: Path) -> None:
    qm = syncpoint.connect("QM1", home=home)
    qm.admin("define", "QLOCAL", "Q1")
    q = qm.open("Q1")
    q.put(b"a", persistent=True)
    q.put(b"b", persistent=True)
    q.get(syncpoint=True)
    qm.commit()
    q.get()  # outside syncpoint: durable at once
    qm = restart(home, crash=True)
    assert qm.open("Q1").depth == 0


def test_temporary_dynamic_queues_do_not_survive_restart_and_permanent_ones_do(home: Path) -> None:
    qm = syncpoint.connect("QM1", home=home)
    qm.admin("define", "QMODEL", "PERM.MODEL", {"DEFTYPE": C.MQQDT_PERMANENT_DYNAMIC})
    od_t = MQOD(ObjectName=b"SYSTEM.DEFAULT.MODEL.QUEUE", DynamicQName=b"TEMP.*")
    qm.mqopen(od_t, C.MQOO_INPUT_EXCLUSIVE)
    od_p = MQOD(ObjectName=b"PERM.MODEL", DynamicQName=b"PERM.*")
    h = qm.mqopen(od_p, C.MQOO_OUTPUT)
    qm.mqput(h, syncpoint.mqi.MQMD(Persistence=1), syncpoint.mqi.MQPMO(), b"kept")
    temp, perm = od_t.ObjectName.decode().strip(), od_p.ObjectName.decode().strip()
    qm = restart(home, crash=True)
    assert qm.admin("lookup", "QLOCAL", temp) is None
    assert qm.open(perm).get().data == b"kept"


def test_connecting_to_a_queue_manager_that_does_not_exist_fails_q_mgr_name_error(tmp_path: Path) -> None:
    with pytest.raises(MQMIError) as ei:
        syncpoint.connect("NOPE", home=tmp_path)
    assert ei.value.reason == C.MQRC_Q_MGR_NAME_ERROR
    assert "crtmqm" in str(ei.value)


@pytest.mark.parametrize("content", [b"this is not a database at all" * 100, "foreign-sqlite"])
def test_corrupt_or_foreign_database_is_refused_and_left_unchanged(tmp_path: Path, content) -> None:
    db = tmp_path / "qmgrs" / "BAD" / "qm.db"
    db.parent.mkdir(parents=True)
    if content == "foreign-sqlite":
        import sqlite3

        c = sqlite3.connect(db)
        c.execute("create table t(x)")
        c.execute("insert into t values (1)")
        c.commit()
        c.close()
    else:
        db.write_bytes(content)
    before = hashlib.sha256(db.read_bytes()).hexdigest()
    with pytest.raises(MQMIError) as ei:
        syncpoint.connect("BAD", home=tmp_path)
    assert ei.value.reason == C.MQRC_Q_MGR_NOT_AVAILABLE
    assert str(db) in str(ei.value)
    assert hashlib.sha256(db.read_bytes()).hexdigest() == before


def test_a_second_process_cannot_open_an_embedded_queue_manager_in_use(home: Path) -> None:
    qm = syncpoint.connect("QM1", home=home)
    qm.admin("define", "QLOCAL", "Q1")
    code = (
        "import syncpoint, sys\n"
        "try:\n"
        f"    syncpoint.connect('QM1', home={str(home)!r})\n"
        "except syncpoint.MQMIError as e:\n"
        "    print(e.reason); sys.exit(0)\n"
        "print('opened'); sys.exit(1)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stdout + out.stderr
    assert out.stdout.strip() == str(C.MQRC_Q_MGR_NOT_AVAILABLE)
