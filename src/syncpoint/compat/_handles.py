"""Message handles behind the compat extensions: MQCRTMH, MQDLTMH, MQSETMP, MQINQMP, MQDLTMP.

Theory of operation: IBM's client library keeps a message handle's properties in the application's process; so
does this module. A handle is a :class:`syncpoint.mqi.properties.MessageHandle` under a number of this process
(an MQHMSG, 64 bits). MQSETMP receives the value as the C extensions do (a Python object and the property's
type; the extensions cast it to the C type, so an INT8 of 300 is 44 and a BOOLEAN is any number, non-zero true)
and MQINQMP answers as they do: the value as the requested (or stored) type, the value's real length, and for a
name with a ``%`` wildcard the name found. MQPUT takes the properties of the MQPMO's OriginalMsgHandle (and
copies them to NewMsgHandle); MQGET with an MQGMO MsgHandle puts the message's properties into that handle.
Every outcome is a completion code and a reason, as the extensions return them.

Implements: reference/properties-pubsub.md ("Message properties"), reference/ibmmq-compat.md.
"""

from __future__ import annotations

import struct
import threading
from typing import Any

from syncpoint.mqi import MQGMO, MQPMO, MQMIError
from syncpoint.mqi import constants as C
from syncpoint.mqi.properties import INT_BITS, MessageHandle, Props, value_length

_OPTIONS = struct.Struct("=4si i")  # StrucId, Version, Options: the start of MQCMHO, MQDMHO, MQSMPO, MQDMPO, MQIMPO
_KNOWN_IMPO = (
    C.MQIMPO_CONVERT_TYPE
    | C.MQIMPO_QUERY_LENGTH
    | C.MQIMPO_INQ_NEXT
    | C.MQIMPO_INQ_PROP_UNDER_CURSOR
    | C.MQIMPO_CONVERT_VALUE
)
_KNOWN_CMHO = C.MQCMHO_NO_VALIDATION | C.MQCMHO_VALIDATE


def _fail(reason: int, text: str) -> MQMIError:
    return MQMIError(C.MQCC_FAILED, reason, text)


def options_of(buf: bytes, strucid: bytes, reason: int) -> int:
    """The Options of an options structure (MQCMHO …) given as bytes; ``reason`` when it is not one."""
    if not isinstance(buf, (bytes, bytearray)) or len(buf) < _OPTIONS.size:
        raise _fail(reason, f"the {strucid.decode().strip()} structure is too short")
    sid, version, options = _OPTIONS.unpack_from(buf)
    if sid != strucid or version < 1:
        raise _fail(reason, f"the structure is not a valid MQ{strucid.decode().strip()}")
    return int(options)


def _text(name: Any) -> str:
    if isinstance(name, (bytes, bytearray)):
        return bytes(name).split(b"\0", 1)[0].decode("utf-8", "replace")
    return str(name)


def _c_int(value: Any, bits: int) -> int:
    """A C cast of a Python number to a signed integer of ``bits`` bits."""
    n = int(value) & ((1 << bits) - 1)
    return n - (1 << bits) if n >> (bits - 1) else n


def _cut(raw: bytes, length: int) -> bytes:
    """A value of ``length`` bytes (MQVL_NULL_TERMINATED: up to the first NUL)."""
    if length == C.MQVL_NULL_TERMINATED:
        return raw.split(b"\0", 1)[0]
    if length < 0:
        raise _fail(C.MQRC_PROPERTY_VALUE_TOO_BIG, f"ValueLength {length} is not valid")
    return raw[:length]


def c_value(ptype: int, value: Any, length: int) -> Any:
    """The value MQSETMP stores, from the object the extension was given (its C conversions)."""
    try:
        if ptype == C.MQTYPE_BOOLEAN:
            return float(value) != 0
        if ptype in INT_BITS:
            return _c_int(value, INT_BITS[ptype])
        if ptype in (C.MQTYPE_FLOAT32, C.MQTYPE_FLOAT64):
            return float(value)
        if ptype == C.MQTYPE_STRING:
            raw = value.encode("utf-8") if isinstance(value, str) else bytes(value)
            return _cut(raw, length).decode("utf-8", "ignore")
        if ptype == C.MQTYPE_BYTE_STRING:
            return _cut(bytes(value), length)
    except (TypeError, ValueError, OverflowError, AttributeError):
        raise _fail(C.MQRC_PROPERTY_TYPE_ERROR, f"{value!r} is not a value of type {ptype}") from None
    if ptype == C.MQTYPE_NULL:
        return None
    raise _fail(C.MQRC_PROPERTY_TYPE_ERROR, f"{ptype} is not an MQTYPE_* data type")


