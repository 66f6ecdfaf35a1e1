"""``syncpoint dlqmsg ACTION MSGID``: the dead-letter workbench's actions on one message, named by its MsgId, from
the command line (runmqdlq acts only on the messages its rules match, and its rules cannot name a MsgId).

``retry`` puts the message to the queue its MQDLH names (the MQDLH removed), ``move --to Q`` puts it whole on Q,
``discard`` removes it: each in one unit of work with the message's context passed, by the DLQ handler's own
actions (``syncpoint.console``'s workbench). A message that cannot go where it is sent stays on the dead-letter
queue; the command says why (IBM's reason) and ends with exit code 20, as runmqdlq's failures do.
"""

from __future__ import annotations

from typing import Annotated

import typer

from syncpoint.mqi import MQMIError

from ._connect import connect_running, implied_queue_manager

_EXIT_FAILED = 20


def register(app: typer.Typer) -> None:
    @app.command()
    def dlqmsg(
        action: Annotated[str, typer.Argument(help="retry, move or discard")],
        msg_id: Annotated[str, typer.Argument(metavar="MSGID", help="the message's MsgId: 48 hexadecimal digits")],
        to: Annotated[str, typer.Option("--to", help="move: the queue to move the message to")] = "",
        queue: Annotated[str, typer.Option("--queue", "-q", help="the dead-letter queue (default: DEADQ)")] = "",
        qmgr: Annotated[str, typer.Option("--qmgr", "-m", help="the queue manager (default: the default one)")] = "",
    ) -> None:
        """Retry, move or discard ONE message of the dead-letter queue, named by its MsgId."""
        from syncpoint.client import dead_letter_queue
        from syncpoint.console import ACTIONS, act, rule_for

        action = action.lower()
        try:
            raw = bytes.fromhex(msg_id)
            if len(raw) != 24:
                raise ValueError
        except ValueError:
            print(f"The MsgId is 48 hexadecimal digits, not {msg_id[:60]!r}.", flush=True)
            raise typer.Exit(_EXIT_FAILED) from None
        try:
            rule_for(action, to)
        except ValueError as e:
            print(f"{e} (actions: {', '.join(ACTIONS)}).", flush=True)
            raise typer.Exit(_EXIT_FAILED) from None
        name = qmgr or implied_queue_manager()[0] or ""
        try:
            qm = connect_running(name, appl_name="syncpoint dlqmsg")
        except MQMIError as e:
            print(f"Cannot connect to queue manager {name}: {e}", flush=True)
            raise typer.Exit(_EXIT_FAILED) from None
        try:
            dlq = queue or dead_letter_queue(qm)
            if not dlq:
                print(f"Queue manager {qm.name} has no dead-letter queue (DEADQ); name one with --queue.", flush=True)
                raise typer.Exit(_EXIT_FAILED)
            (outcome,) = act(qm, dlq, action, [raw], to)
        except MQMIError as e:
            print(f"The {action} failed: {e}", flush=True)
            raise typer.Exit(_EXIT_FAILED) from None
        finally:
            qm.disconnect()
        done = {"retry": "retried", "move": "moved", "discard": "discarded"}[action]
        where = f" to {outcome.destination}" if outcome.destination else ""
        if outcome.done:
            print(f"Message {outcome.msg_id} {done}{where}.", flush=True)
            return
        reason = outcome.json()["reasonName"]
        print(
            f"Message {outcome.msg_id} was not {done}{where}: reason {outcome.reason} ({reason}); it stays on {dlq}.",
            flush=True,
        )
        raise typer.Exit(_EXIT_FAILED)
