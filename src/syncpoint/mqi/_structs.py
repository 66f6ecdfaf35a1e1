"""Byte-exact MQI structures (64-bit Linux layout, native little-endian).

Theory of operation: each structure is declared once as a table of ``(field, struct format, initial value)``
rows in IBM's order. From the table we derive one :class:`struct.Struct` per version (a version is a prefix of
the full layout), so ``pack`` and ``unpack`` are single C calls. Instances carry the fields as plain attributes
named as IBM names them (``md.BackoutCount``), like pymqi's ``MQOpts`` objects, so programs written for IBM's
clients read naturally. Character fields are ``bytes``; on output they are blank-padded, except the binary
identifiers (MsgId, CorrelId, GroupId, AccountingToken, MsgToken), which are padded with NULs.
"""

from __future__ import annotations

import operator
import struct
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, ClassVar, Self

from . import constants as C

_BLANK = b" "

# (name, struct code, initial value)
FieldSpec = tuple[str, str, Any]

_VERSION = struct.Struct("=i")  # the Version field, after the 4-byte StrucId


def _tuple_getter(names: list[str]) -> Any:
    """``operator.itemgetter`` that returns a tuple for any number of names (itemgetter of one returns the value)."""
    if len(names) >= 2:
        return operator.itemgetter(*names)
    if names:
        one = operator.itemgetter(names[0])
        return lambda d: (one(d),)
    return lambda d: ()


