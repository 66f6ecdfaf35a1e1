"""The one error type of the MQI (a completion code and a reason code, named as IBM names them) and the root
of syncpoint's own errors."""

from __future__ import annotations

from typing import Any

from . import constants as C

_PREFERRED: dict[tuple[str, int], str] = {
    # values shared by several names of one family: the one users know (keyed by family, as lookup() is)
    ("MQRC", 2120): "MQRC_TRUNCATED",
    ("MQRC", 2019): "MQRC_HOBJ_ERROR",
    ("MQRC", 0): "MQRC_NONE",
    ("MQAT", 6): "MQAT_UNIX",
    ("MQIA", 1): "MQIA_APPL_TYPE",
    ("MQIA", 2000): "MQIA_USER_LIST",
    ("MQCA", 4000): "MQCA_USER_LIST",
}


def _build() -> dict[str, dict[int, str]]:
    table: dict[str, dict[int, str]] = {}
    for name, value in vars(C).items():
        if not name.startswith("MQ") or not isinstance(value, int) or isinstance(value, bool):
            continue
        prefix = name.split("_", 1)[0]
        slot = table.setdefault(prefix, {})
        slot.setdefault(value, name)  # the first definition wins (IBM's order)
    return table


_BY_PREFIX = _build()


def lookup(prefix: str, value: int) -> str | None:
    """The name of ``value`` among the constants starting ``prefix`` (``"MQRC"``, ``"MQCC"`` …)."""
    prefix = prefix.rstrip("_")
    preferred = _PREFERRED.get((prefix, value))
    if preferred is not None:
        return preferred
    return _BY_PREFIX.get(prefix, {}).get(value)


def reason_name(reason: int) -> str:
    """``MQRC_NO_MSG_AVAILABLE`` for 2033; ``MQRC_UNKNOWN`` followed by the number for one we do not know."""
    return lookup("MQRC", reason) or lookup("MQRCCF", reason) or f"MQRC_UNKNOWN_{reason}"


def completion_name(comp: int) -> str:
    return lookup("MQCC", comp) or f"MQCC_UNKNOWN_{comp}"


class SyncpointError(Exception):
    """The root of syncpoint's own errors: catch this to catch every error syncpoint raises on purpose.

    :class:`MQMIError` (an MQI call's completion code and reason) is one; each package's own errors (a malformed
    MQSC line, a damaged store, a protocol violation, a bad rules table …) are the others.
    """


class MQMIError(SyncpointError):
    """An MQI call failed (or completed with a warning).

    ``comp`` is MQCC_WARNING or MQCC_FAILED, ``reason`` an MQRC_* value. ``str()`` names the reason:
    ``MQRC_NO_MSG_AVAILABLE (2033)``. Extra context (the data of a truncated message, its full length)
    rides along as attributes, as in pymqi.
    """

    def __init__(self, comp: int, reason: int, detail: str | None = None, **extra: Any) -> None:
        self.comp = comp
        self.reason = reason
        self.detail = detail
        for k, v in extra.items():
            setattr(self, k, v)
        super().__init__(comp, reason)

    @property
    def reason_name(self) -> str:
        return reason_name(self.reason)

    def __str__(self) -> str:
        text = f"{completion_name(self.comp)}: {reason_name(self.reason)} ({self.reason})"
        if self.detail:
            text += f": {self.detail}"
        return text

    def errorAsString(self) -> str:
        return str(self)

    def __reduce__(self) -> tuple[Any, ...]:
        return (_rebuild, (self.comp, self.reason, self.detail, dict(self.__dict__)))


def _rebuild(comp: int, reason: int, detail: str | None, state: dict[str, Any]) -> MQMIError:
    e = MQMIError(comp, reason, detail)
    e.__dict__.update(state)
    return e
