"""The PCF command server: commands run through the client's admin verbs, replies as IBM's command server sends
them (MQCFH Type MQCFT_RESPONSE, Control, CompCode, Reason; CorrelId = request MsgId; errors as error responses
with the MQRCCF_* reason and MQIACF_PARAMETER_ID). Source: issue 5, reference/ibmmq-compat.md."""

from __future__ import annotations

import struct
from collections.abc import Callable, Iterator

import pytest

import syncpoint
from syncpoint.client import QueueManager, memory_queue_manager
from syncpoint.mqi import MQMD, MQOD, MQMIError
from syncpoint.mqi import constants as C
from syncpoint.pcf import (
    MQCFH,
    MQCFIL,
    MQCFIN,
    MQCFSL,
    MQCFST,
    CommandServer,
    Param,
    build,
    parse,
)
from syncpoint.pcf import constants as K


@pytest.fixture
def server(connect: Callable[..., QueueManager]) -> CommandServer:
    s = CommandServer(lambda: connect(appl_name="amqpcsea"))
    s.qm = connect(appl_name="amqpcsea")
    return s


def run(server: CommandServer, command: int, params: list[Param]) -> list[tuple[MQCFH, dict[int, object]]]:
    out = []
    for raw in server.execute(build(MQCFH(Command=command, Type=K.MQCFT_COMMAND_XR, Version=3), params)):
        cfh, ps = parse(raw)
        out.append((cfh, {p.Parameter: p for p in ps}))
    return out


def ok(server: CommandServer, command: int, params: list[Param]) -> list[dict[int, object]]:
    replies = run(server, command, params)
    for cfh, _ in replies:
        assert (cfh.Type, cfh.CompCode, cfh.Reason) == (K.MQCFT_RESPONSE, 0, 0)
    return [p for _, p in replies]


def error(server: CommandServer, command: int, params: list[Param]) -> tuple[int, int]:
    ((cfh, ps),) = run(server, command, params)
    expected = (K.MQCFT_RESPONSE, C.MQCC_FAILED, K.MQCFC_LAST, command)
    assert (cfh.Type, cfh.CompCode, cfh.Control, cfh.Command) == expected
    pid = ps.get(K.MQIACF_PARAMETER_ID)
    return cfh.Reason, pid.Value if isinstance(pid, MQCFIN) else 0


def qname(n: str) -> MQCFST:
    return MQCFST(C.MQCA_Q_NAME, n.encode())


LOCAL = MQCFIN(C.MQIA_Q_TYPE, C.MQQT_LOCAL)


def test_ping_q_mgr_answers_one_last_response(server: CommandServer) -> None:
    ((cfh, params),) = run(server, K.MQCMD_PING_Q_MGR, [])
    assert (cfh.Type, cfh.Control, cfh.CompCode, cfh.Reason, cfh.MsgSeqNumber) == (2, K.MQCFC_LAST, 0, 0, 1)
    assert params == {}


def test_create_q_defines_a_local_queue_with_its_attributes(server: CommandServer, qm: QueueManager) -> None:
    ok(server, K.MQCMD_CREATE_Q, [qname("PCF.Q"), LOCAL, MQCFIN(C.MQIA_MAX_Q_DEPTH, 7), MQCFST(C.MQCA_Q_DESC, b"d")])
    d = qm.admin("lookup", "QLOCAL", "PCF.Q")
    assert d.attrs["MAXDEPTH"] == 7 and d.attrs["DESCR"] == "d"


def test_create_q_of_an_existing_queue_needs_replace(server: CommandServer) -> None:
    ok(server, K.MQCMD_CREATE_Q, [qname("PCF.Q"), LOCAL])
    assert error(server, K.MQCMD_CREATE_Q, [qname("PCF.Q"), LOCAL]) == (K.MQRCCF_OBJECT_ALREADY_EXISTS, 0)
    ok(server, K.MQCMD_CREATE_Q, [qname("PCF.Q"), LOCAL, MQCFIN(K.MQIACF_REPLACE, K.MQRP_YES)])


