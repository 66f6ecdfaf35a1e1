"""syncpoint.mqi.constants against IBM's values; reason-code names; MQMIError.

The values below are transcribed from the project's reference table constants.md
(shared/reference/constants.md, itself taken from IBM's cmqc.h for Linux x86-64). They are data in this file
on purpose: the tests must not read ../shared at run time.
"""

from __future__ import annotations

import pickle

import pytest

from syncpoint.mqi import MQMIError, completion_name, lookup, reason_name
from syncpoint.mqi import constants as C

# Every row of constants.md, section by section (first token of the value; "(pymqi: …)" notes dropped).
CONSTANTS_MD: dict[str, int | bytes] = {
    # Reason codes named in the specification (MQRC_*)
    "MQRC_NO_MSG_AVAILABLE": 2033,
    "MQRC_EXPIRY_ERROR": 2013,
    "MQRC_SECOND_MARK_NOT_ALLOWED": 2062,
    "MQRC_OPTION_ENVIRONMENT_ERROR": 2274,
    "MQRC_NO_MSG_UNDER_CURSOR": 2034,
    "MQRC_BACKED_OUT": 2003,
    "MQRC_Q_FULL": 2053,
    "MQRC_GET_INHIBITED": 2016,
    "MQRC_PUT_INHIBITED": 2051,
    "MQRC_UNKNOWN_OBJECT_NAME": 2085,
    "MQRC_OBJECT_IN_USE": 2042,
    "MQRC_TRUNCATED_MSG_FAILED": 2080,
    "MQRC_MSG_TOO_BIG_FOR_Q": 2030,
    "MQRC_SYNCPOINT_LIMIT_REACHED": 2024,
    # Other reason codes
    "MQRC_NONE": 0,
    "MQRC_TRUNCATED_MSG_ACCEPTED": 2079,
    "MQRC_TRUNCATED": 2120,
    "MQRC_MSG_TOO_BIG_FOR_Q_MGR": 2031,
    "MQRC_SYNCPOINT_NOT_AVAILABLE": 2072,
    "MQRC_OPTIONS_ERROR": 2046,
    "MQRC_GMO_ERROR": 2186,
    "MQRC_MD_ERROR": 2026,
    "MQRC_OD_ERROR": 2044,
    "MQRC_PMO_ERROR": 2173,
    "MQRC_HOBJ_ERROR": 2019,
    "MQRC_HCONN_ERROR": 2018,
    "MQRC_NOT_OPEN_FOR_INPUT": 2037,
    "MQRC_NOT_OPEN_FOR_OUTPUT": 2039,
    "MQRC_NOT_OPEN_FOR_BROWSE": 2036,
    "MQRC_NOT_OPEN_FOR_INQUIRE": 2038,
    "MQRC_NOT_OPEN_FOR_SET": 2040,
    "MQRC_NOT_AUTHORIZED": 2035,
    "MQRC_Q_MGR_NAME_ERROR": 2058,
    "MQRC_Q_MGR_NOT_AVAILABLE": 2059,
    "MQRC_CONNECTION_BROKEN": 2009,
    "MQRC_ALREADY_CONNECTED": 2002,
    "MQRC_Q_MGR_QUIESCING": 2161,
    "MQRC_Q_MGR_STOPPING": 2162,
    "MQRC_CONNECTION_QUIESCING": 2202,
    "MQRC_CONNECTION_STOPPING": 2203,
    "MQRC_BUFFER_LENGTH_ERROR": 2005,
    "MQRC_DATA_LENGTH_ERROR": 2010,
    "MQRC_PRIORITY_ERROR": 2050,
    "MQRC_PRIORITY_EXCEEDS_MAXIMUM": 2049,
    "MQRC_PERSISTENCE_ERROR": 2047,
    "MQRC_PERSISTENT_NOT_ALLOWED": 2048,
    "MQRC_WAIT_INTERVAL_ERROR": 2090,
    "MQRC_MATCH_OPTIONS_ERROR": 2247,
    "MQRC_Q_DELETED": 2052,
    "MQRC_Q_NOT_EMPTY": 2055,
    "MQRC_Q_TYPE_ERROR": 2057,
    "MQRC_OBJECT_TYPE_ERROR": 2043,
    "MQRC_SELECTOR_ERROR": 2067,
    "MQRC_SELECTOR_COUNT_ERROR": 2065,
    "MQRC_INT_ATTR_COUNT_ERROR": 2021,
    "MQRC_CHAR_ATTR_LENGTH_ERROR": 2006,
    "MQRC_CHAR_ATTRS_TOO_SHORT": 2008,
    "MQRC_INT_ATTRS_ARRAY_ERROR": 2023,
    "MQRC_SELECTOR_NOT_FOR_TYPE": 2068,
    "MQRC_TRIGGER_CONTROL_ERROR": 2075,
    "MQRC_TRIGGER_DEPTH_ERROR": 2076,
    "MQRC_TRIGGER_MSG_PRIORITY_ERR": 2077,
    "MQRC_TRIGGER_TYPE_ERROR": 2078,
    "MQRC_UNKNOWN_REMOTE_Q_MGR": 2087,
    "MQRC_UNKNOWN_ALIAS_BASE_Q": 2082,
    "MQRC_ALIAS_BASE_Q_TYPE_ERROR": 2001,
    "MQRC_DYNAMIC_Q_NAME_ERROR": 2011,
    "MQRC_OBJECT_ALREADY_EXISTS": 2100,
    "MQRC_OBJECT_DAMAGED": 2101,
    "MQRC_REPORT_OPTIONS_ERROR": 2061,
    "MQRC_FEEDBACK_ERROR": 2014,
    "MQRC_MSG_TYPE_ERROR": 2029,
    "MQRC_FORMAT_ERROR": 2110,
    "MQRC_NOT_CONVERTED": 2119,
    "MQRC_CONVERTED_MSG_TOO_BIG": 2120,
    "MQRC_BACKOUT_THRESHOLD_REACHED": 2362,
    "MQRC_PUT_NOT_RETAINED": 2479,
    "MQRC_INCOMPLETE_GROUP": 2241,
    "MQRC_INCOMPLETE_MSG": 2242,
    "MQRC_INCONSISTENT_UOW": 2245,
    "MQRC_UOW_IN_PROGRESS": 2128,
    "MQRC_UOW_NOT_AVAILABLE": 2255,
    "MQRC_CALL_IN_PROGRESS": 2219,
    "MQRC_UNEXPECTED_ERROR": 2195,
    "MQRC_STORAGE_NOT_AVAILABLE": 2071,
    "MQRC_RESOURCE_PROBLEM": 2102,
    "MQRC_SIGNAL_OUTSTANDING": 2069,
    "MQRC_SIGNAL1_ERROR": 2099,
    "MQRC_SIGNAL_REQUEST_ACCEPTED": 2070,
    "MQRC_MSG_ID_ERROR": 2206,
    "MQRC_CORREL_ID_ERROR": 2207,
    "MQRC_DH_ERROR": 2135,
    "MQRC_DLH_ERROR": 2141,
    "MQRC_XQH_ERROR": 2260,
    "MQRC_TMC_ERROR": 2191,
    "MQRC_TM_ERROR": 2265,
    "MQRC_CONTEXT_HANDLE_ERROR": 2097,
    "MQRC_OPTION_NOT_VALID_FOR_TYPE": 2045,
    "MQRC_CLUSTER_RESOLUTION_ERROR": 2189,
    "MQRC_PAGESET_FULL": 2192,
    "MQRC_MSG_MARKED_BROWSE_CO_OP": 2200,
    "MQRC_HANDLE_IN_USE_FOR_UOW": 2353,
    "MQRC_MSG_NOT_MATCHED": 2363,
    "MQRC_CMD_SERVER_NOT_AVAILABLE": 2322,
    # Completion codes
    "MQCC_OK": 0,
    "MQCC_WARNING": 1,
    "MQCC_FAILED": 2,
    "MQCC_UNKNOWN": -1,
    # MQGMO_* get-message options
    "MQGMO_STRUC_ID": b"GMO ",
    "MQGMO_VERSION_1": 1,
    "MQGMO_VERSION_2": 2,
    "MQGMO_VERSION_3": 3,
    "MQGMO_VERSION_4": 4,
    "MQGMO_CURRENT_VERSION": 4,
    "MQGMO_LENGTH_1": 72,
    "MQGMO_LENGTH_2": 80,
    "MQGMO_LENGTH_3": 100,
    "MQGMO_LENGTH_4": 112,
    "MQGMO_CURRENT_LENGTH": 112,
    "MQGMO_NONE": 0,
    "MQGMO_NO_WAIT": 0,
    "MQGMO_PROPERTIES_AS_Q_DEF": 0,
    "MQGMO_WAIT": 1,
    "MQGMO_SYNCPOINT": 2,
    "MQGMO_NO_SYNCPOINT": 4,
    "MQGMO_SET_SIGNAL": 8,
    "MQGMO_BROWSE_FIRST": 16,
    "MQGMO_BROWSE_NEXT": 32,
    "MQGMO_ACCEPT_TRUNCATED_MSG": 64,
    "MQGMO_MARK_SKIP_BACKOUT": 128,
    "MQGMO_MSG_UNDER_CURSOR": 256,
    "MQGMO_LOCK": 512,
    "MQGMO_UNLOCK": 1024,
    "MQGMO_BROWSE_MSG_UNDER_CURSOR": 2048,
    "MQGMO_SYNCPOINT_IF_PERSISTENT": 4096,
    "MQGMO_FAIL_IF_QUIESCING": 8192,
    "MQGMO_CONVERT": 16384,
    "MQGMO_LOGICAL_ORDER": 32768,
    "MQGMO_COMPLETE_MSG": 65536,
    "MQGMO_ALL_MSGS_AVAILABLE": 131072,
    "MQGMO_ALL_SEGMENTS_AVAILABLE": 262144,
    "MQGMO_MARK_BROWSE_HANDLE": 1048576,
    "MQGMO_MARK_BROWSE_CO_OP": 2097152,
    "MQGMO_UNMARK_BROWSE_CO_OP": 4194304,
    "MQGMO_UNMARK_BROWSE_HANDLE": 8388608,
    "MQGMO_UNMARKED_BROWSE_MSG": 16777216,
    "MQGMO_BROWSE_HANDLE": 17825808,
    "MQGMO_BROWSE_CO_OP": 18874384,
    "MQGMO_PROPERTIES_FORCE_MQRFH2": 33554432,
    "MQGMO_NO_PROPERTIES": 67108864,
    "MQGMO_PROPERTIES_IN_HANDLE": 134217728,
    "MQGMO_PROPERTIES_COMPATIBILITY": 268435456,
    # MQMO_* match options
    "MQMO_NONE": 0,
    "MQMO_MATCH_MSG_ID": 1,
    "MQMO_MATCH_CORREL_ID": 2,
    "MQMO_MATCH_GROUP_ID": 4,
    "MQMO_MATCH_MSG_SEQ_NUMBER": 8,
    "MQMO_MATCH_OFFSET": 16,
    "MQMO_MATCH_MSG_TOKEN": 32,
    # MQOO_* open options
    "MQOO_BIND_AS_Q_DEF": 0,
    "MQOO_READ_AHEAD_AS_Q_DEF": 0,
    "MQOO_INPUT_AS_Q_DEF": 1,
    "MQOO_INPUT_SHARED": 2,
    "MQOO_INPUT_EXCLUSIVE": 4,
    "MQOO_BROWSE": 8,
    "MQOO_OUTPUT": 16,
    "MQOO_INQUIRE": 32,
    "MQOO_SET": 64,
    "MQOO_SAVE_ALL_CONTEXT": 128,
    "MQOO_PASS_IDENTITY_CONTEXT": 256,
    "MQOO_PASS_ALL_CONTEXT": 512,
    "MQOO_SET_IDENTITY_CONTEXT": 1024,
    "MQOO_SET_ALL_CONTEXT": 2048,
    "MQOO_ALTERNATE_USER_AUTHORITY": 4096,
    "MQOO_FAIL_IF_QUIESCING": 8192,
    "MQOO_BIND_ON_OPEN": 16384,
    "MQOO_BIND_NOT_FIXED": 32768,
    "MQOO_RESOLVE_NAMES": 65536,
    "MQOO_CO_OP": 131072,
    "MQOO_RESOLVE_LOCAL_Q": 262144,
    "MQOO_RESOLVE_LOCAL_TOPIC": 262144,
    "MQOO_NO_READ_AHEAD": 524288,
    "MQOO_READ_AHEAD": 1048576,
    "MQOO_NO_MULTICAST": 2097152,
    "MQOO_BIND_ON_GROUP": 4194304,
    # MQCO_* close options
    "MQCO_NONE": 0,
    "MQCO_DELETE": 1,
    "MQCO_DELETE_PURGE": 2,
    "MQCO_KEEP_SUB": 4,
    "MQCO_REMOVE_SUB": 8,
    "MQCO_QUIESCE": 32,
    # MQPMO_* put-message options
    "MQPMO_STRUC_ID": b"PMO ",
    "MQPMO_VERSION_1": 1,
    "MQPMO_VERSION_2": 2,
    "MQPMO_VERSION_3": 3,
    "MQPMO_CURRENT_VERSION": 3,
    "MQPMO_LENGTH_1": 128,
    "MQPMO_LENGTH_2": 160,
    "MQPMO_LENGTH_3": 184,
    "MQPMO_CURRENT_LENGTH": 184,
    "MQPMO_NONE": 0,
    "MQPMO_RESPONSE_AS_Q_DEF": 0,
    "MQPMO_RESPONSE_AS_TOPIC_DEF": 0,
    "MQPMO_SYNCPOINT": 2,
    "MQPMO_NO_SYNCPOINT": 4,
    "MQPMO_DEFAULT_CONTEXT": 32,
    "MQPMO_NEW_MSG_ID": 64,
    "MQPMO_NEW_CORREL_ID": 128,
    "MQPMO_PASS_IDENTITY_CONTEXT": 256,
    "MQPMO_PASS_ALL_CONTEXT": 512,
    "MQPMO_SET_IDENTITY_CONTEXT": 1024,
    "MQPMO_SET_ALL_CONTEXT": 2048,
    "MQPMO_ALTERNATE_USER_AUTHORITY": 4096,
    "MQPMO_FAIL_IF_QUIESCING": 8192,
    "MQPMO_NO_CONTEXT": 16384,
    "MQPMO_LOGICAL_ORDER": 32768,
    "MQPMO_ASYNC_RESPONSE": 65536,
    "MQPMO_SYNC_RESPONSE": 131072,
    "MQPMO_RESOLVE_LOCAL_Q": 262144,
    "MQPMO_WARN_IF_NO_SUBS_MATCHED": 524288,
    "MQPMO_PUB_OPTIONS_MASK": 2097152,
    "MQPMO_RETAIN": 2097152,
    "MQPMO_MD_FOR_OUTPUT_ONLY": 8388608,
    "MQPMO_SCOPE_QMGR": 67108864,
    "MQPMO_SUPPRESS_REPLYTO": 134217728,
    "MQPMO_NOT_OWN_SUBS": 268435456,
    # MQRO_* report options
    "MQRO_COPY_MSG_ID_TO_CORREL_ID": 0,
    "MQRO_DEAD_LETTER_Q": 0,
    "MQRO_NEW_MSG_ID": 0,
    "MQRO_NONE": 0,
    "MQRO_PAN": 1,
    "MQRO_NAN": 2,
    "MQRO_ACTIVITY": 4,
    "MQRO_PASS_CORREL_ID": 64,
    "MQRO_PASS_MSG_ID": 128,
    "MQRO_COA": 256,
    "MQRO_COA_WITH_DATA": 768,
    "MQRO_COA_WITH_FULL_DATA": 1792,
    "MQRO_COD": 2048,
    "MQRO_COD_WITH_DATA": 6144,
    "MQRO_COD_WITH_FULL_DATA": 14336,
    "MQRO_PASS_DISCARD_AND_EXPIRY": 16384,
    "MQRO_ACCEPT_UNSUP_IF_XMIT_MASK": 261888,
    "MQRO_EXPIRATION": 2097152,
    "MQRO_EXPIRATION_WITH_DATA": 6291456,
    "MQRO_EXPIRATION_WITH_FULL_DATA": 14680064,
    "MQRO_EXCEPTION": 16777216,
    "MQRO_EXCEPTION_WITH_DATA": 50331648,
    "MQRO_EXCEPTION_WITH_FULL_DATA": 117440512,
    "MQRO_DISCARD_MSG": 134217728,
    "MQRO_REJECT_UNSUP_MASK": 270270464,
    "MQRO_ACCEPT_UNSUP_MASK": 4024434943,
    # MQFB_* feedback, MQEI/MQWI
    "MQEI_UNLIMITED": -1,
    "MQWI_UNLIMITED": -1,
    "MQFB_NONE": 0,
    "MQFB_EXPIRATION": 258,
    "MQFB_QUIT": 256,
    "MQFB_COA": 259,
    "MQFB_COD": 260,
    "MQFB_APPL_FIRST": 65536,
    "MQFB_APPL_LAST": 999999999,
    "MQFB_SYSTEM_FIRST": 1,
    "MQFB_SYSTEM_LAST": 65535,
    "MQFB_BUFFER_OVERFLOW": 294,
    # MQMT/MQPER/MQPRI/MQENC/MQCCSI/MQAT (MQMD defaults)
    "MQMT_SYSTEM_FIRST": 1,
    "MQMT_REQUEST": 1,
    "MQMT_REPLY": 2,
    "MQMT_DATAGRAM": 8,
    "MQMT_REPORT": 4,
    "MQMT_MQE_FIELDS_FROM_MQE": 112,
    "MQMT_MQE_FIELDS": 113,
    "MQMT_SYSTEM_LAST": 65535,
    "MQMT_APPL_FIRST": 65536,
    "MQMT_APPL_LAST": 999999999,
    "MQPER_NOT_PERSISTENT": 0,
    "MQPER_PERSISTENT": 1,
    "MQPER_PERSISTENCE_AS_Q_DEF": 2,
    "MQPER_PERSISTENCE_AS_PARENT": -1,
    "MQPRI_PRIORITY_AS_Q_DEF": -1,
    "MQPRI_PRIORITY_AS_PARENT": -2,
    "MQPRI_PRIORITY_AS_PUBLISHED": -3,
    "MQMI_NONE": b"\0" * 24,
    "MQCI_NONE": b"\0" * 24,
    "MQCI_NEW_SESSION": b"AMQ!NEW_SESSION_CORRELID",
    "MQGI_NONE": b"\0" * 24,
    "MQMTOK_NONE": b"\0" * 16,
    "MQACT_NONE": b"\0" * 32,
    "MQENC_NATIVE": 546,
    "MQCCSI_Q_MGR": 0,
    "MQCCSI_UNDEFINED": 0,
    "MQCCSI_DEFAULT": 0,
    "MQCCSI_INHERIT": -2,
    "MQCCSI_EMBEDDED": -1,
    "MQCCSI_APPL": -3,
    "MQAT_UNKNOWN": -1,
    "MQAT_NO_CONTEXT": 0,
    "MQAT_DEFAULT": 6,
    "MQAT_UNIX": 6,
    "MQAT_QMGR": 7,
    "MQAT_USER_FIRST": 65536,
    "MQAT_USER_LAST": 999999999,
    "MQAT_CICS": 1,
    "MQOL_UNDEFINED": -1,
    "MQMF_NONE": 0,
    "MQRL_UNDEFINED": -1,
    "MQGS_NOT_IN_GROUP": 32,
    "MQSS_NOT_A_SEGMENT": 32,
    "MQSEG_INHIBITED": 32,
    # MQTT/MQTC trigger, queue attribute values
    "MQOT_Q": 1,
    "MQOT_NAMELIST": 2,
    "MQOT_PROCESS": 3,
    "MQOT_STORAGE_CLASS": 4,
    "MQOT_Q_MGR": 5,
    "MQOT_CHANNEL": 6,
    "MQOT_AUTH_INFO": 7,
    "MQOT_TOPIC": 8,
    "MQQT_LOCAL": 1,
    "MQQT_MODEL": 2,
    "MQQT_ALIAS": 3,
    "MQQT_REMOTE": 6,
    "MQQT_CLUSTER": 7,
    "MQQDT_PREDEFINED": 1,
    "MQQDT_PERMANENT_DYNAMIC": 2,
    "MQQDT_TEMPORARY_DYNAMIC": 3,
    "MQQDT_SHARED_DYNAMIC": 4,
    "MQTC_OFF": 0,
    "MQTC_ON": 1,
    "MQTT_NONE": 0,
    "MQTT_FIRST": 1,
    "MQTT_EVERY": 2,
    "MQTT_DEPTH": 3,
    "MQQA_GET_INHIBITED": 1,
    "MQQA_GET_ALLOWED": 0,
    "MQQA_PUT_INHIBITED": 1,
    "MQQA_PUT_ALLOWED": 0,
    "MQQA_SHAREABLE": 1,
    "MQQA_NOT_SHAREABLE": 0,
    "MQQA_BACKOUT_HARDENED": 1,
    "MQQA_BACKOUT_NOT_HARDENED": 0,
    "MQMDS_PRIORITY": 0,
    "MQMDS_FIFO": 1,
    "MQDL_SUPPORTED": 1,
    "MQDL_NOT_SUPPORTED": 0,
    "MQSP_AVAILABLE": 1,
    "MQSP_NOT_AVAILABLE": 0,
    "MQHC_DEF_HCONN": 0,
    "MQHC_UNUSABLE_HCONN": -1,
    "MQHO_UNUSABLE_HOBJ": -1,
    "MQHO_NONE": 0,
    "MQUS_NORMAL": 0,
    "MQUS_TRANSMISSION": 1,
    "MQPL_UNIX": 3,
    # MQFMT_* format names (8 bytes, blank padded)
    "MQFMT_ADMIN": b"MQADMIN ",
    "MQFMT_AMQP": b"MQAMQP  ",
    "MQFMT_CHANNEL_COMPLETED": b"MQCHCOM ",
    "MQFMT_CICS": b"MQCICS  ",
    "MQFMT_COMMAND_1": b"MQCMD1  ",
    "MQFMT_COMMAND_2": b"MQCMD2  ",
    "MQFMT_DEAD_LETTER_HEADER": b"MQDEAD  ",
    "MQFMT_DIST_HEADER": b"MQHDIST ",
    "MQFMT_EMBEDDED_PCF": b"MQHEPCF ",
    "MQFMT_EVENT": b"MQEVENT ",
    "MQFMT_IMS": b"MQIMS   ",
    "MQFMT_IMS_VAR_STRING": b"MQIMSVS ",
    "MQFMT_MD_EXTENSION": b"MQHMDE  ",
    "MQFMT_NONE": b"        ",
    "MQFMT_PCF": b"MQPCF   ",
    "MQFMT_REF_MSG_HEADER": b"MQHREF  ",
    "MQFMT_RF_HEADER": b"MQHRF   ",
    "MQFMT_RF_HEADER_1": b"MQHRF   ",
    "MQFMT_RF_HEADER_2": b"MQHRF2  ",
    "MQFMT_STRING": b"MQSTR   ",
    "MQFMT_TRIGGER": b"MQTRIG  ",
    "MQFMT_WORK_INFO_HEADER": b"MQHWIH  ",
    "MQFMT_XMIT_Q_HEADER": b"MQXMIT  ",
    # Structure ids, versions, lengths
    "MQTM_STRUC_ID": b"TM  ",
    "MQTM_VERSION_1": 1,
    "MQTM_CURRENT_VERSION": 1,
    "MQTMC_STRUC_ID": b"TMC ",
    "MQTMC_VERSION_1": b"   1",
    "MQTMC_VERSION_2": b"   2",
    "MQTMC_CURRENT_VERSION": b"   2",
    "MQDLH_STRUC_ID": b"DLH ",
    "MQDLH_VERSION_1": 1,
    "MQDLH_CURRENT_VERSION": 1,
    "MQDLH_LENGTH_1": 172,
    "MQDLH_CURRENT_LENGTH": 172,
    "MQXQH_STRUC_ID": b"XQH ",
    "MQXQH_VERSION_1": 1,
    "MQXQH_LENGTH_1": 428,
    "MQXQH_CURRENT_LENGTH": 428,
    "MQMD_STRUC_ID": b"MD  ",
    "MQMD_VERSION_1": 1,
    "MQMD_VERSION_2": 2,
    "MQMD_CURRENT_VERSION": 2,
    "MQMD_LENGTH_1": 324,
    "MQMD_LENGTH_2": 364,
    "MQMD_CURRENT_LENGTH": 364,
    "MQMDE_STRUC_ID": b"MDE ",
    "MQMDE_LENGTH_2": 72,
    "MQOD_STRUC_ID": b"OD  ",
    "MQOD_VERSION_1": 1,
    "MQOD_VERSION_2": 2,
    "MQOD_VERSION_3": 3,
    "MQOD_VERSION_4": 4,
    "MQOD_CURRENT_VERSION": 4,
    "MQOD_LENGTH_1": 168,
    "MQOD_LENGTH_2": 208,
    "MQOD_LENGTH_3": 344,
    "MQOD_LENGTH_4": 424,
    "MQOD_CURRENT_LENGTH": 424,
    "MQCNO_STRUC_ID": b"CNO ",
    # Field lengths (MQ_*_LENGTH)
    "MQ_Q_NAME_LENGTH": 48,
    "MQ_Q_MGR_NAME_LENGTH": 48,
    "MQ_PROCESS_NAME_LENGTH": 48,
    "MQ_TRIGGER_DATA_LENGTH": 64,
    "MQ_PROCESS_APPL_ID_LENGTH": 256,
    "MQ_PROCESS_ENV_DATA_LENGTH": 128,
    "MQ_PROCESS_USER_DATA_LENGTH": 128,
    "MQ_FORMAT_LENGTH": 8,
    "MQ_PUT_APPL_NAME_LENGTH": 28,
    "MQ_PUT_DATE_LENGTH": 8,
    "MQ_PUT_TIME_LENGTH": 8,
    "MQ_MSG_ID_LENGTH": 24,
    "MQ_CORREL_ID_LENGTH": 24,
    "MQ_USER_ID_LENGTH": 12,
    "MQ_ACCOUNTING_TOKEN_LENGTH": 32,
    "MQ_APPL_IDENTITY_DATA_LENGTH": 32,
    "MQ_APPL_ORIGIN_DATA_LENGTH": 4,
    "MQ_GROUP_ID_LENGTH": 24,
    "MQ_MSG_TOKEN_LENGTH": 16,
    "MQ_OBJECT_NAME_LENGTH": 48,
    "MQ_CREATION_DATE_LENGTH": 12,
    "MQ_DATE_LENGTH": 12,
    "MQ_TIME_LENGTH": 8,
    "MQ_Q_DESC_LENGTH": 64,
    "MQ_PROCESS_DESC_LENGTH": 64,
    "MQ_VERSION_LENGTH": 8,
    # MQCA_* character attribute selectors (MQINQ/MQSET)
    "MQCA_Q_NAME": 2016,
    "MQCA_Q_MGR_NAME": 2015,
    "MQCA_PROCESS_NAME": 2012,
    "MQCA_INITIATION_Q_NAME": 2008,
    "MQCA_TRIGGER_DATA": 2023,
    "MQCA_APPL_ID": 2001,
    "MQCA_ENV_DATA": 2007,
    "MQCA_USER_DATA": 2021,
    "MQCA_BACKOUT_REQ_Q_NAME": 2019,
    "MQCA_DEAD_LETTER_Q_NAME": 2006,
    "MQCA_Q_DESC": 2013,
    "MQCA_VERSION": 2120,
    "MQCA_BASE_Q_NAME": 2002,
    "MQCA_CREATION_DATE": 2004,
    "MQCA_CREATION_TIME": 2005,
    "MQCA_ALTERATION_DATE": 2027,
    "MQCA_ALTERATION_TIME": 2028,
    "MQCA_COMMAND_INPUT_Q_NAME": 2003,
    "MQCA_FIRST": 2001,
    "MQCA_LAST": 4000,
    # MQIA_* integer attribute selectors (MQINQ/MQSET)
    "MQIA_FIRST": 1,
    "MQIA_LAST": 2000,
    "MQIA_APPL_TYPE": 1,
    "MQIA_BACKOUT_THRESHOLD": 22,
    "MQIA_HARDEN_GET_BACKOUT": 8,
    "MQIA_CURRENT_Q_DEPTH": 3,
    "MQIA_MAX_Q_DEPTH": 15,
    "MQIA_MAX_MSG_LENGTH": 13,
    "MQIA_INHIBIT_GET": 9,
    "MQIA_INHIBIT_PUT": 10,
    "MQIA_TRIGGER_CONTROL": 24,
    "MQIA_TRIGGER_TYPE": 28,
    "MQIA_TRIGGER_DEPTH": 29,
    "MQIA_TRIGGER_MSG_PRIORITY": 26,
    "MQIA_TRIGGER_INTERVAL": 25,
    "MQIA_Q_TYPE": 20,
    "MQIA_DEF_PRIORITY": 6,
    "MQIA_DEF_PERSISTENCE": 5,
    "MQIA_SHAREABILITY": 23,
    "MQIA_DEF_INPUT_OPEN_OPTION": 4,
    "MQIA_MSG_DELIVERY_SEQUENCE": 16,
    "MQIA_OPEN_INPUT_COUNT": 17,
    "MQIA_OPEN_OUTPUT_COUNT": 18,
    "MQIA_MAX_UNCOMMITTED_MSGS": 33,
    "MQIA_SYNCPOINT": 30,
    "MQIA_COMMAND_LEVEL": 31,
    "MQIA_PLATFORM": 32,
    "MQIA_MAX_PRIORITY": 14,
    "MQIA_CODED_CHAR_SET_ID": 2,
    "MQIA_DEFINITION_TYPE": 7,
    "MQIA_USAGE": 12,
    "MQIA_MAX_HANDLES": 11,
    "MQIA_DIST_LISTS": 34,
    "MQIA_Q_DEPTH_HIGH_LIMIT": 40,
    "MQIA_Q_DEPTH_LOW_LIMIT": 41,
    "MQIA_RETENTION_INTERVAL": 21,
    "MQIA_INHIBIT_EVENT": 48,
    "MQIA_PROPERTY_CONTROL": 190,
}

