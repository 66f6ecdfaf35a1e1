"""Option checks: which MQOO_*, MQCO_*, MQPMO_* and MQGMO_* option words a call may give, and the reason code
when it may not (reference: constants.md, "MQOO_* open options", "MQCO_* close options", "MQPMO_* put-message
options", "MQGMO_* get-message options"; seed 000 for MQGMO_MARK_SKIP_BACKOUT).

Options syncpoint accepts are listed here; any other bit is MQRC_OPTIONS_ERROR, as IBM rejects undefined bits.
MQPUT and MQGET check on every call only what a plain option word can get wrong (both syncpoint options at
once, FAIL_IF_QUIESCING while ending), inline; the *rare* options — a context option on a put; browse, cursor,
lock, unlock or mark on a get; any unknown bit — send the call through :func:`check_put_options` or
:func:`check_get_options`, which check them in IBM's order. The masks below say which options are which.
"""

from __future__ import annotations

from typing import Any

from syncpoint.mqi import MQPMO
from syncpoint.mqi import constants as C

from ._state import INPUT_OPTS, Connection, Handle
from ._util import fail

BROWSE_GET_OPTS = (
    C.MQGMO_BROWSE_FIRST | C.MQGMO_BROWSE_NEXT | C.MQGMO_BROWSE_MSG_UNDER_CURSOR | C.MQGMO_MSG_UNDER_CURSOR
)
SYNC_GET_OPTS = C.MQGMO_SYNCPOINT | C.MQGMO_NO_SYNCPOINT | C.MQGMO_SYNCPOINT_IF_PERSISTENT
CONTEXT_PUT_OPTS = (
    C.MQPMO_PASS_IDENTITY_CONTEXT
    | C.MQPMO_PASS_ALL_CONTEXT
    | C.MQPMO_SET_IDENTITY_CONTEXT
    | C.MQPMO_SET_ALL_CONTEXT
    | C.MQPMO_DEFAULT_CONTEXT
    | C.MQPMO_NO_CONTEXT
)
# Options syncpoint accepts; anything else is MQRC_OPTIONS_ERROR (IBM rejects undefined bits the same way).
KNOWN_GET_OPTS = (
    C.MQGMO_WAIT
    | SYNC_GET_OPTS
    | BROWSE_GET_OPTS
    | C.MQGMO_ACCEPT_TRUNCATED_MSG
    | C.MQGMO_MARK_SKIP_BACKOUT
    | C.MQGMO_LOCK
    | C.MQGMO_UNLOCK
    | C.MQGMO_FAIL_IF_QUIESCING
    | C.MQGMO_CONVERT
    | C.MQGMO_NO_PROPERTIES
    | C.MQGMO_PROPERTIES_COMPATIBILITY
    | C.MQGMO_PROPERTIES_FORCE_MQRFH2
    | C.MQGMO_PROPERTIES_IN_HANDLE
)
UNSUPPORTED_GET_OPTS = (
    C.MQGMO_SET_SIGNAL
    | C.MQGMO_LOGICAL_ORDER
    | C.MQGMO_COMPLETE_MSG
    | C.MQGMO_ALL_MSGS_AVAILABLE
    | C.MQGMO_ALL_SEGMENTS_AVAILABLE
    | C.MQGMO_MARK_BROWSE_HANDLE
    | C.MQGMO_MARK_BROWSE_CO_OP
    | C.MQGMO_UNMARK_BROWSE_CO_OP
    | C.MQGMO_UNMARK_BROWSE_HANDLE
    | C.MQGMO_UNMARKED_BROWSE_MSG
)
# the get options whose checks need no browse, cursor, lock or mark logic: MQGET's fast path
PLAIN_GET_OPTS = (
    C.MQGMO_WAIT
    | SYNC_GET_OPTS
    | C.MQGMO_ACCEPT_TRUNCATED_MSG
    | C.MQGMO_FAIL_IF_QUIESCING
    | C.MQGMO_CONVERT
    | C.MQGMO_NO_PROPERTIES
    | C.MQGMO_PROPERTIES_COMPATIBILITY
    | C.MQGMO_PROPERTIES_FORCE_MQRFH2
    | C.MQGMO_PROPERTIES_IN_HANDLE
)
RARE_GET_OPTS = ~PLAIN_GET_OPTS  # any of these sends MQGET through check_get_options
KNOWN_PUT_OPTS = (
    C.MQPMO_SYNCPOINT
    | C.MQPMO_NO_SYNCPOINT
    | CONTEXT_PUT_OPTS
    | C.MQPMO_NEW_MSG_ID
    | C.MQPMO_NEW_CORREL_ID
    | C.MQPMO_FAIL_IF_QUIESCING
    | C.MQPMO_ALTERNATE_USER_AUTHORITY
    | C.MQPMO_RESOLVE_LOCAL_Q
    | C.MQPMO_ASYNC_RESPONSE
    | C.MQPMO_SYNC_RESPONSE
    | C.MQPMO_MD_FOR_OUTPUT_ONLY
)
# the put options whose checks cannot fail alone (no context option): MQPUT's fast path checks only these
PLAIN_PUT_OPTS = KNOWN_PUT_OPTS & ~CONTEXT_PUT_OPTS
RARE_PUT_OPTS = ~PLAIN_PUT_OPTS  # any of these sends MQPUT through check_put_options
BOTH_PUT_SYNC = C.MQPMO_SYNCPOINT | C.MQPMO_NO_SYNCPOINT
KNOWN_OPEN_OPTS = (
    INPUT_OPTS
    | C.MQOO_BROWSE
    | C.MQOO_OUTPUT
    | C.MQOO_INQUIRE
    | C.MQOO_SET
    | C.MQOO_SAVE_ALL_CONTEXT
    | C.MQOO_PASS_IDENTITY_CONTEXT
    | C.MQOO_PASS_ALL_CONTEXT
    | C.MQOO_SET_IDENTITY_CONTEXT
    | C.MQOO_SET_ALL_CONTEXT
    | C.MQOO_ALTERNATE_USER_AUTHORITY
    | C.MQOO_FAIL_IF_QUIESCING
    | C.MQOO_BIND_ON_OPEN
    | C.MQOO_BIND_NOT_FIXED
    | C.MQOO_BIND_ON_GROUP
    | C.MQOO_RESOLVE_NAMES
    | C.MQOO_RESOLVE_LOCAL_Q
    | C.MQOO_NO_READ_AHEAD
    | C.MQOO_READ_AHEAD
    | C.MQOO_CO_OP
)
_CONTEXT_OPEN_OPTS = (
    C.MQOO_PASS_IDENTITY_CONTEXT | C.MQOO_PASS_ALL_CONTEXT | C.MQOO_SET_IDENTITY_CONTEXT | C.MQOO_SET_ALL_CONTEXT
)
_INQUIRE_ONLY_OPEN_OPTS = C.MQOO_INQUIRE | C.MQOO_FAIL_IF_QUIESCING | C.MQOO_ALTERNATE_USER_AUTHORITY
KNOWN_CLOSE_OPTS = C.MQCO_DELETE | C.MQCO_DELETE_PURGE | C.MQCO_QUIESCE | C.MQCO_KEEP_SUB | C.MQCO_REMOVE_SUB