def test_create_q_rejects_unknown_parameters_naming_them(server: CommandServer) -> None:
    assert error(server, K.MQCMD_CREATE_Q, [qname("PCF.Q"), LOCAL, MQCFIN(9999, 1)]) == (
        K.MQRCCF_CFIN_PARM_ID_ERROR,
        9999,
    )
    assert error(server, K.MQCMD_CREATE_Q, [qname("PCF.Q"), LOCAL, MQCFIN(C.MQIA_DEF_PRIORITY, 12)]) == (
        K.MQRCCF_ATTR_VALUE_ERROR,
        C.MQIA_DEF_PRIORITY,
    )
    assert error(server, K.MQCMD_CREATE_Q, [qname("PCF.Q")]) == (K.MQRCCF_PARM_MISSING, C.MQIA_Q_TYPE)
    assert error(server, K.MQCMD_CREATE_Q, [qname("PCF.Q"), MQCFIN(C.MQIA_Q_TYPE, C.MQQT_CLUSTER)]) == (
        K.MQRCCF_Q_TYPE_ERROR,
        C.MQIA_Q_TYPE,
    )


def test_change_copy_clear_delete_q(server: CommandServer, qm: QueueManager) -> None:
    ok(server, K.MQCMD_CREATE_Q, [qname("A"), LOCAL])
    ok(server, K.MQCMD_CHANGE_Q, [qname("A"), LOCAL, MQCFIN(C.MQIA_MAX_Q_DEPTH, 11)])
    ok(
        server,
        K.MQCMD_COPY_Q,
        [MQCFST(K.MQCACF_FROM_Q_NAME, b"A"), MQCFST(K.MQCACF_TO_Q_NAME, b"B"), LOCAL, MQCFIN(C.MQIA_DEF_PRIORITY, 3)],
    )
    b = qm.admin("lookup", "QLOCAL", "B")
    assert (b.attrs["MAXDEPTH"], b.attrs["DEFPRTY"]) == (11, 3)
    qm.put1("B", b"x")
    # Delete Queue without Purge refuses a queue with messages (MQRC_Q_NOT_EMPTY); Clear Queue empties it
    assert error(server, K.MQCMD_DELETE_Q, [qname("B")]) == (C.MQRC_Q_NOT_EMPTY, 0)
    ok(server, K.MQCMD_CLEAR_Q, [qname("B")])
    ok(server, K.MQCMD_DELETE_Q, [qname("B")])
    assert qm.admin("lookup", "QLOCAL", "B") is None
    assert error(server, K.MQCMD_DELETE_Q, [qname("B")]) == (C.MQRC_UNKNOWN_OBJECT_NAME, 0)


def test_delete_q_with_purge_removes_messages(server: CommandServer, qm: QueueManager) -> None:
    qm.put1("Q1", b"x")
    ok(server, K.MQCMD_DELETE_Q, [qname("Q1"), MQCFIN(K.MQIACF_PURGE, K.MQPO_YES)])
    assert qm.admin("lookup", "QLOCAL", "Q1") is None


def test_change_q_of_the_wrong_type_fails(server: CommandServer) -> None:
    alias = MQCFIN(C.MQIA_Q_TYPE, C.MQQT_ALIAS)
    assert error(server, K.MQCMD_CHANGE_Q, [qname("SYSTEM.DEFAULT.LOCAL.QUEUE"), alias]) == (
        K.MQRCCF_OBJECT_WRONG_TYPE,
        C.MQIA_Q_TYPE,
    )
    assert error(server, K.MQCMD_CLEAR_Q, [qname("SYSTEM.DEFAULT.ALIAS.QUEUE")])[0] == K.MQRCCF_Q_WRONG_TYPE