class Structure:
    """Base of every MQI structure: attributes per field, byte-exact ``pack`` / ``unpack``."""

    _fields: ClassVar[list[FieldSpec]]
    _version_lengths: ClassVar[dict[int, int]] = {}
    _binary_fields: ClassVar[frozenset[str]] = frozenset()
    # derived per subclass
    _names: ClassVar[tuple[str, ...]]
    _codes: ClassVar[tuple[str, ...]]
    _defaults: ClassVar[dict[str, Any]]
    _struct_by_len: ClassVar[dict[int, struct.Struct]]
    _count_by_len: ClassVar[dict[int, int]]
    _full: ClassVar[struct.Struct]
    _char_lengths: ClassVar[dict[str, int]]
    _getter_by_len: ClassVar[dict[int, Any]]
    _chars_by_len: ClassVar[dict[int, tuple[tuple[int, str, int], ...]]]
    _charcheck_by_len: ClassVar[dict[int, tuple[Any, tuple[int, ...]]]]
    _unpack_by_len: ClassVar[dict[int, tuple[Any, tuple[str, ...], dict[str, Any]]]]
    _versioned: ClassVar[bool]
    _pack_by_version: ClassVar[dict[int, tuple[Any, tuple[int, ...], Any, Any, int]]] = {}
    _fresh: ClassVar[dict[str, Any]]

    def __init_subclass__(cls, **kw: Any) -> None:
        super().__init_subclass__(**kw)
        if "_fields" not in cls.__dict__:
            return
        cls._names = tuple(f[0] for f in cls._fields)
        cls._codes = tuple(f[1] for f in cls._fields)
        cls._defaults = {f[0]: f[2] for f in cls._fields}
        cls._versioned = "Version" in cls._defaults and bool(cls._version_lengths)
        cls._char_lengths = {n: int(c[:-1]) for n, c in zip(cls._names, cls._codes, strict=True) if c.endswith("s")}
        cls._full = struct.Struct("=" + "".join(cls._codes))
        by_len: dict[int, struct.Struct] = {cls._full.size: cls._full}
        count: dict[int, int] = {cls._full.size: len(cls._codes)}
        for length in cls._version_lengths.values():
            fmt = "="
            n = 0
            for code in cls._codes:
                if struct.calcsize(fmt + code) > length:
                    break
                fmt += code
                n += 1
            s = struct.Struct(fmt)
            if s.size != length:  # pragma: no cover - a table error, caught by the tests
                raise TypeError(f"{cls.__name__}: version length {length} is not a field boundary")
            by_len[length] = s
            count[length] = n
        cls._struct_by_len = by_len
        cls._count_by_len = count
        # per length: a C-speed getter of the values in order, and the character fields to check
        cls._getter_by_len = {n_len: operator.itemgetter(*cls._names[:n]) for n_len, n in count.items()}
        cls._chars_by_len = {
            n_len: tuple(
                (i, name, cls._char_lengths[name]) for i, name in enumerate(cls._names[:n]) if name in cls._char_lengths
            )
            for n_len, n in count.items()
        }
        # per length: the unpacker, the names it fills, and the initial values of the fields a shorter version lacks
        cls._unpack_by_len = {
            n_len: (
                cls._struct_by_len[n_len].unpack_from,
                cls._names[:n],
                {name: cls._defaults[name] for name in cls._names[n:]},
            )
            for n_len, n in count.items()
        }
        # per length: a C-speed getter of the character fields' values, and the lengths they must have
        cls._charcheck_by_len = {
            n_len: (_tuple_getter([name for _, name, _ in chars]), tuple(n for _, _, n in chars))
            for n_len, chars in cls._chars_by_len.items()
        }
        # per Version: pack's common case in one lookup (the character-field check, the getter, the packer, the
        # length)
        cls._pack_by_version = {
            version: (*cls._charcheck_by_len[n_len], cls._getter_by_len[n_len], cls._struct_by_len[n_len].pack, n_len)
            for version, n_len in cls._version_lengths.items()
        }
        cls._fresh = cls._defaults.copy()  # unpack starts from every field's initial value

    if TYPE_CHECKING:
        # Fields are plain instance attributes named by the table: tell the type checker so.
        def __getattr__(self, name: str) -> Any: ...
        def __setattr__(self, name: str, value: Any) -> None: ...

    def __init__(self, **kw: Any) -> None:
        defaults = self._defaults
        self.__dict__ = d = defaults.copy()  # one C call for every field's initial value
        if kw:
            for k, v in kw.items():
                if k not in defaults:
                    raise TypeError(f"{type(self).__name__} has no field {k!r}")
                d[k] = v

    @classmethod
    def with_fields(cls, fields: dict[str, Any]) -> Self:
        """A structure holding a copy of ``fields``, a complete set of this structure's fields taken from another
        instance (e.g. one prepared once with the checked constructor): no per-field checks, for hot paths."""
        obj = cls.__new__(cls)
        obj.__dict__ = fields.copy()
        return obj

    # -- sizes -------------------------------------------------------------------------------------
    @classmethod
    def size(cls, version: int | None = None) -> int:
        if version is None:
            return cls._full.size
        return cls._version_lengths[version]

    def _length(self) -> int:
        version = self.__dict__.get("Version")
        if isinstance(version, int) and version in self._version_lengths:
            return self._version_lengths[version]
        return self._full.size

    # -- packing -----------------------------------------------------------------------------------
    def _value(self, name: str) -> Any:
        v = self.__dict__[name]
        if isinstance(v, str):
            v = v.encode("utf-8")
        elif isinstance(v, bytearray | memoryview):
            v = bytes(v)
        if name in self._char_lengths and isinstance(v, bytes):
            n = self._char_lengths[name]
            if len(v) < n:
                v = v + (b"\0" if name in self._binary_fields else _BLANK) * (n - len(v))
        return v

    def normalize(self, fields: Iterable[tuple[str, int]] | None = None) -> Self:
        """Make every character field exact ``bytes`` of its length (blank- or NUL-padded), in place; only the
        ``fields`` given as (name, length) pairs, when given.

        The fast path of the queue manager: one cheap check per character field, work only where needed.
        """
        d = self.__dict__
        for name, n in self._char_lengths.items() if fields is None else fields:
            v = d[name]
            if type(v) is not bytes or len(v) != n:
                d[name] = self._value(name)
        return self

    def pack(self) -> bytes:
        """The structure's bytes, at the length its ``Version`` field implies."""
        d = self.__dict__
        layout = self._pack_by_version.get(d.get("Version"))  # type: ignore[arg-type]
        if layout is None:  # no Version field, or one the table does not know: the full length
            length = self._length()
            chars, lengths = self._charcheck_by_len[length]
            getter, pack = self._getter_by_len[length], self._struct_by_len[length].pack
        else:
            chars, lengths, getter, pack, length = layout
        # the common case, in C calls: every character field already has its exact length (bytes, or str and
        # anything else that struct refuses, which then takes the checked path below)
        try:
            if tuple(map(len, chars(d))) == lengths:
                return pack(*getter(d))
        except (TypeError, struct.error):
            pass
        values = list(self._getter_by_len[length](d))
        for i, name, n in self._chars_by_len[length]:
            v = values[i]
            if type(v) is not bytes or len(v) != n:
                values[i] = self._value(name)
        st = self._struct_by_len[length]
        try:
            return st.pack(*values)
        except struct.error:
            pass
        # a numeric field holds something other than an int: convert what can be, else say which
        for i, name in enumerate(self._names[: self._count_by_len[length]]):
            if name not in self._char_lengths and type(values[i]) is not int:
                values[i] = self._value(name)
        try:
            return st.pack(*values)
        except struct.error as e:
            raise ValueError(f"{type(self).__name__}: cannot pack: {e}") from None

    @classmethod
    def unpack(cls, buf: bytes | bytearray | memoryview) -> Self:
        """Read a structure from ``buf``; the length used is the one of the Version found in it."""
        obj = cls.__new__(cls)
        if cls.unpack_into is not Structure.unpack_into:  # a structure that reads itself its own way
            obj.unpack_into(buf)
            return obj
        unpack_from, names, _ = cls._layout(buf)
        d = cls._fresh.copy()  # the fields a shorter version lacks keep their initial values
        d.update(zip(names, unpack_from(buf, 0)))
        obj.__dict__ = d
        return obj

    def unpack_into(self, buf: bytes | bytearray | memoryview) -> Self:
        unpack_from, names, tail = self._layout(buf)
        d = self.__dict__
        d.update(zip(names, unpack_from(buf, 0)))
        if tail:  # fields a shorter version lacks take their initial values, not what this instance held before
            d.update(tail)
        return self

    @classmethod
    def _layout(cls, buf: bytes | bytearray | memoryview) -> tuple[Any, tuple[str, ...], dict[str, Any]]:
        """The unpacker, field names and a shorter version's missing fields for ``buf``, by the Version in it."""
        length = cls._full.size
        if cls._versioned and len(buf) >= 8:
            length = cls._version_lengths.get(_VERSION.unpack_from(buf, 4)[0], length)
        if len(buf) < length:
            raise ValueError(f"{cls.__name__}: need {length} bytes, have {len(buf)}")
        return cls._unpack_by_len[length]

    def set(self, **kw: Any) -> Self:
        for k, v in kw.items():
            if k not in self._defaults:
                raise TypeError(f"{type(self).__name__} has no field {k!r}")
            self.__dict__[k] = v
        return self

    def fields(self) -> dict[str, Any]:
        return {n: self.__dict__[n] for n in self._names}

    def copy(self) -> Self:
        new = type(self).__new__(type(self))
        new.__dict__ = self.__dict__.copy()  # one C call (a hot path: a batch verb copies its structures per item)
        return new

    def __getitem__(self, name: str) -> Any:  # pymqi-style access
        return self.__dict__[name]

    def __setitem__(self, name: str, value: Any) -> None:
        self.__dict__[name] = value

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return self.pack() == other.pack()

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        inner = ", ".join(f"{n}={self.__dict__[n]!r}" for n in self._names)
        return f"{type(self).__name__}({inner})"


