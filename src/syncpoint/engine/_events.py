"""IBM's event messages (issue 36, item 2): performance events (queue depth, queue service interval) on
SYSTEM.ADMIN.PERFM.EVENT; queue manager events (inhibited, unknown object, not authorized, remote, start and
stop) on SYSTEM.ADMIN.QMGR.EVENT; channel events on SYSTEM.ADMIN.CHANNEL.EVENT; the event queues a queue manager
has from the start. Configuration and command events are ``_admin_events``'.

Theory of operation
-------------------
IBM MQ ("Enabling queue depth events"; event reference "Queue Depth High", "Queue Depth Low", "Queue Full"):

* the queue manager's PERFMEV(ENABLED) switches performance events on; each queue says which it wants:
  QDPHIEV, QDPLOEV, QDPMAXEV (ENABLED / DISABLED; syncpoint keeps them as those words);
* **Queue Depth High**: an MQPUT / MQPUT1 made the depth reach QDEPTHHI % of MAXDEPTH or more. It disables
  itself and enables Queue Depth Low and Queue Full;
* **Queue Depth Low**: a destructive MQGET made the depth fall to QDEPTHLO % of MAXDEPTH or less. It disables
  itself and enables Queue Depth High and Queue Full;
* **Queue Full**: an MQPUT / MQPUT1 was refused with MQRC_Q_FULL. It disables itself and enables Queue Depth
  Low (the put still fails with MQRC_Q_FULL: the event is the queue manager's doing, not the application's);
* **Queue Service Interval High / OK** (QSVCIEV HIGH | OK | NONE, QSVCINT in milliseconds; IBM's "Rules for
  queue service interval events"): the service timer starts at a put to an empty queue and restarts at every
  get that leaves messages (a get that empties the queue stops it; at start it runs from the start when the
  queue holds messages). A put or get that finds more than QSVCINT passed since the reset makes High, and
  QSVCIEV becomes OK; a get within QSVCINT makes OK, and QSVCIEV becomes HIGH. IBM writes High "on or before"
  the next put or get: here at it;
* each event message carries the queue's statistics since they were last reset (TimeSinceReset, HighQDepth,
  MsgEnqCount, MsgDeqCount), and a performance event resets them.

Queue manager events (each when its queue manager attribute is ENABLED; parameters as IBM's, each method says):
INHIBTEV (Put / Get Inhibited), LOCALEV (Unknown Object Name), AUTHOREV (Not Authorized), REMOTEEV (the
reasons name resolution of a remote queue meets: MQOPEN / MQPUT1 call :meth:`EventsMixin.remote_error`),
STRSTPEV (Queue Manager Active when the engine is made, Not Active — persistent, so it outlives the end — when
the host closes it). Channel events (CHLEV) are reported by the channel programs through ``channel_event``.

The event queues: IBM's crtmqm makes SYSTEM.ADMIN.*.EVENT and the statistics, accounting, activity and trace
queues (``mqi.objects.admin_queue_objects``); a queue manager made before them gains them once at its first start
(the store counter ``adminqs`` remembers, so one the administrator deletes stays deleted).

The event message is IBM's PCF event: MQMD Format MQEVENT, MsgType datagram, non-persistent; an MQCFH
(Type MQCFT_EVENT, Version 2, Command the kind of event, CompCode MQCC_WARNING, Reason the event's reason code)
then its parameters (``pcf_event``: MQCFST, MQCFIN, MQCFGR). ``pcf_event`` and ``_put_event`` are the writer the
statistics and accounting messages may share (keep their signatures: new keywords only). The queue manager puts
it outside any unit of work (``_system_put_to``); when the event queue is missing, full or put-inhibited, the
event is dropped and counted (``events_dropped``) and the MQI call that caused it goes on as if there were none,
as IBM's.

Cost: the MQI path tests one dictionary entry (the queue manager's PERFMEV) after a put or get; nothing more
runs unless it is ENABLED (then one more, QSVCIEV). The attribute changes an event makes are written like an
MQSET's.
"""

from __future__ import annotations

import struct
from typing import Any

from syncpoint.mqi import MQMD
from syncpoint.mqi import constants as C
from syncpoint.mqi.objects import QALIAS, QLOCAL, QMODEL, QREMOTE, Definition, admin_queue_objects, defaults_for