def test_inquire_q_gives_one_response_per_queue_not_last_until_the_last(
    server: CommandServer, qm: QueueManager
) -> None:
    ok(server, K.MQCMD_CREATE_Q, [qname("INQ.A"), LOCAL])
    ok(server, K.MQCMD_CREATE_Q, [qname("INQ.B"), LOCAL, MQCFIN(C.MQIA_MAX_Q_DEPTH, 9)])
    qm.put1("INQ.B", b"1")
    replies = run(server, K.MQCMD_INQUIRE_Q, [qname("INQ.*"), MQCFIL(K.MQIACF_Q_ATTRS, [C.MQIA_MAX_Q_DEPTH, 3])])
    assert [(c.Control, c.MsgSeqNumber) for c, _ in replies] == [(K.MQCFC_NOT_LAST, 1), (K.MQCFC_LAST, 2)]
    b = replies[1][1]
    assert b[C.MQCA_Q_NAME].String == b"INQ.B".ljust(48)  # MQCHAR48, blank-padded as IBM sends it
    assert b[C.MQIA_Q_TYPE].Value == C.MQQT_LOCAL
    assert b[C.MQIA_MAX_Q_DEPTH].Value == 9 and b[C.MQIA_CURRENT_Q_DEPTH].Value == 1
    assert C.MQIA_DEF_PRIORITY not in b  # only the attributes asked for
    assert error(server, K.MQCMD_INQUIRE_Q, [qname("NONE.*")]) == (C.MQRC_UNKNOWN_OBJECT_NAME, 0)


def test_inquire_q_names_lists_names_and_types(server: CommandServer) -> None:
    (p,) = ok(server, K.MQCMD_INQUIRE_Q_NAMES, [qname("SYSTEM.DEFAULT.*")])
    names = p[K.MQCACF_Q_NAMES]
    assert isinstance(names, MQCFSL) and names.StringLength == 48
    assert [s.strip() for s in names.Strings] == [
        b"SYSTEM.DEFAULT.ALIAS.QUEUE",
        b"SYSTEM.DEFAULT.INITIATION.QUEUE",
        b"SYSTEM.DEFAULT.LOCAL.QUEUE",
        b"SYSTEM.DEFAULT.MODEL.QUEUE",
    ]
    assert p[K.MQIACF_Q_TYPES].Values == [C.MQQT_ALIAS, C.MQQT_LOCAL, C.MQQT_LOCAL, C.MQQT_MODEL]


def test_inquire_q_status_reports_depth_and_handles(server: CommandServer, qm: QueueManager) -> None:
    q = qm.open("Q1")
    q.put(b"a", syncpoint=True)
    (st,) = ok(server, K.MQCMD_INQUIRE_Q_STATUS, [qname("Q1")])
    assert st[K.MQIACF_Q_STATUS_TYPE].Value == K.MQIACF_Q_STATUS
    assert st[C.MQIA_OPEN_OUTPUT_COUNT].Value == 1 and st[K.MQIACF_UNCOMMITTED_MSGS].Value == 1
    handles = ok(server, K.MQCMD_INQUIRE_Q_STATUS, [qname("Q1"), MQCFIN(K.MQIACF_Q_STATUS_TYPE, K.MQIACF_Q_HANDLE)])
    assert [h[K.MQIACF_OPEN_OUTPUT].Value for h in handles] == [K.MQQSO_YES]
    assert handles[0][K.MQIACF_UOW_STATE].Value == K.MQUOWST_ACTIVE
    qm.commit()


