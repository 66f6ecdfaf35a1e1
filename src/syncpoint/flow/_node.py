"""The MQInput node: what happens to one input message (or one message group), as pure logic.

Theory of operation
-------------------
The rules are seed 004 and ``reference/mqinput-node.md``. A message flow on Spark cannot hold one MQ unit of work
per message open across processes, so the node works in two phases:

1. :func:`process_message` (on an executor, no queue manager needed) runs the flow's Python functions for one
   message and returns a :class:`Disposition`: COMMIT (remove the input, put these outputs), BACKOUT (the unit of
   work is backed out: BackoutCount + 1, the message is retried in a later batch), REQUEUE (the threshold is
   reached and no Failure flow takes the message: it goes to BOQNAME, else DEADQ with an MQDLH) or DISCARD
   (transaction mode No: a failed message is not under syncpoint, so it is gone; the error is logged).
2. At the sink's commit (on the driver) :func:`requeue_order` says where a REQUEUE goes; if no queue takes it the
   message stays: it is backed out and the error logged, each time with its rising BackoutCount (BIP2630).

The error table (mqinput-node.md, "What happens on each error"):

===========================================  ==========================  ===========================
error event                                  Failure / Catch connected   not connected
===========================================  ==========================  ===========================
internal error in the node (parse, get)      Failure flow handles it     REQUEUE (BOQNAME/DEADQ)
exception in the flow behind Out             Catch flow handles it       BACKOUT (the node retries)
exception in the flow behind Catch           logged, BACKOUT             logged, BACKOUT
exception in the flow behind Failure         BACKOUT (retried)           BACKOUT (retried)
===========================================  ==========================  ===========================

Retry processing: the threshold T is the input queue's BOTHRESH, with 0 or an unreadable value meaning 1. A
message whose BackoutCount is below T goes to Out. At T or above it goes to Failure when connected (a failing
Failure flow is retried until BackoutCount reaches 2T, then REQUEUE), else straight to REQUEUE.

Message groups (logical order): all messages of a group are processed in one unit of work committed after the
last. By default (the seed's behaviour) a failure backs out the unit of work up to and including the failing
message and the rest of the group starts a new unit of work, so part of a group may commit while another part is
backed out. With ``all_or_nothing`` every message of the group shares one fate.
"""

from __future__ import annotations

import enum
import json
import traceback
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from syncpoint.mqi import SyncpointError
from syncpoint.mqi import constants as C
from syncpoint.mqi.properties import Props
from syncpoint.mqi.properties import build as build_props
from syncpoint.spark import (
    Action,
    Disposition,
    Put,
    Terminal,
    effective_threshold,
)

_FOLDERS = frozenset({"usr", "jms", "mcd", "mqext"})  # the MQRFH2's property folders (mqi.rfh2)

# IBM broker message numbers for the ladder (mqinput-node.md): kept in the log lines and in the dispositions.
BIP_FAILURE = "BIP2631"  # BackoutCount >= threshold: propagated to Failure
BIP_REQUEUE = "BIP2648"  # no Failure terminal, BackoutCount = threshold: to BOQNAME or the DLQ
BIP_FAILURE_FAILED = "BIP2649"  # the Failure path failed
BIP_BOTH_FAILED = "BIP2650"  # Failure path failed and BackoutCount reached twice the threshold


class TransactionMode(enum.StrEnum):
    """MQInput's Transaction mode: Yes (default), No, Automatic (under syncpoint only if persistent)."""

    YES = "yes"
    NO = "no"
    AUTOMATIC = "automatic"


class InternalError(SyncpointError):
    """An error the input node detects itself (the message cannot be parsed or got): the Failure path."""


@dataclass(slots=True)
class Output:
    """A message a flow function asks to put. ``queue`` None means the flow's default output queue;
    ``reply=True`` routes to the input's ReplyToQ / ReplyToQMgr with CorrelId = the input's MsgId."""

    data: bytes | str | Mapping[str, Any] | list[Any]
    queue: str | None = None
    qmgr: str | None = None
    reply: bool = False
    priority: int | None = None
    persistent: bool | None = None
    expiry: int | None = None  # tenths of a second, as MQMD.Expiry
    msg_id: bytes | None = None
    correl_id: bytes | None = None
    format: str | None = None
    msg_type: int | None = None
    feedback: int | None = None
    # the output's message properties (as the Pythonic put's ``properties=``); None: the input message's
    # properties for an output forwarded to a queue (MQCOPY_FORWARD), none for a reply (MQCOPY_REPLY is not in
    # IBM's MQCOPY_DEFAULT); {} for none at all
    properties: Mapping[str, Any] | None = None


