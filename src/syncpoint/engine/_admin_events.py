"""Configuration events (CONFIGEV) and command events (CMDEV) (issue 36, item 2): IBM's PCF event messages on
SYSTEM.ADMIN.CONFIG.EVENT and SYSTEM.ADMIN.COMMAND.EVENT for the administrative commands, from MQSC and PCF both.

Theory of operation
-------------------
Every administrative verb a client calls comes through one door (``_authority``'s ``administer``, and
``as_user`` for the command server acting for a PCF request's user). The door records who acts — the user, the
event origin (MQEVO_MSG for a PCF command message, MQEVO_CONSOLE otherwise), the application's type and name —
and runs the verb through :meth:`AdminEventsMixin.administered`:

* **Configuration events** (IBM: "Configuration events"), when the queue manager's CONFIGEV is ENABLED:
  Create Object (MQRC_CONFIG_CREATE_OBJECT, 2367) after a DEFINE of a new object; Change Object (2368) after an
  ALTER or a DEFINE … REPLACE, as two messages — the attributes before (MQCFH MsgSeqNumber 1, Control
  MQCFC_NOT_LAST) and after (2, MQCFC_LAST); Delete Object (2369) after a DELETE, with the attributes the object
  had; Refresh Object (2370) for every object REFRESH QMGR TYPE(CONFIGEV) names. Each carries IBM's context
  (EventUserId, EventOrigin, EventQMgr, EventApplIdentity, EventApplType, EventApplName, EventApplOrigin), the
  ObjectType (MQOT_*), the object's name under its own parameter (QName, ProcessName, NamelistName,
  ChannelName, TopicName, AuthInfoName; QMgrName for the queue manager) and its attributes that have IBM
  selectors (MQCFIN / MQCFST; the queue type first for a queue). Not for MQSET (IBM's MQEVO_MQSET events are
  z/OS's) and not for temporary dynamic queues.
* **Command events** (IBM: "Command events"), when CMDEV is ENABLED, or NODISPLAY and the command is not a
  DISPLAY / Inquire: MQRC_COMMAND_MQSC (2412) or MQRC_COMMAND_PCF (2413), with two groups — CommandContext
  (MQCFGR MQGACF_COMMAND_CONTEXT: the context above and Command, the MQCMD_* code) and CommandData
  (MQGACF_COMMAND_DATA: CommandMQSC, the command's text, for MQSC; the request's string and integer
  parameters for PCF). The MQSC processor and the command server report each command they ran through the
  ``command_event`` verb; the engine decides whether to write it.

Event messages are put like every event (``_events``: outside any unit of work, dropped and counted when the
queue does not take them); a command never fails because of its event.
"""

from __future__ import annotations

from typing import Any

from syncpoint.mqi import constants as C
from syncpoint.mqi.objects import (
    AUTHINFO,
    CHANNEL,
    NAMELIST,
    PROCESS,
    QALIAS,
    QLOCAL,
    QMGR,
    QMODEL,
    QREMOTE,
    TOPIC,
    attributes_for,
)

from ._events import ENABLED, EventParameters, EventsMixin, pcf_event
from ._state import Connection
from ._util import fail

CONFIG_EVENT_QUEUE = "SYSTEM.ADMIN.CONFIG.EVENT"
COMMAND_EVENT_QUEUE = "SYSTEM.ADMIN.COMMAND.EVENT"
_CONFIG_VERBS = frozenset({"define", "alter", "delete", "alter_qmgr", "define_topic", "alter_topic", "delete_topic"})
_QUEUES = {QLOCAL: C.MQQT_LOCAL, QMODEL: C.MQQT_MODEL, QALIAS: C.MQQT_ALIAS, QREMOTE: C.MQQT_REMOTE}
# object type -> (MQOT_*, the parameter its name goes under)
_OBJECTS = {
    **{t: (C.MQOT_Q, C.MQCA_Q_NAME) for t in _QUEUES},
    PROCESS: (C.MQOT_PROCESS, C.MQCA_PROCESS_NAME),
    NAMELIST: (C.MQOT_NAMELIST, C.MQCA_NAMELIST_NAME),
    CHANNEL: (C.MQOT_CHANNEL, C.MQCACH_CHANNEL_NAME),
    AUTHINFO: (C.MQOT_AUTH_INFO, C.MQCA_AUTH_INFO_NAME),
    TOPIC: (C.MQOT_TOPIC, C.MQCA_TOPIC_NAME),
    QMGR: (C.MQOT_Q_MGR, C.MQCA_Q_MGR_NAME),
}
_TEMPDYN = C.MQQDT_TEMPORARY_DYNAMIC
_SOURCES = {"MQSC": C.MQRC_COMMAND_MQSC, "PCF": C.MQRC_COMMAND_PCF}


