"""A damaged journal or write-ahead log stops the restart with an error naming the file; salvage recovers what
is valid and reports what was lost; a torn tail (the last record cut by the crash) still starts normally.

Issue "Hardening", defect 3: "1,000 committed persistent messages, 500 of them only in the journal, then SIGKILL:
one byte flipped in the first journal record lost 500 on restart, in a middle record 250; the journal deleted,
truncated to 0 or its header zeroed lost 500; qm.db-wal truncated lost 500, deleted lost a whole queue. Each
restarted normally, no error, no log line. [...] damage stops the restart with a clear error naming the file and
what to do (a documented recovery command that salvages what is valid and reports what was lost), never a silent
start." SQLite's own rule for its log: a frame that fails its checksum ends the log (a torn tail); IBM MQ's
AMQ7017 ("Log not available") stops strmqm when its log is damaged.

The queue manager here is real: a child process puts the messages through the client API into a real SQLite file
and is SIGKILLed once they are committed. Queue Q.A gets the even units of work, Q.B the odd ones (10 messages
each); the first 50 units go into SQLite (a DEFINE QLOCAL checkpoints the journal), the last 50 stay only in the
journal, one record per unit.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest

import syncpoint
from syncpoint.client import create_queue_manager, open_embedded
from syncpoint.mqi import MQMIError
from syncpoint.mqi import constants as C
from syncpoint.store import SQLiteStore, StoreDamagedError, salvage

QM = "QMDAMAGE"
UNITS = 50  # units of work of 10 messages in each half
HEADER = 32  # the journal's header
RECORD = 16  # a record's header: length (top bit: synced), crc, epoch

CHILD = textwrap.dedent(
    """
    import sys, syncpoint
    qm = syncpoint.connect(sys.argv[1], home=sys.argv[2])
    queues = {"Q.A": qm.open("Q.A"), "Q.B": qm.open("Q.B")}
    def units(first):
        for unit in range(first, first + UNITS):
            queue = queues["Q.A" if unit % 2 == 0 else "Q.B"]
            for i in range(10):
                queue.put(b"unit %03d message %d" % (unit, i), syncpoint=True)  # DEFPSIST(YES)
            qm.commit()
    units(0)
    qm.admin("define", "QLOCAL", "Q.CKPT", {})  # object changes go through SQLite: the journal is checkpointed
    units(UNITS)
    print("done", flush=True)
    sys.stdin.read()
    """
).replace("UNITS", str(UNITS))


@pytest.fixture(scope="module")
def crashed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A home whose queue manager was SIGKILLed with 1,000 committed messages, 500 only in the journal."""
    return crash(tmp_path_factory.mktemp("crashed"), QM, ["Q.A", "Q.B"], CHILD)


