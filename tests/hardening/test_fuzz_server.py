"""A live queue-manager server process under garbage: it stays up and a canary queue of persistent messages is
intact afterwards (issue "Hardening", beyond the defects: "the server stays up, and a canary queue of persistent
messages is intact afterwards"). The requests are random but seeded, bounded in count, and sent only to the
server's loopback port and Unix socket."""

from __future__ import annotations

import json
import os
import random
import signal
import socket
import struct
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgpack
import pytest

import syncpoint
from servers import allow_local_clients
from syncpoint.mqi import MQGMO, MQMD, MQOD, MQPMO
from syncpoint.wire import (
    BAD_REQUEST,
    FATAL,
    MQ_ERROR,
    OK,
    OPTIONAL_ARGS,
    VERBS,
    FrameDecoder,
    encode_request,
    parse_reply,
)

SYNCPOINT = str(Path(sys.executable).parent / "syncpoint")
CANARY = [b"canary %03d" % i for i in range(20)]
# endmqm is an operator's verb that ends the server on purpose: not garbage, so it is not sent
FUZZ_VERBS = sorted(set(VERBS) - {"endmqm"})
_STRUCT_SIZES = [MQMD.size(), MQGMO.size(), MQPMO.size(), MQOD.size(), 4, 0, 1000]


def _run(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, SYNCPOINT_HOME=str(home))
    return subprocess.run([SYNCPOINT, *args], env=env, capture_output=True, text=True, timeout=120)


@pytest.fixture
def server(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, Any]]:
    monkeypatch.setenv("SYNCPOINT_HOME", str(tmp_path))
    assert _run(tmp_path, "crtmqm", "QMZ").returncode == 0
    allow_local_clients(tmp_path, "QMZ")  # its TCP clients: this user on SYSTEM.DEF.SVRCONN
    r = _run(tmp_path, "strmqm", "QMZ", "--port", "0")
    assert r.returncode == 0, r.stderr
    info = json.loads(next(tmp_path.glob("qmgrs/*/server.json")).read_text())
    qm = syncpoint.connect("QMZ")
    qm.admin("define", "QLOCAL", "CANARY")
    q = qm.open("CANARY")
    for body in CANARY:
        q.put(body, persistent=True)
    qm.disconnect()
    yield info
    try:
        os.kill(info["pid"], signal.SIGKILL)
    except OSError:
        pass


def _value(rng: random.Random, depth: int = 0) -> Any:
    kind = rng.randrange(9 if depth < 2 else 6)
    if kind == 0:
        return rng.randrange(-(2**63), 2**64)
    if kind == 1:
        return rng.choice([0, 1, -1, 2**31 - 1, 2**32, 10**6])
    if kind == 2:
        return rng.randbytes(rng.choice(_STRUCT_SIZES))
    if kind == 3:
        return "".join(rng.choice("QWERTY.*_ \u00e9") for _ in range(rng.randrange(12)))
    if kind == 4:
        return None
    if kind == 5:
        return rng.random() < 0.5
    if kind == 6:
        return [_value(rng, depth + 1) for _ in range(rng.randrange(5))]
    if kind == 7:
        keys = ["commit", "commit_first", "gmo", "versions", "qmgr", rng.randrange(9), "x"]
        return {rng.choice(keys): _value(rng, depth + 1) for _ in range(rng.randrange(4))}
    return rng.random() * 1e9


def _garbage(rng: random.Random, rid: int) -> bytes:
    kind = rng.randrange(5)
    if kind == 0:  # bytes that are no frame at all
        return rng.randbytes(rng.randrange(1, 200))
    if kind == 1:  # a frame whose body is not msgpack, or is msgpack of the wrong shape
        body = rng.randbytes(rng.randrange(0, 64)) if rng.random() < 0.5 else msgpack.packb(_value(rng))
        return struct.pack(">I", len(body)) + body
    if kind == 2:  # a length far beyond the frame limit
        return struct.pack(">I", rng.choice([2**31, 2**32 - 1, 64 * 2**20])) + rng.randbytes(16)
    verb = rng.choice(FUZZ_VERBS)
    n = VERBS[verb] + rng.randrange(OPTIONAL_ARGS.get(verb, 0) + 1)
    if kind == 3:  # a well-formed request with random arguments
        args = [_value(rng) for _ in range(n)]
        if verb == "open" and n == 3 and rng.random() < 0.5:  # a selection string made of the selector's words
            words = ["Root.MQMD.Priority", "A", "'x'", "0x2F", "1", "=", "<>", "<", "AND", "OR", "NOT", "(", ")"]
            args[2] = " ".join(rng.choice(words) for _ in range(rng.randrange(8)))
        return encode_request(rid, verb, args)
    return encode_request(rid, verb, [_value(rng) for _ in range(rng.randrange(8))])  # any argument count


def _session(address: Any, family: int, rng: random.Random, hello: bool, statuses: list[int]) -> None:
    with socket.socket(family, socket.SOCK_STREAM) as s:
        s.settimeout(5)
        s.connect(address)
        dec = FrameDecoder()
        if hello:
            s.sendall(encode_request(1, "hello", [{"versions": [1, 2], "qmgr": "QMZ"}]))
        for rid in range(2, 2 + rng.randrange(1, 25)):
            try:
                s.sendall(_garbage(rng, rid))
            except OSError:
                return  # the server closed the connection, as it may after a fatal frame
        try:
            s.shutdown(socket.SHUT_WR)
            while chunk := s.recv(65536):
                for frame in dec.feed(chunk):
                    statuses.append(parse_reply(frame).status)
        except OSError:
            return


def test_garbage_on_many_connections_leaves_the_server_up_and_the_canary_intact(server: dict[str, Any]) -> None:
    rng = random.Random(20261125)
    statuses: list[int] = []
    for i in range(300):
        if i % 2:
            _session(("127.0.0.1", server["port"]), socket.AF_INET, rng, rng.random() < 0.8, statuses)
        else:
            _session(server["unix"], socket.AF_UNIX, rng, rng.random() < 0.8, statuses)
    os.kill(server["pid"], 0)  # still running
    # the garbage reached the verbs, not only the framing: the server answered with each kind of reply
    assert {OK, MQ_ERROR, BAD_REQUEST, FATAL} <= set(statuses), sorted(set(statuses))
    qm = syncpoint.connect("QMZ")
    try:
        assert [m.data for m in qm.open("CANARY").browse_all()] == CANARY
        assert qm.admin("queue_status", "CANARY")["CURDEPTH"] == len(CANARY)
    finally:
        qm.disconnect()
