"""The Pythonic API fills the MQMD as its keywords promise (issue "Tried as a new user would", item 2: every
keyword checked against the MQMD it fills)."""

from __future__ import annotations

import math

import pytest

from syncpoint.client import QueueManager
from syncpoint.engine import FakeClock
from syncpoint.mqi import MQMIError
from syncpoint.mqi import constants as C


@pytest.mark.parametrize("expiry", [-1, math.inf, None])
def test_expiry_minus_one_infinity_or_none_is_unlimited(
    qm: QueueManager, clock: FakeClock, expiry: float | None
) -> None:
    q = qm.open("Q1")
    md = q.put(b"m", expiry=expiry)
    assert md.Expiry == C.MQEI_UNLIMITED
    clock.advance(10**6)
    assert q.get().data == b"m"


@pytest.mark.parametrize("expiry", [0, -0.5, -2])
def test_expiry_zero_or_below_minus_one_fails_with_mqrc_expiry_error(qm: QueueManager, expiry: float) -> None:
    # seed 002: "An Expiry of zero ... MQRC_EXPIRY_ERROR" — not a message gone 0.1 s later
    with pytest.raises(MQMIError) as e:
        qm.open("Q1").put(b"m", expiry=expiry)
    assert e.value.reason == C.MQRC_EXPIRY_ERROR
    assert qm.open("Q1").depth == 0


def test_expiry_in_seconds_is_tenths_in_the_mqmd_and_a_sliver_is_one_tenth(qm: QueueManager) -> None:
    q = qm.open("Q1")
    assert q.put(b"a", expiry=2.5).Expiry == 25
    assert q.put(b"b", expiry=0.01).Expiry == 1


def test_expiry_that_is_not_a_number_is_an_expiry_error(qm: QueueManager) -> None:
    with pytest.raises(MQMIError) as e:
        qm.open("Q1").put(b"m", expiry=math.nan)
    assert e.value.reason == C.MQRC_EXPIRY_ERROR


@pytest.mark.parametrize("options", [None, C.MQOO_INPUT_AS_Q_DEF | C.MQOO_OUTPUT])
def test_a_closed_queue_answers_mqrc_hobj_error(qm: QueueManager, options: int | None) -> None:
    # IBM: a call with a handle that was closed fails with MQRC_HOBJ_ERROR (2019), not a KeyError
    q = qm.open("Q1") if options is None else qm.open("Q1", options)
    q.put(b"m")
    q.close()
    for call in (lambda: q.put(b"again"), lambda: q.get()):
        with pytest.raises(MQMIError) as e:
            call()
        assert e.value.reason == C.MQRC_HOBJ_ERROR


def test_a_message_shows_its_main_fields_not_the_padded_mqmd(qm: QueueManager) -> None:
    q = qm.open("Q1")
    q.put(b"hello", priority=7, persistent=True, reply_to="REPLY.Q")
    text = repr(q.get())
    assert text.startswith("Message(data=b'hello', length=5, msg_id=")
    assert "priority=7" in text and "persistent=True" in text and "reply_to='REPLY.Q'" in text
    assert "MQMD" not in text and "b'        " not in text  # no blank-padded fields


def test_put_time_is_an_aware_utc_datetime_from_putdate_and_puttime(qm: QueueManager, clock: FakeClock) -> None:
    from datetime import UTC, datetime

    q = qm.open("Q1")
    q.put(b"m")
    m = q.get()
    assert m.put_time == datetime.fromtimestamp(int(clock.time() * 100) / 100, UTC)
    m.md.PutDate = b"        "
    assert m.put_time is None


def test_the_package_carries_its_pep_561_marker() -> None:
    from importlib.resources import files

    assert files("syncpoint").joinpath("py.typed").is_file()
