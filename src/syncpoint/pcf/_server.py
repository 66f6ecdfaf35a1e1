"""The PCF command server: reads PCF requests from SYSTEM.ADMIN.COMMAND.QUEUE, runs them through the client's
administrative verbs, and replies to each request's ReplyToQ.

Theory of operation: one loop, one connection (``syncpoint.client`` only, so it runs in the server process or
beside an embedded queue manager alike). Each request is got under syncpoint; its replies are put under the
same unit of work, which is then committed, so a request is either answered or still on the queue. Replies
follow IBM's conventions for a distributed queue manager: MQMD Format MQADMIN, MsgType MQMT_REPLY, CorrelId =
the request's MsgId (MQRO_PASS_CORREL_ID: its CorrelId), the request's Priority and Persistence, the request's
remaining Expiry when it asked for MQRO_PASS_DISCARD_AND_EXPIRY. Each reply is an MQCFH of Type MQCFT_RESPONSE;
every reply but the last has Control MQCFC_NOT_LAST. A failed command gets one reply with CompCode
MQCC_FAILED, the reason (MQRCCF_* or MQRC_*) and, where it concerns one parameter, MQIACF_PARAMETER_ID.
A request that cannot be read as PCF gets the same kind of error reply. Requests without a ReplyToQ are run
and not answered (IBM does the same).

Implements: reference/ibmmq-compat.md (the commands its suites send), reference/constants.md.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any

from syncpoint.client import QueueManager
from syncpoint.mqi import MQMD, MQOD, MQPMO, MQMIError, blank_strip, matches_generic, mqsc_date_time
from syncpoint.mqi import constants as C
from syncpoint.mqi import monitoring as M
from syncpoint.mqi.objects import (
    AUTHINFO,
    PROCESS,
    QALIAS,
    QLOCAL,
    QMGR,
    QMODEL,
    QREMOTE,
    attributes_for,
    char_attr_length,
)
from syncpoint.mqi.qmgr_selectors import KEPT_QMGR_SELECTORS, kept_qmgr_value

from . import _authinfo, _authrec, _chlauth, _pubsub
from . import _constants as K
from ._channels import CHANNEL_HANDLERS
from ._connection import HANDLERS as CONNECTION_HANDLERS
from ._namelist import HANDLERS as NAMELIST_HANDLERS
from ._request import KEPT_QUEUE_SELECTORS, CommandFailedError, Request, attr_value_to_pcf, passes_filter
from ._structs import (  # an import list, not logic: other modules import many of the same names
    MQCFBS,
    MQCFH,
    MQCFIL,
    MQCFIN,
    MQCFSL,
    MQCFST,
    Param,
    PCFError,
    build,
    parse,
)

log = logging.getLogger("syncpoint.pcf")

COMMAND_QUEUE = "SYSTEM.ADMIN.COMMAND.QUEUE"
# the Inquire commands: no Command event for them under CMDEV(NODISPLAY)
_INQUIRES = frozenset(v for k, v in vars(K).items() if k.startswith("MQCMD_INQUIRE") and isinstance(v, int))

_QTYPE_TO_OTYPE = {C.MQQT_LOCAL: QLOCAL, C.MQQT_MODEL: QMODEL, C.MQQT_ALIAS: QALIAS, C.MQQT_REMOTE: QREMOTE}
_OTYPE_TO_QTYPE = {v: k for k, v in _QTYPE_TO_OTYPE.items()}

# engine reasons as the command server reports them (IBM's PCF reasons where IBM has one)
_REASON_MAP = {
    C.MQRC_OBJECT_ALREADY_EXISTS: K.MQRCCF_OBJECT_ALREADY_EXISTS,
    C.MQRC_OBJECT_IN_USE: K.MQRCCF_OBJECT_OPEN,
    C.MQRC_OBJECT_TYPE_ERROR: K.MQRCCF_OBJECT_WRONG_TYPE,
    C.MQRC_OBJECT_NAME_ERROR: K.MQRCCF_OBJECT_NAME_ERROR,
    C.MQRC_SELECTOR_ERROR: K.MQRCCF_ATTR_VALUE_ERROR,
    C.MQRC_SELECTOR_NOT_FOR_TYPE: K.MQRCCF_ATTR_VALUE_ERROR,
    C.MQRC_SUB_ALREADY_EXISTS: K.MQRCCF_SUB_ALREADY_EXISTS,
    C.MQRC_SUBSCRIPTION_IN_USE: K.MQRCCF_SUBSCRIPTION_IN_USE,
}


Reply = list[list[Param]]  # one parameter list per response message


# ------------------------------------------------------------------------------------------------------
# the server
# ------------------------------------------------------------------------------------------------------
class CommandServer:
    """Serves PCF commands on SYSTEM.ADMIN.COMMAND.QUEUE through a client connection.

    ``connect`` makes the connection (called once per :meth:`run`); ``run(stop)`` serves until ``stop`` is set
    or the queue manager ends. :meth:`execute` runs one PCF message and returns the response messages.
    """

    def __init__(
        self,
        connect: Callable[[], QueueManager],
        *,
        poll: float = 0.5,
    ) -> None:
        self.connect = connect
        self.poll = poll
        self.qm: QueueManager | None = None
        self.served = 0
        self.requester = ""  # the UserIdentifier of the request being served (authority checks are its)

    # -- loop ----------------------------------------------------------------------------------------
    def run(self, stop: threading.Event) -> None:
        qm = self.connect()
        self.qm = qm
        try:
            q = qm.open(COMMAND_QUEUE)
            while not stop.is_set():
                try:
                    msg = q.get_or_none(wait=self.poll, syncpoint=True)
                except MQMIError as e:
                    if e.reason in (
                        C.MQRC_CONNECTION_BROKEN,
                        C.MQRC_Q_MGR_STOPPING,
                        C.MQRC_Q_MGR_QUIESCING,
                        C.MQRC_Q_MGR_NOT_AVAILABLE,
                    ):
                        return
                    raise
                if msg is None:
                    continue
                self._serve(qm, msg.md, msg.data)
        finally:
            try:
                qm.disconnect()
            except MQMIError:
                pass

    def start(self, name: str = "syncpoint-command-server") -> tuple[threading.Thread, threading.Event]:
        """Run in a daemon thread; returns the thread and the event that stops it."""
        stop = threading.Event()
        t = threading.Thread(target=self.run, args=(stop,), name=name, daemon=True)
        t.start()
        return t, stop

    def _serve(self, qm: QueueManager, md: MQMD, data: bytes) -> None:
        self.requester = blank_strip(md.UserIdentifier)
        try:
            replies = self.execute(data, blank_strip(md.Format))
        finally:
            self.requester = ""
        reply_q = blank_strip(md.ReplyToQ)
        try:
            if reply_q:
                for body in replies:
                    self._put_reply(qm, md, reply_q, body)
            qm.commit()
        except MQMIError as e:
            # The reply cannot be delivered (no such ReplyToQ, queue full, ...): the request is discarded as
            # IBM's command server does when it cannot reply; the reason is logged.
            log.warning("command server: reply to %s not delivered (reason %d): %s", reply_q, e.reason, e)
            qm.backout()
            q = qm.open(COMMAND_QUEUE)
            try:
                q.get_or_none(msg_id=bytes(md.MsgId), syncpoint=False)
            finally:
                q.close()
        self.served += 1

    @staticmethod
    def _put_reply(qm: QueueManager, req: MQMD, reply_q: str, body: bytes) -> None:
        out = MQMD(
            Format=C.MQFMT_ADMIN,
            MsgType=C.MQMT_REPLY,
            Priority=req.Priority,
            Persistence=req.Persistence,
            CodedCharSetId=req.CodedCharSetId or C.MQCCSI_Q_MGR,
            Encoding=req.Encoding,
        )
        out.CorrelId = bytes(req.CorrelId) if req.Report & C.MQRO_PASS_CORREL_ID else bytes(req.MsgId)
        if req.Report & C.MQRO_PASS_MSG_ID:
            out.MsgId = bytes(req.MsgId)
        if req.Report & C.MQRO_PASS_DISCARD_AND_EXPIRY:
            out.Expiry = req.Expiry
            out.Report = req.Report & C.MQRO_DISCARD_MSG
        od = MQOD(ObjectName=reply_q.encode(), ObjectQMgrName=bytes(req.ReplyToQMgr))
        pmo = MQPMO(Options=C.MQPMO_SYNCPOINT | C.MQPMO_FAIL_IF_QUIESCING)
        qm.mqput1(od, out, pmo, body)

    # -- one command -----------------------------------------------------------------------------------
    def execute(self, data: bytes, fmt: str = "MQADMIN") -> list[bytes]:
        """Run one PCF request; the response messages, each an MQCFH of Type MQCFT_RESPONSE."""
        command = 0
        try:
            if fmt != "MQADMIN":
                raise CommandFailedError(K.MQRCCF_MD_FORMAT_ERROR, f"the request's Format is {fmt!r}, not MQADMIN")
            try:
                cfh, params = parse(data)
            except PCFError as e:
                command = MQCFH.unpack(data).Command if len(data) >= 36 else 0
                raise CommandFailedError(e.reason, str(e), e.parameter) from None
            command = cfh.Command
            if cfh.Type not in (K.MQCFT_COMMAND, K.MQCFT_COMMAND_XR):
                raise CommandFailedError(K.MQRCCF_CFH_TYPE_ERROR, f"MQCFH Type {cfh.Type} is not a command")
            handler = _HANDLERS.get(command)
            if handler is None:
                raise CommandFailedError(K.MQRCCF_CFH_COMMAND_ERROR, f"command {command} is not supported")
            bodies = handler(self, Request(params))
            self._command_event(command, params)  # CMDEV: the command ran (IBM's Command event, 2413)
        except CommandFailedError as e:
            return [self._error(command, e.reason, e.parameter)]
        except MQMIError as e:
            return [self._error(command, _REASON_MAP.get(e.reason, e.reason), 0)]
        except Exception:  # a fault of the command server itself: the requester still gets an answer
            log.exception("command server: command %d failed unexpectedly", command)
            return [self._error(command, K.MQRCCF_COMMAND_FAILED, 0)]
        if not bodies:
            bodies = [[]]
        out = []
        for i, body in enumerate(bodies):
            last = i == len(bodies) - 1
            cfh = MQCFH(
                Type=K.MQCFT_RESPONSE,
                Version=K.MQCFH_VERSION_1,
                Command=command,
                MsgSeqNumber=i + 1,
                Control=K.MQCFC_LAST if last else K.MQCFC_NOT_LAST,
            )
            out.append(build(cfh, body))
        return out

    @staticmethod
    def _error(command: int, reason: int, parameter: int) -> bytes:
        cfh = MQCFH(
            Type=K.MQCFT_RESPONSE,
            Version=K.MQCFH_VERSION_1,
            Command=command,
            MsgSeqNumber=1,
            Control=K.MQCFC_LAST,
            CompCode=C.MQCC_FAILED,
            Reason=reason,
        )
        params: list[Param] = [MQCFIN(K.MQIACF_PARAMETER_ID, parameter)] if parameter else []
        return build(cfh, params)

    # -- helpers ---------------------------------------------------------------------------------------
    def _command_event(self, command: int, params: list[Param]) -> None:
        """Report a command that ran to the queue manager, which writes IBM's Command event when CMDEV asks for
        it; CommandData holds the request's integer and string parameters. The command never fails for it."""
        data = [
            [p.Parameter, p.Value if isinstance(p, MQCFIN) else p.String.decode(errors="replace").rstrip(" \0")]
            for p in params
            if isinstance(p, (MQCFIN, MQCFST))
        ]
        try:
            self._admin("command_event", "PCF", command, data, command in _INQUIRES)
        except MQMIError as e:
            log.debug("command server: no command event for command %d (reason %d)", command, e.reason)

    @property
    def _qm(self) -> QueueManager:
        assert self.qm is not None, "the command server is not connected"
        return self.qm

    def _admin(self, verb: str, *args: Any, **kw: Any) -> Any:
        if self.requester:  # IBM: the request's UserIdentifier needs the authority, not the command server
            return self._qm.admin("as_user", self.requester, verb, list(args), kw)
        return self._qm.admin(verb, *args, **kw)

    def _find_queue(self, name: str) -> Any:
        for otype in (QLOCAL, QMODEL, QALIAS, QREMOTE):
            d = self._admin("lookup", otype, name)
            if d is not None:
                return d
        return None

    def _queue_otype(self, req: Request, required: bool) -> str | None:
        qtype = req.integer(C.MQIA_Q_TYPE, required=required)
        if qtype is None:
            return None
        otype = _QTYPE_TO_OTYPE.get(qtype)
        if otype is None:
            raise CommandFailedError(K.MQRCCF_Q_TYPE_ERROR, f"queue type {qtype} is not supported", C.MQIA_Q_TYPE)
        return otype

    @staticmethod
    def _replace(req: Request) -> bool:
        v = req.integer(K.MQIACF_REPLACE, K.MQRP_NO)
        if v not in (K.MQRP_YES, K.MQRP_NO):
            raise CommandFailedError(K.MQRCCF_REPLACE_VALUE_ERROR, f"Replace {v} is not MQRP_YES or MQRP_NO")
        return v == K.MQRP_YES

    def _describe(self, d: Any, wanted: list[int] | None, otype: str) -> list[Param]:
        """An object's attributes as response parameters (IBM's order: name and type first)."""
        out: list[Param] = []
        keep = None if wanted is None or K.MQIACF_ALL in wanted else set(wanted)

        def add(sel: int, value: Any, length: int = 0) -> None:
            if keep is None or sel in keep:
                out.append(attr_value_to_pcf(sel, value, length))

        if otype in (QLOCAL, QMODEL, QALIAS, QREMOTE):
            out.append(attr_value_to_pcf(C.MQCA_Q_NAME, d.name, 48))
            out.append(MQCFIN(C.MQIA_Q_TYPE, _OTYPE_TO_QTYPE[otype]))
        elif otype == PROCESS:
            out.append(attr_value_to_pcf(C.MQCA_PROCESS_NAME, d.name, 48))
        elif otype == AUTHINFO:
            out.append(attr_value_to_pcf(C.MQCA_AUTH_INFO_NAME, d.name, 48))
        else:
            out.append(attr_value_to_pcf(C.MQCA_Q_MGR_NAME, self._qm.name, 48))
            for sel in KEPT_QMGR_SELECTORS:  # what MQINQ answers of the attributes kept without effect
                if (kept := kept_qmgr_value(d.attrs, sel)) is not None:
                    add(sel, kept, char_attr_length(sel) if sel >= C.MQCA_FIRST else 0)
        if otype in (QLOCAL, QMODEL):  # StatisticsQ, AccountingQ: kept as IBM's words, answered as MQMON_*
            for sel, (key, words) in KEPT_QUEUE_SELECTORS.items():
                add(sel, words.get(d.attrs.get(key), C.MQMON_Q_MGR))
        for attr in attributes_for(otype):
            if not attr.selector or attr.selector in (C.MQCA_Q_MGR_NAME,):
                continue
            value = d.attrs.get(attr.keyword, attr.default)
            add(attr.selector, value, attr.length if attr.is_char else 0)
        if otype == QLOCAL:
            st = self._admin("queue_status", d.name)
            add(C.MQIA_CURRENT_Q_DEPTH, st["CURDEPTH"])
            add(C.MQIA_OPEN_INPUT_COUNT, st["IPPROCS"])
            add(C.MQIA_OPEN_OUTPUT_COUNT, st["OPPROCS"])
            add(C.MQIA_DEFINITION_TYPE, getattr(d, "dynamic", C.MQQDT_PREDEFINED))
        if otype != QMGR:
            cdate, ctime = mqsc_date_time(getattr(d, "created", 0.0))
            adate, atime = mqsc_date_time(getattr(d, "altered", 0.0))
            add(C.MQCA_CREATION_DATE, cdate, K.MQ_CREATION_DATE_LENGTH)
            add(C.MQCA_CREATION_TIME, ctime, K.MQ_CREATION_TIME_LENGTH)
            add(C.MQCA_ALTERATION_DATE, adate, K.MQ_CREATION_DATE_LENGTH)
            add(C.MQCA_ALTERATION_TIME, atime, K.MQ_CREATION_TIME_LENGTH)
        return out

    # -- commands ----------------------------------------------------------------------------------------
    def ping_q_mgr(self, req: Request) -> Reply:
        if req.params:
            p = next(iter(req.params.values()))
            raise CommandFailedError(K.MQRCCF_PARM_COUNT_TOO_BIG, "Ping Queue Manager takes no parameters", p.Parameter)
        return []

    def reset_q_mgr(self, req: Request) -> Reply:
        """Reset Queue Manager with Action MQACT_COLLECT_STATISTICS: RESET QMGR TYPE(STATISTICS) (issue 36). The
        other actions (recovery logs, publish/subscribe hierarchies) are not syncpoint's: MQRC_FUNCTION_NOT_SUPPORTED.
        """
        action = req.integer(M.MQIACF_ACTION, required=True)
        if action != M.MQACT_COLLECT_STATISTICS:
            raise CommandFailedError(
                C.MQRC_FUNCTION_NOT_SUPPORTED, f"Action {action} is not supported", M.MQIACF_ACTION
            )
        self._admin("reset_statistics")
        return []

    def create_q(self, req: Request) -> Reply:
        name = req.string(C.MQCA_Q_NAME)
        otype = self._queue_otype(req, required=True)
        assert name is not None and otype is not None
        replace = self._replace(req)
        attrs = req.attributes(otype)
        existing = self._find_queue(name)
        if existing is not None and existing.otype != otype:
            raise CommandFailedError(K.MQRCCF_OBJECT_WRONG_TYPE, f"{name} exists as a {existing.otype}", C.MQCA_Q_NAME)
        self._admin("define", otype, name, attrs, replace=replace)
        return []

    # a queue's copy checks the types of both queues (MQRCCF_LIKE_OBJECT_WRONG_TYPE, MQRCCF_OBJECT_WRONG_TYPE);
    # copy_process has one type: alike in shape, their checks and parameters differ
    def copy_q(self, req: Request) -> Reply:
        src = req.string(K.MQCACF_FROM_Q_NAME)
        dst = req.string(K.MQCACF_TO_Q_NAME)
        otype = self._queue_otype(req, required=True)
        assert src is not None and dst is not None and otype is not None
        replace = self._replace(req)
        attrs = req.attributes(otype)
        source = self._find_queue(src)
        if source is None:
            raise CommandFailedError(C.MQRC_UNKNOWN_OBJECT_NAME, f"{src} does not exist", K.MQCACF_FROM_Q_NAME)
        if source.otype != otype:
            raise CommandFailedError(
                K.MQRCCF_LIKE_OBJECT_WRONG_TYPE, f"{src} is a {source.otype}", K.MQCACF_FROM_Q_NAME
            )
        existing = self._find_queue(dst)
        if existing is not None and existing.otype != otype:
            raise CommandFailedError(
                K.MQRCCF_OBJECT_WRONG_TYPE, f"{dst} exists as a {existing.otype}", K.MQCACF_TO_Q_NAME
            )
        self._admin("define", otype, dst, attrs, like=src, replace=replace)
        return []

    def change_q(self, req: Request) -> Reply:
        name = req.string(C.MQCA_Q_NAME)
        assert name is not None
        otype = self._queue_otype(req, required=True)
        assert otype is not None
        req.integer(K.MQIACF_FORCE)  # accepted: nothing here waits for FORCE
        d = self._find_queue(name)
        if d is None:
            raise CommandFailedError(C.MQRC_UNKNOWN_OBJECT_NAME, f"queue {name} does not exist")
        if d.otype != otype:
            raise CommandFailedError(K.MQRCCF_OBJECT_WRONG_TYPE, f"{name} is a {d.otype}", C.MQIA_Q_TYPE)
        self._admin("alter", otype, name, req.attributes(otype))
        return []

    def delete_q(self, req: Request) -> Reply:
        name = req.string(C.MQCA_Q_NAME)
        assert name is not None
        otype = self._queue_otype(req, required=False)
        purge = req.integer(K.MQIACF_PURGE, K.MQPO_NO)
        if purge not in (K.MQPO_YES, K.MQPO_NO):
            raise CommandFailedError(K.MQRCCF_PURGE_VALUE_ERROR, f"Purge {purge} is not MQPO_YES or MQPO_NO")
        self._no_extra(req)
        d = self._find_queue(name)
        if d is None:
            raise CommandFailedError(C.MQRC_UNKNOWN_OBJECT_NAME, f"queue {name} does not exist")
        if otype is not None and d.otype != otype:
            raise CommandFailedError(K.MQRCCF_OBJECT_WRONG_TYPE, f"{name} is a {d.otype}", C.MQIA_Q_TYPE)
        if d.otype == QLOCAL and purge == K.MQPO_NO and self._admin("queue_status", name)["CURDEPTH"]:
            raise CommandFailedError(C.MQRC_Q_NOT_EMPTY, f"queue {name} is not empty")
        self._admin("delete", d.otype, name, purge=purge == K.MQPO_YES)
        return []

    def clear_q(self, req: Request) -> Reply:
        name = req.string(C.MQCA_Q_NAME)
        assert name is not None
        self._no_extra(req)
        d = self._find_queue(name)
        if d is None:
            raise CommandFailedError(C.MQRC_UNKNOWN_OBJECT_NAME, f"queue {name} does not exist")
        if d.otype != QLOCAL:
            raise CommandFailedError(K.MQRCCF_Q_WRONG_TYPE, f"{name} is a {d.otype}, not a local queue", C.MQCA_Q_NAME)
        self._admin("clear", name)
        return []

    def _queues(self, req: Request) -> list[Any]:
        pattern = req.string(C.MQCA_Q_NAME)
        assert pattern is not None
        qtype = req.integer(C.MQIA_Q_TYPE, K.MQQT_ALL)
        if qtype == K.MQQT_ALL:
            otypes = [QLOCAL, QMODEL, QALIAS, QREMOTE]
        elif qtype in _QTYPE_TO_OTYPE:
            otypes = [_QTYPE_TO_OTYPE[qtype]]
        else:
            raise CommandFailedError(K.MQRCCF_Q_TYPE_ERROR, f"queue type {qtype} is not supported", C.MQIA_Q_TYPE)
        found = [d for t in otypes for d in self._admin("list_objects", t) if matches_generic(pattern, d.name)]
        return sorted(found, key=lambda d: d.name)

    def _filtered(self, req: Request, objects: list[Any], wanted: list[int] | None) -> Reply:
        """Describe each object; with a filter, only those whose attributes pass it."""
        f = req.filters[0] if req.filters else None
        req.filter_used = True
        if f is not None and wanted is not None and K.MQIACF_ALL not in wanted:
            wanted = [*wanted, f.Parameter]  # the filtered attribute is returned too, as IBM does
        out: Reply = []
        for d in objects:
            if f is not None and not passes_filter(self._describe(d, None, d.otype), f):
                continue
            out.append(self._describe(d, wanted, d.otype))
        return out

    def inquire_q(self, req: Request) -> Reply:
        queues = self._queues(req)
        wanted = req.int_list(K.MQIACF_Q_ATTRS)
        self._no_extra(req, filters=True)
        if not queues:
            raise CommandFailedError(C.MQRC_UNKNOWN_OBJECT_NAME, "no queue matches")
        return self._filtered(req, queues, wanted)

    def inquire_q_names(self, req: Request) -> Reply:
        queues = self._queues(req)
        self._no_extra(req)
        names = [d.name.encode().ljust(48) for d in queues]
        return [
            [
                MQCFSL(K.MQCACF_Q_NAMES, names, 0, 48),
                MQCFIL(K.MQIACF_Q_TYPES, [_OTYPE_TO_QTYPE[d.otype] for d in queues]),
            ]
        ]

    def inquire_q_status(self, req: Request) -> Reply:
        pattern = req.string(C.MQCA_Q_NAME)
        assert pattern is not None
        kind = req.integer(K.MQIACF_Q_STATUS_TYPE, K.MQIACF_Q_STATUS)
        if kind not in (K.MQIACF_Q_STATUS, K.MQIACF_Q_HANDLE):
            raise CommandFailedError(
                K.MQRCCF_ATTR_VALUE_ERROR, f"StatusType {kind} is not valid", K.MQIACF_Q_STATUS_TYPE
            )
        wanted = req.int_list(K.MQIACF_Q_STATUS_ATTRS)
        self._no_extra(req, filters=True)
        queues = [d for d in self._admin("list_objects", QLOCAL) if matches_generic(pattern, d.name)]
        if not queues:
            raise CommandFailedError(C.MQRC_UNKNOWN_OBJECT_NAME, "no local queue matches")
        f = req.filters[0] if req.filters else None
        keep = None if wanted is None or K.MQIACF_ALL in wanted else set(wanted)
        if keep is not None and f is not None:
            keep.add(f.Parameter)  # the filtered attribute is returned too
        bodies: Reply = []
        for d in sorted(queues, key=lambda x: x.name):
            if kind == K.MQIACF_Q_STATUS:
                st = self._admin("queue_status", d.name)
                body: list[Param] = [
                    attr_value_to_pcf(C.MQCA_Q_NAME, d.name, 48),
                    MQCFIN(K.MQIACF_Q_STATUS_TYPE, K.MQIACF_Q_STATUS),
                ]
                fields: list[tuple[int, Any, int]] = [
                    (C.MQIA_CURRENT_Q_DEPTH, st["CURDEPTH"], 0),
                    (C.MQIA_OPEN_INPUT_COUNT, st["IPPROCS"], 0),
                    (C.MQIA_OPEN_OUTPUT_COUNT, st["OPPROCS"], 0),
                    (K.MQIACF_UNCOMMITTED_MSGS, st["UNCOM"], 0),
                    (K.MQIACF_OLDEST_MSG_AGE, st.get("MSGAGE", 0), 0),
                    (K.MQCACF_LAST_GET_DATE, st.get("LGETDATE", ""), 12),
                    (K.MQCACF_LAST_GET_TIME, st.get("LGETTIME", ""), 8),
                    (K.MQCACF_LAST_PUT_DATE, st.get("LPUTDATE", ""), 12),
                    (K.MQCACF_LAST_PUT_TIME, st.get("LPUTTIME", ""), 8),
                ]
                full = [attr_value_to_pcf(s, v, n) for s, v, n in fields]
                if f is None or passes_filter(body + full, f):
                    bodies.append(body + [p for p in full if keep is None or p.Parameter in keep])
            else:
                for h in self._admin("handle_status", d.name):
                    inp = {"EXCL": K.MQQSO_EXCLUSIVE, "SHARED": K.MQQSO_SHARED}.get(h["INPUT"], K.MQQSO_NO)

                    def yes(key: str, hs: dict[str, Any] = h) -> int:
                        return K.MQQSO_YES if hs[key] == "YES" else K.MQQSO_NO

                    hfields: list[tuple[int, Any, int]] = [
                        (K.MQCACF_APPL_TAG, h["APPLTAG"], 28),
                        (K.MQIACF_PROCESS_ID, h["PID"], 0),
                        (K.MQIACF_OPEN_INPUT_TYPE, inp, 0),
                        (K.MQIACF_OPEN_OUTPUT, yes("OUTPUT"), 0),
                        (K.MQIACF_OPEN_BROWSE, yes("BROWSE"), 0),
                        (K.MQIACF_OPEN_INQUIRE, yes("INQUIRE"), 0),
                        (K.MQIACF_OPEN_SET, yes("SET"), 0),
                        (K.MQIACF_OPEN_OPTIONS, h["OPENOPTS"], 0),
                        (K.MQIACF_UOW_STATE, K.MQUOWST_ACTIVE if h["UOW"] else K.MQUOWST_NONE, 0),
                        (K.MQCACF_USER_IDENTIFIER, h.get("USERID", ""), 12),
                        (K.MQIACF_HANDLE_STATE, K.MQHSTATE_ACTIVE if h.get("HSTATE") == "ACTIVE" else 0, 0),
                    ]
                    hbody: list[Param] = [
                        attr_value_to_pcf(C.MQCA_Q_NAME, d.name, 48),
                        MQCFIN(K.MQIACF_Q_STATUS_TYPE, K.MQIACF_Q_HANDLE),
                    ]
                    hfull = [attr_value_to_pcf(s, v, n) for s, v, n in hfields]
                    if f is None or passes_filter(hbody + hfull, f):
                        bodies.append(hbody + [p for p in hfull if keep is None or p.Parameter in keep])
        if not bodies:  # handles asked for, none open: IBM replies with no data and no error
            return []
        return bodies

    def inquire_q_mgr(self, req: Request) -> Reply:
        wanted = req.int_list(K.MQIACF_Q_MGR_ATTRS)
        self._no_extra(req)
        d = self._admin("lookup", QMGR, self._qm.name)
        return [self._describe(d, wanted, QMGR)]

    def change_q_mgr(self, req: Request) -> Reply:
        req.integer(K.MQIACF_FORCE)
        attrs = req.attributes(QMGR)
        if attrs:
            self._admin("alter_qmgr", attrs)
        return []

    def create_process(self, req: Request) -> Reply:
        name = req.string(C.MQCA_PROCESS_NAME)
        assert name is not None
        replace = self._replace(req)
        self._admin("define", PROCESS, name, req.attributes(PROCESS), replace=replace)
        return []

    # like copy_q in shape; a process has one type, so no type checks and its own parameter names
    def copy_process(self, req: Request) -> Reply:
        src = req.string(K.MQCACF_FROM_PROCESS_NAME)
        dst = req.string(K.MQCACF_TO_PROCESS_NAME)
        assert src is not None and dst is not None
        replace = self._replace(req)
        attrs = req.attributes(PROCESS)
        if self._admin("lookup", PROCESS, src) is None:
            raise CommandFailedError(
                C.MQRC_UNKNOWN_OBJECT_NAME, f"process {src} does not exist", K.MQCACF_FROM_PROCESS_NAME
            )
        self._admin("define", PROCESS, dst, attrs, like=src, replace=replace)
        return []

    def change_process(self, req: Request) -> Reply:
        name = req.string(C.MQCA_PROCESS_NAME)
        assert name is not None
        self._admin("alter", PROCESS, name, req.attributes(PROCESS))
        return []

    def delete_process(self, req: Request) -> Reply:
        name = req.string(C.MQCA_PROCESS_NAME)
        assert name is not None
        self._no_extra(req)
        self._admin("delete", PROCESS, name)
        return []

    def inquire_process(self, req: Request) -> Reply:
        pattern = req.string(C.MQCA_PROCESS_NAME)
        assert pattern is not None
        wanted = req.int_list(K.MQIACF_PROCESS_ATTRS)
        self._no_extra(req, filters=True)
        found = [d for d in self._admin("list_objects", PROCESS) if matches_generic(pattern, d.name)]
        if not found:
            raise CommandFailedError(C.MQRC_UNKNOWN_OBJECT_NAME, "no process matches")
        return self._filtered(req, sorted(found, key=lambda x: x.name), wanted)

    def inquire_process_names(self, req: Request) -> Reply:
        pattern = req.string(C.MQCA_PROCESS_NAME)
        assert pattern is not None
        self._no_extra(req)
        names = [
            d.name.encode().ljust(48) for d in self._admin("list_objects", PROCESS) if matches_generic(pattern, d.name)
        ]
        return [[MQCFSL(K.MQCACF_PROCESS_NAMES, sorted(names), 0, 48)]]

    # -- connection authentication and authority records ----------------------------------------------

    @staticmethod
    def _no_extra(req: Request, filters: bool = False) -> None:
        if req.filters and not filters:
            raise CommandFailedError(K.MQRCCF_FILTER_ERROR, "this command takes no filter", req.filters[0].Parameter)
        for pid, p in req.params.items():
            if pid not in req.used:
                reason = (
                    K.MQRCCF_CFST_PARM_ID_ERROR
                    if isinstance(p, (MQCFST, MQCFSL, MQCFBS))
                    else K.MQRCCF_CFIN_PARM_ID_ERROR
                )
                raise CommandFailedError(reason, f"parameter {pid} is not valid for this command", pid)


