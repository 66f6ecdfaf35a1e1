"""What the console's pages show, read over one ``syncpoint.client`` connection: plain functions that answer
JSON-ready dictionaries, so that the web layer (``_web``) only routes and guards.

Theory of operation: every list is a page (``offset``, ``limit``, at most :data:`MAX_PAGE` items) and says how
many there are in all, so a page never costs more than the items it shows: the queue list reads the status of
only the queues on its page (10,000 queues cost one name listing, then 50 status reads); a queue's messages are
browsed for the page only — the messages before it are skipped by the queue manager's index browse, without their
data, and a queue of a million messages is never read whole. A message's body is sent whole, base64-encoded; the
page shows it as text, JSON or hex. MQDLH and MQXQH at the start of a body are decoded here, with the vocabulary's
structures.
"""

from __future__ import annotations

import base64
import time
from typing import TYPE_CHECKING, Any

from syncpoint.client import dead_letter_queue
from syncpoint.mqi import MQDLH, MQGMO, MQMD, MQXQH, MQMIError, blank_strip, matches_generic, reason_name
from syncpoint.mqi import constants as C
from syncpoint.mqi.objects import QLOCAL

if TYPE_CHECKING:
    from syncpoint.client import Message, Queue, QueueManager

MAX_PAGE = 500  # the most items one request answers (queues or messages)
BROWSE = C.MQOO_BROWSE | C.MQOO_FAIL_IF_QUIESCING
SKIP_CHUNK = 10_000  # messages skipped per index browse


def page_bounds(offset: int, limit: int) -> tuple[int, int]:
    """A page's offset and size, kept in bounds (negative offsets start at 0; a page holds 1 to MAX_PAGE items)."""
    return max(0, offset), max(1, min(limit, MAX_PAGE))


def _text(value: Any) -> Any:
    if isinstance(value, (bytes, bytearray)):
        raw = bytes(value)
        stripped = raw.rstrip(b" \0")
        if all(32 <= b < 127 for b in stripped):
            return stripped.decode("ascii")
        return raw.hex()
    if isinstance(value, MQMD):
        return structure_json(value)
    return value


def structure_json(s: Any) -> dict[str, Any]:
    """A structure's fields by IBM's names: printable character fields as text, binary ones (MsgId…) in hex."""
    binary = {"MsgId", "CorrelId", "AccountingToken", "GroupId", "MsgToken"}
    out: dict[str, Any] = {}
    for name, value in s.fields().items():
        if name in binary and isinstance(value, (bytes, bytearray)):
            out[name] = bytes(value).hex()
        else:
            out[name] = _text(value)
    return out


def qmgr_overview(qm: QueueManager) -> dict[str, Any]:
    """The queue manager: its name, dead-letter queue, queue-sharing group ('' outside one) with its members (name,
    ACTIVE / INACTIVE, when the latest session started) and channels (with their status where one is running)."""
    from syncpoint.mqsc import MqscProcessor

    processor = MqscProcessor(qm, echo=False)
    channels: dict[str, dict[str, Any]] = {}
    defined = processor.execute("DISPLAY CHANNEL(*) CHLTYPE")
    for item in defined.objects if defined.ok else []:
        attrs = dict(item)
        name = str(attrs.get("CHANNEL", ""))
        channels[name] = {"name": name, "type": attrs.get("CHLTYPE", ""), "status": "INACTIVE"}
    running = processor.execute("DISPLAY CHSTATUS(*)")
    for item in running.objects if running.ok else []:
        attrs = dict(item)
        name = str(attrs.get("CHANNEL", ""))
        entry = channels.setdefault(name, {"name": name, "type": attrs.get("CHLTYPE", ""), "status": ""})
        entry["status"] = attrs.get("STATUS", "")
    group = qm.admin("qsg_name") or ""
    return {
        "name": qm.name,
        "deadLetterQueue": dead_letter_queue(qm),
        "queueSharingGroup": group,
        "members": qm.admin("qsg_members") if group else [],
        "channels": sorted(channels.values(), key=lambda c: c["name"]),
        "time": time.time(),
    }


