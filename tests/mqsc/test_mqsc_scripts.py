"""``syncpoint runmqsc`` as a real subprocess, fed MQSC scripts written in the styles found in the wild (issue 4,
acceptance 4 and 6): all lower case, tab-indented ``+`` continuations, LIKE, a trailing REPLACE on its own
continued line, and channel / listener / authority set-up mixed in."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from servers import servers_of, start_server

SYNCPOINT = str(Path(sys.executable).with_name("syncpoint"))


def sp(args: list[str], home: Path, stdin: str = "") -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, SYNCPOINT_HOME=str(home))
    return subprocess.run([SYNCPOINT, *args], input=stdin, capture_output=True, text=True, env=env, timeout=120)


@pytest.fixture
def home(tmp_path: Path) -> Iterator[Path]:
    """QM1 running: runmqsc needs a running queue manager, as IBM's does (issue 21, item 1)."""
    out = sp(["crtmqm", "QM1"], tmp_path)
    assert out.returncode == 0, out.stderr
    with servers_of(tmp_path):
        start_server(tmp_path, "QM1")
        yield tmp_path


LOWER_CASE = """\
* orders application: queues and process
define qlocal(app.orders.in) maxdepth(50000) defpsist(yes) replace
define qlocal(app.orders.backout) replace
alter qlocal(app.orders.in) boqname(app.orders.backout) bothresh(3) descr('Orders from the shop')
define process(app.orders.proc) applicid('/opt/app/bin/start orders') replace
dis ql(app.orders.*) maxdepth boqname bothresh descr
dis process(app.orders.proc) applicid
"""


def test_an_all_lower_case_script(home: Path) -> None:
    out = sp(["runmqsc", "QM1"], home, LOWER_CASE)
    assert out.returncode == 0, out.stdout
    assert "Starting MQSC for queue manager QM1." in out.stdout
    assert "     1 : define qlocal(app.orders.in) maxdepth(50000) defpsist(yes) replace" in out.stdout
    assert "   QUEUE(APP.ORDERS.IN)                    TYPE(QLOCAL)" in out.stdout
    assert "BOQNAME(APP.ORDERS.BACKOUT)" in out.stdout and "BOTHRESH(3)" in out.stdout
    assert "DESCR(Orders from the shop)" in out.stdout  # quoted: kept as written
    assert "APPLICID(/opt/app/bin/start orders)" in out.stdout
    assert "6 MQSC commands read." in out.stdout
    assert "All valid MQSC commands were processed." in out.stdout


TABBED = """\
DEFINE QLOCAL('APP.REQUEST') +
\tDESCR('Requests from the web tier') +
\tDEFPSIST(YES) +
\tMAXDEPTH(100000) +
\tTRIGGER TRIGTYPE(FIRST) +
\tINITQ(SYSTEM.DEFAULT.INITIATION.QUEUE) +
\tPROCESS(APP.REQUEST.PROC) +
\tREPLACE
DEFINE PROCESS(APP.REQUEST.PROC) +
\tAPPLTYPE(UNIX) +
\tAPPLICID('/opt/app/bin/serve') +
\tREPLACE
DEFINE QLOCAL(APP.REQUEST.COPY) LIKE(APP.REQUEST) +
\tREPLACE
DISPLAY QLOCAL(APP.REQUEST.COPY) MAXDEPTH DEFPSIST TRIGGER INITQ PROCESS DESCR
"""


def test_tab_indented_continuations_like_and_a_trailing_replace(home: Path) -> None:
    out = sp(["runmqsc", "QM1"], home, TABBED)
    assert out.returncode == 0, out.stdout
    assert "       : \tREPLACE" in out.stdout  # continuation lines are echoed as read
    copy = out.stdout.split("QUEUE(APP.REQUEST.COPY)")[1]
    for item in (
        "MAXDEPTH(100000)",
        "DEFPSIST(YES)",
        "TRIGGER",
        "INITQ(SYSTEM.DEFAULT.INITIATION.QUEUE)",
        "PROCESS(APP.REQUEST.PROC)",
        "DESCR(Requests from the web tier)",
    ):
        assert item in copy, item
    assert "4 MQSC commands read." in out.stdout


