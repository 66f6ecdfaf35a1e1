"""The receiving end of a message channel (the receiving MCA), as the request verb ``channel`` of a session.

A sending channel of another queue manager connects to this server's port like any client (the server's
listener is the channel listener: ``hello`` with a user and password when the server requires them, TLS when
it serves TLS) and then speaks ``channel`` requests, ``[op, channel name, {…}]``:

- ``open``: the channel must be defined here as RCVR (or RQSTR) — else MQRC_UNKNOWN_CHANNEL_NAME with IBM's
  AMQ9520E; a channel another live session is running is refused (AMQ9514E, MQRC_CHANNEL_NOT_AVAILABLE). The
  answer is the last committed batch's sequence number and id, so the sender resolves a batch it holds in
  doubt. ``reset`` (RESET CHANNEL at the sender) sets the sequence number.
- ``batch``: ``seq``, ``id``, ``msgs`` (each the transmission-queue message: MQXQH + data). Under one hold of
  the queue manager and in one unit of work: every message is delivered as an MCA delivers (the engine's
  ``deliver_batch``: resolution, dead-letter queue with MQDLH, reports), the channel's sync record on
  SYSTEM.CHANNEL.SYNCQ is replaced by (seq, id), and the unit of work is committed; the reply leaves once that
  is durable. The batch that was last committed, sent again (the sender restarted in doubt), is acknowledged
  without delivering anything twice. Any other sequence number stops the channel with IBM's AMQ9526E.
- ``hb`` (heartbeat), ``close`` (the sender ends the channel normally), ``ping`` (PING CHANNEL: no open).
- ``request``: a requester (RQSTR) of another queue manager asks this one's channel of the same name to start
  (IBM's requester-server and requester-sender pairs). A SVR answers ``{"mode": "server"}`` and sends over the
  requester's own connection: the channel initiator's sending MCA gets one end of a socket pair and the session
  relays the other end's bytes to and from the requester (``tunnel`` in the result, taken by the session), which
  relays them to its own queue manager's server: the sending MCA speaks to the requester's queue manager as it
  would over a connection of its own. A SDR answers ``{"mode": "callback"}``: the requester's connection ends
  and the sender starts the channel to its CONNAME (IBM's callback). A channel that is STOPPED, or running, is
  refused (AMQ9558E / AMQ9514E, MQRC_CHANNEL_NOT_AVAILABLE).

The table of receiving channels (``_RECEIVERS``) holds the channels running here and those STOPPED here (for an
error, or by STOP CHANNEL) — what DISPLAY CHSTATUS shows at this end. A channel whose sender went away without
closing is INACTIVE (IBM: no longer shown); it leaves the table at the next ``open`` of any channel here, keeping
only its last committed batch (``_LAST``: sequence number and id, for the window in which that batch's new sync
record is not yet visible) while a receiving channel of that name is defined. A channel closed cleanly keeps
nothing: its sync record in SYSTEM.CHANNEL.SYNCQ is the truth (clearing it makes the receiving end forget).
Everything kept for a queue manager is dropped when its server ends (:func:`forget_channels`), so the tables grow
with the channels running, not with the channel starts over the server's life (issue 39 item 12).

Implements: issue 23 items 4, 5, 7 (receiving side); reference/mqsc.md, channel states.
"""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from syncpoint.engine import Connection
from syncpoint.host import QueueManagerHost
from syncpoint.mqi import MQGMO, MQMD, MQOD, MQPMO, MQMIError, mqsc_date_time
from syncpoint.mqi import constants as C
from syncpoint.mqi.objects import (
    CHANNEL,
    MQCHT_RECEIVER,
    MQCHT_REQUESTER,
    MQCHT_SENDER,
    MQCHT_SERVER,
    QLOCAL,
    SYSTEM_CHANNEL_SYNCQ,
)
from syncpoint.store import Pending

from ._svrconn import error_log

_SYNCQ_ATTRS = {"DESCR": "channel synchronisation records", "MAXDEPTH": 999_999_999, "MAXMSGL": 104_857_600}


def sync_correl_id(role: str, channel: str) -> bytes:
    """The CorrelId of a channel's sync record: ``R`` (receiving end) or ``S`` (sending end) + the name."""
    return (role + channel).encode()[:24].ljust(24, b"\0")


