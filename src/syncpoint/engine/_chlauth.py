"""Channel authentication (IBM's CHLAUTH): the records, SET / DISPLAY CHLAUTH, and the decision a client's
connection meets on a server-connection channel (reference/operations.md, "Connection authentication and channel
authentication").

Theory of operation
-------------------
A record names a *channel profile* (a channel name in which ``*`` stands for any characters, dots included) and a
type: ``BLOCKADDR`` (profile ``*`` only: addresses refused before the channel is known), ``ADDRESSMAP`` (by the
client's address), ``USERMAP`` (by the user the client asserts, ``CLNTUSER``), ``SSLPEERMAP`` (by the TLS peer's
distinguished name), ``QMGRMAP`` (by a sending queue manager's name) and ``BLOCKUSER`` (users refused, after the
mapping). A mapping record says who the channel runs as: ``USERSRC(MAP)`` its ``MCAUSER``, ``USERSRC(CHANNEL)``
as the channel would without the record, ``USERSRC(NOACCESS)`` not at all. ``WARN(YES)`` logs instead of refusing.

The decision (:meth:`ChlauthMixin.channel_admission` before the password check, :meth:`blocked_user` after it), as
IBM documents its precedence: with ``CHLAUTH(DISABLED)`` nothing is checked. Otherwise a BLOCKADDR address is
refused first. Then, of the mapping records whose channel profile, identity and address match, the one with the
most specific channel profile wins (a character beats ``*`` at the first place two profiles differ); among equally
specific profiles, the type in IBM's order SSLPEERMAP, ADDRESSMAP, USERMAP, QMGRMAP; then the most specific
identity (an exact value beats a pattern). The user the connection runs as is the record's MCAUSER with
USERSRC(MAP), else the authenticated user under ADOPTCTX(YES), else the channel's MCAUSER, else the asserted one.
Last, the BLOCKUSER record of the most specific matching channel profile refuses that user (``*MQADMIN``: any
administrator, the OAM's).

A new queue manager has IBM's three rules (:data:`DEFAULT_RULES`); one made before channel authentication gains
them, with IBM's SVRCONN channels, the first time it opens (:meth:`_load_chlauth`). Records are kept in the store
(kind ``CHLAUTH``) and act at once, as IBM's do.

IBM's messages: AMQ8877I (set), AMQ8878I (display), AMQ8884I (not found), AMQ9783I (RUNCHECK: the user it runs
as), AMQ9782E / AMQ9777E / AMQ9776E in the error log (blocked address, NOACCESS, blocked user).
"""

from __future__ import annotations

import ipaddress
import json
import re
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

from syncpoint.mqi import constants as C
from syncpoint.mqi.objects import (
    CHANNEL,
    MQCHLA_DISABLED,
    MQCHLA_ENABLED,
    MQCHT_SVRCONN,
    MQSCA_REQUIRED,
    Definition,
    defaults_for,
    svrconn_objects,
)
from syncpoint.store import Batch

from . import _sslpeer
from ._admin import AdminMixin
from ._util import fail
from .clock import Clock

CHLAUTH_KIND = "CHLAUTH"  # store kind: one record per (type, profile, identity)
MIGRATED = "chlauth"  # the store counter saying the default channels and rules were made
TYPES = ("BLOCKADDR", "ADDRESSMAP", "USERMAP", "SSLPEERMAP", "QMGRMAP", "BLOCKUSER")
MAPPINGS = ("SSLPEERMAP", "ADDRESSMAP", "USERMAP", "QMGRMAP")  # IBM's precedence among equally specific profiles
USERSRC = ("MAP", "NOACCESS", "CHANNEL")
CHCKCLNT = ("ASQMGR", "REQUIRED", "REQDADM")
MQADMIN = "*MQADMIN"
MAX_LIST = 100  # USERLIST / ADDRLIST entries (IBM: 100 user ids; 256 addresses, kept to the smaller here)
PROFILE_LENGTH = 20  # a channel name
USER_LENGTH = 12  # MQ_USER_ID_LENGTH as a CLNTUSER / USERLIST entry
MCAUSER_LENGTH = 64
DESCR_LENGTH = 64
ADDRESS_LENGTH = 264
SSLPEER_LENGTH = 1024

