"""The MQInput node exposes a message's properties and the output node writes them (issue 34, item 2).

IBM's message tree: an MQInput node shows the message's properties in the Properties folder and the MQRFH2's
``usr`` folder (``InputRoot.MQRFH2.usr.X``); an MQOutput node writes the output tree's. Which properties an
output carries by default follows IBM's MQPD CopyOptions: MQCOPY_DEFAULT is FORWARD + REPORT + PUBLISH, so a
message forwarded to a queue keeps the input's properties and a reply (MQCOPY_REPLY) does not. A property the
flow sets that MQSETMP refuses is an exception in the flow (the message is backed out, nothing put).
"""

from __future__ import annotations

from typing import Any

from syncpoint.flow import Action, FlowMessage, Handlers, Output, process_message
from syncpoint.flow._spark import run_node
from syncpoint.mqi import MQMD
from syncpoint.mqi import constants as C
from syncpoint.mqi.properties import build
from syncpoint.spark._rows import COLUMN_NAMES, message_to_row

PROPS = build({"colour": "red", "usr.size": (C.MQTYPE_INT32, 3), "jms.Dst": "queue:///IN"})


def msg() -> FlowMessage:
    md = {"BackoutCount": 0, "Persistence": C.MQPER_PERSISTENT, "MsgId": b"M" * 24, "ReplyToQ": "REPLY"}
    return FlowMessage(b"hello", md, queue="IN", token=1, typed_properties=PROPS)


def test_the_node_shows_the_properties_and_the_usr_folder() -> None:
    m = msg()
    assert m.properties == {"colour": "red", "usr.size": 3, "jms.Dst": "queue:///IN"}
    assert m.usr == {"colour": "red", "size": 3}  # InputRoot.MQRFH2.usr: no jms / mcd / mqext properties


def test_a_forwarded_output_keeps_the_inputs_properties_a_reply_does_not_and_a_flow_may_set_its_own() -> None:
    def out(m: FlowMessage) -> Any:
        return [
            m.data.upper(),  # forwarded to the default queue: MQCOPY_FORWARD
            Output(b"reply", reply=True),  # MQCOPY_REPLY is not in MQCOPY_DEFAULT
            Output(b"own", queue="OWN", properties={"total": 9, **m.usr}),
            Output(b"none", queue="NONE", properties={}),
        ]

    d = process_message(msg(), Handlers(out, default_queue="OUT"), 1)
    assert d.action is Action.COMMIT
    assert [(p.queue, p.props) for p in d.puts] == [
        ("OUT", PROPS),
        ("REPLY", None),
        ("OWN", build({"total": 9, "colour": "red", "size": 3})),  # usr gives values: typed as Python types them
        ("NONE", None),
    ]
    assert d.puts[0].from_json(d.puts[0].to_json()) == d.puts[0]  # the disposition travels with them


def test_a_property_mqsetmp_refuses_is_an_exception_in_the_flow_and_nothing_is_put() -> None:
    d = process_message(msg(), Handlers(lambda m: Output(b"x", queue="OUT", properties={"NULL": 1})), 1)
    assert d.action is Action.BACKOUT and d.puts == []
    assert "2442" in (d.error or "")  # MQRC_PROPERTY_NAME_ERROR: an SQL keyword


def test_a_dataframe_stages_rows_carry_the_properties_to_the_node() -> None:
    row = dict(zip(COLUMN_NAMES, message_to_row("IN", 7, b"x", MQMD(), PROPS), strict=True))
    row["properties"], row["property_types"] = dict(row["properties"]), dict(row["property_types"])
    seen: list[Any] = []
    ds = run_node(
        [row], Handlers(lambda m: seen.append(m.typed_properties)), {}, logical_order=False, all_or_nothing=False
    )
    assert ds[0].action is Action.COMMIT and seen == [PROPS]