# Values of the hand-added section of constants.py ('# --- Further values used by syncpoint'), as IBM
# publishes them (cmqc.h; IBM's Go bindings for MQ 9.4.5 and pymqi's CMQC.py agree on each).
IBM_FURTHER: dict[str, int] = {
    "MQRC_Q_MGR_NOT_ACTIVE": 2223,
    "MQRC_CONNECTION_ERROR": 2273,
    "MQRC_OBJECT_CHANGED": 2041,
    "MQRC_OBJECT_NAME_ERROR": 2152,
    "MQRC_OBJECT_Q_MGR_NAME_ERROR": 2153,
    "MQRC_FUNCTION_NOT_SUPPORTED": 2298,
    "MQRC_ENVIRONMENT_ERROR": 2012,
    "MQRC_BUFFER_ERROR": 2004,
    "MQRC_INT_ATTR_COUNT_TOO_SMALL": 2022,
    "MQRC_CHAR_ATTRS_ERROR": 2007,
    "MQRC_MAX_CONNS_LIMIT_REACHED": 2025,
    "MQRC_MSG_SEQ_NUMBER_ERROR": 2250,
    "MQRC_GROUP_ID_ERROR": 2258,
    "MQRC_NAME_NOT_VALID_FOR_TYPE": 2194,
    "MQRC_DEF_XMIT_Q_TYPE_ERROR": 2198,
    "MQRC_UNKNOWN_XMIT_Q": 2196,
    "MQRC_SECURITY_ERROR": 2063,
    "MQRC_DATA_SET_NOT_AVAILABLE": 2561,  # was 2567 (MQRC_MULTICAST_INTERNAL_ERROR)
    "MQRC_NO_EXTERNAL_PARTICIPANTS": 2121,
    "MQRC_PARTICIPANT_NOT_AVAILABLE": 2122,
    "MQRC_PMO_RECORD_FLAGS_ERROR": 2158,
    "MQRC_PUT_MSG_RECORDS_ERROR": 2159,  # was 2158
    "MQRC_RECS_PRESENT_ERROR": 2154,
    "MQRC_HCONN_ASYNC_ACTIVE": 2500,
    "MQRC_PROPERTY_NOT_AVAILABLE": 2471,
    "MQRC_HMSG_ERROR": 2460,
    "MQRC_CBD_ERROR": 2444,  # was misnamed MQRC_CALLBACK_ERROR
    "MQRC_OBJECT_STRING_ERROR": 2441,
    "MQRC_SUB_NAME_ERROR": 2440,
    "MQRC_STORAGE_MEDIUM_FULL": 2192,
    "MQRC_Q_SPACE_NOT_AVAILABLE": 2056,
    "MQRC_MISSING_REPLY_TO_Q": 2027,
    "MQRC_HANDLE_NOT_AVAILABLE": 2017,
    "MQRC_NOT_CONVERTED": 2119,
    "MQRC_APPL_FIRST": 900,
    "MQRC_APPL_LAST": 999,
    "MQFB_CHANNEL_COMPLETED": 262,
    "MQFB_CHANNEL_FAIL_RETRY": 263,
    "MQFB_CHANNEL_FAIL": 264,
    "MQFB_APPL_CANNOT_BE_STARTED": 265,
    "MQFB_TM_ERROR": 266,
    "MQFB_APPL_TYPE_ERROR": 267,
    "MQFB_STOPPED_BY_MSG_EXIT": 268,
    "MQFB_ACTIVITY": 269,
    "MQFB_XMIT_Q_MSG_ERROR": 271,
    "MQFB_PAN": 275,
    "MQFB_NAN": 276,
    "MQFB_STOPPED_BY_CHAD_EXIT": 277,
    "MQFB_STOPPED_BY_PUBSUB_EXIT": 279,
    "MQFB_NOT_A_REPOSITORY_MSG": 280,
    "MQFB_BIND_OPEN_CLUSRCVR_DEL": 281,
    "MQFB_MAX_ACTIVITIES": 282,
    "MQFB_NOT_FORWARDED": 283,
    "MQFB_NOT_DELIVERED": 284,
    "MQFB_UNSUPPORTED_FORWARDING": 285,
    "MQFB_UNSUPPORTED_DELIVERY": 286,
    "MQFB_DATA_LENGTH_ZERO": 291,
    "MQFB_DATA_LENGTH_NEGATIVE": 292,
    "MQFB_DATA_LENGTH_TOO_BIG": 293,
    "MQFB_LENGTH_OFF_BY_ONE": 295,
    "MQFB_IIH_ERROR": 296,
    "MQFB_NOT_AUTHORIZED_FOR_IMS": 298,
    "MQFB_DATA_LENGTH_TOO_SHORT": 299,
    "MQFB_IMS_ERROR": 300,
    "MQFB_IMS_FIRST": 301,
    "MQFB_IMS_LAST": 399,
    "MQFB_CICS_INTERNAL_ERROR": 401,
    "MQMF_SEGMENTATION_ALLOWED": 1,
    "MQMF_SEGMENT": 2,
    "MQMF_LAST_SEGMENT": 4,
    "MQMF_MSG_IN_GROUP": 8,
    "MQMF_LAST_MSG_IN_GROUP": 16,
    "MQMF_REJECT_UNSUP_MASK": 0x00000FFF,
    "MQMF_ACCEPT_UNSUP_MASK": -1048576,  # 0xFFF00000 as an MQLONG
    "MQMF_ACCEPT_UNSUP_IF_XMIT_MASK": 0x000FF000,
    "MQGS_MSG_IN_GROUP": ord("G"),
    "MQGS_LAST_MSG_IN_GROUP": ord("L"),
    "MQSS_SEGMENT": ord("S"),
    "MQSS_LAST_SEGMENT": ord("L"),
    "MQSEG_ALLOWED": ord("A"),
    "MQCNO_FASTPATH_BINDING": 1,
    "MQCNO_HANDLE_SHARE_NONE": 32,
    "MQCNO_SHARED_BINDING": 256,
    "MQCNO_ISOLATED_BINDING": 512,
    "MQCNO_LOCAL_BINDING": 1024,
    "MQCNO_CLIENT_BINDING": 2048,
    "MQAT_OS400": 8,
    "MQAT_WINDOWS": 9,
    "MQAT_WINDOWS_NT": 11,
    "MQAT_VMS": 12,
    "MQAT_JAVA": 28,
    "MQAT_DQM": 29,
    "MQAT_CHANNEL_INITIATOR": 30,
    "MQAT_AMQP": 37,
    "MQMON_Q_MGR": -3,
    "MQMON_LOW": 17,
    "MQMON_MEDIUM": 33,
    "MQMON_HIGH": 65,
    "MQIT_GROUP_ID": 5,
    "MQNPM_CLASS_HIGH": 10,
    "MQCMDL_LEVEL_930": 930,
    "MQIA_EXPIRY_INTERVAL": 39,
    "MQIA_INDEX_TYPE": 57,
    "MQIA_NPM_CLASS": 78,
    "MQIA_Q_DEPTH_MAX_EVENT": 42,
    "MQIA_Q_DEPTH_HIGH_EVENT": 43,
    "MQIA_Q_DEPTH_LOW_EVENT": 44,
    "MQIA_Q_SERVICE_INTERVAL": 54,
    "MQIA_Q_SERVICE_INTERVAL_EVENT": 46,
    "MQIA_SCOPE": 45,
    "MQIA_TIME_SINCE_RESET": 35,
    "MQIA_MONITORING_Q": 123,  # was 103
    "MQIA_STATISTICS_Q": 128,
    "MQIA_ACCOUNTING_Q": 134,
    "MQIA_DEF_BIND": 61,
    "MQIA_DEF_READ_AHEAD": 188,
    "MQIA_DEF_PUT_RESPONSE_TYPE": 184,
    "MQIA_CLWL_Q_PRIORITY": 96,
    "MQIA_CLWL_Q_RANK": 95,
    "MQIA_CLWL_USEQ": 98,
    "MQIA_TRIGGER_RESTART": 91,
    "MQIA_BASE_TYPE": 193,
    "MQIA_NAME_COUNT": 19,
    "MQIA_CURRENT_Q_DEPTH": 3,
    "MQIA_MAX_GLOBAL_LOCKS": 83,
    "MQIA_MAX_PROPERTIES_LENGTH": 192,
    "MQCA_XMIT_Q_NAME": 2024,
    "MQCA_REMOTE_Q_NAME": 2018,
    "MQCA_REMOTE_Q_MGR_NAME": 2017,
    "MQCA_Q_MGR_DESC": 2014,
    "MQCA_Q_MGR_IDENTIFIER": 2032,
    "MQCA_DEF_XMIT_Q_NAME": 2025,
    "MQCA_STORAGE_CLASS": 2022,
    "MQCA_CLUSTER_NAME": 2029,
    "MQCA_CLUSTER_NAMELIST": 2030,
    "MQCA_PROCESS_DESC": 2011,
    "MQCA_CUSTOM": 2119,
    "MQCA_NAMELIST_NAME": 2010,
    "MQCA_NAMES": 2020,
    "MQCA_BASE_OBJECT_NAME": 2002,
    "MQ_CREATION_TIME_LENGTH": 8,
    "MQ_Q_MGR_DESC_LENGTH": 64,
    "MQ_Q_MGR_IDENTIFIER_LENGTH": 48,
    "MQ_CONN_TAG_LENGTH": 128,
    "MQ_CHANNEL_NAME_LENGTH": 20,
    "MQ_CONN_NAME_LENGTH": 264,
    "MQ_APPL_NAME_LENGTH": 28,
    "MQ_STORAGE_CLASS_LENGTH": 8,
    "MQ_CUSTOM_LENGTH": 128,
    "MQHC_UNASSOCIATED_HCONN": -3,
}

