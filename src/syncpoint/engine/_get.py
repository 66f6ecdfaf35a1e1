"""Getting messages: MQGET — destructive gets, browses, the browse cursor and its lock.

References: constants.md ("MQGMO_* get-message options", "MQMO_* match options", the MQRC_* of MQGET);
structures.md (MQGMO version 4: MsgToken, ReturnedLength; MQMD version 2); seed 002 (a get that would have returned
an expired message discards it; the remaining Expiry a get shows; notes 6 and 9);
seed 000 (a get marked MQGMO_MARK_SKIP_BACKOUT, ``_skip_backout``). Waiting (MQGMO_WAIT) is the host's: the
engine answers MQRC_NO_MSG_AVAILABLE at once and wakes waiters through its effects (``_effects``).

Theory of operation
-------------------
A get finds the first available message in delivery order that its handle may see (not locked by another
handle's browse, not reserved by another connection — ``_tokens``) and that matches; expired messages met on the
way are discarded (``_expiry``). It fills the caller's MQMD and MQGMO, cuts the data to the buffer, and then either
positions the browse cursor (a browse) or takes the message off its queue: for good outside syncpoint, into the
connection's unit of work inside it (and, for a persistent message, *marked in flight* in the store, so that a
crash backs the get out and counts it in BackoutCount, as IBM MQ does with HARDENBO).

This is a hot path (issues 2 and 9: per-message CPU). The rare options (browse, cursor, lock, unlock, mark,
unknown bits) are checked only when given (``_options.check_get_options``); a get without match options walks
the index without building match criteria (:meth:`GetMixin._first`).
"""

from __future__ import annotations

import struct
from typing import Any

from syncpoint.mqi import MQGMO, MQMD, GetResult, MQMIError
from syncpoint.mqi import constants as C
from syncpoint.mqi.constants import (  # the ones MQGET tests on every call, without the C. lookup
    MQEI_UNLIMITED,
    MQFMT_RF_HEADER_2,
    MQFMT_XMIT_Q_HEADER,
    MQGMO_SYNCPOINT,
    MQGMO_SYNCPOINT_IF_PERSISTENT,
    MQGMO_WAIT,
    MQOO_SAVE_ALL_CONTEXT,
    MQQA_GET_INHIBITED,
    MQRO_COD,
)

from ._base import QueueManagerBase
from ._expiry import xqh_decremented
from ._options import RARE_GET_OPTS, SYNC_GET_OPTS, check_get_options
from ._properties import PROPS_GET_OPTS, check_props_get_options, present
from ._put import CONTEXT_IDENTITY, CONTEXT_ORIGIN
from ._select import candidates, chooses
from ._skip_backout import second_mark_not_allowed
from ._state import AVAILABLE, GONE, GOT_PENDING, INPUT_OPTS, Connection, Handle, LocalQueue, Message
from ._util import fail

_WARNING = C.MQCC_WARNING
_NONE24 = b"\0" * 24
_ID_MATCH = C.MQMO_MATCH_MSG_ID | C.MQMO_MATCH_CORREL_ID  # a version-1 MQGMO's match options
_OTHER_MATCH = ~_ID_MATCH  # the match options a get without anything to match must not have
_TOKEN = struct.Struct(">QQ")  # MsgToken: 0 and the put sequence
_BROWSE_ON = C.MQGMO_BROWSE_FIRST | C.MQGMO_BROWSE_NEXT
_NOT_INDEX = C.MQGMO_LOCK | C.MQGMO_UNLOCK | C.MQGMO_BROWSE_MSG_UNDER_CURSOR | C.MQGMO_MSG_UNDER_CURSOR | C.MQGMO_WAIT
# the options of a browse whose next messages an index browse may walk to without an MQGET each
_WALK_OPTS = (
    _BROWSE_ON
    | C.MQGMO_ACCEPT_TRUNCATED_MSG
    | C.MQGMO_FAIL_IF_QUIESCING
    | C.MQGMO_NO_SYNCPOINT
    | C.MQGMO_CONVERT
    | C.MQGMO_NO_PROPERTIES
    | C.MQGMO_PROPERTIES_COMPATIBILITY
    | C.MQGMO_PROPERTIES_FORCE_MQRFH2
    | C.MQGMO_PROPERTIES_IN_HANDLE
)

