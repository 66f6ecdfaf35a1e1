"""A PCF request as the command server reads it: its parameters by id (``Request``), the conversion of PCF
parameters to and from the attribute table (``syncpoint.mqi.objects``), and the filters of the Inquire commands
(MQCFIF / MQCFSF / MQCFBF). A command that cannot be run raises ``CommandFailedError`` with its PCF reason.
References: ``reference/ibmmq-compat.md`` (PCF through ibmmq / pymqi) and ``reference/constants.md``.
"""

from __future__ import annotations

from typing import Any

from syncpoint.mqi import SyncpointError
from syncpoint.mqi import constants as C
from syncpoint.mqi.objects import ATTRIBUTES, QMGR, QUEUE_TYPES, Attribute, attributes_for
from syncpoint.mqi.qmgr_selectors import KEPT_QMGR_SELECTORS

from . import _constants as K
from ._structs import (
    MQCFBF,
    MQCFBS,
    MQCFIF,
    MQCFIL,
    MQCFIN,
    MQCFIN64,
    MQCFSF,
    MQCFSL,
    MQCFST,
    Param,
)


class CommandFailedError(SyncpointError):
    """A command failed: reply with ``reason`` (and ``parameter`` as MQIACF_PARAMETER_ID when not 0)."""

    def __init__(self, reason: int, message: str, parameter: int = 0) -> None:
        super().__init__(message)
        self.reason = reason
        self.parameter = parameter


# ------------------------------------------------------------------------------------------------------
# attribute conversion (PCF parameter <-> the engine's attribute table)
# ------------------------------------------------------------------------------------------------------
def selector_map(otype: str) -> dict[int, Attribute]:
    """The attributes of an object type by MQIA_*/MQCA_* selector (PCF parameter id)."""
    return {a.selector: a for a in attributes_for(otype) if a.selector}


def attr_value_from_pcf(attr: Attribute, p: Param) -> Any:
    """A PCF parameter's value as the engine keeps it (str unpadded, int; a namelist's NAMES from an MQCFSL, as a
    tuple). Raises CommandFailed."""
    if attr.kind == "names":
        if not isinstance(p, MQCFSL):
            raise CommandFailedError(K.MQRCCF_CFSL_PARM_ID_ERROR, f"{attr.keyword} takes an MQCFSL", p.Parameter)
        names = [s.decode("utf-8", "replace").strip(" \0") for s in p.Strings]
        if len(names) > attr.high:
            raise CommandFailedError(K.MQRCCF_CFSL_COUNT_ERROR, f"at most {attr.high} names", p.Parameter)
        if any(not n or len(n.encode()) > attr.length for n in names):
            raise CommandFailedError(
                K.MQRCCF_CFSL_STRING_LENGTH_ERR, f"each name is 1 to {attr.length} characters", p.Parameter
            )
        return tuple(names)
    if attr.is_char:
        if not isinstance(p, MQCFST):
            raise CommandFailedError(K.MQRCCF_CFST_PARM_ID_ERROR, f"{attr.keyword} takes an MQCFST", p.Parameter)
        text = p.String.decode("utf-8", "replace").rstrip(" \0")
        if len(text.encode()) > attr.length:
            raise CommandFailedError(
                K.MQRCCF_CFST_STRING_LENGTH_ERR, f"{attr.keyword} is at most {attr.length} characters", p.Parameter
            )
        return text
    if not isinstance(p, (MQCFIN, MQCFIN64)):
        raise CommandFailedError(K.MQRCCF_CFIN_PARM_ID_ERROR, f"{attr.keyword} takes an MQCFIN", p.Parameter)
    v = int(p.Value)
    if attr.kind in ("enum", "flag"):
        if v not in attr.values.values():
            raise CommandFailedError(K.MQRCCF_ATTR_VALUE_ERROR, f"{attr.keyword} value {v} is not allowed", p.Parameter)
    elif not attr.low <= v <= attr.high:
        raise CommandFailedError(
            K.MQRCCF_ATTR_VALUE_ERROR, f"{attr.keyword} must be from {attr.low} to {attr.high}", p.Parameter
        )
    return v


def attr_value_to_pcf(selector: int, value: Any, length: int) -> Param:
    """An attribute value as a PCF response parameter: MQCFST blank-padded to IBM's length, or MQCFIN."""
    if C.MQCA_FIRST <= selector <= C.MQCA_LAST or K.MQCACF_FROM_Q_NAME <= selector <= 3999:
        raw = str(value).encode("utf-8")[:length] if length else str(value).encode("utf-8")
        return MQCFST(selector, raw.ljust(length, b" ") if length else raw)
    return MQCFIN(selector, int(value))


