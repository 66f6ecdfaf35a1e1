"""Connection authentication as the queue manager holds it: the CONNAUTH attribute, the AUTHINFO object it names,
and the settings in force (reference/operations.md, CONNAUTH).

Theory of operation
-------------------
``CONNAUTH`` (a queue-manager attribute) names an ``AUTHINFO`` object of ``AUTHTYPE(IDPWOS)``. What the server
checks when a connection arrives is not read from the object at each hello: it is a copy, :attr:`connauth`,
taken when the queue manager starts and again at ``REFRESH SECURITY TYPE(CONNAUTH)`` (or ``TYPE(ALL)``), as
IBM's queue manager takes changes to CONNAUTH and to its AUTHINFO object only then. The copy is plain data
(:class:`ConnAuth`), read by the server without the engine's help; a blank CONNAUTH gives ``None``: no
connection authentication.

The checks that keep CONNAUTH meaningful (each a refusal that changes nothing): ``ALTER QMGR CONNAUTH(name)``
needs an AUTHINFO object of that name (MQRC_UNKNOWN_OBJECT_NAME, 2085), and the AUTHINFO object CONNAUTH names
cannot be deleted (MQRC_OBJECT_IN_USE, 2042) — IBM documents neither case; syncpoint refuses rather than leave a
queue manager whose next start or refresh would find no object.

A queue manager created before AUTHINFO objects existed (its store has no ``authinfo`` counter) gains IBM's
default object SYSTEM.DEFAULT.AUTHINFO.IDPWOS and, when its CONNAUTH is blank, CONNAUTH naming it, written
with the first batch after it opens: its clients meet the same checks as a new queue manager's.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from syncpoint.mqi import constants as C
from syncpoint.mqi.objects import (
    AUTHINFO,
    MQADPCTX_YES,
    MQCHK_NONE,
    MQCHK_OPTIONAL,
    SYSTEM_DEFAULT_AUTHINFO,
    Definition,
    defaults_for,
)

from ._admin import AdminMixin
from ._util import fail

MIGRATED = "authinfo"  # the store counter saying the default AUTHINFO object was made
REFRESH_TYPES = ("ALL", "CONNAUTH", "AUTHSERV")


@dataclass(frozen=True, slots=True)
class ConnAuth:
    """The connection-authentication settings in force: the AUTHINFO object's, copied at start and refresh."""

    name: str
    chckclnt: int = MQCHK_OPTIONAL
    chcklocl: int = MQCHK_OPTIONAL
    adoptctx: bool = True
    faildlay: int = 1

    def check_for(self, local: bool) -> int:
        """CHCKLOCL for a local connection (the Unix socket), CHCKCLNT for a client (TCP)."""
        return self.chcklocl if local else self.chckclnt


NO_CONNAUTH = ConnAuth("", MQCHK_NONE, MQCHK_NONE, False, 0)


class SecurityMixin(AdminMixin):
    """CONNAUTH: the settings in force, REFRESH SECURITY, the checks on ALTER QMGR and DELETE AUTHINFO (made
    here, then the administration verbs of ``_admin`` run)."""

    connauth: ConnAuth | None

    def _load_security(self, counters: dict[str, int]) -> None:
        """At start: give a queue manager made before AUTHINFO objects IBM's default one, then take the
        settings in force."""
        if not counters.get(MIGRATED):
            b = self._b()
            if (AUTHINFO, SYSTEM_DEFAULT_AUTHINFO) not in self.definitions:
                now = self.clock.time()
                d = Definition(AUTHINFO, SYSTEM_DEFAULT_AUTHINFO, defaults_for(AUTHINFO), now, now)
                self.definitions[(AUTHINFO, SYSTEM_DEFAULT_AUTHINFO)] = d
                b.put_objects.append((AUTHINFO, d.name, d.to_bytes()))
            if not self.qmgr.attrs.get("CONNAUTH"):
                self.qmgr.attrs["CONNAUTH"] = SYSTEM_DEFAULT_AUTHINFO
                b.put_objects.append((self.qmgr.otype, self.qmgr.name, self.qmgr.to_bytes()))
            b.counters[MIGRATED] = 1
            b.durable = True
        self.connauth = self._connauth_now()

    def _connauth_now(self) -> ConnAuth | None:
        name = str(self.qmgr.attrs.get("CONNAUTH", ""))
        if not name:
            return None
        d = self.definitions.get((AUTHINFO, name))
        if d is None:
            return None  # cannot happen through the verbs (ALTER QMGR checks, DELETE refuses)
        a = d.attrs
        return ConnAuth(
            name, int(a["CHCKCLNT"]), int(a["CHCKLOCL"]), int(a["ADOPTCTX"]) == MQADPCTX_YES, int(a["FAILDLAY"])
        )

    def refresh_security(self, kind: str = "ALL") -> str:
        """REFRESH SECURITY TYPE(kind): CONNAUTH (and ALL) take the CONNAUTH object's settings now; AUTHSERV (and
        ALL) the object authority manager's group membership. Returns the name of the CONNAUTH object in force
        ("" for none)."""
        if kind not in REFRESH_TYPES:
            raise fail(C.MQRC_FUNCTION_NOT_SUPPORTED, f"REFRESH SECURITY TYPE({kind}) is not supported")
        if kind in ("ALL", "AUTHSERV"):
            self.refresh_authorities()  # group membership (``_authority``)
        if kind in ("ALL", "CONNAUTH"):
            self.connauth = self._connauth_now()
        return self.connauth.name if self.connauth is not None else ""

    def connauth_in_force(self) -> dict[str, Any] | None:
        """The settings in force as plain data (for tools and tests): None when CONNAUTH is blank."""
        c = self.connauth
        if c is None:
            return None
        return {
            "name": c.name,
            "CHCKCLNT": c.chckclnt,
            "CHCKLOCL": c.chcklocl,
            "ADOPTCTX": c.adoptctx,
            "FAILDLAY": c.faildlay,
        }

    def alter_qmgr(self, attrs: dict[str, Any]) -> Definition:
        """ALTER QMGR: CONNAUTH(name) must name an AUTHINFO object (or be blank)."""
        name = attrs.get("CONNAUTH")
        if isinstance(name, str) and name.strip() and (AUTHINFO, name.strip()) not in self.definitions:
            raise fail(C.MQRC_UNKNOWN_OBJECT_NAME, f"CONNAUTH names AUTHINFO {name.strip()}, which does not exist")
        return super().alter_qmgr(attrs)

    def delete(self, otype: str, name: str, purge: bool = False, qsgdisp: str = "QMGR") -> None:
        """DELETE: not the AUTHINFO object CONNAUTH names."""
        if otype == AUTHINFO and self.qmgr.attrs.get("CONNAUTH") == name:
            raise fail(C.MQRC_OBJECT_IN_USE, f"AUTHINFO {name} is the queue manager's CONNAUTH")
        super().delete(otype, name, purge, qsgdisp)
