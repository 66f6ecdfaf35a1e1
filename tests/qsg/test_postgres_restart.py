"""PostgreSQL restarted under a running group (issue 20, "Bad input"): members reconnect, the units of work in
flight on shared queues are backed out, nothing committed is lost. Two in-process members on a PostgreSQL of
this test's own (the session's server serves the other tests meanwhile).

The first call of a member on a connection PostgreSQL cut fails (MQRC_CF_NOT_AVAILABLE, 2345, IBM's reason for a
coupling facility that cannot be used; a commit: MQRC_BACKED_OUT); the next one connects again.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from qsg_members import member, reason

import syncpoint
from pg import PostgresServer
from syncpoint.engine import FakeClock
from syncpoint.mqi import MQMIError
from syncpoint.mqi import constants as C
from waiting import wait_for_value


@pytest.fixture
def own_server() -> Iterator[PostgresServer]:
    server = PostgresServer().start()
    yield server
    server.stop()


def test_postgresql_restarted_under_running_members_backs_out_units_of_work_and_loses_nothing_committed(own_server):
    url = own_server.new_database()
    clock = FakeClock()
    hosts = [member("QMA", url, clock), member("QMB", url, clock)]
    try:
        a = syncpoint.connect("QMA", embedded=hosts[0])
        b = syncpoint.connect("QMB", embedded=hosts[1])
        a.admin("define", "QLOCAL", "SQ", {"QSGDISP": "SHARED"})
        a.open("SQ").put(b"committed", persistent=True)
        qa = a.open("SQ")
        assert qa.get(syncpoint=True).data == b"committed"
        qa.put(b"uncommitted", syncpoint=True)

        own_server.restart()

        assert reason(a.commit) == C.MQRC_BACKED_OUT  # the unit of work of the lost session

        def put_after() -> bool | None:
            try:
                b.open("SQ").put(b"after", persistent=True)
            except MQMIError as e:
                assert e.reason == C.MQRC_CF_NOT_AVAILABLE
                return None
            return True

        wait_for_value(put_after, "QMB putting again after the restart", timeout=60)
        got = []
        qb = b.open("SQ")
        while True:
            try:
                got.append(qb.get())
            except MQMIError as e:
                if e.reason == C.MQRC_NO_MSG_AVAILABLE:
                    break
                assert e.reason == C.MQRC_CF_NOT_AVAILABLE
        assert sorted((m.data, m.md.BackoutCount) for m in got) == [(b"after", 0), (b"committed", 1)]
    finally:
        for h in hosts:
            h.close(abnormal=True)
