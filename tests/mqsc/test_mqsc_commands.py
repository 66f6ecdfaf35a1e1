"""MQSC commands against an embedded queue manager (FakeClock): ../shared/reference/mqsc.md and issue 4."""

from __future__ import annotations

import time
from collections.abc import Callable

import pytest

from syncpoint.client import EmbeddedQueueManager, QueueManager
from syncpoint.engine import FakeClock
from syncpoint.mqi import constants as C
from syncpoint.mqsc import MqscProcessor, Summary

Connect = Callable[..., QueueManager]


def run(qm: QueueManager | None, script: str, **kw: bool) -> tuple[Summary, list[str]]:
    out: list[str] = []
    summary = MqscProcessor(qm, **kw).run(script.splitlines(), out.append)
    return summary, out


def pairs(out: list[str]) -> dict[str, str]:
    """Every KEY(VALUE) on the DISPLAY lines (and bare words as KEY: '')."""
    import re

    found: dict[str, str] = {}
    for line in out:
        if not line.startswith("   ") or line.startswith("    "):
            continue
        for m in re.finditer(r"([A-Z][A-Z0-9]*)(?:\(([^)]*)\))?", line):
            found[m.group(1)] = m.group(2) if m.group(2) is not None else ""
    return found


@pytest.fixture
def admin(connect: Connect) -> QueueManager:
    return connect(appl_name="runmqsc")


# -- every queue attribute of mqsc.md: definable, alterable, displayed ------------------------------------
NON_DEFAULT_QLOCAL = (
    "TRIGGER TRIGTYPE(EVERY) TRIGDPTH(3) TRIGMPRI(4) TRIGDATA('go now') PROCESS(APP.PROC) INITQ(APP.INITQ) "
    "BOQNAME(APP.BACKOUT) BOTHRESH(5) NOHARDENBO DEFPRTY(6) DEFPSIST(YES) MAXDEPTH(777) MAXMSGL(1000) "
    "MSGDLVSQ(FIFO) GET(DISABLED) PUT(DISABLED) USAGE(XMITQ) NOSHARE DEFSOPT(EXCL) RETINTVL(99) QDEPTHHI(70) "
    "QDEPTHLO(10) DESCR('Orders, in')"
)
EXPECTED_QLOCAL = {
    "TRIGGER": "",
    "TRIGTYPE": "EVERY",
    "TRIGDPTH": "3",
    "TRIGMPRI": "4",
    "TRIGDATA": "go now",
    "PROCESS": "APP.PROC",
    "INITQ": "APP.INITQ",
    "BOQNAME": "APP.BACKOUT",
    "BOTHRESH": "5",
    "NOHARDENBO": "",
    "DEFPRTY": "6",
    "DEFPSIST": "YES",
    "MAXDEPTH": "777",
    "MAXMSGL": "1000",
    "MSGDLVSQ": "FIFO",
    "GET": "DISABLED",
    "PUT": "DISABLED",
    "USAGE": "XMITQ",
    "NOSHARE": "",
    "DEFSOPT": "EXCL",
    "RETINTVL": "99",
    "QDEPTHHI": "70",
    "QDEPTHLO": "10",
    "DESCR": "Orders, in",
}


def test_every_queue_attribute_is_definable_and_displayed(admin: QueueManager) -> None:
    summary, out = run(admin, f"DEFINE QLOCAL(APP.IN) {NON_DEFAULT_QLOCAL}\nDISPLAY QLOCAL(APP.IN) ALL")
    assert summary.exit_code == 0, out
    shown = pairs(out)
    for k, v in EXPECTED_QLOCAL.items():
        assert shown.get(k) == v, (k, shown.get(k))
    assert shown["QUEUE"] == "APP.IN" and shown["TYPE"] == "QLOCAL" and shown["CURDEPTH"] == "0"


def test_every_queue_attribute_is_alterable(admin: QueueManager) -> None:
    summary, out = run(admin, f"DEFINE QLOCAL(APP.IN)\nALTER QLOCAL(APP.IN) {NON_DEFAULT_QLOCAL}\nDIS QL(APP.IN) ALL")
    assert summary.exit_code == 0, out
    assert "AMQ8008I: syncpoint queue changed." in out
    shown = pairs(out)
    for k, v in EXPECTED_QLOCAL.items():
        assert shown.get(k) == v, (k, shown.get(k))