CONTAINER_CONFIG = """\
* the kind of set-up a container image runs at start
DEFINE QLOCAL('DEV.QUEUE.1') REPLACE
DEFINE QLOCAL('DEV.DEAD.LETTER.QUEUE') REPLACE
ALTER QMGR DEADQ('DEV.DEAD.LETTER.QUEUE')
DEFINE CHANNEL('DEV.APP.SVRCONN') CHLTYPE(SVRCONN) MCAUSER('app') REPLACE
SET CHLAUTH('DEV.APP.SVRCONN') TYPE(ADDRESSMAP) ADDRESS('*') USERSRC(CHANNEL) CHCKCLNT(REQUIRED) +
    DESCR('Allows connection via APP channel') ACTION(REPLACE)
DEFINE AUTHINFO(DEV.AUTHINFO) AUTHTYPE(IDPWOS) CHCKCLNT(REQDADM) ADOPTCTX(YES) REPLACE
ALTER QMGR CONNAUTH(DEV.AUTHINFO) CHLAUTH(DISABLED)
REFRESH SECURITY TYPE(CONNAUTH)
DEFINE TOPIC('DEV.BASE.TOPIC') TOPICSTR('dev/') REPLACE
SET AUTHREC PROFILE('DEV.**') PRINCIPAL('app') OBJTYPE(QUEUE) AUTHADD(BROWSE,GET,INQ,PUT)
DEFINE LISTENER(SYSTEM.LISTENER.TCP.1) TRPTYPE(TCP) PORT(1414) CONTROL(QMGR) REPLACE
START LISTENER(SYSTEM.LISTENER.TCP.1)
DEFINE SERVICE(APP.SVC) CONTROL(QMGR) SERVTYPE(SERVER) STARTCMD('/bin/true') REPLACE
DEFINE QLOCAL('DEV.QUEUE.2') LIKE('DEV.QUEUE.1') REPLACE
DISPLAY QMGR DEADQ
"""


def test_unsupported_objects_are_reported_exit_10_and_the_rest_runs(home: Path) -> None:
    out = sp(["runmqsc", "QM1"], home, CONTAINER_CONFIG)
    assert out.returncode == 10, out.stdout
    text = out.stdout
    for what in ("LISTENER objects", "the START command", "SERVICE objects"):
        assert f"AMQ8490E: syncpoint does not support {what}; the command was not run." in text, what
    # its channel and channel authentication record are made (issue 35), CHLAUTH(DISABLED) acted on
    assert "AMQ8014I: syncpoint channel created." in text
    assert "AMQ8877I: syncpoint channel authentication record set." in text
    assert "AMQ8491W: CHLAUTH" not in text
    # connection authentication runs: the AUTHINFO object is made, CONNAUTH names it, REFRESH SECURITY takes it
    assert "AMQ8563I: syncpoint authentication information object created." in text
    assert "AMQ8560I: syncpoint security cache refreshed." in text
    assert "DEADQ(DEV.DEAD.LETTER.QUEUE)" in text  # the supported commands ran, in order
    assert "15 MQSC commands read." in text
    assert "No commands have a syntax error." in text
    assert "AMQ8862I: syncpoint authority record set." in text  # SET AUTHREC runs (issue 35)
    assert "3 valid MQSC commands could not be processed." in text  # SET CHLAUTH and SVRCONN channels run
    assert "AMQ8690I: syncpoint topic created." in text  # DEV.BASE.TOPIC: topics are supported (publish/subscribe)
    check = sp(["runmqsc", "-e", "QM1"], home, "DIS QL(DEV.*)\nDIS QMGR CONNAUTH\n")
    assert "QUEUE(DEV.QUEUE.1)" in check.stdout and "QUEUE(DEV.QUEUE.2)" in check.stdout
    assert "CONNAUTH(DEV.AUTHINFO)" in check.stdout


BROKEN = """\
DEFINE QLOCAL(GOOD.1)
DEFINE QLOCAL(BAD) MAXDEPTH(many)
DEFINE QLOCAL(GOOD.2) DESCR('unterminated)
DEFINE QLOCAL(GOOD.3)
"""


