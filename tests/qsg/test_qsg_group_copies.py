"""A queue-sharing group behaves as z/OS's (issue 33 item 5; reference/queue-sharing-groups.md):

- "A successful DEFINE / ALTER / DELETE with QSGDISP(GROUP) also generates DEFINE … REPLACE QSGDISP(COPY) (ALTER …
  QSGDISP(COPY), DELETE … QSGDISP(COPY)) and sends it to every active queue manager of the group, so their copies
  change at once, not only at their next start; the group definition stands even if a generated command fails on
  some member." (A COPY that is open is not replaced.)
- DISPLAY … QSGDISP(ALL) on a member shows the GROUP definition beside its COPY.
- "The group's name may stand where a queue manager name goes: an MQOPEN / MQPUT1 (or a report's ReplyToQMgr)
  naming the group and a shared queue of that name reaches the shared queue directly, from any member."

Two members in this process on one real PostgreSQL database (the members' listeners are real threads: a change
reaches the other member through the group's notification, not through a restart)."""

from __future__ import annotations

from typing import Any

import pytest
from qsg_members import member, reason

import syncpoint
from syncpoint.engine import FakeClock
from syncpoint.mqi import MQGMO, MQMD, MQOD, MQPMO
from syncpoint.mqi import constants as C
from syncpoint.mqsc import MqscProcessor
from waiting import wait_until


def show(p: MqscProcessor, text: str) -> str:
    return "\n".join(p.execute(text).lines)


@pytest.fixture
def pair(postgres_url: str) -> Any:
    clock = FakeClock()
    hosts = [member("QMA", postgres_url, clock), member("QMB", postgres_url, clock)]
    qms = [syncpoint.connect(h.name, embedded=h) for h in hosts]
    yield qms
    for qm in qms:
        qm.disconnect()
    for h in hosts:
        h.close(abnormal=True)


def test_define_alter_delete_qsgdisp_group_change_every_active_members_copy_at_once(pair: Any) -> None:
    a, b = (MqscProcessor(qm) for qm in pair)
    assert a.execute("DEFINE QLOCAL(APP.GROUP) QSGDISP(GROUP) MAXDEPTH(77)").ok
    wait_until(lambda: "MAXDEPTH(77)" in show(b, "DISPLAY QLOCAL(APP.GROUP) MAXDEPTH"), "QMB's COPY made")
    assert "QSGDISP(COPY)" in show(b, "DISPLAY QLOCAL(APP.GROUP)")

    # DISPLAY QSGDISP(ALL): the GROUP definition beside its COPY; QSGDISP(GROUP): the group's definition only
    both = show(b, "DISPLAY QLOCAL(APP.GROUP) QSGDISP(ALL) MAXDEPTH")
    assert both.count("QUEUE(APP.GROUP)") == 2, both
    assert both.index("QSGDISP(GROUP)") < both.index("QSGDISP(COPY)"), both
    group = show(b, "DISPLAY QLOCAL(APP.*) QSGDISP(GROUP)")
    assert group.count("QUEUE(APP.GROUP)") == 1 and "QSGDISP(GROUP)" in group and "QSGDISP(COPY)" not in group

    assert a.execute("ALTER QLOCAL(APP.GROUP) QSGDISP(GROUP) MAXDEPTH(88)").ok
    wait_until(lambda: "MAXDEPTH(88)" in show(b, "DISPLAY QLOCAL(APP.GROUP) MAXDEPTH"), "QMB's COPY altered")
    assert "MAXDEPTH(88)" in show(a, "DISPLAY QLOCAL(APP.GROUP) MAXDEPTH")

    # a COPY open on QMB is not replaced: the group definition stands, QMB's COPY keeps what it had
    held = pair[1].open("APP.GROUP", C.MQOO_INPUT_SHARED)
    assert a.execute("ALTER QLOCAL(APP.GROUP) QSGDISP(GROUP) MAXDEPTH(99)").ok
    wait_until(lambda: "MAXDEPTH(99)" in show(b, "DISPLAY QLOCAL(APP.GROUP) QSGDISP(GROUP) MAXDEPTH"), "group def")
    assert "MAXDEPTH(88)" in show(b, "DISPLAY QLOCAL(APP.GROUP) QSGDISP(COPY) MAXDEPTH")
    held.close()

    assert a.execute("DELETE QLOCAL(APP.GROUP) QSGDISP(GROUP)").ok
    wait_until(lambda: "AMQ8147E" in show(b, "DISPLAY QLOCAL(APP.GROUP)"), "QMB's COPY deleted")
    assert "AMQ8147E" in show(a, "DISPLAY QLOCAL(APP.GROUP)")
    assert "AMQ8147E" in show(b, "DISPLAY QLOCAL(APP.GROUP) QSGDISP(ALL)")


