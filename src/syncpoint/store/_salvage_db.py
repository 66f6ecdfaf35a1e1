"""Salvaging a damaged database file: every row SQLite can still read goes into a new one (``.recover``-style).

A database file cut short, or with garbled pages, opens (its first page is intact) but fails the first read that
reaches a missing or garbled page ("database disk image is malformed"). :func:`rebuild` sets the file aside
(``qm.db.damaged``, its write-ahead log and index with it, so that what the log holds is read too), reads each
table in key order and, where a read fails, seeks past the unreadable pages (at doubling distances from the last
key read) to go on with the next page that can be read, then writes every row read into a new, empty store file.
What was on the unreadable pages cannot be counted: the report says in which tables pages were lost.
"""

from __future__ import annotations

import os
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ._journal import EPOCH_COUNTER
from ._sqlite_base import _INT64_MAX, _INT64_MIN, _transaction

if TYPE_CHECKING:
    from ._sqlite import SQLiteStore

# table, its columns, and its integer key (None: a small table read in one pass, up to the first failure)
_TABLES = (
    ("objects", ("kind", "name", "def"), None),
    ("counters", ("name", "value"), None),
    ("messages", ("seq", "queue", "priority", "md", "data", "backout", "put_time"), "seq"),
    ("inflight", ("seq",), "seq"),
)


def readable(path: str) -> str | None:
    """None if SQLite reads every page of the database ``path`` (``quick_check``); else what is wrong."""
    try:
        connection = sqlite3.connect(Path(path).absolute().as_uri() + "?mode=rw", uri=True)
    except sqlite3.Error as exc:
        return str(exc)
    try:
        problems = [row[0] for row in connection.execute("PRAGMA quick_check(5)")]
    except sqlite3.DatabaseError as exc:
        return str(exc)
    finally:
        connection.close()
    return None if problems == ["ok"] else "; ".join(problems)


@dataclass(slots=True)
class Rebuilt:
    """What :func:`rebuild` read from the damaged database."""

    damaged: str  # where the damaged file was set aside
    messages: int  # messages read
    definitions: int  # object definitions read
    lost: list[str]  # the tables with pages SQLite could no longer read
    epoch_known: bool  # whether the journal epoch it held was read (else the journal's records cannot be placed)


def rebuild(store: SQLiteStore) -> Rebuilt:
    """Set the damaged database aside and write what can still be read of it into a new store file."""
    db = store.path
    damaged = db + ".damaged"
    for suffix in ("-wal", "-shm"):  # they go with the file they belong to (an older set-aside one is replaced)
        try:
            os.replace(db + suffix, damaged + suffix)
        except FileNotFoundError:
            try:
                os.unlink(damaged + suffix)
            except FileNotFoundError:
                pass
    os.replace(db, damaged)
    tables: dict[str, list[tuple[Any, ...]]] = {}
    lost: list[str] = []
    source = sqlite3.connect(Path(damaged).absolute().as_uri() + "?mode=rw", uri=True)
    try:
        # Reads the schema even when SQLite finds the file's size wrong for it (as the shell's .recover does).
        source.execute("PRAGMA writable_schema = ON")
        for table, columns, key in _TABLES:
            rows, failures = _read(source, table, columns, key)
            tables[table] = rows
            if failures:
                lost.append(table)
    finally:
        source.close()
    connection = store._connect(True)
    try:
        with _transaction(connection):
            for table, columns, _key in _TABLES:
                marks = ", ".join("?" * len(columns))
                connection.executemany(
                    f"INSERT OR IGNORE INTO {table}({', '.join(columns)}) VALUES ({marks})", tables[table]
                )
    finally:
        connection.close()
    return Rebuilt(
        damaged,
        len(tables["messages"]),
        len(tables["objects"]),
        lost,
        any(name == EPOCH_COUNTER for name, _value in tables["counters"]),
    )


def _read(
    source: sqlite3.Connection, table: str, columns: tuple[str, ...], key: str | None
) -> tuple[list[tuple[Any, ...]], int]:
    """The rows of ``table`` that can be read, and how many times a read failed."""
    rows: list[tuple[Any, ...]] = []
    select = f"SELECT {', '.join(columns)} FROM {table}"
    if key is None:
        try:
            for row in source.execute(select):
                rows.append(row)
        except sqlite3.DatabaseError:
            return rows, 1
        return rows, 0
    failures = 0
    start = _INT64_MIN
    while True:
        try:
            for row in source.execute(f"{select} WHERE {key} >= ? ORDER BY {key}", (start,)):
                rows.append(row)
                if row[0] >= _INT64_MAX:
                    return rows, failures
                start = row[0] + 1
            return rows, failures
        except sqlite3.DatabaseError:
            failures += 1
        following = _next_readable(source, table, key, start)
        if following is None:
            return rows, failures
        start = following


def _next_readable(source: sqlite3.Connection, table: str, key: str, start: int) -> int | None:
    """The first key at or above ``start + d`` that a seek can reach, for d = 1, 2, 4, ...; None if none."""
    step = 1
    while start + step <= _INT64_MAX:
        try:
            row = source.execute(
                f"SELECT {key} FROM {table} WHERE {key} >= ? ORDER BY {key} LIMIT 1", (start + step,)
            ).fetchone()
        except sqlite3.DatabaseError:
            step *= 2
            continue
        return None if row is None else int(row[0])
    return None
