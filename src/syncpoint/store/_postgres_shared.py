"""PostgresSharedQueues: a queue-sharing group's shared store in PostgreSQL (``_shared.SharedQueues``).

Theory of operation
-------------------
The store is one class built of layers, each in a module of its own with its own theory of operation, from the
bottom up:

- ``_qsg_schema``: the tables (docs/queue-sharing-groups.md), their migrations at a member's start, and the
  layout of a message's row;
- ``_qsg_pool``: the member's pools of connections and group commit (one PostgreSQL commit for the durable
  verbs that come together);
- ``_qsg_member``: membership (crtmqm -qsg, dltmqm), the member's sessions and their loss, its liveness lock,
  peer recovery and the wake-ups between members (``_Session``);
- ``_qsg_counts``: the counts of uncommitted puts (CURDEPTH, MAXDEPTH) and a put's place in FIFO order;
- ``_qsg_verbs``: the MQI's verbs — definitions, put, get, browse, MQCMIT, MQBACK, input opens;
- ``_qsg_select``: what a selecting handle (MQOD SelectionString) reads: each row once, new ones by arrival;
- ``_qsg_expiry``: seed 002's expiry scan and the gets that meet an expired message;
- ``_qsg_indoubt``: two-phase commit with the member's private store, and RESOLVE INDOUBT;
- ``_qsg_subs``: the group's subscriptions (durable ones on shared queues, which every member publishes to).

Each layer is a class over the one below (``_Expiry`` over the session alone), so a layer calls what is below
it by ``self``; the session calls up only through two hooks a layer may extend (``_session_ended``,
``_forget_lost``) and the member's threads (``open``, ``_stop_threads``). Every verb is one short transaction,
never one held across verbs: a unit of work's gets are the ``owner, uow`` of their rows, so any member can back
out another's work.

The connection string may hold a password: it is kept in the object only and never put in a message.
"""

from __future__ import annotations

import time

from ._qsg_expiry import _Expiry
from ._qsg_indoubt import _InDoubt, nid
from ._qsg_member import channel, create_member, member_lock, remove_member
from ._qsg_select import _Selecting
from ._qsg_subs import _GroupSubs

__all__ = ["PostgresSharedQueues", "channel", "create_member", "member_lock", "nid", "remove_member"]


class PostgresSharedQueues(_Expiry, _Selecting, _InDoubt, _GroupSubs):
    """A member's connection to its group's shared store (see the module doc and those of its layers)."""

    def round_trip(self) -> float:
        """Seconds one statement takes to PostgreSQL and back on a connection of the member's pool (the
        metrics' ``syncpoint_group_round_trip_seconds``)."""
        t0 = time.perf_counter()
        with self._use(fast=True) as conn:
            conn.execute("SELECT 1").fetchone()
        return time.perf_counter() - t0
