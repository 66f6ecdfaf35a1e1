"""A real PostgreSQL server for the tests: the machine's own binaries, a data folder in a temp dir, a Unix socket.

Theory of operation
-------------------
:func:`find_bindir` looks for ``initdb`` and ``postgres``: ``$SYNCPOINT_PG_BINDIR``, then ``PATH``, then
``pg_config --bindir``, then ``/usr/lib/postgresql/<version>/bin`` (newest first). Missing binaries are a
failure with a sentence saying what to install, never a silent skip (issue 20, item 8).

PostgreSQL refuses to run as root. When the tests run as root (CI does), :class:`PostgresServer` runs
``initdb`` and ``postgres`` as an unprivileged user — ``$SYNCPOINT_PG_USER``, else ``postgres`` if the machine
has one, else ``syncpoint-pg``, created with ``useradd`` when missing — and gives that user the temp dir. The
server listens on a Unix socket in the temp dir only (``listen_addresses=''``), trusts local connections and
runs with ``fsync=off``: the tests kill members, never the server or the machine. One server serves the whole
test session; each test gets its own database (:meth:`PostgresServer.new_database`), so tests cannot see each
other's groups.
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path

DEFAULT_USER = "syncpoint-pg"
ROLE = "syncpoint"  # the database superuser initdb creates; the tests connect as it


class PostgresUnavailable(RuntimeError):
    """The PostgreSQL server binaries cannot be found or started; the message says what to install or fix."""


def find_bindir() -> Path:
    """The folder holding PostgreSQL's ``initdb`` and ``postgres`` (see the module doc for the search order)."""
    candidates: list[Path] = []
    if env := os.environ.get("SYNCPOINT_PG_BINDIR"):
        candidates.append(Path(env))
    if found := shutil.which("initdb"):
        candidates.append(Path(os.path.realpath(found)).parent)
    if pg_config := shutil.which("pg_config"):
        try:
            out = subprocess.run([pg_config, "--bindir"], capture_output=True, text=True, timeout=30, check=True)
            candidates.append(Path(out.stdout.strip()))
        except (OSError, subprocess.SubprocessError):
            pass
    candidates += [Path(p) for p in sorted(glob.glob("/usr/lib/postgresql/*/bin"), reverse=True)]
    for folder in candidates:
        if (folder / "initdb").is_file() and (folder / "postgres").is_file():
            return folder
    raise PostgresUnavailable(
        "The PostgreSQL server binaries (initdb, postgres) were not found on PATH, by pg_config, in "
        "/usr/lib/postgresql/*/bin or in $SYNCPOINT_PG_BINDIR. The queue-sharing-group tests need a real "
        "PostgreSQL 15 or later: install its server package (Debian: postgresql-15) or set SYNCPOINT_PG_BINDIR."
    )


def _server_user() -> pwd.struct_passwd | None:
    """The unprivileged user to run PostgreSQL as, when this process is root (None otherwise)."""
    if os.geteuid() != 0:
        return None
    name = os.environ.get("SYNCPOINT_PG_USER")
    names = [name] if name else ["postgres", DEFAULT_USER]
    for candidate in names:
        try:
            return pwd.getpwnam(candidate)
        except KeyError:
            continue
    user = name or DEFAULT_USER
    try:
        subprocess.run(
            ["useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", user],
            capture_output=True,
            check=True,
            timeout=60,
        )
        return pwd.getpwnam(user)
    except (OSError, subprocess.SubprocessError, KeyError) as e:
        try:  # another pytest-xdist worker created it at the same moment (useradd then fails: "already exists")
            return pwd.getpwnam(user)
        except KeyError:
            pass
        raise PostgresUnavailable(
            f"PostgreSQL refuses to run as root, and the user {user!r} to run it as could not be created ({e}). "
            "Create an unprivileged user and name it in $SYNCPOINT_PG_USER."
        ) from None


