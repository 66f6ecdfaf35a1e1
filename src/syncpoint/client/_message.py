"""A message as got or browsed: its data and its message descriptor (shared by both transports and the API).

Implements: reference/structures.md (the MQMD fields it names).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from syncpoint.mqi import MQMD, blank_strip
from syncpoint.mqi import constants as C


class Message:
    """A message as got or browsed: its data and its message descriptor."""

    __slots__ = ("_md", "_raw", "data", "typed_properties")

    def __init__(self, data: bytes, md: MQMD, props: dict[str, tuple[int, Any]] | None = None) -> None:
        self.data = data
        self._md: MQMD | None = md
        self._raw: bytes | None = None
        # the message's properties with their MQTYPE_* types: name -> (type, value) (mqi.properties.Props)
        self.typed_properties = props

    @classmethod
    def _packed(cls, data: bytes, raw: bytes, props: dict[str, tuple[int, Any]] | None = None) -> Message:
        """A message whose MQMD arrived packed: it is unpacked when first asked for (a batch of gets whose
        program reads only the data never pays for it)."""
        m = cls.__new__(cls)
        m.data = data
        m._md = None
        m._raw = raw
        m.typed_properties = props
        return m

    @property
    def properties(self) -> dict[str, Any]:
        """The message's properties, name -> value (``typed_properties`` has their MQTYPE_* types too); empty
        when it has none. Got with a message handle: PROPCTL decides which (docs/programming-model.md)."""
        props = self.typed_properties
        return {} if props is None else {name: value for name, (_, value) in props.items()}

    @property
    def md(self) -> MQMD:
        md = self._md
        if md is None:
            assert self._raw is not None
            md = self._md = MQMD.unpack(self._raw)
            self._raw = None
        return md

    @md.setter
    def md(self, value: MQMD) -> None:
        self._md = value
        self._raw = None

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Message):
            return NotImplemented
        return self.data == other.data and self.md == other.md

    __hash__ = None  # type: ignore[assignment]  # mutable, as the dataclass it replaced

    def __repr__(self) -> str:
        """The fields a reader looks for first, not the whole padded MQMD (``.md`` has every field)."""
        data = self.data if len(self.data) <= 60 else self.data[:60] + b"..."
        md = self.md
        parts = [
            f"data={data!r}",
            f"length={len(self.data)}",
            f"msg_id={bytes(md.MsgId).hex()}",
        ]
        if bytes(md.CorrelId).strip(b"\0"):
            parts.append(f"correl_id={bytes(md.CorrelId).hex()}")
        parts += [f"priority={md.Priority}", f"persistent={self.persistent}", f"backout_count={md.BackoutCount}"]
        if self.format:
            parts.append(f"format={self.format!r}")
        if self.reply_to:
            parts.append(f"reply_to={self.reply_to!r}")
        put = self.put_time
        if put is not None:
            parts.append(f"put_time={put.isoformat()}")
        return f"Message({', '.join(parts)})"

    @property
    def put_time(self) -> datetime | None:
        """PutDate and PutTime (GMT, to the hundredth) as an aware UTC datetime; None when they are blank or
        not a date."""
        date = bytes(self.md.PutDate).strip()
        time_ = bytes(self.md.PutTime).strip()
        try:
            moment = datetime.strptime((date + time_[:6]).decode("ascii"), "%Y%m%d%H%M%S")
            hundredths = int(time_[6:8] or b"0")
        except (ValueError, UnicodeDecodeError):
            return None
        return moment.replace(microsecond=hundredths * 10_000, tzinfo=UTC)

    # one read-only property per MQMD field an application reads: the same shape, each its own field
    @property
    def text(self) -> str:
        return self.data.decode("utf-8")

    @property
    def msg_id(self) -> bytes:
        return bytes(self.md.MsgId)

    @property
    def correl_id(self) -> bytes:
        return bytes(self.md.CorrelId)

    @property
    def group_id(self) -> bytes:
        return bytes(self.md.GroupId)

    @property
    def backout_count(self) -> int:
        return int(self.md.BackoutCount)

    @property
    def priority(self) -> int:
        return int(self.md.Priority)

    @property
    def persistent(self) -> bool:
        return bool(self.md.Persistence == C.MQPER_PERSISTENT)

    @property
    def expiry(self) -> int:
        return int(self.md.Expiry)

    @property
    def reply_to(self) -> str:
        return blank_strip(self.md.ReplyToQ)

    @property
    def format(self) -> str:
        return blank_strip(self.md.Format)
