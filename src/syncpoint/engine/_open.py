"""Opening and closing objects: MQOPEN and MQCLOSE, and dynamic queues made from a model queue.

References: constants.md ("MQOO_* open options", "MQCO_* close options", the MQRC_* of MQOPEN / MQCLOSE);
structures.md (MQOD, versions 1 to 4: ResolvedQName, ResolvedQMgrName, ResolvedType); mqsc.md (DEFSOPT, SHARE,
DEFTYPE of a model queue); seed 001, conditions 12 and 13 (the last input handle closing; an initiation queue
opened for input).

Theory of operation
-------------------
MQOPEN resolves the name — a queue manager, a process, a local queue, an alias (to its local base queue) or a
model (a new dynamic queue, named from DynamicQName) — checks the options against the object, and counts the
handle in IPPROCS / OPPROCS. An input open follows DEFSOPT and SHARE; MQOO_INPUT_EXCLUSIVE is refused while any
other handle has the queue open for input (MQRC_OBJECT_IN_USE). A temporary dynamic queue goes with the MQCLOSE
of the handle that created it, messages and all; a permanent one with MQCO_DELETE (empty) or MQCO_DELETE_PURGE.
"""

from __future__ import annotations

from syncpoint.mqi import MQOD, MQMIError, blank_strip
from syncpoint.mqi import constants as C
from syncpoint.mqi.objects import (
    NAMELIST,
    PROCESS,
    QALIAS,
    QLOCAL,
    QMODEL,
    QREMOTE,
    Definition,
    defaults_for,
    valid_object_name,
)

from ._base import QueueManagerBase
from ._options import check_close_options, check_inquire_only, check_open_options
from ._select import attach, compile_selection, detach
from ._shared_select import attach_shared
from ._state import INPUT_OPTS, Connection, Handle, LocalQueue
from ._util import fail, padded

# what a queue at another queue manager may be opened for (IBM: output; inquire on a QREMOTE's own attributes)
_REMOTE_OPEN_OPTS = (
    C.MQOO_OUTPUT
    | C.MQOO_INQUIRE
    | C.MQOO_FAIL_IF_QUIESCING
    | C.MQOO_BIND_AS_Q_DEF
    | C.MQOO_BIND_ON_OPEN
    | C.MQOO_BIND_NOT_FIXED
    | C.MQOO_PASS_IDENTITY_CONTEXT
    | C.MQOO_PASS_ALL_CONTEXT
    | C.MQOO_SET_IDENTITY_CONTEXT
    | C.MQOO_SET_ALL_CONTEXT
    | C.MQOO_ALTERNATE_USER_AUTHORITY
)