DEFAULT_RULES: tuple[tuple[str, str, dict[str, Any]], ...] = (
    (
        "SYSTEM.ADMIN.SVRCONN",
        "ADDRESSMAP",
        {"address": "*", "usersrc": "CHANNEL", "descr": "Default rule to allow MQ Explorer access"},
    ),
    (
        "SYSTEM.*",
        "ADDRESSMAP",
        {"address": "*", "usersrc": "NOACCESS", "descr": "Default rule to disable all SYSTEM channels"},
    ),
    ("*", "BLOCKUSER", {"userlist": [MQADMIN], "descr": "Default rule to disallow privileged users"}),
)


@dataclass
class Rule:
    """One channel authentication record."""

    profile: str
    type: str
    address: str = ""
    clntuser: str = ""
    sslpeer: str = ""
    qmname: str = ""
    sslcerti: str = ""  # SSLPEERMAP: the issuer's distinguished name ("" any issuer)
    userlist: list[str] = field(default_factory=list)
    addrlist: list[str] = field(default_factory=list)
    usersrc: str = "MAP"
    mcauser: str = ""
    chckclnt: str = "ASQMGR"
    descr: str = ""
    warn: bool = False
    altered: float = 0.0

    @property
    def key(self) -> str:
        """The record's identity: what ACTION(ADD | REPLACE | REMOVE) finds it by."""
        ident = {"ADDRESSMAP": self.address, "USERMAP": self.clntuser, "SSLPEERMAP": self.sslpeer}.get(self.type)
        if self.type == "QMGRMAP":
            ident = self.qmname
        if self.type in ("USERMAP", "SSLPEERMAP", "QMGRMAP") and self.address:
            ident = f"{ident}\x00{self.address}"
        if self.type == "SSLPEERMAP" and self.sslcerti:
            ident = f"{ident}\x00\x00{self.sslcerti}"
        return "\x00".join((self.type, self.profile, ident or ""))

    def to_bytes(self) -> bytes:
        return json.dumps(asdict(self), separators=(",", ":")).encode()

    @classmethod
    def from_bytes(cls, raw: bytes) -> Rule:
        return cls(**json.loads(raw))


# -- patterns -----------------------------------------------------------------------------------------------------
def _wildcard(pattern: str) -> re.Pattern[str]:
    return re.compile("".join(".*" if ch == "*" else re.escape(ch) for ch in pattern), re.IGNORECASE)


def profile_matches(profile: str, channel: str) -> bool:
    """A channel profile (``*`` any characters, dots too) against a channel name."""
    return _wildcard(profile).fullmatch(channel) is not None if "*" in profile else profile == channel


def specificity(pattern: str) -> tuple[tuple[int, str], ...]:
    """Sort key, most specific first: at the first place two patterns differ a character beats ``*``; a pattern
    that ends there beats one that goes on."""
    return (*((1, "") if ch == "*" else (0, ch) for ch in pattern), (-1, ""))


def address_error(pattern: str) -> str | None:
    """Why ``pattern`` is not an address pattern IBM accepts (None: it is). IBM's generic IP addresses: ``*``; an
    IPv4 address whose parts are numbers 0-255, ranges ``n-m`` (n < m) or ``*``, where a trailing ``*`` may stand
    for the parts after it (``192.0.2.*``, ``192.0.*``); an IPv6 address, alone or with a trailing ``*``; a host
    name whose dot-separated parts may hold ``*``."""
    p = pattern.strip()
    if not p:
        return "the address is blank"
    if len(p) > ADDRESS_LENGTH:
        return f"the address is longer than {ADDRESS_LENGTH} characters"
    if p == "*":
        return None
    if ":" in p:
        base = p[:-1].rstrip(":") if p.endswith("*") else p
        try:
            ipaddress.IPv6Address(base if not p.endswith("*") else base + "::")
        except ValueError:
            return f"'{p}' is not an IPv6 address"
        return None
    parts = p.split(".")
    if p[0].isdigit() or (all(re.fullmatch(r"[0-9*-]+", x) for x in parts) and any(ch.isdigit() for ch in p)):
        # an IPv4 pattern (a pattern that starts with a number is one, as IBM reads it)
        if len(parts) > 4 or (len(parts) < 4 and parts[-1] != "*"):
            return f"'{p}' does not have four parts (or fewer ending in '*')"
        for x in parts:
            if x == "*":
                continue
            m = re.fullmatch(r"(\d{1,3})(?:-(\d{1,3}))?", x)
            if m is None:
                return f"'{x}' of '{p}' is not a number, a range or '*'"
            low, high = int(m.group(1)), int(m.group(2) or m.group(1))
            if low > 255 or high > 255:
                return f"'{x}' of '{p}' is beyond 255"
            if m.group(2) is not None and low >= high:
                return f"the range '{x}' of '{p}' does not go upwards"
        return None
    if not re.fullmatch(r"[A-Za-z0-9*]([A-Za-z0-9*-]*)(\.[A-Za-z0-9*][A-Za-z0-9*-]*)*", p) or "**" in p:
        return f"'{p}' is not an address, a range or a host name pattern"
    return None