MQRC_IN_TABLE = sorted(n for n in CONSTANTS_MD if n.startswith("MQRC_"))


def _values(prefix: str) -> dict[str, int]:
    return {n: v for n, v in CONSTANTS_MD.items() if n.startswith(prefix) and isinstance(v, int)}


# --- constants.md ---


@pytest.mark.parametrize("name", list(CONSTANTS_MD))
def test_constant_value_matches_constants_reference(name: str) -> None:
    assert getattr(C, name) == CONSTANTS_MD[name]


def test_constants_reference_transcription_is_complete() -> None:
    # 496 rows in constants.md; every MQRC of its tables and every MQGMO/MQPMO/MQOO/MQRO value is among them
    assert len(CONSTANTS_MD) == 496
    assert len(MQRC_IN_TABLE) == 104
    assert len(_values("MQGMO_")) == 43
    assert len(_values("MQPMO_")) == 34
    assert len(_values("MQOO_")) == 26
    assert len(_values("MQRO_")) == 26


@pytest.mark.parametrize("prefix", ["MQGMO_", "MQPMO_", "MQOO_", "MQRO_", "MQCO_", "MQMO_"])
def test_option_constants_match_constants_reference(prefix: str) -> None:
    expected = _values(prefix)
    assert expected
    assert {n: getattr(C, n) for n in expected} == expected


