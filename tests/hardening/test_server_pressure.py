"""No client can starve another's password, hold a session with a trickle, take every connection, or make the
server hold unbounded partial frames (issue 39: items 6, 7, 8, 9, 10 and "Memory"). Real server processes
(strmqm), real sockets, the server's memory read from /proc; waits are on conditions, never fixed sleeps."""

from __future__ import annotations

import os
import select
import shutil
import signal
import socket
import struct
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from test_server_limits import Raw, _run, rss

from syncpoint import wire
from syncpoint.mqi import constants as C
from syncpoint.server import pid_alive
from syncpoint.wire import FrameDecoder, encode_request
from waiting import wait_until

MiB = 1024 * 1024


def raw(port: int, source: str = "127.0.0.1") -> Raw:
    """A hand-driven connection from ``source`` (any 127.x.y.z address reaches the server on 127.0.0.1)."""
    r = Raw.__new__(Raw)
    r.sock = socket.create_connection(("127.0.0.1", port), timeout=60, source_address=(source, 0))
    r.dec = FrameDecoder(2 * wire.DEFAULT_MAX_FRAME)
    r.frames, r.sizes = [], []
    return r


def run_all(threads: list[threading.Thread]) -> None:
    for t in threads:
        t.start()
    for t in threads:
        t.join()


def server_log(home: Path) -> str:
    return (home / "qmgrs/QML/errors/server.log").read_text()


# -- item 6: the failure delay holds the failed connection, never a right password ----------------------------
def test_a_right_password_is_answered_at_once_while_its_address_keeps_guessing(
    start: Callable[..., dict[str, Any]], tmp_path: Path
) -> None:
    # Issue 39, item 6: "8 threads sending wrong passwords for app make a right-password hello from 127.0.0.1 take
    # 34.9 s ... against 0.2 s from another address. The failure delay must never hold a correct attempt (IBM's
    # FAILDLAY delays the failed connection, not the others), and repeated failures from one address should be
    # limited per address."
    assert _run(tmp_path, "passwd", "QML", "app", input="right\n").returncode == 0
    info = start("--limit", "auth-delay-max=3")
    port = info["port"]
    # secure by default (issue 35): app may connect once granted
    assert _run(tmp_path, "setmqaut", "-m", "QML", "-t", "qmgr", "-p", "app", "+connect").returncode == 0
    stop = threading.Event()
    answered: list[int] = []

    def guess(i: int) -> None:
        while not stop.is_set():
            r = raw(port)
            try:
                reply = r.hello(user="app", password=f"wrong-{i}")
            except OSError:
                return
            finally:
                r.close()
            if reply is None or stop.is_set():  # the test is over: the server ends
                return
            assert reply.body[1] == C.MQRC_NOT_AUTHORIZED
            answered.append(i)

    threads = [threading.Thread(target=guess, args=(i,), daemon=True) for i in range(8)]
    for t in threads:
        t.start()
    # five failures answered (0.1 s, then 0.2, 0.4, 0.8 and 1.6 s after each other): each thread now has a
    # failure waiting its turn, 3 s apart, the last one about 20 s ahead
    wait_until(lambda: len(answered) >= 5, "five wrong passwords answered", timeout=120)
    times: dict[str, tuple[float, Any]] = {}

    def timed(source: str) -> None:
        t0 = time.monotonic()
        r = raw(port, source)
        reply = r.hello(user="app", password="right")
        r.close()
        times[source] = (time.monotonic() - t0, reply)

    # the right password from the guessing address and from another, at the same time: the same checks queue
    # before both (the machine may be slow); only the failure delay could set them apart
    run_all([threading.Thread(target=timed, args=(source,)) for source in ("127.0.0.1", "127.0.0.2")])
    stop.set()
    (same, same_reply), (other, other_reply) = times["127.0.0.1"], times["127.0.0.2"]
    assert same_reply.status == other_reply.status == wire.OK
    # before: the right password waited its turn behind the failures (about 20 s here, 34.9 s in the issue)
    assert same < other + 5.0, (
        f"a right password from the guessing address took {same:.2f} s, {other:.2f} s from another"
    )
    log = server_log(tmp_path)
    assert "authentication failed for user 'app'" in log and "from this address in a row" in log