def test_inquire_and_change_q_mgr(server: CommandServer) -> None:
    (p,) = ok(server, K.MQCMD_INQUIRE_Q_MGR, [])
    assert p[C.MQCA_Q_MGR_NAME].String == b"QM1".ljust(48)
    assert p[C.MQIA_COMMAND_LEVEL].Value == C.MQCMDL_CURRENT_LEVEL
    assert p[K.MQCA_CONN_AUTH].String.strip() == b"SYSTEM.DEFAULT.AUTHINFO.IDPWOS"
    # the attributes kept without effect, as MQINQ answers them: AUTHOREV(DISABLED), ACTIVREC(MSG), SSLKEYR
    assert p[C.MQIA_AUTHORITY_EVENT].Value == C.MQEVR_DISABLED and p[C.MQIA_ACTIVITY_RECORDING].Value == 2
    assert len(p[C.MQCA_SSL_KEY_REPOSITORY].String) == 256
    ok(server, K.MQCMD_CHANGE_Q_MGR, [MQCFIN(C.MQIA_MAX_UNCOMMITTED_MSGS, 500)])
    (p,) = ok(server, K.MQCMD_INQUIRE_Q_MGR, [MQCFIL(K.MQIACF_Q_MGR_ATTRS, [C.MQIA_MAX_UNCOMMITTED_MSGS])])
    assert p[C.MQIA_MAX_UNCOMMITTED_MSGS].Value == 500
    assert error(server, K.MQCMD_CHANGE_Q_MGR, [MQCFIN(C.MQIA_COMMAND_LEVEL, 800)])[0] == K.MQRCCF_ATTR_VALUE_FIXED


def test_process_create_inquire_delete(server: CommandServer) -> None:
    pname = MQCFST(C.MQCA_PROCESS_NAME, b"P1")
    ok(server, K.MQCMD_CREATE_PROCESS, [pname, MQCFST(C.MQCA_APPL_ID, b"/bin/true")])
    (p,) = ok(server, K.MQCMD_INQUIRE_PROCESS, [MQCFST(C.MQCA_PROCESS_NAME, b"P*")])
    assert p[C.MQCA_APPL_ID].String.rstrip() == b"/bin/true"
    assert len(p[C.MQCA_APPL_ID].String) == 256
    assert error(server, K.MQCMD_CREATE_PROCESS, [pname])[0] == K.MQRCCF_OBJECT_ALREADY_EXISTS
    ok(server, K.MQCMD_DELETE_PROCESS, [pname])
    assert error(server, K.MQCMD_DELETE_PROCESS, [pname])[0] == C.MQRC_UNKNOWN_OBJECT_NAME


def test_requests_that_are_not_pcf_commands_get_error_responses(server: CommandServer) -> None:
    assert parse(server.execute(b"junk", "MQADMIN")[0])[0].Reason == K.MQRCCF_CFH_LENGTH_ERROR
    raw = build(MQCFH(Command=K.MQCMD_PING_Q_MGR), [])
    assert parse(server.execute(raw, "MQSTR")[0])[0].Reason == K.MQRCCF_MD_FORMAT_ERROR
    assert parse(server.execute(build(MQCFH(Command=4242), []))[0])[0].Reason == K.MQRCCF_CFH_COMMAND_ERROR
    bad_type = build(MQCFH(Type=K.MQCFT_RESPONSE, Command=K.MQCMD_PING_Q_MGR), [])
    assert parse(server.execute(bad_type)[0])[0].Reason == K.MQRCCF_CFH_TYPE_ERROR
    dup = build(MQCFH(Command=K.MQCMD_DELETE_Q), [qname("A"), qname("A")])
    cfh, params = parse(server.execute(dup)[0])
    assert cfh.Reason == K.MQRCCF_CFST_DUPLICATE_PARM and params == [MQCFIN(K.MQIACF_PARAMETER_ID, C.MQCA_Q_NAME)]


