"""PCF structures, byte-exact (native little-endian, MQLONG = 4 bytes), with IBM's field names.

Theory of operation: a PCF message is one MQCFH header followed by ``ParameterCount`` parameter structures.
Each parameter starts with ``Type`` and ``StrucLength`` (a multiple of 4), so a reader can walk the message
without knowing every type. A group (MQCFGR) counts as one parameter of its level and is followed by its own
``ParameterCount`` parameters. :func:`parse` turns bytes into an :class:`MQCFH` and a list of parameter objects
(groups hold their members); :func:`build` does the reverse. A malformed message raises :class:`PCFError`
carrying the MQRCCF_* reason IBM's command server gives for it.

Implements: reference/structures.md, reference/constants.md (MQCFH and the MQCF* parameter structures).
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field
from typing import Union

from syncpoint.mqi import SyncpointError

from . import _constants as K

_L = struct.Struct("=i")
_HDR = struct.Struct("=9i")
_IN = struct.Struct("=4i")
_IN64 = struct.Struct("=4iq")
_ST = struct.Struct("=5i")
_IL = struct.Struct("=4i")
_SL = struct.Struct("=6i")
_BS = struct.Struct("=4i")
_GR = struct.Struct("=4i")
_IF = struct.Struct("=5i")
_SF = struct.Struct("=6i")
_BF = struct.Struct("=5i")


class PCFError(SyncpointError):
    """A PCF message or parameter is not valid: ``reason`` is the MQRCCF_* (or MQRC_*) code to reply with,
    ``parameter`` the parameter it concerns (0: none)."""

    def __init__(self, reason: int, message: str, parameter: int = 0) -> None:
        super().__init__(message)
        self.reason = reason
        self.parameter = parameter


def _pad4(n: int) -> int:
    return (n + 3) & ~3


# each class below is one of IBM's PCF structures (cmqcfc.h): alike in shape, each with its own layout
@dataclass(slots=True)
class MQCFH:
    """PCF header (36 bytes)."""

    Type: int = K.MQCFT_COMMAND
    StrucLength: int = K.MQCFH_STRUC_LENGTH
    Version: int = K.MQCFH_VERSION_1
    Command: int = 0
    MsgSeqNumber: int = 1
    Control: int = K.MQCFC_LAST
    CompCode: int = 0
    Reason: int = 0
    ParameterCount: int = 0

    def pack(self) -> bytes:
        return _HDR.pack(
            self.Type,
            self.StrucLength,
            self.Version,
            self.Command,
            self.MsgSeqNumber,
            self.Control,
            self.CompCode,
            self.Reason,
            self.ParameterCount,
        )

    @classmethod
    def unpack(cls, buf: bytes) -> MQCFH:
        if len(buf) < K.MQCFH_STRUC_LENGTH:
            raise PCFError(K.MQRCCF_CFH_LENGTH_ERROR, f"a PCF header is 36 bytes; the message has {len(buf)}")
        return cls(*_HDR.unpack_from(buf, 0))


@dataclass(slots=True)
class MQCFIN:
    """Integer parameter (16 bytes)."""

    Parameter: int = 0
    Value: int = 0
    Type: int = K.MQCFT_INTEGER
    StrucLength: int = K.MQCFIN_STRUC_LENGTH

    def pack(self) -> bytes:
        return _IN.pack(K.MQCFT_INTEGER, K.MQCFIN_STRUC_LENGTH, self.Parameter, self.Value)


@dataclass(slots=True)
class MQCFIN64:
    """64-bit integer parameter (24 bytes)."""

    Parameter: int = 0
    Value: int = 0
    Type: int = K.MQCFT_INTEGER64
    StrucLength: int = K.MQCFIN64_STRUC_LENGTH

    def pack(self) -> bytes:
        return _IN64.pack(K.MQCFT_INTEGER64, K.MQCFIN64_STRUC_LENGTH, self.Parameter, 0, self.Value)


@dataclass(slots=True)
class MQCFST:
    """String parameter: 20 bytes, then the string padded with NULs to a multiple of 4."""

    Parameter: int = 0
    String: bytes = b""
    CodedCharSetId: int = 0
    Type: int = K.MQCFT_STRING

    @property
    def StringLength(self) -> int:
        return len(self.String)

    @property
    def StrucLength(self) -> int:
        return K.MQCFST_STRUC_LENGTH_FIXED + _pad4(len(self.String))

    def pack(self) -> bytes:
        s = self.String
        head = _ST.pack(K.MQCFT_STRING, self.StrucLength, self.Parameter, self.CodedCharSetId, len(s))
        return head + s + b"\0" * (_pad4(len(s)) - len(s))


@dataclass(slots=True)
class MQCFIL:
    """Integer-list parameter: 16 bytes, then Count MQLONGs."""

    Parameter: int = 0
    Values: list[int] = field(default_factory=list)
    Type: int = K.MQCFT_INTEGER_LIST

    @property
    def Count(self) -> int:
        return len(self.Values)

    @property
    def StrucLength(self) -> int:
        return K.MQCFIL_STRUC_LENGTH_FIXED + 4 * len(self.Values)

    def pack(self) -> bytes:
        n = len(self.Values)
        return _IL.pack(K.MQCFT_INTEGER_LIST, self.StrucLength, self.Parameter, n) + struct.pack(f"={n}i", *self.Values)


@dataclass(slots=True)
class MQCFIL64:
    """64-bit integer-list parameter: 16 bytes, then Count 8-byte integers."""

    Parameter: int = 0
    Values: list[int] = field(default_factory=list)
    Type: int = K.MQCFT_INTEGER64_LIST

    @property
    def Count(self) -> int:
        return len(self.Values)

    @property
    def StrucLength(self) -> int:
        return K.MQCFIL64_STRUC_LENGTH_FIXED + 8 * len(self.Values)

    def pack(self) -> bytes:
        n = len(self.Values)
        return _IL.pack(K.MQCFT_INTEGER64_LIST, self.StrucLength, self.Parameter, n) + struct.pack(
            f"={n}q", *self.Values
        )


@dataclass(slots=True)
class MQCFSL:
    """String-list parameter: 24 bytes, then Count strings of StringLength each (padded to a multiple of 4)."""

    Parameter: int = 0
    Strings: list[bytes] = field(default_factory=list)
    CodedCharSetId: int = 0
    StringLength: int = -1  # -1: the longest string's length
    Type: int = K.MQCFT_STRING_LIST

    def _width(self) -> int:
        if self.StringLength >= 0:
            return self.StringLength
        return max((len(s) for s in self.Strings), default=0)

    @property
    def Count(self) -> int:
        return len(self.Strings)

    @property
    def StrucLength(self) -> int:
        return K.MQCFSL_STRUC_LENGTH_FIXED + _pad4(self._width() * len(self.Strings))

    def pack(self) -> bytes:
        w = self._width()
        body = b"".join(s[:w].ljust(w, b" ") for s in self.Strings)
        head = _SL.pack(
            K.MQCFT_STRING_LIST, self.StrucLength, self.Parameter, self.CodedCharSetId, len(self.Strings), w
        )
        return head + body + b"\0" * (_pad4(len(body)) - len(body))


@dataclass(slots=True)
class MQCFBS:
    """Byte-string parameter: 16 bytes, then the bytes padded to a multiple of 4."""

    Parameter: int = 0
    String: bytes = b""
    Type: int = K.MQCFT_BYTE_STRING

    @property
    def StringLength(self) -> int:
        return len(self.String)

    @property
    def StrucLength(self) -> int:
        return K.MQCFBS_STRUC_LENGTH_FIXED + _pad4(len(self.String))

    def pack(self) -> bytes:
        s = self.String
        return (
            _BS.pack(K.MQCFT_BYTE_STRING, self.StrucLength, self.Parameter, len(s))
            + s
            + b"\0" * (_pad4(len(s)) - len(s))
        )


@dataclass(slots=True)
class MQCFIF:
    """Integer filter (20 bytes)."""

    Parameter: int = 0
    Operator: int = K.MQCFOP_EQUAL
    FilterValue: int = 0
    Type: int = K.MQCFT_INTEGER_FILTER
    StrucLength: int = K.MQCFIF_STRUC_LENGTH

    def pack(self) -> bytes:
        return _IF.pack(K.MQCFT_INTEGER_FILTER, K.MQCFIF_STRUC_LENGTH, self.Parameter, self.Operator, self.FilterValue)


@dataclass(slots=True)
class MQCFSF:
    """String filter: 24 bytes, then the value padded to a multiple of 4."""

    Parameter: int = 0
    Operator: int = K.MQCFOP_EQUAL
    FilterValue: bytes = b""
    CodedCharSetId: int = 0
    Type: int = K.MQCFT_STRING_FILTER

    @property
    def StrucLength(self) -> int:
        return K.MQCFSF_STRUC_LENGTH_FIXED + _pad4(len(self.FilterValue))

    def pack(self) -> bytes:
        v = self.FilterValue
        head = _SF.pack(
            K.MQCFT_STRING_FILTER, self.StrucLength, self.Parameter, self.Operator, self.CodedCharSetId, len(v)
        )
        return head + v + b"\0" * (_pad4(len(v)) - len(v))


@dataclass(slots=True)
class MQCFBF:
    """Byte-string filter: 20 bytes, then the value padded to a multiple of 4."""

    Parameter: int = 0
    Operator: int = K.MQCFOP_EQUAL
    FilterValue: bytes = b""
    Type: int = K.MQCFT_BYTE_STRING_FILTER

    @property
    def StrucLength(self) -> int:
        return K.MQCFBF_STRUC_LENGTH_FIXED + _pad4(len(self.FilterValue))

    def pack(self) -> bytes:
        v = self.FilterValue
        return (
            _BF.pack(K.MQCFT_BYTE_STRING_FILTER, self.StrucLength, self.Parameter, self.Operator, len(v))
            + v
            + b"\0" * (_pad4(len(v)) - len(v))
        )


@dataclass(slots=True)
class MQCFGR:
    """Group: 16 bytes, followed by its ParameterCount member parameters (held in ``members``)."""

    Parameter: int = 0
    members: list[Param] = field(default_factory=list)
    Type: int = K.MQCFT_GROUP
    StrucLength: int = K.MQCFGR_STRUC_LENGTH

    @property
    def ParameterCount(self) -> int:
        return len(self.members)

    def pack(self) -> bytes:
        head = _GR.pack(K.MQCFT_GROUP, K.MQCFGR_STRUC_LENGTH, self.Parameter, len(self.members))
        return head + b"".join(p.pack() for p in self.members)


Param = Union[MQCFIN, MQCFIN64, MQCFST, MQCFIL, MQCFIL64, MQCFSL, MQCFBS, MQCFIF, MQCFSF, MQCFBF, MQCFGR]  # noqa: UP007


def build(cfh: MQCFH, params: list[Param]) -> bytes:
    """A PCF message: the header (its ParameterCount set from ``params``) and the parameters."""
    cfh.ParameterCount = len(params)
    return cfh.pack() + b"".join(p.pack() for p in params)


def _need(buf: bytes, pos: int, n: int, reason: int, what: str) -> None:
    if pos + n > len(buf):
        raise PCFError(reason, f"the message ends inside a {what} structure")


def _one(buf: bytes, pos: int) -> tuple[Param, int, int]:
    """The parameter at ``pos``: (parameter, its length, the number of group members that follow it)."""
    _need(buf, pos, 8, K.MQRCCF_STRUCTURE_TYPE_ERROR, "parameter")
    typ, length = struct.unpack_from("=2i", buf, pos)
    if typ == K.MQCFT_INTEGER:
        if length != K.MQCFIN_STRUC_LENGTH:
            raise PCFError(K.MQRCCF_CFIN_LENGTH_ERROR, f"an MQCFIN is 16 bytes, not {length}")
        _need(buf, pos, length, K.MQRCCF_CFIN_LENGTH_ERROR, "MQCFIN")
        _, _, p, v = _IN.unpack_from(buf, pos)
        return MQCFIN(p, v), length, 0
    if typ == K.MQCFT_INTEGER64:
        if length != K.MQCFIN64_STRUC_LENGTH:
            raise PCFError(K.MQRCCF_CFIN_LENGTH_ERROR, f"an MQCFIN64 is 24 bytes, not {length}")
        _need(buf, pos, length, K.MQRCCF_CFIN_LENGTH_ERROR, "MQCFIN64")
        _, _, p, _, v = _IN64.unpack_from(buf, pos)
        return MQCFIN64(p, v), length, 0
    if typ == K.MQCFT_STRING:
        _need(buf, pos, K.MQCFST_STRUC_LENGTH_FIXED, K.MQRCCF_CFST_LENGTH_ERROR, "MQCFST")
        _, _, p, ccsid, slen = _ST.unpack_from(buf, pos)
        if slen < 0 or length < K.MQCFST_STRUC_LENGTH_FIXED + slen or length % 4:
            raise PCFError(K.MQRCCF_CFST_STRING_LENGTH_ERR, f"MQCFST StringLength {slen} does not fit", p)
        _need(buf, pos, length, K.MQRCCF_CFST_LENGTH_ERROR, "MQCFST")
        s = buf[pos + 20 : pos + 20 + slen]
        return MQCFST(p, bytes(s), ccsid), length, 0
    if typ == K.MQCFT_INTEGER_LIST:
        _need(buf, pos, 16, K.MQRCCF_CFIL_LENGTH_ERROR, "MQCFIL")
        _, _, p, n = _IL.unpack_from(buf, pos)
        if n < 0 or length != 16 + 4 * n:
            raise PCFError(K.MQRCCF_CFIL_COUNT_ERROR, f"MQCFIL Count {n} does not match its length {length}", p)
        _need(buf, pos, length, K.MQRCCF_CFIL_LENGTH_ERROR, "MQCFIL")
        return MQCFIL(p, list(struct.unpack_from(f"={n}i", buf, pos + 16))), length, 0
    if typ == K.MQCFT_INTEGER64_LIST:
        _need(buf, pos, 16, K.MQRCCF_CFIL_LENGTH_ERROR, "MQCFIL64")
        _, _, p, n = _IL.unpack_from(buf, pos)
        if n < 0 or length != 16 + 8 * n:
            raise PCFError(K.MQRCCF_CFIL_COUNT_ERROR, f"MQCFIL64 Count {n} does not match its length {length}", p)
        _need(buf, pos, length, K.MQRCCF_CFIL_LENGTH_ERROR, "MQCFIL64")
        return MQCFIL64(p, list(struct.unpack_from(f"={n}q", buf, pos + 16))), length, 0
    if typ == K.MQCFT_STRING_LIST:
        _need(buf, pos, 24, K.MQRCCF_CFSL_LENGTH_ERROR, "MQCFSL")
        _, _, p, ccsid, n, w = _SL.unpack_from(buf, pos)
        if w < 0:
            raise PCFError(K.MQRCCF_CFSL_STRING_LENGTH_ERR, f"MQCFSL StringLength {w} is negative", p)
        # Count is checked against the bytes the structure really has before a list is built: each string takes
        # StringLength bytes, and at least one, so a count no structure could carry (Count 2**31 - 1 of empty
        # strings in a 24-byte structure) is refused instead of allocating gigabytes.
        if n < 0 or n * max(w, 1) > max(length - 24, 0):
            raise PCFError(K.MQRCCF_CFSL_COUNT_ERROR, f"MQCFSL Count {n} does not fit in its {length} bytes", p)
        if length % 4:
            raise PCFError(K.MQRCCF_CFSL_LENGTH_ERROR, f"MQCFSL StrucLength {length} is not a multiple of 4", p)
        _need(buf, pos, length, K.MQRCCF_CFSL_LENGTH_ERROR, "MQCFSL")
        strings = [bytes(buf[pos + 24 + i * w : pos + 24 + (i + 1) * w]) for i in range(n)]
        return MQCFSL(p, strings, ccsid, w), length, 0
    if typ == K.MQCFT_BYTE_STRING:
        _need(buf, pos, 16, K.MQRCCF_CFBS_LENGTH_ERROR, "MQCFBS")
        _, _, p, slen = _BS.unpack_from(buf, pos)
        if slen < 0 or length < 16 + slen or length % 4:
            raise PCFError(K.MQRCCF_CFBS_LENGTH_ERROR, f"MQCFBS StringLength {slen} does not fit", p)
        _need(buf, pos, length, K.MQRCCF_CFBS_LENGTH_ERROR, "MQCFBS")
        return MQCFBS(p, bytes(buf[pos + 16 : pos + 16 + slen])), length, 0
    if typ == K.MQCFT_INTEGER_FILTER:
        if length != K.MQCFIF_STRUC_LENGTH:
            raise PCFError(K.MQRCCF_CFIF_LENGTH_ERROR, f"an MQCFIF is 20 bytes, not {length}")
        _need(buf, pos, length, K.MQRCCF_CFIF_LENGTH_ERROR, "MQCFIF")
        _, _, p, op, v = _IF.unpack_from(buf, pos)
        return MQCFIF(p, op, v), length, 0
    if typ == K.MQCFT_STRING_FILTER:
        _need(buf, pos, 24, K.MQRCCF_CFSF_LENGTH_ERROR, "MQCFSF")
        _, _, p, op, ccsid, vlen = _SF.unpack_from(buf, pos)
        if vlen < 0 or length < 24 + vlen or length % 4:
            raise PCFError(K.MQRCCF_CFSF_LENGTH_ERROR, f"MQCFSF FilterValueLength {vlen} does not fit", p)
        _need(buf, pos, length, K.MQRCCF_CFSF_LENGTH_ERROR, "MQCFSF")
        return MQCFSF(p, op, bytes(buf[pos + 24 : pos + 24 + vlen]), ccsid), length, 0
    if typ == K.MQCFT_BYTE_STRING_FILTER:
        _need(buf, pos, 20, K.MQRCCF_CFBF_LENGTH_ERROR, "MQCFBF")
        _, _, p, op, vlen = _BF.unpack_from(buf, pos)
        if vlen < 0 or length < 20 + vlen or length % 4:
            raise PCFError(K.MQRCCF_CFBF_LENGTH_ERROR, f"MQCFBF FilterValueLength {vlen} does not fit", p)
        _need(buf, pos, length, K.MQRCCF_CFBF_LENGTH_ERROR, "MQCFBF")
        return MQCFBF(p, op, bytes(buf[pos + 20 : pos + 20 + vlen])), length, 0
    if typ == K.MQCFT_GROUP:
        if length != K.MQCFGR_STRUC_LENGTH:
            raise PCFError(K.MQRCCF_CFGR_LENGTH_ERROR, f"an MQCFGR is 16 bytes, not {length}")
        _need(buf, pos, length, K.MQRCCF_CFGR_LENGTH_ERROR, "MQCFGR")
        _, _, p, n = _GR.unpack_from(buf, pos)
        if n < 0 or n * _MIN_PARAM > len(buf) - pos - length:
            raise PCFError(
                K.MQRCCF_CFGR_LENGTH_ERROR, f"MQCFGR ParameterCount {n} does not fit in the rest of the message", p
            )
        return MQCFGR(p), length, n
    raise PCFError(K.MQRCCF_STRUCTURE_TYPE_ERROR, f"parameter structure type {typ} is not a PCF type")


_MIN_PARAM = 8  # the smallest bytes a parameter can take (Type and StrucLength): counts are bounded by it
_MAX_GROUP_DEPTH = 16  # groups nest far less in IBM's commands; deeper nesting is refused, not recursed into


def _params(buf: bytes, pos: int, count: int, depth: int = 0) -> tuple[list[Param], int]:
    if depth > _MAX_GROUP_DEPTH:
        raise PCFError(K.MQRCCF_CFGR_LENGTH_ERROR, f"MQCFGR groups nest deeper than {_MAX_GROUP_DEPTH} levels")
    out: list[Param] = []
    for _ in range(count):
        p, length, members = _one(buf, pos)
        pos += length
        if isinstance(p, MQCFGR):
            p.members, pos = _params(buf, pos, members, depth + 1)
        out.append(p)
    return out, pos


def parse(buf: bytes) -> tuple[MQCFH, list[Param]]:
    """Split a PCF message into its header and parameters. Raises :class:`PCFError`."""
    cfh = MQCFH.unpack(buf)
    if cfh.StrucLength != K.MQCFH_STRUC_LENGTH:
        raise PCFError(K.MQRCCF_CFH_LENGTH_ERROR, f"MQCFH StrucLength is {cfh.StrucLength}, not 36")
    if cfh.Version not in (K.MQCFH_VERSION_1, K.MQCFH_VERSION_2, K.MQCFH_VERSION_3):
        raise PCFError(K.MQRCCF_CFH_VERSION_ERROR, f"MQCFH Version {cfh.Version} is not 1, 2 or 3")
    if cfh.ParameterCount < 0 or cfh.ParameterCount * _MIN_PARAM > len(buf) - K.MQCFH_STRUC_LENGTH:
        raise PCFError(
            K.MQRCCF_CFH_PARM_COUNT_ERROR,
            f"MQCFH ParameterCount {cfh.ParameterCount} does not fit in a message of {len(buf)} bytes",
        )
    params, end = _params(buf, K.MQCFH_STRUC_LENGTH, cfh.ParameterCount)
    if end != len(buf):
        raise PCFError(K.MQRCCF_MSG_LENGTH_ERROR, f"the message has {len(buf) - end} bytes after its parameters")
    return cfh, params
