"""Message expiry: seed 002_b264ab86f94f09d9.txt ("Message expiry (MQMD.Expiry)").

Theory of operation
-------------------
Expiry is "a period of time expressed in tenths of a second", counted from the put on the clock the engine is
given. A message keeps the Expiry it was put with and its put time; the remaining Expiry — the seed's "value is
decremented to reflect the time that the message spends on the destination queue" — is computed when it is
needed (``_state.Message.remaining_expiry``). Where the seed's rules are kept:

* Note 1: an Expiry of zero (or below MQEI_UNLIMITED) fails the put with MQRC_EXPIRY_ERROR, no report
  (``_put``).
* "The message is discarded when a browse or nonbrowse MQGET call occurs that would have returned the message
  had it not already expired": the gets' walk discards the expired messages it meets (``_get``), as
  :meth:`ExpiryMixin._discard_expired`. Note 6: a locked message under the cursor that expired is discarded and
  the get fails with MQRC_NO_MSG_UNDER_CURSOR. Note 5: a message got in a unit of work is off the queue; a
  backout that reinstates it watches its deadline again (``_state.LocalQueue.make_available``).
* Note 2: expired messages still on the queue count "for all purposes, including depth triggering"
  (``_trigger.trigger_depth``).
* "A report is generated when an expired message is discarded, if the message specified one of the
  MQRO_EXPIRATION_* report options" (``_reports.report_wanted``; the report itself: ``_reports``); notes
  3 and 4: at the discard, and never part of the application's unit of work.
* Note 7: a dead-letter put preserves the remaining Expiry (``_reports``); note 8: trigger messages are
  generated with MQEI_UNLIMITED (``_trigger``).
* Note 9, MQFMT_XMIT_Q_HEADER: both Expiry fields are decremented on get; the outer one decides discarding; an
  inconsistent inner one is MQRC_EXPIRY_ERROR at put; short data is not an error on get
  (:func:`check_xqh_expiry`, :func:`xqh_decremented`).
* "Periodic scan" every EXPRYINT seconds (:meth:`ExpiryMixin.housekeeping`, which the host runs before each
  call) and "Explicit request", REFRESH QMGR TYPE(EXPIRY) (:meth:`ExpiryMixin.refresh_expiry`). The seed's
  "knows whether a scan for expired messages is worthwhile": only queues holding messages with a limited
  Expiry are scanned, and in them only those messages, by deadline (``_state.LocalQueue.pop_expired``).
* A message reserved by a connection (``_tokens``) is never discarded while reserved (syncpoint's own rule).

Shared queues: only one queue manager of a group scans them, and a discarded message is reported once
(``_shared_rules``).
"""

from __future__ import annotations

import struct

from syncpoint.mqi import constants as C
from syncpoint.mqi import matches_generic

from ._base import QueueManagerBase
from ._reports import report_wanted
from ._state import AVAILABLE, GONE, LocalQueue, Message
from ._util import fail

_XQH_EMBEDDED_EXPIRY = 104 + 16  # MQXQH (104 bytes) + MQMD offset of Expiry
_XQH_MIN = _XQH_EMBEDDED_EXPIRY + 4


class ExpiryMixin(QueueManagerBase):
    """Discarding expired messages: on the gets' way, by the EXPRYINT scan, on REFRESH QMGR TYPE(EXPIRY)."""

    def _discard_expired(self, m: Message) -> None:
        """Discard an expired message outside any unit of work and send its expiration report (seed 002,
        notes 3 and 4): neither is part of the application's unit of work, whatever called us."""
        q = m.queue
        q.take(m)
        m.state = GONE
        q.depth -= 1
        q.counts.expired += 1
        self.expired_discarded += 1
        if self.monitoring_on:
            self.mon_discarded(q, expired=1)
        if m.persistent:
            b = self._b()
            b.delete_messages.append(m.seq)
            b.durable = True
        keep = report_wanted(m.md["Report"], C.MQFB_EXPIRATION)
        if keep >= 0:
            self._expiration_report(m, keep)

    def housekeeping(self) -> None:
        """Run what is due by the clock: the periodic scan for expired messages (EXPRYINT, seconds); the end of a
        statistics or accounting interval (``_statistics``)."""
        if self._mon_next and self.clock.time() >= self._mon_next:
            self.monitoring_due()
        if self.shared is not None:
            self._shared_expiry_scan()  # the group's one scanner of shared queues (``_shared_rules``)
        if not self._expiry_candidates:  # the common case, first: no queue holds a message that can expire
            return
        interval = self.qmgr.attrs["EXPRYINT"]
        if interval <= 0:
            return
        mono = self.clock.monotonic()
        if mono < self._next_expiry_scan:
            return
        self._next_expiry_scan = mono + interval
        self._scan_expired(list(self._expiry_candidates))

    def refresh_expiry(self, pattern: str = "*") -> int:
        """REFRESH QMGR TYPE(EXPIRY) NAME(pattern): discard expired messages of the named queues now.

        Only queues that hold messages with a limited expiry are looked at, and in them only those messages.
        Returns how many were discarded.
        """
        queues = [q for q in self._expiry_candidates if matches_generic(pattern, q.name)]
        return self._scan_expired(queues)

    def _scan_expired(self, queues: list[LocalQueue]) -> int:
        now = self.clock.time()
        n = 0
        for q in queues:
            for m in q.pop_expired(now):
                if m.state != AVAILABLE:  # gone meanwhile (e.g. discarded with the report of another): skip it
                    continue
                self._discard_expired(m)
                n += 1
        return n


# -- messages carrying a transmission-queue header (note 9) -----------------------------------------------
def xqh_expiry(data: bytes) -> int | None:
    """The Expiry of the MQMD embedded in an MQXQH at the start of ``data`` (None when data is too short)."""
    if len(data) < _XQH_MIN or data[:4] != b"XQH ":
        return None
    return int(struct.unpack_from("=i", data, _XQH_EMBEDDED_EXPIRY)[0])


def with_xqh_expiry(data: bytes, remaining: int) -> bytes:
    """``data`` with the embedded MQMD's Expiry replaced."""
    return data[:_XQH_EMBEDDED_EXPIRY] + struct.pack("=i", remaining) + data[_XQH_MIN:]


def check_xqh_expiry(outer: int, data: bytes) -> None:
    """MQPUT of a message with Format MQFMT_XMIT_Q_HEADER: the MQXQH's own Expiry must be valid and not outlive
    the message's (note 9)."""
    inner = xqh_expiry(data)
    if inner is None:
        raise fail(C.MQRC_EXPIRY_ERROR, "Format MQXMIT needs data starting with an MQXQH and its MQMD")
    if inner == 0 or inner < C.MQEI_UNLIMITED:
        raise fail(C.MQRC_EXPIRY_ERROR, f"the Expiry {inner} in the MQXQH's MQMD is not valid")
    if outer != C.MQEI_UNLIMITED and (inner == C.MQEI_UNLIMITED or inner > outer):
        raise fail(
            C.MQRC_EXPIRY_ERROR,
            f"the Expiry in the MQXQH's MQMD ({inner}) outlives the message's own Expiry ({outer})",
        )


def xqh_decremented(m: Message, now: float) -> bytes:
    """MQGET of such a message: its data with the MQXQH's Expiry decremented too, never below zero (note 9)."""
    inner = xqh_expiry(m.data)
    if inner is None or inner == C.MQEI_UNLIMITED:
        return m.data  # short data is not an error on get
    remaining = inner - int((now - m.put_time) * 10)
    return with_xqh_expiry(m.data, max(remaining, 0))
