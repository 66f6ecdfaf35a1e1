"""Name resolution: where a message for (queue name, queue-manager name) goes — IBM's rules for remote queues,
queue-manager aliases, reply-to queue aliases and transmission queues.

References: issue 23, item 1; constants.md (MQRC_UNKNOWN_REMOTE_Q_MGR 2087, MQRC_REMOTE_Q_NAME_ERROR 2184,
MQRC_UNKNOWN_XMIT_Q 2196, MQRC_XMIT_Q_TYPE_ERROR 2091, MQRC_XMIT_Q_USAGE_ERROR 2092, MQRC_UNKNOWN_DEF_XMIT_Q 2197,
MQRC_DEF_XMIT_Q_TYPE_ERROR 2198, MQRC_DEF_XMIT_Q_USAGE_ERROR 2199); mqsc.md (QREMOTE RNAME / RQMNAME / XMITQ, the
queue manager's DEFXMITQ, QLOCAL USAGE(XMITQ)).

Theory of operation
-------------------
MQOPEN, MQPUT1, the queue manager's own puts (reports, dead letters) and a receiving channel's deliveries
resolve a destination the same way, :meth:`ResolveMixin._resolve_target`:

* **No queue-manager name, or this one's:** the queue name is looked up here. A local queue is the
  destination; an alias resolves to its base; a QREMOTE (a *local definition of a remote queue*) names the
  queue (RNAME) at another queue manager (RQMNAME) and, optionally, the transmission queue (XMITQ). A QREMOTE
  whose RNAME is blank is a queue-manager alias and cannot be opened as a queue (MQRC_REMOTE_Q_NAME_ERROR).
* **Another queue manager's name** (MQOD ObjectQMgrName, an MQXQH's RemoteQMgrName, a report's ReplyToQMgr, or
  a QREMOTE's RQMNAME): a QREMOTE of that name with a blank RNAME is a *queue-manager alias* — its RQMNAME
  replaces the queue manager's name (this one's: the queue is then local) and its XMITQ, when set, is the
  transmission queue; otherwise the transmission queue is the local queue named like the queue manager, else
  the queue manager's DEFXMITQ, else MQRC_UNKNOWN_REMOTE_Q_MGR. A transmission queue must be a local queue with
  USAGE(XMITQ).

The result, a :class:`Target`: the local queue the message is put on (the destination or a transmission
queue), the first definition the name met (an alias or a QREMOTE, whose PUT, DEFPRTY and DEFPSIST apply), and
for a transmission queue the names that go in the MQXQH. Reply-to queue aliases (a QREMOTE named as an MQMD's
ReplyToQ with ReplyToQMgr blank: ReplyToQ becomes its RNAME and ReplyToQMgr its RQMNAME) are
:meth:`ResolveMixin.reply_to_alias`.

Where IBM's documentation leaves a choice: a QREMOTE whose RQMNAME is this queue manager's name (and no XMITQ)
resolves RNAME here, as a queue-manager alias to this queue manager does; chains of aliases are followed at most
eight deep (a loop fails with MQRC_UNKNOWN_REMOTE_Q_MGR).
"""

from __future__ import annotations

from syncpoint.mqi import constants as C
from syncpoint.mqi.objects import QALIAS, QLOCAL, QREMOTE, Definition

from ._base import QueueManagerBase
from ._state import LocalQueue, Target
from ._util import fail, padded

_MAX_HOPS = 8
# a transmission queue's reasons: named by a QREMOTE's XMITQ, or the queue manager's DEFXMITQ
_NAMED = ("transmission queue", C.MQRC_UNKNOWN_XMIT_Q, C.MQRC_XMIT_Q_TYPE_ERROR, C.MQRC_XMIT_Q_USAGE_ERROR)
_DEFAULT = (
    "the default transmission queue",
    C.MQRC_UNKNOWN_DEF_XMIT_Q,
    C.MQRC_DEF_XMIT_Q_TYPE_ERROR,
    C.MQRC_DEF_XMIT_Q_USAGE_ERROR,
)


