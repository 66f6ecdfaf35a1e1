"""The sink's commit: ONE queue-manager unit of work per micro-batch, recorded so a replay is skipped.

Theory of operation
-------------------
Spark may run a micro-batch's sink commit again after a crash (same query id, same batch id). The unit of work
that commits batch N therefore also replaces the query's record on SYSTEM.SYNCPOINT.SPARK.COMMITS (one persistent
message per query, CorrelId = a hash of the query id, body = JSON with the last committed batch id). Before doing
anything the commit reads the record: a batch id at or below the recorded one is a replay and is skipped.

In that unit of work, for each input message in token order: it is got by MsgToken under syncpoint (if it is no
longer there — taken by another consumer, expired — nothing is done for it: its outputs are not put), and its
outputs are put, or (a flow's REQUEUE) it is put on the input queue's BOQNAME, else on DEADQ with an MQDLH. A put
that fails changes nothing in MQ, but the message's get is already in the unit of work: so the unit of work is
backed out, that message is marked (its outputs dropped, the message backed out; a REQUEUE with no queue that
takes it stays), and the unit of work is done again. Queues that cannot be opened are found before the unit of work
starts, so a redo is needed only for failures seen at put time (queue full, message too long).

After the commit, the messages to back out (a flow's BACKOUT, and a REQUEUE that stays) are got under syncpoint
and backed out in a second unit of work: MQ raises their BackoutCount, the next batch retries them. The record
lists them with the BackoutCount they had, so a replayed commit finishes an interrupted backout exactly once.

Implements: reference/spark.md (order of events for micro-batch N), seed 004 (REQUEUE: BOQNAME, else DEADQ),
reference/structures.md (MQDLH).
"""

from __future__ import annotations

import hashlib
import json
import logging
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from syncpoint.client import QueueManager, dead_letter_queue
from syncpoint.mqi import MQMD, MQOD, MQPMO, MQMIError, SyncpointError, dead_letter_message
from syncpoint.mqi import constants as C
from syncpoint.mqi.properties import Props

from ._dispositions import BIP_NO_QUEUE, Action, Disposition, Put, requeue_order
from ._profile import span
from ._qm import CHUNK, QueueAccess
from ._rows import md_from_fields

COMMITS_QUEUE = "SYSTEM.SYNCPOINT.SPARK.COMMITS"
_log = logging.getLogger("syncpoint.flow")


@dataclass(slots=True)
class Summary:
    """What a batch's commit did, by message count (the progress display shows it)."""

    batch_id: int
    skipped: bool = False
    inputs: int = 0
    outputs: int = 0
    committed: int = 0
    backed_out: int = 0
    to_boq: int = 0
    to_dlq: int = 0
    stayed: int = 0
    discarded: int = 0
    gone: int = 0
    failure: int = 0
    catch: int = 0
    errors: list[str] = field(default_factory=list)
    where: dict[int, str] = field(default_factory=dict)  # token -> where the message went

    def to_json(self) -> dict[str, Any]:
        d = {k: getattr(self, k) for k in self.__slots__ if k not in ("errors", "where")}  # type: ignore[attr-defined, unused-ignore]
        d["errors"] = self.errors[:20]
        d["where"] = {str(k): v for k, v in self.where.items()}
        return d


def query_key(query_id: str) -> bytes:
    return hashlib.sha256(query_id.encode()).digest()[:24]


def ensure_commits_queue(qm: QueueManager) -> None:
    """Define SYSTEM.SYNCPOINT.SPARK.COMMITS when it does not exist."""
    try:
        h = qm.mqopen(MQOD(ObjectName=COMMITS_QUEUE.encode()), C.MQOO_INQUIRE)
        qm.mqclose(h)
        return
    except MQMIError as e:
        if e.reason != C.MQRC_UNKNOWN_OBJECT_NAME:
            raise
    try:
        qm.admin(
            "define",
            "QLOCAL",
            COMMITS_QUEUE,
            {"DEFPSIST": C.MQPER_PERSISTENT, "DESCR": "syncpoint Spark commit records"},
        )
    except MQMIError as e:
        if e.reason != C.MQRC_OBJECT_ALREADY_EXISTS:
            raise


