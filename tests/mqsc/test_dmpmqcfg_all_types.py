"""dmpmqcfg dumps every object it can define, and the dump replays (issue 33 item 1: "Dump QREMOTE (remote queues,
queue-manager and reply-to aliases), CHANNEL (every type you support, every attribute) … the queue manager's own
attributes"; "A test that fails when any DEFINE-able object type is missing from the dump (derived from the MQSC
keyword tables, so a new object type cannot be forgotten)"). The members' side (QSGDISP) is
tests/qsg/test_qsg_dmpmqcfg.py."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import syncpoint
from syncpoint.client import QueueManager, memory_queue_manager
from syncpoint.mqi import constants as C
from syncpoint.mqsc import DEFINABLE, DUMP_TYPES, MqscProcessor, dump_definitions
from syncpoint.mqsc._commands import _NOUNS_OF

# one object of every kind and type, each with attributes that are not the defaults
EVERY_KIND = {
    "QLOCAL": "DEFINE QLOCAL(APP.XMIT) USAGE(XMITQ) MAXDEPTH(777) DESCR('to QM2') TRIGGER TRIGTYPE(FIRST) "
    "TRIGDATA('QM1.QM2') INITQ(SYSTEM.CHANNEL.INITQ) NOSHARE",
    "QMODEL": "DEFINE QMODEL(APP.MODEL) DEFTYPE(PERMDYN) MAXDEPTH(42) MSGDLVSQ(FIFO)",
    "QALIAS": "DEFINE QALIAS(APP.ALIAS) TARGET(APP.XMIT) PUT(DISABLED) DEFPRTY(7)",
    # QREMOTE in its three uses: a remote queue, a queue-manager alias (no RNAME) and a reply-to alias
    "QREMOTE": "DEFINE QREMOTE(APP.REMOTE) RNAME(APP.IN) RQMNAME(QM2) XMITQ(APP.XMIT) DESCR('remote') DEFPSIST(YES)\n"
    "DEFINE QREMOTE(QM2.ALIAS) RQMNAME(QM2) XMITQ(APP.XMIT)\n"
    "DEFINE QREMOTE(APP.REPLY.ALIAS) RNAME(APP.REPLY) RQMNAME(QM1)",
    "PROCESS": "DEFINE PROCESS(APP.PROC) APPLICID('/opt/app/run') ENVRDATA('&') USERDATA('x y') DESCR('the app')",
    "NAMELIST": "DEFINE NAMELIST(APP.NAMES) NAMES(APP.XMIT, 'lower.case', APP.ALIAS) DESCR('the app''s queues')\n"
    "DEFINE NAMELIST(APP.EMPTY) NAMES()",
    # CHANNEL of every type syncpoint runs
    "CHANNEL": "DEFINE CHANNEL(QM1.QM2) CHLTYPE(SDR) CONNAME('mq2.example(1415)') XMITQ(APP.XMIT) BATCHSZ(20) "
    "BATCHINT(5) DISCINT(60) SHORTRTY(3) SHORTTMR(7) LONGRTY(9) LONGTMR(99) HBINT(30) NPMSPEED(NORMAL) "
    "MAXMSGL(1000000) SEQWRAP(100000) DESCR('to QM2') SSLCIPH('TLS_AES_128_GCM_SHA256')\n"
    "DEFINE CHANNEL(QM1.SVR) CHLTYPE(SVR) XMITQ(APP.XMIT) SHORTRTY(4)\n"
    "DEFINE CHANNEL(QM2.QM1) CHLTYPE(RCVR) MCAUSER('app') MRRTY(3) MRTMR(250) BATCHSZ(9)\n"
    "DEFINE CHANNEL(QM1.RQSTR) CHLTYPE(RQSTR) CONNAME('mq3.example(1416)') LONGTMR(77) DESCR('asks QM3')",
    "TOPIC": "DEFINE TOPIC(APP.ORDERS) TOPICSTR('app/orders') DURSUB(NO) DEFPRTY(4) DESCR('orders') PUB(DISABLED)",
    # a subscription with a provided destination and a managed one (replaying makes its queue anew)
    "SUB": "DEFINE SUB(APP.PRICES) TOPICSTR('app/prices/#') DEST(APP.XMIT) USERDATA('feed') EXPIRY(600)\n"
    "DEFINE SUB(APP.MANAGED) TOPICSTR('app/news') DESTCLAS(MANAGED) WSCHEMA(CHAR) PUBPRTY(3)",
    # connection authentication: an object of its own, then CONNAUTH naming it (the dump sets it last)
    "AUTHINFO": "DEFINE AUTHINFO(APP.AUTH) AUTHTYPE(IDPWOS) CHCKCLNT(REQUIRED) CHCKLOCL(NONE) ADOPTCTX(NO) "
    "FAILDLAY(3) DESCR('app users')",
}
QMGR_SETUP = (
    "ALTER QMGR DEADQ(APP.DLQ) MAXUMSGS(500) DESCR('Orders'' queue manager') TRIGINT(5000) MONQ(MEDIUM) "
    "CONNAUTH(APP.AUTH)"
)


def run(qm: QueueManager, text: str) -> list[str]:
    out: list[str] = []
    summary = MqscProcessor(qm).run(text.splitlines(), out.append)
    assert summary.exit_code == 0, "\n".join(out)
    return out


def body(lines: list[str]) -> list[str]:
    return [line for line in lines if not line.startswith("*")]  # the header names the time, host and command


def test_every_object_type_define_takes_is_dumped() -> None:
    # derived from MQSC's own table of what DEFINE takes: a new DEFINE-able type fails here until it is dumped
    definable = set(_NOUNS_OF["DEFINE"])
    assert definable == set(DEFINABLE), "dmpmqcfg does not dump every type DEFINE takes"
    assert set(DUMP_TYPES["ALL"]) == definable | {"QMGR", "CHLAUTH"}  # and the channel authentication records
    missing = definable - set(EVERY_KIND)
    assert not missing, f"give this test an object of each new type: {missing}"
    e = memory_queue_manager("QM1")
    try:
        qm = syncpoint.connect("QM1", embedded=e)
        for text in EVERY_KIND.values():
            run(qm, text)
        dumped = "\n".join(dump_definitions(qm, one_line=True))
        for otype, text in EVERY_KIND.items():
            for line in text.splitlines():
                name = line.split("(", 1)[1].split(")", 1)[0]
                assert f"DEFINE {otype}('{name}') " in dumped, f"{otype} {name} is not in the dump"
    finally:
        e.close()


@pytest.mark.parametrize(("all_attributes", "one_line"), [(False, False), (True, False), (True, True)])
def test_every_kind_with_non_default_attributes_dumps_replays_and_dumps_the_same(
    all_attributes: bool, one_line: bool
) -> None:
    first, second = memory_queue_manager("QM1"), memory_queue_manager("QM1")
    try:
        a = syncpoint.connect("QM1", embedded=first)
        run(a, "DEFINE QLOCAL(APP.DLQ)\n" + "\n".join(EVERY_KIND.values()) + "\n" + QMGR_SETUP)
        dumped = dump_definitions(a, all_attributes=all_attributes, one_line=one_line)
        b = syncpoint.connect("QM1", embedded=second)
        run(b, "\n".join(dumped))
        assert body(dump_definitions(b, all_attributes=all_attributes, one_line=one_line)) == body(dumped)
        # and every attribute of every object came across, not only those the dump compared
        for otype in DEFINABLE:
            for d in a.admin("list_objects", otype):
                if getattr(d, "dynamic", C.MQQDT_PREDEFINED) != C.MQQDT_PREDEFINED:
                    continue
                assert b.admin("lookup", otype, d.name).attrs == d.attrs, (otype, d.name)
        assert b.admin("lookup", "QMGR", "").attrs["MAXUMSGS"] == 500
        assert b.admin("lookup", "QMGR", "").attrs["CONNAUTH"] == "APP.AUTH"
    finally:
        first.close()
        second.close()


def test_a_channel_dumped_with_all_attributes_has_those_of_its_type() -> None:
    # IBM's DEFINE CHANNEL takes XMITQ and DISCINT of a sending channel, MRRTY of a receiving one, never the other
    e = memory_queue_manager("QM1")
    try:
        qm = syncpoint.connect("QM1", embedded=e)
        run(qm, EVERY_KIND["CHANNEL"])
        lines = body(dump_definitions(qm, all_attributes=True, one_line=True, types=("CHANNEL",)))
        sdr = next(line for line in lines if "'QM1.QM2'" in line)
        rcvr = next(line for line in lines if "'QM2.QM1'" in line)
        assert sdr.startswith("DEFINE CHANNEL('QM1.QM2') CHLTYPE(SDR) ")
        assert " XMITQ('APP.XMIT') " in sdr and " DISCINT(60) " in sdr and "MRRTY" not in sdr
        assert " MRRTY(3) " in rcvr and "XMITQ" not in rcvr and "DISCINT" not in rcvr
        rqstr = next(line for line in lines if "'QM1.RQSTR'" in line)
        assert " LONGTMR(77) " in rqstr and " MRRTY(10) " in rqstr and "XMITQ" not in rqstr  # it retries, receives
    finally:
        e.close()


SYNCPOINT = str(Path(sys.executable).with_name("syncpoint"))


def sp(home: Path, *args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, SYNCPOINT_HOME=str(home))
    return subprocess.run([SYNCPOINT, *args], input=stdin, capture_output=True, text=True, env=env, timeout=120)


def test_dmpmqcfg_t_and_o_take_ibms_values_and_refuse_others_with_nothing_on_stdout(tmp_path: Path) -> None:
    assert sp(tmp_path, "crtmqm", "QMA").returncode == 0
    # not running: IBM's AMQ8146E, exit 1, no dump
    down = sp(tmp_path, "dmpmqcfg", "-m", "QMA")
    assert down.returncode == 1 and "AMQ8146E" in down.stderr and down.stdout == ""
    assert sp(tmp_path, "strmqm", "QMA", "--no-tcp", "--no-command-server").returncode == 0
    try:
        assert sp(tmp_path, "runmqsc", "QMA", stdin="\n".join(EVERY_KIND.values())).returncode == 0
        chl = sp(tmp_path, "dmpmqcfg", "-m", "QMA", "-t", "channel", "-o", "1line")
        assert chl.returncode == 0, chl.stderr
        assert [line.split()[1] for line in body(chl.stdout.splitlines())] == [
            "CHANNEL('QM1.QM2')",
            "CHANNEL('QM1.RQSTR')",
            "CHANNEL('QM1.SVR')",
            "CHANNEL('QM2.QM1')",
            "CHANNEL('SYSTEM.ADMIN.SVRCONN')",  # IBM's server-connection channels of a new queue manager
            "CHANNEL('SYSTEM.DEF.SVRCONN')",
        ]
        rq = sp(tmp_path, "dmpmqcfg", "-m", "QMA", "-t", "qremote", "-n", "QM2.*", "-o", "1line")
        assert body(rq.stdout.splitlines()) == ["DEFINE QREMOTE('QM2.ALIAS') RQMNAME('QM2') XMITQ('APP.XMIT') REPLACE"]
        # IBM's object types syncpoint has no objects of: nothing to dump, not an error
        assert body(sp(tmp_path, "dmpmqcfg", "-m", "QMA", "-t", "service").stdout.splitlines()) == []
        # no authority records are kept: -o setmqaut writes the header alone
        aut = sp(tmp_path, "dmpmqcfg", "-m", "QMA", "-o", "setmqaut")
        assert aut.returncode == 0 and body(aut.stdout.splitlines()) == []
        bad = sp(tmp_path, "dmpmqcfg", "-m", "QMA", "-t", "chanel")
        assert bad.returncode == 2 and "-t chanel: not an object type" in bad.stderr and bad.stdout == ""
        assert sp(tmp_path, "dmpmqcfg", "-m", "QMA", "-o", "xml").returncode == 2
    finally:
        sp(tmp_path, "endmqm", "-i", "QMA")
