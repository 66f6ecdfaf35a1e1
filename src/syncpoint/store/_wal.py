"""What SQLite's shared-memory index (``-shm``) says its write-ahead log (``-wal``) must hold.

SQLite opens a database whose log was deleted or truncated without an error: the committed transactions that were
only in the log are gone, silently. After a crash (a clean close empties the log into the database and removes
both files) the ``-shm`` file still holds the log's index: the number of valid frames (``mxFrame``), how many of
them are already copied into the database (``nBackfill``), the page size and the log's salt. A log with the same
salt that holds fewer frames, or a log that is missing, has lost committed transactions. Layout: SQLite's
``wal.c`` (``WalIndexHdr``, two identical 48-byte copies, then ``WalCkptInfo``); the index is in native byte
order, the salt is copied byte for byte from the log's 32-byte header.
"""

from __future__ import annotations

import os
import struct

_INDEX_HEADER = struct.Struct("=IIIBBHII8s8s8s")  # iVersion, unused, iChange, isInit, bigEndCksum, szPage, mxFrame,
# nPage, aFrameCksum, aSalt, aCksum: 48 bytes
_BACKFILL = struct.Struct("=I")  # WalCkptInfo.nBackfill, at byte 96
_INDEX_VERSION = 3007000
_WAL_HEADER = 32
_FRAME_HEADER = 24


def wal_shortfall(path: str) -> str | None:
    """A sentence saying what the log of the database ``path`` lacks, or None when nothing can be seen missing.
    Read before SQLite opens the database (it would rebuild the index from what the log holds)."""
    try:
        with open(path + "-shm", "rb") as file:
            index = file.read(136)
    except OSError:
        return None
    if len(index) < 136 or index[:48] != index[48:96]:
        return None  # no index, or one caught while being written: nothing to go by
    version, _unused, _change, is_init, _big_endian, page, frames, _pages, _sums, salt, _check = (
        _INDEX_HEADER.unpack_from(index, 0)
    )
    copied = _BACKFILL.unpack_from(index, 96)[0]
    if not is_init or version != _INDEX_VERSION or frames <= copied:
        return None  # every committed frame is in the database already
    page_size = 65536 if page == 1 else page
    needed = _WAL_HEADER + frames * (_FRAME_HEADER + page_size)
    try:
        with open(path + "-wal", "rb") as file:
            header = file.read(_WAL_HEADER)
            size = os.fstat(file.fileno()).st_size
    except FileNotFoundError:
        return (
            f"it is missing, but SQLite's index {path}-shm records {frames - copied} committed pages in it that "
            "are not in the database yet"
        )
    except OSError:
        return None
    if size >= needed:
        return None
    if size >= _WAL_HEADER and header[16:24] != salt:
        return None  # a log started again since the index was written: nothing to compare
    return (
        f"it holds {size} bytes, but SQLite's index {path}-shm records {frames} committed frames in it "
        f"({needed} bytes), {frames - copied} of them not in the database yet: it was truncated"
    )