def test_authority_records_are_set_inquired_and_deleted(server: CommandServer) -> None:
    # issue 35 item 2: PCF Set / Delete / Inquire Authority Records and Inquire Entity Authority, with IBM's
    # parameters (MQAUTH_* lists, MQCFSL entity names) and its response layout
    from syncpoint.pcf._authrec import (
        MQAUTHOPT_ENTITY_EXPLICIT,
        MQAUTHOPT_NAME_ALL_MATCHING,
        MQCACF_ENTITY_NAME,
        MQCMD_DELETE_AUTH_REC,
        MQCMD_INQUIRE_AUTH_RECS,
        MQCMD_INQUIRE_ENTITY_AUTH,
        MQIACF_AUTH_OPTIONS,
        MQIACF_AUTHORIZATION_LIST,
        MQIACF_ENTITY_TYPE,
        MQZAET_PRINCIPAL,
    )

    base: list[Param] = [
        MQCFST(K.MQCACF_AUTH_PROFILE_NAME, b"APP.**"),
        MQCFIN(K.MQIACF_OBJECT_TYPE, C.MQOT_Q),
        MQCFSL(K.MQCACF_PRINCIPAL_ENTITY_NAMES, [b"app"]),
    ]
    ok(server, K.MQCMD_SET_AUTH_REC, [*base, MQCFIL(K.MQIACF_AUTH_ADD_AUTHS, [C.MQAUTH_OUTPUT, C.MQAUTH_INPUT])])
    ok(server, K.MQCMD_SET_AUTH_REC, [*base, MQCFIL(K.MQIACF_AUTH_REMOVE_AUTHS, [C.MQAUTH_INPUT])])
    inquire = [
        MQCFIN(MQIACF_AUTH_OPTIONS, MQAUTHOPT_NAME_ALL_MATCHING | MQAUTHOPT_ENTITY_EXPLICIT),
        MQCFST(K.MQCACF_AUTH_PROFILE_NAME, b"APP.IN"),
        MQCFIN(K.MQIACF_OBJECT_TYPE, C.MQOT_Q),
        MQCFST(MQCACF_ENTITY_NAME, b"app"),
        MQCFIN(MQIACF_ENTITY_TYPE, MQZAET_PRINCIPAL),
    ]
    (rec,) = ok(server, MQCMD_INQUIRE_AUTH_RECS, inquire)
    assert rec[K.MQCACF_AUTH_PROFILE_NAME].String.rstrip() == b"APP.**"
    assert rec[MQIACF_AUTHORIZATION_LIST].Values == [C.MQAUTH_OUTPUT]
    entity = [
        MQCFST(K.MQCACF_AUTH_PROFILE_NAME, b"APP.IN"),
        MQCFIN(K.MQIACF_OBJECT_TYPE, C.MQOT_Q),
        MQCFST(MQCACF_ENTITY_NAME, b"app"),
        MQCFIN(MQIACF_ENTITY_TYPE, MQZAET_PRINCIPAL),
    ]
    (held,) = ok(server, MQCMD_INQUIRE_ENTITY_AUTH, entity)
    assert held[MQIACF_AUTHORIZATION_LIST].Values == [C.MQAUTH_OUTPUT]
    ok(server, MQCMD_DELETE_AUTH_REC, base)
    assert error(server, MQCMD_INQUIRE_AUTH_RECS, inquire)[0] == C.MQRC_UNKNOWN_OBJECT_NAME
    # bad input: IBM's reasons, nothing stored
    bad_profile = [MQCFST(K.MQCACF_AUTH_PROFILE_NAME, b"A.**B"), *base[1:]]
    assert error(server, K.MQCMD_SET_AUTH_REC, [*bad_profile, MQCFIL(K.MQIACF_AUTH_ADD_AUTHS, [2])])[0] == 3170
    bad_auth = [*base, MQCFIL(K.MQIACF_AUTH_ADD_AUTHS, [C.MQAUTH_CONNECT])]  # not a queue's
    assert error(server, K.MQCMD_SET_AUTH_REC, bad_auth)[0] == C.MQRCCF_AUTH_VALUE_ERROR
    two = [*base[:2], MQCFSL(K.MQCACF_PRINCIPAL_ENTITY_NAMES, [b"app", b"x" * 13])]
    assert error(server, K.MQCMD_SET_AUTH_REC, [*two, MQCFIL(K.MQIACF_AUTH_ADD_AUTHS, [2])])[0] == 2292
    assert error(server, MQCMD_INQUIRE_AUTH_RECS, [*inquire[:1], *inquire[2:]]) == (
        C.MQRC_UNKNOWN_OBJECT_NAME,
        K.MQCACF_AUTH_PROFILE_NAME,
    )  # app got nothing from the refused commands


