"""The messaging API's headers and query parameters, both ways: ``ibm-mq-md-*`` to and from MQMD fields,
``ibm-mq-usr`` user properties, the ``messageId`` / ``correlationId`` / ``wait`` query parameters, and the body's
media type and character set.

IBM's REST API v3 rules (POST / DELETE / GET ``…/message``): ``ibm-mq-md-persistence`` is ``persistent`` or
``nonPersistent``; ``ibm-mq-md-expiry`` is ``unlimited`` or a number of milliseconds (MQMD.Expiry counts tenths of
a second, so it is rounded up to whole tenths); ``ibm-mq-md-priority`` 0-9; ``ibm-mq-md-replyTo`` is
``queue[@qmgr]``. Identifiers, in REST API v3's forms (IBM, "POST" / "DELETE" / "GET" of
``/messaging/qmgr/{qmgrName}/queue/{queueName}/message``, MQ 9.2.5 and later: "The ibm-mq-md-correlationId request
header has a different format in REST API V3. The header can be an application-specific ID, or, if an encoded
string, requires the ID: prefix"; "The ibm-mq-md-messageId response header and query parameter has a different
format in REST API V3, it retains the ID: prefix"):

- a message identifier, answered and asked for, is ``ID:`` and 48 hexadecimal digits (24 bytes); without ``ID:``
  it is refused, as v3 no longer takes v1 / v2's bare digits;
- a correlation identifier is ``ID:`` and 48 hexadecimal digits (its 24 bytes), or an application's own
  identifier (JMS's application-specific JMSCorrelationID: it cannot begin with ``ID:``): 1 to 24 printable ASCII
  characters (so the same in a header as in a URL), put as CorrelId padded with NULs and, as IBM's mqweb makes such
  a message a JMS TextMessage, as its JMSCorrelationID property (``<jms><Cid>``). An answer gives a message's
  JMSCorrelationID when it has one of that form, else ``ID:`` and CorrelId's digits when CorrelId is not
  MQCI_NONE: what JMS's getJMSCorrelationID answers. Either form selects (matches CorrelId) on GET / DELETE.

Every bad value is refused (MQWB0302E, 400) before the queue manager is asked anything.

``ibm-mq-usr`` carries user properties, in either of two forms (one header may hold several, comma-separated;
several headers add up):

- JSON's, as IBM's REST API v3 writes them: ``"name": value`` items, the value a JSON string, number, ``true`` /
  ``false`` or ``null``. A string is a STRING property, a whole number an INT64 (JMS's long), a number with a
  fraction or an exponent a FLOAT64 (JMS's double), true / false a BOOLEAN, null a NULL — the types IBM's
  JSON-to-JMS mapping gives them.
- ``name;value;type`` items (the syntax of IBM's HTTP bridge, ``x-msg-usr``: a string value is quoted, ``\\"``
  inside one is a quote), ``type`` one of string, boolean, i1, i2, i4, i8, r4, r8, for a type JSON cannot name.

They are validated here and handed to the put as :class:`UserProperty` values. A GET or DELETE answers the
message's user properties in the first form (:func:`usr_header`), so a header that came back can be sent again
as it is: a property of type i1 - i8 comes back as a JSON whole number, r4 / r8 with a fraction or exponent, and a
byte-string property, which JMS (and so IBM's REST API) cannot carry, is left out.
"""

from __future__ import annotations

import codecs
import json
import re
from dataclasses import dataclass
from typing import Any

from syncpoint.mqi import MQMD
from syncpoint.mqi import constants as C

from ._errors import RestError, bad_header, bad_query, bad_request

MD = "ibm-mq-md-"
USR = "ibm-mq-usr"
_MSG_ID = re.compile(r"ID:([0-9A-Fa-f]{48})")
_APP_ID = re.compile(r"(?!ID:)[\x20-\x7e]{1,24}")  # an application's correlation identifier
_PROPERTY_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.]{0,4094}")
_INT_RANGES = {"i1": 8, "i2": 16, "i4": 32, "i8": 64}
TEXT_TYPES = ("text/", "application/json", "application/xml", "application/javascript")
BINARY_TYPE = "application/octet-stream"
MAX_WAIT_MS = 2_147_483_647  # MQWI_UNLIMITED's neighbour: the largest WaitInterval


