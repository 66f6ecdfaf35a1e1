"""The channel initiator (IBM's runmqchi) of one queue manager, running inside its server process.

It holds SYSTEM.CHANNEL.INITQ open for input and reads two kinds of message from it:

- **trigger messages** (Format MQTRIG): a transmission queue defined with TRIGGER, INITQ(SYSTEM.CHANNEL.INITQ)
  and TRIGDATA(channel) got a message (seed 001, condition 6): the channel named by TriggerData is started
  (blank TriggerData: the sending channel whose XMITQ is the triggering queue). A channel that an operator
  stopped (STATUS STOPPED) is not started by a trigger, as IBM's.
- **channel commands** (Format SPCHLCMD, JSON): START / STOP / PING / RESET / RESOLVE CHANNEL and DISPLAY
  CHSTATUS from runmqsc (or any client), answered with a JSON message on the request's ReplyToQ.

At start it starts every sending channel whose transmission queue holds messages or whose sync record holds
a batch in doubt, so a queue manager restarted after a failure resumes its channels by itself — except a channel
an operator stopped: STOP CHANNEL STATUS(STOPPED) is kept in ``chstopped.json`` in the queue manager's folder
(written as ``channels.json`` is: owner-only, replaced atomically), so the channel is STOPPED again after endmqm /
strmqm, and neither a trigger, a requester nor the restart starts it until START CHANNEL (IBM keeps a stopped
channel's status across a restart).

Each running channel is a :class:`~._sender.Sender` (SDR, SVR) or a :class:`~._requester.Requester` (RQSTR) on
its own thread. A requester of another queue manager reaches this initiator through its server
(:meth:`Initiator.requested`): a SVR starts over the requester's connection, a SDR calls back. STOP CHANNEL's
MODE(QUIESCE) lets the current batch finish, MODE(FORCE|TERMINATE) cuts the link; STATUS(STOPPED|INACTIVE) is
the state the channel ends in; at the receiving end STOP and START act on the server's receiving channel.
"""

from __future__ import annotations

import json
import logging
import socket
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from syncpoint.mqi import MQGMO, MQMD, MQOD, MQPMO, MQTM, MQMIError, matches_generic
from syncpoint.mqi import constants as C
from syncpoint.mqi.objects import (
    CHANNEL,
    CHANNEL_COMMAND_FORMAT,
    MQCHT_RECEIVER,
    MQCHT_REQUESTER,
    MQCHT_SENDER,
    MQCHT_SERVER,
    QLOCAL,
    SYSTEM_CHANNEL_INITQ,
)

from ._agent import Status
from ._credentials import Credentials
from ._link import Link
from ._requester import Requester
from ._sender import LocalSide, Record, Sender

log = logging.getLogger("syncpoint.channel")

_SENDING = (MQCHT_SENDER, MQCHT_SERVER)
_TYPE_WORD = {MQCHT_SENDER: "SDR", MQCHT_SERVER: "SVR", MQCHT_RECEIVER: "RCVR", MQCHT_REQUESTER: "RQSTR"}
_ENDING = (C.MQRC_Q_MGR_QUIESCING, C.MQRC_Q_MGR_STOPPING, C.MQRC_CONNECTION_QUIESCING, C.MQRC_CONNECTION_BROKEN)


class _Running:
    def __init__(self, sender: Sender | Requester, thread: threading.Thread, stop: threading.Event) -> None:
        self.sender, self.thread, self.stop = sender, thread, stop


