"""Message handles and properties through unmodified ibmmq and pymqi programs (bindings mode, embedded queue
manager): MQCRTMH, MQSETMP, MQINQMP (wildcard, cursor, the real length of a value too big), MQDLTMP, MQDLTMH;
MQPUT with OriginalMsgHandle, MQGET with MsgHandle. Rules: reference/properties-pubsub.md ("Message
properties"); ibmmq 2.1.2's test_message_property.py runs the same calls (docs/compatibility.md)."""

from __future__ import annotations

import json

from compat_harness import ProgramRunner


def observed(run_program: ProgramRunner, source: str) -> dict[str, object]:
    out = run_program(source).stdout.strip().splitlines()
    return json.loads(out[-1])  # type: ignore[no-any-return]


def test_ibmmq_message_handles_carry_properties_through_put_and_get(run_program: ProgramRunner) -> None:
    got = observed(
        run_program,
        """
import json, ibmmq as mq
CMQC = mq.CMQC
qmgr = mq.connect("QM1")
out = {}
put_h = mq.MessageHandle(qmgr)
put_h.properties.set("color", "red")
put_h.properties.set("size", 42, property_type=CMQC.MQTYPE_INT32, value_length=4)
put_h.properties.set("shop.north", 1, property_type=CMQC.MQTYPE_INT8, value_length=1)
put_h.properties.set("shop.south", 300, property_type=CMQC.MQTYPE_INT8, value_length=1)  # C cast: 44
try:
    put_h.properties.set("NULL", "x")
except mq.MQMIError as e:
    out["bad_name"] = [e.comp, e.reason]
put_h.properties.dlt("size")
try:
    put_h.properties.dlt("size")
except mq.MQMIError as e:
    out["dlt_missing"] = [e.comp, e.reason]
put_h.properties.set("size", 42, property_type=CMQC.MQTYPE_INT32, value_length=4)
q = mq.Queue(qmgr, "SYSTEM.DEFAULT.LOCAL.QUEUE", CMQC.MQOO_INPUT_AS_Q_DEF | CMQC.MQOO_OUTPUT)
pmo = mq.PMO(Version=CMQC.MQPMO_CURRENT_VERSION)
pmo.OriginalMsgHandle = put_h.msg_handle
q.put(b"body", mq.MD(), pmo)
get_h = mq.MessageHandle(qmgr)
gmo = mq.GMO(Version=CMQC.MQGMO_CURRENT_VERSION)
gmo.Options = CMQC.MQGMO_NO_WAIT | CMQC.MQGMO_PROPERTIES_IN_HANDLE
gmo.MsgHandle = get_h.msg_handle
out["data"] = q.get(None, mq.MD(), gmo).decode()
p = get_h.properties
out["color"] = p.get("color")
out["size_as_string"] = p.get("size", property_type=CMQC.MQTYPE_STRING,
                              impo_options=CMQC.MQIMPO_CONVERT_TYPE)
try:
    p.get("color", max_value_length=2)
except mq.MQMIError as e:
    out["too_big"] = [e.comp, e.reason, e.data_length]
try:
    p.get("weight")
except mq.MQMIError as e:
    out["missing"] = [e.comp, e.reason]
first = p.get("shop.%")
nxt = p.get("shop.%", impo_options=CMQC.MQIMPO_INQ_NEXT)
out["wildcard"] = [list(first), list(nxt)]
get_h.dlt()
try:
    get_h.properties.get("color")
except mq.MQMIError as e:
    out["deleted_handle"] = [e.comp, e.reason]
gmo = mq.GMO(Version=CMQC.MQGMO_CURRENT_VERSION)
gmo.Options = CMQC.MQGMO_NO_WAIT | CMQC.MQGMO_PROPERTIES_IN_HANDLE
q.put(b"again", mq.MD(), pmo)
try:
    q.get(None, mq.MD(), gmo)
except mq.MQMIError as e:
    out["in_handle_without_handle"] = [e.comp, e.reason]
out["still_there"] = q.get(None, mq.MD()).decode()
print(json.dumps(out))
""",
    )
    assert got["bad_name"] == [2, 2442]  # MQRC_PROPERTY_NAME_ERROR
    assert got["dlt_missing"] == [1, 2471]  # a warning: MQRC_PROPERTY_NOT_AVAILABLE
    assert got["data"] == "body" and got["color"] == "red" and got["size_as_string"] == "42"
    assert got["too_big"] == [2, 2469, 3]  # MQRC_PROPERTY_VALUE_TOO_BIG with the real length
    assert got["missing"] == [2, 2471]
    assert got["wildcard"] == [[1, "shop.north"], [44, "shop.south"]]
    assert got["deleted_handle"] == [2, 2460]  # MQRC_HMSG_ERROR
    assert got["in_handle_without_handle"] == [2, 2460]
    assert got["still_there"] == "again"


def test_pymqi_message_properties_round_trip(run_program: ProgramRunner) -> None:
    got = observed(
        run_program,
        """
import json, pymqi
CMQC = pymqi.CMQC
qmgr = pymqi.connect("QM1")
put_h = pymqi.MessageHandle(qmgr)
put_h.properties.set("flag", True, property_type=CMQC.MQTYPE_BOOLEAN, value_length=4)
put_h.properties.set("blob", b"\\x01\\x02", property_type=CMQC.MQTYPE_BYTE_STRING, value_length=2)
q = pymqi.Queue(qmgr, "SYSTEM.DEFAULT.LOCAL.QUEUE", CMQC.MQOO_INPUT_AS_Q_DEF | CMQC.MQOO_OUTPUT)
pmo = pymqi.PMO(Version=CMQC.MQPMO_VERSION_3)
pmo.OriginalMsgHandle = put_h.msg_handle
q.put(b"body", pymqi.MD(), pmo)
get_h = pymqi.MessageHandle(qmgr)
gmo = pymqi.GMO(Version=CMQC.MQGMO_VERSION_4)
gmo.Options = CMQC.MQGMO_PROPERTIES_IN_HANDLE
gmo.MsgHandle = get_h.msg_handle
q.get(None, pymqi.MD(), gmo)
print(json.dumps({"flag": get_h.properties.get("flag"), "blob": get_h.properties.get("blob").hex()}))
""",
    )
    assert got == {"flag": 1, "blob": "0102"}
