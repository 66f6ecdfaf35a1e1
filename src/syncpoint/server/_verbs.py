"""The MQI verbs of a request, decoded and run on the host: bytes and lists in, a reply and a pending write out.

Sans-I/O: each handler takes the host, the session's engine connection and the request's arguments (as the
wire protocol decoded them, docs/protocol.md), runs the engine verb under the host's lock and returns the
reply's payload with the store write that must be durable before the reply leaves (None when nothing was
written). The session (``_session.py``) sends the reply; the waiting MQGET, MQCONN / MQDISC and endmqm are its
own, because they park, open or end the session. A malformed argument is the MQRC IBM gives for that
structure or field (MQRC_MD_ERROR for an MQMD that does not unpack, MQRC_HOBJ_ERROR for a Hobj that is not a
32-bit integer, …).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from syncpoint.engine import Connection, GetResult
from syncpoint.host import ADMIN_VERBS, QueueManagerHost
from syncpoint.mqi import MQGMO, MQMD, MQOD, MQPMO, MQMIError
from syncpoint.mqi import constants as C
from syncpoint.mqi.properties import Props, from_wire, props_length, to_wire
from syncpoint.store import Pending
from syncpoint.wire import DEFAULT_MAX_FRAME, MAX_GETM, ProtocolError

from . import _pubsub
from ._channel import channel as _channel

Handler = Callable[[QueueManagerHost, Connection, list[Any]], tuple[Any, Pending | None]]

_STRUCT_ERRORS = {MQMD: C.MQRC_MD_ERROR, MQGMO: C.MQRC_GMO_ERROR, MQPMO: C.MQRC_PMO_ERROR, MQOD: C.MQRC_OD_ERROR}
_PUTM_OPTIONS = {"commit": False}
_GETM_OPTIONS = {"commit_first": False, "gmo": True, "index": False}
_SEEN_SIZE = 96  # an index browse's answer in a reply, at most: six numbers or bytes and msgpack's headers
MAX_TOKENS = 10_000


# -- decoding arguments -----------------------------------------------------------------------------------
def struct(cls: Any, raw: Any) -> Any:
    """An IBM structure from the bytes a client sent; a wrong type or length is that structure's MQRC."""
    reason = _STRUCT_ERRORS[cls]
    if not isinstance(raw, bytes):
        raise MQMIError(C.MQCC_FAILED, reason, f"{cls.__name__} must be sent as bytes")
    try:
        return cls.unpack(raw)
    except Exception as e:
        raise MQMIError(C.MQCC_FAILED, reason, f"{cls.__name__} is not valid: {e}") from None