def test_a_default_queue_displays_mqsc_md_defaults(admin: QueueManager) -> None:
    # mqsc.md: "Queue attributes and defaults (DISPLAY QLOCAL of a default queue)"
    _, out = run(admin, "DEFINE QLOCAL(Q.DEF)\nDIS QLOCAL(Q.DEF) ALL")
    shown = pairs(out)
    expected = (
        "NOTRIGGER TRIGTYPE(FIRST) TRIGDPTH(1) TRIGMPRI(0) TRIGDATA( ) PROCESS( ) INITQ( ) BOQNAME( ) BOTHRESH(0) "
        "HARDENBO DEFPRTY(0) DEFPSIST(NO) MAXDEPTH(5000) MAXMSGL(4194304) MSGDLVSQ(PRIORITY) GET(ENABLED) "
        "PUT(ENABLED) USAGE(NORMAL) SHARE DEFSOPT(SHARED) RETINTVL(999999999) QDEPTHHI(80) QDEPTHLO(20) DESCR( )"
    )
    for item in _items(expected):
        k, _, v = item.partition("(")
        assert shown.get(k) == v.rstrip(")"), item


def _items(text: str) -> list[str]:
    import re

    return re.findall(r"[A-Z]+(?:\([^)]*\))?", text)


def test_display_lists_two_pairs_a_line_in_ibm_columns(admin: QueueManager) -> None:
    _, out = run(admin, "DEFINE QLOCAL(Q1)\nDIS QL(Q1) MAXDEPTH CURDEPTH DESCR")
    i = out.index("AMQ8409I: Display Queue details.")
    assert out[i + 1] == "   QUEUE(Q1)                               TYPE(QLOCAL)"
    assert out[i + 2] == "   CURDEPTH(0)                             DESCR( )"
    assert out[i + 3] == "   MAXDEPTH(5000)"


def test_display_of_a_generic_name_without_attributes_shows_name_and_type_only(admin: QueueManager) -> None:
    # IBM ("Displaying default object attributes with DISPLAY QUEUE"): one queue named without attributes shows
    # them all; a generic name without attributes shows the names
    _, out = run(admin, "DEFINE QLOCAL(Q1)\ndis ql(q*)")
    i = out.index("AMQ8409I: Display Queue details.")
    assert out[i + 1].split() == ["QUEUE(Q1)", "TYPE(QLOCAL)"]
    assert not out[i + 2].startswith("   ")


def test_display_generic_names_and_queue_type_filter(admin: QueueManager) -> None:
    script = "DEF QL(APP.A)\nDEF QL(APP.B)\nDEF QA(APP.ALIAS) TARGET(APP.A)\nDEF QL(OTHER)\nDIS QUEUE(APP.*)\n"
    script += "DIS QUEUE(APP.*) TYPE(QALIAS)\nDIS QL(NOPE.*)"
    summary, out = run(admin, script)
    queues = [line.split()[0] for line in out if line.startswith("   QUEUE(")]
    assert queues == ["QUEUE(APP.A)", "QUEUE(APP.ALIAS)", "QUEUE(APP.B)", "QUEUE(APP.ALIAS)"]
    assert "AMQ8147E: syncpoint object NOPE.* not found." in out
    assert summary.failed == 1 and summary.exit_code == 10


def test_display_where_filters_on_any_shown_attribute(admin: QueueManager) -> None:
    admin.admin("define", "QLOCAL", "APP.FULL")
    admin.open("APP.FULL").put(b"x")
    summary, out = run(
        admin, "DEF QL(APP.EMPTY)\nDIS QL(APP.*) WHERE(CURDEPTH GT 0)\nDIS QL(*) WHERE(DESCR LK 'syncpoint dead*')"
    )
    assert summary.exit_code == 0, out
    assert [line.split()[0] for line in out if line.startswith("   QUEUE(")] == [
        "QUEUE(APP.FULL)",
        "QUEUE(SYSTEM.DEAD.LETTER.QUEUE)",
    ]
    assert "   CURDEPTH(1)" in out


