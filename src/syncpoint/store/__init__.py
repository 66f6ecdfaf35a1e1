"""syncpoint.store: durable queue-manager state behind a narrow contract (see ``_base`` for the contract).

``SQLiteStore`` is the durable store (SQLite in WAL mode, one writer thread, group commit); ``MemoryStore``
keeps the same contract in memory, and its ``open()`` may be called again to simulate a restart.
``PostgresStore`` keeps it in a PostgreSQL database under a namespace (queue-sharing groups).
"""

import importlib
from typing import TYPE_CHECKING, Any

from ._base import Batch, Pending, Snapshot, Store, StoreDamagedError, StoredMessage, StoreError
from ._group import (
    DECISION_KIND,
    encode_private_part,
    follow_resolutions,
    group_of,
    membership_record,
    open_group,
)
from ._memory import MemoryStore
from ._salvage import SalvageReport, salvage
from ._shared import InDoubtUnit, SharedMatch, SharedMessage, SharedQueues, expired_at
from ._sqlite import SQLiteStore

if TYPE_CHECKING:
    from ._postgres import PostgresStore
    from ._postgres_shared import PostgresSharedQueues, create_member, remove_member

# the server's package loads its heavy names the same way (server/__init__): each package's own table of its own
# modules, so alike in shape only
_POSTGRES = {  # loaded on first use: psycopg takes a while to import, and only group members need it
    "PostgresStore": "._postgres",
    "PostgresSharedQueues": "._postgres_shared",
    "create_member": "._postgres_shared",
    "remove_member": "._postgres_shared",
}


def __getattr__(name: str) -> Any:
    module = _POSTGRES.get(name)
    if module is None:
        raise AttributeError(f"module 'syncpoint.store' has no attribute {name!r}")
    return getattr(importlib.import_module(module, __name__), name)


__all__ = [
    "DECISION_KIND",
    "Batch",
    "InDoubtUnit",
    "MemoryStore",
    "Pending",
    "PostgresSharedQueues",
    "PostgresStore",
    "SQLiteStore",
    "SalvageReport",
    "SharedMatch",
    "SharedMessage",
    "SharedQueues",
    "Snapshot",
    "Store",
    "StoreDamagedError",
    "StoreError",
    "StoredMessage",
    "create_member",
    "encode_private_part",
    "expired_at",
    "follow_resolutions",
    "group_of",
    "membership_record",
    "open_group",
    "remove_member",
    "salvage",
]