# ------------------------------------------------------------------------------------------------------
# requests
# ------------------------------------------------------------------------------------------------------
class Request:
    """A parsed command's parameters by id, with typed accessors that fail as IBM's command server does."""

    def __init__(self, params: list[Param]) -> None:
        self.params: dict[int, Param] = {}
        # a filter (MQCFIF / MQCFSF / MQCFBF) may name the same parameter as a selection parameter
        self.filters: list[MQCFIF | MQCFSF | MQCFBF] = [p for p in params if isinstance(p, (MQCFIF, MQCFSF, MQCFBF))]
        self.filter_used = False
        if len(self.filters) > 1:
            raise CommandFailedError(K.MQRCCF_FILTER_ERROR, "only one filter is allowed", self.filters[1].Parameter)
        for p in params:
            if isinstance(p, (MQCFIF, MQCFSF, MQCFBF)):
                continue
            if p.Parameter in self.params:
                reason = K.MQRCCF_CFST_DUPLICATE_PARM if isinstance(p, MQCFST) else K.MQRCCF_CFIN_DUPLICATE_PARM
                raise CommandFailedError(reason, f"parameter {p.Parameter} appears twice", p.Parameter)
            self.params[p.Parameter] = p
        self.used: set[int] = set()

    def string(self, pid: int, required: bool = True) -> str | None:
        p = self.params.get(pid)
        if p is None:
            if required:
                raise CommandFailedError(K.MQRCCF_PARM_MISSING, f"parameter {pid} is required", pid)
            return None
        if not isinstance(p, MQCFST):
            raise CommandFailedError(K.MQRCCF_CFST_PARM_ID_ERROR, f"parameter {pid} must be an MQCFST", pid)
        self.used.add(pid)
        text = p.String.decode("utf-8", "replace").rstrip(" \0")
        if not text:
            raise CommandFailedError(K.MQRCCF_CFST_STRING_LENGTH_ERR, f"parameter {pid} is empty", pid)
        return text

    def integer(self, pid: int, default: int | None = None, required: bool = False) -> int | None:
        p = self.params.get(pid)
        if p is None:
            if required:
                raise CommandFailedError(K.MQRCCF_PARM_MISSING, f"parameter {pid} is required", pid)
            return default
        if not isinstance(p, (MQCFIN, MQCFIN64)):
            raise CommandFailedError(K.MQRCCF_CFIN_PARM_ID_ERROR, f"parameter {pid} must be an MQCFIN", pid)
        self.used.add(pid)
        return int(p.Value)

    def int_list(self, pid: int) -> list[int] | None:
        p = self.params.get(pid)
        if p is None:
            return None
        self.used.add(pid)
        if isinstance(p, MQCFIL):
            return list(p.Values)
        if isinstance(p, MQCFIN):
            return [p.Value]
        raise CommandFailedError(K.MQRCCF_CFIL_PARM_ID_ERROR, f"parameter {pid} must be an MQCFIL", pid)

    def attributes(self, otype: str) -> dict[str, Any]:
        """The remaining parameters as object attributes (MQSC keyword -> value) for ``otype``."""
        table = selector_map(otype)
        out: dict[str, Any] = {}
        for pid, p in self.params.items():
            if pid in self.used:
                continue
            attr = table.get(pid)
            kept = _kept_selector(otype, pid)
            if attr is None and kept is not None:  # an attribute kept as IBM's word (STATMQI: MQMON_ON is "ON")
                out[kept[0]] = _kept_word(kept, p)
                continue
            if attr is None:
                known = ATTRIBUTES.get(_keyword_of(pid))
                if known is not None:  # an attribute, of another object type
                    raise CommandFailedError(
                        K.MQRCCF_ATTR_VALUE_ERROR, f"{known.keyword} is not valid for {otype}", pid
                    )
                reason = K.MQRCCF_CFST_PARM_ID_ERROR if isinstance(p, MQCFST) else K.MQRCCF_CFIN_PARM_ID_ERROR
                raise CommandFailedError(reason, f"parameter {pid} is not valid for this command", pid)
            if attr.readonly:
                raise CommandFailedError(K.MQRCCF_ATTR_VALUE_FIXED, f"{attr.keyword} cannot be changed", pid)
            keyword = "MAXMSGL" if otype == QMGR and attr.keyword == "QMMAXMSGL" else attr.keyword
            out[keyword] = attr_value_from_pcf(attr, p)
        return out


# a queue's kept monitoring attributes by selector (the queue manager's are mqi.qmgr_selectors')
_MONITOR_WORDS = {"QMGR": C.MQMON_Q_MGR, "ON": C.MQMON_ON, "OFF": C.MQMON_OFF}
KEPT_QUEUE_SELECTORS = {C.MQIA_STATISTICS_Q: ("STATQ", _MONITOR_WORDS), C.MQIA_ACCOUNTING_Q: ("ACCTQ", _MONITOR_WORDS)}


def _kept_selector(otype: str, pid: int) -> tuple[str, Any] | None:
    if otype == QMGR:
        return KEPT_QMGR_SELECTORS.get(pid)
    return KEPT_QUEUE_SELECTORS.get(pid) if otype in QUEUE_TYPES else None


