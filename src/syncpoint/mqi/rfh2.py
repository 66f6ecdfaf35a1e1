"""The MQRFH2 header: message properties carried in a message's data, both ways.

References: reference/properties-pubsub.md ("MQRFH2 mapping"); IBM's MQRFH2 structure page (fields StrucId,
Version, StrucLength, Encoding, CodedCharSetId, Format, Flags, NameValueCCSID, then NameValueLength /
NameValueData pairs, each NameValueData padded to a multiple of 4 bytes); MQRC_RFH_ERROR (2334),
MQRC_RFH_FORMAT_ERROR (2421).

Theory of operation
-------------------
An MQRFH2 is a 36-byte fixed part followed by folders, each an XML element (``<usr>…</usr>``) in UTF-8
(NameValueCCSID 1208). Its integers are in the encoding of the structure before it (the MQMD's Encoding); its own
Encoding, CodedCharSetId and Format describe what follows it. :func:`parse` checks every length against the
data (a StrucLength or NameValueLength that lies is MQRC_RFH_ERROR; a folder that is not well-formed XML is
MQRC_RFH_FORMAT_ERROR) and splits the folders into properties and the others (``psc``, ``pscr`` … are not
properties and stay in the header).

Mapping (both ways): a property ``X`` (no folder prefix) is ``<usr><X>``, and a dotted name ``a.b`` whose first
part names no property folder is ``<usr><a><b>``; ``usr.X`` is ``<usr><X>``; ``jms.X``, ``mcd.X``, ``mqext.X``
are ``<jms><X>`` …; the settable JMS names are their ``jms`` / ``mcd`` fields (JMSCorrelationID ``<jms><Cid>``,
JMSReplyTo ``<jms><Rto>``, JMSType ``<mcd><Type>``, JMSXGroupID ``<jms><Gid>``, JMSXGroupSeq ``<jms><Seq>``).
A value is the element's text, typed by its ``dt`` attribute (``i1 i2 i4 i8 r4 r8 boolean bin.hex``; a string
without one) and ``xsi:nil="true"`` for NULL. A folder with ``content="properties"`` is a property folder too.
"""

from __future__ import annotations

import struct
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from typing import Any

from . import constants as C
from ._errors import MQMIError
from .properties import IS_RETAINED, TOPIC_STRING, Props

FIXED = C.MQRFH_STRUC_LENGTH_FIXED_2
PROPERTY_FOLDERS = frozenset({"usr", "jms", "mcd", "mqext", "mqps"})
_JMS_FIELDS = {
    "JMSCorrelationID": ("jms", "Cid"),
    "JMSReplyTo": ("jms", "Rto"),
    "JMSType": ("mcd", "Type"),
    "JMSXGroupID": ("jms", "Gid"),
    "JMSXGroupSeq": ("jms", "Seq"),
    TOPIC_STRING: ("mqps", "Top"),  # IBM's publish/subscribe properties (``properties.TOPIC_STRING``)
    IS_RETAINED: ("mqps", "Ret"),
}
_JMS_NAMES = {v: k for k, v in _JMS_FIELDS.items()}
_DT = {
    C.MQTYPE_INT8: "i1",
    C.MQTYPE_INT16: "i2",
    C.MQTYPE_INT32: "i4",
    C.MQTYPE_INT64: "i8",
    C.MQTYPE_FLOAT32: "r4",
    C.MQTYPE_FLOAT64: "r8",
    C.MQTYPE_BOOLEAN: "boolean",
    C.MQTYPE_BYTE_STRING: "bin.hex",
}
_TYPE_OF_DT = {v: k for k, v in _DT.items()} | {"int": C.MQTYPE_INT32, "string": C.MQTYPE_STRING}
_NIL = "xsi:nil"
_XSI_OPEN = '<rfh2 xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">'


def _order(encoding: int) -> str:
    """The byte order of integers in ``encoding`` (MQENC_INTEGER_REVERSED: little-endian)."""
    return "<" if encoding & 0x0F == 2 else ">"


