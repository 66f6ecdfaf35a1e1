"""The queue manager's shared state, declared once, and the few helpers every verb uses.

:class:`~syncpoint.engine.QueueManager` is composed of one part per rule or verb (``_connections``, ``_open``,
``_put``, ``_get``, ``_expiry``, ``_reports``, ``_tokens``, ``_inquire``, ``_admin``), each a class over
:class:`QueueManagerBase`. The base declares the state they share (typed, so mypy checks every part) and, for
the type checker only, the methods one part calls on another; the parts define them. The parts are mixins of
one class, not objects that call each other, so a verb costs no more Python calls than it did in one file: the
hot paths (MQPUT, MQGET, MQCMIT) call the same methods as before, found through the class in one lookup.

The helpers here: the handle and connection checks every MQI verb starts with (constants.md: MQRC_HCONN_ERROR,
MQRC_HOBJ_ERROR), a connection's unit of work made on first use, unique MsgIds (structures.md, MQMD MsgId), and
the queue manager's attributes by MQSC keyword (mqsc.md).
"""

from __future__ import annotations

import struct
from typing import TYPE_CHECKING, Any

from syncpoint.mqi import MQMD
from syncpoint.mqi import constants as C
from syncpoint.mqi.objects import QMGR_KEYWORD_ALIASES, QUEUE_TYPES, Definition

from ._effects import REPORT, EffectsRecorder, SystemPutKind
from ._state import Connection, Handle, LocalQueue, Message, Target, UnitOfWork
from ._trigger import Triggering
from ._util import fail
from .clock import Clock

if TYPE_CHECKING:
    from collections.abc import Iterable

    from syncpoint.mqi import MQGMO, MQOD, MQPMO, GetResult
    from syncpoint.store import SharedMessage, SharedQueues

_COUNTER = struct.Struct(">Q").pack  # the counter at the end of a MsgId
_MSGID_BLOCK = 1 << 16


