"""MsgTokens: reservations and batches of gets by token (not MQI verbs: syncpoint's own, for Spark's in-flight
batches).

References: spark.md ("What existing queue-to-Spark connectors get wrong": "browse deterministically by a
per-queue sequence number, keep the batch's messages reserved, and do the destructive gets … in ONE
queue-manager unit of work at the sink's commit"); structures.md (MQGMO version 3+, MsgToken);
docs/protocol.md (``reserve``, ``release``, gets by token); seed 002 for the one change to expiry (a reserved
message is never discarded while reserved).

Theory of operation
-------------------
A message's MsgToken is 0 and its put sequence (two big-endian 64-bit numbers), returned by every get and browse
with an MQGMO of version 3 or more. A reservation holds messages for one connection without taking them off the
queue, so a Spark micro-batch planned on the driver is read again, by token, at the sink's commit; ``get_tokens``
is that many gets matching one MsgToken each, in one call (one round trip for the remote client).
"""

from __future__ import annotations

import struct
from collections.abc import Iterable, Sequence
from typing import Any

from syncpoint.mqi import MQGMO, MQMD, GetResult, MQMIError
from syncpoint.mqi import constants as C
from syncpoint.mqi.constants import MQEI_UNLIMITED

from ._base import QueueManagerBase
from ._options import RARE_GET_OPTS, SYNC_GET_OPTS
from ._state import AVAILABLE, GONE, INPUT_OPTS, Connection, Handle, LocalQueue
from ._util import fail

_TOKEN = struct.Struct(">QQ")  # MsgToken: 0 and the put sequence
MQRC_TRUNCATED_MSG_FAILED = C.MQRC_TRUNCATED_MSG_FAILED
ANSWER_ROOM = 1024
"""What one answer of a get by token takes in a reply beyond its data (MQMD, numbers, msgpack's headers), at most."""


