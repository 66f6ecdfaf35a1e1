"""Connection authentication at the hello: what the CONNAUTH settings in force ask of a connection, who it runs
as, and who is privileged (reference/operations.md, CONNAUTH).

Theory of operation
-------------------
The queue manager's CONNAUTH names an AUTHINFO object of AUTHTYPE(IDPWOS); the engine keeps a copy of its
settings taken at start and at REFRESH SECURITY TYPE(CONNAUTH) (``engine._security.ConnAuth``). A connection
over TCP meets CHCKCLNT, one over the Unix socket CHCKLOCL:

* ``NONE``: nothing is checked, a password given is ignored;
* ``OPTIONAL``: a password given must be right; without one the connection is accepted;
* ``REQUIRED``: a user and the right password are needed;
* ``REQDADM``: needed from a privileged user (an administrator), optional for the others.

The password file (``users.json``, ``syncpoint passwd``) is syncpoint's user registry (IBM's IDPWOS checks the
operating system's). While it names no user there is no one a password could be checked for: connections
that give no password are accepted whatever the setting (a password given is still checked, and fails), so a
queue manager is open to its clients until its administrator names the first user — then CONNAUTH holds.

A connection that authenticated runs as the user it authenticated as when ADOPTCTX(YES); otherwise (and when
it gave no password) as the user it asserted: the user its hello names, else the operating-system user of the
client process (the hello's ``os_user``), else the server's own. :func:`is_privileged` says whether a user is
an administrator: the operating-system user that created the queue manager (the owner of its folder). It is
the one place that decides it (the object authority manager's administrators' group joins it there).
"""

from __future__ import annotations

from syncpoint.engine import ConnAuth
from syncpoint.mqi.objects import MQCHK_NONE, MQCHK_REQUIRED, MQCHK_REQUIRED_ADMIN


def must_check(
    settings: ConnAuth | None,
    local: bool,
    password_given: bool,
    privileged: bool,
    registry_named: bool,
    link: bool = False,
) -> bool:
    """Whether the hello's credentials must be checked before it connects (False: it connects as it is). A
    check without a password fails: that is how REQUIRED and REQDADM refuse a connection that gave none.

    ``link``: the hello of another queue manager's channel (ApplType MQAT_QMGR over TCP). IBM guards message
    channels with CHLAUTH and TLS, not CONNAUTH; syncpoint's receiving end asks every sending queue manager for
    its user and password once the password file names a user (docs/distributed-queuing.md), whatever CONNAUTH
    says. A client claiming to be one only makes its own check stricter."""
    if link and registry_named:
        return True
    mode = MQCHK_NONE if settings is None else settings.check_for(local)
    if mode == MQCHK_NONE:
        return False
    if password_given:
        return True
    if not registry_named:
        return False
    return mode == MQCHK_REQUIRED or (mode == MQCHK_REQUIRED_ADMIN and privileged)


def runs_as(settings: ConnAuth | None, authenticated: bool, user: str, asserted: str) -> str:
    """The user a connection runs as: the authenticated ``user`` under ADOPTCTX(YES), else the ``asserted``
    one ("" leaves it to the server's default, its own user)."""
    if authenticated and settings is not None and settings.adoptctx:
        return user
    return asserted


def fail_delay(settings: ConnAuth | None) -> float:
    """FAILDLAY in seconds: the least time a failed authentication waits for its answer."""
    return float(settings.faildlay) if settings is not None else 0.0
