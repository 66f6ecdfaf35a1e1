"""IBM's accounting and statistics messages: the PCF vocabulary (cmqcfc.h) and a writer for their layout.

References: IBM MQ "Accounting and statistics message reference" (MQI / queue accounting message data, MQI /
queue statistics message data, "Reference notes": the arrays indexed by object type, 13 entries, and by
persistence, [non-persistent, persistent]); cmqcfc.h for the values (MQIAMO_* 701-760, MQIAMO64_* 703 and
745-748, MQCAMO_* 2701-2712, MQGACF_Q_ACCOUNTING_DATA 8010, MQGACF_Q_STATISTICS_DATA 8011,
MQGACF_CHL_STATISTICS_DATA 8012); "Channel statistics message data" for the channel records' parameters; IBM's amqsmon
sample for the names it prints each parameter under.

Theory of operation
-------------------
The engine writes the messages (``engine._statistics``) and ``syncpoint amqsmon`` reads them back with the PCF
parser; both take their numbers and names from here. :func:`pcf_monitoring` packs one message: an MQCFH (Type
MQCFT_STATISTICS or MQCFT_ACCOUNTING, Version 1, CompCode 0, Reason 0, Control MQCFC_LAST) then the
parameters in order, each an MQCFIN, MQCFIN64-list (an ``I64`` value), MQCFIL (a list), MQCFST (a str, blank
padded to a multiple of 4), MQCFBS (bytes) or MQCFGR (a ``Group``), in native byte order as IBM's on the
platform.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field
from typing import Union

# -- message types and commands (cmqcfc.h) ------------------------------------------------------------------
MQCFT_STATISTICS = 21
MQCFT_ACCOUNTING = 22
MQCMD_STATISTICS_MQI = 164
MQCMD_STATISTICS_Q = 165
MQCMD_STATISTICS_CHANNEL = 166
MQCMD_ACCOUNTING_MQI = 167
MQCMD_ACCOUNTING_Q = 168
MQCMD_RESET_Q_MGR = 92
MQIACF_ACTION = 1086
MQACT_COLLECT_STATISTICS = 3
MQDISCONNECT_NORMAL, MQDISCONNECT_IMPLICIT, MQDISCONNECT_Q_MGR = 0, 1, 2

# -- parameters -----------------------------------------------------------------------------------------------
MQIAMO_AVG_BATCH_SIZE = 702
MQIAMO_AVG_Q_TIME = 703  # (MQIAMO64_AVG_Q_TIME: the same number, 64-bit)
MQIAMO_BACKOUTS = 704
MQIAMO_BROWSES = 705
MQIAMO_BROWSE_MAX_BYTES = 706
MQIAMO_BROWSE_MIN_BYTES = 707
MQIAMO_BROWSES_FAILED = 708
MQIAMO_CLOSES = 709
MQIAMO_COMMITS = 710
MQIAMO_COMMITS_FAILED = 711
MQIAMO_CONNS = 712
MQIAMO_CONNS_MAX = 713
MQIAMO_DISCS = 714
MQIAMO_DISC_TYPE = 716
MQIAMO_EXIT_TIME_AVG = 717
MQIAMO_EXIT_TIME_MAX = 718
MQIAMO_EXIT_TIME_MIN = 719
MQIAMO_FULL_BATCHES = 720
MQIAMO_GETS = 722
MQIAMO_GET_MAX_BYTES = 723
MQIAMO_GET_MIN_BYTES = 724
MQIAMO_GETS_FAILED = 725
MQIAMO_INCOMPLETE_BATCHES = 726
MQIAMO_INQS = 727
MQIAMO_MSGS = 728
MQIAMO_NET_TIME_AVG = 729
MQIAMO_NET_TIME_MAX = 730
MQIAMO_NET_TIME_MIN = 731
MQIAMO_OBJECT_COUNT = 732
MQIAMO_OPENS = 733
MQIAMO_PUT1S = 734
MQIAMO_PUTS = 735
MQIAMO_PUT_MAX_BYTES = 736
MQIAMO_PUT_MIN_BYTES = 737
MQIAMO_PUT_RETRIES = 738
MQIAMO_Q_MAX_DEPTH = 739
MQIAMO_Q_MIN_DEPTH = 740
MQIAMO_Q_TIME_AVG = 741  # 64-bit
MQIAMO_Q_TIME_MAX = 742  # 64-bit
MQIAMO_Q_TIME_MIN = 743  # 64-bit
MQIAMO_SETS = 744
MQIAMO64_BROWSE_BYTES = 745
MQIAMO64_BYTES = 746
MQIAMO64_GET_BYTES = 747
MQIAMO64_PUT_BYTES = 748
MQIAMO_CONNS_FAILED = 749
MQIAMO_OPENS_FAILED = 751
MQIAMO_INQS_FAILED = 752
MQIAMO_SETS_FAILED = 753
MQIAMO_PUTS_FAILED = 754
MQIAMO_PUT1S_FAILED = 755
MQIAMO_CLOSES_FAILED = 757
MQIAMO_MSGS_EXPIRED = 758
MQIAMO_MSGS_NOT_QUEUED = 759
MQIAMO_MSGS_PURGED = 760
MQCAMO_CLOSE_DATE = 2701
MQCAMO_CLOSE_TIME = 2702
MQCAMO_CONN_DATE = 2703
MQCAMO_CONN_TIME = 2704
MQCAMO_DISC_DATE = 2705
MQCAMO_DISC_TIME = 2706
MQCAMO_END_DATE = 2707
MQCAMO_END_TIME = 2708
MQCAMO_OPEN_DATE = 2709
MQCAMO_OPEN_TIME = 2710
MQCAMO_START_DATE = 2711
MQCAMO_START_TIME = 2712
MQGACF_Q_ACCOUNTING_DATA = 8010
MQGACF_Q_STATISTICS_DATA = 8011
MQGACF_CHL_STATISTICS_DATA = 8012
MQCA_Q_MGR_NAME = 2015
MQCA_Q_NAME = 2016
MQCA_REMOTE_Q_MGR_NAME = 2017
MQCA_CREATION_DATE = 2004
MQCA_CREATION_TIME = 2005
MQCACF_APPL_NAME = 3024
MQCACF_USER_IDENTIFIER = 3025
MQCACH_CHANNEL_NAME = 3501
MQCACH_CONNECTION_NAME = 3506
MQIA_COMMAND_LEVEL = 31
MQIA_DEFINITION_TYPE = 7
MQIA_Q_TYPE = 20
MQIACH_CHANNEL_TYPE = 1511
MQIACF_PROCESS_ID = 1024
MQIACF_THREAD_ID = 1025
MQIACF_SEQUENCE_NUMBER = 1079
MQBACF_CONNECTION_ID = 7006

OBJECT_TYPES = 13  # the arrays indexed by object type (reference note 1)
MONITORING_QUEUES = {
    MQCFT_STATISTICS: "SYSTEM.ADMIN.STATISTICS.QUEUE",
    MQCFT_ACCOUNTING: "SYSTEM.ADMIN.ACCOUNTING.QUEUE",
}
RECORDS_PER_MESSAGE = 100  # a queue statistics or accounting message holds at most 100 queues' records

# amqsmon's names: the monitoring type of each command, and each parameter's name
MONITORING_TYPES = {
    MQCMD_ACCOUNTING_MQI: "MQIAccounting",
    MQCMD_ACCOUNTING_Q: "QueueAccounting",
    MQCMD_STATISTICS_MQI: "MQIStatistics",
    MQCMD_STATISTICS_CHANNEL: "ChannelStatistics",
    MQCMD_STATISTICS_Q: "QueueStatistics",
}
INTEGER_NAMES = {
    MQIA_COMMAND_LEVEL: "CommandLevel",
    MQIA_DEFINITION_TYPE: "QueueDefinitionType",
    MQIA_Q_TYPE: "QueueType",
    MQIACF_PROCESS_ID: "ApplicationPid",
    MQIACF_SEQUENCE_NUMBER: "SeqNumber",
    MQIACF_THREAD_ID: "ApplicationTid",
    MQIACH_CHANNEL_TYPE: "ChannelType",
    MQIAMO_AVG_BATCH_SIZE: "AverageBatchSize",
    MQIAMO_BACKOUTS: "BackCount",
    MQIAMO_BROWSES_FAILED: "BrowseFailCount",
    MQIAMO_BROWSES: "BrowseCount",
    MQIAMO_BROWSE_MAX_BYTES: "BrowseMaxBytes",
    MQIAMO_BROWSE_MIN_BYTES: "BrowseMinBytes",
    MQIAMO_CLOSES: "CloseCount",
    MQIAMO_CLOSES_FAILED: "CloseFailCount",
    MQIAMO_COMMITS: "CommitCount",
    MQIAMO_COMMITS_FAILED: "CommitFailCount",
    MQIAMO_CONNS: "ConnCount",
    MQIAMO_CONNS_FAILED: "ConnFailCount",
    MQIAMO_CONNS_MAX: "ConnHighwater",
    MQIAMO_DISC_TYPE: "DiscType",
    MQIAMO_DISCS: "DiscCount",
    MQIAMO_EXIT_TIME_AVG: "ExitTimeAvg",
    MQIAMO_EXIT_TIME_MAX: "ExitTimeMax",
    MQIAMO_EXIT_TIME_MIN: "ExitTimeMin",
    MQIAMO_FULL_BATCHES: "FullBatchCount",
    MQIAMO_GETS_FAILED: "GetFailCount",
    MQIAMO_GETS: "GetCount",
    MQIAMO_GET_MAX_BYTES: "GetMaxBytes",
    MQIAMO_GET_MIN_BYTES: "GetMinBytes",
    MQIAMO_INCOMPLETE_BATCHES: "IncmplBatchCount",
    MQIAMO_INQS: "InqCount",
    MQIAMO_INQS_FAILED: "InqFailCount",
    MQIAMO_MSGS: "MsgCount",
    MQIAMO_MSGS_EXPIRED: "ExpiredMsgCount",
    MQIAMO_MSGS_NOT_QUEUED: "NonQueuedMsgCount",
    MQIAMO_MSGS_PURGED: "PurgeCount",
    MQIAMO_NET_TIME_AVG: "NetTimeAvg",
    MQIAMO_NET_TIME_MAX: "NetTimeMax",
    MQIAMO_NET_TIME_MIN: "NetTimeMin",
    MQIAMO_OBJECT_COUNT: "ObjectCount",
    MQIAMO_OPENS: "OpenCount",
    MQIAMO_OPENS_FAILED: "OpenFailCount",
    MQIAMO_PUT1S: "Put1Count",
    MQIAMO_PUT1S_FAILED: "Put1FailCount",
    MQIAMO_PUTS: "PutCount",
    MQIAMO_PUTS_FAILED: "PutFailCount",
    MQIAMO_PUT_MAX_BYTES: "PutMaxBytes",
    MQIAMO_PUT_MIN_BYTES: "PutMinBytes",
    MQIAMO_PUT_RETRIES: "PutRetryCount",
    MQIAMO_Q_MIN_DEPTH: "QMinDepth",
    MQIAMO_Q_MAX_DEPTH: "QMaxDepth",
    MQIAMO_SETS: "SetCount",
    MQIAMO_SETS_FAILED: "SetFailCount",
}
INTEGER64_NAMES = {
    MQIAMO64_BROWSE_BYTES: "BrowseBytes",
    MQIAMO64_BYTES: "TotalBytes",
    MQIAMO64_GET_BYTES: "GetBytes",
    MQIAMO64_PUT_BYTES: "PutBytes",
    MQIAMO_Q_TIME_AVG: "TimeOnQAvg",
    MQIAMO_Q_TIME_MAX: "TimeOnQMax",
    MQIAMO_Q_TIME_MIN: "TimeOnQMin",
    MQIAMO_AVG_Q_TIME: "AverageQueueTime",
}
STRING_NAMES = {
    MQCACF_APPL_NAME: "ApplicationName",
    MQCACF_USER_IDENTIFIER: "UserId",
    MQCACH_CHANNEL_NAME: "ChannelName",
    MQCACH_CONNECTION_NAME: "ConnName",
    MQCAMO_CLOSE_DATE: "CloseDate",
    MQCAMO_CLOSE_TIME: "CloseTime",
    MQCAMO_CONN_DATE: "ConnDate",
    MQCAMO_CONN_TIME: "ConnTime",
    MQCAMO_DISC_DATE: "DiscDate",
    MQCAMO_DISC_TIME: "DiscTime",
    MQCAMO_END_DATE: "IntervalEndDate",
    MQCAMO_END_TIME: "IntervalEndTime",
    MQCAMO_OPEN_DATE: "OpenDate",
    MQCAMO_OPEN_TIME: "OpenTime",
    MQCAMO_START_DATE: "IntervalStartDate",
    MQCAMO_START_TIME: "IntervalStartTime",
    MQCA_CREATION_DATE: "CreateDate",
    MQCA_CREATION_TIME: "CreateTime",
    MQCA_Q_MGR_NAME: "QueueManager",
    MQCA_Q_NAME: "QueueName",
    MQCA_REMOTE_Q_MGR_NAME: "RemoteQmgr",
}
GROUP_NAMES = {
    MQGACF_Q_ACCOUNTING_DATA: "QueueAccounting",
    MQGACF_Q_STATISTICS_DATA: "QueueStatistics",
    MQGACF_CHL_STATISTICS_DATA: "ChannelStatistics",
}
# integer parameters amqsmon shows by name: QueueType, QueueDefinitionType, DiscType, ChannelType (MQCHT_*)
NAMED_VALUES = {
    MQIACH_CHANNEL_TYPE: {1: "Sender", 2: "Server", 3: "Receiver", 4: "Requester", 8: "ClusRcvr", 9: "ClusSdr"},
    MQIA_Q_TYPE: {1: "Local", 2: "Model", 3: "Alias", 6: "Remote", 7: "Cluster"},
    MQIA_DEFINITION_TYPE: {1: "Predefined", 2: "PermanentDynamic", 3: "TemporaryDynamic", 4: "SharedDynamic"},
    MQIAMO_DISC_TYPE: {MQDISCONNECT_NORMAL: "Normal", MQDISCONNECT_IMPLICIT: "Implicit", MQDISCONNECT_Q_MGR: "QMgr"},
}

# -- the writer ---------------------------------------------------------------------------------------------
_CFH = struct.Struct("=9i")
_FIXED = struct.Struct("=4i")
_CFST = struct.Struct("=5i")
MQCFT_INTEGER, MQCFT_STRING, MQCFT_INTEGER_LIST, MQCFT_BYTE_STRING = 3, 4, 5, 9
MQCFT_GROUP, MQCFT_INTEGER64_LIST = 20, 25


class I64(list[int]):
    """A list of 64-bit integers (an MQCFIL64): the byte counts and times IBM gives as 64-bit."""


@dataclass
class Group:
    """An MQCFGR: a parameter and its member parameters."""

    parameter: int
    members: list[tuple[int, Value]] = field(default_factory=list)


Value = Union[int, str, bytes, list[int], I64, Group]  # noqa: UP007


def _pack(parameter: int, value: Value) -> tuple[bytes, int]:
    """One parameter's bytes, and how many structures it counts as in its parent (a group counts as one)."""
    if isinstance(value, Group):
        body = b"".join(_pack(p, v)[0] for p, v in value.members)
        return _FIXED.pack(MQCFT_GROUP, 16, value.parameter, len(value.members)) + body, 1
    if isinstance(value, I64):
        n = len(value)
        return _FIXED.pack(MQCFT_INTEGER64_LIST, 16 + 8 * n, parameter, n) + struct.pack(f"={n}q", *value), 1
    if isinstance(value, list):
        n = len(value)
        return _FIXED.pack(MQCFT_INTEGER_LIST, 16 + 4 * n, parameter, n) + struct.pack(f"={n}i", *value), 1
    if isinstance(value, str):
        raw = value.encode()
        raw += b" " * (-len(raw) % 4)
        return _CFST.pack(MQCFT_STRING, 20 + len(raw), parameter, 1208, len(raw)) + raw, 1
    if isinstance(value, bytes):
        padded = value + b"\0" * (-len(value) % 4)
        return _FIXED.pack(MQCFT_BYTE_STRING, 16 + len(padded), parameter, len(value)) + padded, 1
    return _FIXED.pack(MQCFT_INTEGER, 16, parameter, int(value)), 1


def pcf_monitoring(msg_type: int, command: int, parameters: list[tuple[int, Value]]) -> bytes:
    """An accounting or statistics message's PCF (see the module doc)."""
    body = b"".join(_pack(p, v)[0] for p, v in parameters)
    return _CFH.pack(msg_type, 36, 1, command, 1, 1, 0, 0, len(parameters)) + body


def padded_string(value: str, length: int) -> str:
    """A fixed-length MQCHAR field: ``value`` blank-padded (or cut) to ``length`` characters."""
    return value[:length].ljust(length)