class TokensMixin(QueueManagerBase):
    """Reservations by MsgToken, and gets by MsgToken."""

    def reserve(self, conn: Connection, hobj: Handle | int, tokens: Sequence[int]) -> list[int]:
        """Reserve the queue's messages with these MsgTokens for this connection; returns the tokens reserved.

        While reserved, a message stays on the queue (CURDEPTH and triggering count it) but an MQGET or browse
        by another connection skips it unless it names it by MQMO_MATCH_MSG_TOKEN, and neither the expiry scan
        nor a get discards it when its expiry passes (it is delivered with Expiry 1). A reservation ends with
        :meth:`release`, when the message is removed (a committed get), and when the connection ends, normally
        or not; it is kept in memory only, so a restart forgets it. A backed-out get of a reserved message
        leaves it reserved. Not reserved (and not an error): a token not on the queue, a message reserved by
        another connection, one got in a unit of work that has not ended, one locked by another connection's
        browse. The handle must be open for browse or input (else MQRC_NOT_OPEN_FOR_BROWSE).
        """
        h = self._handle(conn, hobj)
        q = self._reserving_queue(h)
        out: list[int] = []
        for t in dict.fromkeys(_tokens(tokens)):
            m = q.by_token(t)
            if m is None:  # gone, or held by a unit of work: ours only if we reserved it before
                mine = conn.reserved.get(t)
                if mine is not None and mine.queue is q and mine.reserved_by is conn and mine.state != GONE:
                    out.append(t)
                continue
            if m.reserved_by is not None and m.reserved_by is not conn:
                continue
            if m.locked_by is not None and m.locked_by.conn is not conn:
                continue
            m.reserved_by = conn
            conn.reserved[t] = m
            out.append(t)
        return out

    def release(self, conn: Connection, hobj: Handle | int, tokens: Sequence[int] | None = None) -> list[int]:
        """End this connection's reservations of the queue's messages with these tokens (None: all of them);
        returns the tokens released (those still on the queue or in a unit of work). Waiting gets are woken."""
        h = self._handle(conn, hobj)
        q = self._reserving_queue(h)
        return self._release(conn, _tokens(tokens) if tokens is not None else list(conn.reserved), q)

    def _release(self, conn: Connection, tokens: Iterable[int], q: LocalQueue | None) -> list[int]:
        out: list[int] = []
        for t in tokens:
            m = conn.reserved.get(t)
            if m is None or (q is not None and m.queue is not q):
                continue
            del conn.reserved[t]
            if m.reserved_by is not conn:
                continue
            m.reserved_by = None
            if m.state == GONE:
                continue
            out.append(t)
            if m.state == AVAILABLE:
                m.queue.track_expiry(m)
                self._wake.add(m.queue.name)
        return out

    @staticmethod
    def _reserving_queue(h: Handle) -> LocalQueue:
        q = h.queue
        if q is None or not h.options & (C.MQOO_BROWSE | INPUT_OPTS):
            raise fail(C.MQRC_NOT_OPEN_FOR_BROWSE, f"{h.name} is not a queue open for browse or input")
        if q.shared:  # a reservation lives in one member's memory: the other members could not honour it
            raise fail(
                C.MQRC_ENVIRONMENT_ERROR,
                f"{h.name} is a shared queue: MsgToken reservations are kept for private queues only "
                "(Spark reads a shared queue through its members: docs/spark.md)",
            )
        return q

    def get_tokens(
        self,
        conn: Connection,
        hobj: Handle | int,
        tokens: Sequence[int],
        gmo: MQGMO,
        buflen: int | None = None,
        budget: int | None = None,
    ) -> tuple[list[tuple[MQMD, GetResult] | None], MQMIError | None]:
        """One MQGET (a browse with MQGMO_BROWSE_FIRST) per token, in the order given, each with a copy of
        ``gmo`` matching only that MsgToken (MQGMO version 3) and a fresh MQMD: the same as that many gets.
        None where no message has the token (gone). Ends at the first other failure, which is returned after
        the results before it. MQGMO_WAIT is MQRC_OPTIONS_ERROR: a batch by token does not wait.

        ``budget`` (with ``buflen`` None: a buffer as large as each message): the bytes the answers may take, a
        message's data and :data:`ANSWER_ROOM` each; the gets end, without an error, before a message that would
        not fit (it stays where it was, as a get that fails with MQRC_TRUNCATED_MSG_FAILED leaves it), so fewer
        results than tokens and no error means: ask again for the rest. The server's reply frame is the budget."""
        h = self._handle(conn, hobj)
        toks = _tokens(tokens)
        if gmo.Options & C.MQGMO_WAIT:
            raise fail(C.MQRC_OPTIONS_ERROR, "a get by MsgTokens does not wait: leave out MQGMO_WAIT")
        browse = gmo.Options & (C.MQGMO_BROWSE_FIRST | C.MQGMO_BROWSE_NEXT | C.MQGMO_BROWSE_MSG_UNDER_CURSOR)
        if browse and not h.options & C.MQOO_BROWSE:
            raise fail(C.MQRC_NOT_OPEN_FOR_BROWSE, f"queue {h.name} is not open for browse")
        if not browse and not h.is_input:
            raise fail(C.MQRC_NOT_OPEN_FOR_INPUT, f"queue {h.name} is not open for input")
        out: list[tuple[MQMD, GetResult] | None] = []
        # one MQGMO for every get: a get changes only its output fields, and each get sets its MsgToken
        g = gmo.copy()
        g.Version = max(g.Version, C.MQGMO_VERSION_3)
        g.MatchOptions = C.MQMO_MATCH_MSG_TOKEN
        if budget is not None and buflen is None:
            g.Options &= ~C.MQGMO_ACCEPT_TRUNCATED_MSG  # nothing is truncated without a buffer length anyway
        get = self.get
        pack = _TOKEN.pack
        fast = False  # after a first get has checked the call: the next messages found by token directly
        q = h.queue
        opts = g.Options
        sync = opts & SYNC_GET_OPTS
        for t in toks:
            md = MQMD()
            g.MsgToken = pack(0, t)
            room = None
            if budget is not None and buflen is None:
                room = budget - ANSWER_ROOM
                if room < 0:
                    break
            try:
                if fast:  # as MQGET's search by MsgToken (``_find``), without checking the call again
                    assert q is not None
                    m = q.by_token(t)
                    now = self.clock.time()
                    if m is None or (m.locked_by is not None and m.locked_by is not h):
                        out.append(None)
                        continue
                    if m.expiry != MQEI_UNLIMITED and m.reserved_by is None and m.expired(now):
                        self._discard_expired(m)  # the get that would have returned it discards it (seed 002)
                        out.append(None)
                        continue
                    result = self._deliver_found(
                        conn, h, q, m, md, g, buflen if room is None else room, opts, 0, sync, now
                    )
                else:
                    result = get(conn, h, md, g, buflen if room is None else room)
                    fast = q is not None and not q.shared and not opts & RARE_GET_OPTS
            except MQMIError as e:
                if e.reason == C.MQRC_NO_MSG_AVAILABLE:
                    out.append(None)
                    continue
                return out, e
            if room is not None:
                if result.reason == MQRC_TRUNCATED_MSG_FAILED and result.data_length > room:
                    break  # the message stays: the caller asks again
                budget -= len(result.data) + ANSWER_ROOM  # type: ignore[operator]
            out.append((md, result))
        return out, None


def _tokens(tokens: Any) -> list[int]:
    """MsgTokens as the reservation and by-token verbs take them: a list of put sequence numbers."""
    if not isinstance(tokens, (list, tuple)) or not all(
        isinstance(t, int) and not isinstance(t, bool) and 0 <= t < 1 << 64 for t in tokens
    ):
        raise fail(C.MQRC_MSG_TOKEN_ERROR, "MsgTokens must be a list of whole numbers from 0 to 2**64 - 1")
    return list(tokens)