@dataclass
class Receiver:
    """One receiving channel's state in this server."""

    name: str
    conn: Connection
    hobj: int
    seq: int
    batch_id: str
    peer: str = ""
    user: str = ""
    mcauser: str = ""
    putaut: int = C.MQPA_DEFAULT  # whose authority the puts need: the channel's user (DEF) or the message's (CTX)
    since: float = field(default_factory=time.time)
    batches: int = 0
    msgs: int = 0
    last: float = field(default_factory=time.time)
    stopped: str = ""  # why the channel stopped (sequence error, no DLQ …), "" while it runs
    chltype: str = "RCVR"
    mrrty: int = 10  # message retry (IBM's MRRTY / MRTMR): attempts of a batch a destination refused for now
    mrtmr: int = 1000
    retry_seq: int = -1  # the batch being retried and how many retries it had
    retries: int = 0
    paused: bool = False  # PAUSED: waiting MRTMR before the batch is tried again
    held: bool = False  # stopped by STOP CHANNEL here: its sender is refused and retries
    stats: bool = False  # STATCHL: this run collects channel statistics (decided at open, as IBM's at start)
    batchsz: int = 50  # BATCHSZ here: a batch of as many is full, when the sender does not say

    def status(self) -> dict[str, Any]:
        # IBM: a receiving channel whose sender went away ends (INACTIVE: DISPLAY CHSTATUS no longer shows it);
        # STOPPED only when it stopped for an error (a sequence number error, no dead-letter queue)
        state = "STOPPED" if self.stopped else "RUNNING" if self.conn.alive else "INACTIVE"
        chstada, chstati = mqsc_date_time(self.since)  # IBM's date and time, as DISPLAY CHSTATUS shows them
        lstmsgda, lstmsgti = mqsc_date_time(self.last)
        return {
            "CHANNEL": self.name,
            "CHLTYPE": self.chltype,
            "STATUS": "PAUSED" if state == "RUNNING" and self.paused else state,
            "RQMNAME": self.peer,
            "CURSEQNO": self.seq,
            "LSTLUWID": self.batch_id,
            "MSGS": self.msgs,
            "BATCHES": self.batches,
            "MCAUSER": self.mcauser or self.user,
            "CHSTADA": chstada,
            "CHSTATI": chstati,
            "LSTMSGDA": lstmsgda,
            "LSTMSGTI": lstmsgti,
            "INDOUBT": "NO",
            "STOPREASON": self.stopped,
        }


_RECEIVERS: dict[tuple[int, str], Receiver] = {}
# the channel initiator's answer to a requester: (channel, socket for a SVR or None for a SDR) -> "" when it
# started the channel, else IBM's message why not
_REQUESTS: dict[int, Callable[[str, socket.socket | None], str]] = {}


_HELD: set[tuple[int, str]] = set()  # receiving channels an operator STOPPED: refused until START CHANNEL
# the last committed batch (sequence number, id) of a receiving channel that ended here (module docstring)
_LAST: dict[tuple[int, str], tuple[int, str]] = {}


def forget_channels(qm: Any) -> None:
    """The server of ``qm`` (its QueueManagerHost) ends: drop everything kept for its channels."""
    key = id(qm)
    for table in (_RECEIVERS, _LAST):
        for k in [k for k in table if k[0] == key]:
            del table[k]
    _HELD.difference_update({k for k in _HELD if k[0] == key})
    _REQUESTS.pop(key, None)


def channel_table_sizes(qm: Any) -> dict[str, int]:
    """How many entries each table keeps for ``qm``: its receivers, their last batches, channels held."""
    key = id(qm)
    return {
        "receivers": sum(1 for k in _RECEIVERS if k[0] == key),
        "last": sum(1 for k in _LAST if k[0] == key),
        "held": sum(1 for k in _HELD if k[0] == key),
    }


def _prune(qm: Any) -> None:
    """Under the queue manager's lock, as every change of a receiver: receivers whose sender went away leave the
    table, their last batch kept in ``_LAST`` until no receiving channel of their name is defined."""
    key = id(qm)
    for k, r in [(k, r) for k, r in _RECEIVERS.items() if k[0] == key]:
        if not r.conn.alive and not r.stopped:
            del _RECEIVERS[k]
            _LAST[k] = (r.seq, r.batch_id)
    for k in [k for k in _LAST if k[0] == key]:
        d = qm.engine.lookup(CHANNEL, k[1])
        if d is None or d.attrs.get("CHLTYPE") not in (MQCHT_RECEIVER, MQCHT_REQUESTER):
            del _LAST[k]


