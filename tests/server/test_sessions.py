"""The queue manager server in this process: real asyncio server, real sockets (issue: the server and the remote
client). Connection = session; bad input never harms other sessions; waits woken by effects; group commit."""

from __future__ import annotations

import socket
import struct
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import msgpack
import pytest

import syncpoint
from syncpoint.client import (
    EmbeddedQueueManager,
    QueueManager,
    memory_queue_manager,
)
from syncpoint.client._remote import RemoteTransport
from syncpoint.mqi import MQGMO, MQMD, MQOD, MQPMO, MQMIError
from syncpoint.mqi import constants as C
from syncpoint.server._auth import Users
from syncpoint.wire import FATAL, MQ_ERROR, OK, FrameDecoder, encode_request, parse_reply
from waiting import wait_until

Serve = Callable[..., Any]


@pytest.fixture
def real() -> Iterator[EmbeddedQueueManager]:
    """An in-memory queue manager on the real clock: these tests are about real waits over real sockets."""
    qm = memory_queue_manager("QM1", dlq="SYSTEM.DEAD.LETTER.QUEUE")
    yield qm
    qm.close(abnormal=True)


@pytest.fixture
def live(real: EmbeddedQueueManager, serve: Serve) -> Any:
    srv = serve(real)
    qm = syncpoint.connect("QM1", embedded=real)
    qm.admin("define", "QLOCAL", "Q1", {"MAXDEPTH": 100_000})
    qm.disconnect()
    return srv


def remote(srv: Any, **kw: Any) -> QueueManager:
    return syncpoint.connect("QM1", unix_path=srv.unix_path, **kw)


def tcp(srv: Any, **kw: Any) -> QueueManager:
    return syncpoint.connect("QM1", host=f"127.0.0.1({srv.bound_port})", **kw)


class Raw:
    """A hand-driven connection for sending what a well-behaved client never would."""

    def __init__(self, path: str) -> None:
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(10)
        self.sock.connect(path)
        self.dec = FrameDecoder()
        self.frames: list[Any] = []

    def send(self, data: bytes) -> None:
        self.sock.sendall(data)

    def read(self) -> Any:
        while not self.frames:
            chunk = self.sock.recv(65536)
            if not chunk:
                return None
            self.frames += self.dec.feed(chunk)
        return parse_reply(self.frames.pop(0))

    def hello(self) -> None:
        self.send(encode_request(1, "hello", [{"versions": [1], "qmgr": "QM1"}]))
        assert self.read().status == OK


# -- the remote API is the embedded API -------------------------------------------------------------------
def test_remote_connection_fills_the_callers_structures_byte_for_byte(live: Any) -> None:
    qm = tcp(live)
    q = qm.open("Q1")
    md = q.put(b"hello", priority=7)
    assert md.MsgId != b"\0" * 24 and md.PutDate.strip() and md.Priority == 7
    got = q.get()
    assert got.data == b"hello" and got.msg_id == md.MsgId and got.md.PutTime == md.PutTime


def test_model_queue_open_returns_the_dynamic_name_through_the_object_descriptor(live: Any) -> None:
    qm = remote(live)
    od = MQOD(ObjectName=b"SYSTEM.DEFAULT.MODEL.QUEUE", DynamicQName=b"APP.*")
    h = qm.mqopen(od, C.MQOO_INPUT_AS_Q_DEF)
    assert od.ObjectName.startswith(b"APP.")
    qm.mqclose(h)


def test_put_many_is_pipelined_and_keeps_order(live: Any) -> None:
    qm = remote(live)
    q = qm.open("Q1")
    mds = q.put_many([f"m{i}" for i in range(200)])
    assert len({bytes(m.MsgId) for m in mds}) == 200
    assert [m.text for m in q.messages()] == [f"m{i}" for i in range(200)]


