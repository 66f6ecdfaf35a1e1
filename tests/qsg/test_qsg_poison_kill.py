"""A poison message on a shared queue that crashes the member getting it reaches its backout threshold and leaves
the queue as seed 004 says (issue 20, item 4).

Rule sources: seed 004 (004_34794cb819784c0d.txt, "Proceso de reintento"): the node checks whether the message was
backed out before and whether its backout count reached the threshold BOTHRESH (0 meaning 1); "Si se alcanza el
número máximo de restituciones … el mensaje se coloca en el nombre de reposición en cola para restitución de la
cola de entrada (atributo de cola BOQNAME)". The queue manager's part (reference/queue-sharing-groups.md, "Peer
recovery"): a failed member's uncommitted gets "are reinstated" — with BackoutCount + 1, so that the next getter,
on any member, sees how often the message was backed out.

Real member processes, a real PostgreSQL: each time a member gets the message (in syncpoint) its processing kills
the member with SIGKILL; another member's peer recovery reinstates the message; the killed member is restarted.
The getter is the MQInput node's own ladder (``syncpoint.flow._node.process_message``): once BackoutCount reaches
BOTHRESH it puts the message on BOQNAME and commits.
"""

from __future__ import annotations

import os
import signal

import psycopg
from qsg_members import alive, held

import syncpoint
from syncpoint.flow import FlowMessage, Handlers, process_message
from syncpoint.mqi import MQMIError
from syncpoint.spark import Action, requeue_order
from waiting import wait_until

BOTHRESH = 3


def rows(url: str) -> list:
    with psycopg.connect(url) as conn:
        return conn.execute("SELECT id, queue, owner, uow, got, backout FROM qsg_message").fetchall()


def test_a_poison_message_that_kills_its_getters_member_reaches_bothresh_and_goes_to_boqname(group):
    members = [group.add("QMA"), group.add("QMB")]
    admin = syncpoint.connect("QMA")
    admin.admin("define", "QLOCAL", "ORDERS.BACKOUT", {"QSGDISP": "SHARED"})
    admin.admin("define", "QLOCAL", "ORDERS", {"QSGDISP": "SHARED", "BOTHRESH": BOTHRESH, "BOQNAME": "ORDERS.BACKOUT"})
    admin.open("ORDERS").put(b"poison", persistent=True)
    admin.open("ORDERS").put(b"good", persistent=True)
    admin.disconnect()

    kills = 0
    outcome = None
    for round_ in range(2 * BOTHRESH + 2):  # bounded: the message must leave within BOTHRESH kills
        name = members[round_ % 2]
        qm = syncpoint.connect(name)
        orders = qm.open("ORDERS")
        got = orders.get(syncpoint=True)
        assert got.data == b"poison"
        # every crash so far came back exactly once: BackoutCount counts the members killed while holding it
        assert got.md.BackoutCount == kills
        bothresh = int(qm.admin("lookup", "QLOCAL", "ORDERS").attrs["BOTHRESH"])
        pid = group.pid(name)

        def crash(msg: FlowMessage, pid: int = pid) -> None:
            os.kill(pid, signal.SIGKILL)  # the poison message crashes the member holding it
            wait_until(lambda: not alive(pid), "the member ending", timeout=60)
            raise RuntimeError("the member died")

        d = process_message(FlowMessage(got.data, {"BackoutCount": got.md.BackoutCount}), Handlers(out=crash), bothresh)
        if d.action is Action.REQUEUE:
            boqname = str(qm.admin("lookup", "QLOCAL", "ORDERS").attrs["BOQNAME"]).strip()
            target, with_dlh = requeue_order(boqname, None)[0]
            assert not with_dlh
            qm.open(target).put(got.data, syncpoint=True, persistent=True)
            qm.commit()
            qm.disconnect()
            outcome = (round_, got.md.BackoutCount)
            break
        assert d.action is Action.BACKOUT
        kills += 1
        try:
            qm.disconnect()
        except MQMIError:
            pass  # its member is gone
        # the other member's peer recovery reinstates the message with BackoutCount + 1
        wait_until(lambda: held(group.url) == 0, "peer recovery of the killed member", timeout=60)
        group.start(name)

    assert outcome == (BOTHRESH, BOTHRESH), "the message left at its BOTHRESH-th delivery with BackoutCount BOTHRESH"
    assert kills == BOTHRESH
    b = syncpoint.connect("QMB")
    left = b.open("ORDERS").get()  # it left the input queue; the ordinary message behind it is served as it was
    assert (left.data, left.md.BackoutCount) == (b"good", 0)
    assert b.open("ORDERS").depth == 0
    moved = b.open("ORDERS.BACKOUT").get()
    assert moved.data == b"poison"
    assert b.open("ORDERS.BACKOUT").depth == 0  # once
    b.disconnect()


CONSUMER = """
import sys
import syncpoint
from syncpoint.flow import FlowMessage, Handlers, process_message
from syncpoint.spark import Action, requeue_order

qm = syncpoint.connect(sys.argv[1])
got = qm.open("ORDERS").get(syncpoint=True)
attrs = qm.admin("lookup", "QLOCAL", "ORDERS").attrs


def hold(msg):
    print("holding", got.md.BackoutCount, flush=True)  # the processing that never ends: it is killed here
    sys.stdin.read()


d = process_message(FlowMessage(got.data, {"BackoutCount": got.md.BackoutCount}), Handlers(out=hold), attrs["BOTHRESH"])
assert d.action is Action.REQUEUE
target, _ = requeue_order(str(attrs["BOQNAME"]).strip(), None)[0]
qm.open(target).put(got.data, syncpoint=True, persistent=True)
qm.commit()
print("moved", got.md.BackoutCount, flush=True)
"""


def test_a_poison_message_whose_consumer_process_is_killed_each_time_reaches_bothresh_and_goes_to_boqname(group):
    # the consumer dies, its member lives: the member backs the broken connection's unit of work out (+1)
    import subprocess
    import sys

    members = [group.add("QMA"), group.add("QMB")]
    admin = syncpoint.connect("QMA")
    admin.admin("define", "QLOCAL", "ORDERS.BACKOUT", {"QSGDISP": "SHARED"})
    admin.admin("define", "QLOCAL", "ORDERS", {"QSGDISP": "SHARED", "BOTHRESH": BOTHRESH, "BOQNAME": "ORDERS.BACKOUT"})
    admin.open("ORDERS").put(b"poison", persistent=True)
    env = dict(os.environ, SYNCPOINT_HOME=str(group.home))
    seen = []
    for round_ in range(BOTHRESH + 1):
        p = subprocess.Popen(
            [sys.executable, "-c", CONSUMER, members[round_ % 2]],
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert p.stdout is not None
        word, count = p.stdout.readline().split()
        seen.append((word, int(count)))
        if word == "moved":
            assert p.wait(60) == 0
            break
        p.kill()  # SIGKILL while it holds the message
        p.wait(60)
        wait_until(
            lambda: held(group.url) == 0,
            "the member backing out its dead consumer's unit of work",
            60,
            detail=lambda: (seen, rows(group.url)),
        )
    assert seen == [("holding", n) for n in range(BOTHRESH)] + [("moved", BOTHRESH)]
    assert admin.open("ORDERS").depth == 0
    assert admin.open("ORDERS.BACKOUT").get().data == b"poison"
    admin.disconnect()