class MessageHandles:
    """The process's message handles, numbered as MQHMSGs."""

    def __init__(self) -> None:
        self._handles: dict[int, MessageHandle] = {}
        self._next = 0x0000_0100_0000_0001
        self._lock = threading.Lock()

    def handle(self, hmsg: int) -> MessageHandle:
        h = self._handles.get(hmsg)
        if h is None:
            raise _fail(C.MQRC_HMSG_ERROR, f"message handle {hmsg} is not valid")
        return h

    # -- the verbs -------------------------------------------------------------------------------------
    def crtmh(self, cmho: bytes) -> int:
        options = options_of(cmho, b"CMHO", C.MQRC_CMHO_ERROR)
        if options & ~_KNOWN_CMHO or options & _KNOWN_CMHO == _KNOWN_CMHO:
            raise _fail(C.MQRC_OPTIONS_ERROR, f"MQCMHO Options {options:#x} are not valid")
        with self._lock:
            hmsg = self._next
            self._next += 1
            self._handles[hmsg] = MessageHandle()
        return hmsg

    def dltmh(self, hmsg: int, dmho: bytes) -> None:
        self.handle(hmsg)
        if options_of(dmho, b"DMHO", C.MQRC_DMHO_ERROR) != C.MQDMHO_NONE:
            raise _fail(C.MQRC_OPTIONS_ERROR, "MQDMHO Options must be MQDMHO_NONE")
        with self._lock:
            self._handles.pop(hmsg, None)

    def setmp(self, hmsg: int, smpo: bytes, name: Any, ptype: int, value: Any, length: int) -> None:
        h = self.handle(hmsg)
        options = options_of(smpo, b"SMPO", C.MQRC_SMPO_ERROR)
        if options & ~(C.MQSMPO_SET_PROP_UNDER_CURSOR | C.MQSMPO_SET_PROP_AFTER_CURSOR | C.MQSMPO_APPEND_PROPERTY):
            raise _fail(C.MQRC_OPTIONS_ERROR, f"MQSMPO Options {options:#x} are not valid")
        h.set(_text(name), ptype, c_value(ptype, value, length))

    def inqmp(
        self, hmsg: int, options: int, name: Any, ptype: int, buflen: int
    ) -> tuple[Any, int, str | None, int, int]:
        """(value, DataLength, the name found for a wildcard or None, CompCode, Reason)."""
        h = self.handle(hmsg)
        if options & ~_KNOWN_IMPO:
            raise _fail(C.MQRC_OPTIONS_ERROR, f"MQIMPO Options {options:#x} are not valid")
        pattern = _text(name)
        found, rtype, value = h.inquire(pattern, ptype, options)
        length = value_length(rtype, value)
        wanted = found if "%" in pattern else None
        if options & C.MQIMPO_QUERY_LENGTH:
            return None, length, wanted, C.MQCC_OK, C.MQRC_NONE
        if length > buflen:
            return None, length, wanted, C.MQCC_FAILED, C.MQRC_PROPERTY_VALUE_TOO_BIG
        h.advance(found)
        return value, length, wanted, C.MQCC_OK, C.MQRC_NONE

    def dltmp(self, hmsg: int, dmpo: bytes, name: Any) -> int:
        h = self.handle(hmsg)
        options = options_of(dmpo, b"DMPO", C.MQRC_DMPO_ERROR)
        if options & ~C.MQDMPO_DEL_PROP_UNDER_CURSOR:
            raise _fail(C.MQRC_OPTIONS_ERROR, f"MQDMPO Options {options:#x} are not valid")
        if options & C.MQDMPO_DEL_PROP_UNDER_CURSOR:
            if h.cursor is None:
                raise _fail(C.MQRC_PROPERTY_NOT_AVAILABLE, "there is no property under the cursor")
            return h.delete(h.cursor)
        return h.delete(_text(name))

    # -- MQPUT, MQGET ----------------------------------------------------------------------------------
    def put_props(self, pmo: MQPMO) -> Props | None:
        """The properties an MQPUT carries: those of OriginalMsgHandle; NewMsgHandle receives them too."""
        if pmo.Version < 3:
            return None
        props: Props | None = None
        if pmo.OriginalMsgHandle not in (C.MQHM_NONE, C.MQHM_UNUSABLE_HMSG):
            props = dict(self.handle(pmo.OriginalMsgHandle).props) or None
        if pmo.NewMsgHandle not in (C.MQHM_NONE, C.MQHM_UNUSABLE_HMSG):
            self.handle(pmo.NewMsgHandle).replace(props)
        return props

    def get_handle(self, gmo: MQGMO) -> MessageHandle | None:
        """The handle an MQGET fills (checked before the get, so a bad one gets nothing)."""
        if gmo.Version < 4 or gmo.MsgHandle in (C.MQHM_NONE, C.MQHM_UNUSABLE_HMSG):
            return None
        return self.handle(gmo.MsgHandle)


HANDLES = MessageHandles()
