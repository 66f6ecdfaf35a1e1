"""A sending channel takes the time a batch is held in transit off each message's Expiry (seed 002,
002_b264ab86f94f09d9.txt: the Expiry "can also be decremented by message channel agents to reflect transmission
times, if these are significant"; issue 23 item 6: "Expiry is decremented for time spent on transmission queues and
in transit"). The time on the transmission queue is the get's (tests/engine/test_remote_queues.py); this is the
rest: a batch that left the transmission queue and waits, in doubt, for the receiver — across an outage or a
restart of the sender."""

from __future__ import annotations

import msgpack

from syncpoint.channel import Record, in_transit
from syncpoint.engine.remote import build_xmit_message, parse_xmit_message
from syncpoint.mqi import MQMD
from syncpoint.mqi import constants as C


def _xmit(expiry: int) -> bytes:
    _, data = build_xmit_message("ORDERS", "QM2", MQMD(Expiry=expiry, Persistence=C.MQPER_PERSISTENT), b"order")
    return data


def _expiry(raw: bytes) -> int:
    x = parse_xmit_message(MQMD(Format=C.MQFMT_XMIT_Q_HEADER), raw)
    assert x is not None
    return int(x.md.Expiry)


def test_a_batch_held_in_transit_leaves_with_its_expiry_lowered_by_that_time() -> None:
    out = in_transit([_xmit(100), _xmit(20)], taken=1000.0, now=1003.5)
    assert [_expiry(m) for m in out] == [65, 0]  # 10 s less 3.5 s; 2 s less 3.5 s: run out (the receiver discards)


def test_transit_under_a_second_is_not_significant_and_unlimited_stays_unlimited() -> None:
    msgs = [_xmit(100), _xmit(C.MQEI_UNLIMITED)]
    assert in_transit(msgs, taken=1000.0, now=1000.9) == msgs
    assert _expiry(in_transit(msgs, taken=1000.0, now=1060.0)[1]) == C.MQEI_UNLIMITED


def test_the_sync_record_keeps_when_its_batch_left_across_a_restart() -> None:
    rec = Record(7, "b7", [_xmit(100)], None, taken=1234.5)
    assert Record.unpack(rec.pack()).taken == 1234.5
    # a record written before the time was kept reads as "unknown": nothing is taken off
    old = Record.unpack(msgpack.packb([7, "b7", rec.msgs, None]))
    assert old.taken == 0.0 and in_transit(old.msgs, old.taken, 99_999.0) == old.msgs
