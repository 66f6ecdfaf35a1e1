"""Output for scripts (issue 21, item 7: "a table's border and the next title end up on one line when piped"):
tables are plain lines when the output is not a terminal, and the flow's progress is one line per batch."""

from __future__ import annotations

import io
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from rich.console import Console
from rich.table import Table

import syncpoint.flow
from syncpoint.cli import _flow
from syncpoint.cli._output import print_table


def test_a_table_piped_is_plain_lines_and_the_next_line_starts_on_its_own() -> None:
    out = io.StringIO()
    console = Console(file=out, width=40)  # not a terminal
    table = Table(title="where every message went")
    table.add_column("message")
    table.add_column("went to")
    long = "a good order with a long description that a 40-column table would wrap"
    table.add_row(long, "DEMO.SHIPPED")
    print_table(console, table)
    console.print("NEXT TITLE")
    assert out.getvalue().splitlines() == [
        "where every message went",
        "message".ljust(len(long)) + "  went to",
        f"{long}  DEMO.SHIPPED",
        "NEXT TITLE",
    ]


def test_the_flows_progress_piped_is_one_line_per_batch_then_the_totals(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    out = io.StringIO()
    monkeypatch.setattr(_flow, "console", Console(file=out, width=80))

    def fake_run_flow(*args: Any, on_progress: Any, **kw: Any) -> Any:
        totals = SimpleNamespace(**{key: 0 for _, key in _flow._COLUMNS})
        on_progress({key: i for i, (_, key) in enumerate(_flow._COLUMNS)}, totals)
        on_progress({"batch_id": 7, "skipped": True}, totals)
        return totals

    monkeypatch.setattr(syncpoint.flow, "run_flow", fake_run_flow)
    flow = SimpleNamespace(name="orders", input=SimpleNamespace(queue="APP.IN"), output="APP.OUT")
    _flow.run_with_display(flow, None, tmp_path, master="local[1]", available_now=True, interval="1 second")
    lines = out.getvalue().splitlines()
    assert lines[0] == "flow orders: APP.IN → APP.OUT"
    assert lines[1].startswith(f"{_flow._COLUMNS[0][0]}=0  ") and "━" not in out.getvalue()
    assert lines[2] == "batch 7: replay skipped"
    assert lines[3].startswith("total  ") and len(lines) == 4
