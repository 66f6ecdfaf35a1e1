"""IBM's REST API error answers: an HTTP status and the JSON body ``{"error": [{...}]}``.

IBM's documented shape ("REST API error handling"): one object per error with ``type``, ``msgId``, ``message``,
``explanation``, ``action``, and ``completionCode`` / ``reasonCode`` (the MQCC / MQRC of a failed MQ call; 0 when
the error is the REST API's own). Message numbers are IBM's MQWB messages where IBM has one for the case
(MQWB0009E queue manager not found, MQWB0100E CSRF header omitted, MQWB0103E not authorized, MQWB0104E not
authenticated, MQWB0300E destination not found, MQWB0302E bad header value, MQWB0303E a messaging call failed,
MQWB0305E bad character set, MQWB0306E unsupported media type, MQWB0004E an administrative call failed).
Where IBM's catalogue has no number for a case syncpoint's REST API refuses, the answer uses the nearest IBM
message (MQWB2004E "The body of the request could not be parsed" for malformed JSON; MQWB0101E for a request
from another site).
"""

from __future__ import annotations

from typing import Any

from starlette.responses import JSONResponse

from syncpoint.mqi import MQMIError, reason_name
from syncpoint.mqi import constants as C

MQRCCF_COMMAND_FAILED = 3008  # IBM's PCF reason for an MQSC command that failed (cmqcfc.h)


