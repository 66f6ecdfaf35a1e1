"""The object authority manager's rules as data: authorities, object types, generic profiles, and the records.

References: operations.md ("The object authority manager (OAM)"); IBM MQ's setmqaut / dmpmqaut / SET AUTHREC
pages (authority names, object type names, generic profiles and their priorities); constants.md
(MQRC_NOT_AUTHORIZED). The MQAUTH_* values are IBM's (cmqcfc.h), so PCF carries them unchanged.

Theory of operation
-------------------
An authority record says which authorities one entity (a principal, i.e. a user, or a group) holds on one
*profile* of one object type. A profile is an object name or a generic pattern: ``?`` stands for one character,
``*`` for any characters within one dot-separated part, ``**`` for any number of whole parts. An object is
governed, for each entity, by the *most specific* matching profile that holds a record for that entity (IBM's
profile priorities: the profiles are compared character by character from the left, and at the first place they
differ a plain character beats ``?``, which beats ``*``, which beats ``**``). A user's authority on an object is
the union of what its own record and each of its groups' records give, each taken from its own most specific
profile: a user in two groups holds what either group holds.

:class:`Records` holds the records and the group memberships and answers ``authorities(user, otype, name)``.
The answer is cached per (user, type, name) and the cache is dropped on any change, so with many profiles an
MQOPEN pays the profile search once and later opens a dictionary look-up; MQPUT / MQGET pay nothing, because
the check is made at MQOPEN and kept with the handle (IBM: a handle keeps what it was granted).

Choices (IBM's documentation leaves them to the platform; Linux behaviour is taken where known):
* Principals and groups are syncpoint's own: a group and its members are kept with the queue manager (``syncpoint
  group``), not read from the operating system. A principal's name is the user name a connection runs as (at most
  12 characters, MQ_USER_ID_LENGTH, what MQMD UserIdentifier carries); a group must exist before it is granted.
* Changes to authority records reach the next MQOPEN at once (IBM: setmqaut takes effect immediately); changes
  to group membership reach the checks at REFRESH SECURITY or the next start, as IBM's OAM caches a user's groups
  until then.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

from syncpoint.mqi import constants as C

# -- authorities ----------------------------------------------------------------------------------------------
# setmqaut's names, in the order IBM's dmpmqaut prints them, with their MQAUTH_* values
AUTHORITY_NAMES: dict[str, int] = {
    "altusr": C.MQAUTH_ALT_USER_AUTHORITY,
    "browse": C.MQAUTH_BROWSE,
    "chg": C.MQAUTH_CHANGE,
    "clr": C.MQAUTH_CLEAR,
    "connect": C.MQAUTH_CONNECT,
    "crt": C.MQAUTH_CREATE,
    "dlt": C.MQAUTH_DELETE,
    "dsp": C.MQAUTH_DISPLAY,
    "get": C.MQAUTH_INPUT,
    "inq": C.MQAUTH_INQUIRE,
    "put": C.MQAUTH_OUTPUT,
    "passall": C.MQAUTH_PASS_ALL_CONTEXT,
    "passid": C.MQAUTH_PASS_IDENTITY_CONTEXT,
    "set": C.MQAUTH_SET,
    "setall": C.MQAUTH_SET_ALL_CONTEXT,
    "setid": C.MQAUTH_SET_IDENTITY_CONTEXT,
    "ctrl": C.MQAUTH_CONTROL,
    "ctrlx": C.MQAUTH_CONTROL_EXTENDED,
    "pub": C.MQAUTH_PUBLISH,
    "sub": C.MQAUTH_SUBSCRIBE,
    "resume": C.MQAUTH_RESUME,
    "system": C.MQAUTH_SYSTEM,
}
NAME_OF = {v: k for k, v in AUTHORITY_NAMES.items()}
# MQSC's AUTHADD / AUTHRMV keywords (and DISPLAY AUTHREC's AUTHLIST) for the same authorities
MQSC_NAMES: dict[str, str] = {
    "altusr": "ALTUSR",
    "browse": "BROWSE",
    "chg": "CHG",
    "clr": "CLR",
    "connect": "CONNECT",
    "crt": "CRT",
    "dlt": "DLT",
    "dsp": "DSP",
    "get": "GET",
    "inq": "INQ",
    "put": "PUT",
    "passall": "PASSALL",
    "passid": "PASSID",
    "set": "SET",
    "setall": "SETALL",
    "setid": "SETID",
    "ctrl": "CTRL",
    "ctrlx": "CTRLX",
    "pub": "PUB",
    "sub": "SUB",
    "resume": "RESUME",
    "system": "SYSTEM",
}


def bit(name: str) -> int:
    return 1 << AUTHORITY_NAMES[name]


def _mask(*names: str) -> int:
    m = 0
    for n in names:
        m |= bit(n)
    return m


ALLMQI = _mask(
    "altusr", "browse", "connect", "get", "inq", "put", "pub", "sub", "resume", "set", "passall", "passid"
) | _mask("setall", "setid")
ALLADM = _mask("chg", "clr", "crt", "dlt", "dsp", "ctrl", "ctrlx")
ALL = ALLMQI | ALLADM | _mask("system")
GROUP_NAMES = {"all": C.MQAUTH_ALL, "alladm": C.MQAUTH_ALL_ADMIN, "allmqi": C.MQAUTH_ALL_MQI, "none": C.MQAUTH_NONE}

# -- object types -----------------------------------------------------------------------------------------------
# setmqaut -t's names (long and short) -> the type's name as dmpmqaut prints it
OBJECT_TYPES: dict[str, str] = {
    "queue": "queue",
    "q": "queue",
    "qmgr": "qmgr",
    "process": "process",
    "prcs": "process",
    "namelist": "namelist",
    "nl": "namelist",
    "topic": "topic",
    "top": "topic",
    "channel": "channel",
    "chl": "channel",
    "authinfo": "authinfo",
}
# the types IBM names that syncpoint has no objects of: refused with setmqaut's "invalid object type"
UNSUPPORTED_TYPES = {"clntconn", "clcn", "listener", "lstr", "service", "srvc", "rqmname", "rqmn", "comminfo"}
# MQSC OBJTYPE keywords and PCF MQOT_* values of the same types
MQSC_TYPES = {
    "QUEUE": "queue",
    "QMGR": "qmgr",
    "PROCESS": "process",
    "NAMELIST": "namelist",
    "TOPIC": "topic",
    "CHANNEL": "channel",
    "AUTHINFO": "authinfo",
}
MQSC_OF = {v: k for k, v in MQSC_TYPES.items()}
MQOT_OF = {
    "queue": C.MQOT_Q,
    "namelist": C.MQOT_NAMELIST,
    "process": C.MQOT_PROCESS,
    "qmgr": C.MQOT_Q_MGR,
    "channel": C.MQOT_CHANNEL,
    "authinfo": C.MQOT_AUTH_INFO,
    "topic": C.MQOT_TOPIC,
}
TYPE_OF_MQOT = {v: k for k, v in MQOT_OF.items()}

# the authorities that mean something on each type (IBM's setmqaut table); others are refused
VALID: dict[str, int] = {
    "qmgr": _mask("altusr", "connect", "inq", "set", "setall", "setid", "chg", "crt", "dlt", "dsp", "ctrl", "system"),
    "queue": _mask("browse", "get", "inq", "put", "set", "passall", "passid", "setall", "setid")
    | _mask("chg", "clr", "crt", "dlt", "dsp"),
    "process": _mask("inq", "chg", "crt", "dlt", "dsp"),
    "namelist": _mask("inq", "chg", "crt", "dlt", "dsp"),
    "topic": _mask("pub", "sub", "resume", "passall", "passid", "setall", "setid")
    | _mask("chg", "clr", "crt", "dlt", "dsp", "ctrl"),
    "channel": _mask("chg", "crt", "dlt", "dsp", "ctrl", "ctrlx"),
    "authinfo": _mask("inq", "chg", "crt", "dlt", "dsp"),
}

PRINCIPAL = "principal"
GROUP = "group"
ADMIN_GROUP = "mqm"  # IBM's administrators' group: its members hold every authority
USER_ID_LENGTH = 12  # MQ_USER_ID_LENGTH: a principal's or group's name
PROFILE_LENGTH = 48  # MQ_OBJECT_NAME_LENGTH


def names_of(mask: int) -> list[str]:
    """The authority names in ``mask``, in setmqaut's order."""
    return [n for n, v in AUTHORITY_NAMES.items() if mask >> v & 1]