@dataclass(slots=True)
class Parsed:
    """An MQRFH2 read from the front of a message's data."""

    props: Props = field(default_factory=dict)  # the properties of its property folders
    others: list[bytes] = field(default_factory=list)  # its other folders, as they were
    encoding: int = C.MQENC_NATIVE  # what follows the header: its Encoding, CCSID and Format
    ccsid: int = 1208
    format: bytes = C.MQFMT_NONE
    flags: int = 0
    length: int = 0  # StrucLength: where the body starts


def is_rfh2(data: bytes) -> bool:
    return data[:4] == C.MQRFH_STRUC_ID


def parse(data: bytes, encoding: int) -> Parsed:
    """The MQRFH2 at the start of ``data`` (integers in ``encoding``). Raises MQRC_RFH_ERROR for a header whose
    lengths do not hold (StrucLength shorter than 36 or past the data, a NameValueLength past StrucLength, a
    StrucLength the folders do not fill exactly), MQRC_RFH_FORMAT_ERROR for a folder that is not XML."""
    if len(data) < FIXED or data[:4] != C.MQRFH_STRUC_ID:
        raise MQMIError(C.MQCC_FAILED, C.MQRC_RFH_ERROR, "the data does not start with a complete MQRFH2")
    o = _order(encoding)
    version, length, enc, ccsid = struct.unpack_from(o + "4i", data, 4)
    fmt = data[20:28]
    flags, _nv_ccsid = struct.unpack_from(o + "2i", data, 28)
    if version != C.MQRFH_VERSION_2:
        raise MQMIError(C.MQCC_FAILED, C.MQRC_RFH_ERROR, f"MQRFH2 Version {version} is not 2")
    if length < FIXED or length > len(data) or length % 4:
        raise MQMIError(
            C.MQCC_FAILED,
            C.MQRC_RFH_ERROR,
            f"MQRFH2 StrucLength {length} is not valid for {len(data)} bytes of data (at least 36, a multiple of 4)",
        )
    if ccsid == 0 or (ccsid < 0 and ccsid != C.MQCCSI_INHERIT):
        raise MQMIError(C.MQCC_FAILED, C.MQRC_RFH_ERROR, f"MQRFH2 CodedCharSetId {ccsid} is not valid")
    out = Parsed(encoding=enc, ccsid=ccsid, format=fmt, flags=flags, length=length)
    at = FIXED
    while at < length:
        if at + 4 > length:
            raise MQMIError(C.MQCC_FAILED, C.MQRC_RFH_ERROR, "an MQRFH2 NameValueLength runs past StrucLength")
        (n,) = struct.unpack_from(o + "i", data, at)
        at += 4
        if n < 0 or at + n > length:
            raise MQMIError(
                C.MQCC_FAILED, C.MQRC_RFH_ERROR, f"MQRFH2 NameValueLength {n} runs past StrucLength {length}"
            )
        raw = data[at : at + n]
        at += n
        _folder(raw.rstrip(b" \0"), raw, out)
    return out


def _folder(text: bytes, raw: bytes, out: Parsed) -> None:
    if not text:
        return
    try:
        # folders use the xsi prefix without declaring it (IBM's parser accepts them): declare it around them
        root = ET.fromstring(_XSI_OPEN + text.decode("utf-8") + "</rfh2>")
        if len(root) != 1 or (root.text or "").strip() or (root[0].tail or "").strip():
            raise ET.ParseError("a folder is one element")
        root = root[0]
    except (ET.ParseError, UnicodeDecodeError) as e:
        raise MQMIError(
            C.MQCC_FAILED, C.MQRC_RFH_FORMAT_ERROR, f"an MQRFH2 folder is not well-formed XML: {e}"
        ) from None
    tag = root.tag
    if tag not in PROPERTY_FOLDERS and root.get("content") != "properties":
        out.others.append(raw)
        return
    for child in root:
        _element(tag, child, [] if tag == "usr" else [tag], out.props)


def _element(folder: str, el: ET.Element, path: list[str], props: Props) -> None:
    path = [*path, el.tag]
    if len(el):
        for child in el:
            _element(folder, child, path, props)
        return
    name = _JMS_NAMES.get((path[0], path[1]), "") if len(path) == 2 else ""
    name = name or ".".join(path)
    props[name] = _value(name, el)


