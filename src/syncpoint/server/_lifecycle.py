"""A queue manager's server process: running it, finding it, and the status dspmq shows.

Files in the queue manager's folder (``$SYNCPOINT_HOME/qmgrs/NAME``):

* ``server.json`` — written once the server accepts connections, removed when it ends: its pid, TCP address,
  Unix socket path and state. A file whose pid is gone means the server died (dspmq: "Ended unexpectedly").
* ``starting.json`` — the pid of a server that is starting (opening its files, running its automatic
  configuration), removed once it accepts connections or gives up: dspmq says "Starting".
* ``status`` — how the server last ended: ``Ended normally`` (endmqm -c), ``Ended immediately`` (-i),
  ``Ended preemptively`` (-p).
* ``errors/server.log`` — the server's log (strmqm starts it in the background with this as its output).
* ``users.json`` — hashed passwords for remote connections (``syncpoint passwd``).
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import hashlib
import json
import logging
import os
import signal
import ssl
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from syncpoint._home import home as _home_dir
from syncpoint._home import missing_store, qmgr_dir
from syncpoint.host import POLLER, can_poll, format_cpu_list, parse_cpu_list, pin

from ._limits import FD_RESERVE, OVERFLOW, Limits

log = logging.getLogger("syncpoint.server")

STATUS_STARTING = "Starting"
STATUS_RUNNING = "Running"
STATUS_ENDED_NORMALLY = "Ended normally"
STATUS_ENDED_IMMEDIATELY = "Ended immediately"
STATUS_ENDED_PREEMPTIVELY = "Ended preemptively"
STATUS_ENDED_UNEXPECTEDLY = "Ended unexpectedly"
# not one of IBM's: the queue manager runs inside a program's own process (``syncpoint.connect`` embedded), so it
# is running (strmqm refuses, its files are in use) but no other process can connect to it
STATUS_RUNNING_EMBEDDED = "Running embedded"


STARTING_FILE = "starting.json"  # the pid of a server that is starting, until it writes server.json


def unix_socket_path(qdir: Path) -> str:
    """The server's Unix socket: in the queue manager's folder, or under /tmp when that path is too long for
    a socket address (108 bytes on Linux)."""
    path = str(qdir / "server.sock")
    if len(path.encode()) < 100:
        return path
    digest = hashlib.sha1(str(qdir.resolve()).encode()).hexdigest()[:20]
    return f"/tmp/syncpoint-{digest}.sock"


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    # a zombie child of ours has exited: it is not serving
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(") ", 1)[1][:1] != "Z"
    except OSError:
        return True


def server_info(name: str, home: str | os.PathLike[str] | None = None) -> dict[str, Any] | None:
    """What ``server.json`` says of a live server of queue manager ``name``; None when none is running."""
    path = qmgr_dir(name, home) / "server.json"
    try:
        info: dict[str, Any] = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    if not isinstance(info, dict) or not isinstance(info.get("pid"), int) or not _pid_alive(info["pid"]):
        return None
    return info


def lock_holder(name: str, home: str | os.PathLike[str] | None = None) -> int | None:
    """The process holding queue manager ``name``'s files (the store's lock, ``qm.db.lock``): its server or a
    program that runs it embedded; None when no process holds them.

    The lock is only looked at, never taken (taking it, even for an instant, could make a starting queue manager
    fail): the kernel's table of locks (``/proc/locks``) names the holder of the lock file's inode; where there
    is no such table, the pid the holder wrote in the file is taken if that process is alive."""
    path = qmgr_dir(name, home) / "qm.db.lock"
    try:
        st = path.stat()
        written = path.read_text(encoding="ascii", errors="replace").strip()
    except OSError:
        return None
    try:
        with open("/proc/locks", encoding="ascii", errors="replace") as f:
            table = f.read()
    except OSError:
        return int(written) if written.isdigit() and _pid_alive(int(written)) else None
    inode = f":{st.st_ino} "
    for line in table.splitlines():
        # "1: FLOCK  ADVISORY  WRITE 1234 08:01:567 0 EOF" (a blocked waiter's line has "->" after the number)
        fields = line.split()
        if len(fields) >= 6 and fields[1] == "FLOCK" and fields[2] != "->" and inode in f"{fields[5]} ":
            try:
                pid = int(fields[4])
                major, minor = (int(x, 16) for x in fields[5].rsplit(":", 1)[0].split(":"))
            except ValueError:
                continue
            # the same inode on the same device (some file systems show another device number here: then the
            # pid the holder wrote must agree)
            if os.makedev(major, minor) == st.st_dev or written == str(pid):
                return pid
    return None


def process_description(pid: int) -> str:
    """A process as dspmq and strmqm name it: ``process 1234 (python3 app.py)``."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            argv = [a.decode(errors="replace") for a in f.read().split(b"\0") if a]
    except OSError:
        argv = []
    if argv:
        argv[0] = os.path.basename(argv[0])
        command = " ".join(argv)
        if len(command) > 60:
            command = command[:57] + "..."
        return f"process {pid} ({command})"
    return f"process {pid}"