def check_open_options(options: int) -> None:
    """MQOPEN's option word on its own (before the object is looked at)."""
    if options & ~KNOWN_OPEN_OPTS:
        raise fail(C.MQRC_OPTIONS_ERROR, f"unknown open options {options & ~KNOWN_OPEN_OPTS:#x}")
    if bin(options & INPUT_OPTS).count("1") > 1:
        raise fail(C.MQRC_OPTIONS_ERROR, "only one of the MQOO_INPUT_* options may be given")
    if options & _CONTEXT_OPEN_OPTS and not options & C.MQOO_OUTPUT:
        raise fail(C.MQRC_OPTIONS_ERROR, "context options on MQOPEN need MQOO_OUTPUT")
    if options & C.MQOO_SAVE_ALL_CONTEXT and not options & INPUT_OPTS:
        raise fail(C.MQRC_OPTIONS_ERROR, "MQOO_SAVE_ALL_CONTEXT needs an MQOO_INPUT_* option")
    if not options & (INPUT_OPTS | C.MQOO_BROWSE | C.MQOO_OUTPUT | C.MQOO_INQUIRE | C.MQOO_SET):
        raise fail(
            C.MQRC_OPTIONS_ERROR,
            "MQOPEN needs at least one of MQOO_INPUT_*, MQOO_BROWSE, MQOO_OUTPUT, MQOO_INQUIRE, MQOO_SET",
        )


def check_inquire_only(options: int, what: str) -> None:
    """A queue manager or a process can be opened only for inquire."""
    if options & ~_INQUIRE_ONLY_OPEN_OPTS:
        raise fail(C.MQRC_OPTION_NOT_VALID_FOR_TYPE, f"{what} can be opened only for inquire")


def check_close_options(options: int) -> None:
    if options & ~KNOWN_CLOSE_OPTS:
        raise fail(C.MQRC_OPTIONS_ERROR, f"unknown close options {options:#x}")


