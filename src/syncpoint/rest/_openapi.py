"""The OpenAPI 3 document of the REST API (served at ``/ibmmq/rest/v3/openapi.json``): every route, parameter,
header, body and answer the app serves, so that generated clients and property-based tests (schemathesis) see
the API as it is."""

from __future__ import annotations

from typing import Any

from ._messagelist import MAX_LIST

_ERROR = {
    "type": "object",
    "required": ["error"],
    "properties": {
        "error": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["type", "msgId", "message", "explanation", "action"],
                "properties": {
                    "type": {"type": "string"},
                    "msgId": {"type": "string", "pattern": "^MQWB[0-9]{4}[IWES]$"},
                    "message": {"type": "string"},
                    "explanation": {"type": "string"},
                    "action": {"type": "string"},
                    "completionCode": {"type": "integer"},
                    "reasonCode": {"type": "integer"},
                },
            },
        }
    },
}


def _errors(*codes: int) -> dict[str, Any]:
    words = {
        400: "The request is not valid (IBM's error JSON)",
        401: "Not authenticated (MQWB0104E)",
        403: "Refused: not authorized, no CSRF header, or another site's request",
        404: "No such queue manager or queue",
        409: "The object is in use",
        413: "The message is longer than MAXMSGL",
        415: "Unsupported media type",
        500: "The queue manager failed the call",
        503: "The queue manager or queue cannot take it now (full, quiescing)",
    }
    return {
        str(c): {
            "description": words[c],
            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}},
        }
        for c in codes
    }


def _path(name: str, description: str) -> dict[str, Any]:
    return {"name": name, "in": "path", "required": True, "description": description, "schema": {"type": "string"}}


def _header(name: str, description: str, schema: dict[str, Any] | None = None) -> dict[str, Any]:
    return {
        "name": name,
        "in": "header",
        "required": False,
        "description": description,
        "schema": schema or {"type": "string"},
    }


_CSRF = {
    "name": "ibm-mq-rest-csrf-token",
    "in": "header",
    "required": True,
    "description": "Any value: its presence shows the request is not a browser's cross-site form",
    "schema": {"type": "string"},
}
# REST API v3's identifiers: a message's is ID: and 48 hexadecimal digits; a correlation identifier is that, or an
# application's own of 1 to 24 printable ASCII characters not starting ID:
_MSG_ID = "^ID:[0-9a-fA-F]{48}$"
_CORREL_ID = "^(ID:[0-9a-fA-F]{48}|(?!ID:)[\\x20-\\x7e]{1,24})$"
_MD_OUT = {
    f"ibm-mq-md-{n}": {"schema": {"type": "string"}, "description": d}
    for n, d in (
        ("messageId", "MsgId: ID: and 48 hexadecimal digits (REST API v3's form)"),
        (
            "correlationId",
            "The application's correlation identifier (JMSCorrelationID), or CorrelId as ID: and 48 hexadecimal digits",
        ),
        ("persistence", "persistent or nonPersistent"),
        ("expiry", "unlimited or milliseconds"),
        ("priority", "0-9"),
        ("replyTo", "queue@qmgr"),
    )
}
_MD_OUT["ibm-mq-md-messageId"]["schema"] = {"type": "string", "pattern": _MSG_ID}
_MD_OUT["ibm-mq-md-correlationId"]["schema"] = {"type": "string", "pattern": _CORREL_ID}
_MD_OUT["ibm-mq-usr"] = {"schema": {"type": "string"}, "description": 'user properties: "name": JSON value, …'}
_SUMMARY = {
    "type": "object",
    "required": ["messageId", "format", "persistence", "priority", "expiry", "timestamp", "length"],
    "properties": {
        "messageId": {"type": "string", "pattern": _MSG_ID},
        "correlationId": {"type": "string", "pattern": _CORREL_ID},
        "format": {"type": "string"},
        "persistence": {"type": "string", "enum": ["persistent", "nonPersistent"]},
        "priority": {"type": "integer", "minimum": 0},
        "expiry": {"oneOf": [{"type": "integer", "minimum": 0}, {"type": "string", "enum": ["unlimited"]}]},
        "replyTo": {"type": "string"},
        "timestamp": {"type": "string"},
        "length": {"type": "integer", "minimum": 0},
    },
}
_MESSAGE_LIST = {
    "type": "object",
    "required": ["messages"],
    "properties": {"messages": {"type": "array", "items": {"$ref": "#/components/schemas/MessageSummary"}}},
}
_BODY_OUT = {
    "text/plain": {"schema": {"type": "string"}},
    "application/octet-stream": {"schema": {"type": "string", "format": "binary"}},
}
_QMGR = _path("qmgr", "The queue manager's name")
_QUEUE = _path("queue", "The queue's name (URL-encoded when it holds / . or %)")
_SELECT = [
    {
        "name": "messageId",
        "in": "query",
        "required": False,
        "description": "Only the message with this MsgId: ID: and 48 hexadecimal digits",
        "schema": {"type": "string", "pattern": _MSG_ID},
    },
    {
        "name": "correlationId",
        "in": "query",
        "required": False,
        "description": "Only messages with this correlation identifier: ID: and 48 hexadecimal digits, or an "
        "application's own (1 to 24 printable ASCII characters)",
        "schema": {"type": "string", "pattern": _CORREL_ID},
    },
]


