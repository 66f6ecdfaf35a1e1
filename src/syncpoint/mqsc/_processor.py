"""The MQSC command processor: runs parsed commands through a ``syncpoint.client`` connection and answers in
runmqsc's format.

Theory of operation: :meth:`MqscProcessor.run` reads commands (:mod:`._parser`), echoes each one numbered, parses it
(:mod:`._commands`) and, unless verifying, executes it with the connection's administrative verbs
(``qm.admin("define", …)``), so the same code works on an embedded queue manager and over the network. Each command
answers with IBM's AMQ messages; DISPLAY lists ``KEY(VALUE)`` pairs two a line. A syntax error is reported
(AMQ8405I, then AMQ8427I with the valid syntax) and the next command runs; a command syncpoint does not support is
reported and the next runs; only a lost queue manager stops the run. The trailer counts what was read, what had a
syntax error and what could not be processed; the exit code is 0 when everything ran, 10 when something did not, 20
when the run was stopped.

Messages syncpoint adds to IBM's (no IBM equivalent): AMQ8490E (not supported), AMQ8491W (an IBM attribute
syncpoint does not act on: kept and shown, or ignored), AMQ8492I (REFRESH QMGR TYPE(EXPIRY) done).

Implements: reference/mqsc.md, "Responses" and runmqsc's ``-v`` / ``-e`` (the control commands' table).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from syncpoint.mqi import MQMIError, is_generic, matches_generic, reason_name
from syncpoint.mqi import constants as C
from syncpoint.mqi.objects import (
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
    SYSTEM_DEFAULT_AUTHINFO,
    Definition,
)

from ._attrs import IGNORED_ATTRIBUTES, definition_pairs, format_pairs
from ._authrec import AUTHREC, ENTAUTH, run_authrec_command
from ._channel import CHANNEL_VERBS, run_channel_command
from ._chlauth import CHLAUTH, run_chlauth_command
from ._commands import CHSTATUS, CONN, QMSTATUS, QSTATUS, QUEUE, SECURITY, Request, Where, parse_command, valid_syntax
from ._events import CONFIGEV_OBJECTS, mqcmd_of
from ._parser import MqscSyntaxError, SourceCommand, read_commands
from ._pubsub import PUBSUB_OBJECTS, run_pubsub_command
from ._qsg import INDOUBT, THREAD, run_qsg_command
from ._status import (
    connection_handle_pairs,
    connection_id,
    connection_pairs,
    handle_status_pairs,
    qmgr_status_pairs,
    queue_status_pairs,
)

if TYPE_CHECKING:
    from syncpoint.client import QueueManager

__all__ = ["MqscProcessor", "Response", "Summary"]

_PRODUCT = "syncpoint"
_DEFAULT_OBJECT = {
    QLOCAL: "SYSTEM.DEFAULT.LOCAL.QUEUE",
    QMODEL: "SYSTEM.DEFAULT.MODEL.QUEUE",
    QALIAS: "SYSTEM.DEFAULT.ALIAS.QUEUE",
    QREMOTE: "SYSTEM.DEFAULT.REMOTE.QUEUE",
    PROCESS: "SYSTEM.DEFAULT.PROCESS",
    NAMELIST: "SYSTEM.DEFAULT.NAMELIST",
    AUTHINFO: SYSTEM_DEFAULT_AUTHINFO,
}
# reasons after which the connection is gone: the run stops (exit code 20)
_FATAL = frozenset(
    {
        C.MQRC_CONNECTION_BROKEN,
        C.MQRC_Q_MGR_NOT_AVAILABLE,
        C.MQRC_Q_MGR_STOPPING,
        C.MQRC_Q_MGR_QUIESCING,
        C.MQRC_HCONN_ERROR,
        C.MQRC_CONNECTION_QUIESCING,
        C.MQRC_CONNECTION_STOPPING,
    }
)


@dataclass(slots=True)
class Response:
    """The answer to one command: its lines and whether it succeeded."""

    lines: list[str] = field(default_factory=list)
    ok: bool = True
    fatal: bool = False
    # DISPLAY: each object's (KEYWORD, value) pairs as shown, for answers that are not text (the REST API's
    # runCommandJSON); value None is a bare word (NOTRIGGER)
    objects: list[list[tuple[str, str | None]]] = field(default_factory=list)


@dataclass(slots=True)
class Summary:
    """What a run did: commands read, with a syntax error, that could not be processed; stopped early."""

    read: int = 0
    syntax_errors: int = 0
    failed: int = 0
    stopped: bool = False
    verify: bool = False

    @property
    def exit_code(self) -> int:
        if self.stopped:
            return 20
        return 10 if self.syntax_errors or self.failed else 0

    def trailer(self) -> list[str]:
        read = {0: "No MQSC commands read.", 1: "One MQSC command read."}.get(
            self.read, f"{self.read} MQSC commands read."
        )
        syntax = {0: "No commands have a syntax error.", 1: "One command has a syntax error."}.get(
            self.syntax_errors, f"{self.syntax_errors} commands have a syntax error."
        )
        lines = [read, syntax]
        if not self.verify:
            lines.append(
                {
                    0: "All valid MQSC commands were processed.",
                    1: "One valid MQSC command could not be processed.",
                }.get(self.failed, f"{self.failed} valid MQSC commands could not be processed.")
            )
        return lines


class MqscProcessor:
    """Runs MQSC against queue manager connection ``qm`` (None with ``verify``: syntax only)."""

    def __init__(self, qm: QueueManager | None, *, verify: bool = False, echo: bool = True) -> None:
        if qm is None and not verify:
            raise ValueError("a queue manager connection is needed unless verifying")
        self.qm = qm
        self.verify = verify
        self.echo = echo

    # -- a whole input -----------------------------------------------------------------------------------
    def run(self, lines: Iterable[str], write: Callable[[str], None]) -> Summary:
        """Run every command in ``lines``; ``write`` gets each output line. Stops at END or end of input."""
        summary = Summary(verify=self.verify)
        for cmd in read_commands(lines):
            summary.read += 1
            if self.echo:
                self._echo(summary.read, cmd, write)
            try:
                req = parse_command(cmd.text)
                req.text = cmd.text
            except MqscSyntaxError as e:
                summary.syntax_errors += 1
                for line in syntax_error_lines(cmd.text, e):
                    write(line)
                continue
            if req.verb == "END":
                break
            if self.verify:
                # what would not run, or would be ignored, is worth knowing while checking a script
                for line in self._notices(req):
                    write(line)
                continue
            response = self.execute_request(req)
            for line in response.lines:
                write(line)
            if not response.ok:
                summary.failed += 1
            if response.fatal:
                summary.stopped = True
                break
        write("")
        for line in summary.trailer():
            write(line)
        return summary

    @staticmethod
    def _echo(n: int, cmd: SourceCommand, write: Callable[[str], None]) -> None:
        for i, line in enumerate(cmd.lines):
            write(f"{n:6d} : {line}" if i == 0 else f"       : {line}")

    # -- one command -------------------------------------------------------------------------------------
    def execute(self, text: str) -> Response:
        """Parse and run one command given as text (continuations joined), e.g. for PCF's Escape command."""
        try:
            req = parse_command(text)
            req.text = text
        except MqscSyntaxError as e:
            return Response(syntax_error_lines(text, e), ok=False)
        if req.verb == "END" or self.verify:
            return Response()
        return self.execute_request(req)

    @staticmethod
    def _notices(req: Request) -> list[str]:
        """AMQ8490E for a command syncpoint does not support, AMQ8491W for each IBM attribute it ignores."""
        if req.unsupported is not None:
            return [f"AMQ8490E: {_PRODUCT} does not support {req.unsupported}; the command was not run."]
        return [
            f"AMQ8491W: {kw} is an IBM MQ attribute that {_PRODUCT} does not act on; "
            + ("it was ignored." if kw in IGNORED_ATTRIBUTES[req.otype] else "it is kept and shown by DISPLAY.")
            for kw in req.ignored
        ]

    def execute_request(self, req: Request) -> Response:
        out = self._run_request(req)
        if out.ok and req.text:
            self._command_event(req)  # CMDEV: IBM's Command event (2412) for a command that ran
        return out

    def _command_event(self, req: Request) -> None:
        """Report the command to the queue manager, which writes IBM's Command event when CMDEV asks for it
        (CommandData: CommandMQSC, the command's text). The command never fails for it."""
        command = mqcmd_of(req.verb, req.otype)
        try:
            self._admin("command_event", "MQSC", command, [[C.MQCACF_COMMAND_MQSC, req.text]], req.verb == "DISPLAY")
        except (MQMIError, OSError, EOFError):
            pass  # no event (e.g. a queue manager that went away); the command's own answer stands

    def _run_request(self, req: Request) -> Response:
        if req.unsupported is not None:
            return Response(self._notices(req), ok=False)
        out = Response(self._notices(req))
        try:
            if req.otype == CHSTATUS or (req.otype == CHANNEL and req.verb in CHANNEL_VERBS):
                out.ok = run_channel_command(self._qm, req, out.lines, format_pairs)
                return out
            if req.otype in PUBSUB_OBJECTS:  # topics, subscriptions, their status (``_pubsub``)
                out.ok = run_pubsub_command(self._admin, self._qm.name, req, out.lines, format_pairs)
                return out
            if req.otype == CHLAUTH:  # channel authentication records (``_chlauth``)
                out.ok = run_chlauth_command(self._admin, req, out.lines, format_pairs)
                return out
            if req.otype in (AUTHREC, ENTAUTH):  # the object authority manager (``_authrec``)
                out.ok = run_authrec_command(self._admin, req, out.lines, format_pairs)
                return out
            if req.otype in (THREAD, INDOUBT):  # DISPLAY THREAD, RESOLVE INDOUBT (``_qsg``)
                out.ok = run_qsg_command(self._admin, self._qm.name, req, out.lines, format_pairs)
                return out
            handler = getattr(self, "_" + req.verb.lower())
            handler(req, out)
        except MQMIError as e:
            out.ok = False
            out.lines.extend(_error_lines(e, req))
            out.fatal = e.reason in _FATAL
        except (OSError, EOFError) as e:  # a remote queue manager that went away mid-command
            out.ok = False
            out.fatal = True
            out.lines.append(f"AMQ8146E: {_PRODUCT} queue manager not available: {e}")
        return out

    @property
    def _qm(self) -> QueueManager:
        assert self.qm is not None
        return self.qm

    def _admin(self, verb: str, *args: Any, **kwargs: Any) -> Any:
        return self._qm.admin(verb, *args, **kwargs)

    def _member(self) -> bool:
        """Whether the queue manager is a member of a queue-sharing group (asked once a processor)."""
        member = getattr(self, "_is_member", None)
        if member is None:
            member = self._is_member = bool(self._admin("qsg_name"))
        return bool(member)

    # -- DEFINE / ALTER / DELETE / CLEAR / REFRESH -------------------------------------------------------
    def _define(self, req: Request, out: Response) -> None:
        assert req.name is not None
        like = req.like
        if like is None:
            # IBM: attributes not given come from the type's default object (so REPLACE resets the others)
            default = _DEFAULT_OBJECT.get(req.otype)
            if default is not None and self._admin("lookup", req.otype, default) is not None:
                like = default
        self._admin("define", req.otype, req.name, req.attrs, like=like, replace=req.replace)
        out.lines.append(_done(req.otype, "created"))

    def _alter(self, req: Request, out: Response) -> None:
        if req.otype == QMGR:
            self._admin("alter_qmgr", req.attrs)
            out.lines.append(f"AMQ8005I: {_PRODUCT} queue manager changed.")
            return
        assert req.name is not None
        self._admin("alter", req.otype, req.name, req.attrs)
        out.lines.append(_done(req.otype, "changed"))

    def _delete(self, req: Request, out: Response) -> None:
        assert req.name is not None
        if req.qsgdisp is not None and req.qsgdisp != "QMGR":  # queue-sharing groups: DELETE … QSGDISP(GROUP)
            self._admin("delete", req.otype, req.name, purge=req.purge, qsgdisp=req.qsgdisp)
        else:
            self._admin("delete", req.otype, req.name, purge=req.purge)
        out.lines.append(_done(req.otype, "deleted"))

    def _clear(self, req: Request, out: Response) -> None:
        assert req.name is not None
        self._admin("clear", req.name)
        out.lines.append(f"AMQ8022I: {_PRODUCT} queue cleared.")

    def _refresh(self, req: Request, out: Response) -> None:
        if req.otype == SECURITY:  # REFRESH SECURITY: the CONNAUTH settings in force now
            self._admin("refresh_security", req.type_filter)
            out.lines.append(f"AMQ8560I: {_PRODUCT} security cache refreshed.")
            return
        if req.type_filter == "CONFIGEV":  # a Refresh Object configuration event for each object (``CONFIGEV``)
            self._admin("refresh_config", list(CONFIGEV_OBJECTS[req.attrs.get("OBJECT", "ALL")]), req.name or "*")
            out.lines.append("AMQ8559I: Refresh Queue Manager accepted.")
            return
        n = int(self._admin("refresh_expiry", req.name or "*"))
        what = "One expired message was" if n == 1 else f"{n} expired messages were"
        out.lines.append(f"AMQ8492I: Refresh of expired messages complete. {what} discarded.")

    def _reset(self, req: Request, out: Response) -> None:
        """RESET QMGR TYPE(STATISTICS): the statistics collected so far are written now (``_reset``)."""
        self._admin("reset_statistics")
        out.lines.append(f"AMQ8733I: Reset {_PRODUCT} queue manager accepted.")

    # -- DISPLAY -----------------------------------------------------------------------------------------
    def _ping(self, req: Request, out: Response) -> None:
        self._admin("lookup", QMGR, "")  # a round trip to the queue manager
        out.lines.append(f"AMQ8415I: Ping {_PRODUCT} Queue Manager command complete.")

    def _display(self, req: Request, out: Response) -> None:
        if req.otype == QSTATUS:
            self._display_qstatus(req, out)
            return
        if req.otype == QMSTATUS:
            pairs = qmgr_status_pairs(self._qm.name, self._admin("qmgr_status"), req.wanted)
            if _where_ok(req.where, pairs, None):
                out.lines.append("AMQ8705I: Display Queue Manager Status Details.")
                out.lines.extend(format_pairs(pairs))
                out.objects.append(pairs)
            return
        if req.otype == CONN:
            self._display_conn(req, out)
            return
        if req.otype == QMGR:
            qmgr = self._admin("lookup", QMGR, "")
            pairs = definition_pairs(qmgr, req.wanted, qmgr_name=self._qm.name)
            if _where_ok(req.where, pairs, qmgr):
                out.lines.append("AMQ8408I: Display Queue Manager details.")
                out.lines.extend(format_pairs(pairs))
                out.objects.append(pairs)
            return
        defs = self._definitions(req)
        shown = 0
        for d, disp in self._with_dispositions(req, defs):
            status = None
            if d.otype == QLOCAL and _needs_status(req) and disp != "GROUP":
                status = self._admin("queue_status", d.name)
            pairs = definition_pairs(d, req.wanted, status)
            if req.where is not None:
                every = definition_pairs(d, None, status) + ([("QSGDISP", disp)] if disp is not None else [])
                if not _where_ok(req.where, every, d):
                    continue
            if disp is not None:
                pairs.insert(min(2, len(pairs)), ("QSGDISP", disp))
            shown += 1
            out.lines.append(_DISPLAY_HEAD.get(d.otype, "AMQ8409I: Display Queue details."))
            out.lines.extend(format_pairs(pairs))
            out.objects.append(pairs)
        if not shown and (req.where is None or not defs):
            out.ok = False
            out.lines.append(f"AMQ8147E: {_PRODUCT} object {req.name} not found.")

    def _with_dispositions(self, req: Request, defs: list[Definition]) -> list[tuple[Definition, str | None]]:
        """The objects DISPLAY shows, each with its QSGDISP (None outside a group). A member shows every object's
        QSGDISP, as z/OS does; QSGDISP(…) selects: LIVE the objects this member holds (QMGR, COPY, SHARED), ALL
        also the group's GROUP definitions (each beside its COPY), GROUP only those, QMGR / COPY / SHARED
        only that kind (reference/queue-sharing-groups.md)."""
        if req.qsgdisp is None and not self._member():
            return [(d, None) for d in defs]
        own: list[tuple[Definition, str | None]] = [(d, str(self._admin("qsgdisp", d.otype, d.name))) for d in defs]
        if req.qsgdisp in (None, "LIVE"):
            return own
        if req.qsgdisp not in ("ALL", "GROUP"):
            return [(d, disp) for d, disp in own if disp == req.qsgdisp]
        types = {d.otype for d in defs} | set(self._types(req))
        groups: list[tuple[Definition, str | None]] = [
            (d, "GROUP")
            for t in sorted(types)
            for d in self._admin("group_definitions", t)
            if (matches_generic(req.name or "", d.name) if req.generic else d.name == req.name)
        ]
        if req.qsgdisp == "GROUP":
            return groups
        order = {"GROUP": 0, "COPY": 1}  # a GROUP definition first, then its COPY (and any other object of the name)
        return sorted([*own, *groups], key=lambda e: (e[0].name, order.get(e[1] or "", 2)))

    def _types(self, req: Request) -> tuple[str, ...]:
        if req.otype == QUEUE:
            return QUEUE_TYPES if req.type_filter == "ALL" else tuple(t for t in QUEUE_TYPES if t == req.type_filter)
        return (req.otype,)

    def _definitions(self, req: Request) -> list[Definition]:
        assert req.name is not None
        types = self._types(req)
        if not req.generic:
            found = [self._admin("lookup", t, req.name) for t in types]
            return [d for d in found if d is not None]
        defs: list[Definition] = []
        for t in types:
            defs.extend(d for d in self._admin("list_objects", t) if matches_generic(req.name, d.name))
        return sorted(defs, key=lambda d: d.name)

    def _display_conn(self, req: Request, out: Response) -> None:
        assert req.name is not None
        started = float(self._admin("qmgr_status")["STARTED"])
        shown = 0
        for c in self._admin("connection_status"):
            if not matches_generic(req.name, connection_id(started, int(c["HCONN"]))):
                continue
            pairs = connection_pairs(self._qm.name, started, c, req.wanted, req.type_filter)
            if req.where is not None and not _where_ok(req.where, connection_pairs(self._qm.name, started, c), None):
                continue
            shown += 1
            out.lines.append("AMQ8276I: Display Connection details.")
            # IBM: CONN, EXTCONN and TYPE each on a line of their own, then the pairs two a line; with
            # TYPE(HANDLE) or TYPE(ALL) each open object follows after a blank line
            out.lines.extend(f"   {k}({v})" for k, v in pairs[:3])
            out.lines.extend(format_pairs(pairs[3:]))
            if req.type_filter != "CONN":
                for handle in connection_handle_pairs(c, req.wanted):
                    out.lines.append("")
                    out.lines.extend(format_pairs(handle))
        if not shown and req.where is None:
            out.ok = False
            out.lines.append(f"AMQ8147E: {_PRODUCT} object {req.name} not found.")

    def _display_qstatus(self, req: Request, out: Response) -> None:
        assert req.name is not None
        if req.generic:
            names = [d.name for d in self._admin("list_objects", QLOCAL) if matches_generic(req.name, d.name)]
            if not names:
                out.ok = False
                out.lines.append(f"AMQ8147E: {_PRODUCT} object {req.name} not found.")
                return
        else:
            names = [req.name]
        for name in names:
            if req.type_filter == "HANDLE":
                handles = self._admin("handle_status", name)
                blocks = [handle_status_pairs(h, req.wanted) for h in handles]
                full = [handle_status_pairs(h) for h in handles]
            else:
                st = self._admin("queue_status", name)
                blocks = [queue_status_pairs(st, req.wanted)]
                full = [queue_status_pairs(st)]
            for pairs, all_pairs in zip(blocks, full, strict=True):
                if req.where is not None and not _where_ok(req.where, all_pairs, None):
                    continue
                out.lines.append("AMQ8450I: Display queue status details.")
                out.lines.extend(format_pairs(pairs))
                out.objects.append(pairs)


