"""A member's record of its queue-sharing group, kept in its own store, and the opening of the group's store.

The record (group name and the shared database's URL) is an object of the member's private store: the URL may
hold a password, and that store's files are private to its user. The shared store is opened through
:func:`open_group`, which loads psycopg only for a member.
"""

from __future__ import annotations

import json

from ._shared import SharedQueues

# -- a member's record of its group, kept in its own store ---------------------------------------------------------
MEMBERSHIP_KIND = "QSG"  # object kind in the member's store
MEMBERSHIP_NAME = "MEMBERSHIP"


DECISION_KIND = "QSGCOMMIT"  # in the member's store: "this unit of work's shared part committed" (two-phase)


def membership_record(qsg: str, url: str) -> tuple[str, str, bytes]:
    """The object ``(kind, name, value)`` that makes a queue manager's store a member of group ``qsg`` whose
    shared database is at ``url``. The URL may hold a password: it lives in the member's private store only."""
    return MEMBERSHIP_KIND, MEMBERSHIP_NAME, json.dumps({"qsg": qsg, "url": url}).encode()


def group_of(objects: dict[str, dict[str, bytes]]) -> tuple[str, str] | None:
    """``(qsg, url)`` from a member's stored objects (a ``Snapshot.objects``), None outside a group."""
    raw = objects.get(MEMBERSHIP_KIND, {}).get(MEMBERSHIP_NAME)
    if raw is None:
        return None
    record = json.loads(raw)
    return str(record["qsg"]), str(record["url"])


def open_group(objects: dict[str, dict[str, bytes]], member: str) -> SharedQueues | None:
    """Open the shared store of the group a member's stored objects name (None outside a group). StoreError
    (never naming the URL) when the shared database cannot be reached or does not know this member."""
    group = group_of(objects)
    if group is None:
        return None
    from ._postgres_shared import PostgresSharedQueues  # psycopg is imported by group members only

    shared = PostgresSharedQueues(group[1], group[0], member)
    shared.open()
    try:
        shared.resolve_indoubt(set(objects.get(DECISION_KIND, {})))  # two-phase commits a crash interrupted
    except BaseException:
        shared.close()
        raise
    return shared
