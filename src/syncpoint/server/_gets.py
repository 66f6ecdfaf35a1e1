"""A session's MQGETs that wait, and its verbs on shared queues: the calls during which the session waits.

An MQGET with MQGMO_WAIT that finds nothing parks its session (its later requests wait, as MQI calls on one
connection do) in the host's waiters as a :class:`~._hub.ParkedGet`; the server wakes it when a put, commit or
backout makes its queue interesting, or times it out at its deadline, and :meth:`Gets.retry_get` tries again.

A verb on a shared queue (queue-sharing groups) waits for PostgreSQL: it runs in a worker thread
(:func:`group_workers`) with the host's lock let go, the session blocked meanwhile, and its reply (or its wait,
for a get that found nothing) is taken up on the loop when the worker ends. A connection that ends while its
verb runs ends after it.

The mixin :class:`Gets` is a part of ``_session.Session``; what it uses of the rest of the session is declared
in its body.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TYPE_CHECKING, Any

from syncpoint.engine import Connection
from syncpoint.mqi import MQGMO, MQMD, GetResult, MQMIError
from syncpoint.mqi import constants as C
from syncpoint.mqi.properties import to_wire
from syncpoint.store import Pending
from syncpoint.wire import ProtocolError

from ._hub import Hub, ParkedGet
from ._verbs import SIZED_VERBS, VERBS, integer, struct

log = logging.getLogger("syncpoint.server")

_GROUP_VERBS = frozenset(("put", "putm", "putv", "get", "getm"))  # on a handle: on a shared queue, in a worker
_GROUP_WORKERS: ThreadPoolExecutor | None = None


def group_workers() -> ThreadPoolExecutor:
    """The threads that run the verbs on shared queues (queue-sharing groups): each waits for PostgreSQL on a
    connection of its own with the host's lock let go, while the loop serves the other sessions."""
    global _GROUP_WORKERS
    if _GROUP_WORKERS is None:
        size = int(os.environ.get("SYNCPOINT_QSG_WORKERS", "16"))
        _GROUP_WORKERS = ThreadPoolExecutor(max(1, size), thread_name_prefix="syncpoint-qsg")
    return _GROUP_WORKERS


def _get_args(args: list[Any]) -> tuple[int, MQMD, MQGMO, int | None]:
    """An MQGET's ``[Hobj, MQMD, MQGMO, BufferLength]``, checked as the MQI checks them."""
    hobj = integer(args[0], C.MQRC_HOBJ_ERROR, "Hobj")
    md, gmo = struct(MQMD, args[1]), struct(MQGMO, args[2])
    buflen = args[3]
    if buflen is not None:
        buflen = integer(buflen, C.MQRC_BUFFER_LENGTH_ERROR, "BufferLength")
    return hobj, md, gmo, buflen