def _needs_status(req: Request) -> bool:
    wanted = set(req.wanted or ()) | ({req.where.keyword} if req.where else set())
    return req.wanted is None or bool(wanted & {"CURDEPTH", "IPPROCS", "OPPROCS"})


def _where_ok(where: Where | None, pairs: list[tuple[str, str | None]], d: Definition | None) -> bool:
    """WHERE(keyword op value) against the displayed values: numbers compare as numbers, words and names as
    text; LK / NL and EQ / NE with a trailing * match generically."""
    if where is None:
        return True
    actual: str | None = None
    for k, v in pairs:
        if k == where.keyword or (v is None and where.keyword in (k, "NO" + k, k.removeprefix("NO"))):
            actual = k if v is None else v
            break
    if actual is None:
        return False
    want = where.value.strip()
    op = where.op
    if op in ("LK", "NL") or (op in ("EQ", "NE") and is_generic(want)):
        hit = matches_generic(want, actual)
        return hit if op in ("LK", "EQ") else not hit
    left: Any = actual.strip()
    right: Any = want
    if _is_int(left) and _is_int(right):
        left, right = int(left), int(right)
    result: bool = {
        "EQ": left == right,
        "NE": left != right,
        "LT": left < right,
        "GT": left > right,
        "LE": left <= right,
        "GE": left >= right,
    }[op]
    return result


