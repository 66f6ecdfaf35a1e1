"""Bad input of queue-sharing groups that tests/qsg/test_group.py does not already cover (issue 20, "Bad input":
"An unreachable or wrong PostgreSQL (clear error at crtmqm / strmqm, nothing half-created) … a member started with
another group's name; QSGDISP(SHARED) on a model or alias; a message over the shared limit; two members with one
name"). Each gets a clear error with MQ's reason code where one exists, and loses nothing (the project's rule).

Rule sources: reference/queue-sharing-groups.md ("What is shared": SHARED is for local queues only; a queue
manager is a member of one group; "MAXMSGL applies"); docs/queue-sharing-groups.md ("Setting up a group").
"""

from __future__ import annotations

import signal
from collections.abc import Iterator

import psycopg
import pytest
from qsg_members import Group, run

import syncpoint
from pg import PostgresServer
from syncpoint.mqi import MQMIError
from syncpoint.mqi import constants as C


def said(r) -> str:
    return " ".join((r.stderr + r.stdout).split())


def member_rows(url: str) -> list[tuple[str, str, str | None]]:
    with psycopg.connect(url) as conn:
        return conn.execute("SELECT qsg, member, session FROM qsg_member ORDER BY qsg, member").fetchall()


@pytest.fixture
def own_server() -> Iterator[PostgresServer]:
    server = PostgresServer().start()
    yield server
    server.stop()


def test_strmqm_with_the_shared_database_unreachable_fails_clearly_and_leaves_nothing_half_started(home, own_server):
    group = Group(home, own_server.new_database())
    assert group.create("QMA").returncode == 0
    before = member_rows(group.url)
    own_server.process.send_signal(signal.SIGINT)  # PostgreSQL goes away (fast shutdown), its data stays
    own_server.process.wait(60)

    r = run(home, "strmqm", "QMA", "--port", "0")
    assert r.returncode != 0
    assert "MQRC_Q_MGR_NOT_AVAILABLE" in said(r) and "PostgreSQL cannot be reached" in said(r), said(r)
    # docs/queue-sharing-groups.md: the member's "folder and files are private to its user, 0700 / 0600" from crtmqm
    assert "readable by other users" not in said(r)
    assert "postgresql://" not in said(r)  # the connection string is never shown
    assert not (home / "qmgrs" / "QMA" / "server.json").exists()  # no server half-started

    own_server.start_server()  # back: the member starts as if nothing had happened
    assert member_rows(group.url) == before
    group.start("QMA")
    qm = syncpoint.connect("QMA")
    qm.admin("define", "QLOCAL", "SQ", {"QSGDISP": "SHARED"})
    qm.open("SQ").put(b"after")
    assert qm.open("SQ").get().data == b"after"
    qm.disconnect()
    group.end("QMA")


def test_a_member_whose_group_in_the_database_is_another_does_not_start(group, home):
    # "a member started with another group's name": QMA's own record says SPG, the database has it in XYZ
    assert group.create("QMA").returncode == 0
    with psycopg.connect(group.url) as conn:
        conn.execute("INSERT INTO qsg (qsg, version) VALUES ('XYZ', 1)")
        conn.execute("UPDATE qsg_member SET qsg = 'XYZ' WHERE member = 'QMA'")
    r = run(home, "strmqm", "QMA", "--port", "0")
    assert r.returncode != 0
    assert "not a member of queue-sharing group SPG" in said(r)
    assert member_rows(group.url) == [("XYZ", "QMA", None)]  # nothing changed, no session begun
    assert not (home / "qmgrs" / "QMA" / "server.json").exists()


def test_crtmqm_of_a_member_of_one_group_into_another_group_of_the_same_database_is_refused(group, home, tmp_path):
    # IBM: a queue manager is a member of one queue-sharing group at most
    assert group.create("QMA").returncode == 0
    other = tmp_path / "other-machine"
    other.mkdir()
    r = run(other, "crtmqm", "-qsg", "XYZ", "--shared", group.url, "QMA")
    assert r.returncode == 71
    assert "already a member of queue-sharing group SPG" in said(r)
    assert not (other / "qmgrs" / "QMA").exists()
    assert member_rows(group.url) == [("SPG", "QMA", None)]


def test_qsgdisp_shared_on_a_model_or_an_alias_is_refused_with_mqrc_q_type_error_and_defines_nothing(group):
    # "QSGDISP(SHARED) … queues only: local queues" (reference/queue-sharing-groups.md, "What is shared")
    group.add("QMA")
    qm = syncpoint.connect("QMA")
    qm.admin("define", "QLOCAL", "ORDERS", {"QSGDISP": "SHARED"})
    for otype, attrs in (("QMODEL", {}), ("QALIAS", {"TARGET": "ORDERS"})):
        with pytest.raises(MQMIError) as e:
            qm.admin("define", otype, "X." + otype, {**attrs, "QSGDISP": "SHARED"})
        assert e.value.reason == C.MQRC_Q_TYPE_ERROR
        assert qm.admin("lookup", otype, "X." + otype) is None
    r = group.mqsc("QMA", "DEFINE QMODEL(M) QSGDISP(SHARED)\n")
    assert "MQRC_Q_TYPE_ERROR" in r.stdout and "already exists" not in r.stdout, r.stdout
    with psycopg.connect(group.url) as conn:
        names = [n for (n,) in conn.execute("SELECT name FROM qsg_object ORDER BY name")]
    assert names == ["ORDERS"]
    qm.disconnect()


def test_a_message_over_the_shared_queues_limit_is_refused_and_nothing_of_it_is_stored(group):
    # "MAXMSGL applies" to a shared queue: MQRC_MSG_TOO_BIG_FOR_Q (2030), in or out of a unit of work
    group.add("QMA")
    group.add("QMB")
    a = syncpoint.connect("QMA")
    a.admin("define", "QLOCAL", "SMALL", {"QSGDISP": "SHARED", "MAXMSGL": 4096})
    q = a.open("SMALL")
    for sync in (False, True):
        with pytest.raises(MQMIError) as e:
            q.put(b"x" * 4097, syncpoint=sync, persistent=True)
        assert e.value.reason == C.MQRC_MSG_TOO_BIG_FOR_Q
    q.put(b"y" * 4096, syncpoint=True, persistent=True)  # the unit of work goes on with what fits
    a.commit()
    with psycopg.connect(group.url) as conn:
        sizes = [n for (n,) in conn.execute("SELECT length(data) FROM qsg_message")]
    assert sizes == [4096]
    b = syncpoint.connect("QMB")
    assert b.open("SMALL").get().data == b"y" * 4096
    # and a queue cannot be given a limit beyond IBM's 100 MB
    with pytest.raises(MQMIError):
        b.admin("define", "QLOCAL", "HUGE", {"QSGDISP": "SHARED", "MAXMSGL": 104857601})
    a.disconnect()
    b.disconnect()
