"""Unmodified ibmmq / pymqi programs against a local queue manager in bindings mode (embedded: no server runs).

Each program is plain ibmmq (or pymqi) code run in its own process; it prints what it observed as JSON and the
test checks it. Rules: issue 5 (acceptance 2, 3, 4) and reference/ibmmq-compat.md ("Semantics these suites pin
down").
"""

from __future__ import annotations

import json
from pathlib import Path

from compat_harness import ProgramRunner


def observed(run_program: ProgramRunner, source: str) -> dict[str, object]:
    out = run_program(source).stdout.strip().splitlines()
    return json.loads(out[-1])  # type: ignore[no-any-return]


def test_installed_ibmmq_is_python_files_with_syncpoints_extension(compat_site: Path) -> None:
    pkg = compat_site / "ibmmq"
    assert not [p for p in pkg.rglob("*") if p.suffix in (".c", ".h", ".so", ".pyd")]
    assert "syncpoint.compat.ibmmqc" in (pkg / "ibmmqc.py").read_text()
    meta = (compat_site / "ibmmq-2.1.2.dist-info" / "METADATA").read_text()
    assert "Name: ibmmq" in meta and "Version: 2.1.2" in meta
    assert "syncpoint.compat.pymqe" in (compat_site / "pymqi" / "pymqe.py").read_text()


def test_import_ibmmq_passes_its_version_check(run_program: ProgramRunner) -> None:
    # ibmmq.__init__ raises unless ibmmqc.__version__ equals importlib.metadata.version('ibmmq')
    got = observed(
        run_program,
        "import json, ibmmq, pymqi\n"
        "print(json.dumps([ibmmq.__version__, ibmmq.__c_version__, ibmmq.__cmdlevel__, pymqi.__mqlevels__[-1]]))\n",
    )
    assert got == ["2.1.2", "2.1.2", 930, "8.0.1"]


def test_put_get_fills_the_descriptor_and_blank_pads_mqchar_fields(run_program: ProgramRunner) -> None:
    got = observed(
        run_program,
        """
import json, ibmmq as mq
qmgr = mq.connect("QM1")
q = mq.Queue(qmgr, "SYSTEM.DEFAULT.LOCAL.QUEUE", mq.CMQC.MQOO_INPUT_AS_Q_DEF | mq.CMQC.MQOO_OUTPUT)
put_md = mq.MD(ReplyToQ=b"R.Q")          # Python's struct pads this with NULs
q.put(b"hello", put_md)
md = mq.MD()
data = q.get(None, md)
print(json.dumps({
    "data": data.decode(), "msgid_set": put_md.MsgId != b"\\0" * 24, "same_msgid": md.MsgId == put_md.MsgId,
    "reply_to": md.ReplyToQ.decode(), "date_len": len(md.PutDate.strip()), "time_len": len(md.PutTime.strip()),
    "appl": md.PutApplName.decode().strip(), "ccsid": md.CodedCharSetId,
}))
""",
    )
    assert got["data"] == "hello" and got["msgid_set"] and got["same_msgid"]
    assert got["reply_to"] == "R.Q".ljust(48)  # MQCHAR fields come back blank-padded
    assert (got["date_len"], got["time_len"]) == (8, 8)  # YYYYMMDD, HHMMSSTH
    assert got["appl"] == "program.py"
    assert got["ccsid"] == 1208  # MQCCSI_Q_MGR resolves to the queue manager's CCSID


def test_truncation_keeps_or_removes_the_message_as_ibm_does(run_program: ProgramRunner) -> None:
    got = observed(
        run_program,
        """
import json, ibmmq as mq
qmgr = mq.connect("QM1")
q = mq.Queue(qmgr, "SYSTEM.DEFAULT.LOCAL.QUEUE", mq.CMQC.MQOO_INPUT_AS_Q_DEF | mq.CMQC.MQOO_OUTPUT)
q.put(b"12345")
out = {}
try:
    q.get(3, mq.MD())
except mq.MQMIError as e:
    out["failed"] = [e.comp, e.reason, e.original_length]
gmo = mq.GMO(Options=mq.CMQC.MQGMO_ACCEPT_TRUNCATED_MSG)
try:
    q.get(3, mq.MD(), gmo)
except mq.MQMIError as e:
    out["accepted"] = [e.comp, e.reason, e.message.decode(), e.original_length]
try:
    q.get(None, mq.MD())
except mq.MQMIError as e:
    out["after"] = e.reason
print(json.dumps(out))
""",
    )
    assert got["failed"] == [1, 2080, 5]  # MQRC_TRUNCATED_MSG_FAILED: the message stays
    assert got["accepted"] == [1, 2079, "123", 5]  # MQRC_TRUNCATED_MSG_ACCEPTED: removed, cut
    assert got["after"] == 2033