# ------------------------------------------------------------------------------------------------------
# the loop: requests on SYSTEM.ADMIN.COMMAND.QUEUE, replies on the ReplyToQ
# ------------------------------------------------------------------------------------------------------
@pytest.fixture
def live() -> Iterator[QueueManager]:
    e = memory_queue_manager("QM1")  # a real clock: the server waits on the command queue
    server = CommandServer(lambda: syncpoint.connect("QM1", embedded=e, appl_name="amqpcsea"), poll=0.05)
    thread, stop = server.start()
    qm = syncpoint.connect("QM1", embedded=e)
    qm.admin("define", "QLOCAL", "REPLY")
    yield qm
    stop.set()
    thread.join(5)
    e.close(abnormal=True)


def _request(qm: QueueManager, body: bytes, reply_to: str = "REPLY", **kw: object) -> MQMD:
    msg_type = C.MQMT_REQUEST if reply_to else C.MQMT_DATAGRAM
    return qm.put1("SYSTEM.ADMIN.COMMAND.QUEUE", body, format=C.MQFMT_ADMIN, msg_type=msg_type, reply_to=reply_to, **kw)  # type: ignore[arg-type]


def test_replies_go_to_the_reply_queue_correlated_by_msgid(live: QueueManager) -> None:
    live.admin("define", "QLOCAL", "M1")
    live.admin("define", "QLOCAL", "M2")
    md = _request(live, build(MQCFH(Command=K.MQCMD_INQUIRE_Q), [qname("M*")]), priority=4)
    replies = live.open("REPLY")
    got = [replies.get(wait=5.0, correl_id=bytes(md.MsgId)) for _ in range(2)]
    for m in got:
        assert m.md.MsgType == C.MQMT_REPLY and m.format == "MQADMIN" and m.priority == 4
        assert m.correl_id == bytes(md.MsgId)
    assert [parse(m.data)[0].Control for m in got] == [K.MQCFC_NOT_LAST, K.MQCFC_LAST]
    assert live.open("SYSTEM.ADMIN.COMMAND.QUEUE").depth == 0


def test_a_request_without_reply_queue_is_run_and_not_answered(live: QueueManager) -> None:
    _request(live, build(MQCFH(Command=K.MQCMD_CREATE_Q), [qname("SILENT"), LOCAL]), reply_to="")
    ping = _request(live, build(MQCFH(Command=K.MQCMD_PING_Q_MGR), []))
    live.open("REPLY").get(wait=5.0, correl_id=bytes(ping.MsgId))
    assert live.admin("lookup", "QLOCAL", "SILENT") is not None
    assert live.open("REPLY").depth == 0


def test_an_undeliverable_reply_does_not_stop_the_server(live: QueueManager) -> None:
    _request(live, build(MQCFH(Command=K.MQCMD_PING_Q_MGR), []), reply_to="NO.SUCH.QUEUE")
    ping = _request(live, build(MQCFH(Command=K.MQCMD_PING_Q_MGR), []))
    m = live.open("REPLY").get(wait=5.0, correl_id=bytes(ping.MsgId))
    assert parse(m.data)[0].CompCode == 0
    assert live.open("SYSTEM.ADMIN.COMMAND.QUEUE").depth == 0
    with pytest.raises(MQMIError):
        live.open("NO.SUCH.QUEUE").depth  # noqa: B018


