"""The queue-manager side of the Spark integration, through syncpoint.client only.

Spark's Python workers are separate processes, so they connect with ``syncpoint.connect(qmgr, home=..., host=...)``
(the queue manager's server when it runs; ``host`` goes over TCP). Messages are addressed by MsgToken
(MQGMO version 3, MQMO_MATCH_MSG_TOKEN): the driver browses tokens without data and reserves each batch's
messages against other consumers and expiry; executors browse a partition's messages with their data, and the
sink gets the batch's messages under syncpoint — each of those a batch of tokens per request (``chunk``).

Implements: reference/spark.md (where code runs: executors use the remote client).
"""

from __future__ import annotations

import struct
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import syncpoint
from syncpoint.client import Queue, QueueManager, local_server
from syncpoint.mqi import MQGMO, MQMD, MQOD, GetResult, MQMIError, blank_strip
from syncpoint.mqi import constants as C
from syncpoint.mqi.properties import Props

from ._plan import Visible

_OK_READS = (C.MQRC_NONE, C.MQRC_TRUNCATED_MSG_ACCEPTED)
BROKEN = frozenset(
    {
        C.MQRC_CONNECTION_BROKEN,
        C.MQRC_Q_MGR_NOT_AVAILABLE,
        C.MQRC_Q_MGR_STOPPING,
        C.MQRC_Q_MGR_QUIESCING,
        C.MQRC_HCONN_ERROR,
        C.MQRC_CF_NOT_AVAILABLE,
        C.MQRC_BACKED_OUT,
    }
)
"""Reasons that mean the partition's unit of work is gone with its member (or backed out): its messages come back
on the queue (peer recovery), so the partition ends without doing anything more."""

CHUNK = 500  # MsgTokens per request


@dataclass(frozen=True, slots=True)
class Target:
    """Where the queue manager is: its name, and ``home`` / ``host`` as syncpoint.connect takes them.

    ``members``: the queue managers of a queue-sharing group a shared input queue is read through (option
    ``members``, "QMA,QMB"); ``host`` then names each one's connection in the same order ("h1(1414),h2(1414)"),
    or one connection for all of them. Empty: the stream reads through ``qmgr`` alone."""

    qmgr: str
    home: str | None = None
    host: str | None = None
    members: tuple[str, ...] = ()
    member_hosts: tuple[str, ...] = ()  # one connection per member, when ``host`` listed several
    server_only: bool = False  # a member: reached through its server only, never opened in this process

    @classmethod
    def from_options(cls, options: Mapping[str, str]) -> Target:
        opts = {k.lower(): v for k, v in options.items()}
        members = tuple(m.strip() for m in (opts.get("members") or "").split(",") if m.strip())
        qmgr = opts.get("qmgr") or opts.get("queuemanager") or (members[0] if members else None)
        if not qmgr:
            raise ValueError('the syncpoint data source needs option("qmgr", <queue manager name>)')
        host = opts.get("host") or None
        hosts: tuple[str, ...] = ()
        if members and host is not None and "," in host:
            hosts = tuple(h.strip() for h in host.split(","))
            if len(hosts) != len(members):
                raise ValueError(
                    f"option host names {len(hosts)} connections for {len(members)} members: give one per member "
                    "(in the order of option members) or one for all"
                )
            host = hosts[members.index(qmgr)] if qmgr in members else hosts[0]
        return cls(qmgr, opts.get("home") or None, host, members, hosts)

    def member_targets(self) -> list[Target]:
        """One target per member (each reads alone), in the order of option ``members``."""
        hosts: Sequence[str | None] = self.member_hosts or [self.host] * len(self.members)
        return [Target(m, self.home, h, server_only=True) for m, h in zip(self.members, hosts, strict=True)]

    def options(self) -> dict[str, str]:
        """This target as data-source options."""
        out = {"qmgr": self.qmgr}
        if self.home is not None:
            out["home"] = self.home
        if self.members:
            out["members"] = ",".join(self.members)
        if self.member_hosts:
            out["host"] = ",".join(self.member_hosts)
        elif self.host is not None:
            out["host"] = self.host
        return out

    def connect(self, appl_name: str = "syncpoint.spark") -> QueueManager:
        kw: dict[str, Any] = {"appl_name": appl_name}
        if self.home is not None:
            kw["home"] = self.home
        if self.host is not None:
            kw["host"] = self.host
        elif self.server_only:
            # a member is reached through its running server only: opening it inside a Spark worker when its
            # server is gone would make a second, short-lived member of the group there (and hold its store)
            info = local_server(self.qmgr, self.home)
            if info is None:
                raise MQMIError(
                    C.MQCC_FAILED, C.MQRC_Q_MGR_NOT_AVAILABLE, f"member {self.qmgr} of the group is not running here"
                )
            kw["unix_path"] = info["unix"]
        return syncpoint.connect(self.qmgr, **kw)

    def connection(self, appl_name: str = "syncpoint.spark") -> QueueManager:
        """A connection kept for the process (Spark reuses its Python workers from batch to batch, so a batch
        costs no connect): checked with one round trip, replaced when it broke (the server restarted). The caller
        leaves no unit of work open on it; :meth:`drop` it after an error."""
        key = (self, appl_name)
        qm = _kept.get(key)
        if qm is not None:
            ping = getattr(qm.transport, "ping", None)
            try:
                if getattr(qm.transport, "broken", None) is None and ping is not None:
                    ping()
                    return qm
            except MQMIError:
                pass
            self.drop(appl_name)
        qm = _kept[key] = self.connect(appl_name)
        return qm

    def drop(self, appl_name: str = "syncpoint.spark") -> None:
        """Forget (and disconnect) the kept connection."""
        qm = _kept.pop((self, appl_name), None)
        if qm is not None:
            try:
                qm.disconnect()
            except MQMIError:
                pass


