"""Message properties: their names, types and values, the message handle that holds them, and their forms.

References: reference/properties-pubsub.md ("Message properties"); IBM's MQSETMP, MQINQMP, MQDLTMP, MQCRTMH and
MQDLTMH pages; MQRC_* 2442, 2469, 2470, 2471, 2472, 2473, 2513.

Theory of operation
-------------------
A message's properties are a ``Props`` mapping: property name -> (MQTYPE_* value, Python value), in the order
they were set. Python values are ``bool`` (BOOLEAN), ``int`` (INT8 … INT64, range-checked), ``float`` (FLOAT32,
already rounded to single precision; FLOAT64), ``str`` (STRING), ``bytes`` (BYTE_STRING) and ``None`` (NULL).
This is the form the engine's ``Message.props`` keeps, the wire carries and the client's ``msg.properties`` shows.

A :class:`MessageHandle` is MQCRTMH's handle: a ``Props`` plus the property cursor that MQINQMP with
MQIMPO_INQ_NEXT walks. It lives with the application (the client, the compat backends), as IBM's client keeps
a handle's properties in the application's process: MQSETMP / MQINQMP / MQDLTMP never reach the queue manager;
MQPUT carries the handle's properties, MQGET fills a handle.

Names follow IBM's rules (:func:`check_name`): at most 4,095 characters; dot-separated parts of Java identifier
characters (no empty part: not first, not last, no ``..``); not an SQL keyword of the selector language; not
``Body…`` nor ``Root…`` (``Root.MQMD.…`` is allowed); ``JMS…`` only for the five settable JMS names; and not a
name that would be both a value and a group of values (``a.b`` beside ``a.b.c``).

MQINQMP's type conversion (with MQIMPO_CONVERT_TYPE; without it a requested type other than the stored one is
MQRC_PROPERTY_TYPE_ERROR) is IBM's table: a BOOLEAN reads as a STRING ("TRUE" / "FALSE") or as an integer (1 /
0); an integer reads as a BOOLEAN (non-zero), a wider or narrower integer (a value that does not fit is
MQRC_PROP_CONV_NOT_SUPPORTED), a float or a STRING (decimal); a float reads as the other float or a STRING; a
STRING reads as a BOOLEAN ("TRUE"/"FALSE"/"1"/"0", any case), an integer or a float (a string that is no number
is MQRC_PROP_NUMBER_FORMAT_ERROR); a BYTE_STRING reads as nothing else; a NULL reads as NULL whatever is asked.

Properties travel in a message's data as an MQRFH2 (``rfh2``) when a getter asks for them there; inside the
store they are kept beside the packed MQMD (:func:`pack_props` / :func:`unpack_props`).
"""

from __future__ import annotations

import math
import re
import struct
from collections.abc import Iterable, Mapping
from typing import Any

import msgpack

from . import constants as C
from ._errors import MQMIError

Props = dict[str, tuple[int, Any]]
"""A message's properties: name -> (MQTYPE_* value, Python value), in the order they were set."""

# the publish/subscribe properties IBM's queue manager sets on the publications it delivers (the MQRFH2's ``mqps``
# folder): MQTopicString (``<Top>``, the publication's topic) and MQIsRetained (``<Ret>``, TRUE on a publication
# sent from the retained store: a new subscription's first delivery, MQSUBRQ)
TOPIC_STRING = "MQTopicString"
IS_RETAINED = "MQIsRetained"

TYPES: frozenset[int] = frozenset(
    {
        C.MQTYPE_NULL,
        C.MQTYPE_BOOLEAN,
        C.MQTYPE_BYTE_STRING,
        C.MQTYPE_INT8,
        C.MQTYPE_INT16,
        C.MQTYPE_INT32,
        C.MQTYPE_INT64,
        C.MQTYPE_FLOAT32,
        C.MQTYPE_FLOAT64,
        C.MQTYPE_STRING,
    }
)
INT_BITS = {C.MQTYPE_INT8: 8, C.MQTYPE_INT16: 16, C.MQTYPE_INT32: 32, C.MQTYPE_INT64: 64}
FLOATS = (C.MQTYPE_FLOAT32, C.MQTYPE_FLOAT64)
FIXED_LENGTH = {
    C.MQTYPE_NULL: 0,
    C.MQTYPE_BOOLEAN: 4,
    C.MQTYPE_INT8: 1,
    C.MQTYPE_INT16: 2,
    C.MQTYPE_INT32: 4,
    C.MQTYPE_INT64: 8,
    C.MQTYPE_FLOAT32: 4,
    C.MQTYPE_FLOAT64: 8,
}
MAX_NAME_LENGTH = 4095
SETTABLE_JMS = frozenset({"JMSCorrelationID", "JMSReplyTo", "JMSType", "JMSXGroupID", "JMSXGroupSeq"})
SQL_KEYWORDS = frozenset({"NULL", "TRUE", "FALSE", "NOT", "AND", "OR", "BETWEEN", "LIKE", "IN", "IS", "ESCAPE"})
_F32 = struct.Struct("=f")


