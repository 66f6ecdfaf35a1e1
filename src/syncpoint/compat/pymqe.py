"""syncpoint's implementation of ``pymqe``, the C extension under ``pymqi``.

Same functions, argument orders and return tuples as pymqi 1.12's extension, backed by
:mod:`syncpoint.compat._backend` (the put/get/open family is shared with :mod:`syncpoint.compat.ibmmqc`).
MQINQ and MQSET take one selector, as pymqe's do.

Implements: reference/ibmmq-compat.md.
"""

from __future__ import annotations

from typing import Any

from syncpoint.mqi import constants as C

from . import ibmmqc as _x
from ._backend import BACKEND
from ._handles import HANDLES

__version__ = "1.12.13"  # replaced by the installed pymqi version in the generated pymqi/pymqe.py
__mqlevels__ = ("5.0", "5.1", "5.2", "5.3", "6.0", "7.0", "7.1", "7.5", "8.0.0", "8.0.1")
__mqbuild__ = "client"

error = _x.error

# pymqe's names, each bound to ibmmqc's function of the same name (a table of names, as pymqe's own)
MQCONN = _x.MQCONN
MQDISC = _x.MQDISC
MQOPEN = _x.MQOPEN
MQCLOSE = _x.MQCLOSE
MQPUT = _x.MQPUT
MQPUT1 = _x.MQPUT1
MQGET = _x.MQGET
MQBEGIN = _x.MQBEGIN
MQCMIT = _x.MQCMIT
MQBACK = _x.MQBACK
MQSUB = _x.MQSUB

_CHAR_BUFFER = 256  # pymqe's MQINQ buffer (257 with its terminating NUL)


def MQCONNX(
    name: bytes, options: int, cd: bytes | None, user_password: Any = None, sco: bytes | None = None
) -> tuple[int, int, int]:
    return BACKEND.connx_pymqi(name, options, cd, user_password or {}, sco)


def MQINQ(hconn: int, hobj: int, selector: int) -> tuple[int | bytes, int, int]:
    """One selector: (integer value, CC, RC) or (character value up to its first NUL, CC, RC)."""
    is_int = C.MQIA_FIRST <= selector <= C.MQIA_LAST

    def run() -> tuple[int | bytes, int, int]:
        ints, chars, reason = BACKEND.inq(hconn, hobj, [selector])
        cc = C.MQCC_OK if reason == C.MQRC_NONE else C.MQCC_WARNING
        if is_int:
            return (ints[0] if ints else 0), cc, reason
        value = chars[0][:_CHAR_BUFFER] if chars else b""
        return value.split(b"\0", 1)[0], cc, reason

    return BACKEND.guard(run, (0 if is_int else b"",))


def MQSET(hconn: int, hobj: int, selector: int, value: int | bytes) -> tuple[int, int]:
    if C.MQIA_FIRST <= selector <= C.MQIA_LAST:
        if not isinstance(value, int):
            raise error("Arg is not a long integer")
    elif not isinstance(value, bytes):
        raise error("Arg is not a byte-string")

    def run() -> tuple[int, int]:
        if isinstance(value, int):
            BACKEND.set(hconn, hobj, [selector], [value], [])
        else:
            raw = value[:_CHAR_BUFFER].split(b"\0", 1)[0]
            BACKEND.set(hconn, hobj, [selector], [], [raw])
        return C.MQCC_OK, C.MQRC_NONE

    return BACKEND.guard(run, ())


MQCRTMH = _x.MQCRTMH
MQSETMP = _x.MQSETMP


def MQINQMP(
    hconn: int, hmsg: int, impo_options: int, name: bytes, pd_options: int, ptype: int, value_length: int
) -> tuple[Any, int, int, int]:
    """pymqe's MQINQMP: the MQIMPO and MQPD as their Options, and (value, DataLength, CompCode, Reason)."""
    return BACKEND.guard(lambda: _without_name(HANDLES.inqmp(hmsg, impo_options, name, ptype, value_length)), (None, 0))


def _without_name(answer: tuple[Any, int, str | None, int, int]) -> tuple[Any, int, int, int]:
    value, length, _, comp, reason = answer
    return value, length, comp, reason


__all__ = [
    "MQBACK",
    "MQBEGIN",
    "MQCLOSE",
    "MQCMIT",
    "MQCONN",
    "MQCONNX",
    "MQCRTMH",
    "MQDISC",
    "MQGET",
    "MQINQ",
    "MQINQMP",
    "MQOPEN",
    "MQPUT",
    "MQPUT1",
    "MQSET",
    "MQSETMP",
    "MQSUB",
    "error",
]