def integer(value: Any, reason: int, what: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not -(2**31) <= value < 2**31:
        raise MQMIError(C.MQCC_FAILED, reason, f"{what} must be a 32-bit integer")
    return value


def _options(args: list[Any], index: int, known: dict[str, bool]) -> dict[str, bool]:
    """The optional map of boolean options at ``index`` (protocol version 2), over the ``known`` defaults;
    absent or nil: the defaults. Anything else, an unknown key or a value that is not a bool: MQRC_OPTIONS_ERROR."""
    if len(args) <= index or args[index] is None:
        return known
    given = args[index]
    if not isinstance(given, dict):
        raise MQMIError(C.MQCC_FAILED, C.MQRC_OPTIONS_ERROR, "the options must be a map")
    unknown = set(given) - set(known)
    if unknown:
        raise MQMIError(C.MQCC_FAILED, C.MQRC_OPTIONS_ERROR, f"unknown options {sorted(map(str, unknown))}")
    if not all(isinstance(v, bool) for v in given.values()):
        raise MQMIError(C.MQCC_FAILED, C.MQRC_OPTIONS_ERROR, "an option must be true or false")
    return {**known, **given}


def _md_of(m: Any) -> bytes:
    md = MQMD()
    for k, v in m.md.items():
        setattr(md, k, v)
    return md.pack()


def _data(value: Any) -> bytes:
    if not isinstance(value, bytes):
        raise MQMIError(C.MQCC_FAILED, C.MQRC_DATA_LENGTH_ERROR, "message data must be sent as bytes")
    return value


def _list(value: Any) -> list[Any]:
    if not isinstance(value, list):
        raise MQMIError(C.MQCC_FAILED, C.MQRC_SELECTOR_COUNT_ERROR, "a list was expected")
    return value


def _chars(value: Any) -> bytes:
    if not isinstance(value, bytes):
        raise MQMIError(C.MQCC_FAILED, C.MQRC_CHAR_ATTRS_ERROR, "character attributes must be sent as bytes")
    return value


# -- one verb, one call -------------------------------------------------------------------------------------
def _put(qm: QueueManagerHost, conn: Connection, args: list[Any]) -> tuple[Any, Pending | None]:
    hobj = integer(args[0], C.MQRC_HOBJ_ERROR, "Hobj")
    md, pmo = struct(MQMD, args[1]), struct(MQPMO, args[2])
    data = _data(args[3])
    props = from_wire(args[4]) if len(args) > 4 else None  # the message's properties (docs/protocol.md)
    reason, pending = qm.run(qm.engine.put, conn, hobj, md, pmo, data, props)
    return [reason, md.pack(), pmo.pack()], pending


def _put1(qm: QueueManagerHost, conn: Connection, args: list[Any]) -> tuple[Any, Pending | None]:
    od, md, pmo = struct(MQOD, args[0]), struct(MQMD, args[1]), struct(MQPMO, args[2])
    data = _data(args[3])
    props = from_wire(args[4]) if len(args) > 4 and args[4] is not None else None
    _pubsub.object_string(od, args, 5)  # a topic's ObjectString
    reason, pending = qm.run(qm.engine.put1, conn, od, md, pmo, data, props)
    return [reason, od.pack(), md.pack(), pmo.pack(), *_pubsub.res_object_string(od)], pending


def _commit(qm: QueueManagerHost, conn: Connection, args: list[Any]) -> tuple[Any, Pending | None]:
    _, pending = qm.run(qm.engine.commit, conn)
    return None, pending


def _backout(qm: QueueManagerHost, conn: Connection, args: list[Any]) -> tuple[Any, Pending | None]:
    _, pending = qm.run(qm.engine.backout, conn)
    return None, pending


def _open(qm: QueueManagerHost, conn: Connection, args: list[Any]) -> tuple[Any, Pending | None]:
    od = struct(MQOD, args[0])
    options = integer(args[1], C.MQRC_OPTIONS_ERROR, "Options")
    selection = args[2] if len(args) > 2 else ""  # the MQOD's SelectionString (protocol.md)
    if not isinstance(selection, str):
        raise MQMIError(C.MQCC_FAILED, C.MQRC_SELECTION_STRING_ERROR, "the SelectionString must be text")
    _pubsub.object_string(od, args, 3)  # a topic's ObjectString
    handle, pending = qm.run(qm.engine.open, conn, od, options, selection)
    return [handle.hobj, od.pack(), *_pubsub.res_object_string(od)], pending


def _close(qm: QueueManagerHost, conn: Connection, args: list[Any]) -> tuple[Any, Pending | None]:
    hobj = integer(args[0], C.MQRC_HOBJ_ERROR, "Hobj")
    options = integer(args[1], C.MQRC_OPTIONS_ERROR, "Options")
    _, pending = qm.run(qm.engine.close, conn, hobj, options)
    return None, pending


def _inq(qm: QueueManagerHost, conn: Connection, args: list[Any]) -> tuple[Any, Pending | None]:
    hobj = integer(args[0], C.MQRC_HOBJ_ERROR, "Hobj")
    selectors = [integer(s, C.MQRC_SELECTOR_ERROR, "a selector") for s in _list(args[1])]
    (ints, chars, reason), pending = qm.run(qm.engine.inq, conn, hobj, selectors)
    return [ints, chars, reason], pending


def _set(qm: QueueManagerHost, conn: Connection, args: list[Any]) -> tuple[Any, Pending | None]:
    hobj = integer(args[0], C.MQRC_HOBJ_ERROR, "Hobj")
    selectors = [integer(s, C.MQRC_SELECTOR_ERROR, "a selector") for s in _list(args[1])]
    ints = [integer(s, C.MQRC_INT_ATTRS_ARRAY_ERROR, "an integer attribute") for s in _list(args[2])]
    chars = [_chars(c) for c in _list(args[3])]
    _, pending = qm.run(qm.engine.set, conn, hobj, selectors, ints, chars)
    return None, pending


def _admin(qm: QueueManagerHost, conn: Connection, args: list[Any]) -> tuple[Any, Pending | None]:
    verb, pargs, kwargs = args
    if not isinstance(verb, str) or verb not in ADMIN_VERBS or not isinstance(pargs, list):
        raise MQMIError(C.MQCC_FAILED, C.MQRC_FUNCTION_NOT_SUPPORTED, f"unknown administrative verb {verb!r}")
    if not isinstance(kwargs, dict) or not all(isinstance(k, str) for k in kwargs):
        raise MQMIError(C.MQCC_FAILED, C.MQRC_FUNCTION_NOT_SUPPORTED, "keyword arguments must be a map")
    fn = getattr(qm.engine, verb)
    admin_arguments(fn, verb, pargs, kwargs)
    result, pending = qm.run(qm.engine.administer, conn, verb, pargs, kwargs)  # the authority check first
    if verb == "messages":
        result = [[_md_of(m), m.data] for m in result]
    return result, pending


# -- administrative verbs: arguments checked at the wire's edge ----------------------------------------------
_SIGNATURES: dict[tuple[type, str], inspect.Signature] = {}


def _split_top(text: str, sep: str) -> list[str]:
    """``text`` split at ``sep`` outside brackets: ``("dict[str, Any] | None", "|")`` -> ``["dict[str, Any]",
    "None"]``."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch == "[":
            depth += 1
        elif ch == "]":
            depth -= 1
        elif ch == sep and depth == 0:
            parts.append(text[start:i].strip())
            start = i + 1
    parts.append(text[start:].strip())
    return parts


def _fits(annotation: Any, value: Any) -> bool:
    """Whether ``value`` (as msgpack decoded it) is of the engine's annotated type: str, int, float, bool,
    list[...], dict[...], a union of these with None; any other annotation (Any, a class) is not checked here."""
    if not isinstance(annotation, str):
        return True
    for alt in _split_top(annotation, "|"):
        base, _, inner = alt.partition("[")
        if alt == "None":
            ok = value is None
        elif alt == "str":
            ok = isinstance(value, str)
        elif alt == "bool":
            ok = isinstance(value, bool)
        elif alt == "int":
            ok = isinstance(value, int) and not isinstance(value, bool)
        elif alt == "float":
            ok = isinstance(value, int | float) and not isinstance(value, bool)
        elif base == "list":
            ok = isinstance(value, list) and (not inner or all(_fits(inner[:-1], v) for v in value))
        elif base == "dict":
            key = _split_top(inner[:-1], ",")[0] if inner else ""
            ok = isinstance(value, dict) and (not key or all(_fits(key, k) for k in value))
        else:
            return True
        if ok:
            return True
    return False


def admin_arguments(fn: Any, verb: str, pargs: list[Any], kwargs: dict[str, Any]) -> None:
    """Check an administrative verb's arguments against the engine method's signature before it runs: a
    missing, extra or wrongly typed argument is a bad request (docs/protocol.md), never an error inside the
    engine (issue 39, item 9: ``refresh_expiry`` with ``[1.5]`` answered 2195 with a traceback in the log)."""
    key = (type(fn.__self__), verb)
    sig = _SIGNATURES.get(key)
    if sig is None:
        sig = _SIGNATURES[key] = inspect.signature(fn)
    try:
        bound = sig.bind(*pargs, **kwargs)
    except TypeError as e:
        raise ProtocolError(f"admin {verb}: {e}") from None
    for name, value in bound.arguments.items():
        annotation = sig.parameters[name].annotation
        if not _fits(annotation, value):
            raise ProtocolError(f"admin {verb}: {name} must be {annotation}, not {type(value).__name__}")


# -- batches in one request ---------------------------------------------------------------------------------
def _putm(qm: QueueManagerHost, conn: Connection, args: list[Any]) -> tuple[Any, Pending | None]:
    """One MQPUT per data item, each with a copy of the request's MQMD and MQPMO: the same as that many put
    requests, in one frame. A failed put does not stop the others (each answer says how its put went); the
    reply waits until every put that must be durable is. With the option ``commit`` (the optional fifth
    argument, a map), MQCMIT follows when every put succeeded, as an application checking each put would
    then commit: the reply's third element says how (true: committed, false: not tried, else its error)."""
    hobj = integer(args[0], C.MQRC_HOBJ_ERROR, "Hobj")
    md0, pmo0 = struct(MQMD, args[1]), struct(MQPMO, args[2])
    datas = [_putm_item(d) for d in _list(args[3])]  # every item decoded (its properties checked) before any put
    then_commit = _options(args, 4, _PUTM_OPTIONS)["commit"]
    engine = qm.engine
    put = engine.put
    out: list[Any] = []
    last_pmo = [pmo0]
    committed: list[Any] = [False]

    def puts() -> None:  # every put under one hold of the lock: their store writes go as one batch
        failed = False
        for data, props in datas:
            md, pmo = md0.copy(), pmo0.copy()
            try:
                reason = put(conn, hobj, md, pmo, data, props)
            except MQMIError as e:
                out.append([e.comp, e.reason, e.detail])
                failed = True
                continue
            last_pmo[0] = pmo
            out.append([reason, md.pack()])
        if then_commit and not failed:
            try:
                engine.commit(conn)
                committed[0] = True
            except MQMIError as e:
                committed[0] = [e.comp, e.reason, e.detail]

    _, pending = qm.run(puts)
    reply = [out, last_pmo[0].pack()]
    if then_commit:
        reply.append(committed[0])
    return reply, pending


def _putv(qm: QueueManagerHost, conn: Connection, args: list[Any]) -> tuple[Any, Pending | None]:
    """As ``putm``, but each item carries its own MQMD (``[[MQMD, data], ...]``, one MQPMO for all): a batch of
    messages that differ in their descriptors (CorrelId, Persistence …) in one frame and one hold of the lock."""
    hobj = integer(args[0], C.MQRC_HOBJ_ERROR, "Hobj")
    pmo0 = struct(MQPMO, args[1])
    items = _putv_items(_list(args[2]))
    put = qm.engine.put
    out: list[Any] = []
    last_pmo = [pmo0]

    def puts() -> None:
        for md, data, props in items:
            pmo = pmo0.copy()
            try:
                reason = put(conn, hobj, md, pmo, data, props)
            except MQMIError as e:
                out.append([e.comp, e.reason, e.detail])
                continue
            last_pmo[0] = pmo
            out.append([reason, md.pack()])

    _, pending = qm.run(puts)
    return [out, last_pmo[0].pack()], pending


def _putm_item(item: Any) -> tuple[bytes, Props | None]:
    """One of putm's data items: the data, or ``[data, properties]`` for a message with properties (protocol
    version 4), checked as MQSETMP checks them (a bad one fails the whole request before any put)."""
    if type(item) is list:
        if len(item) != 2:
            raise ProtocolError("a putm item is data or [data, properties]")
        return _data(item[0]), from_wire(item[1])
    return _data(item), None


def _putv_items(pairs: list[Any]) -> list[tuple[MQMD, bytes, Props | None]]:
    """putv's ``[[MQMD, data(, properties)], ...]`` decoded: each MQMD unpacked once per distinct bytes in the
    request (a batch's messages mostly share a few descriptors), each item given its own copy (MQPUT completes it
    in place); the properties (protocol version 4) checked as MQSETMP checks them, all before any put."""
    seen: dict[Any, MQMD] = {}
    out: list[tuple[MQMD, bytes, Props | None]] = []
    for pair in pairs:
        _pair(pair)
        raw = pair[0]
        md = seen.get(raw) if type(raw) is bytes else None
        if md is None:
            md = struct(MQMD, raw)
            seen[raw] = md
        out.append((md.copy(), _data(pair[1]), from_wire(pair[2]) if len(pair) == 3 else None))
    return out


def _pair(item: Any) -> bool:
    if not isinstance(item, list) or len(item) not in (2, 3):
        raise ProtocolError("putv items are [MQMD, data] or [MQMD, data, properties]")
    return True


def _getm(
    qm: QueueManagerHost, conn: Connection, args: list[Any], limit: int = DEFAULT_MAX_FRAME
) -> tuple[Any, Pending | None]:
    """Up to n MQGETs without waiting, each with a copy of the request's MQMD and MQGMO: the same as that many
    get requests, in one frame. Ends at the first failure (NO_MSG_AVAILABLE when the queue runs dry), which is
    returned after the results. Options (the optional sixth argument, a map): ``commit_first``, MQCMIT before
    the gets (a consumer ending the unit of work of the batch it has processed and asking for the next; if it
    fails, its error is the reply and no get is tried); ``gmo`` false, answers without the MQGMO.

    Bounded (issue "Hardening", defect 1: one small request must not make a reply of n copies of a message):
    n is at most MAX_GETM (more is BAD_REQUEST); the reply stops early, without an error, where the next
    message might not fit in a frame of ``limit`` bytes (that message stays where it was: the client asks
    again); and MQGMO_BROWSE_FIRST or MQGMO_BROWSE_MSG_UNDER_CURSOR applies to the first get only, the others
    browse on with MQGMO_BROWSE_NEXT (n browses of the first message would be that message n times). A browse
    with MQGMO_LOCK answers one message per request (each moves the lock)."""
    hobj = integer(args[0], C.MQRC_HOBJ_ERROR, "Hobj")
    md0, gmo0 = struct(MQMD, args[1]), struct(MQGMO, args[2])
    if gmo0.Options & C.MQGMO_WAIT:
        raise MQMIError(C.MQCC_FAILED, C.MQRC_OPTIONS_ERROR, "getm does not wait: send get with MQGMO_WAIT")
    buflen = None if args[3] is None else integer(args[3], C.MQRC_BUFFER_LENGTH_ERROR, "BufferLength")
    n = integer(args[4], C.MQRC_OPTIONS_ERROR, "the number of gets")
    if n > MAX_GETM:
        raise ProtocolError(f"getm asks for {n} gets: at most {MAX_GETM} per request")
    options = _options(args, 5, _GETM_OPTIONS)
    commit_first, with_gmo = options["commit_first"], options["gmo"]
    engine = qm.engine
    if options["index"]:
        return _getm_index(qm, conn, hobj, md0, gmo0, n, commit_first, limit)
    get = engine.get
    out: list[Any] = []
    if gmo0.Options & C.MQGMO_LOCK:
        n = min(n, 1)
    next_options = gmo0.Options
    if next_options & (C.MQGMO_BROWSE_FIRST | C.MQGMO_BROWSE_MSG_UNDER_CURSOR):
        next_options = next_options & ~(C.MQGMO_BROWSE_FIRST | C.MQGMO_BROWSE_MSG_UNDER_CURSOR) | C.MQGMO_BROWSE_NEXT

    def gets() -> list[Any] | None:  # under one hold of the lock: their store writes go as one batch
        if commit_first:
            engine.commit(conn)  # its error is the reply's; the commit's writes and the gets' go as one batch
        if qm.shared is None:
            return get_all()
        engine.shared_get_ahead(conn, hobj, gmo0, n)  # a shared queue: one claim for the gets in syncpoint
        try:
            return get_all()
        finally:
            engine.shared_get_ahead(conn, hobj, gmo0, 0)

    def get_all() -> list[Any] | None:
        room = limit - _REPLY_ROOM
        for i in range(max(0, n)):
            md, gmo = md0.copy(), gmo0.copy()
            if i:
                gmo.Options = next_options
            try:
                result = _get_within(get, conn, hobj, md, gmo, buflen, room)
            except MQMIError as e:
                return [e.comp, e.reason, e.detail]
            if result is None:  # the next message might not fit: the client asks again for the rest
                if i == 0:
                    return [C.MQCC_FAILED, C.MQRC_MSG_TOO_BIG_FOR_CHANNEL, _too_big(limit)]
                return None
            md_b = md.pack()
            answer = [result.data, result.data_length, result.comp, result.reason, md_b]
            room -= len(result.data) + len(md_b) + 64
            if with_gmo:
                gmo_b = gmo.pack()
                answer.append(gmo_b)
                room -= len(gmo_b)
            if result.props is not None:  # for the caller's message handle: after the MQGMO (nil without one)
                if not with_gmo:
                    answer.append(None)
                answer.append(to_wire(result.props))
            out.append(answer)
        return None

    error, pending = qm.run(gets)
    return [out, error], pending


def _getm_index(
    qm: QueueManagerHost, conn: Connection, hobj: int, md: MQMD, gmo: MQGMO, n: int, commit_first: bool, limit: int
) -> tuple[Any, Pending | None]:
    """``getm`` with the option ``index`` (protocol version 3): up to n browses without data, answered as
    ``[MsgToken, BackoutCount, GroupId, MsgSeqNumber, MsgFlags, Priority]`` each (the engine's browse_index)."""
    engine = qm.engine
    n = max(0, min(n, (limit - _REPLY_ROOM) // _SEEN_SIZE))

    def browses() -> tuple[list[Any], MQMIError | None]:
        if commit_first:
            engine.commit(conn)
        return engine.browse_index(conn, hobj, md, gmo, n)

    (out, error), pending = qm.run(browses)
    return [out, None if error is None else [error.comp, error.reason, error.detail]], pending


_SLOW_OPTIONS = (
    C.MQGMO_ACCEPT_TRUNCATED_MSG | C.MQGMO_BROWSE_FIRST | C.MQGMO_BROWSE_NEXT | C.MQGMO_BROWSE_MSG_UNDER_CURSOR
)
MQRC_TRUNCATED_MSG_FAILED = C.MQRC_TRUNCATED_MSG_FAILED
_REPLY_ROOM = 4096  # a reply's frame beyond its get results: the envelope, the error's detail
_ANSWER_ROOM = 1024  # one get result beyond its data: the MQMD, the MQGMO, the numbers, msgpack's headers


def _size_of(answer: list[Any]) -> int:
    return sum(len(x) for x in answer if isinstance(x, bytes)) + 64


def _too_big(limit: int) -> str:
    return f"the message does not fit in a reply frame of at most {limit} bytes"


def _get_within(
    get: Callable[..., GetResult], conn: Connection, hobj: int, md: MQMD, gmo: MQGMO, buflen: int | None, room: int
) -> GetResult | None:
    """One MQGET whose data must fit in ``room`` bytes of the reply (less a result's structures). Asked with a
    buffer no larger than that and without MQGMO_ACCEPT_TRUNCATED_MSG, a message that does not fit fails with
    MQRC_TRUNCATED_MSG_FAILED and stays where it was (a browse cursor is put back): None then. A message that
    fits is answered exactly as the client's own buffer length would have answered it."""
    room -= _ANSWER_ROOM
    if buflen is not None and buflen <= room:
        return get(conn, hobj, md, gmo, buflen)  # whatever comes fits (truncated to buflen at most)
    if room < 0:
        return None
    options = gmo.Options
    if not options & _SLOW_OPTIONS:  # a plain get: nothing to put back
        result = get(conn, hobj, md, gmo, room)
        if result.reason == MQRC_TRUNCATED_MSG_FAILED and result.data_length > room:
            return None
        return result
    browse = options & (C.MQGMO_BROWSE_FIRST | C.MQGMO_BROWSE_NEXT | C.MQGMO_BROWSE_MSG_UNDER_CURSOR)
    h = conn.handles.get(hobj) if browse else None
    cursor = None if h is None else (h.browse_key, h.cursor)
    gmo.Options = options & ~C.MQGMO_ACCEPT_TRUNCATED_MSG
    result = get(conn, hobj, md, gmo, room)
    gmo.Options = options
    if result.reason == C.MQRC_TRUNCATED_MSG_FAILED and result.data_length > room:
        if h is not None and cursor is not None:
            h.browse_key, h.cursor = cursor
        return None
    return result


# -- reservations and gets by MsgToken (Spark's in-flight batches) ------------------------------------------
def _reserve(qm: QueueManagerHost, conn: Connection, args: list[Any]) -> tuple[Any, Pending | None]:
    hobj = integer(args[0], C.MQRC_HOBJ_ERROR, "Hobj")
    return qm.run(qm.engine.reserve, conn, hobj, args[1])


def _release(qm: QueueManagerHost, conn: Connection, args: list[Any]) -> tuple[Any, Pending | None]:
    hobj = integer(args[0], C.MQRC_HOBJ_ERROR, "Hobj")
    return qm.run(qm.engine.release, conn, hobj, args[1])


def _gettokens(
    qm: QueueManagerHost, conn: Connection, args: list[Any], limit: int = DEFAULT_MAX_FRAME
) -> tuple[Any, Pending | None]:
    """One MQGET per MsgToken (a browse with MQGMO_BROWSE_FIRST), like that many get requests in one frame; nil
    where the message is gone, ending at the first other failure, returned after the results. Like getm's, the
    reply stops early, without an error, where the next message might not fit in a frame (the client asks
    again for the tokens not answered)."""
    hobj = integer(args[0], C.MQRC_HOBJ_ERROR, "Hobj")
    gmo = struct(MQGMO, args[1])
    buflen = None if args[2] is None else integer(args[2], C.MQRC_BUFFER_LENGTH_ERROR, "BufferLength")
    tokens = args[3]
    if isinstance(tokens, list) and len(tokens) > MAX_TOKENS:
        raise MQMIError(C.MQCC_FAILED, C.MQRC_MSG_TOKEN_ERROR, f"at most {MAX_TOKENS} MsgTokens per request")
    engine = qm.engine
    if not isinstance(tokens, list):
        tokens = [tokens]  # the engine's MQRC_MSG_TOKEN_ERROR

    def gets() -> tuple[list[Any], list[Any] | None]:
        room = limit - _REPLY_ROOM
        budget = None
        if buflen is None or len(tokens) * (buflen + _ANSWER_ROOM) > room:
            if buflen is not None:  # a buffer of its own: whatever comes takes at most that
                return _gettokens_sized(engine, conn, hobj, gmo, buflen, tokens, room, limit)
            budget = room
        results, error = engine.get_tokens(conn, hobj, tokens, gmo, buflen, budget)
        out = [None if r is None else _token_answer(r[0], r[1]) for r in results]
        if error is not None:
            return out, [error.comp, error.reason, error.detail]
        if budget is not None and not results and tokens:  # the first message does not fit in a frame
            return out, [C.MQCC_FAILED, C.MQRC_MSG_TOO_BIG_FOR_CHANNEL, _too_big(limit)]
        return out, None

    (out, err), pending = qm.run(gets)
    return [out, err], pending


def _token_answer(md: MQMD, r: GetResult) -> list[Any]:
    """A gettokens answer: ``[data, DataLength, CompCode, Reason, MQMD]``, and the properties PROPCTL delivers to
    the MQGMO's message handle last (protocol version 4; a message without any has five elements, as before)."""
    answer = [r.data, r.data_length, r.comp, r.reason, md.pack()]
    if r.props is not None:
        answer.append(to_wire(r.props))
    return answer


def _gettokens_sized(
    engine: Any, conn: Connection, hobj: int, gmo: MQGMO, buflen: int, tokens: list[Any], room: int, limit: int
) -> tuple[list[Any], list[Any] | None]:
    """``gettokens`` with a buffer length too large for all of them to surely fit in a frame: token by token,
    each within what is left of the frame."""
    out: list[Any] = []
    for i, token in enumerate(tokens):
        if buflen <= room - _ANSWER_ROOM:
            results, error = engine.get_tokens(conn, hobj, [token], gmo, buflen)
        else:
            if room < _ANSWER_ROOM:
                break
            g = gmo.copy()
            g.Options &= ~C.MQGMO_ACCEPT_TRUNCATED_MSG
            results, error = engine.get_tokens(conn, hobj, [token], g, room - _ANSWER_ROOM)
            r = results[0][1] if results and results[0] is not None else None
            if r is not None and r.reason == C.MQRC_TRUNCATED_MSG_FAILED and r.data_length > room - _ANSWER_ROOM:
                if i == 0:
                    return out, [C.MQCC_FAILED, C.MQRC_MSG_TOO_BIG_FOR_CHANNEL, _too_big(limit)]
                break  # the message stays: the client asks again
        if error is not None:
            return out, [error.comp, error.reason, error.detail]
        got = results[0]
        if got is None:
            out.append(None)
            continue
        answer = _token_answer(*got)
        room -= _size_of(answer) + (props_length(got[1].props) if got[1].props else 0)
        out.append(answer)
    return out, None


VERBS: dict[str, Handler] = {
    "put": _put,
    "put1": _put1,
    "commit": _commit,
    "backout": _backout,
    "open": _open,
    "close": _close,
    "inq": _inq,
    "set": _set,
    "admin": _admin,
    "putm": _putm,
    "putv": _putv,
    "reserve": _reserve,
    "release": _release,
    "channel": _channel,  # the receiving end of a message channel (_channel.py)
    "sub": _pubsub.sub,  # MQSUB (_pubsub.py)
    "subrq": _pubsub.subrq,  # MQSUBRQ
}
"""The verbs a connected session runs here (``get``, ``disconnect``, ``ping`` and ``endmqm`` are the session's)."""

SIZED_VERBS: dict[str, Callable[[QueueManagerHost, Connection, list[Any], int], tuple[Any, Pending | None]]] = {
    "getm": _getm,
    "gettokens": _gettokens,
}
"""The verbs whose reply may carry many messages: they take the server's frame limit and stop within it."""
