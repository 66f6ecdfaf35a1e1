"""IBM's authority commands: ``setmqaut``, ``dspmqaut``, ``dmpmqaut``, and ``group`` (syncpoint's own groups).

They parse IBM's syntax themselves (``+get -put`` are not options to a parser), reach the running queue manager
as IBM's do (``_connect``), and leave every rule to its administrative verbs (``set_authrec``,
``entity_authority``, ``authrecs``, ``group_change``: the engine's ``_authority``), which refuse a bad profile,
authority, object type or entity with nothing stored. A refusal is printed as IBM's message and ends with IBM's
exit code for it (setmqaut's table: 36 invalid arguments, 40 queue manager not available, 72 queue manager name
error, 133 unknown object name, 147 object type missing, 148 invalid object type, 149 entity name missing, 150
authorization specification missing, 151 invalid authorization specification).
"""

from __future__ import annotations

import sys
from typing import Any

import typer

from syncpoint import _home
from syncpoint.client import QueueManager
from syncpoint.mqi import MQMIError, reason_name
from syncpoint.mqi import constants as C

from ._connect import connect_running

_EXIT_OF = {
    C.MQRC_Q_MGR_NAME_ERROR: 72,
    C.MQRC_Q_MGR_NOT_AVAILABLE: 40,
    C.MQRC_Q_MGR_STOPPING: 49,
    C.MQRC_UNKNOWN_ENTITY: 36,
    C.MQRCCF_PROFILE_NAME_ERROR: 36,
    C.MQRC_NOT_AUTHORIZED: 36,
    C.MQRC_UNKNOWN_OBJECT_NAME: 133,
    C.MQRC_OBJECT_TYPE_ERROR: 148,
    C.MQRCCF_AUTH_VALUE_ERROR: 151,
    C.MQRCCF_AUTH_VALUE_MISSING: 150,
}
_FIRST_LINE = {
    C.MQRC_Q_MGR_NAME_ERROR: "AMQ7048E: The queue manager name is either not valid or not known.",
    C.MQRC_Q_MGR_NOT_AVAILABLE: "AMQ8146E: syncpoint queue manager not available.",
    C.MQRC_UNKNOWN_ENTITY: "AMQ7026E: A principal or group name was invalid.",
    C.MQRC_NOT_AUTHORIZED: "AMQ7077E: You are not authorized to perform the requested operation.",
    C.MQRC_OBJECT_TYPE_ERROR: "AMQ7085E: The object type is not valid.",
}


def _fail(message: str, code: int) -> None:
    sys.stderr.write(message + "\n")
    raise typer.Exit(code)


def _refused(e: MQMIError) -> None:
    first = _FIRST_LINE.get(e.reason, f"AMQ8101E: syncpoint error ({e.reason}) has occurred.")
    detail = f"   {reason_name(e.reason)} ({e.reason})" + (f": {e.detail}" if e.detail else "")
    _fail(first + "\n" + detail, _EXIT_OF.get(e.reason, 71))


_USAGE = {
    "setmqaut": "Usage: syncpoint setmqaut -m QMgr -n Profile -t ObjectType (-p Principal | -g Group) "
    "[-remove] +auth -auth ...",
    "dspmqaut": "Usage: syncpoint dspmqaut -m QMgr -n Object -t ObjectType (-p Principal | -g Group)",
    "dmpmqaut": "Usage: syncpoint dmpmqaut -m QMgr [-n Profile] [-t ObjectType] [-p Principal | -g Group] [-l] [-a]",
    "group": "Usage: syncpoint group -m QMgr -g Group (-a User | -r User) | syncpoint group -m QMgr -l",
}


def _options(ctx: typer.Context, flags: str, with_value: str) -> tuple[dict[str, str], list[str]]:
    """IBM's ``-x value`` / ``-x`` flags and the rest (setmqaut's ``+auth -auth`` words) from the command's
    arguments; ``-h`` / ``--help`` prints the usage."""
    argv = list(ctx.args)
    if "-h" in argv or "--help" in argv:
        name = ctx.info_name or ""
        print(_USAGE.get(name, name))
        print("Object types: qmgr, queue (q), process (prcs), namelist (nl), topic, channel (chl), authinfo.")
        raise typer.Exit(0)
    opts: dict[str, str] = {}
    rest: list[str] = []
    i = 0
    while i < len(argv):
        a = argv[i]
        key = a[1:] if a.startswith("-") else ""
        if key in with_value.split():
            if i + 1 >= len(argv):
                _fail(f"the flag {a} needs a value; nothing changed.", 36)
            if key in opts:
                _fail(f"the flag {a} is given twice; nothing changed.", 36)
            opts[key] = argv[i + 1]
            i += 2
            continue
        if key in flags.split():
            opts[key] = ""
        else:
            rest.append(a)
        i += 1
    return opts, rest


def _connect(opts: dict[str, str], appl: str) -> QueueManager:
    name = opts.get("m") or _home.default_queue_manager() or ""
    try:
        return connect_running(name, appl_name=appl)
    except MQMIError as e:
        _refused(e)
        raise  # not reached: _refused ends the command


def _entity(opts: dict[str, str]) -> tuple[str, str]:
    if "p" in opts and "g" in opts:
        _fail("AMQ7026E: A principal or group name was invalid.\n   name -p or -g, not both; nothing changed.", 36)
    if "p" in opts:
        return "principal", opts["p"]
    if "g" in opts:
        return "group", opts["g"]
    _fail("the entity name is missing: name a principal (-p) or a group (-g); nothing changed.", 149)
    raise AssertionError  # not reached