# -- DEFINE: LIKE, REPLACE / NOREPLACE ----------------------------------------------------------------------
def test_define_an_existing_object_without_replace_fails_and_changes_nothing(admin: QueueManager) -> None:
    summary, out = run(
        admin, "DEFINE QLOCAL(Q1) MAXDEPTH(10)\nDEFINE QLOCAL(Q1) MAXDEPTH(20)\nDEF QL(Q1) MAXDEPTH(30) NOREPLACE"
    )
    assert out.count("AMQ8150E: syncpoint object already exists.") == 2
    assert summary.failed == 2 and summary.exit_code == 10
    assert admin.admin("lookup", "QLOCAL", "Q1").attrs["MAXDEPTH"] == 10


def test_replace_resets_attributes_not_given_to_the_default_objects(admin: QueueManager) -> None:
    # IBM: DEFINE … REPLACE takes every attribute not specified from the default object (or LIKE)
    summary, out = run(admin, "DEFINE QLOCAL(Q1) MAXDEPTH(10) DESCR('a')\nDEFINE QLOCAL(Q1) DESCR('b') REPLACE")
    assert summary.exit_code == 0, out
    attrs = admin.admin("lookup", "QLOCAL", "Q1").attrs
    assert (attrs["MAXDEPTH"], attrs["DESCR"]) == (5000, "b")


def test_unspecified_attributes_come_from_the_altered_default_queue(admin: QueueManager) -> None:
    run(admin, "ALTER QLOCAL(SYSTEM.DEFAULT.LOCAL.QUEUE) MAXDEPTH(42)\nDEFINE QLOCAL(Q1)")
    assert admin.admin("lookup", "QLOCAL", "Q1").attrs["MAXDEPTH"] == 42


def test_like_copies_attributes_and_a_missing_like_object_is_named(admin: QueueManager) -> None:
    summary, out = run(
        admin,
        "DEFINE QLOCAL(TEMPLATE) MAXDEPTH(11) DEFPSIST(YES)\nDEFINE QLOCAL(Q1) LIKE(TEMPLATE) DESCR('copy')\n"
        "DEFINE QLOCAL(Q2) LIKE(NO.SUCH)",
    )
    attrs = admin.admin("lookup", "QLOCAL", "Q1").attrs
    assert (attrs["MAXDEPTH"], attrs["DEFPSIST"], attrs["DESCR"]) == (11, C.MQPER_PERSISTENT, "copy")
    assert "AMQ8147E: syncpoint object NO.SUCH not found." in out
    assert admin.admin("lookup", "QLOCAL", "Q2") is None
    assert summary.failed == 1


def test_define_replace_of_a_queue_of_another_type_fails(admin: QueueManager) -> None:
    summary, out = run(admin, "DEF QA(A1) TARGET(X)\nDEF QL(A1) REPLACE")
    assert "AMQ8150E: syncpoint object already exists." in out
    assert admin.admin("lookup", "QALIAS", "A1") is not None and summary.failed == 1


# -- DELETE / CLEAR ---------------------------------------------------------------------------------------
def test_delete_a_queue_with_messages_needs_purge(admin: QueueManager) -> None:
    admin.admin("define", "QLOCAL", "Q1")
    admin.open("Q1").close()
    admin.put1("Q1", b"keep me")
    summary, out = run(admin, "DELETE QLOCAL(Q1)\nDELETE QLOCAL(Q1) NOPURGE")
    assert out.count("AMQ8143E: syncpoint queue Q1 not empty.") == 2
    assert admin.admin("queue_status", "Q1")["CURDEPTH"] == 1  # nothing lost
    summary, out = run(admin, "DELETE QLOCAL(Q1) PURGE")
    assert "AMQ8007I: syncpoint queue deleted." in out and summary.exit_code == 0
    assert admin.admin("lookup", "QLOCAL", "Q1") is None


def test_delete_or_clear_of_an_open_queue_is_refused(admin: QueueManager, connect: Connect) -> None:
    admin.admin("define", "QLOCAL", "Q1")
    app = connect(appl_name="app")
    q = app.open("Q1", C.MQOO_INPUT_SHARED)
    summary, out = run(admin, "CLEAR QLOCAL(Q1)\nDELETE QLOCAL(Q1) PURGE")
    assert out.count("AMQ8148E: syncpoint object in use.") == 2
    assert summary.failed == 2
    q.close()
    summary, out = run(admin, "CLEAR QLOCAL(Q1)\nDELETE QLOCAL(Q1)")
    assert "AMQ8022I: syncpoint queue cleared." in out and summary.exit_code == 0


