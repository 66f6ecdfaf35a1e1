"""What a sending and a requesting channel share: the status DISPLAY CHSTATUS shows, IBM's retry ladder (SHORTRTY
attempts SHORTTMR seconds apart, then LONGRTY attempts LONGTMR seconds apart, then STOPPED), STOP CHANNEL, and the
channel's entries in the queue manager's error log (errors/AMQERR01.LOG, IBM's message numbers: AMQ9002I starting,
AMQ9202E a host that refuses the TCP connection, the partner's refusal AMQ9520E / AMQ9558E / AMQ9514E, AMQ9528I
STOP CHANNEL, AMQ9001I ended normally, AMQ9999E ended abnormally).

Theory of operation: :class:`ChannelAgent` runs ``_attempt`` (one connection to the other end, the subclass's) in
``_retrying_loop`` until an attempt ends normally or a final reason stops the channel; each failed attempt is
logged (``_failure_event``), backed out (``_backout``) and retried after ``next_retry``'s interval, waiting on
the stop event (no busy loop). The status's SHORTRTS and LONGRTS are the retries left. Entries reach the error log
through the ``syncpoint.channel`` logger with ``extra={"qmgr": …, "amq": (explanation, action)}``, which the
queue manager's ``host._errorlog`` handler writes in IBM's layout.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from syncpoint.mqi import MQMIError, mqsc_date_time, reason_name
from syncpoint.mqi import constants as C

from ._link import Link

log = logging.getLogger("syncpoint.channel")


def _why(e: MQMIError) -> str:
    """An error as a channel's STOPREASON: IBM's message when the other end sent one, and the reason code."""
    text = e.detail or ""
    return f"{text} ({reason_name(e.reason)} {e.reason})" if text else f"{reason_name(e.reason)} ({e.reason})"


def next_retry(attrs: dict[str, Any], short: int, long_: int, reason: str) -> tuple[int, int, int]:
    """IBM's retry ladder: SHORTRTY attempts SHORTTMR seconds apart, then LONGRTY attempts LONGTMR seconds apart;
    the retries left after this one and the seconds to wait for it. None left: the channel stops (AMQ9506E)."""
    if short > 0:
        return short - 1, long_, int(attrs["SHORTTMR"])
    if long_ > 0:
        return short, long_ - 1, int(attrs["LONGTMR"])
    raise ChannelStoppedError(f"AMQ9506E: retries exhausted: {reason}")


class ChannelStoppedError(Exception):
    """The channel ends and does not retry (STOP CHANNEL, a sequence number error, no dead-letter queue)."""


@dataclass
class Status:
    """What DISPLAY CHSTATUS shows of one sending channel."""

    name: str
    chltype: str = "SDR"
    state: str = "STARTING"
    xmitq: str = ""
    conname: str = ""
    rqmname: str = ""
    seq: int = 0
    batch_id: str = ""
    indoubt: bool = False
    msgs: int = 0
    batches: int = 0
    since: float = field(default_factory=time.time)
    last: float = 0.0
    short_left: int = 0  # SHORTRTS: short retries left (SHORTRTY until the channel first retries)
    long_left: int = 0  # LONGRTS: long retries left
    reason: str = ""

    def pairs(self) -> dict[str, Any]:
        lstmsgda, lstmsgti = mqsc_date_time(self.last)  # IBM's date and time; blank before the first batch
        chstada, chstati = mqsc_date_time(self.since)
        return {
            "CHANNEL": self.name,
            "CHLTYPE": self.chltype,
            "STATUS": self.state,
            "XMITQ": self.xmitq,
            "CONNAME": self.conname,
            "RQMNAME": self.rqmname,
            "CURSEQNO": self.seq,
            "LSTLUWID": self.batch_id,
            "LSTMSGDA": lstmsgda,
            "LSTMSGTI": lstmsgti,
            "CHSTADA": chstada,
            "CHSTATI": chstati,
            "INDOUBT": "YES" if self.indoubt else "NO",
            "MSGS": self.msgs,
            "BATCHES": self.batches,
            "SHORTRTS": self.short_left,
            "LONGRTS": self.long_left,
            "STOPREASON": self.reason,
        }


class ChannelAgent:
    """What a sending and a requesting channel (each a thread of its server) share: STOP CHANNEL MODE(FORCE) and
    how a run that met ChannelStoppedError ends."""

    def __init__(
        self,
        name: str,
        connect: Callable[[], Any],
        status: Status,
        credentials: Callable[[str], dict[str, Any]],
        stop: threading.Event,
    ) -> None:
        self.name = name
        self.connect = connect
        self.status = status
        self.credentials = credentials
        self.stop = stop
        self.link: Link | None = None
        self.stop_status = "STOPPED"  # STOP CHANNEL STATUS(STOPPED|INACTIVE): the state the channel ends in
        self.cut = threading.Event()  # STOP CHANNEL MODE(FORCE|TERMINATE): the link was cut, a batch may be in doubt

    qmgr_name = ""  # this end's queue manager, once the run has connected: its error log takes the channel's entries
    event_qm: Any = None  # the connection this channel's events (CHLEV) go through: a sending channel's own
    _last_error: tuple[str, int] = ("", 0)  # the last failed attempt's IBM message and reason (its Stopped event)

    def channel_event(self, reason: int, qualifier: int = 0, code: str = "", mqrc: int = 0) -> None:
        """IBM's channel event (Channel Started, Stopped, Stopped By User): the queue manager writes it on
        SYSTEM.ADMIN.CHANNEL.EVENT when CHLEV is ENABLED. ErrorIdentifier is the error log message's identifier
        (IBM's 0x2000nnnn for AMQnnnn); AuxErrorDataInt1 the MQRC. A channel never fails for its event."""
        qm = self.event_qm
        if qm is None:
            return
        st = self.status
        ident = int("2000" + code[3:7], 16) if code[:3] == "AMQ" and code[3:7].isdigit() else 0
        error = [ident, mqrc, 0, self._peer_host() if ident else "", "", ""]
        try:
            qm.admin("channel_event", reason, self.name, qualifier, st.xmitq, st.conname, error)
        except (MQMIError, OSError, EOFError) as e:
            log.debug("channel %s: no channel event (%s)", self.name, e)

    def event(
        self, message_id: str, text: str, explanation: str, action: str = "None.", level: int = logging.INFO
    ) -> None:
        """An entry in this queue manager's error log (errors/AMQERR01.LOG, IBM's layout and message numbers), as
        IBM's channel programs write one when a channel starts, retries, is refused or ends."""
        log.log(level, "%s: %s", message_id, text, extra={"qmgr": self.qmgr_name, "amq": (explanation, action)})

    def _peer_host(self) -> str:
        host, _, port = str(self.status.conname).partition("(")
        return f"{host} ({port.rstrip(')')})" if port else host

    def _message_of(self, text: str) -> tuple[str, str]:
        """The IBM message a failure's text starts with (``AMQ9520E: …``, as the partner sent it), else AMQ9999E."""
        code, _, summary = text.partition(": ")
        if code.startswith("AMQ") and len(code) == 8:
            return code, summary
        return "AMQ9999E", f"Channel '{self.name}' to host '{self._peer_host()}' ended abnormally."

    def _failure_event(self, e: MQMIError) -> None:
        """A failed attempt in the error log: IBM's AMQ9202E for a host that refuses the TCP connection, the
        partner's own message (AMQ9520E, AMQ9558E, AMQ9514E …) when it refused the channel, else AMQ9999E."""
        detail = e.detail or ""
        then = "The channel is retried (SHORTRTY / LONGRTY)."
        if e.reason == C.MQRC_HOST_NOT_AVAILABLE:
            self._last_error = ("AMQ9202E", e.reason)
            self.event(
                "AMQ9202E",
                f"Remote host '{self._peer_host()}' not available, retry later.",
                f"The attempt to allocate a conversation using TCP/IP to host '{self._peer_host()}' for channel "
                f"'{self.name}' was not successful ({detail}). {then}",
                "Check that the remote queue manager's server is running and listening on that port (strmqm).",
                logging.WARNING,
            )
            return
        code, summary = self._message_of(detail)
        self._last_error = (code, e.reason)
        self.event(
            code,
            summary,
            f"Channel '{self.name}': {_why(e)}. {then}",
            "Look at the remote queue manager's error log for the other end's view.",
            logging.WARNING,
        )

    def force(self) -> None:
        """STOP CHANNEL MODE(FORCE|TERMINATE), from another thread: stop now, without finishing the current batch
        (it stays in doubt, held in the sync record, and is resolved when the channel next starts)."""
        self.cut.set()
        self.stop.set()
        link = self.link
        if link is not None:
            link.abort()

    # -- IBM's retry ladder, the same for a sender and a requester ----------------------------------------
    final_reasons: tuple[int, ...] = (C.MQRC_UNKNOWN_CHANNEL_NAME, C.MQRC_CHANNEL_STOPPED, C.MQRC_NOT_AUTHORIZED)
    attrs: dict[str, Any]

    def _attempt(self) -> bool | None:
        """One connection to the other end: None when the channel ended normally, else whether it reached
        RUNNING before it broke (then the retry counts start again, as IBM's)."""
        raise NotImplementedError

    def _failed(self, e: MQMIError) -> bool | None:
        """An attempt that failed with ``e``: STOP CHANNEL or a final reason stop the channel; any other is
        retried (what ``_attempt`` would have returned: False, it did not run)."""
        if self.stop.is_set():  # STOP CHANNEL MODE(FORCE) cut the link: no retry
            self._backout()
            raise ChannelStoppedError("STOP CHANNEL") from None
        if e.reason in self.final_reasons:  # its entry is the channel's end (``_ended``)
            raise ChannelStoppedError(_why(e)) from None
        self._failure_event(e)
        self.status.reason = _why(e)
        log.warning("channel %s: %s", self.name, self.status.reason)
        return False

    def _backout(self) -> None:
        """After a failed attempt: undo what this end had begun (a sender backs out its batch's gets)."""

    def _retrying_loop(self) -> None:
        """Attempts until one ends normally, SHORTRTY attempts SHORTTMR seconds apart, then LONGRTY attempts
        LONGTMR seconds apart (``next_retry``); the retries left are the status's SHORTRTS and LONGRTS."""
        st = self.status
        st.short_left, st.long_left = short, long_ = int(self.attrs["SHORTRTY"]), int(self.attrs["LONGRTY"])
        self.event(
            "AMQ9002I",
            f"Channel '{self.name}' is starting.",
            f"Channel '{self.name}' ({st.chltype}) to '{st.conname or 'its requester'}' is starting.",
        )
        while True:
            if self.stop.is_set():
                raise ChannelStoppedError("STOP CHANNEL")
            ran: bool | None = False
            try:
                st.state = "BINDING"
                ran = self._attempt()
            except MQMIError as e:
                ran = self._failed(e)
            finally:
                if self.link is not None:
                    self.link.close()
                    self.link = None
            if ran is None:
                self.channel_event(C.MQRC_CHANNEL_STOPPED, C.MQRQ_CHANNEL_STOPPED_OK)
                self.event(
                    "AMQ9001I",
                    f"Channel '{self.name}' ended normally.",
                    f"Channel '{self.name}' ended normally (its disconnect interval passed, or its partner ended it).",
                )
                return
            self._backout()
            code, mqrc = self._last_error
            self.channel_event(C.MQRC_CHANNEL_STOPPED, C.MQRQ_CHANNEL_STOPPED_RETRY, code, mqrc)
            if ran:  # IBM: the retry counts start again after the channel ran
                short, long_ = int(self.attrs["SHORTRTY"]), int(self.attrs["LONGRTY"])
            short, long_, interval = next_retry(self.attrs, short, long_, st.reason)
            st.state, st.short_left, st.long_left = "RETRYING", short, long_
            if self.stop.wait(interval):
                raise ChannelStoppedError("STOP CHANNEL")

    def _ended(self, e: ChannelStoppedError) -> None:
        st = self.status
        if self.stop.is_set():  # STOP CHANNEL: IBM's AMQ9528I, the state STATUS() asked for
            st.state = self.stop_status
            st.reason = f"AMQ9528I: User requested closedown of channel '{self.name}'."
            log.info("channel %s ended by STOP CHANNEL (%s)", self.name, st.state)
            self.channel_event(C.MQRC_CHANNEL_STOPPED_BY_USER, C.MQRQ_CHANNEL_STOPPED_DISABLED)
            self.event(
                "AMQ9528I",
                f"User requested closedown of channel '{self.name}'.",
                f"Channel '{self.name}' is ending because STOP CHANNEL asked for it; it is now {st.state}.",
                "START CHANNEL starts it again." if st.state == "STOPPED" else "None.",
            )
        else:
            st.state, st.reason = "STOPPED", str(e)
            log.error("channel %s stopped: %s", self.name, e)
            code, summary = self._message_of(str(e))
            self.channel_event(C.MQRC_CHANNEL_STOPPED, C.MQRQ_CHANNEL_STOPPED_ERROR, code, self._last_error[1])
            self.event(
                code,
                summary,
                f"Channel '{self.name}' stopped: {e}. It stays STOPPED until START CHANNEL.",
                "Correct the cause, then START CHANNEL.",
                logging.ERROR,
            )