def _fail(reason: int, text: str) -> MQMIError:
    return MQMIError(C.MQCC_FAILED, reason, text)


def type_name(t: int) -> str:
    for name in ("NULL", "BOOLEAN", "BYTE_STRING", "INT8", "INT16", "INT32", "INT64", "FLOAT32", "FLOAT64", "STRING"):
        if getattr(C, "MQTYPE_" + name) == t:
            return "MQTYPE_" + name
    return f"type {t}"


# -- names ---------------------------------------------------------------------------------------------
# dot-separated parts of Java identifier characters, none empty, none starting with a digit
_NAME = re.compile(r"(?:[^\W\d]|\$)[\w$]*(?:\.(?:[^\W\d]|\$)[\w$]*)*")


def check_name(name: str, *, wildcard: bool = False) -> None:
    """IBM's rules for a property name (MQSETMP, MQDLTMP; MQINQMP with ``wildcard``, where a trailing ``%``
    matches any characters). Raises MQRC_PROPERTY_NAME_LENGTH_ERR (2513) or MQRC_PROPERTY_NAME_ERROR (2442)."""
    if not isinstance(name, str) or not name:
        raise _fail(C.MQRC_PROPERTY_NAME_LENGTH_ERR, "a property name must not be empty")
    if len(name) > MAX_NAME_LENGTH:
        raise _fail(C.MQRC_PROPERTY_NAME_LENGTH_ERR, f"property names are at most {MAX_NAME_LENGTH} characters")
    stem = name
    if wildcard and name.endswith("%"):
        stem = name[:-1]
        if not stem or stem.endswith("."):
            stem = stem[:-1]
            if not stem:
                return  # "%" alone: every property
    if "%" in stem:
        raise _fail(C.MQRC_PROPERTY_NAME_ERROR, f"property name {name!r}: '%' is allowed only last, in MQINQMP")
    if _NAME.fullmatch(stem) is None:
        raise _fail(
            C.MQRC_PROPERTY_NAME_ERROR,
            f"property name {name!r} is not valid: use Java identifier characters and '.' (not first or last, no '..')",
        )
    if wildcard and stem != name:
        return
    if len(name) <= 7 and name.upper() in SQL_KEYWORDS:
        raise _fail(C.MQRC_PROPERTY_NAME_ERROR, f"property name {name!r} is a keyword of the selector language")
    if name.startswith("JMS") and name not in SETTABLE_JMS:
        raise _fail(
            C.MQRC_PROPERTY_NAME_ERROR,
            f"property name {name!r}: JMS names are reserved except {', '.join(sorted(SETTABLE_JMS))}",
        )
    if name.startswith("Body") or (name.startswith("Root") and not name.startswith("Root.MQMD.")):
        raise _fail(C.MQRC_PROPERTY_NAME_ERROR, f"property name {name!r}: names starting Body or Root are reserved")


_OTHER_FOLDERS = ("jms.", "mcd.", "mqext.", "mqps.")


def canonical(name: str) -> str:
    """A name as the ``usr`` folder holds it: ``usr.x`` and ``x`` are the same property."""
    return name[4:] if name.startswith("usr.") else name


def in_usr(name: str) -> bool:
    """The property is in the ``usr`` folder (no other folder prefix, not a JMS name)."""
    return not name.startswith(_OTHER_FOLDERS) and name not in SETTABLE_JMS and name not in (TOPIC_STRING, IS_RETAINED)


def matches(pattern: str, name: str) -> bool:
    """MQINQMP's name match: exact, or a trailing ``%`` matching any characters (``.`` included); ``usr.`` names
    the ``usr`` folder, where a name without a folder prefix lives (``usr.%`` matches ``color``)."""
    if pattern.startswith("usr.") and not in_usr(name):
        return False
    p, n = canonical(pattern), canonical(name)
    if p.endswith("%"):
        return n.startswith(p[:-1])
    return n == p