def test_put_many_of_different_payloads_travels_as_one_putm_request(live: Any) -> None:
    # the structures are what a putm carries once; the payloads differ as they usually do
    qm = remote(live)
    q = qm.open("Q1")
    q._h("put")
    calls = live.stats.calls
    q.put_many([f"m{i}".encode() for i in range(50)])
    assert live.stats.calls == calls + 1
    assert [m.data for m in q.get_many(100)] == [f"m{i}".encode() for i in range(50)]


def test_put_many_reports_the_first_failure_after_trying_all(live: Any) -> None:
    qm = remote(live)
    qm.admin("define", "QLOCAL", "SMALL", {"MAXDEPTH": 3})
    q = qm.open("SMALL")
    with pytest.raises(MQMIError) as e:
        q.put_many([b"a", b"b", b"c", b"d", b"e"])
    assert e.value.reason == C.MQRC_Q_FULL
    assert len(e.value.done) == 3  # type: ignore[attr-defined]
    assert q.depth == 3


def test_a_batch_and_its_commit_travel_as_one_request(live: Any) -> None:
    # protocol version 2: putm's optional "then commit" and getm's optional "commit first" (docs/protocol.md)
    qm = remote(live)
    assert qm.transport.protocol_version >= 2
    q = qm.open("Q1")
    q._h("put"), q._h("get")  # the queue's handles are opened at first use: open them before counting
    calls = live.stats.calls
    q.put_many([b"a", b"b"], syncpoint=True, persistent=True, commit=True)
    assert live.stats.calls == calls + 1
    assert [m.data for m in q.get_many(5, syncpoint=True)] == [b"a", b"b"]
    calls = live.stats.calls
    assert q.get_many(5, syncpoint=True, commit_first=True) == []
    assert live.stats.calls == calls + 1
    qm.backout()
    assert q.depth == 0  # the gets were committed by the commit that came first


def test_a_version_1_server_gets_the_commit_as_a_request_of_its_own(live: Any) -> None:
    qm = remote(live)
    qm.transport.protocol_version = 1  # as negotiated with a server that speaks version 1 only
    q = qm.open("Q1")
    q._h("put"), q._h("get")
    calls = live.stats.calls
    q.put_many([b"a", b"b"], syncpoint=True, commit=True)
    assert live.stats.calls == calls + 2
    assert [m.data for m in q.get_many(1, syncpoint=True)] == [b"a"]
    calls = live.stats.calls
    assert [m.data for m in q.get_many(1, syncpoint=True, commit_first=True)] == [b"b"]
    assert live.stats.calls == calls + 2
    qm.backout()
    assert [(m.data, m.backout_count) for m in q.get_many(5)] == [(b"b", 1)]


def test_batch_options_that_are_not_a_map_of_known_booleans_are_refused_and_change_nothing(live: Any) -> None:
    qm = remote(live)
    q = qm.open("Q1")
    q.put(b"kept")
    h = q._h("get")
    gmo = MQGMO(Options=C.MQGMO_NO_WAIT | C.MQGMO_SYNCPOINT)
    results = qm.transport.pipeline(
        [
            ("getm", [h, MQMD().pack(), gmo.pack(), None, 5, True]),  # a bare flag, not a map
            ("getm", [h, MQMD().pack(), gmo.pack(), None, 5, {"commit_first": 1}]),  # 1 is not true
            ("getm", [h, MQMD().pack(), gmo.pack(), None, 5, {"read_ahead": True}]),  # no such option
            ("putm", [q._h("put"), MQMD().pack(), MQPMO().pack(), [b"x"], {"commit": "yes"}]),
        ]
    )
    assert all(isinstance(r, MQMIError) and r.reason == C.MQRC_OPTIONS_ERROR for r in results)
    assert q.depth == 1
    raw = Raw(live.unix_path)
    raw.hello()
    raw.send(encode_request(2, "getm", [1, b"", b"", None, 5, {}, "extra"]))
    bad = raw.read()
    assert bad.status == 2 and "getm takes 5 to 6 arguments" in bad.body


