"""``crtmqm -qsg NAME --shared URL``: a queue manager created as a member of a queue-sharing group.

Theory of operation
-------------------
The shared database is checked first and the member registered in it (``store.create_member``: the group made
when new, the name checks of IBM: a group name of 1 to 4 characters that is not the queue manager's name, one
member of a name); only then is the queue manager's folder created, with its membership (group name and URL)
in its own private store and the group's name, alone, in the file ``qsg`` for dspmq. Any failure undoes what
was done, so nothing is left half-created. The URL may hold a password: no message here names it.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from syncpoint import _home
from syncpoint.mqi import MQMIError
from syncpoint.mqi import constants as C

GROUP_FILE = "qsg"  # in the queue manager's folder: the name of its queue-sharing group (never the URL)


def create_member_qmgr(name: str, qsg: str, url: str, dlq: str | None = None) -> Path:
    """Create queue manager ``name`` as a member of ``qsg`` (see the module doc). Returns its folder.

    MQMIError as :func:`~syncpoint.client.create_queue_manager`; StoreError (a sentence) when the shared database
    refuses the member.
    """
    # the engine, the store and PostgreSQL's driver are loaded here, not by dspmq's use of group_name
    from syncpoint.client import create_queue_manager
    from syncpoint.store import Batch, SQLiteStore, create_member, membership_record, remove_member

    if _home.qmgr_db(name).exists():
        raise MQMIError(C.MQCC_FAILED, C.MQRC_OBJECT_ALREADY_EXISTS, f"queue manager {name} already exists")
    create_member(url, qsg, name)
    folder: Path | None = None
    try:
        folder = create_queue_manager(name, dlq=dlq)
        store = SQLiteStore(folder / "qm.db")
        try:
            store.open()
            store.write(Batch(put_objects=[membership_record(qsg, url)]))
        finally:
            store.close()
        (folder / GROUP_FILE).write_text(qsg + "\n")
        (folder / GROUP_FILE).chmod(0o600)  # the folder's files are private to its user, as crtmqm makes them
    except BaseException:
        remove_member(url, qsg, name)
        if folder is not None:
            shutil.rmtree(folder, ignore_errors=True)
        raise
    return folder


def group_name(name: str) -> str | None:
    """The queue-sharing group of queue manager ``name`` (None: not a member)."""
    try:
        return (_home.qmgr_dir(name) / GROUP_FILE).read_text().strip() or None
    except OSError:
        return None


__all__ = ["create_member_qmgr", "group_name"]
