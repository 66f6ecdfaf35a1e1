"""Message properties in the "syncpoint" Spark data source (issue 34, item 1): the source's ``properties`` and
``property_types`` map columns, and the sinks (batch and the exactly-once stream) writing them back.

The rule checked (docs/spark.md, "Message properties"; reference/properties-pubsub.md for the types and their
MQRFH2 ``dt`` names): a row read from a queue and written to another puts a message whose properties equal the
original's, every MQTYPE_* included (FLT_MIN, DBL_MIN and NULL as ibmmq's test_message_property.py uses them);
a row's property that IBM's MQSETMP refuses is an error naming the column and the reason, and nothing is put.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from syncpoint.client import QueueManager
from syncpoint.mqi import MQMD
from syncpoint.mqi import constants as C
from syncpoint.mqi.properties import build
from syncpoint.spark._rows import COLUMN_NAMES, message_to_row, props_from_row

Server = Any

EVERY_TYPE = {
    "flag": True,
    "bytes": b"\x00\xff",
    "i8": (C.MQTYPE_INT8, -127),
    "i16": (C.MQTYPE_INT16, -32768),
    "i32": (C.MQTYPE_INT32, -2147483647),
    "i64": -9223372036854775808,
    "f32": (C.MQTYPE_FLOAT32, 1.1754943508222875e-38),
    "f64": 2.2250738585072014e-308,
    "text": "grün",
    "nothing": None,
    "jms.Dst": "queue:///OUT",
}
TYPED = build(EVERY_TYPE)


def opts(server: Server, queue: str) -> dict[str, str]:
    return {"qmgr": server.name, "home": str(server.home), "queue": queue}


def typed(qm: QueueManager, queue: str) -> list[Any]:
    return [m.typed_properties for m in qm.open(queue).browse_all()]


# -- the columns, without Spark ------------------------------------------------------------------------------
def test_properties_become_a_text_map_and_a_type_map_that_give_them_back_exactly() -> None:
    row = dict(zip(COLUMN_NAMES, message_to_row("Q", 1, b"x", MQMD(), TYPED), strict=True))
    values, types = dict(row["properties"]), dict(row["property_types"])
    assert values["flag"] == "true" and types["flag"] == "boolean"
    assert values["bytes"] == "00ff" and types["bytes"] == "bin.hex"
    assert (values["i8"], types["i8"], types["i16"], types["i32"], types["i64"]) == ("-127", "i1", "i2", "i4", "i8")
    assert (types["f32"], types["f64"], values["nothing"], types["nothing"]) == ("r4", "r8", None, "null")
    assert props_from_row({"properties": values, "property_types": types}) == TYPED
    assert props_from_row({"properties": {"colour": "red"}}) == {"colour": (C.MQTYPE_STRING, "red")}
    assert props_from_row({"properties": {"n": 5}}) == {"n": (C.MQTYPE_INT64, 5)}  # as the Pythonic API types it
    no_props = dict(zip(COLUMN_NAMES, message_to_row("Q", 1, b"x", MQMD()), strict=True))
    assert (no_props["properties"], no_props["property_types"]) == ([], [])


@pytest.mark.parametrize(
    ("row", "words"),
    [
        ({"properties": {"NULL": "x"}}, "2442"),  # an SQL keyword: MQRC_PROPERTY_NAME_ERROR
        ({"properties": {"n": "x"}, "property_types": {"n": "i4"}}, "not a value of type i4"),
        ({"properties": {"n": "300"}, "property_types": {"n": "i1"}}, "2473"),  # out of MQTYPE_INT8's range
        ({"properties": {"n": "1"}, "property_types": {"n": "decimal"}}, "property_types"),
    ],
)
def test_a_property_mqsetmp_refuses_is_an_error_naming_the_column(row: dict[str, Any], words: str) -> None:
    with pytest.raises(ValueError, match=words) as e:
        props_from_row(row)
    assert "column" in str(e.value)


# -- real Spark ----------------------------------------------------------------------------------------------
def test_batch_read_exposes_the_properties_and_batch_write_puts_them_back_equal(
    spark: Any, server: Server, qm: QueueManager, names: Any
) -> None:
    src, dst = names.pair(qm, "PROPS")
    qm.open(src).put("with", properties=EVERY_TYPE)
    qm.open(src).put("without")
    df = spark.read.format("syncpoint").options(**opts(server, src)).load().orderBy("token")
    first, second = df.select("data", "properties", "property_types").collect()
    assert first["data"] == b"with" and first["properties"]["text"] == "grün"
    assert first["property_types"]["f32"] == "r4" and first["properties"]["nothing"] is None
    assert second["properties"] == {} and second["property_types"] == {}
    assert df.filter("properties['text'] = 'grün'").count() == 1  # a plain Spark filter on a property
    df.select("data", "properties", "property_types").write.format("syncpoint").options(**opts(server, dst)).mode(
        "append"
    ).save()
    assert typed(qm, dst) == [TYPED, None]


def test_the_stream_sink_writes_the_properties_of_each_row_exactly_once(
    spark: Any, server: Server, qm: QueueManager, names: Any, tmp_path: Path
) -> None:
    src, dst = names.pair(qm, "PROPS.S")
    qm.open(src).put_many([f"m{i}" for i in range(3)], persistent=True, properties=[EVERY_TYPE, None, {"k": "v"}])
    df = spark.readStream.format("syncpoint").options(**opts(server, src)).load()
    out = df.selectExpr("queue", "token", "upper(text) AS data", "properties", "property_types")
    w = out.writeStream.format("syncpoint").options(**opts(server, dst))
    query = w.option("checkpointLocation", str(tmp_path / "ckpt")).trigger(availableNow=True).start()
    query.awaitTermination(300)
    assert query.exception() is None
    got = {m.data: m.typed_properties for m in qm.open(dst).browse_all()}
    assert got == {b"M0": TYPED, b"M1": None, b"M2": {"k": (C.MQTYPE_STRING, "v")}}
    assert qm.open(src).depth == 0


def test_a_flow_node_sees_the_properties_and_its_outputs_and_dead_letters_keep_them(
    spark: Any, server: Server, qm: QueueManager, names: Any, tmp_path: Path
) -> None:
    # issue 34, item 2: the node exposes them (IBM's MQInput: the Properties folder, MQRFH2.usr); a forwarded
    # output keeps them (MQCOPY_FORWARD), a flow may set its own, and a message requeued to the DLQ keeps them
    from syncpoint.flow import Flow, FlowMessage, MQInput, Output, run_flow

    src, dst = names("FP.IN"), names("FP.OUT")
    qm.admin("define", "QLOCAL", src, {"BOTHRESH": 1})
    qm.admin("define", "QLOCAL", dst)
    dlq = "SYSTEM.DEAD.LETTER.QUEUE"
    before = qm.open(dlq).depth
    qm.open(src).put_many(["a", "poison", "b"], persistent=True, properties=[EVERY_TYPE, {"k": "p"}, {"k": "b"}])

    def out(m: FlowMessage) -> Any:
        if m.properties.get("k") == "p":
            raise ValueError("poison")
        if m.usr.get("k") == "b":
            return Output(m.data, properties={"k": "b", "seen": True})
        return m.data.upper()

    run_flow(Flow(MQInput(src), out=out, output=dst), server.target, tmp_path / "ckpt", available_now=True, spark=spark)
    got = {m.data: m.typed_properties for m in qm.open(dst).browse_all()}
    assert got == {b"A": TYPED, b"b": build({"k": "b", "seen": True})}
    (dead,) = list(qm.open(dlq).browse_all())[before:]
    assert dead.data.endswith(b"poison") and dead.properties == {"k": "p"}
