"""Salvaging a damaged database file row by row (issue 39, defect 2: "salvmqm on a half-truncated qm.db [...] must
salvage what SQLite can still read (.recover-style) and report the rest").

The files are real SQLite stores written through SQLiteStore. Rules: SQLite's "Database File Format" (a table leaf
page is type 13, its cells listed by its cell pointer array; pages freed by deletes go on the freelist, whose first
trunk page is named at byte 32 of the header and whose page count is at byte 36).
"""

from __future__ import annotations

import os
from pathlib import Path

from syncpoint.store import Batch, SQLiteStore, StoredMessage, salvage
from syncpoint.store._salvage_db import scan_message_pages


def message(seq: int) -> StoredMessage:
    return StoredMessage(seq, "Q1", 0, bytes(364), b"body %05d " % seq + bytes(600), 0, 1.0)


def written(store_path: Path, count: int, deleted: int) -> None:
    """A store holding messages 1 to ``count`` of which the first ``deleted`` were deleted, all in qm.db."""
    store = SQLiteStore(store_path, create=True)
    store.open()
    try:
        store.write(Batch(put_messages=[message(seq) for seq in range(1, count + 1)]))
        store.checkpoint()  # into SQLite, so that the delete frees pages of the messages table
        store.write(Batch(delete_messages=list(range(1, deleted + 1))))
    finally:
        store.close()  # the journal into SQLite, SQLite's log into qm.db


def test_the_page_scan_reads_every_live_message_and_none_that_was_deleted(store_path: Path):
    # Deleted rows must not come back as messages (they were got): SQLite drops their cells from a leaf before it
    # frees the page, and the scan skips pages on the freelist as well.
    written(store_path, 400, 300)
    assert int.from_bytes(store_path.read_bytes()[36:40], "big") > 0  # pages were freed
    found = scan_message_pages(str(store_path))
    assert sorted(row[0] for row in found) == list(range(301, 401))
    assert found[0][1:5] == ("Q1", 0, bytes(364), b"body 00301 " + bytes(600))


def test_salvage_of_a_cut_database_keeps_the_rows_before_the_cut_and_reports_the_loss(store_path: Path):
    written(store_path, 2000, 0)
    os.truncate(store_path, store_path.stat().st_size // 2)
    report = salvage(store_path)
    assert 0 < report.read_from_database < 2000
    assert report.uncounted and not report.complete
    assert Path(str(store_path) + ".damaged").exists()
    store = SQLiteStore(store_path)
    snapshot = store.open()  # a sound store again
    store.close()
    seqs = [m.seq for m in snapshot.messages]
    assert len(seqs) == report.read_from_database and seqs == sorted(set(seqs))
    assert all(m.data == message(m.seq).data for m in snapshot.messages)