def test_browse_lock_wait_and_units_of_work(run_program: ProgramRunner) -> None:
    got = observed(
        run_program,
        """
import json, time, threading, ibmmq as mq
C = mq.CMQC
qmgr = mq.connect("QM1")
q = mq.Queue(qmgr, "SYSTEM.DEFAULT.LOCAL.QUEUE", C.MQOO_INPUT_AS_Q_DEF | C.MQOO_OUTPUT | C.MQOO_BROWSE | C.MQOO_INQUIRE)
for b in (b"a", b"b"):
    q.put(b)
gmo = mq.GMO(Options=C.MQGMO_BROWSE_FIRST)
first = q.get(None, mq.MD(), gmo)
gmo.Options = C.MQGMO_BROWSE_NEXT
second = q.get(None, mq.MD(), gmo)
depth_after_browse = q.inquire(C.MQIA_CURRENT_Q_DEPTH)
# syncpoint get then backout: the message returns with BackoutCount 1
md = mq.MD()
q.get(None, md, mq.GMO(Options=C.MQGMO_SYNCPOINT))
qmgr.backout()
md = mq.MD()
again = q.get(None, md, mq.GMO(Options=C.MQGMO_SYNCPOINT))
backout_count = md.BackoutCount
qmgr.commit()
q.get(None, mq.MD())
# a waiting get is satisfied by a put from another connection
def later():
    time.sleep(0.3)  # real time passes: the get below is waiting when the put comes (the test asserts it waited)
    other = mq.connect("QM1")
    mq.Queue(other, "SYSTEM.DEFAULT.LOCAL.QUEUE").put(b"late")
    other.disconnect()
threading.Thread(target=later).start()
t0 = time.time()
late = q.get(None, mq.MD(), mq.GMO(Options=C.MQGMO_WAIT, WaitInterval=5000))
waited = time.time() - t0
try:
    q.get(None, mq.MD(), mq.GMO(Options=C.MQGMO_WAIT, WaitInterval=200))
except mq.MQMIError as e:
    timeout_reason = e.reason
begin = None
try:
    qmgr.begin()
except mq.MQMIError as e:
    begin = [e.comp, e.reason]
print(json.dumps({"browse": [first.decode(), second.decode()], "depth": depth_after_browse,
                  "again": again.decode(), "backout": backout_count, "late": late.decode(),
                  "waited": waited, "timeout": timeout_reason, "begin": begin}))
""",
    )
    assert got["browse"] == ["a", "b"] and got["depth"] == 2
    assert got["again"] == "a" and got["backout"] == 1
    assert got["late"] == "late" and 0.2 < float(got["waited"]) < 5  # type: ignore[arg-type]
    assert got["timeout"] == 2033
    assert got["begin"] == [1, 2121]  # MQBEGIN without external participants: MQRC_NO_EXTERNAL_PARTICIPANTS


