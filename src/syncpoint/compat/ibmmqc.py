"""syncpoint's implementation of ``ibmmqc``, the C extension under IBM's ``ibmmq`` package.

Same functions, argument orders and return tuples as the extension (structures as bytes in and out, the
completion code and reason last in every tuple), backed by :mod:`syncpoint.compat._backend`.
``syncpoint compat install ibmmq`` installs ibmmq's Python files with a ``ibmmq/ibmmqc.py`` that re-exports
this module under the installed version. Message handles and properties are kept in this process
(``_handles``), as IBM's client library keeps them. Publish/subscribe and asynchronous consume are not offered
by syncpoint: those calls return MQCC_FAILED with MQRC_FUNCTION_NOT_SUPPORTED (2298).

Implements: reference/ibmmq-compat.md.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from syncpoint.mqi import MQMIError, SyncpointError
from syncpoint.mqi import constants as C

from ._backend import BACKEND, OK, char_length
from ._handles import HANDLES, options_of

__version__ = "2.1.2"  # replaced by the installed ibmmq version in the generated ibmmq/ibmmqc.py
__cmdlevel__ = C.MQCMDL_CURRENT_LEVEL
__mqbuild__ = "common"
# the structure versions the Python layer packs (those of the MQ 9.3 headers syncpoint's layouts follow)
__strucversions__: dict[str, int] = {
    "bno": 1,
    "cd": 11,
    "cfh": 3,
    "cmho": 1,
    "cno": 8,
    "csp": 3,
    "cbc": 2,
    "cbd": 1,
    "cih": 2,
    "ctlo": 1,
    "dlh": 1,
    "gmo": 4,
    "iih": 1,
    "impo": 1,
    "md": 2,
    "mde": 2,
    "od": 4,
    "pd": 1,
    "pmo": 3,
    "sco": 5,
    "sd": 1,
    "smpo": 1,
    "dmpo": 1,
    "dmho": 1,
    "sro": 1,
    "sts": 2,
    "tmc": 2,
    "tm": 1,
    "xqh": 1,
}


class error(SyncpointError):  # noqa: N801, N818 - the extension's name for its own errors
    """Raised for misuse of the extension's arguments (not for MQI failures, which are return codes)."""


_NOT_SUPPORTED = (C.MQCC_FAILED, C.MQRC_FUNCTION_NOT_SUPPORTED)
_callback: Callable[..., Any] | None = None


def MQLOGCF(level: int, filename: str | None = None) -> tuple[int]:
    """Trace control of the C layer: syncpoint logs through the ``logging`` module instead."""
    return (0,)


def MQCONN(name: bytes | str) -> tuple[int, int, int]:
    """MQCONN: bindings mode, or client mode when MQSERVER is set (as IBM's client library reads it)."""
    return BACKEND.conn_plain(name)


def MQCONNX(
    name: bytes, cno: bytes | None, cd: bytes | None, csp: bytes | None, sco: bytes | None, bno: bytes | None
) -> tuple[int, int, int]:
    return BACKEND.connx_ibmmq(name, cno, cd, csp, sco, bno)


def MQDISC(hconn: int) -> tuple[int, int]:
    return BACKEND.disc(hconn)


def MQOPEN(hconn: int, od: bytes, options: int) -> tuple[int, bytes, int, int]:
    return BACKEND.open(hconn, od, options)


def MQCLOSE(hconn: int, hobj: int, options: int) -> tuple[int, int]:
    return BACKEND.close(hconn, hobj, options)


def MQPUT(hconn: int, hobj: int, md: bytes, pmo: bytes, msg: bytes) -> tuple[bytes, bytes, int, int]:
    return BACKEND.put(hconn, hobj, md, pmo, msg)


def MQPUT1(hconn: int, od: bytes, md: bytes, pmo: bytes, msg: bytes) -> tuple[bytes, bytes, int, int]:
    return BACKEND.put1(hconn, od, md, pmo, msg)


def MQGET(hconn: int, hobj: int, md: bytes, gmo: bytes, maxlen: int) -> tuple[bytes, bytes, bytes, int, int, int]:
    return BACKEND.get(hconn, hobj, md, gmo, maxlen)


def MQBEGIN(hconn: int) -> tuple[int, int]:
    return BACKEND.begin(hconn)


def MQCMIT(hconn: int) -> tuple[int, int]:
    return BACKEND.commit(hconn)


def MQBACK(hconn: int) -> tuple[int, int]:
    return BACKEND.backout(hconn)


def MQINQ(
    hconn: int,
    hobj: int,
    selectors: list[int],
    int_attrs: list[int],
    int_count: int,
    char_count: int,
    char_len: int,
) -> tuple[list[int], bytes, int, int]:
    """MQINQ: integer values appended to ``int_attrs`` (on success), character values concatenated."""
    if not isinstance(selectors, list) or not isinstance(int_attrs, list):
        raise error("Arg is not a list")

    def run() -> tuple[list[int], bytes, int, int]:
        ints, chars, reason = BACKEND.inq(hconn, hobj, selectors)
        buf = b"".join(chars)
        if len(ints) > int_count:
            ints = ints[:int_count]
            reason = reason or MQRC_INT_COUNT_TOO_SMALL
        if len(buf) > char_len:
            buf = buf[:char_len]
            reason = reason or C.MQRC_CHAR_ATTRS_TOO_SHORT
        cc = C.MQCC_OK if reason == C.MQRC_NONE else C.MQCC_WARNING
        if cc == C.MQCC_OK:
            int_attrs.extend(ints)
        return int_attrs, buf.ljust(char_len, b"\0"), cc, reason

    return BACKEND.guard(run, (int_attrs, bytes(max(char_len, 0))))


