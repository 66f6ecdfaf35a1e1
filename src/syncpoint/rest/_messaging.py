"""The messaging API: ``/ibmmq/rest/v3/messaging/qmgr/{qmgr}/queue/{queue}/message``.

POST puts the body as one message (MQPUT1, outside syncpoint, as IBM's mqweb does); DELETE gets the next
message destructively, waiting up to ``wait`` milliseconds, optionally the one with ``messageId`` /
``correlationId``; GET browses the next such message and leaves it. A found message answers 200 with its body
and ``ibm-mq-md-*`` headers, its user properties in ``ibm-mq-usr``; none answers 204. Text messages (Format
MQSTR) come back as ``text/plain; charset=utf-8``; any other message as ``application/octet-stream`` (IBM's API
answers text only; syncpoint carries bytes both ways, up to MAXMSGL).

Theory of operation: each request opens its own connection as the request's user (``Rest.connect``), makes
its MQ calls in a worker thread (the calls block: a durable put waits for its sync, a get for its wait), and
disconnects. The body is read before the put, and never more of it than the queue manager's MAXMSGL: a larger
one is refused (413, MQRC_MSG_TOO_BIG_FOR_Q_MGR) without being held.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, TypeVar

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response

from syncpoint.client.keywords import PYTHONIC_HMSG
from syncpoint.mqi import MQGMO, MQMD, MQOD, MQPMO, MQMIError
from syncpoint.mqi import constants as C
from syncpoint.mqi.properties import Props

from ._errors import RestError, messaging_failure
from ._headers import (
    MD,
    USR,
    UserProperty,
    body_format,
    correlation_id,
    headers_from_md,
    md_from_headers,
    message_id,
    user_properties,
    usr_header,
    wait_interval,
)

T = TypeVar("T")

if TYPE_CHECKING:
    from syncpoint.client import QueueManager

    from ._context import Rest


def too_big(size: int, limit: int) -> RestError:
    return RestError(
        413,
        "MQWB0303E",
        "An unforeseen error occurred while sending, publishing, receiving, or browsing the message.",
        f"The body ({size} bytes or more) is longer than the queue manager's MAXMSGL ({limit} bytes): "
        f"MQRC_MSG_TOO_BIG_FOR_Q_MGR ({C.MQRC_MSG_TOO_BIG_FOR_Q_MGR}).",
        "Send a smaller message, or raise MAXMSGL (ALTER QMGR MAXMSGL, ALTER QLOCAL MAXMSGL).",
        C.MQCC_FAILED,
        C.MQRC_MSG_TOO_BIG_FOR_Q_MGR,
    )


def qmgr_max_msg_length(qm: QueueManager) -> int:
    """The queue manager's MAXMSGL by MQINQ, as any application reads it (inq on the queue manager: what a
    messaging user holds; an administrative lookup would ask dsp of it)."""
    h = qm.mqopen(MQOD(ObjectType=C.MQOT_Q_MGR), C.MQOO_INQUIRE | C.MQOO_FAIL_IF_QUIESCING)
    try:
        ints, _ = qm.mqinq(h, [C.MQIA_MAX_MSG_LENGTH])
    finally:
        qm.mqclose(h)
    return int(ints[0])


async def read_body(request: Request, limit: int, fresh_limit: Callable[[], Awaitable[int]]) -> bytes:
    """The body, refused (413) once it passes ``limit`` — the queue manager's MAXMSGL as last seen; before
    refusing, ``fresh_limit()`` asks the queue manager again (MAXMSGL may have been raised meanwhile)."""
    declared = request.headers.get("content-length")
    refreshed = False
    if declared is not None and declared.isdigit() and int(declared) > limit:
        limit, refreshed = await fresh_limit(), True
        if int(declared) > limit:
            raise too_big(int(declared), limit)
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit and not refreshed:
            limit, refreshed = await fresh_limit(), True
        if size > limit:
            raise too_big(size, limit)
        chunks.append(chunk)
    return b"".join(chunks)


def with_connection(rest: Rest, user: str, fn: Callable[..., T], *args: Any) -> T:
    """``fn(qm, *args)`` over a connection of ``user``, opened and closed here: one worker-thread hop a
    request."""
    qm = rest.connect(user)
    try:
        return fn(qm, *args)
    finally:
        rest.release(qm)


async def post_message(rest: Rest, request: Request, user: str, qmgr: str, queue: str) -> Response:
    md = md_from_headers(request.headers, qmgr)
    properties = user_properties(request.headers.getlist(USR))
    if (v := request.headers.get(MD + "correlationId")) is not None and (app := correlation_id(v).app) is not None:
        # IBM: "If your POST request contains … application-specific correlation ID, the message is formatted as a
        # JMS TextMessage": the identifier is its JMSCorrelationID (<jms><Cid>) as well as its CorrelId
        properties.append(UserProperty("JMSCorrelationID", "string", app))

    async def fresh_limit() -> int:
        rest.max_msg_length = await run_in_threadpool(with_connection, rest, user, qmgr_max_msg_length)
        return rest.max_msg_length

    limit = rest.max_msg_length if rest.max_msg_length is not None else await fresh_limit()
    body = await read_body(request, limit, fresh_limit)
    fmt, data = body_format(request.headers.get("content-type"), body)
    md.Format = fmt
    if fmt == C.MQFMT_STRING:
        md.CodedCharSetId = 1208
    pmo = MQPMO(Options=C.MQPMO_NO_SYNCPOINT | C.MQPMO_NEW_MSG_ID | C.MQPMO_FAIL_IF_QUIESCING)
    od = MQOD(ObjectName=queue.encode())

    def put(qm: QueueManager) -> None:
        try:
            rest.put1(qm, od, md, pmo, data, properties)
        finally:
            rest.max_msg_length = qmgr_max_msg_length(qm)  # seen at every put: the next body's limit

    try:
        await run_in_threadpool(with_connection, rest, user, put)
    except MQMIError as e:
        raise messaging_failure(e, queue, qmgr, "put to") from None
    return Response(status_code=201, headers={MD + "messageId": "ID:" + md.MsgId.hex()})


async def get_message(rest: Rest, request: Request, user: str, qmgr: str, queue: str, browse: bool) -> Response:
    params = request.query_params
    allowed = {"messageId", "correlationId"} | ({"wait"} if not browse else set())
    for key in params:
        if key not in allowed:
            raise RestError(
                400,
                "MQWB0302E",
                f"The query parameter {key[:40]} is not valid for this request.",
                f"The parameters of this request are: {', '.join(sorted(allowed))}.",
                "Resubmit the request without it.",
            )
    md = MQMD()
    match = 0
    if (v := params.get("messageId")) is not None:
        md.MsgId = message_id(v)
        match |= C.MQMO_MATCH_MSG_ID
    if (v := params.get("correlationId")) is not None:
        md.CorrelId = correlation_id(v, "correlationId").correl
        match |= C.MQMO_MATCH_CORREL_ID
    wait = 0 if browse else wait_interval(params.get("wait"))
    gmo = MQGMO(Version=C.MQGMO_VERSION_2, MatchOptions=match, WaitInterval=wait)
    gmo.Options = C.MQGMO_FAIL_IF_QUIESCING | (C.MQGMO_WAIT if wait else C.MQGMO_NO_WAIT)
    gmo.Options |= C.MQGMO_BROWSE_FIRST if browse else C.MQGMO_NO_SYNCPOINT
    try:
        data, md, props = await run_in_threadpool(with_connection, rest, user, _get, queue, md, gmo, browse)
    except MQMIError as e:
        if e.reason == C.MQRC_NO_MSG_AVAILABLE:
            return Response(status_code=204)
        raise messaging_failure(e, queue, qmgr, "browse from" if browse else "get from") from None
    media = "text/plain; charset=utf-8" if md.Format == C.MQFMT_STRING else "application/octet-stream"
    headers = headers_from_md(md, props)
    if (usr := usr_header(props)) is not None:
        headers[USR] = usr
    return Response(data, status_code=200, media_type=media, headers=headers)


def _get(qm: QueueManager, queue: str, md: MQMD, gmo: MQGMO, browse: bool) -> tuple[bytes, MQMD, Props | None]:
    """MQGET (or a browse) of the next matching message, its properties in a message handle (MQGMO version 4,
    as a JMS receiver asks for them): the data, the MQMD and the properties."""
    options = C.MQOO_BROWSE if browse else C.MQOO_INPUT_AS_Q_DEF
    hobj = qm.mqopen(MQOD(ObjectName=queue.encode()), options | C.MQOO_FAIL_IF_QUIESCING)
    try:
        limit = qmgr_max_msg_length(qm)
        gmo.Version, gmo.MsgHandle = C.MQGMO_VERSION_4, PYTHONIC_HMSG
        result = qm.transport.get(hobj, md, gmo, limit)
        if result.reason != C.MQRC_NONE:
            raise MQMIError(result.comp, result.reason)
        return result.data, md, result.props
    finally:
        qm.mqclose(hobj)