@pytest.mark.parametrize("prefix", ["MQGMO_", "MQPMO_", "MQOO_"])
def test_single_bit_options_are_distinct_bits(prefix: str) -> None:
    # an option that is one bit must not share it with another one-bit option of the same family,
    # except IBM's documented synonyms (RESOLVE_LOCAL_Q / RESOLVE_LOCAL_TOPIC, RETAIN / PUB_OPTIONS_MASK)
    synonyms = {"MQOO_RESOLVE_LOCAL_TOPIC", "MQPMO_PUB_OPTIONS_MASK"}
    seen: dict[int, str] = {}
    for name, value in _values(prefix).items():
        if "VERSION" in name or "LENGTH" in name or name in synonyms:
            continue
        if value <= 0 or value & (value - 1):
            continue
        assert value not in seen, f"{name} and {seen[value]} share {value:#x}"
        seen[value] = name


def test_mqro_masks_partition_the_report_options() -> None:
    reject = C.MQRO_REJECT_UNSUP_MASK
    accept = C.MQRO_ACCEPT_UNSUP_MASK
    xmit = C.MQRO_ACCEPT_UNSUP_IF_XMIT_MASK
    assert reject & accept == 0
    assert reject & xmit == 0
    assert accept & xmit == 0
    assert reject | accept | xmit == 0xFFFFFFFF


