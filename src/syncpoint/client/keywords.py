"""The Pythonic API's keywords as the MQI fields they fill, shared by the blocking API and ``syncpoint.aio``:
``wait=`` seconds as MQGMO options and WaitInterval, ``expiry=`` seconds as MQMD.Expiry tenths, identifiers as
24-byte fields, the put keywords as an MQMD, and the open options of a queue's handle per purpose.

Implements: reference/structures.md (MQMD Expiry, MsgId, CorrelId, ReplyToQ, Format; MQGMO WaitInterval);
seed 002 (an Expiry of 0 or below -1 is MQRC_EXPIRY_ERROR, so ``expiry=0`` is passed on for MQPUT to refuse).
"""

from __future__ import annotations

import math
from typing import Any

from syncpoint.mqi import MQMD, MQPMO, MQMIError
from syncpoint.mqi import constants as C


def wait_ms(wait: float | None) -> tuple[int, int]:
    """``wait`` in seconds (None: no wait; math.inf: forever) as (MQGMO options, WaitInterval)."""
    if wait is None or wait == 0:
        return C.MQGMO_NO_WAIT, 0
    if math.isinf(wait):
        return C.MQGMO_WAIT, C.MQWI_UNLIMITED
    if wait < 0:
        raise ValueError("wait must be a number of seconds, math.inf, or None")
    return C.MQGMO_WAIT, max(1, int(wait * 1000))


def msg_id_bytes(value: bytes | str | None) -> bytes:
    if value is None:
        return b"\0" * 24
    if isinstance(value, str):
        value = value.encode()
    if len(value) > 24:
        raise ValueError("identifiers are at most 24 bytes")
    return value.ljust(24, b"\0")


PUT_KEYWORDS = frozenset(
    {"md", "priority", "persistent", "expiry", "msg_id", "correl_id", "reply_to", "format", "msg_type", "report"}
)


def expiry_tenths(expiry: float) -> int:
    """MQMD.Expiry (tenths of a second) for ``expiry`` seconds: -1 or infinity is MQEI_UNLIMITED; 0 and other
    negative values pass through as they are, so the put fails with MQRC_EXPIRY_ERROR (2013) as seed 002 says;
    a positive time shorter than a tenth is one tenth."""
    if (math.isinf(expiry) and expiry > 0) or expiry == -1:
        return C.MQEI_UNLIMITED
    if math.isnan(expiry) or math.isinf(expiry):
        raise MQMIError(C.MQCC_FAILED, C.MQRC_EXPIRY_ERROR, f"expiry {expiry} is not a number of seconds")
    if expiry > 0:
        return min(max(1, round(expiry * 10)), 2**31 - 1)
    return 0 if expiry == 0 else min(round(expiry * 10), -2)


def build_md(
    md: MQMD | None,
    priority: int | None,
    persistent: bool | None,
    expiry: float | None,
    msg_id: bytes | str | None,
    correl_id: bytes | str | None,
    reply_to: str | None,
    format: str | bytes | None,
    msg_type: int | None,
    report: int | None,
) -> MQMD:
    md = md or MQMD()
    if priority is not None:
        md.Priority = priority
    if persistent is not None:
        md.Persistence = C.MQPER_PERSISTENT if persistent else C.MQPER_NOT_PERSISTENT
    if expiry is not None:
        md.Expiry = expiry_tenths(expiry)
    if msg_id is not None:
        md.MsgId = msg_id_bytes(msg_id)
    if correl_id is not None:
        md.CorrelId = msg_id_bytes(correl_id)
    if reply_to is not None:
        md.ReplyToQ = reply_to.encode().ljust(48)
    if format is not None:
        md.Format = (format.encode() if isinstance(format, str) else format).ljust(8)[:8]
    if msg_type is not None:
        md.MsgType = msg_type
    if report is not None:
        md.Report = report
    return md


# The MQOO options of the handle a queue opened without options uses for each purpose (see the API's module doc).
PURPOSE_OPTIONS = {
    "put": C.MQOO_OUTPUT | C.MQOO_FAIL_IF_QUIESCING,
    "get": C.MQOO_INPUT_AS_Q_DEF | C.MQOO_FAIL_IF_QUIESCING,
    "browse": C.MQOO_BROWSE | C.MQOO_FAIL_IF_QUIESCING,
    "inquire": C.MQOO_INQUIRE | C.MQOO_FAIL_IF_QUIESCING,
    "set": C.MQOO_SET | C.MQOO_FAIL_IF_QUIESCING,
}


# the Pythonic gets name a message handle (MQGMO MsgHandle): a message's properties come back as
# ``Message.properties`` (PROPCTL's rules with a handle), not in an MQRFH2 in front of the data
PYTHONIC_HMSG = 1


def put_keywords(data: bytes | str, kw: dict[str, Any]) -> tuple[bytes, MQMD, MQPMO]:
    """A put's data, MQMD and MQPMO from the Pythonic keywords: ``syncpoint`` and ``pmo`` (the MQPMO, given the
    syncpoint option unless it has one), ``md`` and :data:`PUT_KEYWORDS` (anything else is a TypeError). Text is
    put as UTF-8 with Format MQSTR unless ``format`` says otherwise. ``kw`` is emptied."""
    if isinstance(data, str):
        data = data.encode("utf-8")
        kw.setdefault("format", C.MQFMT_STRING)
    syncpoint = kw.pop("syncpoint", False)
    pmo: MQPMO = kw.pop("pmo", None) or MQPMO()
    if pmo.Options & (C.MQPMO_SYNCPOINT | C.MQPMO_NO_SYNCPOINT) == 0:
        pmo.Options |= C.MQPMO_SYNCPOINT if syncpoint else C.MQPMO_NO_SYNCPOINT
    md = build_md(*(kw.pop(k, None) for k in _BUILD_MD_ORDER))
    if kw:
        raise TypeError(f"unexpected arguments: {', '.join(kw)}")
    return bytes(data), md, pmo


_BUILD_MD_ORDER = (
    "md", "priority", "persistent", "expiry", "msg_id", "correl_id", "reply_to", "format", "msg_type", "report"
)  # fmt: skip
