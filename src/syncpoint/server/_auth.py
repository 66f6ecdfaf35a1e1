"""Passwords for remote connections: stored hashed (scrypt, per-user salt) in the queue manager's folder.

``users.json`` maps a user name to its salt and hash. When it names at least one user, every TCP connection
must present a user and the right password; local connections over the Unix socket are trusted as IBM trusts
bindings-mode applications, but a password they present is still checked. A wrong one is MQRC_NOT_AUTHORIZED
(2035), as IBM's connection authentication answers, whatever was wrong (no user, unknown user, bad password).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import secrets
import time
from collections.abc import Callable
from pathlib import Path

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


class Throttle:
    """A growing delay after failed authentications, per source: an address and the user it tried.

    After a failure, the next attempt for that source waits its turn: 0.1 s after the first failure, doubling
    with each further one up to ``cap``; attempts of one source made at once queue one behind another, so opening
    more connections does not guess faster. Other sources are not slowed (the wait is a timer, not a thread). A
    success, or a minute without a failure, forgets the source."""

    FIRST = 0.1
    FORGET = 60.0
    MAX_SOURCES = 10_000  # beyond this, sources quiet for a minute are forgotten

    def __init__(self, cap: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.cap = cap
        self.clock = clock
        self._sources: dict[tuple[str, str], list[float]] = {}  # source -> [failures, next turn, last failure]

    def _delay(self, failures: float) -> float:
        return min(self.cap, self.FIRST * 2 ** min(failures - 1, 60))

    def wait(self, source: tuple[str, str]) -> float:
        """Seconds the attempt of ``source`` starting now waits for its turn (0: none)."""
        state = self._sources.get(source)
        if state is None:
            return 0.0
        now = self.clock()
        if now - state[2] > self.FORGET and now >= state[1]:
            del self._sources[source]
            return 0.0
        start = max(now, state[1])
        state[1] = start + self._delay(state[0])
        return start - now

    def failed(self, source: tuple[str, str]) -> None:
        now = self.clock()
        if len(self._sources) >= self.MAX_SOURCES:
            for key, (_, turn, last) in list(self._sources.items()):
                if now - last > self.FORGET and now >= turn:
                    del self._sources[key]
        state = self._sources.setdefault(source, [0, now, now])
        state[0] += 1
        state[2] = now
        state[1] = max(state[1], now + self._delay(state[0]))

    def succeeded(self, source: tuple[str, str]) -> None:
        self._sources.pop(source, None)