def address_matches(pattern: str, address: str) -> bool:
    """An address pattern (valid: :func:`address_error`) against a client's address."""
    if pattern == "*":
        return True
    if ":" in pattern:
        if pattern.endswith("*"):
            return address.lower().startswith(pattern[:-1].lower())
        try:
            return ipaddress.IPv6Address(pattern) == ipaddress.IPv6Address(address)
        except ValueError:
            return False
    parts = pattern.split(".")
    mine = address.split(".")
    if pattern[0].isdigit() or (all(re.fullmatch(r"[0-9*-]+", x) for x in parts) and any(c.isdigit() for c in pattern)):
        if len(mine) != 4 or not all(x.isdigit() for x in mine):
            return False
        for i, x in enumerate(parts):
            if x == "*":
                if i == len(parts) - 1:
                    return True
                continue
            low, _, high = x.partition("-")
            if not int(low) <= int(mine[i]) <= int(high or low):
                return False
        return len(parts) == 4
    return _wildcard(pattern).fullmatch(address) is not None


# -- the decision ---------------------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Admission:
    """What the mapping records say of one connection (before its password is checked)."""

    channel: str
    mcauser: str  # the channel's own MCAUSER ("" none)
    maxinst: int
    maxinstc: int
    mapped: str | None = None  # USERSRC(MAP): the user it runs as, whatever else
    chckclnt: str = "ASQMGR"  # the matching record's: REQUIRED or REQDADM ask more than the queue manager's
    rule: str = ""  # the record that matched, as DISPLAY shows it ("" none)
    warnings: tuple[str, ...] = ()  # WARN(YES) records that would have refused

    def runs_as(self, authenticated: str | None, asserted: str) -> str:
        """The user the connection runs as: the record's MCAUSER (USERSRC(MAP)), else the authenticated user
        (ADOPTCTX(YES)), else the channel's MCAUSER, else the asserted one."""
        if self.mapped is not None:
            return self.mapped
        if authenticated:
            return authenticated
        return self.mcauser or asserted


class RefusedError(Exception):
    """A connection channel authentication refuses: IBM's message for the error log, 2035 for the client."""

    def __init__(self, message_id: str, text: str, reason: int = C.MQRC_NOT_AUTHORIZED) -> None:
        super().__init__(f"{message_id}: {text}")
        self.message_id = message_id
        self.text = text
        self.reason = reason  # what the client is answered