def _c(n: int) -> bytes:
    return b" " * n


def _z(n: int) -> bytes:
    return b"\0" * n


# each class below is one of IBM's MQI structures (cmqc.h): a table of its fields and versions, alike in
# shape, each with its own layout (Structure holds the one implementation of packing them)
class MQMD(Structure):
    """Message descriptor, version 2 (364 bytes); version 1 is its first 324 bytes."""

    _fields = [
        ("StrucId", "4s", b"MD  "),
        ("Version", "i", C.MQMD_VERSION_2),
        ("Report", "i", C.MQRO_NONE),
        ("MsgType", "i", C.MQMT_DATAGRAM),
        ("Expiry", "i", C.MQEI_UNLIMITED),
        ("Feedback", "i", C.MQFB_NONE),
        ("Encoding", "i", C.MQENC_NATIVE),
        ("CodedCharSetId", "i", C.MQCCSI_Q_MGR),
        ("Format", "8s", C.MQFMT_NONE),
        ("Priority", "i", C.MQPRI_PRIORITY_AS_Q_DEF),
        ("Persistence", "i", C.MQPER_PERSISTENCE_AS_Q_DEF),
        ("MsgId", "24s", C.MQMI_NONE),
        ("CorrelId", "24s", C.MQCI_NONE),
        ("BackoutCount", "i", 0),
        ("ReplyToQ", "48s", _c(48)),
        ("ReplyToQMgr", "48s", _c(48)),
        ("UserIdentifier", "12s", _c(12)),
        ("AccountingToken", "32s", C.MQACT_NONE),
        ("ApplIdentityData", "32s", _c(32)),
        ("PutApplType", "i", C.MQAT_NO_CONTEXT),
        ("PutApplName", "28s", _c(28)),
        ("PutDate", "8s", _c(8)),
        ("PutTime", "8s", _c(8)),
        ("ApplOriginData", "4s", _c(4)),
        ("GroupId", "24s", C.MQGI_NONE),
        ("MsgSeqNumber", "i", 1),
        ("Offset", "i", 0),
        ("MsgFlags", "i", C.MQMF_NONE),
        ("OriginalLength", "i", C.MQOL_UNDEFINED),
    ]
    _version_lengths = {1: C.MQMD_LENGTH_1, 2: C.MQMD_LENGTH_2}
    _binary_fields = frozenset({"MsgId", "CorrelId", "GroupId", "AccountingToken"})


