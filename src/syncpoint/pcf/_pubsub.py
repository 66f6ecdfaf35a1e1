"""The command server's publish/subscribe commands: Create / Change / Delete / Inquire Subscription, Inquire
Subscription Status, Create / Change / Delete / Inquire Topic, Inquire Topic Names, Inquire Topic Status, Clear
Topic String, Inquire Pub/Sub Status (IBM's PCF reference, "Subscription" and "Topic" commands; cmqcfc.h for
the numbers).

Each handler takes the command server and the parsed request and returns the response bodies, as the queue and
process commands do (``_server``); it reaches the queue manager through its client connection's administrative
verbs (``define_sub``, ``subscriptions``, ``define`` of a TOPIC …), so a refused command changes nothing.
A subscription is named by MQCACF_SUB_NAME (generic with a trailing ``*`` on Inquire) or MQBACF_SUB_ID.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from syncpoint.mqi import constants as C
from syncpoint.mqi import matches_generic, mqsc_date_time
from syncpoint.mqi.objects import TOPIC, attributes_for

from . import _constants as K
from ._request import CommandFailedError, Request, attr_value_to_pcf
from ._structs import MQCFBS, MQCFIN, MQCFSL, MQCFST, Param

if TYPE_CHECKING:
    from collections.abc import Callable

Reply = list[list[Param]]
CommandServer = Any  # ``_server``'s, which registers these handlers (so never imported here)


def _s(pid: int, value: str, length: int = 0) -> MQCFST:
    b = value.encode()
    return MQCFST(pid, b.ljust(length) if length else b)


def _sub_named(cs: CommandServer, req: Request, generic: bool) -> dict[str, Any]:
    """The selection of a subscription command: SubName (generic on Inquire) or SubId, as admin arguments."""
    sub_id = req.params.get(K.MQBACF_SUB_ID)
    if sub_id is not None:
        req.used.add(K.MQBACF_SUB_ID)
        if not isinstance(sub_id, MQCFBS) or len(sub_id.String) != 24:
            raise CommandFailedError(K.MQRCCF_ATTR_VALUE_ERROR, "SubId must be 24 bytes", K.MQBACF_SUB_ID)
        return {"sub_id": bytes(sub_id.String)}
    name = req.string(K.MQCACF_SUB_NAME, required=True)
    assert name is not None
    if "*" in name and (not generic or not name.endswith("*")):
        raise CommandFailedError(K.MQRCCF_SUB_NAME_ERROR, "a generic SubName is for Inquire only", K.MQCACF_SUB_NAME)
    return {"name": name}


def _sub_attrs(req: Request) -> dict[str, Any]:
    """The subscription attributes of a Create or Change Subscription, by MQSC keyword."""
    out: dict[str, Any] = {}
    for pid, kw in (
        (C.MQCA_TOPIC_STRING, "TOPICSTR"),
        (C.MQCA_TOPIC_NAME, "TOPICOBJ"),
        (K.MQCACF_DESTINATION, "DEST"),
        (K.MQCACF_DESTINATION_Q_MGR, "DESTQMGR"),
        (K.MQCACF_SUB_USER_DATA, "USERDATA"),
    ):
        v = req.string(pid, required=False)
        if v is not None:
            out[kw] = v
    for pid, kw in (
        (K.MQIACF_DESTINATION_CLASS, "DESTCLAS"),
        (K.MQIACF_EXPIRY, "EXPIRY"),
        (K.MQIACF_PUB_PRIORITY, "PUBPRTY"),
        (K.MQIACF_WILDCARD_SCHEMA, "WSCHEMA"),
    ):
        i = req.integer(pid)
        if i is not None:
            out[kw] = i
    reqonly = req.integer(K.MQIACF_REQUEST_ONLY)
    if reqonly is not None:
        out["REQONLY"] = reqonly == C.MQRU_PUBLISH_ON_REQUEST
    selector = req.string(K.MQCACF_SUB_SELECTOR, required=False)
    if selector:
        out["SELECTOR"] = selector
    return out


def create_subscription(cs: CommandServer, req: Request) -> Reply:
    name = req.string(K.MQCACF_SUB_NAME, required=True)
    assert name is not None
    replace = cs._replace(req)
    attrs = _sub_attrs(req)
    cs._no_extra(req)
    cs._admin("define_sub", name, attrs, replace)
    return []


def change_subscription(cs: CommandServer, req: Request) -> Reply:
    named = _sub_named(cs, req, generic=False)
    attrs = _sub_attrs(req)
    cs._no_extra(req)
    name = named.get("name") or cs._admin("subscriptions", sub_id=named["sub_id"])[0]["SUB"]
    cs._admin("alter_sub", name, attrs)
    return []


def delete_subscription(cs: CommandServer, req: Request) -> Reply:
    named = _sub_named(cs, req, generic=False)
    cs._no_extra(req)
    cs._admin("delete_sub", **named)
    return []


def _describe_sub(v: dict[str, Any], status: bool) -> list[Param]:
    out: list[Param] = [
        _s(K.MQCACF_SUB_NAME, v["SUB"]),
        MQCFBS(K.MQBACF_SUB_ID, bytes.fromhex(v["SUBID"])),
    ]
    if status:
        out += [
            MQCFBS(K.MQBACF_CONNECTION_ID, bytes.fromhex(v["ACTCONN"])),
            MQCFIN(K.MQIACF_DURABLE_SUBSCRIPTION, v["DURABLE"]),
            MQCFIN(K.MQIACF_SUB_TYPE, v["SUBTYPE"]),
            _s(K.MQCACF_LAST_MSG_DATE, v["LMSGDATE"], 12),
            _s(K.MQCACF_LAST_MSG_TIME, v["LMSGTIME"], 8),
            MQCFIN(K.MQIACF_MESSAGE_COUNT, v["NUMMSGS"]),
            _s(C.MQCA_TOPIC_STRING, v["RESOLVED"]),
        ]
        return out
    out += [
        _s(C.MQCA_TOPIC_STRING, v["TOPICSTR"]),
        _s(C.MQCA_TOPIC_NAME, v["TOPICOBJ"], 48),
        _s(K.MQCACF_DESTINATION, v["DEST"], 48),
        _s(K.MQCACF_DESTINATION_Q_MGR, v["DESTQMGR"], 48),
        MQCFBS(K.MQBACF_DESTINATION_CORREL_ID, bytes.fromhex(v["DESTCORL"])),
        MQCFIN(K.MQIACF_DESTINATION_CLASS, v["DESTCLAS"]),
        MQCFIN(K.MQIACF_DURABLE_SUBSCRIPTION, v["DURABLE"]),
        MQCFIN(K.MQIACF_SUB_TYPE, v["SUBTYPE"]),
        MQCFIN(K.MQIACF_EXPIRY, v["EXPIRY"]),
        MQCFIN(K.MQIACF_PUB_PRIORITY, v["PUBPRTY"]),
        MQCFIN(K.MQIACF_REQUEST_ONLY, v["REQONLY"]),
        MQCFIN(K.MQIACF_WILDCARD_SCHEMA, v["WSCHEMA"]),
        MQCFIN(K.MQIACF_SUBSCRIPTION_SCOPE, v["SUBSCOPE"]),
        MQCFIN(K.MQIACF_SUB_LEVEL, v["SUBLEVEL"]),
        _s(K.MQCACF_SUB_USER_DATA, v["USERDATA"]),
        _s(K.MQCACF_SUB_SELECTOR, v["SELECTOR"]),
        _s(C.MQCA_CREATION_DATE, v["CRDATE"], 12),
        _s(C.MQCA_CREATION_TIME, v["CRTIME"], 8),
        _s(C.MQCA_ALTERATION_DATE, v["ALTDATE"], 12),
        _s(C.MQCA_ALTERATION_TIME, v["ALTTIME"], 8),
    ]
    return out


def inquire_subscription(cs: CommandServer, req: Request) -> Reply:
    named = _sub_named(cs, req, generic=True)
    req.int_list(K.MQIACF_SUB_ATTRS)
    req.integer(K.MQIACF_DURABLE_SUBSCRIPTION)
    req.integer(K.MQIACF_SUB_TYPE)
    cs._no_extra(req)
    return [_describe_sub(v, False) for v in cs._admin("subscriptions", **named)]


def inquire_sub_status(cs: CommandServer, req: Request) -> Reply:
    named = _sub_named(cs, req, generic=True)
    req.int_list(K.MQIACF_SUB_ATTRS)
    cs._no_extra(req)
    return [_describe_sub(v, True) for v in cs._admin("subscriptions", **named)]


# -- topics -------------------------------------------------------------------------------------------
def _describe_topic(d: Any) -> list[Param]:
    out: list[Param] = [attr_value_to_pcf(C.MQCA_TOPIC_NAME, d.name, 48), MQCFIN(C.MQIA_TOPIC_TYPE, C.MQTOPT_LOCAL)]
    for attr in attributes_for(TOPIC):
        if attr.selector:
            value = d.attrs.get(attr.keyword, attr.default)
            out.append(
                attr_value_to_pcf(attr.selector, value, attr.length if attr.is_char and attr.length <= 64 else 0)
            )
    cdate, ctime = mqsc_date_time(d.created)
    adate, atime = mqsc_date_time(d.altered)
    out += [
        _s(C.MQCA_ALTERATION_DATE, adate, 12),
        _s(C.MQCA_ALTERATION_TIME, atime, 8),
        _s(C.MQCA_CREATION_DATE, cdate, 12),
        _s(C.MQCA_CREATION_TIME, ctime, 8),
    ]
    return out


def _topic_name(req: Request) -> str:
    name = req.string(C.MQCA_TOPIC_NAME, required=True)
    assert name is not None
    return name


def create_topic(cs: CommandServer, req: Request) -> Reply:
    name = _topic_name(req)
    replace = cs._replace(req)
    attrs = req.attributes(TOPIC)  # every other parameter: an attribute, or refused
    cs._admin("define", TOPIC, name, attrs, None, replace)
    return []


def change_topic(cs: CommandServer, req: Request) -> Reply:
    name = _topic_name(req)
    attrs = req.attributes(TOPIC)  # every other parameter: an attribute, or refused
    cs._admin("alter", TOPIC, name, attrs)
    return []


def delete_topic(cs: CommandServer, req: Request) -> Reply:
    name = _topic_name(req)
    cs._no_extra(req)
    cs._admin("delete", TOPIC, name)
    return []


def inquire_topic(cs: CommandServer, req: Request) -> Reply:
    pattern = _topic_name(req)
    req.int_list(K.MQIACF_TOPIC_ATTRS)
    req.integer(C.MQIA_TOPIC_TYPE)
    cs._no_extra(req)
    found = [d for d in cs._admin("list_objects", TOPIC) if matches_generic(pattern, d.name)]
    if not found:
        raise CommandFailedError(C.MQRC_UNKNOWN_OBJECT_NAME, "no topic object matches")
    return [_describe_topic(d) for d in found]


def inquire_topic_names(cs: CommandServer, req: Request) -> Reply:
    pattern = _topic_name(req)
    cs._no_extra(req)
    names = sorted(
        d.name.encode().ljust(48) for d in cs._admin("list_objects", TOPIC) if matches_generic(pattern, d.name)
    )
    return [[MQCFSL(K.MQCACF_TOPIC_NAMES, names, 0, 48)]]


def inquire_topic_status(cs: CommandServer, req: Request) -> Reply:
    topic = req.string(C.MQCA_TOPIC_STRING, required=True)
    assert topic is not None
    req.int_list(K.MQIACF_TOPIC_STATUS_ATTRS)
    req.integer(K.MQIACF_TOPIC_STATUS_TYPE)
    cs._no_extra(req)
    if topic.endswith("#"):
        prefix = topic[:-1].rstrip("/")
        topics = [t for t in cs._admin("topic_strings") if not prefix or t == prefix or t.startswith(prefix + "/")]
    else:
        topics = [topic]
    out: Reply = []
    for t in topics:
        st = cs._admin("topic_status", t)
        out.append(
            [
                _s(C.MQCA_TOPIC_STRING, t),
                _s(C.MQCA_ADMIN_TOPIC_NAME, st["ADMIN"], 48),
                MQCFIN(C.MQIA_DURABLE_SUB, st["DURSUB"]),
                MQCFIN(C.MQIA_INHIBIT_PUB, st["PUB"]),
                MQCFIN(C.MQIA_INHIBIT_SUB, st["SUB"]),
                _s(C.MQCA_MODEL_DURABLE_Q, st["MDURMDL"], 48),
                _s(C.MQCA_MODEL_NON_DURABLE_Q, st["MNDURMDL"], 48),
                MQCFIN(C.MQIA_TOPIC_DEF_PERSISTENCE, st["DEFPSIST"]),
                MQCFIN(C.MQIA_DEF_PRIORITY, st["DEFPRTY"]),
                MQCFIN(C.MQIA_USE_DEAD_LETTER_Q, st["USEDLQ"]),
                MQCFIN(K.MQIACF_RETAINED_PUBLICATION, 1 if st["RETAINED"] else 0),
                MQCFIN(C.MQIA_PUB_COUNT, st["PUBCOUNT"]),
                MQCFIN(C.MQIA_SUB_COUNT, st["SUBCOUNT"]),
            ]
        )
    return out


def clear_topic_string(cs: CommandServer, req: Request) -> Reply:
    topic = req.string(C.MQCA_TOPIC_STRING, required=True)
    clear = req.integer(K.MQIACF_CLEAR_TYPE, required=True)
    cs._no_extra(req)
    if clear != K.MQCLRT_RETAINED:
        raise CommandFailedError(K.MQRCCF_ATTR_VALUE_ERROR, "ClearType must be MQCLRT_RETAINED", K.MQIACF_CLEAR_TYPE)
    cs._admin("clear_topicstr", topic)
    return []


_PSST = {K.MQPSST_ALL: "ALL", K.MQPSST_LOCAL: "LOCAL", K.MQPSST_PARENT: "PARENT", K.MQPSST_CHILD: "CHILD"}
_PS_STATUS = {"ACTIVE": K.MQPS_STATUS_ACTIVE, "COMPAT": K.MQPS_STATUS_COMPAT, "INACTIVE": K.MQPS_STATUS_INACTIVE}


def inquire_pubsub_status(cs: CommandServer, req: Request) -> Reply:
    """Inquire Pub/Sub Status: the answer of DISPLAY PUBSUB (the engine's ``pubsub_status``), IBM's numbers.
    PubSubStatusAttrs picks among Status, SubCount and TopicNodeCount; QueueManagerName and Type always come."""
    wanted = req.int_list(K.MQIACF_PUBSUB_STATUS_ATTRS)
    kind = req.integer(K.MQIACF_PS_STATUS_TYPE)
    cs._no_extra(req)
    if kind is not None and kind not in _PSST:
        raise CommandFailedError(
            K.MQRCCF_ATTR_VALUE_ERROR, f"Type {kind} is not an MQPSST_* value", K.MQIACF_PS_STATUS_TYPE
        )
    every = wanted is None or K.MQIACF_ALL in wanted
    out: Reply = []
    for row in cs._admin("pubsub_status", _PSST[kind if kind is not None else K.MQPSST_ALL]):
        body: list[Param] = [
            _s(C.MQCA_Q_MGR_NAME, row["QMNAME"], 48),
            MQCFIN(K.MQIACF_PS_STATUS_TYPE, K.MQPSST_LOCAL),
        ]
        for pid, value in (
            (K.MQIACF_PUBSUB_STATUS, _PS_STATUS[row["STATUS"]]),
            (C.MQIA_SUB_COUNT, row["SUBCOUNT"]),
            (C.MQIA_TOPIC_NODE_COUNT, row["TPCOUNT"]),
        ):
            if every or (wanted is not None and pid in wanted):
                body.append(MQCFIN(pid, value))
        out.append(body)
    return out


HANDLERS: dict[int, Callable[[CommandServer, Request], Reply]] = {
    K.MQCMD_CREATE_SUBSCRIPTION: create_subscription,
    K.MQCMD_CHANGE_SUBSCRIPTION: change_subscription,
    K.MQCMD_DELETE_SUBSCRIPTION: delete_subscription,
    K.MQCMD_INQUIRE_SUBSCRIPTION: inquire_subscription,
    K.MQCMD_INQUIRE_SUB_STATUS: inquire_sub_status,
    K.MQCMD_CREATE_TOPIC: create_topic,
    K.MQCMD_CHANGE_TOPIC: change_topic,
    K.MQCMD_DELETE_TOPIC: delete_topic,
    K.MQCMD_INQUIRE_TOPIC: inquire_topic,
    K.MQCMD_INQUIRE_TOPIC_NAMES: inquire_topic_names,
    K.MQCMD_INQUIRE_TOPIC_STATUS: inquire_topic_status,
    K.MQCMD_CLEAR_TOPIC_STRING: clear_topic_string,
    K.MQCMD_INQUIRE_PUBSUB_STATUS: inquire_pubsub_status,
}
