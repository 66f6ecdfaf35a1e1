"""The shared store's tables in PostgreSQL, their migrations, and the layout of a message's row.

Theory of operation
-------------------
Owns: the DDL of the group's tables (docs/queue-sharing-groups.md): ``qsg`` (one row a group), ``qsg_member``
(one row a member, with the session of its running incarnation), ``qsg_object`` (GROUP and SHARED definitions),
``qsg_message`` (the messages of every shared queue; ``owner``/``uow``/``got`` hold a message in a member's unit
of work; ``arrived``, the inserting transaction, finds what a selecting handle has not judged: ``_qsg_select``),
``qsg_open``, ``qsg_indoubt``, ``qsg_uncommitted``, ``qsg_sub`` (the durable subscriptions on shared queues,
``_qsg_subs``), and the in-doubt tables of RESOLVE INDOUBT
(``qsg_resolved``, ``qsg_indoubt_private``); the migrations that bring a database made by an earlier version up
to date at a member's start (``arrived``: :func:`_ensure_arrived`; seed 002's scan index, built online:
:func:`_ensure_expiry_index`); and the
columns a statement returns for a message (``_COLUMNS``) with their reading (:func:`_row`) and writing
(:func:`_values`).

Invariants: a start that finds every table and index runs no DDL (a ``CREATE ... IF NOT EXISTS`` would lock
``qsg_message`` against the running members' writes); one creator of the schema at a time (``_SCHEMA_LOCK``), one
builder of the scan index at a time (``_INDEX_LOCK``), both advisory locks of PostgreSQL.

The other modules of the shared store (``_qsg_member``: sessions; ``_qsg_verbs``, ``_qsg_counts``,
``_qsg_expiry``, ``_qsg_indoubt``) read and write these tables; the session's start (``_qsg_member``) calls
:func:`_ensure_schema` first. Nothing here holds state.
"""

from __future__ import annotations

import re
from typing import Any

import psycopg

from ._shared import SharedMessage

SCHEMA_VERSION = 1
SCHEMA = """
CREATE TABLE IF NOT EXISTS qsg (
    qsg text PRIMARY KEY, version integer NOT NULL, created timestamptz NOT NULL DEFAULT now());
CREATE TABLE IF NOT EXISTS qsg_member (
    qsg text NOT NULL REFERENCES qsg, member text NOT NULL, session text, started timestamptz,
    PRIMARY KEY (qsg, member));
CREATE TABLE IF NOT EXISTS qsg_object (
    qsg text NOT NULL REFERENCES qsg, kind text NOT NULL, name text NOT NULL, disp text NOT NULL,
    definition bytea NOT NULL, PRIMARY KEY (qsg, kind, name));
CREATE TABLE IF NOT EXISTS qsg_message (
    id bigserial PRIMARY KEY, qsg text NOT NULL, queue text NOT NULL, priority integer NOT NULL,
    persistent boolean NOT NULL, msgid bytea NOT NULL, correlid bytea NOT NULL, expiry integer NOT NULL,
    put_time double precision NOT NULL, backout integer NOT NULL DEFAULT 0, md bytea NOT NULL, data bytea NOT NULL,
    owner text, uow bigint, got boolean NOT NULL DEFAULT false, arrived xid8 DEFAULT pg_current_xact_id());
CREATE INDEX IF NOT EXISTS qsg_message_next ON qsg_message (qsg, queue, priority DESC, id) WHERE owner IS NULL;
CREATE INDEX IF NOT EXISTS qsg_message_owner ON qsg_message (owner, uow) WHERE owner IS NOT NULL;
CREATE INDEX IF NOT EXISTS qsg_message_arrived ON qsg_message (qsg, queue, arrived);
CREATE TABLE IF NOT EXISTS qsg_open (
    qsg text NOT NULL, queue text NOT NULL, owner text NOT NULL, exclusive boolean NOT NULL,
    PRIMARY KEY (qsg, queue, owner));
CREATE TABLE IF NOT EXISTS qsg_indoubt (
    qsg text NOT NULL, owner text NOT NULL, uow bigint NOT NULL, PRIMARY KEY (owner, uow));
CREATE TABLE IF NOT EXISTS qsg_uncommitted (
    qsg text NOT NULL, queue text NOT NULL, owner text NOT NULL, uow bigint NOT NULL, n integer NOT NULL,
    PRIMARY KEY (qsg, queue, owner, uow));
CREATE TABLE IF NOT EXISTS qsg_sub (
    id bigserial, qsg text NOT NULL, member text NOT NULL, name text NOT NULL, sub bytea NOT NULL,
    PRIMARY KEY (qsg, member, name));
"""
_SCHEMA_LOCK = 7242002  # an advisory lock: one creator of the schema at a time
_INDEX_LOCK = 7242003  # an advisory lock: one builder of the scan's index at a time (_ensure_expiry_index)

# seed 002: the member that scans the group's shared queues for expired messages (lead_expiry_scan)
_SCANNER_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS qsg_scanner (qsg text PRIMARY KEY, member text NOT NULL, since timestamptz NOT NULL)"
)

# the columns a statement returns for a message (read by _row)
_COLUMNS = "id, queue, priority, persistent, md, data, msgid, correlid, expiry, put_time, backout"
_EXPIRES = "put_time + expiry / 10.0"  # a message's deadline (engine seconds); expiry -1: unlimited


