"""The asyncio client's API: the Pythonic API of ``syncpoint.connect`` with coroutines, over the same protocol.

    async with await syncpoint.aio.connect("QM1") as qm:
        q = await qm.open("ORDERS")
        await q.put(b"...", persistent=True, syncpoint=True)
        await qm.commit()
        msg = await q.get(wait=5)          # waits in the server: the event loop goes on meanwhile
        async for msg in q:                # every message, as it arrives
            ...

A queue opened without options keeps a handle per purpose, opened on first use, and a model queue opened this
way makes one dynamic queue whose real name ``Queue.name`` holds — as ``syncpoint.connect``'s Queue does.

Implements: docs/protocol.md (the verbs), reference/structures.md (the MQMD, MQGMO, MQPMO, MQOD it fills).
"""

from __future__ import annotations

import contextlib
import math
import os
import ssl
import sys
from collections.abc import AsyncIterator
from typing import Any

from syncpoint.client import Message, local_server, missing_qmgr, parse_conname
from syncpoint.client.keywords import PURPOSE_OPTIONS, PYTHONIC_HMSG, msg_id_bytes, put_keywords, wait_ms
from syncpoint.mqi import MQGMO, MQMD, MQOD, MQMIError, blank_strip
from syncpoint.mqi import constants as C
from syncpoint.mqi.properties import build as build_props
from syncpoint.mqi.properties import received, to_wire

from . import _pubsub
from ._connection import AsyncConnection

# a get loop ends quietly when the queue manager ends (IBM's rule for a program: stop on these reasons)
_ENDING = (C.MQRC_Q_MGR_QUIESCING, C.MQRC_Q_MGR_STOPPING)