def _object(opts: dict[str, str]) -> tuple[str, str]:
    t = opts.get("t")
    if not t:
        _fail("the object type is missing: name it with -t (queue, qmgr, process, namelist, topic …).", 147)
        raise AssertionError
    if t.lower() != "qmgr" and not opts.get("n"):
        _fail("the object name is missing: name the profile with -n.", 146)
    if t.lower() == "qmgr" and opts.get("n"):
        _fail("a queue manager's authorities take no -n (the queue manager is the object).", 145)
    return t, opts.get("n", "")


def _run(qm: QueueManager, verb: str, *args: Any) -> Any:
    try:
        return qm.admin(verb, *args)
    except MQMIError as e:
        qm.disconnect()
        _refused(e)


_RAW = {"allow_extra_args": True, "ignore_unknown_options": True, "help_option_names": []}


def setmqaut(ctx: typer.Context) -> None:
    """IBM's setmqaut: -m QMgr -n Profile -t ObjectType (-p Principal | -g Group) [-remove] +auth -auth …"""
    opts, words = _options(ctx, "remove", "m n t p g s")
    etype, entity = _entity(opts)
    otype, profile = _object(opts)
    for w in words:
        if len(w) < 2 or w[0] not in "+-":
            _fail(f"'{w}' is not an authorization: write +auth or -auth (e.g. +put -get); nothing changed.", 151)
    if "remove" in opts and words:
        _fail("-remove takes no authorizations; nothing changed.", 36)
    if "remove" not in opts and not words:
        _fail("the authorizations are missing: name them as +auth / -auth; nothing changed.", 150)
    qm = _connect(opts, "setmqaut")
    if "remove" in opts:
        _run(qm, "delete_authrec", otype, profile, etype, entity)
    else:
        add = [w[1:] for w in words if w[0] == "+"]
        remove = [w[1:] for w in words if w[0] == "-"]
        _run(qm, "set_authrec", otype, profile, etype, entity, add, remove)
    qm.disconnect()
    print("The setmqaut command completed successfully.")


def dspmqaut(ctx: typer.Context) -> None:
    """IBM's dspmqaut: -m QMgr -n Object -t ObjectType (-p Principal | -g Group): the authorities it holds."""
    opts, rest = _options(ctx, "", "m n t p g s")
    if rest:
        _fail(f"'{rest[0]}' is not a flag of dspmqaut.", 36)
    etype, entity = _entity(opts)
    otype, name = _object(opts)
    qm = _connect(opts, "dspmqaut")
    auths = _run(qm, "entity_authority", otype, name, etype, entity)
    shown = name or qm.name
    qm.disconnect()
    print(f"Entity {entity} has the following authorizations for object {shown}:")
    for a in auths:
        print(f"\t{a}")


def dmpmqaut(ctx: typer.Context) -> None:
    """IBM's dmpmqaut: [-m QMgr] [-n Profile] [-t ObjectType] [-p Principal | -g Group] [-l] [-a]."""
    from syncpoint.mqsc import setmqaut_lines

    opts, rest = _options(ctx, "l a e x", "m n t p g s")
    if rest:
        _fail(f"'{rest[0]}' is not a flag of dmpmqaut.", 36)
    etype: str | None = None
    entity: str | None = None
    if "p" in opts or "g" in opts:
        etype, entity = _entity(opts)
    qm = _connect(opts, "dmpmqaut")
    records = _run(qm, "authrecs", opts.get("t"), opts.get("n"), etype, entity)
    name = qm.name
    qm.disconnect()
    if "a" in opts:
        for line in setmqaut_lines(name, records):
            print(line)
        return
    seen: set[tuple[str, str]] = set()
    for r in records:
        if "l" in opts:
            if (r["profile"], r["objtype"]) not in seen:
                seen.add((r["profile"], r["objtype"]))
                print(f"profile: {r['profile']}, type: {r['objtype']}")
            continue
        print(f"profile:     {r['profile']}")
        print(f"object type: {r['objtype']}")
        print(f"entity:      {r['entity']}")
        print(f"entity type: {r['entity_type']}")
        print(f"authority:   {' '.join(r['authorities']) or 'none'}")
        print("- - - - - - - - - ")


def group(ctx: typer.Context) -> None:
    """syncpoint's groups: group -m QMgr -g Group (-a User | -r User) | group -m QMgr -l. A change reaches the
    authority checks at REFRESH SECURITY or the queue manager's next start, as IBM's OAM sees group changes."""
    opts, rest = _options(ctx, "l", "m g a r")
    if rest:
        _fail(f"'{rest[0]}' is not a flag of group: -m QMgr -g Group (-a User | -r User), or -m QMgr -l.", 36)
    qm = _connect(opts, "group")
    if "l" in opts:
        groups = _run(qm, "groups")
        qm.disconnect()
        for g, members in groups.items():
            print(f"{g}: {' '.join(members)}")
        return
    if "g" not in opts or ("a" in opts) == ("r" in opts):
        qm.disconnect()
        _fail("name a group (-g) and one user to add (-a) or remove (-r); nothing changed.", 36)
    user = opts["a"] if "a" in opts else opts["r"]
    members = _run(qm, "group_change", opts["g"], user, "a" in opts)
    qm.disconnect()
    print(f"group {opts['g']}: {' '.join(members) or '(no members: the group is gone)'}")
    print("The change reaches authority checks at REFRESH SECURITY (runmqsc) or the next strmqm.")


def register(app: typer.Typer) -> None:
    for fn in (setmqaut, dspmqaut, dmpmqaut, group):
        app.command(context_settings=_RAW, add_help_option=False)(fn)