# -- item 7: a started frame must arrive in time; an idle session may stay ------------------------------------
def test_a_frame_that_trickles_in_is_cut_off_while_a_session_idle_between_frames_stays(
    start: Callable[..., dict[str, Any]], tmp_path: Path
) -> None:
    # Issue 39, item 7: "after the hello, a client sending a frame one byte a second is still connected after
    # 40 s ... A frame that has started must arrive within a limit of the settings (default a few seconds per
    # MiB); an idle session between frames stays allowed." The limit is made small here (1 s + 1 s per MiB).
    info = start("--limit", "frame-timeout=1", "--limit", "frame-seconds-per-mib=1")
    idle = raw(info["port"])
    assert idle.hello().status == wire.OK
    trickle = raw(info["port"])
    assert trickle.hello().status == wire.OK
    frame = encode_request(2, "inq", [1, list(range(100))])  # ~200 bytes: 40 s at one byte each 0.2 s
    t0 = time.monotonic()
    sent = 0
    while sent < len(frame):
        trickle.send(frame[sent : sent + 1])
        sent += 1
        if select.select([trickle.sock], [], [], 0.2)[0]:  # the server answered (or closed): stop trickling
            break
    reply = trickle.read()
    assert reply is not None and reply.status == wire.FATAL, reply
    assert "frame-timeout" in reply.body
    assert sent < len(frame)
    assert time.monotonic() - t0 >= 1.0
    # the idle session, quiet for longer than the frame timeout meanwhile, is still served
    assert idle.call(3, "ping", []).status == wire.OK
    assert "frame-timeout" in server_log(tmp_path)


# -- item 8: one address cannot take every connection ---------------------------------------------------------
def test_one_address_holds_at_most_its_connections_and_the_next_gets_2025(
    start: Callable[..., dict[str, Any]], tmp_path: Path
) -> None:
    # Issue 39, item 8: "1,000 sessions held by one address lock out every other TCP client with 2025. Add a
    # per-address limit (setting; default well below max-connections) as IBM's MAXINSTC does per channel and
    # client."
    info = start("--limit", "max-connections-per-address=4")
    port = info["port"]
    held = [raw(port) for _ in range(4)]
    for r in held:
        assert r.hello().status == wire.OK
    extra = raw(port)
    reply = extra.hello()
    assert reply.status == wire.MQ_ERROR and reply.body[1] == C.MQRC_MAX_CONNS_LIMIT_REACHED
    assert "from one address" in reply.body[2]
    assert extra.read() is None  # and closed
    other = raw(port, "127.0.0.2")  # another address still gets in
    assert other.hello().status == wire.OK
    assert "max-connections-per-address" in server_log(tmp_path)
    held[0].close()

    def one_more() -> bool:
        r = raw(port)
        ok = r.hello().status == wire.OK
        r.close()
        return ok

    wait_until(one_more, "a connection from the address once one of its four ended")


# -- item 9: admin verbs' arguments are checked at the wire's edge ---------------------------------------------
def test_an_admin_verb_with_a_wrongly_typed_argument_is_a_bad_request_without_a_traceback(
    start: Callable[..., dict[str, Any]], tmp_path: Path
) -> None:
    # Issue 39, item 9: "An admin verb with a non-string argument (refresh_expiry with [1.5]) answers 2195 with a
    # traceback in the server log: validate verb arguments at the wire's edge and answer MQRC_BAD_REQUEST-style
    # errors." The protocol's answer for a request well framed but wrong is BAD_REQUEST (docs/protocol.md).
    info = start()
    r = raw(info["port"])
    assert r.hello().status == wire.OK
    cases = [
        (["refresh_expiry", [1.5], {}], "pattern"),
        (["define", ["QLOCAL", 7], {}], "name"),
        (["define", ["QLOCAL", "Q", ["MAXDEPTH"]], {}], "attrs"),
        (["define", ["QLOCAL", "Q"], {"nosuch": 1}], "nosuch"),
        (["queue_status", [], {}], "name"),
        (["alter_qmgr", [{1: "x"}], {}], "attrs"),
    ]
    for rid, (args, named) in enumerate(cases, start=2):
        reply = r.call(rid, "admin", args)
        assert reply.status == wire.BAD_REQUEST, (args, reply)
        assert named in reply.body and args[0] in reply.body
    assert r.call(20, "admin", ["refresh_expiry", ["*"], {}]).status == wire.OK  # the session goes on
    assert r.call(21, "admin", ["define", ["QLOCAL", "Q"], {"attrs": {"MAXDEPTH": 5}}]).status == wire.OK
    assert "Traceback" not in server_log(tmp_path)