def test_inquire_and_set_with_ibmmq_and_pymqi(run_program: ProgramRunner) -> None:
    got = observed(
        run_program,
        """
import json, ibmmq as mq, pymqi
C = mq.CMQC
qmgr = mq.connect("QM1")
q = mq.Queue(qmgr, "SYSTEM.DEFAULT.INITIATION.QUEUE", C.MQOO_INQUIRE | C.MQOO_SET)
q.set({C.MQIA_INHIBIT_PUT: C.MQQA_PUT_INHIBITED, C.MQCA_TRIGGER_DATA: b"some data"})
attrs = q.inquire([C.MQIA_INHIBIT_PUT, C.MQCA_TRIGGER_DATA, C.MQCA_Q_NAME, C.MQIA_MAX_Q_DEPTH])
version = qmgr.inquire(C.MQCA_VERSION)
try:
    mq.Queue(qmgr, "SYSTEM.DEFAULT.INITIATION.QUEUE").put(b"x")
except mq.MQMIError as e:
    put_reason = e.reason
qmgr.disconnect()
p = pymqi.connect("QM1")
pq = pymqi.Queue(p, "SYSTEM.DEFAULT.INITIATION.QUEUE", pymqi.CMQC.MQOO_INQUIRE | pymqi.CMQC.MQOO_SET)
pq.set(pymqi.CMQC.MQIA_INHIBIT_PUT, pymqi.CMQC.MQQA_PUT_ALLOWED)
pq.set(pymqi.CMQC.MQCA_TRIGGER_DATA, b"other")
p_put = pq.inquire(pymqi.CMQC.MQIA_INHIBIT_PUT)
p_data = pq.inquire(pymqi.CMQC.MQCA_TRIGGER_DATA)
p_name = p.inquire(pymqi.CMQC.MQCA_Q_MGR_NAME)
print(json.dumps({"put": attrs[C.MQIA_INHIBIT_PUT], "data": attrs[C.MQCA_TRIGGER_DATA].decode(),
                  "name": attrs[C.MQCA_Q_NAME].decode(), "maxdepth": attrs[C.MQIA_MAX_Q_DEPTH],
                  "version": version.decode(), "put_reason": put_reason, "p_put": p_put,
                  "p_data": p_data.decode(), "p_name": p_name.decode()}))
""",
    )
    assert got["put"] == 1 and got["data"] == "some data".ljust(64)
    assert got["name"] == "SYSTEM.DEFAULT.INITIATION.QUEUE".ljust(48) and got["maxdepth"] == 5000
    assert got["version"] == "09030000"
    assert got["put_reason"] == 2051  # MQRC_PUT_INHIBITED
    assert got["p_put"] == 0 and got["p_data"] == "other".ljust(64) and got["p_name"] == "QM1".ljust(48)


def test_pcfexecute_reaches_the_command_server_started_beside_the_embedded_queue_manager(
    run_program: ProgramRunner,
) -> None:
    got = observed(
        run_program,
        """
import json, ibmmq as mq, pymqi
C, F = mq.CMQC, mq.CMQCFC
qmgr = mq.connect("QM1")
pcf = mq.PCFExecute(qmgr, response_wait_interval=10000)
pcf.MQCMD_CREATE_Q({C.MQCA_Q_NAME: b"PCF.Q", C.MQIA_Q_TYPE: C.MQQT_LOCAL, C.MQIA_MAX_Q_DEPTH: 42})
inq = pcf.MQCMD_INQUIRE_Q({C.MQCA_Q_NAME: b"PCF.*", F.MQIACF_Q_ATTRS: [C.MQIA_MAX_Q_DEPTH]})
try:
    pcf.MQCMD_CREATE_Q({C.MQCA_Q_NAME: b"PCF.Q", C.MQIA_Q_TYPE: C.MQQT_LOCAL})
except mq.MQMIError as e:
    dup = [e.comp, e.reason]
pcf.MQCMD_DELETE_Q({C.MQCA_Q_NAME: b"PCF.Q"})
ping = pcf.MQCMD_PING_Q_MGR()
pcf.disconnect()
qmgr.disconnect()
p = pymqi.connect("QM1")
names = pymqi.PCFExecute(p).MQCMD_INQUIRE_Q_NAMES({pymqi.CMQC.MQCA_Q_NAME: b"SYSTEM.DEFAULT.L*"})
print(json.dumps({"depth": inq[0][C.MQIA_MAX_Q_DEPTH], "name": inq[0][C.MQCA_Q_NAME].decode().strip(),
                  "dup": dup, "ping": ping, "names": [n.decode().strip() for n in names[0][F.MQCACF_Q_NAMES]]}))
""",
    )
    assert got["depth"] == 42 and got["name"] == "PCF.Q"
    assert got["dup"] == [2, 4001]  # MQRCCF_OBJECT_ALREADY_EXISTS
    assert got["ping"] == []
    assert got["names"] == ["SYSTEM.DEFAULT.LOCAL.QUEUE"]