def embedded_holder(name: str, home: str | os.PathLike[str] | None = None) -> int | None:
    """The process that runs queue manager ``name`` embedded (holds its files without being its running server);
    None when there is none."""
    pid = lock_holder(name, home)
    if pid is None:
        return None
    info = server_info(name, home)
    return None if info is not None and info.get("pid") == pid else pid


def starting_pid(name: str, home: str | os.PathLike[str] | None = None) -> int | None:
    """The process of a server of ``name`` that is starting (not yet accepting connections); None otherwise."""
    try:
        info = json.loads((qmgr_dir(name, home) / STARTING_FILE).read_text())
    except (OSError, ValueError):
        return None
    pid = info.get("pid") if isinstance(info, dict) else None
    return pid if isinstance(pid, int) and _pid_alive(pid) else None


def status(name: str, home: str | os.PathLike[str] | None = None) -> str:
    qdir = qmgr_dir(name, home)
    if not (qdir / "server.json").exists() and starting_pid(name, home) is not None:
        return STATUS_STARTING
    if (qdir / "server.json").exists():
        info = server_info(name, home)
        if info is None:
            return STATUS_RUNNING_EMBEDDED if embedded_holder(name, home) is not None else STATUS_ENDED_UNEXPECTEDLY
        state = info.get("state", "running")
        return {"running": STATUS_RUNNING, "quiescing": "Quiescing", "stopping": "Ending immediately"}.get(
            state, STATUS_RUNNING
        )
    if embedded_holder(name, home) is not None:
        return STATUS_RUNNING_EMBEDDED
    try:
        return (qdir / "status").read_text().strip() or STATUS_ENDED_NORMALLY
    except OSError:
        return STATUS_ENDED_NORMALLY


SHARE_LOOK = 1.0  # seconds between two looks of a server's busy poller at the other servers on its CPU


def alone_on_cpus(name: str, home: str | os.PathLike[str] | None, cpus: set[int]) -> bool:
    """Whether no running server of this home other than ``name``'s is pinned to any of ``cpus``. Two busy pollers
    on one CPU cost more than they save (docs/benchmarks.md, qsg: 4 members two to a CPU, 0.30x -> 0.38x the peer
    without polling), so a server polls only while it is alone on its CPU."""
    others = _cpus_of_other_servers(name, home)
    return not any(others.get(cpu) for cpu in cpus)


def _poll_while_alone(name: str, home: str | os.PathLike[str] | None, cpus: set[int]) -> Callable[[], bool]:
    """The busy poller's eligibility for server ``name`` on ``cpus``: :func:`can_poll` and :func:`alone_on_cpus`,
    the latter looked at once every :data:`SHARE_LOOK` seconds at most (it reads the other servers' files)."""
    seen: list[Any] = [float("-inf"), True]

    def eligible() -> bool:
        now = time.monotonic()
        if now - seen[0] >= SHARE_LOOK:
            seen[0], seen[1] = now, alone_on_cpus(name, home, cpus)
        return bool(seen[1]) and can_poll()

    return eligible