# -- values --------------------------------------------------------------------------------------------
def _bad(name: str, ptype: int, value: Any, why: str = "") -> MQMIError:
    return _fail(C.MQRC_PROPERTY_TYPE_ERROR, f"property {name!r}: {value!r} is not a value of {type_name(ptype)}{why}")


def check_value(name: str, ptype: int, value: Any) -> Any:
    """The value MQSETMP stores for ``value`` given as ``ptype``; MQRC_PROPERTY_TYPE_ERROR (2473) for a type IBM
    does not define (MQTYPE_AS_SET included) or a value that is not of the type (an integer out of its range)."""
    if ptype not in TYPES:
        raise _fail(C.MQRC_PROPERTY_TYPE_ERROR, f"property {name!r}: {ptype} is not an MQTYPE_* data type")
    if ptype == C.MQTYPE_NULL:
        if value is not None:
            raise _bad(name, ptype, value)
        return None
    if ptype == C.MQTYPE_BOOLEAN:
        if type(value) is bool:
            return value
        if type(value) is int:
            return value != 0
        raise _bad(name, ptype, value)
    if ptype in INT_BITS:
        if type(value) is not int:
            raise _bad(name, ptype, value)
        bits = INT_BITS[ptype]
        if not -(1 << (bits - 1)) <= value < (1 << (bits - 1)):
            raise _bad(name, ptype, value, f" (out of range for {bits} bits)")
        return value
    if ptype in FLOATS:
        if type(value) not in (float, int):
            raise _bad(name, ptype, value)
        v = float(value)
        if ptype == C.MQTYPE_FLOAT32:
            try:
                v = _F32.unpack(_F32.pack(v))[0]
            except OverflowError:
                raise _bad(name, ptype, value, " (out of range for 32 bits)") from None
        return v
    if ptype == C.MQTYPE_STRING:
        if type(value) is not str:
            raise _bad(name, ptype, value)
        return value
    if type(value) not in (bytes, bytearray, memoryview):
        raise _bad(name, ptype, value)
    return bytes(value)


def infer(name: str, value: Any) -> tuple[int, Any]:
    """The (type, value) of a Pythonic property value: an explicit ``(MQTYPE_*, value)`` pair, or by its Python
    type: bool BOOLEAN, int INT64, float FLOAT64, str STRING, bytes BYTE_STRING, None NULL."""
    if type(value) is tuple and len(value) == 2 and type(value[0]) is int:
        return value[0], check_value(name, value[0], value[1])
    if value is None:
        return C.MQTYPE_NULL, None
    t = type(value)
    if t is bool:
        return C.MQTYPE_BOOLEAN, value
    if t is int:
        return C.MQTYPE_INT64, check_value(name, C.MQTYPE_INT64, value)
    if t is float:
        return C.MQTYPE_FLOAT64, value
    if t is str:
        return C.MQTYPE_STRING, value
    if t in (bytes, bytearray, memoryview):
        return C.MQTYPE_BYTE_STRING, bytes(value)
    raise _fail(
        C.MQRC_PROPERTY_TYPE_ERROR,
        f"property {name!r}: a {t.__name__} is not a property value (use bool, int, float, str, bytes or None, "
        "or a (MQTYPE_*, value) pair)",
    )


_BY_TYPE = {bool: C.MQTYPE_BOOLEAN, float: C.MQTYPE_FLOAT64, str: C.MQTYPE_STRING}
_INT64 = (-(1 << 63), 1 << 63)


def build(properties: Mapping[str, Any] | None) -> Props | None:
    """Pythonic ``properties={...}`` checked and typed as MQSETMP would, each in turn; None for none.

    The common case (names seen before, values of plain Python types, no ``usr.`` name) takes a short path:
    the same checks, without a handle's bookkeeping (a put with 10 properties must cost less than two puts)."""
    if not properties:
        return None
    props: Props = {}
    dotted = False
    for name, value in properties.items():
        if name not in _GOOD_NAMES:
            check_name(name)
            if name.startswith("usr."):
                return _build_slowly(properties)
            _remember(name)
        t = type(value)
        ptype = _BY_TYPE.get(t)
        if ptype is not None:
            props[name] = (ptype, value)
        elif t is int and _INT64[0] <= value < _INT64[1]:
            props[name] = (C.MQTYPE_INT64, value)
        else:
            props[name] = infer(name, value)
        if "." in name:
            dotted = True
    if dotted:
        _check_groups(props)
    return props