def read_record(qm: QueueManager, query_id: str) -> dict[str, Any] | None:
    """The query's commit record (``{"query", "batch", "backouts"}``), or None before its first commit."""
    q = qm.open(COMMITS_QUEUE)
    try:
        m = q.browse(first=True, correl_id=query_key(query_id))
    except MQMIError as e:
        if e.reason == C.MQRC_NO_MSG_AVAILABLE:
            return None
        raise
    finally:
        q.close()
    rec = json.loads(m.data)
    assert isinstance(rec, dict)
    return rec


def _replace_record(qm: QueueManager, query_id: str, batch_id: int, backouts: list[list[Any]]) -> None:
    key = query_key(query_id)
    q = qm.open(COMMITS_QUEUE)
    try:
        q.get_or_none(correl_id=key, syncpoint=True)
        body = json.dumps({"query": query_id, "batch": batch_id, "backouts": backouts}).encode()
        q.put(body, syncpoint=True, correl_id=key, persistent=True, format=C.MQFMT_STRING)
    finally:
        q.close()


class _RedoError(SyncpointError):
    def __init__(self, token: int, queue: str, error: str) -> None:
        self.token = token
        self.queue = queue
        self.error = error


@dataclass(slots=True)
class _Item:
    """One input message's work in the unit of work."""

    queue: str
    token: int
    action: Action
    puts: list[Put]
    backout_count: int = 0
    error: str | None = None
    bip: str | None = None
    terminal: str = "out"
    reason: int = C.MQRC_BACKOUT_THRESHOLD_REACHED
    consume: bool = True  # plain mode: a row without an input does not consume anything
    gone: bool = False  # taken by another consumer (or expired) during the batch


def tally(counts: Summary, it: _Item, outputs: list[tuple[_Item, Put]], *, own_token: bool = True) -> None:
    """Count a message committed with its outputs (adding them to ``outputs``) or discarded (transaction mode No,
    logged): the sink's unit of work and a partition's (_member) count them alike. ``own_token``: False when the
    token is numbered per partition, not the message's own (the log then leaves it out)."""
    if it.action is Action.COMMIT:
        outputs.extend((it, p) for p in it.puts)
        counts.outputs += len(it.puts)
        counts.committed += 1 if it.consume else 0
        counts.where[it.token] = ",".join(sorted({p.queue for p in it.puts})) or "consumed"
        if it.terminal == "failure":
            counts.failure += 1
        elif it.terminal == "catch":
            counts.catch += 1
    elif it.action is Action.DISCARD:
        counts.discarded += 1
        counts.where[it.token] = "discarded"
        what = f"message {it.token}" if own_token else "a message"
        _log.error("%s on %s discarded (transaction mode No): %s", what, it.queue, it.error)


def tally_requeued(counts: Summary, it: _Item, dest: tuple[str, bool], *, own_token: bool = True) -> None:
    """Count (and log) a message put on its BOQNAME or the dead-letter queue (``dest``: the queue, and whether it
    is the DLQ): the sink's unit of work and a partition's alike."""
    counts.to_dlq += dest[1]
    counts.to_boq += not dest[1]
    counts.where[it.token] = dest[0]
    what = f"message {it.token}" if own_token else "a message"
    _log.warning(
        "%s: %s on %s (BackoutCount %d) put on %s: %s", it.bip, what, it.queue, it.backout_count, dest[0], it.error
    )