def MQSET(hconn: int, hobj: int, selectors: list[int], int_attrs: list[int], char_attrs: bytes) -> tuple[int, int]:
    """MQSET: character values arrive concatenated, each at IBM's length for its selector."""
    if not isinstance(selectors, list) or not isinstance(int_attrs, list):
        raise error("Selectors arg is not a list")

    def run() -> tuple[int, int]:
        chars: list[bytes] = []
        pos = 0
        for sel in selectors:
            if C.MQCA_FIRST <= sel <= C.MQCA_LAST:
                n = char_length(sel)
                chars.append(bytes(char_attrs[pos : pos + n]))
                pos += n
        if pos != len(char_attrs):
            raise MQMIError(C.MQCC_FAILED, C.MQRC_CHAR_ATTR_LENGTH_ERROR, "character attributes length mismatch")
        BACKEND.set(hconn, hobj, selectors, int_attrs, chars)
        return C.MQCC_OK, C.MQRC_NONE

    return BACKEND.guard(run, ())


def MQSTAT(hconn: int, status_type: int, sts: bytes) -> tuple[bytes, int, int]:
    """MQSTAT: puts are never asynchronous here, so there are no asynchronous put errors to report."""

    def run() -> tuple[bytes, int, int]:
        BACKEND.conn(hconn)
        return bytes(sts), C.MQCC_OK, C.MQRC_NONE

    return BACKEND.guard(run, (bytes(sts),))


# -- publish/subscribe (``_backend.Backend.sub``, ``subrq``) ------------------------------------------------
def MQSUB(hconn: int, sd: bytes, hobj: int) -> tuple[bytes, int, int, int, int]:
    return BACKEND.sub(hconn, sd, hobj)


def MQSUBRQ(hconn: int, hsub: int, action: int, sro: bytes) -> tuple[bytes, int, int]:
    return BACKEND.subrq(hconn, hsub, action, sro)


# -- features syncpoint does not have: IBM's reason, never an exception ------------------------------------


def MQCBINIT(callback: Callable[..., Any]) -> None:
    global _callback
    if not callable(callback):
        raise error("Need a callable object.")
    _callback = callback


def MQCB(hconn: int, operation: int, cbd: bytes, hobj: int, md: bytes, gmo: bytes) -> tuple[int, int]:
    return _NOT_SUPPORTED


def MQCTL(hconn: int, operation: int, ctlo: bytes) -> tuple[int, int]:
    return _NOT_SUPPORTED


def MQCRTMH(hconn: int, cmho: bytes) -> tuple[int, int, int]:
    """MQCRTMH: a message handle of this process (``_handles``); the connection must be one, or unassociated."""

    def run() -> tuple[int, int, int]:
        if hconn not in (C.MQHC_UNASSOCIATED_HCONN, 0):
            BACKEND.conn(hconn)
        return HANDLES.crtmh(cmho), *OK

    return BACKEND.guard(run, (MQHM_UNUSABLE,))


def MQDLTMH(hconn: int, hmsg: int, dmho: bytes) -> tuple[int, int]:
    def run() -> tuple[int, int]:
        HANDLES.dltmh(hmsg, dmho)
        return OK

    return BACKEND.guard(run, ())


def MQSETMP(
    hconn: int, hmsg: int, smpo: bytes, name: bytes, pd: bytes, ptype: int, value: Any, value_length: int
) -> tuple[int, int]:
    """MQSETMP(conn_handle, msg_handle, smpo, name, pd, type, value, value_length), as the extension takes it."""

    def run() -> tuple[int, int]:
        HANDLES.setmp(hmsg, smpo, name, ptype, value, value_length)
        return OK

    return BACKEND.guard(run, ())


def MQINQMP(
    hconn: int, hmsg: int, impo: bytes, name: bytes, pd: bytes, ptype: int, value_length: int
) -> tuple[Any, int, str | None, int, int]:
    """MQINQMP: (value, DataLength, the name found for a wildcard name or None, CompCode, Reason)."""
    return BACKEND.guard(
        lambda: HANDLES.inqmp(hmsg, options_of(impo, b"IMPO", C.MQRC_IMPO_ERROR), name, ptype, value_length),
        (None, 0, None),
    )


def MQDLTMP(hconn: int, hmsg: int, dmpo: bytes, name: bytes) -> tuple[int, int]:
    """MQDLTMP: a property that is not there is MQCC_WARNING with MQRC_PROPERTY_NOT_AVAILABLE."""

    def run() -> tuple[int, int]:
        reason = HANDLES.dltmp(hmsg, dmpo, name)
        return (C.MQCC_WARNING if reason else C.MQCC_OK), reason

    return BACKEND.guard(run, ())


MQHM_UNUSABLE = -1
MQRC_INT_COUNT_TOO_SMALL = 2022

__all__ = [
    "MQBACK",
    "MQBEGIN",
    "MQCB",
    "MQCBINIT",
    "MQCLOSE",
    "MQCMIT",
    "MQCONN",
    "MQCONNX",
    "MQCRTMH",
    "MQCTL",
    "MQDISC",
    "MQDLTMH",
    "MQDLTMP",
    "MQGET",
    "MQINQ",
    "MQINQMP",
    "MQLOGCF",
    "MQOPEN",
    "MQPUT",
    "MQPUT1",
    "MQSET",
    "MQSETMP",
    "MQSTAT",
    "MQSUB",
    "MQSUBRQ",
    "error",
]
