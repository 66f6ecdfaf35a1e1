"""Message properties on MQPUT and MQGET: the MQRFH2 a put carries, and the form a get delivers them in.

References: reference/properties-pubsub.md ("Message properties": PROPCTL, MQGMO_PROPERTIES_*, the MQRFH2
mapping); ``syncpoint.mqi.properties`` (names, types, the handle) and ``syncpoint.mqi.rfh2`` (the header).

Theory of operation
-------------------
A put keeps what the application gave: the properties of its message handle (MQPMO OriginalMsgHandle; the client
passes them as ``Props``) in ``Message.props``, and its data as it is, an MQRFH2 included. A put whose MQMD
Format is MQFMT_RF_HEADER_2 has its header checked first (:func:`check_put_rfh2`): one whose lengths lie is
refused with MQRC_RFH_ERROR (2334), one whose folders are not XML with MQRC_RFH_FORMAT_ERROR (2421), and nothing
is put.

A get decides the form at delivery (:func:`present`), and only for a message that has properties or starts
with an MQRFH2: every other message is delivered as before, at no extra cost. The form comes from the MQGMO
option (MQGMO_NO_PROPERTIES, _PROPERTIES_IN_HANDLE, _PROPERTIES_FORCE_MQRFH2, _PROPERTIES_COMPATIBILITY) or,
with MQGMO_PROPERTIES_AS_Q_DEF, from the queue's PROPCTL:

* NONE: no properties; the property folders of the message's MQRFH2 are removed (other folders stay).
* ALL (and MQGMO_PROPERTIES_IN_HANDLE): with a message handle, every property (the handle's and the MQRFH2's
  property folders) goes into the handle and the header's property folders leave the data; without one, they
  are delivered in an MQRFH2 in front of the data.
* COMPAT (the default): with a handle, as ALL; without one, an MQRFH2 when any property is in the ``mcd``,
  ``jms``, ``usr`` or ``mqext`` folder (a name with that prefix, or a JMS name), otherwise the handle's
  properties are dropped. An MQRFH2 the putter built is delivered as it was.
* FORCE: always in an MQRFH2, the handle ignored.
* V6COMPAT: the data as the putter built it; the handle's properties go into the getter's handle, or into an
  MQRFH2 of their own in front of the data.

A message put to a queue at another queue manager carries its properties inside the transmission message, in
an MQRFH2 in front of its data (:func:`travelling`), as IBM sends them to a partner that takes them there: the
channel moves bytes, the receiving queue manager delivers a message of Format MQHRF2, and a getter there with a
message handle reads them as properties again (PROPCTL, above).

When an MQRFH2 is added in front, the MQMD's Format, Encoding and CodedCharSetId become the header's and the
header's describe the data after it; when one is removed, the reverse. A header that cannot be read at get (put
by a queue manager that did not check it) is delivered as it was, with MQCC_WARNING and MQRC_RFH_FORMAT_ERROR.
"""

from __future__ import annotations

from typing import Any

from syncpoint.mqi import MQDLH, MQGMO, MQMIError, rfh2
from syncpoint.mqi import constants as C
from syncpoint.mqi.properties import Props

from ._util import fail

_DLH = MQDLH.size()  # an MQDLH's length (172)
PROPS_GET_OPTS = (
    C.MQGMO_NO_PROPERTIES
    | C.MQGMO_PROPERTIES_IN_HANDLE
    | C.MQGMO_PROPERTIES_FORCE_MQRFH2
    | C.MQGMO_PROPERTIES_COMPATIBILITY
)
_NONE, _ALL, _COMPAT, _FORCE, _V6 = "NONE", "ALL", "COMPAT", "FORCE", "V6COMPAT"
_MODE_OF_OPTION = {
    C.MQGMO_NO_PROPERTIES: _NONE,
    C.MQGMO_PROPERTIES_IN_HANDLE: _ALL,
    C.MQGMO_PROPERTIES_FORCE_MQRFH2: _FORCE,
    C.MQGMO_PROPERTIES_COMPATIBILITY: _COMPAT,
}
PROPCTL_VALUES: dict[object, str] = {
    C.MQPROP_COMPATIBILITY: _COMPAT,
    C.MQPROP_NONE: _NONE,
    C.MQPROP_ALL: _ALL,
    C.MQPROP_FORCE_MQRFH2: _FORCE,
    C.MQPROP_V6COMPAT: _V6,
    # a definition kept before PROPCTL was an attribute of its own holds the MQSC word
    "COMPAT": _COMPAT,
    "NONE": _NONE,
    "ALL": _ALL,
    "FORCE": _FORCE,
    "V6COMPAT": _V6,
}
_COMPAT_PREFIXES = ("mcd.", "jms.", "usr.", "mqext.", "JMS")


def has_handle(gmo: MQGMO) -> bool:
    """The MQGMO names a message handle (version 4 or more, MsgHandle not MQHM_NONE / _UNUSABLE_HMSG)."""
    return gmo.Version >= 4 and gmo.MsgHandle not in (C.MQHM_NONE, C.MQHM_UNUSABLE_HMSG)


def check_props_get_options(opts: int, gmo: MQGMO) -> None:
    """At most one MQGMO_PROPERTIES_* option (MQRC_OPTIONS_ERROR); MQGMO_PROPERTIES_IN_HANDLE needs a message
    handle (MQRC_HMSG_ERROR, 2460)."""
    chosen = opts & PROPS_GET_OPTS
    if chosen & (chosen - 1):
        raise fail(C.MQRC_OPTIONS_ERROR, "only one MQGMO_PROPERTIES_* / MQGMO_NO_PROPERTIES option may be given")
    if chosen == C.MQGMO_PROPERTIES_IN_HANDLE and not has_handle(gmo):
        raise fail(C.MQRC_HMSG_ERROR, "MQGMO_PROPERTIES_IN_HANDLE needs a message handle in MQGMO MsgHandle")