class Queue:
    """An opened queue. ``async with`` closes it; ``async for msg in queue`` gets messages as they arrive."""

    def __init__(self, qm: QueueManager, name: str, options: int | None, selector: str = "") -> None:
        self.qm = qm
        self.name = name
        self._fixed = options
        self.selector = selector  # the SelectionString of its get and browse handles
        self._handles: dict[str, int] = {}
        self._closed = False

    async def _open(self) -> Queue:
        if self._fixed is not None:
            self._handles["all"], self.name = await self.qm._open_handle(self.name, self._fixed, self.selector)
            return self
        # MQOPEN of a model queue creates a dynamic queue: learn whether this is one with an inquire open (the
        # blocking API's Queue explains it); a failure is left to the first use to report
        try:
            h, real = await self.qm._open_handle(self.name, PURPOSE_OPTIONS["inquire"])
        except MQMIError:
            return self
        if real == self.name:
            await self.qm.transport.call("close", [h, C.MQCO_NONE])
        else:
            self.name = real
            self._handles["inquire"] = h
        return self

    async def _h(self, purpose: str) -> int:
        key = "all" if self._fixed is not None else purpose
        h = self._handles.get(key)
        if h is None:
            if self._closed or self._fixed is not None:
                raise MQMIError(C.MQCC_FAILED, C.MQRC_HOBJ_ERROR, f"queue {self.name} was closed; open it again")
            sel = self.selector if purpose in ("get", "browse") else ""
            h = self._handles[key] = (await self.qm._open_handle(self.name, PURPOSE_OPTIONS[purpose], sel))[0]
        return h

    # -- put ------------------------------------------------------------------------------------------
    async def put(self, data: bytes | str, **kw: Any) -> MQMD:
        """Put one message; returns its MQMD as the queue manager completed it. The keywords are those of
        ``syncpoint.connect``'s ``Queue.put``: ``syncpoint``, ``priority``, ``persistent``, ``expiry`` (seconds),
        ``msg_id``, ``correl_id``, ``reply_to``, ``format``, ``msg_type``, ``report``, ``md``, ``pmo``,
        ``properties``; text is put with Format MQSTR."""
        props = to_wire(build_props(kw.pop("properties", None)))
        data, md, pmo = put_keywords(data, kw)
        h = await self._h("put")
        args: list[Any] = [h, md.pack(), pmo.pack(), data]
        if props:
            args.append(props)
        reason, md_b, pmo_b = await self.qm.transport.call("put", args)
        md.unpack_into(md_b)
        pmo.unpack_into(pmo_b)
        _raise_warning(reason)
        return md

    # -- get ------------------------------------------------------------------------------------------
    # the keywords of the blocking Queue.get (client/_api.py), declared again for the coroutine; both turn them into
    # the MQGMO with client.keywords
    async def get(
        self,
        *,
        wait: float | None = None,
        syncpoint: bool = False,
        mark_skip_backout: bool = False,
        msg_id: bytes | str | None = None,
        correl_id: bytes | str | None = None,
        max_length: int | None = None,
        accept_truncated: bool = False,
    ) -> Message:
        """Get (remove) the next message. ``wait`` in seconds (math.inf: forever) is waited in the server, so the
        event loop runs on meanwhile. Raises MQMIError 2033 (MQRC_NO_MSG_AVAILABLE) when there is none."""
        md = MQMD()
        if msg_id is not None:
            md.MsgId = msg_id_bytes(msg_id)
        if correl_id is not None:
            md.CorrelId = msg_id_bytes(correl_id)
        w, interval = wait_ms(wait)
        gmo = MQGMO(Options=w | C.MQGMO_FAIL_IF_QUIESCING, WaitInterval=interval, MsgHandle=PYTHONIC_HMSG)
        gmo.Options |= C.MQGMO_SYNCPOINT if syncpoint else C.MQGMO_NO_SYNCPOINT
        if mark_skip_backout:
            gmo.Options |= C.MQGMO_MARK_SKIP_BACKOUT
        if accept_truncated:
            gmo.Options |= C.MQGMO_ACCEPT_TRUNCATED_MSG
        return await self.qm._get(await self._h("get"), md, gmo, max_length)

    async def get_or_none(self, **kw: Any) -> Message | None:
        try:
            return await self.get(**kw)
        except MQMIError as e:
            if e.reason == C.MQRC_NO_MSG_AVAILABLE:
                return None
            raise

    async def messages(self, *, wait: float | None = math.inf, syncpoint: bool = False) -> AsyncIterator[Message]:
        """Get messages as they arrive, until none arrives within ``wait`` seconds (default: wait forever) or
        the queue manager ends (MQRC_Q_MGR_QUIESCING / _STOPPING end the loop quietly)."""
        while True:
            try:
                m = await self.get_or_none(wait=wait, syncpoint=syncpoint)
            except MQMIError as e:
                if e.reason in _ENDING:
                    return
                raise
            if m is None:
                return
            yield m

    def __aiter__(self) -> AsyncIterator[Message]:
        return self.messages()

    async def browse(self, *, first: bool = False, wait: float | None = None, max_length: int | None = None) -> Message:
        """Browse the next message (``first=True``: from the start) without removing it."""
        w, interval = wait_ms(wait)
        where = C.MQGMO_BROWSE_FIRST if first else C.MQGMO_BROWSE_NEXT
        gmo = MQGMO(Options=w | where | C.MQGMO_FAIL_IF_QUIESCING, WaitInterval=interval)
        return await self.qm._get(await self._h("browse"), MQMD(), gmo, max_length)

    # -- attributes -----------------------------------------------------------------------------------
    async def inquire(self, selector: int) -> int | str:
        ints, chars, _ = await self.qm.transport.call("inq", [await self._h("inquire"), [selector]])
        return int(ints[0]) if ints else blank_strip(chars[0])

    async def depth(self) -> int:
        return int(await self.inquire(C.MQIA_CURRENT_Q_DEPTH))

    # -- end ------------------------------------------------------------------------------------------
    async def close(self, options: int = C.MQCO_NONE) -> None:
        self._closed = True
        handles = list(self._handles.values())[::-1]  # the handle that created a dynamic queue last
        self._handles.clear()
        for h in handles:
            await self.qm.transport.call("close", [h, options])

    async def __aenter__(self) -> Queue:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()