from ._base import QueueManagerBase
from ._effects import REPORT
from ._state import Connection, LocalQueue
from ._util import fail

ADMIN_QUEUES_MADE = "adminqs"  # the store counter saying the queue manager has its SYSTEM.ADMIN queues
PERFM_EVENT_QUEUE = "SYSTEM.ADMIN.PERFM.EVENT"
QMGR_EVENT_QUEUE = "SYSTEM.ADMIN.QMGR.EVENT"
CHANNEL_EVENT_QUEUE = "SYSTEM.ADMIN.CHANNEL.EVENT"
_CHANNEL_REASONS = frozenset({C.MQRC_CHANNEL_STARTED, C.MQRC_CHANNEL_STOPPED, C.MQRC_CHANNEL_STOPPED_BY_USER})
MQCMD_Q_MGR_EVENT = 44
MQFMT_EVENT = b"MQEVENT "
MQCFT_EVENT = 7
MQCFT_INTEGER = 3
MQCFT_STRING = 4
MQCFH_VERSION_2 = 2
MQCFC_LAST = 1
MQCFC_NOT_LAST = 0
MQCFT_GROUP = 20
MQCMD_PERFM_EVENT = 45
ENABLED, DISABLED = "ENABLED", "DISABLED"
NONE, HIGH, OK = "NONE", "HIGH", "OK"  # QSVCIEV's values

# IBM's Remote events (REMOTEEV): the reasons name resolution of a remote queue can meet
_XMITQ_REASONS = frozenset(
    {
        C.MQRC_UNKNOWN_XMIT_Q,
        C.MQRC_XMIT_Q_TYPE_ERROR,
        C.MQRC_XMIT_Q_USAGE_ERROR,
        C.MQRC_UNKNOWN_DEF_XMIT_Q,
        C.MQRC_DEF_XMIT_Q_TYPE_ERROR,
        C.MQRC_DEF_XMIT_Q_USAGE_ERROR,
    }
)
REMOTE_EVENT_REASONS = _XMITQ_REASONS | {C.MQRC_UNKNOWN_REMOTE_Q_MGR, C.MQRC_REMOTE_Q_NAME_ERROR, C.MQRC_Q_TYPE_ERROR}
_QTYPES = {QLOCAL: C.MQQT_LOCAL, QMODEL: C.MQQT_MODEL, QALIAS: C.MQQT_ALIAS, QREMOTE: C.MQQT_REMOTE}

_CFH = struct.Struct("=9i")
_CFIN = struct.Struct("=4i")
_CFST = struct.Struct("=5i")
_CFGR = struct.Struct("=4i")


EventParameters = list[tuple[int, Any]]  # (parameter, str | int | a group's own EventParameters)


def pcf_event(command: int, reason: int, parameters: EventParameters, *, seq: int = 1, last: bool = True) -> bytes:
    """An event message's PCF: MQCFH then one MQCFST (a string), MQCFIN (an integer) or MQCFGR (a group: a list of
    its own parameters) per parameter, in the order given (native byte order, as IBM's on the platform; strings
    in CCSID 1208, blank-padded to IBM's 48 characters of an object name, longer ones to a multiple of 4).
    ``seq`` and ``last`` are the MQCFH's MsgSeqNumber and Control (a Change Object event is two messages)."""
    control = MQCFC_LAST if last else MQCFC_NOT_LAST
    out = [_CFH.pack(MQCFT_EVENT, 36, MQCFH_VERSION_2, command, seq, control, C.MQCC_WARNING, reason, len(parameters))]
    _pack_parameters(parameters, out)
    return b"".join(out)


def _pack_parameters(parameters: EventParameters, out: list[bytes]) -> None:
    for parameter, value in parameters:
        if isinstance(value, str):
            raw = value.encode()
            padded = raw.ljust(48) if len(raw) <= 48 else raw + b" " * (-len(raw) % 4)
            out.append(_CFST.pack(MQCFT_STRING, 20 + len(padded), parameter, 1208, len(padded)) + padded)
        elif isinstance(value, list):
            out.append(_CFGR.pack(MQCFT_GROUP, 16, parameter, len(value)))
            _pack_parameters(value, out)
        else:
            out.append(_CFIN.pack(MQCFT_INTEGER, 16, parameter, value))