def parse_authorities(words: list[str], otype: str) -> tuple[int, int]:
    """setmqaut's ``+auth`` / ``-auth`` words -> (added, removed) masks, within what ``otype`` allows.

    ``+all`` / ``+alladm`` / ``+allmqi`` mean the type's authorities of that class; ``+none`` nothing; ``-none`` is
    refused as IBM refuses it. Raises ValueError with the offending word."""
    add = remove = 0
    valid = VALID[otype]
    for w in words:
        if len(w) < 2 or w[0] not in "+-":
            raise ValueError(w)
        sign, name = w[0], w[1:].lower()
        if name in GROUP_NAMES:
            if name == "none":
                if sign == "-":
                    raise ValueError(w)
                continue
            m = {"all": ALL, "alladm": ALLADM, "allmqi": ALLMQI}[name] & valid
        elif name in AUTHORITY_NAMES:
            m = bit(name)
            if not m & valid:
                raise ValueError(w)
        else:
            raise ValueError(w)
        if sign == "+":
            add |= m
        else:
            remove |= m
    return add, remove


# -- generic profiles --------------------------------------------------------------------------------------------
_NAME_CHARS = re.compile(r"[A-Za-z0-9._/%?*]+")


def profile_error(profile: str) -> str | None:
    """Why ``profile`` is not a valid profile name (None: it is). IBM's rules: the characters of an object name
    and the wildcards; ``**`` only as a whole dot-separated part; no run of three asterisks."""
    if not profile:
        return "the profile name is blank"
    if len(profile) > PROFILE_LENGTH:
        return f"the profile name is longer than {PROFILE_LENGTH} characters"
    if not _NAME_CHARS.fullmatch(profile):
        return "the profile name holds a character an object name cannot have"
    if "***" in profile:
        return "'***' is not a wildcard"
    for part in profile.split("."):
        if "**" in part and part != "**":
            return "'**' must stand alone between dots"
    return None