def check_put_rfh2(md_encoding: int, data: bytes) -> None:
    """A put of Format MQFMT_RF_HEADER_2: the header must hold (MQRC_RFH_ERROR / MQRC_RFH_FORMAT_ERROR)."""
    rfh2.parse(data, md_encoding)


def _mode(opts: int, qattrs: dict[str, Any]) -> str:
    chosen = opts & PROPS_GET_OPTS
    if chosen:
        return _MODE_OF_OPTION[chosen]
    return PROPCTL_VALUES.get(qattrs.get("PROPCTL", C.MQPROP_COMPATIBILITY), _COMPAT)


def present(
    props: Props | None, md: dict[str, Any], body: bytes, opts: int, gmo: MQGMO, qattrs: dict[str, Any]
) -> tuple[bytes, Props | None, int]:
    """The data a get delivers and the properties for its handle (None: none), for a message with properties
    ``props`` and/or an MQRFH2 at the start of ``body``; ``md`` (the caller's MQMD fields, already the message's)
    is changed to describe the data delivered. Returns (data, props for the handle, warning reason or 0)."""
    mode = _mode(opts, qattrs)
    handle = has_handle(gmo) and mode != _FORCE
    parsed: rfh2.Parsed | None = None
    if md["Format"] == C.MQFMT_RF_HEADER_2 and rfh2.is_rfh2(body) and mode != _V6:
        try:
            parsed = rfh2.parse(body, md["Encoding"])
        except MQMIError:
            return body, (dict(props) if props and handle else None), C.MQRC_RFH_FORMAT_ERROR
    if mode == _V6:
        if handle:
            return body, dict(props) if props else None, 0
        if props:
            return _in_front(props, [], md, body), None, 0
        return body, None, 0
    merged: Props = dict(parsed.props) if parsed is not None else {}
    if props:
        merged.update(props)
    if mode == _NONE:
        if parsed is not None and parsed.props:
            return _strip(parsed, md, body), None, 0
        return body, None, 0
    if handle:  # ALL, COMPAT, PROPERTIES_IN_HANDLE with a handle
        if parsed is not None and parsed.props:
            body = _strip(parsed, md, body)
        return body, merged or None, 0
    if mode == _COMPAT and not (parsed is not None or any(n.startswith(_COMPAT_PREFIXES) for n in props or ())):
        return body, None, 0  # no folder property: the handle's properties are not delivered
    if parsed is not None:
        if not props:
            return body, None, 0  # the MQRFH2 as the putter built it
        body = _strip(parsed, md, body, keep_others=False)
        return _in_front(merged, parsed.others, md, body), None, 0
    return _in_front(merged, [], md, body), None, 0


def _strip(parsed: rfh2.Parsed, md: dict[str, Any], body: bytes, keep_others: bool = True) -> bytes:
    """``body`` without its MQRFH2's property folders: without the header when no other folder is left."""
    rest = body[parsed.length :]
    if keep_others and parsed.others:
        return (
            rfh2.build({}, parsed.others, parsed.encoding, parsed.ccsid, parsed.format, md["Encoding"], parsed.flags)
            + rest
        )
    md["Format"] = parsed.format
    md["Encoding"] = parsed.encoding
    md["CodedCharSetId"] = parsed.ccsid
    return rest


def _in_front(props: Props, others: list[bytes], md: dict[str, Any], body: bytes) -> bytes:
    """An MQRFH2 of ``props`` in front of ``body``; the MQMD now describes the header. A dead letter keeps its
    MQDLH first: the MQRFH2 follows it, and the MQDLH's Format, Encoding and CCSID describe the header (the
    headers chained as IBM chains them), so a handler that removes the MQDLH forwards the properties too."""
    if md["Format"] == C.MQFMT_DEAD_LETTER_HEADER and len(body) >= _DLH and body[:4] == b"DLH ":
        dlh = MQDLH.unpack(body[:_DLH])
        header = rfh2.build(props, others, dlh.Encoding, dlh.CodedCharSetId, dlh.Format, dlh.Encoding)
        dlh.Format = C.MQFMT_RF_HEADER_2
        return dlh.pack() + header + body[_DLH:]
    header = rfh2.build(props, others, md["Encoding"], md["CodedCharSetId"], md["Format"], md["Encoding"])
    md["Format"] = C.MQFMT_RF_HEADER_2
    return header + body


def header_props(md: Any, body: bytes) -> tuple[Props, int]:
    """The properties of the MQRFH2 at the start of ``body`` when the MQMD (``md``: its fields as a dict) says
    Format MQHRF2, and the header's length; ({}, 0) for none, or for a header that cannot be read (such a
    message's properties are only what it keeps beside its data)."""
    if md["Format"] != C.MQFMT_RF_HEADER_2 or not rfh2.is_rfh2(body):
        return {}, 0
    try:
        parsed = rfh2.parse(body, md["Encoding"])
    except MQMIError:
        return {}, 0
    return parsed.props, parsed.length


def travelling(stored: dict[str, Any], data: bytes, props: Props) -> tuple[dict[str, Any], bytes]:
    """A message for another queue manager: its properties in an MQRFH2 in front of its data, its descriptor's
    Format MQHRF2 (the header describes the data after it)."""
    header = rfh2.build(props, [], stored["Encoding"], stored["CodedCharSetId"], stored["Format"], stored["Encoding"])
    out = dict(stored)
    out["Format"] = C.MQFMT_RF_HEADER_2
    return out, header + bytes(data)