def _kept_word(kept: tuple[str, Any], p: Param) -> Any:
    """The PCF value of a kept attribute as the engine keeps it: IBM's word for a value (MQMON_ON -> "ON"), a
    number or string as given; MQRCCF_PARM_VALUE_ERROR for a value that is none of the attribute's."""
    key, words = kept
    if isinstance(p, MQCFIN):
        if words is None:
            return p.Value
        for word, value in words.items():
            if value == p.Value:
                return word
        raise CommandFailedError(K.MQRCCF_ATTR_VALUE_ERROR, f"{p.Value} is not a value of {key}", p.Parameter)
    if isinstance(p, MQCFST) and words is None:
        return p.String.decode(errors="replace").rstrip(" \0")
    raise CommandFailedError(K.MQRCCF_CFIN_PARM_ID_ERROR, f"{key} takes an MQCFIN", p.Parameter)


_BYTE_OPERATORS = frozenset(
    {K.MQCFOP_EQUAL, K.MQCFOP_NOT_EQUAL, K.MQCFOP_LESS, K.MQCFOP_NOT_LESS, K.MQCFOP_GREATER, K.MQCFOP_NOT_GREATER}
)


def _compare(op: int, left: Any, right: Any) -> bool:
    if op == K.MQCFOP_EQUAL:
        return bool(left == right)
    if op == K.MQCFOP_NOT_EQUAL:
        return bool(left != right)
    if op == K.MQCFOP_LESS:
        return bool(left < right)
    if op == K.MQCFOP_NOT_LESS:
        return bool(left >= right)
    if op == K.MQCFOP_GREATER:
        return bool(left > right)
    if op == K.MQCFOP_NOT_GREATER:
        return bool(left <= right)
    raise CommandFailedError(K.MQRCCF_FILTER_ERROR, f"filter operator {op} does not apply here")


def passes_filter(body: list[Param], f: MQCFIF | MQCFSF | MQCFBF) -> bool:
    """Whether a response (all of an object's attributes) satisfies an MQCFIF / MQCFSF filter (IBM's operators;
    LIKE / NOT_LIKE take a generic value ending in '*'; CONTAINS / EXCLUDES test a list attribute)."""
    found = next((p for p in body if p.Parameter == f.Parameter), None)
    if found is None:  # an object without that attribute (an alias queue's depth) does not match
        return False
    if isinstance(f, MQCFIF):
        if isinstance(found, MQCFIL):
            if f.Operator in (K.MQCFOP_CONTAINS, K.MQCFOP_EXCLUDES):
                return (f.FilterValue in found.Values) == (f.Operator == K.MQCFOP_CONTAINS)
            raise CommandFailedError(K.MQRCCF_CFIF_OPERATOR_ERROR, "use CONTAINS or EXCLUDES on a list", f.Parameter)
        if not isinstance(found, (MQCFIN, MQCFIN64)):
            raise CommandFailedError(K.MQRCCF_FILTER_ERROR, "an integer filter on a string attribute", f.Parameter)
        return _compare(f.Operator, found.Value, f.FilterValue)
    if isinstance(f, MQCFBF) and isinstance(found, MQCFBS):  # byte strings: = <> < > … byte by byte
        if f.Operator not in _BYTE_OPERATORS:
            raise CommandFailedError(K.MQRCCF_CFBF_OPERATOR_ERROR, f"operator {f.Operator} is not valid", f.Parameter)
        return _compare(f.Operator, found.String, f.FilterValue)
    if isinstance(f, MQCFSF) and isinstance(found, MQCFSL):  # a list of names: is the value one of them?
        if f.Operator not in (K.MQCFOP_CONTAINS, K.MQCFOP_EXCLUDES):
            raise CommandFailedError(K.MQRCCF_CFSF_OPERATOR_ERROR, "use CONTAINS or EXCLUDES on a list", f.Parameter)
        listed = f.FilterValue.rstrip(b" \0") in [s.rstrip(b" \0") for s in found.Strings]
        return listed == (f.Operator == K.MQCFOP_CONTAINS)
    if isinstance(f, MQCFSF) and isinstance(found, MQCFST):
        value = found.String.rstrip(b" \0")
        want = f.FilterValue.rstrip(b" \0")
        if f.Operator in (K.MQCFOP_LIKE, K.MQCFOP_NOT_LIKE):
            hit = value.startswith(want[:-1]) if want.endswith(b"*") else value == want
            return hit == (f.Operator == K.MQCFOP_LIKE)
        return _compare(f.Operator, value, want)
    raise CommandFailedError(K.MQRCCF_FILTER_ERROR, "the filter does not match the attribute's type", f.Parameter)


def _keyword_of(selector: int) -> str:
    for a in ATTRIBUTES.values():
        if a.selector == selector:
            return a.keyword
    return ""
