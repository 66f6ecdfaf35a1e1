"""DISPLAY THREAD and RESOLVE INDOUBT: units of work of a queue-sharing group's members, active and in doubt.

References: reference/queue-sharing-groups.md ("Peer recovery": in-doubt units of work "keep their messages locked
until the failed queue manager restarts or an operator resolves them (RESOLVE INDOUBT; DISPLAY THREAD(*)
TYPE(INDOUBT))"); docs/queue-sharing-groups.md, "Resolving in-doubt units of work" (the rule that keeps a
decision taken here and the member's own log in step).

Theory of operation
-------------------
A unit of work over private and shared queues is in doubt in the shared store between its prepare and its
completion (``_shared``). Its NID is its member's session and number (``QMA.3F9A0C1B2D4E.17``), its connection
name (IBM's ``INDOUBT(connection-name)``) the member that coordinates it. :meth:`IndoubtMixin.threads` lists
them (and, TYPE(ACTIVE), this member's connections holding a unit of work); :meth:`IndoubtMixin.indoubt_resolve`
settles those of a member that is not running, through the shared store, which records each decision for that
member's restart.
"""

from __future__ import annotations

from typing import Any

from syncpoint.mqi import constants as C
from syncpoint.mqi import matches_generic

from ._base import QueueManagerBase
from ._shared_defs import group_call
from ._util import fail

INDOUBT = "INDOUBT"
ACTIVE = "ACTIVE"


class IndoubtMixin(QueueManagerBase):
    """DISPLAY THREAD / RESOLVE INDOUBT (administrative verbs ``threads`` and ``indoubt_resolve``)."""

    def _group(self, what: str) -> Any:
        shared = getattr(self, "shared", None)
        if shared is None:
            raise fail(
                C.MQRC_ENVIRONMENT_ERROR,
                f"queue manager {self.name} is not a member of a queue-sharing group: {what} needs one",
            )
        return shared

    @group_call
    def threads(self, kind: str, name: str = "*", qmname: str | None = None) -> list[dict[str, Any]]:
        """DISPLAY THREAD(name) TYPE(kind) [QMNAME(qmname)]: ``kind`` INDOUBT (the units of work in doubt of
        ``qmname``, else of this member) or ACTIVE (this member's connections with a unit of work)."""
        if kind == ACTIVE:
            rows = []
            for conn in self.connections.values():
                shared_uow = self._shared_uows.get(conn.hconn)
                if conn.uow is None and shared_uow is None:
                    continue
                if name != "*" and not matches_generic(name, conn.appl_name):
                    continue
                # an ACTIVE thread's fields (a connection's); an INDOUBT one's below are a unit of work's: two
                # row layouts of DISPLAY THREAD, alike in shape only
                rows.append(
                    {
                        "NAME": conn.appl_name,
                        "HCONN": conn.hconn,
                        "USERID": conn.user,
                        "PID": conn.pid,
                        "QMNAME": self.name,
                        "STATUS": ACTIVE,
                        "PRIVATE": 0 if conn.uow is None else len(conn.uow),
                        "SHARED": shared_uow or 0,
                    }
                )
            return rows
        if kind != INDOUBT:
            raise fail(C.MQRC_SELECTOR_ERROR, f"TYPE({kind}) of DISPLAY THREAD is ACTIVE, INDOUBT or *")
        shared = self._group("DISPLAY THREAD TYPE(INDOUBT)")
        out = []
        for u in shared.indoubt_units(qmname or self.name):
            if name != "*" and not matches_generic(name, u.member):
                continue
            # an INDOUBT thread's fields (a unit of work's; the ACTIVE rows above are a connection's)
            out.append(
                {
                    "NAME": u.member,
                    "QMNAME": u.member,
                    "NID": u.nid,
                    "URID": f"{u.uow:012X}",
                    "STATUS": INDOUBT,
                    "ACTIVE": u.active,
                    "PUTS": u.puts,
                    "GETS": u.gets,
                    "QUEUES": u.queues,
                }
            )
        return out

    @group_call
    def indoubt_resolve(
        self, name: str, action: str, nids: list[str] | None = None, qmname: str | None = None
    ) -> dict[str, list[str]]:
        """RESOLVE INDOUBT(name) ACTION(COMMIT|BACKOUT) NID(*|nids) [QMNAME(qmname)]: settle the units of work in
        doubt of member ``qmname`` (else this one) whose coordinator is ``name`` (``*`` any) and whose NID is in
        ``nids`` (None: all). Refused (MQRC_OBJECT_IN_USE) while that member runs: it settles its own at its
        restart, by its own log. Returns ``{"resolved": [...], "missing": [...]}`` (NIDs)."""
        if action not in ("COMMIT", "BACKOUT"):
            raise fail(C.MQRC_SELECTOR_ERROR, f"ACTION({action}) of RESOLVE INDOUBT is COMMIT or BACKOUT")
        shared = self._group("RESOLVE INDOUBT")
        member = qmname or self.name
        if name != "*" and not matches_generic(name, member):
            return {"resolved": [], "missing": list(nids or [])}
        done = shared.resolve_units(member, nids, action == "COMMIT", self.name)
        if done is None:
            raise fail(
                C.MQRC_OBJECT_IN_USE,
                f"queue manager {member} is running: it settles its own units of work in doubt (at its restart, "
                "by its own log); RESOLVE INDOUBT acts on a member that is not running",
            )
        settled = {n.upper() for n in done}
        return {"resolved": done, "missing": [n for n in nids or [] if n.upper() not in settled]}