def _is_int(s: str) -> bool:
    return s.lstrip("+-").isdigit()


_DISPLAY_HEAD = {
    PROCESS: "AMQ8407I: Display Process details.",
    NAMELIST: "AMQ8550I: Display namelist details.",
    CHANNEL: "AMQ8414I: Display Channel details.",
    AUTHINFO: "AMQ8566I: Display authentication information details.",
}


def _done(otype: str, what: str) -> str:
    if otype == AUTHINFO:
        code = {"created": "AMQ8563I", "deleted": "AMQ8564I", "changed": "AMQ8565I"}[what]
        return f"{code}: {_PRODUCT} authentication information object {what}."
    if otype == CHANNEL:
        code = {"created": "AMQ8014I", "deleted": "AMQ8015I", "changed": "AMQ8016I"}[what]
        return f"{code}: {_PRODUCT} channel {what}."
    if otype == PROCESS:
        code = {"created": "AMQ8010I", "deleted": "AMQ8011I", "changed": "AMQ8012I"}[what]
        return f"{code}: {_PRODUCT} process {what}."
    if otype == NAMELIST:
        code = {"created": "AMQ8552I", "deleted": "AMQ8553I", "changed": "AMQ8551I"}[what]
        return f"{code}: {_PRODUCT} namelist {what}."
    code = {"created": "AMQ8006I", "deleted": "AMQ8007I", "changed": "AMQ8008I"}[what]
    return f"{code}: {_PRODUCT} queue {what}."


