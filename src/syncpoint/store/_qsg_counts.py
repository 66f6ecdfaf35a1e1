"""The counts of a member's uncommitted puts on shared queues: CURDEPTH, MAXDEPTH and a put's place in FIFO order.

Theory of operation
-------------------
Owns: :class:`_Counts` (a layer of ``PostgresSharedQueues`` over the session, ``_qsg_member._Session``) —
:meth:`_Counts.depth` and :meth:`_Counts.room` (the group's depth for CURDEPTH and a put's MAXDEPTH check), the
member's block of message ids for its puts in syncpoint (:meth:`_Counts._next_id`), and the publisher thread
that writes the counts of its uncommitted puts to ``qsg_uncommitted`` (:meth:`_Counts._publish_loop`).

IBM counts a put in a unit of work in CURDEPTH at once. A member keeps its units of work's puts in memory until
their commit (``_qsg_verbs``), so the group's depth is the table's committed and held rows, plus the other
members' uncommitted puts as they published them in ``qsg_uncommitted``, plus this member's own from memory
(:meth:`_Counts._mine`).

Invariants: a unit of work's counts are forgotten only once no publication of them is under way
(:meth:`_Counts._end_counts`: a row written after its end's DELETE would stay for good); a count is published
only for a unit of work of the current session (a lost session's rows are deleted by the next one's start,
:meth:`_Counts._session_ended` forgets them here); a member's puts in syncpoint take ids that rise in the order
given, and a put out of syncpoint drops the rest of the block (:meth:`_Counts._seen_id`), so every put of the
member comes after its earlier ones.

How it talks to the others: the verbs (``_qsg_verbs``) and the two-phase commit (``_qsg_indoubt``) end a unit
of work's counts in the transaction that ends it (:meth:`_Counts._end_counts`, :meth:`_Counts._end_published`);
the session calls :meth:`_Counts._forget_lost` and :meth:`_Counts._session_ended` when a session is lost.
"""

from __future__ import annotations

import threading
import time
from typing import Any

import psycopg

from ._base import StoreError
from ._qsg_member import PUBLISH_RETRY, PUBLISH_RETRY_MAX, _defect_point, _Session

# the group's depth as another member sees it: committed and held rows not got, plus the other members' (other
# sessions') uncommitted puts; a member adds its own from memory (PostgresSharedQueues._mine)
_DEPTH = (
    "SELECT (SELECT count(*) FROM qsg_message WHERE qsg = %s AND queue = %s AND NOT got) "
    "+ (SELECT coalesce(sum(n), 0) FROM qsg_uncommitted WHERE qsg = %s AND queue = %s AND owner <> %s)"
)
_ROOM = (
    f"WITH d AS ({_DEPTH} AS depth), up AS (INSERT INTO qsg_uncommitted (qsg, queue, owner, uow, n) "
    "SELECT %s, %s, %s, %s, %s FROM d WHERE d.depth + %s < %s ON CONFLICT (qsg, queue, owner, uow) "
    "DO UPDATE SET n = excluded.n RETURNING 1) SELECT depth, nextval('qsg_message_id_seq') FROM d"
)
# a member's units of work's counts of uncommitted puts, published together (PostgresSharedQueues._publish)
_PUBLISH = (
    "INSERT INTO qsg_uncommitted (qsg, queue, owner, uow, n) SELECT %s, q, %s, u, n "
    "FROM unnest(%s::text[], %s::bigint[], %s::integer[]) AS t(q, u, n) "
    "ON CONFLICT (qsg, queue, owner, uow) DO UPDATE SET n = excluded.n"
)
# the error log's explanation and action for a failure of the publisher (_publish_loop)
_PUBLISH_FAILED = (
    "The thread of the queue manager that writes its counts of uncommitted puts on shared queues to the group's "
    "database (qsg_uncommitted: the other members' CURDEPTH and MAXDEPTH count them) failed with an error that is "
    "not the database's. The counts it was writing are kept, and it tries again; meanwhile the other members "
    "count this member's uncommitted puts late (their own, and this member's CURDEPTH, are exact).",
    "If the entry repeats, save this error log and report the problem. The queue manager goes on serving; "
    "restarting it starts the thread afresh.",
)
_ID_BLOCK = "SELECT nextval('qsg_message_id_seq') FROM generate_series(1, %s)"
NO_LIMIT = 999_999_999  # MAXDEPTH's largest value: a put's MAXDEPTH check cannot fail (PostgresSharedQueues.room)
ID_BLOCK = 64  # ids a member takes at least from the group's sequence at once for its puts in syncpoint (_next_id)
ID_BLOCK_MAX = 8192  # and at most
ID_AGE = 0.1  # seconds a block of ids serves: a put's place in FIFO order is at most that much before its put
PUBLISH_GAP = 0.005  # seconds a member gathers counts of uncommitted puts before it publishes them (_publish)


