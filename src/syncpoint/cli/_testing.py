"""Queue managers for test suites: what the pytest plugin's fixtures start and end (``syncpoint.cli.pytest_plugin``).

* :func:`embedded` — a queue manager in a fresh home, run inside the test's process.
* :func:`serve` — a queue manager whose real server (``strmqm``'s process) listens on a free TCP port of
  127.0.0.1, with what an ibmmq / pymqi program needs: host, port, channel, user, password.
* :func:`serve_group` — the members of a queue-sharing group on a PostgreSQL database, each served.

Every server started here is in :data:`STARTED` until it is ended; :func:`end_all` ends what is left (the plugin
calls it when the session ends), and each server also ends by itself when the process that started it ends
(``--end-with-parent``), so no test run leaves one behind, whatever ended it.

Implements: issue 38 (a queue manager in every test suite); IBM's developer configuration (the users app and
admin, DEV.APP.SVRCONN, DEV.ADMIN.SVRCONN).
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from syncpoint import _home

from ._autoconfig import DEV_ADMIN_CHANNEL, DEV_APP_CHANNEL

DEFAULT_PASSWORD = "passw0rd"  # the password of IBM's developer users in its container's early images
PLAIN_CHANNEL = "SYSTEM.DEF.SVRCONN"
OPTIONS = ("name", "mqsc", "dev", "dlq", "port", "password", "members", "qsg")


@dataclass(frozen=True)
class Config:
    """How a fixture's queue manager is made: from the ``mq_config`` marker or the fixture's parameter."""

    name: str = "QM1"
    mqsc: str | None = None  # an MQSC file or folder (crtmqm -ic): run at creation and at every start
    dev: bool = True  # IBM's developer configuration: DEV.QUEUE.1-3, DEV.DEAD.LETTER.QUEUE, users app and admin
    dlq: str | None = None  # crtmqm -u: a dead-letter queue created and set as DEADQ
    port: int = 0  # 0: a free port
    password: str = DEFAULT_PASSWORD  # of the users app and admin (served, with dev)
    members: int = 2  # queue-sharing groups
    qsg: str = "QSG1"

    @classmethod
    def of(cls, *sources: dict[str, Any] | None) -> Config:
        """The configuration the sources give (later ones win); ValueError naming an unknown option."""
        values: dict[str, Any] = {}
        for source in sources:
            for key, value in (source or {}).items():
                if key not in OPTIONS:
                    raise ValueError(f"mq_config: {key!r} is not an option; the options are {', '.join(OPTIONS)}")
                values[key] = str(value) if key == "mqsc" and value is not None else value
        return cls(**values)


class EmbeddedMQ:
    """A queue manager run inside this process, in its own home: :meth:`connect` as often as needed."""

    def __init__(self, name: str, home: Path) -> None:
        self.name = name
        self.home = home
        self._connections: list[Any] = []

    def connect(self, **kw: Any) -> Any:
        """A connection (``syncpoint.QueueManager``) to this queue manager; disconnected at the test's end."""
        import syncpoint

        qm = syncpoint.connect(self.name, home=self.home, **kw)
        self._connections.append(qm)
        return qm

    def close(self) -> None:
        """Disconnect what :meth:`connect` gave and end the queue manager (units of work in flight back out)."""
        from syncpoint.client import open_embedded

        for qm in self._connections:
            try:
                qm.disconnect()
            except Exception:
                pass
        self._connections.clear()
        try:
            open_embedded(self.name, home=self.home).close(abnormal=True)
        except Exception:
            pass


