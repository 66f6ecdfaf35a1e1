"""The sink's commit protocol on a real queue manager (embedded, fake clock): ONE unit of work removes a batch's
inputs, puts its outputs, routes poison messages and records (query id, batch id); a replay is skipped.

Sources: reference/spark.md ("The design that holds"), reference/mqinput-node.md (retry ladder), seed 004.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

import pytest

import syncpoint
from syncpoint.client import EmbeddedQueueManager, QueueManager
from syncpoint.flow import Action, Disposition, Put, Terminal
from syncpoint.mqi import MQDLH, MQMIError
from syncpoint.mqi import constants as C
from syncpoint.spark import COMMITS_QUEUE, QueueAccess, Sink, read_record

DLQ = "SYSTEM.DEAD.LETTER.QUEUE"


@pytest.fixture(params=["embedded", "remote"])
def connect(
    request: pytest.FixtureRequest, embedded: EmbeddedQueueManager, serve: Callable[..., object]
) -> Callable[..., QueueManager]:
    """The sink over both transports: over the network it batches its reads, gets and puts by MsgToken."""
    if request.param == "embedded":
        return lambda **kw: syncpoint.connect("QM1", embedded=embedded, **kw)
    srv = serve(embedded)
    return lambda **kw: syncpoint.connect("QM1", unix_path=srv.unix_path, **kw)  # type: ignore[attr-defined]


@pytest.fixture
def qmx(connect: Callable[..., QueueManager]) -> QueueManager:
    qm = connect()
    qm.admin("define", "QLOCAL", "IN", {"BOTHRESH": 2})
    qm.admin("define", "QLOCAL", "OUT")
    return qm


def load(qm: QueueManager, *bodies: str) -> list[int]:
    q = qm.open("IN")
    for b in bodies:
        q.put(b, persistent=True)
    return [v.token for v in QueueAccess(qm, "IN").scan(from_start=True)]


def commit(qm: QueueManager, batch: int, ds: list[Disposition], query: str = "Q-1") -> object:
    return Sink(qm).commit_flow(query, batch, {"IN": ds})


def ok(token: int, *outs: bytes, count: int = 0) -> Disposition:
    return Disposition(token, Action.COMMIT, Terminal.OUT, count, [Put("OUT", "", o) for o in outs])


def bodies(qm: QueueManager, queue: str) -> list[bytes]:
    return [m.data for m in qm.open(queue).browse_all()]


def test_one_unit_of_work_removes_inputs_puts_outputs_and_records_the_batch(qmx: QueueManager) -> None:
    t = load(qmx, "a", "b")
    s = commit(qmx, 0, [ok(t[0], b"A"), ok(t[1], b"B1", b"B2")])
    assert bodies(qmx, "OUT") == [b"A", b"B1", b"B2"] and qmx.open("IN").depth == 0
    rec = read_record(qmx, "Q-1")
    assert rec is not None and rec["batch"] == 0
    assert s.committed == 2 and s.outputs == 3  # type: ignore[attr-defined]


def test_a_replayed_batch_is_skipped(qmx: QueueManager) -> None:
    # spark.md: "a replayed batch whose id is already recorded is skipped"
    t = load(qmx, "a")
    commit(qmx, 0, [ok(t[0], b"A")])
    qmx.open("IN").put("later", persistent=True)
    s = commit(qmx, 0, [ok(t[0], b"A")])
    assert s.skipped  # type: ignore[attr-defined]
    assert bodies(qmx, "OUT") == [b"A"] and qmx.open("IN").depth == 1


def test_queries_are_recorded_separately_and_only_the_last_record_is_kept(qmx: QueueManager) -> None:
    t = load(qmx, "a", "b", "c")
    commit(qmx, 0, [ok(t[0], b"A")], query="one")
    commit(qmx, 1, [ok(t[1], b"B")], query="one")
    commit(qmx, 0, [ok(t[2], b"C")], query="two")
    assert qmx.open(COMMITS_QUEUE).depth == 2
    assert read_record(qmx, "one")["batch"] == 1  # type: ignore[index]


def test_backed_out_message_has_backoutcount_plus_one_visible_in_mqmd(qmx: QueueManager) -> None:
    t = load(qmx, "poison", "fine")
    d = Disposition(t[0], Action.BACKOUT, Terminal.OUT, 0, error="exception in the Out flow")
    s = commit(qmx, 0, [d, ok(t[1], b"FINE")])
    m = qmx.open("IN").browse(first=True)
    assert (m.data, m.backout_count) == (b"poison", 1)
    assert bodies(qmx, "OUT") == [b"FINE"] and s.backed_out == 1  # type: ignore[attr-defined]


def test_poison_message_never_holds_back_the_others(qmx: QueueManager) -> None:
    # issue 8 item 6: not beyond its own unit of work
    t = load(qmx, *[f"m{i}" for i in range(5)])
    ds = [ok(x, b"ok") for x in t]
    ds[2] = Disposition(t[2], Action.BACKOUT, Terminal.OUT, 0, error="boom")
    commit(qmx, 0, ds)
    assert len(bodies(qmx, "OUT")) == 4 and qmx.open("IN").depth == 1


def test_requeue_goes_to_boqname_first(qmx: QueueManager) -> None:
    qmx.admin("define", "QLOCAL", "IN.BOQ")
    qmx.admin("alter", "QLOCAL", "IN", {"BOQNAME": "IN.BOQ"})
    t = load(qmx, "poison")
    before = qmx.open("IN").browse(first=True).msg_id
    commit(qmx, 0, [Disposition(t[0], Action.REQUEUE, Terminal.NONE, 2, error="threshold")])
    m = qmx.open("IN.BOQ").browse(first=True)
    assert m.data == b"poison" and m.msg_id == before  # the message itself, context kept
    assert qmx.open(DLQ).depth == 0 and qmx.open("IN").depth == 0


def test_requeue_goes_to_the_dlq_with_an_mqdlh_when_there_is_no_boqname(qmx: QueueManager) -> None:
    t = load(qmx, "poison")
    commit(qmx, 0, [Disposition(t[0], Action.REQUEUE, Terminal.NONE, 2, error="threshold")])
    m = qmx.open(DLQ).browse(first=True)
    assert m.format == "MQDEAD"
    dlh = MQDLH.unpack(m.data[: C.MQDLH_LENGTH_1])
    assert dlh.Reason == C.MQRC_BACKOUT_THRESHOLD_REACHED and dlh.DestQName.strip() == b"IN"
    assert dlh.Format == C.MQFMT_STRING and m.data[C.MQDLH_LENGTH_1 :] == b"poison"


def test_requeue_goes_to_the_dlq_when_boqname_names_no_queue(qmx: QueueManager) -> None:
    qmx.admin("alter", "QLOCAL", "IN", {"BOQNAME": "NO.SUCH.QUEUE"})
    t = load(qmx, "poison")
    commit(qmx, 0, [Disposition(t[0], Action.REQUEUE, Terminal.NONE, 2, error="threshold")])
    assert qmx.open(DLQ).depth == 1


def test_requeue_with_neither_queue_stays_backed_out_and_logged_with_rising_count(
    qmx: QueueManager, caplog: pytest.LogCaptureFixture
) -> None:
    # mqinput-node.md: "it is not discarded; the node keeps backing it out and logs the error each time"
    qmx.admin("delete", "QLOCAL", DLQ)
    t = load(qmx, "poison", "fine")
    caplog.set_level(logging.ERROR, "syncpoint.flow")
    for batch in range(3):
        count = qmx.open("IN").browse(first=True).backout_count
        ds = [Disposition(t[0], Action.REQUEUE, Terminal.NONE, count, error="threshold")]
        if batch == 0:
            ds.append(ok(t[1], b"FINE"))
        commit(qmx, batch, ds)
    m = qmx.open("IN").browse(first=True)
    assert (m.data, m.backout_count) == (b"poison", 3)
    logged = [r.getMessage() for r in caplog.records if "BIP2630" in r.getMessage()]
    assert len(logged) == 3 and "BackoutCount now 3" in logged[-1]
    assert bodies(qmx, "OUT") == [b"FINE"]


def test_an_output_that_cannot_be_put_backs_out_only_its_message(qmx: QueueManager) -> None:
    t = load(qmx, "a", "b")
    bad = Disposition(t[0], Action.COMMIT, Terminal.OUT, 0, [Put("NO.SUCH.Q", "", b"x")])
    s = commit(qmx, 0, [bad, ok(t[1], b"B")])
    assert bodies(qmx, "OUT") == [b"B"]
    m = qmx.open("IN").browse(first=True)
    assert (m.data, m.backout_count) == (b"a", 1)
    assert any("NO.SUCH.Q" in e for e in s.errors)  # type: ignore[attr-defined]


def test_a_put_failing_inside_the_unit_of_work_redoes_it_without_that_message(qmx: QueueManager) -> None:
    qmx.admin("define", "QLOCAL", "SMALL", {"MAXDEPTH": 1})
    t = load(qmx, "a", "b", "c")
    ds = [
        Disposition(t[0], Action.COMMIT, Terminal.OUT, 0, [Put("SMALL", "", b"A")]),
        Disposition(t[1], Action.COMMIT, Terminal.OUT, 0, [Put("OUT", "", b"B1"), Put("SMALL", "", b"B2")]),
        ok(t[2], b"C"),
    ]
    commit(qmx, 0, ds)
    assert bodies(qmx, "SMALL") == [b"A"] and bodies(qmx, "OUT") == [b"C"]  # B1 went back with B2's failure
    m = qmx.open("IN").browse(first=True)
    assert (m.data, m.backout_count) == (b"b", 1)


def test_a_message_taken_by_another_consumer_meanwhile_gets_no_outputs(qmx: QueueManager) -> None:
    t = load(qmx, "a", "b")
    qmx.open("IN").get()  # another consumer takes "a" during the batch
    s = commit(qmx, 0, [ok(t[0], b"A"), ok(t[1], b"B")])
    assert bodies(qmx, "OUT") == [b"B"] and s.gone == 1  # type: ignore[attr-defined]


def test_an_interrupted_backout_is_finished_exactly_once_by_the_replay(qmx: QueueManager) -> None:
    t = load(qmx, "poison")
    sink = Sink(qmx)
    d = Disposition(t[0], Action.BACKOUT, Terminal.OUT, 0, error="boom")
    sink._finish_backouts = lambda *a, **k: None  # type: ignore[method-assign]  # the crash: after the commit
    sink.commit_flow("Q-1", 0, {"IN": [d]})
    assert qmx.open("IN").browse(first=True).backout_count == 0
    Sink(qmx).commit_flow("Q-1", 0, {"IN": [d]})  # the replay of batch 0
    Sink(qmx).commit_flow("Q-1", 0, {"IN": [d]})  # and another
    assert qmx.open("IN").browse(first=True).backout_count == 1


def test_discard_in_transaction_mode_no_removes_the_message_and_logs(
    qmx: QueueManager, caplog: pytest.LogCaptureFixture
) -> None:
    t = load(qmx, "lost")
    caplog.set_level(logging.ERROR, "syncpoint.flow")
    commit(qmx, 0, [Disposition(t[0], Action.DISCARD, Terminal.OUT, 0, error="boom")])
    assert qmx.open("IN").depth == 0 and any("discarded" in r.getMessage() for r in caplog.records)


def test_a_batch_larger_than_maxumsgs_fails_clearly_and_commits_nothing(qmx: QueueManager) -> None:
    qmx.admin("alter_qmgr", {"MAXUMSGS": 3})
    t = load(qmx, "a", "b")
    with pytest.raises(MQMIError) as e:
        commit(qmx, 0, [ok(t[0], b"A"), ok(t[1], b"B")])
    assert e.value.reason == C.MQRC_SYNCPOINT_LIMIT_REACHED and "maxMessagesPerBatch" in str(e.value)
    qmx.backout()
    assert qmx.open("IN").depth == 2 and qmx.open("OUT").depth == 0


def test_plain_rows_commit_consumes_inputs_and_puts_rows(qmx: QueueManager) -> None:
    t = load(qmx, "a", "b")
    sink = Sink(qmx)
    sink.commit_rows("Q-R", 0, {"IN": [t[0]]}, [Put("OUT", "", b"row1"), Put("OUT", "", b"row2")])
    assert bodies(qmx, "OUT") == [b"row1", b"row2"] and bodies(qmx, "IN") == [b"b"]
    assert sink.commit_rows("Q-R", 0, {"IN": [t[0]]}, [Put("OUT", "", b"row1")]).skipped


def test_outputs_with_different_descriptors_each_keep_their_own(qmx: QueueManager) -> None:
    """The sink's puts travel together (one putv request over the network), each with its own MQMD."""
    t = load(qmx, "a", "b", "c")
    ds = [
        Disposition(tok, Action.COMMIT, Terminal.OUT, 0, [Put("OUT", "", b"r%d" % i, {"CorrelId": b"C%d" % i})])
        for i, tok in enumerate(t)
    ]
    commit(qmx, 0, ds)
    got = list(qmx.open("OUT").browse_all())
    assert [(m.data, m.md.CorrelId[:2]) for m in got] == [(b"r0", b"C0"), (b"r1", b"C1"), (b"r2", b"C2")]