def test_syntax_errors_are_reported_with_their_segment_and_processing_continues(home: Path) -> None:
    out = sp(["runmqsc", "QM1"], home, BROKEN)
    assert out.returncode == 10
    lines = out.stdout.splitlines()
    i = lines.index("AMQ8405I: Syntax error detected at or near end of command segment below:-")
    assert lines[i + 1] == "DEFINE QLOCAL(BAD) MAXDEPTH(many)"
    assert "2 commands have a syntax error." in out.stdout
    shown = sp(["runmqsc", "QM1"], home, "DIS QL(GOOD.*)\nDIS QL(BAD)\n").stdout
    assert "QUEUE(GOOD.1)" in shown and "QUEUE(GOOD.3)" in shown
    assert "AMQ8147E: syncpoint object BAD not found." in shown


def test_verify_mode_checks_a_whole_file_without_changing_anything(home: Path) -> None:
    out = sp(["runmqsc", "-v", "QM1"], home, BROKEN)
    assert out.returncode == 10
    assert out.stdout.count("AMQ8405I") == 2
    assert "AMQ8006I" not in out.stdout and "All valid MQSC commands" not in out.stdout
    clean = sp(["runmqsc", "-v", "QM1"], home, LOWER_CASE + TABBED)
    assert clean.returncode == 0, clean.stdout
    assert "No commands have a syntax error." in clean.stdout
    after = sp(["runmqsc", "QM1"], home, "DIS QL(GOOD.1)\nDIS QL(APP.*)\n")
    assert after.stdout.count("AMQ8147E") == 2  # -v defined nothing


def test_no_echo_option(home: Path) -> None:
    out = sp(["runmqsc", "-e", "QM1"], home, "DEFINE QLOCAL(Q1)\n")
    assert out.returncode == 0
    assert " 1 : " not in out.stdout and "AMQ8006I: syncpoint queue created." in out.stdout


def test_a_queue_manager_that_does_not_exist_stops_with_exit_code_20(home: Path) -> None:
    out = sp(["runmqsc", "NOQM"], home, "DIS QMGR\n")
    assert out.returncode == 20
    assert "AMQ8118E: syncpoint queue manager NOQM does not exist." in out.stdout


def test_definitions_persist_across_runs(home: Path) -> None:
    assert sp(["runmqsc", "QM1"], home, "DEFINE QLOCAL(KEEP) MAXDEPTH(12)\n").returncode == 0
    out = sp(["runmqsc", "QM1"], home, "DIS QL(KEEP) MAXDEPTH\n")
    assert "MAXDEPTH(12)" in out.stdout


def test_runmqsc_against_a_running_queue_manager(home: Path) -> None:
    # issue 21, item 1: runmqsc needs the running queue manager (IBM: AMQ8146E when it is not running)
    try:
        out = sp(["runmqsc", "QM1"], home, LOWER_CASE + "dis qs(app.orders.in) type(handle) appltag\n")
        assert out.returncode == 0, out.stdout
        assert "BOTHRESH(3)" in out.stdout
        verify = sp(["runmqsc", "-v", "QM1"], home, BROKEN)
        assert verify.returncode == 10
        bad = sp(["runmqsc", "QM1"], home, "DELETE QLOCAL(NO.SUCH)\nDEFINE CHANNEL(C) CHLTYPE(CLNTCONN)\n")
        assert bad.returncode == 10 and "AMQ8490E" in bad.stdout
    finally:
        assert sp(["endmqm", "-i", "QM1"], home).returncode == 0
    ended = sp(["runmqsc", "QM1"], home, "dis ql(app.orders.*)\n")
    assert ended.returncode == 20 and "AMQ8146E: syncpoint queue manager QM1 not available." in ended.stdout
    start_server(home, "QM1")
    after = sp(["runmqsc", "QM1"], home, "dis ql(app.orders.*)\n")  # definitions kept
    assert "QUEUE(APP.ORDERS.BACKOUT)" in after.stdout and "QUEUE(APP.ORDERS.IN)" in after.stdout