def receiving_control(qm: Any, op: str, name: str, status: str = "STOPPED") -> bool:
    """STOP / START CHANNEL of a receiving channel here (``qm``: its QueueManagerHost). STOP: the running receiver
    ends (its sender's next call is refused and it retries); STATUS(STOPPED) also refuses new starts until
    START CHANNEL. False when STOP finds the channel not running."""
    key = (id(qm), name)
    if op == "START":
        _HELD.discard(key)
        return True
    r = _RECEIVERS.get(key)
    running = r is not None and r.conn.alive and not r.stopped
    if not running:
        return False
    assert r is not None
    if status == "INACTIVE":
        del _RECEIVERS[key]
    else:
        _HELD.add(key)
        r.stopped = f"AMQ9528I: User requested closedown of channel '{name}'."
        r.held = True
    qm.run(qm.engine.channel_event, C.MQRC_CHANNEL_STOPPED_BY_USER, name, C.MQRQ_CHANNEL_STOPPED_DISABLED)
    return True


def serve_channel_requests(qm: Any, start: Callable[[str, socket.socket | None], str]) -> None:
    """Register the channel initiator of ``qm`` (its QueueManagerHost) as the one that starts a SVR or SDR a
    requester of another queue manager asks for."""
    _REQUESTS[id(qm)] = start


def receiving_channels(qm: Any) -> list[dict[str, Any]]:
    """DISPLAY CHSTATUS of the receiving channels this server runs or ran (``qm``: its QueueManagerHost)."""
    return [r.status() for (k, _), r in sorted(_RECEIVERS.items()) if k == id(qm)]


def channel_hconns(qm: Any) -> set[int]:
    """The connections of the receiving channels running in this server: a controlled end (endmqm -c) does not
    wait for them, as IBM's queue manager ends its channels rather than waiting for them."""
    return {r.conn.hconn for (k, _), r in list(_RECEIVERS.items()) if k == id(qm) and r.conn.alive}


def connection_ended(qm: Any, conn: Connection, exc: BaseException | None) -> None:
    """The session of ``conn`` ended without the channel's ``close``: its sender went away (killed, the socket
    dropped). A receiving channel still running on it ends on an error, as IBM's receiving MCA does: the error
    log's AMQ9209E (the connection closed) or AMQ9208E (an error on receive, ``exc``), and Channel Stopped (2283)
    with ReasonQualifier MQRQ_CHANNEL_STOPPED_ERROR, ErrorIdentifier 0x2000nnnn of that message, AuxErrorDataInt1
    the TCP error number and AuxErrorDataStr1 the host (IBM: "Channel Stopped": both ends write their own). The
    channel is then INACTIVE (no longer shown), as before. Called after the engine connection ended; not when the
    queue manager itself ends (endmqm -i ends the connections: its partner did not go away)."""
    if qm.waiters.state == "stopped":
        return
    for (key, name), r in list(_RECEIVERS.items()):
        if key != id(qm) or r.conn is not conn or r.stopped:
            continue
        host, _, port = conn.conname.partition("(")
        where = f"{host} ({port.rstrip(')')})" if port else host
        errno = exc.errno if isinstance(exc, OSError) and exc.errno else 0
        if exc is None:
            code, text = 9209, f"AMQ9209E: Connection to host '{where}' for channel '{name}' closed."
        else:
            code, text = 9208, f"AMQ9208E: Error on receive from host '{where}' for channel '{name}' ({exc})."
        error_log(qm.engine.name, text)
        error = [int(f"2000{code}", 16), errno, 0, where, "", ""]
        try:
            qm.run(
                qm.engine.channel_event,
                C.MQRC_CHANNEL_STOPPED,
                name,
                C.MQRQ_CHANNEL_STOPPED_ERROR,
                "",
                conn.conname,
                error,
            )
        except MQMIError:  # the queue manager is ending: no event, as for any call then
            return


def _fail(reason: int, text: str) -> MQMIError:
    return MQMIError(C.MQCC_FAILED, reason, text)


def _text(v: Any, what: str) -> str:
    if not isinstance(v, str) or not v:
        raise _fail(C.MQRC_UNEXPECTED_ERROR, f"{what} must be a non-empty string")
    return v


