"""The dead-letter workbench: a dead-letter queue's messages by reason, original queue and age, and the actions an
operator takes on the ones selected — retry to the original destination, move to another queue, discard — with the
runmqdlq rules table that would do the same.

Theory of operation: the actions are the DLQ handler's own (``syncpoint.dlq``): a one-rule table
(``ACTION(RETRY)``, ``ACTION(FWD) FWDQ(q) HEADER(YES)`` or ``ACTION(DISCARD)``) given to a
:class:`~syncpoint.dlq.DeadLetterHandler`, which acts on each message by its MsgId
(:meth:`~syncpoint.dlq.DeadLetterHandler.act_on`) exactly as runmqdlq acts on the messages its rules match: the
message is got under a browse lock and put with its context passed (MQPMO_PASS_ALL_CONTEXT), in one unit of work,
the MQDLH removed for a retry; a put that fails backs the unit of work out, so the message stays on the dead-letter
queue and the answer says why (a retry whose original queue was deleted: MQRC_UNKNOWN_OBJECT_NAME, 2085).

runmqdlq's rules cannot name a message (there is no MsgId pattern): the rules table generated for a selection
matches the selection's (DESTQ, REASON) pairs, and its comment says it acts on every message that matches them.
"""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from syncpoint.dlq import DeadLetterHandler, parse_rules, read_dlh
from syncpoint.mqi import MQMIError, blank_strip, reason_name
from syncpoint.mqi import constants as C

from ._data import BROWSE, browse_page, page_bounds

if TYPE_CHECKING:
    from syncpoint.client import QueueManager

ACTIONS = ("retry", "move", "discard")
MAX_SELECTION = 1000


@dataclass(frozen=True, slots=True)
class Outcome:
    """What an action did to one message."""

    msg_id: str
    done: bool
    reason: int
    destination: str

    def json(self) -> dict[str, Any]:
        return {
            "msgId": self.msg_id,
            "done": self.done,
            "reason": self.reason,
            "reasonName": reason_name(self.reason) if self.reason else "",
            "destination": self.destination,
        }


def _valid_queue_name(name: str) -> bool:
    return 0 < len(name.encode("utf-8", "replace")) <= C.MQ_Q_NAME_LENGTH and "'" not in name and " " not in name


def rule_for(action: str, to_queue: str = "") -> str:
    """The one runmqdlq rule that does ``action`` to any message; ValueError for an unknown action or a bad name."""
    if action == "retry":
        return "ACTION(RETRY) RETRY(1)"
    if action == "discard":
        return "ACTION(DISCARD)"
    if action == "move":
        if not _valid_queue_name(to_queue):
            raise ValueError(f"move needs the name of the queue to move to (1 to 48 characters), not {to_queue!r}")
        return f"ACTION(FWD) FWDQ('{to_queue}') HEADER(YES)"
    raise ValueError(f"the action is one of {', '.join(ACTIONS)}, not {action!r}")


def act(qm: QueueManager, dlq: str, action: str, msg_ids: list[bytes], to_queue: str = "") -> list[Outcome]:
    """Do ``action`` to each message of ``dlq`` named by its MsgId, one unit of work each, through the DLQ
    handler's own actions; the outcome of each."""
    rule = rule_for(action, to_queue)
    table = parse_rules(f"INPUTQ('{dlq}') WAIT(NO)\n{rule}\n")
    handler = DeadLetterHandler(qm, table, qname=dlq, report=lambda line: None)
    out = []
    try:
        for msg_id in msg_ids:
            reason, dest = handler.act_on(msg_id)
            where = f"{dest[0]}{' on ' + dest[1] if dest and dest[1] else ''}" if dest else ""
            out.append(Outcome(msg_id.hex(), reason == C.MQRC_NONE, reason, where))
    finally:
        try:
            handler.queue.close()
        except MQMIError:
            pass
    return out


def _age_seconds(date: str, tod: str, now: float) -> int | None:
    """Seconds since an MQMD/MQDLH PutDate (YYYYMMDD) and PutTime (HHMMSSTH), in UTC as MQ writes them."""
    import calendar

    try:
        t = calendar.timegm(time.strptime(date + tod[:6], "%Y%m%d%H%M%S"))
    except ValueError:
        return None
    return max(0, int(now - t))


def dead_letters(qm: QueueManager, dlq: str, offset: int, limit: int, now: float | None = None) -> dict[str, Any]:
    """A page of the dead-letter queue: each message's reason, original queue and queue manager, and age, plus
    the counts by reason and by original queue over the page, and the queue's depth."""
    offset, limit = page_bounds(offset, limit)
    now = time.time() if now is None else now
    q = qm.open(dlq, BROWSE)
    items: list[dict[str, Any]] = []
    try:
        for index, m in enumerate(browse_page(qm, q, offset, limit), start=offset):
            dlh = read_dlh(m.data)
            date, tod = blank_strip(m.md.PutDate), blank_strip(m.md.PutTime)
            entry: dict[str, Any] = {
                "index": index,
                "msgId": bytes(m.md.MsgId).hex(),
                "putDate": date,
                "putTime": tod,
                "age": _age_seconds(date, tod, now),
                "length": len(m.data),
            }
            if dlh is None:
                entry.update(reason=None, reasonName="no MQDLH", destQ="", destQMgr="")
            else:
                entry.update(
                    reason=dlh.Reason,
                    reasonName=reason_name(dlh.Reason),
                    destQ=blank_strip(dlh.DestQName),
                    destQMgr=blank_strip(dlh.DestQMgrName),
                )
                # the arrival on the dead-letter queue: the MQDLH's PutDate / PutTime (the dead-lettering put)
                dd, dt = blank_strip(dlh.PutDate), blank_strip(dlh.PutTime)
                if dd and dt:
                    entry["putDate"], entry["putTime"] = dd, dt
                    entry["age"] = _age_seconds(dd, dt, now)
            items.append(entry)
    finally:
        q.close()
    by_reason = Counter(str(i["reasonName"]) for i in items)
    by_queue = Counter(str(i["destQ"]) for i in items if i["destQ"])
    return {
        "queue": dlq,
        "depth": qm.admin("queue_status", dlq)["CURDEPTH"],
        "offset": offset,
        "limit": limit,
        "messages": items,
        "byReason": dict(by_reason.most_common()),
        "byQueue": dict(by_queue.most_common()),
    }


def rules_table(dlq: str, action: str, selected: list[dict[str, Any]], to_queue: str = "") -> str:
    """The runmqdlq rules table that does ``action`` to messages like the selected ones (each a dead_letters
    item: its ``destQ`` and ``reason``)."""
    rule = rule_for(action, to_queue)
    pairs = sorted({(str(s["destQ"]), int(s["reason"])) for s in selected if s.get("reason") is not None})
    lines = [
        "* runmqdlq rules generated by the syncpoint console.",
        "* runmqdlq cannot name one message: these rules act on EVERY message on the queue that matches them.",
        f"INPUTQ('{dlq}') WAIT(NO)",
    ]
    for dest, reason in pairs:
        lines.append(f"DESTQ('{dest}') REASON({reason}) {rule}" if dest else f"REASON({reason}) {rule}")
    text = "\n".join(lines) + "\n"
    parse_rules(text)  # what we hand out is a table runmqdlq accepts
    return text