def test_struc_ids_and_formats_are_blank_padded_bytes() -> None:
    for name, value in CONSTANTS_MD.items():
        if isinstance(value, bytes) and ("_STRUC_ID" in name or name.startswith("MQFMT_")):
            assert isinstance(getattr(C, name), bytes)
            assert len(value) == (8 if name.startswith("MQFMT_") else 4), name


# --- the hand-added section, against IBM's published values ---


@pytest.mark.parametrize("name", list(IBM_FURTHER))
def test_further_constant_matches_ibm_value(name: str) -> None:
    assert getattr(C, name) == IBM_FURTHER[name]


def test_misnamed_callback_error_is_gone() -> None:
    # IBM names 2444 MQRC_CBD_ERROR; there is no MQRC_CALLBACK_ERROR in cmqc.h
    assert not hasattr(C, "MQRC_CALLBACK_ERROR")
    assert reason_name(2444) == "MQRC_CBD_ERROR"


def test_integer_constants_fit_an_mqlong() -> None:
    # every MQ* integer is an MQLONG (or an MQINT64 range marker), except the report mask that
    # constants.md gives unsigned (0xEFE000FF)
    unsigned = {"MQRO_ACCEPT_UNSUP_MASK"}
    for name, value in vars(C).items():
        if name.startswith("MQ") and isinstance(value, int) and name not in unsigned:
            assert -(2**31) <= value < 2**31, name


