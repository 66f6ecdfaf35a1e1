"""``syncpoint compat install ibmmq|pymqi``: run unmodified ibmmq / pymqi programs on syncpoint.

Implements: reference/ibmmq-compat.md.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

compat_app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    help="Install IBM's ibmmq or pymqi Python layer over syncpoint (no IBM MQ client needed).",
)


@compat_app.command("install")
def install_cmd(
    package: Annotated[str, typer.Argument(help="ibmmq or pymqi")],
    version: Annotated[str | None, typer.Option("--version", help="default: ibmmq 2.1.2, pymqi 1.12.13")] = None,
    target: Annotated[Path | None, typer.Option("--target", help="install folder (default: site-packages)")] = None,
    cache: Annotated[Path | None, typer.Option("--cache-dir", help="where downloaded sdists are kept")] = None,
    force: Annotated[bool, typer.Option("--force", help="replace a copy not installed by syncpoint")] = False,
) -> None:
    """Download the library's sdist with pip and install its Python files with syncpoint's backend as its C
    extension (never compiled). Uninstall with ``pip uninstall ibmmq`` (or ``pymqi``)."""
    from syncpoint.compat import InstallError, install

    try:
        report = install(package, version, target=target, cache=cache, force=force)
    except InstallError as e:
        typer.echo(f"syncpoint compat install: {e}", err=True)
        raise typer.Exit(20) from None
    for line in report.lines():
        typer.echo(line)


def register(app: typer.Typer) -> None:
    app.add_typer(compat_app, name="compat")
