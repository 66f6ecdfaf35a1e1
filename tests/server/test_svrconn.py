"""Server-connection channels and channel authentication as IBM's (issue 35, item 5; reference/operations.md,
"Connection authentication and channel authentication"): a client names a SVRCONN channel of the queue manager,
MAXINST / MAXINSTC bound its instances, and the CHLAUTH records — IBM's three default rules on a new queue
manager — decide whether it connects and as whom.

One real server process (``strmqm``'s) on TCP for the module, a new queue manager with no password file: a client
asserts any user, the hole docs/security.md names, which the default rules close. Administration goes over the
Unix socket (local, not a channel)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import syncpoint
from syncpoint.cli._testing import Config, serve
from syncpoint.host import os_user
from syncpoint.mqi import MQMIError
from syncpoint.mqi import constants as C
from syncpoint.mqsc import MqscProcessor
from waiting import wait_until

ME = os_user()  # the queue manager's creator: an administrator (IBM's privileged user)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    home = tmp_path_factory.mktemp("svrconn")
    mq = serve(home, Config(name="QM1", dev=False))
    admin = syncpoint.connect("QM1", home=home)  # over the Unix socket: local, no channel
    # back to IBM's defaults: without the two records the test servers add for SYSTEM.DEF.SVRCONN
    admin.admin("set_chlauth", "SYSTEM.DEF.SVRCONN", "ADDRESSMAP", "REMOVE", address="127.*")
    admin.admin("set_chlauth", "SYSTEM.DEF.SVRCONN", "BLOCKUSER", "REMOVEALL")
    admin.admin("set_authrec", "qmgr", "", "principal", "alice", ["connect", "dsp"])
    admin.admin("set_authrec", "qmgr", "", "principal", "bob", ["connect", "dsp"])
    admin.disconnect()
    yield mq
    mq.end()


def mqsc(server: Any, *commands: str) -> list[str]:
    admin = syncpoint.connect("QM1", home=server.home)
    try:
        lines: list[str] = []
        for command in commands:
            lines += MqscProcessor(admin, echo=False).execute(command).lines
        return lines
    finally:
        admin.disconnect()


def client(server: Any, channel: str | None = None, user: str = "alice") -> syncpoint.QueueManager:
    return syncpoint.connect("QM1", host=server.conname, channel=channel, user=user)


def reason(server: Any, channel: str | None = None, user: str = "alice") -> int:
    try:
        client(server, channel, user).disconnect()
    except MQMIError as e:
        return e.reason
    return 0


def error_log(server: Any) -> str:
    return (Path(server.home) / "qmgrs" / "QM1" / "errors" / "AMQERR01.LOG").read_text()


def logged(server: Any, text: str) -> None:
    wait_until(lambda: text in error_log(server), what=f"{text!r} in the error log")


def test_new_queue_manager_has_ibms_svrconn_channels_and_three_default_rules(server: Any) -> None:
    lines = mqsc(server, "DISPLAY CHANNEL(SYSTEM.*) CHLTYPE", "DISPLAY CHLAUTH(*)")
    text = "\n".join(lines)
    assert "CHANNEL(SYSTEM.DEF.SVRCONN)" in text and "CHANNEL(SYSTEM.ADMIN.SVRCONN)" in text
    assert text.count("CHLTYPE(SVRCONN)") == 2
    # IBM's three rules, as DISPLAY CHLAUTH lists them
    assert text.count("AMQ8878I: Display channel authentication record details.") == 3
    assert "CHLAUTH(SYSTEM.ADMIN.SVRCONN)" in text and "USERSRC(CHANNEL)" in text
    assert "CHLAUTH(SYSTEM.*)" in text and "USERSRC(NOACCESS)" in text
    assert "CHLAUTH(*)" in text and "USERLIST(*MQADMIN)" in text


def test_default_rules_block_system_channels_but_system_admin_svrconn(server: Any) -> None:
    # SYSTEM.* ADDRESSMAP('*') USERSRC(NOACCESS): the default channel a client names is refused, 2035, AMQ9777E
    assert reason(server) == C.MQRC_NOT_AUTHORIZED
    assert reason(server, "SYSTEM.DEF.SVRCONN") == C.MQRC_NOT_AUTHORIZED
    logged(server, "AMQ9777E: Channel was blocked.")
    # the more specific SYSTEM.ADMIN.SVRCONN rule (USERSRC(CHANNEL)) lets a non-administrator in
    qm = client(server, "SYSTEM.ADMIN.SVRCONN", "alice")
    conns = "\n".join(mqsc(server, "DISPLAY CONN(*) WHERE(CHANNEL EQ 'SYSTEM.ADMIN.SVRCONN') ALL"))
    qm.disconnect()
    assert "USERID(alice)" in conns and "CONNAME(127.0.0.1)" in conns


def test_administrators_are_blocked_over_tcp_by_default(server: Any) -> None:
    # SET CHLAUTH('*') TYPE(BLOCKUSER) USERLIST('*MQADMIN'): any administrator (the creator, the mqm group)
    assert reason(server, "SYSTEM.ADMIN.SVRCONN", ME) == C.MQRC_NOT_AUTHORIZED
    logged(server, "AMQ9776E: Channel was blocked by userid.")
    assert f"MCAUSER({ME})" in error_log(server)


def test_unknown_or_non_svrconn_channel_is_refused_with_2540_and_amq9519e(server: Any) -> None:
    assert reason(server, "NO.SUCH.SVRCONN") == C.MQRC_UNKNOWN_CHANNEL_NAME
    logged(server, "AMQ9519E: Channel 'NO.SUCH.SVRCONN' not found.")
    mqsc(server, "DEFINE CHANNEL(TO.ELSEWHERE) CHLTYPE(RCVR) REPLACE")
    assert reason(server, "TO.ELSEWHERE") == C.MQRC_UNKNOWN_CHANNEL_NAME


def test_usermap_maps_the_asserted_user_and_the_most_specific_profile_wins(server: Any) -> None:
    out = mqsc(
        server,
        "DEFINE CHANNEL(APP.SVRCONN) CHLTYPE(SVRCONN) REPLACE",
        "SET CHLAUTH('APP.*') TYPE(ADDRESSMAP) ADDRESS('*') USERSRC(NOACCESS)",
        "SET CHLAUTH('APP.SVRCONN') TYPE(USERMAP) CLNTUSER('bob') USERSRC(MAP) MCAUSER('alice')",
    )
    assert out.count("AMQ8877I: syncpoint channel authentication record set.") == 2
    qm = client(server, "APP.SVRCONN", "bob")  # APP.SVRCONN's USERMAP beats APP.*'s ADDRESSMAP
    conns = "\n".join(mqsc(server, "DISPLAY CONN(*) WHERE(CHANNEL EQ 'APP.SVRCONN') ALL"))
    qm.disconnect()
    assert "USERID(alice)" in conns and "CHANNEL(APP.SVRCONN)" in conns
    assert reason(server, "APP.SVRCONN", "carol") == C.MQRC_NOT_AUTHORIZED  # only APP.* matches: NOACCESS


def test_channel_mcauser_is_the_identity_of_every_client_on_it(server: Any) -> None:
    mqsc(server, "DEFINE CHANNEL(AS.ALICE) CHLTYPE(SVRCONN) MCAUSER('alice') REPLACE")
    qm = client(server, "AS.ALICE", "bob")
    conns = "\n".join(mqsc(server, "DISPLAY CONN(*) WHERE(CHANNEL EQ 'AS.ALICE') ALL"))
    qm.disconnect()
    assert "USERID(alice)" in conns


def test_blockaddr_refuses_an_address_before_anything_else(server: Any) -> None:
    mqsc(server, "DEFINE CHANNEL(OPEN.SVRCONN) CHLTYPE(SVRCONN) MCAUSER('alice') REPLACE")
    assert reason(server, "OPEN.SVRCONN") == 0
    assert "AMQ8877I" in mqsc(server, "SET CHLAUTH(*) TYPE(BLOCKADDR) ADDRLIST('10.*', '127.0.0.1')")[0]
    try:
        assert reason(server, "OPEN.SVRCONN") == C.MQRC_NOT_AUTHORIZED
        logged(server, "AMQ9782E: Remote connection blocked.")
    finally:
        mqsc(server, "SET CHLAUTH(*) TYPE(BLOCKADDR) ACTION(REMOVEALL)")
    assert reason(server, "OPEN.SVRCONN") == 0


def test_maxinst_and_maxinstc_bound_a_channels_instances(server: Any) -> None:
    mqsc(server, "DEFINE CHANNEL(LIMITED) CHLTYPE(SVRCONN) MCAUSER('alice') MAXINST(2) REPLACE")
    first, second = client(server, "LIMITED"), client(server, "LIMITED")
    assert reason(server, "LIMITED") == C.MQRC_CHANNEL_NOT_AVAILABLE  # IBM: 2537, AMQ9489I in the log
    logged(server, "AMQ9489I: The maximum number of instances, 2, of channel 'LIMITED' was reached.")
    first.disconnect()
    wait_until(lambda: reason(server, "LIMITED") == 0, what="an instance given back at disconnect")
    mqsc(server, "DEFINE CHANNEL(PERCLIENT) CHLTYPE(SVRCONN) MCAUSER('alice') MAXINSTC(1) REPLACE")
    one = client(server, "PERCLIENT")
    assert reason(server, "PERCLIENT") == C.MQRC_CHANNEL_NOT_AVAILABLE  # the same address: AMQ9490I
    logged(server, "AMQ9490I: The maximum number of instances, 1, of channel 'PERCLIENT' was reached")
    one.disconnect()
    second.disconnect()


def test_runcheck_says_which_record_a_connection_meets(server: Any) -> None:
    def runcheck(channel: str, address: str, user: str) -> str:
        return "\n".join(
            mqsc(server, f"DISPLAY CHLAUTH({channel}) MATCH(RUNCHECK) ADDRESS('{address}') CLNTUSER('{user}')")
        )

    assert "USERSRC(NOACCESS)" in runcheck("SYSTEM.DEF.SVRCONN", "192.0.2.1", "alice")
    allowed = runcheck("SYSTEM.ADMIN.SVRCONN", "192.0.2.1", "alice")  # the matching record, which lets it in
    assert "CHLAUTH(SYSTEM.ADMIN.SVRCONN)" in allowed and "USERSRC(CHANNEL)" in allowed
    assert "USERLIST(*MQADMIN)" in runcheck("SYSTEM.ADMIN.SVRCONN", "192.0.2.1", ME)
    assert "AMQ9783I: Channel will run using MCAUSER('carol')." in runcheck("NOT.MATCHED", "192.0.2.1", "carol")


@pytest.mark.parametrize(
    "address", ["1.2.3.256", "1.2.*.x", "10.5-3.1.1", "1.2.3", "1.2.3.4.5", "a b", "1.2.3.4-4", "gg::1*::"]
)
def test_address_patterns_ibm_refuses_are_refused_and_nothing_is_stored(server: Any, address: str) -> None:
    before = mqsc(server, "DISPLAY CHLAUTH(*) ALL")
    out = mqsc(server, f"SET CHLAUTH('BAD.*') TYPE(ADDRESSMAP) ADDRESS('{address}') USERSRC(CHANNEL)")
    assert out[0].startswith("AMQ8887E: The address"), out
    assert mqsc(server, "DISPLAY CHLAUTH(*) ALL") == before


def test_chlauth_disabled_checks_no_record(server: Any) -> None:
    mqsc(server, "ALTER QMGR CHLAUTH(DISABLED)")
    try:
        assert reason(server, "SYSTEM.DEF.SVRCONN") == 0
        assert reason(server, "NO.SUCH.SVRCONN") == C.MQRC_UNKNOWN_CHANNEL_NAME  # the channel still must exist
    finally:
        mqsc(server, "ALTER QMGR CHLAUTH(ENABLED)")
    assert reason(server, "SYSTEM.DEF.SVRCONN") == C.MQRC_NOT_AUTHORIZED


def test_a_queue_manager_made_before_channel_authentication_gains_ibms_channels_and_rules() -> None:
    from syncpoint.engine import FakeClock
    from syncpoint.engine import QueueManager as Engine
    from syncpoint.store import Snapshot

    clock = FakeClock()
    objects: dict[str, dict[str, bytes]] = {}
    for kind, name, raw in Engine.initial_batch("QM1", clock).put_objects:
        if kind != "CHLAUTH" and not (kind == "CHANNEL" and name.endswith("SVRCONN")):
            objects.setdefault(kind, {})[name] = raw  # as an older syncpoint's crtmqm left it
    # an older queue manager with every other default object (the event queues among them) already added
    engine = Engine("QM1", Snapshot(objects, [], {"seq": 1, "authinfo": 1, "adminqs": 1}), clock)
    assert [(r["profile"], r["type"]) for r in engine.chlauth_records("*", "ALL", "ALL")] == [
        ("*", "BLOCKUSER"),
        ("SYSTEM.*", "ADDRESSMAP"),
        ("SYSTEM.ADMIN.SVRCONN", "ADDRESSMAP"),
    ]
    assert engine.lookup("CHANNEL", "SYSTEM.DEF.SVRCONN") is not None
    effects = engine.take_effects()
    assert effects is not None and effects.batch is not None
    assert effects.batch.counters.get("chlauth") == 1  # (a start event's MsgId may move its own counter too)
    kinds = sorted({k for k, _, _ in effects.batch.put_objects})
    assert kinds == ["CHANNEL", "CHLAUTH"]  # written once: the next start finds the counter


def test_records_survive_a_restart(tmp_path: Path) -> None:
    from syncpoint.client import create_queue_manager, open_embedded

    create_queue_manager("QM9", home=tmp_path)
    qm = syncpoint.connect("QM9", home=tmp_path)
    qm.admin("set_chlauth", "APP.*", "USERMAP", "ADD", clntuser="bob", usersrc="MAP", mcauser="alice")
    qm.disconnect()
    open_embedded("QM9", home=tmp_path).close()
    qm = syncpoint.connect("QM9", home=tmp_path)
    records = qm.admin("chlauth_records", "APP.*", "USERMAP", "EXACT")
    qm.disconnect()
    assert [(r["clntuser"], r["mcauser"]) for r in records] == [("bob", "alice")]


def test_dmpmqcfg_dumps_svrconn_channels_and_set_chlauth_lines_that_replay() -> None:
    from syncpoint.client import memory_queue_manager
    from syncpoint.mqsc import read_commands
    from syncpoint.mqsc._dump import dump_definitions

    source, target = memory_queue_manager("QM1"), memory_queue_manager("QM2")
    for command in (
        "DEFINE CHANNEL(APP.SVRCONN) CHLTYPE(SVRCONN) MCAUSER('app') MAXINST(5) MAXINSTC(2) DESCR('apps')",
        "SET CHLAUTH('APP.*') TYPE(USERMAP) CLNTUSER('bob') USERSRC(MAP) MCAUSER('alice') DESCR('it''s bob') WARN(YES)",
        "SET CHLAUTH(*) TYPE(BLOCKADDR) ADDRLIST('10.*','192.0.2.1-9')",
        "SET CHLAUTH('SYSTEM.ADMIN.SVRCONN') TYPE(ADDRESSMAP) ADDRESS('*') ACTION(REMOVE)",
    ):
        assert MqscProcessor(source, echo=False).execute(command).ok, command
    lines = dump_definitions(source, types=("CHANNEL", "CHLAUTH"))
    assert "SET CHLAUTH('*') TYPE(BLOCKADDR) ADDRLIST('10.*','192.0.2.1-9') ACTION(REPLACE)" in lines
    for cmd in read_commands(lines):
        assert MqscProcessor(target, echo=False).execute(cmd.text).ok, cmd.text
    target.admin("set_chlauth", "SYSTEM.ADMIN.SVRCONN", "ADDRESSMAP", "REMOVE", address="*")  # as removed above

    def records(qm: Any) -> list[dict[str, Any]]:
        return [{k: v for k, v in r.items() if k != "altered"} for r in qm.admin("chlauth_records", "*", "ALL", "ALL")]

    assert records(target) == records(source)
    channel = target.admin("lookup", "CHANNEL", "APP.SVRCONN")
    assert (channel.attrs["MCAUSER"], channel.attrs["MAXINST"], channel.attrs["MAXINSTC"]) == ("app", 5, 2)


def test_display_chstatus_and_display_conn_show_client_connections(server: Any) -> None:
    mqsc(server, "DEFINE CHANNEL(STATUS.SVRCONN) CHLTYPE(SVRCONN) MCAUSER('alice') REPLACE")
    qm = syncpoint.connect("QM1", host=server.conname, channel="STATUS.SVRCONN", user="bob", appl_name="status-app")
    try:
        status = "\n".join(mqsc(server, "DISPLAY CHSTATUS(STATUS.*) ALL"))
        conns = "\n".join(mqsc(server, "DISPLAY CONN(*) WHERE(APPLTAG EQ 'status-app') ALL"))
    finally:
        qm.disconnect()
    assert "AMQ8417I: Display Channel Status details." in status
    for shown in ("CHANNEL(STATUS.SVRCONN)", "CHLTYPE(SVRCONN)", "STATUS(RUNNING)", "CONNAME(127.0.0.1)"):
        assert shown in status, shown
    assert "MCAUSER(alice)" in status and "RAPPLTAG(status-app)" in status and "CURSHCNV(1)" in status
    assert "CHANNEL(STATUS.SVRCONN)" in conns and "CONNAME(127.0.0.1)" in conns
    wait_until(lambda: "AMQ8420I" in "\n".join(mqsc(server, "DISPLAY CHSTATUS(STATUS.*)")), what="the instance gone")


def test_mqinq_answers_chlauth_as_mqchla_and_follows_alter_qmgr() -> None:
    from syncpoint.client import memory_queue_manager
    from syncpoint.mqi import MQOD

    qm = memory_queue_manager("QM1")

    def chlauth() -> int:
        h = qm.mqopen(MQOD(ObjectType=C.MQOT_Q_MGR), C.MQOO_INQUIRE)
        try:
            ints, _ = qm.mqinq(h, [C.MQIA_CHLAUTH_RECORDS])
        finally:
            qm.mqclose(h)
        return ints[0]

    assert chlauth() == 1  # MQCHLA_ENABLED: IBM's default
    assert MqscProcessor(qm, echo=False).execute("ALTER QMGR CHLAUTH(DISABLED)").ok
    assert chlauth() == 0  # MQCHLA_DISABLED