@dataclass
class ServedMQ:
    """A queue manager served on TCP by its own process (``strmqm``'s), and how a client reaches it."""

    name: str
    home: Path
    host: str
    port: int
    pid: int
    channel: str
    user: str | None
    password: str | None
    admin_user: str | None = None
    admin_password: str | None = None
    admin_channel: str = PLAIN_CHANNEL
    process: subprocess.Popen[bytes] | None = field(default=None, repr=False)

    @property
    def conname(self) -> str:
        """IBM's CONNAME: ``127.0.0.1(PORT)``."""
        return f"{self.host}({self.port})"

    @property
    def mqserver(self) -> str:
        """IBM's MQSERVER variable: ``CHANNEL/TCP/HOST(PORT)``."""
        return f"{self.channel}/TCP/{self.conname}"

    def connect(self, **kw: Any) -> Any:
        """A syncpoint connection over TCP, as the application user on its channel (as the administrator on the
        administration channel when ``user`` is the administrator)."""
        import syncpoint

        kw.setdefault("user", self.user)
        kw.setdefault("password", self.password)
        admin = self.admin_user is not None and kw["user"] == self.admin_user
        kw.setdefault("channel", self.admin_channel if admin else self.channel)
        return syncpoint.connect(self.name, host=self.conname, **kw)

    def end(self) -> None:
        """endmqm -i (then by signal): the queue manager has ended when this returns."""
        from ._process import end_server

        end_server(self.name, home=self.home)
        if self.process is not None:
            self.process.wait()
        STARTED.pop(self.pid, None)


STARTED: dict[int, ServedMQ] = {}


def embedded(home: Path, config: Config) -> EmbeddedMQ:
    """A new queue manager in ``home`` (created there), configured, run inside this process."""
    from syncpoint.client import create_queue_manager

    create_queue_manager(config.name, dlq=config.dlq, home=home)
    mq = EmbeddedMQ(config.name, home)
    if config.dev or config.mqsc:
        from ._autoconfig import ConfigError, configure

        qm = mq.connect(appl_name="syncpoint autoconfig")
        try:
            configure(qm, config.mqsc or "", _raise_on_failure(config), config.dev)
        except ConfigError as e:
            mq.close()
            raise RuntimeError("\n".join(["the queue manager's MQSC configuration has errors:", *e.lines])) from None
    return mq


def _raise_on_failure(config: Config) -> Any:
    def write(line: str) -> None:
        raise RuntimeError(f"queue manager {config.name}: a command of its configuration failed: {line}")

    return write