def openapi_document(prefix: str) -> dict[str, Any]:
    ok_json = {"description": "OK", "content": {"application/json": {"schema": {"type": "object"}}}}
    message = f"{prefix}/messaging/qmgr/{{qmgr}}/queue/{{queue}}/message"
    return {
        "openapi": "3.0.3",
        "info": {
            "title": "syncpoint REST API (IBM MQ REST API v3 shape)",
            "version": "3",
            "description": "Messaging and administration of one syncpoint queue manager, in IBM MQ's REST API "
            "v3 shape. Every request uses basic authentication; POST and DELETE need ibm-mq-rest-csrf-token.",
        },
        "components": {
            "securitySchemes": {"basic": {"type": "http", "scheme": "basic"}},
            "schemas": {"Error": _ERROR, "MessageSummary": _SUMMARY, "MessageList": _MESSAGE_LIST},
        },
        "security": [{"basic": []}],
        "paths": {
            f"{prefix}/admin/qmgr": {
                "get": {"summary": "The queue managers served", "responses": {"200": ok_json, **_errors(401, 403)}}
            },
            f"{prefix}/admin/qmgr/{{qmgr}}": {
                "get": {
                    "summary": "One queue manager",
                    "parameters": [_QMGR],
                    "responses": {"200": ok_json, **_errors(401, 403, 404)},
                }
            },
            f"{prefix}/admin/qmgr/{{qmgr}}/queue": {
                "get": {
                    "summary": "Queues, in IBM's JSON shape",
                    "parameters": [
                        _QMGR,
                        {"name": "name", "in": "query", "required": False, "schema": {"type": "string"}},
                        {
                            "name": "type",
                            "in": "query",
                            "required": False,
                            "schema": {"type": "string", "enum": ["all", "local", "alias", "remote", "model"]},
                        },
                        {"name": "attributes", "in": "query", "required": False, "schema": {"type": "string"}},
                        {"name": "status", "in": "query", "required": False, "schema": {"type": "string"}},
                    ],
                    "responses": {"200": ok_json, **_errors(400, 401, 403, 404)},
                }
            },
            f"{prefix}/admin/qmgr/{{qmgr}}/queue/{{queue}}": {
                "get": {
                    "summary": "One queue, in IBM's JSON shape",
                    "parameters": [
                        _QMGR,
                        _QUEUE,
                        {"name": "attributes", "in": "query", "required": False, "schema": {"type": "string"}},
                        {"name": "status", "in": "query", "required": False, "schema": {"type": "string"}},
                    ],
                    "responses": {"200": ok_json, **_errors(400, 401, 403, 404)},
                }
            },
            f"{prefix}/admin/action/qmgr/{{qmgr}}/mqsc": {
                "post": {
                    "summary": "Run an MQSC command (runCommand: text; runCommandJSON: structured)",
                    "parameters": [_QMGR, _CSRF],
                    "requestBody": {
                        "required": True,
                        "content": {
                            "application/json": {
                                "schema": {
                                    "type": "object",
                                    "required": ["type"],
                                    "properties": {
                                        "type": {"type": "string", "enum": ["runCommand", "runCommandJSON"]},
                                        "parameters": {"type": "object"},
                                        "command": {"type": "string"},
                                        "qualifier": {"type": "string"},
                                        "name": {"type": "string"},
                                        "responseParameters": {"type": "array", "items": {"type": "string"}},
                                    },
                                }
                            }
                        },
                    },
                    "responses": {"200": ok_json, **_errors(400, 401, 403, 404, 415)},
                }
            },
            message: {
                "post": {
                    "summary": "Put the body as a message",
                    "parameters": [
                        _QMGR,
                        _QUEUE,
                        _CSRF,
                        _header(
                            "ibm-mq-md-correlationId",
                            "ID: and 48 hexadecimal digits, or an application's own identifier (1 to 24 printable "
                            "ASCII characters)",
                            {"type": "string", "pattern": _CORREL_ID},
                        ),
                        _header(
                            "ibm-mq-md-persistence", "", {"type": "string", "enum": ["persistent", "nonPersistent"]}
                        ),
                        _header("ibm-mq-md-expiry", "unlimited or milliseconds"),
                        _header("ibm-mq-md-priority", "0-9"),
                        _header("ibm-mq-md-replyTo", "queue[@qmgr]"),
                        _header("ibm-mq-usr", 'user properties: "name": JSON value, … or name;value;type, …'),
                    ],
                    "requestBody": {
                        "required": True,
                        "content": {
                            "text/plain": {"schema": {"type": "string"}},
                            "application/octet-stream": {"schema": {"type": "string", "format": "binary"}},
                        },
                    },
                    "responses": {
                        "201": {
                            "description": "Put",
                            "headers": {"ibm-mq-md-messageId": _MD_OUT["ibm-mq-md-messageId"]},
                        },
                        **_errors(400, 401, 403, 404, 413, 415, 500, 503),
                    },
                },
                "delete": {
                    "summary": "Get (remove) the next message",
                    "parameters": [
                        _QMGR,
                        _QUEUE,
                        _CSRF,
                        *_SELECT,
                        {"name": "wait", "in": "query", "required": False, "schema": {"type": "integer", "minimum": 0}},
                    ],
                    "responses": {
                        "200": {"description": "The message", "headers": _MD_OUT, "content": _BODY_OUT},
                        "204": {"description": "No message"},
                        **_errors(400, 401, 403, 404, 500, 503),
                    },
                },
                "get": {
                    "summary": "Browse the next message",
                    "parameters": [_QMGR, _QUEUE, *_SELECT],
                    "responses": {
                        "200": {"description": "The message", "headers": _MD_OUT, "content": _BODY_OUT},
                        "204": {"description": "No message"},
                        **_errors(400, 401, 403, 404, 500, 503),
                    },
                },
            },
            f"{message}list": {
                "get": {
                    "summary": "List the queue's messages (browsed, without their bodies), in delivery order",
                    "parameters": [
                        _QMGR,
                        _QUEUE,
                        *_SELECT,
                        {
                            "name": "limit",
                            "in": "query",
                            "required": False,
                            "schema": {"type": "integer", "minimum": 1, "maximum": MAX_LIST},
                        },
                    ],
                    "responses": {
                        "200": {
                            "description": "The messages",
                            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/MessageList"}}},
                        },
                        **_errors(400, 401, 403, 404, 500, 503),
                    },
                }
            },
        },
    }
