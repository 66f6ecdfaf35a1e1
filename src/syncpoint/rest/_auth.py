"""Who a REST request is, and whether it may run: basic authentication, the CSRF header, cross-site refusal.

Theory of operation: every handler starts with :func:`guard`, the one place where a request names its user.
The order is IBM mqweb's: a request from another site (a browser's ``Origin`` naming another host, or
``Sec-Fetch-Site: cross-site``) is refused (403) before anything else; then the ``Authorization: Basic`` header
is checked against the queue manager's users (``users.json``, the native protocol's own list) by the
:class:`Authenticator` the server gives the app — a wrong or missing credential is 401 with IBM's MQWB0104E and a
``WWW-Authenticate`` challenge, answered after the same throttle delay as a failed native hello; then a POST,
PUT, PATCH or DELETE without the ``ibm-mq-rest-csrf-token`` header (any value, as IBM) is 403 with MQWB0100E. The
user found here is the identity the request's queue-manager connection runs as (its MQMD UserIdentifier), so
the object authority manager's checks see REST requests as they see native ones.
"""

from __future__ import annotations

import base64
import binascii
from typing import Protocol
from urllib.parse import urlsplit

from starlette.requests import Request

from ._errors import RestError

CSRF_HEADER = "ibm-mq-rest-csrf-token"
UNSAFE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
REALM = 'Basic realm="IBM MQ REST API"'


class Authenticator(Protocol):
    """Checks a user and password (the server's users.json); a failure answers late, as the native protocol's
    failed hellos do (``source``: the client's address, whose failures are throttled together)."""

    async def authenticate(self, user: str, password: str, source: str) -> bool: ...


def not_authenticated(path: str) -> RestError:
    return RestError(
        401,
        "MQWB0104E",
        f"The REST API request to {path} is not authenticated.",
        "The request carried no user and password, or they are not those of a user of this queue manager.",
        "Resubmit the request with the user and password of a user of the queue manager (syncpoint passwd).",
        headers={"WWW-Authenticate": REALM},
    )


def cross_site(origin: str) -> RestError:
    return RestError(
        403,
        "MQWB0101E",
        f"The request from {origin[:200]} was refused: requests from another site are not accepted.",
        "A browser sent this request on behalf of a page of another site (its Origin or Sec-Fetch-Site header "
        "says so); the REST API serves only its own site and programs that are not browsers.",
        "Send the request from a page served by this server, or from a program.",
    )


def csrf_missing() -> RestError:
    return RestError(
        403,
        "MQWB0100E",
        f"The CSRF header {CSRF_HEADER} was omitted from the request.",
        "The REST API request cannot be completed because the CSRF header was omitted.",
        "Resubmit the request with the correct CSRF header.",
    )


def _same_origin(request: Request, origin: str) -> bool:
    parts = urlsplit(origin)
    host = request.headers.get("host", "")
    return bool(parts.netloc) and parts.netloc.lower() == host.lower() and parts.scheme == request.url.scheme


def basic_credentials(header: str | None) -> tuple[str, str] | None:
    """``Authorization: Basic base64(user:password)`` as (user, password); None when absent or malformed."""
    if not header:
        return None
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "basic" or not token.strip():
        return None
    try:
        raw = base64.b64decode(token.strip(), validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError):
        return None
    user, sep, password = raw.partition(":")
    if not sep or not user:
        return None
    return user, password


async def guard(request: Request, authenticator: Authenticator) -> str:
    """The request's user, once it may run; a :class:`RestError` (403 / 401) when it may not."""
    origin = request.headers.get("origin")
    if (origin is not None and origin != "null" and not _same_origin(request, origin)) or (
        origin == "null" or request.headers.get("sec-fetch-site") == "cross-site"
    ):
        raise cross_site(origin or request.headers.get("referer") or "another site")
    credentials = basic_credentials(request.headers.get("authorization"))
    source = request.client.host if request.client else ""
    if credentials is None:
        raise not_authenticated(request.url.path)
    user, password = credentials
    if not await authenticator.authenticate(user, password, source):
        raise not_authenticated(request.url.path)
    if request.method in UNSAFE_METHODS and CSRF_HEADER not in request.headers:
        raise csrf_missing()
    return user