def _cpus_of_other_servers(name: str, home: str | os.PathLike[str] | None) -> dict[int, int]:
    """How many running servers of this home, other than ``name``'s, are pinned to each CPU."""
    taken: dict[int, int] = {}
    for path in (_home_dir(home) / "qmgrs").glob("*/server.json"):
        info = server_info(path.parent.name, home) if path.parent.name != name else None
        try:
            cpus = parse_cpu_list(info["cpus"]) if info and isinstance(info.get("cpus"), str) else ()
        except ValueError:
            continue
        for cpu in cpus:
            taken[cpu] = taken.get(cpu, 0) + 1
    return taken


def _record(where: Path, write: Callable[[], object]) -> None:
    """Write one of the server's files in the queue manager's folder; when it cannot be written (the folder was
    removed under the running server, the disk is full), say so on standard error (strmqm's log, or the terminal
    of --foreground) and go on: ending must not stop halfway for a file that only tells how it ended (issue 39,
    item 13: with its home removed the server ignored SIGTERM)."""
    try:
        write()
    except OSError as e:
        print(
            f"AMQ6184E: queue manager server: {where} cannot be written ({e.strerror or e}): "
            "its folder may have been removed; the server goes on ending without it.",
            file=sys.stderr,
            flush=True,
        )


def _write_json(path: Path, data: dict[str, Any]) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(data, indent=1))
    os.replace(tmp, path)


GC_THRESHOLDS = (20_000, 20, 100)
"""The server process's cyclic garbage collector (Python's defaults: 700, 10, 10). Every message on a queue is a few
objects the collector tracks, and every request allocates a few more (structures, answers): with the defaults a
young collection runs every few messages and a full one, over every message held, every few thousand. Measured
(srvcost, the Spark flow's verbs, 20,000 messages): 2-4 µs a message of the server's CPU less; reference cycles
still go, a young one after 20,000 allocations."""


def run_server(
    name: str,
    *,
    home: str | os.PathLike[str] | None = None,
    host: str | None = "127.0.0.1",
    port: int | None = 1414,
    tls_cert: str | None = None,
    tls_key: str | None = None,
    start_tools: Callable[[Any, Any, Any], Callable[[], None]] | None = None,
    grace: float = 5.0,
    cpus: str = "auto",
    busy_poll: bool = True,
    limits: Limits | None = None,
    configure: Callable[[Any], int] | None = None,
    info_extra: dict[str, Any] | None = None,
    tls_ca: str | None = None,
) -> int:
    """Run the server of queue manager ``name`` in this process until endmqm; returns the exit code.

    ``start_tools(server, host, users)`` starts the tools that live in the server's process (the PCF command
    server, from the layer above) and returns what stops them; the process entry point supplies it.
    ``configure(host)`` runs before the server listens (automatic configuration, from the layer above): a
    non-zero return is the exit code of a start it refused. Meanwhile ``starting.json`` names the process, so
    dspmq says "Starting"."""
    starting = qmgr_dir(name, home) / STARTING_FILE
    try:
        return _run_server(
            name,
            home,
            host,
            port,
            tls_cert,
            tls_key,
            start_tools,
            grace,
            cpus,
            busy_poll,
            limits,
            configure,
            starting,
            info_extra or {},
            tls_ca,
        )
    finally:
        with contextlib.suppress(OSError):
            starting.unlink()