def channel(qm: QueueManagerHost, conn: Connection, args: list[Any]) -> tuple[Any, Pending | None]:
    """The ``channel`` request: ``[op, channel name, {…}]`` (module docstring)."""
    op, name, params = args
    op, name = _text(op, "op"), _text(name, "the channel name")
    if not isinstance(params, dict):
        raise _fail(C.MQRC_UNEXPECTED_ERROR, "the channel request's parameters must be a map")
    if op == "ping":
        return qm.run(lambda: _definition(qm, name) and {"qmgr": qm.engine.name})
    if op == "open":
        return qm.run(_open, qm, conn, name, params)
    if op == "request":
        return _request(qm, name)
    r = _RECEIVERS.get((id(qm), name))
    if r is None or r.conn is not conn:
        raise _fail(C.MQRC_CHANNEL_NOT_AVAILABLE, f"channel {name} is not open on this connection")
    if r.stopped:
        raise _fail(C.MQRC_CHANNEL_NOT_AVAILABLE if r.held else C.MQRC_CHANNEL_STOPPED, r.stopped)
    r.last = time.time()
    if op == "hb":
        return {"seq": r.seq}, None
    if op == "close":
        # a clean end: its last batch's sync record is committed, and SYNCQ is the truth from now on (an operator
        # may clear it, IBM's way to make the receiving end forget its sequence number: AMQ9526E at the next start)
        _RECEIVERS.pop((id(qm), name), None)
        _, pending = qm.run(  # IBM's Channel Stopped, a normal end (CHLEV)
            qm.engine.channel_event, C.MQRC_CHANNEL_STOPPED, name, C.MQRQ_CHANNEL_STOPPED_OK, "", conn.conname
        )
        return None, pending
    if op == "batch":
        return qm.run(_batch, qm, conn, r, params)
    raise _fail(C.MQRC_FUNCTION_NOT_SUPPORTED, f"unknown channel operation {op!r}")


def _definition(qm: QueueManagerHost, name: str) -> Any:
    d = qm.engine.lookup(CHANNEL, name)
    if d is None or d.attrs.get("CHLTYPE") not in (MQCHT_RECEIVER, MQCHT_REQUESTER):
        raise _fail(
            C.MQRC_UNKNOWN_CHANNEL_NAME,
            f"AMQ9520E: Channel '{name}' not defined remotely: queue manager {qm.engine.name} has no receiver "
            "channel of that name.",
        )
    return d


def _request(qm: QueueManagerHost, name: str) -> tuple[Any, Pending | None]:
    """A requester asks channel ``name`` here to start (module docstring)."""
    d, _ = qm.run(qm.engine.lookup, CHANNEL, name)
    if d is None or d.attrs.get("CHLTYPE") not in (MQCHT_SERVER, MQCHT_SENDER):
        raise _fail(
            C.MQRC_UNKNOWN_CHANNEL_NAME,
            f"AMQ9520E: Channel '{name}' not defined remotely: queue manager {qm.engine.name} has no server or "
            "sender channel of that name.",
        )
    start = _REQUESTS.get(id(qm))
    if start is None:
        raise _fail(C.MQRC_CHANNEL_NOT_AVAILABLE, f"queue manager {qm.engine.name} runs no channel initiator")
    if d.attrs.get("CHLTYPE") == MQCHT_SENDER:
        why = start(name, None)  # callback: the sender calls the requester back at its CONNAME
        if why:
            raise _fail(C.MQRC_CHANNEL_NOT_AVAILABLE, why)
        return {"mode": "callback", "qmgr": qm.engine.name}, None
    mine, theirs = socket.socketpair()
    why = start(name, mine)
    if why:
        mine.close()
        theirs.close()
        raise _fail(C.MQRC_CHANNEL_NOT_AVAILABLE, why)
    return {"mode": "server", "qmgr": qm.engine.name, "tunnel": theirs}, None


