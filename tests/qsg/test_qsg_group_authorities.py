"""Authority records of a queue-sharing group's objects are the group's (issue 35 item 1: "Stored durably with the
queue manager (shared through the group's database for GROUP objects of a queue-sharing group)").

z/OS keeps the security of a queue-sharing group's objects in RACF profiles the group shares: a record set on
one member for a profile that covers a GROUP or SHARED object is written to the group's PostgreSQL database and
holds on every member, at once for the active ones (the group's notification, as GROUP definitions follow) and
at start for the others; a member's own objects keep member records. setmqaut / SET AUTHREC / PCF reach the same
verb (``set_authrec``); DISPLAY AUTHREC and dmpmqaut (``authrecs``) on any member show the group's records.

Two members in this process on one real PostgreSQL database, their listeners real threads; and once with the
commands themselves against two real member processes.
"""

from __future__ import annotations

from typing import Any

import psycopg
import pytest
from qsg_members import Group, member, reason, run

import syncpoint
from syncpoint.engine import FakeClock
from syncpoint.mqi import MQOD
from syncpoint.mqi import constants as C
from syncpoint.mqsc import MqscProcessor
from waiting import wait_for_value, wait_until


@pytest.fixture
def pair(postgres_url: str) -> Any:
    clock = FakeClock()
    hosts = [member("QMA", postgres_url, clock), member("QMB", postgres_url, clock)]
    qms = [syncpoint.connect(h.name, embedded=h) for h in hosts]
    for qm in qms:  # connect is the queue manager's own: each member's record
        qm.admin("set_authrec", "qmgr", "", "principal", "alice", ["connect"])
    mqsc = MqscProcessor(qms[0])
    assert mqsc.execute("DEFINE QLOCAL(PAY.SHARED) QSGDISP(SHARED)").ok
    assert mqsc.execute("DEFINE QLOCAL(PAY.GROUP) QSGDISP(GROUP)").ok
    yield hosts, qms, clock
    for qm in qms:
        qm.disconnect()
    for h in hosts:
        h.close(abnormal=True)


def may_put(host: Any, queue: str) -> bool:
    """Whether user alice may open ``queue`` for output on member ``host`` (a new connection, a new open)."""
    alice = syncpoint.connect(host.name, embedded=host, user="alice")
    try:
        alice.mqclose(alice.mqopen(MQOD(ObjectName=queue.encode()), C.MQOO_OUTPUT))
        return True
    except syncpoint.MQMIError as e:
        assert e.reason == C.MQRC_NOT_AUTHORIZED
        return False
    finally:
        alice.disconnect()


def group_rows(url: str) -> list[str]:
    with psycopg.connect(url) as conn:
        return [r[0] for r in conn.execute("SELECT name FROM qsg_object WHERE disp = 'AUTHREC' ORDER BY name")]


def test_a_record_covering_a_shared_queue_is_the_groups_and_holds_on_every_member_at_once(
    pair: Any, postgres_url: str
) -> None:
    (ha, hb), (a, b), _ = pair
    assert not may_put(ha, "PAY.SHARED") and not may_put(hb, "PAY.SHARED")
    assert a.admin("set_authrec", "queue", "PAY.*", "principal", "alice", ["put"]) == ["put"]
    assert len(group_rows(postgres_url)) == 1  # in the group's database, not (only) in QMA's store
    assert may_put(ha, "PAY.SHARED")
    wait_until(lambda: may_put(hb, "PAY.SHARED"), "QMB sees the group's record")  # the notification: at once
    # DISPLAY AUTHREC on the other member shows it, as dmpmqaut does
    shown = "\n".join(MqscProcessor(b).execute("DISPLAY AUTHREC PROFILE('PAY.*') OBJTYPE(QUEUE)").lines)
    assert "ENTITY(alice)" in shown and "AUTHLIST(PUT)" in shown, shown

    # changed on QMB: the group's record changes, QMA follows
    assert b.admin("set_authrec", "queue", "PAY.*", "principal", "alice", [], ["put"]) == []
    wait_until(lambda: not may_put(ha, "PAY.SHARED"), "QMA sees the group's record changed")
    # deleted on QMA: gone from the group and from QMB's DISPLAY
    a.admin("delete_authrec", "queue", "PAY.*", "principal", "alice")
    assert group_rows(postgres_url) == []
    wait_until(lambda: b.admin("authrecs", "queue", "PAY.*") == [], "QMB forgets the group's record")


def test_a_record_naming_a_group_object_is_the_groups_and_one_of_a_members_own_queue_is_not(
    pair: Any, postgres_url: str
) -> None:
    (ha, _), (a, b), _ = pair
    a.admin("define", "QLOCAL", "OWN.Q")
    set_on_b = "SET AUTHREC PROFILE('PAY.GROUP') OBJTYPE(QUEUE) PRINCIPAL('alice') AUTHADD(PUT)"
    assert MqscProcessor(b).execute(set_on_b).ok  # set on the other member, in MQSC
    wait_until(lambda: may_put(ha, "PAY.GROUP"), "QMA's COPY of the GROUP queue is covered")
    a.admin("set_authrec", "queue", "OWN.Q", "principal", "alice", ["put"])  # QMA's own queue: QMA's record
    assert may_put(ha, "OWN.Q")
    assert len(group_rows(postgres_url)) == 1
    assert b.admin("authrecs", "queue", "OWN.Q") == []