def crash(home: Path, qmgr: str, queues: list[str], script: str) -> Path:
    """Create ``qmgr`` in ``home`` with persistent ``queues``, run ``script`` against it in a child process until
    it prints "done", and SIGKILL the child."""
    create_queue_manager(qmgr, home=home)
    qm = syncpoint.connect(qmgr, home=home)
    for name in queues:
        qm.admin("define", "QLOCAL", name, {"DEFPSIST": C.MQPER_PERSISTENT})
    qm.disconnect()
    open_embedded(qmgr, home=home).close()
    child = subprocess.Popen(
        [sys.executable, "-c", script, qmgr, str(home)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert child.stdout is not None
    line = child.stdout.readline()
    assert line == "done\n", child.stderr.read() if child.stderr else line
    os.kill(child.pid, signal.SIGKILL)
    child.wait()
    return home


@pytest.fixture
def home(crashed: Path, tmp_path: Path) -> Path:
    """A copy of the crashed home, for one test to damage."""
    return copy_of(crashed, tmp_path)


def copy_of(home: Path, tmp_path: Path) -> Path:
    copy = tmp_path / "home"
    shutil.copytree(home, copy)
    return copy


def qdir(home: Path) -> Path:
    return home / "qmgrs" / QM


def journal(home: Path) -> Path:
    return qdir(home) / "qm.db.journal"


def records(home: Path) -> list[tuple[int, int]]:
    """(offset, payload length) of the journal's records of its first epoch, in order."""
    data = journal(home).read_bytes()
    epoch = data[HEADER + 8 : HEADER + RECORD]
    found = []
    offset = HEADER
    while data[offset + 8 : offset + RECORD] == epoch:
        length = int.from_bytes(data[offset : offset + 4], "little") & 0x7FFF_FFFF
        found.append((offset, length))
        offset += RECORD + length
    return found


MARK = 24  # the header's durable mark: epoch << 24 | records of that epoch synced


def set_mark_count(data: bytearray, count: int) -> None:
    mark = int.from_bytes(data[MARK:HEADER], "little")
    data[MARK:HEADER] = ((mark >> 24) << 24 | count).to_bytes(8, "little")


def flip(path: Path, offset: int) -> None:
    data = bytearray(path.read_bytes())
    data[offset] ^= 0x01
    path.write_bytes(bytes(data))


def depths(home: Path) -> dict[str, int]:
    qm = syncpoint.connect(QM, home=home)
    try:
        return {name: qm.open(name).depth for name in ("Q.A", "Q.B")}
    finally:
        qm.disconnect()
        open_embedded(QM, home=home).close()


def refused(home: Path, damaged: str) -> StoreDamagedError:
    """The restart is refused, by the store and by the embedded open alike, naming the damaged file."""
    with pytest.raises(StoreDamagedError) as info:
        SQLiteStore(qdir(home) / "qm.db").open()
    assert info.value.path == str(qdir(home) / damaged)
    assert str(info.value).startswith("AMQ7017E: ")
    assert f"syncpoint salvmqm {QM}" in str(info.value)
    with pytest.raises(MQMIError) as embedded:
        syncpoint.connect(QM, home=home)
    assert embedded.value.reason == C.MQRC_Q_MGR_NOT_AVAILABLE
    assert "AMQ7017E" in str(embedded.value.detail) and damaged in str(embedded.value.detail)
    return info.value


def test_a_crash_without_damage_restarts_with_all_1000_messages(home):
    assert len(records(home)) == UNITS  # the 500 messages of the second half are only in the journal
    assert depths(home) == {"Q.A": 500, "Q.B": 500}


def in_a_message_body(home: Path, index: int) -> int:
    """A byte of the body of the last message of the unit in journal record ``index``."""
    offset, length = records(home)[index]
    body = journal(home).read_bytes().index(b"message 9", offset + RECORD, offset + RECORD + length)
    return body + len(b"message ")


@pytest.mark.parametrize(
    ("index", "queue"),
    [(0, "Q.A"), (UNITS // 2, "Q.B")],  # record i holds unit 50 + i: even units on Q.A, odd on Q.B
    ids=["first record", "middle record"],
)
def test_one_byte_flipped_in_a_journal_record_refuses_the_start_and_salvage_loses_only_that_record(home, index, queue):
    flip(journal(home), in_a_message_body(home, index))
    refused(home, "qm.db.journal")
    report = salvage(qdir(home) / "qm.db")
    assert report.lost == {queue: 10}  # the damaged record still decodes: its unit is named, not applied
    assert sum(report.recovered.values()) == 490
    expected = {"Q.A": 500, "Q.B": 500}
    expected[queue] -= 10
    assert app_depths(report.depths) == expected
    assert depths(home) == expected  # and the queue manager starts with them
    assert (qdir(home) / "qm.db.journal.damaged").exists()


def damage_journal_deleted(home: Path) -> None:
    journal(home).unlink()


def damage_journal_truncated_to_0(home: Path) -> None:
    journal(home).write_bytes(b"")


@pytest.mark.parametrize("damage", [damage_journal_deleted, damage_journal_truncated_to_0])
def test_a_missing_or_emptied_journal_refuses_the_start_and_salvage_reports_an_uncounted_loss(
    home, damage: Callable[[Path], None]
):
    damage(home)
    refused(home, "qm.db.journal")
    report = salvage(qdir(home) / "qm.db")
    assert report.uncounted and not report.complete
    assert app_depths(report.depths) == {"Q.A": 250, "Q.B": 250}
    assert depths(home) == {"Q.A": 250, "Q.B": 250}


def test_a_zeroed_journal_header_refuses_the_start_and_salvage_recovers_every_record(home):
    data = bytearray(journal(home).read_bytes())
    data[:HEADER] = bytes(HEADER)
    journal(home).write_bytes(bytes(data))
    refused(home, "qm.db.journal")
    report = salvage(qdir(home) / "qm.db")
    assert report.lost == {} and sum(report.recovered.values()) == 500
    assert depths(home) == {"Q.A": 500, "Q.B": 500}


def test_a_torn_last_record_starts_normally_losing_only_that_write(home, caplog):
    offset, length = records(home)[-1]
    data = bytearray(journal(home).read_bytes())
    data[offset + RECORD + length // 2 : offset + RECORD + length] = bytes(length - length // 2)  # cut by a crash
    # ... during its sync: the header's durable mark is written once a sync has returned, so it counts the records
    # before this one only (its epoch in the top 40 bits, the count in the low 24)
    set_mark_count(data, len(records(home)) - 1)
    journal(home).write_bytes(bytes(data))
    with caplog.at_level("INFO", logger="syncpoint.store"):
        assert depths(home) == {"Q.A": 500, "Q.B": 490}  # the last unit (odd: Q.B) was never acknowledged
    assert "cut short by the crash" in caplog.text


def damage_wal_truncated(home: Path) -> None:
    (qdir(home) / "qm.db-wal").write_bytes(b"")


def damage_wal_deleted(home: Path) -> None:
    (qdir(home) / "qm.db-wal").unlink()


@pytest.mark.parametrize("damage", [damage_wal_truncated, damage_wal_deleted])
def test_a_truncated_or_deleted_write_ahead_log_refuses_the_start_and_salvage_keeps_the_journal(
    home, damage: Callable[[Path], None]
):
    assert (qdir(home) / "qm.db-shm").exists()  # SQLite's index of the log survives a SIGKILL
    damage(home)
    refused(home, "qm.db-wal")
    report = salvage(qdir(home) / "qm.db")
    assert report.uncounted and sum(report.recovered.values()) == 500
    assert depths(home) == {"Q.A": 250, "Q.B": 250}  # what the log held is lost; the journal's messages are not


def test_a_deleted_log_and_index_are_still_noticed_by_the_journal_being_newer_than_the_database(home):
    # Without -shm nothing records what the log held; but the log held the journal's last checkpoint, so the
    # journal's records are of an epoch the database has not reached.
    (qdir(home) / "qm.db-wal").unlink()
    (qdir(home) / "qm.db-shm").unlink()
    error = refused(home, "qm.db-wal")
    assert "older than its journal" in str(error)
    assert sum(salvage(qdir(home) / "qm.db").recovered.values()) == 500


def test_strmqm_refuses_a_damaged_store_naming_the_file_and_salvmqm_reports_and_repairs(home):
    journal(home).unlink()
    env = dict(os.environ, SYNCPOINT_HOME=str(home))
    cli = [sys.executable, "-c", "from syncpoint.cli import main; main()"]
    start = subprocess.run([*cli, "strmqm", QM, "--no-tcp"], env=env, capture_output=True, text=True, timeout=120)
    assert start.returncode != 0
    assert "AMQ7017E" in start.stderr and "qm.db.journal" in start.stderr and "salvmqm" in start.stderr
    fixed = subprocess.run([*cli, "salvmqm", QM], env=env, capture_output=True, text=True, timeout=120)
    assert fixed.returncode == 0, fixed.stderr
    assert "LOST, number not known" in fixed.stdout and "Q.A: 250" in fixed.stdout
    assert depths(home) == {"Q.A": 250, "Q.B": 250}


def test_a_journal_truncated_inside_a_record_refuses_the_start_and_salvage_keeps_the_records_before(home):
    # The journal only grows by whole MiB, written before a record is: a record cut by the end of a file of
    # another size was cut by a truncation, not by a crash.
    offset, _length = records(home)[UNITS // 2]
    with open(journal(home), "r+b") as file:
        file.truncate(offset + RECORD + 5)
    error = refused(home, "qm.db.journal")
    assert "truncated" in str(error)
    report = salvage(qdir(home) / "qm.db")
    assert sum(report.recovered.values()) == 250 and report.uncounted  # records 0 to 24: units 50 to 74
    assert depths(home) == {"Q.A": 380, "Q.B": 370}


# -- issue 39: every cut point of the journal is damage, and salvmqm's report is what the queues hold -----------
#
# Issue 39, defect 1: "A queue manager with 500 persistent messages in its journal only, SIGKILLed; then
# `truncate -s 32 qmgrs/QJ/qm.db.journal` (the header alone), or a cut exactly at a record boundary, or the records
# zeroed with the size kept: `strmqm` exits 0 with no AMQ7017E and no error-log entry [...] every case must be
# [refused]." Defect 3: "a test reads the queues after salvmqm and compares them with the report".

CLI = [sys.executable, "-c", "from syncpoint.cli import main; main()"]


def cli(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, SYNCPOINT_HOME=str(home))
    return subprocess.run([*CLI, *args], env=env, capture_output=True, text=True, timeout=120)


def cut_to_the_header(home: Path) -> None:
    os.truncate(journal(home), HEADER)


def cut_at_a_record_boundary(home: Path) -> None:
    os.truncate(journal(home), records(home)[UNITS // 2][0])


def cut_before_the_last_record(home: Path) -> None:
    os.truncate(journal(home), records(home)[-1][0])


def cut_inside_a_record(home: Path) -> None:
    os.truncate(journal(home), records(home)[UNITS // 2][0] + RECORD + 5)


def zero_the_records_keeping_the_size(home: Path) -> None:
    data = journal(home).read_bytes()
    journal(home).write_bytes(data[:HEADER] + bytes(len(data) - HEADER))


@pytest.mark.parametrize(
    ("damage", "left"),
    [
        (cut_to_the_header, {"Q.A": 250, "Q.B": 250}),
        (cut_at_a_record_boundary, {"Q.A": 380, "Q.B": 370}),  # records 0 to 24 (units 50 to 74) are left
        (cut_before_the_last_record, {"Q.A": 500, "Q.B": 490}),  # unit 99 (odd: Q.B) is gone
        (cut_inside_a_record, {"Q.A": 380, "Q.B": 370}),
        (zero_the_records_keeping_the_size, {"Q.A": 250, "Q.B": 250}),
    ],
    ids=lambda value: getattr(value, "__name__", ""),
)
def test_every_cut_of_the_journal_refuses_strmqm_with_AMQ7017E_and_salvmqm_reports_what_is_left(
    home, damage: Callable[[Path], None], left: dict[str, int]
):
    damage(home)
    report = refused_then_salvaged(home, QM, "qm.db.journal")
    assert "LOST" in report, report  # synced records are gone: the report says so
    assert reported_depths(report) == left
    assert depths(home) == left  # what the report says is what the queue manager has


def refused_then_salvaged(home: Path, qmgr: str, damaged: str) -> str:
    """strmqm refuses with AMQ7017E naming the damaged file, on stderr and in the error log; salvmqm then
    succeeds. Returns salvmqm's report."""
    start = cli(home, "strmqm", qmgr, "--no-tcp")
    assert start.returncode != 0  # never a silent start with fewer committed messages
    assert "AMQ7017E" in start.stderr and damaged in start.stderr
    errors = (home / "qmgrs" / qmgr / "errors" / "AMQERR01.LOG").read_text()
    assert "AMQ7017E" in errors and damaged in errors
    fixed = cli(home, "salvmqm", qmgr)
    assert fixed.returncode == 0, fixed.stderr
    return fixed.stdout


def app_depths(found: dict[str, int]) -> dict[str, int]:
    """The depths of the test's queues: not the queue manager's own (its persistent stop events, STRSTPEV)."""
    return {q: n for q, n in found.items() if not q.startswith("SYSTEM.ADMIN.")}


def reported_depths(report: str) -> dict[str, int]:
    """The "persistent messages now on each queue" section of salvmqm's report."""
    lines = report.splitlines()
    start = lines.index("  persistent messages now on each queue:") + 1
    found = {}
    for line in lines[start:]:
        if not line.startswith("    ") or line.strip() == "(none)":
            break
        queue, count = line.strip().rsplit(": ", 1)
        found[queue] = int(count)
    return app_depths(found)


def test_a_random_journal_header_is_refused_and_salvage_finds_every_record_by_its_framing(home):
    # Defect 4: "salvmqm with a random journal header recovers none of the 500 valid records".
    data = bytearray(journal(home).read_bytes())
    data[:HEADER] = os.urandom(HEADER)
    journal(home).write_bytes(bytes(data))
    with pytest.raises(Exception, match="not a syncpoint journal"):
        SQLiteStore(qdir(home) / "qm.db").open()
    fixed = cli(home, "salvmqm", QM)
    assert fixed.returncode == 0, fixed.stderr
    assert "recovered from the journal" in fixed.stdout
    assert reported_depths(fixed.stdout) == {"Q.A": 500, "Q.B": 500} == depths(home)


def test_a_half_truncated_database_is_salvaged_row_by_row_without_a_traceback(home):
    # Defect 2: "salvmqm on a half-truncated qm.db prints a Python traceback [...] it must salvage what SQLite can
    # still read (.recover-style) and report the rest". Checkpointed first, so that qm.db holds every message.
    depths(home)
    db = qdir(home) / "qm.db"
    os.truncate(db, db.stat().st_size // 2)
    fixed = cli(home, "salvmqm", QM)
    assert fixed.returncode == 0, fixed.stderr
    assert "Traceback" not in fixed.stderr + fixed.stdout
    assert "SQLite cannot read all of it" in fixed.stdout and "LOST, number not known" in fixed.stdout
    assert (qdir(home) / "qm.db.damaged").exists()
    read = int(fixed.stdout.split("read from the damaged database into a new one: ")[1].split()[0])
    assert read > 0  # the rows on the pages that are left, also those whose interior pages were cut off
    left = reported_depths(fixed.stdout)
    # messages whose queue's definition was on a lost page are kept and reported, to come back once the queue is
    # defined again (which pages survive depends on the file's layout: the default objects grow with features)
    orphans = orphaned_depths(fixed.stdout)
    # every message now on a queue (or kept for one) was read, and the rest is reported lost; a message read from
    # the damaged file may still go, by a get the journal replays after it (so placed <= read, not equal)
    assert 0 < sum(left.values()) + sum(orphans.values()) <= read < 1000, fixed.stdout
    if orphans:
        qm = syncpoint.connect(QM, home=home)
        for name in orphans:
            qm.admin("define", "QLOCAL", name)  # as the report says: DEFINE QLOCAL again and restart
        qm.disconnect()
        open_embedded(QM, home=home).close()
    assert depths(home) == {q: left.get(q, 0) + orphans.get(q, 0) for q in ("Q.A", "Q.B")}


def orphaned_depths(report: str) -> dict[str, int]:
    """The "ON NO QUEUE" section of salvmqm's report: messages kept whose queue's definition was lost."""
    lines = report.splitlines()
    start = next((i for i, line in enumerate(lines) if line.strip().startswith("ON NO QUEUE")), None)
    found: dict[str, int] = {}
    if start is None:
        return found
    for line in lines[start + 1 :]:
        if not line.startswith("    ") or ": " not in line:
            break
        queue, count = line.strip().rsplit(": ", 1)
        found[queue] = int(count.split()[0])
    return found


def test_a_deleted_database_is_reported_missing_with_how_to_restore_not_as_an_unknown_queue_manager(home):
    # Defect 5: "with a deleted qm.db, strmqm and salvmqm say 'queue manager does not exist'".
    (qdir(home) / "qm.db").unlink()
    for verb in ("strmqm", "salvmqm"):
        result = cli(home, verb, QM)
        assert result.returncode != 0
        assert "does not exist" not in result.stderr
        assert "is missing" in result.stderr and "backup" in result.stderr and "create=True" not in result.stderr


def test_an_emptied_database_does_not_tell_a_command_line_user_to_pass_create_true(home):
    (qdir(home) / "qm.db").write_bytes(b"")
    result = cli(home, "strmqm", QM, "--no-tcp")
    assert result.returncode != 0
    assert "empty file" in result.stderr and "create=True" not in result.stderr and "backup" in result.stderr


# A queue manager whose database log lost only definitions (issue 39, defects 3 and 11): 6 MiB of messages are
# checkpointed from the journal into SQLite, whose log then passes wal_autocheckpoint and is copied into qm.db; the
# definitions of Q.CKPT and K1 that follow are only in the log; 100 persistent messages on K1 are only in the
# journal. A get of one of them is in flight (its marker is only in qm.db.inflight) when the process is SIGKILLed.
QK = "QMDEFS"
DEFS_CHILD = textwrap.dedent(
    """
    import sys, syncpoint
    qm = syncpoint.connect(sys.argv[1], home=sys.argv[2])
    big = qm.open("Q.BIG")
    for i in range(12):
        big.put(bytes(512 * 1024), syncpoint=True)
    qm.commit()
    qm.admin("define", "QLOCAL", "Q.CKPT", {})
    qm.admin("define", "QLOCAL", "K1", {"DEFPSIST": 1})
    k1 = qm.open("K1")
    for i in range(100):
        k1.put(b"k1 message %d" % i, syncpoint=True)
        if i % 10 == 9:
            qm.commit()
    big.get(syncpoint=True)  # in flight at the crash
    print("done", flush=True)
    sys.stdin.read()
    """
)


@pytest.fixture(scope="module")
def crashed_after_definitions(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return crash(tmp_path_factory.mktemp("definitions"), QK, ["Q.BIG"], DEFS_CHILD)


@pytest.fixture
def defs_home(crashed_after_definitions: Path, tmp_path: Path) -> Path:
    return copy_of(crashed_after_definitions, tmp_path)


def queue_depth(home: Path, qmgr: str, name: str) -> int | None:
    """The depth of queue ``name`` after a real start, None if the queue does not exist."""
    qm = syncpoint.connect(qmgr, home=home)
    try:
        return qm.open(name).depth
    except MQMIError as exc:
        assert exc.reason == C.MQRC_UNKNOWN_OBJECT_NAME
        return None
    finally:
        qm.disconnect()
        open_embedded(qmgr, home=home).close()


def test_a_log_deleted_with_its_index_that_held_only_definitions_refuses_the_start(defs_home):
    # Defect 11: "A qm.db-wal deleted together with qm.db-shm is caught only when the lost part held a journal
    # checkpoint or a store open". Here it held the definitions of Q.CKPT and K1 only.
    folder = defs_home / "qmgrs" / QK
    (folder / "qm.db-wal").unlink()
    (folder / "qm.db-shm").unlink()
    report = refused_then_salvaged(defs_home, QK, "qm.db-wal")
    assert "LOST, number not known" in report
    check_report_against_the_queues(defs_home, report)


def test_salvmqm_after_a_deleted_log_reports_messages_of_a_lost_definition_as_on_no_queue(defs_home):
    # Defect 3: "it says 'K1: 500 … now on each queue K1: 500'; after strmqm queue K1 does not exist".
    (defs_home / "qmgrs" / QK / "qm.db-wal").unlink()
    fixed = cli(defs_home, "salvmqm", QK)
    assert fixed.returncode == 0, fixed.stderr
    assert "K1" not in reported_depths(fixed.stdout)
    assert "ON NO QUEUE" in fixed.stdout and "    K1: 100 message(s)" in fixed.stdout
    check_report_against_the_queues(defs_home, fixed.stdout)
    # what the report says to do gets them back
    qm = syncpoint.connect(QK, home=defs_home)
    qm.admin("define", "QLOCAL", "K1", {})
    qm.disconnect()
    open_embedded(QK, home=defs_home).close()
    assert queue_depth(defs_home, QK, "K1") == 100


def check_report_against_the_queues(home: Path, report: str) -> None:
    """Every queue the report lists has that depth after a real start; a queue it lists as on no queue is not
    defined."""
    for queue, count in reported_depths(report).items():
        assert queue_depth(home, QK, queue) == count, queue
    for line in report.split("ON NO QUEUE", 1)[1].splitlines()[1:] if "ON NO QUEUE" in report else []:
        if not line.startswith("    "):
            break
        assert queue_depth(home, QK, line.strip().split(":")[0]) is None


def test_a_deleted_marker_file_refuses_the_start_and_salvmqm_reports_the_backout_count_not_raised(defs_home):
    # Defect 5: "A deleted in-flight file loses the BackoutCount increment of an in-flight get silently".
    (defs_home / "qmgrs" / QK / "qm.db.inflight").unlink()
    report = refused_then_salvaged(defs_home, QK, "qm.db.inflight")
    assert "not backed out with BackoutCount + 1" in report
    check_report_against_the_queues(defs_home, report)
    assert reported_depths(report)["Q.BIG"] == 12  # the got message stays, its BackoutCount not raised
    assert first_backout_count(defs_home) == 0  # as the report says


def first_backout_count(home: Path) -> int:
    """The BackoutCount of the first message of Q.BIG (the one whose get was in flight at the crash)."""
    qm = syncpoint.connect(QK, home=home)
    try:
        return int(qm.open("Q.BIG").get(syncpoint=True).backout_count)
    finally:
        qm.backout()
        qm.disconnect()
        open_embedded(QK, home=home).close()


def test_a_marker_file_deleted_after_a_clean_end_loses_nothing_and_starts(defs_home):
    assert queue_depth(defs_home, QK, "K1") == 100  # recovers the crash, then ends cleanly
    (defs_home / "qmgrs" / QK / "qm.db.inflight").unlink()
    assert queue_depth(defs_home, QK, "Q.BIG") == 12
    assert first_backout_count(defs_home) == 1  # the crash's backout was kept
