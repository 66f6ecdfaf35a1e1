"""Namelists in MQSC (issue 34, item 4): DEFINE / ALTER / DELETE / DISPLAY NAMELIST, kept durably.

Rules: IBM's DEFINE NAMELIST (NAMES: up to 256 names of up to 48 characters; DESCR; NAMCOUNT shown by DISPLAY);
IBM's messages AMQ8550I (display), AMQ8551I (changed), AMQ8552I (created), AMQ8553I (deleted).
"""

from __future__ import annotations

from pathlib import Path

import syncpoint
from syncpoint.client import QueueManager, create_queue_manager, memory_queue_manager, open_embedded
from syncpoint.mqsc import MqscProcessor


def run(qm: QueueManager, text: str) -> tuple[list[str], int]:
    out: list[str] = []
    summary = MqscProcessor(qm).run(text.splitlines(), out.append)
    return out, summary.exit_code


def test_define_display_alter_delete_namelist_as_ibms_runmqsc() -> None:
    e = memory_queue_manager("QM1")
    try:
        qm = syncpoint.connect("QM1", embedded=e)
        out, code = run(
            qm,
            "DEFINE NAMELIST(APP.QUEUES) NAMES(Q1, 'lower.q', q3) DESCR('the app''s queues')\n"
            "DISPLAY NAMELIST(APP.QUEUES)\n"
            "ALTER NAMELIST(APP.QUEUES) NAMES(ONLY)\n"
            "DISPLAY NL(APP.*) NAMCOUNT NAMES\n"
            "DELETE NAMELIST(APP.QUEUES)\n",
        )
        assert code == 0, out
        text = "\n".join(out)
        assert "AMQ8552I: syncpoint namelist created." in text
        assert "AMQ8550I: Display namelist details." in text
        assert "NAMES(Q1,lower.q,Q3)" in text  # unquoted names fold to upper case, quoted ones are kept
        assert "NAMCOUNT(3)" in text and "DESCR(the app's queues)" in text
        assert "AMQ8551I: syncpoint namelist changed." in text
        assert "NAMCOUNT(1)" in text and "NAMES(ONLY)" in text
        assert "AMQ8553I: syncpoint namelist deleted." in text
        assert qm.admin("lookup", "NAMELIST", "APP.QUEUES") is None
    finally:
        e.close()


def test_a_namelist_name_too_long_or_an_attribute_of_another_type_is_a_syntax_error_and_defines_nothing() -> None:
    e = memory_queue_manager("QM1")
    try:
        qm = syncpoint.connect("QM1", embedded=e)
        out, code = run(qm, "DEFINE NAMELIST(BAD) NAMES(" + "A" * 49 + ")\nDEFINE NAMELIST(BAD2) MAXDEPTH(5)\n")
        assert code != 0
        text = "\n".join(out)
        assert text.count("AMQ8405I") == 2 and "1 to 48 characters" in text and "MAXDEPTH is not valid" in text
        assert qm.admin("lookup", "NAMELIST", "BAD") is None and qm.admin("lookup", "NAMELIST", "BAD2") is None
        too_many = ", ".join(f"N{i}" for i in range(257))
        out, code = run(qm, f"DEFINE NAMELIST(BIG) NAMES({too_many})\n")
        assert code != 0 and "at most 256 names" in "\n".join(out)
    finally:
        e.close()


def test_a_namelist_survives_a_restart(tmp_path: Path) -> None:
    create_queue_manager("QM1", home=tmp_path)
    qm = syncpoint.connect("QM1", home=tmp_path)
    out, code = run(qm, "DEFINE NAMELIST(KEPT) NAMES(A, 'b') DESCR('kept')\n")
    assert code == 0, out
    qm.disconnect()
    e = open_embedded("QM1", home=tmp_path)
    e.close(abnormal=True)
    qm = syncpoint.connect("QM1", home=tmp_path)
    d = qm.admin("lookup", "NAMELIST", "KEPT")
    assert d is not None and d.attrs["NAMES"] == ("A", "b") and d.attrs["NLDESCR"] == "kept"
    assert qm.admin("lookup", "NAMELIST", "SYSTEM.DEFAULT.NAMELIST") is not None
    qm.disconnect()
