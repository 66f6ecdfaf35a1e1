"""What a sending channel presents to the receiving queue manager: ``channels.json`` in the queue manager's
folder (owner-only), written by ``syncpoint chlpasswd``: per channel a user, its password on the receiving
queue manager (``syncpoint passwd`` there) and, for a channel with SSLCIPH, the CA file that signs the receiving
server's certificate. IBM authenticates channels with TLS certificates and CHLAUTH rules; syncpoint's receiving
end authenticates a sending channel as it does any client (docs/distributed-queuing.md)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any


class Credentials:
    def __init__(self, path: Path | None) -> None:
        self.path = path

    def all(self) -> dict[str, Any]:
        if self.path is None or not self.path.exists():
            return {}
        data = json.loads(self.path.read_text())
        return data if isinstance(data, dict) else {}

    def of(self, channel: str) -> dict[str, Any]:
        """The channel's entry (read each time a channel starts: a change applies at the next start)."""
        entry = self.all().get(channel, {})
        return entry if isinstance(entry, dict) else {}

    def set(self, channel: str, entry: dict[str, Any] | None) -> None:
        """Write (or, with None, remove) a channel's entry: owner-only, replaced atomically."""
        assert self.path is not None
        data = self.all()
        if entry is None:
            data.pop(channel, None)
        else:
            data[channel] = entry
        tmp = self.path.with_suffix(".tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as f:
            json.dump(data, f, indent=1)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, self.path)