class Acting:
    """Who runs the administrative verb in progress: IBM's event context."""

    __slots__ = ("appl_name", "appl_type", "origin", "user")

    def __init__(self, user: str, origin: int, appl_type: int, appl_name: str) -> None:
        self.user = user
        self.origin = origin
        self.appl_type = appl_type
        self.appl_name = appl_name


class AdminEventsMixin(EventsMixin):
    """Configuration and command events (see the module doc)."""

    acting: Acting | None = None

    # -- the door's hooks -------------------------------------------------------------------------------------
    def acting_for(self, conn: Connection) -> None:
        """The door: ``conn`` runs an administrative verb (an operator's command: MQEVO_CONSOLE)."""
        self.acting = Acting(conn.user, C.MQEVO_CONSOLE, conn.appl_type, conn.appl_name)

    def acting_for_user(self, user: str) -> None:
        """The command server acts for a PCF request's ``user``: a command message (MQEVO_MSG)."""
        if self.acting is not None:
            self.acting.user, self.acting.origin = user, C.MQEVO_MSG

    def administered(self, verb: str, pargs: list[Any], kwargs: dict[str, Any]) -> Any:
        """Run administrative ``verb``; then its configuration events, when CONFIGEV is ENABLED."""
        fn = getattr(self, verb)
        if verb not in _CONFIG_VERBS or self.qmgr.attrs.get("CONFIGEV") != ENABLED:
            return fn(*pargs, **kwargs)
        otype, name = self._config_object(verb, pargs, kwargs)
        d = self.lookup(otype, name) if otype else None
        before = (d.otype, dict(d.attrs)) if d is not None and d.dynamic != _TEMPDYN else None
        result = fn(*pargs, **kwargs)
        after = self.lookup(otype, name) if otype else None
        if after is not None and after.dynamic == _TEMPDYN:
            return result
        if verb.startswith("delete"):
            if before is not None and after is None:
                self._config_event(C.MQRC_CONFIG_DELETE_OBJECT, before[0], name, before[1])
        elif after is not None:
            if before is None:
                self._config_event(C.MQRC_CONFIG_CREATE_OBJECT, after.otype, name, after.attrs)
            else:  # ALTER, DEFINE … REPLACE: the attributes before, then after
                self._config_event(C.MQRC_CONFIG_CHANGE_OBJECT, before[0], name, before[1], seq=1, last=False)
                self._config_event(C.MQRC_CONFIG_CHANGE_OBJECT, after.otype, name, after.attrs, seq=2)
        return result

    def refresh_config(self, otypes: list[str], name: str = "*") -> int:
        """REFRESH QMGR TYPE(CONFIGEV) [OBJECT(type)] [NAME(generic)]: a Refresh Object event for every object
        of those types whose name matches, when CONFIGEV is ENABLED (IBM: MQRCCF_… otherwise; here the command
        tells). The number of events written."""
        from syncpoint.mqi import matches_generic

        if self.qmgr.attrs.get("CONFIGEV") != ENABLED:
            raise fail(C.MQRC_FUNCTION_NOT_SUPPORTED, "REFRESH QMGR TYPE(CONFIGEV) needs CONFIGEV(ENABLED)")
        n = 0
        for otype in otypes:
            if otype not in _OBJECTS:
                raise fail(C.MQRC_OBJECT_TYPE_ERROR, f"{otype} is not an object type of configuration events")
            for d in self.list_objects(otype):
                if d.dynamic != _TEMPDYN and matches_generic(name, d.name):
                    self._config_event(C.MQRC_CONFIG_REFRESH_OBJECT, d.otype, d.name, d.attrs)
                    n += 1
        return n

    def command_event(self, source: str, command: int, data: list[list[Any]], display: bool = False) -> bool:
        """The MQSC processor or the command server ran a command: its Command event, when CMDEV asks for it.
        ``source`` is "MQSC" or "PCF"; ``command`` the MQCMD_* code; ``data`` the CommandData group's
        [parameter, value] pairs (strings and integers); ``display`` marks a DISPLAY / Inquire command (none
        under CMDEV(NODISPLAY)). True when an event was written."""
        if source not in _SOURCES:
            raise fail(C.MQRC_FUNCTION_NOT_SUPPORTED, f"a command's source is MQSC or PCF, not {source!r}")
        if not isinstance(command, int) or isinstance(command, bool):
            raise fail(C.MQRC_FUNCTION_NOT_SUPPORTED, "a command event's command is an MQCMD_ number")
        items: EventParameters = []
        for pair in data:
            if len(pair) != 2 or not isinstance(pair[0], int) or not isinstance(pair[1], (str, int)):
                raise fail(C.MQRC_FUNCTION_NOT_SUPPORTED, "command data are [parameter, string or integer] pairs")
            items.append((pair[0], pair[1]))
        cmdev = self.qmgr.attrs.get("CMDEV")
        if cmdev != ENABLED and not (cmdev == "NODISPLAY" and not display):
            return False
        context = [*self._context(), (C.MQIACF_COMMAND, command)]
        parameters: EventParameters = [(C.MQGACF_COMMAND_CONTEXT, context), (C.MQGACF_COMMAND_DATA, items)]
        self._put_event(COMMAND_EVENT_QUEUE, pcf_event(C.MQCMD_COMMAND_EVENT, _SOURCES[source], parameters))
        return True

    # -- the events -------------------------------------------------------------------------------------------
    def _context(self) -> EventParameters:
        a = self.acting or Acting("", C.MQEVO_INTERNAL, C.MQAT_QMGR, "")
        return [
            (C.MQCACF_EVENT_USER_ID, a.user[:12]),
            (C.MQIACF_EVENT_ORIGIN, a.origin),
            (C.MQCACF_EVENT_Q_MGR, self.name),
            (C.MQCACF_EVENT_APPL_IDENTITY, ""),
            (C.MQIACF_EVENT_APPL_TYPE, a.appl_type),
            (C.MQCACF_EVENT_APPL_NAME, a.appl_name[:28]),
            (C.MQCACF_EVENT_APPL_ORIGIN, ""),
        ]

    def _config_event(
        self, reason: int, otype: str, name: str, attrs: dict[str, Any], *, seq: int = 1, last: bool = True
    ) -> None:
        mqot, name_parameter = _OBJECTS[otype]
        parameters = [*self._context(), (C.MQIACF_OBJECT_TYPE, mqot), (name_parameter, name)]
        if otype in _QUEUES:
            parameters.append((C.MQIA_Q_TYPE, _QUEUES[otype]))
        for a in attributes_for(otype):
            value = attrs.get(a.keyword)
            if not a.selector or a.selector == name_parameter or a.kind == "names" or isinstance(value, bool):
                continue
            if isinstance(value, (str, int)):
                parameters.append((a.selector, value))
        self._put_event(CONFIG_EVENT_QUEUE, pcf_event(C.MQCMD_CONFIG_EVENT, reason, parameters, seq=seq, last=last))

    def _config_object(self, verb: str, pargs: list[Any], kwargs: dict[str, Any]) -> tuple[str, str]:
        """(object type, name) a configuration verb names; ("", "") when its arguments do not say (the verb then
        refuses them itself)."""
        if verb == "alter_qmgr":
            return QMGR, self.name
        if verb.endswith("_topic"):
            name = pargs[0] if pargs else kwargs.get("name", "")
            return TOPIC, str(name)
        otype = pargs[0] if pargs else kwargs.get("otype", "")
        name = pargs[1] if len(pargs) > 1 else kwargs.get("name", "")
        if not isinstance(otype, str) or not isinstance(name, str) or otype not in _OBJECTS:
            return "", ""
        return otype, name
