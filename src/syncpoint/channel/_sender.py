"""The sending message channel agent (MCA) of a SDR or SVR channel: transmission queue → remote queue manager.

Theory of operation (assured delivery, issue 23 item 4). The sender keeps one sync record per channel on its
own SYSTEM.CHANNEL.SYNCQ (CorrelId ``S`` + channel name): the last sequence number and batch id it used, and
the persistent messages of the batch it has not yet seen confirmed. One batch:

1. In one local unit of work: MQGET (syncpoint) up to BATCHSZ messages (and BATCHLIM bytes) from the
   transmission queue, waiting BATCHINT for more, and replace the sync record by (seq + 1, new id, the batch's
   persistent messages). Commit: one sync. The batch is now *in doubt*: off the transmission queue and held,
   whole, in the record.
2. Send the batch (``channel batch``) to the receiving end, which delivers it and records (seq, id) in the same
   unit of work, commits (one sync) and only then answers.
3. The answer confirms the batch; the next batch's unit of work replaces the record.

Failure anywhere: at restart the record holds the in-doubt batch; the sender asks the receiver for its last
committed (seq, id) (``channel open``). Same id: the batch arrived (committed at both ends now). Otherwise
the batch is sent again with the same seq and id; the receiver acknowledges a batch it already committed
without delivering it twice. So each persistent message is delivered once and only once, at the cost of one
sync per batch at each end. Non-persistent messages on an NPMSPEED(FAST) channel travel in the batch but are
not kept in the record: a failure between steps 1 and 2 loses them (IBM's rule for fast messages).

A message longer than the channel's MAXMSGL goes to this queue manager's dead-letter queue with
MQRC_MSG_TOO_BIG_FOR_CHANNEL (2218); a transmission-queue message without a valid MQXQH with
MQFB_XMIT_Q_MSG_ERROR (271); both in the batch's unit of work. No dead-letter queue: the channel stops.

Retries: a failed connection or batch puts the channel in RETRYING: SHORTRTY attempts SHORTTMR seconds apart,
then LONGRTY attempts LONGTMR seconds apart (waits on an event: no busy loop), then STOPPED. DISCINT seconds
without a message end the channel normally (INACTIVE); HBINT seconds without one send a heartbeat.
"""

from __future__ import annotations

import logging
import secrets
import socket
import struct
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import msgpack

from syncpoint.client import dead_letter, dead_letter_queue
from syncpoint.mqi import MQGMO, MQMD, MQOD, MQPMO, MQXQH, MQMIError
from syncpoint.mqi import constants as C
from syncpoint.mqi.objects import CHANNEL, MQCHT_SENDER, MQCHT_SERVER, MQNPMS_FAST, QLOCAL, SYSTEM_CHANNEL_SYNCQ

from ._agent import ChannelAgent, ChannelStoppedError, Status
from ._link import Link

log = logging.getLogger("syncpoint.channel")

BATCHLIM = 5000 * 1024  # IBM's BATCHLIM default: a batch ends after this many bytes
_XQH = C.MQXQH_LENGTH_1
_XQH_HEAD = struct.Struct("=4si48s48s")  # MQXQH StrucId, Version, RemoteQName, RemoteQMgrName
_MD_VERSION_AT = 104 + 4  # the embedded MQMD's Version
_EXPIRY_AT = 104 + 16  # the embedded MQMD's Expiry
_INT = struct.Struct("=i")
_MD_FIELDS = MQMD().__dict__
_GMO_NO_WAIT = MQGMO(Options=C.MQGMO_SYNCPOINT | C.MQGMO_FAIL_IF_QUIESCING | C.MQGMO_NO_WAIT).__dict__
SYNCQ_ATTRS = {"DESCR": "channel synchronisation records", "MAXDEPTH": 999_999_999, "MAXMSGL": 104_857_600}


def correl_id(role: str, channel: str) -> bytes:
    """The CorrelId of a channel's sync record: ``S`` (sending end) or ``R`` (receiving end) + the name."""
    return (role + channel).encode()[:24].ljust(24, b"\0")