@dataclass(slots=True)
class FlowMessage:
    """The message the flow functions see: its data, its MQMD fields (IBM names), its properties and helpers."""

    data: bytes
    md: dict[str, Any]
    queue: str = ""
    token: int = 0
    row: dict[str, Any] | None = None  # columns added by a DataFrame stage, when the flow has one
    parsed: Any = None  # the node's parse result (text or JSON) when the input node parses
    # the message's properties, name -> (MQTYPE_*, value) (IBM's message tree: the Properties folder and the
    # MQRFH2's property folders; an MQRFH2 the putter built arrives here, not in ``data``)
    typed_properties: Props | None = None

    @property
    def properties(self) -> dict[str, Any]:
        """The message's properties, name -> value (``typed_properties`` has their MQTYPE_* types too)."""
        props = self.typed_properties
        return {} if not props else {name: value for name, (_, value) in props.items()}

    @property
    def usr(self) -> dict[str, Any]:
        """The MQRFH2 ``usr`` folder as IBM's message tree shows it (``InputRoot.MQRFH2.usr``): the properties
        without a folder prefix, and those named ``usr.X``, by their name in the folder (X)."""
        out: dict[str, Any] = {}
        for name, (_, value) in (self.typed_properties or {}).items():
            head, _, rest = name.partition(".")
            if head == "usr" and rest:
                out[rest] = value
            elif not rest or head not in _FOLDERS:
                out.setdefault(name, value)
        return out

    @property
    def text(self) -> str:
        return self.data.decode("utf-8")

    def json(self) -> Any:
        return json.loads(self.data)

    @property
    def backout_count(self) -> int:
        return int(self.md.get("BackoutCount", 0))

    @property
    def msg_id(self) -> bytes:
        return bytes(self.md.get("MsgId", b"\0" * 24))

    @property
    def correl_id(self) -> bytes:
        return bytes(self.md.get("CorrelId", b"\0" * 24))

    @property
    def group_id(self) -> bytes:
        return bytes(self.md.get("GroupId", C.MQGI_NONE))

    @property
    def persistent(self) -> bool:
        return bool(self.md.get("Persistence") == C.MQPER_PERSISTENT)

    @property
    def reply_to(self) -> str:
        return str(self.md.get("ReplyToQ", "") or "").strip()

    @property
    def reply_to_qmgr(self) -> str:
        return str(self.md.get("ReplyToQMgr", "") or "").strip()


OutFn = Callable[[FlowMessage], Any]
CatchFn = Callable[[FlowMessage, BaseException], Any]
FailureFn = Callable[[FlowMessage, str], Any]


@dataclass(slots=True)
class Handlers:
    """The flow behind each terminal. ``out`` is required; ``catch`` and ``failure`` are optional."""

    out: OutFn
    catch: CatchFn | None = None
    failure: FailureFn | None = None
    default_queue: str | None = None
    parse: str = "none"  # the input node's parser: none, text or json (a parse failure is an internal error)
    mode: TransactionMode = TransactionMode.YES


def _error_text(e: BaseException) -> str:
    tb = traceback.extract_tb(e.__traceback__)
    where = f" (at {tb[-1].filename}:{tb[-1].lineno})" if tb else ""
    return f"{type(e).__name__}: {e}{where}"