def test_clear_removes_every_message(admin: QueueManager) -> None:
    admin.admin("define", "QLOCAL", "Q1")
    for i in range(3):
        admin.put1("Q1", f"m{i}")
    run(admin, "CLEAR QL(Q1)")
    assert admin.admin("queue_status", "Q1")["CURDEPTH"] == 0


def test_delete_of_a_missing_object_says_not_found(admin: QueueManager) -> None:
    summary, out = run(admin, "DELETE QALIAS(NOPE)")
    assert out[1] == "AMQ8147E: syncpoint object NOPE not found."
    assert summary.exit_code == 10


# -- processes, aliases, models, the queue manager ----------------------------------------------------
def test_process_define_alter_display_delete(admin: QueueManager) -> None:
    summary, out = run(
        admin,
        "DEFINE PROCESS(P1) APPLICID('/usr/bin/env run') APPLTYPE(UNIX) DESCR('Starter') USERDATA('u')\n"
        "ALTER PROCESS(P1) ENVRDATA('e')\nDISPLAY PROCESS(P1) ALL\nDELETE PROCESS(P1)",
    )
    assert summary.exit_code == 0, out
    assert out[1] == "AMQ8010I: syncpoint process created."
    assert "AMQ8012I: syncpoint process changed." in out
    assert "AMQ8407I: Display Process details." in out
    assert "AMQ8011I: syncpoint process deleted." in out
    shown = pairs(out)
    assert (shown["PROCESS"], shown["APPLICID"], shown["DESCR"], shown["ENVRDATA"]) == (
        "P1",
        "/usr/bin/env run",
        "Starter",
        "e",
    )


def test_model_and_alias_queues(admin: QueueManager) -> None:
    summary, out = run(
        admin,
        "DEFINE QMODEL(APP.MODEL) DEFTYPE(PERMDYN) MAXDEPTH(9)\nDEFINE QALIAS(APP.ALIAS) TARGET(APP.IN) PUT(DISABLED)\n"
        "DIS QMODEL(APP.MODEL) DEFTYPE MAXDEPTH\nDIS QALIAS(APP.ALIAS) TARGET PUT\nDELETE QMODEL(APP.MODEL)",
    )
    assert summary.exit_code == 0, out
    shown = pairs(out)
    assert (shown["DEFTYPE"], shown["TARGET"], shown["PUT"]) == ("PERMDYN", "APP.IN", "DISABLED")
    _, out = run(admin, "DIS QALIAS(APP.ALIAS) ALL")
    assert pairs(out)["TARGTYPE"] == "QUEUE"


def test_alter_and_display_qmgr(admin: QueueManager) -> None:
    summary, out = run(
        admin,
        "ALTER QMGR DEADQ(APP.DLQ) TRIGINT(5000) EXPRYINT(60) MAXUMSGS(50) DESCR('test qm')\n"
        "DISPLAY QMGR DEADQ TRIGINT EXPRYINT MAXUMSGS MAXMSGL CCSID DESCR",
    )
    assert summary.exit_code == 0, out
    assert "AMQ8005I: syncpoint queue manager changed." in out
    assert "AMQ8408I: Display Queue Manager details." in out
    shown = pairs(out)
    assert shown["QMNAME"] == "QM1"
    assert (shown["DEADQ"], shown["TRIGINT"], shown["EXPRYINT"], shown["MAXUMSGS"]) == ("APP.DLQ", "5000", "60", "50")
    assert (shown["MAXMSGL"], shown["CCSID"], shown["DESCR"]) == ("4194304", "1208", "test qm")
    _, out = run(admin, "ALTER QMGR EXPRYINT(OFF)\nDIS QMGR EXPRYINT")
    assert pairs(out)["EXPRYINT"] == "OFF"


def test_alter_qmgr_values_are_checked(admin: QueueManager) -> None:
    summary, _out = run(admin, "ALTER QMGR MAXUMSGS(0)\nALTER QMGR CCSID(70000)")
    assert summary.syntax_errors == 2 and summary.exit_code == 10
    assert admin.admin("qm_attr", "MAXUMSGS") == 10000