Seen = tuple[int, int, bytes, int, int, int]
"""What an index browse answers for a message: (MsgToken's put sequence, BackoutCount, GroupId, MsgSeqNumber,
MsgFlags, Priority)."""


def seen_of(md: MQMD, gmo: MQGMO) -> Seen:
    """An index browse's answer from a browse's MQMD and (version 3 or more) MQGMO."""
    d = md.__dict__
    return (
        _TOKEN.unpack(gmo.MsgToken)[1],
        d["BackoutCount"],
        d["GroupId"],
        d["MsgSeqNumber"],
        d["MsgFlags"],
        d["Priority"],
    )


def match_criteria(md: MQMD, gmo: MQGMO) -> tuple[bytes | None, bytes | None, bytes | None, int | None, int | None]:
    """What a get selects by: (MsgId, CorrelId, GroupId, MsgSeqNumber, MsgToken's put sequence), None for each
    the match options leave out (constants.md, "MQMO_* match options"); MQRC_MATCH_OPTIONS_ERROR for options
    this MQMD / MQGMO version cannot carry, and for MQMO_MATCH_OFFSET (segments are not supported). Private and
    shared queues alike."""
    mo = gmo.MatchOptions if gmo.Version >= 2 else _ID_MATCH
    msgid = md.MsgId if mo & C.MQMO_MATCH_MSG_ID and md.MsgId != _NONE24 else None
    correlid = md.CorrelId if mo & C.MQMO_MATCH_CORREL_ID and md.CorrelId != _NONE24 else None
    groupid = None
    seqno = None
    if md.Version >= 2:
        if mo & C.MQMO_MATCH_GROUP_ID and md.GroupId != _NONE24:
            groupid = md.GroupId
        if mo & C.MQMO_MATCH_MSG_SEQ_NUMBER:
            seqno = md.MsgSeqNumber
    elif mo & (C.MQMO_MATCH_GROUP_ID | C.MQMO_MATCH_MSG_SEQ_NUMBER):
        raise fail(C.MQRC_MATCH_OPTIONS_ERROR, "group match options need a version-2 MQMD")
    token = None
    if mo & C.MQMO_MATCH_MSG_TOKEN:
        if gmo.Version < 3:
            raise fail(C.MQRC_MATCH_OPTIONS_ERROR, "MQMO_MATCH_MSG_TOKEN needs a version-3 MQGMO")
        token = struct.unpack(">QQ", gmo.MsgToken)[1]
    if mo & C.MQMO_MATCH_OFFSET:
        raise fail(C.MQRC_MATCH_OPTIONS_ERROR, "segmented messages are not supported")
    return msgid, correlid, groupid, seqno, token


