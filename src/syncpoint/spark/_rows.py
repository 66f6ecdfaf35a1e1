"""Rows and messages: the DataFrame columns of a syncpoint message, and rows back to messages.

A row read from a queue has ``queue``, ``token`` (the message's MsgToken as a number: its place in the queue
manager's put sequence), ``data`` (the body as stored, binary), ``payload`` (the body after an MQDLH, if any),
``text`` (the payload decoded as UTF-8 when it decodes, else null), every MQMD field under IBM's name with its
type, ``PutTimestamp`` (PutDate + PutTime as a timestamp, UTC) and, for a body that starts with an MQDLH
(Format MQDEAD), the MQDLH fields as ``DLH_<field>`` (null otherwise), and the message's properties in two maps
(:data:`PROPS_COLUMNS`, below).

A row written to a queue needs ``data`` (binary or string); any MQMD column present and not null is set on the
message (context fields with MQPMO_SET_ALL_CONTEXT); an optional ``queue`` column routes the row; a
``properties`` column (with ``property_types``) gives the message its properties.

Properties: ``properties`` is ``map<string,string>``, each property's name to its value as text, and
``property_types`` ``map<string,string>``, each name to its IBM type as the MQRFH2 names it in a ``dt`` attribute
(reference/properties-pubsub.md, "MQRFH2 mapping"): ``string``, ``boolean`` (text ``true`` / ``false``),
``bin.hex`` (the bytes in hexadecimal), ``i1`` ``i2`` ``i4`` ``i8`` (MQTYPE_INT8 … INT64, decimal), ``r4`` ``r8``
(MQTYPE_FLOAT32 / FLOAT64, Python's shortest round-tripping text: ``nan``, ``inf`` included) and ``null``
(MQTYPE_NULL, a null value). One text map keeps ``properties['colour'] = 'red'`` a plain Spark filter and
``cast`` turns a number back; the type map keeps every MQTYPE_* exact, so a row read from a queue and written
back puts a message whose properties equal the original's, types included. Written without ``property_types``
(or without an entry for a name), a string value is MQTYPE_STRING; a map of other value types (``map<string,
bigint>`` …) is typed as the Pythonic API types it (docs/programming-model.md).

Implements: reference/structures.md (MQMD and MQDLH fields as columns), reference/spark.md.
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Mapping, Sequence
from typing import Any

from syncpoint.mqi import MQDLH, MQMD, MQMIError, blank_strip
from syncpoint.mqi import constants as C
from syncpoint.mqi.properties import Props
from syncpoint.mqi.properties import build as build_props

# (IBM field name, Spark SQL type) in MQMD order; binary fields stay bytes, character fields are stripped.
MD_COLUMNS: list[tuple[str, str]] = [
    ("Report", "int"),
    ("MsgType", "int"),
    ("Expiry", "int"),
    ("Feedback", "int"),
    ("Encoding", "int"),
    ("CodedCharSetId", "int"),
    ("Format", "string"),
    ("Priority", "int"),
    ("Persistence", "int"),
    ("MsgId", "binary"),
    ("CorrelId", "binary"),
    ("BackoutCount", "int"),
    ("ReplyToQ", "string"),
    ("ReplyToQMgr", "string"),
    ("UserIdentifier", "string"),
    ("AccountingToken", "binary"),
    ("ApplIdentityData", "string"),
    ("PutApplType", "int"),
    ("PutApplName", "string"),
    ("PutDate", "string"),
    ("PutTime", "string"),
    ("ApplOriginData", "string"),
    ("GroupId", "binary"),
    ("MsgSeqNumber", "int"),
    ("Offset", "int"),
    ("MsgFlags", "int"),
    ("OriginalLength", "int"),
]
DLH_COLUMNS: list[tuple[str, str]] = [
    ("DLH_Reason", "int"),
    ("DLH_DestQName", "string"),
    ("DLH_DestQMgrName", "string"),
    ("DLH_Encoding", "int"),
    ("DLH_CodedCharSetId", "int"),
    ("DLH_Format", "string"),
    ("DLH_PutApplType", "int"),
    ("DLH_PutApplName", "string"),
    ("DLH_PutDate", "string"),
    ("DLH_PutTime", "string"),
]
HEAD_COLUMNS: list[tuple[str, str]] = [
    ("queue", "string"),
    ("token", "bigint"),
    ("data", "binary"),
    ("payload", "binary"),
    ("text", "string"),
]
PROPS_COLUMNS: list[tuple[str, str]] = [("properties", "map<string,string>"), ("property_types", "map<string,string>")]
COLUMNS: list[tuple[str, str]] = (
    HEAD_COLUMNS + MD_COLUMNS + [("PutTimestamp", "timestamp")] + DLH_COLUMNS + PROPS_COLUMNS
)
SCHEMA = ", ".join(f"`{n}` {t}" for n, t in COLUMNS)
COLUMN_NAMES = [n for n, _ in COLUMNS]

_MD_TYPES = dict(MD_COLUMNS)
# Fields an application may set only with MQPMO_SET_IDENTITY_CONTEXT / SET_ALL_CONTEXT.
CONTEXT_FIELDS = frozenset(
    {
        "UserIdentifier",
        "AccountingToken",
        "ApplIdentityData",
        "PutApplType",
        "PutApplName",
        "PutDate",
        "PutTime",
        "ApplOriginData",
    }
)
# Fields the queue manager sets itself on a put: never taken from a row.
_QM_FIELDS = frozenset({"BackoutCount"})


def _char(value: bytes) -> str:
    return blank_strip(value)


def put_timestamp(put_date: str, put_time: str) -> _dt.datetime | None:
    """PutDate (YYYYMMDD) and PutTime (HHMMSSTH) as a UTC datetime; None when they do not parse."""
    try:
        return _dt.datetime(
            int(put_date[0:4]),
            int(put_date[4:6]),
            int(put_date[6:8]),
            int(put_time[0:2]),
            int(put_time[2:4]),
            int(put_time[4:6]),
            int(put_time[6:8] or 0) * 10_000,
            tzinfo=_dt.UTC,
        )
    except (ValueError, IndexError):
        return None


_MD_KINDS = [(n, 0 if t == "int" else 1 if t == "binary" else 2) for n, t in MD_COLUMNS]


def md_to_dict(md: MQMD) -> dict[str, Any]:
    """The MQMD's fields under IBM's names: binary fields as bytes, character fields stripped."""
    out: dict[str, Any] = {}
    fields = md.__dict__
    for name, kind in _MD_KINDS:
        v = fields[name]
        if kind == 0:
            out[name] = v if type(v) is int else int(v)
        elif kind == 1:
            out[name] = v if type(v) is bytes else bytes(v)
        elif type(v) is bytes:
            out[name] = v.decode("utf-8", "replace").rstrip(" \0")
        else:
            out[name] = _char(v)
    return out


def split_dlh(data: bytes, fmt: str) -> tuple[dict[str, Any] | None, bytes]:
    """The MQDLH fields (``DLH_`` names) and the payload after it, when the body is a dead-letter header."""
    if fmt.strip() != C.MQFMT_DEAD_LETTER_HEADER.decode().strip() or len(data) < C.MQDLH_LENGTH_1:
        return None, data
    try:
        dlh = MQDLH.unpack(data[: C.MQDLH_LENGTH_1])
    except (MQMIError, ValueError, Exception):
        return None, data
    if dlh.StrucId != b"DLH ":
        return None, data
    fields: dict[str, Any] = {}
    for name, typ in DLH_COLUMNS:
        v = getattr(dlh, name[4:])
        fields[name] = _char(v) if typ == "string" else int(v)
    return fields, data[C.MQDLH_LENGTH_1 :]


# -- properties as two maps (module doc) ------------------------------------------------------------------------
_DT_OF_TYPE = {
    C.MQTYPE_STRING: "string",
    C.MQTYPE_BOOLEAN: "boolean",
    C.MQTYPE_BYTE_STRING: "bin.hex",
    C.MQTYPE_INT8: "i1",
    C.MQTYPE_INT16: "i2",
    C.MQTYPE_INT32: "i4",
    C.MQTYPE_INT64: "i8",
    C.MQTYPE_FLOAT32: "r4",
    C.MQTYPE_FLOAT64: "r8",
    C.MQTYPE_NULL: "null",
}
_TYPE_OF_DT = {v: k for k, v in _DT_OF_TYPE.items()}


def _prop_text(ptype: int, value: Any) -> str | None:
    if value is None:
        return None
    if ptype == C.MQTYPE_BOOLEAN:
        return "true" if value else "false"
    if ptype == C.MQTYPE_BYTE_STRING:
        return bytes(value).hex()
    if ptype in (C.MQTYPE_FLOAT32, C.MQTYPE_FLOAT64):
        return repr(float(value))
    return str(value)


def props_to_maps(props: Props | None) -> tuple[list[tuple[str, str | None]], list[tuple[str, str]]]:
    """A message's properties as the two map columns' entries: (name, text) and (name, dt)."""
    if not props:
        return [], []
    return (
        [(n, _prop_text(t, v)) for n, (t, v) in props.items()],
        [(n, _DT_OF_TYPE.get(t, "string")) for n, (t, _) in props.items()],
    )


def _prop_value(name: str, dt: str, text: str | None) -> tuple[int, Any]:
    ptype = _TYPE_OF_DT.get(dt)
    if ptype is None:
        raise ValueError(f"column 'property_types': {dt!r} (property {name!r}) is not one of {sorted(_TYPE_OF_DT)}")
    if text is None or ptype == C.MQTYPE_NULL:
        if text is not None:
            raise ValueError(f"column 'properties': property {name!r} of type null has a value")
        return C.MQTYPE_NULL, None
    try:
        if ptype == C.MQTYPE_STRING:
            value: Any = text
        elif ptype == C.MQTYPE_BOOLEAN:
            word = text.strip().lower()
            if word not in ("true", "false", "1", "0"):
                raise ValueError(word)
            value = word in ("true", "1")
        elif ptype == C.MQTYPE_BYTE_STRING:
            value = bytes.fromhex(text)
        elif ptype in (C.MQTYPE_FLOAT32, C.MQTYPE_FLOAT64):
            value = float(text)
        else:
            value = int(text.strip())
    except ValueError:
        raise ValueError(f"column 'properties': property {name!r} is {text!r}, not a value of type {dt}") from None
    return ptype, value


def props_from_row(row: Mapping[str, Any]) -> Props | None:
    """The properties a row gives its message (``properties``, typed by ``property_types``), checked as MQSETMP
    checks them (a bad name or value: ValueError naming the column and IBM's reason). None for none."""
    given = row.get("properties")
    if not given:
        return None
    types = row.get("property_types") or {}
    if isinstance(given, list):  # Spark may hand a map as (key, value) pairs
        given = dict(given)
    if isinstance(types, list):
        types = dict(types)
    if not isinstance(given, Mapping) or not isinstance(types, Mapping):
        raise ValueError("columns 'properties' and 'property_types' must be maps")
    pythonic: dict[str, Any] = {}
    for name, value in given.items():
        dt = types.get(name)
        if dt is not None:
            pythonic[name] = _prop_value(name, dt, value)
        elif isinstance(value, (bytearray, memoryview)):
            pythonic[name] = bytes(value)
        else:
            pythonic[name] = value  # a string is MQTYPE_STRING; other types as the Pythonic API types them
    try:
        return build_props(pythonic)
    except MQMIError as e:
        raise ValueError(f"column 'properties': {e}") from None


def message_to_row(queue: str, token: int, data: bytes, md: MQMD, props: Props | None = None) -> tuple[Any, ...]:
    """One row (a tuple in COLUMNS order) for a message with properties ``props``."""
    mdd = md_to_dict(md)
    dlh, payload = split_dlh(data, mdd["Format"])
    try:
        text: str | None = payload.decode("utf-8")
    except UnicodeDecodeError:
        text = None
    values: list[Any] = [queue, token, data, payload, text]
    values.extend(mdd[n] for n, _ in MD_COLUMNS)
    values.append(put_timestamp(mdd["PutDate"], mdd["PutTime"]))
    values.extend((dlh or {}).get(n) for n, _ in DLH_COLUMNS)
    values.extend(props_to_maps(props))
    return tuple(values)


def row_to_message(row: Mapping[str, Any]) -> tuple[bytes, MQMD, bool]:
    """A row as (data, MQMD, needs SET_ALL_CONTEXT). Raises ValueError naming the bad column."""
    if "data" not in row or row["data"] is None:
        raise ValueError("a row to write needs a non-null 'data' column (binary or string)")
    data = row["data"]
    md = MQMD()
    if isinstance(data, str):
        data = data.encode("utf-8")
        md.Format = C.MQFMT_STRING
    elif isinstance(data, (bytearray, memoryview)):
        data = bytes(data)
    elif not isinstance(data, bytes):
        raise ValueError(f"column 'data' must be binary or string, not {type(data).__name__}")
    set_context = False
    for name, value in row.items():
        if name not in _MD_TYPES or value is None or name in _QM_FIELDS:
            continue
        typ = _MD_TYPES[name]
        length = len(getattr(md, name)) if typ != "int" else 0
        if typ == "int":
            if not isinstance(value, int) or isinstance(value, bool):
                raise ValueError(f"column {name!r} must be an integer, not {value!r}")
            setattr(md, name, int(value))
        elif typ == "binary":
            if not isinstance(value, (bytes, bytearray)):
                raise ValueError(f"column {name!r} must be binary, not {type(value).__name__}")
            if len(value) > length:
                raise ValueError(f"column {name!r} holds {len(value)} bytes; MQMD.{name} has {length}")
            setattr(md, name, bytes(value).ljust(length, b"\0"))
        else:
            if not isinstance(value, str):
                raise ValueError(f"column {name!r} must be a string, not {type(value).__name__}")
            raw = value.encode()
            if len(raw) > length:
                raise ValueError(f"column {name!r} is longer than MQMD.{name} ({length} characters)")
            setattr(md, name, raw.ljust(length))
        if name in CONTEXT_FIELDS:
            set_context = True
    return data, md, set_context


def md_from_fields(fields: Mapping[str, Any]) -> MQMD:
    """An MQMD from IBM-named fields (as a flow's puts carry them)."""
    md = MQMD()
    for name, value in fields.items():
        if name not in _MD_TYPES:
            raise ValueError(f"{name!r} is not an MQMD field")
        typ = _MD_TYPES[name]
        if typ == "int":
            setattr(md, name, int(value))
        elif typ == "binary":
            setattr(md, name, bytes(value).ljust(len(getattr(md, name)), b"\0"))
        else:
            setattr(md, name, str(value).encode().ljust(len(getattr(md, name))))
    return md


# -- Arrow: the reader hands Spark record batches, not row tuples (no per-row conversion in Spark) -------------
PACKED_COLUMNS: list[tuple[str, str]] = [
    ("queue", "string"),
    ("token", "bigint"),
    ("data", "binary"),
    ("md", "binary"),
    *PROPS_COLUMNS,
]
"""``option("rowFormat", "packed")``: the columns a message flow needs, the MQMD packed (MQMD.unpack reads it),
and the properties as the full rows have them."""
PACKED_SCHEMA = ", ".join(f"`{n}` {t}" for n, t in PACKED_COLUMNS)


def arrow_schema(columns: list[tuple[str, str]]) -> Any:
    """The Arrow schema Spark expects for these columns (as pyspark's to_arrow_schema makes it)."""
    import pyarrow as pa

    types = {
        "string": pa.string(),
        "bigint": pa.int64(),
        "int": pa.int32(),
        "binary": pa.binary(),
        "timestamp": pa.timestamp("us", tz="UTC"),
        "map<string,string>": pa.map_(pa.string(), pa.string()),
    }
    return pa.schema([(n, types[t]) for n, t in columns])


def rows_to_arrow(rows: list[tuple[Any, ...]], schema: Any) -> Any:
    """Row tuples (in the schema's column order) as one pyarrow.RecordBatch."""
    import pyarrow as pa

    columns = list(zip(*rows, strict=True)) if rows else [() for _ in schema]
    return pa.RecordBatch.from_arrays(
        [pa.array(col, type=f.type) for col, f in zip(columns, schema, strict=True)], schema=schema
    )


def messages_to_arrow(queue: str, got: Sequence[tuple[Any, ...]], *, packed: bool) -> Any:
    """Messages ``(token, MQMD, data)`` or ``(token, MQMD, data, properties)`` as one record batch: the full
    columns, or the packed ones."""
    if packed:
        schema = _schemas.get("packed") or _schemas.setdefault("packed", arrow_schema(PACKED_COLUMNS))
        return rows_to_arrow(
            [(queue, g[0], g[2], g[1].pack(), *props_to_maps(g[3] if len(g) > 3 else None)) for g in got], schema
        )
    schema = _schemas.get("full") or _schemas.setdefault("full", arrow_schema(COLUMNS))
    return rows_to_arrow([message_to_row(queue, g[0], g[2], g[1], g[3] if len(g) > 3 else None) for g in got], schema)


_schemas: dict[str, Any] = {}
