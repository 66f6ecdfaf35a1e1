"""The connection API: one Pythonic face over any transport (in-process now, remote with the server).

    qm = syncpoint.connect("QM1")
    q = qm.open("ORDERS")
    q.put(b"...", priority=5, persistent=True)
    msg = q.get(wait=2.0, syncpoint=True)
    qm.commit()

A :class:`Queue` opened without explicit options keeps one MQ handle per purpose, opened on first use: an
output handle for ``put``, an input handle (MQOO_INPUT_AS_Q_DEF) for ``get``, a browse handle for ``browse``.
So a producer never counts as an input opener (IPPROCS, which triggering reads). Explicit ``options`` give
one handle with exactly those options, as the MQI does. The raw MQI form (``mqopen``, ``mqput``, ``mqget`` …)
takes and fills IBM's structures.

Implements: reference/structures.md (the MQMD, MQGMO, MQPMO, MQOD it fills), reference/constants.md; seed 000
(``mark_skip_backout`` is MQGMO_MARK_SKIP_BACKOUT).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from syncpoint.mqi import MQGMO, MQMD, MQOD, MQPMO, GetResult, MQMIError, blank_strip
from syncpoint.mqi import constants as C
from syncpoint.mqi.properties import Props
from syncpoint.mqi.properties import build as build_props

from . import _pubsub
from ._message import Message
from ._transport import Transport
from .keywords import PURPOSE_OPTIONS, PUT_KEYWORDS, PYTHONIC_HMSG, build_md, msg_id_bytes, put_keywords, wait_ms

if TYPE_CHECKING:  # the embedded transport's types; its modules load on first embedded use
    pass


class Queue:
    """An opened queue. Use as a context manager to close it."""

    def __init__(self, qm: QueueManager, name: str, options: int | None, selector: str = "") -> None:
        self.qm = qm
        self.name = name  # a model queue's: the dynamic queue's real name (its MQOD.ObjectName after MQOPEN)
        self._fixed = options
        self.selector = selector  # the SelectionString of its get and browse handles (mqi.selector)
        self._handles: dict[str, int] = {}
        self._closed = False
        self._cursor: bytes | None = None  # the MsgToken of the last message browsed (where the cursor is)
        self._locked = False  # a browse with lock=True locked a message on the browse handle, not unlocked since
        if options is not None:
            self._handles["all"], self.name = qm._open_handle(name, options, selector)
        else:
            self._open_model()

    def _open_model(self) -> None:
        """MQOPEN of a model queue creates a dynamic queue (IBM): so a queue opened without options is opened
        once for inquire first. For a model queue that open made the dynamic queue; it stays open (the handle
        that created a temporary dynamic queue deletes it when closed, so it is closed last) and every purpose's
        handle opens the dynamic queue by its real name, which :attr:`name` now holds. Any other queue's
        inquire handle is closed again; a failure here is left to the first use to report, as before."""
        try:
            h, real = self.qm._open_handle(self.name, PURPOSE_OPTIONS["inquire"])
        except MQMIError:
            return
        if real == self.name:
            self.qm.mqclose(h)
            return
        self.name = real
        self._handles["inquire"] = h

    # -- handles --------------------------------------------------------------------------------------
    def _h(self, purpose: str) -> int:
        if self._fixed is not None:
            try:
                return self._handles["all"]
            except KeyError:
                raise self._closed_error() from None
        h = self._handles.get(purpose)
        if h is None:
            if self._closed:
                raise self._closed_error()
            sel = self.selector if purpose in ("get", "browse") else ""
            h = self._handles[purpose] = self.qm._open_handle(self.name, PURPOSE_OPTIONS[purpose], sel)[0]
        return h

    @property
    def handle(self) -> int:
        """The MQ object handle of a queue opened with explicit options."""
        if self._fixed is None:
            raise ValueError("this queue was opened without explicit options: it has a handle per purpose")
        return self._handles["all"]

    # -- put ------------------------------------------------------------------------------------------
    def put(
        self,
        data: bytes | str,
        *,
        md: MQMD | None = None,
        pmo: MQPMO | None = None,
        syncpoint: bool = False,
        priority: int | None = None,
        persistent: bool | None = None,
        expiry: float | None = None,
        msg_id: bytes | str | None = None,
        correl_id: bytes | str | None = None,
        reply_to: str | None = None,
        format: str | bytes | None = None,
        msg_type: int | None = None,
        report: int | None = None,
        properties: Mapping[str, Any] | None = None,
    ) -> MQMD:
        """Put one message; returns its MQMD as the queue manager completed it (MsgId, PutDate, …).

        ``expiry`` is in seconds (MQMD.Expiry counts tenths); ``format`` defaults to MQSTR for text.
        ``properties``: name -> bool, int, float, str, bytes, None or ``(MQTYPE_*, value)`` (docs/programming-model.md).
        """
        if isinstance(data, str):
            data = data.encode("utf-8")
            if format is None:
                format = C.MQFMT_STRING
        md = build_md(md, priority, persistent, expiry, msg_id, correl_id, reply_to, format, msg_type, report)
        if not pmo:
            pmo = MQPMO.with_fields(_PMO_SYNCPOINT if syncpoint else _PMO_NO_SYNCPOINT)
        elif pmo.Options & (C.MQPMO_SYNCPOINT | C.MQPMO_NO_SYNCPOINT) == 0:
            pmo.Options |= C.MQPMO_SYNCPOINT if syncpoint else C.MQPMO_NO_SYNCPOINT
        props = build_props(properties) if properties else None
        self.qm._raise_warning(self.qm.transport.put(self._h("put"), md, pmo, data, props))
        return md

    def put_many(
        self, items: Sequence[bytes | str], *, syncpoint: bool = False, commit: bool = False, **kw: Any
    ) -> list[MQMD]:
        """Put several messages with the same options; returns their completed MQMDs. Over the network the puts
        are pipelined (sent together, answered together). A failure raises the first error after every put
        was tried, with ``.done`` holding the MQMDs of the ones that were put.

        ``properties=``: the messages' properties (as :meth:`put`'s), one mapping for every message or a sequence
        of one mapping (or None) per message; all are checked before any put, and they travel in the batch
        requests (protocol version 4, docs/protocol.md).

        ``commit=True`` then commits the unit of work (MQCMIT) if every put succeeded, as a program checking each
        put would: over the network in the same request, so a batch and its commit cost one round trip. When a
        put failed nothing is committed (back out or commit as you decide); a failed commit is raised."""
        put_many = getattr(self.qm.transport, "put_many", None)
        built: dict[int, Props | None] = {}  # one set of properties built (and checked) per mapping given
        per_item: list[Props | None] = []
        for p in _properties_per_item(kw.pop("properties", None), items):
            if p and id(p) not in built:
                built[id(p)] = build_props(p)
            per_item.append(built[id(p)] if p else None)
        if put_many is None:  # one put after another, with the same outcome as a batch request
            done: list[MQMD] = []
            first: MQMIError | None = None
            for x, p in zip(items, per_item, strict=True):
                try:
                    done.append(self.put(x, syncpoint=syncpoint, properties=p, **kw))
                except MQMIError as e:
                    first = first or e
            if first is not None:
                first.done = done  # type: ignore[attr-defined]
                raise first
            if commit:
                self.qm.commit()
            return done
        unknown = set(kw) - PUT_KEYWORDS
        if unknown:
            raise TypeError(f"put_many() got unexpected keyword arguments {sorted(unknown)}")
        templates: dict[bool, MQMD] = {}  # one MQMD built per kind of item (text or bytes), copied for each

        def template(text: bool) -> MQMD:
            md = templates.get(text)
            if md is None:
                fmt = kw.get("format")
                md = templates[text] = build_md(
                    kw.get("md") and kw["md"].copy(),
                    kw.get("priority"),
                    kw.get("persistent"),
                    kw.get("expiry"),
                    kw.get("msg_id"),
                    kw.get("correl_id"),
                    kw.get("reply_to"),
                    C.MQFMT_STRING if text and fmt is None else fmt,
                    kw.get("msg_type"),
                    kw.get("report"),
                )
            return md

        pmo0 = MQPMO(Options=C.MQPMO_SYNCPOINT if syncpoint else C.MQPMO_NO_SYNCPOINT)
        prepared: list[tuple[MQMD, MQPMO, bytes, Props | None]] = []
        for x, props in zip(items, per_item, strict=True):
            if isinstance(x, str):
                prepared.append((template(True).copy(), pmo0.copy(), x.encode("utf-8"), props))
            else:
                prepared.append((template(False).copy(), pmo0.copy(), x, props))
        results = put_many(self._h("put"), prepared, commit, alike=len(templates) == 1)
        done = [md for (md, *_), r in zip(prepared, results, strict=True) if not isinstance(r, MQMIError)]
        for r in results:
            if isinstance(r, MQMIError):
                r.done = done  # type: ignore[attr-defined]
                raise r
            self.qm._raise_warning(r)
        return [md for md, *_ in prepared]

    # -- get ------------------------------------------------------------------------------------------
    # syncpoint.aio's Queue.get declares the same keywords for its coroutine; both build the MQGMO with keywords.py
    def get(
        self,
        *,
        wait: float | None = None,
        syncpoint: bool = False,
        mark_skip_backout: bool = False,
        msg_id: bytes | str | None = None,
        correl_id: bytes | str | None = None,
        max_length: int | None = None,
        accept_truncated: bool = False,
        md: MQMD | None = None,
        gmo: MQGMO | None = None,
    ) -> Message:
        """Get (remove) the next message. ``wait`` in seconds (math.inf: forever). Raises MQMIError 2033
        (MQRC_NO_MSG_AVAILABLE) when there is none."""
        md = md or MQMD()
        if msg_id is not None:
            md.MsgId = msg_id_bytes(msg_id)
        if correl_id is not None:
            md.CorrelId = msg_id_bytes(correl_id)
        if gmo is None:
            # no wait, FAIL_IF_QUIESCING, the syncpoint option, then the arguments' options
            gmo = MQGMO.with_fields(_GMO_SYNCPOINT if syncpoint else _GMO_NO_SYNCPOINT)
            if wait is not None:
                w, interval = wait_ms(wait)
                gmo.Options |= w
                gmo.WaitInterval = interval
            if mark_skip_backout:
                gmo.Options |= C.MQGMO_MARK_SKIP_BACKOUT
            if accept_truncated:
                gmo.Options |= C.MQGMO_ACCEPT_TRUNCATED_MSG
        return self.qm._get(self._h("get"), md, gmo, max_length)

    def get_or_none(self, **kw: Any) -> Message | None:
        try:
            return self.get(**kw)
        except MQMIError as e:
            if e.reason == C.MQRC_NO_MSG_AVAILABLE:
                return None
            raise

    def messages(self, *, wait: float | None = None, syncpoint: bool = False) -> Iterator[Message]:
        """Get messages until none arrives within ``wait`` seconds."""
        while True:
            m = self.get_or_none(wait=wait, syncpoint=syncpoint)
            if m is None:
                return
            yield m

    # -- browse ---------------------------------------------------------------------------------------
    def browse(
        self,
        *,
        first: bool = False,
        under_cursor: bool = False,
        lock: bool = False,
        wait: float | None = None,
        max_length: int | None = None,
        msg_id: bytes | str | None = None,
        correl_id: bytes | str | None = None,
    ) -> Message:
        """Browse the next message (``first=True``: from the start) without removing it."""
        md = MQMD()
        if msg_id is not None:
            md.MsgId = msg_id_bytes(msg_id)
        if correl_id is not None:
            md.CorrelId = msg_id_bytes(correl_id)
        gmo = MQGMO(MsgHandle=PYTHONIC_HMSG)  # version 4: the MsgToken get_under_cursor may use, and properties
        w, interval = wait_ms(wait)
        where = (
            C.MQGMO_BROWSE_MSG_UNDER_CURSOR
            if under_cursor
            else (C.MQGMO_BROWSE_FIRST if first else C.MQGMO_BROWSE_NEXT)
        )
        gmo.Options = w | where | (C.MQGMO_LOCK if lock else 0) | C.MQGMO_FAIL_IF_QUIESCING
        gmo.WaitInterval = interval
        m = self.qm._get(self._h("browse" if self._fixed is None else "all"), md, gmo, max_length)
        self._cursor = gmo.MsgToken
        self._locked = self._locked or lock
        return m

    def browse_all(self, read_ahead: int = 64) -> Iterator[Message]:
        """Every message on the queue, in delivery order, left in place. Over the network, ``read_ahead``
        browse-next requests travel together (each still moves the browse cursor by one, as in the MQI)."""
        h = self._h("browse" if self._fixed is None else "all")
        first = True
        while True:
            n = read_ahead if not first else 1
            items = []
            for i in range(n):
                where = C.MQGMO_BROWSE_FIRST if first and i == 0 else C.MQGMO_BROWSE_NEXT
                gmo = MQGMO(Options=C.MQGMO_NO_WAIT | where | C.MQGMO_FAIL_IF_QUIESCING, MsgHandle=PYTHONIC_HMSG)
                items.append((MQMD(), gmo, None))
            first = False
            got, dry = self.qm._get_many(h, items)
            if got:  # the browse cursor is on the last message browsed
                self._cursor = items[len(got) - 1][1].MsgToken
            yield from got
            if dry:
                return

    def get_many(
        self,
        max_messages: int,
        *,
        syncpoint: bool = False,
        max_length: int | None = None,
        commit_first: bool = False,
    ) -> list[Message]:
        """Up to ``max_messages`` messages got without waiting (fewer when the queue runs dry). Over the network
        the gets are pipelined: one round trip for the lot.

        ``commit_first=True`` commits the unit of work (MQCMIT) before the gets: a consumer that has processed
        the batch it got in syncpoint ends it and asks for the next in one round trip. If the commit fails, its
        error is raised and no get is tried."""
        getm = getattr(self.qm.transport, "getm", None)
        if getm is None:  # embedded: the commit, then the gets one by one
            if commit_first:
                self.qm.commit()
            gmo = _GMO_SYNCPOINT if syncpoint else _GMO_NO_SYNCPOINT
            items = [(MQMD.with_fields(_MD_FIELDS), MQGMO.with_fields(gmo), max_length) for _ in range(max_messages)]
            return self.qm._get_many(self._h("get"), items)[0]
        # one getm request; the MQMDs stay packed until a message's md is asked for
        gmo_b = _GMO_SYNCPOINT_PACKED if syncpoint else _GMO_NO_SYNCPOINT_PACKED
        answers, failure = getm(self._h("get"), _MD_PACKED, gmo_b, max_length, max_messages, commit_first)
        out: list[Message] = []
        error: MQMIError | None = None
        for data, length, comp, reason, md_b, props in answers:
            if reason != C.MQRC_NONE:  # a warning (too long for max_length): no message; raised after the batch
                if error is None:
                    error = MQMIError(comp, reason, message=Message._packed(data, md_b), original_length=length)
                continue
            out.append(Message._packed(data, md_b, props))
        if error is None and failure is not None and failure.reason != C.MQRC_NO_MSG_AVAILABLE:
            error = failure
        if error is not None:
            error.messages = out  # type: ignore[attr-defined]
            raise error
        return out

    def unlock(self) -> None:
        gmo = MQGMO(Options=C.MQGMO_UNLOCK)
        result = self.qm.transport.get(self._h("browse" if self._fixed is None else "all"), MQMD(), gmo, 0)
        self._locked = False
        self.qm._raise_warning(result.reason)

    def get_under_cursor(self, *, syncpoint: bool = False, max_length: int | None = None) -> Message:
        """Remove the message under the browse cursor: the one the last ``browse`` (or ``browse_all``) returned.

        With explicit options this is MQGMO_MSG_UNDER_CURSOR on the queue's one handle, which must be open for
        browse and input (else MQRC_NOT_OPEN_FOR_BROWSE 2036 / MQRC_NOT_OPEN_FOR_INPUT 2037, as the MQI says).
        A queue opened without options browses and gets through different handles, so the message is got through
        the input handle by the MsgToken its browse returned: the same message. A lock the browse handle holds
        (``browse(lock=True)``) is released first, in a call of its own. MQRC_NO_MSG_UNDER_CURSOR (2034) when
        nothing was browsed yet or the message is no longer available (got by another connection, expired)."""
        sync = C.MQGMO_SYNCPOINT if syncpoint else C.MQGMO_NO_SYNCPOINT
        if self._fixed is not None:
            gmo = MQGMO(Options=C.MQGMO_MSG_UNDER_CURSOR | C.MQGMO_FAIL_IF_QUIESCING | sync)
            return self.qm._get(self._h("all"), MQMD(), gmo, max_length)
        if self._cursor is None:
            if self._closed:
                raise self._closed_error()
            raise MQMIError(
                C.MQCC_FAILED, C.MQRC_NO_MSG_UNDER_CURSOR, f"no message of {self.name} was browsed: browse one first"
            )
        token = self._cursor
        if self._locked:
            with contextlib.suppress(MQMIError):
                self.unlock()
        gmo = MQGMO(Version=C.MQGMO_VERSION_3, Options=C.MQGMO_NO_WAIT | C.MQGMO_FAIL_IF_QUIESCING | sync)
        gmo.MatchOptions = C.MQMO_MATCH_MSG_TOKEN
        gmo.MsgToken = token
        try:
            return self.qm._get(self._h("get"), MQMD(), gmo, max_length)
        except MQMIError as e:
            if e.reason != C.MQRC_NO_MSG_AVAILABLE:
                raise
            raise MQMIError(
                C.MQCC_FAILED, C.MQRC_NO_MSG_UNDER_CURSOR, f"the message browsed on {self.name} is no longer there"
            ) from None

    # -- reservations and batches by MsgToken ----------------------------------------------------------
    def reserve(self, tokens: Iterable[int]) -> list[int]:
        """Reserve the messages with these MsgTokens for this connection (one request); returns the tokens
        reserved. Another connection's gets and browses skip a reserved message unless they name it by
        MQMO_MATCH_MSG_TOKEN, and it does not expire while reserved. It stays reserved until :meth:`release`,
        its removal, or the end of this connection. Tokens of messages gone, got in an unfinished unit of work,
        or reserved by another connection are left out."""
        h = self._h("browse" if self._fixed is None else "all")
        return self.qm.transport.reserve(h, tokens if isinstance(tokens, list) else list(tokens))

    def release(self, tokens: Iterable[int] | None = None) -> list[int]:
        """End this connection's reservations of these messages (None: all on this queue); returns the tokens
        released. Waiting gets of other connections may now find them."""
        h = self._h("browse" if self._fixed is None else "all")
        toks = None if tokens is None else tokens if isinstance(tokens, list) else list(tokens)
        return self.qm.transport.release(h, toks)

    def browse_tokens(self, tokens: Sequence[int], *, with_data: bool = True, chunk: int = 500) -> list[Message | None]:
        """Browse the messages with these MsgTokens, in this order, leaving them in place: None where one is no
        longer on the queue. ``with_data=False`` returns the MQMDs only (empty data, no properties). One request
        per ``chunk``."""
        gmo = MQGMO(MsgHandle=PYTHONIC_HMSG)  # version 4: properties come back as Message.properties
        gmo.Options = C.MQGMO_BROWSE_FIRST | C.MQGMO_NO_WAIT | C.MQGMO_FAIL_IF_QUIESCING
        if not with_data:  # the MQMDs only: no properties either (nothing built, nothing sent)
            gmo.Options |= C.MQGMO_ACCEPT_TRUNCATED_MSG | C.MQGMO_NO_PROPERTIES
        return self._by_tokens(
            self._h("browse" if self._fixed is None else "all"), gmo, None if with_data else 0, tokens, chunk
        )

    def get_tokens(
        self, tokens: Sequence[int], *, syncpoint: bool = True, max_length: int | None = None, chunk: int = 500
    ) -> list[Message | None]:
        """Get (remove) the messages with these MsgTokens, in this order, in the unit of work unless
        ``syncpoint=False``: None where one is no longer on the queue. One request per ``chunk`` tokens. A
        failure (e.g. MQRC_SYNCPOINT_LIMIT_REACHED) is raised with ``.messages`` holding what was got before it."""
        gmo = MQGMO(MsgHandle=PYTHONIC_HMSG)  # version 4: properties come back as Message.properties
        gmo.Options = C.MQGMO_NO_WAIT | C.MQGMO_FAIL_IF_QUIESCING
        gmo.Options |= C.MQGMO_SYNCPOINT if syncpoint else C.MQGMO_NO_SYNCPOINT
        return self._by_tokens(self._h("get" if self._fixed is None else "all"), gmo, max_length, tokens, chunk)

    def _by_tokens(
        self, h: int, gmo: MQGMO, buflen: int | None, tokens: Sequence[int], chunk: int
    ) -> list[Message | None]:
        toks = tokens if isinstance(tokens, list) else list(tokens)
        out: list[Message | None] = []
        for i in range(0, max(len(toks), 1), max(1, chunk)):
            results, error = self.qm.transport.get_tokens(h, gmo, buflen, toks[i : i + max(1, chunk)])
            out.extend(None if r is None else Message(r[1].data, r[0], r[1].props) for r in results)
            if error is not None:
                error.messages = out  # type: ignore[attr-defined]
                raise error
        return out

    # -- attributes -----------------------------------------------------------------------------------
    def inquire(self, selector: int) -> int | str:
        ints, chars, _ = self.qm.transport.inq(self._h("inquire"), [selector])
        return ints[0] if ints else blank_strip(chars[0])

    def set(self, selector: int, value: int | str) -> None:
        if isinstance(value, str):
            self.qm.transport.set(self._h("set"), [selector], [], [value.encode()])
        else:
            self.qm.transport.set(self._h("set"), [selector], [value], [])

    @property
    def depth(self) -> int:
        return int(self.inquire(C.MQIA_CURRENT_Q_DEPTH))

    # -- end ------------------------------------------------------------------------------------------
    def _closed_error(self) -> MQMIError:
        """MQRC_HOBJ_ERROR, as IBM answers a call on a closed object handle."""
        return MQMIError(C.MQCC_FAILED, C.MQRC_HOBJ_ERROR, f"queue {self.name} was closed; open it again")

    def close(self, options: int = C.MQCO_NONE) -> None:
        self._closed = True
        handles = list(self._handles.values())[::-1]  # the handle that created a dynamic queue last
        self._handles.clear()
        for h in handles:
            self.qm.transport.close(h, options)
            self.qm._handles.discard(h)

    def __enter__(self) -> Queue:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


# the option structures of the Pythonic put and get without extra arguments, prepared once (and packed)
_MD_FIELDS = MQMD().__dict__
_MD_PACKED = MQMD().pack()
_PMO_SYNCPOINT = MQPMO(Options=C.MQPMO_SYNCPOINT).__dict__
_PMO_NO_SYNCPOINT = MQPMO(Options=C.MQPMO_NO_SYNCPOINT).__dict__
_GMO_SYNCPOINT = MQGMO(
    Options=C.MQGMO_NO_WAIT | C.MQGMO_FAIL_IF_QUIESCING | C.MQGMO_SYNCPOINT, WaitInterval=0, MsgHandle=PYTHONIC_HMSG
).__dict__
_GMO_NO_SYNCPOINT = MQGMO(
    Options=C.MQGMO_NO_WAIT | C.MQGMO_FAIL_IF_QUIESCING | C.MQGMO_NO_SYNCPOINT, WaitInterval=0, MsgHandle=PYTHONIC_HMSG
).__dict__
_GMO_SYNCPOINT_PACKED = MQGMO.with_fields(_GMO_SYNCPOINT).pack()
_GMO_NO_SYNCPOINT_PACKED = MQGMO.with_fields(_GMO_NO_SYNCPOINT).pack()


def _properties_per_item(properties: Any, items: Sequence[Any]) -> list[Mapping[str, Any] | None]:
    """put_many's ``properties``: None, one mapping for every message, or a sequence of one per message."""
    if properties is None or isinstance(properties, Mapping):
        return [properties] * len(items)
    per = list(properties)
    if len(per) != len(items):
        raise TypeError(f"put_many() got {len(per)} sets of properties for {len(items)} messages")
    return per


