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
    home = tmp_path_factory.mktemp("crashed")
    create_queue_manager(QM, home=home)
    qm = syncpoint.connect(QM, home=home)
    for name in ("Q.A", "Q.B"):
        qm.admin("define", "QLOCAL", name, {"DEFPSIST": C.MQPER_PERSISTENT})
    qm.disconnect()
    open_embedded(QM, home=home).close()
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, QM, str(home)],
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
    copy = tmp_path / "home"
    shutil.copytree(crashed, copy)
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
    assert report.depths == expected
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
    assert report.depths == {"Q.A": 250, "Q.B": 250}
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