def resolve_outputs(result: Any, msg: FlowMessage, default_queue: str | None) -> list[Put]:
    """A flow function's return value as puts. None: nothing; an Output, bytes, str, dict or a list of them.

    Raises ValueError when an output has nowhere to go (no queue, no default, a reply without ReplyToQ): that is
    an exception in the flow, handled like any other by the caller.
    """
    if result is None:
        return []
    items: Iterable[Any] = [result] if isinstance(result, (Output, bytes, bytearray, str, dict)) else result
    puts: list[Put] = []
    for item in items:
        out = item if isinstance(item, Output) else Output(item)
        data = out.data
        md: dict[str, Any] = {}
        if isinstance(data, (dict, list)):
            data = json.dumps(data, separators=(",", ":")).encode()
            md["Format"] = C.MQFMT_STRING.decode()
        elif isinstance(data, str):
            data = data.encode("utf-8")
            md["Format"] = C.MQFMT_STRING.decode()
        elif isinstance(data, bytearray):
            data = bytes(data)
        elif not isinstance(data, bytes):
            raise TypeError(f"an output's data must be bytes, str, dict or list, not {type(data).__name__}")
        qmgr = out.qmgr or ""
        if out.reply:
            queue = msg.reply_to
            qmgr = out.qmgr or msg.reply_to_qmgr
            if not queue:
                raise ValueError("reply-to routing asked for, but the input message has no ReplyToQ")
            md["CorrelId"] = out.correl_id if out.correl_id is not None else msg.msg_id
            md.setdefault("MsgType", C.MQMT_REPLY)
        else:
            queue = out.queue or default_queue or ""
            if not queue:
                raise ValueError("an output has no queue and the flow has no default output queue")
            if out.correl_id is not None:
                md["CorrelId"] = out.correl_id
        for name, value in (
            ("Priority", out.priority),
            ("Expiry", out.expiry),
            ("MsgId", out.msg_id),
            ("Format", out.format),
            ("MsgType", out.msg_type),
            ("Feedback", out.feedback),
        ):
            if value is not None:
                md[name] = value
        if out.persistent is not None:
            md["Persistence"] = C.MQPER_PERSISTENT if out.persistent else C.MQPER_NOT_PERSISTENT
        elif msg.md.get("Persistence") in (C.MQPER_PERSISTENT, C.MQPER_NOT_PERSISTENT):
            md["Persistence"] = msg.md["Persistence"]  # as the input message, like IBM's MQOutput node
        if out.properties is not None:
            props = build_props(out.properties)  # checked as MQSETMP checks them: a bad one fails the flow
        elif out.reply:
            props = None
        else:
            props = dict(msg.typed_properties) if msg.typed_properties else None
        puts.append(Put(queue, qmgr, data, md, props))
    return puts


def _parse(msg: FlowMessage, parse: str) -> None:
    """The input node's own parsing: a failure is an internal error of the node (Failure terminal)."""
    if parse == "none":
        return
    try:
        if parse == "text":
            msg.parsed = msg.data.decode("utf-8")
        elif parse == "json":
            msg.parsed = json.loads(msg.data)
        else:
            raise InternalError(f"unknown parser {parse!r} (none, text or json)")
    except InternalError:
        raise
    except (UnicodeDecodeError, ValueError) as e:
        raise InternalError(f"the input node cannot parse the message as {parse}: {e}") from e


def _under_syncpoint(mode: TransactionMode, msg: FlowMessage) -> bool:
    if mode is TransactionMode.YES:
        return True
    if mode is TransactionMode.NO:
        return False
    return msg.persistent


