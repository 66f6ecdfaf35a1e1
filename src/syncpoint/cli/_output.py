"""Output for terminals and for scripts (issue 21, item 7): a table is framed on a terminal; for a pipe or a file it
is plain lines, never wrapped, with no border to run into the next line."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table


def print_table(console: Console, table: Table) -> None:
    """``table`` on ``console``: framed on a terminal; otherwise the title, then one line per row with the columns
    separated by two spaces (grep and awk read it)."""
    if console.is_terminal:
        console.print(table)
        return
    cells = [[str(c.header) for c in table.columns]]
    cells += [[str(v) for v in row] for row in zip(*(list(c.cells) for c in table.columns), strict=True)]
    widths = [max(len(r[i]) for r in cells) for i in range(len(table.columns))]
    if table.title:
        console.print(str(table.title), markup=False, soft_wrap=True)
    for r in cells:
        console.print(
            "  ".join(v.ljust(w) for v, w in zip(r, widths, strict=True)).rstrip(), markup=False, soft_wrap=True
        )
