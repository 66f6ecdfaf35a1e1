"""The console's data and the dead-letter workbench over an embedded queue manager: paging, headers decoded, and
the workbench's actions on messages named by MsgId (the DLQ handler's own actions: reference/dlq-handler.md,
"Processing": RETRY puts the message to DestQName with the MQDLH removed, context passed, in one unit of work)."""

from __future__ import annotations

import base64

import pytest

from syncpoint.client import QueueManager
from syncpoint.console import _data
from syncpoint.console._workbench import act, dead_letters, rule_for, rules_table
from syncpoint.dlq import dead_letter, parse_rules
from syncpoint.mqi import MQDLH, MQMD, MQXQH
from syncpoint.mqi import constants as C

DLQ = "SYSTEM.DEAD.LETTER.QUEUE"


def dead(qm: QueueManager, body: bytes, dest: str = "APP.Q", reason: int = C.MQRC_Q_FULL, **md: object) -> bytes:
    """Dead-letter a message as an application does; its MsgId."""
    out = dead_letter(qm, MQMD(Format=C.MQFMT_STRING, **md), body, reason, dest_q=dest, syncpoint=False)
    return bytes(out.MsgId)


def bodies(qm: QueueManager, name: str) -> list[bytes]:
    with qm.open(name, C.MQOO_BROWSE) as q:
        return [m.data for m in q.browse_all()]


@pytest.fixture
def app_q(qm: QueueManager) -> QueueManager:
    qm.admin("define", "QLOCAL", "APP.Q", {})
    qm.admin("define", "QLOCAL", "HOLD.Q", {})
    return qm


def test_retry_puts_the_chosen_messages_on_their_original_queue_without_mqdlh_and_with_their_context(
    app_q: QueueManager,
) -> None:
    qm = app_q
    ids = [dead(qm, f"m{i}".encode(), ApplIdentityData=b"who-sent-it") for i in range(4)]
    outcomes = act(qm, DLQ, "retry", [ids[0], ids[2]])
    assert [o.done for o in outcomes] == [True, True]
    assert {o.destination for o in outcomes} == {"APP.Q on QM1"}  # the MQDLH's DestQName and DestQMgrName
    assert bodies(qm, "APP.Q") == [b"m0", b"m2"]  # the MQDLH removed
    assert [b[C.MQDLH_LENGTH_1 :] for b in bodies(qm, DLQ)] == [b"m1", b"m3"]  # the others stay
    with qm.open("APP.Q", C.MQOO_BROWSE) as q:
        m = q.browse(first=True)
    assert bytes(m.md.MsgId) == ids[0]  # context passed: the message's own identity
    assert m.md.ApplIdentityData.rstrip(b" ") == b"who-sent-it"
    assert m.md.Format == C.MQFMT_STRING  # the MQDLH's Format restored to the MQMD


def test_retry_whose_original_queue_no_longer_exists_leaves_the_message_on_the_dlq_with_the_reason(
    app_q: QueueManager,
) -> None:
    qm = app_q
    msg_id = dead(qm, b"orphan", dest="GONE.Q")
    (outcome,) = act(qm, DLQ, "retry", [msg_id])
    assert not outcome.done and outcome.reason == C.MQRC_UNKNOWN_OBJECT_NAME
    assert outcome.json()["reasonName"] == "MQRC_UNKNOWN_OBJECT_NAME"
    assert [b[C.MQDLH_LENGTH_1 :] for b in bodies(qm, DLQ)] == [b"orphan"]  # backed out: still there, whole


def test_move_keeps_the_mqdlh_and_discard_removes_the_message(app_q: QueueManager) -> None:
    qm = app_q
    a, b = dead(qm, b"a"), dead(qm, b"b")
    assert act(qm, DLQ, "move", [a], "HOLD.Q")[0].done
    (moved,) = bodies(qm, "HOLD.Q")
    assert moved[:4] == C.MQDLH_STRUC_ID and moved[C.MQDLH_LENGTH_1 :] == b"a"
    assert act(qm, DLQ, "discard", [b])[0].done
    assert bodies(qm, DLQ) == []


def test_an_action_on_a_msgid_not_on_the_queue_changes_nothing_and_says_so(app_q: QueueManager) -> None:
    qm = app_q
    dead(qm, b"kept")
    (outcome,) = act(qm, DLQ, "discard", [b"\x01" * 24])
    assert not outcome.done and outcome.reason == C.MQRC_NO_MSG_AVAILABLE
    assert len(bodies(qm, DLQ)) == 1


def test_bad_actions_and_move_targets_are_refused() -> None:
    with pytest.raises(ValueError, match="action"):
        rule_for("explode")
    with pytest.raises(ValueError, match="move"):
        rule_for("move", "")
    with pytest.raises(ValueError, match="move"):
        rule_for("move", "X" * 49)


