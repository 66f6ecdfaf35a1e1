"""What a program on this machine reads of a queue manager's folder (``$SYNCPOINT_HOME/qmgrs/NAME``): whether
its server is running (``server.json``: then connections go over its Unix socket) and whether it requires a
user and password of client connections (``users.json``: the CHCKCLNT a command server reports).

The files are the server's (``syncpoint.server`` writes and reads them); the client reads them through the
server's public face, loaded only when asked — a connection with a ``host`` never reads them.

Implements: docs/protocol.md (the Unix socket), reference/ibmmq-compat.md (client connections and passwords).
"""

from __future__ import annotations

import os
from typing import Any

from syncpoint.mqi import MQMIError
from syncpoint.mqi import constants as C


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


def missing_qmgr(name: str, home: str | os.PathLike[str] | None = None) -> MQMIError | None:
    """MQRC_Q_MGR_NAME_ERROR (2058), as IBM's MQCONN answers for a queue manager this machine does not have, when
    queue manager ``name`` has no files under ``$SYNCPOINT_HOME`` (or ``home``); None when it has. The blocking
    and the asyncio connect say it in the same words."""
    from syncpoint import _home

    path = _home.qmgr_db(name, home)
    if path.exists():
        return None
    return MQMIError(
        C.MQCC_FAILED,
        C.MQRC_Q_MGR_NAME_ERROR,
        f"queue manager {name} does not exist under {path.parent.parent}; create it with 'syncpoint crtmqm {name}'",
    )
