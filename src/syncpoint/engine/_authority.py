"""Authority checks (IBM's object authority manager): the one rule every door asks, and the verbs that change it.

References: operations.md ("The object authority manager (OAM)"); constants.md (MQRC_NOT_AUTHORIZED,
MQRC_UNKNOWN_ENTITY, the MQOO_* options); the rules themselves are data in ``_oam``.

Theory of operation
-------------------
Every MQI verb that names an object asks :meth:`AuthorityMixin.check_authority` with the connection's user
(``Connection.user``, which the host sets: the peer's operating-system user over the Unix socket, the authenticated
user over TCP, this process's user embedded): MQCONN asks ``connect`` on the queue manager, MQOPEN (and so
MQPUT1) one authority per open option on the object it names (an alias by its own name, a remote queue by its
definition, a queue at another queue manager by its transmission queue), administrative verbs the administration
authority on the object they name. The answer is kept with the handle (its options), so MQPUT / MQGET ask
nothing and a handle keeps what it was granted when a record changes later (IBM's rule). A refusal raises
MQRC_NOT_AUTHORIZED (2035) before anything changed, through :meth:`_not_authorized`, the one place an authority
event (AUTHOREV) is to be written from.

Each refusal is also IBM's AMQ8077W in the queue manager's error log (the ``syncpoint.engine.authority`` logger,
which the host's error log writes), at most REFUSALS_LOGGED a minute. Verbs over many queues (the metrics'
``queue_names`` / ``queue_metrics``: FILTERED) answer only for the queues the user may display, as IBM's generic
DISPLAY does.

In a queue-sharing group a record whose profile covers a GROUP or SHARED object is the group's (``_record_in_group``):
written to the group's database and read back by every member (``_group_authrecs``, from ``_shared_defs``' start
and refresh), where it replaces the member's own record of the same profile and entity (``Records.set_group``).

The administrators — the user who created the queue manager and the members of the ``mqm`` group — hold every
authority. An engine built on a store that names no creator checks nothing: only the engine's own unit tests
build one so; the host records its process's user as the creator the first time it opens a queue manager
(``record_creator``), so every queue manager that runs is checked.
"""

from __future__ import annotations

import json
import logging
from typing import Any

from syncpoint.mqi import MQMD, MQOD, blank_strip
from syncpoint.mqi import constants as C
from syncpoint.mqi.objects import Definition
from syncpoint.store import Batch, StoreError

from ._base import QueueManagerBase
from ._oam import (
    ADMIN_GROUP,
    ALL,
    AUTHREC_KIND,
    CREATOR_KIND,
    GROUP,
    GROUP_AUTHREC,
    GROUP_KIND,
    MQSC_NAMES,
    OBJECT_TYPES,
    PRINCIPAL,
    UNSUPPORTED_TYPES,
    USER_ID_LENGTH,
    VALID,
    Entity,
    RecordId,
    Records,
    bit,
    compile_profile,
    group_record_name,
    names_of,
    parse_authorities,
    profile_error,
    record_key,
    split_group_record_name,
)
from ._shared_defs import DEFINITIONS_CHANGED, unavailable
from ._state import INPUT_OPTS, Connection, Target
from ._util import fail

_log = logging.getLogger("syncpoint.engine.authority")  # the queue manager's error log writes its AMQ entries
_log.addHandler(logging.NullHandler())  # a queue manager without an error log (in memory) prints nothing
REFUSALS_LOGGED = 100  # AMQ8077W entries written a minute at most (a storm of refusals cannot fill the disk)
REFUSALS_WINDOW = 60.0  # seconds
_AMQ8077_ACTION = (
    "Ensure that the correct level of authority has been set for this entity against the required object, or "
    "ensure that the entity is a member of a privileged group."
)

# MQOPEN options -> the authority each needs (IBM's table)
_OPEN_AUTHORITIES = (
    (INPUT_OPTS, bit("get")),
    (C.MQOO_BROWSE, bit("browse")),
    (C.MQOO_OUTPUT, bit("put")),
    (C.MQOO_INQUIRE, bit("inq")),
    (C.MQOO_SET, bit("set")),
    (C.MQOO_PASS_IDENTITY_CONTEXT, bit("passid")),
    (C.MQOO_PASS_ALL_CONTEXT, bit("passall")),
    (C.MQOO_SET_IDENTITY_CONTEXT, bit("setid")),
    (C.MQOO_SET_ALL_CONTEXT, bit("setall")),
)

