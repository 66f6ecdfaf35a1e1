"""DEFINE / ALTER / DISPLAY / DELETE QREMOTE and the queue manager's DEFXMITQ in MQSC (issue 23, item 1; mqsc.md:
abbreviation QR; IBM's DISPLAY lists QUEUE and TYPE first, then the attributes)."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from test_mqsc_commands import pairs, run

from syncpoint.client import QueueManager
from syncpoint.mqi import constants as C

Connect = Callable[..., QueueManager]


@pytest.fixture
def admin(connect: Connect) -> QueueManager:
    return connect(appl_name="runmqsc")


def test_define_display_alter_delete_qremote(admin: QueueManager) -> None:
    summary, out = run(
        admin,
        "DEFINE QLOCAL(QM2) USAGE(XMITQ)\n"
        "DEFINE QREMOTE(TO.QM2) RNAME(APP.IN) RQMNAME(QM2) XMITQ(QM2) DEFPSIST(YES) DESCR('to QM2')\n"
        "DISPLAY QREMOTE(TO.QM2) ALL\n",
    )
    assert summary.failed == 0, out
    shown = pairs(out)
    assert shown["QUEUE"] == "TO.QM2" and shown["TYPE"] == "QREMOTE"
    assert (shown["RNAME"], shown["RQMNAME"], shown["XMITQ"]) == ("APP.IN", "QM2", "QM2")
    assert shown["DEFPSIST"] == "YES" and shown["DESCR"] == "to QM2" and shown["PUT"] == "ENABLED"
    assert "CURDEPTH" not in shown and "MAXDEPTH" not in shown  # a remote queue has no depth here
    summary, out = run(admin, "ALTER QR(TO.QM2) RNAME(OTHER.IN) PUT(DISABLED)\nDIS QR(TO.QM2) RNAME PUT\n")
    assert summary.failed == 0, out
    assert pairs(out)["RNAME"] == "OTHER.IN" and pairs(out)["PUT"] == "DISABLED"
    summary, out = run(admin, "DISPLAY QUEUE(TO.*) TYPE(QREMOTE)\n")
    assert pairs(out)["TYPE"] == "QREMOTE"
    summary, out = run(admin, "DELETE QREMOTE(TO.QM2)\n")
    assert summary.failed == 0, out
    assert admin.admin("lookup", "QREMOTE", "TO.QM2") is None


def test_queue_manager_alias_with_blank_rname(admin: QueueManager) -> None:
    summary, out = run(admin, "DEFINE QREMOTE(BIG.BANK) RQMNAME(QM2) XMITQ(QM2)\nDISPLAY QREMOTE(BIG.BANK) RNAME\n")
    assert summary.failed == 0, out
    assert pairs(out)["RNAME"] == " "


def test_qlocal_attributes_are_not_qremote_keywords(admin: QueueManager) -> None:
    summary, out = run(admin, "DEFINE QREMOTE(R) RNAME(A) RQMNAME(B) MAXDEPTH(5)\n")
    assert summary.syntax_errors == 1 and any("MAXDEPTH" in line for line in out)


def test_defxmitq_of_the_queue_manager(admin: QueueManager) -> None:
    summary, out = run(admin, "DEFINE QLOCAL(XQ) USAGE(XMITQ)\nALTER QMGR DEFXMITQ(XQ)\nDISPLAY QMGR DEFXMITQ\n")
    assert summary.failed == 0, out
    assert pairs(out)["DEFXMITQ"] == "XQ"
    assert admin.admin("qm_attr", "DEFXMITQ") == "XQ"


def test_qremote_defined_by_mqsc_routes_puts(admin: QueueManager) -> None:
    run(admin, "DEFINE QLOCAL(QM2) USAGE(XMITQ)\nDEFINE QREMOTE(TO.QM2) RNAME(APP.IN) RQMNAME(QM2)\n")
    admin.put1("TO.QM2", b"hello")
    m = admin.open("QM2").get()
    assert m.md.Format == C.MQFMT_XMIT_Q_HEADER and m.data[428:] == b"hello"