def check_put_options(
    conn: Connection, h: Handle, pmo: MQPMO, opts: int, ctx: int, quiescing: bool, qmgr: str
) -> dict[str, Any] | None:
    """The put options beyond the plain ones (context, both syncpoint options, unknown bits), checked in
    MQPUT's order; returns the saved context a MQPMO_PASS_* option names (None for the others)."""
    if opts & ~KNOWN_PUT_OPTS:
        raise fail(C.MQRC_OPTIONS_ERROR, f"unknown or unsupported put options {opts & ~KNOWN_PUT_OPTS:#x}")
    if opts & C.MQPMO_SYNCPOINT and opts & C.MQPMO_NO_SYNCPOINT:
        raise fail(C.MQRC_OPTIONS_ERROR, "MQPMO_SYNCPOINT and MQPMO_NO_SYNCPOINT together")
    if ctx & (ctx - 1):
        raise fail(C.MQRC_OPTIONS_ERROR, "only one MQPMO context option may be given")
    if quiescing and opts & C.MQPMO_FAIL_IF_QUIESCING:
        raise fail(C.MQRC_Q_MGR_QUIESCING, f"queue manager {qmgr} is ending")
    if ctx & C.MQPMO_SET_ALL_CONTEXT and not h.options & C.MQOO_SET_ALL_CONTEXT:
        raise fail(C.MQRC_OPTIONS_ERROR, "MQPMO_SET_ALL_CONTEXT needs the queue opened MQOO_SET_ALL_CONTEXT")
    if ctx & C.MQPMO_SET_IDENTITY_CONTEXT and not h.options & (C.MQOO_SET_IDENTITY_CONTEXT | C.MQOO_SET_ALL_CONTEXT):
        raise fail(C.MQRC_OPTIONS_ERROR, "MQPMO_SET_IDENTITY_CONTEXT needs the queue opened MQOO_SET_IDENTITY_CONTEXT")
    source: dict[str, Any] | None = None
    if ctx & (C.MQPMO_PASS_ALL_CONTEXT | C.MQPMO_PASS_IDENTITY_CONTEXT):
        need = C.MQOO_PASS_ALL_CONTEXT if ctx & C.MQPMO_PASS_ALL_CONTEXT else C.MQOO_PASS_IDENTITY_CONTEXT
        if not h.options & (need | C.MQOO_PASS_ALL_CONTEXT | C.MQOO_SET_ALL_CONTEXT | C.MQOO_SET_IDENTITY_CONTEXT):
            raise fail(C.MQRC_OPTIONS_ERROR, "a MQPMO_PASS_* context option needs the matching MQOO option")
        src = conn.handles.get(pmo.Context) if pmo.Context else None
        if src is None or not src.options & C.MQOO_SAVE_ALL_CONTEXT:
            raise fail(C.MQRC_CONTEXT_HANDLE_ERROR, "Context must be an input handle opened MQOO_SAVE_ALL_CONTEXT")
        source = src.saved_context or {}
    return source


def check_get_options(opts: int, sync: int) -> tuple[int, int]:
    """The get options beyond the plain ones (browse, cursor, lock, unlock, mark, unknown bits), with the
    syncpoint options ``sync``, checked in MQGET's order. Returns (the browse options, the cursor options)."""
    if opts & UNSUPPORTED_GET_OPTS:
        raise fail(
            C.MQRC_OPTIONS_ERROR,
            f"get options {opts & UNSUPPORTED_GET_OPTS:#x} (signals, logical order, groups, segments, "
            "cooperative browse) are not supported by syncpoint",
        )
    if opts & ~(KNOWN_GET_OPTS | UNSUPPORTED_GET_OPTS):
        raise fail(C.MQRC_OPTIONS_ERROR, f"unknown get options {opts & ~KNOWN_GET_OPTS:#x}")
    if sync & (sync - 1):
        raise fail(C.MQRC_OPTIONS_ERROR, "only one of MQGMO_SYNCPOINT, _NO_SYNCPOINT, _SYNCPOINT_IF_PERSISTENT")
    browse = opts & (C.MQGMO_BROWSE_FIRST | C.MQGMO_BROWSE_NEXT | C.MQGMO_BROWSE_MSG_UNDER_CURSOR)
    cursor_opts = opts & BROWSE_GET_OPTS
    if cursor_opts & (cursor_opts - 1):
        raise fail(C.MQRC_OPTIONS_ERROR, "only one browse / under-cursor option may be given")
    if browse and sync & (C.MQGMO_SYNCPOINT | C.MQGMO_SYNCPOINT_IF_PERSISTENT):
        raise fail(C.MQRC_OPTIONS_ERROR, "a browse cannot be in syncpoint")
    if opts & C.MQGMO_MARK_SKIP_BACKOUT and not opts & C.MQGMO_SYNCPOINT:
        raise fail(C.MQRC_OPTIONS_ERROR, "MQGMO_MARK_SKIP_BACKOUT needs MQGMO_SYNCPOINT")  # seed 000
    if opts & C.MQGMO_LOCK and not browse:
        raise fail(C.MQRC_OPTIONS_ERROR, "MQGMO_LOCK is valid only with a browse option")
    if opts & C.MQGMO_UNLOCK and opts & ~(C.MQGMO_UNLOCK | C.MQGMO_NO_WAIT | C.MQGMO_NO_SYNCPOINT):
        raise fail(C.MQRC_OPTIONS_ERROR, "MQGMO_UNLOCK must be given alone")
    return browse, cursor_opts