class EventsMixin(QueueManagerBase):
    """Performance, queue manager and channel events, and the event queues (see the module doc)."""

    events_dropped = 0  # event messages the event queue did not take (missing, full, put-inhibited)
    events_put = 0

    # -- construction ---------------------------------------------------------------------------------
    def _load_admin_queues(self, counters: dict[str, int]) -> None:
        """At start: give a queue manager made before them IBM's event, statistics and accounting queues, once
        (a queue the administrator deletes afterwards stays deleted, as IBM's)."""
        if counters.get(ADMIN_QUEUES_MADE):
            return
        b = self._b()
        now = self.clock.time()
        for otype, name, extra in admin_queue_objects():
            if ("Q", name) in self.definitions:
                continue
            a = defaults_for(otype)
            a.update(extra)
            d = Definition(otype, name, a, now, now)
            self.definitions[("Q", name)] = d
            self.queues[name] = LocalQueue(d, self._expiry_candidates)
            b.put_objects.append((otype, name, d.to_bytes()))
        b.counters[ADMIN_QUEUES_MADE] = 1
        b.durable = True

    # -- hooks the MQI path calls only when PERFMEV is ENABLED ----------------------------------------
    def depth_after_put(self, q: LocalQueue) -> None:
        attrs = q.attrs
        c = q.counts
        if attrs.get("QSVCIEV", NONE) != NONE:
            self._service_interval(q, put=True)
        if q.depth > c.event_hi:
            c.event_hi = q.depth
        if attrs.get("QDPHIEV") == ENABLED and q.depth * 100 >= attrs.get("QDEPTHHI", 80) * attrs["MAXDEPTH"]:
            self._depth_event(q, C.MQRC_Q_DEPTH_HIGH, {"QDPHIEV": DISABLED, "QDPLOEV": ENABLED, "QDPMAXEV": ENABLED})

    def depth_after_get(self, q: LocalQueue) -> None:
        attrs = q.attrs
        if attrs.get("QSVCIEV", NONE) != NONE:
            self._service_interval(q, put=False)
        if attrs.get("QDPLOEV") == ENABLED and q.depth * 100 <= attrs.get("QDEPTHLO", 20) * attrs["MAXDEPTH"]:
            self._depth_event(q, C.MQRC_Q_DEPTH_LOW, {"QDPLOEV": DISABLED, "QDPHIEV": ENABLED, "QDPMAXEV": ENABLED})

    def queue_full(self, q: LocalQueue) -> None:
        if q.attrs.get("QDPMAXEV") == ENABLED:
            self._depth_event(q, C.MQRC_Q_FULL, {"QDPMAXEV": DISABLED, "QDPLOEV": ENABLED})

    def _service_interval(self, q: LocalQueue, put: bool) -> None:
        """Queue service interval events, after an MQPUT / MQPUT1 (``put``) or a destructive MQGET, by IBM's
        rules (see the module doc): a put to an empty queue resets the service timer; a get resets it, or turns
        it off when the queue is left empty; Queue Service Interval High when the time since the timer was reset
        exceeds QSVCINT (milliseconds), Queue Service Interval OK on a get within it."""
        c = q.counts
        now = q.last_put if put else q.last_get  # the call's own time, just noted (no second clock read)
        if put and q.depth == 1:  # a put to an empty queue: the timer starts
            c.svc_timer = now
            return
        mode = q.attrs["QSVCIEV"]
        # the timer is off only while the queue was empty or the events were off: IBM's rule for the start
        # (the timer is set to the start time when the queue holds messages) stands for both
        elapsed_ms = (now - (c.svc_timer or self.started)) * 1000
        interval = q.attrs.get("QSVCINT", 999_999_999)
        if mode == HIGH and elapsed_ms > interval:
            self._depth_event(q, C.MQRC_Q_SERVICE_INTERVAL_HIGH, {"QSVCIEV": OK})
        elif mode == OK and not put and elapsed_ms <= interval:
            self._depth_event(q, C.MQRC_Q_SERVICE_INTERVAL_OK, {"QSVCIEV": HIGH})
        if not put:
            c.svc_timer = now if q.depth > 0 else 0.0

    # -- the event --------------------------------------------------------------------------------------
    def _depth_event(self, q: LocalQueue, reason: int, changes: dict[str, Any]) -> None:
        now = self.clock.time()
        c = q.counts
        data = pcf_event(
            MQCMD_PERFM_EVENT,
            reason,
            [
                (C.MQCA_Q_MGR_NAME, self.name),
                (C.MQCA_BASE_Q_NAME, q.name),
                (C.MQIA_TIME_SINCE_RESET, max(0, int(now - (c.event_reset or self.started)))),
                (C.MQIA_HIGH_Q_DEPTH, max(c.event_hi, q.depth)),
                (C.MQIA_MSG_ENQ_COUNT, c.puts - c.event_puts),
                (C.MQIA_MSG_DEQ_COUNT, c.gets - c.event_gets),
            ],
        )
        c.event_reset, c.event_hi, c.event_puts, c.event_gets = now, q.depth, c.puts, c.gets  # reset
        self._apply_changes(q.definition, changes)
        self._put_event(PERFM_EVENT_QUEUE, data)

    def _put_event(self, queue: str, data: bytes, persistent: bool = False) -> None:
        """Put an event message outside any unit of work; when the event queue does not take it, drop and count
        it (IBM: the event is lost; the call that caused it is not failed)."""
        md = MQMD(
            Format=MQFMT_EVENT,
            MsgType=C.MQMT_DATAGRAM,
            Persistence=C.MQPER_PERSISTENT if persistent else C.MQPER_NOT_PERSISTENT,
        )
        if self._system_put_to(queue, md, data, None, REPORT) == C.MQRC_NONE:
            self.events_put += 1
        else:
            self.events_dropped += 1

    # -- queue manager events (SYSTEM.ADMIN.QMGR.EVENT) ------------------------------------------------
    def _qmgr_event_enabled(self, attribute: str) -> bool:
        return bool(self.qmgr.attrs.get(attribute) == ENABLED)

    def qmgr_started(self) -> None:
        """Queue Manager Active (MQRC_Q_MGR_ACTIVE, 2222) when the queue manager starts and its STRSTPEV is
        ENABLED (IBM's default). Parameter: QMgrName."""
        if self._qmgr_event_enabled("STRSTPEV"):
            self._put_event(
                QMGR_EVENT_QUEUE, pcf_event(MQCMD_Q_MGR_EVENT, C.MQRC_Q_MGR_ACTIVE, [(C.MQCA_Q_MGR_NAME, self.name)])
            )

    def qmgr_stopping(self) -> None:
        """Queue Manager Not Active (MQRC_Q_MGR_NOT_ACTIVE, 2223) when the queue manager ends and its STRSTPEV is
        ENABLED; the host calls it before it ends the connections. Parameters: QMgrName, ReasonQualifier
        (MQRQ_Q_MGR_QUIESCING after a controlled end's quiesce, MQRQ_Q_MGR_STOPPING otherwise). The message is
        persistent: it is read after the queue manager has ended, once it runs again."""
        if self._qmgr_event_enabled("STRSTPEV"):
            qualifier = C.MQRQ_Q_MGR_QUIESCING if self.quiescing else C.MQRQ_Q_MGR_STOPPING
            parameters: list[tuple[int, str | int]] = [
                (C.MQCA_Q_MGR_NAME, self.name),
                (C.MQIACF_REASON_QUALIFIER, qualifier),
            ]
            data = pcf_event(MQCMD_Q_MGR_EVENT, C.MQRC_Q_MGR_NOT_ACTIVE, parameters)
            self._put_event(QMGR_EVENT_QUEUE, data, persistent=True)

    def inhibited(self, reason: int, queue: str, conn: Connection) -> None:
        """Put Inhibited (MQRC_PUT_INHIBITED) or Get Inhibited (MQRC_GET_INHIBITED): an MQPUT / MQPUT1 or MQGET
        refused because the queue inhibits it, when the queue manager's INHIBTEV is ENABLED. Parameters as IBM's:
        QMgrName, QName, ApplType, ApplName, and ConnName for a client."""
        if not self._qmgr_event_enabled("INHIBTEV"):
            return
        parameters: list[tuple[int, str | int]] = [
            (C.MQCA_Q_MGR_NAME, self.name),
            (C.MQCA_BASE_Q_NAME, queue),
            (C.MQIA_APPL_TYPE, conn.appl_type),
            (C.MQCACF_APPL_NAME, conn.appl_name[:28]),
        ]
        if conn.conname:
            parameters.append((C.MQCACH_CONNECTION_NAME, conn.conname))
        self._put_event(QMGR_EVENT_QUEUE, pcf_event(MQCMD_Q_MGR_EVENT, reason, parameters))

    def unknown_object(self, conn: Connection, parameter: int, name: str) -> None:
        """Unknown Object Name (MQRC_UNKNOWN_OBJECT_NAME): an MQOPEN or MQPUT1 named a queue or process that does
        not exist, when the queue manager's LOCALEV is ENABLED. Parameters as IBM's: QMgrName, ApplType,
        ApplName, QName or ProcessName, and ConnName for a client."""
        if not self._qmgr_event_enabled("LOCALEV"):
            return
        parameters: list[tuple[int, str | int]] = [
            (C.MQCA_Q_MGR_NAME, self.name),
            (C.MQIA_APPL_TYPE, conn.appl_type),
            (C.MQCACF_APPL_NAME, conn.appl_name[:28]),
            (parameter, name),
        ]
        if conn.conname:
            parameters.append((C.MQCACH_CONNECTION_NAME, conn.conname))
        self._put_event(QMGR_EVENT_QUEUE, pcf_event(MQCMD_Q_MGR_EVENT, C.MQRC_UNKNOWN_OBJECT_NAME, parameters))

    def remote_error(self, conn: Connection, reason: int, name: str, qmname: str) -> None:
        """Remote events (REMOTEEV): an MQOPEN or MQPUT1 of a queue at another queue manager, or of a local
        definition of a remote queue, refused in name resolution with one of IBM's remote event reasons.
        Parameters as IBM's: QMgrName, QName, XmitQName (for the transmission-queue reasons), QType (for the
        type errors: the type of the queue named as transmission queue), ApplType, ApplName, ObjectQMgrName, and
        ConnName for a client."""
        if reason not in REMOTE_EVENT_REASONS or not self._qmgr_event_enabled("REMOTEEV"):
            return
        parameters: list[tuple[int, str | int]] = [(C.MQCA_Q_MGR_NAME, self.name), (C.MQCA_Q_NAME, name)]
        if reason in _XMITQ_REASONS:
            parameters.append((C.MQCA_XMIT_Q_NAME, self.failed_xmitq))
            if reason in (C.MQRC_XMIT_Q_TYPE_ERROR, C.MQRC_DEF_XMIT_Q_TYPE_ERROR):
                d = self.definitions.get(("Q", self.failed_xmitq))
                parameters.append((C.MQIA_Q_TYPE, _QTYPES.get(d.otype, 0) if d is not None else 0))
        if not qmname:  # a local definition of a remote queue: the queue manager it names
            d = self.definitions.get(("Q", name))
            qmname = str(d.attrs.get("RQMNAME", "")) if d is not None and d.otype == QREMOTE else ""
        parameters += [
            (C.MQIA_APPL_TYPE, conn.appl_type),
            (C.MQCACF_APPL_NAME, conn.appl_name[:28]),
            (C.MQCACF_OBJECT_Q_MGR_NAME, qmname),
        ]
        if conn.conname:
            parameters.append((C.MQCACH_CONNECTION_NAME, conn.conname))
        self._put_event(QMGR_EVENT_QUEUE, pcf_event(MQCMD_Q_MGR_EVENT, reason, parameters))

    def channel_event(
        self,
        reason: int,
        channel: str,
        qualifier: int = 0,
        xmitq: str = "",
        conname: str = "",
        error: list[Any] | None = None,
    ) -> bool:
        """Channel events (CHLEV) on SYSTEM.ADMIN.CHANNEL.EVENT, as the channel programs report them (the sending
        MCA through this verb, the receiving MCA in the server): Channel Started (2282: QMgrName, ChannelName,
        XmitQName for a sending channel, ConnectionName); Channel Stopped (2283: QMgrName, ReasonQualifier
        MQRQ_CHANNEL_STOPPED_OK / _ERROR / _RETRY / _DISABLED, ChannelName, ErrorIdentifier, AuxErrorDataInt1,
        AuxErrorDataInt2, AuxErrorDataStr1 … 3, XmitQName, ConnectionName; ``error`` is [ErrorIdentifier, int1,
        int2, str1, str2, str3]); Channel Stopped By User (2279: QMgrName, ReasonQualifier, ChannelName). True
        when an event was written (CHLEV ENABLED)."""
        if reason not in _CHANNEL_REASONS:
            raise fail(C.MQRC_FUNCTION_NOT_SUPPORTED, f"{reason} is not a reason of a channel event")
        if not isinstance(channel, str) or not 1 <= len(channel) <= 20:
            raise fail(C.MQRC_FUNCTION_NOT_SUPPORTED, "a channel event names its channel (1 to 20 characters)")
        if not self._qmgr_event_enabled("CHLEV"):
            return False
        parameters: EventParameters = [(C.MQCA_Q_MGR_NAME, self.name)]
        if reason == C.MQRC_CHANNEL_STARTED:
            parameters.append((C.MQCACH_CHANNEL_NAME, channel))
        else:
            parameters += [(C.MQIACF_REASON_QUALIFIER, qualifier), (C.MQCACH_CHANNEL_NAME, channel)]
        if reason == C.MQRC_CHANNEL_STOPPED:
            e = list(error or []) + [0, 0, 0, "", "", ""][len(error or []) :]
            parameters += [
                (C.MQIACF_ERROR_IDENTIFIER, int(e[0])),
                (C.MQIACF_AUX_ERROR_DATA_INT_1, int(e[1])),
                (C.MQIACF_AUX_ERROR_DATA_INT_2, int(e[2])),
                (C.MQCACF_AUX_ERROR_DATA_STR_1, str(e[3])),
                (C.MQCACF_AUX_ERROR_DATA_STR_2, str(e[4])),
                (C.MQCACF_AUX_ERROR_DATA_STR_3, str(e[5])),
            ]
        if reason != C.MQRC_CHANNEL_STOPPED_BY_USER:
            if xmitq:
                parameters.append((C.MQCACH_XMIT_Q_NAME, xmitq))
            parameters.append((C.MQCACH_CONNECTION_NAME, conname))
        self._put_event(CHANNEL_EVENT_QUEUE, pcf_event(C.MQCMD_CHANNEL_EVENT, reason, parameters))
        return True

    def not_authorized(
        self,
        qualifier: int,
        *,
        user: str,
        appl_type: int = C.MQAT_UNIX,
        appl_name: str = "",
        conname: str = "",
        options: int | None = None,
        queue: str | None = None,
        command: int | None = None,
    ) -> bool:
        """The Not Authorized event (MQRC_NOT_AUTHORIZED, 2035) on SYSTEM.ADMIN.QMGR.EVENT when the queue
        manager's AUTHOREV is ENABLED; True when an event was made. The authority checks call it where they
        refuse (issue 36 leaves the check to the object authority manager). ``qualifier`` is IBM's
        MQRQ_*_NOT_AUTHORIZED, and the parameters are IBM's for it: type 1 (MQCONN) QMgrName, ReasonQualifier,
        UserIdentifier, ApplType, ApplName; type 2 (MQOPEN / MQPUT1) and 3 (MQCLOSE) add Options after the
        qualifier and QName at the end; type 4 (a command) is QMgrName, ReasonQualifier, Command,
        UserIdentifier. ConnName ends the list for a client connection."""
        if not self._qmgr_event_enabled("AUTHOREV"):
            return False
        parameters: list[tuple[int, str | int]] = [
            (C.MQCA_Q_MGR_NAME, self.name),
            (C.MQIACF_REASON_QUALIFIER, qualifier),
        ]
        if qualifier == C.MQRQ_CMD_NOT_AUTHORIZED:
            parameters += [(C.MQIACF_COMMAND, command or 0), (C.MQCACF_USER_IDENTIFIER, user)]
        else:
            if qualifier in (C.MQRQ_OPEN_NOT_AUTHORIZED, C.MQRQ_CLOSE_NOT_AUTHORIZED):
                parameters.append((C.MQIACF_OPEN_OPTIONS, options or 0))
            parameters += [
                (C.MQCACF_USER_IDENTIFIER, user),
                (C.MQIA_APPL_TYPE, appl_type),
                (C.MQCACF_APPL_NAME, appl_name[:28]),
            ]
            if queue is not None and qualifier != C.MQRQ_CONN_NOT_AUTHORIZED:
                parameters.append((C.MQCA_Q_NAME, queue))
        if conname:
            parameters.append((C.MQCACH_CONNECTION_NAME, conname))
        self._put_event(QMGR_EVENT_QUEUE, pcf_event(MQCMD_Q_MGR_EVENT, C.MQRC_NOT_AUTHORIZED, parameters))
        return True
