"""Waiting gets (MQGMO_WAIT) and the queue manager's lifecycle, sans I/O: the one place for both.

Reference: ``reference/mqi-get.md`` (MQGMO_WAIT, WaitInterval, MQGMO_FAIL_IF_QUIESCING) and the ending modes of
``endmqm`` (``reference/control-commands.md``).

Theory of operation
-------------------
An MQGET with MQGMO_WAIT that finds nothing *parks* a :class:`Waiter` here, in the list of its queue, and
sleeps; how it sleeps is its adapter's business (a thread on a condition in :class:`~syncpoint.host.
QueueManagerHost`, an asyncio session in the server). Everything else is decided here, once, from the clock:

* the deadline, computed once when the call starts: ``monotonic() + WaitInterval / 1000``, ``inf`` for
  MQWI_UNLIMITED, no wait for MQGMO_NO_WAIT or a zero interval; a negative interval is MQRC_WAIT_INTERVAL_ERROR;
* how long to sleep: the clock says (``Clock.deadline_to_sleep_time``), so a fake clock needs no special case;
* the wake rule: the engine's effects name the queues whose waiters may now succeed (a put, a commit, a backout,
  an unlock); their waiters are woken in arrival order, so many waiters each get a different message; ``*``
  wakes every waiter (the queue manager quiesces, stops or breaks);
* why a wait ends without a message, checked each time a woken get again finds nothing: the queue manager has
  stopped (MQRC_Q_MGR_STOPPING, or MQRC_Q_MGR_QUIESCING for MQGMO_FAIL_IF_QUIESCING), it is quiescing and the
  get said MQGMO_FAIL_IF_QUIESCING (MQRC_Q_MGR_QUIESCING), the handle was closed (MQRC_HOBJ_ERROR), the deadline
  has passed by the clock (MQRC_NO_MSG_AVAILABLE).

The lifecycle: *running*, then *quiescing* (``endmqm -c``, or the first step of ``-i``: new connections and
FAIL_IF_QUIESCING calls are refused, the rest go on), then *stopped* (``-i`` / ``-p``, or the host closed: no
call is served any more). It only moves forward.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from syncpoint.engine import Clock
from syncpoint.mqi import MQGMO, MQMIError
from syncpoint.mqi import constants as C

RUNNING = "running"
QUIESCING = "quiescing"
STOPPED = "stopped"

ALL_QUEUES = "*"  # in a wake set: every waiter

_STATES = (RUNNING, QUIESCING, STOPPED)


def _nothing() -> None:
    pass


@dataclass(slots=True, eq=False)
class Waiter:
    """One parked MQGET: its queue, its deadline by the clock (``inf``: unlimited), and how to wake it."""

    queue: str
    deadline: float
    fail_if_quiescing: bool
    wake: Callable[[], None] = field(default=_nothing)  # the adapter's: notify a condition, schedule a retry
    done: bool = False  # unparked: a late wake finds nothing to do
    hconn: int = 0  # the connection and object handle of the get (DISPLAY's HSTATE: an MQGET wait in progress)
    hobj: int = 0


class Waiters:
    """The parked gets of one queue manager and its lifecycle state."""

    __slots__ = ("_parked", "clock", "state", "wakes")

    def __init__(self, clock: Clock) -> None:
        self.clock = clock
        self.state = RUNNING
        self._parked: dict[str, list[Waiter]] = {}
        # wakes so far per queue name (``*``: all): a get that tried with the host's lock let go (a shared
        # queue's, waiting for PostgreSQL) parks afterwards, and tries again at once if its queue was woken since
        self.wakes: dict[str, int] = {}

    # -- the deadline --------------------------------------------------------------------------------
    def deadline_of(self, gmo: MQGMO) -> float | None:
        """The deadline of a get: None when it does not wait, ``inf`` when it waits without limit."""
        if not gmo.Options & C.MQGMO_WAIT or gmo.WaitInterval == 0:
            return None
        if gmo.WaitInterval == C.MQWI_UNLIMITED:
            return math.inf
        if gmo.WaitInterval < 0:
            raise MQMIError(C.MQCC_FAILED, C.MQRC_WAIT_INTERVAL_ERROR, "WaitInterval is negative")
        interval: int = gmo.WaitInterval
        return self.clock.monotonic() + interval / 1000.0

    def sleep_time(self, deadline: float) -> float | None:
        """Real seconds to sleep until ``deadline`` (the clock decides); None: until woken."""
        if deadline == math.inf:
            return None
        sleep: float = self.clock.deadline_to_sleep_time(deadline)
        return sleep

    def passed(self, deadline: float) -> bool:
        return self.clock.monotonic() >= deadline

    # -- parking and waking --------------------------------------------------------------------------
    def park(self, waiter: Waiter) -> None:
        waiter.done = False
        lst = self._parked.get(waiter.queue)
        if lst is None:
            self._parked[waiter.queue] = [waiter]
        else:
            lst.append(waiter)

    def unpark(self, waiter: Waiter) -> None:
        waiter.done = True
        lst = self._parked.get(waiter.queue)
        if lst is not None:
            try:
                lst.remove(waiter)
            except ValueError:
                pass
            if not lst:
                del self._parked[waiter.queue]

    def wake(self, names: Iterable[str]) -> list[Waiter]:
        """Wake the waiters of the queues ``names`` (``*``: all), in arrival order per queue, and return them.
        They stay parked: a woken get that again finds nothing sleeps on."""
        wakes = self.wakes
        for name in names:
            wakes[name] = wakes.get(name, 0) + 1
        parked = self._parked
        if not parked:
            return []
        if ALL_QUEUES in names:
            woken = [w for lst in parked.values() for w in lst]
        else:
            woken = [w for name in names if name in parked for w in parked[name]]
        for w in woken:
            w.wake()
        return woken

    def woken(self, queue: str) -> int:
        """How many times ``queue`` was woken so far (see ``wakes``)."""
        wakes = self.wakes
        return wakes.get(queue, 0) + wakes.get(ALL_QUEUES, 0)

    def waiting_on(self, hconn: int, hobj: int) -> bool:
        """Whether an MQGET of connection ``hconn`` on object handle ``hobj`` is waiting (IBM's HSTATE ACTIVE)."""
        return any(w.hconn == hconn and w.hobj == hobj for lst in list(self._parked.values()) for w in list(lst))

    def parked(self, queue: str | None = None) -> list[Waiter]:
        """The parked waiters of ``queue`` (None: of every queue), in arrival order."""
        if queue is None:
            return [w for lst in self._parked.values() for w in lst]
        return list(self._parked.get(queue, ()))

    # -- why a wait ends -----------------------------------------------------------------------------
    def end_of_wait(self, waiter: Waiter, handle_open: bool) -> MQMIError | None:
        """A woken get found nothing again: the reason its wait ends now, or None to sleep on."""
        if self.state == STOPPED:
            return self.stopped_error(waiter.fail_if_quiescing)
        if self.state == QUIESCING and waiter.fail_if_quiescing:
            return MQMIError(C.MQCC_FAILED, C.MQRC_Q_MGR_QUIESCING, "the queue manager is ending")
        if not handle_open:
            return MQMIError(C.MQCC_FAILED, C.MQRC_HOBJ_ERROR, "the handle was closed while waiting")
        if self.passed(waiter.deadline):
            return MQMIError(C.MQCC_FAILED, C.MQRC_NO_MSG_AVAILABLE)
        return None

    @staticmethod
    def stopped_error(fail_if_quiescing: bool) -> MQMIError:
        """What a waiting get learns when the queue manager stops under it (endmqm -i)."""
        reason = C.MQRC_Q_MGR_QUIESCING if fail_if_quiescing else C.MQRC_Q_MGR_STOPPING
        return MQMIError(C.MQCC_FAILED, reason, "the queue manager is ending immediately")

    # -- the lifecycle -------------------------------------------------------------------------------
    @property
    def running(self) -> bool:
        return self.state == RUNNING

    def quiesce(self) -> bool:
        """running -> quiescing; True if the state changed."""
        if self.state != RUNNING:
            return False
        self.state = QUIESCING
        return True

    def stop(self) -> list[Waiter]:
        """-> stopped: unpark every waiter and return them, each to be ended with :meth:`stopped_error`."""
        self.state = STOPPED
        ended = self.parked()
        for w in ended:
            self.unpark(w)
        return ended
