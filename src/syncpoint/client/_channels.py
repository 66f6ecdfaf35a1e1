"""Commands to a queue manager's channel initiator, for any tool (runmqsc's channel commands, the PCF command
server's Inquire Channel Status).

Theory of operation: a channel command is a message of Format SPCHLCMD holding JSON (``{"op": "DISPLAY",
"channel": "name"}``, START, STOP …) put on SYSTEM.CHANNEL.INITQ with a temporary dynamic reply queue as its
ReplyToQ; the channel initiator, which runs in the queue manager's server, answers there with JSON (``ok``,
``lines`` and, for DISPLAY, ``status``: one row per channel, DISPLAY CHSTATUS's keywords). So it works the same
from the queue manager's machine and over the network, and a queue manager whose channel initiator is not
running is said (AMQ8494E) instead of waited for (docs/distributed-queuing.md).
"""

from __future__ import annotations

import json
from typing import Any

from syncpoint.mqi import MQGMO, MQMD, MQOD, MQPMO, MQMIError
from syncpoint.mqi import constants as C
from syncpoint.mqi.objects import CHANNEL_COMMAND_FORMAT, SYSTEM_CHANNEL_INITQ

REPLY_WAIT_MS = 15_000


def channel_command(
    qm: Any, request: dict[str, Any], wait_ms: int = REPLY_WAIT_MS, running_only: bool = False
) -> dict[str, Any]:
    """Send one command to the channel initiator of ``qm`` (a connection) and wait for its answer; an initiator
    that does not answer, or a queue manager without one, is an answer with ``ok`` False and IBM's AMQ8494E.
    ``running_only``: answer so at once when no initiator holds SYSTEM.CHANNEL.INITQ open now (DISPLAY
    QMSTATUS's CHINIT), rather than wait for one that is starting (runmqsc right after strmqm waits)."""
    if running_only and not qm.admin("qmgr_status").get("CHINIT"):
        why = f"AMQ8494E: queue manager {qm.name} runs no channel initiator: is its server running?"
        return {"ok": False, "lines": [why]}
    try:
        od = MQOD(ObjectName=b"SYSTEM.DEFAULT.MODEL.QUEUE", DynamicQName=b"MQSC.CHL.*")
        reply_h = qm.mqopen(od, C.MQOO_INPUT_EXCLUSIVE)
        reply_q = od.ObjectName
        md = MQMD(Format=CHANNEL_COMMAND_FORMAT, MsgType=C.MQMT_REQUEST, ReplyToQ=reply_q)
        qm.mqput1(
            MQOD(ObjectName=SYSTEM_CHANNEL_INITQ.encode()),
            md,
            MQPMO(Options=C.MQPMO_NO_SYNCPOINT | C.MQPMO_NEW_MSG_ID),
            json.dumps(request).encode(),
        )
        answer_md = MQMD(CorrelId=md.MsgId)
        gmo = MQGMO(
            Options=C.MQGMO_WAIT | C.MQGMO_NO_SYNCPOINT, WaitInterval=wait_ms, MatchOptions=C.MQMO_MATCH_CORREL_ID
        )
        try:
            data = qm.mqget(reply_h, answer_md, gmo)
        except MQMIError as e:
            if e.reason != C.MQRC_NO_MSG_AVAILABLE:
                raise
            why = f"AMQ8494E: the channel initiator of {qm.name} did not answer: is its server running?"
            return {"ok": False, "lines": [why]}
        finally:
            qm.mqclose(reply_h, C.MQCO_DELETE_PURGE)
        result: dict[str, Any] = json.loads(data)
        return result
    except MQMIError as e:
        if e.reason == C.MQRC_UNKNOWN_OBJECT_NAME:
            why = f"AMQ8494E: queue manager {qm.name} has no channel initiator ({SYSTEM_CHANNEL_INITQ}): start it."
            return {"ok": False, "lines": [why]}
        raise


def svrconn_status(qm: Any, pattern: str = "*") -> list[dict[str, Any]]:
    """The instances of server-connection channels running now (one a client's connection), as DISPLAY CHSTATUS
    lists them (CHLTYPE SVRCONN, STATUS RUNNING, CONNAME, MCAUSER: the user it runs as, RAPPLTAG, CURSHCNV: one
    conversation each, syncpoint does not share a TCP connection between connections); ``pattern`` a generic
    channel name. They are the queue manager's own connections, not the channel initiator's channels."""
    from syncpoint.mqi import matches_generic, mqsc_date_time

    rows = []
    for c in qm.admin("connection_status"):
        channel = str(c.get("CHANNEL", ""))
        if not channel or not matches_generic(pattern, channel):
            continue
        date, time = mqsc_date_time(float(c.get("STARTED", 0.0))) if c.get("STARTED") else ("", "")
        row = {
            "CHANNEL": channel,
            "CHLTYPE": "SVRCONN",
            "STATUS": "RUNNING",
            "CONNAME": str(c.get("CONNAME", "")),
            "MCAUSER": str(c.get("USERID", "")),
            "RAPPLTAG": str(c.get("APPLTAG", "")),
            "CURSHCNV": 1,
            "SSLPEER": str(c.get("SSLPEER", "")),  # the client certificate's subject and issuer ("" none)
            "SSLCERTI": str(c.get("SSLCERTI", "")),
        }
        if date:
            row["CHSTADA"], row["CHSTATI"] = date, time
        rows.append(row)
    return rows
