"""The REST API's web application: IBM's REST API v3 routes on Starlette, served by uvicorn.

Theory of operation: :func:`create_app` builds one Starlette application for one queue manager. Its routes live
under ``/ibmmq/rest/v3`` (IBM's prefix; the MQSC action also under ``v1`` and ``v2``, where IBM serves it and
KEDA's scaler documentation points); ``mounts`` adds other applications at their own paths on the same port
(IBM's console lives at ``/ibmmq/console``), so a console can join the REST API later without a second server.
Every handler starts with the guard (``_auth.guard``: same-site, basic authentication, the CSRF header), then
opens its own queue-manager connection as the request's user through ``Rest.connect`` — the only way the app
reaches the queue manager, a ``syncpoint.client`` connection, embedded in the server's process or remote — and
makes its MQ calls in a worker thread (connect, calls and disconnect in one hop), so a slow or waiting call
never holds the event loop. Errors are raised as ``RestError`` and answered as IBM's error JSON; an MQ failure
no handler expected answers MQWB0003E with its reason, a method a route does not serve 405 (MQWB2005E), any
other exception MQWB0000E (and the server's log has it).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from starlette.applications import Starlette
from starlette.convertors import Convertor, register_url_convertor
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from syncpoint.mqi import MQMIError

from ._admin import get_queues, post_mqsc
from ._auth import Authenticator, guard
from ._context import PutHook, Rest
from ._errors import RestError, unexpected, unexpected_mq_failure
from ._messagelist import get_message_list
from ._messaging import get_message, post_message
from ._openapi import openapi_document

if TYPE_CHECKING:
    from syncpoint.client import QueueManager

PREFIX = "/ibmmq/rest/v3"
log = logging.getLogger("syncpoint.rest")


class _AnyName(Convertor[str]):
    """An object name in a path: any characters, line ends and slashes (URL-encoded) included, so that every
    name reaches the handler, which answers IBM's error for a bad one (Starlette's ``path`` stops at a line end)."""

    regex = "(?s:.+)"

    def convert(self, value: str) -> str:
        return value

    def to_string(self, value: str) -> str:
        return value


register_url_convertor("mqname", _AnyName())


def create_app(
    qmgr: str,
    connect: Callable[[str], QueueManager],
    authenticator: Authenticator,
    *,
    put1: PutHook | None = None,
    release: Callable[[QueueManager], None] | None = None,
    mounts: Sequence[BaseRoute] = (),
) -> Starlette:
    """The REST API of queue manager ``qmgr``: ``connect(user)`` opens a connection running as ``user``;
    ``authenticator`` checks basic-auth credentials; ``mounts`` are more routes on the same port (a console)."""
    rest = Rest(qmgr, connect, authenticator, put1, release)

    async def qmgr_list(request: Request) -> Response:
        await guard(request, rest.authenticator)
        name = request.path_params.get("qmgr")
        if name is not None:
            rest.check_qmgr(name)
        return JSONResponse({"qmgr": [{"name": rest.qmgr, "state": "running"}]})

    async def queue_resource(request: Request) -> Response:
        user = await guard(request, rest.authenticator)
        if "queue" in request.path_params:
            rest.check_queue(request.path_params["queue"])
        return await get_queues(rest, request, user, request.path_params["qmgr"], request.path_params.get("queue"))

    async def mqsc(request: Request) -> Response:
        user = await guard(request, rest.authenticator)
        return await post_mqsc(rest, request, user, request.path_params["qmgr"])

    async def message(request: Request) -> Response:
        user = await guard(request, rest.authenticator)
        qm_name, queue = request.path_params["qmgr"], request.path_params["queue"]
        rest.check_qmgr(qm_name)
        rest.check_queue(queue)
        if request.method == "POST":
            return await post_message(rest, request, user, qm_name, queue)
        return await get_message(rest, request, user, qm_name, queue, browse=request.method == "GET")

    async def message_list(request: Request) -> Response:
        user = await guard(request, rest.authenticator)
        qm_name, queue = request.path_params["qmgr"], request.path_params["queue"]
        rest.check_qmgr(qm_name)
        rest.check_queue(queue)
        return await get_message_list(rest, request, user, qm_name, queue)

    async def openapi(request: Request) -> Response:
        return JSONResponse(openapi_document(PREFIX))

    async def rest_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, RestError)
        return exc.response()

    api = [
        ("/admin/qmgr", qmgr_list, "GET"),
        ("/admin/qmgr/{qmgr}", qmgr_list, "GET"),
        ("/admin/qmgr/{qmgr}/queue", queue_resource, "GET"),
        ("/admin/qmgr/{qmgr}/queue/{queue:mqname}", queue_resource, "GET"),
        ("/admin/action/qmgr/{qmgr}/mqsc", mqsc, "POST"),
        ("/messaging/qmgr/{qmgr}/queue/{queue:mqname}/message", message, "POST DELETE GET"),
        ("/messaging/qmgr/{qmgr}/queue/{queue:mqname}/messagelist", message_list, "GET"),
        ("/openapi.json", openapi, "GET"),
    ]
    # full paths, not a Mount: a Mount's pattern stops at a line end, and a queue name may hold one
    routes: list[BaseRoute] = [Route(PREFIX + path, fn, methods=methods.split()) for path, fn, methods in api]
    routes += [Route(f"/ibmmq/rest/{v}/admin/action/qmgr/{{qmgr}}/mqsc", mqsc, methods=["POST"]) for v in ("v1", "v2")]
    routes += mounts

    async def not_allowed(request: Request, exc: Exception) -> Response:
        allowed = getattr(exc, "headers", None) or {}
        return RestError(
            405,
            "MQWB2005E",
            f"The {request.method[:10]} HTTP method is not allowed for the {request.url.path[:200]} resource request.",
            "A recognized resource request has been made, but it does not support the specified method.",
            f"Update the request to use one of the methods this resource supports: {allowed.get('Allow', '')}.",
            headers=dict(allowed),
        ).response()

    async def mq_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, MQMIError)
        return unexpected_mq_failure(exc).response()

    async def server_error(request: Request, exc: Exception) -> Response:
        log.error("REST request %s %s failed", request.method, request.url.path, exc_info=exc)
        return unexpected(exc).response()

    handlers: dict[Any, Any] = {
        RestError: rest_error,
        MQMIError: mq_error,
        405: not_allowed,
        Exception: server_error,
    }
    return Starlette(routes=routes, exception_handlers=handlers)