@dataclass(frozen=True)
class UserProperty:
    name: str
    type: str  # string, boolean, i1, i2, i4, i8, r4, r8, null
    value: Any


def message_id(value: str, what: str = "messageId") -> bytes:
    """A message identifier as REST API v3 takes it: ``ID:`` and 48 hexadecimal digits (the ``messageId`` query
    parameter)."""
    m = _MSG_ID.fullmatch(value)
    if m is None:
        raise bad_query(
            what,
            value,
            "A message identifier is ID: and 48 hexadecimal digits (24 bytes), as answered in "
            "ibm-mq-md-messageId: REST API v3 keeps the ID: prefix.",
        )
    return bytes.fromhex(m.group(1))


@dataclass(frozen=True)
class CorrelationId:
    """A correlation identifier as sent: the MQMD's CorrelId and, for an application's own identifier, its text
    (the message's JMSCorrelationID)."""

    correl: bytes
    app: str | None = None


def correlation_id(value: str, where: str = f"{MD}correlationId") -> CorrelationId:
    """``ID:`` and 48 hexadecimal digits, or an application's identifier (1 to 24 printable ASCII characters, not
    starting ``ID:``). ``where`` is the header's name, or ``correlationId`` for the query parameter."""
    refuse = bad_header if where.startswith(MD) else bad_query
    if value.startswith("ID:"):
        m = _MSG_ID.fullmatch(value)
        if m is None:
            raise refuse(where, value, "After ID: a correlation identifier is 48 hexadecimal digits (24 bytes).")
        return CorrelationId(bytes.fromhex(m.group(1)))
    if not _APP_ID.fullmatch(value):
        why = "more than 24 characters" if len(value) > 24 else "empty" if not value else "not printable ASCII"
        raise refuse(
            where,
            value,
            f"An application's correlation identifier is 1 to 24 printable ASCII characters; this is "
            f"{why}. Any other identifier is sent as ID: and 48 hexadecimal digits.",
        )
    return CorrelationId(value.encode("ascii").ljust(24, b"\0"), value)


def correlation_text(md: MQMD, props: dict[str, tuple[int, Any]] | None) -> str | None:
    """The ``ibm-mq-md-correlationId`` of a message, as JMS's getJMSCorrelationID: its JMSCorrelationID when that
    is an application's identifier this API takes back, else ``ID:`` and CorrelId's digits; None when CorrelId is
    MQCI_NONE and there is no such property."""
    ptype, value = (props or {}).get("JMSCorrelationID", (None, None))
    if ptype == C.MQTYPE_STRING and isinstance(value, str) and _APP_ID.fullmatch(value):
        return value
    return "ID:" + md.CorrelId.hex() if md.CorrelId != C.MQCI_NONE else None


