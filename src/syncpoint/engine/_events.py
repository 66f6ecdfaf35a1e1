"""Performance events on queue depth (issue 36, item 2): IBM's Queue Depth High, Queue Depth Low and Queue Full
event messages on SYSTEM.ADMIN.PERFM.EVENT.

Theory of operation
-------------------
IBM MQ ("Enabling queue depth events"; event reference "Queue Depth High", "Queue Depth Low", "Queue Full"):

* the queue manager's PERFMEV(ENABLED) switches performance events on; each queue says which it wants:
  QDPHIEV, QDPLOEV, QDPMAXEV (ENABLED / DISABLED; syncpoint keeps them as those words);
* **Queue Depth High**: an MQPUT / MQPUT1 made the depth reach QDEPTHHI % of MAXDEPTH or more. It disables
  itself and enables Queue Depth Low and Queue Full;
* **Queue Depth Low**: a destructive MQGET made the depth fall to QDEPTHLO % of MAXDEPTH or less. It disables
  itself and enables Queue Depth High and Queue Full;
* **Queue Full**: an MQPUT / MQPUT1 was refused with MQRC_Q_FULL. It disables itself and enables Queue Depth
  Low (the put still fails with MQRC_Q_FULL: the event is the queue manager's doing, not the application's);
* each event message carries the queue's statistics since they were last reset (TimeSinceReset, HighQDepth,
  MsgEnqCount, MsgDeqCount), and a performance event resets them.

The event message is IBM's PCF event: MQMD Format MQEVENT, MsgType datagram, non-persistent; an MQCFH
(Type MQCFT_EVENT, Version 2, Command MQCMD_PERFM_EVENT, CompCode MQCC_WARNING, Reason the event's reason code)
then MQCFST QMgrName, MQCFST BaseQName and four MQCFIN. The queue manager puts it outside any unit of work
(``_system_put_to``); when the event queue is missing, full or put-inhibited, the event is dropped and counted
(``events_dropped``) and the MQI call that caused it goes on as if there were none, as IBM's.

Cost: the MQI path tests one dictionary entry (the queue manager's PERFMEV) after a put or get; nothing more
runs unless it is ENABLED. The attribute changes an event makes are written like an MQSET's.
"""

from __future__ import annotations

import struct
from typing import Any

from syncpoint.mqi import MQMD
from syncpoint.mqi import constants as C

from ._base import QueueManagerBase
from ._effects import REPORT
from ._state import LocalQueue

PERFM_EVENT_QUEUE = "SYSTEM.ADMIN.PERFM.EVENT"
MQFMT_EVENT = b"MQEVENT "
MQCFT_EVENT = 7
MQCFT_INTEGER = 3
MQCFT_STRING = 4
MQCFH_VERSION_2 = 2
MQCFC_LAST = 1
MQCMD_PERFM_EVENT = 45
ENABLED, DISABLED = "ENABLED", "DISABLED"

_CFH = struct.Struct("=9i")
_CFIN = struct.Struct("=4i")
_CFST = struct.Struct("=5i")


def pcf_event(command: int, reason: int, strings: list[tuple[int, str]], ints: list[tuple[int, int]]) -> bytes:
    """An event message's PCF: MQCFH then the MQCFST and MQCFIN parameters (native byte order, as IBM's on the
    platform; strings in CCSID 1208, blank-padded to IBM's 48 characters of an object name)."""
    out = [_CFH.pack(MQCFT_EVENT, 36, MQCFH_VERSION_2, command, 1, MQCFC_LAST, C.MQCC_WARNING, reason, 0)]
    count = 0
    for parameter, text in strings:
        raw = text.encode()
        padded = raw.ljust(48) if len(raw) <= 48 else raw + b" " * (-len(raw) % 4)  # IBM's 48-character names
        out.append(_CFST.pack(MQCFT_STRING, 20 + len(padded), parameter, 1208, len(padded)) + padded)
        count += 1
    for parameter, value in ints:
        out.append(_CFIN.pack(MQCFT_INTEGER, 16, parameter, value))
        count += 1
    header = bytearray(out[0])
    struct.pack_into("=i", header, 32, count)
    out[0] = bytes(header)
    return b"".join(out)


class EventsMixin(QueueManagerBase):
    """Queue depth events (see the module doc)."""

    events_dropped = 0  # event messages the event queue did not take (missing, full, put-inhibited)
    events_put = 0

    # -- hooks the MQI path calls only when PERFMEV is ENABLED ----------------------------------------
    def depth_after_put(self, q: LocalQueue) -> None:
        attrs = q.attrs
        c = q.counts
        if q.depth > c.event_hi:
            c.event_hi = q.depth
        if attrs.get("QDPHIEV") == ENABLED and q.depth * 100 >= attrs.get("QDEPTHHI", 80) * attrs["MAXDEPTH"]:
            self._depth_event(q, C.MQRC_Q_DEPTH_HIGH, {"QDPHIEV": DISABLED, "QDPLOEV": ENABLED, "QDPMAXEV": ENABLED})

    def depth_after_get(self, q: LocalQueue) -> None:
        attrs = q.attrs
        if attrs.get("QDPLOEV") == ENABLED and q.depth * 100 <= attrs.get("QDEPTHLO", 20) * attrs["MAXDEPTH"]:
            self._depth_event(q, C.MQRC_Q_DEPTH_LOW, {"QDPLOEV": DISABLED, "QDPHIEV": ENABLED, "QDPMAXEV": ENABLED})

    def queue_full(self, q: LocalQueue) -> None:
        if q.attrs.get("QDPMAXEV") == ENABLED:
            self._depth_event(q, C.MQRC_Q_FULL, {"QDPMAXEV": DISABLED, "QDPLOEV": ENABLED})

    # -- the event --------------------------------------------------------------------------------------
    def _depth_event(self, q: LocalQueue, reason: int, changes: dict[str, Any]) -> None:
        now = self.clock.time()
        c = q.counts
        data = pcf_event(
            MQCMD_PERFM_EVENT,
            reason,
            [(C.MQCA_Q_MGR_NAME, self.name), (C.MQCA_BASE_Q_NAME, q.name)],
            [
                (C.MQIA_TIME_SINCE_RESET, max(0, int(now - (c.event_reset or self.started)))),
                (C.MQIA_HIGH_Q_DEPTH, max(c.event_hi, q.depth)),
                (C.MQIA_MSG_ENQ_COUNT, c.puts - c.event_puts),
                (C.MQIA_MSG_DEQ_COUNT, c.gets - c.event_gets),
            ],
        )
        c.event_reset, c.event_hi, c.event_puts, c.event_gets = now, q.depth, c.puts, c.gets  # reset
        self._apply_changes(q.definition, changes)
        md = MQMD(Format=MQFMT_EVENT, MsgType=C.MQMT_DATAGRAM, Persistence=C.MQPER_NOT_PERSISTENT)
        if self._system_put_to(PERFM_EVENT_QUEUE, md, data, None, REPORT) == C.MQRC_NONE:
            self.events_put += 1
        else:
            self.events_dropped += 1  # IBM: the event is lost; the call that caused it is not failed
