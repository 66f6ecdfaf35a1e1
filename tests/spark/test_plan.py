"""Batch planning of the streaming source (reference/spark.md: deterministic batches by a per-queue sequence,
admission control, replay of the same range, groups never split)."""

from __future__ import annotations

import json

from syncpoint.mqi import constants as C
from syncpoint.spark._plan import Offset, Planner, Visible, batch_tokens, split_partitions, units

G = b"G" * 24
H = b"H" * 24


def single(t: int, backout: int = 0) -> Visible:
    return Visible(t, backout)


def member(t: int, gid: bytes, seq: int, last: bool = False, backout: int = 0) -> Visible:
    return Visible(t, backout, gid, seq, C.MQMF_LAST_MSG_IN_GROUP if last else C.MQMF_MSG_IN_GROUP)


def test_offsets_are_json_with_a_fixed_key_order() -> None:
    # spark.md: "compared as JSON strings, so key order must be stable"
    o = Offset(7, (1, 2), (5,), 3)
    assert o.to_json() == '{"n": 3, "hw": 7, "extra": [1, 2], "skip": [5]}'
    assert Offset.from_dict(json.loads(o.to_json())) == o
    assert Offset.from_dict(o.to_json()) == o


def test_max_messages_per_batch_limits_each_batch_in_token_order() -> None:
    p = Planner(max_messages=3)
    vis = [single(t) for t in range(1, 8)]
    end, chosen = p.plan(Offset(), vis)
    assert [v.token for v in chosen] == [1, 2, 3] and end == Offset(3, n=1)
    end2, chosen2 = p.plan(end, vis[3:])
    assert [v.token for v in chosen2] == [4, 5, 6] and end2 == Offset(6, n=2)


def test_spark_limit_and_option_limit_the_smaller_wins() -> None:
    p = Planner(max_messages=5)
    _, chosen = p.plan(Offset(), [single(t) for t in range(1, 10)], limit=2)
    assert len(chosen) == 2


def test_no_candidates_returns_the_start_offset() -> None:
    # spark.md: "returning start means no data"
    p = Planner()
    start = Offset(9)
    assert p.plan(start, []) == (start, [])


def test_replay_reads_the_same_batch_for_the_same_range() -> None:
    p = Planner(max_messages=3)
    vis = [single(t) for t in (2, 4, 6, 8, 10)]
    end, chosen = p.plan(Offset(), vis)
    # a new message arrives before the replay: not part of the replayed batch
    later = [*vis, single(12)]
    assert batch_tokens(Offset(), end, (v.token for v in later)) == {v.token for v in chosen}


def test_a_group_is_never_split_and_the_limit_is_applied_at_group_boundaries() -> None:
    vis = [single(1), member(2, G, 1), member(3, G, 2), member(4, G, 3, last=True), single(5)]
    p = Planner(max_messages=2)
    end, chosen = p.plan(Offset(), vis)
    assert [v.token for v in chosen] == [1]  # the group (3 messages) does not fit after message 1
    end, chosen = p.plan(end, vis[1:])
    assert [v.token for v in chosen] == [2, 3, 4]  # a group larger than the limit is a batch on its own


def test_group_members_come_in_msgseqnumber_order() -> None:
    vis = [member(2, G, 2), member(3, G, 1), member(4, G, 3, last=True)]
    assert [[v.seqno for v in u] for u in units(vis)] == [[1, 2, 3]]


def test_an_incomplete_group_is_held_back_until_its_last_message_arrives() -> None:
    vis = [member(2, G, 1), member(3, G, 2), single(4)]
    p = Planner()
    _, chosen = p.plan(Offset(), vis)
    assert [v.token for v in chosen] == [4]
    _end, chosen = Planner().plan(Offset(), [*vis, member(9, G, 3, last=True)])
    assert sorted(v.token for v in chosen) == [2, 3, 4, 9]


def test_the_backed_out_rest_of_a_group_is_a_unit_without_its_last_message() -> None:
    # seed 004: part of a group may be backed out while another part commits; the backed-out part is retried
    vis = [member(2, G, 1, backout=1), member(3, G, 2, backout=1)]
    assert [[v.token for v in u] for u in units(vis)] == [[2, 3]]


def test_without_logical_order_group_members_are_single_messages() -> None:
    vis = [member(2, G, 1), member(3, G, 2)]
    assert [[v.token for v in u] for u in units(vis, logical_order=False)] == [[2], [3]]


def test_a_backed_out_message_is_retried_in_a_later_batch_and_recorded_as_extra() -> None:
    p = Planner(max_messages=10)
    end, _chosen = p.plan(Offset(), [single(1), single(2)])
    # batch committed: 2 consumed, 1 backed out (BackoutCount 1); 3 arrived
    end2, chosen2 = p.plan(end, [single(1, backout=1), single(3)])
    assert [v.token for v in chosen2] == [1, 3]
    assert end2 == Offset(3, extra=(1,), n=2)
    assert batch_tokens(end, end2, [1, 3]) == {1, 3}


def test_a_message_left_unchanged_after_its_batch_is_not_planned_again_in_this_run() -> None:
    p = Planner()
    end, _ = p.plan(Offset(), [single(1)])
    assert p.plan(end, [single(1)]) == (end, [])


def test_a_late_committed_message_below_the_high_water_mark_is_planned() -> None:
    # a message put under syncpoint gets its token at put time and becomes visible at commit
    p = Planner()
    end, _ = p.plan(Offset(), [single(5)])
    end2, chosen = p.plan(end, [single(3)])
    assert [v.token for v in chosen] == [3] and end2.extra == (3,)


