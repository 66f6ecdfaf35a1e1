"""The message list: ``GET /ibmmq/rest/v3/messaging/qmgr/{qmgr}/queue/{queue}/messagelist``.

IBM's resource (MQ 9.1.3 and later, v1 to v3): "Browses a summary list of messages from the specified queue manager
and queue … returned in the HTTP response body as a JSON formatted array. The data does not contain the payload of
the messages … No messages are removed"; a queue that is GET inhibited answers an empty list. Its query parameters
are IBM's: ``messageId`` and ``correlationId`` (only the messages with that identifier) and ``limit`` (at most that
many). The answer is ``{"messages": [...]}``, one object a message in delivery order with ``messageId`` and
``correlationId`` in the forms of the ``ibm-mq-md-*`` headers (so either can be sent back to ``…/message``),
``format``, ``persistence``, ``priority``, ``expiry``, ``replyTo``, the put time as ``timestamp`` (ISO 8601, UTC)
and the body's ``length`` in bytes.

Theory of operation: one connection as the request's user, one browse handle, and browses that ask for no data
(a zero-length buffer with MQGMO_ACCEPT_TRUNCATED_MSG: the queue manager answers the MQMD and the body's length
only), so a list never reads a body; the properties come in a message handle, for a JMSCorrelationID (an
application's correlation identifier, answered as it was sent). A list answers at most :data:`MAX_LIST` messages;
without ``limit`` it is the first :data:`MAX_LIST` (IBM's mqweb lists the whole queue; a queue of a million messages
is never listed whole here). Every bad parameter is refused (400, MQWB0302E) before the queue manager is asked
anything.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from syncpoint.client.keywords import PYTHONIC_HMSG
from syncpoint.mqi import MQGMO, MQMD, MQOD, MQMIError, blank_strip
from syncpoint.mqi import constants as C

from ._errors import RestError, bad_request, messaging_failure
from ._headers import correlation_id, headers_from_md, message_id
from ._messaging import with_connection

if TYPE_CHECKING:
    from syncpoint.client import QueueManager

    from ._context import Rest

MAX_LIST = 10_000  # the most messages one list answers (the default when the request names no limit)
_PARAMS = ("correlationId", "limit", "messageId")


def list_limit(value: str | None) -> int:
    """The ``limit`` query parameter: 1 to MAX_LIST messages (MAX_LIST when absent)."""
    if value is None:
        return MAX_LIST
    if not value.isdigit() or not 0 < int(value) <= MAX_LIST:
        raise bad_request(
            "MQWB0302E",
            f"The limit value {value[:40]} is not valid: it is a number of messages from 1 to {MAX_LIST}.",
            f"Resubmit the request with a limit from 1 to {MAX_LIST}.",
        )
    return int(value)


def _timestamp(md: MQMD) -> str:
    """PutDate and PutTime (YYYYMMDD, HHMMSSTH, UTC) as ISO 8601: ``2026-12-07T11:42:28.12Z``; '' when unset."""
    date, tm = blank_strip(md.PutDate), blank_strip(md.PutTime)
    if len(date) != 8 or len(tm) != 8 or not (date + tm).isdigit():
        return ""
    return f"{date[:4]}-{date[4:6]}-{date[6:]}T{tm[:2]}:{tm[2:4]}:{tm[4:6]}.{tm[6:]}0Z"


def summary(md: MQMD, length: int, props: dict[str, tuple[int, Any]] | None = None) -> dict[str, Any]:
    """One message of the list, from its MQMD, its body's length and its properties (for JMSCorrelationID)."""
    headers = headers_from_md(md, props)
    out: dict[str, Any] = {"messageId": headers["ibm-mq-md-messageId"]}
    if "ibm-mq-md-correlationId" in headers:
        out["correlationId"] = headers["ibm-mq-md-correlationId"]
    out["format"] = blank_strip(md.Format)
    out["persistence"] = headers["ibm-mq-md-persistence"]
    out["priority"] = md.Priority
    out["expiry"] = "unlimited" if md.Expiry == C.MQEI_UNLIMITED else md.Expiry * 100
    if "ibm-mq-md-replyTo" in headers:
        out["replyTo"] = headers["ibm-mq-md-replyTo"]
    out["timestamp"] = _timestamp(md)
    out["length"] = length
    return out


def list_messages(qm: QueueManager, queue: str, match: MQMD, options: int, limit: int) -> list[dict[str, Any]]:
    """Up to ``limit`` messages of ``queue`` matching ``match`` (MQMO ``options``), browsed without their data."""
    hobj = qm.mqopen(MQOD(ObjectName=queue.encode()), C.MQOO_BROWSE | C.MQOO_FAIL_IF_QUIESCING)
    out: list[dict[str, Any]] = []
    try:
        while len(out) < limit:
            md = MQMD(MsgId=match.MsgId, CorrelId=match.CorrelId)
            # MQGMO version 4 with a message handle: the properties (a JMSCorrelationID) come, the body does not
            gmo = MQGMO(Version=C.MQGMO_VERSION_4, MatchOptions=options, MsgHandle=PYTHONIC_HMSG)
            gmo.Options = C.MQGMO_NO_WAIT | C.MQGMO_FAIL_IF_QUIESCING | C.MQGMO_ACCEPT_TRUNCATED_MSG
            gmo.Options |= C.MQGMO_BROWSE_NEXT if out else C.MQGMO_BROWSE_FIRST
            result = qm.transport.get(hobj, md, gmo, 0)
            if result.reason not in (C.MQRC_NONE, C.MQRC_TRUNCATED_MSG_ACCEPTED):
                raise MQMIError(result.comp, result.reason)
            out.append(summary(md, result.data_length, result.props))
    except MQMIError as e:
        # the end of the queue; IBM: "a queue that is GET inhibited" answers an empty list
        if e.reason not in (C.MQRC_NO_MSG_AVAILABLE, C.MQRC_GET_INHIBITED):
            raise
        if e.reason == C.MQRC_GET_INHIBITED:
            out = []
    finally:
        qm.mqclose(hobj)
    return out


async def get_message_list(rest: Rest, request: Request, user: str, qmgr: str, queue: str) -> Response:
    params = request.query_params
    for key in params:
        if key not in _PARAMS:
            raise RestError(
                400,
                "MQWB0302E",
                f"The query parameter {key[:40]} is not valid for this request.",
                f"The parameters of this request are: {', '.join(_PARAMS)}.",
                "Resubmit the request without it.",
            )
    match, options = MQMD(), C.MQMO_NONE
    if (v := params.get("messageId")) is not None:
        match.MsgId = message_id(v)
        options |= C.MQMO_MATCH_MSG_ID
    if (v := params.get("correlationId")) is not None:
        match.CorrelId = correlation_id(v, "correlationId").correl
        options |= C.MQMO_MATCH_CORREL_ID
    limit = list_limit(params.get("limit"))
    try:
        messages = await run_in_threadpool(with_connection, rest, user, list_messages, queue, match, options, limit)
    except MQMIError as e:
        raise messaging_failure(e, queue, qmgr, "browse from") from None
    return JSONResponse({"messages": messages})
