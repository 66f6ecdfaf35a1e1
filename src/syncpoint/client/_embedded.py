"""The in-process transport: the queue manager's host (engine, store, lock) in this process, shared by every
connection made here. See :mod:`syncpoint.host` for how calls, durability and waits work.
"""

from __future__ import annotations

import atexit
import logging
import os
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from syncpoint import _home
from syncpoint.engine import Clock, GetResult, QueueManager, SystemClock
from syncpoint.host import ADMIN_VERBS, QueueManagerHost, os_user
from syncpoint.mqi import MQGMO, MQMD, MQOD, MQPMO, MQSD, MQSRO, MQMIError
from syncpoint.mqi import constants as C
from syncpoint.mqi.properties import Props
from syncpoint.store import SQLiteStore, Store, StoreError

from ._local import missing_qmgr

EmbeddedQueueManager = QueueManagerHost  # the in-process face of the host

log = logging.getLogger("syncpoint.client")

_registry: dict[str, QueueManagerHost] = {}
_registry_lock = threading.Lock()


def _unregister(qm: QueueManagerHost) -> None:
    with _registry_lock:
        if qm.key is not None and _registry.get(qm.key) is qm:
            del _registry[qm.key]


class EmbeddedConnection:
    """One MQI connection to an in-process queue manager: the transport the client API drives."""

    def __init__(self, qm: EmbeddedQueueManager, appl_name: str, appl_type: int, user: str) -> None:
        self.qm = qm
        self.conn = qm.connect(appl_name, appl_type, user)

    @property
    def qmgr_name(self) -> str:
        return self.qm.name

    def open(self, od: MQOD, options: int, selection: str = "") -> int:
        return self.qm.call(self.qm.engine.open, self.conn, od, options, selection).hobj

    def close(self, hobj: int, options: int = C.MQCO_NONE) -> None:
        self.qm.call(self.qm.engine.close, self.conn, hobj, options)

    def put(self, hobj: int, md: MQMD, pmo: MQPMO, data: bytes, props: Props | None = None) -> int:
        return self.qm.call(self.qm.engine.put, self.conn, hobj, md, pmo, data, props)

    def sub(self, sd: MQSD, hobj: int, strings: dict[str, str]) -> tuple[int, int]:
        h, hsub = self.qm.call(self.qm.engine.subscribe, self.conn, sd, hobj or None, strings)
        return (h.hobj if h is not None else C.MQHO_NONE), hsub.hobj

    def subrq(self, hsub: int, action: int, sro: MQSRO) -> None:
        self.qm.call(self.qm.engine.subrq, self.conn, hsub, action, sro)

    def put1(self, od: MQOD, md: MQMD, pmo: MQPMO, data: bytes, props: Props | None = None) -> int:
        return self.qm.call(self.qm.engine.put1, self.conn, od, md, pmo, data, props)

    def get(self, hobj: int, md: MQMD, gmo: MQGMO, buflen: int | None) -> GetResult:
        return self.qm.get(self.conn, hobj, md, gmo, buflen)

    def get_many(self, hobj: int, items: Sequence[tuple[MQMD, MQGMO, int | None]]) -> list[GetResult | MQMIError]:
        """Several gets (or browses) under one hold of the queue manager, each item's MQMD and MQGMO completed in
        place: a result or an error per item, ending at the first failure (as the remote transport's ``getm``).
        Items that may wait (MQGMO_WAIT) are got one by one, waiting as MQGET does."""
        if any(gmo.Options & C.MQGMO_WAIT for _, gmo, _ in items):
            out: list[GetResult | MQMIError] = []
            for md, gmo, buflen in items:
                try:
                    out.append(self.qm.get(self.conn, hobj, md, gmo, buflen))
                except MQMIError as e:
                    out.append(e)
                    break
            return out
        get, conn = self.qm.engine.get, self.conn

        def gets() -> list[GetResult | MQMIError]:
            done: list[GetResult | MQMIError] = []
            for md, gmo, buflen in items:
                try:
                    done.append(get(conn, hobj, md, gmo, buflen))
                except MQMIError as e:
                    done.append(e)
                    break
            return done

        return self.qm.call(gets)

    def browse_index(
        self, hobj: int, md: MQMD, gmo: MQGMO, n: int
    ) -> tuple[list[tuple[int, int, bytes, int, int, int]], MQMIError | None]:
        """Up to ``n`` browses without data under one hold of the queue manager: ``([(MsgToken, BackoutCount,
        GroupId, MsgSeqNumber, MsgFlags, Priority), ...], the failure that ended the browse or None)`` (the
        engine's ``browse_index``; the remote transport's ``getm`` with the option ``index``)."""
        return self.qm.call(self.qm.engine.browse_index, self.conn, hobj, md, gmo, n)

    def inq(self, hobj: int, selectors: Sequence[int]) -> tuple[list[int], list[bytes], int]:
        return self.qm.call(self.qm.engine.inq, self.conn, hobj, selectors)

    def reserve(self, hobj: int, tokens: Sequence[int]) -> list[int]:
        return self.qm.call(self.qm.engine.reserve, self.conn, hobj, tokens)

    def release(self, hobj: int, tokens: Sequence[int] | None) -> list[int]:
        return self.qm.call(self.qm.engine.release, self.conn, hobj, tokens)

    def get_tokens(
        self, hobj: int, gmo: MQGMO, buflen: int | None, tokens: Sequence[int]
    ) -> tuple[list[tuple[MQMD, GetResult] | None], MQMIError | None]:
        return self.qm.call(self.qm.engine.get_tokens, self.conn, hobj, tokens, gmo, buflen)

    def set(self, hobj: int, selectors: Sequence[int], ints: Sequence[int], chars: Sequence[bytes]) -> None:
        self.qm.call(self.qm.engine.set, self.conn, hobj, selectors, ints, chars)

    def commit(self) -> None:
        self.qm.call(self.qm.engine.commit, self.conn)

    def backout(self) -> None:
        self.qm.call(self.qm.engine.backout, self.conn)

    def disconnect(self, abnormal: bool = False) -> None:
        if self.conn.alive and not self.qm.closed:
            self.qm.call(self.qm.engine.disconnect, self.conn, abnormal)

    def admin(self, verb: str, *args: Any, **kwargs: Any) -> Any:
        """Administrative verbs (define, alter, delete, clear, alter_qmgr, queue_status, handle_status, …)."""
        fn = getattr(self.qm.engine, verb, None)
        if verb.startswith("_") or fn is None or verb not in ADMIN_VERBS:
            raise MQMIError(C.MQCC_FAILED, C.MQRC_FUNCTION_NOT_SUPPORTED, f"unknown administrative verb {verb}")
        return self.qm.call(self.qm.engine.administer, self.conn, verb, list(args), kwargs)


