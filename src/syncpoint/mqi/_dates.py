"""Dates and times as IBM MQ writes them: one formatter for each of IBM's two shapes.

* MQMD / MQDLH ``PutDate`` and ``PutTime``: ``YYYYMMDD`` and ``HHMMSSTH`` (hundredths), in GMT (structures.md).
* MQSC and PCF attribute values (CRDATE / CRTIME, ALTDATE / ALTTIME, LPUTDATE …): ``YYYY-MM-DD`` and
  ``HH.MM.SS``, in the queue manager's local time (mqsc.md).
"""

from __future__ import annotations

import time as _time
from typing import Any

_pdt_cache: list[Any] = [None, (b"", b"")]


def put_date_time(t: float) -> tuple[bytes, bytes]:
    """PutDate (YYYYMMDD) and PutTime (HHMMSSTH), GMT, as IBM sets them, each 8 bytes."""
    key = int(t * 100)
    if _pdt_cache[0] == key:
        return _pdt_cache[1]  # type: ignore[no-any-return]
    tm = _time.gmtime(t)
    hundredths = int((t - int(t)) * 100)
    # blank-padded as MQMD.normalize would pad them (a year before 1000), so a put need not normalise them
    value = (
        _time.strftime("%Y%m%d", tm).encode().ljust(8),
        (_time.strftime("%H%M%S", tm) + f"{hundredths:02d}").encode().ljust(8),
    )
    _pdt_cache[0] = key
    _pdt_cache[1] = value
    return value


def mqsc_date_time(t: float) -> tuple[str, str]:
    """An MQSC / PCF date and time: ``("2026-11-25", "13.05.59")``, local time; blanks for 0 (never)."""
    if not t:
        return "", ""
    tm = _time.localtime(t)
    return _time.strftime("%Y-%m-%d", tm), _time.strftime("%H.%M.%S", tm)
