"""syncpoint.store: durable queue-manager state behind a narrow contract (see ``_base`` for the contract).

``SQLiteStore`` is the durable store (SQLite in WAL mode, one writer thread, group commit); ``MemoryStore``
keeps the same contract in memory, and its ``open()`` may be called again to simulate a restart.
``PostgresStore`` keeps it in a PostgreSQL database under a namespace (queue-sharing groups).
"""

from ._base import Batch, Pending, Snapshot, Store, StoreDamagedError, StoredMessage, StoreError
from ._memory import MemoryStore
from ._postgres import PostgresStore
from ._salvage import SalvageReport, salvage
from ._sqlite import SQLiteStore

__all__ = [
    "Batch",
    "MemoryStore",
    "Pending",
    "PostgresStore",
    "SQLiteStore",
    "SalvageReport",
    "Snapshot",
    "Store",
    "StoreDamagedError",
    "StoreError",
    "StoredMessage",
    "salvage",
]