def queue_page(qm: QueueManager, pattern: str, offset: int, limit: int) -> dict[str, Any]:
    """A page of local queues matching ``pattern`` (a generic name), with depth, age of the oldest message,
    handles and uncommitted messages (DISPLAY QSTATUS's CURDEPTH, MSGAGE, IPPROCS / OPPROCS and UNCOM)."""
    offset, limit = page_bounds(offset, limit)
    pattern = (pattern or "*").strip().upper() or "*"
    names = sorted(d.name for d in qm.admin("list_objects", QLOCAL) if matches_generic(pattern, d.name))
    queues = []
    for name in names[offset : offset + limit]:
        d = qm.admin("lookup", QLOCAL, name)
        try:
            st = qm.admin("queue_status", name)
        except MQMIError:
            continue  # deleted between the listing and now
        queues.append(
            {
                "name": name,
                "description": d.attrs.get("DESCR", "") if d is not None else "",
                "depth": st["CURDEPTH"],
                "maxDepth": d.attrs.get("MAXDEPTH") if d is not None else None,
                "oldestMessageAge": st["MSGAGE"],
                "openInput": st["IPPROCS"],
                "openOutput": st["OPPROCS"],
                "uncommitted": st["UNCOM"],
            }
        )
    return {"total": len(names), "offset": offset, "limit": limit, "queues": queues}


def _summary(index: int, m: Message) -> dict[str, Any]:
    md = m.md
    return {
        "index": index,
        "msgId": bytes(md.MsgId).hex(),
        "correlId": bytes(md.CorrelId).hex(),
        "format": blank_strip(md.Format),
        "persistence": md.Persistence,
        "priority": md.Priority,
        "putDate": blank_strip(md.PutDate),
        "putTime": blank_strip(md.PutTime),
        "length": len(m.data),
        "preview": m.data[:64].decode("utf-8", "replace"),
    }


def message_page(qm: QueueManager, queue: str, offset: int, limit: int) -> dict[str, Any]:
    """A page of a queue's messages in delivery order, browsed (left in place), read no further than the page."""
    offset, limit = page_bounds(offset, limit)
    depth = qm.admin("queue_status", queue)["CURDEPTH"] if qm.admin("lookup", QLOCAL, queue) is not None else None
    q = qm.open(queue, BROWSE)
    try:
        items = [_summary(offset + i, m) for i, m in enumerate(browse_page(qm, q, offset, limit))]
    finally:
        q.close()
    return {"queue": queue, "depth": depth, "offset": offset, "limit": limit, "messages": items}


def _skip(qm: QueueManager, q: Queue, count: int) -> bool | None:
    """Move the browse cursor over the first ``count`` messages without reading their data (the queue manager's
    index browse, as the Spark source scans: one answer per 10,000 messages): True when done, False when the queue
    has fewer, None when the transport cannot (a server speaking an older protocol)."""
    browse_index = getattr(qm.transport, "browse_index", None)
    first = True
    while count > 0:
        if browse_index is None:
            return None
        n = min(count, SKIP_CHUNK)
        gmo = MQGMO(Version=C.MQGMO_VERSION_3, MatchOptions=C.MQMO_NONE)
        gmo.Options = (C.MQGMO_BROWSE_FIRST if first else C.MQGMO_BROWSE_NEXT) | C.MQGMO_NO_WAIT
        gmo.Options |= C.MQGMO_FAIL_IF_QUIESCING | C.MQGMO_ACCEPT_TRUNCATED_MSG
        got = browse_index(q.handle, MQMD(), gmo, n)
        if got is None:
            return None
        seen, error = got
        if error is not None and error.reason != C.MQRC_NO_MSG_AVAILABLE:
            raise error
        if len(seen) < n:
            return False
        count -= n
        first = False
    return True


def browse_page(qm: QueueManager, q: Queue, offset: int, limit: int) -> list[Message]:
    """Messages ``offset`` to ``offset + limit`` of queue ``q`` (opened to browse), in delivery order, left in
    place; an empty page past the end. The messages before the page are skipped without their data where the
    transport can."""
    out: list[Message] = []
    skipped = _skip(qm, q, offset) if offset else True
    if skipped is False:
        return out  # the queue ends before the page
    if skipped is None:
        for index, m in enumerate(q.browse_all(read_ahead=64)):  # the fallback: browse with data up to the page
            if index >= offset + limit:
                break
            if index >= offset:
                out.append(m)
        return out
    for i in range(limit):
        try:
            out.append(q.browse(first=offset == 0 and i == 0))
        except MQMIError as e:
            if e.reason == C.MQRC_NO_MSG_AVAILABLE:
                break
            raise
    return out