def deliver(q: LocalQueue, m: Message, md: MQMD, gmo: MQGMO, buflen: int | None, opts: int, now: float) -> GetResult:
    """Fill the caller's MQMD and MQGMO from message ``m`` and cut its data to the buffer: the result, with
    MQRC_TRUNCATED_MSG_FAILED (the message stays) or _ACCEPTED as IBM's. Private and shared queues alike."""
    d = md.__dict__
    version = d["Version"]
    d.update(m.md)
    d["Version"] = version
    d["BackoutCount"] = m.backout
    if m.expiry == MQEI_UNLIMITED:
        d["Expiry"] = MQEI_UNLIMITED
    else:
        # the last tenth, or a reserved message delivered past its expiry, shows 1
        d["Expiry"] = max(1, m.remaining_expiry(now))
    gversion = gmo.Version
    if gversion >= 2:
        if gversion >= 3:
            gmo.MsgToken = _TOKEN.pack(0, m.seq)
        gmo.GroupStatus = b" "
        gmo.SegmentStatus = b" "
        gmo.Segmentation = b" "
    gmo.ResolvedQName = q.name48
    body = m.data
    fmt = d["Format"]
    if fmt == MQFMT_XMIT_Q_HEADER:
        body = xqh_decremented(m, now)
    elif m.props is not None or fmt == MQFMT_RF_HEADER_2:
        return _deliver_properties(q, m, d, gmo, buflen, opts)
    total = len(body)
    if gversion >= 3:
        gmo.ReturnedLength = total if buflen is None else min(total, buflen)
    if buflen is not None and total > buflen:
        if not opts & C.MQGMO_ACCEPT_TRUNCATED_MSG:
            return GetResult(body[:buflen], total, _WARNING, C.MQRC_TRUNCATED_MSG_FAILED)
        return GetResult(body[:buflen], total, _WARNING, C.MQRC_TRUNCATED_MSG_ACCEPTED)
    return GetResult(body, total)


def _deliver_properties(
    q: LocalQueue, m: Message, d: dict[str, Any], gmo: MQGMO, buflen: int | None, opts: int
) -> GetResult:
    """:func:`deliver`'s end for a message with properties or an MQRFH2: the form they are delivered in (a
    handle, an MQRFH2, none: ``_properties``), then the buffer as for any message."""
    body, props, warning = present(m.props, d, m.data, opts, gmo, q.attrs)
    total = len(body)
    if gmo.Version >= 3:
        gmo.ReturnedLength = total if buflen is None else min(total, buflen)
    if buflen is not None and total > buflen:
        reason = C.MQRC_TRUNCATED_MSG_ACCEPTED if opts & C.MQGMO_ACCEPT_TRUNCATED_MSG else C.MQRC_TRUNCATED_MSG_FAILED
        return GetResult(body[:buflen], total, _WARNING, reason, props)
    return GetResult(body, total, _WARNING if warning else C.MQCC_OK, warning or C.MQRC_NONE, props)


def _matches_nothing(md: MQMD, gmo: MQGMO) -> bool:
    """True when a get with these structures selects no message by its fields (as :meth:`GetMixin._find` decides
    before it walks without match criteria)."""
    mo = gmo.MatchOptions if gmo.Version >= 2 else _ID_MATCH
    return (
        not mo & _OTHER_MATCH
        and not (mo & C.MQMO_MATCH_MSG_ID and md.MsgId != _NONE24)
        and not (mo & C.MQMO_MATCH_CORREL_ID and md.CorrelId != _NONE24)
    )


_SEEN, _PASSED, _EXPIRED = "seen", "passed", "expired"


def _seen_by(m: Message, h: Handle, conn: Connection, now: float) -> str:
    """What a get or browse of handle ``h`` without match criteria makes of message ``m`` on its walk: _PASSED
    (locked by another handle, or reserved by another connection: reached only by its MsgToken), _EXPIRED (to be
    discarded, its report sent) or _SEEN (this is the message)."""
    locked = m.locked_by
    if locked is not None and locked is not h:
        return _PASSED
    reserved = m.reserved_by
    if reserved is not None and reserved is not conn:
        return _PASSED
    if m.expiry != MQEI_UNLIMITED and reserved is None and m.expired(now):
        return _EXPIRED
    return _SEEN