class Gets:
    """The waiting part of a session (module docstring)."""

    server: Hub
    peer: str
    conn: Connection | None
    blocked: bool
    waiter: ParkedGet | None
    in_worker: bool
    _current_rid: int
    _rewake: bool
    _end_after_worker: bool | None

    if TYPE_CHECKING:

        def reply_error(self, request_id: int, error: MQMIError) -> None: ...

        def fill_bad(self, rid: int, detail: str) -> None: ...

        def unblock(self) -> None: ...

        def end_connection(self, abnormal: bool) -> None: ...

        def _reply_when_durable(self, request_id: int, result: Any, pending: Pending | None) -> None: ...

    # -- verbs on shared queues (queue-sharing groups): in a worker, the session waiting -----------------
    def _in_group(self, verb: str, conn: Connection, args: list[Any]) -> bool:
        """Run a verb that reaches the group's shared store in a worker thread (True), so that the loop serves
        the other sessions while it waits for PostgreSQL; this session's later requests wait for it (a
        connection's calls run in order)."""
        qm = self.server.qm
        if verb in _GROUP_VERBS:
            h = conn.handles.get(args[0]) if args and isinstance(args[0], int) else None
            if h is None or h.queue is None or not h.queue.shared:
                return False
        elif verb not in ("commit", "backout") or conn.hconn not in qm.engine._shared_uows:
            return False
        if verb == "get":
            self._run_get_in_worker(conn, args)
            return True
        handler = VERBS.get(verb)
        sized = SIZED_VERBS.get(verb)
        max_frame = self.server.max_frame

        def work() -> tuple[Any, Pending | None]:
            if handler is not None:
                return handler(qm, conn, args)
            assert sized is not None
            return sized(qm, conn, args, max_frame)

        self._to_worker(work, self._verb_done)
        return True

    def _to_worker(self, work: Callable[[], Any], done: Callable[[Future[Any]], None]) -> None:
        loop = self.server.loop
        assert loop is not None
        self.blocked = True
        self.in_worker = True
        future = group_workers().submit(work)
        rid = self._current_rid

        def finished(f: Future[Any]) -> None:
            try:
                loop.call_soon_threadsafe(self._worker_finished, rid, f, done)
            except RuntimeError:  # the loop has closed: the server is gone
                pass

        future.add_done_callback(finished)

    def _worker_finished(self, rid: int, f: Future[Any], done: Callable[..., None]) -> None:
        self.in_worker = False
        self._current_rid = rid
        done(f)
        if self._end_after_worker is not None:
            abnormal, self._end_after_worker = self._end_after_worker, None
            if self.waiter is not None:
                self.server.unpark(self.waiter)
                self.waiter = None
            self.end_connection(abnormal)
            self.server.check_controlled_end()
            return
        if not self.in_worker and self.waiter is None:
            self.unblock()

    def _verb_done(self, f: Future[Any]) -> None:
        rid = self._current_rid
        try:
            result, pending = f.result()
            self._reply_when_durable(rid, result, pending)
        except MQMIError as e:
            self.reply_error(rid, e)
        except ProtocolError as e:
            self.server.stats.bad_requests += 1
            self.fill_bad(rid, e.detail)
        except Exception as e:  # a defect must not take the server down: the caller learns, the log tells
            log.exception("unexpected error in a verb on a shared queue from %s", self.peer)
            self.reply_error(rid, MQMIError(C.MQCC_FAILED, C.MQRC_UNEXPECTED_ERROR, f"{type(e).__name__}: {e}"))

    def _run_get_in_worker(self, conn: Connection, args: list[Any], w: ParkedGet | None = None) -> None:
        """An MQGET on a shared queue, or a woken retry of one (``w``): the attempt in a worker; then, on the
        loop, the reply, or the wait (parked as :meth:`_get` parks, and tried again at once if the queue was
        woken while the attempt ran with the host's lock let go)."""
        qm = self.server.qm
        if w is None:
            hobj, md, gmo, buflen = _get_args(args)
            deadline = qm.waiters.deadline_of(gmo)
            rid = self._current_rid
        else:
            assert w.md is not None and w.gmo is not None
            hobj, md, gmo, buflen, deadline, rid = w.hobj, w.md, w.gmo, w.buflen, w.deadline, w.request_id
        h = conn.handles.get(hobj)
        qname = "" if h is None or h.queue is None else h.queue.name
        woken = qm.waiters.woken(qname)

        def done(f: Future[Any]) -> None:
            try:
                result, pending = f.result()
            except MQMIError as e:
                if deadline is None or e.reason != C.MQRC_NO_MSG_AVAILABLE:
                    self._get_ended(w, rid, e)
                    return
                again = self._rewake or qm.waiters.woken(qname) != woken
                self._get_waits(conn, w, rid, hobj, md, gmo, buflen, deadline, again)
                return
            except Exception as e:
                log.exception("unexpected error in a get on a shared queue")
                self._get_ended(w, rid, MQMIError(C.MQCC_FAILED, C.MQRC_UNEXPECTED_ERROR, str(e)))
                return
            if w is not None:
                self.server.unpark(w)
                self.waiter = None
            self._reply_when_durable(rid, get_answer(result, md, gmo), pending)

        self._current_rid = rid
        self._to_worker(lambda: qm.run(qm.engine.get, conn, hobj, md, gmo, buflen), done)

    def _get_ended(self, w: ParkedGet | None, rid: int, error: MQMIError) -> None:
        if w is not None:
            self.server.unpark(w)
            self.waiter = None
        self.reply_error(rid, error)

    def _get_waits(
        self,
        conn: Connection,
        w: ParkedGet | None,
        rid: int,
        hobj: int,
        md: MQMD,
        gmo: MQGMO,
        buflen: int | None,
        deadline: float,
        woken: bool,
    ) -> None:
        server = self.server
        h = conn.handles.get(hobj)
        if w is None:
            if h is None or h.queue is None:
                self.reply_error(rid, MQMIError(C.MQCC_FAILED, C.MQRC_HOBJ_ERROR, "the handle is not open"))
                return
            w = self._park(h.queue.name, rid, hobj, md, gmo, buflen, deadline)
        else:
            ended = server.qm.waiters.end_of_wait(w, h is not None and h.queue is not None)
            if ended is not None:
                self._get_ended(w, rid, ended)
                return
            if w.timer is None:
                server.arm(w)
        if woken and server.loop is not None:  # woken while the attempt ran: try again now
            server.loop.call_soon(self.retry_get, w)

    # -- MQGET with waiting ---------------------------------------------------------------------------
    def _get(self, rid: int, conn: Connection, args: list[Any]) -> None:
        hobj, md, gmo, buflen = _get_args(args)
        qm = self.server.qm
        deadline = qm.waiters.deadline_of(gmo)
        if self._try_get(rid, conn, hobj, md, gmo, buflen, deadline is not None):
            return
        h = conn.handles.get(hobj)
        if h is None or h.queue is None:
            raise MQMIError(C.MQCC_FAILED, C.MQRC_HOBJ_ERROR, "the handle is not open")
        assert deadline is not None
        self._park(h.queue.name, rid, hobj, md, gmo, buflen, deadline)

    def _park(
        self, queue: str, rid: int, hobj: int, md: MQMD, gmo: MQGMO, buflen: int | None, deadline: float
    ) -> ParkedGet:
        """Park this session's get of ``queue`` in the host's waiters: its later requests wait for it."""
        w = ParkedGet(queue, deadline, bool(gmo.Options & C.MQGMO_FAIL_IF_QUIESCING))
        w.session, w.request_id, w.hobj, w.md, w.gmo, w.buflen = self, rid, hobj, md, gmo, buflen  # type: ignore[assignment]
        w.hconn = self.conn.hconn if self.conn is not None else 0
        self.blocked = True
        self.waiter = w
        self.server.park(w)
        return w

    def _try_get(
        self, rid: int, conn: Connection, hobj: int, md: MQMD, gmo: MQGMO, buflen: int | None, wait: bool
    ) -> bool:
        """One attempt. True when the call ended (replied); False when it should wait."""
        qm = self.server.qm
        try:
            result, pending = qm.run(qm.engine.get, conn, hobj, md, gmo, buflen)
        except MQMIError as e:
            if wait and e.reason == C.MQRC_NO_MSG_AVAILABLE:
                return False
            self.reply_error(rid, e)
            return True
        self._reply_when_durable(rid, get_answer(result, md, gmo), pending)
        return True

    def retry_get(self, w: ParkedGet) -> None:
        """A parked get was woken (or its timer fired): try again; if nothing came, the host's waiters say
        whether the wait ends (deadline, closed handle, quiescing, stopped) or goes on."""
        if w.done:
            return
        server = self.server
        conn = self.conn
        if conn is None:
            server.end_wait(w, MQMIError(C.MQCC_FAILED, C.MQRC_CONNECTION_BROKEN, "the connection ended"))
            return
        assert w.md is not None and w.gmo is not None
        if server.qm.shared is not None:
            if self.in_worker:  # its attempt is running: it tries again when it ends
                self._rewake = True
                return
            h = conn.handles.get(w.hobj)
            if h is not None and h.queue is not None and h.queue.shared:
                self._rewake = False
                self._run_get_in_worker(conn, [], w)
                return
        try:
            if not self._try_get(w.request_id, conn, w.hobj, w.md, w.gmo, w.buflen, wait=True):
                h = conn.handles.get(w.hobj)
                ended = server.qm.waiters.end_of_wait(w, h is not None and h.queue is not None)
                if ended is None:
                    if w.timer is None:
                        server.arm(w)
                    return
                self.reply_error(w.request_id, ended)
        except Exception as e:
            log.exception("unexpected error in a waiting get")
            server.end_wait(w, MQMIError(C.MQCC_FAILED, C.MQRC_UNEXPECTED_ERROR, str(e)))
            return
        server.unpark(w)
        self.unblock()


def get_answer(result: GetResult, md: MQMD, gmo: MQGMO) -> list[Any]:
    """A get's reply: [data, DataLength, CompCode, Reason, MQMD, MQGMO], and the message's properties for the
    caller's message handle when there are any (docs/protocol.md)."""
    answer = [result.data, result.data_length, result.comp, result.reason, md.pack(), gmo.pack()]
    if result.props is not None:
        answer.append(to_wire(result.props))
    return answer
