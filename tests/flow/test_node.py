"""The MQInput node's rules, one test per row of the error table and per step of the retry ladder.

Source: seed 004_34794cb819784c0d.txt ("Manejar errores de MQInput") and reference/mqinput-node.md.
"""

from __future__ import annotations

from typing import Any

import pytest

from syncpoint.flow import (
    Action,
    FlowMessage,
    Handlers,
    Output,
    Terminal,
    TransactionMode,
    effective_threshold,
    process_group,
    process_message,
    requeue_order,
)
from syncpoint.flow._node import BIP_BOTH_FAILED, BIP_FAILURE, BIP_FAILURE_FAILED, BIP_REQUEUE
from syncpoint.mqi import constants as C


def msg(data: bytes = b"hello", backout: int = 0, token: int = 1, **md: Any) -> FlowMessage:
    fields: dict[str, Any] = {"BackoutCount": backout, "Persistence": C.MQPER_PERSISTENT, "MsgId": b"M" * 24}
    fields.update(md)
    return FlowMessage(data, fields, queue="IN", token=token)


def ok(m: FlowMessage) -> Any:
    return m.data.upper()


def boom(m: FlowMessage) -> Any:
    raise ValueError("poison")


def catch_ok(m: FlowMessage, e: BaseException) -> Any:
    return Output(b"caught:" + m.data, queue="ERRORS")


def catch_boom(m: FlowMessage, e: BaseException) -> Any:
    raise RuntimeError("catch broke")


def failure_ok(m: FlowMessage, error: str) -> Any:
    return Output(b"failed:" + m.data, queue="FAILED")


def failure_boom(m: FlowMessage, error: str) -> Any:
    raise RuntimeError("failure flow broke")


# -- BOTHRESH ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("bothresh", "used"), [(0, 1), (None, 1), (-3, 1), (1, 1), (2, 2), (5, 5)])
def test_bothresh_zero_or_unreadable_means_one(bothresh: int | None, used: int) -> None:
    # seed 004: "Si acepta el valor por omisión 0, el nodo lo aumenta a 1. ... si no puede detectar el valor"
    assert effective_threshold(bothresh) == used


def test_message_never_backed_out_is_processed_even_with_bothresh_zero() -> None:
    d = process_message(msg(), Handlers(out=ok, default_queue="OUT"), 0)
    assert d.action is Action.COMMIT and d.terminal is Terminal.OUT
    assert [(p.queue, p.data) for p in d.puts] == [("OUT", b"HELLO")]


# -- the error table ---------------------------------------------------------------------------------------
def test_row1_internal_error_failure_connected_failure_flow_handles_it() -> None:
    # "El nodo detecta un error interno | Terminal de anomalías conectado: el flujo conectado ... maneja el error"
    d = process_message(msg(b"not json"), Handlers(out=ok, failure=failure_ok, parse="json"), 0)
    assert d.action is Action.COMMIT and d.terminal is Terminal.FAILURE
    assert d.puts[0].queue == "FAILED" and "cannot parse" in (d.error or "")


def test_row1_internal_error_failure_not_connected_goes_to_alternative_queue() -> None:
    # "... no conectado: el mensaje se coloca en una cola alternativa"
    d = process_message(msg(b"not json"), Handlers(out=ok, parse="json"), 0)
    assert d.action is Action.REQUEUE and d.puts == []
    assert d.reason == C.MQRC_FORMAT_ERROR  # the MQDLH says why, if it ends on the dead-letter queue


def test_row2_exception_behind_out_catch_connected_catch_flow_handles_it() -> None:
    d = process_message(msg(), Handlers(out=boom, catch=catch_ok), 3)
    assert d.action is Action.COMMIT and d.terminal is Terminal.CATCH
    assert [(p.queue, p.data) for p in d.puts] == [("ERRORS", b"caught:hello")]


def test_row2_exception_behind_out_catch_not_connected_node_retries() -> None:
    # "El nodo vuelve a intentarlo": the message is backed out, BackoutCount + 1 at the sink, retried later
    d = process_message(msg(), Handlers(out=boom), 3)
    assert d.action is Action.BACKOUT and d.puts == [] and "poison" in (d.error or "")


