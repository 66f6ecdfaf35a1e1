"""Seed 001 on shared queues, one test a rule, with two or three real member processes sharing a real PostgreSQL
(issue 20, item 5).

Seed 001_30538df842c6cd11.txt, "Conditions for a trigger event": note 3b ("For local shared queues, the queue
manager counts committed messages only"), note 4a ("if one or more queue managers have the queue open for input
shared, the trigger criteria on the other queue managers are treated as TriggerType MQTT_FIRST and
TriggerMsgPriority zero"), note 4b ("a queue manager's OpenInputCount for a queue must be zero for a trigger
message to be generated for the queue by that queue manager. However, if any queue manager in the queue-sharing
group has the queue open using the MQOO_INPUT_EXCLUSIVE option, no trigger message is generated for that queue by
any of the queue managers"); reference/queue-sharing-groups.md ("Each queue manager that has a trigger monitor
on its initiation queue may write its own trigger message").

Each member has its own initiation queue INIT.Q (a trigger monitor is a connection holding it open for input)
and process APP.PROC. "Nothing was written" is shown without waiting for time to pass: after the event, the
member that caused it puts a message on a second shared queue, MARK.SQ, which triggers (FIRST) into every
member's MARK.INIT; the group's wake-ups reach each member in commit order, so once a member's MARK.INIT holds
that trigger message, the member has evaluated the event before it.
"""

from __future__ import annotations

from typing import Any

import pytest

import syncpoint
from syncpoint.mqi import MQTM
from syncpoint.mqi import constants as C
from waiting import wait_until

INPUT = C.MQOO_INPUT_SHARED | C.MQOO_FAIL_IF_QUIESCING
WAIT = 60.0  # seconds a trigger message that is due may take on a loaded machine (a bound, not a duration)


class Member:
    """A member process of the group, seen through a client connection: its initiation queues and monitors."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.qm = syncpoint.connect(name)
        self.qm.admin("define", "QLOCAL", "INIT.Q")
        self.qm.admin("define", "QLOCAL", "MARK.INIT")
        self.qm.admin("define", "PROCESS", "APP.PROC", {"APPLICID": "/usr/bin/server"})
        self.mark = self.qm.open("MARK.INIT", INPUT)  # the marker's monitor, always running
        self.monitor: Any = None

    def start_monitor(self) -> None:
        self.monitor = self.qm.open("INIT.Q", INPUT)

    def triggers(self) -> list[MQTM]:
        """The trigger messages on this member's INIT.Q now."""
        out = []
        while (m := self.monitor.get_or_none()) is not None:
            out.append(MQTM.unpack(m.data))
        return out

    def init_depth(self) -> int:
        return int(self.qm.admin("queue_status", "INIT.Q")["CURDEPTH"])

    def close(self) -> None:
        self.qm.disconnect()


def define_app(qm: syncpoint.QueueManager, **attrs: Any) -> None:
    base: dict[str, Any] = {
        "QSGDISP": "SHARED",
        "TRIGGER": C.MQTC_ON,
        "TRIGTYPE": C.MQTT_FIRST,
        "PROCESS": "APP.PROC",
        "INITQ": "INIT.Q",
    }
    base.update(attrs)
    qm.admin("define", "QLOCAL", "APP.SQ", base)


def sync(putter: Member, members: list[Member]) -> None:
    """Wait until every member has evaluated what ``putter`` committed before (see the module doc)."""
    putter.qm.open("MARK.SQ").put(b"mark")
    for m in members:
        got = m.mark.get(wait=WAIT)
        assert MQTM.unpack(got.data).QName.rstrip() == b"MARK.SQ"
    q = putter.qm.open("MARK.SQ")
    q.get()
    q.close()  # no input handle left open: the next mark triggers (FIRST) again


@pytest.fixture
def members(group: Any) -> Any:
    made: list[Member] = []

    def make(*names: str, **app: Any) -> list[Member]:
        for name in names:
            group.add(name)
        out = [Member(name) for name in names]
        made.extend(out)
        define_app(out[0].qm, **app)
        out[0].qm.admin(
            "define",
            "QLOCAL",
            "MARK.SQ",
            {
                "QSGDISP": "SHARED",
                "TRIGGER": C.MQTC_ON,
                "TRIGTYPE": C.MQTT_FIRST,
                "PROCESS": "APP.PROC",
                "INITQ": "MARK.INIT",
            },
        )
        for m in out:  # every member knows both shared queues before the first event
            for qname in ("APP.SQ", "MARK.SQ"):
                q = m.qm.open(qname)
                assert q.depth == 0
                q.close()
        return out

    yield make
    for m in made:
        m.close()


def names(tms: list[MQTM]) -> list[str]:
    return [tm.QName.decode().rstrip() for tm in tms]


def test_seed001_note_3b_only_committed_messages_count_on_a_shared_queue(members):
    # seed 001, note 3b: "For local shared queues, the queue manager counts committed messages only."
    a, b = members("QMA", "QMB")
    a.start_monitor()
    b.start_monitor()
    app = syncpoint.connect("QMA")
    app.open("APP.SQ").put(b"work", syncpoint=True)
    sync(a, [a, b])
    assert a.triggers() == [] and b.triggers() == []  # uncommitted: it does not count, on any member
    app.commit()
    for m in (a, b):
        tm = MQTM.unpack(m.monitor.get(wait=WAIT).data)
        assert tm.QName.rstrip() == b"APP.SQ" and tm.ProcessName.rstrip() == b"APP.PROC"
    app.disconnect()