class MQMDE(Structure):
    """Message descriptor extension (72 bytes)."""

    _fields = [
        ("StrucId", "4s", b"MDE "),
        ("Version", "i", 2),
        ("StrucLength", "i", 72),
        ("Encoding", "i", C.MQENC_NATIVE),
        ("CodedCharSetId", "i", C.MQCCSI_UNDEFINED),
        ("Format", "8s", C.MQFMT_NONE),
        ("Flags", "i", 0),
        ("GroupId", "24s", C.MQGI_NONE),
        ("MsgSeqNumber", "i", 1),
        ("Offset", "i", 0),
        ("MsgFlags", "i", C.MQMF_NONE),
        ("OriginalLength", "i", C.MQOL_UNDEFINED),
    ]
    _version_lengths = {2: 72}
    _binary_fields = frozenset({"GroupId"})


class MQGMO(Structure):
    """Get-message options, version 4 (112 bytes)."""

    _fields = [
        ("StrucId", "4s", b"GMO "),
        ("Version", "i", C.MQGMO_VERSION_4),
        ("Options", "i", C.MQGMO_NO_WAIT),
        ("WaitInterval", "i", 0),
        ("Signal1", "i", 0),
        ("Signal2", "i", 0),
        ("ResolvedQName", "48s", _c(48)),
        ("MatchOptions", "i", C.MQMO_MATCH_MSG_ID | C.MQMO_MATCH_CORREL_ID),
        ("GroupStatus", "1s", b" "),
        ("SegmentStatus", "1s", b" "),
        ("Segmentation", "1s", b" "),
        ("Reserved1", "1s", b" "),
        ("MsgToken", "16s", C.MQMTOK_NONE),
        ("ReturnedLength", "i", -1),
        ("Reserved2", "i", 0),
        ("MsgHandle", "q", 0),
    ]
    _version_lengths = {
        1: C.MQGMO_LENGTH_1,
        2: C.MQGMO_LENGTH_2,
        3: C.MQGMO_LENGTH_3,
        4: C.MQGMO_LENGTH_4,
    }
    _binary_fields = frozenset({"MsgToken"})