class _Counts(_Session):
    """The counts of the member's uncommitted puts (see the module doc)."""

    def __init__(self, url: str, qsg: str, member: str) -> None:
        super().__init__(url, qsg, member)
        # the counts of uncommitted puts (MAXDEPTH and CURDEPTH, :meth:`room`), guarded by _pub: unit of work ->
        # queue -> its puts counted; -> those in qsg_uncommitted; -> queues whose count waits for _publish; units
        # of work whose counts _publish is writing
        self._pub = threading.Condition()
        self._counted: dict[int, dict[str, int]] = {}
        self._published: dict[int, dict[str, int]] = {}
        self._dirty: dict[int, set[str]] = {}
        self._flushing: set[int] = set()
        self._publisher: threading.Thread | None = None
        self.publish_failures = 0  # failures of the publisher's own (not the database's): see _publish_loop
        self._put_ids: dict[tuple[int, str], int] = {}  # (unit of work, queue) -> the id :meth:`room` took
        self._ids: list[int] = []  # the member's block of ids for its puts in syncpoint, highest first (_next_id)
        self._ids_at = 0.0  # when it was taken (time.monotonic)
        self._ids_size = ID_BLOCK  # how many the next block takes
        self._ids_lock = threading.Lock()

    def open(self) -> None:
        super().open()
        self._publisher = threading.Thread(
            target=self._publish_loop, name=f"syncpoint-{self.member}-counts", daemon=True
        )
        self._publisher.start()

    def _stop_threads(self) -> None:
        super()._stop_threads()
        with self._pub:
            self._pub.notify_all()
        if self._publisher is not None:
            self._publisher.join(10)

    def _session_ended(self) -> None:
        super()._session_ended()
        with self._pub:  # the lost session's counts went with it (its start deletes their rows)
            self._counted.clear()
            self._published.clear()
            self._dirty.clear()
        self._put_ids.clear()

    def depth(self, queue: str) -> int:
        with self._use(fast=True) as conn:
            row = conn.execute(_DEPTH, (self.qsg, queue, self.qsg, queue, self.owner)).fetchone()
        # IBM counts a put in a unit of work in CURDEPTH at once: the members' uncommitted puts are not in the
        # table yet; the other members' are counted in qsg_uncommitted (:meth:`room`), this member's are added here
        return (int(row[0]) if row else 0) + self._mine(queue)

    def _mine(self, queue: str) -> int:
        """This member's uncommitted puts on ``queue`` (in memory until their commit)."""
        return sum(1 for puts in list(self._pending.values()) for m in list(puts) if m.queue == queue)

    def room(self, queue: str, maxdepth: int, uow: int | None) -> int:
        """The group's depth for a put's MAXDEPTH check and, in a unit of work, this put counted for every
        member's MAXDEPTH check and CURDEPTH (IBM counts uncommitted puts in CURDEPTH) and its place in FIFO order
        taken (:func:`_insert_puts`). The unit of work then holds a row (its qsg_uncommitted row, deleted by its
        end): it is begun (:meth:`_begin_uow`) first.

        With the largest MAXDEPTH (:data:`NO_LIMIT`) the check cannot fail: no statement — the put's id comes from
        the member's block (:meth:`_next_id`) and its count reaches qsg_uncommitted with the member's next
        publication (:meth:`_publish`, a few ms later). Any other MAXDEPTH: one statement counts the group's depth
        and, when there is room, this put (and takes its id), so the check is exact as far as the members' puts
        are not racing for the last places."""
        if uow is None:
            with self._use(fast=True) as conn:
                row = conn.execute(_DEPTH, (self.qsg, queue, self.qsg, queue, self.owner)).fetchone()
            return (int(row[0]) if row else 0) + self._mine(queue)
        self._begin_uow(uow, rows=False)
        if maxdepth >= NO_LIMIT:
            self._put_ids[(uow, queue)] = self._next_id()
            with self._pub:
                if self._uow_epoch.get(uow) == self._epoch:  # a lost session's unit of work is backed out
                    counts = self._counted.setdefault(uow, {})
                    counts[queue] = counts.get(queue, 0) + 1
                    self._dirty.setdefault(uow, set()).add(queue)
                    self._pub.notify_all()
            return 0
        with self._pub:  # the count below is the whole of the unit of work's: no publication may follow it
            self._pub.wait_for(lambda: uow not in self._flushing)
            dirty = self._dirty.get(uow)
            if dirty is not None:
                dirty.discard(queue)
            n = self._counted.get(uow, {}).get(queue, 0) + 1
        mine = self._mine(queue)
        args = (self.qsg, queue, self.qsg, queue, self.owner, self.qsg, queue, self.owner, uow, n, mine, maxdepth)
        with self._use(fast=True) as conn:
            row = conn.execute(_ROOM, args).fetchone()
        assert row is not None
        depth = int(row[0]) + mine
        if depth < maxdepth:
            with self._pub:
                self._counted.setdefault(uow, {})[queue] = n
                self._published.setdefault(uow, {})[queue] = n
            ident = int(row[1])
            self._seen_id(ident)
            self._put_ids[(uow, queue)] = ident  # the put's place in FIFO order (:func:`_insert_puts`)
        return depth

    # -- the member's block of ids for its puts in syncpoint ------------------------------------------------------
    def _next_id(self) -> int:
        """The id of a put in syncpoint, which keeps its place in FIFO order: the next of the member's block of
        ids, taken from the group's sequence with one statement for many puts (:data:`ID_BLOCK` or more). Every
        put of the member comes after its earlier puts (a put out of syncpoint, whose id is the sequence's next,
        drops the block: :meth:`_seen_id`); a block serves :data:`ID_AGE` seconds at most, so a put's place is at
        most that much before its put among other members' puts."""
        with self._ids_lock:  # one thread takes a block at a time: the member's ids rise in the order given
            now = time.monotonic()
            if not self._ids or now - self._ids_at > ID_AGE:
                # as many as the member's puts use in about half the block's life (a block used up sooner: twice
                # as many; one that aged with more than half of it left: half as many)
                if not self._ids and now - self._ids_at < ID_AGE / 2:
                    self._ids_size = min(self._ids_size * 2, ID_BLOCK_MAX)
                elif len(self._ids) > self._ids_size // 2:
                    self._ids_size = max(self._ids_size // 2, ID_BLOCK)
                with self._use(fast=True) as conn:
                    rows = conn.execute(_ID_BLOCK, (self._ids_size,)).fetchall()
                self._ids = sorted((int(r[0]) for r in rows), reverse=True)
                self._ids_at = time.monotonic()
            return self._ids.pop()

    def _seen_id(self, ident: int) -> None:
        """A put of this member took ``ident`` from the sequence: the ids of its block below it are dropped,
        so that its later puts in syncpoint come after it."""
        if self._ids and self._ids[-1] < ident:
            with self._ids_lock:
                if self._ids and self._ids[-1] < ident:
                    self._ids = []

    # -- the published counts of uncommitted puts (CURDEPTH on the other members) -------------------------------
    def _publish_loop(self) -> None:
        """Write the counts of uncommitted puts that changed (:meth:`room` with :data:`NO_LIMIT`) to
        qsg_uncommitted, one statement for those gathered over :data:`PUBLISH_GAP`.

        The other members' CURDEPTH and MAXDEPTH count this member's uncommitted puts only through this thread,
        so it never ends before the store closes: a failure of its own (a defect: the database's are handled in
        :meth:`_publish`) is written to the member's error log (AMQ6125E, with the error) and the publication
        is tried again — the counts it was writing are kept for it — after :data:`PUBLISH_RETRY` seconds,
        doubled at each failure in a row up to :data:`PUBLISH_RETRY_MAX` (``publish_failures`` counts them)."""
        wait = PUBLISH_RETRY
        while True:
            with self._pub:
                self._pub.wait_for(lambda: bool(self._dirty) or self._closed)
                if self._closed:
                    return
            time.sleep(PUBLISH_GAP)
            try:
                self._publish()
            except Exception as e:
                self.publish_failures += 1
                self._internal_error(
                    "the publication of its counts of uncommitted puts on shared queues", e, wait, _PUBLISH_FAILED
                )
                with self._pub:
                    self._pub.wait_for(lambda: self._closed, wait)
                wait = min(wait * 2, PUBLISH_RETRY_MAX)
            else:
                wait = PUBLISH_RETRY

    def _publish(self) -> None:
        # the session (owner, epoch) these counts are of, not one being replaced
        with self._session_lock, self._pub:
            epoch, owner = self._epoch, self.owner
            rows = [
                (q, uow, self._counted[uow][q])
                for uow, queues in self._dirty.items()
                if self._uow_epoch.get(uow) == epoch
                for q in queues
            ]
            self._flushing.update(self._dirty)
            flushing = set(self._dirty)
            self._dirty.clear()
        done = False
        try:
            _defect_point("publish")
            if rows:
                with self._use(fast=True) as conn:
                    conn.execute(
                        _PUBLISH,
                        (self.qsg, owner, [r[0] for r in rows], [r[1] for r in rows], [r[2] for r in rows]),
                    )
            done = True
        except StoreError:
            pass  # tried again below (a lost session: its start deleted them, and they are forgotten)
        finally:
            with self._pub:
                self._flushing -= flushing
                if epoch == self._epoch:
                    for q, uow, n in rows:
                        if done:
                            self._published.setdefault(uow, {})[q] = n
                        elif uow in self._counted:
                            self._dirty.setdefault(uow, set()).add(q)
                self._pub.notify_all()
        if not done:
            with self._pub:
                self._pub.wait_for(lambda: self._closed, 0.1)

    def _forget_lost(self, uow: int) -> None:
        """A unit of work of a lost session ends (backed out when the new session began): a count :meth:`room` made
        for a put of it in the new session goes too."""
        if self._end_counts(uow):
            try:
                with self._use(fast=True) as conn:
                    conn.execute("DELETE FROM qsg_uncommitted WHERE owner = %s AND uow = %s", (self.owner, uow))
            except StoreError:
                pass  # this session is lost too: the next one's start deletes the member's counts

    def _end_counts(self, uow: int) -> bool:
        """Unit of work ``uow`` ends: its counts are forgotten once no publication of them is under way (one
        committing after its end's DELETE would leave a row for good); True when qsg_uncommitted may hold a
        row of it (the end's transaction then deletes it)."""
        with self._pub:
            self._pub.wait_for(lambda: uow not in self._flushing)
            self._dirty.pop(uow, None)
            self._counted.pop(uow, None)
            return self._published.pop(uow, None) is not None

    def _end_published(self, conn: psycopg.Connection[Any], uow: int) -> None:
        """Inside the transaction ending unit of work ``uow``: its uncommitted puts stop counting."""
        if self._end_counts(uow):
            conn.execute("DELETE FROM qsg_uncommitted WHERE owner = %s AND uow = %s", (self.owner, uow))
