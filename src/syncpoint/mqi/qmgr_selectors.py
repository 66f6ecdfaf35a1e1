"""MQINQ selectors of the queue-manager attributes syncpoint keeps without acting on them (mqi.objects' kept
attributes: events, accounting, statistics, monitoring, clusters, TLS, publish/subscribe, media images …).

References: IBM's "Attributes for the queue manager" (MQINQ) and cmqc.h for the selectors and values
(MQIA_AUTHORITY_EVENT 47, MQEVR_DISABLED 0 …; constants.md).

Theory of operation
-------------------
DEFINE / ALTER QMGR keep such an attribute as the word or number typed (``AUTHOREV(ENABLED)`` is kept as
``"ENABLED"``); MQINQ answers with IBM's value for it. :data:`KEPT_QMGR_SELECTORS` maps each selector to the
engine's key and the words' values (None: an integer or character attribute kept as it is). A word the table
does not know (a number typed instead of a word) is answered as that number, or MQIAV_UNDEFINED (-1) when it is
not one. CONNAUTH and CHLAUTH are not here: the queue manager acts on them (mqi.objects).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from . import constants as C

MQIAV_UNDEFINED = -1

_EVENT = {"DISABLED": C.MQEVR_DISABLED, "ENABLED": C.MQEVR_ENABLED, "EXCEPTION": 2, "NODISPLAY": 3}
_ENABLED = {"DISABLED": 0, "ENABLED": 1}
_MON = {
    "OFF": C.MQMON_OFF,
    "ON": C.MQMON_ON,
    "NONE": C.MQMON_NONE,
    "QMGR": C.MQMON_Q_MGR,
    "LOW": C.MQMON_LOW,
    "MEDIUM": C.MQMON_MEDIUM,
    "HIGH": C.MQMON_HIGH,
    "DISABLED": 0,
    "ENABLED": 1,
}
_RECORDING = {"DISABLED": 0, "QUEUE": 1, "MSG": 2}  # MQRECORDING_*
_CAPABILITY = {"DISABLED": 0, "ENABLED": 1, "NO": 0, "YES": 1}  # MQCAP_NOT_SUPPORTED / _SUPPORTED
_UNDELIVERED = {"NORMAL": 0, "SAFE": 1, "DISCARD": 2, "KEEP": 3}  # MQUNDELIVERED_*
_SERVICE = {"QMGR": 0, "MANUAL": 2}  # MQSVC_CONTROL_*
_IMAGE_RECOVER = {"NO": 0, "YES": 1, "QMGR": 2}  # MQIMGRCOV_*

KEPT_QMGR_SELECTORS: dict[int, tuple[str, Mapping[str, int] | None]] = {
    C.MQIA_ACCOUNTING_CONN_OVERRIDE: ("ACCTCONO", _ENABLED),
    C.MQIA_ACCOUNTING_INTERVAL: ("ACCTINT", None),
    C.MQIA_ACCOUNTING_MQI: ("ACCTMQI", _MON),
    C.MQIA_ACCOUNTING_Q: ("QMACCTQ", _MON),
    C.MQIA_ACTIVITY_RECORDING: ("ACTIVREC", _RECORDING),
    C.MQIA_ACTIVITY_CONN_OVERRIDE: ("ACTVCONO", _ENABLED),
    C.MQIA_ACTIVITY_TRACE: ("ACTVTRC", _MON),
    C.MQIA_ADVANCED_CAPABILITY: ("ADVCAP", _CAPABILITY),
    C.MQIA_AUTHORITY_EVENT: ("AUTHOREV", _EVENT),
    C.MQIA_BRIDGE_EVENT: ("BRIDGEEV", _EVENT),
    C.MQCA_CERT_LABEL: ("CERTLABL", None),
    C.MQIA_CERT_VAL_POLICY: ("CERTVPOL", {"ANY": 0, "RFC5280": 1}),
    C.MQIA_CHANNEL_AUTO_DEF: ("CHAD", _ENABLED),
    C.MQIA_CHANNEL_AUTO_DEF_EVENT: ("CHADEV", _EVENT),
    C.MQCA_CHANNEL_AUTO_DEF_EXIT: ("CHADEXIT", None),
    C.MQIA_CHANNEL_EVENT: ("CHLEV", _EVENT),
    C.MQCA_CLUSTER_WORKLOAD_DATA: ("CLWLDATA", None),
    C.MQCA_CLUSTER_WORKLOAD_EXIT: ("CLWLEXIT", None),
    C.MQIA_CLUSTER_WORKLOAD_LENGTH: ("CLWLLEN", None),
    C.MQIA_CLWL_MRU_CHANNELS: ("CLWLMRUC", None),
    C.MQIA_CLWL_USEQ: ("QMCLWLUSEQ", {"LOCAL": 0, "ANY": 1}),
    C.MQIA_COMMAND_EVENT: ("CMDEV", _EVENT),
    C.MQIA_CONFIGURATION_EVENT: ("CONFIGEV", _EVENT),
    C.MQCA_CUSTOM: ("QMCUSTOM", None),
    C.MQIA_DEF_CLUSTER_XMIT_Q_TYPE: ("DEFCLXQ", {"SCTQ": 0, "CHANNEL": 1}),
    C.MQIA_MEDIA_IMAGE_INTERVAL: ("IMGINTVL", {"OFF": 0}),
    C.MQIA_MEDIA_IMAGE_LOG_LENGTH: ("IMGLOGLN", {"OFF": 0}),
    C.MQIA_MEDIA_IMAGE_RECOVER_OBJ: ("IMGRCOVO", _IMAGE_RECOVER),
    C.MQIA_MEDIA_IMAGE_RECOVER_Q: ("QMIMGRCOVQ", _IMAGE_RECOVER),
    C.MQIA_MEDIA_IMAGE_SCHEDULING: ("IMGSCHED", {"MANUAL": 0, "AUTO": 1}),
    C.MQIA_INHIBIT_EVENT: ("INHIBTEV", _EVENT),
    C.MQIA_IP_ADDRESS_VERSION: ("IPADDRV", {"IPV4": 0, "IPV6": 1}),
    C.MQIA_LOCAL_EVENT: ("LOCALEV", _EVENT),
    C.MQIA_LOGGER_EVENT: ("LOGGEREV", _EVENT),
    C.MQIA_MSG_MARK_BROWSE_INTERVAL: ("MARKINT", {"NOLIMIT": -1}),
    C.MQIA_MAX_PROPERTIES_LENGTH: ("MAXPROPL", {"NOLIMIT": -1}),  # MQPROP_UNRESTRICTED_LENGTH
    C.MQIA_MONITORING_AUTO_CLUSSDR: ("MONACLS", _MON),
    C.MQIA_MONITORING_CHANNEL: ("MONCHL", _MON),
    C.MQIA_MONITORING_Q: ("QMMONQ", _MON),
    C.MQCA_PARENT: ("PARENT", None),
    C.MQIA_PERFORMANCE_EVENT: ("PERFMEV", _EVENT),
    C.MQIA_PUBSUB_CLUSTER: ("PSCLUS", _ENABLED),
    C.MQIA_PUBSUB_MODE: ("PSMODE", {"DISABLED": 0, "COMPAT": 1, "ENABLED": 2}),
    C.MQIA_PUBSUB_NP_MSG: ("PSNPMSG", _UNDELIVERED),
    C.MQIA_PUBSUB_NP_RESP: ("PSNPRES", _UNDELIVERED),
    C.MQIA_PUBSUB_MAXMSG_RETRY_COUNT: ("PSRTYCNT", None),
    C.MQIA_PUBSUB_SYNC_PT: ("PSSYNCPT", {"YES": 0, "IFPER": 1}),
    C.MQIA_REMOTE_EVENT: ("REMOTEEV", _EVENT),
    C.MQCA_REPOSITORY_NAME: ("REPOS", None),
    C.MQCA_REPOSITORY_NAMELIST: ("REPOSNL", None),
    C.MQIA_REVERSE_DNS_LOOKUP: ("REVDNS", {"ENABLED": 0, "DISABLED": 1}),
    C.MQIA_TRACE_ROUTE_RECORDING: ("ROUTEREC", _RECORDING),
    C.MQIA_CHINIT_CONTROL: ("SCHINIT", _SERVICE),
    C.MQIA_CMD_SERVER_CONTROL: ("SCMDSERV", _SERVICE),
    C.MQIA_PROT_POLICY_CAPABILITY: ("SPLCAP", _CAPABILITY),
    C.MQCA_SSL_CRL_NAMELIST: ("SSLCRLNL", None),
    C.MQCA_SSL_CRYPTO_HARDWARE: ("SSLCRYP", None),
    C.MQIA_SSL_EVENT: ("SSLEV", _EVENT),
    C.MQIA_SSL_FIPS_REQUIRED: ("SSLFIPS", {"NO": 0, "YES": 1}),
    C.MQCA_SSL_KEY_REPOSITORY: ("SSLKEYR", None),
    C.MQIA_SSL_RESET_COUNT: ("SSLRKEYC", None),
    C.MQIA_STATISTICS_AUTO_CLUSSDR: ("STATACLS", _MON),
    C.MQIA_STATISTICS_CHANNEL: ("STATCHL", _MON),
    C.MQIA_STATISTICS_INTERVAL: ("STATINT", None),
    C.MQIA_STATISTICS_MQI: ("STATMQI", _MON),
    C.MQIA_STATISTICS_Q: ("QMSTATQ", _MON),
    C.MQIA_START_STOP_EVENT: ("STRSTPEV", _EVENT),
    C.MQIA_SUITE_B_STRENGTH: ("SUITEB", {"NONE": 1, "128_BIT": 2, "192_BIT": 4}),  # MQ_SUITE_B_*
    C.MQIA_TREE_LIFE_TIME: ("TREELIFE", None),
}


# cmqc.h's lengths of those character attributes (MQ_SSL_KEY_REPOSITORY_LENGTH 256 …) and of the queue manager's
# identifier; the others are 48 (mqi.objects.char_attr_length)
KEPT_QMGR_CHAR_LENGTHS = {
    C.MQCA_CERT_LABEL: 64,
    C.MQCA_CHANNEL_AUTO_DEF_EXIT: 128,
    C.MQCA_CLUSTER_WORKLOAD_DATA: 32,
    C.MQCA_CLUSTER_WORKLOAD_EXIT: 128,
    C.MQCA_CUSTOM: 128,
    C.MQCA_SSL_CRYPTO_HARDWARE: 256,
    C.MQCA_SSL_KEY_REPOSITORY: 256,
    C.MQCA_Q_MGR_IDENTIFIER: 48,
}


def kept_qmgr_value(attrs: Mapping[str, Any], selector: int) -> Any:
    """The MQINQ value of a kept queue-manager attribute (None when ``selector`` is not one of them, or the
    queue manager does not keep that attribute)."""
    entry = KEPT_QMGR_SELECTORS.get(selector)
    if entry is None or entry[0] not in attrs:
        return None
    key, words = entry
    value = attrs[key]
    if C.MQCA_FIRST <= selector <= C.MQCA_LAST:
        return str(value)
    if isinstance(value, int):
        return value
    text = str(value).strip().upper()
    if words is not None and text in words:
        return words[text]
    try:
        return int(text)
    except ValueError:
        return MQIAV_UNDEFINED