def test_a_member_that_starts_later_reads_the_groups_records(pair: Any, postgres_url: str) -> None:
    _, (a, _), clock = pair
    a.admin("set_authrec", "queue", "PAY.SHARED", "principal", "alice", ["put", "get"])
    hc = member("QMC", postgres_url, clock)
    try:
        c = syncpoint.connect("QMC", embedded=hc)
        c.admin("set_authrec", "qmgr", "", "principal", "alice", ["connect"])
        assert may_put(hc, "PAY.SHARED")
        assert c.admin("authrecs", "queue", "PAY.SHARED")[0]["authorities"] == ["get", "put"]
        c.disconnect()
    finally:
        hc.close(abnormal=True)


def test_refresh_security_reads_the_groups_records_again(pair: Any, postgres_url: str) -> None:
    """A record written to the group's database by another member whose notification was not seen (here: a row
    written directly) holds after REFRESH SECURITY, as IBM's REFRESH SECURITY re-reads the shared profiles."""
    (_, hb), (_, b), _ = pair
    with psycopg.connect(postgres_url) as conn:
        conn.execute(
            "INSERT INTO qsg_object VALUES ('SPG', 'AUTHREC', %s, 'AUTHREC', %s)",
            ('["queue", "PAY.SHARED", "principal", "alice"]', str(1 << C.MQAUTH_OUTPUT).encode()),
        )
    assert MqscProcessor(b).execute("REFRESH SECURITY").ok
    assert may_put(hb, "PAY.SHARED")


def test_a_bad_group_record_is_refused_and_nothing_reaches_the_group(pair: Any, postgres_url: str) -> None:
    _, (a, _), _ = pair
    assert reason(lambda: a.admin("set_authrec", "queue", "PAY.**X", "principal", "alice", ["put"])) == (
        C.MQRCCF_PROFILE_NAME_ERROR
    )
    assert reason(lambda: a.admin("set_authrec", "queue", "PAY.*", "principal", "a" * 1000, ["put"])) == (
        C.MQRC_UNKNOWN_ENTITY
    )
    assert reason(lambda: a.admin("set_authrec", "queue", "PAY.*", "principal", "alice", ["fly"])) == (
        C.MQRCCF_AUTH_VALUE_ERROR
    )
    assert group_rows(postgres_url) == []


def test_a_members_own_record_on_a_profile_that_comes_to_cover_a_group_object_moves_to_the_group(
    pair: Any, postgres_url: str
) -> None:
    (_, hb), (a, _), _ = pair
    a.admin("set_authrec", "queue", "NEW.*", "principal", "alice", ["get"])  # no group object matches yet: QMA's
    assert group_rows(postgres_url) == []
    assert MqscProcessor(a).execute("DEFINE QLOCAL(NEW.SHARED) QSGDISP(SHARED)").ok
    assert a.admin("set_authrec", "queue", "NEW.*", "principal", "alice", ["put"]) == ["get", "put"]
    assert len(group_rows(postgres_url)) == 1
    wait_until(lambda: may_put(hb, "NEW.SHARED"), "QMB holds the moved record")
    a.admin("delete_authrec", "queue", "NEW.*", "principal", "alice")  # gone from the group: QMA keeps no copy
    assert a.admin("authrecs", "queue", "NEW.*") == [] and group_rows(postgres_url) == []


def test_setmqaut_on_one_member_process_shows_in_dspmqaut_and_dmpmqaut_of_another(group: Group) -> None:
    group.add("QMA")
    group.add("QMB")
    try:
        assert group.mqsc("QMA", "DEFINE QLOCAL(PAY.SHARED) QSGDISP(SHARED)").returncode == 0
        ok = run(group.home, "setmqaut", "-m", "QMA", "-n", "PAY.**", "-t", "queue", "-p", "alice", "+put", "+get")
        assert (ok.returncode, ok.stdout) == (0, "The setmqaut command completed successfully.\n"), ok.stderr

        def shown() -> str | None:
            out = run(group.home, "dspmqaut", "-m", "QMB", "-n", "PAY.SHARED", "-t", "q", "-p", "alice").stdout
            return out if "put" in out else None

        assert wait_for_value(shown, "QMB's dspmqaut shows the group's record") == (
            "Entity alice has the following authorizations for object PAY.SHARED:\n\tget\n\tput\n"
        )
        dumped = run(group.home, "dmpmqaut", "-m", "QMB", "-p", "alice", "-a").stdout.splitlines()
        assert dumped == ["setmqaut -m QMB -n 'PAY.**' -t queue -p alice +get +put"]
    finally:
        group.end("QMA")
        group.end("QMB")