def new_batch_id() -> str:
    """A batch's logical unit of work id: 16 hexadecimal digits, as IBM's LSTLUWID shows one."""
    return secrets.token_hex(8).upper()


@dataclass
class Record:
    """A sending channel's sync record: last seq and batch id, the in-doubt batch's persistent messages."""

    seq: int = 0
    batch_id: str = ""
    msgs: list[bytes] = field(default_factory=list)
    reset: int | None = None  # RESET CHANNEL SEQNUM(n): n - 1, told to the receiver at the next start
    taken: float = 0.0  # when the batch left the transmission queue (wall clock: it outlives a restart)

    def pack(self) -> bytes:
        packed: bytes = msgpack.packb([self.seq, self.batch_id, self.msgs, self.reset, self.taken])
        return packed

    @classmethod
    def unpack(cls, data: bytes) -> Record:
        seq, batch_id, msgs, reset, *rest = msgpack.unpackb(data)  # a record written before ``taken``: 0
        return cls(seq, batch_id, list(msgs), reset, float(rest[0]) if rest else 0.0)


@dataclass(slots=True)
class _Sent:
    """A batch sent whose answer is not read yet: its request, sequence number, id and message count."""

    rid: int
    seq: int
    batch_id: str
    count: int
    params: dict[str, Any]  # the request, sent again when the receiver asks for a retry (MRRTY)
    at: float = 0.0  # STATCHL: when it was sent (monotonic), for the channel's net time


def in_transit(msgs: list[bytes], taken: float, now: float) -> list[bytes]:
    """The batch's messages as they leave ``now``: each MQXQH's Expiry lowered by the time since the batch left
    the transmission queue at ``taken`` (seed 002: "decremented by message channel agents to reflect transmission
    times, if these are significant" — a batch held in doubt across an outage or a restart). Under a second is
    not significant: the messages are sent as they are."""
    tenths = int((now - taken) * 10) if taken else 0
    if tenths < 10:
        return msgs
    out = []
    for raw in msgs:
        xqh = MQXQH.unpack(raw[:_XQH])
        inner: MQMD = xqh.MsgDesc
        if inner.Expiry != C.MQEI_UNLIMITED:
            inner.Expiry = max(inner.Expiry - tenths, 0)
            raw = xqh.pack() + raw[_XQH:]
        out.append(raw)
    return out


