"""Connection authentication as IBM's (issue 35, item 4; reference/operations.md, CONNAUTH): the queue manager's
CONNAUTH names an AUTHINFO object whose CHCKCLNT / CHCKLOCL (NONE, OPTIONAL, REQUIRED, REQDADM), ADOPTCTX and
FAILDLAY decide what a connection must present, once REFRESH SECURITY TYPE(CONNAUTH) (or a start) takes them.

A real server in this process on an in-memory queue manager; the password file is a real file. The privileged
user (IBM's administrator, whom REQDADM asks for a password) is the operating-system user that created the queue
manager: the owner of its folder, here this test's own user."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

import syncpoint
from syncpoint.client import EmbeddedQueueManager, QueueManager, memory_queue_manager
from syncpoint.engine import FakeClock
from syncpoint.engine import QueueManager as Engine
from syncpoint.host import os_user
from syncpoint.mqi import MQMIError
from syncpoint.mqi import constants as C
from syncpoint.mqsc import MqscProcessor
from syncpoint.server._auth import Throttle, Users
from syncpoint.store import Snapshot

Serve = Callable[..., Any]
ME = os_user()  # the queue manager's creator: its folder (the password file's) is this user's


@pytest.fixture
def real() -> Iterator[EmbeddedQueueManager]:
    qm = memory_queue_manager("QM1")
    admin = syncpoint.connect("QM1", embedded=qm)
    # app connects (and reads DISPLAY CONN of itself: dsp); it is no administrator
    admin.admin("set_authrec", "qmgr", "", "principal", "app", ["connect", "dsp"])
    admin.disconnect()
    yield qm
    qm.close(abnormal=True)


@pytest.fixture
def users(tmp_path: Path) -> Users:
    u = Users(tmp_path / "users.json")
    u.set_password("app", "app-pw")
    u.set_password(ME, "admin-pw")
    return u


def mqsc(qm: EmbeddedQueueManager, *commands: str) -> list[str]:
    admin = syncpoint.connect("QM1", embedded=qm)
    try:
        lines: list[str] = []
        for command in commands:
            r = MqscProcessor(admin, echo=False).execute(command)
            assert r.ok, r.lines
            lines += r.lines
        return lines
    finally:
        admin.disconnect()


def tcp(srv: Any, **kw: Any) -> QueueManager:
    return syncpoint.connect("QM1", host=f"127.0.0.1({srv.bound_port})", **kw)


def local(srv: Any, **kw: Any) -> QueueManager:
    return syncpoint.connect("QM1", unix_path=srv.unix_path, **kw)


def refused(connect: Callable[[], QueueManager]) -> bool:
    try:
        connect().disconnect()
    except MQMIError as e:
        assert e.reason == C.MQRC_NOT_AUTHORIZED, e
        return True
    return False


def user_of(qm: QueueManager) -> str:
    """The user the connection runs as (DISPLAY CONN's USERID)."""
    hconn = qm.transport.hconn  # type: ignore[attr-defined]
    return str(next(c["USERID"] for c in qm.admin("connection_status") if c["HCONN"] == hconn))


def test_the_creating_user_and_members_of_mqm_are_privileged_and_others_are_not(real: Any) -> None:
    # IBM: a privileged user is one with full administrative authority: the creator and the mqm group's members
    assert real.engine.is_administrator(ME)
    assert not real.engine.is_administrator("app")
    real.admin("group_change", "mqm", "app", True)
    real.admin("refresh_security", "AUTHSERV")
    assert real.engine.is_administrator("app")


def test_reqdadm_asks_a_password_of_an_administrator_only(real: Any, serve: Serve, users: Users) -> None:
    # IBM's default SYSTEM.DEFAULT.AUTHINFO.IDPWOS: CHCKCLNT(REQDADM) — "privileged users must supply a valid user
    # ID and password; non-privileged users are treated as with the OPTIONAL setting"
    srv = serve(real, users=users)
    app = tcp(srv, user="app")  # a user that is not an administrator: no password needed
    assert user_of(app) == "app"
    app.disconnect()
    assert refused(lambda: tcp(srv, user="app", password="wrong"))  # OPTIONAL: a password given must be right
    assert refused(lambda: tcp(srv))  # asserts this process's user, the administrator: no password, refused
    assert refused(lambda: tcp(srv, user=ME))
    assert refused(lambda: tcp(srv, user=ME, password="wrong"))
    admin = tcp(srv, user=ME, password="admin-pw")
    assert user_of(admin) == ME
    admin.disconnect()
    local(srv).disconnect()  # CHCKLOCL(OPTIONAL): the Unix socket needs no password, even an administrator's


def test_another_queue_managers_channel_must_authenticate_whatever_connauth_says(
    real: Any, serve: Serve, users: Users
) -> None:
    # a sending channel's hello (ApplType MQAT_QMGR): IBM guards message channels with CHLAUTH and TLS, not
    # CONNAUTH; syncpoint's receiving end asks every sender for a password once a user exists
    from syncpoint.client._remote import RemoteTransport

    def link(**kw: Any) -> Any:
        return RemoteTransport("QM1", address=("127.0.0.1", srv.bound_port), appl_type=C.MQAT_QMGR, **kw)

    srv = serve(real, users=users)
    with pytest.raises(MQMIError) as e:
        link(user="app")  # a client as app needs no password under REQDADM; a channel does
    assert e.value.reason == C.MQRC_NOT_AUTHORIZED
    link(user="app", password="app-pw").disconnect(False)


def test_a_change_takes_effect_at_refresh_security_connauth(real: Any, serve: Serve, users: Users) -> None:
    srv = serve(real, users=users)
    mqsc(real, "ALTER AUTHINFO(SYSTEM.DEFAULT.AUTHINFO.IDPWOS) CHCKCLNT(REQUIRED) CHCKLOCL(REQDADM)")
    tcp(srv, user="app").disconnect()  # IBM: not in force until REFRESH SECURITY TYPE(CONNAUTH)
    mqsc(real, "REFRESH SECURITY TYPE(CONNAUTH)")
    assert refused(lambda: tcp(srv, user="app"))  # REQUIRED: every client
    tcp(srv, user="app", password="app-pw").disconnect()
    assert refused(lambda: local(srv))  # CHCKLOCL(REQDADM): a local administrator too
    local(srv, user="app").disconnect()  # but not a local user who is not one
    local(srv, user=ME, password="admin-pw").disconnect()


def test_chckclnt_none_checks_nothing_and_a_blank_connauth_turns_authentication_off(
    real: Any, serve: Serve, users: Users
) -> None:
    srv = serve(real, users=users)
    mqsc(real, "DEFINE AUTHINFO(OPEN.DOOR) AUTHTYPE(IDPWOS) CHCKCLNT(NONE)", "ALTER QMGR CONNAUTH(OPEN.DOOR)")
    mqsc(real, "REFRESH SECURITY")  # IBM's default TYPE(ALL) refreshes CONNAUTH too
    tcp(srv, user="app", password="wrong").disconnect()  # NONE: a password given is not even checked
    tcp(srv).disconnect()
    mqsc(real, "ALTER AUTHINFO(OPEN.DOOR) CHCKCLNT(REQUIRED)", "ALTER QMGR CONNAUTH(' ')", "REFRESH SECURITY")
    tcp(srv).disconnect()  # no CONNAUTH: no connection authentication at all
    assert syncpoint.connect("QM1", embedded=real).admin("connauth_in_force") is None


def test_adoptctx_says_whether_the_authenticated_user_becomes_the_connections(
    real: Any, serve: Serve, users: Users
) -> None:
    srv = serve(real, users=users)
    app = tcp(srv, user="app", password="app-pw")
    assert user_of(app) == "app"  # ADOPTCTX(YES), the default object's
    app.disconnect()
    mqsc(real, "ALTER AUTHINFO(SYSTEM.DEFAULT.AUTHINFO.IDPWOS) ADOPTCTX(NO)", "REFRESH SECURITY TYPE(CONNAUTH)")
    app = tcp(srv, user="app", password="app-pw")
    assert user_of(app) == ME  # ADOPTCTX(NO): the user the client process asserts, its operating-system user
    app.disconnect()


def test_faildlay_holds_the_failed_answer_and_not_a_right_one(
    real: Any, serve: Serve, users: Users, caplog: pytest.LogCaptureFixture
) -> None:
    # FAILDLAY(n): "the delay in seconds before an authentication failure is returned to the application"
    srv = serve(real, users=users)
    mqsc(real, "ALTER AUTHINFO(SYSTEM.DEFAULT.AUTHINFO.IDPWOS) FAILDLAY(2)", "REFRESH SECURITY TYPE(CONNAUTH)")
    t0 = time.monotonic()
    assert refused(lambda: tcp(srv, user="app", password="wrong"))
    assert time.monotonic() - t0 >= 2.0
    assert "authentication failed for user 'app'" in caplog.text  # the error log's AMQ5534E
    t0 = time.monotonic()
    tcp(srv, user="app", password="app-pw").disconnect()  # from the same address, right after: at once
    assert time.monotonic() - t0 < 1.5


def test_a_thousand_failures_from_one_address_are_slowed_and_another_address_is_not() -> None:
    # Issue 35, bad input: "1,000 wrong passwords over TCP are slowed (FAILDLAY) … a right password from another
    # address still connects at once" — the delays, on a fake clock: each failure waits at least FAILDLAY, one
    # address's failures queue one behind another up to the cap, another address's first waits FAILDLAY only.
    clock = FakeClock()
    throttle = Throttle(cap=30.0, clock=clock.monotonic)
    delays = [throttle.failed("10.0.0.1", 1.0) for _ in range(1000)]
    assert min(delays) >= 1.0
    assert delays[-1] > 1000.0  # queued: the thousandth answer waits for the 999 before it
    assert throttle.failures("10.0.0.1") == 1000
    assert throttle.failed("10.0.0.2", 1.0) == 1.0
    assert Throttle(cap=0.5, clock=clock.monotonic).failed("10.0.0.3", 2.0) == 0.5  # auth-delay-max caps FAILDLAY


def test_a_queue_manager_made_before_authinfo_objects_gains_ibms_default_one() -> None:
    clock = FakeClock()
    batch = Engine.initial_batch("QM1", clock)
    objects: dict[str, dict[str, bytes]] = {}
    for kind, name, raw in batch.put_objects:
        if kind != "AUTHINFO":
            objects.setdefault(kind, {})[name] = raw
    from syncpoint.mqi.objects import Definition

    qmgr = Definition.from_bytes(objects["QMGR"]["QM1"])
    qmgr.attrs["CONNAUTH"] = ""  # as an older syncpoint stored it
    objects["QMGR"]["QM1"] = qmgr.to_bytes()
    # made after channel authentication records (tests/server/test_svrconn.py has that migration)
    engine = Engine("QM1", Snapshot(objects, [], {"seq": 1, "chlauth": 1}), clock)
    assert engine.qmgr.attrs["CONNAUTH"] == "SYSTEM.DEFAULT.AUTHINFO.IDPWOS"
    assert engine.lookup("AUTHINFO", "SYSTEM.DEFAULT.AUTHINFO.IDPWOS") is not None
    assert engine.connauth_in_force() == {
        "name": "SYSTEM.DEFAULT.AUTHINFO.IDPWOS",
        "CHCKCLNT": 2,  # MQCHK_REQUIRED_ADMIN
        "CHCKLOCL": 0,  # MQCHK_OPTIONAL
        "ADOPTCTX": True,
        "FAILDLAY": 1,
    }
    effects = engine.take_effects()
    assert effects is not None and effects.batch is not None and effects.batch.durable
    # written once: the next start finds the counter (beside the event queues' counter of an older queue manager
    # and the MsgIds reserved for the start's event)
    assert effects.batch.counters["authinfo"] == 1 and effects.batch.counters["adminqs"] == 1
    assert {(k, n) for k, n, _ in effects.batch.put_objects} == {
        ("AUTHINFO", "SYSTEM.DEFAULT.AUTHINFO.IDPWOS"),
        ("QMGR", "QM1"),
    }


def test_bad_connauth_input_is_refused_and_changes_nothing(real: Any) -> None:
    admin = syncpoint.connect("QM1", embedded=real)
    p = MqscProcessor(admin, echo=False)
    r = p.execute("ALTER QMGR CONNAUTH(NO.SUCH.AUTHINFO)")  # an unknown AUTHINFO object
    assert not r.ok and r.lines[0] == "AMQ8147E: syncpoint object NO.SUCH.AUTHINFO not found."
    assert "MQRC_UNKNOWN_OBJECT_NAME (2085)" in r.lines[1]
    r = p.execute("DELETE AUTHINFO(SYSTEM.DEFAULT.AUTHINFO.IDPWOS)")  # the one CONNAUTH names
    assert not r.ok and r.lines[0] == "AMQ8148E: syncpoint object in use."
    for bad in (
        "DEFINE AUTHINFO(A) AUTHTYPE(IDPWLDAP)",  # an authentication type syncpoint has not
        "DEFINE AUTHINFO(A) AUTHTYPE(IDPWOS) FAILDLAY(61)",  # IBM's range is 0-60
        "DEFINE AUTHINFO(A) AUTHTYPE(IDPWOS) CHCKCLNT(ALWAYS)",
        "DEFINE AUTHINFO(A) CHCKCLNT(REQUIRED)",  # AUTHTYPE is needed
        "DISPLAY AUTHINFO(*) AUTHTYPE(KERBEROS)",
        f"DEFINE AUTHINFO(A) AUTHTYPE(IDPWOS) DESCR('{'x' * 1000}')",
    ):
        r = p.execute(bad)
        assert not r.ok and r.lines[0].startswith("AMQ8405I"), (bad, r.lines)
    shown = p.execute("DISPLAY AUTHINFO(SYSTEM.*) AUTHTYPE(IDPWOS) CHCKCLNT").lines
    assert shown[1:] == [
        "   AUTHINFO(SYSTEM.DEFAULT.AUTHINFO.IDPWOS)",
        "   AUTHTYPE(IDPWOS)                        CHCKCLNT(REQDADM)",
    ]
    assert admin.admin("qm_attr", "CONNAUTH") == "SYSTEM.DEFAULT.AUTHINFO.IDPWOS"
    assert [d.name for d in admin.admin("list_objects", "AUTHINFO")] == ["SYSTEM.DEFAULT.AUTHINFO.IDPWOS"]
    admin.disconnect()


def test_authinfo_objects_and_connauth_are_stored_and_in_force_after_a_restart(tmp_path: Path) -> None:
    from syncpoint.client import create_queue_manager, open_embedded

    create_queue_manager("QMD", home=tmp_path)
    qm = syncpoint.connect("QMD", home=tmp_path)
    p = MqscProcessor(qm, echo=False)
    for command in (
        "DEFINE AUTHINFO(KEPT.AUTH) AUTHTYPE(IDPWOS) CHCKCLNT(REQUIRED) FAILDLAY(7) DESCR('kept')",
        "ALTER QMGR CONNAUTH(KEPT.AUTH)",  # not refreshed: a restart takes it, as IBM's does
    ):
        assert p.execute(command).ok
    assert qm.admin("connauth_in_force")["name"] == "SYSTEM.DEFAULT.AUTHINFO.IDPWOS"
    qm.disconnect()
    open_embedded("QMD", home=tmp_path).close()
    qm = syncpoint.connect("QMD", home=tmp_path)
    assert qm.admin("connauth_in_force") == {
        "name": "KEPT.AUTH",
        "CHCKCLNT": 3,  # MQCHK_REQUIRED
        "CHCKLOCL": 0,
        "ADOPTCTX": True,
        "FAILDLAY": 7,
    }
    shown = MqscProcessor(qm, echo=False).execute("DISPLAY AUTHINFO(KEPT.AUTH) DESCR").lines
    assert "DESCR(kept)" in " ".join(shown)
    qm.disconnect()


def test_refresh_security_of_another_type_changes_nothing(real: Any) -> None:
    from syncpoint.pcf import MQCFH, MQCFIN, CommandServer, build, parse
    from syncpoint.pcf import constants as K

    admin = syncpoint.connect("QM1", embedded=real)
    p = MqscProcessor(admin, echo=False)
    assert p.execute("ALTER AUTHINFO(SYSTEM.DEFAULT.AUTHINFO.IDPWOS) FAILDLAY(9)").ok
    r = p.execute("REFRESH SECURITY TYPE(SSL)")
    assert not r.ok
    assert r.lines == ["AMQ8490E: syncpoint does not support REFRESH SECURITY TYPE(SSL); the command was not run."]
    server = CommandServer(lambda: admin)
    server.qm = admin
    header = MQCFH(Command=K.MQCMD_REFRESH_SECURITY, Type=K.MQCFT_COMMAND_XR, Version=3)
    for kind, reason in ((99, K.MQRCCF_ATTR_VALUE_ERROR), (K.MQSECTYPE_SSL, C.MQRC_FUNCTION_NOT_SUPPORTED)):
        (reply,) = server.execute(build(header, [MQCFIN(K.MQIACF_SECURITY_TYPE, kind)]))
        cfh, _ = parse(reply)
        assert (cfh.CompCode, cfh.Reason) == (C.MQCC_FAILED, reason), kind
    assert admin.admin("connauth_in_force")["FAILDLAY"] == 1  # nothing was refreshed
    admin.disconnect()
