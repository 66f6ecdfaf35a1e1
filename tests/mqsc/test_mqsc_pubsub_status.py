"""DISPLAY PUBSUB and PCF Inquire Pub/Sub Status (MQCMD_INQUIRE_PUBSUB_STATUS) tell the same (issue 34): IBM's
MQSC reference "DISPLAY PUBSUB" (TYPE(LOCAL | PARENT | CHILD | ALL); QMNAME and TYPE always, STATUS, SUBCOUNT and
TPCOUNT when asked for or with ALL) and PCF reference "Inquire Pub/Sub Status" (Type MQIACF_PS_STATUS_TYPE,
PubSubStatusAttrs; QueueManagerName, Type, Status MQIACF_PUBSUB_STATUS, SubCount, TopicNodeCount)."""

from __future__ import annotations

import pytest
from test_mqsc_pubsub import Connect, pairs, pcf, run

from syncpoint.client import QueueManager
from syncpoint.mqi import constants as C
from syncpoint.pcf import _constants as K
from syncpoint.pcf._structs import MQCFIL, MQCFIN


@pytest.fixture
def admin(connect: Connect) -> QueueManager:
    return connect(appl_name="runmqsc")


def _pcf_status(admin: QueueManager, *params: object) -> list[dict[int, int | str]]:
    out = []
    for cfh, found in pcf(admin, K.MQCMD_INQUIRE_PUBSUB_STATUS, *params):
        assert cfh.CompCode == C.MQCC_OK, cfh.Reason
        if found:
            out.append({k: getattr(v, "Value", None) or getattr(v, "String", b"").decode().strip()
                        for k, v in found.items()})  # fmt: skip
    return out


def test_display_pubsub_shows_qmname_and_type_and_the_rest_when_asked_for(admin: QueueManager) -> None:
    summary, out = run(admin, "DISPLAY PUBSUB")
    assert summary.failed == 0 and "AMQ8723I: Display pub/sub status details." in out
    assert set(pairs(out)) == {"QMNAME", "TYPE"} and pairs(out)["TYPE"] == "LOCAL"
    _, out = run(admin, "DISPLAY PUBSUB TYPE(LOCAL) STATUS")
    assert set(pairs(out)) == {"QMNAME", "TYPE", "STATUS"} and pairs(out)["STATUS"] == "ACTIVE"
    _, out = run(admin, "DISPLAY PUBSUB ALL")
    assert set(pairs(out)) == {"QMNAME", "TYPE", "STATUS", "SUBCOUNT", "TPCOUNT"}
    summary, out = run(admin, "DISPLAY PUBSUB TYPE(CHILD) ALL\nDISPLAY PUBSUB TYPE(PARENT)")
    assert summary.failed == 0 and "AMQ8723I: Display pub/sub status details." not in out  # no hierarchy


def test_subcount_counts_subscriptions_and_tpcount_the_topic_trees_nodes(admin: QueueManager) -> None:
    _, out = run(admin, "DISPLAY PUBSUB ALL")
    before = pairs(out)
    admin.admin("define", "QLOCAL", "STATUS.Q")
    run(admin, "DEFINE SUB(ST1) TOPICSTR('a/b/c') DEST(STATUS.Q)")
    admin.publish("a/x", "retained", retain=True)
    _, out = run(admin, "DISPLAY PUBSUB ALL")
    after = pairs(out)
    assert int(after["SUBCOUNT"]) == int(before["SUBCOUNT"]) + 1
    assert int(after["TPCOUNT"]) == int(before["TPCOUNT"]) + 4  # a, a/b, a/b/c, a/x


def test_pcf_inquire_pubsub_status_answers_what_display_pubsub_shows(admin: QueueManager) -> None:
    admin.admin("define", "QLOCAL", "STATUS.Q")
    run(admin, "DEFINE SUB(ST2) TOPICSTR('p/q') DEST(STATUS.Q)")
    _, out = run(admin, "DISPLAY PUBSUB ALL")
    shown = pairs(out)
    [row] = _pcf_status(admin)
    assert row[C.MQCA_Q_MGR_NAME] == shown["QMNAME"] and row[K.MQIACF_PS_STATUS_TYPE] == K.MQPSST_LOCAL
    assert row[K.MQIACF_PUBSUB_STATUS] == K.MQPS_STATUS_ACTIVE and shown["STATUS"] == "ACTIVE"
    assert row[C.MQIA_SUB_COUNT] == int(shown["SUBCOUNT"]) and row[C.MQIA_TOPIC_NODE_COUNT] == int(shown["TPCOUNT"])
    assert _pcf_status(admin, MQCFIN(K.MQIACF_PS_STATUS_TYPE, K.MQPSST_CHILD)) == []
    [only] = _pcf_status(admin, MQCFIL(K.MQIACF_PUBSUB_STATUS_ATTRS, [C.MQIA_SUB_COUNT]))
    assert set(only) == {C.MQCA_Q_MGR_NAME, K.MQIACF_PS_STATUS_TYPE, C.MQIA_SUB_COUNT}


def test_bad_input_to_display_pubsub_and_inquire_pubsub_status_is_refused(admin: QueueManager) -> None:
    for bad in ("DISPLAY PUBSUB TYPE(SIDEWAYS)", "DISPLAY PUBSUB DEPTH", "DISPLAY PUBSUB(X)"):
        summary, _ = run(admin, bad)
        assert summary.syntax_errors == 1, bad
    [(cfh, _)] = pcf(admin, K.MQCMD_INQUIRE_PUBSUB_STATUS, MQCFIN(K.MQIACF_PS_STATUS_TYPE, 9))
    assert cfh.CompCode == C.MQCC_FAILED and cfh.Reason == K.MQRCCF_ATTR_VALUE_ERROR
