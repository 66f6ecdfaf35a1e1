"""salvmqm: salvage a queue manager whose store refused to start with AMQ7017E (a damaged journal or log).

IBM MQ recovers damaged objects from media images in its linear log (rcdmqimg / rcrmqobj); syncpoint keeps no
media images, so its recovery command salvages instead: it keeps every message that is still valid, sets the
damaged files aside and reports, per queue, what was recovered and what was lost (docs/security.md, "A damaged
store"). The name follows crtmqm / strmqm / dltmqm.
"""

from __future__ import annotations

from typing import Annotated

import typer
from rich.console import Console

from syncpoint import _home
from syncpoint.store import SalvageReport, StoreError, salvage

console = Console(highlight=False, soft_wrap=True)
err = Console(stderr=True, highlight=False, soft_wrap=True)


def salvmqm(qmgr: Annotated[str, typer.Argument(help="queue manager name (stopped)")]) -> None:
    """Salvage a damaged queue manager: keep every valid message, set the damaged files aside, report the loss."""
    db = _home.qmgr_db(qmgr)
    if not db.exists():
        missing = _home.missing_store(qmgr)
        err.print(missing or f"AMQ7048E: queue manager {qmgr} does not exist.")
        raise typer.Exit(20 if missing else 16)
    try:
        report = salvage(db)
    except StoreError as e:
        err.print(f"Queue manager {qmgr} could not be salvaged: {e}")
        raise typer.Exit(20) from None
    for line in report_lines(qmgr, report):
        console.print(line)


def report_lines(qmgr: str, report: SalvageReport) -> list[str]:
    """The salvage report, as salvmqm prints it."""
    lines = [f"Salvage of queue manager {qmgr} ({report.path}):"]
    if not report.damage:
        lines.append("  no damage found; nothing was lost.")
    for damage in report.damage:
        lines.append(f"  damaged: {damage}")
    for title, counts in (
        ("recovered from the journal", report.recovered),
        ("LOST (put in a damaged journal record)", report.lost),
        ("back on their queue (got in a damaged journal record: may be delivered again)", report.undone_gets),
    ):
        if counts:
            lines.append(f"  {title}:")
            lines.extend(f"    {queue}: {count} message(s)" for queue, count in counts.items())
    if report.read_from_database >= 0:
        lines.append(f"  read from the damaged database into a new one: {report.read_from_database} message(s)")
    for what in report.uncounted:
        lines.append(f"  LOST, number not known: {what}")
    for path in report.set_aside:
        lines.append(f"  kept for inspection: {path}")
    lines.append("  persistent messages now on each queue:")
    lines.extend(f"    {queue}: {count}" for queue, count in report.depths.items())
    if not report.depths:
        lines.append("    (none)")
    if report.undefined:
        lines.append(
            "  ON NO QUEUE (their queue's definition was lost; DEFINE QLOCAL again and restart the queue manager "
            "to get them back):"
        )
        lines.extend(f"    {queue}: {count} message(s)" for queue, count in report.undefined.items())
    lines.append(
        "Salvage complete; nothing was lost." if report.complete else "Salvage complete; see above what was lost."
    )
    lines.append(f"Start the queue manager with 'syncpoint strmqm {qmgr}'.")
    return lines


def register(app: typer.Typer) -> None:
    app.command()(salvmqm)
