"""How the command-line tools reach a queue manager: its running server, as IBM's commands and samples do.

runmqsc, amqsput / amqsget / amqsbcg, runmqtrm, runmqdlq and strmqcsv connect with :func:`connect_running`:
when no server runs they fail with MQRC_Q_MGR_NOT_AVAILABLE (2059) and never run a queue manager in their own
process (issue 21, item 1: its non-persistent messages ended with the tool's process). Embedded use stays for
programs that ask for it (``syncpoint.connect`` in a program of one's own).
"""

from __future__ import annotations

import os
from pathlib import Path

import syncpoint
from syncpoint import _home
from syncpoint.client import QueueManager, local_server
from syncpoint.mqi import MQMIError
from syncpoint.mqi import constants as C
from syncpoint.server import embedded_holder, process_description


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
    return syncpoint.connect(name, unix_path=info["unix"], appl_name=appl_name, user=user, password=password)


def queue_managers() -> tuple[Path, list[str]]:
    """The folder of the queue managers under $SYNCPOINT_HOME and, sorted, the names of those it holds."""
    root = _home.home() / "qmgrs"
    return root, sorted(p.name for p in root.iterdir() if (p / "qm.db").exists()) if root.exists() else []


def implied_queue_manager() -> tuple[str | None, Path, list[str]]:
    """The queue manager a tool means when none is named (runmqdlq, runmqtrm): the default queue manager
    (``crtmqm -q``), else the only one under $SYNCPOINT_HOME — or None, with the folder and the names it found
    (none, or several), for the tool to say in its own words."""
    default = _home.default_queue_manager()
    if default is not None:
        return default, _home.home() / "qmgrs", [default]
    root, names = queue_managers()
    return (names[0] if len(names) == 1 else None), root, names