def is_generic(profile: str) -> bool:
    return "?" in profile or "*" in profile


def _tokens(profile: str) -> list[str]:
    out: list[str] = []
    i = 0
    while i < len(profile):
        if profile.startswith("**", i):
            out.append("**")
            i += 2
        else:
            out.append(profile[i])
            i += 1
    return out


def compile_profile(profile: str) -> re.Pattern[str]:
    parts: list[str] = []
    toks = _tokens(profile)
    for i, t in enumerate(toks):
        if t == "**":
            # any number of whole parts: 'A.**' matches 'A' and 'A.B.C'; '**.B' matches 'B' and 'X.Y.B'
            before = i > 0 and toks[i - 1] == "."
            after = i + 1 < len(toks) and toks[i + 1] == "."
            if before and parts:
                parts.pop()  # the dot before is part of what '**' may swallow
                parts.append(r"(?:\..*)?")
            elif after:
                parts.append(r"(?:.*\.)?")
                toks[i + 1] = ""  # the dot after was taken
            else:
                parts.append(r".*")
        elif t == "*":
            parts.append(r"[^.]*")
        elif t == "?":
            parts.append(r"[^.]")
        elif t:
            parts.append(re.escape(t))
    return re.compile("".join(parts))


def _rank(t: str) -> int:
    return {"?": 1, "*": 2, "**": 3}.get(t, 0)