class Sink:
    """Commits batches for one connection (the driver's commit worker)."""

    def __init__(self, qm: QueueManager) -> None:
        self.qm = qm
        self._access: dict[str, QueueAccess] = {}
        self._openable: dict[str, str | None] = {}
        self._attrs: dict[str, tuple[int | None, str]] = {}
        self._deadq: str | None = None
        self._outputs: dict[tuple[str, str], int] = {}  # (qmgr, queue) -> output handle
        ensure_commits_queue(qm)

    def access(self, queue: str) -> QueueAccess:
        a = self._access.get(queue)
        if a is None:
            a = self._access[queue] = QueueAccess(self.qm, queue)
        return a

    def attributes(self, queue: str) -> tuple[int | None, str]:
        """(BOTHRESH, BOQNAME) of an input queue, read once per commit."""
        if queue not in self._attrs:
            self._attrs[queue] = self.access(queue).attributes()
        return self._attrs[queue]

    def _cannot_put(self, queue: str, qmgr: str = "") -> str | None:
        """None when the queue opens for output, else why not."""
        key = f"{qmgr}/{queue}"
        if key not in self._openable:
            try:
                h = self.qm.mqopen(
                    MQOD(ObjectName=queue.encode(), ObjectQMgrName=qmgr.encode()),
                    C.MQOO_OUTPUT | C.MQOO_PASS_ALL_CONTEXT,
                )
                self.qm.mqclose(h)
                self._openable[key] = None
            except MQMIError as e:
                self._openable[key] = f"cannot open queue {queue} for output: {_reason(e)}"
        return self._openable[key]

    # -- the commit ------------------------------------------------------------------------------------
    def commit_flow(self, query_id: str, batch_id: int, dispositions: Mapping[str, Sequence[Disposition]]) -> Summary:
        items = [
            _Item(q, d.token, d.action, list(d.puts), d.backout_count, d.error, d.bip, d.terminal.value, d.reason)
            for q, ds in dispositions.items()
            for d in ds
        ]
        return self._commit(query_id, batch_id, items)

    def commit_rows(
        self, query_id: str, batch_id: int, consumed: Mapping[str, Iterable[int]], puts: Sequence[Put]
    ) -> Summary:
        """Plain streaming write: put ``puts`` and remove the ``consumed`` input messages in one unit of work."""
        items = [_Item(q, t, Action.COMMIT, []) for q, ts in consumed.items() for t in sorted(set(ts))]
        if puts:
            items.append(_Item("", -1, Action.COMMIT, list(puts), consume=False))
        return self._commit(query_id, batch_id, items)

    def _commit(self, query_id: str, batch_id: int, items: list[_Item]) -> Summary:
        self._attrs.clear()
        self._openable.clear()
        self._deadq = None
        s = Summary(batch_id)
        with span("driver.commit.record"):
            rec = read_record(self.qm, query_id)
        if rec is not None and int(rec["batch"]) >= batch_id:
            s.skipped = True
            if int(rec["batch"]) == batch_id:
                self._finish_backouts(rec.get("backouts", []), s, log=False)
            return s
        items.sort(key=lambda i: (i.queue, i.token))
        s.inputs = sum(1 for i in items if i.consume)
        with span("driver.commit.precheck"):
            self._precheck(items)
        for _attempt in range(len(items) + 2):
            try:
                backouts = self._unit_of_work(query_id, batch_id, items, s)
                break
            except _RedoError as r:
                self.qm.backout()
                self._mark_failed(items, r)
        else:  # pragma: no cover - every redo marks one more item, so this cannot run out
            raise RuntimeError("the sink's unit of work did not settle")
        with span("driver.commit.backouts"):
            self._finish_backouts(backouts, s, log=True)
        return s

    def _precheck(self, items: list[_Item]) -> None:
        """Mark items whose output queues cannot be opened (an exception in the flow: back out), and resolve
        each REQUEUE to the first queue that opens."""
        for it in items:
            if it.action is Action.COMMIT:
                for p in it.puts:
                    why = self._cannot_put(p.queue, p.qmgr)
                    if why is not None:
                        self._mark_failed(items, _RedoError(it.token, it.queue, why))
                        break

    def _mark_failed(self, items: list[_Item], r: _RedoError) -> None:
        for it in items:
            if it.token == r.token and it.queue == r.queue:
                if r.error == "gone":
                    it.gone = True
                    return
                if it.action is Action.REQUEUE:
                    it.action = Action.BACKOUT
                    it.bip = BIP_NO_QUEUE
                    it.error = f"{it.error}; {r.error}"
                    it.terminal = "stay"
                elif not it.consume:  # plain rows without an input: a put failure fails the batch
                    raise MQMIError(
                        C.MQCC_FAILED, C.MQRC_PUT_INHIBITED, f"the batch's outputs cannot be put: {r.error}"
                    )
                else:
                    it.action = Action.BACKOUT
                    it.puts = []
                    it.error = f"{it.error + '; ' if it.error else ''}output failed: {r.error}"
                return

    def _seen(self, items: list[_Item]) -> dict[tuple[str, int], tuple[MQMD, bytes, Props | None] | None]:
        """The inputs still on their queues, browsed by token in batches (with data only for a REQUEUE)."""
        wanted: dict[tuple[str, bool], list[int]] = {}
        for it in items:
            if it.consume and not it.gone and it.action is not Action.BACKOUT:
                wanted.setdefault((it.queue, it.action is Action.REQUEUE), []).append(it.token)
        seen: dict[tuple[str, int], tuple[MQMD, bytes, Props | None] | None] = {}
        for (queue, with_data), tokens in wanted.items():
            for t, got in zip(tokens, self.access(queue).lookup_many(tokens, with_data=with_data), strict=True):
                seen[(queue, t)] = got
        return seen

    def _unit_of_work(self, query_id: str, batch_id: int, items: list[_Item], s: Summary) -> list[list[Any]]:
        """Puts first, gets last: a put that fails leaves only puts to back out (no input's BackoutCount moves)."""
        counts = Summary(batch_id)
        backouts: list[list[Any]] = []
        to_get: list[_Item] = []
        outputs: list[tuple[_Item, Put]] = []
        with span("driver.commit.seen", len(items)):
            seen_all = self._seen(items)
        for it in items:
            if it.action is Action.BACKOUT:
                backouts.append([it.queue, it.token, it.backout_count, it.error, it.bip, it.terminal])
                continue
            md_in: MQMD | None = None
            data_in = b""
            props_in: Props | None = None
            if it.consume:
                seen = None if it.gone else seen_all.get((it.queue, it.token))
                if seen is None:
                    counts.gone += 1
                    counts.where[it.token] = "gone"
                    continue
                md_in, data_in, props_in = seen
            if it.action is Action.REQUEUE:
                assert md_in is not None
                dest = self._requeue(it, md_in, data_in, props_in)
                if dest is None:  # neither BOQNAME nor the DLQ took it: it stays (backed out, logged)
                    it.action, it.bip, it.terminal = Action.BACKOUT, BIP_NO_QUEUE, "stay"
                    backouts.append([it.queue, it.token, it.backout_count, it.error, it.bip, it.terminal])
                    continue
                tally_requeued(counts, it, dest)
            else:
                tally(counts, it, outputs)
            if it.consume:
                to_get.append(it)
        with span("driver.commit.puts", len(outputs)):
            self._put_outputs(outputs)
        by_queue: dict[str, list[_Item]] = {}
        for it in to_get:
            by_queue.setdefault(it.queue, []).append(it)
        for queue, its in by_queue.items():
            try:
                with span("driver.commit.gets", len(its)):
                    got = self.access(queue).get_many([it.token for it in its])
            except MQMIError as e:
                if e.reason == C.MQRC_SYNCPOINT_LIMIT_REACHED:
                    raise _limit(e) from None
                raise
            gone = [it for it, g in zip(its, got, strict=True) if g is None]
            if gone:  # taken by another consumer since the lookup: their outputs must not stay
                for it in gone[1:]:
                    it.gone = True
                raise _RedoError(gone[0].token, gone[0].queue, "gone")
        with span("driver.commit.replace_record"):
            _replace_record(self.qm, query_id, batch_id, backouts)
        try:
            with span("driver.commit.mqcmit"):
                self.qm.commit()
        except MQMIError as e:
            self.qm.backout()
            raise e
        for name in ("gone", "outputs", "committed", "discarded", "to_dlq", "to_boq", "failure", "catch"):
            setattr(s, name, getattr(counts, name))
        s.where.update(counts.where)
        return backouts

    def _put_outputs(self, outputs: list[tuple[_Item, Put]]) -> None:
        """The COMMIT items' outputs, in item order per destination queue, CHUNK puts per round trip over the
        network (put_many). The first failure is a redo without its item."""
        put_many = getattr(self.qm.transport, "put_many", None)
        if put_many is None:
            for it, p in outputs:
                self._put(it, p.queue, p.qmgr, md_from_fields(p.md), p.data, False, p.props)
            return
        by_dest: dict[tuple[str, str], list[tuple[_Item, Put]]] = {}
        for it, p in outputs:
            by_dest.setdefault((p.qmgr, p.queue), []).append((it, p))
        for (qmgr, queue), ps in by_dest.items():
            h = self._outputs.get((qmgr, queue))
            if h is None:
                od = MQOD(ObjectName=queue.encode(), ObjectQMgrName=qmgr.encode())
                h = self._outputs[(qmgr, queue)] = self.qm.mqopen(od, C.MQOO_OUTPUT | C.MQOO_FAIL_IF_QUIESCING)
            templates: dict[Any, tuple[MQMD, MQPMO]] = {}
            for i in range(0, len(ps), CHUNK):
                part = ps[i : i + CHUNK]
                batch = []
                keys = set()
                for _, p in part:
                    key = _md_key(p.md)
                    keys.add(key)
                    template = templates.get(key) if key is not None else None
                    if template is None:  # outputs mostly share their few MQMD fields: each set built once
                        md = md_from_fields(p.md)
                        pmo = MQPMO()
                        pmo.Options = C.MQPMO_SYNCPOINT | C.MQPMO_FAIL_IF_QUIESCING
                        pmo.Options |= C.MQPMO_NEW_MSG_ID if md.MsgId == C.MQMI_NONE else 0
                        template = (md, pmo)
                        if key is not None:
                            templates[key] = template
                    md, pmo = MQMD.with_fields(template[0].__dict__), MQPMO.with_fields(template[1].__dict__)
                    batch.append((md, pmo, p.data, p.props))
                results = put_many(h, batch, alike=True if len(keys) == 1 and None not in keys else None)
                if any(isinstance(r, MQMIError) or r != C.MQRC_NONE for r in results):
                    self._forget_output(qmgr, queue)  # a handle kept from an earlier batch may be stale
                for (it, p), r in zip(part, results, strict=True):
                    if isinstance(r, MQMIError):
                        if r.reason == C.MQRC_SYNCPOINT_LIMIT_REACHED:
                            raise _limit(r) from None
                        raise _RedoError(it.token, it.queue, f"put to {p.queue} failed: {_reason(r)}")
                    if r != C.MQRC_NONE:
                        raise _RedoError(it.token, it.queue, f"put to {p.queue} failed: reason {r}")

    def _forget_output(self, qmgr: str, queue: str) -> None:
        h = self._outputs.pop((qmgr, queue), None)
        if h is not None:
            try:
                self.qm.mqclose(h)
            except MQMIError:
                pass

    def _put(
        self, it: _Item, queue: str, qmgr: str, md: MQMD, data: bytes, context: bool, props: Props | None = None
    ) -> None:
        pmo = MQPMO()
        pmo.Options = C.MQPMO_SYNCPOINT | C.MQPMO_FAIL_IF_QUIESCING
        pmo.Options |= C.MQPMO_SET_ALL_CONTEXT if context else C.MQPMO_NEW_MSG_ID if md.MsgId == C.MQMI_NONE else 0
        od = MQOD(ObjectName=queue.encode(), ObjectQMgrName=qmgr.encode())
        try:
            self.qm.mqput1(od, md, pmo, data, props)
        except MQMIError as e:
            if e.reason == C.MQRC_SYNCPOINT_LIMIT_REACHED:
                raise _limit(e) from None
            raise _RedoError(it.token, it.queue, f"put to {queue} failed: {_reason(e)}") from None

    def _requeue(self, it: _Item, md: MQMD, data: bytes, props: Props | None = None) -> tuple[str, bool] | None:
        """BOQNAME, else DEADQ with an MQDLH; raises _Redo when neither takes the message (it then stays). The
        message keeps its properties ``props``."""
        _, boqname = self.attributes(it.queue)
        if self._deadq is None:
            try:
                self._deadq = dead_letter_queue(self.qm)
            except MQMIError:
                self._deadq = ""  # unreadable: as if there were none
        errors = []
        for queue, dlh in requeue_order(boqname, self._deadq):
            why = self._cannot_put(queue)
            if why is not None:
                errors.append(why)
                continue
            body = data
            out = MQMD.unpack(md.pack())
            out.BackoutCount = 0
            if dlh:
                # the original descriptor's Encoding and CCSID are kept, as this put always did
                out, body = dead_letter_message(
                    out,
                    data,
                    reason=it.reason,
                    dest_q=it.queue,
                    dest_qmgr=self.qm.name,
                    put_appl_type=C.MQAT_UNIX,
                    put_appl_name="syncpoint.flow",
                    now=time.time(),
                    header_ccsid=md.CodedCharSetId,
                )
                out.Encoding = md.Encoding
            try:
                self._put_context(queue, out, body, props)
                return queue, dlh
            except MQMIError as e:
                if e.reason == C.MQRC_SYNCPOINT_LIMIT_REACHED:
                    raise _limit(e) from None
                errors.append(f"put to {queue} failed: {_reason(e)}")
        why = "; ".join(errors) or "the input queue has no BOQNAME and the queue manager no DEADQ"
        it.error = f"{it.error}; neither BOQNAME nor the DLQ took the message ({why})"
        return None

    def _put_context(self, queue: str, md: MQMD, data: bytes, props: Props | None = None) -> None:
        pmo = MQPMO()
        pmo.Options = C.MQPMO_SYNCPOINT | C.MQPMO_SET_ALL_CONTEXT | C.MQPMO_FAIL_IF_QUIESCING
        self.qm.mqput1(MQOD(ObjectName=queue.encode()), md, pmo, data, props)

    def _finish_backouts(self, backouts: Sequence[Sequence[Any]], s: Summary, *, log: bool) -> None:
        """Back out the listed messages once (BackoutCount + 1): those whose count is still as recorded."""
        if not backouts:
            return
        by_queue: dict[str, list[Sequence[Any]]] = {}
        for b in backouts:
            by_queue.setdefault(str(b[0]), []).append(b)
        todo: list[Sequence[Any]] = []
        for queue, bs in by_queue.items():
            a = self.access(queue)
            seen = a.lookup_many([int(b[1]) for b in bs], with_data=False)
            still = [b for b, m in zip(bs, seen, strict=True) if m is not None and int(m[0].BackoutCount) == int(b[2])]
            if still:
                got = a.get_many([int(b[1]) for b in still])
                todo.extend(b for b, g in zip(still, got, strict=True) if g is not None)
        for queue, token, count, error, bip, terminal in todo:
            if terminal == "stay":
                s.stayed += 1
                s.where[int(token)] = "stayed"
                _log.error(
                    "%s: message %d on %s cannot be put on BOQNAME or the DLQ; it stays, BackoutCount now %d: %s",
                    bip,
                    token,
                    queue,
                    int(count) + 1,
                    error,
                )
            else:
                s.backed_out += 1
                s.where[int(token)] = "backed out"
                if log:
                    _log.warning(
                        "message %d on %s backed out (BackoutCount now %d): %s", token, queue, int(count) + 1, error
                    )
        self.qm.backout()
        s.errors.extend(str(b[3]) for b in backouts if b[3])


def _md_key(fields: Mapping[str, Any]) -> Any:
    """An output's MQMD fields as a key of the MQMDs built (None when a value cannot be one)."""
    try:
        key = tuple(fields.items())
        hash(key)
    except TypeError:
        return None
    return key


def _reason(e: MQMIError) -> str:
    from syncpoint.mqi import constants

    names = [k for k, v in vars(constants).items() if k.startswith("MQRC_") and v == e.reason]
    return f"{names[0] if names else 'MQRC'} ({e.reason})"


def _limit(e: MQMIError) -> MQMIError:
    return MQMIError(
        C.MQCC_FAILED,
        C.MQRC_SYNCPOINT_LIMIT_REACHED,
        "the batch does not fit in one unit of work (MAXUMSGS): lower maxMessagesPerBatch or raise the queue "
        "manager's MAXUMSGS",
    )