def test_getm_answers_without_the_mqgmo_when_asked(live: Any) -> None:
    qm = remote(live)
    q = qm.open("Q1")
    q.put_many([b"a", b"b"])
    gmo = MQGMO(Options=C.MQGMO_NO_WAIT | C.MQGMO_NO_SYNCPOINT)
    (results, error), (full, _) = qm.transport.pipeline(
        [
            ("getm", [q._h("get"), MQMD().pack(), gmo.pack(), None, 1, {"gmo": False}]),
            ("getm", [q._h("get"), MQMD().pack(), gmo.pack(), None, 1]),
        ]
    )
    assert error is None and [len(a) for a in results] == [5] and results[0][0] == b"a"
    assert [len(a) for a in full] == [6] and full[0][0] == b"b"  # version 1's answer: with the MQGMO
    assert MQMD.unpack(results[0][4]).MsgId != MQMD.unpack(full[0][4]).MsgId  # each answer has its own MQMD


def test_admin_definitions_travel_as_definitions(live: Any) -> None:
    qm = remote(live)
    d = qm.admin("lookup", "QLOCAL", "Q1")
    assert d.name == "Q1" and d.attrs["MAXDEPTH"] == 100_000


# -- a connection is a session -----------------------------------------------------------------------------
def test_dropped_connection_backs_out_with_backout_count_and_closes_handles(live: Any, real: Any) -> None:
    app = remote(live)
    q = app.open("Q1")
    q.put(b"x", persistent=True)
    q.get(syncpoint=True, mark_skip_backout=True)  # the mark is not honoured when the connection is lost
    assert real.engine.queue_status("Q1")["IPPROCS"] == 1
    app.transport._sock.close()  # the network drops: no MQDISC
    wait_until(lambda: not real.engine.queue_status("Q1")["IPPROCS"], "the session's end", timeout=10, interval=0.01)
    status = real.engine.queue_status("Q1")
    assert (status["IPPROCS"], status["UNCOM"], status["CURDEPTH"]) == (0, 0, 1)
    assert remote(live).open("Q1").get().backout_count == 1


def test_mqdisc_commits_the_unit_of_work(live: Any) -> None:
    app = remote(live)
    app.open("Q1").put(b"kept", syncpoint=True)
    app.disconnect()
    assert remote(live).open("Q1").get().data == b"kept"


def test_call_after_connection_broke_is_connection_broken(live: Any) -> None:
    app = remote(live)
    app.transport._sock.shutdown(socket.SHUT_RDWR)
    with pytest.raises(MQMIError) as e:
        app.open("Q1").put(b"x")
    assert e.value.reason == C.MQRC_CONNECTION_BROKEN


# -- waiting gets ------------------------------------------------------------------------------------------
def test_waiting_get_is_woken_by_a_commit_of_another_connection(live: Any) -> None:
    getter, putter = remote(live), tcp(live)
    got: list[Any] = []
    t = threading.Thread(target=lambda: got.append(getter.open("Q1").get(wait=30)))
    t.start()
    wait_until(lambda: live.qm.waiters.parked("Q1"), "the get parking", timeout=10, interval=0.01)
    putter.open("Q1").put(b"wake", syncpoint=True)
    time.sleep(0.2)  # time for a wrong wake to show: nothing may arrive before the commit
    assert not got  # uncommitted: not yet
    start = time.monotonic()
    putter.commit()
    t.join(10)
    assert got and got[0].data == b"wake"
    assert time.monotonic() - start < 5  # woken by the commit, long before the 30 s wait interval


def test_many_waiters_on_one_queue_each_get_a_different_message(live: Any) -> None:
    n = 8
    results: list[bytes] = []
    lock = threading.Lock()

    def wait_one() -> None:
        m = remote(live).open("Q1").get(wait=30)
        with lock:
            results.append(m.data)

    threads = [threading.Thread(target=wait_one) for _ in range(n)]
    for t in threads:
        t.start()
    wait_until(lambda: len(live.qm.waiters.parked("Q1")) == n, "every get parking", timeout=10, interval=0.01)
    remote(live).open("Q1").put_many([f"m{i}".encode() for i in range(n)])
    for t in threads:
        t.join(10)
    assert sorted(results) == sorted(f"m{i}".encode() for i in range(n))


