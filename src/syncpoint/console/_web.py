"""The console's routes: the page (static HTML, JavaScript and CSS shipped in the package) and its JSON endpoints
under ``/ibmmq/console/api``, mounted on the REST API's port (IBM's console lives at ``/ibmmq/console``).

Theory of operation: the page itself holds no data and is served to anyone; it asks for a user and password and
sends them (basic authentication, as the REST API) with every JSON request, which is checked against the queue
manager's users by the REST API's authenticator (the same throttle on failures). A wrong password is answered 401
without a ``WWW-Authenticate`` challenge, so the browser shows the page's own refusal rather than its login box.
POSTs need the REST API's CSRF header and are refused from another site. Each request opens its own connection as
its user, in a worker thread (connect, calls, disconnect in one hop), as the REST API's handlers do.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from importlib import resources
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Mount, Route

from syncpoint.mqi import MQMIError, reason_name
from syncpoint.mqi import constants as C
from syncpoint.rest import CSRF_HEADER, Authenticator, basic_credentials

from . import _data, _workbench

if TYPE_CHECKING:
    from syncpoint.client import QueueManager

PATH = "/ibmmq/console"
_STATIC = {"console.js": "text/javascript", "console.css": "text/css", "index.html": "text/html"}
_SECURITY = {
    "Content-Security-Policy": "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; frame-ancestors 'none'",
    "X-Content-Type-Options": "nosniff",
    "Cache-Control": "no-store",
}


class ConsoleError(Exception):
    def __init__(self, status: int, message: str, reason: int = 0) -> None:
        super().__init__(message)
        self.status, self.message, self.reason = status, message, reason


def _error(status: int, message: str, reason: int = 0) -> JSONResponse:
    body = {"error": message, "reason": reason, "reasonName": reason_name(reason) if reason else ""}
    return JSONResponse(body, status_code=status, headers=_SECURITY)


def _int(request: Request, name: str, default: int) -> int:
    value = request.query_params.get(name)
    if value is None:
        return default
    try:
        return int(value)
    except ValueError:
        raise ConsoleError(400, f"{name} must be a whole number, not {value[:20]!r}") from None


def _msg_id(value: Any) -> bytes:
    if not isinstance(value, str):
        raise ConsoleError(400, "a MsgId is 48 hexadecimal digits")
    try:
        raw = bytes.fromhex(value)
    except ValueError:
        raise ConsoleError(400, f"a MsgId is 48 hexadecimal digits, not {value[:60]!r}") from None
    if len(raw) != C.MQ_MSG_ID_LENGTH:
        raise ConsoleError(400, f"a MsgId is 48 hexadecimal digits, not {value[:60]!r}")
    return raw


def console_routes(connect: Callable[[str], QueueManager], release: Callable[[QueueManager], None],
                   authenticator: Authenticator) -> list[BaseRoute]:  # fmt: skip
    """The console's routes, to mount on the REST API's app: ``connect(user)`` and ``release(qm)`` as the REST
    API's, ``authenticator`` its password check."""

    async def user_of(request: Request) -> str:
        origin = request.headers.get("origin")
        if origin is not None and urlsplit(origin).netloc.lower() != request.headers.get("host", "").lower():
            raise ConsoleError(403, "requests from another site are not accepted")
        if request.headers.get("sec-fetch-site") == "cross-site":
            raise ConsoleError(403, "requests from another site are not accepted")
        credentials = basic_credentials(request.headers.get("authorization"))
        source = request.client.host if request.client else ""
        if credentials is None or not await authenticator.authenticate(*credentials, source):
            raise ConsoleError(401, "the user and password are not those of a user of this queue manager")
        if request.method == "POST" and CSRF_HEADER not in request.headers:
            raise ConsoleError(403, f"the CSRF header {CSRF_HEADER} is missing")
        return credentials[0]

    def over_connection(user: str, fn: Callable[..., Any], *args: Any) -> Any:
        qm = connect(user)
        try:
            return fn(qm, *args)
        finally:
            release(qm)

    def endpoint(fn: Callable[[Request, str], Any]) -> Callable[[Request], Any]:
        async def handle(request: Request) -> Response:
            try:
                user = await user_of(request)
                return JSONResponse(await fn(request, user), headers=_SECURITY)
            except ConsoleError as e:
                return _error(e.status, e.message, e.reason)
            except MQMIError as e:
                status = 404 if e.reason == C.MQRC_UNKNOWN_OBJECT_NAME else 400
                return _error(status, str(e), int(e.reason))

        return handle

    async def body_of(request: Request) -> dict[str, Any]:
        try:
            body = json.loads(await request.body())
        except (ValueError, UnicodeDecodeError):
            raise ConsoleError(400, "the request body is not JSON") from None
        if not isinstance(body, dict):
            raise ConsoleError(400, "the request body is a JSON object")
        return body

    async def qmgr(request: Request, user: str) -> Any:
        return await run_in_threadpool(over_connection, user, _data.qmgr_overview)

    async def queues(request: Request, user: str) -> Any:
        name = request.query_params.get("name", "*")
        off, lim = _int(request, "offset", 0), _int(request, "limit", 50)
        return await run_in_threadpool(over_connection, user, _data.queue_page, name, off, lim)

    def _queue(request: Request) -> str:
        q = request.query_params.get("queue", "")
        if not 0 < len(q.encode("utf-8", "replace")) <= C.MQ_Q_NAME_LENGTH:
            raise ConsoleError(400, "queue= names a queue (1 to 48 characters)", C.MQRC_OBJECT_NAME_ERROR)
        return q

    async def messages(request: Request, user: str) -> Any:
        off, lim = _int(request, "offset", 0), _int(request, "limit", 50)
        return await run_in_threadpool(over_connection, user, _data.message_page, _queue(request), off, lim)

    async def message(request: Request, user: str) -> Any:
        queue, msg_id = _queue(request), _msg_id(request.query_params.get("msgId"))
        found = await run_in_threadpool(over_connection, user, _data.message_detail, queue, msg_id)
        if found is None:
            raise ConsoleError(404, f"no message with MsgId {msg_id.hex()} on {queue}", C.MQRC_NO_MSG_AVAILABLE)
        return found

    async def mqsc(request: Request, user: str) -> Any:
        command = (await body_of(request)).get("command")
        if not isinstance(command, str) or not command.strip():
            raise ConsoleError(400, 'the body is {"command": "MQSC text"}')
        return await run_in_threadpool(over_connection, user, _data.run_mqsc, command)

    def _dlq_name(qm: QueueManager, given: str) -> str:
        from syncpoint.client import dead_letter_queue

        name = given or dead_letter_queue(qm)
        if not name:
            raise ConsoleError(404, "the queue manager has no dead-letter queue (DEADQ)", C.MQRC_UNKNOWN_OBJECT_NAME)
        return name

    async def dlq(request: Request, user: str) -> Any:
        off, lim = _int(request, "offset", 0), _int(request, "limit", 200)
        given = request.query_params.get("queue", "")

        def read(qm: QueueManager) -> Any:
            return _workbench.dead_letters(qm, _dlq_name(qm, given), off, lim)

        return await run_in_threadpool(over_connection, user, read)

    async def dlq_action(request: Request, user: str) -> Any:
        body = await body_of(request)
        action, to_queue = body.get("action"), body.get("toQueue", "")
        ids = body.get("msgIds")
        if not isinstance(ids, list) or not ids or len(ids) > _workbench.MAX_SELECTION:
            raise ConsoleError(400, f"msgIds lists 1 to {_workbench.MAX_SELECTION} MsgIds")
        msg_ids = [_msg_id(i) for i in ids]
        if not isinstance(action, str) or not isinstance(to_queue, str):
            raise ConsoleError(400, "action and toQueue are strings")
        try:
            _workbench.rule_for(action, to_queue)
        except ValueError as e:
            raise ConsoleError(400, str(e)) from None
        given = str(body.get("queue", ""))

        def run(qm: QueueManager) -> Any:
            name = _dlq_name(qm, given)
            return [o.json() for o in _workbench.act(qm, name, action, msg_ids, to_queue)]

        return {"outcomes": await run_in_threadpool(over_connection, user, run)}

    async def dlq_rules(request: Request, user: str) -> Any:
        body = await body_of(request)
        action, to_queue, selected = body.get("action"), body.get("toQueue", ""), body.get("selected")
        if not isinstance(selected, list) or not all(isinstance(s, dict) for s in selected):
            raise ConsoleError(400, "selected lists the chosen messages (destQ, reason)")
        try:
            text = _workbench.rules_table(str(body.get("queue", "")), str(action), selected, str(to_queue))
        except (ValueError, TypeError) as e:
            raise ConsoleError(400, str(e)) from None
        return {"rules": text}

    async def static(request: Request) -> Response:
        name = request.path_params.get("file", "index.html")
        if name not in _STATIC:
            return Response("not found", status_code=404, media_type="text/plain")
        data = resources.files(__package__).joinpath("static", name).read_bytes()
        return Response(data, media_type=_STATIC[name], headers=_SECURITY)

    routes: list[BaseRoute] = [
        Route("/", static, methods=["GET"]),
        Route("/static/{file}", static, methods=["GET"]),
        Route("/api/qmgr", endpoint(qmgr), methods=["GET"]),
        Route("/api/queues", endpoint(queues), methods=["GET"]),
        Route("/api/messages", endpoint(messages), methods=["GET"]),
        Route("/api/message", endpoint(message), methods=["GET"]),
        Route("/api/mqsc", endpoint(mqsc), methods=["POST"]),
        Route("/api/dlq", endpoint(dlq), methods=["GET"]),
        Route("/api/dlq/action", endpoint(dlq_action), methods=["POST"]),
        Route("/api/dlq/rules", endpoint(dlq_rules), methods=["POST"]),
    ]
    return [Mount(PATH, routes=routes)]