class RestError(Exception):
    """An error answered as IBM's error JSON with ``status``."""

    def __init__(
        self,
        status: int,
        msg_id: str,
        message: str,
        explanation: str,
        action: str,
        completion: int = C.MQCC_OK,
        reason: int = C.MQRC_NONE,
        headers: dict[str, str] | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.msg_id = msg_id
        self.message = message
        self.explanation = explanation
        self.action = action
        self.completion = completion
        self.reason = reason
        self.headers = headers or {}

    def body(self) -> dict[str, Any]:
        item: dict[str, Any] = {
            "type": "rest",
            "msgId": self.msg_id,
            "message": f"{self.msg_id}: {self.message}",
            "explanation": self.explanation,
            "action": self.action,
        }
        if self.reason != C.MQRC_NONE or self.completion != C.MQCC_OK:
            item["type"] = "pcf" if self.msg_id == "MQWB0004E" else "rest"
            item["completionCode"] = self.completion
            item["reasonCode"] = self.reason
        return {"error": [item]}

    def response(self) -> JSONResponse:
        return JSONResponse(self.body(), status_code=self.status, headers=self.headers)


def bad_request(msg_id: str, message: str, action: str = "Resubmit the request, correcting the problem.") -> RestError:
    return RestError(400, msg_id, message, "The request was not valid; nothing was changed.", action)


def malformed_json(detail: str) -> RestError:
    return RestError(
        400,
        "MQWB2004E",
        "The body of the request could not be parsed.",
        f"The body is not valid JSON for this resource: {detail}.",
        "Ensure the request contains valid data that matches the data format expected for the resource.",
    )


def bad_header(name: str, value: str, why: str) -> RestError:
    return RestError(
        400,
        "MQWB0302E",
        f"The {name} request header cannot be set as {value[:80]} is not a valid request header value.",
        why,
        "Resubmit the request using a valid header value.",
    )


def bad_query(name: str, value: str, why: str) -> RestError:
    """A query parameter's bad value: IBM's MQWB0302E, worded for a query parameter (IBM's catalogue words it for
    request headers only, and has no message of its own for a query parameter)."""
    return RestError(
        400,
        "MQWB0302E",
        f"The {name} query parameter cannot be set as {value[:80]} is not a valid query parameter value.",
        why,
        "Resubmit the request using a valid query parameter value.",
    )


def qmgr_not_found(name: str) -> RestError:
    return RestError(
        404,
        "MQWB0009E",
        f"Could not find the queue manager '{name}'.",
        "The queue manager specified was not found: this REST API serves the queue manager it runs in.",
        "Resubmit the request with the name of the queue manager this server runs.",
    )


# how a failed MQ call is answered over HTTP: a missing object is 404, a refusal 403, too big 413, a full queue
# 503 (try later), a definition in the way 409; anything else is the queue manager's failure (500)
_STATUS_OF_REASON = {
    C.MQRC_UNKNOWN_OBJECT_NAME: 404,
    C.MQRC_UNKNOWN_ALIAS_BASE_Q: 404,
    C.MQRC_UNKNOWN_REMOTE_Q_MGR: 404,
    C.MQRC_NOT_AUTHORIZED: 403,
    C.MQRC_PUT_INHIBITED: 403,
    C.MQRC_GET_INHIBITED: 403,
    C.MQRC_MSG_TOO_BIG_FOR_Q: 413,
    C.MQRC_MSG_TOO_BIG_FOR_Q_MGR: 413,
    C.MQRC_Q_FULL: 503,
    C.MQRC_Q_SPACE_NOT_AVAILABLE: 503,
    C.MQRC_OBJECT_IN_USE: 409,
    C.MQRC_NOT_OPEN_FOR_INPUT: 400,
    C.MQRC_NOT_OPEN_FOR_OUTPUT: 400,
    C.MQRC_OBJECT_NAME_ERROR: 400,
    C.MQRC_Q_TYPE_ERROR: 400,
    C.MQRC_PRIORITY_ERROR: 400,
    C.MQRC_EXPIRY_ERROR: 400,
    C.MQRC_PERSISTENCE_ERROR: 400,
    C.MQRC_Q_MGR_QUIESCING: 503,
    C.MQRC_Q_MGR_STOPPING: 503,
    C.MQRC_CONNECTION_QUIESCING: 503,
}


def status_of(reason: int) -> int:
    return _STATUS_OF_REASON.get(reason, 500)


def messaging_failure(e: MQMIError, queue: str, qmgr: str, verb: str) -> RestError:
    """A failed MQ call of the messaging API: IBM's MQWB message with the call's MQCC and MQRC."""
    why = f"The MQ call failed with completion code {e.comp} and reason code {e.reason} ({reason_name(e.reason)})"
    why += f": {e.detail}." if e.detail else "."
    if e.reason == C.MQRC_NOT_AUTHORIZED:
        msg_id, message = "MQWB0103E", f"Not authorized to {verb} {queue}."
        action = "Obtain the necessary authorization to perform the operation and resubmit the request."
    elif e.reason in (C.MQRC_UNKNOWN_OBJECT_NAME, C.MQRC_UNKNOWN_ALIAS_BASE_Q):
        msg_id, message = "MQWB0300E", f"Cannot create messaging connection to {queue} on {qmgr}."
        action = "Resubmit the request with the name of a queue that exists."
    else:
        msg_id = "MQWB0303E"
        message = "An unforeseen error occurred while sending, publishing, receiving, or browsing the message."
        action = "Resubmit the request, correcting any issues."
    return RestError(status_of(e.reason), msg_id, message, why, action, e.comp, e.reason)


def admin_failure(e: MQMIError) -> RestError:
    """A failed MQ call of the administrative API: MQWB0004E with the root reason code."""
    return RestError(
        status_of(e.reason),
        "MQWB0004E",
        "An internal error occurred while communicating with the queue manager. "
        f"The root MQ reason code was {e.reason} : {reason_name(e.reason)}.",
        e.detail or f"The queue manager answered {reason_name(e.reason)}.",
        "Rectify the problem and resubmit the request.",
        e.comp,
        e.reason,
    )


def unexpected_mq_failure(e: MQMIError) -> RestError:
    """An MQ call that failed where no handler expected it (a connection refused while the queue manager ends):
    IBM's MQWB0003E with the call's codes."""
    return RestError(
        status_of(e.reason),
        "MQWB0003E",
        f"An unexpected MQ related exception {reason_name(e.reason)} occurred.",
        f"The MQ call failed with completion code {e.comp} and reason code {e.reason}"
        + (f": {e.detail}." if e.detail else "."),
        "Use the reason code to resolve the problem and resubmit the request.",
        e.comp,
        e.reason,
    )


def unexpected(e: Exception) -> RestError:
    return RestError(
        500,
        "MQWB0000E",
        f"An unexpected exception {type(e).__name__} occurred.",
        "An exception was raised that is not otherwise handled; the server's log has its traceback.",
        "Report the problem with the server's log.",
    )