def test_waiting_get_times_out_with_no_msg_available(live: Any) -> None:
    q = remote(live).open("Q1")
    start = time.monotonic()
    with pytest.raises(MQMIError) as e:
        q.get(wait=0.3)
    assert e.value.reason == C.MQRC_NO_MSG_AVAILABLE
    assert 0.25 <= time.monotonic() - start < 5


def test_requests_after_a_waiting_get_run_after_it(live: Any) -> None:
    """MQI calls on one connection are sequential: a pipelined request waits behind a parked get."""
    qm = remote(live)
    q = qm.open("Q1")
    h = q._h("get")
    md, gmo = MQMD(), MQGMO(Options=C.MQGMO_WAIT, WaitInterval=300)
    put_h = q._h("put")
    from syncpoint.mqi import MQPMO

    results = qm.transport.pipeline(
        [("get", [h, md.pack(), gmo.pack(), None]), ("put", [put_h, MQMD().pack(), MQPMO().pack(), b"after"])]
    )
    # had the put run first, the waiting get would have taken its message
    assert isinstance(results[0], MQMIError) and results[0].reason == C.MQRC_NO_MSG_AVAILABLE
    assert results[1][0] == C.MQRC_NONE
    assert q.depth == 1


# -- bad input ----------------------------------------------------------------------------------------------
def test_bad_request_is_answered_and_the_session_and_others_go_on(live: Any) -> None:
    other = remote(live)
    raw = Raw(live.unix_path)
    raw.hello()
    raw.send(encode_request(2, "nosuchverb", []) + encode_request(3, "put", [1, b"short", b"x", b"d"]))
    bad, md_error = raw.read(), raw.read()
    assert bad.status == 2 and "unknown verb" in bad.body
    assert md_error.status == MQ_ERROR and md_error.body[1] in (C.MQRC_MD_ERROR, C.MQRC_HOBJ_ERROR)
    raw.send(encode_request(4, "ping", []))
    assert raw.read().status == OK
    other.open("Q1").put(b"fine")
    assert other.open("Q1").depth == 1


def test_corrupt_mqmd_gets_md_error(live: Any) -> None:
    qm = remote(live)
    h = qm.open("Q1")._h("put")
    results = qm.transport.pipeline([("put", [h, b"XX" + bytes(300), MQMD().pack()[:10], b"d"])])
    assert isinstance(results[0], MQMIError) and results[0].reason == C.MQRC_MD_ERROR


def test_oversized_frame_gets_fatal_reply_and_close_others_unaffected(real: Any, serve: Serve) -> None:
    srv = serve(real, max_frame=10_000)
    other = remote(srv)
    raw = Raw(srv.unix_path)
    raw.hello()
    raw.send(struct.pack(">I", 10_001))
    reply = raw.read()
    assert reply.status == FATAL and "exceeds" in reply.body
    assert raw.read() is None  # closed
    assert other.transport.ping()["qmgr"] == "QM1"


def test_garbage_stream_is_closed_with_a_fatal_reply(live: Any) -> None:
    raw = Raw(live.unix_path)
    raw.send(b"GET / HTTP/1.1\r\n\r\n")  # a length of 1.2 GB: not a syncpoint client
    reply = raw.read()
    assert reply.status == FATAL


def test_first_frame_not_hello_is_fatal(live: Any) -> None:
    raw = Raw(live.unix_path)
    raw.send(encode_request(1, "commit", []))
    assert raw.read().status == FATAL


def test_wrong_queue_manager_name_is_q_mgr_name_error(live: Any) -> None:
    with pytest.raises(MQMIError) as e:
        syncpoint.connect("OTHER", unix_path=live.unix_path)
    assert e.value.reason == C.MQRC_Q_MGR_NAME_ERROR


