"""A queue-sharing group: crtmqm -qsg, its bad input, dspmq, DEFINE and DISPLAY with QSGDISP (issue 20, item 1
and "Bad input"; reference/queue-sharing-groups.md, "What is shared")."""

from __future__ import annotations

import psycopg
from qsg_members import run

import syncpoint
from waiting import wait_until

SECRET = "s3cret-pw-never-shown"


def said(r) -> str:
    """What a command printed on stderr, lines joined (the console may wrap long messages)."""
    return " ".join(r.stderr.split())


def members(url: str) -> list[tuple[str, str]]:
    with psycopg.connect(url) as conn:
        try:
            return conn.execute("SELECT qsg, member FROM qsg_member ORDER BY member").fetchall()
        except psycopg.errors.UndefinedTable:
            return []


def test_crtmqm_qsg_makes_a_member_and_dspmq_shows_the_group(group, home):
    r = group.create("QMA")
    assert r.returncode == 0, r.stderr
    assert members(group.url) == [("SPG", "QMA")]
    out = run(home, "dspmq", "-m", "QMA").stdout
    assert "QMNAME(QMA)" in out and "QSGNAME(SPG)" in out


def test_an_unreachable_postgresql_fails_crtmqm_with_a_sentence_without_the_password_and_creates_nothing(home):
    url = f"postgresql://mq:{SECRET}@127.0.0.1:1/mq"  # nothing listens on port 1
    r = run(home, "crtmqm", "-qsg", "SPG", "--shared", url, "QMA")
    assert r.returncode == 71
    assert "PostgreSQL cannot be reached" in said(r)
    assert SECRET not in said(r) + r.stdout
    assert not (home / "qmgrs" / "QMA").exists()


def test_a_wrong_database_fails_crtmqm_without_the_password_and_creates_nothing(home, postgres_server):
    url = postgres_server.url("no_such_database") + f"&password={SECRET}"
    r = run(home, "crtmqm", "-qsg", "SPG", "--shared", url, "QMA")
    assert r.returncode == 71, r.stdout
    assert "no_such_database" in said(r) and SECRET not in said(r) + r.stdout
    assert not (home / "qmgrs" / "QMA").exists()


def test_a_group_name_longer_than_four_characters_or_equal_to_the_member_name_is_refused(group, home):
    # "A QSG has a name of at most 4 characters, different from every queue manager name in it"
    group.name = "SPGXX"
    r = group.create("QMA")
    assert r.returncode == 71 and "1 to 4 characters" in said(r)
    group.name = "QMA"
    r = group.create("QMA")
    assert r.returncode == 71 and "must differ" in said(r)
    assert not (home / "qmgrs" / "QMA").exists()
    assert members(group.url) == []


def test_two_members_with_one_name_are_refused(group, home, tmp_path):
    assert group.create("QMA").returncode == 0
    other_home = tmp_path / "other-machine"
    other_home.mkdir()
    r = run(other_home, "crtmqm", "-qsg", "SPG", "--shared", group.url, "QMA")
    assert r.returncode == 71 and "already has a member named QMA" in said(r)
    assert not (other_home / "qmgrs" / "QMA").exists()
    assert members(group.url) == [("SPG", "QMA")]


def test_a_member_the_shared_database_does_not_know_does_not_start(group, home):
    # "a member started with another group's name": the database holds no such member
    assert group.create("QMA").returncode == 0
    with psycopg.connect(group.url) as conn:
        conn.execute("DELETE FROM qsg_member")
    r = run(home, "strmqm", "QMA", "--port", "0")
    assert r.returncode != 0
    assert "not a member of queue-sharing group SPG" in said(r)


def test_define_qsgdisp_shared_is_seen_by_display_on_another_member_and_refused_on_models_and_aliases(group):
    group.add("QMA")
    group.add("QMB")
    r = group.mqsc("QMA", "DEFINE QLOCAL(ORDERS) QSGDISP(SHARED)\nDEFINE QLOCAL(MINE)\n")
    assert r.returncode == 0, r.stdout
    out = group.mqsc("QMB", "DISPLAY QLOCAL(*) QSGDISP(SHARED)\n").stdout
    assert "QUEUE(ORDERS)" in out and "QSGDISP(SHARED)" in out and "MINE" not in out
    out = group.mqsc("QMA", "DISPLAY QLOCAL(MINE) QSGDISP(QMGR)\n").stdout
    assert "QUEUE(MINE)" in out and "QSGDISP(QMGR)" in out
    # "QSGDISP ... SHARED (queues only ...)": a model or an alias cannot be shared
    r = group.mqsc("QMA", "DEFINE QMODEL(M) QSGDISP(SHARED)\nDEFINE QALIAS(AL) TARGET(ORDERS) QSGDISP(SHARED)\n")
    assert r.stdout.count("for local queues only") == 2, r.stdout


def test_qsgdisp_group_definitions_are_copied_to_every_member_at_start_and_at_once_while_it_runs(group):
    # "GROUP (... every queue manager of the group gets a local COPY of it, refreshed at start-up)"; "DEFINE /
    # ALTER / DELETE with QSGDISP(GROUP) ... sends it to every active queue manager of the group, so their copies
    # change at once" (reference/queue-sharing-groups.md; issue 33 item 5)
    group.add("QMA")
    group.add("QMB")
    a = syncpoint.connect("QMA")
    a.admin("define", "QLOCAL", "CONFIG.Q", {"QSGDISP": "GROUP", "MAXDEPTH": 77})
    assert a.admin("qsgdisp", "QLOCAL", "CONFIG.Q") == "COPY"
    a.open("CONFIG.Q").put(b"private to QMA")
    a.disconnect()
    group.end("QMB")
    group.start("QMB")
    b = syncpoint.connect("QMB")
    assert b.admin("qsgdisp", "QLOCAL", "CONFIG.Q") == "COPY"
    assert b.admin("lookup", "QLOCAL", "CONFIG.Q").attrs["MAXDEPTH"] == 77
    copy_b = b.open("CONFIG.Q")
    assert copy_b.depth == 0  # a copy is a private queue of its own
    copy_b.close()  # (an open COPY is not replaced: IBM)
    out = group.mqsc("QMB", "DISPLAY QLOCAL(*) QSGDISP(GROUP)\n").stdout
    assert "QUEUE(CONFIG.Q)" in out and "QSGDISP(GROUP)" in out
    # both members running: QMA's ALTER and DELETE of the GROUP definition reach QMB's server process at once
    a = syncpoint.connect("QMA")
    a.admin("alter", "QLOCAL", "CONFIG.Q", {"QSGDISP": "GROUP", "MAXDEPTH": 88})
    wait_until(lambda: b.admin("lookup", "QLOCAL", "CONFIG.Q").attrs["MAXDEPTH"] == 88, "QMB's COPY altered")
    copy_a = a.open("CONFIG.Q")
    copy_a.get()  # QMA's COPY is emptied and closed: one open or holding messages is not deleted (IBM)
    copy_a.close()
    a.admin("define", "QLOCAL", "NEW.Q", {"QSGDISP": "GROUP"})
    wait_until(lambda: b.admin("lookup", "QLOCAL", "NEW.Q") is not None, "QMB's COPY of a new GROUP definition")
    a.admin("delete", "QLOCAL", "CONFIG.Q", qsgdisp="GROUP")
    wait_until(lambda: b.admin("lookup", "QLOCAL", "CONFIG.Q") is None, "QMB's COPY deleted")
    assert a.admin("lookup", "QLOCAL", "CONFIG.Q") is None
    a.disconnect()
    b.disconnect()