@pytest.mark.parametrize("failure", [None, failure_ok])
def test_row3_exception_behind_catch_is_logged_and_backed_out(failure: Any) -> None:
    # "Error anotado, se ha restituido el mensaje" whether Failure is connected or not
    d = process_message(msg(), Handlers(out=boom, catch=catch_boom, failure=failure), 3)
    assert d.action is Action.BACKOUT and d.puts == []
    assert "catch broke" in (d.error or "") and "poison" in (d.error or "")


@pytest.mark.parametrize("catch", [None, catch_ok])
def test_row4_exception_behind_failure_node_retries(catch: Any) -> None:
    # "El nodo vuelve a intentarlo" whether Catch is connected or not
    d = process_message(msg(backout=2), Handlers(out=ok, catch=catch, failure=failure_boom), 2)
    assert d.action is Action.BACKOUT and d.bip == BIP_FAILURE_FAILED and d.puts == []


# -- the retry ladder ----------------------------------------------------------------------------------------
def test_step1_below_threshold_message_goes_to_out_again() -> None:
    d = process_message(msg(backout=1), Handlers(out=ok, default_queue="OUT", failure=failure_ok), 2)
    assert d.action is Action.COMMIT and d.terminal is Terminal.OUT


def test_threshold_one_means_no_retry_through_out_after_one_failure() -> None:
    calls = []

    def out(m: FlowMessage) -> Any:
        calls.append(m.backout_count)
        raise ValueError("x")

    h = Handlers(out=out)
    assert process_message(msg(backout=0), h, 1).action is Action.BACKOUT
    assert process_message(msg(backout=1), h, 1).action is Action.REQUEUE
    assert calls == [0]


def test_threshold_two_gives_one_retry() -> None:
    calls = []

    def out(m: FlowMessage) -> Any:
        calls.append(m.backout_count)
        raise ValueError("x")

    h = Handlers(out=out)
    assert [process_message(msg(backout=b), h, 2).action for b in (0, 1, 2)] == [
        Action.BACKOUT,
        Action.BACKOUT,
        Action.REQUEUE,
    ]
    assert calls == [0, 1]


def test_step2_threshold_reached_failure_connected_propagates_to_failure() -> None:
    d = process_message(msg(backout=2), Handlers(out=boom, failure=failure_ok), 2)
    assert d.action is Action.COMMIT and d.terminal is Terminal.FAILURE and d.bip == BIP_FAILURE
    assert d.puts[0].queue == "FAILED"


def test_step2_threshold_reached_failure_not_connected_requeues_to_boqname_then_dlq() -> None:
    d = process_message(msg(backout=2), Handlers(out=ok), 2)
    assert d.action is Action.REQUEUE and d.bip == BIP_REQUEUE
    assert requeue_order("IN.BOQ", "DLQ") == [("IN.BOQ", False), ("DLQ", True)]
    assert requeue_order("", "DLQ") == [("DLQ", True)]
    assert requeue_order(None, "  ") == []  # it stays (BIP2630): decided at the sink


def test_step3_failing_failure_flow_retried_until_twice_the_threshold_then_requeued() -> None:
    h = Handlers(out=ok, failure=failure_boom)
    actions = [process_message(msg(backout=b), h, 2).action for b in (2, 3, 4, 5)]
    assert actions == [Action.BACKOUT, Action.BACKOUT, Action.REQUEUE, Action.REQUEUE]
    assert process_message(msg(backout=4), h, 2).bip == BIP_BOTH_FAILED


# -- transaction mode ------------------------------------------------------------------------------------------
def test_transaction_mode_no_failed_message_is_discarded_not_backed_out() -> None:
    h = Handlers(out=boom, mode=TransactionMode.NO)
    assert process_message(msg(), h, 1).action is Action.DISCARD


def test_transaction_mode_automatic_backs_out_only_persistent_messages() -> None:
    h = Handlers(out=boom, mode=TransactionMode.AUTOMATIC)
    assert process_message(msg(), h, 3).action is Action.BACKOUT
    assert process_message(msg(Persistence=C.MQPER_NOT_PERSISTENT), h, 3).action is Action.DISCARD