_GOOD_NAMES: set[str] = set()  # names check_name accepted (none starting "usr."): a bounded memo


def _remember(name: str) -> None:
    if len(_GOOD_NAMES) >= 4096:
        _GOOD_NAMES.clear()
    _GOOD_NAMES.add(name)


def _check_groups(props: Props) -> None:
    """No name is both a value and a group of values (``a.b`` beside ``a.b.c``): MQRC_PROPERTY_NAME_ERROR."""
    groups = {g for n in props for g in _prefixes(n)}
    for n in props:
        if n in groups:
            raise _fail(C.MQRC_PROPERTY_NAME_ERROR, f"property {n!r} cannot be both a value and a group")


def _build_slowly(properties: Mapping[str, Any]) -> Props | None:
    h = MessageHandle()
    for name, value in properties.items():
        ptype, v = infer(name, value)
        h.set(name, ptype, v)
    return h.props or None


def value_length(ptype: int, value: Any) -> int:
    """The length of a value as the MQI returns it (DataLength): UTF-8 bytes of a string."""
    if ptype == C.MQTYPE_STRING:
        return len(value.encode("utf-8"))
    if ptype == C.MQTYPE_BYTE_STRING:
        return len(value)
    return FIXED_LENGTH[ptype]


def props_length(props: Props) -> int:
    """What properties add to a message's length (counted against MAXMSGL): names and values (UTF-8)."""
    total = 0
    for name, (ptype, value) in props.items():
        total += len(name) if name.isascii() else len(name.encode("utf-8"))
        if ptype == C.MQTYPE_STRING:
            total += len(value) if value.isascii() else len(value.encode("utf-8"))
        elif ptype == C.MQTYPE_BYTE_STRING:
            total += len(value)
        else:
            total += FIXED_LENGTH[ptype]
    return total


def _float_text(v: float) -> str:
    return repr(v)


def convert(name: str, ptype: int, value: Any, requested: int) -> tuple[int, Any]:
    """MQINQMP's conversion of a stored (``ptype``, ``value``) to ``requested`` (the module's table)."""
    if requested == ptype or requested == C.MQTYPE_AS_SET or ptype == C.MQTYPE_NULL:
        return ptype, value
    if requested not in TYPES:
        raise _fail(C.MQRC_PROPERTY_TYPE_ERROR, f"{requested} is not an MQTYPE_* data type")
    no = _fail(
        C.MQRC_PROP_CONV_NOT_SUPPORTED,
        f"property {name!r} of {type_name(ptype)} cannot be read as {type_name(requested)}",
    )
    if requested == C.MQTYPE_STRING:
        if ptype == C.MQTYPE_BOOLEAN:
            return requested, "TRUE" if value else "FALSE"
        if ptype in INT_BITS:
            return requested, str(value)
        if ptype in FLOATS:
            return requested, _float_text(value)
        raise no
    if requested == C.MQTYPE_BOOLEAN:
        if ptype in INT_BITS:
            return requested, value != 0
        if ptype == C.MQTYPE_STRING:
            word = value.strip().upper()
            if word in ("TRUE", "1"):
                return requested, True
            if word in ("FALSE", "0"):
                return requested, False
            raise _fail(C.MQRC_PROP_NUMBER_FORMAT_ERROR, f"property {name!r}: {value!r} is not a boolean")
        raise no
    if requested in INT_BITS:
        if ptype == C.MQTYPE_BOOLEAN:
            n = int(bool(value))
        elif ptype in INT_BITS:
            n = value
        elif ptype == C.MQTYPE_STRING:
            try:
                n = int(value.strip(), 10)
            except ValueError:
                raise _fail(
                    C.MQRC_PROP_NUMBER_FORMAT_ERROR, f"property {name!r}: {value!r} is not an integer"
                ) from None
        else:
            raise no
        bits = INT_BITS[requested]
        if not -(1 << (bits - 1)) <= n < (1 << (bits - 1)):
            raise no
        return requested, n
    if requested in FLOATS:
        if ptype in INT_BITS or ptype in FLOATS:
            f = float(value)
        elif ptype == C.MQTYPE_STRING:
            try:
                f = float(value.strip())
            except ValueError:
                raise _fail(C.MQRC_PROP_NUMBER_FORMAT_ERROR, f"property {name!r}: {value!r} is not a number") from None
        else:
            raise no
        if requested == C.MQTYPE_FLOAT32:
            if math.isfinite(f) and abs(f) > 3.4028234663852886e38:
                raise no
            f = _F32.unpack(_F32.pack(f))[0]
        return requested, f
    raise no


