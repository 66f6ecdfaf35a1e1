"""``syncpoint amqsmon`` formats accounting and statistics messages as IBM's sample does (issue 36, item 3):
``MonitoringType: …``, one ``Name: value`` line a parameter (strings quoted, lists in brackets, ConnectionId as
x'…', QueueType by name), each group as ``QueueStatistics: 0`` with its members indented two spaces, a blank line
after each message and ``N Records Processed.`` at the end; -a / -q / -c / -i filter, -b browses, exit status 0
when a record was shown and 1 when none. Against a real server (one per module) whose workload is known."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

import syncpoint
from servers import servers_of, start_server, syncpoint_run
from syncpoint.mqi import MQMD, MQPMO
from syncpoint.mqi import constants as C


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    with servers_of(tmp_path_factory.mktemp("amqsmon")) as home:
        assert syncpoint_run(home, "crtmqm", "QMS").returncode == 0
        start_server(home, "QMS")
        qm = syncpoint.connect("QMS", home=home)
        for name in ("APP.Q", "OTHER.Q"):  # the SYSTEM.ADMIN queues are default objects
            qm.admin("define", "QLOCAL", name)
        qm.admin("alter_qmgr", {"STATMQI": "ON", "QMSTATQ": "ON", "ACCTMQI": "ON"})
        app = syncpoint.connect("QMS", home=home, appl_name="payments")
        q = app.open("APP.Q")
        q.put(b"12345", persistent=False)
        h = app.mqopen(syncpoint.mqi.MQOD(ObjectName=b"APP.Q"), C.MQOO_OUTPUT)
        app.mqput(h, MQMD(Persistence=C.MQPER_PERSISTENT), MQPMO(), b"1234567")
        app.put1("OTHER.Q", b"x")
        app.disconnect()  # its MQI accounting record
        qm.admin("reset_statistics")  # the statistics so far: one MQI message, one queue message
        qm.disconnect()
        yield home


def test_amqsmon_browses_statistics_in_ibms_layout_and_leaves_them(home: Path) -> None:
    shown = syncpoint_run(home, "amqsmon", "-m", "QMS", "-t", "statistics", "-b", "-q", "APP.Q")
    assert shown.returncode == 0, shown.stderr
    lines = shown.stdout.splitlines()
    assert lines[0] == "MonitoringType: QueueStatistics"
    assert lines[1] == "QueueManager: 'QMS'"
    assert [line.split(":")[0] for line in lines[2:8]] == [
        "IntervalStartDate",
        "IntervalStartTime",
        "IntervalEndDate",
        "IntervalEndTime",
        "CommandLevel",
        "ObjectCount",
    ]
    k = lines.index("QueueStatistics: 0")  # -q APP.Q: only its group, numbered from 0
    group = lines[k + 1 :]
    assert group[0] == "  QueueName: 'APP.Q'"
    assert "  QueueType: Local" in group and "  QueueDefinitionType: Predefined" in group
    assert "  PutCount: [1, 1]" in group and "  PutBytes: [5, 7]" in group
    assert "  QMinDepth: 0" in group and "  QMaxDepth: 2" in group
    assert not any("OTHER.Q" in line for line in lines)
    assert lines[-2:] == ["", "1 Records Processed."]
    again = syncpoint_run(home, "amqsmon", "-m", "QMS", "-t", "statistics", "-b", "-a")  # -b left them
    assert again.returncode == 0 and again.stdout.startswith("MonitoringType: MQIStatistics\n")
    assert "PutCount: [1, 1]\n" in again.stdout and "Put1Count: [1, 0]\n" in again.stdout
    assert "OpenCount: [0, " in again.stdout and again.stdout.endswith("\n\n1 Records Processed.\n")


def test_amqsmon_reads_accounting_by_connection_and_removes_what_it_shows(home: Path) -> None:
    browsed = syncpoint_run(home, "amqsmon", "-m", "QMS", "-t", "accounting", "-a", "-b", "-d", "1")
    assert browsed.returncode == 0, browsed.stderr
    lines = browsed.stdout.splitlines()  # the first record is the application's (amqsmon's own come after)
    assert lines[0] == "MonitoringType: MQIAccounting"
    assert "ApplicationName: 'payments'" in lines and "DiscType: Normal" in lines
    conn = next(line for line in lines if line.startswith("ConnectionId: x'"))
    assert len(conn) == len("ConnectionId: x''") + 48 and conn.startswith("ConnectionId: x'414d5143")  # AMQC
    assert "PutCount: [1, 1]" in lines and "Put1Count: [1, 0]" in lines
    assert lines[-1] == "1 Records Processed."  # -d 1
    conn_id = conn[len("ConnectionId: x'") : -1]
    taken = syncpoint_run(home, "amqsmon", "-m", "QMS", "-t", "accounting", "-i", conn_id)
    assert taken.returncode == 0 and taken.stdout.endswith("\n1 Records Processed.\n")
    gone = syncpoint_run(home, "amqsmon", "-m", "QMS", "-t", "accounting", "-i", conn_id)  # removed by the get
    assert gone.returncode == 1 and gone.stdout == "0 Records Processed.\n"
    none = syncpoint_run(home, "amqsmon", "-m", "QMS", "-t", "statistics", "-c")  # no channel statistics
    assert none.returncode == 1 and none.stdout == "0 Records Processed.\n"


def test_amqsmon_refuses_bad_options_with_its_usage(home: Path) -> None:
    bad_options = [
        ["-m", "QMS"],  # no -t
        ["-m", "QMS", "-t", "events"],
        ["-m", "QMS", "-t", "accounting", "-c"],  # channel records are statistics
        ["-m", "QMS", "-t", "statistics", "-a", "-q"],  # one filter at most
        ["-m", "QMS", "-t", "statistics", "-d", "x"],
    ]
    for args in bad_options:
        bad = syncpoint_run(home, "amqsmon", *args)
        assert bad.returncode == 255, (args, bad.stdout)
        assert "Usage: amqsmon" in bad.stderr and bad.stdout == ""


def test_amqsmon_chooses_records_by_their_interval_with_s_and_e(home: Path) -> None:
    later = syncpoint_run(home, "amqsmon", "-m", "QMS", "-t", "statistics", "-b", "-a", "-s", "2000-01-01 00.00.00")
    assert later.returncode == 0 and later.stdout.startswith("MonitoringType: MQIStatistics\n")
    earlier = syncpoint_run(home, "amqsmon", "-m", "QMS", "-t", "statistics", "-b", "-e", "2000-01-01 00.00.00")
    assert earlier.returncode == 1 and earlier.stdout == "0 Records Processed.\n"  # every record ends later
    bad = syncpoint_run(home, "amqsmon", "-m", "QMS", "-t", "statistics", "-s", "yesterday")
    assert bad.returncode == 255 and "YYYY-MM-DD HH.MM.SS" in bad.stderr
