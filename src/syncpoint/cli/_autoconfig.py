"""Configuration as code, as IBM's automatic configuration: MQSC applied when a queue manager is created
(``crtmqm -ic FILE``) and again at each start, and IBM's developer configuration (its container's MQ_DEV).

IBM's rules (automatic configuration from an MQSC script at startup): the file, or every ``.mqsc`` file of a
folder in name order, runs at each ``strmqm``; a DEFINE replaces what exists (REPLACE is implied, so the script
is the truth at every start); a command that fails is listed and the others still run; a script with a syntax
error is not run and the queue manager does not start, naming the file, the line and IBM's AMQ8405I.

Implements: reference/mqsc.md (the commands, AMQ8405I); IBM's crtmqm -ic / -ii and its container's developer
configuration (DEV.QUEUE.1-3, DEV.DEAD.LETTER.QUEUE, DEV.AUTHINFO as CONNAUTH, the users app and admin, the app
group's authorities).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from syncpoint.mqsc import MqscProcessor, MqscSyntaxError, Request, parse_command, read_commands, syntax_error_lines

# IBM's developer configuration (its container's 10-dev.mqsc): the three queues, the dead-letter queue set as
# DEADQ, its AUTHINFO object DEV.AUTHINFO as CONNAUTH, its SVRCONN channels DEV.APP.SVRCONN (MCAUSER app) and
# DEV.ADMIN.SVRCONN and their channel authentication records: a back-stop rule blocking every channel, the app
# channel open to every address with a password required, the admin channel open to the user admin only
DEV_MQSC = """\
* IBM's developer configuration (its container's MQ_DEV=true)
DEFINE QLOCAL('DEV.QUEUE.1') REPLACE
DEFINE QLOCAL('DEV.QUEUE.2') REPLACE
DEFINE QLOCAL('DEV.QUEUE.3') REPLACE
DEFINE QLOCAL('DEV.DEAD.LETTER.QUEUE') REPLACE
* its connection authentication: a password from administrators, checked from anyone who gives one
DEFINE AUTHINFO('DEV.AUTHINFO') AUTHTYPE(IDPWOS) CHCKCLNT(REQDADM) CHCKLOCL(OPTIONAL) ADOPTCTX(YES) REPLACE
ALTER QMGR CONNAUTH('DEV.AUTHINFO')
REFRESH SECURITY(*) TYPE(CONNAUTH)
"""
DEV_CHANNELS = """\
* its channels (application and administration) and their channel authentication records
DEFINE CHANNEL('DEV.ADMIN.SVRCONN') CHLTYPE(SVRCONN) REPLACE
DEFINE CHANNEL('DEV.APP.SVRCONN') CHLTYPE(SVRCONN) MCAUSER('app') REPLACE
SET CHLAUTH('*') TYPE(ADDRESSMAP) ADDRESS('*') USERSRC(NOACCESS) DESCR('Back-stop rule - Blocks everyone') +
    ACTION(REPLACE)
SET CHLAUTH('DEV.APP.SVRCONN') TYPE(ADDRESSMAP) ADDRESS('*') USERSRC(CHANNEL) CHCKCLNT(REQUIRED) +
    DESCR('Allows connection via APP channel') ACTION(REPLACE)
SET CHLAUTH('DEV.ADMIN.SVRCONN') TYPE(BLOCKUSER) USERLIST('nobody') DESCR('Allows admins on ADMIN channel') +
    ACTION(REPLACE)
SET CHLAUTH('DEV.ADMIN.SVRCONN') TYPE(USERMAP) CLNTUSER('admin') USERSRC(CHANNEL) +
    DESCR('Allows admin user to connect via ADMIN channel') ACTION(REPLACE)
