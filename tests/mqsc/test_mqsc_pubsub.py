"""MQSC and PCF for publish/subscribe against an embedded queue manager: DEFINE / ALTER / DELETE / DISPLAY TOPIC
and SUB, DISPLAY TPSTATUS / SBSTATUS / PUBSUB, CLEAR TOPICSTR, and PCF's Create / Change / Delete / Inquire
Subscription and Topic and Inquire Topic Status (reference/properties-pubsub.md, "MQSC" and "PCF")."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest

from syncpoint.client import QueueManager
from syncpoint.mqi import constants as C
from syncpoint.mqsc import MqscProcessor, Summary
from syncpoint.pcf import CommandServer
from syncpoint.pcf import _constants as K
from syncpoint.pcf._structs import MQCFBS, MQCFH, MQCFIN, MQCFST, build, parse

Connect = Callable[..., QueueManager]


def run(qm: QueueManager, script: str) -> tuple[Summary, list[str]]:
    out: list[str] = []
    summary = MqscProcessor(qm).run(script.splitlines(), out.append)
    return summary, out


def pairs(out: list[str]) -> dict[str, str]:
    found: dict[str, str] = {}
    for line in out:
        if line.startswith("   ") and not line.startswith("    "):
            for m in re.finditer(r"([A-Z][A-Z0-9]*)\(([^)]*)\)", line):
                found[m.group(1)] = m.group(2)
    return found


@pytest.fixture
def admin(connect: Connect) -> QueueManager:
    return connect(appl_name="runmqsc")


def test_define_topic_inherits_asparent_and_display_tpstatus_shows_the_resolved_values(admin: QueueManager) -> None:
    summary, out = run(
        admin,
        "DEFINE TOPIC(SPORTS) TOPICSTR('Sports') DEFPSIST(YES) DESCR('all sports')\nALTER TOPIC(SPORTS) DEFPRTY(5)\n",
    )
    assert summary.failed == 0 and "AMQ8690I: syncpoint topic created." in out
    _, out = run(admin, "DISPLAY TOPIC(SPORTS)")
    shown = pairs(out)
    assert out[-1] != "" and "AMQ8633I: Display topic details." in out
    assert shown["TOPICSTR"] == "Sports" and shown["DEFPSIST"] == "YES" and shown["DEFPRTY"] == "5"
    assert shown["DURSUB"] == "ASPARENT" and shown["MDURMDL"] == " "
    _, out = run(admin, "DISPLAY TPSTATUS('Sports/Football/Results')")
    status = pairs(out)
    assert status["DEFPSIST"] == "YES" and status["DEFPRTY"] == "5"  # from SPORTS
    assert status["MDURMDL"] == "SYSTEM.DURABLE.MODEL.QUEUE"  # from SYSTEM.BASE.TOPIC


def test_define_sub_delivers_publications_and_display_sub_and_sbstatus_show_it(admin: QueueManager) -> None:
    summary, out = run(
        admin,
        "DEFINE QLOCAL(SUBQ)\nDEFINE SUB(FOOTBALL) TOPICSTR('Sports/Football') DEST(SUBQ) USERDATA('fans')\n",
    )
    assert summary.failed == 0 and "AMQ8094I: syncpoint subscription created." in out
    admin.publish("Sports/Football", "2-1")
    assert admin.open("SUBQ").get().text == "2-1"
    _, out = run(admin, "DISPLAY SUB(FOOT*) ALL")
    shown = pairs(out)
    assert "AMQ8096I: syncpoint subscription inquired." in out
    assert shown["SUB"] == "FOOTBALL" and shown["TOPICSTR"] == "Sports/Football" and shown["DEST"] == "SUBQ"
    assert shown["DURABLE"] == "YES" and shown["SUBTYPE"] == "ADMIN" and shown["USERDATA"] == "fans"
    assert shown["EXPIRY"] == "UNLIMITED" and shown["DESTCLAS"] == "PROVIDED"
    _, out = run(admin, "DISPLAY SBSTATUS(FOOTBALL)")
    assert pairs(out)["NUMMSGS"] == "1"
    summary, out = run(admin, "DELETE SUB(FOOTBALL)\nDISPLAY SUB(FOOTBALL)")
    assert summary.failed == 1 and any("MQRC_NO_SUBSCRIPTION" in line for line in out)


def test_define_sub_with_a_missing_destination_or_an_existing_name_is_refused(admin: QueueManager) -> None:
    summary, out = run(admin, "DEFINE SUB(S1) TOPICSTR('a') DEST(NO.SUCH.Q)")
    assert summary.failed == 1 and any("2085" in line for line in out)
    summary, out = run(
        admin, "DEFINE SUB(S2) TOPICSTR('a') DESTCLAS(MANAGED)\nDEFINE SUB(S2) TOPICSTR('a') DESTCLAS(MANAGED)"
    )
    assert summary.failed == 1 and any("MQRC_SUB_ALREADY_EXISTS" in line for line in out)
    summary, out = run(admin, "ALTER SUB(S2) TOPICSTR('b')")
    assert summary.failed == 1 and any("MQRC_TOPIC_NOT_ALTERABLE" in line for line in out)


def test_clear_topicstr_removes_the_retained_publication_and_display_pubsub_counts(admin: QueueManager) -> None:
    admin.publish("news/today", "headline", retain=True)
    _, out = run(admin, "DISPLAY TPSTATUS('news/today')")
    assert pairs(out)["RETAINED"] == "YES"
    summary, out = run(admin, "CLEAR TOPICSTR('news/today') CLRTYPE(RETAINED)\nDISPLAY TPSTATUS('news/today')")
    assert summary.failed == 0 and pairs(out)["RETAINED"] == "NO"
    _, out = run(admin, "DISPLAY PUBSUB ALL")
    assert pairs(out)["STATUS"] == "ACTIVE" and pairs(out)["TYPE"] == "LOCAL"


def test_mqsc_syntax_errors_of_pubsub_commands(admin: QueueManager) -> None:
    for bad in ("DEFINE TOPIC(T1)", "ALTER TOPIC(T1) TOPICSTR('x')", "DEFINE TOPIC(T1) TOPICSTR('x') DURSUB(MAYBE)"):
        summary, _ = run(admin, bad)
        assert summary.syntax_errors == 1, bad


# -- PCF ----------------------------------------------------------------------------------------------
def pcf(admin: QueueManager, command: int, *params: object) -> list[tuple[MQCFH, dict[int, object]]]:
    server = CommandServer(lambda: admin)
    server.qm = admin
    replies = []
    for body in server.execute(build(MQCFH(Type=K.MQCFT_COMMAND, Command=command), list(params))):  # type: ignore[arg-type]
        cfh, ps = parse(body)
        replies.append((cfh, {p.Parameter: p for p in ps}))
    return replies


def test_pcf_create_inquire_change_delete_subscription(admin: QueueManager) -> None:
    admin.admin("define", "QLOCAL", "PCF.SUBQ")
    name = b"app's durable subscription"
    [(cfh, _)] = pcf(
        admin,
        K.MQCMD_CREATE_SUBSCRIPTION,
        MQCFST(K.MQCACF_SUB_NAME, name),
        MQCFST(C.MQCA_TOPIC_STRING, b"/pcf/topic"),
        MQCFIN(K.MQIACF_DESTINATION_CLASS, C.MQDC_PROVIDED),
        MQCFST(K.MQCACF_DESTINATION, b"PCF.SUBQ"),
    )
    assert cfh.CompCode == C.MQCC_OK
    [(cfh, found)] = pcf(admin, K.MQCMD_INQUIRE_SUBSCRIPTION, MQCFST(K.MQCACF_SUB_NAME, b"app*"))
    sub_id = found[K.MQBACF_SUB_ID].String  # type: ignore[attr-defined]
    assert found[C.MQCA_TOPIC_STRING].String == b"/pcf/topic"  # type: ignore[attr-defined]
    assert found[K.MQIACF_DURABLE_SUBSCRIPTION].Value == C.MQSUB_DURABLE_YES  # type: ignore[attr-defined]
    [(cfh, _)] = pcf(
        admin, K.MQCMD_CHANGE_SUBSCRIPTION, MQCFBS(K.MQBACF_SUB_ID, sub_id), MQCFST(K.MQCACF_SUB_USER_DATA, b"x")
    )
    assert cfh.CompCode == C.MQCC_OK
    [(cfh, _)] = pcf(admin, K.MQCMD_CREATE_SUBSCRIPTION, MQCFST(K.MQCACF_SUB_NAME, name),
                     MQCFST(C.MQCA_TOPIC_STRING, b"/pcf/topic"), MQCFST(K.MQCACF_DESTINATION, b"PCF.SUBQ"))  # fmt: skip
    assert cfh.Reason == K.MQRCCF_SUB_ALREADY_EXISTS
    [(cfh, _)] = pcf(admin, K.MQCMD_DELETE_SUBSCRIPTION, MQCFBS(K.MQBACF_SUB_ID, sub_id))
    assert cfh.CompCode == C.MQCC_OK
    [(cfh, _)] = pcf(admin, K.MQCMD_INQUIRE_SUBSCRIPTION, MQCFST(K.MQCACF_SUB_NAME, b"app*"))
    assert cfh.Reason == C.MQRC_NO_SUBSCRIPTION


def test_pcf_topic_commands_and_inquire_topic_status(admin: QueueManager) -> None:
    [(cfh, _)] = pcf(
        admin,
        K.MQCMD_CREATE_TOPIC,
        MQCFST(C.MQCA_TOPIC_NAME, b"PCF.TOPIC"),
        MQCFST(C.MQCA_TOPIC_STRING, b"pcf"),
        MQCFIN(C.MQIA_INHIBIT_PUB, C.MQTA_PUB_INHIBITED),
    )
    assert cfh.CompCode == C.MQCC_OK
    [(_, found)] = pcf(admin, K.MQCMD_INQUIRE_TOPIC, MQCFST(C.MQCA_TOPIC_NAME, b"PCF.*"))
    assert found[C.MQIA_INHIBIT_PUB].Value == C.MQTA_PUB_INHIBITED  # type: ignore[attr-defined]
    [(_, status)] = pcf(admin, K.MQCMD_INQUIRE_TOPIC_STATUS, MQCFST(C.MQCA_TOPIC_STRING, b"pcf/x"))
    assert status[C.MQIA_INHIBIT_PUB].Value == C.MQTA_PUB_INHIBITED  # type: ignore[attr-defined]
    assert status[C.MQCA_ADMIN_TOPIC_NAME].String.strip() == b""  # type: ignore[attr-defined]
    [(cfh, _)] = pcf(admin, K.MQCMD_CHANGE_TOPIC, MQCFST(C.MQCA_TOPIC_NAME, b"PCF.TOPIC"),
                     MQCFIN(C.MQIA_INHIBIT_PUB, C.MQTA_PUB_ALLOWED))  # fmt: skip
    assert cfh.CompCode == C.MQCC_OK
    [(cfh, _)] = pcf(admin, K.MQCMD_DELETE_TOPIC, MQCFST(C.MQCA_TOPIC_NAME, b"PCF.TOPIC"))
    assert cfh.CompCode == C.MQCC_OK
    [(cfh, _)] = pcf(admin, K.MQCMD_INQUIRE_TOPIC, MQCFST(C.MQCA_TOPIC_NAME, b"NO.SUCH"))
    assert cfh.Reason == C.MQRC_UNKNOWN_OBJECT_NAME
