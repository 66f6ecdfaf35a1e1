"""Skipping backout: MQGMO_MARK_SKIP_BACKOUT (seed 000_d5eead655aeb3bc8.txt, "Skipping backout").

The rules, in the seed's words, and where each is kept:

* "specify the MQGMO_MARK_SKIP_BACKOUT option on the MQGET call. This marks the MQGET request as not being
  involved in application-initiated backout" — MQGET records the mark on its unit of work (``_get``); the
  option needs MQGMO_SYNCPOINT (``_options.check_get_options``).
* "Within a unit of work, there can be only one MQGET request marked as skipping backout … any further MQGET
  calls within the unit of work that specify MQGMO_MARK_SKIP_BACKOUT fail with reason code
  MQRC_SECOND_MARK_NOT_ALLOWED" — :func:`second_mark_not_allowed`.
* "The marked message skips backout only if the unit of work containing it is terminated by an application
  request to back it out. If the unit of work is backed out for any other reason, the message is backed out
  onto the queue in the same way that it would be if it was not marked" — :func:`skipping_backout`: MQBACK
  honours the mark; an abnormal end (a broken connection, MQDISC of a dying process, a restart) does not.
* "the marked message is treated as if it had been retrieved under a new unit of work. The application program
  must issue a WebSphere MQ call either to commit the new unit of work, or to back out the new unit of work …
  If the new unit of work is backed out (for any reason) the message is reinstated on the queue" —
  :func:`carry_into_new_unit_of_work` (Figure 12, step 7). The new unit of work holds only that get and no mark,
  so its own backout reinstates the message.

The seed marks the option "z/OS only"; syncpoint implements it on every platform (spec README).
"""

from __future__ import annotations

from syncpoint.mqi import MQMIError
from syncpoint.mqi import constants as C

from ._state import GOT_PENDING, Connection, Message, UnitOfWork
from ._util import fail


def second_mark_not_allowed() -> MQMIError:
    """The failure of a second marked MQGET in one unit of work."""
    return fail(C.MQRC_SECOND_MARK_NOT_ALLOWED, "a message is already marked to skip backout in this unit of work")


def skipping_backout(uow: UnitOfWork, application_request: bool) -> Message | None:
    """The get of ``uow`` that skips this backout: its marked get when the application asked for the backout
    (MQBACK), else none."""
    return uow.marked if application_request else None


def carry_into_new_unit_of_work(conn: Connection, marked: Message, now: float) -> None:
    """After the backout: the marked get, still pending, becomes the only member of a new unit of work."""
    if marked.state == GOT_PENDING:
        new = UnitOfWork(now)
        new.gets.append(marked)
        conn.uow = new
