"""runmqsc's answers in IBM's formats (issue 21, "IBM's formats and verbs"): PING QMGR (AMQ8415I), DISPLAY
QMSTATUS (AMQ8705I), DISPLAY CONN (AMQ8276I), DISPLAY QSTATUS (CURDEPTH unless more is asked; TYPE(HANDLE) with
CONNAME, APPLTAG, ASTATE, PID, TID, OPENOPTS), syntax errors as AMQ8405I then AMQ8427I with the valid syntax, and
every attribute DEFINE / ALTER accepts shown again by DISPLAY."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest
from test_mqsc_commands import pairs

from syncpoint.client import QueueManager
from syncpoint.engine import FakeClock
from syncpoint.mqi._dates import mqsc_date_time
from syncpoint.mqi.objects import EVENT_SWITCHES, PROCESS, QALIAS, QLOCAL, QMGR, QMODEL
from syncpoint.mqsc import MqscProcessor, Summary
from syncpoint.mqsc._attrs import _TABLES, IGNORED_ATTRIBUTES, display_keywords

Connect = Callable[..., QueueManager]


def run(qm: QueueManager | None, script: str) -> tuple[Summary, list[str]]:
    out: list[str] = []
    summary = MqscProcessor(qm).run(script.splitlines(), out.append)
    return summary, out


@pytest.fixture
def admin(connect: Connect) -> QueueManager:
    return connect(appl_name="runmqsc")


def q1_open_for_input(admin: QueueManager, connect: Connect, appl: str) -> None:
    """Q1 defined and held open by application ``appl`` with MQOO_INPUT_SHARED | MQOO_FAIL_IF_QUIESCING."""
    admin.admin("define", "QLOCAL", "Q1")
    connect(appl_name=appl).open("Q1", 2 | 8192)


def test_ping_qmgr_is_amq8415i(admin: QueueManager) -> None:
    summary, out = run(admin, "PING QMGR")
    assert "AMQ8415I: Ping syncpoint Queue Manager command complete." in out
    assert summary.exit_code == 0


def test_display_qmstatus_is_amq8705i_with_name_status_start_and_connections(
    admin: QueueManager, connect: Connect
) -> None:
    connect(appl_name="worker")
    _, out = run(admin, "DISPLAY QMSTATUS")
    assert "AMQ8705I: Display Queue Manager Status Details." in out
    shown = pairs(out)
    assert (shown["QMNAME"], shown["STATUS"], shown["CONNS"]) == ("QM1", "RUNNING", "2")
    assert re.fullmatch(r"\d{4}-\d\d-\d\d", shown["STARTDA"]) and re.fullmatch(r"\d\d\.\d\d\.\d\d", shown["STARTTI"])
    assert shown["CHINIT"] == "STOPPED" and shown["CMDSERV"] == "STOPPED"  # nothing reads their queues here
    _, out = run(admin, "DIS QMSTATUS CONNS")
    assert set(pairs(out)) == {"QMNAME", "STATUS", "CONNS"}


def test_display_conn_shows_conn_extconn_type_and_with_all_the_connection_attributes(
    admin: QueueManager, connect: Connect
) -> None:
    worker = connect(appl_name="worker")
    admin.admin("define", "QLOCAL", "Q1")
    worker.open("Q1").put(b"x", syncpoint=True)
    _, out = run(admin, "DISPLAY CONN(*)")
    assert out.count("AMQ8276I: Display Connection details.") == 2
    i = out.index("AMQ8276I: Display Connection details.")
    assert re.fullmatch(r"   CONN\([0-9A-F]{16}\)", out[i + 1])
    assert out[i + 2] == "   EXTCONN(" + (b"AMQCQM1" + b" " * 9).hex().upper() + ")"
    assert out[i + 3] == "   TYPE(CONN)"
    assert out[i + 4] == "AMQ8276I: Display Connection details."  # nothing more unless asked
    _, out = run(admin, "DIS CONN(*) ALL")
    blocks = "\n".join(out).split("AMQ8276I")[1:]
    worker_block = next(b for b in blocks if "APPLTAG(worker)" in b)
    shown = pairs(worker_block.splitlines())
    for kw in ("PID", "TID", "APPLTYPE", "ASTATE", "CHANNEL", "CONNAME", "CONNOPTS", "USERID", "UOWLOG"):
        assert kw in shown, kw
    for kw in ("UOWSTDA", "UOWSTTI", "URTYPE"):
        assert kw in shown, kw
    assert (shown["UOWSTATE"], shown["APPLTYPE"], shown["ASTATE"]) == ("ACTIVE", "USER", "NONE")
    conn = shown["CONN"]
    _, out = run(admin, f"DIS CONN({conn}) APPLTAG")
    assert out.count("AMQ8276I: Display Connection details.") == 1 and pairs(out)["APPLTAG"] == "worker"


def test_display_conn_uowstda_uowstti_are_when_the_unit_of_work_began_and_blank_without_one(
    admin: QueueManager, connect: Connect, clock: FakeClock
) -> None:
    # IBM's DISPLAY CONN: UOWSTDA / UOWSTTI, the date and time the unit of work began (blank when there is none)
    admin.admin("define", "QLOCAL", "Q1")
    worker = connect(appl_name="worker")
    q = worker.open("Q1")

    def worker_pairs() -> dict[str, str]:
        _, out = run(admin, "DIS CONN(*) UOWSTDA UOWSTTI UOWSTATE APPLTAG")
        block = next(b for b in "\n".join(out).split("AMQ8276I")[1:] if "APPLTAG(worker)" in b)
        return pairs(block.splitlines())

    assert (worker_pairs()["UOWSTDA"], worker_pairs()["UOWSTTI"]) == (" ", " ")  # IBM shows UOWSTDA( )
    began = clock.time()
    q.put(b"x", syncpoint=True)
    clock.advance(90)  # the start stays the first syncpoint verb's time, not the display's
    q.put(b"y", syncpoint=True)
    shown = worker_pairs()
    assert (shown["UOWSTATE"], shown["UOWSTDA"], shown["UOWSTTI"]) == ("ACTIVE", *mqsc_date_time(began))
    worker.commit()
    assert (worker_pairs()["UOWSTDA"], worker_pairs()["UOWSTTI"]) == (" ", " ")  # IBM shows UOWSTDA( )


def test_display_qstatus_shows_curdepth_unless_more_is_asked(admin: QueueManager) -> None:
    admin.admin("define", "QLOCAL", "Q1")
    _, out = run(admin, "DISPLAY QSTATUS(Q1)")
    i = out.index("AMQ8450I: Display queue status details.")
    assert out[i + 1 : i + 3] == ["   QUEUE(Q1)                               TYPE(QUEUE)", "   CURDEPTH(0)"]
    _, out = run(admin, "DISPLAY QSTATUS(Q1) IPPROCS")
    assert set(pairs(out)) == {"QUEUE", "TYPE", "IPPROCS"}


def test_display_qstatus_type_handle_shows_conname_appltag_astate_pid_tid_openopts(
    admin: QueueManager, connect: Connect
) -> None:
    q1_open_for_input(admin, connect, "reader")
    _, out = run(admin, "DISPLAY QSTATUS(Q1) TYPE(HANDLE)")
    shown = pairs(out)
    assert shown["APPLTAG"] == "reader" and shown["ASTATE"] == "NONE" and shown["CONNAME"] == " "
    assert shown["OPENOPTS"] == "MQOO_INPUT_SHARED,MQOO_FAIL_IF_QUIESCING"
    assert shown["PID"].isdigit() and shown["TID"] == "*" and shown["INPUT"] == "SHARED"


def test_a_syntax_error_is_amq8405i_then_amq8427i_with_the_valid_syntax(admin: QueueManager) -> None:
    summary, out = run(admin, "DEFINE QLOCAL(Q1) MAXDEPTH(lots)")
    i = out.index("AMQ8405I: Syntax error detected at or near end of command segment below:-")
    assert out[i + 1] == "DEFINE QLOCAL(Q1) MAXDEPTH(lots)"
    j = out.index("AMQ8427I: Valid syntax for the MQSC command:")
    assert j > i + 1
    syntax = "\n".join(out[j + 2 :])
    assert out[j + 2].startswith("DEFINE QLOCAL( q_name ) [ LIKE( q_name ) ] [ REPLACE | NOREPLACE ]")
    for item in ("[ MAXDEPTH( integer ) ]", "[ TRIGGER | NOTRIGGER ]", "[ DEFPSIST( NO | YES ) ]"):
        assert item in syntax
    assert summary.syntax_errors == 1
    _, out = run(admin, "DISPLAY NOSUCH(X)")
    k = out.index("AMQ8427I: Valid syntax for the MQSC command:")
    assert out[k + 2].startswith(
        "DISPLAY QLOCAL | QMODEL | QALIAS | QREMOTE | PROCESS | NAMELIST | QUEUE | QSTATUS | QMGR"
    )
    _, out = run(admin, "FROB QLOCAL(X)")  # no such verb: there is no syntax to show
    assert "AMQ8405I: Syntax error detected at or near end of command segment below:-" in out
    assert not any(line.startswith("AMQ8427I") for line in out)


# -- every attribute DEFINE / ALTER accepts, DISPLAY shows again ---------------------------------------------
def _other_value(otype: str, keyword: str) -> str:
    """MQSC text setting ``keyword`` of ``otype`` to a value other than its default."""
    info = _TABLES[otype][keyword]
    a = info.attr
    if info.flag_value is not None:
        return keyword
    if a.kind == "enum" or (a.kind == "str" and a.values):  # a kept word attribute: one of IBM's words (STATQ)
        word = next(w for w, v in a.values.items() if v != a.default and w != a.default)
        return f"{keyword}({word})"
    if a.kind == "int":
        value = a.default + 1 if a.default + 1 <= a.high else a.default - 1
        return f"{keyword}({value})"
    if a.keyword in EVENT_SWITCHES:  # an event switch takes its own words only
        return f"{keyword}({next(w for w in EVENT_SWITCHES[a.keyword] if w != a.default)})"
    return f"{keyword}(SET.BY.TEST)"


@pytest.mark.parametrize("otype", [QLOCAL, QMODEL, QALIAS, PROCESS, QMGR])
def test_every_attribute_define_or_alter_accepts_is_shown_by_display(admin: QueueManager, otype: str) -> None:
    # issue 21: "attributes accepted on DEFINE are shown by DISPLAY (MONQ, STATQ, DEFBIND, PROPCTL, queue depth
    # event attributes …) — accepted and never shown again is not acceptable"
    shown = display_keywords(otype)
    assert IGNORED_ATTRIBUTES[otype] <= shown  # what is accepted without a place of its own is shown computed
    for keyword, info in sorted(_TABLES[otype].items()):
        if info.attr.readonly or (info.flag_value is not None and info.flag_value == info.attr.default):
            continue
        text = _other_value(otype, keyword)
        if otype == QMGR:
            command = f"ALTER QMGR {text}"
            if keyword == "CONNAUTH":  # it names an AUTHINFO object, which must exist
                command = "DEFINE AUTHINFO(SET.BY.TEST) AUTHTYPE(IDPWOS)\n" + command
            display = f"DISPLAY QMGR {keyword}"
        else:
            command = f"DEFINE {otype}(T.{keyword}) {text}"
            display = f"DISPLAY {otype}(T.{keyword}) {keyword}"
        summary, out = run(admin, command + "\n" + display)
        assert summary.exit_code == 0, (command, out)
        got = pairs(out)
        expected = re.fullmatch(r"[A-Z0-9]+(?:\((.*)\))?", text)
        assert expected is not None
        assert keyword in got, (command, out)
        assert got[keyword] == (expected.group(1) or ""), (command, got[keyword])


def test_monq_statq_defbind_propctl_and_depth_events_are_shown_after_define(admin: QueueManager) -> None:
    script = (
        "DEFINE QLOCAL(APP.Q) MONQ(HIGH) STATQ(ON) ACCTQ(ON) DEFBIND(NOTFIXED) PROPCTL(NONE) QDPHIEV(ENABLED) "
        "QDPLOEV(ENABLED) QDPMAXEV(DISABLED) QSVCIEV(HIGH) QSVCINT(5000) CLUSTER(CL1)\nDISPLAY QLOCAL(APP.Q)"
    )
    summary, out = run(admin, script)
    assert summary.exit_code == 0
    shown = pairs(out)
    assert shown["MONQ"] == "HIGH" and shown["STATQ"] == "ON" and shown["ACCTQ"] == "ON"
    assert shown["DEFBIND"] == "NOTFIXED" and shown["PROPCTL"] == "NONE" and shown["CLUSTER"] == "CL1"
    assert (shown["QDPHIEV"], shown["QDPLOEV"], shown["QDPMAXEV"]) == ("ENABLED", "ENABLED", "DISABLED")
    assert (shown["QSVCIEV"], shown["QSVCINT"]) == ("HIGH", "5000")
    _, out = run(admin, "DISPLAY QLOCAL(SYSTEM.DEFAULT.LOCAL.QUEUE) MONQ DEFBIND QDPMAXEV")
    assert pairs(out)["MONQ"] == "QMGR" and pairs(out)["DEFBIND"] == "OPEN"  # IBM's defaults when never set


def test_display_of_one_named_object_without_attributes_shows_all_and_a_generic_name_only_names(
    admin: QueueManager,
) -> None:
    # IBM (DISPLAY QUEUE, ALL): "the default if you do not specify a generic name and do not request any specific
    # attributes"
    admin.admin("define", "QLOCAL", "APP.Q")
    _, out = run(admin, "DISPLAY QLOCAL(APP.Q)")
    assert "MAXDEPTH" in pairs(out) and "MONQ" in pairs(out)
    _, out = run(admin, "DISPLAY QLOCAL(APP.*)")
    assert set(pairs(out)) == {"QUEUE", "TYPE"}


def test_display_conn_type_handle_lists_each_object_the_connection_has_open(
    admin: QueueManager, connect: Connect
) -> None:
    q1_open_for_input(admin, connect, "worker")
    _, out = run(admin, "DISPLAY CONN(*) TYPE(HANDLE) WHERE(APPLTAG EQ 'worker')")
    i = out.index("AMQ8276I: Display Connection details.")
    assert out[i + 3 : i + 5] == ["   TYPE(HANDLE)", ""]
    shown = pairs(out[i + 5 :])
    assert (shown["OBJNAME"], shown["OBJTYPE"]) == ("Q1", "QUEUE")
    assert shown["OPENOPTS"] == "MQOO_INPUT_SHARED,MQOO_FAIL_IF_QUIESCING" and shown["HSTATE"] == "INACTIVE"
    _, out = run(admin, "DISPLAY CONN(*) TYPE(ALL) WHERE(APPLTAG EQ 'worker')")
    assert "   TYPE(CONN)" in out and "APPLTAG" in pairs(out) and "OBJNAME" in pairs(out)
