"""amqsbcg prints the MQMD as IBM's sample amqsbcg0.c does: numeric fields paired two a line
(``StrucId  : 'MD  '  Version : 2``), the identity and origin context under ``** Identity Context`` /
``** Origin Context``, then ``****   Message      ****``, the length and the hex dump (16 bytes a line,
groups of two bytes, the text in quotes)."""

from __future__ import annotations

from syncpoint.cli._mqsc import describe_md, hex_dump
from syncpoint.mqi import MQMD
from syncpoint.mqi import constants as C


def _md() -> MQMD:
    md = MQMD()
    md.Format = C.MQFMT_STRING
    md.CodedCharSetId = 1208
    md.Priority = 4
    md.Persistence = 1
    md.MsgId = b"AMQ QM1 " + bytes(range(16))
    md.ReplyToQMgr = b"QM1".ljust(48)
    md.UserIdentifier = b"app".ljust(12)
    md.PutApplType = C.MQAT_UNIX
    md.PutApplName = b"amqsput".ljust(28)
    md.PutDate = b"20261125"
    md.PutTime = b"16012148"
    return md


def test_amqsbcg_pairs_the_mqmd_fields_on_lines_as_ibms_sample() -> None:
    lines = describe_md(_md())
    assert lines[:6] == [
        "****Message descriptor****",
        "",
        "  StrucId  : 'MD  '  Version : 2",
        "  Report   : 0  MsgType : 8",
        "  Expiry   : -1  Feedback : 0",
        "  Encoding : 546  CodedCharSetId : 1208",
    ]
    assert "  Format : 'MQSTR   '" in lines
    assert "  Priority : 4  Persistence : 1" in lines
    assert "  MsgId : X'414D5120514D3120000102030405060708090A0B0C0D0E0F'" in lines
    assert "  ReplyToQMgr    : '" + "QM1".ljust(48) + "'" in lines
    assert "  PutDate  : '20261125'    PutTime  : '16012148'" in lines
    assert "  PutApplType    : '6'" in lines
    assert lines[-1] == "  OriginalLength : '-1'"


def test_amqsbcg_separates_the_identity_and_origin_context() -> None:
    lines = describe_md(_md())
    identity = lines.index("  ** Identity Context")
    origin = lines.index("  ** Origin Context")
    assert lines[identity + 1] == "  UserIdentifier : 'app         '"
    assert lines[identity + 2 : identity + 4] == ["  AccountingToken : ", "   X'" + "00" * 32 + "'"]
    assert lines[origin + 2] == "  PutApplName    : '" + "amqsput".ljust(28) + "'"
    assert identity < origin


def test_amqsbcg_hex_dump_is_ibms() -> None:
    assert hex_dump(b"Hello, syncpoint! \x01\x02") == [
        "00000000:  4865 6C6C 6F2C 2073 796E 6370 6F69 6E74 'Hello, syncpoint'",
        "00000010:  2120 0102                               '! ..            '",
    ]
