"""``syncpoint runmqsc`` and the sample programs ``amqsput``, ``amqsget``, ``amqsbcg`` with their client-mode
forms ``amqsputc``, ``amqsgetc``, ``amqsbcgc``.

They talk to the queue manager's running server (``connect_running``), as IBM's do: with none running they fail
with MQRC_Q_MGR_NOT_AVAILABLE (2059), never running a queue manager in their own process; without a queue manager
name, to the default queue manager (``crtmqm -q``). ``runmqsc -c`` and the client-mode samples connect, as IBM's
do, to the server the ``MQSERVER`` environment variable names (``ChannelName/TCP/host(port)``). They read standard
input and write standard output, so they fit in shell pipelines: the samples' progress lines (IBM's "Sample
AMQSPUT0 start" …) go to standard error, the messages themselves to standard output; amqsbcg prints IBM's layout
of the MQMD.

Implements: reference/mqsc.md (runmqsc's invocation and report), IBM's amqsbcg0.c output layout.
"""

from __future__ import annotations

import functools
import io
import math
import os
import sys
from collections.abc import Callable
from typing import Annotated, Any, NoReturn

import typer

import syncpoint
from syncpoint import _home
from syncpoint.mqi import MQMD, MQMIError, reason_name
from syncpoint.mqi import constants as C
from syncpoint.mqsc import MqscProcessor, connect_failure_lines

from ._connect import connect_running

_FAILED = 1  # exit status of a sample program whose MQI call failed


def _out(line: str) -> None:
    sys.stdout.write(line + "\n")
    if _interactive:
        sys.stdout.flush()


_interactive = False
_client_mode = False  # amqsputc, amqsgetc, amqsbcgc: IBM's client-mode samples connect by MQSERVER


def _err(line: str) -> None:
    sys.stderr.write(line + "\n")
    sys.stderr.flush()


def runmqsc(
    qmgr: Annotated[str | None, typer.Argument(help="queue manager name (default: the default queue manager)")] = None,
    verify: Annotated[bool, typer.Option("-v", help="verify the commands' syntax without running them")] = False,
    no_echo: Annotated[bool, typer.Option("-e", help="do not echo the commands")] = False,
    client: Annotated[
        bool, typer.Option("-c", help="connect as a client to the server MQSERVER names (CHANNEL/TCP/host(port))")
    ] = False,
) -> None:
    """Run MQSC commands read from standard input (exit code 0: all ran, 10: some did not, 20: stopped)."""
    name = qmgr.strip() if qmgr and qmgr.strip() else ("" if client else _home.default_queue_manager() or "")
    _out(f"syncpoint {syncpoint.__version__}: MQSC command processor (runmqsc).")
    _out(f"Starting MQSC for queue manager {name}.")
    _out("")
    qm = None
    if not verify:
        try:
            if not name and not client:
                raise MQMIError(
                    C.MQCC_FAILED,
                    C.MQRC_Q_MGR_NAME_ERROR,
                    "no queue manager was named and there is no default queue manager ('crtmqm -q' makes one)",
                )
            qm = _client_connect(name, "runmqsc") if client else connect_running(name, appl_name="runmqsc")
        except MQMIError as e:
            for line in connect_failure_lines(name, e):
                _out(line)
            raise typer.Exit(20) from None
    global _interactive
    _interactive = sys.stdin.isatty()  # answer each command as it is typed
    source = io.TextIOWrapper(sys.stdin.buffer, encoding="utf-8", errors="replace")
    try:
        summary = MqscProcessor(qm, verify=verify, echo=not no_echo).run(source, _out)
    finally:
        if qm is not None:
            try:
                qm.disconnect()
            except MQMIError:
                pass
    sys.stdout.flush()
    raise typer.Exit(summary.exit_code)