def _open(qm: QueueManagerHost, conn: Connection, name: str, params: dict[str, Any]) -> dict[str, Any]:
    engine = qm.engine
    _prune(qm)  # every start: the table keeps the channels running, not every start (module docstring)
    d = _definition(qm, name)
    key = (id(qm), name)
    if key in _HELD:  # IBM: the sending end retries until the receiving end is started again
        raise _fail(
            C.MQRC_CHANNEL_NOT_AVAILABLE,
            f"AMQ9558E: The remote channel '{name}' on queue manager {engine.name} is not currently available: it "
            "was stopped there (START CHANNEL there to let it run).",
        )
    old = _RECEIVERS.get(key)
    if old is not None and old.conn is not conn and old.conn.alive and not old.stopped:
        raise _fail(
            C.MQRC_CHANNEL_NOT_AVAILABLE,
            f"AMQ9514E: Channel '{name}' is in use: another sender ({old.peer or 'unknown'}) runs it.",
        )
    if engine.lookup(QLOCAL, SYSTEM_CHANNEL_SYNCQ) is None:
        engine.define(QLOCAL, SYSTEM_CHANNEL_SYNCQ, dict(_SYNCQ_ATTRS))
    od = MQOD(ObjectName=SYSTEM_CHANNEL_SYNCQ.encode())
    engine.mark_mca(conn)  # the MCA's own queues are the queue manager's; its deliveries are checked (PUTAUT)
    handle = engine.open(conn, od, C.MQOO_INPUT_SHARED | C.MQOO_OUTPUT | C.MQOO_BROWSE)
    last = (old.seq, old.batch_id) if old is not None else _LAST.pop(key, None)
    if last is not None:
        # this server ran the channel before: its last committed batch is known here, even while that commit's
        # new sync record is not yet visible to other connections (a get sees a message once its write is
        # durable: an old session's last batch, answered to a sender that gave up, may be in that window)
        seq, batch_id = last
    else:
        seq, batch_id = _read_sync(engine, conn, handle.hobj, name)
    r = Receiver(name, conn, handle.hobj, seq, batch_id, str(params.get("qmgr", ""))[:48], conn.user)
    r.mcauser = str(d.attrs.get("MCAUSER", ""))
    r.putaut = int(d.attrs.get("PUTAUT", C.MQPA_DEFAULT))
    r.chltype = "RQSTR" if d.attrs.get("CHLTYPE") == MQCHT_REQUESTER else "RCVR"
    r.mrrty, r.mrtmr = int(d.attrs.get("MRRTY", 10)), int(d.attrs.get("MRTMR", 1000))
    r.stats, r.batchsz = engine.channel_statistics(name), int(d.attrs.get("BATCHSZ", 50))
    _RECEIVERS[key] = r
    reset = params.get("reset")
    if isinstance(reset, int) and not isinstance(reset, bool) and reset >= 0:
        r.seq, r.batch_id = reset, ""
        _write_sync(engine, conn, r)
        engine.commit(conn)
    engine.channel_event(C.MQRC_CHANNEL_STARTED, name, conname=conn.conname)  # IBM's Channel Started (CHLEV)
    return {"seq": r.seq, "id": r.batch_id, "qmgr": engine.name}


def _read_sync(engine: Any, conn: Connection, hobj: int, name: str) -> tuple[int, str]:
    md = MQMD(CorrelId=sync_correl_id("R", name))
    gmo = MQGMO(Options=C.MQGMO_BROWSE_FIRST, MatchOptions=C.MQMO_MATCH_CORREL_ID)
    try:
        r = engine.get(conn, hobj, md, gmo, None)
    except MQMIError as e:
        if e.reason == C.MQRC_NO_MSG_AVAILABLE:
            return 0, ""
        raise
    rec = json.loads(r.data)
    return int(rec["seq"]), str(rec["id"])


def _write_sync(engine: Any, conn: Connection, r: Receiver) -> None:
    """Replace the channel's sync record, in the connection's unit of work."""
    correl = sync_correl_id("R", r.name)
    md = MQMD(CorrelId=correl)
    gmo = MQGMO(Options=C.MQGMO_SYNCPOINT, MatchOptions=C.MQMO_MATCH_CORREL_ID)
    try:
        engine.get(conn, r.hobj, md, gmo, None)
    except MQMIError as e:
        if e.reason != C.MQRC_NO_MSG_AVAILABLE:  # none yet: nothing to replace
            raise
    md = MQMD(CorrelId=correl, Persistence=C.MQPER_PERSISTENT)
    data = json.dumps({"seq": r.seq, "id": r.batch_id}).encode()
    engine.put(conn, r.hobj, md, MQPMO(Options=C.MQPMO_SYNCPOINT), data)


