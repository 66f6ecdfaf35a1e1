"""What a program on this machine reads of a queue manager's folder (``$SYNCPOINT_HOME/qmgrs/NAME``): whether
its server is running (``server.json``: then connections go over its Unix socket) and whether it requires a
user and password of client connections (``users.json``: the CHCKCLNT a command server reports).

The files are the server's (``syncpoint.server`` writes and reads them); the client reads them through the
server's public face, loaded only when asked — a connection with a ``host`` never reads them.

Implements: docs/protocol.md (the Unix socket), reference/ibmmq-compat.md (client connections and passwords).
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ._api import QueueManager


def local_server(name: str, home: str | os.PathLike[str] | None = None) -> dict[str, Any] | None:
    """What ``server.json`` says of a live server of queue manager ``name`` (its pid, Unix socket, …); None
    when none is running."""
    from syncpoint.server import server_info

    info: dict[str, Any] | None = server_info(name, home)
    return info


def passwords_required(name: str, home: str | os.PathLike[str] | None = None) -> bool:
    """Whether queue manager ``name`` requires a user and password of client connections: its password file
    names a user, or cannot be read (a damaged file never opens the door)."""
    from syncpoint import _home
    from syncpoint.server import Users

    try:
        return Users(_home.qmgr_dir(name, home) / "users.json").required
    except ValueError:
        return True


def connect_running(
    name: str,
    *,
    home: str | os.PathLike[str] | None = None,
    appl_name: str | None = None,
    user: str | None = None,
    password: str | None = None,
) -> QueueManager:
    """Connect to the running server of queue manager ``name`` on this machine, as IBM's commands and samples
    do: never a queue manager in this process (its non-persistent messages would end with it).

    Raises MQMIError MQRC_Q_MGR_NAME_ERROR (2058) when the queue manager does not exist and
    MQRC_Q_MGR_NOT_AVAILABLE (2059) when it is not running — also when a program holds it embedded, which its
    detail names."""
    from syncpoint import _home
    from syncpoint.mqi import MQMIError
    from syncpoint.mqi import constants as C
    from syncpoint.server import embedded_holder, process_description

    from ._api import connect

    info = local_server(name, home)
    if info is None:
        if not _home.qmgr_db(name, home).exists():
            raise MQMIError(
                C.MQCC_FAILED,
                C.MQRC_Q_MGR_NAME_ERROR,
                f"queue manager {name} does not exist under {_home.home(home)}; create it with "
                f"'syncpoint crtmqm {name}'",
            )
        holder = embedded_holder(name, home)
        if holder is not None:
            detail = (
                f"queue manager {name} runs embedded in {process_description(holder)}, which no other process can "
                "reach; end that program, then start the queue manager with 'syncpoint strmqm " + name + "'"
            )
        else:
            detail = f"queue manager {name} is not running; start it with 'syncpoint strmqm {name}'"
        raise MQMIError(C.MQCC_FAILED, C.MQRC_Q_MGR_NOT_AVAILABLE, detail)
    return connect(name, unix_path=info["unix"], appl_name=appl_name, user=user, password=password)
