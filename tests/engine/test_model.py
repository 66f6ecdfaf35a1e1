"""The queue manager against a small reference model: random sequences of MQI verbs on two connections.

Theory of operation
-------------------
A hypothesis ``RuleBasedStateMachine`` drives a real in-memory queue manager (through ``syncpoint.client``)
and a reference model written here with plain Python lists, and compares them after every step. The model
knows IBM MQ's rules, not the engine's data structures:

* delivery order: MSGDLVSQ(PRIORITY) gives the highest priority first and arrival (MQPUT) order within a
  priority; MSGDLVSQ(FIFO) gives arrival order, and every message takes the queue's DEFPRTY (0) as Priority;
* a message put in a unit of work is invisible to every connection (the putter included) until commit; a
  message got in a unit of work is invisible until backout; a backed-out get returns to its place with
  BackoutCount + 1;
* CURDEPTH counts committed messages and uncommitted puts, and not messages got in an uncommitted unit of work;
* a browse cursor is a position in delivery order: BROWSE_NEXT returns the first available message after it;
* MQGMO_MARK_SKIP_BACKOUT (seed 000): one mark per unit of work (a second is MQRC_SECOND_MARK_NOT_ALLOWED and
  changes nothing); on an application MQBACK the marked get stays got and becomes the only member of a new unit
  of work, whose commit removes it and whose backout reinstates it with BackoutCount + 1. The new unit of work
  holds no *marked* get (the MQGET that was marked belonged to the old one), so it may mark one get again;
* MQDISC commits; an abnormal end (connection broken, ``endmqm -i``, a crash) backs out every get, marked or
  not, with BackoutCount + 1;
* a restart after a crash keeps every committed persistent message, backs out the persistent gets that were in
  flight with BackoutCount + 1, drops uncommitted puts and every non-persistent message.

Each message carries a unique number as its data, so a get or browse names exactly which message came back.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import hypothesis.strategies as st
from hypothesis import HealthCheck, settings
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule

import syncpoint
from syncpoint.client import EmbeddedQueueManager, Queue, QueueManager, memory_queue_manager
from syncpoint.engine import FakeClock
from syncpoint.mqi import MQMIError
from syncpoint.mqi import constants as C

QMGR = "QM1"
QP = "MODEL.PRIORITY"  # MSGDLVSQ(PRIORITY), the default
QF = "MODEL.FIFO"  # MSGDLVSQ(FIFO)
QUEUES = (QP, QF)
FIFO_QUEUES = frozenset({QF})

AVAILABLE = "available"
PUT_PENDING = "put pending"
GOT_PENDING = "got pending"
GONE = "gone"


# ------------------------------------------------------------------------------------------------------
# the reference model
# ------------------------------------------------------------------------------------------------------
@dataclass
class MMsg:
    ident: int
    queue: str
    priority: int  # as delivered (FIFO queues: the queue's DEFPRTY)
    persistent: bool
    arrival: int  # MQPUT order, queue-manager wide
    backout: int = 0
    state: str = AVAILABLE

    def key(self) -> tuple[int, ...]:
        if self.queue in FIFO_QUEUES:
            return (self.arrival,)
        return (9 - self.priority, self.arrival)

    def seen(self) -> tuple[int, int, int, bool]:
        """What an application sees of it: (data, Priority, BackoutCount, persistent)."""
        return (self.ident, self.priority, self.backout, self.persistent)


@dataclass
class MConn:
    puts: list[MMsg] = field(default_factory=list)
    gets: list[MMsg] = field(default_factory=list)
    marked: MMsg | None = None  # the MARK_SKIP_BACKOUT get of the current unit of work
    cursors: dict[str, tuple[int, ...] | None] = field(default_factory=dict)


class Model:
    def __init__(self) -> None:
        self.msgs: list[MMsg] = []
        self.conns = [MConn(), MConn()]
        self._arrival = 0

    def visible(self, queue: str) -> list[MMsg]:
        return sorted((m for m in self.msgs if m.queue == queue and m.state == AVAILABLE), key=MMsg.key)

    def depth(self, queue: str) -> int:
        return sum(1 for m in self.msgs if m.queue == queue and m.state in (AVAILABLE, PUT_PENDING))

    def put(self, c: int, queue: str, ident: int, priority: int, persistent: bool, syncpoint: bool) -> None:
        self._arrival += 1
        prio = 0 if queue in FIFO_QUEUES else priority
        m = MMsg(ident, queue, prio, persistent, self._arrival)
        self.msgs.append(m)
        if syncpoint:
            m.state = PUT_PENDING
            self.conns[c].puts.append(m)

    def get(self, c: int, queue: str, syncpoint: bool, mark: bool) -> MMsg | int:
        """The message the get returns, or the reason code it fails with."""
        conn = self.conns[c]
        if mark and conn.marked is not None:
            return C.MQRC_SECOND_MARK_NOT_ALLOWED
        vis = self.visible(queue)
        if not vis:
            return C.MQRC_NO_MSG_AVAILABLE
        m = vis[0]
        if syncpoint:
            m.state = GOT_PENDING
            conn.gets.append(m)
            if mark:
                conn.marked = m
        else:
            m.state = GONE
        return m

    def browse(self, c: int, queue: str, first: bool) -> MMsg | int:
        cursor = None if first else self.conns[c].cursors.get(queue)
        for m in self.visible(queue):
            if cursor is None or m.key() > cursor:
                self.conns[c].cursors[queue] = m.key()
                return m
        return C.MQRC_NO_MSG_AVAILABLE

    def commit(self, c: int) -> None:
        conn = self.conns[c]
        for m in conn.puts:
            m.state = AVAILABLE
        for m in conn.gets:
            m.state = GONE
        conn.puts, conn.gets, conn.marked = [], [], None

    def backout(self, c: int, honour_mark: bool) -> None:
        conn = self.conns[c]
        keep = conn.marked if honour_mark else None
        for m in conn.puts:
            m.state = GONE
        for m in conn.gets:
            if m is keep:
                continue
            m.state = AVAILABLE
            m.backout += 1
        # seed 000 step 7: the marked get becomes the only member of a new unit of work (and is not marked)
        conn.puts, conn.gets, conn.marked = [], [keep] if keep is not None else [], None

    def end_connection(self, c: int, abnormal: bool) -> None:
        if abnormal:
            self.backout(c, honour_mark=False)
        else:
            self.commit(c)
        self.conns[c] = MConn()

    def restart(self) -> None:
        for c in range(len(self.conns)):
            self.backout(c, honour_mark=False)
            self.conns[c] = MConn()
        for m in self.msgs:
            if not m.persistent:
                m.state = GONE
        self.msgs = [m for m in self.msgs if m.state != GONE]

    def forget_gone(self) -> None:
        self.msgs = [m for m in self.msgs if m.state != GONE]


# ------------------------------------------------------------------------------------------------------
# the machine
# ------------------------------------------------------------------------------------------------------
def _seen(msg: syncpoint.client.Message) -> tuple[int, int, int, bool]:
    return (int(msg.data), msg.priority, msg.backout_count, msg.persistent)


def _reason(fn: object, *args: object, **kw: object) -> tuple[object, int]:
    try:
        return fn(*args, **kw), C.MQRC_NONE  # type: ignore[operator]
    except MQMIError as e:
        return None, e.reason


class QueueManagerMatchesModel(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.clock = FakeClock()
        self.e: EmbeddedQueueManager = memory_queue_manager(QMGR, clock=self.clock)
        admin = syncpoint.connect(QMGR, embedded=self.e)
        admin.admin("define", "QLOCAL", QP, {"MAXDEPTH": 100_000})
        admin.admin("define", "QLOCAL", QF, {"MAXDEPTH": 100_000, "MSGDLVSQ": C.MQMDS_FIFO})
        admin.disconnect()
        self.model = Model()
        self.next_ident = 1
        self.issued_msgids: set[bytes] = set()
        self.conns: list[QueueManager] = []
        self.queues: list[dict[str, Queue]] = []
        self._connect_all()

    # -- plumbing ---------------------------------------------------------------------------------------
    def _connect(self) -> tuple[QueueManager, dict[str, Queue]]:
        qm = syncpoint.connect(QMGR, embedded=self.e)
        return qm, {name: qm.open(name) for name in QUEUES}

    def _connect_all(self) -> None:
        pairs = [self._connect() for _ in range(2)]
        self.conns = [p[0] for p in pairs]
        self.queues = [p[1] for p in pairs]
        self.observer, self.observer_queues = self._connect()

    def teardown(self) -> None:
        self.e.close(abnormal=True)

    # -- MQPUT ------------------------------------------------------------------------------------------
    @rule(
        c=st.integers(0, 1),
        queue=st.sampled_from(QUEUES),
        priority=st.integers(0, 9),
        persistent=st.booleans(),
        syncpoint=st.booleans(),
    )
    def put(self, c: int, queue: str, priority: int, persistent: bool, syncpoint: bool) -> None:
        ident = self.next_ident
        self.next_ident += 1
        md = self.queues[c][queue].put(
            str(ident).encode(), priority=priority, persistent=persistent, syncpoint=syncpoint
        )
        # MQMI_NONE asks the queue manager for a unique MsgId: unique over its life, restarts included, not
        # only among the messages it holds now (replies correlate on it long after the request is gone)
        msg_id = bytes(md.MsgId)
        assert msg_id not in self.issued_msgids, f"MsgId {msg_id!r} was generated twice"
        self.issued_msgids.add(msg_id)
        self.model.put(c, queue, ident, priority, persistent, syncpoint)

    @rule(
        c=st.integers(0, 1),
        queue=st.sampled_from(QUEUES),
        priorities=st.lists(st.integers(0, 9), min_size=2, max_size=4),
        persistent=st.booleans(),
        syncpoint=st.booleans(),
    )
    def put_several(self, c: int, queue: str, priorities: list[int], persistent: bool, syncpoint: bool) -> None:
        for priority in priorities:
            self.put(c, queue, priority, persistent, syncpoint)

    # -- MQGET ------------------------------------------------------------------------------------------
    @rule(
        c=st.integers(0, 1),
        queue=st.sampled_from(QUEUES),
        how=st.sampled_from(["no syncpoint", "syncpoint", "syncpoint marked"]),
    )
    def get(self, c: int, queue: str, how: str) -> None:
        syncpoint = how != "no syncpoint"
        mark = how == "syncpoint marked"
        got, reason = _reason(self.queues[c][queue].get, syncpoint=syncpoint, mark_skip_backout=mark)
        expected = self.model.get(c, queue, syncpoint, mark)
        if isinstance(expected, int):
            assert reason == expected, f"MQGET ({how}) of {queue}: expected reason {expected}, got {reason} {got}"
        else:
            assert reason == C.MQRC_NONE, f"MQGET ({how}) of {queue}: expected {expected.seen()}, got {reason}"
            assert _seen(got) == expected.seen(), f"MQGET ({how}) of {queue}"  # type: ignore[arg-type]

    # -- MQGET browse -----------------------------------------------------------------------------------
    @rule(c=st.integers(0, 1), queue=st.sampled_from(QUEUES), first=st.booleans())
    def browse(self, c: int, queue: str, first: bool) -> None:
        got, reason = _reason(self.queues[c][queue].browse, first=first)
        expected = self.model.browse(c, queue, first)
        what = "BROWSE_FIRST" if first else "BROWSE_NEXT"
        if isinstance(expected, int):
            assert reason == expected, f"{what} of {queue}: expected reason {expected}, got {reason} {got}"
        else:
            assert reason == C.MQRC_NONE, f"{what} of {queue}: expected {expected.seen()}, got {reason}"
            assert _seen(got) == expected.seen(), f"{what} of {queue}"  # type: ignore[arg-type]

    # -- MQCMIT / MQBACK --------------------------------------------------------------------------------
    @rule(c=st.integers(0, 1))
    def commit(self, c: int) -> None:
        self.conns[c].commit()
        self.model.commit(c)
        self.model.forget_gone()

    @rule(c=st.integers(0, 1))
    def backout(self, c: int) -> None:
        self.conns[c].backout()
        self.model.backout(c, honour_mark=True)
        self.model.forget_gone()

    # -- ends of connections and of the queue manager ---------------------------------------------------
    @rule(c=st.integers(0, 1))
    def disconnect_and_reconnect(self, c: int) -> None:
        """MQDISC (a normal end commits), then MQCONN again."""
        self.conns[c].disconnect()
        self.model.end_connection(c, abnormal=False)
        self.model.forget_gone()
        self.conns[c], self.queues[c] = self._connect()

    @rule(c=st.integers(0, 1))
    def abnormal_end_and_reconnect(self, c: int) -> None:
        """The connection breaks (the queue manager stays up): its unit of work is backed out, mark or not."""
        self.conns[c].transport.disconnect(True)
        self.conns[c]._connected = False
        self.model.end_connection(c, abnormal=True)
        self.conns[c], self.queues[c] = self._connect()

    @rule()
    def crash_and_restart(self) -> None:
        """The process dies: nothing is backed out in memory; the store's recovery does it at restart."""
        self.e.abandon()
        self.e = EmbeddedQueueManager(QMGR, self.e.store, self.clock)
        self.model.restart()
        self._connect_all()

    @rule()
    def immediate_shutdown_and_restart(self) -> None:
        """endmqm -i: every connection ends abnormally (backed out), then strmqm."""
        self.e.close(abnormal=True)
        self.e = EmbeddedQueueManager(QMGR, self.e.store, self.clock)
        self.model.restart()
        self._connect_all()

    # -- invariants -------------------------------------------------------------------------------------
    @invariant()
    def available_messages_in_delivery_order(self) -> None:
        for name in QUEUES:
            seen = [_seen(m) for m in self.observer_queues[name].browse_all()]
            assert seen == [m.seen() for m in self.model.visible(name)], f"messages available on {name}"

    @invariant()
    def curdepth_counts_uncommitted_puts_not_uncommitted_gets(self) -> None:
        for name in QUEUES:
            assert self.observer_queues[name].depth == self.model.depth(name), f"CURDEPTH of {name}"

    @invariant()
    def msgids_are_unique(self) -> None:
        """Every message the queue manager holds has its own MsgId, across restarts too."""
        ids: list[bytes] = []
        for name in QUEUES:
            ids.extend(m.msg_id for m in self.observer_queues[name].browse_all())
        assert len(ids) == len(set(ids)), "two messages share a MsgId"