def test_the_generated_rules_table_is_one_runmqdlq_accepts_and_matches_the_selection() -> None:
    selected = [
        {"destQ": "APP.Q", "reason": 2053},
        {"destQ": "APP.Q", "reason": 2053},
        {"destQ": "B.Q", "reason": 2085},
    ]
    text = rules_table(DLQ, "retry", selected)
    table = parse_rules(text)
    assert table.control.inputq == DLQ
    assert [(r.destq, r.reason, r.action) for r in table.rules] == [("APP.Q", 2053, "RETRY"), ("B.Q", 2085, "RETRY")]
    assert "EVERY message" in text  # runmqdlq cannot name one message: the table says so


def test_dead_letters_lists_reason_original_queue_and_age_by_page(app_q: QueueManager) -> None:
    qm = app_q
    for i in range(5):
        dead(qm, b"x", dest="APP.Q" if i < 3 else "B.Q", reason=C.MQRC_Q_FULL if i else C.MQRC_PUT_INHIBITED)
    page = dead_letters(qm, DLQ, 1, 3)
    assert [m["index"] for m in page["messages"]] == [1, 2, 3]
    assert [m["destQ"] for m in page["messages"]] == ["APP.Q", "APP.Q", "B.Q"]
    assert page["byReason"] == {"MQRC_Q_FULL": 3}
    assert all(m["age"] is not None and m["age"] >= 0 for m in page["messages"])


def test_queue_page_reads_status_for_the_page_only_and_counts_all(qm: QueueManager) -> None:
    for i in range(7):
        qm.admin("define", "QLOCAL", f"PAGE.Q{i}", {"DESCR": "<script>alert(1)</script>"})
    with qm.open("PAGE.Q3", C.MQOO_OUTPUT) as q:
        q.put(b"one")
    page = _data.queue_page(qm, "PAGE.*", 2, 3)
    assert page["total"] == 7
    assert [q["name"] for q in page["queues"]] == ["PAGE.Q2", "PAGE.Q3", "PAGE.Q4"]
    assert [q["depth"] for q in page["queues"]] == [0, 1, 0]
    assert page["queues"][0]["description"] == "<script>alert(1)</script>"  # data, shown as text by the page


def test_message_page_browses_only_to_the_end_of_the_page_and_leaves_messages(qm: QueueManager) -> None:
    with qm.open("Q1", C.MQOO_OUTPUT) as q:
        for i in range(30):
            q.put(f"msg{i}".encode())
    page = _data.message_page(qm, "Q1", 10, 5)
    assert [m["preview"] for m in page["messages"]] == [f"msg{i}" for i in range(10, 15)]
    assert page["depth"] == 30
    assert _data.page_bounds(-3, 10_000) == (0, _data.MAX_PAGE)


def test_message_detail_has_the_whole_body_and_decodes_mqdlh_then_mqxqh(app_q: QueueManager) -> None:
    qm = app_q
    xqh = MQXQH(RemoteQName=b"FAR.Q".ljust(48), RemoteQMgrName=b"QM2".ljust(48)).pack()
    body = xqh + b"y" * 5000  # bigger than IBM console's 1 KB cut
    msg_id = dead(qm, body, dest="XMIT.Q", reason=C.MQRC_Q_FULL)
    detail = _data.message_detail(qm, DLQ, msg_id)
    assert detail is not None
    assert [h["structure"] for h in detail["headers"]] == ["MQDLH", "MQXQH"]
    dlh, xq = detail["headers"][0]["fields"], detail["headers"][1]["fields"]
    assert dlh["DestQName"] == "XMIT.Q" and dlh["ReasonName"] == "MQRC_Q_FULL"
    assert xq["RemoteQName"] == "FAR.Q" and xq["RemoteQMgrName"] == "QM2"
    raw = base64.b64decode(detail["body"])
    assert len(raw) == C.MQDLH_LENGTH_1 + len(body) and MQDLH.unpack(raw[: C.MQDLH_LENGTH_1]).Reason == C.MQRC_Q_FULL
    assert detail["md"]["MsgId"] == msg_id.hex()
    assert _data.message_detail(qm, DLQ, b"\x02" * 24) is None


def test_a_message_without_mqdlh_is_left_on_the_dlq_with_mqrc_format_error(app_q: QueueManager) -> None:
    # reference/dlq-handler.md: the handler acts only on messages that begin with an MQDLH; others are left
    qm = app_q
    with qm.open(DLQ, C.MQOO_OUTPUT) as q:
        md = q.put(b"no header here")
    (outcome,) = act(qm, DLQ, "discard", [bytes(md.MsgId)])
    assert not outcome.done and outcome.reason == C.MQRC_FORMAT_ERROR
    assert bodies(qm, DLQ) == [b"no header here"]