_HANDLERS: dict[int, Callable[[CommandServer, Request], Reply]] = {
    K.MQCMD_PING_Q_MGR: CommandServer.ping_q_mgr,
    K.MQCMD_CREATE_Q: CommandServer.create_q,
    K.MQCMD_COPY_Q: CommandServer.copy_q,
    K.MQCMD_CHANGE_Q: CommandServer.change_q,
    K.MQCMD_DELETE_Q: CommandServer.delete_q,
    K.MQCMD_CLEAR_Q: CommandServer.clear_q,
    K.MQCMD_INQUIRE_Q: CommandServer.inquire_q,
    K.MQCMD_INQUIRE_Q_NAMES: CommandServer.inquire_q_names,
    K.MQCMD_INQUIRE_Q_STATUS: CommandServer.inquire_q_status,
    K.MQCMD_INQUIRE_Q_MGR: CommandServer.inquire_q_mgr,
    K.MQCMD_CHANGE_Q_MGR: CommandServer.change_q_mgr,
    M.MQCMD_RESET_Q_MGR: CommandServer.reset_q_mgr,
    K.MQCMD_CREATE_PROCESS: CommandServer.create_process,
    K.MQCMD_COPY_PROCESS: CommandServer.copy_process,
    K.MQCMD_CHANGE_PROCESS: CommandServer.change_process,
    K.MQCMD_DELETE_PROCESS: CommandServer.delete_process,
    K.MQCMD_INQUIRE_PROCESS: CommandServer.inquire_process,
    K.MQCMD_INQUIRE_PROCESS_NAMES: CommandServer.inquire_process_names,
    **CONNECTION_HANDLERS,  # Inquire Connection (``_connection``)
    **NAMELIST_HANDLERS,  # Create / Copy / Change / Delete / Inquire Namelist, Inquire Namelist Names (``_namelist``)
    **_authinfo.HANDLERS,  # AUTHINFO objects and Refresh Security (``_authinfo``)
    # the object authority manager (``_authrec``)
    K.MQCMD_SET_AUTH_REC: _authrec.set_auth_rec,
    _authrec.MQCMD_DELETE_AUTH_REC: _authrec.delete_auth_rec,
    _authrec.MQCMD_INQUIRE_AUTH_RECS: _authrec.inquire_auth_recs,
    _authrec.MQCMD_INQUIRE_ENTITY_AUTH: _authrec.inquire_entity_auth,
}
_HANDLERS.update(CHANNEL_HANDLERS)  # Inquire Channel, Channel Names, Channel Status (_channels.py)
_HANDLERS.update(_chlauth.HANDLERS)  # Set / Inquire Channel Authentication Records (_chlauth.py)
_HANDLERS.update(_pubsub.HANDLERS)  # publish/subscribe: subscriptions and topics
