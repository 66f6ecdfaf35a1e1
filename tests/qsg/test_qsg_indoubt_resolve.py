"""RESOLVE INDOUBT and DISPLAY THREAD: another member settles a stopped member's units of work in doubt (issue 20,
item 4: "in-doubt work stays locked until the member restarts or RESOLVE INDOUBT (MQSC) settles it").

Rule sources: reference/queue-sharing-groups.md, "Peer recovery": "In-doubt units of work (prepared in a two-phase
commit, outcome unknown) keep their messages locked until the failed queue manager restarts or an operator
resolves them (RESOLVE INDOUBT; DISPLAY THREAD(*) TYPE(INDOUBT))"; docs/queue-sharing-groups.md, "Resolving
in-doubt units of work" (commit: its shared gets gone, its puts visible; backout: gets reinstated with
BackoutCount + 1, puts dropped; at the member's restart its private part follows the decision recorded, also where
its own log said otherwise — reported then).

Real member processes and a real PostgreSQL; the member is killed inside its two-phase commit at the two points
(``SYNCPOINT_QSG_CRASH``: after the prepare — its log has no decision — and after its decision is durable).
"""

from __future__ import annotations

import re

import psycopg
import pytest
from qsg_members import alive, held, member_session, run

import syncpoint
from syncpoint.mqi import MQMIError
from waiting import wait_until


def error_log(group, member: str) -> str:
    path = group.home / "qmgrs" / member / "errors" / "AMQERR01.LOG"
    return path.read_text() if path.exists() else ""


def in_doubt_member(group, crash: str):
    """QMA killed inside the commit of a unit of work that got REQUESTS (shared), put RESULTS (shared), got INBOX
    and put REPLIES (QMA's private queues); QMB recovered QMA meanwhile, leaving the unit of work in doubt."""
    group.add("QMB")
    assert group.create("QMA").returncode == 0
    group.start("QMA", env={"SYNCPOINT_QSG_CRASH": crash})
    b = syncpoint.connect("QMB")
    b.admin("define", "QLOCAL", "REQUESTS", {"QSGDISP": "SHARED"})
    b.admin("define", "QLOCAL", "RESULTS", {"QSGDISP": "SHARED"})
    b.open("REQUESTS").put(b"request", persistent=True)
    a = syncpoint.connect("QMA")
    a.admin("define", "QLOCAL", "REPLIES")
    a.admin("define", "QLOCAL", "INBOX")
    a.open("INBOX").put(b"private request", persistent=True)
    pid = group.pid("QMA")
    assert a.open("REQUESTS").get(syncpoint=True).data == b"request"
    assert a.open("INBOX").get(syncpoint=True).data == b"private request"
    a.open("RESULTS").put(b"result", syncpoint=True, persistent=True)
    a.open("REPLIES").put(b"reply", syncpoint=True, persistent=True)
    with pytest.raises(MQMIError):
        a.commit()  # the member dies inside it
    wait_until(lambda: not alive(pid), "QMA ending at its crash point", timeout=60)
    wait_until(lambda: member_session(group.url, "QMA") is None, "QMB's peer recovery of QMA", timeout=60)
    assert held(group.url) == 2  # the get and the put of the unit of work in doubt stay locked
    return b