def find_message(qm: QueueManager, queue: str, msg_id: bytes) -> Message | None:
    """The first message on ``queue`` with this MsgId, browsed; None when there is none."""
    q = qm.open(queue, BROWSE)
    try:
        return q.browse(first=True, msg_id=msg_id)
    except MQMIError as e:
        if e.reason == C.MQRC_NO_MSG_AVAILABLE:
            return None
        raise
    finally:
        q.close()


def headers_of(data: bytes) -> list[dict[str, Any]]:
    """The MQDLH and MQXQH at the start of a body, decoded in order (a dead-lettered transmission message has
    an MQDLH followed by an MQXQH)."""
    out: list[dict[str, Any]] = []
    at = 0
    for _ in range(2):
        rest = data[at:]
        if rest[:4] == C.MQDLH_STRUC_ID and len(rest) >= C.MQDLH_LENGTH_1:
            dlh = MQDLH.unpack(rest[: C.MQDLH_LENGTH_1])
            fields = structure_json(dlh)
            fields["ReasonName"] = reason_name(dlh.Reason)
            out.append({"structure": "MQDLH", "fields": fields})
            at += C.MQDLH_LENGTH_1
        elif rest[:4] == C.MQXQH_STRUC_ID and len(rest) >= C.MQXQH_LENGTH_1:
            xqh = MQXQH.unpack(rest[: C.MQXQH_LENGTH_1])
            out.append({"structure": "MQXQH", "fields": structure_json(xqh)})
            at += C.MQXQH_LENGTH_1
        else:
            break
    return out


_PROPERTY_TYPES = {
    C.MQTYPE_BOOLEAN: "BOOLEAN",
    C.MQTYPE_BYTE_STRING: "BYTE_STRING",
    C.MQTYPE_INT8: "INT8",
    C.MQTYPE_INT16: "INT16",
    C.MQTYPE_INT32: "INT32",
    C.MQTYPE_INT64: "INT64",
    C.MQTYPE_FLOAT32: "FLOAT32",
    C.MQTYPE_FLOAT64: "FLOAT64",
    C.MQTYPE_STRING: "STRING",
    C.MQTYPE_NULL: "NULL",
}


def properties_json(props: dict[str, tuple[int, Any]] | None) -> list[dict[str, str]]:
    """A message's properties in the order they were set: name, type (the MQTYPE_ name without its prefix, as
    amqsbcg shows them) and the value as text (a byte string in hex, a boolean TRUE / FALSE, NULL empty)."""
    out: list[dict[str, str]] = []
    for name, (ptype, value) in (props or {}).items():
        if ptype == C.MQTYPE_BYTE_STRING:
            text = bytes(value).hex()
        elif ptype == C.MQTYPE_BOOLEAN:
            text = "TRUE" if value else "FALSE"
        elif ptype == C.MQTYPE_NULL:
            text = ""
        else:
            text = str(value)
        out.append({"name": name, "type": _PROPERTY_TYPES.get(ptype, str(ptype)), "value": text})
    return out


def message_detail(qm: QueueManager, queue: str, msg_id: bytes) -> dict[str, Any] | None:
    """One message whole: its MQMD, its properties, its decoded headers and its body (base64)."""
    m = find_message(qm, queue, msg_id)
    if m is None:
        return None
    return {
        "queue": queue,
        "md": structure_json(m.md),
        "properties": properties_json(m.typed_properties),
        "headers": headers_of(m.data),
        "length": len(m.data),
        "body": base64.b64encode(m.data).decode("ascii"),
    }


def run_mqsc(qm: QueueManager, text: str) -> dict[str, Any]:
    """MQSC through the MQSC command processor: its answer's lines, and whether it worked."""
    from syncpoint.mqsc import MqscProcessor

    response = MqscProcessor(qm, echo=False).execute(text)
    return {"ok": bool(response.ok), "lines": list(response.lines)}