class MQPMO(Structure):
    """Put-message options, version 3 (184 bytes)."""

    _fields = [
        ("StrucId", "4s", b"PMO "),
        ("Version", "i", C.MQPMO_VERSION_3),
        ("Options", "i", C.MQPMO_NONE),
        ("Timeout", "i", -1),
        ("Context", "i", 0),
        ("KnownDestCount", "i", 0),
        ("UnknownDestCount", "i", 0),
        ("InvalidDestCount", "i", 0),
        ("ResolvedQName", "48s", _c(48)),
        ("ResolvedQMgrName", "48s", _c(48)),
        ("RecsPresent", "i", 0),
        ("PutMsgRecFields", "i", 0),
        ("PutMsgRecOffset", "i", 0),
        ("ResponseRecOffset", "i", 0),
        ("PutMsgRecPtr", "Q", 0),
        ("ResponseRecPtr", "Q", 0),
        ("OriginalMsgHandle", "q", 0),
        ("NewMsgHandle", "q", 0),
        ("Action", "i", 0),
        ("PubLevel", "i", 9),
    ]
    _version_lengths = {1: C.MQPMO_LENGTH_1, 2: C.MQPMO_LENGTH_2, 3: C.MQPMO_LENGTH_3}


class MQOD(Structure):
    """Object descriptor, version 4 (424 bytes)."""

    _fields = [
        ("StrucId", "4s", b"OD  "),
        ("Version", "i", C.MQOD_VERSION_4),
        ("ObjectType", "i", C.MQOT_Q),
        ("ObjectName", "48s", _c(48)),
        ("ObjectQMgrName", "48s", _c(48)),
        ("DynamicQName", "48s", b"AMQ.*" + _c(43)),
        ("AlternateUserId", "12s", _c(12)),
        ("RecsPresent", "i", 0),
        ("KnownDestCount", "i", 0),
        ("UnknownDestCount", "i", 0),
        ("InvalidDestCount", "i", 0),
        ("ObjectRecOffset", "i", 0),
        ("ResponseRecOffset", "i", 0),
        ("ObjectRecPtr", "Q", 0),
        ("ResponseRecPtr", "Q", 0),
        ("AlternateSecurityId", "40s", _z(40)),
        ("ResolvedQName", "48s", _c(48)),
        ("ResolvedQMgrName", "48s", _c(48)),
        ("ObjectStringVSPtr", "Q", 0),
        ("ObjectStringVSOffset", "i", 0),
        ("ObjectStringVSBufSize", "i", 0),
        ("ObjectStringVSLength", "i", 0),
        ("ObjectStringVSCCSID", "i", 0),
        ("SelectionStringVSPtr", "Q", 0),
        ("SelectionStringVSOffset", "i", 0),
        ("SelectionStringVSBufSize", "i", 0),
        ("SelectionStringVSLength", "i", 0),
        ("SelectionStringVSCCSID", "i", 0),
        ("ResObjectStringVSPtr", "Q", 0),
        ("ResObjectStringVSOffset", "i", 0),
        ("ResObjectStringVSBufSize", "i", 0),
        ("ResObjectStringVSLength", "i", 0),
        ("ResObjectStringVSCCSID", "i", 0),
        ("ResolvedType", "i", -3),
        ("pad", "4s", _c(4)),
    ]
    _version_lengths = {
        1: C.MQOD_LENGTH_1,
        2: C.MQOD_LENGTH_2,
        3: C.MQOD_LENGTH_3,
        4: C.MQOD_LENGTH_4,
    }
    _binary_fields = frozenset({"AlternateSecurityId"})


