"""Passwords for remote connections: stored hashed (scrypt, per-user salt) in the queue manager's folder.

``users.json`` maps a user name to its salt and hash: the user registry of connection authentication (IBM's
IDPWOS checks the operating system's). Which connections must present a user and password is what the
CONNAUTH settings in force say (``_connauth``). A wrong one is MQRC_NOT_AUTHORIZED (2035), as IBM's connection
authentication answers, whatever was wrong (no user, unknown user, bad password).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import secrets
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

_N, _R, _P = 2**14, 8, 1


def _hash(password: str, salt: bytes) -> bytes:
    return hashlib.scrypt(password.encode("utf-8"), salt=salt, n=_N, r=_R, p=_P, dklen=32)


class Users:
    """The password file of one queue manager."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._users: dict[str, dict[str, str]] = {}
        self._stamp: tuple[int, int] | None = None
        self._load()

    def _load(self) -> None:
        """(Re)read the file when it changed: ``syncpoint passwd`` takes effect for the next connection."""
        try:
            st = self.path.stat()
        except FileNotFoundError:
            self._users, self._stamp = {}, None
            return
        stamp = (st.st_mtime_ns, st.st_size)
        if stamp == self._stamp:
            return
        try:
            data = json.loads(self.path.read_text())
            if not isinstance(data, dict):
                raise ValueError("not a map of users")
        except (ValueError, OSError) as e:
            raise ValueError(f"the password file {self.path} cannot be read: {e}") from None
        self._users, self._stamp = data, stamp

    @property
    def required(self) -> bool:
        try:
            self._load()
        except ValueError:
            return True  # a damaged file never opens the door
        return bool(self._users)

    def names(self) -> list[str]:
        return sorted(self._users)

    def set_password(self, user: str, password: str) -> None:
        if not user or len(user) > 1024 or not password:
            raise ValueError("a user name and a non-empty password are needed")
        salt = secrets.token_bytes(16)
        self._users[user] = {"salt": salt.hex(), "scrypt": _hash(password, salt).hex()}
        self._save()

    def remove(self, user: str) -> bool:
        if self._users.pop(user, None) is None:
            return False
        self._save()
        return True

    def check(self, user: str, password: str | None) -> bool:
        try:
            self._load()
        except ValueError:
            return False
        entry = self._users.get(user)
        if entry is None or password is None:
            # spend the same time as a real check, so user names cannot be probed by timing
            _hash(password or "", b"\0" * 16)
            return False
        return hmac.compare_digest(_hash(password, bytes.fromhex(entry["salt"])), bytes.fromhex(entry["scrypt"]))

    def _save(self) -> None:
        tmp = self.path.with_suffix(".tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as f:
            json.dump(self._users, f, indent=1, sort_keys=True)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, self.path)


_CHECKERS: ThreadPoolExecutor | None = None
CHECK_THREADS = 2  # scrypt checks at once: each takes ~50 ms of CPU and 16 MiB (n=2**14, r=8) while it runs


def checkers() -> ThreadPoolExecutor:
    """The threads that check passwords off the event loop. Few and their own: a burst of wrong passwords
    queues here, not in the loop's default executor, and the memory scrypt takes stays that of a few checks."""
    global _CHECKERS
    if _CHECKERS is None:
        keep_large_blocks_out_of_the_heap()
        _CHECKERS = ThreadPoolExecutor(CHECK_THREADS, thread_name_prefix="syncpoint-auth")
    return _CHECKERS


M_MMAP_THRESHOLD = -3  # glibc's mallopt parameter
LARGE_BLOCKS = 8 * 1024 * 1024


