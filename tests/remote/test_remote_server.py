"""Remote queues through a real server process (issue 23, items 1, 2 and 6, "Real components"): runmqsc defines
the objects, a client process puts through the wire, the server is killed and restarted.

Seed 002, note 9 (the MQXQH and its two Expiry fields); issue 23, item 2 ("inside the application's unit of work
when it asked for syncpoint"); issue 21 (MQRC_MISSING_REPLY_TO_Q 2027 for a message asking for reports).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

import syncpoint
from syncpoint.mqi import MQMD, MQOD, MQPMO, MQXQH, MQMIError
from syncpoint.mqi import constants as C
from waiting import wait_until

SYNCPOINT = str(Path(sys.executable).parent / "syncpoint")
MQSC = """\
DEFINE QLOCAL(QM2) USAGE(XMITQ) DEFPSIST(YES)
DEFINE QREMOTE(TO.QM2) RNAME(APP.IN) RQMNAME(QM2)
DEFINE QLOCAL(REPLY)
DEFINE QLOCAL(APP.LOCAL)
"""


def run(home: Path, *args: str, input: str | None = None) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, SYNCPOINT_HOME=str(home))
    return subprocess.run([SYNCPOINT, *args], env=env, capture_output=True, text=True, input=input, timeout=120)


def server_pid(home: Path) -> int:
    return int(json.loads((home / "qmgrs" / "QM1" / "server.json").read_text())["pid"])


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.setenv("SYNCPOINT_HOME", str(tmp_path))
    assert run(tmp_path, "crtmqm", "-u", "SYSTEM.DEAD.LETTER.QUEUE", "QM1").returncode == 0
    r = run(tmp_path, "strmqm", "QM1", "--port", "0")
    assert r.returncode == 0, r.stderr
    r = run(tmp_path, "runmqsc", "QM1", input=MQSC)
    assert r.returncode == 0, r.stdout + r.stderr
    yield tmp_path
    for info in tmp_path.glob("qmgrs/*/server.json"):
        try:
            os.kill(json.loads(info.read_text())["pid"], signal.SIGKILL)
        except (OSError, ValueError, KeyError):
            pass


def put_remote(qm: syncpoint.QueueManager, name: str, qmgr: str, data: bytes, md: MQMD, syncpoint_: bool) -> None:
    pmo = MQPMO(Options=C.MQPMO_SYNCPOINT if syncpoint_ else C.MQPMO_NO_SYNCPOINT)
    qm.mqput1(MQOD(ObjectName=name.encode(), ObjectQMgrName=qmgr.encode()), md, pmo, data)


def test_committed_remote_put_survives_a_server_kill_on_the_transmission_queue(home: Path) -> None:
    qm = syncpoint.connect("QM1")
    md = MQMD(Expiry=C.MQEI_UNLIMITED, Persistence=C.MQPER_PERSISTENT)
    put_remote(qm, "TO.QM2", "", b"kept", md, syncpoint_=True)
    put_remote(qm, "ELSEWHERE", "QM2", b"also", MQMD(Persistence=C.MQPER_PERSISTENT), syncpoint_=True)
    qm.commit()
    put_remote(qm, "TO.QM2", "", b"never committed", MQMD(Persistence=C.MQPER_PERSISTENT), syncpoint_=True)
    os.kill(server_pid(home), signal.SIGKILL)
    wait_until(lambda: "STATUS(Running)" not in run(home, "dspmq", "-m", "QM1").stdout, "the server gone", timeout=30)
    assert run(home, "strmqm", "QM1", "--port", "0").returncode == 0
    qm = syncpoint.connect("QM1")
    xq = qm.open("QM2")
    got = [xq.get(), xq.get()]
    with pytest.raises(MQMIError) as e:
        xq.get()
    assert e.value.reason == C.MQRC_NO_MSG_AVAILABLE
    heads = [MQXQH().unpack_into(m.data) for m in got]
    assert [(h.RemoteQName.rstrip(), h.RemoteQMgrName.rstrip()) for h in heads] == [
        (b"APP.IN", b"QM2"),
        (b"ELSEWHERE", b"QM2"),
    ]
    assert [m.data[428:] for m in got] == [b"kept", b"also"]
    assert heads[0].MsgDesc.MsgId == md.MsgId and got[0].md.Format == C.MQFMT_XMIT_Q_HEADER
    # the QREMOTE definition survived the kill too
    put_remote(qm, "TO.QM2", "", b"after", MQMD(), syncpoint_=False)
    assert xq.get().data[428:] == b"after"
    qm.disconnect()


def test_unknown_remote_queue_manager_and_missing_reply_to_q_over_the_wire(home: Path) -> None:
    qm = syncpoint.connect("QM1")
    with pytest.raises(MQMIError) as e:
        put_remote(qm, "Q", "QM9", b"x", MQMD(), syncpoint_=False)
    assert e.value.reason == C.MQRC_UNKNOWN_REMOTE_Q_MGR
    with pytest.raises(MQMIError) as e:
        put_remote(qm, "APP.LOCAL", "", b"x", MQMD(Report=C.MQRO_COA), syncpoint_=False)
    assert e.value.reason == C.MQRC_MISSING_REPLY_TO_Q
    qm.disconnect()


def test_coa_and_cod_reports_through_the_server(home: Path) -> None:
    qm = syncpoint.connect("QM1")
    md = MQMD(Report=C.MQRO_COA | C.MQRO_COD_WITH_DATA, ReplyToQ=b"REPLY")
    put_remote(qm, "APP.LOCAL", "", b"hello", md, syncpoint_=False)
    qm.open("APP.LOCAL").get()
    reply = qm.open("REPLY")
    coa, cod = reply.get(), reply.get()
    assert (coa.md.Feedback, cod.md.Feedback) == (C.MQFB_COA, C.MQFB_COD)
    assert coa.md.MsgType == cod.md.MsgType == C.MQMT_REPORT
    assert coa.md.CorrelId == cod.md.CorrelId == md.MsgId and (coa.data, cod.data) == (b"", b"hello")
    qm.disconnect()