def _charv(name: str) -> list[FieldSpec]:
    """An MQCHARV (a variable-length string by pointer): its five fields, as IBM's Python layers name them."""
    return [
        (name + "VSPtr", "Q", 0),
        (name + "VSOffset", "i", 0),
        (name + "VSBufSize", "i", 0),
        (name + "VSLength", "i", 0),
        (name + "VSCCSID", "i", 0),
    ]


class MQSD(Structure):
    """Subscription descriptor, version 1 (344 bytes on 64-bit platforms: pads before each MQCHARV's pointer).
    Its strings (ObjectString, SubName, SubUserData, SelectionString, ResObjectString) are MQCHARVs: syncpoint
    carries them beside the structure (``strings`` of the subscribe verb), never through the pointers."""

    _fields = [
        ("StrucId", "4s", b"SD  "),
        ("Version", "i", C.MQSD_VERSION_1),
        ("Options", "i", 0),
        ("ObjectName", "48s", _c(48)),
        ("AlternateUserId", "12s", _c(12)),
        ("AlternateSecurityId", "40s", _z(40)),
        ("SubExpiry", "i", C.MQEI_UNLIMITED),
        ("pad1", "4s", _z(4)),
        *_charv("ObjectString"),
        *_charv("SubName"),
        *_charv("SubUserData"),
        ("SubCorrelId", "24s", _z(24)),
        ("PubPriority", "i", C.MQPRI_PRIORITY_AS_PUBLISHED),
        ("PubAccountingToken", "32s", _z(32)),
        ("PubApplIdentityData", "32s", _c(32)),
        ("pad2", "4s", _z(4)),
        *_charv("SelectionString"),
        ("SubLevel", "i", 1),
        ("pad3", "4s", _z(4)),
        *_charv("ResObjectString"),
    ]
    _version_lengths = {1: C.MQSD_LENGTH_1}
    _binary_fields = frozenset({"AlternateSecurityId", "SubCorrelId", "PubAccountingToken", "pad1", "pad2", "pad3"})


class MQSRO(Structure):
    """Subscription request options (MQSUBRQ), version 1: NumPubs returns how many publications were sent."""

    _fields = [
        ("StrucId", "4s", b"SRO "),
        ("Version", "i", C.MQSRO_VERSION_1),
        ("Options", "i", C.MQSRO_NONE),
        ("NumPubs", "i", 0),
    ]
    _version_lengths = {1: C.MQSRO_LENGTH_1}


class MQDLH(Structure):
    """Dead-letter header (172 bytes)."""

    _fields = [
        ("StrucId", "4s", b"DLH "),
        ("Version", "i", C.MQDLH_VERSION_1),
        ("Reason", "i", C.MQRC_NONE),
        ("DestQName", "48s", _c(48)),
        ("DestQMgrName", "48s", _c(48)),
        ("Encoding", "i", 0),
        ("CodedCharSetId", "i", 0),
        ("Format", "8s", C.MQFMT_NONE),
        ("PutApplType", "i", 0),
        ("PutApplName", "28s", _c(28)),
        ("PutDate", "8s", _c(8)),
        ("PutTime", "8s", _c(8)),
    ]
    _version_lengths = {1: C.MQDLH_LENGTH_1}


class MQTM(Structure):
    """Trigger message (684 bytes), the data of a message with Format MQFMT_TRIGGER."""

    _fields = [
        ("StrucId", "4s", b"TM  "),
        ("Version", "i", C.MQTM_VERSION_1),
        ("QName", "48s", _c(48)),
        ("ProcessName", "48s", _c(48)),
        ("TriggerData", "64s", _c(64)),
        ("ApplType", "i", 0),
        ("ApplId", "256s", _c(256)),
        ("EnvData", "128s", _c(128)),
        ("UserData", "128s", _c(128)),
    ]
    _version_lengths = {1: 684}