# ------------------------------------------------------------------------------------------------------
# opening queue managers in this process
# ------------------------------------------------------------------------------------------------------
def open_embedded(
    name: str,
    *,
    home: str | os.PathLike[str] | None = None,
    store: Store | None = None,
    clock: Clock | None = None,
) -> EmbeddedQueueManager:
    """The process's embedded queue manager ``name``, opened on first use.

    With ``store`` given (e.g. a MemoryStore), that store is used and the queue manager is not shared through
    the registry.
    """
    if store is not None:
        return EmbeddedQueueManager(name, store, clock)
    path = _home.qmgr_db(name, home)
    key = str(path.resolve())
    with _registry_lock:
        qm = _registry.get(key)
        if qm is not None and not qm.closed:
            return qm
        missing = missing_qmgr(name, home)
        if missing is not None:
            raise missing
        notices = _home.make_private(name, home)
        if notices:
            log.warning("%s", _home.private_notice(name, notices))
        try:
            sqlite_store = SQLiteStore(path)
        except StoreError as e:
            raise MQMIError(C.MQCC_FAILED, C.MQRC_Q_MGR_NOT_AVAILABLE, str(e)) from None
        qm = EmbeddedQueueManager(name, sqlite_store, clock, key)
        qm.on_end.append(_unregister)
        _registry[key] = qm
        return qm


def create_queue_manager(
    name: str,
    *,
    dlq: str | None = None,
    home: str | os.PathLike[str] | None = None,
    clock: Clock | None = None,
) -> Path:
    """crtmqm: a new queue manager with its default objects under ``$SYNCPOINT_HOME``. Returns its folder."""
    from syncpoint.mqi.objects import valid_object_name

    if not valid_object_name(name):
        raise MQMIError(C.MQCC_FAILED, C.MQRC_Q_MGR_NAME_ERROR, f"{name!r} is not a valid queue manager name")
    path = _home.qmgr_db(name, home)
    if path.exists():
        raise MQMIError(C.MQCC_FAILED, C.MQRC_OBJECT_ALREADY_EXISTS, f"queue manager {name} already exists")
    _home.create_qmgr_dir(name, home)  # 0700, as the home and qmgrs/ when they are created; the store's files 0600
    store = SQLiteStore(path, create=True)
    try:
        store.open()
        batch = QueueManager.initial_batch(name, clock or SystemClock(), dlq)
        QueueManager.creator_batch(batch, os_user())  # the creating user: an administrator (docs/security.md)
        store.write(batch)
    finally:
        store.close()
    return path.parent


@atexit.register
def _end_process() -> None:
    """A process that ends without MQDISC ends abnormally: its units of work are backed out (IBM on Linux)."""
    for qm in list(_registry.values()):
        try:
            qm.close(abnormal=True)
        except Exception:
            pass