_PUT = bit("put")
_ALT = C.MQOO_ALTERNATE_USER_AUTHORITY
_NEEDED: dict[int, int] = {}  # MQOPEN options -> the authorities they need (filled as options are met)


def _needed_for(options: int) -> int:
    needed = 0
    for opt, auth in _OPEN_AUTHORITIES:
        if options & opt:
            needed |= auth
    return needed


# administrative verbs -> (object type, the argument naming the object (None: the queue manager), authority)
ADMIN_AUTHORITIES: dict[str, tuple[str | None, int | None, str]] = {
    "define": (None, 1, "crt"),
    "alter": (None, 1, "chg"),
    "delete": (None, 1, "dlt"),
    "clear": ("queue", 0, "clr"),
    "alter_qmgr": ("qmgr", None, "chg"),
    "queue_status": ("queue", 0, "dsp"),
    "handle_status": ("queue", 0, "dsp"),
    "messages": ("queue", 0, "browse"),
    "qmgr_status": ("qmgr", None, "dsp"),
    "connection_status": ("qmgr", None, "dsp"),
    "lookup": (None, 1, "dsp"),
    "list_objects": ("qmgr", None, "dsp"),
    "qm_attr": ("qmgr", None, "dsp"),
    "refresh_expiry": ("qmgr", None, "chg"),
    "reset_statistics": ("qmgr", None, "chg"),
    "channel_statistics": ("qmgr", None, "dsp"),
    "count_channel": ("qmgr", None, "chg"),
    "qsgdisp": ("qmgr", None, "dsp"),
    "qsg_name": ("qmgr", None, "dsp"),
    "qsg_members": ("qmgr", None, "dsp"),
    "threads": ("qmgr", None, "dsp"),
    "indoubt_resolve": ("qmgr", None, "chg"),
    "set_authrec": ("qmgr", None, "chg"),
    "delete_authrec": ("qmgr", None, "chg"),
    "authrecs": ("qmgr", None, "dsp"),
    "entity_authority": ("qmgr", None, "dsp"),
    "refresh_security": ("qmgr", None, "chg"),
    "set_chlauth": ("qmgr", None, "chg"),  # channel authentication records (``_chlauth``), as IBM's SET CHLAUTH
    "chlauth_records": ("qmgr", None, "dsp"),
    "groups": ("qmgr", None, "dsp"),
    "connauth_in_force": ("qmgr", None, "dsp"),
    "group_definitions": ("qmgr", None, "dsp"),
    # publish/subscribe (``_pubsub``, ``_subscribe``): topic objects by name; subscriptions on the queue manager
    "define_topic": ("topic", 0, "crt"),
    "alter_topic": ("topic", 0, "chg"),
    "delete_topic": ("topic", 0, "dlt"),
    "topic_status": ("qmgr", None, "dsp"),
    "topic_strings": ("qmgr", None, "dsp"),
    "pubsub_status": ("qmgr", None, "dsp"),
    "clear_topicstr": ("qmgr", None, "chg"),
    "define_sub": ("qmgr", None, "crt"),
    "alter_sub": ("qmgr", None, "chg"),
    "delete_sub": ("qmgr", None, "dlt"),
    "subscriptions": ("qmgr", None, "dsp"),
    "as_user": ("qmgr", None, "altusr"),  # the command server acting for a PCF request's user
    # the metrics (``_metrics``; IBM's exporter's user: connect, and dsp on what it reports): DISPLAY QMSTATUS
    # needs dsp on the queue manager; the queues' names and status are filtered (below), as IBM's generic
    # DISPLAY QSTATUS(*) / Inquire Queue Names leave out the queues the user holds no dsp on
    "qmgr_metrics": ("qmgr", None, "dsp"),
    "queue_names": ("queue", None, "dsp"),
    "queue_metrics": ("queue", None, "dsp"),
    # runmqsc and the command server report a command that ran (CMDEV): the connection's own authority (as_user
    # does not check it as the request's user: the command itself was checked)
    "command_event": ("qmgr", None, "connect"),
    "refresh_config": ("qmgr", None, "chg"),  # REFRESH QMGR TYPE(CONFIGEV)
}
# verbs over many queues: they answer for the queues the user holds the authority on, the others left out
FILTERED = frozenset({"queue_names", "queue_metrics"})
# the refusal's kind -> IBM's ReasonQualifier of the Not Authorized event (types 1 to 4)
_EVENT_QUALIFIERS = {
    "conn": C.MQRQ_CONN_NOT_AUTHORIZED,
    "open": C.MQRQ_OPEN_NOT_AUTHORIZED,
    "close": C.MQRQ_CLOSE_NOT_AUTHORIZED,
    "cmd": C.MQRQ_CMD_NOT_AUTHORIZED,
}
ADMINISTRATORS_ONLY = frozenset({"group_change"})  # group membership: administrators only, as the OS's is root's