def test_seed001_note_4b_the_open_input_count_is_each_members_own(members):
    # seed 001, note 4b: "a queue manager's OpenInputCount for a queue must be zero for a trigger message to be
    # generated for the queue by that queue manager"
    a, b, c = members("QMA", "QMB", "QMC")
    a.start_monitor()
    b.start_monitor()
    server_b = syncpoint.connect("QMB")
    served = server_b.open("APP.SQ", INPUT)  # an application on B serves the queue
    c.qm.open("APP.SQ").put(b"work")
    sync(c, [a, b, c])
    assert names(a.triggers()) == ["APP.SQ"]  # A's own OpenInputCount is zero
    assert b.triggers() == []  # B's is not
    served.close()
    server_b.disconnect()


def test_seed001_note_4a_while_another_member_has_it_open_input_shared_the_criteria_are_first_and_priority_0(
    members,
):
    # seed 001, note 4a: "if one or more queue managers have the queue open for input shared, the trigger criteria
    # on the other queue managers are treated as TriggerType MQTT_FIRST and TriggerMsgPriority zero. When all the
    # queue managers close the queue for input, the trigger conditions revert to those conditions specified in
    # the queue definition."
    a, b = members("QMA", "QMB", TRIGTYPE=C.MQTT_DEPTH, TRIGDPTH=3, TRIGMPRI=5)
    a.start_monitor()
    server_b = syncpoint.connect("QMB")
    served = server_b.open("APP.SQ", INPUT)
    a.qm.open("APP.SQ").put(b"low priority", priority=0)  # one message, below TRIGMPRI: DEPTH 3 would not fire
    tm = MQTM.unpack(a.monitor.get(wait=WAIT).data)
    assert tm.QName.rstrip() == b"APP.SQ"
    assert served.get().data == b"low priority"
    served.close()  # every member has closed it for input: the queue's own criteria again
    a.qm.open("APP.SQ").put(b"low priority again", priority=0)
    sync(a, [a, b])
    assert a.triggers() == []
    # it fired as FIRST, so TriggerControl stays on (a DEPTH trigger message would have turned it off)
    assert a.qm.admin("lookup", "QLOCAL", "APP.SQ").attrs["TRIGGER"] == C.MQTC_ON
    server_b.disconnect()


def test_seed001_note_4b_input_exclusive_on_any_member_means_no_trigger_message_from_any(members):
    # seed 001, note 4b: "if any queue manager in the queue-sharing group has the queue open using the
    # MQOO_INPUT_EXCLUSIVE option, no trigger message is generated for that queue by any of the queue managers"
    a, b, c = members("QMA", "QMB", "QMC", TRIGTYPE=C.MQTT_EVERY)
    a.start_monitor()
    c.start_monitor()
    server_b = syncpoint.connect("QMB")
    exclusive = server_b.open("APP.SQ", C.MQOO_INPUT_EXCLUSIVE)
    c.qm.open("APP.SQ").put(b"work")  # EVERY: condition 4 does not apply; only the exclusive open stops it
    sync(c, [a, b, c])
    assert a.triggers() == [] and c.triggers() == []
    exclusive.close()
    c.qm.open("APP.SQ").put(b"more work")  # no exclusive open any more: every monitored member triggers
    for m in (a, c):
        assert MQTM.unpack(m.monitor.get(wait=WAIT).data).QName.rstrip() == b"APP.SQ"
    server_b.disconnect()


def test_seed001_each_member_with_a_trigger_monitor_writes_its_own_trigger_message(members):
    # reference/queue-sharing-groups.md: "Each queue manager that has a trigger monitor on its initiation queue
    # may write its own trigger message."
    a, b, c = members("QMA", "QMB", "QMC")
    a.start_monitor()
    b.start_monitor()  # C has no trigger monitor on its INIT.Q (condition 8)
    c.qm.open("APP.SQ").put(b"work")
    sync(c, [a, b, c])
    for m in (a, b):
        got = m.monitor.get()
        assert got.md.Format == C.MQFMT_TRIGGER
        assert got.md.PutApplName.rstrip() == m.name.encode()  # written by that member itself
        assert m.triggers() == []  # one each
    assert c.init_depth() == 0


def test_seed001_condition_13_a_monitor_opening_its_initiation_queue_triggers_for_a_shared_queue_altered_elsewhere(
    members,
):
    # seed 001, condition 13: "A trigger-monitor application issues an MQOPEN call for input from an initiation
    # queue, and there is at least one ... message ... on any of the application queues for which this is the
    # initiation queue" — also when the shared queue was made to name it (ALTER) on another member
    a, b = members("QMA", "QMB", INITQ="OTHER.INIT")
    b.start_monitor()  # B now knows which queues name INIT.Q: none
    b.monitor.close()
    a.qm.admin("alter", "QLOCAL", "APP.SQ", {"INITQ": "INIT.Q"})
    wait_until(
        lambda: b.qm.admin("lookup", "QLOCAL", "APP.SQ").attrs["INITQ"] == "INIT.Q",
        "QMB seeing the ALTER",
        timeout=WAIT,
    )
    a.qm.open("APP.SQ").put(b"work")
    sync(a, [a, b])  # B has evaluated the arrival, without a monitor: nothing
    b.start_monitor()
    assert names(b.triggers()) == ["APP.SQ"]