def test_frame_with_data_field_of_wrong_type_is_rejected(live: Any) -> None:
    raw = Raw(live.unix_path)
    raw.hello()
    body = msgpack.packb([0, 2, "open", ["not bytes", 16]])
    raw.send(struct.pack(">I", len(body)) + body)
    r = raw.read()
    assert r.status == MQ_ERROR and r.body[1] == C.MQRC_OD_ERROR


# -- ending --------------------------------------------------------------------------------------------------
def test_endmqm_immediate_fails_waiting_gets_and_next_calls_and_backs_out(live: Any, real: Any) -> None:
    app = remote(live)
    q = app.open("Q1")
    q.put(b"keep", persistent=True)
    q.get(syncpoint=True)  # uncommitted when the queue manager ends
    waiter = remote(live)
    result: list[Any] = []

    def wait() -> None:
        try:
            waiter.open("Q1").get(wait=60)
        except MQMIError as e:
            result.append(e.reason)

    t = threading.Thread(target=wait)
    t.start()
    wait_until(lambda: live.qm.waiters.parked("Q1"), "the get parking", timeout=10, interval=0.01)
    control = RemoteTransport("QM1", unix_path=live.unix_path, control=True)
    assert control.endmqm("i") == "immediate"
    t.join(10)
    assert result == [C.MQRC_Q_MGR_QUIESCING]  # the client's get has MQGMO_FAIL_IF_QUIESCING
    with pytest.raises(MQMIError) as e:
        q.put(b"more")
    assert e.value.reason == C.MQRC_Q_MGR_STOPPING
    status = real.engine.queue_status("Q1")
    assert status["CURDEPTH"] == 1 and status["UNCOM"] == 0  # backed out: nothing lost


def test_endmqm_controlled_waits_for_applications_to_disconnect(live: Any, server_loop: Any) -> None:
    app = remote(live)
    control = RemoteTransport("QM1", unix_path=live.unix_path, control=True)
    assert control.endmqm("c") == "quiescing"
    time.sleep(0.1)  # time for a wrong end to show: the application is still connected
    assert not live.ended.done()
    with pytest.raises(MQMIError) as e:  # new connections are refused while quiescing
        remote(live)
    assert e.value.reason == C.MQRC_Q_MGR_QUIESCING
    app.disconnect()
    wait_until(live.ended.done, "the controlled end", timeout=5, interval=0.01)
    assert live.ended.result() == "controlled"


def test_endmqm_is_refused_over_tcp(live: Any) -> None:
    with pytest.raises(MQMIError) as e:
        RemoteTransport("QM1", address=("127.0.0.1", live.bound_port), control=True)
    assert e.value.reason == C.MQRC_NOT_AUTHORIZED


