"""Two helpers every part of the engine uses: an MQI failure, and text as a blank-padded MQCHAR field.

(Reading an MQCHAR field back as text is ``syncpoint.mqi.blank_strip``.)
"""

from __future__ import annotations

from syncpoint.mqi import MQMIError
from syncpoint.mqi import constants as C

_FAILED = C.MQCC_FAILED


def fail(reason: int, detail: str | None = None) -> MQMIError:
    """The error a failing call raises: MQCC_FAILED with ``reason`` and a sentence saying what was wrong."""
    return MQMIError(_FAILED, reason, detail)


def padded(value: str, length: int) -> bytes:
    """``value`` as an MQCHAR field of ``length`` bytes: UTF-8, cut to the length, blank-padded."""
    return value.encode("utf-8")[:length].ljust(length, b" ")
