"""Rows and messages: every MQMD field as a typed column, the MQDLH fields when present, rows back to messages."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

from syncpoint.mqi import MQDLH, MQMD
from syncpoint.mqi import constants as C
from syncpoint.spark._rows import COLUMN_NAMES, MD_COLUMNS, SCHEMA, message_to_row, row_to_message


def row_dict(data: bytes, md: MQMD) -> dict[str, object]:
    return dict(zip(COLUMN_NAMES, message_to_row("Q", 42, data, md), strict=True))


def test_every_mqmd_field_is_a_column_of_its_type() -> None:
    md = MQMD()
    md.MsgId = b"M" * 24
    md.Priority = 7
    md.BackoutCount = 3
    md.ReplyToQ = b"REPLY".ljust(48)
    md.PutDate, md.PutTime = b"20260102", b"03040506"
    md.Format = C.MQFMT_STRING
    r = row_dict(b"hello", md)
    assert {n for n, _ in MD_COLUMNS} <= set(r)
    assert (r["queue"], r["token"], r["data"], r["text"]) == ("Q", 42, b"hello", "hello")
    assert (r["MsgId"], r["Priority"], r["BackoutCount"], r["ReplyToQ"], r["Format"]) == (
        b"M" * 24,
        7,
        3,
        "REPLY",
        "MQSTR",
    )
    assert r["PutTimestamp"] == dt.datetime(2026, 1, 2, 3, 4, 5, 60_000, tzinfo=dt.UTC)
    assert r["DLH_Reason"] is None
    assert "`MsgId` binary" in SCHEMA and "`BackoutCount` int" in SCHEMA


def test_text_is_null_when_the_payload_does_not_decode() -> None:
    assert row_dict(b"\xff\xfe", MQMD())["text"] is None


def test_mqdlh_fields_and_payload_when_the_body_is_a_dead_letter() -> None:
    dlh = MQDLH()
    dlh.Reason = C.MQRC_Q_FULL
    dlh.DestQName = b"ORDERS".ljust(48)
    dlh.Format = C.MQFMT_STRING
    md = MQMD()
    md.Format = C.MQFMT_DEAD_LETTER_HEADER
    r = row_dict(dlh.pack() + b"body", md)
    assert (r["DLH_Reason"], r["DLH_DestQName"], r["DLH_Format"]) == (C.MQRC_Q_FULL, "ORDERS", "MQSTR")
    assert (r["payload"], r["text"]) == (b"body", "body")


def test_row_to_message_sets_the_mqmd_columns_given() -> None:
    data, md, context = row_to_message({"data": "hi", "Priority": 4, "CorrelId": b"C", "ReplyToQ": "R"})
    assert (data, md.Priority, md.CorrelId, md.ReplyToQ.strip(), md.Format) == (
        b"hi",
        4,
        b"C".ljust(24, b"\0"),
        b"R",
        C.MQFMT_STRING,
    )
    assert context is False
    assert row_to_message({"data": b"x", "PutApplName": "app"})[2] is True  # a context field: SET_ALL_CONTEXT


@pytest.mark.parametrize(
    ("row", "words"),
    [
        ({}, "'data'"),
        ({"data": None}, "'data'"),
        ({"data": 5}, "binary or string"),
        ({"data": b"x", "Priority": "high"}, "'Priority' must be an integer"),
        ({"data": b"x", "MsgId": b"x" * 25}, "MQMD.MsgId has 24"),
        ({"data": b"x", "ReplyToQ": "Q" * 49}, "longer than MQMD.ReplyToQ"),
    ],
)
def test_bad_rows_are_refused_with_the_column_named(row: dict[str, object], words: str) -> None:
    with pytest.raises(ValueError, match=words):
        row_to_message(row)


def _spark_arrow_schema(columns: list[tuple[str, str]]) -> Any:
    """The Arrow schema pyspark expects of a Python data source's record batches for these columns."""
    pytest.importorskip("pyspark")
    from pyspark.sql.pandas.types import to_arrow_schema
    from pyspark.sql.types import (
        BinaryType,
        IntegerType,
        LongType,
        MapType,
        StringType,
        StructField,
        StructType,
        TimestampType,
    )

    types = {"string": StringType(), "bigint": LongType(), "int": IntegerType(), "binary": BinaryType()}
    types["timestamp"] = TimestampType()
    types["map<string,string>"] = MapType(StringType(), StringType())  # the properties (docs/spark.md)
    return to_arrow_schema(StructType([StructField(n, types[t]) for n, t in columns]), timezone="UTC")


@pytest.mark.parametrize("packed", [False, True], ids=["columns", "packed"])
def test_the_reader_yields_arrow_record_batches_of_exactly_the_schema_spark_checks(packed: bool) -> None:
    """Issue 22 item 2: the source hands Spark pyarrow.RecordBatch (Spark rejects a batch whose Arrow schema is
    not the declared one)."""
    from syncpoint.mqi import MQMD
    from syncpoint.spark._rows import COLUMNS, PACKED_COLUMNS, messages_to_arrow

    md = MQMD(CorrelId=b"C".ljust(24, b"\0"), Priority=4)
    batch = messages_to_arrow("Q1", [(7, md, b"hello"), (9, md, b"\xff")], packed=packed)
    assert batch.schema.equals(_spark_arrow_schema(PACKED_COLUMNS if packed else COLUMNS))
    assert batch.num_rows == 2 and batch.column(1).to_pylist() == [7, 9]
    if packed:
        assert MQMD.unpack(batch.column(3)[0].as_py()).Priority == 4
    else:
        assert batch.column(batch.schema.get_field_index("text")).to_pylist() == ["hello", None]