class ResolveMixin(QueueManagerBase):
    """Name resolution (see the module doc)."""

    failed_xmitq = ""  # the transmission queue the last refused resolution named (Remote events' XmitQName)

    def _resolve_target(self, name: str, qmname: str = "", first: Definition | None = None, hops: int = 0) -> Target:
        """Resolve (queue ``name``, queue manager ``qmname``); raises MQMIError with IBM's reason."""
        if hops > _MAX_HOPS:
            raise fail(C.MQRC_UNKNOWN_REMOTE_Q_MGR, f"name resolution of {name} at {qmname} loops")
        if qmname and qmname != self.name and self.group_shared_queue(qmname, name):
            qmname = ""  # the queue-sharing group's name and a shared queue of that name (``_shared_defs``)
        if qmname and qmname != self.name:
            return self._resolve_qmgr(name, qmname, first, hops)
        d = self.definitions.get(("Q", name))
        if d is None:
            raise fail(C.MQRC_UNKNOWN_OBJECT_NAME, f"queue {name} does not exist")
        otype = d.otype
        if otype == QLOCAL:
            return Target(self.queues[d.name], first, None)
        if otype == QALIAS:
            target = d.attrs["TARGET"]
            base = self.definitions.get(("Q", target))
            if base is None:
                raise fail(C.MQRC_UNKNOWN_ALIAS_BASE_Q, f"alias {name} resolves to {target}, which does not exist")
            if base.otype == QREMOTE:  # an alias of a remote queue
                return self._resolve_target(target, "", first or d, hops + 1)
            if base.otype != QLOCAL:
                raise fail(C.MQRC_ALIAS_BASE_Q_TYPE_ERROR, f"alias {name} must resolve to a local or remote queue")
            return Target(self.queues[base.name], first or d, None)
        if otype == QREMOTE:
            a = d.attrs
            rname, rqm, xq = a["RNAME"], a["RQMNAME"], a["XMITQ"]
            if not rname:
                raise fail(C.MQRC_REMOTE_Q_NAME_ERROR, f"{name} is a queue-manager alias (RNAME is blank)")
            if not rqm:
                raise fail(C.MQRC_UNKNOWN_REMOTE_Q_MGR, f"remote queue {name} names no queue manager (RQMNAME)")
            first = first or d
            if xq:
                return Target(self._named_xmitq(xq), first, (padded(rname, 48), padded(rqm, 48)))
            return self._resolve_target(rname, rqm, first, hops + 1)
        raise fail(C.MQRC_Q_TYPE_ERROR, f"{name} is a {otype}: a message cannot be put on it")

    def _resolve_qmgr(self, qname: str, qmname: str, first: Definition | None, hops: int) -> Target:
        """A queue at another queue manager: queue-manager alias, transmission queue named like it, DEFXMITQ."""
        d = self.definitions.get(("Q", qmname))
        if d is not None and d.otype == QREMOTE and not d.attrs["RNAME"]:
            # a queue-manager alias: its RQMNAME replaces the name, its XMITQ (when set) is the way out
            new_qm = d.attrs["RQMNAME"] or qmname
            xq = d.attrs["XMITQ"]
            if xq:
                return Target(self._named_xmitq(xq), first, (padded(qname, 48), padded(new_qm, 48)))
            if new_qm != qmname:
                return self._resolve_target(qname, new_qm, first, hops + 1)
            d = None
        if d is not None and d.otype == QLOCAL:
            if d.attrs["USAGE"] != C.MQUS_TRANSMISSION:
                self.failed_xmitq = d.name
                raise fail(
                    C.MQRC_XMIT_Q_USAGE_ERROR, f"queue {qmname}, named like the queue manager, is not USAGE(XMITQ)"
                )
            return Target(self.queues[d.name], first, (padded(qname, 48), padded(qmname, 48)))
        dx = self.qmgr.attrs.get("DEFXMITQ", "")
        if dx:
            return Target(self._xmitq(dx, _DEFAULT), first, (padded(qname, 48), padded(qmname, 48)))
        raise fail(
            C.MQRC_UNKNOWN_REMOTE_Q_MGR,
            f"queue manager {qmname} is not known here: no queue-manager alias, no transmission queue of that "
            "name, no DEFXMITQ",
        )

    def _named_xmitq(self, name: str) -> LocalQueue:
        """The transmission queue a definition names (XMITQ of a QREMOTE)."""
        return self._xmitq(name, _NAMED)

    def _xmitq(self, name: str, reasons: tuple[str, int, int, int]) -> LocalQueue:
        """Transmission queue ``name``: it must exist, be a local queue and have USAGE(XMITQ) — else the reason
        of ``reasons`` (what it is called, then the reasons for: unknown, not local, not USAGE(XMITQ))."""
        what, unknown, not_local, not_xmitq = reasons
        self.failed_xmitq = name
        x = self.definitions.get(("Q", name))
        if x is None:
            raise fail(unknown, f"{what} {name} does not exist")
        if x.otype != QLOCAL:
            raise fail(not_local, f"{what} {name} is not a local queue")
        if x.attrs["USAGE"] != C.MQUS_TRANSMISSION:
            raise fail(not_xmitq, f"{what} {name} is not USAGE(XMITQ)")
        return self.queues[name]

    def reply_to_alias(self, reply_q: str) -> tuple[str, str] | None:
        """A reply-to queue alias: the (ReplyToQ, ReplyToQMgr) an MQPUT with this ReplyToQ and a blank
        ReplyToQMgr gets — the QREMOTE's RNAME (its own name when blank) and RQMNAME — or None."""
        d = self.definitions.get(("Q", reply_q))
        if d is None or d.otype != QREMOTE or not d.attrs["RNAME"] or not d.attrs["RQMNAME"]:
            return None
        return d.attrs["RNAME"], d.attrs["RQMNAME"]