class ChlauthMixin(AdminMixin):
    """Channel authentication records, SET / DISPLAY CHLAUTH, and the admission of a client's connection."""

    chlauth: dict[str, Rule]

    if TYPE_CHECKING:

        def is_administrator(self, user: str) -> bool: ...  # ``_authority``: the OAM's administrators

    @staticmethod
    def initial_batch(name: str, clock: Clock, dlq: str | None = None) -> Batch:
        """crtmqm: the queue manager's attributes and default objects (``_admin``), and IBM's three rules."""
        batch = AdminMixin.initial_batch(name, clock, dlq)
        for r in default_rules(clock.time()):
            batch.put_objects.append((CHLAUTH_KIND, r.key, r.to_bytes()))
        batch.counters[MIGRATED] = 1
        return batch

    def _load_chlauth(self, objects: dict[str, dict[str, bytes]], counters: dict[str, int]) -> None:
        """At start: the records; a queue manager made before channel authentication gains IBM's SVRCONN channels
        and default rules."""
        self.chlauth = {}
        if isinstance(self.qmgr.attrs.get("CHLAUTH"), str):  # kept as IBM's word by an older syncpoint
            self.qmgr.attrs["CHLAUTH"] = MQCHLA_DISABLED if self.qmgr.attrs["CHLAUTH"] == "DISABLED" else MQCHLA_ENABLED
        for raw in objects.get(CHLAUTH_KIND, {}).values():
            r = Rule.from_bytes(raw)
            self.chlauth[r.key] = r
        if counters.get(MIGRATED):
            return
        b = self._b()
        now = self.clock.time()
        for otype, name, attrs in svrconn_objects():
            if (CHANNEL, name) not in self.definitions:
                a = defaults_for(otype)
                a.update(attrs)
                d = self.definitions[(CHANNEL, name)] = Definition(otype, name, a, now, now)
                b.put_objects.append((otype, name, d.to_bytes()))
        for r in default_rules(now):
            self.chlauth[r.key] = r
            b.put_objects.append((CHLAUTH_KIND, r.key, r.to_bytes()))
        b.counters[MIGRATED] = 1
        b.durable = True

    @property
    def chlauth_enabled(self) -> bool:
        return bool(self.qmgr.attrs.get("CHLAUTH", MQCHLA_ENABLED) != MQCHLA_DISABLED)

    # -- SET / DISPLAY CHLAUTH -----------------------------------------------------------------------------------
    def set_chlauth(self, profile: str, rtype: str, action: str = "ADD", **attrs: Any) -> str:
        """SET CHLAUTH(profile) TYPE(rtype) ACTION(action) with the type's attributes (lower-case names of
        :class:`Rule`). Everything is checked before anything changes; MQRCCF-style refusals as MQMIError
        (MQRC_UNKNOWN_OBJECT_NAME: no such record to remove). Returns the message to show."""
        rule = self._checked_rule(profile, rtype, action, attrs)
        b = self._b()
        if action == "REMOVEALL":
            gone = [k for k, r in self.chlauth.items() if r.profile == rule.profile and r.type == rule.type]
            for k in gone:
                del self.chlauth[k]
                b.delete_objects.append((CHLAUTH_KIND, k))
        elif action == "REMOVE":
            if rule.type == "BLOCKUSER" and rule.userlist and rule.key in self.chlauth:  # remove the users named
                kept = [u for u in self.chlauth[rule.key].userlist if u not in rule.userlist]
                if kept:
                    self.chlauth[rule.key].userlist = kept
                    b.put_objects.append((CHLAUTH_KIND, rule.key, self.chlauth[rule.key].to_bytes()))
                    b.durable = True
                    return "AMQ8877I: syncpoint channel authentication record set."
            if self.chlauth.pop(rule.key, None) is None:
                raise fail(C.MQRC_UNKNOWN_OBJECT_NAME, "AMQ8884I: Channel authentication record not found.")
            b.delete_objects.append((CHLAUTH_KIND, rule.key))
        else:
            old = self.chlauth.get(rule.key)
            if old is not None and action == "ADD" and rule.type not in ("BLOCKUSER", "BLOCKADDR"):
                raise fail(C.MQRC_OBJECT_ALREADY_EXISTS, "AMQ8883E: Channel authentication record already exists.")
            if old is not None and action == "ADD" and rule.type == "BLOCKUSER":
                rule.userlist = old.userlist + [u for u in rule.userlist if u not in old.userlist]
            if old is not None and action == "ADD" and rule.type == "BLOCKADDR":
                rule.addrlist = old.addrlist + [a for a in rule.addrlist if a not in old.addrlist]
            if len(rule.userlist) > MAX_LIST or len(rule.addrlist) > MAX_LIST:
                raise fail(C.MQRC_UNEXPECTED_ERROR, f"a list holds at most {MAX_LIST} entries")
            rule.altered = self.clock.time()
            self.chlauth[rule.key] = rule
            b.put_objects.append((CHLAUTH_KIND, rule.key, rule.to_bytes()))
        b.durable = True
        return "AMQ8877I: syncpoint channel authentication record set."

    def _checked_rule(self, profile: str, rtype: str, action: str, attrs: dict[str, Any]) -> Rule:
        rtype = rtype.upper()
        action = action.upper()
        if rtype not in TYPES:
            raise fail(C.MQRC_UNEXPECTED_ERROR, f"TYPE({rtype}) is not a channel authentication record type")
        if action not in ("ADD", "REPLACE", "REMOVE", "REMOVEALL"):
            raise fail(C.MQRC_UNEXPECTED_ERROR, f"ACTION({action}) is not ADD, REPLACE, REMOVE or REMOVEALL")
        profile = profile.strip()
        if not profile or len(profile) > PROFILE_LENGTH or not re.fullmatch(r"[A-Za-z0-9._/%*]+", profile):
            raise fail(C.MQRC_UNEXPECTED_ERROR, f"AMQ8886E: '{profile[:40]}' is not a valid channel profile name.")
        if rtype == "BLOCKADDR" and profile != "*":
            raise fail(C.MQRC_UNEXPECTED_ERROR, "TYPE(BLOCKADDR) takes the channel profile '*' only")
        allowed = {
            "BLOCKADDR": {"addrlist"},
            "BLOCKUSER": {"userlist"},
            "ADDRESSMAP": {"address"},
            "USERMAP": {"clntuser", "address"},
            "SSLPEERMAP": {"sslpeer", "address", "sslcerti"},
            "QMGRMAP": {"qmname", "address"},
        }[rtype]
        if rtype not in ("BLOCKADDR", "BLOCKUSER"):
            allowed |= {"usersrc", "mcauser", "chckclnt"} if rtype != "QMGRMAP" else {"usersrc", "mcauser"}
        allowed |= {"descr", "warn"}
        given = {k.lower(): v for k, v in attrs.items() if v is not None}
        for k in given:
            if k not in allowed:
                raise fail(C.MQRC_UNEXPECTED_ERROR, f"{k.upper()} is not an attribute of TYPE({rtype})")
        r = Rule(profile, rtype)
        for k in ("address", "clntuser", "sslpeer", "qmname", "sslcerti", "usersrc", "mcauser", "chckclnt", "descr"):
            if k in given:
                setattr(r, k, str(given[k]).strip() if k != "descr" else str(given[k]))
        r.usersrc, r.chckclnt = r.usersrc.upper(), r.chckclnt.upper()
        if "warn" in given:
            r.warn = given["warn"] in (True, "YES", "yes")
        for k in ("userlist", "addrlist"):
            if k in given:
                items = given[k]
                setattr(r, k, [str(i).strip() for i in ([items] if isinstance(items, str) else items)])
        key_of = {"ADDRESSMAP": "address", "USERMAP": "clntuser", "SSLPEERMAP": "sslpeer", "QMGRMAP": "qmname"}
        needed = key_of.get(rtype) or ("addrlist" if rtype == "BLOCKADDR" else "userlist")
        if action != "REMOVEALL" and not given.get(needed) and not (action == "REMOVE" and rtype == "BLOCKUSER"):
            raise fail(C.MQRC_UNEXPECTED_ERROR, f"TYPE({rtype}) needs {needed.upper()}")
        for a in ([r.address] if r.address else []) + r.addrlist:
            why = address_error(a)
            if why is not None:
                raise fail(
                    C.MQRC_UNEXPECTED_ERROR, f"AMQ8887E: The address '{a}' is not a valid address pattern: {why}."
                )
        for k, v in (("SSLPEER", r.sslpeer), ("SSLCERTI", r.sslcerti)):
            why = _sslpeer.check(v) if len(v) <= SSLPEER_LENGTH else f"it is longer than {SSLPEER_LENGTH} characters"
            if why is not None:
                raise fail(C.MQRC_SSL_PEER_NAME_ERROR, f"{k}('{v[:60]}') is not valid: {why}.")
        if r.usersrc not in USERSRC:
            raise fail(C.MQRC_UNEXPECTED_ERROR, f"USERSRC({r.usersrc}) is not MAP, NOACCESS or CHANNEL")
        if r.chckclnt not in CHCKCLNT:
            raise fail(C.MQRC_UNEXPECTED_ERROR, f"CHCKCLNT({r.chckclnt}) is not ASQMGR, REQUIRED or REQDADM")
        if action in ("ADD", "REPLACE") and rtype in MAPPINGS and r.usersrc == "MAP" and not r.mcauser:
            raise fail(C.MQRC_UNEXPECTED_ERROR, "USERSRC(MAP) needs MCAUSER")
        for u in ([r.clntuser] if r.clntuser else []) + r.userlist:
            if len(u) > USER_LENGTH or " " in u:
                raise fail(C.MQRC_UNEXPECTED_ERROR, f"'{u[:40]}' is not a user id (1 to {USER_LENGTH} characters)")
        if len(r.mcauser) > MCAUSER_LENGTH or len(r.descr) > DESCR_LENGTH or len(r.sslpeer) > SSLPEER_LENGTH:
            raise fail(C.MQRC_UNEXPECTED_ERROR, "MCAUSER, DESCR or SSLPEER is too long")
        return r

    def chlauth_records(
        self,
        profile: str = "*",
        rtype: str = "ALL",
        match: str = "GENERIC",
        address: str = "",
        clntuser: str = "",
        sslpeer: str = "",
        qmname: str = "",
        sslcerti: str = "",
    ) -> list[dict[str, Any]]:
        """DISPLAY CHLAUTH(profile) TYPE(rtype) MATCH(EXACT | GENERIC | ALL | RUNCHECK): the records as plain data.
        RUNCHECK (``identity``: address, clntuser, sslpeer, qmname) gives the one record a connection meets, or
        a record of type ``RUNCHECK`` saying the user it runs as (AMQ9783I)."""
        match = match.upper()
        rtype = rtype.upper()
        if match == "RUNCHECK":
            identity = {"address": address, "clntuser": clntuser, "sslpeer": sslpeer, "qmname": qmname}
            identity["sslcerti"] = sslcerti
            return [self._runcheck(profile, identity)]
        if match not in ("EXACT", "GENERIC", "ALL"):
            raise fail(C.MQRC_UNEXPECTED_ERROR, f"MATCH({match}) is not RUNCHECK, EXACT, GENERIC or ALL")
        rules = sorted(self.chlauth.values(), key=lambda r: (r.profile, TYPES.index(r.type), r.key))
        out = []
        for r in rules:
            if rtype != "ALL" and r.type != rtype:
                continue
            if match == "EXACT" and r.profile != profile:
                continue
            if match == "GENERIC" and not profile_matches(profile, r.profile):
                continue
            if match == "ALL" and not (profile_matches(profile, r.profile) or profile_matches(r.profile, profile)):
                continue
            out.append(asdict(r))
        return out

    def _runcheck(self, channel: str, identity: dict[str, str]) -> dict[str, Any]:
        if "*" in channel:
            raise fail(C.MQRC_UNEXPECTED_ERROR, "MATCH(RUNCHECK) needs a channel name, not a profile")
        address = identity.get("address", "")
        if not address:
            raise fail(C.MQRC_UNEXPECTED_ERROR, "MATCH(RUNCHECK) needs ADDRESS")
        d = self.definitions.get((CHANNEL, channel))
        mcauser = str(d.attrs.get("MCAUSER", "")) if d is not None else ""
        user = identity.get("clntuser", "")
        for r in self._blockaddr(address):
            return asdict(r)
        peer = identity.get("sslpeer", "")
        for k in ("sslpeer", "sslcerti"):
            why = _sslpeer.check(identity.get(k, ""))
            if why is not None:
                raise fail(C.MQRC_SSL_PEER_NAME_ERROR, f"{k.upper()} is not valid: {why}.")
        best = self._mapping(channel, address, user, peer, identity.get("qmname", ""), identity.get("sslcerti", ""))
        if best is not None and best.usersrc == "NOACCESS":
            return asdict(best)
        runs = best.mcauser if best is not None and best.usersrc == "MAP" else (mcauser or user)
        block = self._blockuser(channel, runs)
        if block is not None:
            return asdict(block)
        if best is not None:
            return asdict(best)
        return {"type": "RUNCHECK", "mcauser": runs, "profile": channel}

    # -- the decision ----------------------------------------------------------------------------------------------
    def _blockaddr(self, address: str) -> list[Rule]:
        return [
            r
            for r in self.chlauth.values()
            if r.type == "BLOCKADDR" and any(address_matches(a, address) for a in r.addrlist)
        ]

    def _mapping(
        self, channel: str, address: str, user: str, sslpeer: str, qmname: str, sslcerti: str = ""
    ) -> Rule | None:
        found = []
        subject = _sslpeer.parse_shown(sslpeer) if sslpeer else []
        issuer = _sslpeer.parse_shown(sslcerti) if sslcerti else []
        for r in self.chlauth.values():
            if r.type not in MAPPINGS or not profile_matches(r.profile, channel):
                continue
            if r.address and not address_matches(r.address, address):
                continue
            if r.type == "USERMAP" and not (user and _value_matches(r.clntuser, user)):
                continue
            if r.type == "SSLPEERMAP" and not (subject and _sslpeer.matches(r.sslpeer, subject)):
                continue
            if r.type == "SSLPEERMAP" and r.sslcerti and not (issuer and _sslpeer.matches(r.sslcerti, issuer)):
                continue
            if r.type == "QMGRMAP" and not (qmname and _value_matches(r.qmname, qmname)):
                continue
            ident = {"ADDRESSMAP": r.address, "USERMAP": r.clntuser, "SSLPEERMAP": r.sslpeer}.get(r.type, r.qmname)
            issued = 0 if r.sslcerti else 1  # IBM: a record naming the issuer is more specific than one that does not
            found.append(((specificity(r.profile), MAPPINGS.index(r.type), issued, specificity(ident)), r))
        return min(found, key=lambda f: f[0])[1] if found else None

    def _blockuser(self, channel: str, user: str) -> Rule | None:
        rules = [r for r in self.chlauth.values() if r.type == "BLOCKUSER" and profile_matches(r.profile, channel)]
        if not rules:
            return None
        r = min(rules, key=lambda x: specificity(x.profile))  # the most specific profile's record alone applies
        for u in r.userlist:
            if u.upper() == MQADMIN and self.is_administrator(user):
                return r
            if u == user or u == "*":
                return r
        return None

    def channel_admission(
        self,
        channel: str,
        address: str,
        asserted: str,
        sslpeer: str = "",
        qmname: str = "",
        *,
        tls: bool = False,
        sslcerti: str = "",
    ) -> Admission:
        """A client's connection on ``channel`` from ``address`` asserting ``asserted``, before its password is
        checked: MQRC_UNKNOWN_CHANNEL_NAME (2540) for a channel that is not a SVRCONN channel here (the server
        logs AMQ9519E); :class:`Refused` for a blocked address, a channel's TLS attributes the connection does not
        meet (``tls``: it came over TLS; ``sslpeer`` / ``sslcerti``: its certificate's subject and issuer as
        IBM shows them, "" none) or a USERSRC(NOACCESS) record; else what the records say (:class:`Admission`)."""
        d = self.definitions.get((CHANNEL, channel))
        if d is None or d.attrs.get("CHLTYPE") != MQCHT_SVRCONN:
            raise fail(C.MQRC_UNKNOWN_CHANNEL_NAME, f"AMQ9519E: Channel '{channel}' not found.")
        a = d.attrs
        mcauser = str(a.get("MCAUSER", ""))
        base = Admission(channel, mcauser, int(a.get("MAXINST", 999_999_999)), int(a.get("MAXINSTC", 999_999_999)))
        warnings: list[str] = []
        for r in self._blockaddr(address) if self.chlauth_enabled else ():
            text = f"The remote connection from address '{address}' was blocked by a BLOCKADDR record."
            if not r.warn:
                raise RefusedError("AMQ9782E", f"Remote connection blocked. {text}")
            warnings.append(f"AMQ9787W: {text} (WARN(YES): allowed)")
        _check_tls(channel, a, address, tls, sslpeer)
        if not self.chlauth_enabled:
            return base
        best = self._mapping(channel, address, asserted, sslpeer, qmname, sslcerti)
        if best is None:
            return Admission(channel, mcauser, base.maxinst, base.maxinstc, warnings=tuple(warnings))
        shown = _shown(best)
        if best.usersrc == "NOACCESS":
            text = (
                f"The inbound channel '{channel}' was blocked from address '{address}' because the active values of "
                f"the channel matched a record configured with USERSRC(NOACCESS): {shown}"
            )
            if not best.warn:
                raise RefusedError("AMQ9777E", f"Channel was blocked. {text}")
            warnings.append(f"AMQ9787W: {text} (WARN(YES): allowed)")
        mapped = best.mcauser if best.usersrc == "MAP" else None
        return Admission(channel, mcauser, base.maxinst, base.maxinstc, mapped, best.chckclnt, shown, tuple(warnings))

    def blocked_user(self, channel: str, address: str, user: str) -> str | None:
        """After the password check: IBM's AMQ9776E when the BLOCKUSER record of the most specific matching
        profile names ``user`` (the user the connection would run as), a WARN(YES) record's AMQ9787W text prefixed
        ``warn:``, else None."""
        if not self.chlauth_enabled:
            return None
        r = self._blockuser(channel, user)
        if r is None:
            return None
        text = (
            f"AMQ9776E: Channel was blocked by userid. The inbound channel '{channel}' was blocked from address "
            f"'{address}' because the active values of the channel were mapped to a userid which should be blocked. "
            f"The active values of the channel were 'MCAUSER({user})'."
        )
        return f"warn:{text}" if r.warn else text