def specificity(profile: str) -> tuple[tuple[int, str], ...]:
    """A sort key: the more specific profile sorts first (plain characters, then ``?``, ``*``, ``**`` at the
    first place two profiles differ)."""
    key = [(_rank(t), t if not _rank(t) else "") for t in _tokens(profile)]
    key.append((-1, ""))  # the end: a profile that stops here is more specific than one that goes on
    return tuple(key)


# -- the records ---------------------------------------------------------------------------------------------------
Entity = tuple[str, str]  # (PRINCIPAL or GROUP, name)
AUTHREC_KIND = "AUTHREC"  # store kind: one record per (type, profile, entity)
GROUP_KIND = "OAMGROUP"  # store kind: a group's members
CREATOR_KIND = "OAMADMIN"  # store kind: the queue manager's creator ("creator" -> user name)


# a queue-sharing group's records (profiles covering its GROUP and SHARED objects): rows of the group's
# ``qsg_object`` table with this disposition, named by ``group_record_name``
GROUP_AUTHREC = "AUTHREC"
RecordId = tuple[str, str, Entity]  # (type, profile, entity)


def group_record_name(otype: str, profile: str, entity: Entity) -> str:
    """A record's name in the group's table (PostgreSQL's text holds no NUL, unlike ``record_key``)."""
    return json.dumps([otype, profile, entity[0], entity[1]])


def split_group_record_name(name: str) -> RecordId:
    otype, profile, etype, ename = json.loads(name)
    return otype, profile, (etype, ename)


def record_key(otype: str, profile: str, entity: Entity) -> str:
    return "\x00".join((otype, profile, entity[0], entity[1]))


def split_key(key: str) -> tuple[str, str, Entity]:
    otype, profile, etype, ename = key.split("\x00")
    return otype, profile, (etype, ename)


@dataclass
class Profile:
    name: str
    pattern: re.Pattern[str]
    key: tuple[tuple[int, str], ...]
    records: dict[Entity, int] = field(default_factory=dict)


