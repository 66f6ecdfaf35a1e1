"""PCF for message channels: Inquire Channel, Inquire Channel Names and Inquire Channel Status, with IBM's
parameter ids, types and reasons (cmqcfc.h), so programs written for ``ibmmq.PCFExecute`` / ``pymqi.PCFExecute``
see a queue manager's channels as they see IBM's.

Theory of operation: Inquire Channel and Inquire Channel Names read the channel definitions through the client's
administrative verbs (``list_objects``), as DISPLAY CHANNEL does; Inquire Channel Status asks the queue manager's
channel initiator, as DISPLAY CHSTATUS does (``client.channel_command``: a JSON request on SYSTEM.CHANNEL.INITQ),
and maps its rows — the MQSC keywords and words — to IBM's PCF selectors and MQCHS_* values. A queue manager whose
channel initiator does not answer gets MQRCCF_NO_CHANNEL_INITIATOR; a name that matches no channel,
MQRCCF_CHANNEL_NOT_FOUND (Inquire Channel) or MQRCCF_CHL_STATUS_NOT_FOUND (Inquire Channel Status); a channel type
or instance type that is not IBM's, MQRCCF_CHANNEL_TYPE_ERROR / MQRCCF_CHL_INST_TYPE_ERROR.

Implements: issue 33 item 2 (PCF); IBM MQ "Inquire Channel", "Inquire Channel Names", "Inquire Channel Status".
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from syncpoint.client import channel_command, svrconn_status
from syncpoint.mqi import constants as C
from syncpoint.mqi import matches_generic, mqsc_date_time
from syncpoint.mqi.objects import CHANNEL

from . import _constants as K
from ._request import CommandFailedError, Request, attr_value_to_pcf, passes_filter
from ._structs import MQCFIN, MQCFSL, Param

Reply = list[list[Param]]

# a channel definition's attributes as Inquire Channel returns them: (engine key, PCF selector, string length)
CHANNEL_ATTRS: tuple[tuple[str, int, int], ...] = (
    ("TRPTYPE", K.MQIACH_XMIT_PROTOCOL_TYPE, 0),
    ("CHLDESCR", K.MQCACH_DESC, 64),
    ("CHLXMITQ", K.MQCACH_XMIT_Q_NAME, 48),
    ("CONNAME", K.MQCACH_CONNECTION_NAME, 264),
    ("BATCHSZ", K.MQIACH_BATCH_SIZE, 0),
    ("BATCHINT", K.MQIACH_BATCH_INTERVAL, 0),
    ("DISCINT", K.MQIACH_DISC_INTERVAL, 0),
    ("SHORTRTY", K.MQIACH_SHORT_RETRY, 0),
    ("SHORTTMR", K.MQIACH_SHORT_TIMER, 0),
    ("LONGRTY", K.MQIACH_LONG_RETRY, 0),
    ("LONGTMR", K.MQIACH_LONG_TIMER, 0),
    ("HBINT", K.MQIACH_HB_INTERVAL, 0),
    ("NPMSPEED", K.MQIACH_NPM_SPEED, 0),
    ("CHLMAXMSGL", K.MQIACH_MAX_MSG_LENGTH, 0),
    ("MCAUSER", K.MQCACH_MCA_USER_ID, 64),
    ("SSLCIPH", K.MQCACH_SSL_CIPHER_SPEC, 32),
    ("SEQWRAP", K.MQIACH_SEQUENCE_NUMBER_WRAP, 0),
    ("MRRTY", K.MQIACH_MR_COUNT, 0),
    ("MRTMR", K.MQIACH_MR_INTERVAL, 0),
    ("MAXINST", K.MQIACH_MAX_INSTANCES, 0),
    ("MAXINSTC", K.MQIACH_MAX_INSTS_PER_CLIENT, 0),
    ("SHARECNV", K.MQIACH_SHARING_CONVERSATIONS, 0),
    ("SSLCAUTH", K.MQIACH_SSL_CLIENT_AUTH, 0),
)
_DEFAULTS = {"TRPTYPE": 2, "NPMSPEED": 2}  # TCP, FAST: what a definition without them has

# a channel's STATCHL word as PCF's ChannelStatistics (MQMON_*)
_MONITORING = {
    "QMGR": C.MQMON_Q_MGR,
    "OFF": C.MQMON_OFF,
    "LOW": C.MQMON_LOW,
    "MEDIUM": C.MQMON_MEDIUM,
    "HIGH": C.MQMON_HIGH,
}
_TYPES = {
    "SDR": 1,
    "SVR": 2,
    "RCVR": 3,
    "RQSTR": 4,
    "SVRCONN": K.MQCHT_SVRCONN,
}  # MQCHT_* of DISPLAY CHSTATUS's CHLTYPE words
_IBM_TYPES = frozenset({1, 2, 3, 4, K.MQCHT_ALL, K.MQCHT_CLNTCONN, K.MQCHT_SVRCONN, K.MQCHT_CLUSRCVR, K.MQCHT_CLUSSDR})
_STATES = {
    "INACTIVE": C.MQCHS_INACTIVE,
    "BINDING": C.MQCHS_BINDING,
    "STARTING": C.MQCHS_STARTING,
    "RUNNING": C.MQCHS_RUNNING,
    "STOPPING": C.MQCHS_STOPPING,
    "RETRYING": C.MQCHS_RETRYING,
    "STOPPED": C.MQCHS_STOPPED,
    "REQUESTING": C.MQCHS_REQUESTING,
    "PAUSED": C.MQCHS_PAUSED,
    "INITIALIZING": C.MQCHS_INITIALIZING,
}


def _name(req: Request) -> str:
    pattern = req.string(K.MQCACH_CHANNEL_NAME)
    assert pattern is not None
    return pattern


def _channel_type(req: Request) -> int:
    chltype = req.integer(K.MQIACH_CHANNEL_TYPE, K.MQCHT_ALL)
    assert chltype is not None
    if chltype not in _IBM_TYPES:
        raise CommandFailedError(
            K.MQRCCF_CHANNEL_TYPE_ERROR, f"ChannelType {chltype} is not a channel type", K.MQIACH_CHANNEL_TYPE
        )
    return chltype


def _channels(server: Any, pattern: str, chltype: int) -> list[Any]:
    found = [
        d
        for d in server._admin("list_objects", CHANNEL)
        if matches_generic(pattern, d.name) and chltype in (K.MQCHT_ALL, d.attrs.get("CHLTYPE"))
    ]
    return sorted(found, key=lambda d: d.name)


def describe_channel(d: Any, wanted: list[int] | None) -> list[Param]:
    """A channel's definition as Inquire Channel's response: ChannelName and ChannelType first (IBM: always
    returned), then the attributes asked for (MQIACF_ALL or none named: all)."""
    keep = None if wanted is None or K.MQIACF_ALL in wanted else set(wanted)
    out: list[Param] = [
        attr_value_to_pcf(K.MQCACH_CHANNEL_NAME, d.name, K.MQ_CHANNEL_NAME_LENGTH),
        MQCFIN(K.MQIACH_CHANNEL_TYPE, int(d.attrs.get("CHLTYPE", 1))),
    ]
    adate, atime = mqsc_date_time(getattr(d, "altered", 0.0))
    fields = [(sel, d.attrs.get(key, _DEFAULTS.get(key, "" if n else 0)), n) for key, sel, n in CHANNEL_ATTRS]
    fields += [
        (C.MQIA_STATISTICS_CHANNEL, _MONITORING[str(d.attrs.get("CHLSTATCHL", "QMGR"))], 0),  # ChannelStatistics
        (C.MQCA_ALTERATION_DATE, adate, K.MQ_CREATION_DATE_LENGTH),
        (C.MQCA_ALTERATION_TIME, atime, K.MQ_CREATION_TIME_LENGTH),
    ]
    out += [attr_value_to_pcf(sel, value, n) for sel, value, n in fields if keep is None or sel in keep]
    return out


def inquire_channel(server: Any, req: Request) -> Reply:
    pattern = _name(req)
    chltype = _channel_type(req)
    wanted = req.int_list(K.MQIACF_CHANNEL_ATTRS)
    server._no_extra(req, filters=True)
    found = _channels(server, pattern, chltype)
    if not found:
        raise CommandFailedError(K.MQRCCF_CHANNEL_NOT_FOUND, f"no channel matches {pattern}", K.MQCACH_CHANNEL_NAME)
    f = req.filters[0] if req.filters else None
    if f is not None and wanted is not None and K.MQIACF_ALL not in wanted:
        wanted = [*wanted, f.Parameter]  # the filtered attribute is returned too, as IBM does
    return [describe_channel(d, wanted) for d in found if f is None or passes_filter(describe_channel(d, None), f)]


def inquire_channel_names(server: Any, req: Request) -> Reply:
    pattern = _name(req)
    chltype = _channel_type(req)
    server._no_extra(req)
    names = [d.name.encode().ljust(K.MQ_CHANNEL_NAME_LENGTH) for d in _channels(server, pattern, chltype)]
    return [[MQCFSL(K.MQCACH_CHANNEL_NAMES, names, 0, K.MQ_CHANNEL_NAME_LENGTH)]]


def _status_fields(row: dict[str, Any], saved: bool) -> list[tuple[int, Any, int]]:
    """A DISPLAY CHSTATUS row's values as (PCF selector, value, string length), in IBM's order."""
    out: list[tuple[int, Any, int]] = []
    luwid = str(row.get("LSTLUWID", ""))[:16].upper() or "0" * 16
    indoubt = K.MQCHIDS_INDOUBT if row.get("INDOUBT") == "YES" else K.MQCHIDS_NOT_INDOUBT
    if saved:  # IBM: what the channel keeps across its runs: the last batch's number and id, in doubt or not
        return [
            (K.MQIACH_LAST_SEQ_NUMBER, int(row.get("CURSEQNO", 0)), 0),
            (K.MQCACH_LAST_LUWID, luwid, K.MQ_LUWID_LENGTH),
            (K.MQIACH_INDOUBT_STATUS, indoubt, 0),
        ]
    out.append((K.MQIACH_CHANNEL_STATUS, _STATES.get(str(row.get("STATUS", "")), C.MQCHS_INACTIVE), 0))
    out.append((K.MQIACH_CURRENT_SEQ_NUMBER, int(row.get("CURSEQNO", 0)), 0))
    out.append((K.MQCACH_LAST_LUWID, luwid, K.MQ_LUWID_LENGTH))
    out.append((K.MQIACH_INDOUBT_STATUS, indoubt, 0))
    out.append((K.MQIACH_MSGS, int(row.get("MSGS", 0)), 0))
    out.append((K.MQIACH_BATCHES, int(row.get("BATCHES", 0)), 0))
    if "LONGRTS" in row:  # a sending channel's retries left (a receiving end has none)
        out.append((K.MQIACH_LONG_RETRIES_LEFT, int(row["LONGRTS"]), 0))
        out.append((K.MQIACH_SHORT_RETRIES_LEFT, int(row["SHORTRTS"]), 0))
    out.append((K.MQCACH_LAST_MSG_DATE, str(row.get("LSTMSGDA", "")), K.MQ_CREATION_DATE_LENGTH))
    out.append((K.MQCACH_LAST_MSG_TIME, str(row.get("LSTMSGTI", "")), K.MQ_CREATION_TIME_LENGTH))
    out.append((K.MQCACH_CHANNEL_START_DATE, str(row.get("CHSTADA", "")), K.MQ_CREATION_DATE_LENGTH))
    out.append((K.MQCACH_CHANNEL_START_TIME, str(row.get("CHSTATI", "")), K.MQ_CREATION_TIME_LENGTH))
    if "MCAUSER" in row:
        out.append((K.MQCACH_MCA_USER_ID, str(row["MCAUSER"]), 64))
    return out


def inquire_channel_status(server: Any, req: Request) -> Reply:
    pattern = _name(req)
    instance = req.integer(K.MQIACH_CHANNEL_INSTANCE_TYPE, K.MQOT_CURRENT_CHANNEL)
    if instance not in (K.MQOT_CURRENT_CHANNEL, K.MQOT_SAVED_CHANNEL):
        raise CommandFailedError(
            K.MQRCCF_CHL_INST_TYPE_ERROR,
            f"ChannelInstanceType {instance} is not MQOT_CURRENT_CHANNEL or MQOT_SAVED_CHANNEL",
            K.MQIACH_CHANNEL_INSTANCE_TYPE,
        )
    wanted = req.int_list(K.MQIACH_CHANNEL_INSTANCE_ATTRS)
    server._no_extra(req, filters=True)
    clients = svrconn_status(server._qm, pattern) if instance == K.MQOT_CURRENT_CHANNEL else []
    answer = channel_command(server._qm, {"op": "DISPLAY", "channel": pattern}, running_only=True)
    if not answer.get("ok") and not clients:
        why = " ".join(answer.get("lines", [])) or "the channel initiator did not answer"
        raise CommandFailedError(K.MQRCCF_NO_CHANNEL_INITIATOR, why)
    rows = [r for r in answer.get("status", []) if matches_generic(pattern, str(r.get("CHANNEL", "")))] + clients
    saved = instance == K.MQOT_SAVED_CHANNEL
    if saved:  # only channels with a batch's record: the sending ones, and receiving ones that ran
        rows = [r for r in rows if int(r.get("CURSEQNO", 0)) or r.get("LSTLUWID")]
    keep = None if wanted is None or K.MQIACF_ALL in wanted else set(wanted)
    f = req.filters[0] if req.filters else None
    if keep is not None and f is not None:
        keep.add(f.Parameter)
    bodies: Reply = []
    for row in sorted(rows, key=lambda r: (str(r.get("CHANNEL", "")), str(r.get("CHLTYPE", "")))):
        # IBM: always returned, whatever ChannelInstanceAttrs asks for
        head: list[Param] = [
            attr_value_to_pcf(K.MQCACH_CHANNEL_NAME, str(row.get("CHANNEL", "")), K.MQ_CHANNEL_NAME_LENGTH),
            attr_value_to_pcf(K.MQCACH_XMIT_Q_NAME, str(row.get("XMITQ", "")), 48),
            attr_value_to_pcf(K.MQCACH_CONNECTION_NAME, str(row.get("CONNAME", "")), 264),
            attr_value_to_pcf(C.MQCA_REMOTE_Q_MGR_NAME, str(row.get("RQMNAME", "")), 48),
            MQCFIN(K.MQIACH_CHANNEL_INSTANCE_TYPE, instance),
            MQCFIN(K.MQIACH_CHANNEL_TYPE, _TYPES.get(str(row.get("CHLTYPE", "")), 0)),
            MQCFIN(
                K.MQIACH_STOP_REQUESTED,
                K.MQCHSR_STOP_REQUESTED if row.get("STATUS") == "STOPPING" else K.MQCHSR_STOP_NOT_REQUESTED,
            ),
        ]
        full = [attr_value_to_pcf(s, v, n) for s, v, n in _status_fields(row, saved)]
        if f is not None and not passes_filter(head + full, f):
            continue
        bodies.append(head + [p for p in full if keep is None or p.Parameter in keep])
    if not bodies:
        raise CommandFailedError(K.MQRCCF_CHL_STATUS_NOT_FOUND, f"no channel status matches {pattern}")
    return bodies


CHANNEL_HANDLERS: dict[int, Callable[[Any, Request], Reply]] = {
    K.MQCMD_INQUIRE_CHANNEL: inquire_channel,
    K.MQCMD_INQUIRE_CHANNEL_NAMES: inquire_channel_names,
    K.MQCMD_INQUIRE_CHANNEL_STATUS: inquire_channel_status,
}
