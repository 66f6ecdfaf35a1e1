"""PCF namelist commands (issue 34, item 4): Create / Copy / Change / Delete / Inquire Namelist and Inquire
Namelist Names, as IBM's command server answers them (pcf/_namelist.py).

Rules: IBM's PCF reference ("Create, Copy, and Change Namelist": MQCA_NAMELIST_NAME, MQCA_NAMES as an MQCFSL,
MQCA_NAMELIST_DESC, MQIACF_REPLACE; "Inquire Namelist": MQIACF_NAMELIST_ATTRS, the response's MQIA_NAME_COUNT and
MQCA_NAMES; "Inquire Namelist Names": MQCACF_NAMELIST_NAMES); ibmmq 2.1.2's test_pcf.py (test_mqcfsl).
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

import syncpoint
from syncpoint.client import EmbeddedQueueManager, QueueManager, memory_queue_manager
from syncpoint.mqi import constants as C
from syncpoint.pcf import MQCFH, MQCFIF, MQCFIL, MQCFIN, MQCFSF, MQCFSL, MQCFST, CommandServer, Param, build, parse
from syncpoint.pcf import constants as K


@pytest.fixture
def qm() -> Iterator[QueueManager]:
    e: EmbeddedQueueManager = memory_queue_manager("QM1")
    yield syncpoint.connect("QM1", embedded=e)
    e.close()


@pytest.fixture
def server(qm: QueueManager) -> CommandServer:
    s = CommandServer(lambda: qm)
    s.qm = qm
    return s


def run(server: CommandServer, command: int, params: list[Param]) -> list[tuple[MQCFH, dict[int, Param]]]:
    out = []
    for raw in server.execute(build(MQCFH(Command=command, Type=K.MQCFT_COMMAND_XR, Version=3), params)):
        cfh, ps = parse(raw)
        out.append((cfh, {p.Parameter: p for p in ps}))
    return out


def ok(server: CommandServer, command: int, params: list[Param]) -> list[dict[int, Param]]:
    replies = run(server, command, params)
    for cfh, _ in replies:
        assert (cfh.CompCode, cfh.Reason) == (0, 0), cfh
    return [p for _, p in replies]


def failed(server: CommandServer, command: int, params: list[Param]) -> int:
    ((cfh, _),) = run(server, command, params)
    assert cfh.CompCode == C.MQCC_FAILED
    return cfh.Reason


def name(n: str) -> MQCFST:
    return MQCFST(C.MQCA_NAMELIST_NAME, n.encode())


def names(*ns: str) -> MQCFSL:
    return MQCFSL(C.MQCA_NAMES, [n.encode() for n in ns])


def test_create_then_inquire_namelist_gives_its_names_and_count(server: CommandServer, qm: QueueManager) -> None:
    for value in ([], ["One"], ["One", "Two", "Three"]):  # ibmmq's test_mqcfsl data
        ok(server, K.MQCMD_CREATE_NAMELIST, [name("NL"), names(*value), MQCFIN(K.MQIACF_REPLACE, K.MQRP_YES)])
        (reply,) = ok(
            server,
            K.MQCMD_INQUIRE_NAMELIST,
            [name("NL"), MQCFIL(K.MQIACF_NAMELIST_ATTRS, [C.MQCA_NAMES, C.MQIA_NAME_COUNT])],
        )
        count, listed = reply[C.MQIA_NAME_COUNT], reply[C.MQCA_NAMES]
        assert isinstance(count, MQCFIN) and count.Value == len(value)
        assert isinstance(listed, MQCFSL) and [s.strip() for s in listed.Strings] == [v.encode() for v in value]
        assert all(len(s) == 48 for s in listed.Strings)
        assert C.MQCA_NAMELIST_DESC not in reply  # only what was asked for (and the name)
    assert qm.admin("lookup", "NAMELIST", "NL").attrs["NAMES"] == ("One", "Two", "Three")


def test_create_without_replace_of_an_existing_namelist_fails(server: CommandServer) -> None:
    ok(server, K.MQCMD_CREATE_NAMELIST, [name("NL"), names("A")])
    assert failed(server, K.MQCMD_CREATE_NAMELIST, [name("NL"), names("B")]) == K.MQRCCF_OBJECT_ALREADY_EXISTS


def test_change_copy_delete_and_inquire_namelist_names(server: CommandServer, qm: QueueManager) -> None:
    ok(server, K.MQCMD_CREATE_NAMELIST, [name("APP.A"), names("Q1", "Q2"), MQCFST(C.MQCA_NAMELIST_DESC, b"first")])
    ok(server, K.MQCMD_CHANGE_NAMELIST, [name("APP.A"), names("Q3")])
    ok(
        server,
        K.MQCMD_COPY_NAMELIST,
        [MQCFST(K.MQCACF_FROM_NAMELIST_NAME, b"APP.A"), MQCFST(K.MQCACF_TO_NAMELIST_NAME, b"APP.B")],
    )
    b = qm.admin("lookup", "NAMELIST", "APP.B")
    assert b.attrs["NAMES"] == ("Q3",) and b.attrs["NLDESCR"] == "first"
    (reply,) = ok(server, K.MQCMD_INQUIRE_NAMELIST_NAMES, [name("APP.*")])
    listed = reply[K.MQCACF_NAMELIST_NAMES]
    assert isinstance(listed, MQCFSL) and [s.strip() for s in listed.Strings] == [b"APP.A", b"APP.B"]
    ok(server, K.MQCMD_DELETE_NAMELIST, [name("APP.A")])
    assert qm.admin("lookup", "NAMELIST", "APP.A") is None
    assert failed(server, K.MQCMD_DELETE_NAMELIST, [name("APP.A")]) == C.MQRC_UNKNOWN_OBJECT_NAME
    assert failed(server, K.MQCMD_CHANGE_NAMELIST, [name("NONE"), names("X")]) == C.MQRC_UNKNOWN_OBJECT_NAME


def test_inquire_namelist_filters_on_the_count_and_on_a_listed_name(server: CommandServer) -> None:
    ok(server, K.MQCMD_CREATE_NAMELIST, [name("F.ONE"), names("Q1")])
    ok(server, K.MQCMD_CREATE_NAMELIST, [name("F.TWO"), names("Q1", "Q2")])
    attrs = MQCFIL(K.MQIACF_NAMELIST_ATTRS, [C.MQCA_NAMELIST_DESC])
    many = ok(server, K.MQCMD_INQUIRE_NAMELIST, [name("F.*"), attrs, MQCFIF(C.MQIA_NAME_COUNT, K.MQCFOP_GREATER, 1)])
    assert [r[C.MQCA_NAMELIST_NAME].String.strip() for r in many] == [b"F.TWO"]
    assert C.MQIA_NAME_COUNT in many[0]  # the filtered attribute is returned too
    has_q2 = MQCFSF(C.MQCA_NAMES, K.MQCFOP_CONTAINS, b"Q2", 0)
    got = ok(server, K.MQCMD_INQUIRE_NAMELIST, [name("F.*"), has_q2])
    assert [r[C.MQCA_NAMELIST_NAME].String.strip() for r in got] == [b"F.TWO"]
    no_q2 = MQCFSF(C.MQCA_NAMES, K.MQCFOP_EXCLUDES, b"Q2", 0)
    got = ok(server, K.MQCMD_INQUIRE_NAMELIST, [name("F.*"), no_q2])
    assert [r[C.MQCA_NAMELIST_NAME].String.strip() for r in got] == [b"F.ONE"]


def test_bad_namelist_parameters_fail_with_ibms_reasons_and_define_nothing(
    server: CommandServer, qm: QueueManager
) -> None:
    too_long = MQCFSL(C.MQCA_NAMES, [b"N" * 49], 0, 49)
    assert failed(server, K.MQCMD_CREATE_NAMELIST, [name("BAD"), too_long]) == K.MQRCCF_CFSL_STRING_LENGTH_ERR
    too_many = names(*(f"N{i}" for i in range(257)))
    assert failed(server, K.MQCMD_CREATE_NAMELIST, [name("BAD"), too_many]) == K.MQRCCF_CFSL_COUNT_ERROR
    as_string = MQCFST(C.MQCA_NAMES, b"Q1")
    assert failed(server, K.MQCMD_CREATE_NAMELIST, [name("BAD"), as_string]) == K.MQRCCF_CFSL_PARM_ID_ERROR
    depth = MQCFIN(C.MQIA_MAX_Q_DEPTH, 5)
    assert failed(server, K.MQCMD_CREATE_NAMELIST, [name("BAD"), depth]) == K.MQRCCF_ATTR_VALUE_ERROR
    assert failed(server, K.MQCMD_INQUIRE_NAMELIST, [name("NOTHING.*")]) == C.MQRC_UNKNOWN_OBJECT_NAME
    assert qm.admin("lookup", "NAMELIST", "BAD") is None