def test_reason_codes_cover_ibm_range_2001_to_2600() -> None:
    named = {v for n, v in vars(C).items() if n.startswith("MQRC_") and isinstance(v, int)}
    assert len(named & set(range(2001, 2601))) >= 500
    for value in (2001, 2033, 2085, 2161, 2195, 2297, 2380, 2423, 2500, 2551, 2600):
        assert value in named, value


# --- reverse lookup ---


def test_reason_name_of_2033_is_no_msg_available() -> None:
    assert reason_name(2033) == "MQRC_NO_MSG_AVAILABLE"


@pytest.mark.parametrize("name", MQRC_IN_TABLE)
def test_reason_name_names_every_reason_in_constants_reference(name: str) -> None:
    value = CONSTANTS_MD[name]
    assert isinstance(value, int)
    got = reason_name(value)
    assert got.startswith("MQRC_")
    assert getattr(C, got) == value


def test_reason_name_names_every_mqrc_constant_defined() -> None:
    for name, value in vars(C).items():
        if name.startswith("MQRC_") and isinstance(value, int):
            got = reason_name(value)
            assert getattr(C, got) == value, (name, got)


@pytest.mark.parametrize(
    ("value", "name"),
    [
        (0, "MQRC_NONE"),
        (2009, "MQRC_CONNECTION_BROKEN"),
        (2019, "MQRC_HOBJ_ERROR"),
        (2080, "MQRC_TRUNCATED_MSG_FAILED"),
        (2085, "MQRC_UNKNOWN_OBJECT_NAME"),
        (2120, "MQRC_TRUNCATED"),
        (2159, "MQRC_PUT_MSG_RECORDS_ERROR"),
        (2158, "MQRC_PMO_RECORD_FLAGS_ERROR"),
        (2561, "MQRC_DATA_SET_NOT_AVAILABLE"),
        (2567, "MQRC_MULTICAST_INTERNAL_ERROR"),
    ],
)
def test_reason_name_prefers_the_well_known_name(value: int, name: str) -> None:
    assert reason_name(value) == name


