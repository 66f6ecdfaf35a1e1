"""The requester (RQSTR) end of IBM's requester-server and requester-sender channel pairs.

A RQSTR with a CONNAME, started (START CHANNEL, runmqchl), connects to the queue manager at its CONNAME as a
sending channel does (user and password from ``chlpasswd``, TLS with SSLCIPH) and asks for the channel of the
same name there (``channel request``, server/_channel.py):

- a **SVR** there starts and sends over this very connection: this end relays the connection's bytes to and
  from its own queue manager's server (its local socket, else its TCP port), where the usual receiving MCA
  runs the channel (its status shows CHLTYPE(RQSTR)). The requester stays RUNNING while the relay lasts. When
  the server ends the channel normally (DISCINT) the requester ends too (INACTIVE); when the connection breaks,
  the requester is RETRYING: SHORTRTY / LONGRTY attempts, asking the SVR again each time (the batch in doubt
  at the SVR is resolved then, as for any sending channel).
- a **SDR** there refuses the call and calls back: it starts the channel to its own CONNAME, which is this
  queue manager, where the RQSTR receives like a RCVR. The requester itself ends (INACTIVE) once the sender
  accepted; the receiving side's status is the channel's.
"""

from __future__ import annotations

import json
import logging
import selectors
import socket
import ssl
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from syncpoint.mqi import MQMIError
from syncpoint.mqi import constants as C
from syncpoint.mqi.objects import CHANNEL

from ._agent import ChannelAgent, ChannelStoppedError, Status
from ._link import Link

log = logging.getLogger("syncpoint.channel")

_FINAL = (C.MQRC_UNKNOWN_CHANNEL_NAME, C.MQRC_NOT_AUTHORIZED)


def own_server(qmgr_dir: Path | None) -> socket.socket:
    """A connection to this queue manager's own server: its local socket, else its TCP port (server.json)."""
    if qmgr_dir is None:
        raise MQMIError(C.MQCC_FAILED, C.MQRC_Q_MGR_NOT_AVAILABLE, "no queue manager folder")
    try:
        info = json.loads((qmgr_dir / "server.json").read_text())
        if info.get("unix"):
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.connect(str(info["unix"]))
            return s
        host = str(info.get("host") or "127.0.0.1")
        return socket.create_connection(("127.0.0.1" if host in ("0.0.0.0", "::") else host, int(info["port"])))
    except (OSError, ValueError, KeyError) as e:
        raise MQMIError(
            C.MQCC_FAILED, C.MQRC_Q_MGR_NOT_AVAILABLE, f"cannot reach this queue manager's server: {e}"
        ) from None


def relay(a: socket.socket, b: socket.socket, stop: threading.Event) -> None:
    """Bytes both ways between ``a`` and ``b`` until either closes or ``stop`` is set (checked every second)."""
    sel = selectors.DefaultSelector()
    for s in (a, b):
        s.setblocking(False)
        sel.register(s, selectors.EVENT_READ)
    try:
        while not stop.is_set():
            for key, _ in sel.select(1.0):
                src: socket.socket = key.fileobj  # type: ignore[assignment]
                dst = b if src is a else a
                try:
                    data = src.recv(256 * 1024)
                    while isinstance(src, ssl.SSLSocket) and src.pending():  # TLS: what it decrypted already
                        data += src.recv(src.pending())
                except (BlockingIOError, InterruptedError, ssl.SSLWantReadError, ssl.SSLWantWriteError):
                    continue
                except OSError:
                    return
                if not data:
                    return
                dst.setblocking(True)
                try:
                    dst.sendall(data)
                except OSError:
                    return
                finally:
                    dst.setblocking(False)
    finally:
        sel.close()


class Requester(ChannelAgent):
    """One run of a requester channel, from START to INACTIVE or STOPPED; ``run()`` on its own thread."""

    # the base's five parameters are restated (not ``*args``) so that the initiator's calls stay checked by type
    def __init__(
        self,
        name: str,
        connect: Callable[[], Any],
        status: Status,
        credentials: Callable[[str], dict[str, Any]],
        stop: threading.Event,
        qmgr_dir: Path | None,
        receiving: Callable[[str], bool],
    ) -> None:
        super().__init__(name, connect, status, credentials, stop)
        self.qmgr_dir = qmgr_dir
        self.receiving = receiving  # is the receiving MCA of this channel still open here (not closed normally)?

    def run(self) -> None:
        st = self.status
        st.chltype = "RQSTR"
        try:
            qm = self.connect()
            try:
                d = qm.admin("lookup", CHANNEL, self.name)
                self.qmgr = self.qmgr_name = qm.name
            finally:
                qm.disconnect()
            if d is None:
                raise ChannelStoppedError(f"AMQ9519E: Channel '{self.name}' not found.")
            self.attrs = dict(d.attrs)
            st.conname = str(self.attrs.get("CONNAME", ""))
            if not st.conname:
                raise ChannelStoppedError(f"requester channel '{self.name}' needs a CONNAME to start")
            self._retrying_loop()
        except ChannelStoppedError as e:
            self._ended(e)
        except Exception as e:  # pragma: no cover - a defect: say so, end the channel, keep the server
            st.state, st.reason = "STOPPED", f"internal error: {e!r}"
            log.exception("channel %s failed", self.name)

    final_reasons = _FINAL

    def _attempt(self) -> bool | None:
        return self._session()

    def _session(self) -> bool | None:
        """One request: None when the channel ended normally (callback accepted, or the SVR ended it after
        DISCINT), True when it ran and broke (retry, counts reset), False when it did not start (retry)."""
        st = self.status
        hbint = int(self.attrs["HBINT"])
        self.link = link = Link.for_channel(
            self.attrs, self.credentials(self.name), timeout=max(10.0, 2.0 * hbint) if hbint else 30.0
        )
        answer = link.request_alone("channel", ["request", self.name, {"qmgr": self.qmgr}])
        st.rqmname = str(answer.get("qmgr", link.qmgr))
        if answer.get("mode") == "callback":
            st.state, st.reason = "INACTIVE", ""
            log.info("channel %s: the sender at %s calls back", self.name, st.conname)
            return None
        mine = own_server(self.qmgr_dir)
        st.state, st.reason = "RUNNING", ""
        log.info("channel %s: the server at %s sends over this requester's connection", self.name, st.conname)
        try:
            link.sock.settimeout(None)
            relay(link.sock, mine, self.stop)
        finally:
            mine.close()
        if self.stop.is_set():
            raise ChannelStoppedError("STOP CHANNEL")
        if self.receiving(self.name):  # the server's channel did not say "close": the connection broke
            st.reason = f"the connection of channel '{self.name}' to {st.conname} ended"
            return True
        st.state = "INACTIVE"
        return None