def test_features_syncpoint_lacks_fail_with_ibms_reason_not_an_exception(run_program: ProgramRunner) -> None:
    got = observed(
        run_program,
        """
import json, ibmmq as mq
qmgr = mq.connect("QM1")
out = {}
try:
    mq.Topic(qmgr, topic_name="NO.SUCH.TOPIC").open(open_opts=mq.CMQC.MQOO_OUTPUT)
except mq.MQMIError as e:
    out["topic"] = [e.comp, e.reason]
from ibmmq import ibmmqc
out["sub"] = list(ibmmqc.MQSUB(qmgr.get_handle(), mq.SD().pack(), 0)[-2:])
out["ctl"] = list(ibmmqc.MQCTL(qmgr.get_handle(), 1, b""))
out["bad_hconn"] = list(ibmmqc.MQCMIT(12345))
print(json.dumps(out))
""",
    )
    assert got["topic"] == [2, 2085]  # an unknown topic object: 2085
    assert got["sub"] == [2, 2046] and got["ctl"] == [2, 2298]  # an MQSD without CREATE / RESUME / ALTER: 2046
    assert got["bad_hconn"] == [2, 2018]  # MQRC_HCONN_ERROR


def test_structures_are_byte_identical_to_ibmmqs_packing(run_program: ProgramRunner) -> None:
    """The Python layer packs; syncpoint reads the same bytes with its own layouts (MQMD, MQGMO, MQPMO, MQOD,
    and the PCF structures), and packs identical bytes for identical values."""
    got = observed(
        run_program,
        """
import json, ibmmq as mq
from syncpoint import mqi, pcf
C = mq.CMQC
md = mq.MD(Format=b"MQSTR   ", Priority=4, ReplyToQ=b"R".ljust(48), MsgId=b"M" * 24, Expiry=77)
s_md = mqi.MQMD.unpack(md.pack())
od = mq.OD(ObjectName=b"Q".ljust(48), DynamicQName=b"D.*".ljust(48))
gmo = mq.GMO(Options=C.MQGMO_WAIT, WaitInterval=9, MatchOptions=C.MQMO_MATCH_CORREL_ID)
pmo = mq.PMO(Options=C.MQPMO_SYNCPOINT)
pairs = {
    "cfh": (mq.CFH(Command=13, ParameterCount=2, Type=16, Version=3).pack(),
            pcf.MQCFH(Command=13, ParameterCount=2, Type=16, Version=3).pack()),
    "cfin": (mq.CFIN(Parameter=15, Value=5).pack(), pcf.MQCFIN(15, 5).pack()),
    "cfst": (mq.CFST(Parameter=2016, String=b"ABCDE").pack(), pcf.MQCFST(2016, b"ABCDE").pack()),
    "cfil": (mq.CFIL(Parameter=1002, Values=[1, 2, 3]).pack(), pcf.MQCFIL(1002, [1, 2, 3]).pack()),
    "cfsl": (mq.CFSL(Parameter=3011, Strings=[b"ABCD", b"EFGH"]).pack(), pcf.MQCFSL(3011, [b"ABCD", b"EFGH"]).pack()),
    "cfbs": (mq.CFBS(Parameter=7001, String=b"xyz").pack(), pcf.MQCFBS(7001, b"xyz").pack()),
}
print(json.dumps({
    "md": [len(md.pack()), s_md.Priority, s_md.Expiry, s_md.Format.decode(), s_md.MsgId.decode(),
           s_md.pack() == md.pack()],
    "od": mqi.MQOD.unpack(od.pack()).pack() == od.pack(),
    "gmo": [mqi.MQGMO.unpack(gmo.pack()).WaitInterval, mqi.MQGMO.unpack(gmo.pack()).pack() == gmo.pack()],
    "pmo": mqi.MQPMO.unpack(pmo.pack()).pack() == pmo.pack(),
    "pcf": {k: a == b for k, (a, b) in pairs.items()},
}))
""",
    )
    assert got["md"] == [364, 4, 77, "MQSTR   ", "M" * 24, True]
    assert got["od"] is True and got["gmo"] == [9, True] and got["pmo"] is True
    assert got["pcf"] == {k: True for k in ("cfh", "cfin", "cfst", "cfil", "cfsl", "cfbs")}