def mqserver_connames() -> list[str]:
    """The connection names of IBM's MQSERVER environment variable, ``ChannelName/TransportType/ConnectionName``
    (``SYSTEM.DEF.SVRCONN/TCP/mqhost(1414)``; a comma-separated list of connection names is tried in order).
    MQRC_Q_MGR_NAME_ERROR (2058) when it is not set, as IBM's client finds no channel definition;
    MQRC_HOST_NOT_AVAILABLE (2538) when it is not of that form or not TCP."""
    value = os.environ.get("MQSERVER", "").strip()
    if not value:
        raise MQMIError(
            C.MQCC_FAILED,
            C.MQRC_Q_MGR_NAME_ERROR,
            "MQSERVER is not set (e.g. MQSERVER='SYSTEM.DEF.SVRCONN/TCP/host(1414)')",
        )
    parts = value.split("/", 2)
    if len(parts) != 3 or not parts[2].strip() or parts[1].strip().upper() != "TCP":
        raise MQMIError(
            C.MQCC_FAILED,
            C.MQRC_HOST_NOT_AVAILABLE,
            f"MQSERVER {value!r} is not ChannelName/TCP/host(port)",
        )
    return [c.strip() for c in parts[2].split(",") if c.strip()]


def mqserver_channel() -> str:
    """The channel name of MQSERVER (its first part)."""
    return os.environ.get("MQSERVER", "").strip().split("/", 1)[0].strip()


def _client_connect(qmgr: str, appl: str) -> syncpoint.QueueManager:
    """A client connection as IBM's client-mode tools make it: to the server MQSERVER names, on its channel."""
    error: MQMIError | None = None
    for conname in mqserver_connames():
        try:
            return syncpoint.connect(qmgr, host=conname, appl_name=appl, channel=mqserver_channel())
        except MQMIError as e:
            if e.reason in (C.MQRC_NOT_AUTHORIZED, C.MQRC_UNKNOWN_CHANNEL_NAME):
                raise  # the queue manager answered
            error = e
    assert error is not None
    raise error


def _connect(qmgr: str | None, appl: str) -> syncpoint.QueueManager:
    """The sample's connection: to ``qmgr`` (else the default queue manager; a client: whichever MQSERVER reaches)."""
    name = qmgr.strip() if qmgr and qmgr.strip() else ("" if _client_mode else _home.default_queue_manager() or "")
    try:
        if _client_mode:
            return _client_connect(name, appl + "c")  # PutApplName amqsputc, as IBM's client build
        if not name:
            raise MQMIError(
                C.MQCC_FAILED, C.MQRC_Q_MGR_NAME_ERROR, "no queue manager was named and there is no default"
            )
        return connect_running(name, appl_name=appl)
    except MQMIError as e:
        _err(_ended("MQCONNX", e))
        raise typer.Exit(_FAILED) from None


def _ended(verb: str, e: MQMIError) -> str:
    """IBM's samples' line for a call that failed: ``MQPUT ended with reason code 2085``, with the reason's name
    and syncpoint's detail."""
    return f"{verb} ended with reason code {e.reason} ({reason_name(e.reason)})" + (f": {e.detail}" if e.detail else "")


def _sample_end(qm: syncpoint.QueueManager, q: syncpoint.Queue, sample: str, status: int) -> NoReturn:
    """The end of amqsput and amqsget: the queue closed, the connection ended, IBM's last line, the exit status."""
    q.close()
    qm.disconnect()
    _err(f"Sample {sample} end")
    raise typer.Exit(status)


def _open(qm: syncpoint.QueueManager, queue: str, options: int) -> syncpoint.Queue:
    try:
        return qm.open(queue, options | C.MQOO_FAIL_IF_QUIESCING)
    except MQMIError as e:
        _err(_ended("MQOPEN", e))
        qm.disconnect()
        raise typer.Exit(_FAILED) from None