class MQTMC2(Structure):
    """Trigger message in character form, version 2 (732 bytes), passed to a triggered program."""

    _fields = [
        ("StrucId", "4s", b"TMC "),
        ("Version", "4s", b"   2"),
        ("QName", "48s", _c(48)),
        ("ProcessName", "48s", _c(48)),
        ("TriggerData", "64s", _c(64)),
        ("ApplType", "4s", _c(4)),
        ("ApplId", "256s", _c(256)),
        ("EnvData", "128s", _c(128)),
        ("UserData", "128s", _c(128)),
        ("QMgrName", "48s", _c(48)),
    ]

    @classmethod
    def from_tm(cls, tm: MQTM, qmgr_name: bytes | str) -> MQTMC2:
        """The character form of a trigger message, as a trigger monitor passes it on."""
        return cls(
            QName=tm.QName,
            ProcessName=tm.ProcessName,
            TriggerData=tm.TriggerData,
            ApplType=str(tm.ApplType).rjust(4).encode()[-4:],
            ApplId=tm.ApplId,
            EnvData=tm.EnvData,
            UserData=tm.UserData,
            QMgrName=qmgr_name,
        )


class MQXQH(Structure):
    """Transmission-queue header (428 bytes): 104 bytes of its own followed by an MQMD version 1."""

    _fields = [
        ("StrucId", "4s", b"XQH "),
        ("Version", "i", C.MQXQH_VERSION_1),
        ("RemoteQName", "48s", _c(48)),
        ("RemoteQMgrName", "48s", _c(48)),
    ]
    _version_lengths = {1: 104}

    def __init__(self, **kw: Any) -> None:
        md = kw.pop("MsgDesc", None)
        super().__init__(**kw)
        self.__dict__["MsgDesc"] = md if md is not None else MQMD(Version=C.MQMD_VERSION_1)

    @classmethod
    def size(cls, version: int | None = None) -> int:
        return C.MQXQH_LENGTH_1

    def pack(self) -> bytes:
        md: MQMD = self.__dict__["MsgDesc"]
        md1 = md.copy().set(Version=C.MQMD_VERSION_1)
        return super().pack() + md1.pack()

    def unpack_into(self, buf: bytes | bytearray | memoryview) -> Self:
        if len(buf) < C.MQXQH_LENGTH_1:
            raise ValueError(f"MQXQH: need {C.MQXQH_LENGTH_1} bytes, have {len(buf)}")
        super().unpack_into(buf[:104])
        self.__dict__["MsgDesc"] = MQMD.unpack(bytes(buf[104 : C.MQXQH_LENGTH_1]))
        return self

    def fields(self) -> dict[str, Any]:
        d = super().fields()
        d["MsgDesc"] = self.__dict__["MsgDesc"]
        return d

    def copy(self) -> Self:
        new = super().copy()
        new.__dict__["MsgDesc"] = self.__dict__["MsgDesc"].copy()
        return new


class MQCNO(Structure):
    """Connect options (the fields syncpoint reads; version 1, 12 bytes)."""

    _fields = [
        ("StrucId", "4s", b"CNO "),
        ("Version", "i", 1),
        ("Options", "i", C.MQCNO_NONE),
    ]
    _version_lengths = {1: 12}


def blank_strip(value: bytes | str) -> str:
    """An MQCHAR field as text: decoded, with trailing blanks and NULs removed."""
    if isinstance(value, bytes):
        value = value.decode("utf-8", "replace")
    return value.rstrip(" \0")


def char_field(value: bytes | str | None, length: int) -> bytes:
    """Text as an MQCHARn field: encoded and blank-padded to ``length``; too long is an error."""
    if value is None:
        value = b""
    if isinstance(value, str):
        value = value.encode("utf-8")
    if len(value) > length:
        raise ValueError(f"value {value!r} is longer than {length} characters")
    return value.ljust(length, b" ")