def test_reason_name_of_unknown_reason_says_unknown() -> None:
    assert reason_name(2) == "MQRC_UNKNOWN_2"
    assert reason_name(123456) == "MQRC_UNKNOWN_123456"


def test_lookup_by_family_names_values_of_that_family() -> None:
    assert lookup("MQCC", 2) == "MQCC_FAILED"
    assert lookup("MQCC_", 1) == "MQCC_WARNING"
    assert lookup("MQFB", 267) == "MQFB_APPL_TYPE_ERROR"
    assert lookup("MQAT", 6) == "MQAT_UNIX"
    assert lookup("MQIA", 1) == "MQIA_APPL_TYPE"
    assert lookup("MQIA", 3) == "MQIA_CURRENT_Q_DEPTH"
    assert lookup("MQCA", 2016) == "MQCA_Q_NAME"
    assert lookup("MQOT", 1) == "MQOT_Q"
    # a preferred name of one family never leaks into another
    assert lookup("MQRC", 6) is None
    assert lookup("MQCC", 0) == "MQCC_OK"
    assert lookup("MQNOPE", 1) is None


def test_completion_name_names_completion_codes() -> None:
    assert completion_name(0) == "MQCC_OK"
    assert completion_name(1) == "MQCC_WARNING"
    assert completion_name(2) == "MQCC_FAILED"
    assert completion_name(7) == "MQCC_UNKNOWN_7"