def test_qmgr_overview_names_the_dead_letter_queue_and_lists_channels_with_status(qm: QueueManager) -> None:
    from syncpoint.mqsc import MqscProcessor

    assert MqscProcessor(qm, echo=False).execute("DEFINE CHANNEL(TO.QM2) CHLTYPE(RCVR) TRPTYPE(TCP)").ok
    overview = _data.qmgr_overview(qm)
    assert overview["deadLetterQueue"] == DLQ and overview["queueSharingGroup"] == ""
    assert {"name": "TO.QM2", "type": "RCVR", "status": "INACTIVE"} in overview["channels"]


def test_mqsc_answers_its_lines_and_says_when_a_command_failed(qm: QueueManager) -> None:
    ok = _data.run_mqsc(qm, "DEFINE QLOCAL(MQSC.Q)")
    assert ok["ok"] and any("AMQ8006I" in line for line in ok["lines"])
    failed = _data.run_mqsc(qm, "DELETE QLOCAL(NO.SUCH.Q)")
    assert not failed["ok"] and failed["lines"]


def test_a_body_that_is_not_utf8_is_listed_with_replacement_characters_and_sent_whole(qm: QueueManager) -> None:
    raw = b"\xff\xfe caf\xe9 \x00\x01"
    with qm.open("Q1", C.MQOO_OUTPUT) as q:
        md = q.put(raw)
    (summary,) = _data.message_page(qm, "Q1", 0, 10)["messages"]
    assert summary["preview"] == raw.decode("utf-8", "replace")
    detail = _data.message_detail(qm, "Q1", bytes(md.MsgId))
    assert detail is not None and base64.b64decode(detail["body"]) == raw  # the hex view shows every byte


def test_message_detail_lists_the_properties_by_name_type_and_value_as_text(qm: QueueManager) -> None:
    # issue 37, item 3: the browse view shows a message's properties (name, type, value), in the order set
    props = {
        "note": "<script>alert(1)</script>",
        "count": (C.MQTYPE_INT32, 3),
        "ok": True,
        "raw": b"\x00\xff",
        "ratio": 0.25,
        "gone": None,
    }
    with qm.open("Q1", C.MQOO_OUTPUT) as q:
        md = q.put(b"x", properties=props)
    detail = _data.message_detail(qm, "Q1", bytes(md.MsgId))
    assert detail is not None
    assert detail["properties"] == [
        {"name": "note", "type": "STRING", "value": "<script>alert(1)</script>"},
        {"name": "count", "type": "INT32", "value": "3"},
        {"name": "ok", "type": "BOOLEAN", "value": "TRUE"},
        {"name": "raw", "type": "BYTE_STRING", "value": "00ff"},
        {"name": "ratio", "type": "FLOAT64", "value": "0.25"},
        {"name": "gone", "type": "NULL", "value": ""},
    ]
    with qm.open("Q1", C.MQOO_OUTPUT) as q:
        plain = q.put(b"y")
    assert _data.message_detail(qm, "Q1", bytes(plain.MsgId))["properties"] == []  # type: ignore[index]


def test_the_rules_table_for_move_and_discard_names_the_action() -> None:
    selected = [{"destQ": "APP.Q", "reason": 2053}]
    assert "ACTION(FWD) FWDQ('HOLD.Q') HEADER(YES)" in rules_table(DLQ, "move", selected, "HOLD.Q")
    assert "DESTQ('APP.Q') REASON(2053) ACTION(DISCARD)" in rules_table(DLQ, "discard", selected)


def test_a_page_past_the_end_of_a_queue_is_empty(qm: QueueManager) -> None:
    with qm.open("Q1", C.MQOO_OUTPUT) as q:
        q.put_many([b"m"] * 20)
    assert _data.message_page(qm, "Q1", 20, 5)["messages"] == []
    assert _data.message_page(qm, "Q1", 500, 5)["messages"] == []
    assert [m["index"] for m in _data.message_page(qm, "Q1", 18, 5)["messages"]] == [18, 19]


def test_a_page_of_the_queue_list_reads_the_status_of_its_own_queues_only(qm: QueueManager) -> None:
    # issue 37, item 5: the console stays responsive with 10,000 queues: a refresh costs one page of status reads
    for i in range(2000):
        qm.admin("define", "QLOCAL", f"MANY.Q{i:04d}", {})
    asked: list[str] = []
    real_admin = qm.admin

    def counting_admin(verb: str, *args: object, **kw: object) -> object:
        if verb == "queue_status":
            asked.append(str(args[0]))
        return real_admin(verb, *args, **kw)

    qm.admin = counting_admin  # type: ignore[method-assign]
    page = _data.queue_page(qm, "MANY.*", 1000, 50)
    assert page["total"] == 2000 and len(page["queues"]) == 50
    assert asked == [f"MANY.Q{i:04d}" for i in range(1000, 1050)]