def _value(name: str, el: ET.Element) -> tuple[int, Any]:
    if any(k.endswith("nil") and v.strip().lower() in ("true", "1") for k, v in el.attrib.items()):
        return C.MQTYPE_NULL, None
    text = el.text or ""
    dt = el.get("dt")
    ptype = _TYPE_OF_DT.get(dt, C.MQTYPE_STRING) if dt else C.MQTYPE_STRING
    try:
        if ptype == C.MQTYPE_STRING:
            return ptype, text
        if ptype == C.MQTYPE_BOOLEAN:
            word = text.strip().lower()
            if word not in ("1", "0", "true", "false"):
                raise ValueError(word)
            return ptype, word in ("1", "true")
        if ptype == C.MQTYPE_BYTE_STRING:
            return ptype, bytes.fromhex(text.strip())
        if ptype in (C.MQTYPE_FLOAT32, C.MQTYPE_FLOAT64):
            v = float(text)
            if ptype == C.MQTYPE_FLOAT32:
                v = struct.unpack("=f", struct.pack("=f", v))[0]
            return ptype, v
        return ptype, int(text.strip())
    except (ValueError, OverflowError, struct.error):
        raise MQMIError(
            C.MQCC_FAILED, C.MQRC_RFH_FORMAT_ERROR, f"MQRFH2 property {name!r}: {text!r} is not a value of dt {dt!r}"
        ) from None


def _text(ptype: int, value: Any) -> str:
    if ptype == C.MQTYPE_BOOLEAN:
        return "1" if value else "0"
    if ptype == C.MQTYPE_BYTE_STRING:
        return bytes(value).hex()
    if ptype in (C.MQTYPE_FLOAT32, C.MQTYPE_FLOAT64):
        return repr(float(value))
    return str(value)


def _place(name: str) -> tuple[str, list[str]]:
    """The folder and the element path of a property."""
    if name in _JMS_FIELDS:
        folder, el = _JMS_FIELDS[name]
        return folder, [el]
    parts = name.split(".")
    if len(parts) > 1 and parts[0] in PROPERTY_FOLDERS:
        return parts[0], parts[1:]
    return "usr", parts


def folders(props: Props) -> list[bytes]:
    """The property folders (XML, UTF-8) of ``props``, in IBM's order: mcd, jms, usr, then the others."""
    roots: dict[str, ET.Element] = {}
    for name, (ptype, value) in props.items():
        folder, path = _place(name)
        node = roots.get(folder)
        if node is None:
            node = roots[folder] = ET.Element(folder)
        for part in path[:-1]:
            child = node.find(part)
            if child is None:
                child = ET.SubElement(node, part)
            node = child
        el = ET.SubElement(node, path[-1])
        if ptype == C.MQTYPE_NULL:
            el.set(_NIL, "true")
            continue
        dt = _DT.get(ptype)
        if dt is not None:
            el.set("dt", dt)
        el.text = _text(ptype, value)
    order = sorted(roots, key=lambda f: ({"mcd": 0, "jms": 1, "usr": 2}.get(f, 3), f))
    return [ET.tostring(roots[f], encoding="unicode").encode("utf-8") for f in order]


def build(
    props: Props, others: list[bytes], encoding: int, ccsid: int, fmt: bytes, int_encoding: int, flags: int = 0
) -> bytes:
    """An MQRFH2 holding ``props`` (and the folders ``others`` as they were) in front of data described by
    ``encoding``, ``ccsid``, ``fmt``; its own integers in ``int_encoding`` (the MQMD's Encoding)."""
    o = _order(int_encoding)
    parts: list[bytes] = []
    for raw in folders(props) + list(others):
        padded = raw + b" " * (-len(raw) % 4)
        parts.append(struct.pack(o + "i", len(padded)) + padded)
    body = b"".join(parts)
    head = C.MQRFH_STRUC_ID + struct.pack(o + "4i", C.MQRFH_VERSION_2, FIXED + len(body), encoding, ccsid)
    return head + fmt[:8].ljust(8, b" ") + struct.pack(o + "2i", flags, 1208) + body