# MQSC / definition object types -> the OAM's types
_OAM_TYPE = {
    "QLOCAL": "queue",
    "QMODEL": "queue",
    "QALIAS": "queue",
    "QREMOTE": "queue",
    "QUEUE": "queue",
    "PROCESS": "process",
    "QMGR": "qmgr",
    "CHANNEL": "channel",
    "NAMELIST": "namelist",
    "TOPIC": "topic",
    "AUTHINFO": "authinfo",
}


def oam_type(otype: str) -> str | None:
    """The OAM's object type for an MQSC object type (None: none governs it)."""
    return _OAM_TYPE.get(otype.upper())


class AuthorityMixin(QueueManagerBase):
    """Authority records, checks, and the verbs of setmqaut / SET AUTHREC / REFRESH SECURITY."""

    oam: Records

    def _init_oam(self, objects: dict[str, dict[str, bytes]]) -> None:
        self.oam = Records()
        self.oam.load(objects)
        self._mcas: set[int] = set()  # the connections of receiving MCAs (``mark_mca``)
        self._refusals = [float("-inf"), 0, 0]  # AMQ8077W: [this window's start, entries written, not written]

    @property
    def oam_enforced(self) -> bool:
        return self.oam.creator is not None

    def is_administrator(self, user: str) -> bool:
        """IBM's privileged user (the queue manager's creator, or a member of the administrators' group ``mqm``):
        the one CHCKCLNT(REQDADM) asks for a password, whom BLOCKUSER's ``*MQADMIN`` names."""
        return bool(user) and self.oam.is_admin(user)

    def record_creator(self, user: str) -> None:
        """The host, on the first open of a queue manager whose store names no creator (crtmqm records it):
        ``user`` becomes the creating administrator, kept in the store."""
        if self.oam.creator is not None or not user:
            return
        self.oam.creator = user
        self.oam.refresh()
        b = self._b()
        b.put_objects.append((CREATOR_KIND, "creator", user.encode()))
        b.durable = True

    @staticmethod
    def creator_batch(batch: Batch, user: str) -> None:
        """crtmqm: the creating user, in the new queue manager's first batch."""
        batch.put_objects.append((CREATOR_KIND, "creator", user.encode()))

    # -- the check ---------------------------------------------------------------------------------------------
    def check_authority(self, user: str, otype: str, names: list[str], needed: int) -> bool:
        """Whether ``user`` holds every authority of ``needed`` on one of ``names`` (objects of ``otype``, nearest
        first: for a topic, the topic objects covering a topic string — IBM grants if any of them does)."""
        if self.oam.creator is None:
            return True
        auth = self.oam.authorities
        return any(auth(user, otype, n) & needed == needed for n in names)

    def authorize(self, conn: Connection, otype: str, names: list[str], authority: str) -> None:
        """Raise MQRC_NOT_AUTHORIZED unless ``conn``'s user holds ``authority`` (setmqaut's name: sub, pub …) on
        one of ``names`` (nearest first). For MQSUB and publishing once topics exist: ``names`` are the topic
        objects covering the topic string, and IBM grants if any of them does."""
        if not self.check_authority(conn.user, otype, names, bit(authority)):
            raise self._not_authorized(conn.user, otype, names[0] if names else "", bit(authority), "open")

    def _not_authorized(self, user: str, otype: str, name: str, needed: int, qualifier: str) -> Exception:
        """The refusal: MQRC_NOT_AUTHORIZED, naming what was missing. The one call point of an authority event
        (AUTHOREV, IBM's Not Authorized types 1 to 4: ``qualifier`` is conn, open, close or cmd)."""
        missing = " ".join(names_of(needed & ~self.oam.authorities(user, otype, name))) or "?"
        self.not_authorized(  # IBM's authority event, when AUTHOREV is enabled (``_events``)
            _EVENT_QUALIFIERS[qualifier], user=user, queue=name if otype == "queue" else None
        )
        self._log_refusal(user, otype, name, missing)
        return fail(
            C.MQRC_NOT_AUTHORIZED,
            f"AMQ8077W: Entity '{user}' has insufficient authority to access object '{name}' ({otype}); "
            f"missing: {missing}",
        )

    def _log_refusal(self, user: str, otype: str, name: str, missing: str) -> None:
        """AMQ8077W in the queue manager's error log, as IBM's OAM writes it for each refusal; at most
        REFUSALS_LOGGED entries a minute (the engine's clock), the next entry after a full minute saying how many
        were not written."""
        window = self._refusals
        now = self.clock.time()
        if now - window[0] >= REFUSALS_WINDOW:
            window[0], window[1] = now, 0
        if window[1] >= REFUSALS_LOGGED:
            window[2] += 1
            return
        window[1] += 1
        skipped, window[2] = int(window[2]), 0
        explanation = (
            "The specified entity is not authorized to access the required object. The following requested "
            f"permissions are unauthorized: {missing} (object type {otype})."
        )
        if skipped:
            explanation += (
                f" {skipped} earlier refusals were not written: at most {REFUSALS_LOGGED} are a minute; each was "
                "refused with MQRC_NOT_AUTHORIZED (2035) all the same."
            )
        _log.warning(
            "AMQ8077W: Entity '%s' has insufficient authority to access object '%s'.",
            user,
            name,
            extra={"qmgr": self.name, "amq": (explanation, _AMQ8077_ACTION)},
        )

    def _authorize(self, user: str, otype: str, name: str, needed: int, qualifier: str) -> None:
        if self.oam.creator is None or not needed:
            return
        if self.oam.authorities(user, otype, name) & needed != needed:
            raise self._not_authorized(user, otype, name, needed, qualifier)

    def _authorize_connect(self, user: str) -> None:
        """MQCONN: connect on the queue manager."""
        self._authorize(user, "qmgr", self.name, bit("connect"), "conn")

    def _authorize_open(self, conn: Connection, od: MQOD, otype: str, name: str, options: int) -> None:
        """MQOPEN / MQPUT1: one authority per option on ``name``; with MQOO_ALTERNATE_USER_AUTHORITY, altusr on
        the queue manager for the connection's user and the rest for the alternate user. The common case (an
        answer already cached for this user and object) costs two dictionary look-ups."""
        oam = self.oam
        if oam.creator is None or (self._mcas and conn.hconn in self._mcas):
            return
        if options & _ALT:
            user = conn.user
            self._authorize(user, "qmgr", self.name, bit("altusr"), "open")
            user = blank_strip(od.AlternateUserId) or user
        else:
            user = conn.user
        needed = _NEEDED.get(options)
        if needed is None:
            needed = _NEEDED[options] = _needed_for(options)
        if otype != "queue":
            needed &= VALID[otype]
        held = oam.cached.get((user, otype, name))
        if held is None:
            held = oam.authorities(user, otype, name)
        if held & needed != needed:
            raise self._not_authorized(user, otype, name, needed, "open")

    def authorize_admin(self, user: str, verb: str, pargs: list[Any], kwargs: dict[str, Any]) -> None:
        """An administrative verb (MQSC, PCF, the tools) by ``user``: the administration authority on the object
        it names (ADMIN_AUTHORITIES), before it runs. Both doors (embedded and server) ask this. A verb the table
        does not name is for administrators only (secure by default: a new verb is closed until it is listed)."""
        if self.oam.creator is None:
            return
        rule = ADMIN_AUTHORITIES.get(verb)
        if rule is None or verb in ADMINISTRATORS_ONLY:
            if not self.oam.is_admin(user):
                raise self._not_authorized(user, "qmgr", self.name, ALL, "cmd")
            return
        otype, index, auth = rule
        if verb in FILTERED:
            return  # each object checked as it is answered for (``_run_admin``)
        if otype is None:
            raw = pargs[0] if pargs else kwargs.get("otype", "")
            otype = oam_type(str(raw)) or "qmgr"
        name = self.name
        if otype != "qmgr" and index is not None:
            name = str(pargs[index] if len(pargs) > index else kwargs.get("name", ""))
        if bit(auth) & VALID[otype]:
            self._authorize(user, otype, name, bit(auth), "cmd")

    def _may_deliver(self, who: tuple[int, str], md: MQMD, t: Target) -> bool:
        """A receiving MCA's put (``_remote``): put authority on the name the message resolved through (its
        queue, alias or remote definition; a transmission queue when it goes on), for the channel's user with
        PUTAUT(DEF) or the message's UserIdentifier with PUTAUT(CTX)."""
        if self.oam.creator is None:
            return True
        putaut, user = who
        if putaut == C.MQPA_CONTEXT:
            user = blank_strip(md.UserIdentifier)
        name = t.first.name if t.first is not None else t.queue.name
        return self.oam.authorities(user, "queue", name) & _PUT == _PUT

    def _dynamic_authority(self, conn: Connection | None, d: Definition, made: bool) -> None:
        """A dynamic queue made from a model (``made``: ``conn``'s user is its creator) or dropped: IBM's OAM
        gives the creator every authority on the queue it made, and forgets the record with the queue. Kept in
        the store for a permanent dynamic queue, in memory for a temporary one."""
        if self.oam.creator is None:
            return
        entity = (PRINCIPAL, conn.user) if conn is not None else None
        permanent = d.dynamic == C.MQQDT_PERMANENT_DYNAMIC
        if made and entity is not None:
            if self.oam.is_admin(entity[1]):
                return  # an administrator holds every authority anyway: no record to keep
            mask = (self.oam.record("queue", d.name, entity) or 0) | VALID["queue"]
            self.oam.set_record("queue", d.name, entity, mask)
            if permanent:
                self._b().put_objects.append((AUTHREC_KIND, record_key("queue", d.name, entity), str(mask).encode()))
            return
        if made or d.dynamic == C.MQQDT_PREDEFINED:
            return
        b = self._b() if permanent else None
        for _, p, e, _ in self.oam.matching("queue", d.name, None):
            self.oam.set_record("queue", p, e, None)
            if b is not None:
                b.delete_objects.append((AUTHREC_KIND, record_key("queue", p, e)))

    def mark_mca(self, conn: Connection) -> None:
        """The server: ``conn`` is a receiving MCA. Its own opens (SYSTEM.CHANNEL.SYNCQ) are the queue manager's
        and ask no authority; what it delivers is checked by PUTAUT (:meth:`_may_deliver`)."""
        self._check_conn(conn)
        if len(self._mcas) > 64:  # forget the connections that ended
            self._mcas.intersection_update(self.connections)
        self._mcas.add(conn.hconn)

    def administer(self, conn: Connection, verb: str, pargs: list[Any], kwargs: dict[str, Any]) -> Any:
        """One administrative verb (the door has checked it is one of the host's ADMIN_VERBS) by ``conn``: the
        authority check, then the verb."""
        self._check_conn(conn)
        self.authorize_admin(conn.user, verb, pargs, kwargs)
        self.acting_for(conn)  # who acts: the configuration and command events' context (``_admin_events``)
        return self._run_admin(conn.user, verb, pargs, kwargs)

    def _run_admin(self, user: str, verb: str, pargs: list[Any], kwargs: dict[str, Any]) -> Any:
        """An administrative verb its user was found to hold the authority for: a verb over many queues answers
        for the queues the user may see (FILTERED), the others run as they are (``administered``: with their
        configuration events)."""
        if verb not in FILTERED or self.oam.creator is None or self.oam.is_admin(user):
            return self.administered(verb, pargs, kwargs)
        otype, _, auth = ADMIN_AUTHORITIES[verb]
        assert otype is not None
        needed = bit(auth)
        held = self.oam.authorities

        def allowed(names: list[str]) -> list[str]:
            return [n for n in names if held(user, otype, n) & needed]

        if verb == "queue_metrics":  # only the queues asked for that the user may display
            if pargs:
                pargs = [allowed(list(pargs[0])), *pargs[1:]]
            elif "names" in kwargs:
                kwargs = {**kwargs, "names": allowed(list(kwargs["names"]))}
            return getattr(self, verb)(*pargs, **kwargs)
        return allowed(getattr(self, verb)(*pargs, **kwargs))

    def as_user(self, user: str, verb: str, pargs: list[Any], kwargs: dict[str, Any]) -> Any:
        """An administrative verb run for ``user`` (the command server, for the UserIdentifier of a PCF request:
        IBM checks the requester's authority, not the command server's). The caller needs altusr on the queue
        manager (ADMIN_AUTHORITIES); the verb is checked as ``user``'s."""
        if verb == "as_user" or verb.startswith("_") or not hasattr(self, verb):
            raise fail(C.MQRC_FUNCTION_NOT_SUPPORTED, f"{verb!r} is not an administrative verb")
        if verb not in ADMIN_AUTHORITIES and verb not in ADMINISTRATORS_ONLY:
            raise fail(C.MQRC_FUNCTION_NOT_SUPPORTED, f"{verb!r} is not an administrative verb")
        if verb != "command_event":
            self.authorize_admin(user, verb, pargs, kwargs)
        if self.acting is not None:  # a PCF command message's user (``_admin_events``)
            self.acting_for_user(user)
        return self._run_admin(user, verb, pargs, kwargs)

    # -- the verbs: SET / DELETE / DISPLAY AUTHREC, DISPLAY ENTAUTH, REFRESH SECURITY, groups --------------------
    def _entity(self, entity_type: str, entity: str, must_exist: bool = True) -> Entity:
        et = entity_type.lower()
        if et not in (PRINCIPAL, GROUP):
            raise fail(C.MQRC_UNKNOWN_ENTITY, f"the entity type must be principal or group, not {entity_type!r}")
        if not entity or len(entity) > USER_ID_LENGTH or entity != entity.strip() or any(c.isspace() for c in entity):
            raise fail(
                C.MQRC_UNKNOWN_ENTITY,
                f"the principal or group name {entity[:40]!r} is not valid (1 to {USER_ID_LENGTH} characters, "
                "no blanks).",
            )
        if et == GROUP and must_exist and entity != ADMIN_GROUP and entity not in self.oam.groups:
            raise fail(
                C.MQRC_UNKNOWN_ENTITY,
                f"group {entity!r} does not exist (add a member first: syncpoint group).",
            )
        return (et, entity)

    @staticmethod
    def _oam_type(otype: str) -> str:
        """setmqaut's -t word (queue or q, process or prcs …) -> the OAM's type."""
        t = OBJECT_TYPES.get(otype.lower())
        if t is None:
            what = "has no objects of" if otype.lower() in UNSUPPORTED_TYPES else "does not know"
            raise fail(C.MQRC_OBJECT_TYPE_ERROR, f"object type {otype!r} is not valid: syncpoint {what} that type")
        return t

    def _profile(self, otype: str, profile: str) -> str:
        if otype == "qmgr":
            return profile or self.name
        why = profile_error(profile)
        if why is not None:
            raise fail(C.MQRCCF_PROFILE_NAME_ERROR, f"profile {profile[:60]!r} is not valid: {why}.")
        return profile

    def set_authrec(
        self,
        otype: str,
        profile: str,
        entity_type: str,
        entity: str,
        add: list[str] | None = None,
        remove: list[str] | None = None,
    ) -> list[str]:
        """SET AUTHREC / setmqaut: add and remove authorities (setmqaut names: get, put, all, allmqi …) of one
        entity on one profile. Returns the record's authorities after. Reaches new opens at once."""
        t = self._oam_type(otype)
        p = self._profile(t, profile)
        e = self._entity(entity_type, entity)
        words = [f"+{a}" for a in add or []] + [f"-{a}" for a in remove or []]
        if not words:
            raise fail(C.MQRCCF_AUTH_VALUE_MISSING, "name at least one authority to add or remove")
        try:
            plus, minus = parse_authorities(words, t)
        except ValueError as e2:
            raise fail(C.MQRCCF_AUTH_VALUE_ERROR, f"authority {str(e2)!r} is not valid for object type {t}") from None
        if self._record_in_group(t, p, e):
            return names_of(self._group_record(t, p, e, plus, minus))
        old = self.oam.record(t, p, e) or 0
        new = (old & ~minus) | plus
        self.oam.set_record(t, p, e, new)
        b = self._b()
        b.put_objects.append((AUTHREC_KIND, record_key(t, p, e), str(new).encode()))
        b.durable = True
        return names_of(new)

    def delete_authrec(self, otype: str, profile: str, entity_type: str, entity: str) -> None:
        """DELETE AUTHREC / setmqaut -remove: the record goes."""
        t = self._oam_type(otype)
        p = self._profile(t, profile)
        e = self._entity(entity_type, entity, must_exist=False)
        if self.shared is not None:
            self.refresh_shared()  # the group's records as they are now
        if self.oam.record(t, p, e) is None:
            raise fail(C.MQRC_UNKNOWN_OBJECT_NAME, f"no authority record for {e[0]} {e[1]} on {t} profile {p}")
        if (t, p, e) in self.oam.group:
            self._group_record(t, p, e, 0, 0, delete=True)
            return
        self.oam.set_record(t, p, e, None)
        b = self._b()
        b.delete_objects.append((AUTHREC_KIND, record_key(t, p, e)))
        b.durable = True

    def authrecs(
        self,
        otype: str | None = None,
        profile: str | None = None,
        entity_type: str | None = None,
        entity: str | None = None,
        matching: str | None = None,
    ) -> list[dict[str, Any]]:
        """DISPLAY AUTHREC / dmpmqaut: the records, each {objtype, profile, entity_type, entity, authorities};
        ``matching``: only those whose profile applies to that object name (PCF's MQAUTHOPT_NAME_ALL_MATCHING)."""
        t = self._oam_type(otype) if otype else None
        e = self._entity(entity_type or PRINCIPAL, entity, must_exist=False) if entity else None
        if e is not None and entity_type is None:  # an entity named without its type: either kind
            found = self.oam.matching(t, profile, (PRINCIPAL, e[1])) + self.oam.matching(t, profile, (GROUP, e[1]))
        else:
            found = self.oam.matching(t, profile, e)
        if matching is not None:
            found = [r for r in found if self.oam.profiles[r[0]][r[1]].pattern.fullmatch(matching)]
        return [
            {"objtype": ot, "profile": p, "entity_type": en[0], "entity": en[1], "authorities": names_of(m)}
            for ot, p, en, m in found
        ]

    def entity_authority(self, otype: str, name: str, entity_type: str, entity: str) -> list[str]:
        """DISPLAY ENTAUTH / dspmqaut: the authorities ``entity`` holds on object ``name`` (a principal: with its
        groups'; administrators: every authority the type has)."""
        t = self._oam_type(otype)
        name = name or self.name if t == "qmgr" else name
        e = self._entity(entity_type, entity)
        if e[0] == PRINCIPAL:
            mask = self.oam.authorities(e[1], t, name) if self.oam.creator is not None else ALL
        else:
            mask = ALL if e[1] == ADMIN_GROUP else self.oam.entity_authorities(e, t, name)[0]
        return names_of(mask & VALID[t])

    def refresh_authorities(self) -> None:
        """REFRESH SECURITY TYPE(ALL | AUTHSERV) (``_security.refresh_security``): group membership as stored
        becomes what the checks use (authority records need no refresh: they reach new opens at once); a member
        of a queue-sharing group reads the group's records again."""
        self.oam.refresh()
        if self.shared is not None:
            self.refresh_shared()

    # -- a queue-sharing group's records ----------------------------------------------------------------------
    def _record_in_group(self, otype: str, profile: str, entity: Entity) -> bool:
        """Whether a record belongs to the queue-sharing group: one the group holds already, or one whose profile
        covers a GROUP or SHARED object of the group (z/OS keeps their security in the group's shared RACF
        profiles). The queue manager's own profile (type qmgr) is each member's."""
        shared = self.shared
        if shared is None or otype == "qmgr":
            return False
        try:
            every = self._io(shared.definitions)  # the group's objects and records as they are now
        except StoreError as e:
            raise unavailable(e) from None
        self._group_authrecs([(n, raw) for _k, n, disp, raw in every if disp == GROUP_AUTHREC])
        if (otype, profile, entity) in self.oam.group:
            return True
        pattern = compile_profile(profile)
        return any(
            disp in ("GROUP", "SHARED") and oam_type(k) == otype and (n == profile or pattern.fullmatch(n))
            for k, n, disp, _ in every
        )

    def _group_record(
        self, otype: str, profile: str, entity: Entity, plus: int, minus: int, delete: bool = False
    ) -> int:
        """SET / DELETE AUTHREC of a group's record: written to the group's database, which tells every active
        member (they read the group's records at once, as they follow GROUP definitions); this member's own
        record of the same profile and entity, if any, becomes the group's."""
        shared = self.shared
        assert shared is not None
        rid: RecordId = (otype, profile, entity)
        name = group_record_name(otype, profile, entity)
        # this member's own record of that profile and entity moves to the group, with what it gave (asked before
        # the group is written: the member's listener may read the group's records back while the lock is let go)
        replaced = not delete and rid not in self.oam.group and self.oam.record(*rid) is not None
        new = (self.oam.group.get(rid, self.oam.record(*rid) or 0) & ~minus) | plus
        try:
            if delete:
                self._io(shared.delete_definition, AUTHREC_KIND, name)
            else:
                self._io(shared.put_definition, AUTHREC_KIND, name, GROUP_AUTHREC, str(new).encode(), True)
            self._io(shared.notify, [DEFINITIONS_CHANGED])
        except StoreError as e2:
            raise unavailable(e2) from None
        records = dict(self.oam.group)
        if delete:
            records.pop(rid, None)
        else:
            records[rid] = new
        self.oam.set_group(records)
        if replaced:  # the group's record replaces the member's own in its store too
            self.oam.forget_shadowed(rid)
            b = self._b()
            b.delete_objects.append((AUTHREC_KIND, record_key(otype, profile, entity)))
            b.durable = True
        return new

    def _group_authrecs(self, rows: list[tuple[str, bytes]]) -> None:
        """The group's records as read from its database (``_shared_defs``, at start and at every refresh)."""
        records: dict[RecordId, int] = {}
        for name, raw in rows:
            try:
                rid = split_group_record_name(name)
                mask = int(raw.decode())
            except (ValueError, TypeError):
                continue  # not a record this version wrote: left alone
            otype, profile, (etype, ename) = rid
            if otype in VALID and etype in (PRINCIPAL, GROUP) and ename and profile_error(profile) is None:
                records[rid] = mask
        if records != self.oam.group:
            self.oam.set_group(records)

    def group_change(self, group: str, user: str, member: bool) -> list[str]:
        """``syncpoint group``: add ``user`` to ``group`` (made on first member) or remove it (the group goes with
        its last member). The checks see it at REFRESH SECURITY or the next start. Returns the members after."""
        self._entity(GROUP, group, must_exist=False)
        self._entity(PRINCIPAL, user)
        members = self.oam.groups.setdefault(group, set())
        if member:
            members.add(user)
        elif user not in members:
            if not members:
                del self.oam.groups[group]
            raise fail(C.MQRC_UNKNOWN_ENTITY, f"user {user} is not a member of group {group}")
        else:
            members.discard(user)
        b = self._b()
        if members:
            b.put_objects.append((GROUP_KIND, group, json.dumps(sorted(members)).encode()))
        else:
            del self.oam.groups[group]
            b.delete_objects.append((GROUP_KIND, group))
        b.durable = True
        return sorted(members)

    def groups(self) -> dict[str, list[str]]:
        """Every group and its members, as stored."""
        return {g: sorted(m) for g, m in sorted(self.oam.groups.items())}

    @staticmethod
    def mqsc_authority(name: str) -> str:
        return MQSC_NAMES[name]