_kept: dict[tuple[Target, str], QueueManager] = {}
_current: list[Target | None] = [None]


def current_member() -> Target | None:
    """The member of a queue-sharing group the partition running in this process reads a shared queue through
    (syncpoint.spark._member); None otherwise. A flow's node reads BOTHRESH there."""
    return _current[0]


def token_bytes(token: int) -> bytes:
    return struct.pack(">QQ", 0, token)


def token_of(gmo: MQGMO) -> int:
    return int(struct.unpack(">QQ", bytes(gmo.MsgToken))[1])


class QueueAccess:
    """Open handles on one queue for the Spark integration (browse for scanning, browse by token, input)."""

    def __init__(self, qm: QueueManager, queue: str) -> None:
        self.qm = qm
        self.queue = queue
        self._scan: int | None = None
        self._lookup: int | None = None
        self._input: int | None = None
        self._queue: Queue | None = None

    @property
    def q(self) -> Queue:
        """The queue through the client's API (its own browse and input handles): reservations, batches."""
        if self._queue is None:
            self._queue = self.qm.open(self.queue)
        return self._queue

    def _open(self, options: int) -> int:
        return self.qm.mqopen(MQOD(ObjectName=self.queue.encode()), options | C.MQOO_FAIL_IF_QUIESCING)

    def _get_or_none(self, h: int, md: MQMD, gmo: MQGMO, buflen: int | None) -> GetResult | None:
        """One MQGET; None when there is no such message (MQRC_NO_MSG_AVAILABLE, raised or returned)."""
        try:
            result = self.qm.transport.get(h, md, gmo, buflen)
        except MQMIError as e:
            if e.reason == C.MQRC_NO_MSG_AVAILABLE:
                return None
            raise
        return None if result.reason == C.MQRC_NO_MSG_AVAILABLE else result

    # -- browsing ---------------------------------------------------------------------------------------
    def _browse(self, h: int, options: int, token: int | None, with_data: bool) -> tuple[MQMD, MQGMO, bytes] | None:
        md = MQMD()
        gmo = MQGMO(Version=C.MQGMO_VERSION_3)
        gmo.Options = options | C.MQGMO_NO_WAIT | C.MQGMO_FAIL_IF_QUIESCING
        if not with_data:
            gmo.Options |= C.MQGMO_ACCEPT_TRUNCATED_MSG
        if token is not None:
            gmo.MatchOptions = C.MQMO_MATCH_MSG_TOKEN
            gmo.MsgToken = token_bytes(token)
        else:
            gmo.MatchOptions = C.MQMO_NONE
        result = self._get_or_none(h, md, gmo, None if with_data else 0)
        if result is None:
            return None
        if result.reason not in _OK_READS:
            raise MQMIError(result.comp, result.reason, f"browsing queue {self.queue}")
        return md, gmo, result.data

    def scan(self, *, from_start: bool, limit: int | None = None) -> Iterator[Visible]:
        """Browse the queue (from the start, or on from where the last scan ended) without data: at most
        ``limit`` messages, CHUNK browse-next per request over the network (the cursor moves by what is returned,
        so read the iterator to its end)."""
        if self._scan is None:
            self._scan = self._open(C.MQOO_BROWSE)
            from_start = True
        first = from_start
        left = limit
        browse_index = getattr(self.qm.transport, "browse_index", None)
        while browse_index is not None and (left is None or left > 0):  # one compact answer per message
            n = CHUNK if left is None else min(CHUNK, left)
            gmo = MQGMO(Version=C.MQGMO_VERSION_3, MatchOptions=C.MQMO_NONE)
            gmo.Options = (C.MQGMO_BROWSE_FIRST if first else C.MQGMO_BROWSE_NEXT) | C.MQGMO_NO_WAIT
            gmo.Options |= C.MQGMO_FAIL_IF_QUIESCING | C.MQGMO_ACCEPT_TRUNCATED_MSG
            got = browse_index(self._scan, MQMD(), gmo, n)
            if got is None:  # a server speaking an older protocol version: browses with their structures
                browse_index = None
                break
            seen, error = got
            for s in seen:
                yield Visible(*s)
            if error is not None:
                if error.reason == C.MQRC_NO_MSG_AVAILABLE:
                    return
                raise error
            if len(seen) < n:
                return
            first = False
            left = None if left is None else left - n
        if browse_index is not None:
            return
        get_many = getattr(self.qm.transport, "get_many", None)
        while left is None or left > 0:
            n = 1 if first or get_many is None else CHUNK if left is None else min(CHUNK, left)
            if n == 1:
                try:
                    got = self._browse(self._scan, C.MQGMO_BROWSE_FIRST if first else C.MQGMO_BROWSE_NEXT, None, False)
                except MQMIError as e:
                    if e.reason == C.MQRC_NO_MSG_AVAILABLE:
                        return
                    raise
                if got is None:
                    return
                first = False
                left = None if left is None else left - 1
                yield visible_of(got[0], token_of(got[1]))
                continue
            items = []
            for _ in range(n):
                gmo = MQGMO(Version=C.MQGMO_VERSION_3, MatchOptions=C.MQMO_NONE)
                gmo.Options = C.MQGMO_BROWSE_NEXT | C.MQGMO_NO_WAIT | C.MQGMO_FAIL_IF_QUIESCING
                gmo.Options |= C.MQGMO_ACCEPT_TRUNCATED_MSG
                items.append((MQMD(), gmo, 0))
            assert get_many is not None
            results = get_many(self._scan, items)
            for (md, gmo, _), r in zip(items, results, strict=False):
                if isinstance(r, MQMIError):
                    if r.reason == C.MQRC_NO_MSG_AVAILABLE:
                        return
                    raise r
                if r.reason not in _OK_READS:
                    raise MQMIError(r.comp, r.reason, f"browsing queue {self.queue}")
                yield visible_of(md, token_of(gmo))
            if len(results) < n:
                return
            left = None if left is None else left - n

    def lookup(self, token: int, *, with_data: bool = True) -> tuple[MQMD, bytes] | None:
        """The message with this token (browsed, left in place), or None when it is no longer on the queue."""
        if self._lookup is None:
            self._lookup = self._open(C.MQOO_BROWSE)
        got = self._browse(self._lookup, C.MQGMO_BROWSE_FIRST, token, with_data)
        if got is None:
            return None
        return got[0], got[2]

    # -- destructive get by token under syncpoint ------------------------------------------------------
    def get_token(self, token: int, *, syncpoint: bool = True) -> tuple[MQMD, bytes] | None:
        """Get (remove) the message with this token in the unit of work; None when it is gone."""
        if self._input is None:
            self._input = self._open(C.MQOO_INPUT_SHARED)
        md = MQMD()
        gmo = MQGMO(Version=C.MQGMO_VERSION_3)
        gmo.Options = (C.MQGMO_SYNCPOINT if syncpoint else C.MQGMO_NO_SYNCPOINT) | C.MQGMO_NO_WAIT
        gmo.Options |= C.MQGMO_FAIL_IF_QUIESCING
        gmo.MatchOptions = C.MQMO_MATCH_MSG_TOKEN
        gmo.MsgToken = token_bytes(token)
        result = self._get_or_none(self._input, md, gmo, None)
        if result is None:
            return None
        if result.reason != C.MQRC_NONE:
            raise MQMIError(result.comp, result.reason, f"getting a message from queue {self.queue}")
        return md, result.data

    # -- batches by token ------------------------------------------------------------------------------
    def lookup_many(
        self, tokens: list[int], *, with_data: bool = True
    ) -> list[tuple[MQMD, bytes, Props | None] | None]:
        """:meth:`lookup` for many tokens: one request per CHUNK tokens. Each message with its properties (as a
        message handle receives them: the data without an MQRFH2 of properties)."""
        return [
            None if m is None else (m.md, m.data, m.typed_properties)
            for m in self.q.browse_tokens(tokens, with_data=with_data, chunk=CHUNK)
        ]

    def get_many(self, tokens: list[int]) -> list[tuple[MQMD, bytes, Props | None] | None]:
        """:meth:`get_token` under syncpoint for many tokens: one request per CHUNK tokens (with properties, as
        :meth:`lookup_many`)."""
        return [
            None if m is None else (m.md, m.data, m.typed_properties)
            for m in self.q.get_tokens(tokens, syncpoint=True, chunk=CHUNK)
        ]

    def reserve(self, tokens: list[int]) -> list[int]:
        """Reserve these messages for this connection (the driver's): the tokens the queue manager reserved."""
        return self.q.reserve(tokens)

    def release(self, tokens: list[int]) -> list[int]:
        return self.q.release(tokens)

    # -- attributes ------------------------------------------------------------------------------------
    def attributes(self) -> tuple[int | None, str]:
        """(BOTHRESH, BOQNAME) of the queue; BOTHRESH None when it cannot be read (the node then uses 1)."""
        got = self._inquire([C.MQIA_BACKOUT_THRESHOLD, C.MQCA_BACKOUT_REQ_Q_NAME])
        return (None, "") if got is None else (int(got[0][0]), blank_strip(got[1][0]))

    def fifo(self) -> bool:
        """The queue delivers (and browses) in put order, MSGDLVSQ(FIFO): its browse order is MsgToken order.
        False when the attribute cannot be read."""
        got = self._inquire([C.MQIA_MSG_DELIVERY_SEQUENCE])
        return got is not None and int(got[0][0]) == C.MQMDS_FIFO

    def _inquire(self, selectors: list[int]) -> tuple[Any, Any] | None:
        """MQINQ of the queue on a handle of its own: (integer values, character values); None when it fails."""
        try:
            h = self._open(C.MQOO_INQUIRE)
        except MQMIError:
            return None
        try:
            return self.qm.mqinq(h, selectors)
        except MQMIError:
            return None
        finally:
            self.qm.mqclose(h)

    def close(self) -> None:
        for h in (self._scan, self._lookup, self._input):
            if h is not None:
                try:
                    self.qm.mqclose(h)
                except MQMIError:
                    pass
        self._scan = self._lookup = self._input = None
        if self._queue is not None:
            try:
                self._queue.close()
            except MQMIError:
                pass
            self._queue = None


