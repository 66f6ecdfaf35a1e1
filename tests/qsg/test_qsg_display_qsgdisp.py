"""DISPLAY on a member of a queue-sharing group always shows QSGDISP, and WHERE(QSGDISP EQ …) filters (issue 33
item 5; reference/queue-sharing-groups.md: "DISPLAY of a queue on a member of a group always shows its QSGDISP (z/OS
returns it with the name and type)"). Real PostgreSQL, members in this process on a fake clock."""

from __future__ import annotations

from qsg_members import member

import syncpoint
from syncpoint.engine import FakeClock
from syncpoint.mqsc import MqscProcessor


def show(p: MqscProcessor, text: str) -> str:
    return "\n".join(p.execute(text).lines)


def test_display_on_a_member_always_shows_qsgdisp_and_where_filters_on_it(postgres_url):
    host = member("QMA", postgres_url, FakeClock())
    try:
        qm = syncpoint.connect("QMA", embedded=host)
        p = MqscProcessor(qm)
        for text in ("DEFINE QLOCAL(APP.PRIVATE)", "DEFINE QLOCAL(APP.SHARED) QSGDISP(SHARED)"):
            assert p.execute(text).ok
        assert p.execute("DEFINE QLOCAL(APP.GROUP) QSGDISP(GROUP)").ok
        one = show(p, "DISPLAY QLOCAL(APP.SHARED)")
        assert "QSGDISP(SHARED)" in one, one  # without QSGDISP(…) asked for
        assert "QSGDISP(QMGR)" in show(p, "DISPLAY QLOCAL(APP.PRIVATE) MAXDEPTH")
        assert "QSGDISP(COPY)" in show(p, "DISPLAY QLOCAL(APP.GROUP)")
        shared = show(p, "DISPLAY QLOCAL(APP.*) WHERE(QSGDISP EQ SHARED)")
        assert "QUEUE(APP.SHARED)" in shared and "APP.PRIVATE" not in shared and "APP.GROUP" not in shared, shared
        not_shared = show(p, "DISPLAY QUEUE(APP.*) WHERE(QSGDISP NE SHARED)")
        assert "APP.PRIVATE" in not_shared and "APP.GROUP" in not_shared and "APP.SHARED" not in not_shared
    finally:
        host.close(abnormal=True)


def test_a_queue_manager_in_no_group_shows_no_qsgdisp() -> None:
    # IBM MQ on Linux has no QSGDISP: DISPLAY does not show one outside a group
    from syncpoint.client import memory_queue_manager

    e = memory_queue_manager("QM1")
    try:
        p = MqscProcessor(syncpoint.connect("QM1", embedded=e))
        p.execute("DEFINE QLOCAL(APP.PRIVATE)")
        assert "QSGDISP" not in show(p, "DISPLAY QLOCAL(APP.PRIVATE)")
    finally:
        e.close()
