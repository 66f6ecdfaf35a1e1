"""Where queue managers live: ``$SYNCPOINT_HOME`` (default ``~/.syncpoint``), one folder per queue manager."""

from __future__ import annotations

import os
from pathlib import Path


def home(override: str | os.PathLike[str] | None = None) -> Path:
    if override is not None:
        return Path(override)
    env = os.environ.get("SYNCPOINT_HOME")
    return Path(env) if env else Path.home() / ".syncpoint"


def qmgr_dir(name: str, override: str | os.PathLike[str] | None = None) -> Path:
    return home(override) / "qmgrs" / name


def qmgr_db(name: str, override: str | os.PathLike[str] | None = None) -> Path:
    return qmgr_dir(name, override) / "qm.db"
