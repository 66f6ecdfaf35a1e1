"""Inquiring and setting attributes: MQINQ and MQSET (and the one place attribute changes are applied, which
DEFINE … REPLACE and ALTER use too).

References: constants.md ("MQCA_* character attribute selectors", "MQIA_* integer attribute selectors",
MQRC_SELECTOR_*); mqsc.md (the attributes and their MQSC names); seed 001, condition 13 (a change of the
trigger attributes, PUT enable of an initiation queue or GET enable of an application queue may trigger).

Theory of operation
-------------------
MQINQ answers from the definition the handle opened (an alias's own attributes for an alias), plus the values
the queue manager computes (CURDEPTH, IPPROCS, OPPROCS, dates). A selector that does not apply to the object is
a warning, MQRC_SELECTOR_NOT_FOR_TYPE, with placeholder values, as IBM returns it. MQSET changes the few
attributes IBM lets an application set (InhibitGet, InhibitPut, the trigger attributes), all or none; the
change is stored like an ALTER, a changed MSGDLVSQ re-orders the queue, a get-enable wakes waiting gets.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from syncpoint.mqi import blank_strip, mqsc_date_time
from syncpoint.mqi import constants as C
from syncpoint.mqi.objects import (
    ATTRIBUTES,
    MQIAV_NOT_APPLICABLE,
    NAMELIST,
    PROCESS,
    QALIAS,
    QLOCAL,
    QMGR,
    QTYPE_OF,
    QUEUE_TYPES,
    SELECTOR_TO_KEYWORD,
    Definition,
    char_attr_length,
    check_value,
)
from syncpoint.mqi.qmgr_selectors import KEPT_QMGR_SELECTORS, kept_qmgr_value

from ._base import QueueManagerBase
from ._state import Connection, Handle
from ._util import fail, padded

_SETTABLE_SELECTORS = {
    C.MQIA_INHIBIT_GET,
    C.MQIA_INHIBIT_PUT,
    C.MQIA_TRIGGER_CONTROL,
    C.MQIA_TRIGGER_TYPE,
    C.MQIA_TRIGGER_DEPTH,
    C.MQIA_TRIGGER_MSG_PRIORITY,
    C.MQCA_TRIGGER_DATA,
}
_SET_ERRORS = {
    C.MQIA_TRIGGER_CONTROL: C.MQRC_TRIGGER_CONTROL_ERROR,
    C.MQIA_TRIGGER_TYPE: C.MQRC_TRIGGER_TYPE_ERROR,
    C.MQIA_TRIGGER_DEPTH: C.MQRC_TRIGGER_DEPTH_ERROR,
    C.MQIA_TRIGGER_MSG_PRIORITY: C.MQRC_TRIGGER_MSG_PRIORITY_ERR,
}
_COMPUTED_SELECTORS = frozenset(
    {
        C.MQCA_Q_NAME,
        C.MQCA_Q_MGR_NAME,
        C.MQIA_Q_TYPE,
        C.MQIA_CURRENT_Q_DEPTH,
        C.MQIA_OPEN_INPUT_COUNT,
        C.MQIA_OPEN_OUTPUT_COUNT,
        C.MQIA_DEFINITION_TYPE,
        C.MQCA_CREATION_DATE,
        C.MQCA_CREATION_TIME,
        C.MQCA_ALTERATION_DATE,
        C.MQCA_ALTERATION_TIME,
        C.MQIA_DIST_LISTS,
        C.MQCA_NAMELIST_NAME,
        C.MQIA_NAME_COUNT,
        C.MQCA_Q_MGR_IDENTIFIER,
    }
)


class InquireMixin(QueueManagerBase):
    """MQINQ, MQSET."""

    def inq(self, conn: Connection, hobj: Handle | int, selectors: Sequence[int]) -> tuple[list[int], list[bytes], int]:
        """MQINQ: integer values and character values (each blank-padded) in selector order, and a reason
        (MQRC_NONE, or MQRC_SELECTOR_NOT_FOR_TYPE as a warning with placeholder values)."""
        h = self._handle(conn, hobj)
        if not h.options & C.MQOO_INQUIRE:
            raise fail(C.MQRC_NOT_OPEN_FOR_INQUIRE, f"{h.name} is not open for inquire")
        if len(selectors) > 256:
            raise fail(C.MQRC_SELECTOR_COUNT_ERROR, "too many selectors")
        ints: list[int] = []
        chars: list[bytes] = []
        reason = C.MQRC_NONE
        d = h.alias if h.alias is not None else h.definition
        assert d is not None
        for sel in selectors:
            is_char = C.MQCA_FIRST <= sel <= C.MQCA_LAST
            if not is_char and not C.MQIA_FIRST <= sel <= C.MQIA_LAST:
                raise fail(C.MQRC_SELECTOR_ERROR, f"selector {sel} is not valid")
            value = self._inq_value(h, d, sel)
            if value is None:
                if sel not in SELECTOR_TO_KEYWORD and sel not in _COMPUTED_SELECTORS and sel not in KEPT_QMGR_SELECTORS:
                    raise fail(C.MQRC_SELECTOR_ERROR, f"selector {sel} is not known")
                reason = C.MQRC_SELECTOR_NOT_FOR_TYPE
                if is_char:
                    n = char_attr_length(sel)
                    chars.append(b"*" * n)
                else:
                    ints.append(MQIAV_NOT_APPLICABLE)
                continue
            if is_char and isinstance(value, tuple):  # a namelist's NAMES: 48 characters a name (IBM)
                chars.append(b"".join(padded(n, 48) for n in value))
            elif is_char:
                chars.append(padded(str(value), char_attr_length(sel)))
            else:
                ints.append(int(value))
        if self.monitoring_on:
            self.mon_count(conn, "inqs", h.otype)  # statistics and accounting (``_statistics``)
        return ints, chars, reason

    def _inq_value(self, h: Handle, d: Definition, sel: int) -> Any:
        q = h.queue
        otype = d.otype
        if otype in QUEUE_TYPES:
            if sel == C.MQCA_Q_NAME:
                return d.name
            if sel == C.MQIA_Q_TYPE:
                return QTYPE_OF[otype]
            if sel == C.MQIA_DEFINITION_TYPE and otype == QLOCAL:
                return d.dynamic
            if otype == QLOCAL and q is not None:
                if sel == C.MQIA_CURRENT_Q_DEPTH:
                    return q.depth
                if sel == C.MQIA_OPEN_INPUT_COUNT:
                    return q.ipprocs
                if sel == C.MQIA_OPEN_OUTPUT_COUNT:
                    return q.opprocs
        if sel == C.MQCA_Q_MGR_NAME and otype == QMGR:
            return self.name
        if sel == C.MQCA_PROCESS_NAME and otype == PROCESS:
            return d.name
        if otype == NAMELIST:
            if sel == C.MQCA_NAMELIST_NAME:
                return d.name
            if sel == C.MQIA_NAME_COUNT:
                return len(d.attrs.get("NAMES", ()))
        if sel in (C.MQCA_CREATION_DATE, C.MQCA_CREATION_TIME, C.MQCA_ALTERATION_DATE, C.MQCA_ALTERATION_TIME):
            t = d.created if sel in (C.MQCA_CREATION_DATE, C.MQCA_CREATION_TIME) else d.altered
            date, time_ = mqsc_date_time(t)
            return date if sel in (C.MQCA_CREATION_DATE, C.MQCA_ALTERATION_DATE) else time_
        if otype == QMGR:
            if sel == C.MQCA_Q_MGR_IDENTIFIER:  # as DISPLAY QMGR's QMID: the name, then when it was created
                cdate, ctime = mqsc_date_time(d.created)
                return f"{self.name}_{cdate}_{ctime}"
            kept = kept_qmgr_value(d.attrs, sel)  # an attribute kept without being acted on (mqi.qmgr_selectors)
            if kept is not None:
                return kept
        kw = SELECTOR_TO_KEYWORD.get(sel)
        if kw is None:
            return None
        if otype == QMGR:
            if sel == C.MQIA_MAX_MSG_LENGTH:
                return d.attrs["QMMAXMSGL"]
            if sel == C.MQIA_DIST_LISTS:
                return C.MQDL_NOT_SUPPORTED
        return d.attrs.get(kw)

    def set(
        self,
        conn: Connection,
        hobj: Handle | int,
        selectors: Sequence[int],
        int_attrs: Sequence[int],
        char_attrs: Sequence[bytes | str],
    ) -> None:
        """MQSET: change the settable attributes of a queue, all or none."""
        h = self._handle(conn, hobj)
        if not h.options & C.MQOO_SET:
            raise fail(C.MQRC_NOT_OPEN_FOR_SET, f"{h.name} is not open for set")
        d = h.alias if h.alias is not None else h.definition
        assert d is not None
        ints = iter(int_attrs)
        chars = iter(char_attrs)
        changes: dict[str, Any] = {}
        for sel in selectors:
            is_char = C.MQCA_FIRST <= sel <= C.MQCA_LAST
            kw = SELECTOR_TO_KEYWORD.get(sel)
            if kw is None or sel not in _SETTABLE_SELECTORS:
                raise fail(C.MQRC_SELECTOR_ERROR, f"selector {sel} cannot be set with MQSET")
            attr = ATTRIBUTES[kw]
            if d.otype not in attr.owners:
                raise fail(C.MQRC_SELECTOR_NOT_FOR_TYPE, f"{kw} does not apply to a {d.otype}")
            try:
                raw: bytes | str | int = next(chars) if is_char else next(ints)
            except StopIteration:
                raise fail(
                    C.MQRC_CHAR_ATTRS_TOO_SHORT if is_char else C.MQRC_INT_ATTR_COUNT_ERROR,
                    "fewer attribute values than selectors",
                ) from None
            value: Any = blank_strip(raw) if isinstance(raw, (bytes, str)) else raw
            try:
                changes[kw] = check_value(attr, value)
            except ValueError as e:
                raise fail(_SET_ERRORS.get(sel, C.MQRC_SELECTOR_ERROR), str(e)) from None
        self._apply_changes(d, changes)
        if self.monitoring_on:
            self.mon_count(conn, "sets", h.otype)  # statistics and accounting (``_statistics``)

    def _apply_changes(self, d: Definition, changes: dict[str, Any]) -> None:
        if not changes:
            return
        before = dict(d.attrs)
        d.attrs.update(changes)
        d.altered = self.clock.time()
        if d.dynamic != C.MQQDT_TEMPORARY_DYNAMIC:
            b = self._b()
            b.put_objects.append((d.otype, d.name, d.to_bytes()))
            b.durable = True
        q = self.queues.get(d.name) if d.otype == QLOCAL else None
        if q is not None:
            if before.get("MSGDLVSQ") != d.attrs.get("MSGDLVSQ"):
                q.reorder()
            if before.get("GET") != d.attrs.get("GET") and d.attrs["GET"] == C.MQQA_GET_ALLOWED:
                self._wake.add(q.name)
        if d.otype == QALIAS and before.get("GET") != d.attrs.get("GET"):
            self._wake.add(d.attrs["TARGET"])
        self.on_attributes_changed(d, before)

    def on_attributes_changed(self, d: Definition, before: dict[str, Any]) -> None:
        """Triggering (seed 001, condition 13: MQSET / ALTER of the trigger attributes, PUT / GET enable); the
        statistics and accounting switches (``_statistics``)."""
        self.triggering.attributes_changed(d, before)
        if (
            d.otype == QMGR
            or before.get("STATQ") != d.attrs.get("STATQ")
            or before.get("ACCTQ") != d.attrs.get("ACCTQ")
            or before.get("CHLSTATCHL") != d.attrs.get("CHLSTATCHL")  # a channel's STATCHL (``_chlstats``)
        ):
            self.monitoring_refresh()