class LocalSide:
    """The sending MCA's connection to its own queue manager: the transmission queue and the sync queue."""

    def __init__(self, qm: Any, channel: str) -> None:
        self.qm = qm
        self.channel = channel
        if qm.admin("lookup", QLOCAL, SYSTEM_CHANNEL_SYNCQ) is None:
            try:
                qm.admin("define", QLOCAL, SYSTEM_CHANNEL_SYNCQ, dict(SYNCQ_ATTRS))
            except MQMIError as e:
                if e.reason != C.MQRC_OBJECT_ALREADY_EXISTS:
                    raise
        self.syncq = qm.mqopen(
            MQOD(ObjectName=SYSTEM_CHANNEL_SYNCQ.encode()), C.MQOO_INPUT_SHARED | C.MQOO_OUTPUT | C.MQOO_BROWSE
        )
        self.xmitq: int | None = None

    def open_xmitq(self, name: str) -> None:
        # IBM: a sending MCA opens its transmission queue for exclusive input, so one channel serves it
        self.xmitq = self.qm.mqopen(MQOD(ObjectName=name.encode()), C.MQOO_INPUT_EXCLUSIVE | C.MQOO_INQUIRE)

    def read_record(self) -> Record:
        md = MQMD(CorrelId=correl_id("S", self.channel))
        gmo = MQGMO(Options=C.MQGMO_BROWSE_FIRST, MatchOptions=C.MQMO_MATCH_CORREL_ID)
        try:
            return Record.unpack(self.qm.mqget(self.syncq, md, gmo))
        except MQMIError as e:
            if e.reason == C.MQRC_NO_MSG_AVAILABLE:
                return Record()
            raise

    def write_record(self, rec: Record) -> None:
        """Replace the record, in the current unit of work (the caller commits)."""
        md = MQMD(CorrelId=correl_id("S", self.channel))
        gmo = MQGMO(Options=C.MQGMO_SYNCPOINT, MatchOptions=C.MQMO_MATCH_CORREL_ID)
        try:
            self.qm.mqget(self.syncq, md, gmo)
        except MQMIError as e:
            if e.reason != C.MQRC_NO_MSG_AVAILABLE:
                raise
        out = MQMD(CorrelId=correl_id("S", self.channel), Persistence=C.MQPER_PERSISTENT)
        self.qm.mqput(self.syncq, out, MQPMO(Options=C.MQPMO_SYNCPOINT), rec.pack())

    def get(self, wait_ms: int) -> tuple[MQMD, bytes] | None:
        assert self.xmitq is not None
        md = MQMD()
        options = C.MQGMO_SYNCPOINT | C.MQGMO_FAIL_IF_QUIESCING | (C.MQGMO_WAIT if wait_ms > 0 else 0)
        gmo = MQGMO(Options=options, WaitInterval=wait_ms)
        try:
            return md, self.qm.mqget(self.xmitq, md, gmo)
        except MQMIError as e:
            if e.reason == C.MQRC_NO_MSG_AVAILABLE:
                return None
            raise

    def get_more(self, n: int) -> list[tuple[MQMD, bytes]]:
        """Up to ``n`` messages from the transmission queue without waiting, in the unit of work: one call to the
        queue manager for the lot where the connection can (in process: one hold of its lock)."""
        assert self.xmitq is not None
        get_many = getattr(self.qm.transport, "get_many", None)
        if get_many is None:
            out: list[tuple[MQMD, bytes]] = []
            while len(out) < n and (one := self.get(0)) is not None:
                out.append(one)
            return out
        items = [(MQMD.with_fields(_MD_FIELDS), MQGMO.with_fields(_GMO_NO_WAIT), None) for _ in range(n)]
        got: list[tuple[MQMD, bytes]] = []
        for (md, _, _), r in zip(items, get_many(self.xmitq, items), strict=False):
            if isinstance(r, MQMIError):
                if r.reason == C.MQRC_NO_MSG_AVAILABLE:
                    break
                raise r
            got.append((md, r.data))
        return got

    def dead_letter(self, md: MQMD, data: bytes, reason: int, dest_q: str, dest_qmgr: str) -> None:
        """A message the channel cannot send, to this queue manager's DLQ (in the batch's unit of work), by the
        client's one dead-letter put (MQDLH, context and remaining expiry kept)."""
        if not dead_letter_queue(self.qm):
            raise ChannelStoppedError(
                f"AMQ9544E: a message could not be sent on channel '{self.channel}' (reason {reason}) and queue "
                f"manager {self.qm.name} has no dead-letter queue: the channel stops."
            )
        dead_letter(
            self.qm,
            md,
            data,
            reason,
            dest_q=dest_q,
            dest_qmgr=dest_qmgr,
            put_appl_type=C.MQAT_QMGR,
            put_appl_name="syncpoint channel",
        )

    def release(self) -> None:
        """Close the sync queue (a command or scan that used it is done: CLEAR and DELETE may act on it)."""
        try:
            self.qm.mqclose(self.syncq)
        except MQMIError:
            pass

    def close(self) -> None:
        try:
            self.qm.mqback()
        except Exception:
            pass
        try:
            self.qm.disconnect()
        except Exception:
            pass


def _xqh_ok(md: MQMD, data: bytes) -> bool:
    """Whether a transmission-queue message starts with a valid MQXQH (version 1, a RemoteQName, an embedded
    MQMD version 1), read in place."""
    if len(data) < _XQH or md.Format != C.MQFMT_XMIT_Q_HEADER:
        return False
    sid, version, remote_q, _ = _XQH_HEAD.unpack_from(data)
    return (
        sid == b"XQH "
        and version == C.MQXQH_VERSION_1
        and _INT.unpack_from(data, _MD_VERSION_AT)[0] == C.MQMD_VERSION_1
        and bool(remote_q.strip(b" \0"))
    )