class OpenMixin(QueueManagerBase):
    """MQOPEN, MQCLOSE."""

    def open(self, conn: Connection, od: MQOD, options: int, selection: str = "") -> Handle:
        """MQOPEN; ``selection`` is the MQOD's SelectionString (version 4), ``_select``."""
        h = self._open_object(conn, od, options, selection)
        if self.monitoring_on:
            self.mon_opened(conn, h)  # statistics and accounting (``_statistics``)
        return h

    def _open_object(self, conn: Connection, od: MQOD, options: int, selection: str) -> Handle:
        self._check_conn(conn)
        if od.StrucId != b"OD  " or od.Version not in (1, 2, 3, 4):
            raise fail(C.MQRC_OD_ERROR, "the object descriptor is not a valid MQOD")
        check_open_options(options)
        selector = None
        if selection:
            if od.Version < C.MQOD_VERSION_4:
                raise fail(C.MQRC_OD_ERROR, "a SelectionString needs a version-4 MQOD")
            selector = compile_selection(selection, od.ObjectType, options)
        qmname = blank_strip(od.ObjectQMgrName)
        if qmname and qmname != self.name and self.group_shared_queue(qmname, blank_strip(od.ObjectName)):
            qmname = ""  # the group's name and a shared queue of that name: the shared queue (``_shared_defs``)
        if qmname and qmname != self.name and od.ObjectType == C.MQOT_Q:
            return self._open_remote(conn, od, options, blank_strip(od.ObjectName), qmname)
        name = blank_strip(od.ObjectName)
        otype = od.ObjectType
        if otype == C.MQOT_Q_MGR:
            check_inquire_only(options, "a queue manager")
            if name and name != self.name:
                raise fail(C.MQRC_OBJECT_NAME_ERROR, f"ObjectName must be blank or {self.name}")
            self._authorize_open(conn, od, "qmgr", self.name, options)
            return self._new_handle(conn, C.MQOT_Q_MGR, self.name, options, None, self.qmgr, None)
        if otype == C.MQOT_PROCESS:
            check_inquire_only(options, "a process")
            d = self.definitions.get((PROCESS, name))
            if d is None:
                self.unknown_object(conn, C.MQCA_PROCESS_NAME, name)  # LOCALEV's event (``_events``)
                raise fail(C.MQRC_UNKNOWN_OBJECT_NAME, f"process {name} does not exist")
            self._authorize_open(conn, od, "process", name, options)
            return self._new_handle(conn, C.MQOT_PROCESS, name, options, None, d, None)
        if otype == C.MQOT_NAMELIST:  # for MQINQ of its names (IBM: inquire only)
            check_inquire_only(options, "a namelist")
            d = self.definitions.get((NAMELIST, name))
            if d is None:
                raise fail(C.MQRC_UNKNOWN_OBJECT_NAME, f"namelist {name} does not exist")
            return self._new_handle(conn, C.MQOT_NAMELIST, name, options, None, d, None)
        if otype == C.MQOT_TOPIC:
            return self._open_topic(conn, od, options)  # publish/subscribe (``_pubsub``)
        if otype != C.MQOT_Q:
            raise fail(C.MQRC_OBJECT_TYPE_ERROR, f"object type {otype} is not supported")
        if not name:
            raise fail(C.MQRC_UNKNOWN_OBJECT_NAME, "ObjectName is blank")
        d = self.definitions.get(("Q", name))
        if d is None and self.shared is not None and self.refresh_shared(name):  # defined SHARED by another member
            d = self.definitions.get(("Q", name))
        if d is None:
            self.unknown_object(conn, C.MQCA_Q_NAME, name)  # LOCALEV's event (``_events``)
            raise fail(C.MQRC_UNKNOWN_OBJECT_NAME, f"queue {name} does not exist")
        self._authorize_open(conn, od, "queue", name, options)  # the name opened: an alias's, a model's (_authority)
        alias: Definition | None = None
        created: Definition | None = None
        if d.otype == QALIAS:
            alias = d
            target = d.attrs["TARGET"]
            base = self.definitions.get(("Q", target))
            if base is None:
                raise fail(C.MQRC_UNKNOWN_ALIAS_BASE_Q, f"alias {name} resolves to {target}, which does not exist")
            if base.otype == QREMOTE:
                return self._open_remote(conn, od, options, name, "")
            if base.otype != QLOCAL:
                raise fail(C.MQRC_ALIAS_BASE_Q_TYPE_ERROR, f"alias {name} must resolve to a local queue")
            d = base
        elif d.otype == QMODEL:
            created = self._create_dynamic(d, blank_strip(od.DynamicQName))
            self._dynamic_authority(conn, created, True)  # its creator may use it (_authority)
            d = created
        elif d.otype == QREMOTE:
            return self._open_remote(conn, od, options, name, "")
        queue = self.queues[d.name]
        # input open mode, shareability
        if options & INPUT_OPTS:
            mode = options & INPUT_OPTS
            if mode == C.MQOO_INPUT_AS_Q_DEF:
                mode = queue.attrs["DEFSOPT"]
            if queue.attrs["SHARE"] == C.MQQA_NOT_SHAREABLE:
                mode = C.MQOO_INPUT_EXCLUSIVE
            if queue.exclusive is not None or (mode == C.MQOO_INPUT_EXCLUSIVE and queue.ipprocs > 0):
                if created is not None:
                    self._drop_queue(created)
                raise fail(C.MQRC_OBJECT_IN_USE, f"queue {queue.name} is open for exclusive input")
            if queue.shared and queue.ipprocs == 0:  # queue-sharing groups: input opens are the group's
                self._shared_open_input(queue, mode)
            options = (options & ~INPUT_OPTS) | mode
        h = self._new_handle(conn, C.MQOT_Q, name, options, queue, d, alias)
        if created is not None:
            h.owns_dynamic = True
            od.ObjectName = padded(created.name, 48)
        if options & INPUT_OPTS:
            queue.ipprocs += 1
            if options & C.MQOO_INPUT_EXCLUSIVE:
                queue.exclusive = h
        if options & C.MQOO_OUTPUT:
            queue.opprocs += 1
        queue.handles.add(h)
        if selector is not None and queue.shared:
            attach_shared(h, selector)  # judged by the engine over the group's store (``_shared_select``)
        elif selector is not None:
            attach(h, queue, selector)
        if od.Version >= 3:
            od.ResolvedQName = padded(queue.name, 48)
            od.ResolvedQMgrName = padded(self.name, 48)
        if od.Version >= 4:
            od.ResolvedType = C.MQOT_Q
        if options & INPUT_OPTS and queue.ipprocs == 1:
            # seed 001, condition 13: an initiation queue opened for input when nobody else had it so
            self.triggering.initiation_queue_opened(queue)
        return h

    def _open_remote(self, conn: Connection, od: MQOD, options: int, name: str, qmname: str) -> Handle:
        """MQOPEN of a queue at another queue manager (ObjectQMgrName) or of a local definition of a remote queue
        (``_resolve``): a handle that puts on the transmission queue. Only output (and inquire, on a QREMOTE's own
        attributes) is valid for it, as IBM allows."""
        if qmname and qmname != self.name and not name:
            raise fail(C.MQRC_UNKNOWN_OBJECT_NAME, "ObjectName is blank")
        if options & ~_REMOTE_OPEN_OPTS:
            raise fail(C.MQRC_OPTION_NOT_VALID_FOR_TYPE, f"{name} is a remote queue: it can be opened for output only")
        try:
            t = self._resolve_target(name, qmname)
        except MQMIError as e:
            self.remote_error(conn, e.reason, name, qmname)  # REMOTEEV's events (``_events``)
            raise
        # a local definition by its name; a queue at another queue manager by the transmission queue (_authority)
        self._authorize_open(conn, od, "queue", name if t.first is not None else t.queue.name, options)
        if options & C.MQOO_INQUIRE and t.first is None:
            raise fail(C.MQRC_OPTION_NOT_VALID_FOR_TYPE, "only a local definition of a remote queue can be inquired")
        queue = t.queue
        h = self._new_handle(conn, C.MQOT_Q, name, options, queue, queue.definition, t.first)
        h.remote = t.remote
        if options & C.MQOO_OUTPUT:
            queue.opprocs += 1
        queue.handles.add(h)
        if od.Version >= 3:
            if t.remote is not None:
                od.ResolvedQName, od.ResolvedQMgrName = t.remote
            else:
                od.ResolvedQName = padded(queue.name, 48)
                od.ResolvedQMgrName = padded(self.name, 48)
        if od.Version >= 4:
            od.ResolvedType = C.MQOT_Q
        return h

    def _new_handle(
        self,
        conn: Connection,
        otype: int,
        name: str,
        options: int,
        queue: LocalQueue | None,
        d: Definition | None,
        alias: Definition | None,
    ) -> Handle:
        hobj = self._next_hobj
        self._next_hobj += 1
        h = Handle(hobj, conn, otype, name, options, queue, d, alias)
        conn.handles[hobj] = h
        return h

    def _create_dynamic(self, model: Definition, pattern: str) -> Definition:
        if not pattern:
            raise fail(C.MQRC_DYNAMIC_Q_NAME_ERROR, "DynamicQName is blank")
        star = pattern.find("*")
        if star >= 0 and star != len(pattern) - 1:
            raise fail(C.MQRC_DYNAMIC_Q_NAME_ERROR, "'*' may stand only at the end of DynamicQName")
        if star >= 0:
            prefix = pattern[:-1]
            self._dyn_counter += 1
            suffix = f"{int(self.clock.time()):08X}{self._dyn_counter:08X}"
            qname = (prefix + suffix)[:48] if len(prefix) + len(suffix) <= 48 else prefix[: 48 - 16] + suffix
        else:
            qname = pattern
        if not valid_object_name(qname):
            raise fail(C.MQRC_DYNAMIC_Q_NAME_ERROR, f"{qname!r} is not a valid queue name")
        if ("Q", qname) in self.definitions:
            raise fail(C.MQRC_OBJECT_ALREADY_EXISTS, f"queue {qname} already exists")
        attrs = {k: v for k, v in model.attrs.items() if k in defaults_for(QLOCAL)}
        now = self.clock.time()
        dyn = model.attrs["DEFTYPE"]
        d = Definition(QLOCAL, qname, attrs, now, now, dyn)
        self.definitions[("Q", qname)] = d
        self.queues[qname] = q = LocalQueue(d, self._expiry_candidates)
        if "ON" in (attrs.get("STATQ"), attrs.get("ACCTQ")):
            self.monitoring_refresh()  # a queue that collects statistics or accounting of its own
        self.triggering.queue_added(q)
        if dyn == C.MQQDT_PERMANENT_DYNAMIC:
            self._b().put_objects.append((QLOCAL, qname, d.to_bytes()))
            self._b().durable = True
        return d

    def _drop_queue(self, d: Definition) -> None:
        self._dynamic_authority(None, d, False)
        q = self.queues.pop(d.name, None)
        self.definitions.pop(("Q", d.name), None)
        if q is not None:
            q.deleted = True
            gone = q.clear_messages()
            persistent = [m.seq for m in gone if m.persistent]
            if persistent or d.dynamic != C.MQQDT_TEMPORARY_DYNAMIC:
                b = self._b()
                b.delete_queue_messages.append(d.name)
                if d.dynamic != C.MQQDT_TEMPORARY_DYNAMIC:
                    b.delete_objects.append((QLOCAL, d.name))
                b.durable = True

    def close(self, conn: Connection, hobj: Handle | int, options: int = C.MQCO_NONE) -> None:
        h = self._handle(conn, hobj)
        check_close_options(options)
        if self.monitoring_on:
            self.mon_closed(conn, h)  # statistics and accounting (``_statistics``)
        if h.otype == C.MQOT_TOPIC:
            return self._close_topic_handle(h, options)  # a publisher's or a subscription's handle (``_subscribe``)
        if options & (C.MQCO_DELETE | C.MQCO_DELETE_PURGE):
            d = h.definition
            q = h.queue
            if q is None or d is None or d.dynamic == C.MQQDT_PREDEFINED:
                raise fail(C.MQRC_OPTION_NOT_VALID_FOR_TYPE, "only a dynamic queue can be deleted on MQCLOSE")
            if options & C.MQCO_DELETE and (q.depth > 0 or q.uncommitted > 0):
                raise fail(C.MQRC_Q_NOT_EMPTY, f"queue {q.name} has messages; use MQCO_DELETE_PURGE")
            if q.uncommitted > 0:
                raise fail(C.MQRC_Q_NOT_EMPTY, f"queue {q.name} has uncommitted messages")
            others = [x for x in q.handles if x is not h]
            if others:
                raise fail(C.MQRC_OBJECT_IN_USE, f"queue {q.name} is open by other handles")
        self._close(h, options, implicit=False)

    def _close(self, h: Handle, options: int, implicit: bool) -> None:
        conn = h.conn
        conn.handles.pop(h.hobj, None)
        q = h.queue
        if q is None:
            if h.otype == C.MQOT_TOPIC:
                self._end_sub_handle(h, remove=False)  # a non-durable subscription ends with its handle
            return
        if h.locked is not None:
            if q.shared:
                self._shared_unlock(h)  # queue-sharing groups: the lock is the group's
            h.locked.locked_by = None
            h.locked = None
        if h.options & INPUT_OPTS:
            q.ipprocs -= 1
            if q.exclusive is h:
                q.exclusive = None
            if q.shared and q.ipprocs == 0:
                self._shared_close_input(q)  # queue-sharing groups
        if h.options & C.MQOO_OUTPUT:
            q.opprocs -= 1
        q.handles.discard(h)
        if h.selection is not None and q.shared:
            h.selection = None
        elif h.selection is not None:
            detach(h, q)
        d = h.definition
        if d is None or q.deleted:
            return
        if d.dynamic == C.MQQDT_TEMPORARY_DYNAMIC and h.owns_dynamic:
            self._purge_pending(q)
            self._drop_queue(d)
        elif d.dynamic == C.MQQDT_PERMANENT_DYNAMIC and options & (C.MQCO_DELETE | C.MQCO_DELETE_PURGE):
            self._drop_queue(d)
        elif h.options & INPUT_OPTS and q.ipprocs == 0:
            # seed 001, condition 12: the only application serving the queue closed it
            self.triggering.input_closed(q)

    def _purge_pending(self, q: LocalQueue) -> None:
        """A temporary dynamic queue is going: forget its messages held in units of work."""
        for c in self.connections.values():
            u = c.uow
            if u is None:
                continue
            u.puts = [m for m in u.puts if m.queue is not q]
            u.gets = [m for m in u.gets if m.queue is not q]
            if u.marked is not None and u.marked.queue is q:
                u.marked = None
