"""The control commands as IBM defines them (issue 21, "IBM's formats and verbs" and items 1 and 7): crtmqm -q,
dltmqm of the default, dspmq -o / -s / -x, dspmqver, --version, -h, output for scripts, and dspmq / strmqm on
a queue manager a program holds embedded. Real subprocesses of the ``syncpoint`` command."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

import syncpoint
from servers import servers_of, start_server, syncpoint_run
from waiting import wait_until


@pytest.fixture
def home(tmp_path: Path) -> Iterator[Path]:
    with servers_of(tmp_path):
        yield tmp_path


def run(home: Path, *args: str, input: str | None = None) -> subprocess.CompletedProcess[str]:
    return syncpoint_run(home, *args, input=input)


# --- crtmqm -q, dltmqm, dspmq -o default -------------------------------------------------------------------
def test_crtmqm_q_makes_the_default_queue_manager_and_dspmq_o_default_shows_it(home: Path) -> None:
    # IBM crtmqm: "-q  Makes this queue manager the default"; dspmq -o default: DEFAULT(yes|no)
    assert run(home, "crtmqm", "QMA").returncode == 0
    made = run(home, "crtmqm", "-q", "QMB")
    assert made.returncode == 0, made.stderr
    lines = run(home, "dspmq", "-o", "default").stdout.splitlines()
    assert [ln.split() for ln in lines] == [["QMNAME(QMA)", "DEFAULT(no)"], ["QMNAME(QMB)", "DEFAULT(yes)"]]
    assert (home / "default_qmgr").read_text().strip() == "QMB"


def test_dltmqm_of_the_default_queue_manager_leaves_no_default(home: Path) -> None:
    assert run(home, "crtmqm", "-q", "QMB").returncode == 0
    assert run(home, "dltmqm", "QMB").returncode == 0
    assert not (home / "default_qmgr").exists()
    assert run(home, "crtmqm", "QMC").returncode == 0
    assert "DEFAULT(no)" in run(home, "dspmq", "-o", "default").stdout


# --- dspmq -o all / status / installation / standby, -s, -x ----------------------------------------------------
def test_dspmq_o_all_shows_status_default_standby_and_installation_in_ibm_order(home: Path) -> None:
    assert run(home, "crtmqm", "-q", "QM1").returncode == 0
    out = run(home, "dspmq", "-o", "all").stdout
    keys = re.findall(r"([A-Z]+)\(", out)
    assert keys == ["QMNAME", "STATUS", "DEFAULT", "STANDBY", "INSTNAME", "INSTPATH", "INSTVER"]
    assert "STATUS(Ended normally)" in out and "DEFAULT(yes)" in out and "STANDBY(Not permitted)" in out
    assert f"INSTVER({syncpoint.__version__})" in out


def test_dspmq_o_status_and_s_are_the_default_output(home: Path) -> None:
    assert run(home, "crtmqm", "QM1").returncode == 0
    plain = run(home, "dspmq").stdout
    assert plain.split() == ["QMNAME(QM1)", "STATUS(Ended normally)"] or "STATUS(Ended normally)" in plain
    assert run(home, "dspmq", "-o", "status").stdout == plain
    assert run(home, "dspmq", "-s").stdout == plain
    bad = run(home, "dspmq", "-o", "colour")
    assert bad.returncode != 0 and "colour" in bad.stderr


def test_dspmq_x_shows_the_instance_of_a_running_queue_manager(home: Path) -> None:
    # IBM dspmq -x: "    INSTANCE(hostname) MODE(Active)" under the queue manager
    assert run(home, "crtmqm", "QM1").returncode == 0
    start_server(home, "QM1")
    lines = run(home, "dspmq", "-x").stdout.splitlines()
    assert "STATUS(Running)" in lines[0]
    assert lines[1].startswith("    INSTANCE(") and "MODE(Active)" in lines[1] and "PID(" in lines[1]


# --- dspmqver --------------------------------------------------------------------------------------------------
def test_dspmqver_prints_ibms_fields_in_ibms_layout(home: Path) -> None:
    out = run(home, "dspmqver")
    assert out.returncode == 0
    fields = dict(line.split(":", 1) for line in out.stdout.splitlines())
    assert list(fields)[:3] == ["Name", "Version", "Level"]
    for key in ("BuildType", "Platform", "Mode", "O/S", "InstName", "InstDesc", "Primary", "InstPath", "DataPath"):
        assert key in fields, key
    assert fields["Version"].strip() == syncpoint.__version__
    assert fields["DataPath"].strip() == str(home)
    assert fields["MaxCmdLevel"].strip().isdigit()
    # the values start in one column, as IBM's do
    assert len({line.index(line.split(":", 1)[1].strip()) for line in out.stdout.splitlines()}) == 1


# --- item 7: --version, -h, no <bool>, no wrapping, plain when piped ----------------------------------------------
def test_version_option_and_h_as_well_as_help(home: Path) -> None:
    version = run(home, "--version")
    assert version.returncode == 0 and version.stdout.strip() == f"syncpoint {syncpoint.__version__}"
    for args in (["-h"], ["--help"], ["strmqm", "-h"], ["flow", "-h"]):
        out = run(home, *args)
        assert out.returncode == 0 and out.stdout.startswith("Usage: "), (args, out.stderr)


COMMANDS = ["crtmqm", "dltmqm", "dspmq", "dspmqver", "strmqm", "endmqm", "runmqsc", "amqsput", "amqsget"]
COMMANDS += ["amqsbcg", "runmqtrm", "runmqdlq", "passwd", "salvmqm", "dspmqini", "setmqini"]


@pytest.mark.parametrize("command", COMMANDS)
def test_help_names_values_without_type_placeholders(home: Path, command: str) -> None:
    # typer printed "-i <bool>" (a flag takes no value) and "<str>", "<list[str]>" for values
    out = run(home, command, "-h")
    assert out.returncode == 0, out.stderr
    assert "<bool>" not in out.stdout and "<str>" not in out.stdout and "<list" not in out.stdout, out.stdout


def test_an_error_message_is_one_line_when_redirected(home: Path) -> None:
    # issue 21, item 7: error lines were hard-wrapped at 80 columns when output was redirected (breaks grep)
    name = "A" * 30 + " NOT VALID " + "B" * 30
    out = run(home, "crtmqm", name)
    assert out.returncode == 72
    lines = out.stderr.splitlines()
    assert len(lines) == 1 and name in lines[0] and len(lines[0]) > 80


def test_usage_errors_and_tables_are_plain_text_when_piped(home: Path) -> None:
    # "a table's border and the next title end up on one line when piped": no box drawing when not a terminal
    usage = run(home, "crtmqm")
    assert usage.returncode != 0
    assert "Missing argument" in usage.stderr and not any(ch in usage.stderr for ch in "╭│╰─")
    demo = run(home, "demo")
    assert demo.returncode == 0, demo.stderr
    assert not any(ch in demo.stdout for ch in "┏┃┡│└━─")
    rows = [ln for ln in demo.stdout.splitlines() if ln[:1].isdigit()]
    assert len(rows) == 5 and rows[4].startswith("5 ") and "order 2, order 3, order 4" in rows[4]


# --- item 1: a queue manager held embedded by a program ----------------------------------------------------------
HOLDER = textwrap.dedent(
    """
    import sys, syncpoint
    qm = syncpoint.connect("QM1")  # no server runs: the queue manager runs in this process
    print("holding", flush=True)
    sys.stdin.read()
    qm.disconnect()
    """
)


def test_dspmq_strmqm_and_the_tools_name_a_program_that_holds_the_queue_manager_embedded(home: Path) -> None:
    # issue 21, item 1: "While a Python program holds a queue manager embedded, dspmq says Ended normally and
    # strmqm fails" — dspmq reports it truthfully; strmqm's refusal names the holder
    assert run(home, "crtmqm", "QM1").returncode == 0
    env = dict(os.environ, SYNCPOINT_HOME=str(home))
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER], stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env, text=True
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "holding"
        status = run(home, "dspmq", "-m", "QM1", "-x")
        assert "STATUS(Running embedded)" in status.stdout
        assert f"MODE(Embedded) PID({holder.pid})" in status.stdout
        started = run(home, "strmqm", "QM1", "--no-tcp")
        assert started.returncode == 5
        assert "AMQ5051E" in started.stderr and f"process {holder.pid}" in started.stderr
        put = run(home, "amqsput", "SYSTEM.DEFAULT.LOCAL.QUEUE", "QM1", input="x\n")
        assert "reason code 2059" in put.stderr and f"embedded in process {holder.pid}" in put.stderr
        deleted = run(home, "dltmqm", "QM1")
        assert deleted.returncode == 5 and f"process {holder.pid}" in deleted.stderr
    finally:
        holder.communicate("", timeout=60)
    wait_until(lambda: "STATUS(Ended normally)" in run(home, "dspmq", "-m", "QM1").stdout, "the holder ended")