# the samples' arguments as IBM's (QUEUE, then QMGR): typer reads each command's own signature, so each
# sample declares them
def amqsput(
    queue: Annotated[str, typer.Argument(help="target queue")],
    qmgr: Annotated[str | None, typer.Argument(help="queue manager name (default: the default one)")] = None,
) -> None:
    """Put each line of standard input on QUEUE as a text message (MQSTR); an empty line or end of input ends."""
    qm = _connect(qmgr, "amqsput")
    _err("Sample AMQSPUT0 start")
    _err(f"target queue is {queue}")
    q = _open(qm, queue, C.MQOO_OUTPUT)
    status = 0
    try:
        for raw in sys.stdin.buffer:
            line = raw.rstrip(b"\r\n")
            if not line:
                break  # IBM's sample: a null line ends the input
            q.put(line, format=C.MQFMT_STRING)
    except MQMIError as e:
        _err(_ended("MQPUT", e))
        status = _FAILED
    except KeyboardInterrupt:
        status = 130
    _sample_end(qm, q, "AMQSPUT0", status)


def amqsget(
    queue: Annotated[str, typer.Argument(help="source queue")],
    qmgr: Annotated[str | None, typer.Argument(help="queue manager name (default: the default one)")] = None,
    wait: Annotated[float, typer.Option("--wait", help="seconds to wait for a message before ending")] = 15.0,
) -> None:
    """Get every message from QUEUE and print its data, one message a line; end after WAIT seconds without one."""
    if wait < 0 or math.isnan(wait):
        _err("--wait takes a number of seconds, 0 or more")
        raise typer.Exit(2)
    qm = _connect(qmgr, "amqsget")
    _err("Sample AMQSGET0 start")
    q = _open(qm, queue, C.MQOO_INPUT_AS_Q_DEF)
    status = 0
    out = sys.stdout.buffer
    try:
        while True:
            try:
                # in a unit of work until the data is written: a message whose write fails stays on the queue
                m = q.get(wait=wait or None, syncpoint=True)
            except MQMIError as e:
                if e.reason == C.MQRC_NO_MSG_AVAILABLE:
                    _err("no more messages")
                else:
                    _err(_ended("MQGET", e))
                    status = _FAILED
                break
            try:
                out.write(m.data + b"\n")
                out.flush()
            except BrokenPipeError:  # the reader of the pipeline went away: the message goes back
                qm.backout()
                os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
                _err("the output pipe was closed; the last message was left on the queue")
                break
            qm.commit()
    except KeyboardInterrupt:
        qm.backout()
        status = 130
    _sample_end(qm, q, "AMQSGET0", status)


def amqsbcg(
    queue: Annotated[str, typer.Argument(help="queue to browse")],
    qmgr: Annotated[str | None, typer.Argument(help="queue manager name (default: the default one)")] = None,
) -> None:
    """Browse every message on QUEUE and print its MQMD field by field and its data as a hex and text dump."""
    qm = _connect(qmgr, "amqsbcg")
    _out("AMQSBCG0 - starts here")
    _out("**********************")
    _out("")
    _out(f" MQOPEN - '{queue}'")
    _out("")
    q = _open(qm, queue, C.MQOO_BROWSE)
    status = 0
    n = 0
    try:
        for m in q.browse_all():
            n += 1
            _out("")
            _out(f" MQGET of message number {n}, CompCode:0 Reason:0")
            for line in describe_md(m.md):
                _out(line)
            _out("")
            _out("****   Message      ****")
            _out("")
            _out(f" length - {len(m.data)} of {len(m.data)} bytes")
            _out("")
            for line in hex_dump(m.data):
                _out(line)
    except MQMIError as e:
        _out(" " + _ended("MQGET", e))
        status = _FAILED
    _out("")
    _out(" No more messages")
    q.close()
    _out(" MQCLOSE")
    qm.disconnect()
    _out(" MQDISC")
    sys.stdout.flush()
    raise typer.Exit(status)


