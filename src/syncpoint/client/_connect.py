"""``syncpoint.connect``: which transport a connection takes — TCP or a Unix socket to a server, or the queue
manager embedded in this process (see :func:`connect`)."""

from __future__ import annotations

import os
import ssl
import sys
from typing import TYPE_CHECKING

from syncpoint.mqi import MQMIError
from syncpoint.mqi import constants as C

from ._api import QueueManager

if TYPE_CHECKING:
    from syncpoint.engine import Clock
    from syncpoint.store import Store

    from ._embedded import EmbeddedQueueManager


def connect(
    name: str,
    *,
    host: str | None = None,
    home: str | os.PathLike[str] | None = None,
    appl_name: str | None = None,
    store: Store | None = None,
    clock: Clock | None = None,
    embedded: EmbeddedQueueManager | None = None,
    user: str | None = None,
    password: str | None = None,
    tls: ssl.SSLContext | bool | None = None,
    unix_path: str | None = None,
    channel: str | None = None,
) -> QueueManager:
    """Connect to queue manager ``name``.

    * ``host="localhost(1414)"`` (IBM's CONNAME form): over TCP to a queue manager server, with ``user`` and
      ``password`` when the server requires authentication and ``tls`` (True, or an ``ssl.SSLContext`` trusting
      the server's certificate) when it serves TLS, on the server-connection channel ``channel`` (IBM's MQCD
      ChannelName; default SYSTEM.DEF.SVRCONN, which IBM's default channel authentication rules block: name one
      a rule allows, docs/security.md).
    * otherwise, when the queue manager's server is running on this machine (``syncpoint strmqm``): over its Unix
      socket;
    * otherwise embedded: the queue manager runs inside this process from its files under ``$SYNCPOINT_HOME``
      (or ``home``). ``embedded=`` connects to an already opened in-process queue manager (e.g.
      :func:`memory_queue_manager`), ``store=`` opens one over the given store.
    """
    from ._remote import RemoteTransport, parse_conname

    appl = appl_name or os.path.basename(sys.argv[0] or "python")[-28:]
    if host is not None or unix_path is not None:
        address = parse_conname(host) if host is not None else None
        return QueueManager(
            RemoteTransport(
                name,
                address=address,
                unix_path=unix_path,
                appl_name=appl,
                user=user,
                password=password,
                tls=tls,
                channel=channel or "",
            )
        )
    from ._embedded import EmbeddedConnection, open_embedded
    from ._local import local_server as server_info

    if embedded is None and store is None:
        info = server_info(name, home)
        if info is not None:
            return QueueManager(
                RemoteTransport(name, unix_path=info["unix"], appl_name=appl, user=user, password=password)
            )
        try:
            qm = open_embedded(name, home=home, clock=clock)
        except MQMIError as e:
            # the server may have started meanwhile and holds the store
            info = server_info(name, home) if e.reason == C.MQRC_Q_MGR_NOT_AVAILABLE else None
            if info is None:
                raise
            return QueueManager(
                RemoteTransport(name, unix_path=info["unix"], appl_name=appl, user=user, password=password)
            )
    else:
        qm = embedded or open_embedded(name, home=home, store=store, clock=clock)
    if qm.name != name:
        raise MQMIError(C.MQCC_FAILED, C.MQRC_Q_MGR_NAME_ERROR, f"this is queue manager {qm.name}, not {name}")
    return QueueManager(EmbeddedConnection(qm, appl, C.MQAT_UNIX, user or ""))