def _check_tls(channel: str, attrs: dict[str, Any], address: str, tls: bool, sslpeer: str) -> None:
    """The channel's TLS attributes, as IBM's channel start checks them (a channel with a blank SSLCIPH checks
    neither SSLCAUTH nor SSLPEER): SSLCIPH needs a TLS connection (AMQ9639E), SSLCAUTH(REQUIRED) a client
    certificate (AMQ9637E), SSLPEER a certificate whose subject matches it (AMQ9636E). The client is answered
    MQRC_Q_MGR_NOT_AVAILABLE (2059), as IBM's client reports a channel its queue manager ended."""
    if not str(attrs.get("SSLCIPH", "")).strip():
        return
    gone = C.MQRC_Q_MGR_NOT_AVAILABLE
    if not tls:
        text = (
            f"Remote channel '{channel}' did not specify a CipherSpec. The channel from address '{address}' has "
            "SSLCIPH set here: the client must connect over TLS."
        )
        raise RefusedError("AMQ9639E", text, gone)
    if attrs.get("SSLCAUTH", MQSCA_REQUIRED) == MQSCA_REQUIRED and not sslpeer:
        text = (
            f"Channel is lacking a certificate. The client at '{address}' sent no certificate on channel "
            f"'{channel}', which has SSLCAUTH(REQUIRED)."
        )
        raise RefusedError("AMQ9637E", text, gone)
    pattern = str(attrs.get("SSLPEER", "")).strip()
    if pattern and not (
        sslpeer and _sslpeer.check(pattern) is None and _sslpeer.matches(pattern, _shown_name(sslpeer))
    ):
        text = (
            f"SSL distinguished name does not match peer name, channel '{channel}'. The name '{sslpeer or '(none)'}' "
            f"of the client at '{address}' does not match SSLPEER('{pattern}')."
        )
        raise RefusedError("AMQ9636E", text, gone)


def _shown_name(name: str) -> list[tuple[str, str]]:
    return _sslpeer.parse_shown(name)


def _value_matches(pattern: str, value: str) -> bool:
    return _wildcard(pattern).fullmatch(value) is not None if "*" in pattern else pattern == value


def _shown(r: Rule) -> str:
    """A record as DISPLAY CHLAUTH names it."""
    ident = {"ADDRESSMAP": f"ADDRESS({r.address})", "USERMAP": f"CLNTUSER({r.clntuser})"}.get(r.type, "")
    if r.type == "SSLPEERMAP":
        ident = f"SSLPEER({r.sslpeer})"
    if r.type == "QMGRMAP":
        ident = f"QMNAME({r.qmname})"
    return f"CHLAUTH({r.profile}) TYPE({r.type}) {ident} USERSRC({r.usersrc})".replace("  ", " ")


def default_rules(now: float) -> list[Rule]:
    """IBM's three rules of a new queue manager."""
    out = []
    for profile, rtype, attrs in DEFAULT_RULES:
        r = Rule(profile, rtype, altered=now, **attrs)
        out.append(r)
    return out