class Initiator:
    """The channel initiator: ``start()`` runs it on a thread, ``stop()`` ends it and its channels."""

    def __init__(
        self,
        connect: Callable[[], Any],
        qmgr_dir: Path | None = None,
        receivers: Callable[[], list[dict[str, Any]]] | None = None,
        receiving_control: Callable[[str, str, str], bool] | None = None,
    ) -> None:
        self.receiving_control = receiving_control or (lambda op, name, status: False)
        self.connect = connect
        self.qmgr_dir = qmgr_dir
        self.credentials = Credentials(qmgr_dir / "channels.json" if qmgr_dir is not None else None)
        # the channels STOP CHANNEL STATUS(STOPPED) stopped: per channel {"reason": …}, the same kind of file
        self.stopped = Credentials(qmgr_dir / "chstopped.json" if qmgr_dir is not None else None)
        self.receivers = receivers or (lambda: [])
        self.statuses: dict[str, Status] = {}
        self.running: dict[str, _Running] = {}
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None

    # -- lifecycle ------------------------------------------------------------------------------------------
    def start(self) -> None:
        self._thread = threading.Thread(target=self.run, name="syncpoint-channel-initiator", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        with self._lock:
            runs = list(self.running.values())
        for r in runs:
            r.stop.set()
        for r in runs:
            r.thread.join(5)
        if self._thread is not None:
            self._thread.join(5)

    def run(self) -> None:
        try:
            qm = self.connect()
        except MQMIError as e:
            log.error("the channel initiator cannot connect: %s", e)
            return
        try:
            if qm.admin("lookup", QLOCAL, SYSTEM_CHANNEL_INITQ) is None:
                qm.admin("define", QLOCAL, SYSTEM_CHANNEL_INITQ, {"DESCR": "channel initiation queue"})
            hobj = qm.mqopen(MQOD(ObjectName=SYSTEM_CHANNEL_INITQ.encode()), C.MQOO_INPUT_SHARED)
            self._restore(qm)
            self._resume(qm)
            log.info("channel initiator started on %s", SYSTEM_CHANNEL_INITQ)
            while not self._stop.is_set():
                md = MQMD()
                gmo = MQGMO(Options=C.MQGMO_WAIT | C.MQGMO_FAIL_IF_QUIESCING | C.MQGMO_NO_SYNCPOINT, WaitInterval=500)
                try:
                    data = qm.mqget(hobj, md, gmo)
                except MQMIError as e:
                    if e.reason == C.MQRC_NO_MSG_AVAILABLE:
                        self._reap()
                        continue
                    raise
                self._message(qm, md, data)
        except MQMIError as e:
            if e.reason not in _ENDING:
                log.error("the channel initiator ended: %s", e)
        except Exception:  # pragma: no cover - a defect: keep the server
            log.exception("the channel initiator failed")
        finally:
            try:
                qm.disconnect()
            except Exception:
                pass

    def _restore(self, qm: Any) -> None:
        """The channels an operator stopped before the last end are STOPPED again (deleted ones are forgotten)."""
        for name, entry in self.stopped.all().items():
            d = qm.admin("lookup", CHANNEL, name)
            if d is None:
                self.stopped.set(name, None)
                continue
            st = Status(name, _TYPE_WORD.get(d.attrs.get("CHLTYPE"), "SDR"), "STOPPED")
            st.xmitq, st.conname = str(d.attrs.get("CHLXMITQ", "")), str(d.attrs.get("CONNAME", ""))
            st.reason = str(entry.get("reason", "")) if isinstance(entry, dict) else ""
            self.statuses[name] = st
            log.info("channel %s is STOPPED, as STOP CHANNEL left it: START CHANNEL starts it", name)

    def _remember_stop(self, name: str, stopped: bool) -> None:
        """Keep (or forget, at START CHANNEL) that an operator stopped ``name``."""
        if self.stopped.path is None:
            return
        if stopped:
            self.stopped.set(name, {"reason": f"AMQ9528I: User requested closedown of channel '{name}'."})
        elif name in self.stopped.all():
            self.stopped.set(name, None)

    def _resume(self, qm: Any) -> None:
        """Start the sending channels that have work: messages on their transmission queue or a batch in doubt."""
        local = LocalSide(qm, "")
        for d in qm.admin("list_objects", CHANNEL):
            if d.attrs.get("CHLTYPE") not in _SENDING or not d.attrs.get("CONNAME"):
                continue
            st = self.statuses.get(d.name)
            if st is not None and st.state == "STOPPED":
                continue  # stopped by an operator before the restart: START CHANNEL starts it
            local.channel = d.name
            xmitq = d.attrs.get("CHLXMITQ", "")
            depth = 0
            try:
                depth = int(qm.admin("queue_status", xmitq)["CURDEPTH"]) if xmitq else 0
            except MQMIError:
                pass
            if depth or local.read_record().msgs:
                self.start_channel(d.name, triggered=True)
        local.release()

    def _reap(self) -> None:
        with self._lock:
            for name, r in list(self.running.items()):
                if not r.thread.is_alive():
                    del self.running[name]

    # -- messages on the initiation queue -----------------------------------------------------------------
    def _message(self, qm: Any, md: MQMD, data: bytes) -> None:
        if md.Format == C.MQFMT_TRIGGER:
            try:
                tm = MQTM.unpack(data[: MQTM.size()])
            except Exception:
                log.warning("a trigger message that is not an MQTM was ignored")
                return
            name = tm.TriggerData.rstrip(b" \0").decode(errors="replace").strip()
            if not name:
                qname = tm.QName.rstrip(b" \0").decode()
                name = next((d.name for d in qm.admin("list_objects", CHANNEL) if d.attrs.get("CHLXMITQ") == qname), "")
            if not name:
                log.warning("a trigger message for %s names no channel", tm.QName.rstrip(b" \0").decode())
                return
            st = self.statuses.get(name)
            if st is not None and st.state == "STOPPED":
                return  # IBM: a STOPPED channel (by STOP CHANNEL or an error) is not started by a trigger: START it
            d = qm.admin("lookup", CHANNEL, name)
            if d is not None and d.attrs.get("CHLTYPE") == MQCHT_SERVER and not d.attrs.get("CONNAME"):
                return  # a SVR without CONNAME waits for its requester to start it
            self.start_channel(name, triggered=True)
            return
        if md.Format == CHANNEL_COMMAND_FORMAT:
            try:
                request = json.loads(data)
                answer = self.command(qm, request)
            except Exception as e:
                answer = {"ok": False, "lines": [f"AMQ8101E: channel command failed: {e}"]}
            reply_q = md.ReplyToQ.rstrip(b" \0")
            if reply_q:
                out = MQMD(CorrelId=md.MsgId, Format=C.MQFMT_STRING, MsgType=C.MQMT_REPLY)
                try:
                    qm.mqput1(
                        MQOD(ObjectName=reply_q, ObjectQMgrName=md.ReplyToQMgr),
                        out,
                        MQPMO(Options=C.MQPMO_NO_SYNCPOINT),
                        json.dumps(answer).encode(),
                    )
                except MQMIError as e:
                    log.warning("the answer to a channel command could not be put: %s", e)
            return
        log.warning("a message of format %r on %s was ignored", md.Format, SYSTEM_CHANNEL_INITQ)

    # -- running channels -----------------------------------------------------------------------------------
    def start_channel(
        self, name: str, triggered: bool = False, tunnel: socket.socket | None = None, requester: bool = False
    ) -> bool:
        with self._lock:
            r = self.running.get(name)
            if r is not None and r.thread.is_alive():
                return False
            stop = threading.Event()
            st = Status(name)
            self.statuses[name] = st
            sender: Sender | Requester
            if requester:
                sender = Requester(
                    name,
                    self.connect,
                    st,
                    self.credentials.of,
                    stop,
                    self.qmgr_dir,
                    lambda n: any(r["CHANNEL"] == n for r in self.receivers()),
                )
            else:
                sender = Sender(name, self.connect, st, self.credentials.of, stop, triggered=triggered, tunnel=tunnel)
            thread = threading.Thread(target=sender.run, name=f"syncpoint-channel-{name}", daemon=True)
            self.running[name] = _Running(sender, thread, stop)
            thread.start()
            return True

    def requested(self, name: str, tunnel: socket.socket | None) -> str:
        """A requester of another queue manager asks for channel ``name`` (a SVR: ``tunnel`` is the requester's
        connection; a SDR: None, it calls back). "" when it started, else IBM's message why not. Called on the
        server's event loop: it only starts a thread."""
        st = self.statuses.get(name)
        if st is not None and st.state == "STOPPED":
            return f"AMQ9558E: The remote channel '{name}' is not currently available: it is STOPPED."
        if not self.start_channel(name, tunnel=tunnel):
            return f"AMQ9514E: Channel '{name}' is in use."
        return ""

    def is_running(self, name: str) -> bool:
        r = self.running.get(name)
        return r is not None and r.thread.is_alive()

    # -- commands -------------------------------------------------------------------------------------------
    def command(self, qm: Any, req: dict[str, Any]) -> dict[str, Any]:
        op = str(req.get("op", "")).upper()
        name = str(req.get("channel", ""))
        if op == "DISPLAY":
            return self._display(qm, name)
        d = qm.admin("lookup", CHANNEL, name)
        if d is None:
            return {"ok": False, "lines": [f"AMQ9519E: Channel '{name}' not found."]}
        sending = d.attrs.get("CHLTYPE") in _SENDING
        if op == "START":
            self._remember_stop(name, False)
            requester = d.attrs.get("CHLTYPE") == MQCHT_REQUESTER and bool(d.attrs.get("CONNAME"))
            if not sending and not requester:
                self.receiving_control("START", name, "")  # a receiving channel STOPPED here may run again
                return {"ok": True, "lines": ["AMQ8018I: Start syncpoint channel accepted."]}
            if d.attrs.get("CHLTYPE") == MQCHT_SERVER and not d.attrs.get("CONNAME"):
                return {"ok": False, "lines": [f"AMQ8101E: Channel '{name}' has no CONNAME: its requester starts it."]}
            if not self.start_channel(name, requester=requester):
                return {"ok": False, "lines": [f"AMQ9514E: Channel '{name}' is in use."]}
            return {"ok": True, "lines": ["AMQ8018I: Start syncpoint channel accepted."]}
        if op == "STOP":
            r = self.running.get(name)
            mode, status = str(req.get("mode", "QUIESCE")).upper(), str(req.get("status", "STOPPED")).upper()
            if (r is None or not r.thread.is_alive()) and not sending and self.receiving_control("STOP", name, status):
                return {"ok": True, "lines": ["AMQ8019I: Stop syncpoint channel accepted."]}
            if r is None or not r.thread.is_alive():
                return {"ok": False, "lines": [f"AMQ9533E: Channel '{name}' is not currently active."]}
            self.statuses[name].state = "STOPPING"
            r.sender.stop_status = "INACTIVE" if status == "INACTIVE" else "STOPPED"
            self._remember_stop(name, status != "INACTIVE")
            if mode in ("FORCE", "TERMINATE"):
                r.sender.force()  # stop now: the batch on the wire stays in doubt
            else:
                r.stop.set()  # QUIESCE: the current batch finishes first
            return {"ok": True, "lines": ["AMQ8019I: Stop syncpoint channel accepted."]}
        if op == "PING":
            return self._ping(d)
        if not sending:
            return {"ok": False, "lines": [f"AMQ8101E: {op} CHANNEL applies to the sending end of '{name}'."]}
        if self.is_running(name):
            return {"ok": False, "lines": [f"AMQ9514E: Channel '{name}' is in use."]}
        local = LocalSide(qm, name)
        try:
            return self._settle(qm, d, op, req, local)
        finally:
            local.release()

    def _settle(self, qm: Any, d: Any, op: str, req: dict[str, Any], local: LocalSide) -> dict[str, Any]:
        """RESET / RESOLVE CHANNEL of a sending channel that is not running."""
        name = d.name
        rec = local.read_record()
        if op == "RESET":
            n = int(req.get("seqnum", 1))
            if rec.msgs:
                why = f"AMQ9527E: Channel '{name}' has a batch in doubt: RESOLVE CHANNEL first, then RESET."
                return {"ok": False, "lines": [why]}
            local.write_record(Record(n - 1, "", [], n - 1))
            qm.mqcmit()
            return {"ok": True, "lines": ["AMQ8023I: syncpoint channel reset."]}
        if op == "RESOLVE":
            action = str(req.get("action", "")).upper()
            if action not in ("COMMIT", "BACKOUT"):
                return {"ok": False, "lines": ["AMQ8101E: RESOLVE CHANNEL needs ACTION(COMMIT) or ACTION(BACKOUT)."]}
            n = len(rec.msgs)
            if action == "BACKOUT":
                xmitq = str(d.attrs.get("CHLXMITQ", ""))
                for raw in rec.msgs:
                    _requeue(qm, xmitq, raw)
            rec.msgs = []
            local.write_record(rec)
            qm.mqcmit()
            done = "backed out (back on the transmission queue)" if action == "BACKOUT" else "committed"
            return {"ok": True, "lines": [f"AMQ8493I: syncpoint channel resolved: {n} in-doubt messages {done}."]}
        return {"ok": False, "lines": [f"AMQ8101E: unknown channel command {op}."]}

    def _ping(self, d: Any) -> dict[str, Any]:
        if d.attrs.get("CHLTYPE") not in _SENDING or not d.attrs.get("CONNAME"):
            return {"ok": False, "lines": [f"AMQ8101E: PING CHANNEL needs a sending channel with CONNAME: {d.name}."]}
        try:
            link = Link.for_channel(d.attrs, self.credentials.of(d.name), timeout=10)
            try:
                link.channel("ping", d.name, {})
            finally:
                link.close()
        except MQMIError as e:
            return {"ok": False, "lines": [f"AMQ9558E: PING CHANNEL '{d.name}' failed: {e.detail or e}"]}
        return {"ok": True, "lines": ["AMQ8020I: Ping syncpoint channel complete."]}

    def _display(self, qm: Any, pattern: str) -> dict[str, Any]:
        rows: list[dict[str, Any]] = []
        receiving = [r for r in self.receivers() if matches_generic(pattern or "*", r["CHANNEL"])]
        for name, st in sorted(self.statuses.items()):
            if not matches_generic(pattern or "*", name):
                continue
            if st.state == "INACTIVE":
                continue
            if st.chltype == "RQSTR" and any(
                r["CHANNEL"] == name and r["STATUS"] in ("RUNNING", "PAUSED") for r in receiving
            ):
                continue  # a requester whose partner sends: the receiving MCA's status is the channel's
            rows.append(st.pairs())
        shown = {r["CHANNEL"] for r in rows}
        local = None
        for d in qm.admin("list_objects", CHANNEL):
            if d.name in shown or not matches_generic(pattern or "*", d.name):
                continue
            if d.attrs.get("CHLTYPE") in _SENDING:
                local = local or LocalSide(qm, d.name)
                local.channel = d.name
                rec = local.read_record()
                if rec.msgs:  # a batch in doubt shows, as IBM's in-doubt channel does, while the channel is not running
                    st = Status(d.name, _TYPE_WORD[d.attrs["CHLTYPE"]], "STOPPED" if not rec.msgs else "RETRYING")
                    st.xmitq, st.conname, st.seq, st.batch_id, st.indoubt = (
                        d.attrs.get("CHLXMITQ", ""),
                        d.attrs.get("CONNAME", ""),
                        rec.seq,
                        rec.batch_id,
                        True,
                    )
                    st.state = "INACTIVE"
                    rows.append(st.pairs())
        if local is not None:
            local.release()
        rows.extend(r for r in receiving if r["STATUS"] != "INACTIVE")
        return {"ok": True, "status": rows}


def _requeue(qm: Any, xmitq: str, raw: bytes) -> None:
    """An in-doubt message back on its transmission queue (RESOLVE CHANNEL ACTION(BACKOUT))."""
    from syncpoint.mqi import MQXQH

    inner = MQXQH.unpack(raw[: C.MQXQH_LENGTH_1]).MsgDesc
    md = MQMD(
        Format=C.MQFMT_XMIT_Q_HEADER,
        Persistence=inner.Persistence,
        Priority=inner.Priority,
        Expiry=inner.Expiry,
        MsgId=inner.MsgId,
        CorrelId=inner.CorrelId,
    )
    qm.mqput1(MQOD(ObjectName=xmitq.encode()), md, MQPMO(Options=C.MQPMO_SYNCPOINT), raw)
