"""The server's limits: what one client, or many, may hold of the server (docs/protocol.md, "Limits").

Each is set with ``strmqm --limit NAME=VALUE`` (repeatable) and shown by name in the server's log at start:

``max-connections`` (1000)
    TCP connections at once, handshaking or connected (IBM: a channel's MAXINST, the Channels stanza's
    MaxChannels). A connection beyond it has its hello answered MQRC_MAX_CONNS_LIMIT_REACHED (2025) and is closed;
    more than a few dozen beyond it are closed at once, unanswered. The Unix socket (local administration and
    local applications, reachable by the owner only) is not counted: the server keeps file descriptors in reserve
    for it and its files, raising its open-files limit (or lowering this one, with a warning) to make room.
``max-connections-per-address`` (100)
    TCP connections at once from one address (IBM: a channel's MAXINSTC, instances from one client). A connection
    beyond it has its hello answered MQRC_MAX_CONNS_LIMIT_REACHED (2025) and is closed; the refusal is logged.
``handshake-timeout`` (10 seconds)
    a connection that has not sent its hello by then is closed with a FATAL reply.
``frame-timeout`` (10 seconds) and ``frame-seconds-per-mib`` (5 seconds)
    once a frame has started to arrive, all of it must have arrived within ``frame-timeout`` plus
    ``frame-seconds-per-mib`` for each MiB its header announces; otherwise the connection is closed with a FATAL
    reply. A session idle between frames is never timed out (IBM's clients may stay connected idle).
``partial-frame-budget`` (512 MiB)
    bytes the server holds at once, over all connections, for frames of more than ``LARGE_FRAME`` bytes still
    arriving. A large frame that does not fit waits, its connection not read, until others complete; one larger
    than the whole budget is refused with a FATAL reply.
``auth-delay-max`` (5 seconds)
    IBM's FAILDLAY: a failed authentication is answered late, and the failures of one address are answered one
    at a time, each after the one before: 0.1 s after the first failure, doubling per further failure up to
    this. So one address makes one guess per delay however many connections it opens; the delay holds the
    failed connection only: a right password, from any address, is checked and answered at once. A minute
    without a failure forgets an address's failures (a success does not: another user's success from the same
    address must not reset a guesser); each failure is logged with its count and delay.
``reply-backlog`` (4 MiB)
    a session whose unsent replies pass this many bytes (the client does not read them), or that has more than
    ``MAX_BACKLOG`` requests not yet answered, is not read from until it catches up (back-pressure).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

MAX_BACKLOG = 4096  # requests received and not yet answered, per session, before it is no longer read
OVERFLOW = 64  # TCP connections beyond max-connections that are still answered 2025 (more: closed at once)
FD_RESERVE = 256  # file descriptors kept for the Unix socket, the store's files, logs and the command server
LARGE_FRAME = 1024 * 1024  # frames above this size count against partial-frame-budget while they arrive
MiB = 1024 * 1024


@dataclass(frozen=True, slots=True)
class Limits:
    max_connections: int = 1000
    max_connections_per_address: int = 100
    handshake_timeout: float = 10.0
    frame_timeout: float = 10.0
    frame_seconds_per_mib: float = 5.0
    partial_frame_budget: int = 512 * MiB
    auth_delay_max: float = 5.0
    reply_backlog: int = 4 * 1024 * 1024

    @classmethod
    def parse(cls, settings: list[str] | None) -> Limits:
        """Limits from ``NAME=VALUE`` strings (``max-connections=500``); ValueError naming a bad one."""
        values: dict[str, float | int] = {}
        fields = {f.name: f for f in dataclasses.fields(cls)}
        for setting in settings or []:
            name, sep, raw = setting.partition("=")
            key = name.strip().replace("-", "_")
            if not sep or key not in fields:
                known = ", ".join(sorted(n.replace("_", "-") for n in fields))
                raise ValueError(f"--limit {setting!r}: expected NAME=VALUE with NAME one of {known}")
            try:
                value: float | int = int(raw) if fields[key].type == "int" else float(raw)
            except ValueError:
                raise ValueError(f"--limit {setting!r}: {raw!r} is not a number") from None
            if value <= 0:
                raise ValueError(f"--limit {setting!r}: the value must be positive")
            values[key] = value
        return cls(**values)  # type: ignore[arg-type]

    def describe(self) -> str:
        return (
            f"max-connections={self.max_connections} max-connections-per-address={self.max_connections_per_address} "
            f"handshake-timeout={self.handshake_timeout:g}s frame-timeout={self.frame_timeout:g}s "
            f"frame-seconds-per-mib={self.frame_seconds_per_mib:g}s partial-frame-budget={self.partial_frame_budget} "
            f"auth-delay-max={self.auth_delay_max:g}s reply-backlog={self.reply_backlog}"
        )

    def frame_time(self, size: int) -> float:
        """Seconds a frame of ``size`` bytes may take to arrive once it has started."""
        return self.frame_timeout + self.frame_seconds_per_mib * size / MiB
