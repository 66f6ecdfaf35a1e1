"""A member's record of its queue-sharing group, kept in its own store, and the opening of the group's store.

The record (group name and the shared database's URL) is an object of the member's private store: the URL may
hold a password, and that store's files are private to its user. The shared store is opened through
:func:`open_group`, which loads psycopg only for a member.
"""

from __future__ import annotations

import base64
import json
import os
from typing import Any

from ._base import Batch, Snapshot, Store, StoredMessage
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


# -- the private part of a unit of work in doubt, kept with it in the shared store (RESOLVE INDOUBT) ---------------
def _msg(m: StoredMessage) -> dict[str, Any]:
    b64 = base64.b64encode
    return {
        "seq": m.seq,
        "queue": m.queue,
        "priority": m.priority,
        "md": b64(m.md).decode(),
        "data": b64(m.data).decode(),
        "backout": m.backout_count,
        "put_time": m.put_time,
    }


def _unmsg(d: dict[str, Any]) -> StoredMessage:
    b = base64.b64decode
    return StoredMessage(
        int(d["seq"]), str(d["queue"]), int(d["priority"]), b(d["md"]), b(d["data"]), int(d["backout"]), d["put_time"]
    )


def encode_private_part(puts: list[StoredMessage], gets: list[StoredMessage]) -> bytes:
    """The persistent private messages a unit of work put and got, as its prepare stores them beside its shared
    part: what its member's restart needs to make its private part follow a RESOLVE INDOUBT decision (JSON: a
    row other members can write is never unpickled)."""
    return json.dumps({"puts": [_msg(m) for m in puts], "gets": [_msg(m) for m in gets]}).encode()


def follow_resolutions(shared: SharedQueues | None, store: Store, snapshot: Snapshot) -> int:
    """At a member's start, before its engine loads ``snapshot``: the private part of each unit of work a peer
    settled (RESOLVE INDOUBT) against this member's own log is made to follow the decision recorded — committed
    (its persistent puts made present, its gets removed) or backed out (its puts removed, its gets present again
    with BackoutCount + 1). Written to ``store`` in one durable batch; ``snapshot`` changed alike. Returns how many
    units of work."""
    if shared is None:
        return 0
    follow: list[tuple[str, bytes]] = list(getattr(shared, "follow", ()))
    if not follow:
        shared.forget_resolved()
        return 0
    drop: set[int] = set()
    add: dict[int, StoredMessage] = {}
    for action, raw in follow:
        part = json.loads(raw) if raw else {"puts": [], "gets": []}
        puts = [_unmsg(d) for d in part["puts"]]
        gets = [_unmsg(d) for d in part["gets"]]
        if action == "COMMIT":  # the log had not recorded the commit: its puts were never written
            drop.update(m.seq for m in gets)
            add.update((m.seq, m) for m in puts)
        else:  # the log had committed it: undo
            drop.update(m.seq for m in puts)
            for m in gets:
                m.backout_count += 1
                add[m.seq] = m
    present = {m.seq for m in snapshot.messages}
    batch = Batch(
        put_messages=[m for seq, m in sorted(add.items()) if seq not in present],
        delete_messages=sorted(drop & present),
        durable=True,
    )
    store.write(batch)
    if os.environ.get("SYNCPOINT_QSG_CRASH") == "followed":  # the kill test of a crash before the decisions go
        os._exit(137)
    kept = [m for m in snapshot.messages if m.seq not in drop]
    snapshot.messages = sorted(kept + batch.put_messages, key=lambda m: m.seq)
    shared.forget_resolved()
    return len(follow)