class Records:
    """Every authority record and group of one queue manager, and the answers to "what may this user do"."""

    def __init__(self) -> None:
        self.profiles: dict[str, dict[str, Profile]] = {t: {} for t in VALID}
        self.groups: dict[str, set[str]] = {}  # stored membership (what ``syncpoint group`` changed)
        self.active: dict[str, frozenset[str]] = {}  # user -> its groups, as of the last start / REFRESH SECURITY
        self.creator: str | None = None
        self._ordered: dict[str, list[Profile]] = {}
        self._by_entity: dict[tuple[str, Entity], list[Profile]] = {}  # an entity's profiles, most specific first
        self.cached: dict[tuple[str, str, str], int] = {}  # (user, type, name) -> authorities; any change clears it
        self.group: dict[RecordId, int] = {}  # the queue-sharing group's records, as last read from the group
        self._shadowed: dict[RecordId, int | None] = {}  # this member's own record a group record replaced

    # -- loading and changing -------------------------------------------------------------------------------------
    def load(self, objects: dict[str, dict[str, bytes]]) -> None:
        for key, raw in objects.get(AUTHREC_KIND, {}).items():
            otype, profile, entity = split_key(key)
            self.set_record(otype, profile, entity, int(raw.decode()))
        for g, raw in objects.get(GROUP_KIND, {}).items():
            self.groups[g] = set(json.loads(raw.decode()))
        creator = objects.get(CREATOR_KIND, {}).get("creator")
        self.creator = creator.decode() if creator is not None else None
        self.refresh()

    def refresh(self) -> None:
        """REFRESH SECURITY: group membership as stored becomes what the checks use."""
        active: dict[str, set[str]] = {}
        for g, members in self.groups.items():
            for u in members:
                active.setdefault(u, set()).add(g)
        self.active = {u: frozenset(gs) for u, gs in active.items()}
        self.cached.clear()

    def set_record(self, otype: str, profile: str, entity: Entity, mask: int | None) -> None:
        """Give ``entity`` exactly ``mask`` on the profile. A record of no authority stays (IBM's ``+none``: it
        hides what a less specific profile would give); None deletes the record."""
        profiles = self.profiles[otype]
        p = profiles.get(profile)
        if mask is not None:
            if p is None:
                p = profiles[profile] = Profile(profile, compile_profile(profile), specificity(profile))
            p.records[entity] = mask
        elif p is not None:
            p.records.pop(entity, None)
            if not p.records:
                del profiles[profile]
        self._ordered.pop(otype, None)
        self._by_entity.clear()
        self.cached.clear()

    def set_group(self, records: dict[RecordId, int]) -> None:
        """The queue-sharing group's records as the group now holds them: each replaces this member's own record
        of the same type, profile and entity while it exists (that one is back when the group's goes)."""
        for rid in [r for r in self.group if r not in records]:
            self.set_record(*rid, self._shadowed.pop(rid, None))
        for rid, mask in records.items():
            if rid not in self.group:
                self._shadowed[rid] = self.record(*rid)
            if self.group.get(rid) != mask or self.record(*rid) != mask:
                self.set_record(*rid, mask)
        self.group = dict(records)

    def forget_shadowed(self, rid: RecordId) -> None:
        """This member's own record under a group record is gone (the group's replaced it in the store too)."""
        self._shadowed[rid] = None

    def record(self, otype: str, profile: str, entity: Entity) -> int | None:
        p = self.profiles[otype].get(profile)
        return None if p is None else p.records.get(entity)

    # -- answering -----------------------------------------------------------------------------------------------
    def is_admin(self, user: str) -> bool:
        return user == self.creator or ADMIN_GROUP in self.active.get(user, ())

    def ordered(self, otype: str) -> list[Profile]:
        out = self._ordered.get(otype)
        if out is None:
            out = self._ordered[otype] = sorted(self.profiles[otype].values(), key=lambda p: p.key)
        return out

    def entity_authorities(self, entity: Entity, otype: str, name: str) -> tuple[int, str | None]:
        """What ``entity``'s own record on the most specific matching profile gives, and that profile."""
        mine = self._by_entity.get((otype, entity))
        if mine is None:
            mine = self._by_entity[(otype, entity)] = [p for p in self.ordered(otype) if entity in p.records]
        for p in mine:
            if p.name == name or p.pattern.fullmatch(name):
                return p.records[entity], p.name
        return 0, None

    def authorities(self, user: str, otype: str, name: str) -> int:
        """The authorities ``user`` holds on object ``name`` of ``otype`` (administrators: every one)."""
        key = (user, otype, name)
        got = self.cached.get(key)
        if got is not None:
            return got
        if self.is_admin(user):
            mask = ALL
        else:
            mask = self.entity_authorities((PRINCIPAL, user), otype, name)[0]
            for g in self.active.get(user, ()):
                mask |= self.entity_authorities((GROUP, g), otype, name)[0]
        if len(self.cached) > 100_000:
            self.cached.clear()
        self.cached[key] = mask
        return mask

    def matching(
        self, otype: str | None, profile: str | None, entity: Entity | None
    ) -> list[tuple[str, str, Entity, int]]:
        """The records DISPLAY AUTHREC / dmpmqaut show: (type, profile, entity, mask), in a stable order. A
        generic ``profile`` filter names that profile itself, as IBM's PROFILE() does."""
        out = []
        for t in VALID:
            if otype is not None and t != otype:
                continue
            for pname in sorted(self.profiles[t]):
                if profile is not None and pname != profile:
                    continue
                p = self.profiles[t][pname]
                for e in sorted(p.records):
                    if entity is None or e == entity:
                        out.append((t, pname, e, p.records[e]))
        return out
