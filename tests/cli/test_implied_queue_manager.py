"""The queue manager runmqtrm and runmqdlq mean when none is named: the default queue manager (``crtmqm -q``),
else the only one under $SYNCPOINT_HOME; with none or several (and no default) each says so and does not start.
IBM's runmqtrm and runmqdlq use the default queue manager when -m / INPUTQM is blank. Both tools find it with one
function (``cli._connect.implied_queue_manager``), which dspmq's list shares (``queue_managers``). Real
subprocesses of the ``syncpoint`` command; no queue manager is started, so the chosen one is seen in the 2059
(MQRC_Q_MGR_NOT_AVAILABLE) each tool reports for it.
"""

from __future__ import annotations

from pathlib import Path

from servers import syncpoint_run

RULES = "ACTION(RETRY)\n"  # a valid rules table: runmqdlq reads it before it connects


def _tools(home: Path) -> tuple[str, str]:
    """What runmqtrm and runmqdlq, started without a queue manager's name, say."""
    trm = syncpoint_run(home, "runmqtrm")
    dlq = syncpoint_run(home, "runmqdlq", input=RULES)
    assert trm.returncode != 0 and dlq.returncode != 0, "neither may start: no queue manager runs"
    return trm.stdout + trm.stderr, dlq.stdout + dlq.stderr


def test_with_no_queue_manager_both_tools_say_none_exists(tmp_path: Path) -> None:
    trm, dlq = _tools(tmp_path)
    assert "No queue manager exists under" in trm and "syncpoint crtmqm" in trm
    assert "No queue manager exists under" in dlq and "syncpoint crtmqm" in dlq


def test_the_only_queue_manager_is_the_one_both_tools_mean(tmp_path: Path) -> None:
    assert syncpoint_run(tmp_path, "crtmqm", "QMONE").returncode == 0
    trm, dlq = _tools(tmp_path)
    assert "QMONE" in trm and "2059" in trm
    assert "QMONE" in dlq and "2059" in dlq


def test_with_several_and_no_default_each_tool_asks_for_a_name_in_its_own_words(tmp_path: Path) -> None:
    assert syncpoint_run(tmp_path, "crtmqm", "QMA").returncode == 0
    assert syncpoint_run(tmp_path, "crtmqm", "QMB").returncode == 0
    trm, dlq = _tools(tmp_path)
    assert "2 queue managers exist under" in trm and "name one with -m" in trm
    assert "2 queue managers exist under" in dlq and "name one (INPUTQM or the second argument)" in dlq


def test_the_default_queue_manager_wins_over_the_others(tmp_path: Path) -> None:
    assert syncpoint_run(tmp_path, "crtmqm", "QMA").returncode == 0
    assert syncpoint_run(tmp_path, "crtmqm", "-q", "QMB").returncode == 0  # IBM: -q makes it the default
    trm, dlq = _tools(tmp_path)
    assert "queue manager QMB" in trm and "QMA" not in trm
    assert "queue manager QMB" in dlq and "QMA" not in dlq