def test_tokens_left_out_by_a_group_boundary_are_listed_as_skip() -> None:
    vis = [member(1, G, 1), single(2), member(3, G, 2, last=True), single(4)]
    p = Planner(max_messages=3)
    end, chosen = p.plan(Offset(), vis)
    assert [v.token for v in chosen] == [1, 3, 2]
    p2 = Planner(max_messages=2)
    end, chosen = p2.plan(Offset(), vis)
    assert [v.token for v in chosen] == [1, 3] and end.skip == (2,)
    assert batch_tokens(Offset(), end, [1, 2, 3, 4]) == {1, 3}
    end2, chosen2 = p2.plan(end, [single(2), single(4)])
    assert [v.token for v in chosen2] == [2, 4] and end2.extra == (2,)


def test_available_now_plans_nothing_put_after_the_target() -> None:
    p = Planner()
    p.target = 2
    _, chosen = p.plan(Offset(), [single(1), single(2), single(3)])
    assert [v.token for v in chosen] == [1, 2]


def test_available_now_plans_a_message_past_twice_the_threshold_once() -> None:
    p = Planner()
    p.target, p.stuck_after = 10, 2
    end, chosen = p.plan(Offset(), [single(1, backout=2)])
    assert len(chosen) == 1
    assert p.plan(end, [single(1, backout=3)]) == (end, [])


def test_partitions_keep_units_whole_and_in_order() -> None:
    us = [[single(1)], [member(2, G, 1), member(3, G, 2, last=True)], [single(4)], [member(5, H, 1, last=True)]]
    parts = split_partitions(us, 2)
    assert parts == [[1, 2, 3], [4, 5]]
    assert split_partitions([], 2) == []


def test_a_retry_only_batch_still_gets_an_offset_of_its_own() -> None:
    # Spark sees "no new data" when the end offset equals the start: a batch of retries must still move it
    p = Planner()
    end, _ = p.plan(Offset(), [single(1)])
    end2, chosen = p.plan(end, [single(1, backout=1)])
    end3, chosen3 = p.plan(end2, [single(1, backout=2)])
    assert chosen and chosen3 and len({end.to_json(), end2.to_json(), end3.to_json()}) == 3


def test_a_batch_stays_within_maxumsgs_with_a_get_and_an_output_per_message() -> None:
    """Issue 22 item 2: the batch size is bounded by maxMessagesPerBatch and by MAXUMSGS (the batch's gets, one
    output each, and the commit record's get and put share one unit of work)."""
    from syncpoint.spark._qm import batch_bound

    assert batch_bound(5000, 10_000) == 4999  # IBM's default MAXUMSGS
    assert batch_bound(1000, 10_000) == 1000
    assert batch_bound(5000, 12) == 5
    assert batch_bound(5000, 3) == 1  # at least one message: a batch too big fails with MQRC_SYNCPOINT_LIMIT_REACHED
    assert batch_bound(5000, None) == 5000  # MAXUMSGS unreadable


def test_per_partition_commits_bound_each_partition_not_the_batch_and_keep_groups_whole() -> None:
    """Issue 22 items 2-3: with per-partition commits each partition is its own unit of work, so the batch may
    hold partitions x the bound, and no partition (split_partitions over the batch's units, as the executors get
    them) may exceed the bound; a group is never split, so a batch whose split would overflow is cut from its end."""
    from syncpoint.spark._plan import order_units

    p = Planner(max_messages=10, partitions=2, partition_max=5)
    _, chosen = p.plan(Offset(), [single(t) for t in range(1, 30)])
    assert [v.token for v in chosen] == list(range(1, 11))  # 2 partitions x 5: twice one unit of work's bound
    # a 4-message group after 3 singles: [1, 2, 3] then the group would not fit in 5 with what follows
    vis = [single(1), single(2), single(3)]
    vis += [member(4, G, 1), member(5, G, 2), member(6, G, 3), member(7, G, 4, last=True)]
    vis += [single(t) for t in range(8, 20)]
    q = Planner(max_messages=10, partitions=2, partition_max=5)
    _, chosen = q.plan(Offset(), vis)
    parts = split_partitions(order_units(chosen), 2)
    assert max(len(x) for x in parts) <= 5, parts
    assert {4, 5, 6, 7} <= {v.token for v in chosen} or not {4, 5, 6, 7} & {v.token for v in chosen}


def test_a_small_batch_keeps_to_the_cores_and_a_large_one_takes_every_partition() -> None:
    """A flow committing per partition runs twice Spark's cores partitions (docs/flows.md, Performance, change 13);
    a batch of fewer than ``per`` messages a partition goes to at least as many partitions as there are cores,
    and never so few that one would hold more than MAXUMSGS allows (reference/spark.md: each partition's unit of
    work stays within MAXUMSGS)."""
    from syncpoint.spark._plan import order_units

    p = Planner(max_messages=40, partitions=4, partition_max=10, small=2, per=10)
    assert [p.count(n) for n in (1, 5, 20, 21, 30, 40)] == [2, 2, 2, 3, 3, 4]
    _, chosen = p.plan(Offset(), [single(t) for t in range(1, 100)])
    assert len(chosen) == 40 and len(split_partitions(order_units(chosen), p.count(len(chosen)))) == 4
    # the bound, not ``per``, decides when it is smaller: 12 messages within 5 a partition need 3
    q = Planner(max_messages=20, partitions=4, partition_max=5, small=2, per=500)
    _, chosen = q.plan(Offset(), [single(t) for t in range(1, 13)])
    parts = split_partitions(order_units(chosen), q.count(len(chosen)))
    assert len(chosen) == 12 and len(parts) == 3 and max(len(x) for x in parts) <= 5