# only the messages that can expire, by deadline: the scan reads those, not the whole table (created at every
# member's start when missing, so a database made by an earlier version gets it at its first strmqm, online:
# _ensure_expiry_index)
_EXPIRY_INDEX = (
    f"CREATE INDEX CONCURRENTLY IF NOT EXISTS qsg_message_expiry ON qsg_message (qsg, ({_EXPIRES})) "
    "WHERE expiry <> -1 AND owner IS NULL"
)


# -- in-doubt units of work settled by a peer (RESOLVE INDOUBT; docs/queue-sharing-groups.md) ------------------------
INDOUBT_SCHEMA = """
CREATE TABLE IF NOT EXISTS qsg_resolved (
    qsg text NOT NULL, owner text NOT NULL, uow bigint NOT NULL, action text NOT NULL, by text NOT NULL,
    at timestamptz NOT NULL DEFAULT now(), PRIMARY KEY (owner, uow));
CREATE TABLE IF NOT EXISTS qsg_indoubt_private (
    qsg text NOT NULL, owner text NOT NULL, uow bigint NOT NULL, part bytea NOT NULL, PRIMARY KEY (owner, uow));
"""


# every table and index of SCHEMA and INDOUBT_SCHEMA (_ensure_schema makes them when one is missing)
_SCHEMA_OBJECTS = re.findall(r"(?:TABLE|INDEX) IF NOT EXISTS (\w+)", SCHEMA + INDOUBT_SCHEMA)


def _row(r: tuple[Any, ...]) -> SharedMessage:
    return SharedMessage(r[0], r[1], r[2], r[3], bytes(r[4]), bytes(r[5]), bytes(r[6]), bytes(r[7]), r[8], r[9], r[10])


def _values(qsg: str, m: SharedMessage) -> tuple[Any, ...]:
    return (qsg, m.queue, m.priority, m.persistent, m.msgid, m.correlid, m.expiry, m.put_time, m.backout, m.md, m.data)


def _ensure_schema(conn: psycopg.Connection[Any]) -> None:
    """The group's tables, made when missing (under the schema lock: one creator at a time), then seed 002's scan
    index (:func:`_ensure_expiry_index`). ``conn`` is in autocommit. When they all exist (every start but the
    first on a database) no DDL runs: a ``CREATE INDEX IF NOT EXISTS`` locks its table against writes before it
    finds the index there, so it would wait for the running members' writes and hold the next ones."""
    _ensure_arrived(conn)
    row = conn.execute(
        "SELECT count(*) FROM unnest(%s::text[]) AS t(name) WHERE to_regclass(name) IS NULL", (_SCHEMA_OBJECTS,)
    ).fetchone()
    if row is None or row[0]:
        with conn.transaction():
            conn.execute("SELECT pg_advisory_xact_lock(%s)", (_SCHEMA_LOCK,))
            conn.execute(SCHEMA)
            conn.execute(INDOUBT_SCHEMA)
    _ensure_expiry_index(conn)


def _ensure_arrived(conn: psycopg.Connection[Any]) -> None:
    """``qsg_message.arrived`` (the inserting transaction, for selecting handles: ``_qsg_select``) on a database
    made before it existed: added without a default first (no rewrite of the table; its old rows keep NULL, which
    a selecting handle's first look judges by id), then given its default; its index follows with SCHEMA."""
    row = conn.execute(
        "SELECT to_regclass('qsg_message') IS NOT NULL AND NOT EXISTS (SELECT 1 FROM pg_attribute "
        "WHERE attrelid = to_regclass('qsg_message') AND attname = 'arrived' AND NOT attisdropped)"
    ).fetchone()
    if row is None or not row[0]:
        return
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (_SCHEMA_LOCK,))
        conn.execute("ALTER TABLE qsg_message ADD COLUMN IF NOT EXISTS arrived xid8")
        conn.execute("ALTER TABLE qsg_message ALTER COLUMN arrived SET DEFAULT pg_current_xact_id()")


def _ensure_expiry_index(conn: psycopg.Connection[Any]) -> None:
    """Seed 002's scan index (``qsg_message_expiry``), on a database made before it existed: built by the first
    member to start, ``CONCURRENTLY`` and outside the schema lock — so on a large ``qsg_message`` the running
    members' puts and gets go on while it is built (a plain CREATE INDEX would hold their writes for the whole
    build) and the other members' starts do not wait for it. Only the starting member waits (its strmqm); a
    member that finds another building it goes on without it (the scan reads the table meanwhile). A build cut
    short (the member killed) leaves an invalid index: the next start drops it and builds it again. The usual
    case, the index there and valid, is one catalog query."""
    valid = "SELECT indisvalid FROM pg_index WHERE indexrelid = to_regclass('qsg_message_expiry')"
    row = conn.execute(valid).fetchone()
    if row is not None and row[0]:
        return
    got = conn.execute("SELECT pg_try_advisory_lock(%s)", (_INDEX_LOCK,)).fetchone()
    if not got or not got[0]:
        return  # another member is building it
    try:
        row = conn.execute(valid).fetchone()
        if row is not None and not row[0]:  # left invalid by a build cut short
            conn.execute("DROP INDEX CONCURRENTLY IF EXISTS qsg_message_expiry")
        if row is None or not row[0]:
            conn.execute(_EXPIRY_INDEX)
    finally:
        conn.execute("SELECT pg_advisory_unlock(%s)", (_INDEX_LOCK,))
