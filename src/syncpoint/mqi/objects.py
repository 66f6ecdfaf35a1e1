"""Object definitions and the attribute table.

Theory of operation: every attribute of every object type is described once, in :data:`ATTRIBUTES`, by its MQSC
keyword (the key under which the engine keeps it), its MQINQ/MQSET selector, its type and range, its default,
and the object types it belongs to. MQINQ and MQSET, MQSC (DEFINE / ALTER / DISPLAY) and PCF all read this one
table, so an attribute is added in one place. Values are kept as IBM's numbers (``TRIGTYPE`` is ``MQTT_FIRST``,
``GET`` is ``MQQA_GET_ALLOWED``), strings unpadded.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from syncpoint.mqi import constants as C
from syncpoint.mqi.qmgr_selectors import KEPT_QMGR_CHAR_LENGTHS

# object types as the engine names them (MQSC nouns)
QLOCAL = "QLOCAL"
QMODEL = "QMODEL"
QALIAS = "QALIAS"
QREMOTE = "QREMOTE"  # a local definition of a remote queue, a queue-manager alias or a reply-to queue alias
PROCESS = "PROCESS"
QMGR = "QMGR"
NAMELIST = "NAMELIST"  # a list of names (DEFINE NAMELIST; PCF Create Namelist): its own namespace
CHANNEL = "CHANNEL"  # channels (SDR, RCVR, SVR, RQSTR, SVRCONN): their own namespace, as processes have
TOPIC = "TOPIC"  # topic objects (publish/subscribe): their own namespace (``engine._topics``)
AUTHINFO = "AUTHINFO"  # authentication information (connection authentication: ``AUTHTYPE(IDPWOS)``)
QUEUE_TYPES = (QLOCAL, QMODEL, QALIAS, QREMOTE)
QTYPE_OF = {QLOCAL: C.MQQT_LOCAL, QMODEL: C.MQQT_MODEL, QALIAS: C.MQQT_ALIAS, QREMOTE: C.MQQT_REMOTE}

_L = frozenset({QLOCAL})
_LM = frozenset({QLOCAL, QMODEL})
_LMA = frozenset({QLOCAL, QMODEL, QALIAS})
_LA = frozenset({QLOCAL, QALIAS})
_M = frozenset({QMODEL})
_A = frozenset({QALIAS})
_R = frozenset({QREMOTE})
_LMAR = frozenset({QLOCAL, QMODEL, QALIAS, QREMOTE})
_P = frozenset({PROCESS})
_Q = frozenset({QMGR})
_CH = frozenset({CHANNEL})
_NL = frozenset({NAMELIST})
_T = frozenset({TOPIC})
_AI = frozenset({AUTHINFO})

# channel types (cmqxc.h MQCHT_*) and NPMSPEED (MQNPMS_*)
MQCHT_SENDER, MQCHT_SERVER, MQCHT_RECEIVER, MQCHT_REQUESTER = 1, 2, 3, 4
MQCHT_SVRCONN = 7  # a server-connection channel: the queue manager's end of a client's connection
MQSCA_REQUIRED, MQSCA_OPTIONAL = 0, 1  # SSLCAUTH
SYSTEM_DEF_SVRCONN = "SYSTEM.DEF.SVRCONN"
SYSTEM_ADMIN_SVRCONN = "SYSTEM.ADMIN.SVRCONN"
MQNPMS_NORMAL, MQNPMS_FAST = 1, 2
SYSTEM_CHANNEL_INITQ = "SYSTEM.CHANNEL.INITQ"
SYSTEM_CHANNEL_SYNCQ = "SYSTEM.CHANNEL.SYNCQ"
# a channel command (START / STOP / PING / RESET / RESOLVE CHANNEL, DISPLAY CHSTATUS) sent to the channel
# initiator on SYSTEM.CHANNEL.INITQ: a message of this Format holding JSON, answered on its ReplyToQ
CHANNEL_COMMAND_FORMAT = b"SPCHLCMD"


@dataclass(frozen=True, slots=True)
class Attribute:
    """One attribute: MQSC keyword, selector, type, range, default, owners."""

    keyword: str  # MQSC keyword, the canonical key
    selector: int  # MQIA_* or MQCA_* (0: none)
    kind: str  # "int", "str", "enum", "flag", "names" (a namelist's NAMES: a tuple of up to ``high`` names)
    default: Any
    owners: frozenset[str]
    length: int = 0  # for str: maximum length
    low: int = 0  # for int: range
    high: int = 999_999_999
    values: dict[str, int] = field(default_factory=dict)  # for enum / flag: MQSC word -> value
    settable: bool = False  # MQSET may change it
    readonly: bool = False  # shown, never defined (status-like or fixed)
    off_word: str = ""  # for flag: the negative keyword (NOTRIGGER)

    @property
    def is_char(self) -> bool:
        return self.kind == "str"

    def word_for(self, value: int) -> str:
        for word, v in self.values.items():
            if v == value:
                return word
        return str(value)


def _enum(kw: str, sel: int, default: int, owners: frozenset[str], values: dict[str, int], **k: Any) -> Attribute:
    return Attribute(kw, sel, "enum", default, owners, values=values, **k)


def _flag(on: str, off: str, sel: int, default: int, owners: frozenset[str], **k: Any) -> Attribute:
    return Attribute(on, sel, "flag", default, owners, values={on: 1, off: 0}, off_word=off, **k)


_ENABLED = {"ENABLED": 0, "DISABLED": 1}
# connection authentication (cmqc.h / cmqcfc.h): AUTHTYPE, CHCKCLNT / CHCKLOCL, ADOPTCTX
MQAIT_IDPW_OS = 3
MQCHK_OPTIONAL, MQCHK_NONE, MQCHK_REQUIRED_ADMIN, MQCHK_REQUIRED = 0, 1, 2, 3
MQADPCTX_NO, MQADPCTX_YES = 0, 1
MQCHLA_DISABLED, MQCHLA_ENABLED = 0, 1
_CHECKS = {"NONE": MQCHK_NONE, "OPTIONAL": MQCHK_OPTIONAL, "REQUIRED": MQCHK_REQUIRED, "REQDADM": MQCHK_REQUIRED_ADMIN}
SYSTEM_DEFAULT_AUTHINFO = "SYSTEM.DEFAULT.AUTHINFO.IDPWOS"
_PROPCTL = {
    "COMPAT": C.MQPROP_COMPATIBILITY,
    "NONE": C.MQPROP_NONE,
    "ALL": C.MQPROP_ALL,
    "FORCE": C.MQPROP_FORCE_MQRFH2,
    "V6COMPAT": C.MQPROP_V6COMPAT,
}

# IBM's attributes, one entry each (reference/mqsc.md): a table, so entries of the same kind (_enum, _flag) have
# the same shape with their own values
ATTRIBUTES: dict[str, Attribute] = {
    a.keyword: a
    for a in [
        # -- queues ---------------------------------------------------------------------------------------
        Attribute("DESCR", C.MQCA_Q_DESC, "str", "", _LMAR, length=64),
        _flag("TRIGGER", "NOTRIGGER", C.MQIA_TRIGGER_CONTROL, C.MQTC_OFF, _LM, settable=True),
        _enum(
            "TRIGTYPE",
            C.MQIA_TRIGGER_TYPE,
            C.MQTT_FIRST,
            _LM,
            {"NONE": C.MQTT_NONE, "FIRST": C.MQTT_FIRST, "EVERY": C.MQTT_EVERY, "DEPTH": C.MQTT_DEPTH},
            settable=True,
        ),
        Attribute("TRIGDPTH", C.MQIA_TRIGGER_DEPTH, "int", 1, _LM, low=1, settable=True),
        Attribute("TRIGMPRI", C.MQIA_TRIGGER_MSG_PRIORITY, "int", 0, _LM, low=0, high=9, settable=True),
        Attribute("TRIGDATA", C.MQCA_TRIGGER_DATA, "str", "", _LM, length=64, settable=True),
        Attribute("PROCESS", C.MQCA_PROCESS_NAME, "str", "", _LM, length=48),
        Attribute("INITQ", C.MQCA_INITIATION_Q_NAME, "str", "", _LM, length=48),
        Attribute("BOQNAME", C.MQCA_BACKOUT_REQ_Q_NAME, "str", "", _LM, length=48),
        Attribute("BOTHRESH", C.MQIA_BACKOUT_THRESHOLD, "int", 0, _LM),
        _flag("HARDENBO", "NOHARDENBO", C.MQIA_HARDEN_GET_BACKOUT, C.MQQA_BACKOUT_HARDENED, _LM),
        Attribute("DEFPRTY", C.MQIA_DEF_PRIORITY, "int", 0, _LMAR, high=9),
        _enum(
            "DEFPSIST",
            C.MQIA_DEF_PERSISTENCE,
            C.MQPER_NOT_PERSISTENT,
            _LMAR,
            {"NO": C.MQPER_NOT_PERSISTENT, "YES": C.MQPER_PERSISTENT},
        ),
        Attribute("MAXDEPTH", C.MQIA_MAX_Q_DEPTH, "int", 5000, _LM),
        Attribute("MAXMSGL", C.MQIA_MAX_MSG_LENGTH, "int", 4_194_304, _LM, high=104_857_600),
        _enum(
            "MSGDLVSQ",
            C.MQIA_MSG_DELIVERY_SEQUENCE,
            C.MQMDS_PRIORITY,
            _LM,
            {"PRIORITY": C.MQMDS_PRIORITY, "FIFO": C.MQMDS_FIFO},
        ),
        # IBM's index type; on a shared queue it decides which gets by id are allowed (reference/
        # queue-sharing-groups.md: by CorrelId needs CORRELID, by MsgId MSGID or NONE, group gets GROUPID)
        _enum(
            "INDXTYPE",
            C.MQIA_INDEX_TYPE,
            C.MQIT_NONE,
            _LM,
            {
                "NONE": C.MQIT_NONE,
                "MSGID": C.MQIT_MSG_ID,
                "CORRELID": C.MQIT_CORREL_ID,
                "MSGTOKEN": C.MQIT_MSG_TOKEN,
                "GROUPID": C.MQIT_GROUP_ID,
            },
        ),
        _enum("GET", C.MQIA_INHIBIT_GET, C.MQQA_GET_ALLOWED, _LMA, _ENABLED, settable=True),
        # how a get receives message properties (engine/_properties.py)
        _enum("PROPCTL", C.MQIA_PROPERTY_CONTROL, C.MQPROP_COMPATIBILITY, _LMA, _PROPCTL),
        _enum("PUT", C.MQIA_INHIBIT_PUT, C.MQQA_PUT_ALLOWED, _LMAR, _ENABLED, settable=True),
        _enum("USAGE", C.MQIA_USAGE, C.MQUS_NORMAL, _LM, {"NORMAL": C.MQUS_NORMAL, "XMITQ": C.MQUS_TRANSMISSION}),
        _flag("SHARE", "NOSHARE", C.MQIA_SHAREABILITY, C.MQQA_SHAREABLE, _LM),
        _enum(
            "DEFSOPT",
            C.MQIA_DEF_INPUT_OPEN_OPTION,
            C.MQOO_INPUT_SHARED,
            _LM,
            {"SHARED": C.MQOO_INPUT_SHARED, "EXCL": C.MQOO_INPUT_EXCLUSIVE},
        ),
        Attribute("RETINTVL", C.MQIA_RETENTION_INTERVAL, "int", 999_999_999, _LM),
        Attribute("QDEPTHHI", C.MQIA_Q_DEPTH_HIGH_LIMIT, "int", 80, _LM, high=100),
        Attribute("QDEPTHLO", C.MQIA_Q_DEPTH_LOW_LIMIT, "int", 20, _LM, high=100),
        _enum(
            "DEFTYPE",
            C.MQIA_DEFINITION_TYPE,
            C.MQQDT_TEMPORARY_DYNAMIC,
            _M,
            {"PERMDYN": C.MQQDT_PERMANENT_DYNAMIC, "TEMPDYN": C.MQQDT_TEMPORARY_DYNAMIC},
        ),
        Attribute("TARGET", C.MQCA_BASE_Q_NAME, "str", "", _A, length=48),
        # a remote queue (QREMOTE): the queue's name at the remote queue manager (blank: a queue-manager alias),
        # that queue manager's name, and the transmission queue (blank: the one name resolution finds)
        Attribute("RNAME", C.MQCA_REMOTE_Q_NAME, "str", "", _R, length=48),
        Attribute("RQMNAME", C.MQCA_REMOTE_Q_MGR_NAME, "str", "", _R, length=48),
        Attribute("XMITQ", C.MQCA_XMIT_Q_NAME, "str", "", _R, length=48),
        # -- processes ------------------------------------------------------------------------------------
        Attribute("APPLICID", C.MQCA_APPL_ID, "str", "", _P, length=256),
        _enum(
            "APPLTYPE",
            C.MQIA_APPL_TYPE,
            C.MQAT_UNIX,
            _P,
            {
                "UNIX": C.MQAT_UNIX,
                "DEF": C.MQAT_UNIX,
                "WINDOWS": C.MQAT_WINDOWS,
                "WINDOWSNT": C.MQAT_WINDOWS_NT,
                "CICS": C.MQAT_CICS,
                "IMS": C.MQAT_IMS,
                "MVS": C.MQAT_MVS,
                "OS400": C.MQAT_OS400,
                "NSK": C.MQAT_NSK,
                "DOS": C.MQAT_DOS,
            },
        ),
        Attribute("ENVRDATA", C.MQCA_ENV_DATA, "str", "", _P, length=128),
        Attribute("USERDATA", C.MQCA_USER_DATA, "str", "", _P, length=128),
        Attribute("PROCDESC", C.MQCA_PROCESS_DESC, "str", "", _P, length=64),
        # -- namelists: NAMES is a list of up to 256 names of 48 characters (DEFINE NAMELIST) ----------------
        Attribute("NAMES", C.MQCA_NAMES, "names", (), _NL, length=48, high=256),
        Attribute("NLDESCR", C.MQCA_NAMELIST_DESC, "str", "", _NL, length=64),
        # -- queue manager --------------------------------------------------------------------------------
        Attribute("QMDESCR", C.MQCA_Q_MGR_DESC, "str", "", _Q, length=64),
        Attribute("DEADQ", C.MQCA_DEAD_LETTER_Q_NAME, "str", "", _Q, length=48),
        Attribute("DEFXMITQ", C.MQCA_DEF_XMIT_Q_NAME, "str", "", _Q, length=48),
        Attribute("MAXUMSGS", C.MQIA_MAX_UNCOMMITTED_MSGS, "int", 10000, _Q, low=1),
        Attribute("QMMAXMSGL", C.MQIA_MAX_MSG_LENGTH, "int", 4_194_304, _Q, low=32, high=104_857_600),
        Attribute("CCSID", C.MQIA_CODED_CHAR_SET_ID, "int", 1208, _Q, low=1, high=65535),
        Attribute("TRIGINT", C.MQIA_TRIGGER_INTERVAL, "int", 999_999_999, _Q),
        Attribute("EXPRYINT", C.MQIA_EXPIRY_INTERVAL, "int", 0, _Q, high=99_999_999),
        Attribute(
            "COMMANDQ", C.MQCA_COMMAND_INPUT_Q_NAME, "str", "SYSTEM.ADMIN.COMMAND.QUEUE", _Q, length=48, readonly=True
        ),
        Attribute("CMDLEVEL", C.MQIA_COMMAND_LEVEL, "int", C.MQCMDL_CURRENT_LEVEL, _Q, readonly=True),
        Attribute("VERSION", C.MQCA_VERSION, "str", "09030000", _Q, length=8, readonly=True),  # VRMF of MQ 9.3
        Attribute("PLATFORM", C.MQIA_PLATFORM, "int", C.MQPL_UNIX, _Q, readonly=True),
        Attribute("MAXPRTY", C.MQIA_MAX_PRIORITY, "int", 9, _Q, readonly=True),
        Attribute("SYNCPT", C.MQIA_SYNCPOINT, "int", C.MQSP_AVAILABLE, _Q, readonly=True),
        Attribute("MAXHANDS", C.MQIA_MAX_HANDLES, "int", 256, _Q, low=0),
        # connection authentication: the AUTHINFO object in force (blank: none), IBM's default one on a new
        # queue manager (reference/operations.md, CONNAUTH)
        Attribute("CONNAUTH", C.MQCA_CONN_AUTH, "str", SYSTEM_DEFAULT_AUTHINFO, _Q, length=48),
        # channel authentication records checked (``engine._chlauth``): MQCHLA_ENABLED / MQCHLA_DISABLED
        _enum(
            "CHLAUTH",
            C.MQIA_CHLAUTH_RECORDS,
            MQCHLA_ENABLED,
            _Q,
            {"ENABLED": MQCHLA_ENABLED, "DISABLED": MQCHLA_DISABLED},
        ),
        # -- authentication information (AUTHTYPE(IDPWOS): user ids and passwords checked against the password
        # file); the defaults are those of IBM's SYSTEM.DEFAULT.AUTHINFO.IDPWOS
        _enum("AUTHTYPE", C.MQIA_AUTH_INFO_TYPE, MQAIT_IDPW_OS, _AI, {"IDPWOS": MQAIT_IDPW_OS}),
        Attribute("AUTHDESCR", C.MQCA_AUTH_INFO_DESC, "str", "", _AI, length=64),
        _enum("CHCKCLNT", C.MQIA_CHECK_CLIENT_BINDING, MQCHK_REQUIRED_ADMIN, _AI, _CHECKS),
        _enum("CHCKLOCL", C.MQIA_CHECK_LOCAL_BINDING, MQCHK_OPTIONAL, _AI, _CHECKS),
        _enum("ADOPTCTX", C.MQIA_ADOPT_CONTEXT, MQADPCTX_YES, _AI, {"YES": MQADPCTX_YES, "NO": MQADPCTX_NO}),
        Attribute("FAILDLAY", C.MQIA_AUTHENTICATION_FAIL_DELAY, "int", 1, _AI, high=60),
        # -- message channels (kept under CHL* keys where a queue's keyword is the same word) -------------
        _enum(
            "CHLTYPE",
            0,
            MQCHT_SENDER,
            _CH,
            {
                "SDR": MQCHT_SENDER,
                "SVR": MQCHT_SERVER,
                "RCVR": MQCHT_RECEIVER,
                "RQSTR": MQCHT_REQUESTER,
                "SVRCONN": MQCHT_SVRCONN,
            },
        ),
        _enum("TRPTYPE", 0, 2, _CH, {"TCP": 2}),
        Attribute("CONNAME", 0, "str", "", _CH, length=264),
        Attribute("CHLXMITQ", 0, "str", "", _CH, length=48),
        Attribute("CHLDESCR", 0, "str", "", _CH, length=64),
        Attribute("BATCHSZ", 0, "int", 50, _CH, low=1, high=9999),
        Attribute("BATCHINT", 0, "int", 0, _CH, high=999_999_999),
        Attribute("DISCINT", 0, "int", 6000, _CH, high=999_999),
        Attribute("SHORTRTY", 0, "int", 10, _CH, high=999_999_999),
        Attribute("SHORTTMR", 0, "int", 60, _CH, high=999_999_999),
        Attribute("LONGRTY", 0, "int", 999_999_999, _CH, high=999_999_999),
        Attribute("LONGTMR", 0, "int", 1200, _CH, high=999_999_999),
        Attribute("HBINT", 0, "int", 300, _CH, high=999_999),
        _enum("NPMSPEED", 0, MQNPMS_FAST, _CH, {"FAST": MQNPMS_FAST, "NORMAL": MQNPMS_NORMAL}),
        Attribute("CHLMAXMSGL", 0, "int", 4_194_304, _CH, high=104_857_600),
        Attribute("MCAUSER", 0, "str", "", _CH, length=64),
        Attribute("SSLCIPH", 0, "str", "", _CH, length=32),
        Attribute("SEQWRAP", 0, "int", 999_999_999, _CH, low=100, high=999_999_999),
        # server-connection channels (SVRCONN): instances at once in all and from one client address, the
        # conversations one TCP connection may carry, whether a TLS client must send a certificate (IBM's
        # defaults); ``server._svrconn`` enforces MAXINST and MAXINSTC
        Attribute("MAXINST", 0, "int", 999_999_999, _CH, high=999_999_999),
        Attribute("MAXINSTC", 0, "int", 999_999_999, _CH, high=999_999_999),
        Attribute("SHARECNV", 0, "int", 10, _CH, high=999_999_999),
        _enum("SSLCAUTH", 0, MQSCA_REQUIRED, _CH, {"REQUIRED": MQSCA_REQUIRED, "OPTIONAL": MQSCA_OPTIONAL}),
        Attribute("SSLPEER", 0, "str", "", _CH, length=1024),
        Attribute("MRRTY", 0, "int", 10, _CH, high=999_999_999),  # message retry: count (receiving MCA)
        Attribute("MRTMR", 0, "int", 1000, _CH, high=999_999_999),  # and interval in milliseconds
        # channel statistics (STATCHL): QMGR follows the queue manager's; kept as IBM's word, as the queue
        # manager's STATCHL is (the values are the words' order, not MQMON_*)
        Attribute(
            "CHLSTATCHL",
            0,
            "str",
            "QMGR",
            _CH,
            length=8,
            values={"QMGR": 0, "OFF": 1, "LOW": 2, "MEDIUM": 3, "HIGH": 4},
        ),
        # -- topic objects: ASPARENT (0, blank, -1 or -2 as IBM numbers it) takes the value of the nearest topic
        # object above, up to SYSTEM.BASE.TOPIC (reference/properties-pubsub.md; ``engine._topics``)
        Attribute("TOPICSTR", C.MQCA_TOPIC_STRING, "str", "", _T, length=C.MQ_TOPIC_STR_LENGTH),
        Attribute("TOPDESCR", C.MQCA_TOPIC_DESC, "str", "", _T, length=64),
        _enum("DURSUB", C.MQIA_DURABLE_SUB, 0, _T, {"ASPARENT": 0, "YES": 1, "NO": 2}),
        _enum("PUB", C.MQIA_INHIBIT_PUB, 0, _T, {"ASPARENT": 0, "DISABLED": 1, "ENABLED": 2}),
        _enum("SUB", C.MQIA_INHIBIT_SUB, 0, _T, {"ASPARENT": 0, "DISABLED": 1, "ENABLED": 2}),
        Attribute("MDURMDL", C.MQCA_MODEL_DURABLE_Q, "str", "", _T, length=48),
        Attribute("MNDURMDL", C.MQCA_MODEL_NON_DURABLE_Q, "str", "", _T, length=48),
        _enum("TPDEFPSIST", C.MQIA_TOPIC_DEF_PERSISTENCE, -1, _T, {"ASPARENT": -1, "NO": 0, "YES": 1}),
        _enum("TPDEFPRTY", C.MQIA_DEF_PRIORITY, -2, _T, {"ASPARENT": -2, **{str(i): i for i in range(10)}}),
        _enum("USEDLQ", C.MQIA_USE_DEAD_LETTER_Q, 0, _T, {"ASPARENT": 0, "NO": 1, "YES": 2}),
        _enum("PUBSCOPE", C.MQIA_PUB_SCOPE, 1, _T, {"ASPARENT": 1, "QMGR": 4, "ALL": 0}),
        _enum("SUBSCOPE", C.MQIA_SUB_SCOPE, 1, _T, {"ASPARENT": 1, "QMGR": 4, "ALL": 0}),
        _enum("WILDCARD", C.MQIA_WILDCARD_OPERATION, 2, _T, {"PASSTHRU": 2, "BLOCK": 1}),
        # whose authority a receiving MCA's puts need: DEF its user (MCAUSER), CTX the message's UserIdentifier
        _enum("PUTAUT", 0, C.MQPA_DEFAULT, _CH, {"DEF": C.MQPA_DEFAULT, "CTX": C.MQPA_CONTEXT}),
    ]
}

# MQSC keywords shared by object types whose values have different selectors (MAXMSGL of a queue and of the
# queue manager, DESCR of a queue, a process and the queue manager): the engine keeps the other types' values
# under their own keys (QMMAXMSGL, QMDESCR, PROCDESC); MQSC and PCF show them under the MQSC keyword.
KEYWORD_ALIASES: dict[str, dict[str, str]] = {
    QMGR: {"MAXMSGL": "QMMAXMSGL", "DESCR": "QMDESCR"},
    PROCESS: {"DESCR": "PROCDESC"},
    NAMELIST: {"DESCR": "NLDESCR"},
    CHANNEL: {"MAXMSGL": "CHLMAXMSGL", "DESCR": "CHLDESCR", "XMITQ": "CHLXMITQ", "STATCHL": "CHLSTATCHL"},
    TOPIC: {"DESCR": "TOPDESCR", "DEFPSIST": "TPDEFPSIST", "DEFPRTY": "TPDEFPRTY"},
    AUTHINFO: {"DESCR": "AUTHDESCR"},
}

# IBM MQ attributes syncpoint keeps and shows but does not act on (monitoring, statistics, accounting, events,
# clusters, publish/subscribe, TLS and channel set-up): DEFINE / ALTER store what a script sets, DISPLAY shows it
# (IBM's default otherwise), so an IBM script runs unchanged and nothing it sets disappears. Values are kept as the
# words or numbers typed. "KEYWORD=default" (a quoted default: a character value; a number: an integer).
_KEPT_QUEUE = {
    _LM: "ACCTQ=QMGR CLCHNAME='' DISTL=NO IMGRCOVQ=QMGR MONQ=QMGR NPMCLASS=NORMAL QDPHIEV=DISABLED "
    "QDPLOEV=DISABLED QDPMAXEV=ENABLED QSVCIEV=NONE QSVCINT:999999999 STATQ=QMGR",
    _L: "CLWLUSEQ=QMGR MAXFSIZE=DEFAULT",
    _LA: "CLUSNL='' CLUSTER='' CLWLPRTY:0 CLWLRANK:0 SCOPE=QMGR",
    _LMA: "CAPEXPRY=NOLIMIT CUSTOM='' DEFBIND=OPEN DEFPRESP=SYNC DEFREADA=NO STREAMQ='' STRMQOS=BESTEF",
}
_KEPT_QMGR = (
    "ACCTCONO=DISABLED ACCTINT:1800 ACCTMQI=OFF QMACCTQ=OFF ACTIVREC=MSG ACTVCONO=DISABLED ACTVTRC=OFF "
    "ADVCAP=ENABLED AUTHOREV=DISABLED BRIDGEEV=DISABLED CERTLABL='' CERTVPOL=ANY CHAD=DISABLED CHADEV=DISABLED "
    "CHADEXIT='' CHLEV=DISABLED CLWLDATA='' CLWLEXIT='' CLWLLEN:100 CLWLMRUC:999999999 "
    "QMCLWLUSEQ=LOCAL CMDEV=DISABLED CONFIGEV=DISABLED QMCUSTOM='' DEFCLXQ=SCTQ DEFXMITQ='' "
    "IMGINTVL:60 IMGLOGLN=OFF IMGRCOVO=YES QMIMGRCOVQ=YES IMGSCHED=MANUAL INHIBTEV=DISABLED IPADDRV=IPV4 "
    "LOCALEV=DISABLED LOGGEREV=DISABLED MARKINT:5000 MAXPROPL=NOLIMIT MONACLS=QMGR MONCHL=OFF QMMONQ=OFF "
    "PARENT='' PERFMEV=DISABLED PSCLUS=ENABLED PSMODE=ENABLED PSNPMSG=DISCARD PSNPRES=NORMAL PSRTYCNT:5 "
    "PSSYNCPT=IFPER REMOTEEV=DISABLED REPOS='' REPOSNL='' REVDNS=ENABLED ROUTEREC=MSG SCHINIT=QMGR SCMDSERV=QMGR "
    "SPLCAP=ENABLED SSLCRLNL='' SSLCRYP='' SSLEV=DISABLED SSLFIPS=NO SSLKEYR='' SSLRKEYC:0 STATACLS=QMGR "
    "STATCHL=OFF STATINT:1800 STATMQI=OFF QMSTATQ=OFF STRSTPEV=ENABLED SUITEB=NONE TREELIFE:1800"
)


# the kept attributes that syncpoint acts on (statistics and accounting, engine._statistics): the words each
# takes, as IBM's MQSC takes them, and the range of their intervals (IBM: 1 to 604800 seconds)
_WORDS = {
    "ACCTCONO": ("DISABLED", "ENABLED"),
    "ACCTMQI": ("OFF", "ON"),
    "QMACCTQ": ("OFF", "ON", "NONE"),
    "STATCHL": ("OFF", "LOW", "MEDIUM", "HIGH", "NONE"),
    "STATMQI": ("OFF", "ON"),
    "QMSTATQ": ("OFF", "ON", "NONE"),
    "ACCTQ": ("QMGR", "ON", "OFF"),
    "STATQ": ("QMGR", "ON", "OFF"),
}
_RANGES = {"ACCTINT": (1, 604_800), "STATINT": (1, 604_800)}
ACTED_ON = frozenset(
    {"STATMQI", "QMSTATQ", "STATINT", "ACCTMQI", "QMACCTQ", "ACCTINT", "STATQ", "ACCTQ", "STATCHL", "CHLSTATCHL"}
)
"""Kept attributes the engine acts on (statistics and accounting): MQSC gives no AMQ8491W for them."""


def _kept(spec: str, owners: frozenset[str]) -> list[Attribute]:
    out = []
    for item in spec.split():
        if ":" in item:
            kw, number = item.split(":")
            low, high = _RANGES.get(kw, (0, 999_999_999))
            out.append(Attribute(kw, 0, "int", int(number), owners, low=low, high=high))
        else:
            kw, word = item.split("=")
            values = {w: i for i, w in enumerate(_WORDS.get(kw, ()))}
            out.append(Attribute(kw, 0, "str", word.strip("'"), owners, length=256, values=values))
    return out


# The event attributes among them that syncpoint acts on (engine._events: IBM's event messages), with the words
# each takes; MQSC refuses any other word (AMQ8405E-style: the value is not valid)
_SWITCH = ("ENABLED", "DISABLED")
EVENT_SWITCHES: dict[str, tuple[str, ...]] = {
    **dict.fromkeys(("QDPHIEV", "QDPLOEV", "QDPMAXEV"), _SWITCH),
    "QSVCIEV": ("HIGH", "OK", "NONE"),
    **dict.fromkeys(("AUTHOREV", "CHLEV", "CONFIGEV", "INHIBTEV", "LOCALEV", "PERFMEV", "REMOTEEV"), _SWITCH),
    "STRSTPEV": _SWITCH,
    "CMDEV": ("ENABLED", "NODISPLAY", "DISABLED"),
}
EVENT_ATTRIBUTES = frozenset(EVENT_SWITCHES) | {"QSVCINT"}
"""The kept attributes syncpoint acts on: the event switches and the queue service interval."""

KEPT_ATTRIBUTES: dict[str, frozenset[str]] = {}
"""The keywords of :data:`ATTRIBUTES` that syncpoint keeps and shows without acting on them, by object type."""
for _owners, _spec in [*_KEPT_QUEUE.items(), (_Q, _KEPT_QMGR)]:
    for _k in _kept(_spec, _owners):
        if _k.keyword not in ATTRIBUTES:  # an attribute syncpoint implements is never shadowed
            ATTRIBUTES[_k.keyword] = _k
            for _t in _owners:
                KEPT_ATTRIBUTES[_t] = KEPT_ATTRIBUTES.get(_t, frozenset()) | {_k.keyword}
# the queue manager's ACCTQ, MONQ, STATQ … are other attributes than a queue's of the same keyword
KEYWORD_ALIASES[QMGR].update(
    {kw: "QM" + kw for kw in ("ACCTQ", "CLWLUSEQ", "CUSTOM", "IMGRCOVQ", "MONQ", "STATQ") if "QM" + kw in ATTRIBUTES}
)
QMGR_KEYWORD_ALIASES = KEYWORD_ALIASES[QMGR]
MQSC_KEYWORD_OF: dict[str, str] = {key: kw for aliases in KEYWORD_ALIASES.values() for kw, key in aliases.items()}

# a selector shared by two keys (MQIA_MAX_MSG_LENGTH) names the queue's; the queue manager's is found by alias
SELECTOR_TO_KEYWORD: dict[int, str] = {}
for _a in ATTRIBUTES.values():
    if _a.selector:
        SELECTOR_TO_KEYWORD.setdefault(_a.selector, _a.keyword)


def engine_key(otype: str, keyword: str) -> str:
    """The key under which the engine keeps MQSC ``keyword`` of an ``otype`` object (DESCR of a PROCESS: PROCDESC)."""
    return KEYWORD_ALIASES.get(otype, {}).get(keyword, keyword)


def attributes_for(otype: str) -> list[Attribute]:
    return [a for a in ATTRIBUTES.values() if otype in a.owners]


def defaults_for(otype: str) -> dict[str, Any]:
    return {a.keyword: a.default for a in attributes_for(otype)}


@dataclass(slots=True)
class Definition:
    """An object definition: a name, a type and its attributes (MQSC keyword -> value)."""

    otype: str
    name: str
    attrs: dict[str, Any]
    created: float = 0.0  # wall-clock time of DEFINE
    altered: float = 0.0  # wall-clock time of the last ALTER
    dynamic: int = C.MQQDT_PREDEFINED  # for queues: predefined, permanent or temporary dynamic

    def to_bytes(self) -> bytes:
        return json.dumps(
            {
                "otype": self.otype,
                "name": self.name,
                "attrs": self.attrs,
                "created": self.created,
                "altered": self.altered,
                "dynamic": self.dynamic,
            },
            separators=(",", ":"),
        ).encode()

    @classmethod
    def from_bytes(cls, raw: bytes) -> Definition:
        d = json.loads(raw)
        otype = d["otype"]
        attrs = defaults_for(otype)
        attrs.update(d["attrs"])  # definitions written by an older version gain new attributes' defaults
        if "NAMES" in attrs:  # a namelist's names: kept as a tuple (JSON gives a list)
            attrs["NAMES"] = tuple(attrs["NAMES"])
        return cls(
            otype, d["name"], attrs, d.get("created", 0.0), d.get("altered", 0.0), d.get("dynamic", C.MQQDT_PREDEFINED)
        )


def check_value(attr: Attribute, value: Any) -> Any:
    """Validate ``value`` for ``attr``; return it normalised. Raises ValueError with a sentence."""
    if attr.kind == "names":
        if isinstance(value, (str, bytes)) or not isinstance(value, (list, tuple)):
            raise ValueError(f"{attr.keyword} takes a list of names")
        if len(value) > attr.high:
            raise ValueError(f"{attr.keyword} holds at most {attr.high} names")
        names = []
        for n in value:
            if not isinstance(n, str):
                raise ValueError(f"{attr.keyword} takes names as text")
            n = n.strip(" ")
            if not n or len(n.encode()) > attr.length:
                raise ValueError(f"each name of {attr.keyword} is 1 to {attr.length} characters long")
            names.append(n)
        return tuple(names)
    if attr.kind == "str":
        if not isinstance(value, str):
            raise ValueError(f"{attr.keyword} takes a character value")
        value = value.rstrip(" ")
        if len(value.encode()) > attr.length:
            raise ValueError(f"{attr.keyword} is at most {attr.length} characters long")
        if attr.values:  # a kept attribute syncpoint acts on: one of IBM's words (STATQ(ON))
            word = value.strip().upper()
            if word not in attr.values:
                raise ValueError(f"{attr.keyword}({value}) is not valid; it takes one of {', '.join(attr.values)}")
            return word
        return value
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{attr.keyword} takes an integer value")
    if attr.kind in ("enum", "flag"):
        if value not in attr.values.values():
            allowed = ", ".join(f"{w}({v})" for w, v in attr.values.items())
            raise ValueError(f"{attr.keyword} value {value} is not one of {allowed}")
        return value
    if not attr.low <= value <= attr.high:
        raise ValueError(f"{attr.keyword} must be from {attr.low} to {attr.high}")
    return value


# Objects every new queue manager has (mqsc.md, "Default objects")
SYSTEM_DEFAULT_LOCAL = "SYSTEM.DEFAULT.LOCAL.QUEUE"
SYSTEM_DEFAULT_MODEL = "SYSTEM.DEFAULT.MODEL.QUEUE"
SYSTEM_DEFAULT_ALIAS = "SYSTEM.DEFAULT.ALIAS.QUEUE"
SYSTEM_DEFAULT_INITQ = "SYSTEM.DEFAULT.INITIATION.QUEUE"
SYSTEM_DEAD_LETTER = "SYSTEM.DEAD.LETTER.QUEUE"
SYSTEM_ADMIN_COMMAND = "SYSTEM.ADMIN.COMMAND.QUEUE"
SYSTEM_DEFAULT_PROCESS = "SYSTEM.DEFAULT.PROCESS"
SYSTEM_DEFAULT_NAMELIST = "SYSTEM.DEFAULT.NAMELIST"
SYSTEM_MODEL_REPLY = "SYSTEM.DEFAULT.MODEL.QUEUE"
SYSTEM_BASE_TOPIC = "SYSTEM.BASE.TOPIC"
SYSTEM_DURABLE_MODEL = "SYSTEM.DURABLE.MODEL.QUEUE"
SYSTEM_NDURABLE_MODEL = "SYSTEM.NDURABLE.MODEL.QUEUE"
# SYSTEM.BASE.TOPIC's attributes (reference/properties-pubsub.md): the root every topic inherits from
BASE_TOPIC_ATTRS: dict[str, Any] = {
    "TOPDESCR": "Base topic for ASPARENT resolution",
    "DURSUB": 1,
    "PUB": 2,
    "SUB": 2,
    "MDURMDL": SYSTEM_DURABLE_MODEL,
    "MNDURMDL": SYSTEM_NDURABLE_MODEL,
    "TPDEFPSIST": 0,
    "TPDEFPRTY": 0,
    "USEDLQ": 2,
    "PUBSCOPE": 0,
    "SUBSCOPE": 0,
}


def pubsub_objects() -> list[tuple[str, str, dict[str, Any]]]:
    """The publish/subscribe objects every queue manager has: SYSTEM.BASE.TOPIC and the model queues of managed
    subscriptions (durable: permanent dynamic; non-durable: temporary dynamic)."""
    return [
        (TOPIC, SYSTEM_BASE_TOPIC, dict(BASE_TOPIC_ATTRS)),
        (QMODEL, SYSTEM_DURABLE_MODEL, {"DEFTYPE": C.MQQDT_PERMANENT_DYNAMIC, "DEFPSIST": C.MQPER_PERSISTENT}),
        (QMODEL, SYSTEM_NDURABLE_MODEL, {"DEFTYPE": C.MQQDT_TEMPORARY_DYNAMIC}),
    ]


# The queues IBM's crtmqm makes for events, statistics, accounting, activity and trace-route messages (IBM MQ,
# "System and default objects"), each a QLOCAL with MAXDEPTH(3000) as IBM's
SYSTEM_ADMIN_QUEUES = {
    "SYSTEM.ADMIN.ACCOUNTING.QUEUE": "syncpoint accounting queue",
    "SYSTEM.ADMIN.ACTIVITY.QUEUE": "syncpoint activity queue",
    "SYSTEM.ADMIN.CHANNEL.EVENT": "syncpoint channel events queue",
    "SYSTEM.ADMIN.COMMAND.EVENT": "syncpoint command events queue",
    "SYSTEM.ADMIN.CONFIG.EVENT": "syncpoint configuration events queue",
    "SYSTEM.ADMIN.LOGGER.EVENT": "syncpoint logger events queue",
    "SYSTEM.ADMIN.PERFM.EVENT": "syncpoint performance events queue",
    "SYSTEM.ADMIN.PUBSUB.EVENT": "syncpoint publish/subscribe events queue",
    "SYSTEM.ADMIN.QMGR.EVENT": "syncpoint queue manager events queue",
    "SYSTEM.ADMIN.STATISTICS.QUEUE": "syncpoint statistics queue",
    "SYSTEM.ADMIN.TRACE.ACTIVITY.QUEUE": "syncpoint trace activity queue",
    "SYSTEM.ADMIN.TRACE.ROUTE.QUEUE": "syncpoint trace-route queue",
}


def admin_queue_objects() -> list[tuple[str, str, dict[str, Any]]]:
    """The event, statistics, accounting, activity and trace-route queues every queue manager has."""
    return [(QLOCAL, name, {"DESCR": descr, "MAXDEPTH": 3000}) for name, descr in SYSTEM_ADMIN_QUEUES.items()]


def default_objects() -> list[tuple[str, str, dict[str, Any]]]:
    return [
        (QLOCAL, SYSTEM_DEFAULT_LOCAL, {}),
        (QMODEL, SYSTEM_DEFAULT_MODEL, {"DEFTYPE": C.MQQDT_TEMPORARY_DYNAMIC}),
        (QALIAS, SYSTEM_DEFAULT_ALIAS, {}),
        (QLOCAL, SYSTEM_DEFAULT_INITQ, {"DESCR": "syncpoint default initiation queue"}),
        (QLOCAL, SYSTEM_DEAD_LETTER, {"DESCR": "syncpoint dead-letter queue", "MAXDEPTH": 999_999_999}),
        (QLOCAL, SYSTEM_ADMIN_COMMAND, {"DESCR": "syncpoint command server input", "MAXDEPTH": 3000}),
        (PROCESS, SYSTEM_DEFAULT_PROCESS, {}),
        (NAMELIST, SYSTEM_DEFAULT_NAMELIST, {}),
        *pubsub_objects(),
        (AUTHINFO, SYSTEM_DEFAULT_AUTHINFO, {}),
        *svrconn_objects(),
        *admin_queue_objects(),
    ]


def svrconn_objects() -> list[tuple[str, str, dict[str, Any]]]:
    """IBM's server-connection channels of a new queue manager: SYSTEM.DEF.SVRCONN (the default a client names)
    and SYSTEM.ADMIN.SVRCONN (the administration tools')."""
    return [
        (CHANNEL, SYSTEM_DEF_SVRCONN, {"CHLTYPE": MQCHT_SVRCONN}),
        (CHANNEL, SYSTEM_ADMIN_SVRCONN, {"CHLTYPE": MQCHT_SVRCONN}),
    ]


def valid_object_name(name: str) -> bool:
    """IBM's rule for object names: 1-48 characters from A-Z a-z 0-9 . / _ %."""
    if not 1 <= len(name) <= 48:
        return False
    return all(ch.isascii() and (ch.isalnum() or ch in "._/%") for ch in name)


_CHAR_LENGTHS = {
    C.MQCA_Q_NAME: 48,
    C.MQCA_Q_MGR_NAME: 48,
    C.MQCA_CREATION_DATE: 12,
    C.MQCA_CREATION_TIME: 8,
    C.MQCA_ALTERATION_DATE: 12,
    C.MQCA_ALTERATION_TIME: 8,
    C.MQCA_PROCESS_NAME: 48,
    C.MQCA_NAMELIST_NAME: 48,
}
MQIAV_NOT_APPLICABLE = -2  # MQINQ's value for an integer attribute the object does not have


def char_attr_length(sel: int) -> int:
    """IBM's length of the character attribute ``sel`` as MQINQ returns it and MQSET takes it (cmqc.h's
    MQ_*_LENGTH): the attribute table's length, the computed attributes' own, 48 for anything else."""
    if sel in _CHAR_LENGTHS:
        return _CHAR_LENGTHS[sel]
    if sel in KEPT_QMGR_CHAR_LENGTHS:
        return KEPT_QMGR_CHAR_LENGTHS[sel]
    kw = SELECTOR_TO_KEYWORD.get(sel)
    if kw is not None:
        return ATTRIBUTES[kw].length
    return 48