class QueueManager:
    """A connection to a queue manager server (the MQ "hconn"), with coroutines."""

    def __init__(self, transport: AsyncConnection) -> None:
        self.transport = transport
        self.name = transport.qmgr_name
        self._connected = True

    async def open(self, name: str, options: int | None = None, selector: str = "") -> Queue:
        """Open a queue. Without ``options`` a handle per purpose is opened on first use; gets and browses see
        only the messages ``selector`` (an MQ selection string) chooses."""
        return await Queue(self, name, options, selector)._open()

    async def put1(self, qname: str, data: bytes | str, **kw: Any) -> MQMD:
        """MQPUT1: open, put one message, close. The keywords are ``Queue.put``'s."""
        props = to_wire(build_props(kw.pop("properties", None)))
        data, md, pmo = put_keywords(data, kw)
        od = MQOD(ObjectName=qname.encode())
        args: list[Any] = [od.pack(), md.pack(), pmo.pack(), data]
        if props:
            args.append(props)
        reason, od_b, md_b, pmo_b = await self.transport.call("put1", args)
        od.unpack_into(od_b)
        md.unpack_into(md_b)
        pmo.unpack_into(pmo_b)
        _raise_warning(reason)
        return md

    async def publish(self, topic: str, data: bytes | str, **kw: Any) -> MQMD:
        """Publish on a topic string (``_pubsub``)."""
        return await _pubsub.publish(self, topic, data, **kw)

    async def subscribe(self, topic: str = "", **kw: Any) -> _pubsub.Subscription:
        """MQSUB: an async iterable Subscription (``_pubsub``)."""
        return await _pubsub.subscribe(self, Queue, topic, **kw)

    async def commit(self) -> None:
        await self.transport.call("commit", [])

    async def backout(self) -> None:
        await self.transport.call("backout", [])

    @contextlib.asynccontextmanager
    async def unit_of_work(self) -> AsyncIterator[QueueManager]:
        """Commit when the block ends normally, back out when it raises."""
        try:
            yield self
        except BaseException:
            await self.backout()
            raise
        await self.commit()

    async def admin(self, verb: str, *args: Any, **kwargs: Any) -> Any:
        return await self.transport.call("admin", [verb, list(args), kwargs])

    async def disconnect(self) -> None:
        """MQDISC: closes the handles and commits the unit of work (IBM's rule for a normal end)."""
        if self._connected:
            self._connected = False
            await self.transport.disconnect(False)

    async def __aenter__(self) -> QueueManager:
        return self

    async def __aexit__(self, exc_type: object, *exc: object) -> None:
        """A normal end disconnects (commits); an exception ends the connection abnormally (backs out)."""
        if not self._connected:
            return
        self._connected = False
        await self.transport.disconnect(exc_type is not None)

    # -- internals ------------------------------------------------------------------------------------
    async def _open_handle(self, name: str, options: int, selection: str = "") -> tuple[int, str]:
        od = MQOD(ObjectName=name.encode())
        args = [od.pack(), options, selection] if selection else [od.pack(), options]
        hobj, od_b = await self.transport.call("open", args)
        od.unpack_into(od_b)
        return int(hobj), blank_strip(od.ObjectName)

    async def _get(self, hobj: int, md: MQMD, gmo: MQGMO, buflen: int | None) -> Message:
        answer = await self.transport.call("get", [hobj, md.pack(), gmo.pack(), buflen])
        data, length, comp, reason, md_b, gmo_b = answer[:6]
        md.unpack_into(md_b)
        gmo.unpack_into(gmo_b)
        if reason != C.MQRC_NONE:
            raise MQMIError(comp, reason, message=Message(data, md), original_length=length)
        return Message(data, md, received(answer[6]) if len(answer) > 6 else None)


def _raise_warning(reason: int) -> None:
    if reason != C.MQRC_NONE:
        raise MQMIError(C.MQCC_WARNING, reason)


async def connect(
    name: str,
    *,
    host: str | None = None,
    unix_path: str | None = None,
    home: str | os.PathLike[str] | None = None,
    appl_name: str | None = None,
    user: str | None = None,
    password: str | None = None,
    tls: ssl.SSLContext | bool | None = None,
    channel: str | None = None,
) -> QueueManager:
    """Connect to queue manager ``name``'s server: over TCP with ``host="localhost(1414)"`` (IBM's CONNAME form;
    ``user`` / ``password`` / ``tls`` / ``channel`` as ``syncpoint.connect`` takes them), else over its Unix socket
    on this machine (``unix_path``, or the one its running server recorded under ``$SYNCPOINT_HOME`` or ``home``).

    The asyncio client speaks to a server only: with none running, MQRC_Q_MGR_NOT_AVAILABLE (2059); for a queue
    manager that does not exist on this machine, MQRC_Q_MGR_NAME_ERROR (2058), as the blocking connect."""
    appl = appl_name or os.path.basename(sys.argv[0] or "python")[-28:]
    address = parse_conname(host) if host is not None else None
    if address is None and unix_path is None:
        info = local_server(name, home)
        if info is None:
            missing = missing_qmgr(name, home)
            if missing is not None:  # no such queue manager here: 2058, as the blocking connect says
                raise missing
            raise MQMIError(
                C.MQCC_FAILED,
                C.MQRC_Q_MGR_NOT_AVAILABLE,
                f"queue manager {name} is not running: start its server with 'syncpoint strmqm {name}' "
                "(syncpoint.aio connects to a server, never runs a queue manager in this process)",
            )
        unix_path = info["unix"]
    transport = await AsyncConnection.open(
        name,
        address=address,
        unix_path=unix_path,
        appl_name=appl,
        user=user,
        password=password,
        tls=tls,
        channel=channel or "",
    )
    return QueueManager(transport)