def _error_lines(e: MQMIError, req: Request) -> list[str]:
    """IBM's message for a failed command, then the reason and syncpoint's sentence about it."""
    r = e.reason
    name = req.name or ""
    if r == C.MQRC_UNKNOWN_OBJECT_NAME:
        missing = req.like if req.like and "LIKE" in (e.detail or "") else name
        if req.otype == QMGR and req.attrs.get("CONNAUTH"):  # ALTER QMGR CONNAUTH(name): the AUTHINFO named
            missing = str(req.attrs["CONNAUTH"])
        first = f"AMQ8147E: {_PRODUCT} object {missing} not found."
    elif r == C.MQRC_OBJECT_IN_USE:
        first = f"AMQ8148E: {_PRODUCT} object in use."
    elif r in (C.MQRC_OBJECT_ALREADY_EXISTS,) or (r == C.MQRC_OBJECT_TYPE_ERROR and req.verb == "DEFINE"):
        first = f"AMQ8150E: {_PRODUCT} object already exists."
    elif r == C.MQRC_Q_NOT_EMPTY:
        first = f"AMQ8143E: {_PRODUCT} queue {name} not empty."
    elif r == C.MQRC_OBJECT_NAME_ERROR:
        first = "AMQ8424E: Error detected in a name keyword."
    elif r in _FATAL:
        first = f"AMQ8146E: {_PRODUCT} queue manager not available."
    else:
        first = f"AMQ8101E: {_PRODUCT} error ({r}) has occurred."
    detail = f"   {reason_name(r)} ({r})"
    if e.detail:
        detail += f": {e.detail}"
    return [first, detail]


def syntax_error_lines(text: str, e: MqscSyntaxError) -> list[str]:
    """IBM's answer to a syntax error: AMQ8405I with the command up to where the error was found (syncpoint adds
    a line saying what is wrong), then AMQ8427I with the valid syntax of the command when its verb is known."""
    segment = text[: max(e.end, 1)].rstrip()
    lines = [
        "AMQ8405I: Syntax error detected at or near end of command segment below:-",
        segment,
        f"   {e.reason}.",
    ]
    if e.verb:
        lines += ["", "AMQ8427I: Valid syntax for the MQSC command:", "", *valid_syntax(e.verb, e.noun), ""]
    return lines


def connect_failure_lines(qmgr: str, e: MQMIError) -> list[str]:
    """runmqsc's answer when it cannot connect (the run stops with exit code 20)."""
    named = f"{qmgr} " if qmgr else ""
    if e.reason == C.MQRC_Q_MGR_NAME_ERROR:
        first = f"AMQ8118E: {_PRODUCT} queue manager {named}does not exist."
    else:
        first = f"AMQ8146E: {_PRODUCT} queue manager {named}not available."
    return [first, f"   {reason_name(e.reason)} ({e.reason})" + (f": {e.detail}" if e.detail else "")]