# -- QSTATUS ----------------------------------------------------------------------------------------------
def test_qstatus_type_queue_shows_depth_openers_uncommitted_times_age_and_qtime(
    admin: QueueManager, connect: Connect, clock: FakeClock
) -> None:
    admin.admin("define", "QLOCAL", "Q1")
    app = connect(appl_name="worker")
    q = app.open("Q1")
    q.put(b"a")
    q.put(b"b")
    clock.advance(30)
    q.get()  # stayed 30 s
    q.put(b"c", syncpoint=True)  # uncommitted
    _, out = run(admin, "DIS QSTATUS(Q1) ALL")
    assert "AMQ8450I: Display queue status details." in out
    shown = pairs(out)
    assert shown["TYPE"] == "QUEUE"
    assert (shown["CURDEPTH"], shown["IPPROCS"], shown["OPPROCS"], shown["UNCOM"]) == ("2", "1", "1", "1")
    today = time.strftime("%Y-%m-%d", time.localtime(clock.time()))
    assert shown["LGETDATE"] == today and shown["LPUTDATE"] == today
    assert shown["LGETTIME"] == time.strftime("%H.%M.%S", time.localtime(clock.time()))
    assert shown["MSGAGE"] == "30"  # the oldest available message, b, was put 30 s ago
    assert shown["QTIME"] == "30000000, 30000000"
    app.commit()
    _, out = run(admin, "DIS QS(Q1) CURDEPTH UNCOM")
    assert pairs(out)["UNCOM"] == "NO"
    assert "LGETDATE" not in pairs(out)


def test_qstatus_before_any_get_or_put_shows_blanks(admin: QueueManager) -> None:
    admin.admin("define", "QLOCAL", "Q1")
    _, out = run(admin, "DIS QS(Q1) ALL")
    assert "   LGETDATE( )                             LGETTIME( )" in out
    assert "   QTIME( , )                              UNCOM(NO)" in out


def test_qstatus_type_handle_lists_each_open_handle(admin: QueueManager, connect: Connect) -> None:
    admin.admin("define", "QLOCAL", "Q1")
    a = connect(appl_name="reader")
    a.open("Q1", C.MQOO_INPUT_EXCLUSIVE | C.MQOO_BROWSE)
    b = connect(appl_name="writer")
    b.open("Q1", C.MQOO_OUTPUT | C.MQOO_INQUIRE)
    _, out = run(admin, "DIS QSTATUS(Q1) TYPE(HANDLE)\nDIS QS(Q1) TYPE(HANDLE) APPLTAG OUTPUT")
    blocks = [i for i, line in enumerate(out) if line.startswith("AMQ8450I")]
    assert len(blocks) == 4
    first = pairs(out[blocks[0] : blocks[1]])
    assert (first["TYPE"], first["APPLTAG"], first["INPUT"], first["BROWSE"], first["OUTPUT"]) == (
        "HANDLE",
        "reader",
        "EXCL",
        "YES",
        "NO",
    )
    second = pairs(out[blocks[1] : blocks[2]])
    assert (second["APPLTAG"], second["OUTPUT"], second["INQUIRE"], second["INPUT"]) == ("writer", "YES", "YES", "NO")
    last = pairs(out[blocks[3] :])
    assert set(last) == {"QUEUE", "TYPE", "APPLTAG", "OUTPUT"}


def test_qstatus_generic_and_not_found(admin: QueueManager) -> None:
    admin.admin("define", "QLOCAL", "APP.1")
    admin.admin("define", "QLOCAL", "APP.2")
    summary, out = run(admin, "DIS QS(APP.*) CURDEPTH\nDIS QS(NOPE)")
    assert [line.split()[0] for line in out if line.startswith("   QUEUE(")] == ["QUEUE(APP.1)", "QUEUE(APP.2)"]
    assert "AMQ8147E: syncpoint object NOPE not found." in out and summary.failed == 1