def valid_xqh(md: MQMD, data: bytes) -> MQXQH | None:
    """The MQXQH at the front of a transmission-queue message, or None when it has none that is valid."""
    if not _xqh_ok(md, data):
        return None
    try:
        return MQXQH.unpack(data[:_XQH])
    except Exception:
        return None


class Sender(ChannelAgent):
    """One run of a sending channel, from start to INACTIVE or STOPPED; ``run()`` on its own thread."""

    # the base's five parameters are restated (not ``*args``) so that the initiator's calls stay checked by type
    def __init__(
        self,
        name: str,
        connect: Callable[[], Any],
        status: Status,
        credentials: Callable[[str], dict[str, Any]],
        stop: threading.Event,
        *,
        triggered: bool = False,
        tunnel: socket.socket | None = None,
    ) -> None:
        super().__init__(name, connect, status, credentials, stop)
        self.tunnel = tunnel  # a SVR started by a requester: its connection, relayed by this server's session
        self.triggered = triggered
        self.local: LocalSide | None = None
        self.reached_running = False
        self.stats = False  # STATCHL: this run collects channel statistics (asked once at start, as IBM's)

    # -- the whole run ------------------------------------------------------------------------------------
    def run(self) -> None:
        st = self.status
        try:
            qm = self.connect()
            self.qmgr_name = qm.name
            self.local = LocalSide(qm, self.name)
            self.event_qm = qm  # its channel events go through its own connection (``channel_event``)
            d = qm.admin("lookup", CHANNEL, self.name)
            if d is None:
                raise ChannelStoppedError(f"AMQ9519E: Channel '{self.name}' not found.")
            self.attrs = dict(d.attrs)
            st.chltype = "SVR" if self.attrs.get("CHLTYPE") == MQCHT_SERVER else "SDR"
            st.xmitq, st.conname = self.attrs["CHLXMITQ"], self.attrs["CONNAME"]
            if not st.xmitq or not (st.conname or self.tunnel is not None):
                raise ChannelStoppedError(f"channel '{self.name}' needs XMITQ and CONNAME to send")
            self.local.open_xmitq(st.xmitq)
            self.stats = self._statistics_wanted(qm)
            self._retrying_loop()
        except ChannelStoppedError as e:
            self._ended(e)
        except MQMIError as e:
            if e.reason in (C.MQRC_Q_MGR_QUIESCING, C.MQRC_Q_MGR_STOPPING, C.MQRC_CONNECTION_QUIESCING):
                st.state = "INACTIVE"
            else:
                st.state, st.reason = "STOPPED", str(e)
                log.error("channel %s stopped: %s", self.name, e)
        except Exception as e:  # pragma: no cover - a defect: say so, end the channel, keep the server
            st.state, st.reason = "STOPPED", f"internal error: {e!r}"
            log.exception("channel %s failed", self.name)
        finally:
            if self.link is not None:
                self.link.close()
            if self.local is not None:
                self.local.close()

    def _attempt(self) -> bool | None:
        self.reached_running = False
        self._session()
        self.status.state = "INACTIVE"  # DISCINT passed: ended normally
        return None

    def _failed(self, e: MQMIError) -> bool | None:
        if e.reason in (C.MQRC_Q_MGR_QUIESCING, C.MQRC_Q_MGR_STOPPING, C.MQRC_CONNECTION_QUIESCING):
            raise e
        super()._failed(e)
        if not self.attrs.get("CONNAME"):  # a SVR started by its requester cannot call back: it ends and
            self.local_backout()  # the requester retries (its batch in doubt is resolved then)
            self.status.state = "INACTIVE"
            return None
        return self.reached_running

    def _backout(self) -> None:
        self.local_backout()

    def local_backout(self) -> None:
        assert self.local is not None
        self.local.qm.mqback()

    # -- one connection to the receiver -------------------------------------------------------------------
    def _session(self) -> None:
        st = self.status
        local = self.local
        assert local is not None
        tunnel, self.tunnel = self.tunnel, None  # a requester's connection serves one session
        hbint = int(self.attrs["HBINT"])
        # a reply that does not come within twice HBINT (10 s at least; 30 s without heartbeats) ends the link
        self.link = link = Link.for_channel(
            self.attrs, self.credentials(self.name), timeout=max(10.0, 2.0 * hbint) if hbint else 30.0, sock=tunnel
        )
        rec = local.read_record()
        params: dict[str, Any] = {"qmgr": local.qm.name, "wrap": int(self.attrs["SEQWRAP"])}
        if rec.reset is not None:
            params["reset"] = rec.reset
        peer = link.channel("open", self.name, params)
        st.rqmname = str(peer.get("qmgr", link.qmgr))
        if rec.reset is not None:
            rec.reset = None
            local.write_record(rec)
            local.qm.mqcmit()
        pseq, pid = int(peer["seq"]), str(peer["id"])
        st.seq, st.batch_id = pseq, pid
        wrap = int(self.attrs["SEQWRAP"])
        if pid != rec.batch_id:
            if rec.seq != (1 if pseq >= wrap else pseq + 1):
                raise ChannelStoppedError(
                    f"AMQ9526E: Message sequence number error for channel '{self.name}': this end's last batch "
                    f"is number {rec.seq}, the remote end's {pseq}. Resolve the channel, then RESET CHANNEL."
                )
            # the last batch (in doubt) did not arrive: send it again, same number and id
            st.indoubt = True
            self._send(rec, len(rec.msgs), [])
        st.indoubt = False  # the batch in doubt arrived (same id at the receiver) or was sent again just now
        st.state, st.reason = "RUNNING", ""
        self.reached_running = True
        self.channel_event(C.MQRC_CHANNEL_STARTED)  # IBM's Channel Started (CHLEV)
        self._batches(rec)
        link.channel("close", self.name, {})

    def _batches(self, rec: Record) -> None:
        """Batches until DISCINT or STOP CHANNEL. While the receiver commits the batch sent, the next is taken off
        the transmission queue and its record written, in this end's unit of work; that is committed only once
        the answer confirmed the batch sent, so one batch at most is ever in doubt (a failure before backs the
        next batch out: its messages are on the transmission queue again, the sent batch's record is back)."""
        local = self.local
        assert local is not None and self.link is not None
        discint, hbint = int(self.attrs["DISCINT"]), int(self.attrs["HBINT"])
        wrap = int(self.attrs["SEQWRAP"])
        idle_since = time.monotonic()
        last_sent = time.monotonic()
        sent: _Sent | None = None  # the batch sent whose answer is not read yet
        while True:
            if self.stop.is_set():
                if sent is not None:
                    self._confirmed(sent)
                self._forget_confirmed(rec)
                try:  # STOP CHANNEL MODE(QUIESCE): the channel ends with its partner, as at DISCINT
                    self.link.channel("close", self.name, {})
                except MQMIError:
                    pass
                raise ChannelStoppedError("STOP CHANNEL")
            got: list[tuple[MQMD, bytes]] = []
            if sent is None:
                now = time.monotonic()
                wait_s = 1.0  # wake at least every second to see STOP CHANNEL
                if discint:
                    wait_s = min(wait_s, max(0.0, idle_since + discint - now))
                first = local.get(max(1, int(wait_s * 1000)))
                if first is None:
                    rec = self._forget_confirmed(rec)  # idle: the confirmed batch need not be held any longer
                    now = time.monotonic()
                    if discint and now - idle_since >= discint:
                        return  # DISCINT: the channel ends normally, INACTIVE (the record was cleared above)
                    if hbint and now - last_sent >= hbint:
                        self._heartbeat(hbint)
                        last_sent = now
                    continue
                got.append(first)
            taken = time.time()  # the batch leaves the transmission queue
            try:
                persistent, np, count = self._collect(got)
            except ChannelStoppedError:
                if sent is not None:  # the batch sent is confirmed first: it is not left in doubt
                    self._confirmed(sent)
                raise
            if count:  # the record replaced in the unit of work; backed out, the last one is back
                seq = 1 if rec.seq >= wrap else rec.seq + 1
                rec = Record(seq, new_batch_id(), persistent, taken=taken)
                local.write_record(rec)
            if sent is not None:
                self._confirmed(sent)
                sent = None
            if not count:
                continue  # the transmission queue is empty: wait for it as above
            local.qm.mqcmit()  # the batch is in doubt: held in the record, off the transmission queue
            # only dead letters: nothing to deliver, but the sequence number is used
            full = None
            if self.stats:  # STATCHL: BATCHSZ or BATCHLIM ended it (FullBatchCount), else IncmplBatchCount
                size = sum(map(len, persistent)) + sum(map(len, np))
                full = count >= int(self.attrs["BATCHSZ"]) or size >= BATCHLIM
            sent = self._send_batch(rec, len(persistent) + len(np), np, full)
            last_sent = idle_since = time.monotonic()

    def _collect(self, got: list[tuple[MQMD, bytes]]) -> tuple[list[bytes], list[bytes], int]:
        """A batch from the transmission queue, in the unit of work: up to BATCHSZ messages and BATCHLIM bytes,
        waiting BATCHINT ms for more; ``got`` holds those already got. The persistent (and NPMSPEED(NORMAL))
        messages as they will cross, the fast non-persistent ones, and how many messages were got (dead letters
        included)."""
        assert self.local is not None
        batchsz, batchint = int(self.attrs["BATCHSZ"]), int(self.attrs["BATCHINT"])
        maxmsgl = int(self.attrs["CHLMAXMSGL"])
        fast = self.attrs["NPMSPEED"] == MQNPMS_FAST
        persistent: list[bytes] = []
        np: list[bytes] = []
        size = count = longest = 0
        deadline = time.monotonic() + batchint / 1000.0
        while True:
            for md, data in got:
                count += 1
                raw = self._prepared(md, data, maxmsgl)
                if raw is not None:
                    size += len(raw)
                    longest = max(longest, len(raw))
                    if md.Persistence != C.MQPER_PERSISTENT and fast:
                        np.append(raw)
                    else:
                        persistent.append(raw)
            if count >= batchsz or size >= BATCHLIM:
                return persistent, np, count
            # as many as can come without passing BATCHLIM by more than the last message, if none is longer
            want = batchsz - count if not longest else min(batchsz - count, -(-(BATCHLIM - size) // longest))
            got = self.local.get_more(want)
            if not got:
                left = deadline - time.monotonic()
                one = self.local.get(int(left * 1000)) if left > 0.001 else None
                if one is None:
                    return persistent, np, count
                got = [one]

    def _heartbeat(self, hbint: int) -> None:
        """IBM's heartbeat: an idle channel checks its partner every HBINT seconds; no answer within HBINT and
        the link is broken: RETRYING, the partner is not waited for any longer."""
        assert self.link is not None
        try:
            self.link.channel("hb", self.name, {}, timeout=max(1.0, float(hbint)))
        except MQMIError as e:
            if e.reason != C.MQRC_CONNECTION_BROKEN:
                raise
            raise MQMIError(
                C.MQCC_FAILED,
                C.MQRC_CONNECTION_BROKEN,
                f"AMQ9259E: Connection timed out from host '{self.status.conname}': the heartbeat was not answered"
                f" within HBINT ({hbint} s): {e.detail}",
            ) from None

    def _forget_confirmed(self, rec: Record) -> Record:
        """The last batch is confirmed: drop its messages from the sync record (one sync, when the channel is
        idle or ends, not per batch), so that an in-doubt record always means a batch not yet confirmed."""
        assert self.local is not None
        if not rec.msgs:
            return rec
        rec = Record(rec.seq, rec.batch_id, [])
        self.local.write_record(rec)
        self.local.qm.mqcmit()
        return rec

    def _send(self, rec: Record, count: int, np: list[bytes]) -> None:
        """Send a batch and wait for its answer (a batch in doubt sent again at the start)."""
        self._confirmed(self._send_batch(rec, count, np))

    def _send_batch(self, rec: Record, count: int, np: list[bytes], full: bool | None = None) -> _Sent:
        """Send a batch without waiting for its answer (:meth:`_confirmed` reads it)."""
        assert self.link is not None
        params: dict[str, Any] = {
            "seq": rec.seq,
            "id": rec.batch_id,
            "msgs": in_transit(rec.msgs + np, rec.taken, time.time()),
            "wrap": int(self.attrs["SEQWRAP"]),
        }
        if full is not None:
            params["full"] = full  # the receiving end's FullBatchCount / IncmplBatchCount
        rid = self.link.send("channel", ["batch", self.name, params])
        self.status.indoubt = True
        return _Sent(rid, rec.seq, rec.batch_id, count, params, time.monotonic())

    def _confirmed(self, sent: _Sent) -> None:
        """The receiver's answer to a batch sent: it committed the batch (else the answer's error is raised, and
        the batch stays in doubt). An answer asking for a retry (the receiving MCA's message retry, MRRTY/MRTMR,
        its channel PAUSED) sends the same batch again after MRTMR ms; STOP CHANNEL MODE(QUIESCE) waits for it,
        MODE(FORCE) leaves it in doubt."""
        assert self.link is not None
        while True:
            answer = self.link.answer(sent.rid)
            if not isinstance(answer, dict) or "retry" not in answer:
                break
            if self.cut.wait(max(0, int(answer["retry"])) / 1000.0):
                raise ChannelStoppedError("STOP CHANNEL")
            sent.rid = self.link.send("channel", ["batch", self.name, sent.params])
        if self.stats:  # before the status shows the batch (what the status shows, the statistics hold)
            self._count(sent)
        st = self.status
        st.indoubt = False
        st.seq, st.batch_id = sent.seq, sent.batch_id
        st.msgs += sent.count
        st.batches += 1
        st.last = time.time()

    def _count(self, sent: _Sent) -> None:
        """STATCHL: a confirmed batch's figures to the queue manager (engine ``_chlstats``): messages, bytes as
        they crossed, full or not (a batch in doubt sent again: not known, counted incomplete), and the net time
        from sending it to reading its confirmation (an upper bound when the next batch was gathered meanwhile)."""
        assert self.local is not None
        st = self.status
        chltype = MQCHT_SERVER if st.chltype == "SVR" else MQCHT_SENDER
        net_us = max(0, int((time.monotonic() - sent.at) * 1_000_000))
        nbytes = sum(map(len, sent.params["msgs"]))
        full = bool(sent.params.get("full", False))
        try:
            self.local.qm.admin(
                "count_channel", self.name, chltype, st.rqmname, st.conname, sent.count, nbytes, full, net_us
            )
        except MQMIError as e:  # the statistics never stop a channel: this run counts no more
            log.warning("channel %s: its statistics are not counted any more: %s", self.name, e)
            self.stats = False

    def _statistics_wanted(self, qm: Any) -> bool:
        """STATCHL, read once as the channel starts (IBM: a change takes effect on channels started after it)."""
        try:
            return bool(qm.admin("channel_statistics", self.name))
        except MQMIError as e:
            log.warning("channel %s: runs without statistics: %s", self.name, e)
            return False

    def _prepared(self, md: MQMD, data: bytes, maxmsgl: int) -> bytes | None:
        """The message as it crosses (its MQXQH's MQMD carrying the Expiry left), or None when it went to the
        dead-letter queue instead (no valid MQXQH; longer than the channel's MAXMSGL)."""
        assert self.local is not None
        if not _xqh_ok(md, data):
            self.local.dead_letter(md, data, C.MQFB_XMIT_Q_MSG_ERROR, self.status.xmitq, self.local.qm.name)
            return None
        if len(data) - _XQH > maxmsgl:
            _, _, remote_q, remote_qmgr = _XQH_HEAD.unpack_from(data)
            self.local.dead_letter(
                md,
                data,
                C.MQRC_MSG_TOO_BIG_FOR_CHANNEL,
                remote_q.rstrip(b" \0").decode(),
                remote_qmgr.rstrip(b" \0").decode(),
            )
            return None
        if md.Expiry != C.MQEI_UNLIMITED and _INT.unpack_from(data, _EXPIRY_AT)[0] != md.Expiry:
            # seed 002: the time spent on the transmission queue counts: the MQXQH's MQMD leaves with what is left
            return data[:_EXPIRY_AT] + _INT.pack(md.Expiry) + data[_EXPIRY_AT + 4 :]
        return data