def md_from_headers(headers: Any, qmgr: str) -> MQMD:
    """The MQMD of a POST from its ``ibm-mq-md-*`` headers (IBM's defaults for those absent)."""
    md = MQMD()
    known = {"correlationid", "persistence", "expiry", "replyto", "priority"}
    for key in headers:
        k = key.lower()
        if k.startswith(MD) and k[len(MD) :] not in known:
            raise bad_header(key, headers[key], f"{key} is not a header of the messaging API's POST.")
    if (v := headers.get(MD + "correlationId")) is not None:
        md.CorrelId = correlation_id(v).correl
    if (v := headers.get(MD + "persistence")) is not None:
        if v not in ("persistent", "nonPersistent"):
            raise bad_header(MD + "persistence", v, "The persistence is persistent or nonPersistent.")
        md.Persistence = C.MQPER_PERSISTENT if v == "persistent" else C.MQPER_NOT_PERSISTENT
    if (v := headers.get(MD + "expiry")) is not None:
        if v == "unlimited":
            md.Expiry = C.MQEI_UNLIMITED
        elif v.isdigit() and 0 < int(v) <= 214_748_364_700:
            md.Expiry = -(-int(v) // 100)  # tenths of a second, rounded up
        else:
            raise bad_header(MD + "expiry", v, "The expiry is unlimited or a positive number of milliseconds.")
    if (v := headers.get(MD + "priority")) is not None:
        if not (v.isdigit() and int(v) <= 9):
            raise bad_header(MD + "priority", v, "The priority is a number from 0 to 9.")
        md.Priority = int(v)
    if (v := headers.get(MD + "replyTo")) is not None:
        queue, _, qm = v.partition("@")
        if not queue or len(queue.encode()) > 48 or len(qm.encode()) > 48:
            raise bad_header(MD + "replyTo", v, "The reply-to destination is queue or queue@qmgr, each 1-48 bytes.")
        md.ReplyToQ = queue.encode()
        md.ReplyToQMgr = (qm or qmgr).encode()
    return md


def headers_from_md(md: MQMD, props: dict[str, tuple[int, Any]] | None = None) -> dict[str, str]:
    """The ``ibm-mq-md-*`` headers answering a GET or DELETE (``props``: the message's properties)."""
    out = {
        MD + "messageId": "ID:" + md.MsgId.hex(),
        MD + "persistence": "persistent" if md.Persistence == C.MQPER_PERSISTENT else "nonPersistent",
        MD + "priority": str(md.Priority),
        MD + "expiry": "unlimited" if md.Expiry == C.MQEI_UNLIMITED else str(md.Expiry * 100),
    }
    if (correl := correlation_text(md, props)) is not None:
        out[MD + "correlationId"] = correl
    reply_q = md.ReplyToQ.rstrip(b" \0").decode("utf-8", "replace")
    if reply_q:
        reply_qm = md.ReplyToQMgr.rstrip(b" \0").decode("utf-8", "replace")
        out[MD + "replyTo"] = f"{reply_q}@{reply_qm}" if reply_qm else reply_q
    return out


def _split_items(text: str) -> list[str]:
    """Split at commas outside double quotes."""
    items, cur, quoted, escaped = [], [], False, False
    for ch in text:
        if escaped:
            cur.append(ch)
            escaped = False
        elif ch == "\\" and quoted:
            cur.append(ch)
            escaped = True
        elif ch == '"':
            quoted = not quoted
            cur.append(ch)
        elif ch == "," and not quoted:
            items.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    if quoted:
        raise ValueError("a quoted value is not closed")
    items.append("".join(cur))
    return [i.strip() for i in items if i.strip()]


def user_properties(values: list[str]) -> list[UserProperty]:
    """Every ``ibm-mq-usr`` header's properties, validated (either form, see the module's docstring)."""
    out: list[UserProperty] = []
    for raw in values:
        if raw.lstrip().startswith('"'):
            out.extend(_json_properties(raw))
            continue
        try:
            items = _split_items(raw)
        except ValueError as e:
            raise bad_header(USR, raw, f"The user properties cannot be read: {e}.") from None
        for item in items:
            out.append(_property(item))
    return out


def _property(item: str) -> UserProperty:
    name, sep, rest = item.partition(";")
    if not sep:
        raise bad_header(USR, item, "A user property is name;value;type.")
    value, sep, kind = rest.rpartition(";")
    name, value, kind = name.strip(), value.strip(), kind.strip().lower()
    if not sep or not _PROPERTY_NAME.fullmatch(name) or name.upper().startswith(("JMS", "USR.", "MQ")):
        raise bad_header(USR, item, f"{name!r} is not a user property name (letters, digits, _ and .).")
    try:
        if kind == "string":
            if len(value) < 2 or value[0] != '"' or value[-1] != '"':
                raise ValueError("a string value is quoted")
            return UserProperty(name, kind, value[1:-1].replace('\\"', '"').replace("\\\\", "\\"))
        if kind == "boolean":
            if value.lower() not in ("true", "false"):
                raise ValueError("a boolean is true or false")
            return UserProperty(name, kind, value.lower() == "true")
        if kind in _INT_RANGES:
            n = int(value)
            bits = _INT_RANGES[kind]
            if not -(2 ** (bits - 1)) <= n < 2 ** (bits - 1):
                raise ValueError(f"{n} is out of range for {kind}")
            return UserProperty(name, kind, n)
        if kind in ("r4", "r8"):
            return UserProperty(name, kind, float(value))
    except ValueError as e:
        raise bad_header(USR, item, f"The value of user property {name} is not valid: {e}.") from None
    raise bad_header(USR, item, f"{kind!r} is not a property type (string, boolean, i1, i2, i4, i8, r4, r8).")


_JSON_TYPES: dict[type, str] = {str: "string", bool: "boolean", int: "i8", float: "r8", type(None): "null"}


def _json_properties(raw: str) -> list[UserProperty]:
    """``"name": value, …`` (IBM's REST API v3 form): the members of a JSON object without its braces."""
    try:
        pairs: list[tuple[str, Any]] = json.loads("{" + raw + "}", object_pairs_hook=list)  # a nested one: a list
    except ValueError as e:
        raise bad_header(USR, raw, f'The user properties are not "name": value items in JSON: {e}.') from None
    out: list[UserProperty] = []
    for name, value in pairs:
        kind = _JSON_TYPES.get(type(value))
        if kind is None:
            raise bad_header(USR, raw, f"The value of user property {name} is a string, number, boolean or null.")
        if not _PROPERTY_NAME.fullmatch(name) or name.upper().startswith(("JMS", "USR.", "MQ")):
            raise bad_header(USR, raw, f"{name!r} is not a user property name (letters, digits, _ and .).")
        if kind == "i8" and not -(2**63) <= value < 2**63:
            raise bad_header(USR, raw, f"The value of user property {name} is out of range for a long (i8).")
        out.append(UserProperty(name, kind, value))
    return out


def usr_header(props: dict[str, tuple[int, Any]] | None) -> str | None:
    """The ``ibm-mq-usr`` header answering a GET or DELETE: the message's user properties as ``"name": value``
    items, JSON-typed (ASCII only: other characters as JSON's ``\\u`` escapes); None when it has none. The names
    IBM reserves (``JMS…``, ``mq…``) are not user properties; a ``usr.`` prefix is dropped, as JMS shows it; a
    byte string (no JMS property type) is left out."""
    items: list[str] = []
    for name, (ptype, value) in (props or {}).items():
        if name.upper().startswith(("JMS", "MQ", "ROOT.")) or ptype == C.MQTYPE_BYTE_STRING:
            continue
        shown = name[4:] if name.startswith("usr.") else name
        if ptype in (C.MQTYPE_FLOAT32, C.MQTYPE_FLOAT64):
            text = json.dumps(float(value))
        elif ptype == C.MQTYPE_BOOLEAN:
            text = "true" if value else "false"
        else:
            text = json.dumps(value)
        items.append(f"{json.dumps(shown)}: {text}")
    return ", ".join(items) or None


def wait_interval(value: str | None) -> int:
    """The DELETE's ``wait`` query parameter: milliseconds, 0 (the default) not waiting."""
    if value is None:
        return 0
    if not value.isdigit() or int(value) > MAX_WAIT_MS:
        raise bad_request("MQWB0302E", f"The wait value {value[:40]} is not a number of milliseconds.")
    return int(value)


def body_format(content_type: str | None, body: bytes) -> tuple[bytes, bytes]:
    """The message's (Format, data) from the request's media type: text in any character set Python knows is
    put as UTF-8 with Format MQSTR; ``application/octet-stream`` is put as it came with Format MQFMT_NONE."""
    if not content_type:
        raise _media(content_type)
    media, _, params = content_type.partition(";")
    media = media.strip().lower()
    if media == BINARY_TYPE:
        return C.MQFMT_NONE, body
    if not media.startswith(TEXT_TYPES):
        raise _media(content_type)
    charset = "utf-8"
    for p in params.split(";"):
        k, _, v = p.partition("=")
        if k.strip().lower() == "charset":
            charset = v.strip().strip('"') or "utf-8"
    try:
        codec = codecs.lookup(charset)
    except LookupError:
        raise _charset(charset, "it is not a character set this server knows") from None
    try:
        text = body.decode(codec.name)
    except UnicodeDecodeError as e:
        raise _charset(charset, f"the body is not valid {charset} text (byte {e.start})") from None
    return C.MQFMT_STRING, text.encode("utf-8") if codec.name != "utf-8" else body


def _media(content_type: str | None) -> RestError:
    return RestError(
        415,
        "MQWB0306E",
        "The media type is unsupported for this type of request.",
        f"The request's Content-Type is {content_type or 'missing'}: a message is text (text/*, application/json, "
        f"application/xml, with a charset) or bytes ({BINARY_TYPE}).",
        "Resubmit the request with a supported Content-Type.",
    )


def _charset(charset: str, why: str) -> RestError:
    return RestError(
        400,
        "MQWB0305E",
        f"The character set {charset[:40]} is not acceptable for the request.",
        f"The request is encoded using an unacceptable character set: {why}.",
        "Resubmit the request as UTF-8 text, or as application/octet-stream.",
    )
