"""Report messages carry the original message's properties (issue 34, item 3).

IBM's rule (MQPD "CopyOptions (MQLONG)"): a property is copied into a report message when its CopyOptions include
MQCOPY_REPORT, and MQCOPY_DEFAULT — the options of a property set without an MQPD of its own — is MQCOPY_FORWARD
+ MQCOPY_REPORT + MQCOPY_PUBLISH. So COA, COD, expiration and exception reports, with or without the original's
data, carry its properties; a report that goes to another queue manager carries them in an MQRFH2, as any
message does, and a getter there with a message handle reads them as properties again.
"""

from __future__ import annotations

import pytest
from remote_helpers import new_qm, open_q, settle

from syncpoint.engine import FakeClock, QueueManager
from syncpoint.engine._state import Connection
from syncpoint.mqi import MQGMO, MQMD, MQOD, MQPMO
from syncpoint.mqi import constants as C
from syncpoint.mqi.properties import Props, build

PROPS = build({"colour": "red", "n": 7, "ok": True, "usr.depth": 1.5})
assert PROPS is not None


@pytest.fixture
def qm(clock: FakeClock) -> QueueManager:
    qm = new_qm("QM1", clock)
    qm.define("QLOCAL", "Q1")
    qm.define("QLOCAL", "REPLY")
    settle(qm)
    return qm


def put(qm: QueueManager, conn: Connection, name: str, report: int, props: Props, **md_fields: object) -> MQMD:
    md = MQMD(Report=report, ReplyToQ=b"REPLY", Format=C.MQFMT_STRING, **md_fields)
    qm.put1(conn, MQOD(ObjectName=name.encode()), md, MQPMO(Options=C.MQPMO_NO_SYNCPOINT), b"payload", props)
    settle(qm)
    return md


def get_with_handle(qm: QueueManager, conn: Connection, name: str) -> tuple[MQMD, bytes, Props | None]:
    h = open_q(qm, conn, name, C.MQOO_INPUT_SHARED)
    try:
        md = MQMD()
        r = qm.get(conn, h, md, MQGMO(Options=C.MQGMO_NO_SYNCPOINT, MsgHandle=1))
        settle(qm)
        return md, r.data, r.props
    finally:
        qm.close(conn, h)


@pytest.mark.parametrize("report", [C.MQRO_COA, C.MQRO_COA_WITH_FULL_DATA])
def test_a_coa_report_carries_the_originals_properties(qm: QueueManager, report: int) -> None:
    conn = qm.connect("app")
    put(qm, conn, "Q1", report, PROPS)
    md, data, props = get_with_handle(qm, conn, "REPLY")
    assert md.MsgType == C.MQMT_REPORT and md.Feedback == C.MQFB_COA
    assert props == PROPS
    assert data == (b"payload" if report == C.MQRO_COA_WITH_FULL_DATA else b"")


def test_a_cod_report_carries_the_originals_properties(qm: QueueManager) -> None:
    conn = qm.connect("app")
    put(qm, conn, "Q1", C.MQRO_COD, PROPS)
    _, _, got = get_with_handle(qm, conn, "Q1")
    assert got == PROPS
    md, _, props = get_with_handle(qm, conn, "REPLY")
    assert md.Feedback == C.MQFB_COD and props == PROPS


def test_an_expiration_report_carries_the_originals_properties(qm: QueueManager, clock: FakeClock) -> None:
    conn = qm.connect("app")
    put(qm, conn, "Q1", C.MQRO_EXPIRATION, PROPS, Expiry=10)
    clock.advance(5)
    assert qm.refresh_expiry("Q1") == 1
    settle(qm)
    md, _, props = get_with_handle(qm, conn, "REPLY")
    assert md.Feedback == C.MQFB_EXPIRATION and props == PROPS


def test_a_report_without_a_handle_delivers_folder_properties_in_an_mqrfh2(qm: QueueManager) -> None:
    # PROPCTL(COMPAT) without a handle: a usr. property puts every property in an MQRFH2 in front of the data
    conn = qm.connect("app")
    put(qm, conn, "Q1", C.MQRO_COA, PROPS)
    h = open_q(qm, conn, "REPLY", C.MQOO_INPUT_SHARED)
    md = MQMD()
    data = qm.get(conn, h, md, MQGMO(Options=C.MQGMO_NO_SYNCPOINT)).data
    assert md.Format == C.MQFMT_RF_HEADER_2 and b"<colour>red</colour>" in data


def test_an_exception_report_from_another_queue_manager_brings_the_properties_back(clock: FakeClock) -> None:
    qm1, qm2 = new_qm("QM1", clock), new_qm("QM2", clock)
    qm1.define("QLOCAL", "REPLY")
    qm1.define("QLOCAL", "QM2", {"USAGE": C.MQUS_TRANSMISSION})
    qm1.define("QREMOTE", "TO.NOWHERE", {"RNAME": "NO.SUCH.QUEUE", "RQMNAME": "QM2"})
    qm2.define("QLOCAL", "QM1", {"USAGE": C.MQUS_TRANSMISSION})  # the reports' way back
    settle(qm1)
    settle(qm2)
    app = qm1.connect("app")
    put(qm1, app, "TO.NOWHERE", C.MQRO_EXCEPTION | C.MQRO_DISCARD_MSG, PROPS)
    receiver = qm2.connect("QM1.TO.QM2", appl_type=C.MQAT_DQM)
    (d,) = qm2.deliver_batch(receiver, _drain(qm1, "QM2"))
    assert d.reason == C.MQRC_UNKNOWN_OBJECT_NAME
    qm2.commit(receiver)
    settle(qm2)
    back = qm1.connect("QM2.TO.QM1", appl_type=C.MQAT_DQM)
    qm1.deliver_batch(back, _drain(qm2, "QM1"))
    qm1.commit(back)
    settle(qm1)
    md, data, props = get_with_handle(qm1, app, "REPLY")
    assert md.MsgType == C.MQMT_REPORT and md.Feedback == C.MQRC_UNKNOWN_OBJECT_NAME
    # over the channel they travel in an MQRFH2, where usr.depth is <usr><depth>: read back as depth (IBM's mapping)
    assert props == {("depth" if k == "usr.depth" else k): v for k, v in PROPS.items()} and data == b""


def _drain(qm: QueueManager, xmitq: str) -> list[bytes]:
    """What a sending channel takes off ``xmitq``: each message's MQXQH and data."""
    s = qm.connect("MCA", appl_type=C.MQAT_DQM)
    h = qm.open(s, MQOD(ObjectName=xmitq.encode()), C.MQOO_INPUT_EXCLUSIVE)
    out = []
    while qm.queues[xmitq].depth:
        out.append(qm.get(s, h, MQMD(), MQGMO(Options=C.MQGMO_SYNCPOINT)).data)
    qm.commit(s)
    settle(qm)
    return out