def test_inquire_q_with_a_filter_returns_only_matching_queues_and_the_filtered_attribute(
    server: CommandServer, qm: QueueManager
) -> None:
    from syncpoint.pcf import MQCFIF, MQCFSF

    ok(server, K.MQCMD_CREATE_Q, [qname("F.EMPTY"), LOCAL, MQCFST(C.MQCA_Q_DESC, b"alpha")])
    ok(server, K.MQCMD_CREATE_Q, [qname("F.FULL"), LOCAL, MQCFST(C.MQCA_Q_DESC, b"beta")])
    qm.put1("F.FULL", b"x")
    depth = MQCFIF(C.MQIA_CURRENT_Q_DEPTH, K.MQCFOP_GREATER, 0)
    replies = ok(server, K.MQCMD_INQUIRE_Q, [qname("F.*"), MQCFIL(K.MQIACF_Q_ATTRS, [C.MQCA_Q_DESC]), depth])
    assert [r[C.MQCA_Q_NAME].String.strip() for r in replies] == [b"F.FULL"]
    assert replies[0][C.MQIA_CURRENT_Q_DEPTH].Value == 1  # returned although only DESCR was asked for
    like = MQCFSF(C.MQCA_Q_DESC, K.MQCFOP_LIKE, b"al*", 0)
    replies = ok(server, K.MQCMD_INQUIRE_Q, [qname("F.*"), like])
    assert [r[C.MQCA_Q_NAME].String.strip() for r in replies] == [b"F.EMPTY"]
    none = MQCFIF(C.MQIA_CURRENT_Q_DEPTH, K.MQCFOP_GREATER, 5)
    assert run(server, K.MQCMD_INQUIRE_Q, [qname("F.*"), none])[0][0].CompCode == 0  # no match is not an error
    assert error(server, K.MQCMD_INQUIRE_Q, [qname("F.*"), depth, like])[0] == K.MQRCCF_FILTER_ERROR
    assert error(server, K.MQCMD_DELETE_Q, [qname("F.FULL"), depth])[0] == K.MQRCCF_FILTER_ERROR


def test_a_fault_inside_a_command_still_gets_an_error_response(server: CommandServer) -> None:
    def broken(verb: str, *args: object, **kw: object) -> object:
        raise RuntimeError("a bug")

    server._admin = broken  # type: ignore[method-assign]
    assert error(server, K.MQCMD_INQUIRE_Q, [qname("*")]) == (K.MQRCCF_COMMAND_FAILED, 0)


def test_inquire_q_status_with_a_filter(server: CommandServer, qm: QueueManager) -> None:
    from syncpoint.pcf import MQCFIF

    ok(server, K.MQCMD_CREATE_Q, [qname("S.A"), LOCAL])
    ok(server, K.MQCMD_CREATE_Q, [qname("S.B"), LOCAL])
    qm.put1("S.B", b"1")
    qm.put1("S.B", b"2")
    depth = MQCFIF(C.MQIA_CURRENT_Q_DEPTH, K.MQCFOP_NOT_LESS, 2)
    wanted = MQCFIL(K.MQIACF_Q_STATUS_ATTRS, [K.MQIACF_UNCOMMITTED_MSGS])
    replies = ok(server, K.MQCMD_INQUIRE_Q_STATUS, [qname("S.*"), wanted, depth])
    assert [(r[C.MQCA_Q_NAME].String.strip(), r[C.MQIA_CURRENT_Q_DEPTH].Value) for r in replies] == [(b"S.B", 2)]
    assert C.MQIA_OPEN_INPUT_COUNT not in replies[0]