@pytest.mark.parametrize(
    ("crash", "action", "agrees"),
    [
        ("decided", "COMMIT", True),  # the member's log holds the commit: COMMIT agrees with it
        ("prepared", "BACKOUT", True),  # the member died before its decision: BACKOUT agrees
        ("prepared", "COMMIT", False),  # disagrees: reported at the restart
        ("decided", "BACKOUT", False),
    ],
)
def test_resolve_indoubt_on_another_member_settles_a_dead_members_unit_of_work(group, crash, action, agrees):
    b = in_doubt_member(group, crash)

    shown = group.mqsc("QMB", "DISPLAY THREAD(*) TYPE(INDOUBT) QMNAME(QMA)\n").stdout
    assert "CSQV436I INDOUBT THREADS FOR QMA -" in shown, shown
    nids = re.findall(r"NID\((QMA\.[0-9A-F]+\.\d+)\)", shown)
    assert len(nids) == 1, shown
    assert "STATUS(INDOUBT)" in shown and "PUTS(1)" in shown and "GETS(1)" in shown and "ACTIVE(NO)" in shown

    r = group.mqsc("QMB", f"RESOLVE INDOUBT(QMA) QMNAME(QMA) NID({nids[0]}) ACTION({action})\n")
    word = "COMMIT" if action == "COMMIT" else "ABORT"
    assert f"THREAD NID={nids[0]} {word} SCHEDULED" in r.stdout, r.stdout
    assert r.returncode == 0, r.stdout
    # issue 33 item 4: the resolution is in the resolving member's error log, with IBM's number
    number = "CSQV414I" if action == "COMMIT" else "CSQV415I"
    assert f"{number}: THREAD NID={nids[0]} {word} SCHEDULED" in error_log(group, "QMB")

    # settled at once, without QMA: commit -> its get gone and its put visible; backout -> the get reinstated with
    # BackoutCount + 1 and the put dropped
    assert held(group.url) == 0
    requests, results = b.open("REQUESTS"), b.open("RESULTS")
    if action == "COMMIT":
        assert requests.depth == 0
        assert results.get().data == b"result"
    else:
        again = requests.get()
        assert (again.data, again.md.BackoutCount) == (b"request", 1)
        assert results.depth == 0
    shown = group.mqsc("QMB", "DISPLAY THREAD(*) TYPE(INDOUBT) QMNAME(QMA)\n").stdout
    assert "NID(" not in shown and "(0 THREADS)" in shown, shown

    # the member's restart: its private part follows the decision recorded, whatever its own log said; nothing
    # of the shared part is settled twice
    group.start("QMA")
    a = syncpoint.connect("QMA")
    if action == "COMMIT":
        assert a.open("REPLIES").get().data == b"reply"
        assert a.open("INBOX").depth == 0
    else:
        assert a.open("REPLIES").depth == 0
        back = a.open("INBOX").get()
        assert (back.data, back.md.BackoutCount) == (b"private request", 1)
    assert a.open("REPLIES").depth == 0 and a.open("INBOX").depth == 0
    assert b.open("REQUESTS").depth == 0 and b.open("RESULTS").depth == 0
    log = error_log(group, "QMA")
    if agrees:
        assert "AMQ8497W" not in log
    else:  # the member's log said otherwise: its private part was made to follow, and that is reported
        assert "AMQ8497W" in log and nids[0] in log and f"ACTION({action})" in log
    with psycopg.connect(group.url) as conn:  # the recorded decisions and private parts are dropped once followed
        assert conn.execute("SELECT count(*) FROM qsg_resolved").fetchone()[0] == 0
        assert conn.execute("SELECT count(*) FROM qsg_indoubt_private").fetchone()[0] == 0
    a.disconnect()
    group.end("QMA")
    group.start("QMA")  # a second restart follows nothing again
    a = syncpoint.connect("QMA")
    assert a.open("REPLIES").depth == 0 and a.open("INBOX").depth == 0
    a.disconnect()
    b.disconnect()


def test_resolve_indoubt_is_refused_for_a_member_that_runs(group):
    # a running member settles its own units of work (by its own log); RESOLVE must not race it
    group.add("QMA")
    group.add("QMB")
    r = group.mqsc("QMB", "RESOLVE INDOUBT(QMA) QMNAME(QMA) NID(*) ACTION(BACKOUT)\n")
    assert r.returncode != 0
    assert "MQRC_OBJECT_IN_USE" in r.stdout and "QMA is running" in " ".join(r.stdout.split())


def test_display_thread_type_active_lists_this_members_units_of_work(group):
    group.add("QMA")
    a = syncpoint.connect("QMA")
    a.admin("define", "QLOCAL", "WORK", {"QSGDISP": "SHARED"})
    a.open("WORK").put(b"x", syncpoint=True)
    shown = group.mqsc("QMA", "DIS THD(*)\n").stdout  # IBM's default TYPE is ACTIVE
    assert "CSQV402I ACTIVE THREADS -" in shown and "(1 THREAD)" in shown, shown
    a.commit()
    shown = group.mqsc("QMA", "DIS THD(*) TYPE(*)\n").stdout
    assert "(0 THREADS)" in shown and "CSQV406I INDOUBT THREADS -" in shown, shown
    a.disconnect()


def test_a_restart_killed_after_its_private_part_followed_a_resolve_follows_it_once(group):
    # docs: "a crash before that repeats step 2 at the next start, which changes nothing the second time"
    b = in_doubt_member(group, "prepared")  # QMA's log has no commit
    r = group.mqsc("QMB", "RESOLVE INDOUBT(QMA) QMNAME(QMA) NID(*) ACTION(COMMIT)\n")
    assert "COMMIT SCHEDULED" in r.stdout, r.stdout
    r = run(group.home, "strmqm", "QMA", "--port", "0", env={"SYNCPOINT_QSG_CRASH": "followed"})
    assert r.returncode != 0  # it died after writing the private part, before dropping the decision
    with psycopg.connect(group.url) as conn:
        assert conn.execute("SELECT action FROM qsg_resolved").fetchall() == [("COMMIT",)]
    group.start("QMA")
    a = syncpoint.connect("QMA")
    assert a.open("REPLIES").get().data == b"reply"
    assert a.open("REPLIES").depth == 0 and a.open("INBOX").depth == 0
    a.disconnect()
    b.disconnect()