def keep_large_blocks_out_of_the_heap() -> bool:
    """Fix glibc's mmap threshold at 8 MiB, so that blocks of that size and more are always mapped and given
    back to the system when freed.

    scrypt (n=2**14, r=8) takes a 16 MiB block for each check. glibc raises its mmap threshold after such a block
    is freed, and then serves the next ones from the thread's heap, which keeps them: 500 fuzzed hellos left the
    server 17 MB larger for good (issue 39, "Memory"), 32 MB and more with two checker threads. A fixed threshold
    ends the raising. False where the C library is not glibc (nothing is changed)."""
    try:
        import ctypes

        return bool(ctypes.CDLL(None).mallopt(M_MMAP_THRESHOLD, LARGE_BLOCKS))
    except (OSError, AttributeError):
        return False


def check_password(users: Users, user: str, password: str | None, wanted: Callable[[], bool]) -> bool:
    """``users.check`` in a checker thread, unless the connection is gone (``wanted()`` false): a client that
    sent its hello and left costs no check."""
    return wanted() and users.check(user, password)


def stop_checks() -> None:
    """The server ends: checks not yet started are dropped (their connections end with it)."""
    global _CHECKERS
    if _CHECKERS is not None:
        _CHECKERS.shutdown(wait=False, cancel_futures=True)
        _CHECKERS = None


class Throttle:
    """IBM's FAILDLAY, per address: a failed authentication is answered late, and one address's failures are
    answered one after another, each its delay after the one before.

    The delay is 0.1 s after the first failure of an address, doubling with each further one up to ``cap``. It
    holds the failed connection only: every attempt is checked at once, and a right password is answered at
    once whatever failed before it from the same address (issue 39, item 6). Failures made at once from many
    connections of one address queue one behind another, so more connections do not guess faster. A minute
    without a failure forgets the address; a success does not (one user's success from an address must not
    reset the count of another guessing from it), and it costs nothing: successes are never delayed."""

    FIRST = 0.1
    FORGET = 60.0
    MAX_SOURCES = 10_000  # beyond this, addresses quiet for a minute are forgotten

    def __init__(self, cap: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.cap = cap
        self.clock = clock
        self._sources: dict[str, list[float]] = {}  # address -> [failures, its last failure's answer, last failure]

    def _delay(self, failures: float, floor: float) -> float:
        return min(self.cap, max(floor, self.FIRST * 2 ** min(failures - 1, 60)))

    def failed(self, source: str, floor: float = 0.0) -> float:
        """A failed authentication of ``source`` now: the seconds until its answer (its turn, after the answers
        to the failures before it). Each failure's step is at least ``floor`` (the AUTHINFO object's FAILDLAY),
        and at most ``cap`` (``strmqm --limit auth-delay-max``), whichever is less."""
        now = self.clock()
        if len(self._sources) >= self.MAX_SOURCES:
            for key, (_, turn, last) in list(self._sources.items()):
                if now - last > self.FORGET and now >= turn:
                    del self._sources[key]
        state = self._sources.get(source)
        if state is None or (now - state[2] > self.FORGET and now >= state[1]):
            state = self._sources[source] = [0, now, now]
        state[0] += 1
        state[2] = now
        state[1] = max(now, state[1]) + self._delay(state[0], floor)
        return state[1] - now

    def failures(self, source: str) -> int:
        state = self._sources.get(source)
        return 0 if state is None else int(state[0])


def peer_identity(transport: Any) -> tuple[str, int] | None:
    """The operating-system user name and process id of the process at the other end of a Unix socket
    (SO_PEERCRED, Linux), as IBM's bindings take an application's identity from the operating system; None when
    the socket cannot say (not a Unix socket, another platform)."""
    import pwd
    import socket
    import struct

    sock = transport.get_extra_info("socket") if transport is not None else None
    option = getattr(socket, "SO_PEERCRED", None)
    if sock is None or option is None or sock.family != socket.AF_UNIX:
        return None
    try:
        pid, uid, _gid = struct.unpack("3i", sock.getsockopt(socket.SOL_SOCKET, option, struct.calcsize("3i")))
    except OSError:
        return None
    try:
        name = pwd.getpwuid(uid).pw_name
    except KeyError:
        name = str(uid)  # a uid with no passwd entry (a container): its number, as IBM shows it
    return name[:12], pid