"""
# its authorities (issue 35): the group app may connect and inquire, and put, get, browse and inquire on DEV.**
# queues (publish and subscribe on DEV.** topics), make dynamic queues from SYSTEM.DEFAULT.MODEL.QUEUE and send
# commands to SYSTEM.ADMIN.COMMAND.QUEUE, as in IBM's developer container; the user app is its member, the user
# admin an administrator (group mqm). Administrators hold every authority anyway.
DEV_GROUPS = (("app", "app"), ("mqm", "admin"))
DEV_AUTHORITIES = """\
REFRESH SECURITY
SET AUTHREC OBJTYPE(QMGR) GROUP('app') AUTHADD(CONNECT,INQ)
SET AUTHREC PROFILE('DEV.**') OBJTYPE(QUEUE) GROUP('app') AUTHADD(BROWSE,GET,INQ,PUT)
SET AUTHREC PROFILE('DEV.**') OBJTYPE(TOPIC) GROUP('app') AUTHADD(PUB,SUB)
SET AUTHREC PROFILE('SYSTEM.DEFAULT.MODEL.QUEUE') OBJTYPE(QUEUE) GROUP('app') AUTHADD(BROWSE,DSP,GET,INQ,PUT)
SET AUTHREC PROFILE('SYSTEM.ADMIN.COMMAND.QUEUE') OBJTYPE(QUEUE) GROUP('app') AUTHADD(DSP,INQ,PUT)
"""
DEV_DEADQ = "ALTER QMGR DEADQ('DEV.DEAD.LETTER.QUEUE')\n"  # unless the queue manager has one (crtmqm -u)
DEV_APP_CHANNEL = "DEV.APP.SVRCONN"
DEV_ADMIN_CHANNEL = "DEV.ADMIN.SVRCONN"


class ConfigError(Exception):
    """The configuration cannot be run (a syntax error, a file that cannot be read): nothing of it ran."""

    def __init__(self, lines: list[str]) -> None:
        super().__init__("\n".join(lines))
        self.lines = lines


@dataclass(frozen=True)
class Command:
    source: str  # the file's path, or a name such as "developer configuration"
    line: int
    text: str
    request: Request


def mqsc_files(path: str | Path) -> list[Path]:
    """The script ``path``, or the ``.mqsc`` files of folder ``path`` in name order."""
    p = Path(path)
    if p.is_dir():
        return sorted((f for f in p.iterdir() if f.suffix.lower() == ".mqsc" and not f.is_dir()), key=lambda f: f.name)
    return [p]


def parse(scripts: list[tuple[str, str]]) -> list[Command]:
    """Every command of ``scripts`` (source, text), DEFINEs with REPLACE; ConfigError listing every syntax error
    (the source, the line and IBM's AMQ8405I) when there is one."""
    commands: list[Command] = []
    errors: list[str] = []
    for source, text in scripts:
        for cmd in read_commands(text.splitlines()):
            try:
                req = parse_command(cmd.text)
            except MqscSyntaxError as e:
                errors += [f"{source}, line {cmd.line_no}:", *syntax_error_lines(cmd.text, e)]
                continue
            if req.verb == "END":
                break
            if req.verb == "DEFINE":
                req.replace = True  # IBM: automatic configuration replaces what exists
            commands.append(Command(source, cmd.line_no, cmd.text, req))
    if errors:
        raise ConfigError(errors)
    return commands


def read_scripts(path: str | Path) -> list[tuple[str, str]]:
    """(source, text) of each script of ``path``; ConfigError when one cannot be read."""
    files = mqsc_files(path)
    scripts = []
    for f in files:
        try:
            scripts.append((str(f), f.read_text(encoding="utf-8")))
        except (OSError, UnicodeDecodeError) as e:
            raise ConfigError([f"AMQ8101E: the MQSC configuration {f} cannot be read: {e}."]) from None
    return scripts


def run(qm: Any, commands: list[Command], write: Callable[[str], None]) -> int:
    """Run ``commands`` on connection ``qm``; each failure is written with its source and line. Returns how many
    failed (the others ran)."""
    processor = MqscProcessor(qm, echo=False)
    failed = 0
    for cmd in commands:
        response = processor.execute_request(cmd.request)
        if not response.ok:
            failed += 1
            write(f"{cmd.source}, line {cmd.line}: {cmd.text}")
            for line in response.lines:
                write(f"   {line}")
    return failed


def configure(qm: Any, mqsc_config: str, write: Callable[[str], None], dev: bool = False) -> int:
    """A start's automatic configuration on connection ``qm``: IBM's developer configuration when ``dev``, then
    the script(s) of ``mqsc_config`` (none when empty). Returns how many commands failed; ConfigError (nothing
    run) on a syntax error."""
    scripts = []
    if dev:
        for group, user in DEV_GROUPS:  # group membership is not MQSC (IBM's is the operating system's)
            qm.admin("group_change", group, user, True)
        dev_script = DEV_MQSC + DEV_CHANNELS + ("" if _has_deadq(qm) else DEV_DEADQ) + DEV_AUTHORITIES
        scripts.append(("developer configuration", dev_script))
    if mqsc_config:
        scripts += read_scripts(mqsc_config)
    commands = parse(scripts)
    return run(qm, commands, write) if commands else 0


def _has_deadq(qm: Any) -> bool:
    lines = MqscProcessor(qm, echo=False).execute("DISPLAY QMGR DEADQ").lines
    return not any("DEADQ( )" in line or "DEADQ()" in line for line in lines)