def _run_server(
    name: str,
    home: str | os.PathLike[str] | None,
    host: str | None,
    port: int | None,
    tls_cert: str | None,
    tls_key: str | None,
    start_tools: Callable[[Any, Any, Any], Callable[[], None]] | None,
    grace: float,
    cpus: str,
    busy_poll: bool,
    limits: Limits | None,
    configure: Callable[[Any], int] | None,
    starting: Path,
    info_extra: dict[str, Any],
    tls_ca: str | None = None,
) -> int:
    from syncpoint.host import QueueManagerHost
    from syncpoint.store import SQLiteStore, StoreError

    from ._auth import Users
    from ._server import Server, tls_context

    qdir = qmgr_dir(name, home)
    db = qdir / "qm.db"
    if not db.exists():
        missing = missing_store(name, home)
        if missing is not None:
            print(missing, file=sys.stderr)
            return 20
        print(f"AMQ7048E: queue manager {name} does not exist under {qdir.parent}.", file=sys.stderr)
        return 16
    if server_info(name, home) is not None:
        print(f"AMQ5051E: queue manager {name} is already running.", file=sys.stderr)
        return 5
    _write_json(starting, {"pid": os.getpid(), "started": time.time()})
    try:
        pinned = pin(cpus, qdir, _cpus_of_other_servers(name, home))
    except (ValueError, OSError) as e:
        print(f"AMQ8101E: queue manager {name} cannot start: --cpus {cpus}: {e}", file=sys.stderr)
        return 20
    if pinned is not None:
        log.info("queue manager %s runs on CPU %s (--cpus %s)", name, format_cpu_list(pinned), cpus)
    POLLER.enabled = busy_poll
    gc.set_threshold(*GC_THRESHOLDS)
    alone = pinned is None or alone_on_cpus(name, home, pinned)
    polls = busy_poll and can_poll() and alone
    if pinned is not None:
        POLLER.set_eligible(_poll_while_alone(name, home, pinned))
    log.info(
        "busy polling: %s",
        "on"
        if polls
        else "off"
        if not busy_poll
        else "off (another queue manager runs on its CPU)"
        if not alone
        else "off (not one CPU, or a CPU quota)",
    )
    ctx: ssl.SSLContext | None = None
    try:
        users = Users(qdir / "users.json")
        if tls_cert:
            ctx = tls_context(tls_cert, tls_key, tls_ca or None)
    except (ValueError, OSError, ssl.SSLError) as e:
        print(f"AMQ8101E: queue manager {name} cannot start: {e}", file=sys.stderr)
        return 20
    try:
        store = SQLiteStore(db)
        host_qm = QueueManagerHost(name, store)
    except StoreError as e:
        print(f"AMQ8101E: queue manager {name} cannot start: its data cannot be used: {e}", file=sys.stderr)
        return 20
    except Exception as e:  # e.g. MQMIError from a definition the engine rejects
        print(f"AMQ8101E: queue manager {name} cannot start: {e}", file=sys.stderr)
        return 20
    if configure is not None:
        try:
            refused = configure(host_qm)
        except Exception as e:
            print(f"AMQ8101E: queue manager {name} cannot start: its configuration failed: {e}", file=sys.stderr)
            refused = 20
        if refused:
            host_qm.close(abnormal=False)
            return refused
    sock_path = unix_socket_path(qdir)
    limits = _room_for(limits if limits is not None else Limits())
    log.info("limits: %s", limits.describe())
    server = Server(host_qm, host=host, port=port, unix_path=sock_path, ssl_context=ctx, users=users, limits=limits)
    info_path = qdir / "server.json"
    with contextlib.suppress(OSError):
        (qdir / "status").unlink()

    async def main() -> str:
        loop = asyncio.get_running_loop()
        try:
            await server.start()
        except OSError as e:
            print(f"AMQ8101E: queue manager {name} cannot listen on {host}({port}): {e}", file=sys.stderr)
            host_qm.close(abnormal=False)
            return "failed"
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, server.end, "i")
        info = {
            "pid": os.getpid(),
            "qmgr": name,
            "host": host,
            "port": server.bound_port,
            "unix": sock_path,
            "tls": ctx is not None,
            "auth": users.required,
            "cpus": format_cpu_list(pinned) if pinned is not None else None,
            "busy_poll": polls,
            "state": "running",
            "started": time.time(),
            **info_extra,  # what the tools of the layer above report (the metrics' address)
        }
        _write_json(info_path, info)
        with contextlib.suppress(OSError):
            starting.unlink()

        def on_state(state: str) -> None:
            info["state"] = state
            _record(info_path, lambda: _write_json(info_path, info))

        server.on_state = on_state
        stop_tools = start_tools(server, host_qm, users) if start_tools is not None else (lambda: None)
        how = await server.wait_ended()
        if how == "preemptive":
            return how
        stop_tools()
        if how == "immediate":
            # every unit of work is backed out already; applications' further calls get MQRC_Q_MGR_STOPPING
            host_qm.close(abnormal=True)
            _record(qdir, lambda: (qdir / "status").write_text(STATUS_ENDED_IMMEDIATELY + "\n"))
            # the calls in flight get their 2162 before the sockets close; an idle application finds its
            # connection broken at its next call (IBM: "Any MQI requests issued after the command … fail")
            deadline = loop.time() + grace
            while _answering(server) and loop.time() < deadline:
                await asyncio.sleep(0.005)
        await server.close()
        if how == "controlled":
            host_qm.close(abnormal=False)
            _record(qdir, lambda: (qdir / "status").write_text(STATUS_ENDED_NORMALLY + "\n"))
        return how

    try:
        import uvloop

        runner: Any = uvloop.run
    except ImportError:
        runner = asyncio.run  # slower, never blocked: nothing compiled is required (issue 38, item 5)
    log.info("event loop: %s; msgpack: %s", "uvloop" if runner is not asyncio.run else "asyncio", _msgpack_kind())
    how = runner(main())
    if how == "preemptive":
        _record(qdir, lambda: (qdir / "status").write_text(STATUS_ENDED_PREEMPTIVELY + "\n"))
        if host_qm.errorlog is not None:
            host_qm.errorlog.ended("preemptively (the next start backs out what was in flight)")
        with contextlib.suppress(OSError):
            info_path.unlink()
        with contextlib.suppress(OSError):
            os.unlink(sock_path)
        os._exit(0)  # nothing more is written: the restart backs out what was in flight
    with contextlib.suppress(OSError):
        info_path.unlink()
    return 0 if how != "failed" else 20