class GetMixin(QueueManagerBase):
    """MQGET."""

    def get(self, conn: Connection, hobj: Handle | int, md: MQMD, gmo: MQGMO, buflen: int | None = None) -> GetResult:
        """MQGET without waiting. Raises MQRC_NO_MSG_AVAILABLE when nothing matches; the caller waits.

        ``buflen`` None means a buffer as large as the message.
        """
        h = self._handle(conn, hobj)
        q = h.queue
        if md.StrucId != b"MD  " or md.Version not in (1, 2):
            raise fail(C.MQRC_MD_ERROR, "the message descriptor is not a valid MQMD")
        if gmo.StrucId != b"GMO " or gmo.Version not in (1, 2, 3, 4):
            raise fail(C.MQRC_GMO_ERROR, "the get-message options are not a valid MQGMO")
        opts = gmo.Options
        sync = opts & SYNC_GET_OPTS
        # the options beyond the plain ones (browse, cursor, lock, mark, unknown bits) are checked only when given
        rare = opts & RARE_GET_OPTS
        if rare:
            browse, cursor_opts = check_get_options(opts, sync)
        else:
            if sync & (sync - 1):
                raise fail(C.MQRC_OPTIONS_ERROR, "only one of MQGMO_SYNCPOINT, _NO_SYNCPOINT, _SYNCPOINT_IF_PERSISTENT")
            browse = cursor_opts = 0
        if opts & PROPS_GET_OPTS:
            check_props_get_options(opts, gmo)
        if opts & MQGMO_WAIT and gmo.WaitInterval < C.MQWI_UNLIMITED:
            raise fail(C.MQRC_WAIT_INTERVAL_ERROR, f"WaitInterval {gmo.WaitInterval} is not valid")
        if buflen is not None and buflen < 0:
            raise fail(C.MQRC_BUFFER_LENGTH_ERROR, "the buffer length is negative")
        if q is None:
            raise fail(C.MQRC_NOT_OPEN_FOR_INPUT, f"{h.name} is not a queue")
        if cursor_opts:
            if not h.options & C.MQOO_BROWSE:
                raise fail(C.MQRC_NOT_OPEN_FOR_BROWSE, f"queue {h.name} is not open for browse")
            if opts & C.MQGMO_MSG_UNDER_CURSOR and not h.is_input:
                raise fail(C.MQRC_NOT_OPEN_FOR_INPUT, f"queue {h.name} is not open for input")
        elif rare and opts & C.MQGMO_UNLOCK:
            if not h.options & C.MQOO_BROWSE:
                raise fail(C.MQRC_NOT_OPEN_FOR_BROWSE, f"queue {h.name} is not open for browse")
            if h.locked is None:
                return GetResult(b"", 0, _WARNING, C.MQRC_NO_MSG_LOCKED)
            if q.shared:
                self._shared_unlock(h)  # the lock is the group's (``_shared``)
            h.locked.locked_by = None
            h.locked = None
            self._wake.add(q.name)
            return GetResult(b"", 0)
        elif not h.options & INPUT_OPTS:
            raise fail(C.MQRC_NOT_OPEN_FOR_INPUT, f"queue {h.name} is not open for input")
        if self.quiescing and opts & C.MQGMO_FAIL_IF_QUIESCING:
            raise fail(C.MQRC_Q_MGR_QUIESCING, f"queue manager {self.name} is ending")
        qattrs = q.attrs
        if qattrs["GET"] == MQQA_GET_INHIBITED or (h.alias is not None and h.alias.attrs["GET"] == MQQA_GET_INHIBITED):
            self.inhibited(C.MQRC_GET_INHIBITED, h.name, conn)  # INHIBTEV's event (``_events``)
            raise fail(C.MQRC_GET_INHIBITED, f"gets are inhibited for queue {h.name}")
        uow = conn.uow
        if rare and opts & C.MQGMO_MARK_SKIP_BACKOUT and uow is not None and uow.marked is not None:
            raise second_mark_not_allowed()  # seed 000
        now = self.clock.time()
        if q.shared:  # a queue-sharing group's shared queue: the message comes from the group's store
            return self._shared_get(conn, h, q, md, gmo, buflen, now)
        # -- find the message ------------------------------------------------------------------------
        if rare and opts & (C.MQGMO_MSG_UNDER_CURSOR | C.MQGMO_BROWSE_MSG_UNDER_CURSOR):
            m = h.cursor
            if (
                m is None
                or m.state != AVAILABLE
                or m.queue is not q
                or (m.locked_by is not None and m.locked_by is not h)
                or (m.reserved_by is not None and m.reserved_by is not conn)
            ):
                raise fail(C.MQRC_NO_MSG_UNDER_CURSOR, "the browse cursor is not on an available message")
            if m.reserved_by is None and m.expired(now):
                self._discard_expired(m)
                h.cursor = None
                raise fail(C.MQRC_NO_MSG_UNDER_CURSOR, "the message under the browse cursor has expired")
        else:
            after = h.browse_key if rare and opts & C.MQGMO_BROWSE_NEXT else None
            found = self._find(h, q, md, gmo, after, now)
            if found is None:
                raise fail(C.MQRC_NO_MSG_AVAILABLE, None)
            m = found
        return self._deliver_found(conn, h, q, m, md, gmo, buflen, opts, browse, sync, now)

    # declared in _base.QueueManagerBase for the other parts (the same signature there: mypy checks they agree)
    def _deliver_found(
        self,
        conn: Connection,
        h: Handle,
        q: LocalQueue,
        m: Message,
        md: MQMD,
        gmo: MQGMO,
        buflen: int | None,
        opts: int,
        browse: int,
        sync: int,
        now: float,
    ) -> GetResult:
        """MQGET of message ``m`` of a private queue, once found: the syncpoint decision, MAXUMSGS, the caller's
        MQMD and MQGMO filled, and the cursor positioned (a browse) or the message taken (:meth:`get`)."""
        uow = conn.uow
        in_uow = False
        if not browse:
            in_uow = bool(sync & MQGMO_SYNCPOINT) or bool(sync & MQGMO_SYNCPOINT_IF_PERSISTENT and m.persistent)
            if in_uow and uow is not None and len(uow.puts) + len(uow.gets) >= self.qmgr.attrs["MAXUMSGS"]:
                raise fail(C.MQRC_SYNCPOINT_LIMIT_REACHED, "the unit of work has reached MAXUMSGS")
        # -- fill the MQMD and the buffer ------------------------------------------------------------
        result = deliver(q, m, md, gmo, buflen, opts, now)
        if result.reason == C.MQRC_TRUNCATED_MSG_FAILED:
            if browse:
                self._position_cursor(h, m, opts)
            return result
        # -- apply -----------------------------------------------------------------------------------
        if browse:
            if self.monitoring_on:
                self.mon_got(conn, q, m, browse, now)  # statistics and accounting (``_statistics``)
            self._position_cursor(h, m, opts)
            return result
        q.take(m)
        if h.cursor is m:
            h.cursor = None
        q.depth -= 1
        q.note_get(now, m.put_time)  # LGETDATE / LGETTIME, QTIME
        self.stat_gets += 1
        if self.monitoring_on:
            self.mon_got(conn, q, m, 0, now)  # statistics and accounting (``_statistics``)
        if self.qmgr.attrs.get("PERFMEV") == "ENABLED":
            self.depth_after_get(q)  # queue depth events (``_events``)
        if h.options & MQOO_SAVE_ALL_CONTEXT:
            h.saved_context = {f: md.__dict__[f] for f in CONTEXT_IDENTITY + CONTEXT_ORIGIN}
        if in_uow:
            uow = self._uow(conn)
            uow.gets.append(m)
            m.state = GOT_PENDING
            q.uncommitted += 1
            if opts & C.MQGMO_MARK_SKIP_BACKOUT:
                uow.marked = m  # seed 000: the one get of this unit of work that skips an application's backout
            if m.persistent:
                self._b().inflight_add.append(m.seq)
        else:
            m.state = GONE
            if m.persistent:
                b = self._b()
                b.delete_messages.append(m.seq)
                b.durable = True
        if m.md["Report"] & MQRO_COD:
            self._confirm_on_delivery(m, conn.uow if in_uow else None)  # COD: delivered to the application
        return result

    def browse_index(
        self, conn: Connection, hobj: Handle | int, md: MQMD, gmo: MQGMO, n: int
    ) -> tuple[list[Seen], MQMIError | None]:
        """Up to ``n`` browses without data: the same as ``n`` MQGETs, each with a copy of ``md`` and ``gmo``
        (MQGMO_BROWSE_FIRST applying to the first only, MQGMO_BROWSE_NEXT after it), a buffer length of 0 and
        MQGMO_ACCEPT_TRUNCATED_MSG, ending at the first failure (MQRC_NO_MSG_AVAILABLE when the browse reaches
        the end), which is returned after the answers. Each answer is the message's :data:`Seen`; the browse
        cursor, the messages seen and the expired ones met on the way (discarded, with their reports) are as
        those gets would leave them. ``gmo`` must browse (MQGMO_BROWSE_FIRST or _NEXT), without a lock, a
        cursor option or a wait: else MQRC_OPTIONS_ERROR.

        For the Spark driver's index (spark/_qm.py QueueAccess.scan): the first browse is an MQGET; the others,
        on a private queue and without match criteria, walk the queue's index from the cursor as MQGET's own
        search does (:meth:`_find`), without filling an MQMD and an MQGMO per message."""
        opts = gmo.Options
        if not opts & _BROWSE_ON or opts & _NOT_INDEX:
            raise fail(
                C.MQRC_OPTIONS_ERROR,
                "an index browse takes MQGMO_BROWSE_FIRST or _BROWSE_NEXT, without a lock, a cursor option or a wait",
            )
        out: list[Seen] = []
        if n <= 0:
            return out, None
        g0 = gmo.copy()
        g0.Options = opts | C.MQGMO_ACCEPT_TRUNCATED_MSG
        g0.Version = max(g0.Version, C.MQGMO_VERSION_3)
        first = True
        while len(out) < n:
            g = g0.copy()
            if not first:
                g.Options = g.Options & ~C.MQGMO_BROWSE_FIRST | C.MQGMO_BROWSE_NEXT
            m_d = md.copy()
            try:
                self.get(conn, hobj, m_d, g, 0)
            except MQMIError as e:
                return out, e
            out.append(seen_of(m_d, g))
            if first and len(out) < n:
                first = False
                h = self._handle(conn, hobj)
                q = h.queue
                if (
                    q is not None
                    and not q.shared
                    and h.selection is None
                    and not g.Options & ~_WALK_OPTS
                    and _matches_nothing(md, g0)
                ):
                    return self._walk_index(h, q, out, n)
        return out, None

    def _walk_index(self, h: Handle, q: LocalQueue, out: list[Seen], n: int) -> tuple[list[Seen], MQMIError | None]:
        """:meth:`browse_index` after its first browse: the next messages in delivery order after the cursor,
        each as :meth:`_find` would choose it for MQGMO_BROWSE_NEXT without match criteria (skipping messages
        locked by another handle or reserved by another connection; expired ones met on the way discarded before
        the browse that passed them answers)."""
        now = self.clock.time()
        conn = h.conn
        index, by_key = q.index, q.by_key
        after = h.browse_key
        last: Message | None = None
        expired: list[Message] = []
        append = out.append
        while True:
            changed = False
            for key in index.islice(0 if after is None else index.bisect_right(after)):
                m = by_key[key]
                seen = _seen_by(m, h, conn, now)
                if seen is not _SEEN:
                    if seen is _EXPIRED:
                        expired.append(m)
                    continue
                d = m.md
                append((m.seq, m.backout, d["GroupId"], d["MsgSeqNumber"], d["MsgFlags"], d["Priority"]))
                last = m
                after = key
                if expired:  # discarded as that browse would have (a report may land on this very queue)
                    for x in expired:
                        self._discard_expired(x)
                    expired = []
                    changed = True
                    break
                if len(out) >= n:
                    break
            if not changed or len(out) >= n:
                break
        if last is not None:
            h.browse_key = last.key
            h.cursor = last
        if len(out) >= n:
            return out, None
        for x in expired:  # the browse that found nothing discarded what it met
            self._discard_expired(x)
        return out, fail(C.MQRC_NO_MSG_AVAILABLE, None)

    def _position_cursor(self, h: Handle, m: Message, opts: int) -> None:
        if m.queue.shared:  # a message of a shared queue: its lock is the group's (``_shared``)
            self._shared_position_cursor(h, m, opts)
            return
        if opts & (C.MQGMO_BROWSE_FIRST | C.MQGMO_BROWSE_NEXT):
            h.browse_key = m.key
            h.cursor = m
        if opts & C.MQGMO_LOCK:
            if h.locked is not None and h.locked is not m:
                h.locked.locked_by = None
                self._wake.add(h.locked.queue.name)
            h.locked = m
            m.locked_by = h

    def _find(self, h: Handle, q: LocalQueue, md: MQMD, gmo: MQGMO, after: int | None, now: float) -> Message | None:
        """The first available message in delivery order that this handle may see and that matches.

        Expired messages met on the way are discarded (seed 002): this is the "get that would have returned
        the message" that discards it. A message reserved by another connection is skipped unless matched by
        its MsgToken; a reserved message is never discarded as expired (see :meth:`reserve`).
        """
        mo = gmo.MatchOptions if gmo.Version >= 2 else _ID_MATCH
        msgid = md.MsgId if mo & C.MQMO_MATCH_MSG_ID and md.MsgId != _NONE24 else None
        correlid = md.CorrelId if mo & C.MQMO_MATCH_CORREL_ID and md.CorrelId != _NONE24 else None
        selecting = h.selection is not None  # an MQOD SelectionString: only the messages it chooses (``_select``)
        if after is None and msgid is None and correlid is None and not mo & _OTHER_MATCH and not selecting:
            return self._first(h, q, now)  # nothing to match: the first message this handle may have
        msgid, correlid, groupid, seqno, token = match_criteria(md, gmo)
        simple = msgid is None and correlid is None and groupid is None and seqno is None and token is None
        expired: list[Message] = []
        chosen: Message | None = None
        if token is not None:  # at most one message has this token: look it up by key, do not walk the queue
            one = q.by_token(token)
            if one is not None and selecting and not chooses(h, one, now):
                one = None
            source: Any = () if one is None or (after is not None and one.key <= after) else (one,)
        elif selecting:
            source = candidates(h, q, after, now)
        else:
            source = q.iter_from(after) if after is not None else q.iter_all()
        conn = h.conn
        for m in source:
            if m.locked_by is not None and m.locked_by is not h:
                continue
            reserved = m.reserved_by
            if reserved is not None and reserved is not conn and token is None:
                continue  # reserved by another connection: reached only by its MsgToken
            if not simple and (
                (msgid is not None and m.msgid != msgid)
                or (correlid is not None and m.correlid != correlid)
                or (groupid is not None and m.groupid != groupid)
                or (seqno is not None and m.seqno != seqno)
                or (token is not None and m.seq != token)
            ):
                continue
            if m.expiry != C.MQEI_UNLIMITED and reserved is None and m.expired(now):
                expired.append(m)
                continue
            chosen = m
            break
        for m in expired:
            self._discard_expired(m)
        return chosen

    def _first(self, h: Handle, q: LocalQueue, now: float) -> Message | None:
        """:meth:`_find` without match options from the start of the queue: the first available message not
        locked by another handle nor reserved by another connection; expired ones met on the way are discarded."""
        by_key = q.by_key
        if not by_key:  # nothing available: no walk
            return None
        conn = h.conn
        expired: list[Message] | None = None
        chosen: Message | None = None
        for key in q.index:
            m = by_key[key]
            seen = _seen_by(m, h, conn, now)
            if seen is not _SEEN:
                if seen is _EXPIRED:
                    if expired is None:
                        expired = []
                    expired.append(m)
                continue
            chosen = m
            break
        if expired is not None:
            for m in expired:
                self._discard_expired(m)
        return chosen