def port_in_use(host: str, port: int) -> bool:
    """Whether TCP ``port`` of ``host`` cannot be listened on now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        try:
            s.bind((host, port))
        except OSError:
            return True
    return False


def _users(qdir: Path, config: Config) -> None:
    from syncpoint.server import Users

    users = Users(qdir / "users.json")
    users.set_password("app", config.password)
    users.set_password("admin", config.password)


def serve(home: Path, config: Config, *, create: bool = True, timeout: float = 60.0) -> ServedMQ:
    """A new queue manager in ``home`` with its server on 127.0.0.1 (a free port unless ``config.port``): running
    when this returns. RuntimeError naming the port when it is taken, or what the server said when it did not
    start (an MQSC syntax error: the file, the line and IBM's message)."""
    from ._process import StartError, spawn_server

    host = "127.0.0.1"
    if config.port and port_in_use(host, config.port):
        raise RuntimeError(
            f"queue manager {config.name} cannot be served on port {config.port} of {host}: the port is in use "
            "(mq_config(port=0) takes a free one)"
        )
    if create:
        from syncpoint.client import create_queue_manager

        create_queue_manager(config.name, dlq=config.dlq, home=home)
    qdir = _home.qmgr_dir(config.name, home)
    if config.dev:
        _users(qdir, config)
    args = [config.name, "--home", str(home), "--host", host, "--port", str(config.port)]
    # a test's server shares the machine: no CPU of its own, no busy polling
    args += ["--cpus", "all", "--no-busy-poll", "--end-with-parent"]
    if config.mqsc:
        args += ["--mqsc-config", str(Path(config.mqsc).resolve())]
    if config.dev:
        args.append("--dev")
    try:
        proc, info = spawn_server(config.name, args, home=home, timeout=timeout)
    except StartError as e:
        raise RuntimeError(f"queue manager {config.name} did not start:\n{e.message}") from None
    mq = ServedMQ(
        name=config.name,
        home=home,
        host=host,
        port=int(info["port"]),
        pid=proc.pid,
        channel=DEV_APP_CHANNEL if config.dev else PLAIN_CHANNEL,
        user="app" if config.dev else None,
        password=config.password if config.dev else None,
        admin_user="admin" if config.dev else None,
        admin_password=config.password if config.dev else None,
        admin_channel=DEV_ADMIN_CHANNEL if config.dev else PLAIN_CHANNEL,
        process=proc,
    )
    STARTED[proc.pid] = mq
    if config.dev:
        _grant_test_queues(mq)
    else:
        open_plain_channel(mq)
    return mq


PLAIN_CHANNEL_RULES = (
    f"SET CHLAUTH('{PLAIN_CHANNEL}') TYPE(ADDRESSMAP) ADDRESS('127.*') USERSRC(CHANNEL) "
    "DESCR('syncpoint test server: clients of this machine') ACTION(REPLACE)",
    f"SET CHLAUTH('{PLAIN_CHANNEL}') TYPE(BLOCKUSER) USERLIST('nobody') "
    "DESCR('syncpoint test server: administrators allowed') ACTION(REPLACE)",
)


def open_plain_channel(mq: ServedMQ) -> None:
    """A test's queue manager without the developer configuration asks for no password: its clients on this
    machine connect on SYSTEM.DEF.SVRCONN as the user they assert, administrators too. IBM's default channel
    authentication rules block that channel and administrators, so two records on it allow it from loopback (127.*)
    (docs/testing.md). Set over the Unix socket (a local administrator)."""
    import syncpoint
    from syncpoint.mqsc import MqscProcessor

    qm = syncpoint.connect(mq.name, home=mq.home, appl_name="syncpoint test server")
    try:
        processor = MqscProcessor(qm, echo=False)
        for command in PLAIN_CHANNEL_RULES:
            response = processor.execute(command)
            if not response.ok:
                raise RuntimeError(f"queue manager {mq.name}: {command}: {' '.join(response.lines)}")
    finally:
        qm.disconnect()


TEST_QUEUE_AUTHORITIES = ["browse", "get", "inq", "put"]


def _grant_test_queues(mq: ServedMQ) -> None:
    """A test's queue manager is its application's: the developer configuration's group app may put, get,
    browse and inquire on every queue (profile ``**``), not only DEV.**, so a test's own queues (``mq_config(mqsc=
    ...)``) need no grants of their own. IBM's developer container grants DEV.** only; runmqdevserver does the same
    (docs/security.md)."""
    qm = mq.connect(user=mq.admin_user, password=mq.admin_password, channel=mq.admin_channel)
    try:
        qm.admin("set_authrec", "queue", "**", "group", "app", TEST_QUEUE_AUTHORITIES)
    finally:
        qm.disconnect()


def serve_group(home: Path, config: Config, url: str) -> list[ServedMQ]:
    """``config.members`` members QM1, QM2 … (``config.name`` + number) of queue-sharing group ``config.qsg`` on
    the PostgreSQL database ``url``, each served."""
    env = dict(os.environ, SYNCPOINT_HOME=str(home))
    members: list[ServedMQ] = []
    try:
        for n in range(1, config.members + 1):
            name = f"{config.name.rstrip('0123456789') or config.name}{n}"  # QM1, QM2 …
            cmd = [sys.executable, "-c", "from syncpoint.cli import main; main()", "crtmqm", "-qsg", config.qsg]
            cmd += ["--shared", url, *(["-u", config.dlq] if config.dlq else []), name]
            done = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=120)
            if done.returncode != 0:
                raise RuntimeError(f"queue manager {name} was not created: {done.stderr.strip() or done.stdout}")
            members.append(serve(home, Config.of({**config.__dict__, "name": name, "port": 0}), create=False))
    except BaseException:
        for mq in members:
            mq.end()
        raise
    return members


def end_all() -> None:
    """End every server started here that still runs."""
    for mq in list(STARTED.values()):
        try:
            mq.end()
        except Exception:
            pass