def test_group_commands_refuse_what_is_not_there(pair: Any) -> None:
    a, _ = (MqscProcessor(qm) for qm in pair)
    assert a.execute("DEFINE QLOCAL(APP.PRIVATE)").ok
    r = a.execute("ALTER QLOCAL(APP.PRIVATE) QSGDISP(GROUP) MAXDEPTH(5)")  # no GROUP definition of that name
    assert not r.ok and "MAXDEPTH(5000)" in show(a, "DISPLAY QLOCAL(APP.PRIVATE) MAXDEPTH")
    assert not a.execute("DELETE QLOCAL(APP.PRIVATE) QSGDISP(GROUP)").ok
    assert not a.execute("DELETE QLOCAL(APP.PRIVATE) QSGDISP(COPY)").ok  # it is QSGDISP(QMGR)
    assert "QUEUE(APP.PRIVATE)" in show(a, "DISPLAY QLOCAL(APP.PRIVATE)")
    assert not a.execute("ALTER QLOCAL(APP.PRIVATE) QSGDISP(ALL)").ok  # not a disposition ALTER takes


def test_the_groups_name_as_queue_manager_name_reaches_the_shared_queue_from_any_member(pair: Any) -> None:
    qma, qmb = pair
    qma.admin("define", "QLOCAL", "APP.SHARED", {"QSGDISP": "SHARED"})
    qma.admin("define", "QLOCAL", "APP.REPLIES", {"QSGDISP": "SHARED"})
    qmb.admin("define", "QLOCAL", "REQUESTS")
    qmb.admin("define", "QLOCAL", "APP.PRIVATE")
    # MQPUT1 and MQOPEN on QMB naming the group: the shared queue, not a remote queue manager
    qmb.mqput1(MQOD(ObjectName=b"APP.SHARED", ObjectQMgrName=b"SPG"), MQMD(), MQPMO(), b"by put1")
    od = MQOD(ObjectName=b"APP.SHARED", ObjectQMgrName=b"SPG", Version=C.MQOD_VERSION_3)
    h = qmb.mqopen(od, C.MQOO_OUTPUT)
    assert od.ResolvedQMgrName.rstrip(b" \0") == b"QMB" and od.ResolvedQName.rstrip(b" \0") == b"APP.SHARED"
    qmb.mqput(h, MQMD(), MQPMO(), b"by open")
    qmb.mqclose(h)
    shared = qma.open("APP.SHARED")
    assert sorted(shared.get().data for _ in range(2)) == [b"by open", b"by put1"]
    # a report whose ReplyToQMgr is the group reaches the shared reply queue
    md = MQMD(Report=C.MQRO_COA, ReplyToQ=b"APP.REPLIES", ReplyToQMgr=b"SPG", MsgType=C.MQMT_REQUEST)
    qmb.mqput1(MQOD(ObjectName=b"REQUESTS"), md, MQPMO(), b"request")
    assert qmb.open("REQUESTS").get().data == b"request"
    report = qma.open("APP.REPLIES").get(wait=10)
    assert report.md.MsgType == C.MQMT_REPORT and report.md.Feedback == C.MQFB_COA
    # a queue that is not shared, named with the group: no queue manager of that name is known here (IBM 2087)
    no = MQOD(ObjectName=b"APP.PRIVATE", ObjectQMgrName=b"SPG")
    assert reason(lambda: qmb.mqput1(no, MQMD(), MQPMO(), b"x")) == C.MQRC_UNKNOWN_REMOTE_Q_MGR
    assert reason(
        lambda: qmb.mqget(qmb.mqopen(MQOD(ObjectName=b"REQUESTS"), C.MQOO_INPUT_SHARED), MQMD(), MQGMO())
    ) == (C.MQRC_NO_MSG_AVAILABLE)