MODEL_QUEUE = "SYSTEM.DEFAULT.MODEL.QUEUE"


def next_token(qm: QueueManager) -> int | None:
    """The MsgToken (the queue manager's put sequence, one for all its queues) of a message put now: every
    message put before it has a smaller one. A non-persistent message is put on a temporary dynamic queue and
    got back, and the queue deleted: a few requests, however deep the queues. None when that cannot be done."""
    from syncpoint.mqi import MQPMO

    try:
        od = MQOD(ObjectName=MODEL_QUEUE.encode(), DynamicQName=b"SYNCPOINT.SPARK.*")
        h = qm.mqopen(od, C.MQOO_OUTPUT | C.MQOO_INPUT_EXCLUSIVE | C.MQOO_FAIL_IF_QUIESCING)
    except MQMIError:
        return None
    try:
        md = MQMD(Persistence=C.MQPER_NOT_PERSISTENT)
        qm.mqput(h, md, MQPMO(Options=C.MQPMO_NO_SYNCPOINT | C.MQPMO_FAIL_IF_QUIESCING), b"")
        gmo = MQGMO(Version=C.MQGMO_VERSION_3, MatchOptions=C.MQMO_NONE)
        gmo.Options = C.MQGMO_NO_SYNCPOINT | C.MQGMO_NO_WAIT | C.MQGMO_FAIL_IF_QUIESCING
        result = qm.transport.get(h, MQMD(), gmo, None)
        if result.reason != C.MQRC_NONE:
            return None
        return token_of(gmo)
    except MQMIError:
        return None
    finally:
        try:
            qm.mqclose(h)
        except MQMIError:
            pass


def max_uncommitted(qm: QueueManager) -> int | None:
    """The queue manager's MAXUMSGS (messages one unit of work may hold), None when it cannot be inquired."""
    try:
        h = qm.mqopen(MQOD(ObjectType=C.MQOT_Q_MGR), C.MQOO_INQUIRE)
    except MQMIError:
        return None
    try:
        ints, _ = qm.mqinq(h, [C.MQIA_MAX_UNCOMMITTED_MSGS])
        return int(ints[0])
    except MQMIError:
        return None
    finally:
        qm.mqclose(h)


def batch_bound(max_messages: int, maxumsgs: int | None) -> int:
    """The most messages a batch plans: ``maxMessagesPerBatch``, and within MAXUMSGS for the batch's unit of work
    (a get and one output each, plus the commit record's get and put)."""
    if maxumsgs is None or maxumsgs <= 0:
        return max_messages
    return max(1, min(max_messages, (maxumsgs - 2) // 2))


def visible_of(md: MQMD, token: int) -> Visible:
    return Visible(
        token, int(md.BackoutCount), bytes(md.GroupId), int(md.MsgSeqNumber), int(md.MsgFlags), int(md.Priority)
    )
