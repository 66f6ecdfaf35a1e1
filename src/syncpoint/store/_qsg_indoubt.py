"""Two-phase commit with the member's private store, and the units of work it leaves in doubt.

Theory of operation
-------------------
Owns: :class:`_InDoubt` (a layer of ``PostgresSharedQueues`` over the verbs, ``_qsg_verbs``): a unit of work
that touched both a shared queue and a private one commits in three phases — :meth:`_InDoubt.prepare` writes
its shared part, held by it and marked in doubt (``qsg_indoubt``), in one durable transaction; the member's
private store records the decision (:meth:`_InDoubt.decision_name`); :meth:`_InDoubt.complete` commits the
shared part. A member that dies between them settles its units of work in doubt at its restart from its own
decisions (:meth:`_InDoubt.resolve_indoubt`); meanwhile an operator may settle them from another member (RESOLVE
INDOUBT: :meth:`_InDoubt.resolve_units`), and DISPLAY THREAD TYPE(INDOUBT) lists them
(:meth:`_InDoubt.indoubt_units`). docs/queue-sharing-groups.md, "Resolving in-doubt units of work".

Invariants: no peer backs out a unit of work in doubt (peer recovery, ``_qsg_member``, skips them); only its
member's decision or RESOLVE INDOUBT settles it. RESOLVE holds the member's liveness lock, so the member cannot
start and settle the same units at once, and keeps each decision (``qsg_resolved``) with the unit's private part
(``qsg_indoubt_private``) until the member's restart has made its private part follow it
(:meth:`_InDoubt.forget_resolved`); a decision that disagrees with the member's own log is reported
(:attr:`_InDoubt.heuristic`). The kill tests end the process at the phases' edges (``_crash_point``).
"""

from __future__ import annotations

from typing import Any

import psycopg

from ._qsg_member import _crash_point, _like, _log, member_lock
from ._qsg_pool import _insert_puts
from ._qsg_verbs import _Verbs
from ._shared import InDoubtUnit


def nid(owner: str, uow: int) -> str:
    """The network id (IBM's NID) of a unit of work: its member's session and its number, ``QMA.3F9A0C1B2D4E.17``
    (in capitals: MQSC folds what is not quoted)."""
    member, _, session = owner.rpartition(".")
    return f"{member}.{session.upper()}.{uow}"