# -- outputs --------------------------------------------------------------------------------------------------
def test_reply_to_routing_uses_replytoq_and_copies_msgid_to_correlid() -> None:
    m = msg(ReplyToQ="REPLY.Q", ReplyToQMgr="QM2")
    d = process_message(m, Handlers(out=lambda m: Output(b"r", reply=True)), 0)
    (p,) = d.puts
    assert (p.queue, p.qmgr, p.md["CorrelId"], p.md["MsgType"]) == ("REPLY.Q", "QM2", b"M" * 24, C.MQMT_REPLY)


def test_reply_without_replytoq_is_an_exception_in_the_out_flow() -> None:
    d = process_message(msg(), Handlers(out=lambda m: Output(b"r", reply=True)), 0)
    assert d.action is Action.BACKOUT and "ReplyToQ" in (d.error or "")


def test_output_without_queue_and_without_default_is_an_exception_in_the_out_flow() -> None:
    d = process_message(msg(), Handlers(out=ok), 0)
    assert d.action is Action.BACKOUT and "no default output queue" in (d.error or "")


# -- groups ---------------------------------------------------------------------------------------------------
def group(n: int, bad: set[int], backout: int = 0) -> list[FlowMessage]:
    out = []
    for i in range(1, n + 1):
        flags = C.MQMF_LAST_MSG_IN_GROUP if i == n else C.MQMF_MSG_IN_GROUP
        data = b"bad" if i in bad else b"m%d" % i
        out.append(msg(data, backout, token=10 + i, GroupId=b"G" * 24, MsgSeqNumber=i, MsgFlags=flags))
    return out


def out_unless_bad(m: FlowMessage) -> Any:
    if m.data == b"bad":
        raise ValueError("bad member")
    return m.data


def test_group_processed_in_logical_order_in_one_unit_of_work() -> None:
    seen = []

    def out(m: FlowMessage) -> Any:
        seen.append(m.md["MsgSeqNumber"])
        return m.data

    ms = group(4, set())
    ds = process_group(list(reversed(ms)), Handlers(out=out, default_queue="OUT"), 1)
    assert seen == [1, 2, 3, 4] and all(d.action is Action.COMMIT for d in ds)


def test_group_failure_backs_out_the_unit_of_work_up_to_the_failing_message_rest_commits() -> None:
    # seed 004: "la unidad de trabajo que incluye los mensajes hasta el mensaje que genera el error (éste incluido)
    # está sujeta al manejo de errores ... es posible que esa parte del grupo se restituya y que otra parte se confirme"
    ds = process_group(group(5, {3}), Handlers(out=out_unless_bad, default_queue="OUT"), 3)
    assert [d.action for d in ds] == [Action.BACKOUT] * 3 + [Action.COMMIT] * 2
    assert ds[0].puts == [] and "message 3 of the group failed" in (ds[0].error or "")


def test_group_all_or_nothing_failure_backs_out_every_message() -> None:
    ds = process_group(group(5, {3}), Handlers(out=out_unless_bad, default_queue="OUT"), 3, all_or_nothing=True)
    assert [d.action for d in ds] == [Action.BACKOUT] * 5 and all(d.puts == [] for d in ds)


def test_group_all_or_nothing_at_threshold_requeues_the_whole_group() -> None:
    ds = process_group(
        group(3, {2}, backout=1), Handlers(out=out_unless_bad, default_queue="OUT"), 1, all_or_nothing=True
    )
    assert [d.action for d in ds] == [Action.REQUEUE] * 3


def test_outputs_are_persistent_as_the_input_message_unless_told() -> None:
    # a persistent input's outputs must survive a queue-manager restart, as IBM's MQOutput node does by default
    h = Handlers(out=lambda m: [Output(b"same"), Output(b"np", persistent=False)], default_queue="OUT")
    d = process_message(msg(), h, 0)
    assert [p.md["Persistence"] for p in d.puts] == [C.MQPER_PERSISTENT, C.MQPER_NOT_PERSISTENT]
    d = process_message(msg(Persistence=C.MQPER_NOT_PERSISTENT), Handlers(out=ok, default_queue="OUT"), 0)
    assert d.puts[0].md["Persistence"] == C.MQPER_NOT_PERSISTENT
