"""Batch planning for the streaming source: deterministic batches by MsgToken, never splitting a group.

Theory of operation
-------------------
Every message has a MsgToken: its place in the queue manager's put sequence (a number that only grows). An offset
is ``{"n": N, "hw": H, "extra": [...], "skip": [...]}`` (N counts batches): a batch is every message visible
on the queue whose token lies in
(start.hw, end.hw], minus ``skip`` (tokens in that range left for a later batch because a batch ends at a group
boundary), plus ``extra`` (tokens at or below start.hw: messages backed out for a retry, or committed late by
their putter). A replay of batch N after a crash therefore reads the same messages, except those that left the
queue in between (the sink then skips them: they are not consumed twice).

Which messages are candidates for the next batch: every visible message not already planned in this run with the
same BackoutCount (a backed-out message's count rose: it is retried in a later batch). The candidates are cut
into units (one message, or every visible message of a group in MsgSeqNumber order) ordered by their first token,
and units are admitted while the batch stays within ``max_messages`` (a unit larger than the limit makes a batch on
its own). A group is a unit only once its last message (MQMF_LAST_MSG_IN_GROUP) is on the queue, or when some of
its messages were backed out (the rest of a group whose other part committed).

Implements: reference/spark.md (deterministic batches by sequence number).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from syncpoint.mqi import constants as C

_NO_GROUP = C.MQGI_NONE


@dataclass(frozen=True, slots=True)
class Visible:
    """What the planner knows of a visible message (from a browse)."""

    token: int
    backout: int = 0
    group_id: bytes = _NO_GROUP
    seqno: int = 1
    flags: int = 0
    priority: int = 0

    @property
    def in_group(self) -> bool:
        return self.group_id != _NO_GROUP and bool(self.flags & (C.MQMF_MSG_IN_GROUP | C.MQMF_LAST_MSG_IN_GROUP))

    @property
    def last_in_group(self) -> bool:
        return bool(self.flags & C.MQMF_LAST_MSG_IN_GROUP)


@dataclass(frozen=True, slots=True)
class Offset:
    hw: int = 0
    extra: tuple[int, ...] = ()
    skip: tuple[int, ...] = ()
    n: int = 0  # batches planned so far: a retry-only batch (all "extra") still has an offset of its own

    def to_dict(self) -> dict[str, Any]:
        # Key order is fixed: Spark compares offsets as JSON strings.
        return {"n": self.n, "hw": self.hw, "extra": list(self.extra), "skip": list(self.skip)}

    def to_json(self) -> str:
        return json.dumps(self.to_dict())

    @classmethod
    def from_dict(cls, d: Mapping[str, Any] | str | None) -> Offset:
        if d is None:
            return cls()
        if isinstance(d, str):
            d = json.loads(d)
            assert isinstance(d, Mapping)
        try:
            return cls(
                int(d.get("hw", 0)),
                tuple(int(t) for t in d.get("extra", ())),
                tuple(int(t) for t in d.get("skip", ())),
                int(d.get("n", 0)),
            )
        except (TypeError, ValueError) as e:
            raise ValueError(f"not a syncpoint offset: {d!r}") from e


def units(candidates: Sequence[Visible], *, logical_order: bool = True) -> list[list[Visible]]:
    """Cut candidates into units in token order: single messages, and whole groups in MsgSeqNumber order.

    An incomplete group (its last message not yet on the queue and none of its messages backed out) is held back.
    """
    out, groups = _by_group(candidates, logical_order)
    for members in groups.values():
        if _ready(members):
            out.append(sorted(members, key=lambda m: (m.seqno, m.token)))
    out.sort(key=lambda u: min(m.token for m in u))
    return out


def held_back(candidates: Sequence[Visible], *, logical_order: bool = True) -> int:
    """How many of the candidates :func:`units` holds back: the messages of incomplete groups."""
    _, groups = _by_group(candidates, logical_order)
    return sum(len(members) for members in groups.values() if not _ready(members))


def _by_group(
    candidates: Sequence[Visible], logical_order: bool
) -> tuple[list[list[Visible]], dict[bytes, list[Visible]]]:
    """The candidates as single-message units and, in logical order, the messages of each group."""
    groups: dict[bytes, list[Visible]] = {}
    singles: list[list[Visible]] = []
    for v in candidates:
        if logical_order and v.in_group:
            groups.setdefault(v.group_id, []).append(v)
        else:
            singles.append([v])
    return singles, groups


def _ready(members: Sequence[Visible]) -> bool:
    """A group may be planned: its last message is on the queue, or one of its messages was backed out."""
    return any(m.last_in_group or m.backout > 0 for m in members)


def admit(us: Sequence[list[Visible]], max_messages: int | None) -> list[list[Visible]]:
    """The units of the next batch: in order, while the batch stays within ``max_messages``."""
    chosen: list[list[Visible]] = []
    n = 0
    for u in us:
        if chosen and max_messages is not None and n + len(u) > max_messages:
            break
        chosen.append(u)
        n += len(u)
        if max_messages is not None and n >= max_messages:
            break
    return chosen


def end_offset(start: Offset, visible: Iterable[Visible], chosen: Iterable[Visible]) -> Offset:
    """The end offset describing exactly ``chosen`` against the queue as ``visible`` shows it."""
    tokens = {v.token for v in chosen}
    if not tokens:
        return start
    hw = max(start.hw, max(tokens))
    extra = tuple(sorted(t for t in tokens if t <= start.hw))
    skip = tuple(sorted(v.token for v in visible if start.hw < v.token <= hw and v.token not in tokens))
    return Offset(hw, extra, skip, start.n + 1)


def batch_tokens(start: Offset, end: Offset, visible_tokens: Iterable[int]) -> set[int]:
    """The tokens of the batch (start, end] among the tokens visible now (a replay reads the same messages)."""
    skip = set(end.skip)
    extra = set(end.extra)
    return {t for t in visible_tokens if (start.hw < t <= end.hw and t not in skip) or t in extra}


def order_units(batch: Sequence[Visible], *, logical_order: bool = True) -> list[list[Visible]]:
    """The batch's messages as processing units (groups kept together; incomplete groups are not held back
    here: the plan already decided they belong to this batch)."""
    groups: dict[bytes, list[Visible]] = {}
    out: list[list[Visible]] = []
    for v in sorted(batch, key=lambda v: v.token):
        if logical_order and v.in_group:
            if v.group_id not in groups:
                groups[v.group_id] = []
                out.append(groups[v.group_id])
            groups[v.group_id].append(v)
        else:
            out.append([v])
    for members in groups.values():
        members.sort(key=lambda m: (m.seqno, m.token))
    return out


def split_partitions(us: Sequence[list[Visible]], n: int) -> list[list[int]]:
    """Deal units to at most ``n`` partitions of about equal size, keeping each unit whole and in order."""
    n = max(1, n)
    total = sum(len(u) for u in us)
    if total == 0:
        return []
    target = -(-total // n)
    parts: list[list[int]] = [[]]
    for u in us:
        if parts[-1] and len(parts[-1]) + len(u) > target and len(parts) < n:
            parts.append([])
        parts[-1].extend(v.token for v in u)
    return [p for p in parts if p]


class Planner:
    """The stream reader's memory between batches: which messages it planned, with which BackoutCount.

    ``stuck_after``: in an availableNow run, a message planned once with BackoutCount at or above this (twice
    the threshold: past the end of the retry ladder, so it stays) is not planned again in this run.
    """

    def __init__(
        self,
        *,
        max_messages: int | None = None,
        logical_order: bool = True,
        partitions: int = 1,
        partition_max: int | None = None,
        small: int | None = None,
        per: int = 500,
    ) -> None:
        self.max_messages = max_messages
        self.logical_order = logical_order
        self.partitions = partitions
        self.small = partitions if small is None else small
        """A batch of fewer than ``per`` messages a partition is dealt to as few partitions as hold it ``per``
        each, but at least ``small`` (Spark's cores): more tasks than cores only pay off for large batches."""
        self.per = per
        self.partition_max = partition_max
        """Each partition commits its own unit of work: no partition of a batch (split_partitions over
        order_units) may hold more than this; a batch is cut, unit by unit from its end, until none does."""
        self.planned: dict[int, int] = {}
        self.target: int | None = None  # availableNow: plan nothing put after this token
        self.stuck_after: int | None = None
        self.stuck: set[int] = set()

    def candidates(self, visible: Sequence[Visible]) -> list[Visible]:
        present = {v.token for v in visible}
        for t in [t for t in self.planned if t not in present]:
            del self.planned[t]
        return [v for v in visible if self.wanted(v)]

    def wanted(self, v: Visible) -> bool:
        """Whether a next batch may take ``v``: not put after availableNow's target, not stuck, and not planned
        already with its BackoutCount."""
        return (
            (self.target is None or v.token <= self.target)
            and v.token not in self.stuck
            and self.planned.get(v.token) != v.backout
        )

    def _fits(self, batch: list[Visible]) -> bool:
        if self.partition_max is None:
            return True
        parts = split_partitions(order_units(batch, logical_order=self.logical_order), self.count(len(batch)))
        return max((len(p) for p in parts), default=0) <= self.partition_max

    def count(self, total: int) -> int:
        """The partitions a batch of ``total`` messages is split into (see ``small``)."""
        per = max(1, min(self.per, self.partition_max or self.per))
        return max(1, min(self.partitions, max(self.small, -(-total // per))))

    def plan(self, start: Offset, visible: Sequence[Visible], limit: int | None = None) -> tuple[Offset, list[Visible]]:
        """The next batch's end offset and messages; ``start`` itself when there is nothing to do."""
        cap = (
            self.max_messages
            if limit is None
            else (limit if self.max_messages is None else min(limit, self.max_messages))
        )
        chosen_units = admit(units(self.candidates(visible), logical_order=self.logical_order), cap)
        while len(chosen_units) > 1 and not self._fits([v for u in chosen_units for v in u]):
            chosen_units.pop()
        chosen = [v for u in chosen_units for v in u]
        if not chosen:
            return start, []
        for v in chosen:
            self.planned[v.token] = v.backout
            if self.target is not None and self.stuck_after is not None and v.backout >= self.stuck_after:
                self.stuck.add(v.token)
        return end_offset(start, visible, chosen), chosen
