"""A queue manager's settings, kept in its folder: ``$SYNCPOINT_HOME/qmgrs/NAME/qm.toml`` (IBM's qm.ini in
spirit, in TOML). strmqm reads them; a setting given to strmqm as a flag is kept there for the next starts
(issue 21, item 6: "strmqm --port/--tls-cert/--cpus must be repeated at every start").

``syncpoint dspmqini QMGR`` shows them (every setting, the defaults as comments), ``syncpoint setmqini QMGR
NAME=VALUE …`` changes them (``--reset NAME`` goes back to the default). They apply at the next strmqm.

The file::

    [server]
    port = 1415
    tls-cert = "/etc/syncpoint/qm1.pem"
    tls-key = "/etc/syncpoint/qm1.key"

    [metrics]
    metrics-port = 9157

    [limits]
    max-connections = 500

    [rest]
    rest = true
    rest-port = 9443
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

SETTINGS_FILE = "qm.toml"


@dataclass(frozen=True)
class Setting:
    section: str
    name: str
    kind: type
    default: Any
    help: str


SETTINGS = (
    Setting("server", "host", str, "127.0.0.1", "address to listen on for TCP (loopback unless told otherwise)"),
    Setting("server", "port", int, 1414, "TCP port (0: any free port, shown by dspmq -x)"),
    Setting("server", "tcp", bool, True, "serve TCP (false: the local Unix socket only)"),
    Setting("server", "tls-cert", str, "", "PEM certificate chain: serve TCP over TLS"),
    Setting("server", "tls-key", str, "", "PEM private key of tls-cert"),
    Setting("server", "tls-ca", str, "", "PEM CA certificates whose client certificates are trusted (IBM's SSLKEYR)"),
    Setting("server", "command-server", bool, True, "start the PCF command server"),
    Setting("server", "cpus", str, "auto", "CPUs the server runs on: auto, all, or a list such as 1 or 0-3"),
    Setting("server", "busy-poll", bool, True, "while busy, keep the server's CPU polling (one CPU)"),
    # IBM's REST API (docs/rest.md): off unless turned on, as IBM's mqweb server is started on its own
    Setting("rest", "rest", bool, False, "serve IBM's REST API (v3 shape) from the server's process"),
    Setting("rest", "rest-host", str, "127.0.0.1", "address of the REST API (not loopback: tls-cert is needed)"),
    Setting("rest", "rest-port", int, 9443, "port of the REST API (IBM's mqweb HTTPS port; 0: any free port)"),
    Setting("metrics", "metrics", bool, True, "serve Prometheus metrics at /metrics (IBM's exporter's names)"),
    Setting(
        "metrics", "metrics-host", str, "127.0.0.1", "address /metrics listens on (loopback unless told otherwise)"
    ),
    Setting("metrics", "metrics-port", int, 9157, "TCP port of /metrics (IBM's exporter's 9157; 0: any free port)"),
    Setting("limits", "max-connections", int, 1000, "connections served at once"),
    Setting("limits", "max-connections-per-address", int, 100, "connections served at once from one address"),
    Setting("limits", "handshake-timeout", float, 10.0, "seconds a new connection has to say hello"),
    Setting("limits", "frame-timeout", float, 10.0, "seconds a started frame has to arrive, plus the next"),
    Setting("limits", "frame-seconds-per-mib", float, 5.0, "more seconds a started frame has per MiB it announces"),
    Setting("limits", "partial-frame-budget", int, 512 * 1024 * 1024, "bytes held at once for large partial frames"),
    Setting("limits", "auth-delay-max", float, 5.0, "longest delay after failed authentications, in seconds"),
    Setting("limits", "reply-backlog", int, 4 * 1024 * 1024, "bytes of replies queued for one connection"),
    # IBM's automatic configuration (qm.ini's AutoConfig stanza: MQSCConfig, IniConfig), given to crtmqm -ic / -ii
    Setting(
        "autoconfig", "mqsc-config", str, "", "MQSC file, or folder of .mqsc files in name order, run at every start"
    ),
    Setting("autoconfig", "ini-config", str, "", "a file of these settings (qm.toml's form) read at every start"),
)
BY_NAME = {s.name: s for s in SETTINGS}
LIMITS = tuple(s.name for s in SETTINGS if s.section == "limits")


class SettingsError(ValueError):
    pass


def settings_path(qdir: Path) -> Path:
    return qdir / SETTINGS_FILE


def convert(name: str, raw: Any) -> Any:
    """``raw`` (a TOML value, or a string from the command line) as setting ``name``'s type; SettingsError if it
    is not one."""
    setting = BY_NAME.get(name)
    if setting is None:
        raise SettingsError(f"{name} is not a setting; the settings are: {', '.join(BY_NAME)}")
    kind = setting.kind
    if isinstance(raw, str) and kind is not str:
        text = raw.strip().lower()
        if kind is bool:
            if text not in ("true", "false", "yes", "no"):
                raise SettingsError(f"{name}={raw}: expected true or false")
            return text in ("true", "yes")
        try:
            raw = int(text) if kind is int else float(text)
        except ValueError:
            raise SettingsError(f"{name}={raw}: expected a number") from None
    if kind is float and isinstance(raw, int) and not isinstance(raw, bool):
        raw = float(raw)
    if not isinstance(raw, kind) or (kind is not bool and isinstance(raw, bool)):
        raise SettingsError(f"{name} = {raw!r}: expected {kind.__name__}")
    value: Any = raw
    if setting.section == "limits" and value <= 0:
        raise SettingsError(f"{name}={raw}: the value must be positive")
    if name in ("port", "rest-port", "metrics-port") and not 0 <= value <= 65535:
        raise SettingsError(f"{name}={raw}: expected 0 to 65535")
    return raw


def load(qdir: Path) -> dict[str, Any]:
    """The settings set in ``qm.toml`` (an empty dict when there is none); SettingsError naming what is wrong."""
    return load_file(settings_path(qdir))


def load_file(path: Path, missing_ok: bool = True) -> dict[str, Any]:
    """The settings of a file in qm.toml's form (crtmqm -ii's file too); SettingsError naming what is wrong."""
    try:
        with open(path, "rb") as f:
            data = tomllib.load(f)
    except FileNotFoundError:
        if not missing_ok:
            raise SettingsError(f"{path}: the file does not exist") from None
        return {}
    except (OSError, tomllib.TOMLDecodeError) as e:
        raise SettingsError(f"{path}: {e}") from None
    values: dict[str, Any] = {}
    for section, table in data.items():
        if not isinstance(table, dict):
            raise SettingsError(f"{path}: {section} = …: every setting belongs to a section ([server], [limits])")
        for name, raw in table.items():
            setting = BY_NAME.get(name)
            if setting is None or setting.section != section:
                raise SettingsError(f"{path}: [{section}] {name} is not a setting")
            try:
                values[name] = convert(name, raw)
            except SettingsError as e:
                raise SettingsError(f"{path}: {e}") from None
    return values


def effective(values: dict[str, Any]) -> dict[str, Any]:
    """Every setting: the value set, else its default."""
    return {s.name: values.get(s.name, s.default) for s in SETTINGS}


def _toml(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    escaped = str(value).replace("\\", "\\\\").replace('"', '\\"')
    return f'"{escaped}"'


def render(values: dict[str, Any], *, defaults: bool = False) -> str:
    """``values`` as the TOML of ``qm.toml``; with ``defaults`` the settings not set appear as comments."""
    lines = ["# the settings of this queue manager: 'syncpoint setmqini' changes them; strmqm reads them"]
    for section in dict.fromkeys(s.section for s in SETTINGS):
        if not defaults and not any(s.section == section and s.name in values for s in SETTINGS):
            continue
        lines += ["", f"[{section}]"]
        for s in SETTINGS:
            if s.section != section:
                continue
            if s.name in values:
                lines.append(f"{s.name} = {_toml(values[s.name])}")
            elif defaults:
                lines.append(f"# {s.name} = {_toml(s.default)}    (default: {s.help})")
    return "\n".join(lines) + "\n"


def save(qdir: Path, values: dict[str, Any]) -> Path:
    """Write ``values`` to ``qm.toml`` (0600, replaced whole: a reader never sees half a file)."""
    path = settings_path(qdir)
    tmp = path.with_name(path.name + ".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        out.write(render(values))
    os.replace(tmp, path)
    return path
