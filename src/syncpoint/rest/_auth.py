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
import hashlib
import hmac
import secrets
import time
from collections.abc import Callable
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


class CredentialCache:
    """Credentials that passed the password check a moment ago, so that a client sending the same basic
    credentials with every request (as HTTP clients do) pays the password hash once a minute, not at every
    request (scrypt takes ~50 ms of CPU: the REST API's requests would cost more than the messages they carry).

    It keeps, per user, an HMAC of the password under a key made for this process (never the password), the
    version of the users' file it was checked against, and when it was checked. It answers yes only for the same
    password, the same file version (``syncpoint passwd`` changes it: the next request is checked again), and
    within ``ttl`` seconds. A failed check is never cached."""

    def __init__(self, ttl: float = 60.0, clock: Callable[[], float] = time.monotonic, max_users: int = 10_000) -> None:
        self.ttl = ttl
        self.clock = clock
        self.max_users = max_users
        self._key = secrets.token_bytes(32)
        self._entries: dict[str, tuple[bytes, object, float]] = {}

    def _digest(self, user: str, password: str) -> bytes:
        return hmac.new(self._key, f"{user}\0{password}".encode("utf-8", "surrogatepass"), hashlib.sha256).digest()

    def hit(self, user: str, password: str, version: object) -> bool:
        entry = self._entries.get(user)
        if entry is None:
            return False
        digest, checked_version, when = entry
        if checked_version != version or self.clock() - when > self.ttl:
            del self._entries[user]
            return False
        return hmac.compare_digest(digest, self._digest(user, password))

    def remember(self, user: str, password: str, version: object) -> None:
        if len(self._entries) >= self.max_users:
            now = self.clock()
            for name, (_, _, when) in list(self._entries.items()):
                if now - when > self.ttl:
                    del self._entries[name]
            if len(self._entries) >= self.max_users:
                self._entries.clear()
        self._entries[user] = (self._digest(user, password), version, self.clock())