class _InDoubt(_Verbs):
    """The member's two-phase commit and its units of work in doubt (see the module doc)."""

    def __init__(self, url: str, qsg: str, member: str) -> None:
        super().__init__(url, qsg, member)
        self._prepared_owner: dict[int, str] = {}  # unit of work prepared -> the session (owner) that prepared it
        self.heuristic: list[tuple[str, str, str, str]] = []  # RESOLVE decisions its log disagrees with (at open)
        self.follow: list[tuple[str, bytes]] = []  # (action, private part) its private part must follow (at open)
        self._with_private: dict[int, bool] = {}  # units of work prepared with a private part (see prepare)

    # -- two-phase commit with the member's private store (docs/queue-sharing-groups.md) ----------------------
    def decision_name(self, uow: int) -> str:
        """The name of the record in the member's private store that says unit of work ``uow`` committed."""
        return f"{self.owner}:{uow}"

    def prepare(self, uow: int, private: bytes = b"") -> None:
        """Phase 1: the unit of work's puts written (still held by it) and the unit of work marked in doubt, in
        one durable transaction. From here no peer backs it out; only its member's decision (or RESOLVE INDOUBT)
        settles it. ``private``: its private part (``store.encode_private_part``), kept beside it so that the
        member's restart can make that part follow a RESOLVE INDOUBT decision."""
        self._check_uow(uow)
        self._holds_rows.discard(uow)  # settled by _settle, which deletes what it got in any case
        self._prepared_owner[uow] = self.owner
        puts = self._pending.pop(uow, [])
        conn = self._c()
        try:
            with conn.transaction():
                self._release_ahead(conn, uow)
                if puts:
                    _insert_puts(conn, self.qsg, puts, self.owner, uow)
                conn.execute("INSERT INTO qsg_indoubt VALUES (%s, %s, %s)", (self.qsg, self.owner, uow))
                if private:
                    conn.execute(
                        "INSERT INTO qsg_indoubt_private VALUES (%s, %s, %s, %s)", (self.qsg, self.owner, uow, private)
                    )
                    self._with_private[uow] = True
                self._end_published(conn, uow)  # its puts are in the table now
        except psycopg.Error as e:
            raise self._fail(e) from None
        _crash_point("prepared")

    def complete(self, uow: int) -> list[str]:
        """Phase 3, once the decision is durable in the member's private store: the prepared unit of work
        committed here too. Returns the queues that got messages."""
        _crash_point("decided")
        owner = self._prepared_owner.get(uow, self.owner)
        queues = self._settle(owner, uow, commit=True)
        self._prepared_owner.pop(uow, None)
        return queues

    def _settle(self, owner: str, uow: int, commit: bool, resolved_by: str | None = None) -> list[str]:
        conn = self._c()
        try:
            with conn.transaction():
                if resolved_by is not None:  # RESOLVE INDOUBT: the decision is kept for the member's restart
                    conn.execute(
                        "INSERT INTO qsg_resolved VALUES (%s, %s, %s, %s, %s) ON CONFLICT DO NOTHING",
                        (self.qsg, owner, uow, "COMMIT" if commit else "BACKOUT", resolved_by),
                    )
                if commit:
                    conn.execute("DELETE FROM qsg_message WHERE owner = %s AND uow = %s AND got", (owner, uow))
                    rows = conn.execute(
                        "UPDATE qsg_message SET owner = NULL, uow = NULL WHERE owner = %s AND uow = %s RETURNING queue",
                        (owner, uow),
                    ).fetchall()
                else:
                    conn.execute("DELETE FROM qsg_message WHERE owner = %s AND uow = %s AND NOT got", (owner, uow))
                    rows = conn.execute(
                        "UPDATE qsg_message SET owner = NULL, uow = NULL, got = false, backout = backout + 1 "
                        "WHERE owner = %s AND uow = %s RETURNING queue",
                        (owner, uow),
                    ).fetchall()
                conn.execute("DELETE FROM qsg_indoubt WHERE owner = %s AND uow = %s", (owner, uow))
                if resolved_by is None and (owner != self.owner or self._with_private.pop(uow, None) is not None):
                    # settled by its member: its private part is no longer needed (RESOLVE keeps it for the
                    # member's restart)
                    conn.execute("DELETE FROM qsg_indoubt_private WHERE owner = %s AND uow = %s", (owner, uow))
        except psycopg.Error as e:
            raise self._fail(e) from None
        return sorted({r[0] for r in rows})

    def resolve_indoubt(self, decided: set[str]) -> int:
        """At start: every unit of work of this member's earlier sessions left in doubt is committed if the
        member's private store holds its decision (``decided``: :meth:`decision_name` values), else backed out.
        Units of work a peer settled meanwhile (``RESOLVE INDOUBT``) are checked against the same decisions: each
        that disagrees is kept in :attr:`heuristic` (for the error log) and, with its private part, in
        :attr:`follow` (``store.follow_resolutions`` makes the private part follow the decision; docs/
        queue-sharing-groups.md, "Resolving in-doubt units of work"). Returns how many were settled."""
        like = _like(self.member)
        try:
            rows = (
                self._c()
                .execute("SELECT owner, uow FROM qsg_indoubt WHERE qsg = %s AND owner LIKE %s", (self.qsg, like))
                .fetchall()
            )
            resolved = (
                self._c()
                .execute(
                    "SELECT owner, uow, action, by FROM qsg_resolved WHERE qsg = %s AND owner LIKE %s",
                    (self.qsg, like),
                )
                .fetchall()
            )
            parts = {
                (o, u): bytes(p)
                for o, u, p in self._c().execute(
                    "SELECT owner, uow, part FROM qsg_indoubt_private WHERE qsg = %s AND owner LIKE %s",
                    (self.qsg, like),
                )
            }
        except psycopg.Error as e:
            raise self._fail(e) from None
        committed = 0
        for owner, uow in rows:
            commit = f"{owner}:{uow}" in decided
            self._settle(owner, uow, commit=commit)
            committed += commit
        if rows:  # IBM z/OS's restart counts: decided units were in commit, the others in doubt (backed out)
            _log.info(
                "CSQR004I: RESTART - UR COUNTS - IN COMMIT=%d, INDOUBT=%d, INFLIGHT=0, IN BACKOUT=0",
                committed,
                len(rows) - committed,
                extra={
                    "qmgr": self.member,
                    "amq": (
                        f"Queue manager {self.member} ended with {len(rows)} units of work prepared on shared queues "
                        f"of group {self.qsg}. At this start its own log settled them: {committed} it had decided "
                        f"to commit were committed, {len(rows) - committed} with no decision in its log were "
                        "backed out (their gets made available again with BackoutCount + 1).",
                        "None.",
                    ),
                },
            )
        for owner, uow, action, by in resolved:
            logged = "COMMIT" if f"{owner}:{uow}" in decided else "BACKOUT"
            if logged != action:
                self.heuristic.append((nid(owner, uow), action, by, logged))
                self.follow.append((action, parts.get((owner, uow), b"")))
        return len(rows)

    def forget_resolved(self) -> None:
        """At start, once the private parts followed (:attr:`follow`, written durably by the member's store): the
        RESOLVE decisions and the private parts of earlier sessions are dropped. Until then a crash leaves them,
        and the next start follows them again (what follows is idempotent)."""
        like = _like(self.member)
        try:
            with self._c().transaction():
                self._c().execute("DELETE FROM qsg_resolved WHERE qsg = %s AND owner LIKE %s", (self.qsg, like))
                self._c().execute(
                    "DELETE FROM qsg_indoubt_private i WHERE qsg = %s AND owner LIKE %s AND owner <> %s AND NOT "
                    "EXISTS (SELECT 1 FROM qsg_indoubt d WHERE d.owner = i.owner AND d.uow = i.uow)",
                    (self.qsg, like, self.owner),
                )
        except psycopg.Error as e:
            raise self._fail(e) from None

    def indoubt_units(self, member: str | None) -> list[InDoubtUnit]:
        """DISPLAY THREAD TYPE(INDOUBT): the units of work in doubt of ``member`` (None: of every member)."""
        sql = (
            "SELECT i.owner, i.uow, count(m.id) FILTER (WHERE NOT m.got), count(m.id) FILTER (WHERE m.got), "
            "coalesce(array_agg(DISTINCT m.queue) FILTER (WHERE m.queue IS NOT NULL), '{}') FROM qsg_indoubt i "
            "LEFT JOIN qsg_message m ON m.owner = i.owner AND m.uow = i.uow WHERE i.qsg = %s"
        )
        args: list[Any] = [self.qsg]
        if member is not None:
            sql += " AND i.owner LIKE %s"
            args.append(_like(member))
        try:
            conn = self._c()
            rows = conn.execute(sql + " GROUP BY i.owner, i.uow ORDER BY i.owner, i.uow", args).fetchall()
            units = []
            for owner, uow, puts, gets, queues in rows:
                who = str(owner).rsplit(".", 1)[0]
                units.append(InDoubtUnit(who, nid(owner, uow), uow, puts, gets, sorted(queues), self._active(who)))
        except psycopg.Error as e:
            raise self._fail(e) from None
        return units

    def _active(self, member: str) -> bool:
        """Whether ``member`` runs: its liveness lock is held by a session (this one, for this member)."""
        if member == self.member:
            return True
        keys = member_lock(self.qsg, member)
        got = self._c().execute("SELECT pg_try_advisory_lock(%s, %s)", keys).fetchone()
        if got is not None and got[0]:
            self._c().execute("SELECT pg_advisory_unlock(%s, %s)", keys)
            return False
        return True

    def resolve_units(self, member: str, nids: list[str] | None, commit: bool, by: str) -> list[str] | None:
        """RESOLVE INDOUBT QMNAME(member): settle the units of work in doubt of ``member`` whose NID is in ``nids``
        (None: all of them) — committed (puts made available, gets deleted) or backed out (puts deleted, gets
        reinstated with BackoutCount + 1) — and record each decision for the member's restart. The member's
        liveness lock is held meanwhile, so it cannot start and settle them at the same time. Returns the NIDs
        settled, or None when ``member`` runs (a running member settles its own units of work)."""
        if member == self.member:
            return None
        keys = member_lock(self.qsg, member)
        try:
            conn = self._c()
            got = conn.execute("SELECT pg_try_advisory_lock(%s, %s)", keys).fetchone()
            if got is None or not got[0]:
                return None
            try:
                rows = conn.execute(
                    "SELECT owner, uow FROM qsg_indoubt WHERE qsg = %s AND owner LIKE %s ORDER BY owner, uow",
                    (self.qsg, _like(member)),
                ).fetchall()
                done = []
                wanted = None if nids is None else {n.upper() for n in nids}
                for owner, uow in rows:
                    ident = nid(owner, uow)
                    if wanted is None or ident.upper() in wanted:
                        self.notify(self._settle(owner, uow, commit, resolved_by=by))
                        done.append(ident)
                        _log.info(
                            "%s: THREAD NID=%s %s SCHEDULED",
                            "CSQV414I" if commit else "CSQV415I",
                            ident,
                            "COMMIT" if commit else "ABORT",
                            extra={
                                "qmgr": self.member,
                                "amq": (
                                    f"RESOLVE INDOUBT on queue manager {self.member} settled the unit of work in "
                                    f"doubt {ident} of queue manager {member} (which is not running) with "
                                    f"ACTION({'COMMIT' if commit else 'BACKOUT'}). The decision is kept for "
                                    f"{member}'s restart, where its private part follows it.",
                                    "None.",
                                ),
                            },
                        )
                return done
            finally:
                if not conn.closed:
                    conn.execute("SELECT pg_advisory_unlock(%s, %s)", keys)
        except psycopg.Error as e:
            raise self._fail(e) from None