# --- MQMIError ---


def test_mqmierror_str_names_reason_and_number() -> None:
    e = MQMIError(2, 2033)
    assert "MQRC_NO_MSG_AVAILABLE (2033)" in str(e)
    assert str(e).startswith("MQCC_FAILED")
    assert e.comp == C.MQCC_FAILED
    assert e.reason == C.MQRC_NO_MSG_AVAILABLE
    assert e.reason_name == "MQRC_NO_MSG_AVAILABLE"
    assert e.errorAsString() == str(e)


def test_mqmierror_str_carries_detail() -> None:
    e = MQMIError(C.MQCC_WARNING, C.MQRC_TRUNCATED_MSG_ACCEPTED, "queue Q1")
    assert str(e) == "MQCC_WARNING: MQRC_TRUNCATED_MSG_ACCEPTED (2079): queue Q1"


def test_mqmierror_pickles_round_trip() -> None:
    e = MQMIError(2, 2080, "buffer too small", original_length=4096, message=b"abc")
    for protocol in range(pickle.HIGHEST_PROTOCOL + 1):
        back = pickle.loads(pickle.dumps(e, protocol=protocol))
        assert type(back) is MQMIError
        assert (back.comp, back.reason, back.detail) == (2, 2080, "buffer too small")
        assert vars(back)["original_length"] == 4096  # extras ride along as attributes
        assert vars(back)["message"] == b"abc"
        assert str(back) == str(e)
        assert back.args == e.args


def test_mqmierror_is_raised_and_caught_as_exception() -> None:
    with pytest.raises(MQMIError) as info:
        raise MQMIError(C.MQCC_FAILED, C.MQRC_Q_FULL)
    assert info.value.reason == 2053
    assert "MQRC_Q_FULL (2053)" in str(info.value)