class PostgresServer:
    """One PostgreSQL server in a temp dir, reached on a Unix socket; :meth:`stop` removes everything."""

    def __init__(self, bindir: Path | None = None, durable: bool = False) -> None:
        self.bindir = bindir or find_bindir()
        self.durable = durable  # fsync on, as a production server (benchmarks); the tests run with it off
        self.user = _server_user()
        self.dir = Path(tempfile.mkdtemp(prefix="syncpoint-pg-"))
        self.data = self.dir / "data"
        self.socket_dir = self.dir
        self.port = 5432
        self.process: subprocess.Popen[bytes] | None = None
        self._databases = 0
        if self.user is not None:
            os.chown(self.dir, self.user.pw_uid, self.user.pw_gid)
        os.chmod(self.dir, 0o755)  # the tests' process (root or not) reaches the socket in it

    def _run_as(self) -> dict[str, object]:
        if self.user is None:
            return {}
        return {"user": self.user.pw_uid, "group": self.user.pw_gid, "extra_groups": []}

    def start(self) -> PostgresServer:
        log = self.dir / "initdb.log"
        with log.open("wb") as out:
            done = subprocess.run(
                [str(self.bindir / "initdb"), "-D", str(self.data), "-U", ROLE, "--auth=trust", "-E", "UTF8"],
                stdout=out,
                stderr=subprocess.STDOUT,
                cwd=self.dir,
                timeout=300,
                **self._run_as(),  # type: ignore[arg-type]
            )
        if done.returncode != 0:
            raise PostgresUnavailable(f"initdb failed (exit status {done.returncode}): {log.read_text()[-2000:]}")
        return self.start_server()

    def start_server(self) -> PostgresServer:
        """Start ``postgres`` on the data folder and wait until it accepts connections."""
        settings = {
            "listen_addresses": "",
            "unix_socket_directories": str(self.socket_dir),
            "port": str(self.port),
            "fsync": "on" if self.durable else "off",
            "full_page_writes": "on" if self.durable else "off",
            "max_connections": "300",
            "max_prepared_transactions": "100",
            "shared_buffers": "64MB",
        }
        args = [str(self.bindir / "postgres"), "-D", str(self.data)]
        for key, value in settings.items():
            args += ["-c", f"{key}={value}"]
        self.server_log = self.dir / "postgres.log"
        self._log = self.server_log.open("ab")
        self.process = subprocess.Popen(
            args,
            stdout=self._log,
            stderr=subprocess.STDOUT,
            cwd=self.dir,
            start_new_session=True,
            **self._run_as(),  # type: ignore[arg-type]
        )
        deadline = time.monotonic() + 120
        while not self._ready():
            if self.process.poll() is not None:
                raise PostgresUnavailable(
                    f"postgres ended at start (exit status {self.process.returncode}): "
                    f"{self.server_log.read_text()[-2000:]}"
                )
            if time.monotonic() > deadline:
                self.stop()
                raise PostgresUnavailable("postgres did not accept connections within 120 s")
            time.sleep(0.05)
        return self

    def restart(self) -> None:
        """Stop the server (fast shutdown: every connection is cut) and start it again on the same data."""
        assert self.process is not None
        self.process.send_signal(signal.SIGINT)
        self.process.wait(60)
        self._log.close()
        self.start_server()

    def _ready(self) -> bool:
        import psycopg

        try:
            with psycopg.connect(self.url("postgres"), connect_timeout=5):
                return True
        except psycopg.OperationalError:
            return False

    def url(self, database: str = "postgres") -> str:
        """A libpq connection URI for ``database`` on this server's Unix socket."""
        return f"postgresql://{ROLE}@/{database}?host={self.socket_dir}&port={self.port}"

    def new_database(self, prefix: str = "t") -> str:
        """Create a fresh, empty database and return its connection URI."""
        import psycopg

        self._databases += 1
        name = f"{prefix}{os.getpid()}_{self._databases}"
        with psycopg.connect(self.url("postgres"), autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)  # fast shutdown
            try:
                self.process.wait(60)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        if self.process is not None:
            self._log.close()
        shutil.rmtree(self.dir, ignore_errors=True)