def _msgpack_kind() -> str:
    """Whether msgpack runs compiled or its pure-Python fallback (MSGPACK_PUREPYTHON=1, or no wheel)."""
    import msgpack
    from msgpack import fallback

    return "pure Python" if msgpack.Packer is fallback.Packer else "compiled"


def _answering(server: Any) -> bool:
    """Whether an application's session still has a call to answer (endmqm's own control session does not
    count: it only waits for the end)."""
    return any(not s.control and (s.inbox or s.outbox or s.in_worker) for s in server.sessions)


def _room_for(limits: Limits) -> Limits:
    """``limits`` with file descriptors to spare: the open-files limit is raised (up to the hard one) to hold
    max-connections, the connections refused beyond it and a reserve for the Unix socket and the files; where it
    cannot be, max-connections is lowered, with a warning (issue "Hardening", defect 5: idle connections under
    the open-files limit locked everyone out, the Unix socket too)."""
    import dataclasses
    import resource

    need = limits.max_connections + OVERFLOW + FD_RESERVE
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != resource.RLIM_INFINITY and soft < need:
        target = need if hard == resource.RLIM_INFINITY else min(need, hard)
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
            soft = target
        if soft < need:
            fitting = max(1, soft - OVERFLOW - FD_RESERVE)
            log.warning(
                "max-connections %d lowered to %d: the open-files limit is %d (ulimit -n)",
                limits.max_connections,
                fitting,
                soft,
            )
            return dataclasses.replace(limits, max_connections=fitting)
    return limits
