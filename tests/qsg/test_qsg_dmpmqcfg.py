"""dmpmqcfg of a member of a queue-sharing group writes each object with its QSGDISP, and the dump replays on an
empty member of another group as it was (issue 33 item 1: "on a group member a SHARED or GROUP queue is written as
a plain private queue"; reference/queue-sharing-groups.md: "A configuration dump of a member … writes each object
with its QSGDISP, so that replaying it recreates the group's objects as they were (a SHARED queue stays shared; a
COPY comes back from its GROUP definition)"). Bad input: "a member whose database is down: a clear error and a
non-zero exit, never a partial dump with exit 0"."""

from __future__ import annotations

import signal
from collections.abc import Iterator

import pytest
from qsg_members import Group, member, run

import syncpoint
from pg import PostgresServer
from syncpoint.engine import FakeClock
from syncpoint.mqsc import MqscProcessor, dump_definitions

SETUP = """\
ALTER QMGR MAXUMSGS(700)
DEFINE QLOCAL(APP.PRIVATE) MAXDEPTH(12) DESCR('this member only')
DEFINE QLOCAL(APP.SHARED) QSGDISP(SHARED) MAXDEPTH(34) INDXTYPE(CORRELID) DESCR('the group''s')
DEFINE QLOCAL(APP.GROUP) QSGDISP(GROUP) MAXDEPTH(56)
DEFINE QALIAS(APP.GROUP.ALIAS) QSGDISP(GROUP) TARGET(APP.SHARED)
DEFINE PROCESS(APP.GROUP.PROC) QSGDISP(GROUP) APPLICID('/opt/app')
DEFINE QREMOTE(APP.REMOTE) RNAME(X) RQMNAME(QM9) XMITQ(APP.PRIVATE)
DEFINE CHANNEL(TO.QM9) CHLTYPE(SDR) CONNAME('qm9(1414)') XMITQ(APP.PRIVATE)
"""


def run_mqsc(qm: syncpoint.QueueManager, text: str) -> None:
    out: list[str] = []
    assert MqscProcessor(qm).run(text.splitlines(), out.append).exit_code == 0, "\n".join(out)


def body(lines: list[str]) -> list[str]:
    return [line for line in lines if not line.startswith("*")]


def test_a_members_dump_keeps_qsgdisp_and_replays_on_an_empty_member_as_it_was(postgres_url, postgres_server):
    clock = FakeClock()
    first = member("QMA", postgres_url, clock)
    second = member("QMB", postgres_server.new_database(), clock)  # an empty member of another group
    try:
        a = syncpoint.connect("QMA", embedded=first)
        run_mqsc(a, SETUP)
        dumped = dump_definitions(a, one_line=True)
        text = "\n".join(dumped)
        assert "DEFINE QLOCAL('APP.PRIVATE') DESCR('this member only') MAXDEPTH(12) QSGDISP(QMGR) REPLACE" in text
        assert (
            "DEFINE QLOCAL('APP.SHARED') DESCR('the group''s') INDXTYPE(CORRELID) MAXDEPTH(34) QSGDISP(SHARED)" in text
        )
        # a COPY comes back from its GROUP definition
        assert "DEFINE QLOCAL('APP.GROUP') MAXDEPTH(56) QSGDISP(GROUP) REPLACE" in text
        assert "DEFINE QALIAS('APP.GROUP.ALIAS') QSGDISP(GROUP) TARGET('APP.SHARED') REPLACE" in text
        assert "DEFINE PROCESS('APP.GROUP.PROC') APPLICID('/opt/app') QSGDISP(GROUP) REPLACE" in text
        assert "DEFINE CHANNEL('TO.QM9') CHLTYPE(SDR) CONNAME('qm9(1414)') QSGDISP(QMGR) XMITQ('APP.PRIVATE')" in text

        b = syncpoint.connect("QMB", embedded=second)
        run_mqsc(b, text)
        assert b.admin("qsgdisp", "QLOCAL", "APP.SHARED") == "SHARED"
        assert b.admin("qsgdisp", "QLOCAL", "APP.GROUP") == "COPY"
        assert b.admin("qsgdisp", "QLOCAL", "APP.PRIVATE") == "QMGR"
        assert body(dump_definitions(b, one_line=True)) == body(dumped)
        assert body(dump_definitions(b, all_attributes=True)) == body(dump_definitions(a, all_attributes=True))
    finally:
        first.close(abnormal=True)
        second.close(abnormal=True)


def test_a_queue_manager_in_no_group_dumps_no_qsgdisp() -> None:
    # IBM's dmpmqcfg on Linux writes no QSGDISP: that is z/OS's
    from syncpoint.client import memory_queue_manager

    e = memory_queue_manager("QM1")
    try:
        qm = syncpoint.connect("QM1", embedded=e)
        run_mqsc(qm, "DEFINE QLOCAL(APP.PRIVATE)")
        assert not any("QSGDISP" in line for line in dump_definitions(qm))
    finally:
        e.close()


@pytest.fixture
def own_server() -> Iterator[PostgresServer]:
    server = PostgresServer().start()
    yield server
    server.stop()


def test_dmpmqcfg_of_a_member_whose_database_is_down_fails_clearly_and_writes_no_partial_dump(home, own_server):
    group = Group(home, own_server.new_database())
    group.add("QMA")
    try:
        assert group.mqsc("QMA", "DEFINE QLOCAL(APP.SHARED) QSGDISP(SHARED)").returncode == 0
        ok = run(home, "dmpmqcfg", "-m", "QMA", "-o", "1line")
        assert ok.returncode == 0 and "QSGDISP(SHARED)" in ok.stdout
        own_server.process.send_signal(signal.SIGINT)  # PostgreSQL goes away (fast shutdown)
        own_server.process.wait(60)
        r = run(home, "dmpmqcfg", "-m", "QMA")
        assert r.returncode == 1, r.stdout
        assert r.stdout == ""  # never a partial dump
        # IBM's reason for a coupling facility that cannot be used
        assert "MQRC_CF_NOT_AVAILABLE (2345)" in r.stderr and "definitions of QMA could not be read" in r.stderr
    finally:
        run(home, "endmqm", "-i", "QMA")
