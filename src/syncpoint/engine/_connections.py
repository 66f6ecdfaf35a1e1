"""Connections and units of work: MQCONN, MQDISC, MQCMIT, MQBACK.

References: constants.md (MQRC_HCONN_ERROR, MQRC_Q_MGR_QUIESCING); seed 000 for MQBACK and MARK_SKIP_BACKOUT
(``_skip_backout``); seed 001, condition 10's note, for the trigger messages a unit of work holds until it ends.

Theory of operation
-------------------
A connection's unit of work begins with its first put or get in syncpoint and holds those messages out of their
queues' indexes (``_state``). MQCMIT makes the puts available (and durable if persistent) and the gets gone;
MQBACK reinstates the gets in their original places with BackoutCount + 1 and forgets the puts. The store sees a
commit in the same batch as everything else the call did (``_effects``).

Choices where IBM's documentation is silent or platform-specific (Linux behaviour is taken):

* MQDISC commits the unit of work; an abnormal end (a broken connection, a process that ends without MQDISC)
  backs it out — and does not honour a MARK_SKIP_BACKOUT mark, which only an application's MQBACK does.
* The engine reads nothing of the operating system: the host passes the connecting process's user name and
  process id (``connect(user=..., pid=...)``); they show in the MQMD's UserIdentifier and DISPLAY CONN / QSTATUS.
"""

from __future__ import annotations

from syncpoint.mqi import constants as C
from syncpoint.store import Batch

from ._base import QueueManagerBase
from ._skip_backout import carry_into_new_unit_of_work, skipping_backout
from ._state import GONE, GOT_PENDING, PUT_PENDING, Connection, Message, UnitOfWork
from ._util import fail


class ConnectionsMixin(QueueManagerBase):
    """MQCONN, MQDISC, MQCMIT, MQBACK."""

    def connect(self, appl_name: str = "", appl_type: int = C.MQAT_UNIX, user: str = "", pid: int = 0) -> Connection:
        """MQCONN. ``user`` (at most 12 characters count) and ``pid`` are the host's to give; blank and 0 if not."""
        if self.quiescing:
            raise fail(C.MQRC_Q_MGR_QUIESCING, f"queue manager {self.name} is ending")
        self._authorize_connect(user)  # connect on the queue manager (``_authority``)
        hconn = self._next_hconn
        self._next_hconn += 1
        conn = Connection(hconn, appl_name or "syncpoint", appl_type, user, pid)
        self.connections[hconn] = conn
        self.stat_conns += 1
        if len(self.connections) > self.stat_conns_hwm:
            self.stat_conns_hwm = len(self.connections)
        if self.monitoring_on:
            self.mon_connected(conn)  # statistics and accounting (``_statistics``)
        return conn

    def disconnect(self, conn: Connection, abnormal: bool = False) -> None:
        """MQDISC: a normal end commits the unit of work; an abnormal end backs it out (no skip-backout)."""
        if not conn.alive:
            return
        if conn.uow is not None or conn.hconn in self._shared_uows:  # a unit of work, private or shared
            if abnormal:
                self._backout(conn, honour_mark=False)
            else:
                self._commit(conn)
        for h in list(conn.handles.values()):
            self._close(h, C.MQCO_NONE, implicit=True)
        if conn.reserved:
            self._release(conn, list(conn.reserved), None)
        conn.alive = False
        self.connections.pop(conn.hconn, None)
        if self.monitoring_on:
            self.mon_disconnected(conn, abnormal)  # the connection's accounting (``_statistics``)

    # -- MQCMIT / MQBACK ------------------------------------------------------------------------------
    def commit(self, conn: Connection) -> None:
        self._check_conn(conn)
        self._commit(conn)
        self.stat_commits += 1
        if self.monitoring_on:
            self.mon_count(conn, "commits")

    def _ending(self, conn: Connection, commit: bool) -> UnitOfWork | None:
        """The first step of MQCMIT and MQBACK alike: the unit of work's shared part ended (queue-sharing groups,
        ``_shared``), and its private part taken from the connection (None: it has none)."""
        if self._shared_uows:
            self._shared_end(conn, commit=commit)
        if self._retained_pending:
            self._end_retained(conn, commit)  # retained publications set in the unit of work (``_pubsub``)
        uow = conn.uow
        conn.uow = None
        return uow

    def _commit(self, conn: Connection) -> None:
        uow = self._ending(conn, commit=True)
        if uow is None:
            return
        b: Batch | None = None
        puts = uow.puts
        if len(puts) > 1:  # persistent first: the others then wait for the same sync (the unit of work is whole)
            puts = sorted(puts, key=_not_persistent)
        for m in puts:
            q = m.queue
            q.uncommitted -= 1
            if not q.deleted and m.state == PUT_PENDING:
                self._make_visible(m)
        for m in uow.gets:
            m.queue.uncommitted -= 1
            if m.state != GOT_PENDING:
                continue
            m.state = GONE
            if m.persistent:
                if b is None:
                    b = self._b()
                b.delete_messages.append(m.seq)
                b.durable = True
        if uow.triggers:
            self.triggering.unit_of_work_ended(uow.triggers, committed=True)

    def backout(self, conn: Connection) -> None:
        """MQBACK: an application-requested backout, which honours MQGMO_MARK_SKIP_BACKOUT (seed 000)."""
        self._check_conn(conn)
        carried = self._shared_skip_backout(conn) if self._shared_uows else None  # seed 000 on a shared queue
        self._backout(conn, honour_mark=True)
        self.stat_backouts += 1
        if self.monitoring_on:
            self.mon_count(conn, "backouts")
        if carried is not None:
            self._shared_uows[conn.hconn] = carried

    def _backout(self, conn: Connection, honour_mark: bool) -> None:
        uow = self._ending(conn, commit=False)
        if uow is None:
            return
        marked = skipping_backout(uow, honour_mark)
        for m in uow.puts:
            q = m.queue
            q.uncommitted -= 1
            if m.state == PUT_PENDING:
                m.state = GONE
                q.depth -= 1
        for m in uow.gets:
            if m is marked:
                continue
            q = m.queue
            q.uncommitted -= 1
            if m.state != GOT_PENDING or q.deleted:
                continue
            m.backout += 1
            q.make_available(m)
            q.depth += 1
            self._wake.add(q.name)
            if m.persistent:
                b = self._b()
                b.backout_updates.append((m.seq, m.backout))
                b.inflight_remove.append(m.seq)
        if marked is not None:
            carry_into_new_unit_of_work(conn, marked, self.clock.time())  # seed 000, step 7
        if uow.triggers:
            self.triggering.unit_of_work_ended(uow.triggers, committed=False)


def _not_persistent(m: Message) -> bool:
    return not m.persistent
