"""``syncpoint runmqdlq [QName [QMgrName]] < rules``: the dead-letter queue handler, as IBM's runmqdlq.

The rules table is read from standard input and validated whole before anything is done: every error is printed
with its line number and class, and a table with errors ends the command with exit code 20 having processed
nothing. Reports go to standard output. Positional QName / QMgrName override the table's INPUTQ / INPUTQM; a blank
queue name means the queue manager's DEADQ. Started by a trigger monitor, the first argument is the MQTMC2
trigger message: the queue and queue manager named in it are processed.

Implements: seed 003, reference/dlq-handler.md (runmqdlq's invocation).
"""

from __future__ import annotations

import signal
import sys
from types import FrameType
from typing import Annotated

import typer

from syncpoint.dlq import DeadLetterHandler, RulesTableError, parse_rules
from syncpoint.mqi import MQTMC2, MQMIError, blank_strip
from syncpoint.mqi import constants as C

from ._connect import connect_running, implied_queue_manager

_EXIT_TABLE = 20
_EXIT_MQ = 20
_ENDING = frozenset({C.MQRC_Q_MGR_QUIESCING, C.MQRC_Q_MGR_STOPPING, C.MQRC_CONNECTION_QUIESCING})


def _from_trigger(arg: str) -> tuple[str, str] | None:
    """QName and QMgrName of an MQTMC2 passed as the first argument by a trigger monitor."""
    raw = arg.encode("utf-8", "surrogateescape")
    if not raw.startswith(b"TMC ") or len(raw) < MQTMC2.size() - 48:
        return None
    tmc = MQTMC2.unpack(raw.ljust(MQTMC2.size()))
    return blank_strip(tmc.QName), blank_strip(tmc.QMgrName)


def _default_qmgr() -> str:
    """The queue manager meant by a blank name: the default queue manager (``crtmqm -q``), else the only one
    under $SYNCPOINT_HOME."""
    name, root, names = implied_queue_manager()
    if name is not None:
        return name
    where = f"under {root}"
    if not names:
        raise SystemExit(_fail(f"No queue manager exists {where}; create one with 'syncpoint crtmqm'."))
    raise SystemExit(_fail(f"{len(names)} queue managers exist {where}; name one (INPUTQM or the second argument)."))


def _fail(message: str) -> int:
    print(message, flush=True)
    return _EXIT_MQ


_running: list[DeadLetterHandler] = []  # the handler a SIGTERM ends


def _terminate(signum: int, frame: FrameType | None) -> None:
    """SIGTERM: end at once while the handler waits for messages; while it acts on a message, after that
    message's unit of work (so the statistics it reports count every message it moved)."""
    if _running and not _running[0].waiting:
        _running[0].stop_requested = True
        return
    raise SystemExit(0)


def register(app: typer.Typer) -> None:
    @app.command(context_settings={"allow_extra_args": True, "ignore_unknown_options": True})
    def runmqdlq(
        ctx: typer.Context,
        qname: Annotated[str | None, typer.Argument(help="queue to process (blank: the queue manager's DEADQ)")] = None,
        qmgr: Annotated[str | None, typer.Argument(help="queue manager (blank: the default one)")] = None,
    ) -> None:
        """Dead-letter queue handler: process a queue with the rules table read from standard input."""
        # bytes, decoded here: a byte that is not UTF-8 becomes a rules-table error of its line, whatever the locale
        text = sys.stdin.buffer.read().decode("utf-8", "surrogateescape")
        try:
            table = parse_rules(text)
        except RulesTableError as e:
            for error in e.errors:
                print(f"Rules table error: {error}", flush=True)
            print(
                f"The rules table has {len(e.errors)} error(s); the dead-letter queue handler did not start.",
                flush=True,
            )
            raise typer.Exit(_EXIT_TABLE) from None
        trigger = _from_trigger(qname) if qname else None
        if trigger is not None:  # started by a trigger monitor: "<MQTMC2>" then the process's EnvData words
            qname, qmgr = trigger
        elif qmgr and _from_trigger(qmgr) is not None:  # ApplId "runmqdlq DLQ": the MQTMC2 names the manager
            qmgr = _from_trigger(qmgr)[1]  # type: ignore[index]
        elif ctx.args and _from_trigger(ctx.args[0]) is not None:
            pass  # ApplId "runmqdlq DLQ QM1": the names given win over the trigger message's; EnvData follows
        elif ctx.args:
            print(f"Unexpected arguments: {' '.join(ctx.args)}. Usage: runmqdlq [QName [QMgrName]] < rules", flush=True)
            raise typer.Exit(_EXIT_MQ)
        # positional arguments, even blank, override INPUTQ / INPUTQM; blank means DEADQ / the default one
        queue = qname if qname is not None else table.control.inputq
        qm_name = qmgr.strip() if qmgr is not None else table.control.inputqm
        if not qm_name:
            qm_name = _default_qmgr()
        signal.signal(signal.SIGTERM, _terminate)
        try:
            qm = connect_running(qm_name, appl_name="runmqdlq")
        except MQMIError as e:
            raise typer.Exit(_fail(f"Cannot connect to queue manager {qm_name}: {e}")) from None
        try:
            handler = DeadLetterHandler(qm, table, qname=queue, report=lambda s: print(s, flush=True))
            _running.append(handler)
            handler.run()
        except MQMIError as e:
            if e.reason in _ENDING:  # the queue manager is ending: a normal end, as for runmqtrm
                print(f"The queue manager {qm_name} is ending ({e.reason_name}).", flush=True)
                raise typer.Exit(0) from None
            print(f"The dead-letter queue handler ended: {e}", flush=True)
            try:
                qm.disconnect()
            except MQMIError:
                pass
            raise typer.Exit(_EXIT_MQ) from None
        qm.disconnect()
