"""syncpoint.rest: IBM MQ's REST API (version 3 shape) for one queue manager — messaging and administration over
HTTP, for programs in any language.

    from syncpoint.rest import create_app
    app = create_app("QM1", connect=lambda user: syncpoint.connect("QM1", user=user), authenticator=...)

``strmqm`` serves it on the queue manager's ``rest-port`` when ``rest = true`` (docs/rest.md); the app is
Starlette, served by uvicorn. It reaches the queue manager only through ``syncpoint.client`` connections.

Implements: reference/operations.md ("IBM MQ REST API (mqweb), version 3"); issue 37, items 1, 2 and 5.
"""

from ._app import PREFIX, create_app
from ._auth import CSRF_HEADER, Authenticator, CredentialCache, basic_credentials
from ._context import Rest
from ._errors import RestError
from ._headers import UserProperty
from ._openapi import openapi_document

__all__ = [
    "CSRF_HEADER",
    "PREFIX",
    "Authenticator",
    "CredentialCache",
    "Rest",
    "RestError",
    "UserProperty",
    "basic_credentials",
    "create_app",
    "openapi_document",
]