# -- item 10: a server-wide budget for bytes held in partial frames ---------------------------------------------
def test_partial_frames_hold_at_most_the_budget_the_rest_wait_and_one_beyond_it_is_refused(
    start: Callable[..., dict[str, Any]],
) -> None:
    # Issue 39, item 10: "a frame being received may hold up to the frame limit (100 MiB) per connection, and
    # nothing bounds the sum across connections ... Add a server-wide budget for bytes held in partial frames (a
    # setting), beyond which new large frames wait or are refused with a clear error; test it with real sockets
    # and the server's RSS." Eight connections each start a 20 MiB frame and send 16 MiB of it; the budget is
    # 24 MiB: one frame is read, the others wait, unread (their bytes stay in the sockets, not in the server).
    info = start("--limit", f"partial-frame-budget={24 * MiB}")
    senders = [raw(info["port"]) for _ in range(8)]
    for r in senders:
        assert r.hello().status == wire.OK
    before = rss(info["pid"])
    chunk = struct.pack(">I", 20 * MiB) + b"\x00" * (16 * MiB)
    done: dict[int, bool] = {}

    def send(i: int) -> None:
        senders[i].sock.settimeout(10)
        try:
            senders[i].sock.sendall(chunk)
            done[i] = True
        except TimeoutError:  # not read for 10 s: the server waits with this frame
            done[i] = False

    run_all([threading.Thread(target=send, args=(i,)) for i in range(8)])
    grown = rss(info["pid"]) - before
    assert sorted(done.values()) == [False] * 7 + [True], done
    assert grown < 48 * MiB, f"the server grew by {grown // MiB} MiB (8 partial frames of 16 MiB: 128 MiB)"
    # a frame larger than the whole budget is refused with a clear error
    big = raw(info["port"])
    assert big.hello().status == wire.OK
    big.send(struct.pack(">I", 30 * MiB))
    reply = big.read()
    assert reply is not None and reply.status == wire.FATAL and "partial-frame-budget" in reply.body
    # the frame that holds the budget goes (its connection ends): the waiting ones are read, in turn, each as
    # the one before it ends (its frame completes; zeros are not msgpack: the stream is broken, FATAL)
    first = next(i for i, ok in done.items() if ok)
    senders[first].close()
    waiting = [senders[i] for i, ok in done.items() if not ok]

    def finish(r: Raw) -> None:
        r.sock.settimeout(120)
        try:
            r.sock.sendall(b"\x00" * (20 * MiB))  # more than the rest of its frame
        except OSError:  # the server closed after the FATAL reply
            pass

    finishing = [threading.Thread(target=finish, args=(r,)) for r in waiting]
    for t in finishing:
        t.start()
    for r in waiting:
        r.sock.settimeout(120)
        reply = r.read()
        assert reply is not None and reply.status == wire.FATAL and "msgpack" in reply.body
    for t in finishing:
        t.join()


# -- "Memory": what a failed hello leaves behind ------------------------------------------------------------------
def test_failed_password_checks_do_not_grow_the_server_for_good(
    start: Callable[..., dict[str, Any]], tmp_path: Path
) -> None:
    # Issue 39, "Memory": "500 fuzzed hello frames raised the server's RSS by 17 MB that a restart only gave back;
    # find what is kept per failed hello and bound it." It was scrypt's 16 MiB block per check, kept in the
    # checking thread's heap by glibc once its mmap threshold had risen. 200 failed checks, each answered (so
    # each was made); the failure delay is made tiny so that they are quick.
    assert _run(tmp_path, "passwd", "QML", "app", input="right\n").returncode == 0
    info = start("--limit", "auth-delay-max=0.001")
    before = rss(info["pid"])

    def fail(i: int) -> None:
        for j in range(50):
            r = raw(info["port"])
            reply = r.hello(user="app", password=f"wrong-{i}-{j}" * (1 + j % 30))
            r.close()
            assert reply is not None and reply.body[1] == C.MQRC_NOT_AUTHORIZED

    run_all([threading.Thread(target=fail, args=(i,)) for i in range(4)])
    grown = rss(info["pid"]) - before
    assert grown < 12 * MiB, f"200 failed hellos grew the server by {grown / MiB:.1f} MiB"


# -- item 13: a server whose folder is removed under it still ends ------------------------------------------------
def test_a_server_whose_home_is_removed_ends_on_sigterm_and_says_why(
    start: Callable[..., dict[str, Any]], tmp_path: Path
) -> None:
    # Issue 39, item 13: "A server whose home is removed under it ignores SIGTERM for more than 6 s: it should end
    # cleanly (and say why in the log it can still write, or on stderr)." Its log (its standard error) stays
    # open after the folder is gone: it is read through /proc.
    info = start()
    pid = info["pid"]
    log = os.open(f"/proc/{pid}/fd/2", os.O_RDONLY)
    try:
        shutil.rmtree(tmp_path / "qmgrs")
        os.kill(pid, signal.SIGTERM)
        wait_until(lambda: not pid_alive(pid), "the server ended after SIGTERM", timeout=60)
        said = b""
        while chunk := os.read(log, 65536):
            said += chunk
    finally:
        os.close(log)
    assert b"cannot be written" in said and b"folder may have been removed" in said, said[-2000:]
