"""Rules the fast paths of MQPUT and MQGET must keep (issues 2 and 9: per-message CPU).

MQPUT and MQGET check the rare options (context, browse, cursor, lock, mark) only when one is given, set the
default context from a per-connection template, normalise only the MQMD fields the application could have set,
and pack a persistent message's MQMD in one call. These tests pin the behaviour each shortcut must not change:
the reason codes of bad option words, the exact MQMD output fields, and the stored MQMD after a restart.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import syncpoint
from syncpoint.client import (
    EmbeddedQueueManager,
    QueueManager,
    create_queue_manager,
    memory_queue_manager,
    open_embedded,
)
from syncpoint.engine import FakeClock
from syncpoint.mqi import MQGMO, MQMD, MQOD, MQPMO, MQMIError
from syncpoint.mqi import constants as C


def reason_of(fn, *a, **kw) -> int:  # type: ignore[no-untyped-def]
    with pytest.raises(MQMIError) as ei:
        fn(*a, **kw)
    return ei.value.reason


def _open(qm: QueueManager, options: int = C.MQOO_OUTPUT | C.MQOO_INPUT_SHARED) -> int:
    return qm.mqopen(MQOD(ObjectName=b"Q1"), options)


# --------------------------------------------------------------------------------------------------
# option words on the fast path
# --------------------------------------------------------------------------------------------------
def test_put_with_both_syncpoint_options_is_an_options_error(qm: QueueManager) -> None:
    # mqi.md, MQPMO Options: "MQPMO_SYNCPOINT and MQPMO_NO_SYNCPOINT are mutually exclusive" (MQRC_OPTIONS_ERROR)
    h = _open(qm)
    pmo = MQPMO(Options=C.MQPMO_SYNCPOINT | C.MQPMO_NO_SYNCPOINT | C.MQPMO_NEW_MSG_ID)
    assert reason_of(qm.mqput, h, MQMD(), pmo, b"x") == C.MQRC_OPTIONS_ERROR
    assert qm.open("Q1").depth == 0


def test_put_with_an_undefined_option_bit_is_an_options_error(qm: QueueManager) -> None:
    h = _open(qm)
    assert reason_of(qm.mqput, h, MQMD(), MQPMO(Options=0x40000000), b"x") == C.MQRC_OPTIONS_ERROR


def test_plain_put_with_fail_if_quiescing_fails_while_the_queue_manager_ends(
    qm: QueueManager, embedded: EmbeddedQueueManager
) -> None:
    h = _open(qm)
    embedded.quiesce()
    pmo = MQPMO(Options=C.MQPMO_NO_SYNCPOINT | C.MQPMO_FAIL_IF_QUIESCING)
    assert reason_of(qm.mqput, h, MQMD(), pmo, b"x") == C.MQRC_Q_MGR_QUIESCING
    # without the option the put still works while quiescing (IBM: the option asks to fail)
    qm.mqput(h, MQMD(), MQPMO(Options=C.MQPMO_NO_SYNCPOINT), b"y")


def test_get_with_two_syncpoint_options_is_an_options_error(qm: QueueManager) -> None:
    h = _open(qm)
    qm.mqput(h, MQMD(), MQPMO(), b"x")
    gmo = MQGMO(Options=C.MQGMO_SYNCPOINT | C.MQGMO_NO_SYNCPOINT)
    assert reason_of(qm.mqget, h, MQMD(), gmo) == C.MQRC_OPTIONS_ERROR
    assert qm.open("Q1").depth == 1


def test_get_on_an_output_only_handle_is_not_open_for_input(qm: QueueManager) -> None:
    h = _open(qm, C.MQOO_OUTPUT)
    qm.mqput(h, MQMD(), MQPMO(), b"x")
    assert reason_of(qm.mqget, h, MQMD(), MQGMO()) == C.MQRC_NOT_OPEN_FOR_INPUT


def test_get_with_a_negative_buffer_length_is_a_buffer_length_error(qm: QueueManager) -> None:
    h = _open(qm)
    qm.mqput(h, MQMD(), MQPMO(), b"x")
    assert reason_of(qm.mqget, h, MQMD(), MQGMO(), -1) == C.MQRC_BUFFER_LENGTH_ERROR


# --------------------------------------------------------------------------------------------------
# the MQMD a put completes
# --------------------------------------------------------------------------------------------------
def test_put_normalises_the_character_fields_the_application_set() -> None:
    # str, bytearray and short values come back as exact bytes, blank-padded except the binary identifiers
    # (engine directly: the remote transport packs the MQMD before the queue manager sees it)
    e = memory_queue_manager("QM1", clock=FakeClock())
    try:
        qm = syncpoint.connect("QM1", embedded=e)
        qm.admin("define", "QLOCAL", "Q1")
        h = _open(qm)
        md = MQMD(
            StrucId=bytearray(b"MD  "),
            Format="MQSTR",
            ReplyToQ=bytearray(b"REPLY"),
            ReplyToQMgr=b"QMX",
            CorrelId=b"c1",
            GroupId="g1",
            Persistence=C.MQPER_NOT_PERSISTENT,
        )
        qm.mqput(h, md, MQPMO(Options=C.MQPMO_NO_SYNCPOINT), b"x")
        assert type(md.StrucId) is bytes and md.StrucId == b"MD  "
        assert md.Format == b"MQSTR   "
        assert md.ReplyToQ == b"REPLY".ljust(48) and type(md.ReplyToQ) is bytes
        assert md.ReplyToQMgr == b"QMX".ljust(48)
        assert md.CorrelId == b"c1".ljust(24, b"\0") and md.GroupId == b"g1".ljust(24, b"\0")
        got = MQMD()
        qm.mqget(h, got, MQGMO(Options=C.MQGMO_NO_SYNCPOINT))
        for name in ("Format", "ReplyToQ", "ReplyToQMgr", "CorrelId", "GroupId", "MsgId", "PutDate", "PutTime"):
            assert getattr(got, name) == getattr(md, name), name
    finally:
        e.close(abnormal=True)


def test_put_with_set_all_context_normalises_the_context_fields_too() -> None:
    e = memory_queue_manager("QM1", clock=FakeClock())
    try:
        qm = syncpoint.connect("QM1", embedded=e)
        qm.admin("define", "QLOCAL", "Q1")
        h = _open(qm, C.MQOO_OUTPUT | C.MQOO_INPUT_SHARED | C.MQOO_SET_ALL_CONTEXT)
        md = MQMD(UserIdentifier="bob", PutApplName=bytearray(b"APP"), PutDate=b"2000", ApplOriginData="o")
        qm.mqput(h, md, MQPMO(Options=C.MQPMO_NO_SYNCPOINT | C.MQPMO_SET_ALL_CONTEXT), b"x")
        assert md.UserIdentifier == b"bob".ljust(12) and md.PutApplName == b"APP".ljust(28)
        assert md.PutDate == b"2000    " and md.ApplOriginData == b"o   "
    finally:
        e.close(abnormal=True)


def test_default_context_is_the_connections_and_the_clocks() -> None:
    clock = FakeClock(start=1_767_225_600.0 + 3661.25)  # 2026-01-01 01:01:01.25 GMT
    e = memory_queue_manager("QM1", clock=clock)
    try:
        admin = syncpoint.connect("QM1", embedded=e)  # this process's user: the creator, an administrator
        admin.admin("define", "QLOCAL", "Q1")
        admin.admin("set_authrec", "qmgr", "", "principal", "carol", ["connect"])
        admin.admin("set_authrec", "queue", "Q1", "principal", "carol", ["allmqi"])
        qm = syncpoint.connect("QM1", embedded=e, appl_name="orders", user="carol")
        h = _open(qm)
        md = MQMD(UserIdentifier=b"mallory", ApplIdentityData=b"forged", PutApplType=99)
        qm.mqput(h, md, MQPMO(Options=C.MQPMO_NO_SYNCPOINT), b"x")
        assert md.UserIdentifier == b"carol".ljust(12) and md.AccountingToken == C.MQACT_NONE
        assert md.ApplIdentityData == b" " * 32 and md.PutApplType == C.MQAT_UNIX
        assert md.PutApplName == b"orders".ljust(28) and md.ApplOriginData == b" " * 4
        assert md.PutDate == b"20260101" and md.PutTime == b"01010125"
    finally:
        e.close(abnormal=True)


def test_put_date_before_year_1000_is_blank_padded_as_normalize_pads_it() -> None:
    # MQMD.normalize pads a short character field with blanks; %Y gives 3 digits for the year 999
    clock = FakeClock(start=-30_610_224_000.0 - 86_400 * 300)  # 999-03-07 GMT
    e = memory_queue_manager("QM1", clock=clock)
    try:
        qm = syncpoint.connect("QM1", embedded=e)
        qm.admin("define", "QLOCAL", "Q1")
        md = qm.open("Q1").put(b"x")
        assert md.PutDate == b"9990307 " and len(md.PutTime) == 8
    finally:
        e.close(abnormal=True)


def test_pythonic_put_and_get_leave_no_option_behind(qm: QueueManager) -> None:
    # the prepared option sets of Queue.put / Queue.get are copied, never shared between calls
    q = qm.open("Q1")
    a = q.put(b"a", persistent=False)
    b = q.put(b"b", persistent=False, syncpoint=True)
    assert a.MsgId != b.MsgId
    assert q.get().data == b"a"
    with pytest.raises(MQMIError) as ei:
        q.get()
    assert ei.value.reason == C.MQRC_NO_MSG_AVAILABLE  # "b" is not committed
    qm.commit()
    m = q.get(syncpoint=True)
    assert m.data == b"b"
    qm.backout()
    assert q.get().backout_count == 1


# --------------------------------------------------------------------------------------------------
# the stored MQMD of a persistent message
# --------------------------------------------------------------------------------------------------
def test_persistent_message_mqmd_survives_restart_field_for_field(tmp_path: Path) -> None:
    create_queue_manager("QM1", home=tmp_path)
    qm = syncpoint.connect("QM1", home=tmp_path)
    qm.admin("define", "QLOCAL", "Q1")
    h = _open(qm)
    sent = []
    for i, fmt in enumerate([b"MQSTR   ", "MQCICS", bytearray(b"X")]):
        md = MQMD(
            Format=fmt,
            ReplyToQ=f"R{i}",
            CorrelId=bytearray(b"c"),
            Persistence=C.MQPER_PERSISTENT,
            Priority=i,
            Report=C.MQRO_NONE,
            Expiry=C.MQEI_UNLIMITED,
        )
        qm.mqput(h, md, MQPMO(Options=C.MQPMO_SYNCPOINT), f"m{i}".encode())
        sent.append(md)
    qm.commit()
    open_embedded("QM1", home=tmp_path).close(abnormal=True)
    qm = syncpoint.connect("QM1", home=tmp_path)
    h = _open(qm)
    got = []
    for _ in sent:
        md = MQMD()
        qm.mqget(h, md, MQGMO(Options=C.MQGMO_NO_SYNCPOINT))
        got.append(md)
    by_id = {md.MsgId: md for md in got}
    for md in sent:
        back = by_id[md.MsgId]
        assert back.pack() == md.copy().set(Version=2).pack()
        assert type(back.Format) is bytes and back.Format == md.Format
    qm.disconnect()