# -- amqsbcg's layout ------------------------------------------------------------------------------------
def _chars(value: bytes) -> str:
    return "'" + bytes(value).decode("utf-8", "replace") + "'"


def _hex(value: bytes) -> str:
    return "X'" + bytes(value).hex().upper() + "'"


def describe_md(md: MQMD) -> list[str]:
    """The MQMD as IBM's amqsbcg sample prints it: the numeric fields paired two a line, character fields quoted
    at full length, identifiers in hex, the identity and origin context under their ``**`` separators."""
    f = md.fields()
    return [
        "****Message descriptor****",
        "",
        f"  StrucId  : {_chars(f['StrucId'])}  Version : {f['Version']}",
        f"  Report   : {f['Report']}  MsgType : {f['MsgType']}",
        f"  Expiry   : {f['Expiry']}  Feedback : {f['Feedback']}",
        f"  Encoding : {f['Encoding']}  CodedCharSetId : {f['CodedCharSetId']}",
        f"  Format : {_chars(f['Format'])}",
        f"  Priority : {f['Priority']}  Persistence : {f['Persistence']}",
        f"  MsgId : {_hex(f['MsgId'])}",
        f"  CorrelId : {_hex(f['CorrelId'])}",
        f"  BackoutCount : {f['BackoutCount']}",
        f"  ReplyToQ       : {_chars(f['ReplyToQ'])}",
        f"  ReplyToQMgr    : {_chars(f['ReplyToQMgr'])}",
        "  ** Identity Context",
        f"  UserIdentifier : {_chars(f['UserIdentifier'])}",
        "  AccountingToken : ",
        f"   {_hex(f['AccountingToken'])}",
        f"  ApplIdentityData : {_chars(f['ApplIdentityData'])}",
        "  ** Origin Context",
        f"  PutApplType    : '{f['PutApplType']}'",
        f"  PutApplName    : {_chars(f['PutApplName'])}",
        f"  PutDate  : {_chars(f['PutDate'])}    PutTime  : {_chars(f['PutTime'])}",
        f"  ApplOriginData : {_chars(f['ApplOriginData'])}",
        "",
        f"  GroupId : {_hex(f['GroupId'])}",
        f"  MsgSeqNumber   : '{f['MsgSeqNumber']}'",
        f"  Offset         : '{f['Offset']}'",
        f"  MsgFlags       : '{f['MsgFlags']}'",
        f"  OriginalLength : '{f['OriginalLength']}'",
    ]


def hex_dump(data: bytes) -> list[str]:
    """16 bytes a line: offset, the bytes in hex in groups of two, then the printable text ('.' for others)."""
    lines = []
    for off in range(0, len(data), 16):
        chunk = data[off : off + 16]
        groups = " ".join(chunk[i : i + 2].hex().upper() for i in range(0, len(chunk), 2))
        text = "".join(chr(b) if 32 <= b < 127 else "." for b in chunk)
        lines.append(f"{off:08X}:  {groups:<39} '{text:<16}'")
    return lines


def _client_variant(sample: Callable[..., None], name: str) -> Callable[..., None]:
    """IBM's client-mode build of a sample (amqsputc …): the same program, connected by MQSERVER."""

    @functools.wraps(sample)
    def variant(*args: Any, **kwargs: Any) -> None:
        global _client_mode
        _client_mode = True
        sample(*args, **kwargs)

    variant.__doc__ = (sample.__doc__ or "") + " Connects as a client to the server MQSERVER names."
    variant.__name__ = name
    return variant


def register(app: typer.Typer) -> None:
    """Add runmqsc, the samples amqsput, amqsget, amqsbcg and their client-mode forms amqsputc, amqsgetc,
    amqsbcgc to the ``syncpoint`` command."""
    app.command()(runmqsc)
    for sample in (amqsput, amqsget, amqsbcg):
        app.command()(sample)
        app.command(name=sample.__name__ + "c")(_client_variant(sample, sample.__name__ + "c"))
