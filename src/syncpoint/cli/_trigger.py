"""``syncpoint runmqtrm [-m QMgrName] [-q InitQName]``: the trigger monitor, as IBM's runmqtrm.

It connects to the queue manager (the running server when there is one, else the embedded queue manager),
holds the initiation queue open for input and starts the application of each trigger message. Reports go to
standard output. Exit codes: 0 the queue manager ended (or SIGTERM / Ctrl-C), 10 interrupted by an error,
20 could not run.

Implements: seed 001, reference/triggering.md (runmqtrm's invocation).
"""

from __future__ import annotations

import datetime
import signal
from types import FrameType
from typing import Annotated

import typer

from syncpoint.mqi import MQMIError
from syncpoint.trigger import DEFAULT_INITQ, EXIT_NORMAL, EXIT_NOT_RUN, RULE, TriggerMonitor

from ._connect import connect_running, implied_queue_manager


def _say(message: str) -> None:
    """A report line as IBM's runmqtrm prints it: the local date and time, " : ", the message (the rule and the
    blank line before "Waiting for a trigger message" bare)."""
    if message and message != RULE:
        message = f"{datetime.datetime.now():%m/%d/%Y  %I:%M:%S %p} : {message}"
    print(message, flush=True)


def _default_qmgr() -> str | None:
    """The queue manager meant when -m is not given: the default queue manager (``crtmqm -q``), else the only
    one under $SYNCPOINT_HOME."""
    name, root, names = implied_queue_manager()
    if name is not None:
        return name
    if not names:
        _say(f"No queue manager exists under {root}; create one with 'syncpoint crtmqm'.")
    else:
        _say(f"{len(names)} queue managers exist under {root}; name one with -m.")
    return None


def register(app: typer.Typer) -> None:
    @app.command()
    def runmqtrm(
        m: Annotated[str | None, typer.Option("-m", help="queue manager (default: the default queue manager)")] = None,
        q: Annotated[str, typer.Option("-q", help="initiation queue")] = DEFAULT_INITQ,
    ) -> None:
        """Trigger monitor: start the application named by each trigger message on an initiation queue."""
        qm_name = m.strip() if m and m.strip() else _default_qmgr()
        if qm_name is None:
            raise typer.Exit(EXIT_NOT_RUN)
        initq = q.strip() or DEFAULT_INITQ
        try:
            qm = connect_running(qm_name, appl_name="runmqtrm")
        except MQMIError as e:
            _say(f"The trigger monitor cannot connect to queue manager {qm_name}: {e}")
            raise typer.Exit(EXIT_NOT_RUN) from None
        monitor = TriggerMonitor(qm, initq, report=_say)

        def _end(signum: int, frame: FrameType | None) -> None:
            raise SystemExit(EXIT_NORMAL)

        signal.signal(signal.SIGTERM, _end)
        try:
            code = monitor.run()
        except (KeyboardInterrupt, SystemExit):
            # told to stop: a trigger message got but not yet acted on stays on the initiation queue
            code = EXIT_NORMAL
            try:
                qm.backout()
            except MQMIError:
                pass
            monitor.close()
        try:
            qm.disconnect()
        except MQMIError:
            pass
        raise typer.Exit(code)