# -- REFRESH QMGR TYPE(EXPIRY) ---------------------------------------------------------------------------
def test_refresh_expiry_discards_expired_messages_of_the_named_queues_only(
    admin: QueueManager, clock: FakeClock
) -> None:
    for name in ("APP.A", "OTHER"):
        admin.admin("define", "QLOCAL", name)
        admin.put1(name, b"short", expiry=1.0)
        admin.put1(name, b"long")
    clock.advance(5)
    summary, out = run(admin, "REFRESH QMGR TYPE(EXPIRY) NAME(APP.*)")
    assert summary.exit_code == 0, out
    assert "AMQ8492I: Refresh of expired messages complete. One expired message was discarded." in out
    assert admin.admin("queue_status", "APP.A")["CURDEPTH"] == 1
    assert admin.admin("queue_status", "OTHER")["CURDEPTH"] == 2


# -- a run: echo, trailer, exit codes, syntax errors, unsupported objects, -v, -e, END ---------------------
def test_echo_is_numbered_with_continuation_lines_and_the_trailer_counts(admin: QueueManager) -> None:
    summary, out = run(admin, "DEFINE QLOCAL(Q1) +\n  MAXDEPTH(5)\nDIS QL(Q1)")
    assert out[0] == "     1 : DEFINE QLOCAL(Q1) +"
    assert out[1] == "       :   MAXDEPTH(5)"
    assert out[2] == "AMQ8006I: syncpoint queue created."
    assert out[3] == "     2 : DIS QL(Q1)"
    assert out[-3:] == [
        "2 MQSC commands read.",
        "No commands have a syntax error.",
        "All valid MQSC commands were processed.",
    ]
    assert summary.exit_code == 0


def test_a_syntax_error_shows_the_segment_and_the_rest_still_runs(admin: QueueManager) -> None:
    summary, out = run(admin, "DEFINE QLOCAL(Q1) MAXDEPTH(x) DESCR('later')\nDEFINE QLOCAL(Q2)")
    i = out.index("AMQ8405I: Syntax error detected at or near end of command segment below:-")
    assert out[i + 1] == "DEFINE QLOCAL(Q1) MAXDEPTH(x)"
    assert "MAXDEPTH takes a number" in out[i + 2]
    assert admin.admin("lookup", "QLOCAL", "Q1") is None  # nothing of the bad command was applied
    assert admin.admin("lookup", "QLOCAL", "Q2") is not None
    assert out[-3:] == [
        "2 MQSC commands read.",
        "One command has a syntax error.",
        "All valid MQSC commands were processed.",
    ]
    assert summary.exit_code == 10


def test_unsupported_objects_are_reported_and_the_rest_runs(admin: QueueManager) -> None:
    script = (
        "DEFINE CHANNEL(APP.CLNTCONN) CHLTYPE(CLNTCONN) TRPTYPE(TCP) REPLACE\n"
        "DEFINE QLOCAL(APP.IN)\n"
        "DEFINE LISTENER(L1) TRPTYPE(TCP) PORT(1414)\n"
        "SET AUTHREC PROFILE('APP.**') PRINCIPAL('app') OBJTYPE(QUEUE) AUTHADD(GET,PUT)\n"
        "DEFINE SERVICE(S1) CONTROL(QMGR)\n"
        "DEFINE QLOCAL(APP.OUT)\n"
    )
    summary, out = run(admin, script)
    assert "AMQ8490E: syncpoint does not support CLNTCONN channels; the command was not run." in out
    assert "AMQ8490E: syncpoint does not support LISTENER objects; the command was not run." in out
    assert "AMQ8862I: syncpoint authority record set." in out  # SET AUTHREC is supported (issue 35)
    assert "AMQ8490E: syncpoint does not support SERVICE objects; the command was not run." in out
    assert admin.admin("lookup", "QLOCAL", "APP.IN") and admin.admin("lookup", "QLOCAL", "APP.OUT")
    assert out[-1] == "3 valid MQSC commands could not be processed."
    assert summary.exit_code == 10


def test_ibm_attributes_without_effect_are_reported_kept_and_the_command_runs(admin: QueueManager) -> None:
    summary, out = run(admin, "DEFINE QLOCAL(Q1) DEFBIND(NOTFIXED) MONQ(QMGR) MAXDEPTH(9)")
    assert (
        "AMQ8491W: DEFBIND is an IBM MQ attribute that syncpoint does not act on; it is kept and shown by DISPLAY."
        in out
    )
    assert admin.admin("lookup", "QLOCAL", "Q1").attrs["MAXDEPTH"] == 9
    assert admin.admin("lookup", "QLOCAL", "Q1").attrs["DEFBIND"] == "NOTFIXED"
    assert summary.exit_code == 0