def _prefixes(name: str) -> list[str]:
    """The groups a dotted name belongs to: "a.b.c" -> ["a", "a.b"]."""
    out = []
    at = name.find(".")
    while at > 0:
        out.append(name[:at])
        at = name.find(".", at + 1)
    return out


# -- the message handle --------------------------------------------------------------------------------
class MessageHandle:
    """MQCRTMH's message handle: the properties (:data:`Props`) and MQINQMP's property cursor."""

    __slots__ = ("_groups", "cursor", "props")

    def __init__(self, props: Props | None = None) -> None:
        self.props: Props = dict(props) if props else {}
        self.cursor: str | None = None  # the name of the property MQINQMP returned last
        self._groups: set[str] | None = None  # every "a", "a.b" that is a group of a name set ("a.b.c")

    def replace(self, props: Props | None) -> None:
        """MQGET into this handle: its properties become the message's; the cursor is reset."""
        self.props = dict(props) if props else {}
        self.cursor = None
        self._groups = None

    def find(self, name: str) -> str | None:
        """The name under which the property ``name`` is kept (``usr.x`` and ``x`` are one), or None."""
        props = self.props
        if name in props:
            return name
        if name.startswith("usr."):
            other = name[4:]
            return other if other in props and in_usr(other) else None
        other = "usr." + name
        return other if other in props and in_usr(name) else None

    def _conflict(self, name: str) -> str | None:
        """A name set that ``name`` would make both a value and a group (``a.b`` beside ``a.b.c``), or None."""
        groups = self._groups
        if groups is None:
            groups = self._groups = {g for n in self.props for g in _prefixes(n)}
        if name in groups:
            return next(n for n in self.props if n.startswith(name + "."))
        return next((g for g in _prefixes(name) if g in self.props), None)

    def set(self, name: str, ptype: int, value: Any) -> None:
        """MQSETMP: a new property, or a new value for one of this name (it keeps its place)."""
        check_name(name)
        v = check_value(name, ptype, value)
        props = self.props
        if name not in props:
            name = self.find(name) or name
            if name not in props and ("." in name or self._groups):
                other = self._conflict(name)
                if other is not None:
                    raise _fail(
                        C.MQRC_PROPERTY_NAME_ERROR,
                        f"property {name!r}: {other!r} is set, and a name cannot be both a value and a group",
                    )
                if self._groups is not None:
                    self._groups.update(_prefixes(name))
        props[name] = (ptype, v)

    def delete(self, name: str) -> int:
        """MQDLTMP: MQRC_NONE, or MQRC_PROPERTY_NOT_AVAILABLE (a warning) when there is no such property."""
        check_name(name)
        name = self.find(name) or name
        if self.props.pop(name, None) is None:
            return C.MQRC_PROPERTY_NOT_AVAILABLE
        self._groups = None
        if self.cursor == name:
            self.cursor = None
        return C.MQRC_NONE

    def inquire(
        self, name: str, requested: int = C.MQTYPE_AS_SET, options: int = C.MQIMPO_INQ_FIRST
    ) -> tuple[str, int, Any]:
        """MQINQMP: (the property's name, its type, its value) converted as asked, the cursor moved to it.

        MQRC_PROPERTY_NOT_AVAILABLE (2471) when no property (no further one, for MQIMPO_INQ_NEXT) matches; the
        caller compares the value's length (:func:`value_length`) with its buffer (MQRC_PROPERTY_VALUE_TOO_BIG)
        before :meth:`advance` moves the cursor."""
        if options & C.MQIMPO_INQ_PROP_UNDER_CURSOR:
            if options & C.MQIMPO_INQ_NEXT:
                raise _fail(C.MQRC_IMPO_ERROR, "MQIMPO_INQ_NEXT and MQIMPO_INQ_PROP_UNDER_CURSOR together")
            if self.cursor is None or self.cursor not in self.props:
                raise _fail(C.MQRC_PROPERTY_NOT_AVAILABLE, "there is no property under the cursor")
            found = self.cursor
        else:
            check_name(name, wildcard=True)
            names: Iterable[str] = self.props
            if options & C.MQIMPO_INQ_NEXT and self.cursor is not None and self.cursor in self.props:
                keys = list(self.props)
                names = keys[keys.index(self.cursor) + 1 :]
            found = next((n for n in names if matches(name, n)), None)  # type: ignore[assignment]
            if found is None:
                raise _fail(C.MQRC_PROPERTY_NOT_AVAILABLE, f"no property matches {name!r}")
        ptype, value = self.props[found]
        if requested != C.MQTYPE_AS_SET and requested != ptype and not options & C.MQIMPO_CONVERT_TYPE:
            if requested not in TYPES:
                raise _fail(C.MQRC_PROPERTY_TYPE_ERROR, f"{requested} is not an MQTYPE_* data type")
            if ptype != C.MQTYPE_NULL:
                raise _fail(
                    C.MQRC_PROPERTY_TYPE_ERROR,
                    f"property {found!r} is {type_name(ptype)}: ask for it as set, or with MQIMPO_CONVERT_TYPE",
                )
        rtype, rvalue = convert(found, ptype, value, requested)
        return found, rtype, rvalue

    def advance(self, name: str) -> None:
        """MQINQMP returned ``name``: the cursor is on it."""
        self.cursor = name


