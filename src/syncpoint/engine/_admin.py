"""Administration: the verbs MQSC and PCF use (through the client) — DEFINE, ALTER, DELETE, CLEAR, DISPLAY
QSTATUS, REFRESH QMGR TYPE(EXPIRY) (in ``_expiry``), and the store contents of a new queue manager (crtmqm).

References: mqsc.md ("Control commands", "Queue attributes and defaults", "Responses"); constants.md (the
MQRC_* these verbs raise: MQRC_OBJECT_ALREADY_EXISTS, MQRC_OBJECT_IN_USE, MQRC_Q_NOT_EMPTY …); seed 001
(a defined queue joins the triggering index; ALTER of trigger attributes may trigger, condition 13, through
``_inquire.InquireMixin._apply_changes``).

Theory of operation
-------------------
Object definitions live in ``definitions`` by namespace and name — every queue type shares one namespace,
processes have their own — and local queues' runtime state in ``queues``. Each verb validates everything
first (attribute names through ``syncpoint.mqi.objects``), then changes the definition and records it in the
store batch, so a refused command changes nothing. A temporary dynamic queue is never stored.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from syncpoint.mqi import constants as C
from syncpoint.mqi import mqsc_date_time
from syncpoint.mqi.objects import (  # an import list, not logic: other modules import many of the same names
    ATTRIBUTES,
    AUTHINFO,
    CHANNEL,
    NAMELIST,
    PROCESS,
    QALIAS,
    QLOCAL,
    QMGR,
    QMODEL,
    QREMOTE,
    QUEUE_TYPES,
    SYSTEM_DEAD_LETTER,
    Attribute,
    Definition,
    check_value,
    default_objects,
    defaults_for,
    engine_key,
    valid_object_name,
)
from syncpoint.store import Batch

from . import _sslpeer
from ._base import QueueManagerBase
from ._state import LocalQueue, Message
from ._util import fail
from .clock import Clock


@dataclass(frozen=True, slots=True)
class MessageView:
    """A message as the admin verb ``messages`` shows it: its MQMD fields as a browse returns them, its data."""

    md: dict[str, Any]
    data: bytes
    persistent: bool
    priority: int

    # the names the client's Message has, so a test or tool reads either alike
    @property
    def backout_count(self) -> int:
        return int(self.md["BackoutCount"])

    @property
    def expiry(self) -> int:
        return int(self.md["Expiry"])

    @property
    def msg_id(self) -> bytes:
        return bytes(self.md["MsgId"])

    @staticmethod
    def of(m: Message, now: float) -> MessageView:
        md = dict(m.md)
        md["BackoutCount"] = m.backout
        if m.expiry != C.MQEI_UNLIMITED:
            md["Expiry"] = max(1, m.remaining_expiry(now))
        return MessageView(md, m.data, m.persistent, m.priority)


def _no_call_in_progress(hconn: int, hobj: int) -> bool:
    return False


class AdminMixin(QueueManagerBase):
    """The administrative verbs."""

    # the host's answer to "is a call of connection hconn on object handle hobj in progress" (an MQGET waiting):
    # IBM's HSTATE, the same in DISPLAY QSTATUS TYPE(HANDLE) and DISPLAY CONN TYPE(HANDLE)
    call_in_progress: Callable[[int, int], bool] = staticmethod(_no_call_in_progress)

    @staticmethod
    def initial_batch(name: str, clock: Clock, dlq: str | None = None) -> Batch:
        """The store contents of a new queue manager: its attributes and default objects (crtmqm)."""
        now = clock.time()
        batch = Batch()
        qmattrs = defaults_for(QMGR)
        if dlq:
            qmattrs["DEADQ"] = dlq
        batch.put_objects.append((QMGR, name, Definition(QMGR, name, qmattrs, now, now).to_bytes()))
        objects = default_objects()
        if dlq and dlq != SYSTEM_DEAD_LETTER:
            objects.append((QLOCAL, dlq, {"MAXDEPTH": 999_999_999, "DESCR": "dead-letter queue"}))
        for otype, oname, attrs in objects:
            a = defaults_for(otype)
            a.update(attrs)
            batch.put_objects.append((otype, oname, Definition(otype, oname, a, now, now).to_bytes()))
        batch.counters["authinfo"] = 1  # it has IBM's default AUTHINFO object (``_security``)
        batch.counters["adminqs"] = 1  # and the event, statistics and accounting queues (``_events``)
        return batch

    def lookup(self, otype: str, name: str) -> Definition | None:
        if otype == QMGR:
            return self.qmgr
        d = self.definitions.get((self._ns(otype), name))
        if d is None:
            return None
        if otype in QUEUE_TYPES and d.otype != otype:
            return None
        return d

    def list_objects(self, otype: str) -> list[Definition]:
        if otype == QMGR:
            return [self.qmgr]
        if self.shared is not None:  # queue-sharing groups: shared queues other members defined since
            self.refresh_shared()
            if self.copies_stale:  # and the COPY objects of GROUP definitions changed since
                self.refresh_group_copies()
        ns = self._ns(otype)
        return sorted(
            (d for (k, _), d in self.definitions.items() if k == ns and (otype not in QUEUE_TYPES or d.otype == otype)),
            key=lambda d: d.name,
        )

    # declared in _base.QueueManagerBase for the other parts (the same signature there: mypy checks they agree)
    def define(
        self,
        otype: str,
        name: str,
        attrs: dict[str, Any] | None = None,
        like: str | None = None,
        replace: bool = False,
    ) -> Definition:
        """DEFINE QLOCAL, QMODEL, QALIAS, QREMOTE, PROCESS, NAMELIST, CHANNEL, AUTHINFO or TOPIC. Raises MQMIError
        (OBJECT_ALREADY_EXISTS …)."""
        if otype == "TOPIC":
            return self.define_topic(name, attrs, like, replace)  # ``_pubsub``
        if otype not in (QLOCAL, QMODEL, QALIAS, QREMOTE, PROCESS, NAMELIST, CHANNEL, AUTHINFO):
            raise fail(C.MQRC_OBJECT_TYPE_ERROR, f"cannot define an object of type {otype}")
        if not valid_object_name(name):
            raise fail(C.MQRC_OBJECT_NAME_ERROR, f"{name!r} is not a valid object name")
        if attrs and "QSGDISP" in attrs and attrs["QSGDISP"] != "QMGR":  # queue-sharing groups (``_shared``)
            attrs = dict(attrs)
            self.define_in_group(otype, name, attrs, str(attrs.pop("QSGDISP")), replace)
            return self.definitions[(self._ns(otype), name)]
        if attrs and "QSGDISP" in attrs:
            attrs = {k: v for k, v in attrs.items() if k != "QSGDISP"}
        existing = self.definitions.get((self._ns(otype), name))
        if existing is not None:
            if not replace:
                raise fail(C.MQRC_OBJECT_ALREADY_EXISTS, f"{name} already exists")
            if existing.otype != otype:
                raise fail(C.MQRC_OBJECT_TYPE_ERROR, f"{name} exists as a {existing.otype}")
            if existing.dynamic == C.MQQDT_TEMPORARY_DYNAMIC:
                raise fail(C.MQRC_OBJECT_IN_USE, f"{name} is a temporary dynamic queue")
        base = defaults_for(otype)
        if like:
            src = self.definitions.get((self._ns(otype), like))
            if src is None or src.otype != otype:
                raise fail(C.MQRC_UNKNOWN_OBJECT_NAME, f"LIKE object {like} does not exist as a {otype}")
            base.update({k: v for k, v in src.attrs.items() if k in base})
        elif existing is not None:
            base.update(existing.attrs)
        changes = self._validated(otype, attrs or {})
        base.update(changes)
        now = self.clock.time()
        if existing is not None:
            self._apply_changes(existing, {k: v for k, v in base.items() if existing.attrs.get(k) != v})
            return existing
        d = Definition(otype, name, base, now, now)
        self.definitions[(self._ns(otype), name)] = d
        if otype == QLOCAL:
            self.queues[name] = q = LocalQueue(d, self._expiry_candidates)
            self.triggering.queue_added(q)
            if "ON" in (base.get("STATQ"), base.get("ACCTQ")):
                self.monitoring_refresh()  # a queue that collects statistics or accounting of its own
        elif otype == CHANNEL and base.get("CHLSTATCHL", "QMGR") != "QMGR":
            self.monitoring_refresh()  # a channel that collects statistics of its own (``_chlstats``)
        b = self._b()
        b.put_objects.append((otype, name, d.to_bytes()))
        b.durable = True
        if otype == QREMOTE:
            self.count_remote_definitions()
        return d

    def _validated(self, otype: str, attrs: dict[str, Any]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for kw, value in attrs.items():
            key = engine_key(otype, kw)
            attr: Attribute | None = ATTRIBUTES.get(key)
            if attr is None:
                raise fail(C.MQRC_SELECTOR_ERROR, f"{kw} is not an attribute")
            if otype not in attr.owners:
                raise fail(C.MQRC_SELECTOR_NOT_FOR_TYPE, f"{kw} is not valid for a {otype}")
            if attr.readonly:
                raise fail(C.MQRC_SELECTOR_ERROR, f"{kw} cannot be changed")
            try:
                out[key] = check_value(attr, value)
            except ValueError as e:
                raise fail(C.MQRC_SELECTOR_ERROR, str(e)) from None
            why = _sslpeer.check(str(out[key])) if key == "SSLPEER" else None
            if why is not None:  # IBM checks a channel's SSLPEER when it is entered (its rules for SSLPEER values)
                raise fail(C.MQRC_SSL_PEER_NAME_ERROR, f"SSLPEER('{str(out[key])[:60]}') is not valid: {why}")
        return out

    def alter(self, otype: str, name: str, attrs: dict[str, Any]) -> Definition:
        if otype == "TOPIC":
            return self.alter_topic(name, attrs)  # ``_pubsub``
        if "QSGDISP" in attrs:  # queue-sharing groups: which object of that name (``_shared_defs``)
            attrs = dict(attrs)
            disposition = str(attrs.pop("QSGDISP"))
            if disposition == "GROUP":
                return self.alter_in_group(otype, name, attrs)
            self.check_disposition(otype, name, disposition)
        d = self.lookup(otype, name)
        if d is None:
            raise fail(C.MQRC_UNKNOWN_OBJECT_NAME, f"{otype} {name} does not exist")
        changes = self._validated(otype, attrs)
        q = self.queues.get(name) if otype == QLOCAL else None
        if q is not None and "SHARE" in changes and changes["SHARE"] == C.MQQA_NOT_SHAREABLE and q.ipprocs > 1:
            raise fail(C.MQRC_OBJECT_IN_USE, f"queue {name} is open for input by more than one handle")
        self._apply_changes(d, changes)
        if q is not None and q.shared:  # queue-sharing groups: the group's definition
            self._alter_shared(q)
        return d

    def delete(self, otype: str, name: str, purge: bool = False, qsgdisp: str = "QMGR") -> None:
        if otype == "TOPIC":
            return self.delete_topic(name)  # ``_pubsub``
        if qsgdisp == "GROUP":  # queue-sharing groups: the group's definition and every member's COPY
            self.delete_in_group(otype, name)
            return
        if qsgdisp != "QMGR":
            self.check_disposition(otype, name, qsgdisp)
        d = self.lookup(otype, name)
        if d is None:
            raise fail(C.MQRC_UNKNOWN_OBJECT_NAME, f"{otype} {name} does not exist")
        if otype == QMGR:
            raise fail(C.MQRC_OBJECT_TYPE_ERROR, "the queue manager cannot be deleted here")
        if otype == QLOCAL:
            q = self.queues[name]
            if q.shared:  # queue-sharing groups (``_shared``)
                self._delete_shared(q, purge)
                return
            if q.handles:
                raise fail(C.MQRC_OBJECT_IN_USE, f"queue {name} is open")
            if q.uncommitted:
                raise fail(C.MQRC_OBJECT_IN_USE, f"queue {name} has uncommitted messages")
            if q.depth and not purge:
                raise fail(C.MQRC_Q_NOT_EMPTY, f"queue {name} has {q.depth} messages; use PURGE")
            self._drop_queue(d)  # also deletes the stored definition of a predefined or permanent queue
            return
        if otype in (QALIAS, QREMOTE):
            for conn in self.connections.values():
                for h in conn.handles.values():
                    if h.alias is d:
                        raise fail(C.MQRC_OBJECT_IN_USE, f"{otype} {name} is open")
        del self.definitions[(self._ns(otype), name)]
        if otype == QREMOTE:
            self.count_remote_definitions()
        b = self._b()
        b.delete_objects.append((otype, name))
        b.durable = True

    def clear(self, name: str) -> int:
        """CLEAR QLOCAL: remove every committed message; refused while the queue is open or has uncommitted
        messages (IBM: MQRC_OBJECT_IN_USE)."""
        q = self.queues.get(name)
        if q is None:
            raise fail(C.MQRC_UNKNOWN_OBJECT_NAME, f"queue {name} does not exist")
        if q.handles or q.uncommitted:
            raise fail(C.MQRC_OBJECT_IN_USE, f"queue {name} is open or has uncommitted messages")
        if q.shared and self.shared is not None:  # queue-sharing groups: the group's messages
            return self.shared.clear(name)
        gone = q.clear_messages()
        q.counts.purged += len(gone)
        if self.monitoring_on:
            self.mon_discarded(q, purged=len(gone))
        if any(m.persistent for m in gone):
            b = self._b()
            b.delete_queue_messages.append(name)
            b.durable = True
        return len(gone)

    def alter_qmgr(self, attrs: dict[str, Any]) -> Definition:
        changes = self._validated(QMGR, attrs)
        self._apply_changes(self.qmgr, changes)
        return self.qmgr

    def queue_status(self, name: str) -> dict[str, Any]:
        """DISPLAY QSTATUS TYPE(QUEUE) (and PCF's Inquire Queue Status) as plain data.

        LGETDATE / LGETTIME / LPUTDATE / LPUTTIME are local 'YYYY-MM-DD' and 'HH.MM.SS' ('' before the first
        get / put), MSGAGE the age in seconds of the oldest available message, QTIME ``[short, long]`` average
        microseconds messages stayed on the queue before a destructive get (``[]`` before the first).
        """
        q = self.queues.get(name)
        if q is None:
            raise fail(C.MQRC_UNKNOWN_OBJECT_NAME, f"queue {name} does not exist")
        now = self.clock.time()
        age = int(now - min(m.put_time for m in q.by_key.values())) if q.by_key else 0  # MSGAGE: oldest
        lgetdate, lgettime = mqsc_date_time(q.last_get)
        lputdate, lputtime = mqsc_date_time(q.last_put)
        return {
            "QUEUE": name,
            "CURDEPTH": q.depth,
            "IPPROCS": q.ipprocs,
            "OPPROCS": q.opprocs,
            "UNCOM": q.uncommitted,
            "LGETDATE": lgetdate,
            "LGETTIME": lgettime,
            "LPUTDATE": lputdate,
            "LPUTTIME": lputtime,
            "MSGAGE": age,
            "QTIME": q.qtime(),
        }

    def handle_status(self, name: str) -> list[dict[str, Any]]:
        q = self.queues.get(name)
        if q is None:
            raise fail(C.MQRC_UNKNOWN_OBJECT_NAME, f"queue {name} does not exist")
        out = []
        for h in sorted(q.handles, key=lambda x: x.hobj):
            c = h.conn
            out.append(
                {
                    "QUEUE": name,
                    "APPLTAG": c.appl_name,
                    "PID": c.pid,
                    "CONNAME": c.conname,
                    "CHANNEL": c.channel,
                    "HCONN": c.hconn,
                    "HOBJ": h.hobj,
                    "OPENOPTS": h.options,
                    "INPUT": "EXCL" if h.options & C.MQOO_INPUT_EXCLUSIVE else ("SHARED" if h.is_input else "NO"),
                    "OUTPUT": "YES" if h.options & C.MQOO_OUTPUT else "NO",
                    "BROWSE": "YES" if h.options & C.MQOO_BROWSE else "NO",
                    "INQUIRE": "YES" if h.options & C.MQOO_INQUIRE else "NO",
                    "SET": "YES" if h.options & C.MQOO_SET else "NO",
                    "UOW": c.uow is not None and len(c.uow) > 0,
                    "APPLTYPE": c.appl_type,
                    "USERID": c.user,
                    "HSTATE": "ACTIVE" if self.call_in_progress(c.hconn, h.hobj) else "INACTIVE",
                }
            )
        return out

    def qmgr_status(self) -> dict[str, Any]:
        """DISPLAY QMSTATUS as plain data: STATUS, STARTED (wall-clock seconds), CONNS, and the input handles on
        the channel initiator's and the command server's queues (IBM: CHINIT / CMDSERV are the status of the
        processes reading them)."""

        def readers(qname: str) -> int:
            q = self.queues.get(qname)
            return q.ipprocs if q is not None else 0

        return {
            "STATUS": "QUIESCING" if self.quiescing else "RUNNING",
            "STARTED": self.started,
            "CONNS": len(self.connections),
            "CHINIT": readers("SYSTEM.CHANNEL.INITQ"),
            "CMDSERV": readers("SYSTEM.ADMIN.COMMAND.QUEUE"),
        }

    def connection_status(self) -> list[dict[str, Any]]:
        """DISPLAY CONN as plain data: one entry per connection, in connection order."""
        out = []
        for hconn in sorted(self.connections):
            c = self.connections[hconn]
            out.append(
                {
                    "HCONN": hconn,
                    "APPLTAG": c.appl_name,
                    "APPLTYPE": c.appl_type,
                    "PID": c.pid,
                    "USERID": c.user,
                    "CONNAME": c.conname,
                    "CHANNEL": c.channel,
                    "SSLPEER": c.sslpeer,
                    "SSLCERTI": c.sslcerti,
                    "UOW": c.uow is not None and len(c.uow) > 0,
                    "UOWSTARTED": c.uow.started if c.uow is not None and len(c.uow) > 0 else 0.0,
                    "HANDLES": [[h.name, h.otype, h.options] for _, h in sorted(c.handles.items())],
                    # HSTATE of each handle, in the same order (IBM: ACTIVE while an MQGET on it waits)
                    "HSTATES": [
                        "ACTIVE" if self.call_in_progress(hconn, hobj) else "INACTIVE" for hobj in sorted(c.handles)
                    ],
                }
            )
        return out

    def messages(self, name: str) -> list[MessageView]:
        """The available messages of a queue in delivery order (for tests and tools), each with the MQMD a browse
        would return: the live BackoutCount and the remaining Expiry (issue 24: it showed the MQMD as put)."""
        q = self.queues.get(name)
        if q is None:
            raise fail(C.MQRC_UNKNOWN_OBJECT_NAME, f"queue {name} does not exist")
        now = self.clock.time()
        if q.shared:
            return [MessageView.of(m, now) for m in self._shared_messages(q)]  # queue-sharing groups
        return [MessageView.of(m, now) for m in q.iter_from(None)]

    def quiesce(self) -> None:
        self.quiescing = True
