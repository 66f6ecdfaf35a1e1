"""Where queue managers live: ``$SYNCPOINT_HOME`` (default ``~/.syncpoint``), one folder per queue manager.

Everything under it is private to its owner, as IBM MQ's data directories are to mqm: the home, ``qmgrs/`` and
each queue manager's folder (with every folder in it) are 0700, every file 0600. The files hold message bodies and
password hashes, and the folders' names say which queue managers exist.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

PRIVATE_DIR = 0o700
PRIVATE_FILE = 0o600


def home(override: str | os.PathLike[str] | None = None) -> Path:
    if override is not None:
        return Path(override)
    env = os.environ.get("SYNCPOINT_HOME")
    return Path(env) if env else Path.home() / ".syncpoint"


def qmgr_dir(name: str, override: str | os.PathLike[str] | None = None) -> Path:
    return home(override) / "qmgrs" / name


def qmgr_db(name: str, override: str | os.PathLike[str] | None = None) -> Path:
    return qmgr_dir(name, override) / "qm.db"


_STORE_FILES = ("qm.db.journal", "qm.db.inflight", "qm.db.lock", "qm.db-wal", "qm.db-shm")


def missing_store(name: str, override: str | os.PathLike[str] | None = None) -> str | None:
    """The message for a queue manager whose folder is there but whose store (``qm.db``) is gone (deleted or moved
    away), or None when the queue manager does not exist at all (or its store is there)."""
    folder = qmgr_dir(name, override)
    db = folder / "qm.db"
    if db.exists() or not any((folder / other).exists() for other in _STORE_FILES):
        return None
    return (
        f"AMQ7017E: the store {db} of queue manager {name} is missing: its folder {folder} and the store's "
        "other files are still there, but the database holding its definitions and messages is not. Put qm.db "
        f"back from where it was moved, or restore the folder {folder} from a backup (qm.db together with the "
        "qm.db.journal and qm.db.inflight of the same moment); then run 'syncpoint salvmqm "
        f"{name}' if strmqm still reports damage. Without it the queue manager cannot be salvaged: "
        f"'syncpoint dltmqm {name}' and 'syncpoint crtmqm {name}' start it anew, empty."
    )


def make_private_dirs(path: Path) -> None:
    """Create ``path`` and its missing parents 0700 (an explicit mode: the umask can only make it narrower, and
    the process's umask is left alone)."""
    missing = []
    while not path.exists():
        missing.append(path)
        if path.parent == path:
            break
        path = path.parent
    for folder in reversed(missing):
        try:
            os.mkdir(folder, PRIVATE_DIR)
        except FileExistsError:
            continue
        os.chmod(folder, PRIVATE_DIR)


def create_qmgr_dir(name: str, override: str | os.PathLike[str] | None = None) -> Path:
    """crtmqm: the queue manager's folder (and the home and ``qmgrs/`` when missing), each 0700."""
    folder = qmgr_dir(name, override)
    make_private_dirs(folder)
    return folder


def make_private(name: str, override: str | os.PathLike[str] | None = None) -> list[str]:
    """At the start of a queue manager: take group and other permissions away from the home, ``qmgrs/`` and every
    folder and file under the queue manager's folder (folders 0700, files 0600; symbolic links are not followed).
    Returns one notice per path changed, "path: 0755 -> 0700"."""
    root = home(override)
    folder = qmgr_dir(name, override)
    paths = [root, root / "qmgrs", folder]
    for parent, dirs, files in os.walk(folder):
        paths.extend(Path(parent, entry) for entry in dirs + files)
    notices = []
    for path in paths:
        try:
            mode = os.lstat(path).st_mode
        except FileNotFoundError:
            continue
        if stat.S_ISLNK(mode) or not mode & 0o077:
            continue
        wanted = PRIVATE_DIR if stat.S_ISDIR(mode) else PRIVATE_FILE
        try:
            os.chmod(path, wanted)
        except OSError as exc:
            notices.append(f"{path}: {stat.S_IMODE(mode):04o} could not be made {wanted:04o} ({exc.strerror})")
            continue
        notices.append(f"{path}: {stat.S_IMODE(mode):04o} -> {wanted:04o}")
    return notices


def private_notice(name: str, notices: list[str]) -> str:
    """The notice shown when :func:`make_private` changed something: a sentence, then one line per path."""
    return "\n".join(
        [
            f"The files of queue manager {name} were readable by other users; they are now private to their "
            "owner, as crtmqm creates them:",
            *(f"  {notice}" for notice in notices),
        ]
    )


DEFAULT_QMGR_FILE = "default_qmgr"


def default_queue_manager(override: str | os.PathLike[str] | None = None) -> str | None:
    """The default queue manager (IBM keeps it in mqs.ini, set by ``crtmqm -q``): its name, or None when there is
    none or it no longer exists. Commands that take an optional queue-manager name (runmqsc, the samples) use it."""
    try:
        name = (home(override) / DEFAULT_QMGR_FILE).read_text(encoding="utf-8").strip()
    except (FileNotFoundError, NotADirectoryError):
        return None
    return name if name and qmgr_dir(name, override).is_dir() else None


def set_default_queue_manager(name: str | None, override: str | os.PathLike[str] | None = None) -> None:
    """Make ``name`` the default queue manager (``crtmqm -q``), or clear the default (None; dltmqm of the default)."""
    path = home(override) / DEFAULT_QMGR_FILE
    if name is None:
        path.unlink(missing_ok=True)
        return
    make_private_dirs(path.parent)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, PRIVATE_FILE)
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        out.write(name + "\n")