def _batch(qm: QueueManagerHost, conn: Connection, r: Receiver, params: dict[str, Any]) -> dict[str, Any]:
    engine = qm.engine
    seq, batch_id, msgs = params.get("seq"), params.get("id"), params.get("msgs")
    wrap = params.get("wrap", 999_999_999)
    if not isinstance(seq, int) or not isinstance(batch_id, str) or not isinstance(msgs, list):
        raise _fail(C.MQRC_UNEXPECTED_ERROR, "a batch needs seq, id and msgs")
    if seq == r.seq and batch_id == r.batch_id:
        return {"seq": r.seq, "dup": True}  # committed before: the sender was in doubt
    expected = 1 if r.seq >= wrap else r.seq + 1
    if seq != expected:
        r.stopped = (
            f"AMQ9526E: Message sequence number error for channel '{r.name}'. The local and remote queue managers "
            f"do not agree on the next message sequence number: {seq} was sent where {expected} was expected. "
            "Use RESET CHANNEL at the sending end."
        )
        _stopped_on_error(engine, conn, r, 9526)
        raise _fail(C.MQRC_CHANNEL_STOPPED, r.stopped)
    if r.retry_seq != seq:
        r.retry_seq, r.retries = seq, 0
    # IBM's message retry: a destination full or put-inhibited is tried MRRTY more times, MRTMR apart, before
    # the message goes to the dead-letter queue (MQCD MsgRetryCount: only for these reasons)
    hold = _MESSAGE_RETRY if r.retries < r.mrrty else frozenset()
    try:
        if not all(type(raw) is bytes for raw in msgs):
            raise _fail(C.MQRC_UNEXPECTED_ERROR, "a batch's messages must be bytes")
        done = engine.deliver_batch(conn, msgs, channel=r.name, hold=hold, putaut=r.putaut, mcauser=r.mcauser)
        if done and done[-1].outcome == "held":  # engine.remote HELD
            engine.backout(conn)  # the whole batch waits: PAUSED, tried again after MRTMR
            r.retries += 1
            if r.stats:  # STATCHL: IBM's PutRetryCount, a put that failed and entered the retry loop
                engine.count_channel(r.name, _TYPE[r.chltype], r.peer, conn.conname, put_retries=1)
            r.paused = True
            return {"seq": r.seq, "retry": r.mrtmr, "reason": int(done[-1].reason)}
        r.paused = False
        r.seq, r.batch_id = seq, batch_id
        _write_sync(engine, conn, r)
        engine.commit(conn)
    except MQMIError as e:
        engine.backout(conn)
        r.seq, r.batch_id = _read_sync(engine, conn, r.hobj, r.name)
        r.stopped = (
            f"AMQ9544E: a message of batch {seq} on channel '{r.name}' could not be put nor dead-lettered "
            f"({e.reason}: {e.detail or e}); the batch was backed out and the channel stops."
        )
        _stopped_on_error(engine, conn, r, 9544, e.reason)
        raise _fail(C.MQRC_CHANNEL_STOPPED, r.stopped) from None
    r.batches += 1
    r.msgs += len(msgs)
    if r.stats:  # STATCHL: the batch's figures (engine ``_chlstats``); the sender says whether it was full
        full = params.get("full")
        full = full if isinstance(full, bool) else len(msgs) >= r.batchsz
        engine.count_channel(r.name, _TYPE[r.chltype], r.peer, conn.conname, len(msgs), sum(map(len, msgs)), full)
    return {"seq": r.seq}


def _stopped_on_error(engine: Any, conn: Connection, r: Receiver, amq: int, mqrc: int = 0) -> None:
    """The receiving channel stops on an error (AMQ9526E, AMQ9544E): IBM's Channel Stopped at this end, with
    ReasonQualifier MQRQ_CHANNEL_STOPPED_ERROR, the message's ErrorIdentifier and the MQRC."""
    error = [int(f"2000{amq}", 16), mqrc, 0, conn.conname, "", ""]
    engine.channel_event(C.MQRC_CHANNEL_STOPPED, r.name, C.MQRQ_CHANNEL_STOPPED_ERROR, "", conn.conname, error)


_TYPE = {"RCVR": MQCHT_RECEIVER, "RQSTR": MQCHT_REQUESTER}


_MESSAGE_RETRY = frozenset({C.MQRC_Q_FULL, C.MQRC_PUT_INHIBITED})
