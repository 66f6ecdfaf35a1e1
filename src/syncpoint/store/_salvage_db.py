"""Salvaging a damaged database file: every row SQLite can still read goes into a new one (``.recover``-style).

A database file cut short, or with garbled pages, opens (its first page is intact) but fails the first read that
reaches a missing or garbled page ("database disk image is malformed"). :func:`rebuild` sets the file aside
(``qm.db.damaged``, its write-ahead log and index with it, so that what the log holds is read too), reads each
table in key order and, where a read fails, seeks past the unreadable pages (at doubling distances from the last
key read) to go on with the next page that can be read. When the messages table had unreadable pages, the pages
that are left are also read one by one (:func:`scan_message_pages`): a cut often takes a b-tree's interior pages
(written last) and leaves the leaves that hold the rows. Every row read goes into a new, empty store file. What
was on the unreadable pages cannot be counted: the report says in which tables pages were lost.

The page layout (SQLite's "Database File Format": the 100-byte header, b-tree pages, varints, record serial
types, the freelist) is read only as far as salvage needs it: table leaf pages (type 13) whose rows have the
messages table's seven columns, cells whose payload is on the page (a message's body in overflow pages is lost),
and pages on the freelist skipped (they hold rows deleted since).
"""

from __future__ import annotations

import os
import sqlite3
import struct
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
    unplaced: int  # of the messages, those read from pages no longer reached from the table's root
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
    unplaced: list[tuple[Any, ...]] = []
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
    if "messages" in lost:  # pages whose parents are lost are still read, by their own layout
        known = {row[0] for row in tables["messages"]}
        unplaced = [row for row in scan_message_pages(damaged) if row[0] not in known]
        tables["messages"] += unplaced
    os.close(os.open(db, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))  # private, as every store file
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
        len({row[0] for row in tables["messages"]}),  # distinct messages: a row read twice is one message
        len(tables["objects"]),
        lost,
        len(unplaced),
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


_LEAF = 13  # a table b-tree leaf page
_MESSAGE_TYPES = 7  # seq (the rowid: NULL in the record), queue, priority, md, data, backout, put_time


def scan_message_pages(path: str) -> list[tuple[Any, ...]]:
    """The messages rows of every table leaf page of the database file ``path`` that is not on the freelist."""
    with open(path, "rb") as file:
        data = file.read()
    if len(data) < 100:
        return []
    size = int.from_bytes(data[16:18], "big")
    size = 65536 if size == 1 else size
    usable = size - data[20]
    pages = len(data) // size
    free = _freelist(data, size, pages)
    rows: list[tuple[Any, ...]] = []
    for number in range(2, pages + 1):
        if number not in free:
            rows.extend(_leaf_rows(data, (number - 1) * size, size, usable))
    return rows


def _freelist(data: bytes, size: int, pages: int) -> set[int]:
    free: set[int] = set()
    trunk = int.from_bytes(data[32:36], "big")
    while 0 < trunk <= pages and trunk not in free:
        free.add(trunk)
        page = (trunk - 1) * size
        count = min(int.from_bytes(data[page + 4 : page + 8], "big"), size // 4 - 2)
        free.update(int.from_bytes(data[page + 8 + 4 * i : page + 12 + 4 * i], "big") for i in range(count))
        trunk = int.from_bytes(data[page : page + 4], "big")
    return free


def _leaf_rows(data: bytes, page: int, size: int, usable: int) -> list[tuple[Any, ...]]:
    if data[page] != _LEAF:
        return []
    rows = []
    for i in range(int.from_bytes(data[page + 3 : page + 5], "big")):
        cell = page + int.from_bytes(data[page + 8 + 2 * i : page + 10 + 2 * i], "big")
        try:
            length, at = _varint(data, cell)
            rowid, at = _varint(data, at)
            if length > usable - 35 or at + length > page + size:
                continue  # its payload goes on in overflow pages
            row = _record(data[at : at + length])
        except (IndexError, ValueError):
            continue  # not a cell: garbled
        if (
            len(row) == _MESSAGE_TYPES
            and row[0] is None
            and type(row[1]) is str
            and type(row[2]) is int
            and type(row[3]) is bytes
            and type(row[4]) is bytes
            and type(row[5]) is int
            and type(row[6]) in (int, float)
        ):
            rows.append((rowid if rowid < 1 << 63 else rowid - (1 << 64), *row[1:]))
    return rows


def _varint(data: bytes, at: int) -> tuple[int, int]:
    value = 0
    for k in range(8):
        byte = data[at + k]
        value = value << 7 | byte & 0x7F
        if byte < 0x80:
            return value, at + k + 1
    return value << 8 | data[at + 8], at + 9


_INTS = {1: 1, 2: 2, 3: 3, 4: 4, 5: 6, 6: 8}


def _record(payload: bytes) -> list[Any]:
    header, at = _varint(payload, 0)
    types = []
    while at < header:
        kind, at = _varint(payload, at)
        types.append(kind)
    values: list[Any] = []
    at = header
    for kind in types:
        if kind == 0:
            values.append(None)
        elif kind in _INTS:
            width = _INTS[kind]
            values.append(int.from_bytes(payload[at : at + width], "big", signed=True))
            at += width
        elif kind == 7:
            values.append(struct.unpack(">d", payload[at : at + 8])[0])
            at += 8
        elif kind in (8, 9):
            values.append(kind - 8)
        elif kind >= 12:
            width = (kind - 12) // 2
            chunk = payload[at : at + width]
            values.append(bytes(chunk) if kind % 2 == 0 else chunk.decode("utf-8"))
            at += width
        else:
            raise ValueError(f"serial type {kind}")
        if at > len(payload):
            raise ValueError("a value runs past its record")
    return values