def test_inquire_auth_info_and_inquire_q_mgr_tell_the_connauth_that_mqsc_and_mqinq_tell(
    server: CommandServer, qm: QueueManager
) -> None:
    # Issue 34, item 4: "MQSC and PCF telling the same CONNAUTH (runmqsc shows CONNAUTH( ) while PCF says
    # SYSTEM.DEFAULT.AUTHINFO.IDPWOS)". The queue manager's CONNAUTH names a real AUTHINFO object, IBM's
    # default one with its default settings (CHCKCLNT(REQDADM), CHCKLOCL(OPTIONAL)).
    from syncpoint.mqsc import MqscProcessor

    (qmgr,) = ok(server, K.MQCMD_INQUIRE_Q_MGR, [MQCFIL(K.MQIACF_Q_MGR_ATTRS, [K.MQCA_CONN_AUTH])])
    assert qmgr[K.MQCA_CONN_AUTH].String.strip() == b"SYSTEM.DEFAULT.AUTHINFO.IDPWOS"
    name = MQCFST(K.MQCA_AUTH_INFO_NAME, b"SYSTEM.DEFAULT.AUTHINFO.IDPWOS")
    (p,) = ok(server, K.MQCMD_INQUIRE_AUTH_INFO, [name])
    assert p[K.MQIA_AUTH_INFO_TYPE].Value == K.MQAIT_IDPW_OS
    assert p[K.MQIA_CHECK_CLIENT_BINDING].Value == K.MQCHK_REQUIRED_ADMIN
    assert p[K.MQIA_CHECK_LOCAL_BINDING].Value == K.MQCHK_OPTIONAL
    # an object made by PCF, named by CONNAUTH through PCF: MQSC and MQINQ see the same
    ok(
        server,
        K.MQCMD_CREATE_AUTH_INFO,
        [
            MQCFST(K.MQCA_AUTH_INFO_NAME, b"APP.AUTH"),
            MQCFIN(K.MQIA_AUTH_INFO_TYPE, K.MQAIT_IDPW_OS),
            MQCFIN(K.MQIA_CHECK_CLIENT_BINDING, K.MQCHK_REQUIRED),
        ],
    )
    ok(server, K.MQCMD_CHANGE_Q_MGR, [MQCFST(K.MQCA_CONN_AUTH, b"APP.AUTH")])
    ok(server, K.MQCMD_REFRESH_SECURITY, [MQCFIN(K.MQIACF_SECURITY_TYPE, K.MQSECTYPE_CONNAUTH)])
    shown = MqscProcessor(qm, echo=False).execute("DISPLAY QMGR CONNAUTH").lines
    assert any("CONNAUTH(APP.AUTH)" in line for line in shown), shown
    h = qm.mqopen(MQOD(ObjectType=C.MQOT_Q_MGR), C.MQOO_INQUIRE)
    assert qm.mqinq(h, [C.MQCA_CONN_AUTH])[1] == [b"APP.AUTH".ljust(48)]
    assert qm.admin("connauth_in_force")["CHCKCLNT"] == K.MQCHK_REQUIRED
    (p,) = ok(server, K.MQCMD_INQUIRE_AUTH_INFO, [MQCFST(K.MQCA_AUTH_INFO_NAME, b"APP.*")])
    assert p[K.MQIA_CHECK_CLIENT_BINDING].Value == K.MQCHK_REQUIRED
    # the object CONNAUTH names cannot be deleted; an unknown one is 2085
    assert (
        error(server, K.MQCMD_DELETE_AUTH_INFO, [MQCFST(K.MQCA_AUTH_INFO_NAME, b"APP.AUTH")])[0] == K.MQRCCF_OBJECT_OPEN
    )
    assert error(server, K.MQCMD_INQUIRE_AUTH_INFO, [MQCFST(K.MQCA_AUTH_INFO_NAME, b"OTHER")])[0] == 2085


def test_a_pcf_message_with_an_impossible_count_gets_an_error_response_and_the_server_goes_on(
    server: CommandServer,
) -> None:
    # Hardening: a 60-byte MQCFH + MQCFSL with StringLength 0 and Count 2**31-1 once made the command server
    # allocate gigabytes; it is answered with MQRCCF_CFSL_COUNT_ERROR (IBM's reason for a Count not valid).
    raw = MQCFH(Command=K.MQCMD_INQUIRE_Q, Type=K.MQCFT_COMMAND_XR, Version=3, ParameterCount=1).pack()
    raw += struct.pack("=6i", K.MQCFT_STRING_LIST, 24, K.MQCACF_Q_NAMES, 0, 2**31 - 1, 0)
    (reply,) = server.execute(raw)
    cfh, _ = parse(reply)
    assert (cfh.CompCode, cfh.Reason) == (C.MQCC_FAILED, K.MQRCCF_CFSL_COUNT_ERROR)
    ok(server, K.MQCMD_PING_Q_MGR, [])