def process_message(msg: FlowMessage, handlers: Handlers, bothresh: int | None) -> Disposition:
    """Run the node for one message: the error table and the retry ladder of seed 004."""
    threshold = effective_threshold(bothresh)
    count = msg.backout_count
    d = Disposition(msg.token, Action.COMMIT, Terminal.OUT, count)
    d.group_id = msg.group_id
    d.msg_seq_number = int(msg.md.get("MsgSeqNumber", 1))
    syncpoint = _under_syncpoint(handlers.mode, msg)

    def failed(error: str, bip: str | None = None) -> Disposition:
        """The node retries (backs out); outside syncpoint there is nothing to back out: the message is gone."""
        d.puts = []
        d.error = error
        d.bip = bip
        d.action = Action.BACKOUT if syncpoint else Action.DISCARD
        return d

    def requeue(error: str, bip: str) -> Disposition:
        d.puts = []
        d.error = error
        d.bip = bip
        d.terminal = Terminal.NONE
        d.action = Action.REQUEUE if syncpoint else Action.DISCARD
        return d

    def to_failure(error: str) -> Disposition:
        """Propagate to the Failure terminal (caller checked it is connected)."""
        assert handlers.failure is not None
        d.terminal = Terminal.FAILURE
        d.bip = BIP_FAILURE
        try:
            d.puts = resolve_outputs(handlers.failure(msg, error), msg, handlers.default_queue)
        except Exception as e:  # an exception in the flow behind Failure: the node retries
            return failed(f"{error}; the Failure flow failed: {_error_text(e)}", BIP_FAILURE_FAILED)
        d.error = error
        d.action = Action.COMMIT
        return d

    # -- the threshold: at T, Failure if connected (retried until 2T), else BOQNAME / DEADQ ---------------
    if syncpoint and count >= threshold:
        reason = f"BackoutCount {count} has reached the backout threshold {threshold}"
        if handlers.failure is None:
            return requeue(reason, BIP_REQUEUE)
        if count >= 2 * threshold:
            return requeue(f"{reason} and twice the threshold after the Failure flow failed", BIP_BOTH_FAILED)
        return to_failure(reason)

    # -- the node's own work: parsing (an internal error goes to Failure, else to BOQNAME / DEADQ) ----------
    try:
        _parse(msg, handlers.parse)
    except InternalError as e:
        d.reason = C.MQRC_FORMAT_ERROR
        if handlers.failure is not None:
            return to_failure(str(e))
        return requeue(str(e), BIP_REQUEUE)

    # -- Out, then Catch -----------------------------------------------------------------------------------
    try:
        d.puts = resolve_outputs(handlers.out(msg), msg, handlers.default_queue)
        return d
    except Exception as e:
        out_error = _error_text(e)
        if handlers.catch is None:
            return failed(f"exception in the Out flow: {out_error}")
        d.terminal = Terminal.CATCH
        try:
            d.puts = resolve_outputs(handlers.catch(msg, e), msg, handlers.default_queue)
        except Exception as e2:  # an exception behind Catch: logged, message backed out
            return failed(f"exception in the Out flow: {out_error}; exception in the Catch flow: {_error_text(e2)}")
        d.error = f"exception in the Out flow handled by Catch: {out_error}"
        return d


def is_grouped(md: Mapping[str, Any]) -> bool:
    """A message that belongs to a group (MQMF_MSG_IN_GROUP or MQMF_LAST_MSG_IN_GROUP, or a GroupId)."""
    flags = int(md.get("MsgFlags", 0))
    return bool(flags & (C.MQMF_MSG_IN_GROUP | C.MQMF_LAST_MSG_IN_GROUP))


def process_group(
    msgs: Sequence[FlowMessage], handlers: Handlers, bothresh: int | None, *, all_or_nothing: bool = False
) -> list[Disposition]:
    """Process one message group in logical order (MsgSeqNumber) as seed 004 describes.

    Default: one unit of work committed after the last message; a BACKOUT at message k backs out the unit of
    work up to and including k (those messages are retried later), and the messages after k form a new unit of
    work. ``all_or_nothing``: one BACKOUT backs out every message of the group, and one REQUEUE (threshold
    reached) requeues every message, so the group stays together.
    """
    ordered = sorted(msgs, key=lambda m: int(m.md.get("MsgSeqNumber", 1)))
    out: list[Disposition] = []
    uow: list[Disposition] = []
    for m in ordered:
        d = process_message(m, handlers, bothresh)
        uow.append(d)
        if d.action is Action.BACKOUT:
            for earlier in uow[:-1]:
                if earlier.action is Action.COMMIT:
                    earlier.action = Action.BACKOUT
                    earlier.puts = []
                    earlier.error = (
                        f"backed out with its group's unit of work: message {d.msg_seq_number} of the group failed"
                    )
            out.extend(uow)
            uow = []
    out.extend(uow)
    if all_or_nothing:
        fate = _group_fate(out)
        if fate is not None:
            action, cause = fate
            for d in out:
                if d.action is not action and d.action is not Action.DISCARD:
                    d.action = action
                    d.puts = []
                    d.error = d.error or f"the group is all-or-nothing: {cause}"
    return out


def _group_fate(ds: Sequence[Disposition]) -> tuple[Action, str] | None:
    for d in ds:
        if d.action is Action.REQUEUE:
            return Action.REQUEUE, f"message {d.msg_seq_number} of the group reached the backout threshold"
    for d in ds:
        if d.action is Action.BACKOUT:
            return Action.BACKOUT, f"message {d.msg_seq_number} of the group failed"
    return None