class QueueManagerBase(EffectsRecorder):
    """The state of one queue manager, shared by its parts (see the module doc)."""

    # identity and time
    name: str
    name48: bytes  # the name as an MQCHAR48
    clock: Clock
    started: float  # wall-clock time of this start
    quiescing: bool  # ending (endmqm): FAIL_IF_QUIESCING calls fail, new connections are refused
    # objects
    qmgr: Definition  # the queue manager's own attributes
    definitions: dict[tuple[str, str], Definition]  # ("Q" or "PROCESS", name) -> definition
    queues: dict[str, LocalQueue]  # local queues (predefined and dynamic) by name
    # connections and handles
    connections: dict[int, Connection]
    _next_hconn: int
    _next_hobj: int
    _dyn_counter: int  # for the names of dynamic queues
    # messages
    _seq: int  # the next put sequence (a message's MsgToken; orders FIFO queues)
    _msgid_prefix: bytes
    _msgid_counter: int
    _msgid_reserved: int  # the high-water mark kept in the store
    # expiry (seed 002)
    _expiry_candidates: set[LocalQueue]  # queues holding messages with a limited Expiry
    _next_expiry_scan: float  # monotonic time of the next EXPRYINT scan
    expired_discarded: int  # messages discarded because they expired (statistics)
    recovered_inflight: int  # gets in flight at the last stop, backed out at this start
    # counts since this start, for the metrics (``_metrics``): IBM's statistics (STATMQI) names them
    stat_puts = 0  # MQPUT / MQPUT1 that put a message
    stat_gets = 0  # destructive MQGETs
    stat_commits = 0  # MQCMIT
    stat_backouts = 0  # MQBACK
    stat_conns = 0  # MQCONN / MQCONNX
    stat_conns_hwm = 0  # the most connections at once
    # statistics and accounting (``_statistics``): the MQI path calls its hooks only when this is True
    monitoring_on = False
    _put1_active = False  # inside MQPUT1: its put counts as a put1, its open and close not at all
    _mon_next = 0.0  # wall-clock time the next statistics or accounting interval ends (0: none runs)
    # triggering (seed 001)
    triggering: Triggering
    # distributed queuing (issue 23)
    remote_definitions: int  # how many QREMOTE definitions exist (``_remote``)
    # queue-sharing groups (``_shared``)
    shared: SharedQueues | None  # the group's shared store; None outside a group
    _shared_uows: dict[int, int]  # Hconn -> the number of its unit of work's shared part
    copies_stale: bool  # a GROUP definition changed since the COPY objects were made (_shared_defs)
    # publish/subscribe (``_pubsub``)
    _retained_pending: dict[int, Any]  # Hconn -> retained publications set in its unit of work

    # -- helpers every verb uses ----------------------------------------------------------------------
    @staticmethod
    def _ns(otype: str) -> str:
        """Queues of every type share one namespace; processes have their own."""
        return "Q" if otype in QUEUE_TYPES else otype

    def qm_attr(self, keyword: str) -> Any:
        """An attribute of the queue manager by its MQSC keyword; MQRC_SELECTOR_ERROR (as MQINQ answers for a
        selector that is not one of the object's) naming the keyword when there is no such attribute."""
        try:
            return self.qmgr.attrs[QMGR_KEYWORD_ALIASES.get(keyword, keyword)]
        except (KeyError, TypeError):
            raise fail(C.MQRC_SELECTOR_ERROR, f"{keyword!r} is not an attribute of the queue manager") from None

    def _check_conn(self, conn: Connection) -> None:
        if not conn.alive:
            raise fail(C.MQRC_HCONN_ERROR, "the connection has ended")

    def _handle(self, conn: Connection, hobj: Handle | int) -> Handle:
        """The open handle ``hobj`` (a Handle or its number) of ``conn``, or MQRC_HCONN_ERROR / MQRC_HOBJ_ERROR."""
        if not conn.alive:
            raise fail(C.MQRC_HCONN_ERROR, "the connection has ended")
        if type(hobj) is int:
            h = conn.handles.get(hobj)
            if h is not None:
                return h
        h = conn.handles.get(hobj if isinstance(hobj, int) else hobj.hobj)
        if h is None or (not isinstance(hobj, int) and h is not hobj):
            raise fail(C.MQRC_HOBJ_ERROR, "the object handle is not open on this connection")
        return h

    def _uow(self, conn: Connection) -> UnitOfWork:
        """The connection's unit of work, begun by its first put or get in syncpoint."""
        uow = conn.uow
        if uow is None:
            uow = conn.uow = UnitOfWork(self.clock.time())
        return uow

    def new_msgid(self) -> bytes:
        """A unique MsgId: "AMQ ", the queue manager name, and a counter. The counter starts from the clock
        and above a high-water mark the store keeps, reserved in blocks, so no MsgId is issued twice — not
        even after a restart on a clock that has not moved."""
        c = self._msgid_counter = self._msgid_counter + 1
        if c >= self._msgid_reserved:
            self._msgid_reserved = c + _MSGID_BLOCK
            self._b().counters["msgid"] = self._msgid_reserved
        return self._msgid_prefix + _COUNTER(c)

    if TYPE_CHECKING:
        # what one part calls on another (defined by the part named in the comment). Each declaration repeats its
        # definition's signature, as a declaration must: mypy checks that the two agree (the part's method
        # overrides this one), and the running class has only the definition.

        def open(self, conn: Connection, od: MQOD, options: int, selection: str = "") -> Handle: ...  # _open

        def qmgr_status(self) -> dict[str, Any]: ...  # _admin

        def depth_after_put(self, q: LocalQueue) -> None: ...  # _events

        def depth_after_get(self, q: LocalQueue) -> None: ...  # _events

        def queue_full(self, q: LocalQueue) -> None: ...  # _events

        def monitoring_refresh(self) -> None: ...  # _statistics

        def monitoring_due(self) -> None: ...  # _statistics

        def channel_statistics_wanted(self) -> bool: ...  # _chlstats

        def _write_channel_statistics(self, head: list[tuple[int, Any]]) -> None: ...  # _chlstats

        def mon_connected(self, conn: Connection) -> None: ...  # _statistics

        def mon_disconnected(self, conn: Connection, abnormal: bool) -> None: ...  # _statistics

        def mon_put(self, conn: Connection, q: LocalQueue, m: Message) -> None: ...  # _statistics

        def mon_got(self, conn: Connection, q: LocalQueue, m: Message, browse: int, now: float) -> None: ...

        def mon_opened(self, conn: Connection, h: Handle) -> None: ...  # _statistics

        def mon_closed(self, conn: Connection, h: Handle) -> None: ...  # _statistics

        def mon_count(self, conn: Connection, what: str, otype: int = 0) -> None: ...  # _statistics

        def mon_discarded(self, q: LocalQueue, expired: int = 0, purged: int = 0) -> None: ...  # _statistics

        def inhibited(self, reason: int, queue: str, conn: Connection) -> None: ...  # _events

        def unknown_object(self, conn: Connection, parameter: int, name: str) -> None: ...  # _events

        def remote_error(self, conn: Connection, reason: int, name: str, qmname: str) -> None: ...  # _events

        failed_xmitq: str  # _resolve: the transmission queue the last refused resolution named

        def lookup(self, otype: str, name: str) -> Definition | None: ...  # _admin

        def list_objects(self, otype: str) -> list[Definition]: ...  # _admin

        acting: Any  # _admin_events: who runs the administrative verb in progress (an Acting, or None)

        def acting_for(self, conn: Connection) -> None: ...  # _admin_events

        def acting_for_user(self, user: str) -> None: ...  # _admin_events

        def administered(self, verb: str, pargs: list[Any], kwargs: dict[str, Any]) -> Any: ...  # _admin_events

        def _system_put_to(  # _reports
            self,
            qname: str,
            md: MQMD,
            data: bytes,
            dest_qmgr: str | None,
            kind: SystemPutKind,
            uow: UnitOfWork | None = None,
        ) -> int: ...

        def _close(self, h: Handle, options: int, implicit: bool) -> None: ...  # _open

        def _create_dynamic(self, model: Definition, pattern: str) -> Definition: ...  # _open

        def _open_topic(self, conn: Connection, od: MQOD, options: int) -> Handle: ...  # _pubsub

        def define_topic(  # _pubsub
            self, name: str, attrs: dict[str, Any] | None = None, like: str | None = None, replace: bool = False
        ) -> Definition: ...

        def alter_topic(self, name: str, attrs: dict[str, Any]) -> Definition: ...  # _pubsub

        def delete_topic(self, name: str) -> None: ...  # _pubsub

        def _publish(  # _pubsub
            self, conn: Connection, h: Handle, md: MQMD, pmo: MQPMO, data: bytes, props: Any = None
        ) -> int: ...

        def _end_retained(self, conn: Connection, commit: bool) -> None: ...  # _pubsub

        def _close_topic_handle(self, h: Handle, options: int) -> None: ...  # _subscribe

        def _group_subs_for(self, topic: str) -> list[Any]: ...  # _group_pubsub

        def _forget_group_sub(self, sub: Any) -> None: ...  # _group_pubsub

        def refresh_authorities(self) -> None: ...  # _authority

        def authorize(self, conn: Connection, otype: str, names: list[str], authority: str) -> None: ...  # _authority

        def not_authorized(  # _events
            self,
            qualifier: int,
            *,
            user: str,
            appl_type: int = ...,
            appl_name: str = "",
            conname: str = "",
            options: int | None = None,
            queue: str | None = None,
            command: int | None = None,
        ) -> bool: ...

        def _end_sub_handle(self, h: Handle, remove: bool) -> None: ...  # _subscribe

        def dead_letter_message(  # _reports
            self,
            md: MQMD,
            data: bytes,
            reason: int,
            dest_q: str,
            dest_qmgr: str,
            uow: UnitOfWork | None = None,
            appl_type: int = C.MQAT_QMGR,
            appl_name: str = "",
        ) -> int: ...

        def _place(
            self, t: Target, md: MQMD, data: bytes, uow: UnitOfWork | None, kind: SystemPutKind, props: Any = None
        ) -> int: ...

        def _drop_queue(self, d: Definition) -> None: ...  # _open

        def get(  # _get
            self, conn: Connection, hobj: Handle | int, md: MQMD, gmo: MQGMO, buflen: int | None = None
        ) -> GetResult: ...

        def _deliver_found(  # _get
            self,
            conn: Connection,
            h: Handle,
            q: LocalQueue,
            m: Message,
            md: MQMD,
            gmo: MQGMO,
            buflen: int | None,
            opts: int,
            browse: int,
            sync: int,
            now: float,
        ) -> GetResult: ...

        def _discard_expired(self, m: Message) -> None: ...  # _expiry

        def _resolve_target(  # _resolve
            self, name: str, qmname: str = "", first: Definition | None = None, hops: int = 0
        ) -> Target: ...

        def reply_to_alias(self, reply_q: str) -> tuple[str, str] | None: ...  # _resolve

        def _expiration_report(self, m: Message, keep: int) -> None: ...  # _reports

        def system_put(  # _reports
            self,
            qname: str,
            md: MQMD,
            data: bytes,
            dest_qmgr: str | None = None,
            kind: SystemPutKind = REPORT,
            uow: UnitOfWork | None = None,
            props: Any = None,
        ) -> bool: ...

        def _confirm_on_arrival(self, m: Message, uow: UnitOfWork | None) -> None: ...  # _reports

        def _confirm_on_delivery(self, m: Message, uow: UnitOfWork | None) -> None: ...  # _reports

        def count_remote_definitions(self) -> None: ...  # _remote

        def _reply_to_alias(self, out: MQMD) -> bool: ...  # _remote

        def _xmit_stored(  # _remote
            self, stored: dict[str, Any], remote: tuple[bytes, bytes], data: bytes
        ) -> tuple[dict[str, Any], bytes]: ...

        def _apply_changes(self, d: Definition, changes: dict[str, Any]) -> None: ...  # _inquire

        def _release(self, conn: Connection, tokens: Iterable[int], q: LocalQueue | None) -> list[int]: ...  # _tokens

        def _shared_put(self, conn: Connection, q: LocalQueue, m: Message, syncpoint: int) -> None: ...  # _shared

        def _shared_get(  # _shared
            self, conn: Connection, h: Handle, q: LocalQueue, md: MQMD, gmo: MQGMO, buflen: int | None, now: float
        ) -> GetResult: ...

        def _shared_end(self, conn: Connection, commit: bool) -> bool: ...  # _shared

        def _shared_position_cursor(self, h: Handle, m: Message, opts: int) -> None: ...  # _shared

        def _position_cursor(self, h: Handle, m: Message, opts: int) -> None: ...  # _get

        def _shared_unlock(self, h: Handle) -> None: ...  # _shared

        def _shared_skip_backout(self, conn: Connection) -> int | None: ...  # _shared

        def _shared_room(self, conn: Connection, q: LocalQueue, syncpoint: int) -> None: ...  # _shared

        def _shared_place(self, q: LocalQueue, m: Message, uow: UnitOfWork | None) -> None: ...  # _shared

        def _shared_messages(self, q: LocalQueue) -> list[Message]: ...  # _shared

        def define_in_group(  # _shared
            self, otype: str, name: str, attrs: dict[str, Any], disposition: str, replace: bool
        ) -> None: ...

        def refresh_shared(self, name: str | None = None) -> bool: ...  # _shared

        def alter_in_group(self, otype: str, name: str, attrs: dict[str, Any]) -> Definition: ...  # _shared_defs

        def refresh_group_copies(self) -> None: ...  # _shared_defs

        def group_shared_queue(self, qmname: str, name: str) -> bool: ...  # _shared_defs

        def delete_in_group(self, otype: str, name: str) -> None: ...  # _shared_defs

        def check_disposition(self, otype: str, name: str, disposition: str) -> None: ...  # _shared_defs

        def _delete_shared(self, q: LocalQueue, purge: bool) -> None: ...  # _shared

        def _alter_shared(self, q: LocalQueue) -> None: ...  # _shared

        def _backout(self, conn: Connection, honour_mark: bool) -> None: ...  # _connections

        def _authorize_connect(self, user: str) -> None: ...  # _authority

        def _may_deliver(self, who: tuple[int, str], md: MQMD, t: Target) -> bool: ...  # _authority

        def _dynamic_authority(self, conn: Connection | None, d: Definition, made: bool) -> None: ...  # _authority

        def _group_authrecs(self, rows: list[tuple[str, bytes]]) -> None: ...  # _authority

        def _io(self, fn: Any, *args: Any) -> Any: ...  # _shared_defs

        def _authorize_open(  # _authority
            self, conn: Connection, od: MQOD, otype: str, name: str, options: int
        ) -> None: ...

        def _shared_open_input(self, q: LocalQueue, mode: int) -> None: ...  # _shared

        def _shared_close_input(self, q: LocalQueue) -> None: ...  # _shared

        def _shared_expiry_scan(self) -> None: ...  # _shared_rules

        def _discard_met(self, sm: SharedMessage, held: int | None, now: float) -> None: ...  # _shared_rules

        def _commit(self, conn: Connection) -> None: ...  # _connections

        def _shared_uow(self, conn: Connection) -> int: ...  # _shared

        def send_report(  # _reports
            self, original: MQMD, data: bytes, feedback: int, keep: int, uow: UnitOfWork | None, props: Any = None
        ) -> None: ...

        def _validated(self, otype: str, attrs: dict[str, Any]) -> dict[str, Any]: ...  # _admin

        def define(  # _admin
            self,
            otype: str,
            name: str,
            attrs: dict[str, Any] | None = None,
            like: str | None = None,
            replace: bool = False,
        ) -> Definition: ...

        def delete(self, otype: str, name: str, purge: bool = False, qsgdisp: str = "QMGR") -> None: ...  # _admin