def test_dynamic_queues_lock_and_skip_backout(run_program: ProgramRunner) -> None:
    got = observed(
        run_program,
        """
import json, ibmmq as mq
C, F = mq.CMQC, mq.CMQCFC
qmgr = mq.connect("QM1")
pcf = mq.PCFExecute(qmgr, response_wait_interval=10000)
pcf.MQCMD_CREATE_Q({C.MQCA_Q_NAME: b"PERM.MODEL", C.MQIA_Q_TYPE: C.MQQT_MODEL,
                    C.MQIA_DEFINITION_TYPE: C.MQQDT_PERMANENT_DYNAMIC})
od = mq.OD(ObjectName=b"PERM.MODEL", DynamicQName=b"APP.PERM.*")
q = mq.Queue(qmgr, od, C.MQOO_INPUT_AS_Q_DEF | C.MQOO_OUTPUT | C.MQOO_BROWSE | C.MQOO_INQUIRE)
name = od.ObjectName.strip()
q.put(b"m1")
# browse with lock: another connection cannot get the locked message
q.get(None, mq.MD(), mq.GMO(Options=C.MQGMO_BROWSE_FIRST | C.MQGMO_LOCK))
other = mq.connect("QM1")
try:
    mq.Queue(other, name.decode()).get(None, mq.MD())
except mq.MQMIError as e:
    locked = e.reason
q.get(None, mq.MD(), mq.GMO(Options=C.MQGMO_UNLOCK))
# MARK_SKIP_BACKOUT: the first backout does not return the message
q.put(b"m2")
first = q.get(None, mq.MD(), mq.GMO(Options=C.MQGMO_SYNCPOINT | C.MQGMO_MARK_SKIP_BACKOUT))
qmgr.backout()   # the marked get is not backed out: it is in a new unit of work
qmgr.commit()
left = [q.inquire(C.MQIA_CURRENT_Q_DEPTH), q.get(None, mq.MD()).decode()]
q.close(C.MQCO_DELETE_PURGE)
try:
    mq.Queue(qmgr, name.decode(), C.MQOO_OUTPUT)
except mq.MQMIError as e:
    gone = e.reason
print(json.dumps({"name": name.decode(), "locked": locked, "first": first.decode(), "left": left, "gone": gone}))
""",
    )
    assert str(got["name"]).startswith("APP.PERM.")
    assert got["locked"] == 2033  # the only message is locked by the browsing handle
    assert got["first"] == "m1" and got["left"] == [1, "m2"]
    assert got["gone"] == 2085  # MQCO_DELETE_PURGE removed the permanent dynamic queue


def test_pcfexecute_sees_channels_with_ibms_parameters(run_program: ProgramRunner) -> None:
    # issue 33 item 2: Inquire Channel / Channel Names / Channel Status answered 3007; ibmmq's PCFExecute now
    # sees the channels (the status needs a channel initiator, which an embedded queue manager does not run)
    got = observed(
        run_program,
        """
import json, ibmmq as mq, syncpoint
C, F, X = mq.CMQC, mq.CMQCFC, mq.CMQXC
admin = syncpoint.connect("QM1")  # the same embedded queue manager as ibmmq's in this process
admin.admin("define", "QLOCAL", "QM2", {"USAGE": 1})
admin.admin("define", "CHANNEL", "QM1.TO.QM2", {"CHLTYPE": 1, "CONNAME": "host2(1414)", "CHLXMITQ": "QM2"})
qmgr = mq.connect("QM1")
pcf = mq.PCFExecute(qmgr, response_wait_interval=10000)
chl = pcf.MQCMD_INQUIRE_CHANNEL({F.MQCACH_CHANNEL_NAME: b"QM1.*"})
names = pcf.MQCMD_INQUIRE_CHANNEL_NAMES({F.MQCACH_CHANNEL_NAME: b"*", F.MQIACH_CHANNEL_TYPE: X.MQCHT_SENDER})
try:
    pcf.MQCMD_INQUIRE_CHANNEL_STATUS({F.MQCACH_CHANNEL_NAME: b"*"})
except mq.MQMIError as e:
    status = [e.comp, e.reason]
pcf.disconnect()
qmgr.disconnect()
print(json.dumps({"name": chl[0][F.MQCACH_CHANNEL_NAME].decode().strip(), "type": chl[0][F.MQIACH_CHANNEL_TYPE],
                  "conname": chl[0][F.MQCACH_CONNECTION_NAME].decode().strip(),
                  "xmitq": chl[0][F.MQCACH_XMIT_Q_NAME].decode().strip(),
                  "names": [n.decode().strip() for n in names[0][F.MQCACH_CHANNEL_NAMES]], "status": status}))
""",
    )
    assert (got["name"], got["type"], got["conname"], got["xmitq"]) == ("QM1.TO.QM2", 1, "host2(1414)", "QM2")
    assert got["names"] == ["QM1.TO.QM2"]
    assert got["status"] == [2, 3217]  # MQRCCF_NO_CHANNEL_INITIATOR