# -- group commit across connections -----------------------------------------------------------------------
def test_one_durable_write_acknowledges_the_commits_of_many_connections(sqlite_qm: Any, serve: Serve) -> None:
    srv = serve(sqlite_qm)
    setup = syncpoint.connect("QMS", unix_path=srv.unix_path)
    setup.admin("define", "QLOCAL", "GC", {"DEFPSIST": C.MQPER_PERSISTENT, "MAXDEPTH": 1_000_000})
    n_conn, per = 16, 40
    before = sqlite_qm.store.stats()
    barrier = threading.Barrier(n_conn)

    def work() -> None:
        qm = syncpoint.connect("QMS", unix_path=srv.unix_path)
        q = qm.open("GC")
        barrier.wait()
        for _ in range(per):
            q.put(b"x" * 100, syncpoint=True)
            qm.commit()

    threads = [threading.Thread(target=work) for _ in range(n_conn)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    after = sqlite_qm.store.stats()
    commits = n_conn * per
    syncs = after["syncs"] - before["syncs"]
    assert setup.open("GC").depth == commits
    assert 0 < syncs < commits  # several connections' commits shared each sync


# -- authentication and TLS ----------------------------------------------------------------------------------
@pytest.fixture
def users(tmp_path: Path) -> Users:
    u = Users(tmp_path / "users.json")
    u.set_password("app", "s3cret")
    return u


def test_tcp_needs_a_valid_password_once_users_exist(real: Any, serve: Serve, users: Users) -> None:
    srv = serve(real, users=users)
    syncpoint.connect("QM1", embedded=real).admin("set_authrec", "qmgr", "", "principal", "app", ["connect"])
    for user, password in ((None, None), ("app", "wrong"), ("nobody", "s3cret")):
        with pytest.raises(MQMIError) as e:
            tcp(srv, user=user, password=password)
        assert e.value.reason == C.MQRC_NOT_AUTHORIZED
    assert tcp(srv, user="app", password="s3cret").transport.ping()["qmgr"] == "QM1"


def test_the_unix_socket_identity_is_the_peers_operating_system_user(real: Any, serve: Serve) -> None:
    # issue 35: "over the Unix socket the peer's operating-system user, read from the socket, is the identity"
    from syncpoint.host import os_user

    srv = serve(real)
    claimed = remote(srv, user="mallory", appl_name="claims-mallory")
    conns = syncpoint.connect("QM1", embedded=real).admin("connection_status")
    (mine,) = [c for c in conns if c["APPLTAG"] == "claims-mallory"]
    assert mine["USERID"] == os_user()
    claimed.disconnect()


def test_local_socket_is_trusted_but_a_given_password_is_checked(real: Any, serve: Serve, users: Users) -> None:
    srv = serve(real, users=users)
    assert remote(srv).transport.ping()["qmgr"] == "QM1"
    with pytest.raises(MQMIError) as e:
        remote(srv, user="app", password="wrong")
    assert e.value.reason == C.MQRC_NOT_AUTHORIZED


def test_passwords_are_stored_hashed(users: Users) -> None:
    text = users.path.read_text()
    assert "s3cret" not in text and "scrypt" in text


def test_tls_connection(real: Any, serve: Serve, tmp_path: Path) -> None:
    import ssl

    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    made = subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(key), "-out", str(cert),
         "-days", "1", "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1"],
        capture_output=True,
    )  # fmt: skip
    if made.returncode != 0:
        pytest.skip(f"openssl could not make a test certificate: {made.stderr.decode()[:200]}")
    server_ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    server_ctx.load_cert_chain(cert, key)
    srv = serve(real, ssl_context=server_ctx)
    client_ctx = ssl.create_default_context(cafile=str(cert))
    qm = syncpoint.connect("QM1", host=f"127.0.0.1({srv.bound_port})", tls=client_ctx)
    qm.admin("define", "QLOCAL", "TLSQ", {})
    qm.open("TLSQ").put(b"secret")
    assert qm.open("TLSQ").get().data == b"secret"
    with pytest.raises(MQMIError):  # a plain client cannot talk to a TLS server
        syncpoint.connect("QM1", host=f"127.0.0.1({srv.bound_port})")


def test_getm_does_not_wait_and_putm_answers_each_put(live: Any) -> None:
    """docs/protocol.md: putm / getm are that many puts / gets in one frame; getm never waits."""
    qm = remote(live)
    q = qm.open("Q1")
    put_h, get_h = q._h("put"), q._h("get")
    from syncpoint.mqi import MQPMO

    answers, _ = qm.transport._call("putm", [put_h, MQMD().pack(), MQPMO().pack(), [b"a", b"b"]])
    assert [a[0] for a in answers] == [C.MQRC_NONE, C.MQRC_NONE] and answers[0][1] != answers[1][1]
    results, error = qm.transport._call("getm", [get_h, MQMD().pack(), MQGMO().pack(), None, 5])
    assert [r[0] for r in results] == [b"a", b"b"] and error[1] == C.MQRC_NO_MSG_AVAILABLE
    with pytest.raises(MQMIError) as e:
        qm.transport._call("getm", [get_h, MQMD().pack(), MQGMO(Options=C.MQGMO_WAIT).pack(), None, 5])
    assert e.value.reason == C.MQRC_OPTIONS_ERROR