def _get_warning(result: GetResult, md: MQMD) -> MQMIError:
    """The error a get that completed with a warning raises: it carries the message (truncated or not)."""
    return MQMIError(result.comp, result.reason, message=Message(result.data, md), original_length=result.data_length)


class QueueManager:
    """A connection to a queue manager (the MQ "hconn"), with the Pythonic and the raw MQI API."""

    def __init__(self, transport: Transport) -> None:
        self.transport = transport
        self.name = transport.qmgr_name
        self._handles: set[int] = set()
        self._connected = True

    # -- Pythonic -------------------------------------------------------------------------------------
    def open(self, name: str, options: int | None = None, selector: str = "") -> Queue:
        """Open a queue. Without ``options`` a handle per purpose is opened on first use (see module doc); gets
        and browses see only the messages ``selector`` (an MQ selection string) chooses."""
        return Queue(self, name, options, selector)

    def put1(self, qname: str, data: bytes | str, **kw: Any) -> MQMD:
        """MQPUT1: open, put one message, close; the keywords are :meth:`Queue.put`'s."""
        properties = kw.pop("properties", None)
        data, md, pmo = put_keywords(data, kw)
        od = MQOD(ObjectName=qname.encode())
        self._raise_warning(self.transport.put1(od, md, pmo, data, build_props(properties) if properties else None))
        return md

    def publish(self, topic: str, data: bytes | str, **kw: Any) -> MQMD:
        """Publish on a topic string; keywords: ``retain``, ``topic_object`` and :meth:`Queue.put`'s (_pubsub)."""
        return _pubsub.publish(self, topic, data, **kw)

    def subscribe(self, topic: str = "", **kw: Any) -> _pubsub.Subscription:
        """MQSUB: an iterable :class:`~syncpoint.client.Subscription` (_pubsub)."""
        return _pubsub.subscribe(self, Queue, topic, **kw)

    # MemoryQueueManager passes these on to its connection the same way (a delegation, alike in shape)
    def commit(self) -> None:
        self.transport.commit()

    def backout(self) -> None:
        self.transport.backout()

    @contextlib.contextmanager
    def unit_of_work(self) -> Iterator[QueueManager]:
        """Commit when the block ends normally, back out when it raises."""
        try:
            yield self
        except BaseException:
            self.backout()
            raise
        self.commit()

    def disconnect(self) -> None:
        """MQDISC: closes the handles and commits the unit of work (IBM's rule for a normal end)."""
        if self._connected:
            self._connected = False
            self.transport.disconnect(False)

    def admin(self, verb: str, *args: Any, **kwargs: Any) -> Any:
        return self.transport.admin(verb, *args, **kwargs)

    def __enter__(self) -> QueueManager:
        return self

    def __exit__(self, exc_type: object, *exc: object) -> None:
        if exc_type is None:
            self.disconnect()
        else:
            self._connected = False
            self.transport.disconnect(True)

    # -- raw MQI --------------------------------------------------------------------------------------
    def mqopen(self, od: MQOD, options: int, selection: str = "") -> int:
        """MQOPEN; ``selection`` is the MQOD's (version 4) SelectionString."""
        h = self.transport.open(od, options, selection)
        self._handles.add(h)
        return h

    def mqclose(self, hobj: int, options: int = C.MQCO_NONE) -> None:
        self.transport.close(hobj, options)
        self._handles.discard(hobj)

    def mqput(self, hobj: int, md: MQMD, pmo: MQPMO, data: bytes, props: Props | None = None) -> None:
        reason = self.transport.put(hobj, md, pmo, data, props)
        if reason != C.MQRC_NONE:
            raise MQMIError(C.MQCC_WARNING, reason)

    def mqput1(self, od: MQOD, md: MQMD, pmo: MQPMO, data: bytes, props: Props | None = None) -> None:
        self._raise_warning(self.transport.put1(od, md, pmo, data, props))

    def mqget(self, hobj: int, md: MQMD, gmo: MQGMO, buflen: int | None = None) -> bytes:
        result = self.transport.get(hobj, md, gmo, buflen)
        if result.reason != C.MQRC_NONE:
            raise _get_warning(result, md)
        return result.data

    def mqinq(self, hobj: int, selectors: Sequence[int]) -> tuple[list[int], list[bytes]]:
        ints, chars, reason = self.transport.inq(hobj, selectors)
        self._raise_warning(reason)
        return ints, chars

    def mqset(self, hobj: int, selectors: Sequence[int], ints: Sequence[int], chars: Sequence[bytes]) -> None:
        self.transport.set(hobj, selectors, ints, chars)

    def mqcmit(self) -> None:
        self.transport.commit()

    def mqback(self) -> None:
        self.transport.backout()

    # -- internals ------------------------------------------------------------------------------------
    def _open_handle(self, name: str, options: int, selection: str = "") -> tuple[int, str]:
        """MQOPEN of queue ``name``: the handle and the queue's name as MQOPEN returned it in MQOD.ObjectName
        (for a model queue, the dynamic queue it created)."""
        od = MQOD(ObjectName=name.encode())
        h = self.mqopen(od, options, selection)
        return h, blank_strip(od.ObjectName)

    def _get(self, hobj: int, md: MQMD, gmo: MQGMO, buflen: int | None) -> Message:
        result = self.transport.get(hobj, md, gmo, buflen)
        if result.reason != C.MQRC_NONE:
            raise _get_warning(result, md)
        return Message(result.data, md, result.props)

    def _get_many(self, hobj: int, items: Sequence[tuple[MQMD, MQGMO, int | None]]) -> tuple[list[Message], bool]:
        """Several gets on one handle, pipelined when the transport can. Returns the messages and whether the
        queue ran dry (MQRC_NO_MSG_AVAILABLE). Every message a pipelined get removed is returned, even one that
        arrived after an earlier get of the batch found none. Another failure is raised after the batch."""
        get_many = getattr(self.transport, "get_many", None)
        out: list[Message] = []
        if get_many is None:
            for md, gmo, buflen in items:
                try:
                    out.append(self._get(hobj, md, gmo, buflen))
                except MQMIError as e:
                    if e.reason == C.MQRC_NO_MSG_AVAILABLE:
                        return out, True
                    e.messages = out  # type: ignore[attr-defined]  # as a batch request reports it
                    raise
            return out, False
        dry = False
        error: MQMIError | None = None
        for (md, _, _), r in zip(items, get_many(hobj, items), strict=False):
            if isinstance(r, MQMIError):
                if r.reason == C.MQRC_NO_MSG_AVAILABLE:
                    dry = True
                elif error is None:
                    error = r
                continue
            if r.reason != C.MQRC_NONE:  # a warning: no message; the first is raised after the batch
                if error is None:
                    error = MQMIError(r.comp, r.reason, message=Message(r.data, md), original_length=r.data_length)
                continue
            out.append(Message(r.data, md, r.props))
        if error is not None:
            error.messages = out  # type: ignore[attr-defined]
            raise error
        return out, dry

    @staticmethod
    def _raise_warning(reason: int) -> None:
        if reason != C.MQRC_NONE:
            raise MQMIError(C.MQCC_WARNING, reason)