QueueManagerMatchesModel.TestCase.settings = settings(
    max_examples=200,
    stateful_step_count=50,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
test_queue_manager_matches_model = QueueManagerMatchesModel.TestCase


# ------------------------------------------------------------------------------------------------------
# directed runs of the same machine: the rules of seed 000 and of a restart, always exercised
# ------------------------------------------------------------------------------------------------------
def _run(*steps: tuple[str, dict[str, object]]) -> None:
    """Drive the machine through ``steps``, checking the model and the invariants after each."""
    machine = QueueManagerMatchesModel()
    try:
        _check(machine)
        for name, kw in steps:
            if name == "expect":  # the model itself, against values worked out by hand from the rules
                for queue, seen in kw.items():
                    assert [m.seen() for m in machine.model.visible(queue)] == seen, f"model of {queue}"
                continue
            getattr(machine, name)(**kw)
            _check(machine)
    finally:
        machine.teardown()


def _check(machine: QueueManagerMatchesModel) -> None:
    machine.available_messages_in_delivery_order()
    machine.curdepth_counts_uncommitted_puts_not_uncommitted_gets()
    machine.msgids_are_unique()


def _put(
    c: int, queue: str, priority: int, persistent: bool = True, syncpoint: bool = False
) -> tuple[str, dict[str, object]]:
    return ("put", {"c": c, "queue": queue, "priority": priority, "persistent": persistent, "syncpoint": syncpoint})


def _get(c: int, queue: str, how: str = "syncpoint") -> tuple[str, dict[str, object]]:
    return ("get", {"c": c, "queue": queue, "how": how})


def test_skip_backout_marked_get_survives_backout_then_commit_removes_it() -> None:
    _run(
        _put(0, QP, 5),
        _put(0, QP, 7),
        _put(0, QP, 1),
        _get(0, QP, "syncpoint marked"),
        _get(0, QP),
        _get(0, QP, "syncpoint marked"),  # second mark: 2062
        ("backout", {"c": 0}),  # the priority-5 get is reinstated with BackoutCount 1; the marked one stays got
        ("expect", {QP: [(1, 5, 1, True), (3, 1, 0, True)]}),
        _get(1, QP, "no syncpoint"),
        _get(1, QP, "no syncpoint"),  # 5 (count 1), 1: the marked 7 is not there
        ("commit", {"c": 0}),  # the new unit of work: removes the marked message
        ("disconnect_and_reconnect", {"c": 0}),
    )


def test_skip_backout_new_unit_of_work_backed_out_reinstates_with_count() -> None:
    _run(
        _put(0, QF, 9),
        _put(0, QF, 3),
        _get(0, QF, "syncpoint marked"),
        _get(0, QF),
        ("backout", {"c": 0}),  # second get reinstated (count 1); marked first get now alone in a new unit of work
        ("backout", {"c": 0}),  # that unit of work backed out: reinstated with BackoutCount 1
        ("expect", {QF: [(1, 0, 1, True), (2, 0, 1, True)]}),
        _get(1, QF),
        _get(1, QF),
        ("commit", {"c": 1}),
    )


def test_mark_ignored_when_the_connection_ends_abnormally_or_the_queue_manager_restarts() -> None:
    _run(
        _put(0, QP, 4),
        _put(0, QP, 4, persistent=False),
        _put(1, QP, 8),
        _get(0, QP, "syncpoint marked"),
        _get(0, QP),
        ("abnormal_end_and_reconnect", {"c": 0}),  # both back with BackoutCount 1
        _get(1, QP, "syncpoint marked"),
        _get(1, QP),
        _get(1, QP),
        ("crash_and_restart", {}),  # persistent gets back with BackoutCount 2; the non-persistent one is gone
        ("expect", {QP: [(3, 8, 2, True), (1, 4, 2, True)]}),
        _get(0, QP, "syncpoint marked"),
        ("immediate_shutdown_and_restart", {}),
        _get(0, QP, "no syncpoint"),
        _get(0, QP, "no syncpoint"),
    )


def test_uncommitted_puts_are_counted_in_curdepth_and_invisible_to_everyone() -> None:
    _run(
        _put(0, QP, 2, syncpoint=True),
        _put(0, QF, 6, syncpoint=True, persistent=False),
        _get(1, QP),
        _get(0, QP),
        ("browse", {"c": 1, "queue": QF, "first": True}),
        _put(1, QP, 2, syncpoint=True),
        ("commit", {"c": 1}),  # visible now, ahead of connection 0's uncommitted put of the same priority
        _get(0, QP),
        ("commit", {"c": 0}),  # commits connection 0's two puts
        _put(0, QP, 9, syncpoint=True),
        _put(1, QP, 9, syncpoint=True),
        ("expect", {QP: [(1, 2, 0, True)], QF: [(2, 0, 0, False)]}),
        ("crash_and_restart", {}),  # uncommitted puts are gone, and the non-persistent message
        ("expect", {QP: [(1, 2, 0, True)], QF: []}),
    )


def test_browse_next_does_not_go_back_for_a_higher_priority_arrival() -> None:
    _run(
        _put(0, QP, 5),
        _put(0, QP, 5),
        ("browse", {"c": 1, "queue": QP, "first": True}),
        _put(0, QP, 9),  # ahead of the cursor: BROWSE_NEXT does not see it
        ("browse", {"c": 1, "queue": QP, "first": False}),
        ("browse", {"c": 1, "queue": QP, "first": False}),  # 2033
        ("browse", {"c": 1, "queue": QP, "first": True}),
    )


def test_msgids_stay_unique_across_a_restart() -> None:
    _run(_put(0, QP, 0), ("crash_and_restart", {}), _put(0, QP, 0))
    # the first message is gone before the restart: its MsgId must not be generated again all the same
    _run(_put(0, QP, 0), _get(0, QP, "no syncpoint"), ("crash_and_restart", {}), _put(0, QP, 0))