def test_verify_checks_everything_and_changes_nothing(admin: QueueManager) -> None:
    script = "DEFINE QLOCAL(Q1)\nDEFINE QLOCAL(Q2) FOO(1)\nDELETE QLOCAL(SYSTEM.DEFAULT.LOCAL.QUEUE)\nDIS QL(*)"
    summary, out = run(admin, script, verify=True)
    assert admin.admin("lookup", "QLOCAL", "Q1") is None
    assert admin.admin("lookup", "QLOCAL", "SYSTEM.DEFAULT.LOCAL.QUEUE") is not None
    assert not any(line.startswith(("AMQ8006I", "AMQ8007I", "AMQ8409I")) for line in out)
    assert out[-2:] == ["4 MQSC commands read.", "One command has a syntax error."]
    assert summary.exit_code == 10
    ok, out = run(None, "DEFINE QLOCAL(Q1) MONQ(HIGH)\nDEFINE CHANNEL(C) CHLTYPE(CLNTCONN)", verify=True)
    assert ok.exit_code == 0  # -v needs no queue manager; it tells what would be ignored or not run
    assert any(line.startswith("AMQ8491W: MONQ") for line in out)
    assert any(line.startswith("AMQ8490E") for line in out)


def test_no_echo(admin: QueueManager) -> None:
    _, out = run(admin, "DEFINE QLOCAL(Q1)", echo=False)
    assert out[0] == "AMQ8006I: syncpoint queue created."


def test_end_stops_reading(admin: QueueManager) -> None:
    summary, _out = run(admin, "DEFINE QLOCAL(Q1)\nEND\nDEFINE QLOCAL(Q2)")
    assert admin.admin("lookup", "QLOCAL", "Q2") is None
    assert summary.read == 2 and summary.exit_code == 0


def test_execute_one_command_for_other_tools(admin: QueueManager) -> None:
    p = MqscProcessor(admin)
    r = p.execute("DEFINE QLOCAL(Q1) MAXDEPTH(3)")
    assert r.ok and r.lines == ["AMQ8006I: syncpoint queue created."]
    bad = p.execute("DEFINE QLOCAL(Q1) NOPE")
    assert not bad.ok and bad.lines[0].startswith("AMQ8405I")


def test_a_lost_queue_manager_stops_the_run_with_exit_code_20(
    admin: QueueManager, embedded: EmbeddedQueueManager
) -> None:
    embedded.close(abnormal=True)  # the queue manager ends under runmqsc
    summary, out = run(admin, "DEFINE QLOCAL(Q1)\nDEFINE QLOCAL(Q2)")
    assert summary.exit_code == 20 and summary.read == 1, out
    assert out[1].startswith("AMQ8146E: syncpoint queue manager not available.")


# -- the engine fix that came with MQSC: MQINQ of a queue's MAXMSGL ----------------------------------------
def test_mqinq_of_a_queues_maxmsgl_gives_the_queues_value(admin: QueueManager) -> None:
    run(admin, "DEFINE QLOCAL(Q1) MAXMSGL(2048)")
    q = admin.open("Q1", C.MQOO_INQUIRE)
    ints, _ = admin.mqinq(q.handle, [C.MQIA_MAX_MSG_LENGTH])
    assert ints == [2048]


def test_qstatus_handles_filtered_by_where(admin: QueueManager, connect: Connect) -> None:
    admin.admin("define", "QLOCAL", "Q1")
    connect(appl_name="reader").open("Q1", C.MQOO_INPUT_SHARED)
    connect(appl_name="writer").open("Q1", C.MQOO_OUTPUT)
    _, out = run(admin, "DIS QS(Q1) TYPE(HANDLE) WHERE(OUTPUT EQ YES)")
    assert out.count("AMQ8450I: Display queue status details.") == 1
    assert pairs(out)["APPLTAG"] == "writer"  # QSTATUS shows everything unless attributes are named
    _, out = run(admin, "DIS QS(Q1) TYPE(HANDLE) APPLTAG WHERE(APPLTAG LK 'read*')")
    assert pairs(out)["APPLTAG"] == "reader" and out.count("AMQ8450I: Display queue status details.") == 1