# -- kept in the store beside the MQMD -----------------------------------------------------------------
PACKED_MARK = b"PRP1"


def pack_props(props: Props) -> bytes:
    """Properties as the store keeps them after the packed MQMD: a mark and a msgpack list."""
    flat: list[Any] = []
    for name, (ptype, value) in props.items():
        flat += (name, ptype, value)
    packed: bytes = msgpack.packb(flat, use_bin_type=True)
    return PACKED_MARK + packed


def unpack_props(raw: bytes) -> Props | None:
    """:func:`pack_props` read back (None for none)."""
    if not raw.startswith(PACKED_MARK):
        return None
    flat = msgpack.unpackb(raw[len(PACKED_MARK) :], raw=False)
    props: Props = {}
    for i in range(0, len(flat), 3):
        props[flat[i]] = (flat[i + 1], flat[i + 2])
    return props or None


def from_wire(items: Any) -> Props | None:
    """Properties as the wire carries them (``[name, type, value, ...]``), each checked as MQSETMP checks it;
    MQRC_PROPERTY_NAME_ERROR / _TYPE_ERROR for anything else. None for none."""
    if items is None:
        return None
    if type(items) is not list or len(items) % 3:
        raise _fail(C.MQRC_PROPERTY_TYPE_ERROR, "properties travel as a list of name, type, value")
    props: Props = {}
    dotted = False
    for i in range(0, len(items), 3):
        name, ptype = items[i], items[i + 1]
        if type(name) is not str:
            raise _fail(C.MQRC_PROPERTY_NAME_ERROR, "a property name must be a string")
        if type(ptype) is not int:
            raise _fail(C.MQRC_PROPERTY_TYPE_ERROR, f"property {name!r}: its type must be an MQTYPE_* value")
        if name not in _GOOD_NAMES:
            check_name(name)
            if name.startswith("usr."):
                return _from_wire_slowly(items)
            _remember(name)
        if name in props:
            return _from_wire_slowly(items)
        props[name] = (ptype, check_value(name, ptype, items[i + 2]))
        if "." in name:
            dotted = True
    if dotted:
        _check_groups(props)
    return props or None


def _from_wire_slowly(items: list[Any]) -> Props | None:
    h = MessageHandle()
    for i in range(0, len(items), 3):
        h.set(items[i], items[i + 1], items[i + 2])
    return h.props or None


def received(items: Any) -> Props | None:
    """Properties a queue manager sent back with a message (its own, already checked, and those it read from an
    MQRFH2, which follow the header's names): taken as they are."""
    if type(items) is not list or len(items) % 3:
        return None
    return {items[i]: (items[i + 1], items[i + 2]) for i in range(0, len(items), 3)} or None


def to_wire(props: Props | None) -> list[Any] | None:
    """The wire's form of properties (see :func:`from_wire`)."""
    if not props:
        return None
    flat: list[Any] = []
    for name, (ptype, value) in props.items():
        flat += (name, ptype, value)
    return flat
