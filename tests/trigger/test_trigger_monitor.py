"""The trigger monitor's logic (runmqtrm) on an in-process queue manager, starting real programs.

Reference: ../shared/reference/triggering.md, "The trigger monitor". The started programs are real shell
scripts run by the real shell; they write what they received to files the tests read.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from syncpoint.client import EmbeddedQueueManager, QueueManager
from syncpoint.mqi import MQDLH, MQMD, MQTM, MQTMC2
from syncpoint.mqi import constants as C
from syncpoint.trigger import EXIT_ERROR, EXIT_NORMAL, EXIT_NOT_RUN, TriggerMonitor, command_for
from waiting import wait_for_file

Connect = Callable[..., QueueManager]
DLQ = "SYSTEM.DEAD.LETTER.QUEUE"

RECORDER = """#!/bin/sh
# writes what a trigger monitor passed: the argument count, the MQTMC2, and the other arguments
printf '%s' "$#" > "{out}.argc"
printf '%s' "$1" > "{out}.tmc"
shift
printf '%s' "$*" > "{out}.rest"
"""


def script(path: Path, body: str, executable: bool = True) -> Path:
    path.write_text(body)
    if executable:
        path.chmod(0o755)
    return path


@pytest.fixture
def admin(connect: Connect) -> QueueManager:
    a = connect(appl_name="admin")
    a.admin("define", "QLOCAL", "INITQ")
    return a


def define(admin: QueueManager, applicid: str, envrdata: str = "", **qattrs: Any) -> None:
    admin.admin(
        "define", "PROCESS", "PROC", {"APPLICID": applicid, "ENVRDATA": envrdata, "USERDATA": "user data"}, replace=True
    )
    attrs: dict[str, Any] = {
        "TRIGGER": C.MQTC_ON,
        "TRIGTYPE": C.MQTT_EVERY,
        "PROCESS": "PROC",
        "INITQ": "INITQ",
        "TRIGDATA": "trig data",
    }
    attrs.update(qattrs)
    admin.admin("define", "QLOCAL", "APPQ", attrs, replace=True)


@pytest.fixture
def monitor(admin: QueueManager, connect: Connect) -> TriggerMonitor:
    m = TriggerMonitor(connect(appl_name="runmqtrm"), "INITQ")
    m.open()
    return m


def dead_letters(admin: QueueManager) -> list[tuple[MQDLH, bytes, MQMD]]:
    out = []
    q = admin.open(DLQ)
    while (m := q.get_or_none()) is not None:
        out.append((MQDLH.unpack(m.data[:172]), m.data[172:], m.md))
    return out


def depth(qm: QueueManager, name: str) -> int:
    return int(qm.admin("queue_status", name)["CURDEPTH"])


# -- starting the application ---------------------------------------------------------------------------
def test_runs_applid_with_the_mqtmc2_as_one_argument_followed_by_envdata(
    admin: QueueManager, monitor: TriggerMonitor, tmp_path: Path
) -> None:
    # triggering.md: "it runs ApplId "<MQTMC2>" EnvData: the MQTMC2 (732 bytes, all characters, with the queue
    # manager name) is one argument in double quotes; EnvData has trailing blanks removed"
    out = tmp_path / "out"
    app = script(tmp_path / "app.sh", RECORDER.format(out=out))
    define(admin, str(app), "--env one   ")
    admin.open("APPQ").put(b"work")
    assert monitor.process_available() == 1
    assert (tmp_path / "out.argc").read_text() == "3"
    assert (tmp_path / "out.rest").read_text() == "--env one"
    raw = (tmp_path / "out.tmc").read_bytes()
    assert len(raw) == 732
    tmc = MQTMC2.unpack(raw)
    assert tmc.StrucId == b"TMC " and tmc.Version == b"   2"
    assert tmc.QName == b"APPQ".ljust(48)
    assert tmc.ProcessName == b"PROC".ljust(48)
    assert tmc.TriggerData == b"trig data".ljust(64)
    assert tmc.ApplType == b"   6"
    assert tmc.ApplId == str(app).encode().ljust(256)
    assert tmc.EnvData == b"--env one".ljust(128)
    assert tmc.UserData == b"user data".ljust(128)
    assert tmc.QMgrName == b"QM1".ljust(48)
    assert depth(admin, "INITQ") == 0
    assert monitor.stats.started == 1


def test_the_mqtmc2_reaches_the_program_exactly_even_with_shell_characters(
    admin: QueueManager, monitor: TriggerMonitor, tmp_path: Path
) -> None:
    out = tmp_path / "out"
    app = script(tmp_path / "app.sh", RECORDER.format(out=out))
    tricky = 'a"b$HOME`id`\\c'
    define(admin, str(app), TRIGDATA=tricky)
    admin.open("APPQ").put(b"work")
    monitor.process_available()
    tmc = MQTMC2.unpack((tmp_path / "out.tmc").read_bytes())
    assert tmc.TriggerData == tricky.encode().ljust(64)


def test_waits_for_the_application_to_end_before_the_next_trigger_message(
    admin: QueueManager, monitor: TriggerMonitor, tmp_path: Path
) -> None:
    app = script(tmp_path / "app.sh", f'#!/bin/sh\nsleep 0.3\necho x >> "{tmp_path}/log"\n')
    define(admin, str(app))
    admin.open("APPQ").put(b"1")
    assert monitor.process_one(None)
    assert (tmp_path / "log").read_text() == "x\n"  # it had ended when process_one returned


def test_runs_the_application_in_the_background_when_envdata_ends_with_an_ampersand(
    admin: QueueManager, monitor: TriggerMonitor, tmp_path: Path
) -> None:
    go = tmp_path / "go"
    done = tmp_path / "done"
    app = script(tmp_path / "app.sh", f'#!/bin/sh\nwhile [ ! -f "{go}" ]; do sleep 0.02; done\ntouch "{done}"\n')
    define(admin, str(app), "&")
    admin.open("APPQ").put(b"1")
    assert monitor.process_one(None)  # returns although the program waits for "go"
    assert not done.exists()
    go.touch()
    wait_for_file(done)


def test_command_for_builds_ibms_unix_command_line() -> None:
    tm = MQTM(QName=b"Q", ApplType=C.MQAT_UNIX, ApplId=b"/bin/prog -x", EnvData=b"more args &  ")
    command, background = command_for(tm, "QM9")
    assert background
    assert command.startswith(b'/bin/prog -x "TMC    2Q')
    assert command.endswith(b"QM9" + b" " * 45 + b'" more args &')
    tm.EnvData = b" " * 128
    command, background = command_for(tm, "QM9")
    assert not background and command.endswith(b'"')


# -- what goes to the dead-letter queue ---------------------------------------------------------------
@pytest.mark.parametrize(
    ("md", "data"),
    [
        (MQMD(Format=C.MQFMT_STRING), MQTM(ApplType=C.MQAT_UNIX, ApplId=b"/bin/true").pack()),
        (MQMD(Format=C.MQFMT_TRIGGER), b"TM  short"),
        (MQMD(Format=C.MQFMT_TRIGGER), b"XX  " + MQTM(ApplType=C.MQAT_UNIX).pack()[4:]),
        (MQMD(Format=C.MQFMT_TRIGGER), MQTM(Version=2, ApplType=C.MQAT_UNIX).pack()),
    ],
    ids=["format", "short", "strucid", "version"],
)
def test_a_malformed_trigger_message_goes_to_the_dlq_with_mqfb_tm_error(
    admin: QueueManager, monitor: TriggerMonitor, md: MQMD, data: bytes
) -> None:
    admin.open("INITQ").put(data, md=md)
    assert monitor.process_available() == 1
    ((dlh, body, dmd),) = dead_letters(admin)
    assert dlh.Reason == C.MQFB_TM_ERROR
    assert dlh.DestQName == b"INITQ".ljust(48) and dlh.DestQMgrName == b"QM1".ljust(48)
    assert dlh.PutApplName.rstrip() == b"runmqtrm"
    assert body == data
    assert dmd.Format == C.MQFMT_DEAD_LETTER_HEADER
    assert depth(admin, "INITQ") == 0


def test_an_unsupported_appltype_goes_to_the_dlq_with_mqfb_appl_type_error(
    admin: QueueManager, monitor: TriggerMonitor, tmp_path: Path
) -> None:
    marker = tmp_path / "ran"
    app = script(tmp_path / "app.sh", f'#!/bin/sh\ntouch "{marker}"\n')
    define(admin, str(app))
    admin.admin("alter", "PROCESS", "PROC", {"APPLTYPE": C.MQAT_WINDOWS_NT})
    admin.open("APPQ").put(b"1")
    monitor.process_available()
    ((dlh, body, _),) = dead_letters(admin)
    assert dlh.Reason == C.MQFB_APPL_TYPE_ERROR
    assert dlh.Format == C.MQFMT_TRIGGER
    assert MQTM.unpack(body).ApplType == C.MQAT_WINDOWS_NT
    assert not marker.exists()


def test_a_transmission_queue_trigger_with_appltype_unknown_is_an_appl_type_error(
    admin: QueueManager, monitor: TriggerMonitor
) -> None:
    admin.admin(
        "define",
        "QLOCAL",
        "XMITQ",
        {"USAGE": C.MQUS_TRANSMISSION, "TRIGGER": C.MQTC_ON, "INITQ": "INITQ", "TRIGDATA": "CHANNEL.1"},
    )
    admin.open("XMITQ").put(b"1")
    monitor.process_available()
    ((dlh, _, _),) = dead_letters(admin)
    assert dlh.Reason == C.MQFB_APPL_TYPE_ERROR


@pytest.mark.parametrize("kind", ["missing", "not-executable", "blank"])
def test_a_program_that_cannot_be_started_goes_to_the_dlq_with_mqfb_appl_cannot_be_started(
    admin: QueueManager, monitor: TriggerMonitor, tmp_path: Path, kind: str
) -> None:
    if kind == "missing":
        applicid = str(tmp_path / "no-such-program")
    elif kind == "not-executable":
        applicid = str(script(tmp_path / "app.sh", "#!/bin/sh\nexit 0\n", executable=False))
    else:
        applicid = ""
    define(admin, applicid)
    admin.open("APPQ").put(b"1")
    assert monitor.process_available() == 1
    ((dlh, body, _),) = dead_letters(admin)
    assert dlh.Reason == C.MQFB_APPL_CANNOT_BE_STARTED
    assert MQTM.unpack(body).QName.rstrip() == b"APPQ"
    assert depth(admin, "INITQ") == 0


def test_an_application_that_fails_after_starting_is_not_dead_lettered(
    admin: QueueManager, monitor: TriggerMonitor, tmp_path: Path
) -> None:
    app = script(tmp_path / "app.sh", "#!/bin/sh\nexit 3\n")
    define(admin, str(app))
    admin.open("APPQ").put(b"1")
    monitor.process_available()
    assert dead_letters(admin) == []
    assert monitor.stats.started == 1


def test_without_a_dlq_a_bad_trigger_message_stays_is_reported_and_the_next_ones_are_processed(
    admin: QueueManager, connect: Connect, tmp_path: Path
) -> None:
    admin.admin("alter_qmgr", {"DEADQ": ""})
    reports: list[str] = []
    monitor = TriggerMonitor(connect(appl_name="runmqtrm"), "INITQ", report=reports.append)
    monitor.open()
    bad = admin.open("INITQ").put(b"not a trigger message")
    out = tmp_path / "out"
    define(admin, str(script(tmp_path / "app.sh", RECORDER.format(out=out))))
    admin.open("APPQ").put(b"1")
    assert monitor.process_available() == 2
    assert (tmp_path / "out.argc").read_text() == "1"
    remaining = admin.open("INITQ").get()
    assert remaining.msg_id == bytes(bad.MsgId)
    assert sum("left on INITQ" in r for r in reports) == 1
    assert monitor.stats.left == 1


def test_a_left_message_is_reported_once_and_the_monitor_keeps_reading_past_it(
    admin: QueueManager, connect: Connect, tmp_path: Path
) -> None:
    admin.admin("alter_qmgr", {"DEADQ": "NO.SUCH.QUEUE"})  # a dead-letter queue that refuses everything
    reports: list[str] = []
    monitor = TriggerMonitor(connect(appl_name="runmqtrm"), "INITQ", report=reports.append)
    monitor.open()
    admin.open("INITQ").put(b"bad 1")
    monitor.process_available()
    monitor.process_available()
    out = tmp_path / "out"
    define(admin, str(script(tmp_path / "app.sh", RECORDER.format(out=out))))
    admin.open("APPQ").put(b"1")
    assert monitor.process_available() == 1
    assert (tmp_path / "out.argc").exists()
    assert sum("left on INITQ" in r for r in reports) == 1
    assert depth(admin, "INITQ") == 1


# -- holding the initiation queue ------------------------------------------------------------------------
def test_opening_the_initiation_queue_triggers_for_messages_that_arrived_before(
    admin: QueueManager, connect: Connect, tmp_path: Path
) -> None:
    # seed 001, condition 13: "A trigger-monitor application issues an MQOPEN call for input from an
    # initiation queue" … "This is to allow for messages arriving on queues while the trigger monitor is not
    # running"
    out = tmp_path / "out"
    define(admin, str(script(tmp_path / "app.sh", RECORDER.format(out=out))), TRIGTYPE=C.MQTT_FIRST)
    admin.open("APPQ").put(b"waiting")
    monitor = TriggerMonitor(connect(appl_name="runmqtrm"), "INITQ")
    assert monitor.process_available() == 1
    assert MQTMC2.unpack((tmp_path / "out.tmc").read_bytes()).QName.rstrip() == b"APPQ"


def test_run_returns_0_when_the_queue_manager_is_ending(
    admin: QueueManager, connect: Connect, embedded: EmbeddedQueueManager
) -> None:
    monitor = TriggerMonitor(connect(appl_name="runmqtrm"), "INITQ")
    monitor.open()
    embedded.quiesce()
    assert monitor.run() == EXIT_NORMAL


def test_run_returns_20_when_the_initiation_queue_does_not_exist(connect: Connect) -> None:
    reports: list[str] = []
    monitor = TriggerMonitor(connect(), "NO.SUCH.QUEUE", report=reports.append)
    assert monitor.run() == EXIT_NOT_RUN
    assert any("NO.SUCH.QUEUE" in r and "2085" in r for r in reports)


def test_run_returns_10_when_an_error_interrupts_it(admin: QueueManager, connect: Connect) -> None:
    admin.admin("alter", "QLOCAL", "INITQ", {"GET": C.MQQA_GET_INHIBITED})
    monitor = TriggerMonitor(connect(), "INITQ")
    assert monitor.run() == EXIT_ERROR


def test_run_with_a_finite_wait_ends_normally_when_nothing_arrives(admin: QueueManager, connect: Connect) -> None:
    monitor = TriggerMonitor(connect(), "INITQ")
    assert monitor.run(wait=5.0) == EXIT_NORMAL  # the fake clock moves by the wait


def test_the_monitor_holds_the_initiation_queue_open_for_input(admin: QueueManager, connect: Connect) -> None:
    # seed 001, condition 8: "A trigger monitor currently has the initiation queue open for removing messages"
    monitor = TriggerMonitor(connect(), "INITQ")
    monitor.open()
    assert admin.admin("queue_status", "INITQ")["IPPROCS"] == 1
    monitor.close()
    assert admin.admin("queue_status", "INITQ")["IPPROCS"] == 0


def test_runmqtrm_reports_as_ibms_started_rule_waiting_command_and_end_of_application(
    admin: QueueManager, connect: Connect, tmp_path: Path
) -> None:
    # IBM's runmqtrm: "trigger monitor started.", a rule of underscores and "Waiting for a trigger message" before
    # each message, the command line it starts, "End of application trigger." after it
    from syncpoint.trigger import RULE

    out = tmp_path / "got"
    define(admin, str(script(tmp_path / "app.sh", RECORDER.format(out=out))))
    admin.open("APPQ").put(b"x")
    reports: list[str] = []
    monitor = TriggerMonitor(connect(appl_name="runmqtrm"), "INITQ", report=reports.append)
    assert monitor.run(wait=0.01) == EXIT_NORMAL
    assert reports[0] == "syncpoint trigger monitor started for INITQ of queue manager QM1."
    assert reports[1:4] == ["", RULE, "Waiting for a trigger message"]
    assert reports[4].startswith(str(tmp_path / "app.sh") + ' "TMC    2APPQ')
    assert reports[5] == "End of application trigger."
    assert reports[6:9] == ["", RULE, "Waiting for a trigger message"]


def test_runmqtrm_prefixes_its_lines_with_the_date_and_time_as_ibms(capsys: pytest.CaptureFixture[str]) -> None:
    import re

    from syncpoint.cli._trigger import _say
    from syncpoint.trigger import RULE

    _say("Waiting for a trigger message")
    _say(RULE)
    _say("")
    lines = capsys.readouterr().out.splitlines()
    assert re.fullmatch(r"\d\d/\d\d/\d{4}  \d\d:\d\d:\d\d [AP]M : Waiting for a trigger message", lines[0])
    assert lines[1:] == [RULE, ""]
