"""The server's channel state is bounded (issue 39 item 12): the table of receiving channels holds the channels
running (and those stopped here), not every channel start over the server's life, and nothing of a queue manager
whose server ended; a requester's relayed connection has back-pressure, so a flood through it does not grow the
relaying server's memory."""

from __future__ import annotations

import os
import select
import socket
from typing import Any

from channel_helpers import QMs

import syncpoint
from syncpoint.channel._link import Link
from syncpoint.client import memory_queue_manager
from syncpoint.mqsc import MqscProcessor
from syncpoint.server._channel import channel_table_sizes
from syncpoint.wire import DEFAULT_MAX_FRAME, PROTOCOL_VERSIONS, FrameDecoder, encode_reply, encode_request
from waiting import wait_until

STARTS = 40


def test_the_receiving_channel_table_keeps_the_running_channels_not_every_start(serve: Any, server_loop: Any) -> None:
    host = memory_queue_manager("QM1")
    qm = syncpoint.connect("QM1", embedded=host)
    for i in range(STARTS):
        qm.admin("define", "CHANNEL", f"IN.{i}", {"CHLTYPE": 3})  # RCVR
    srv: Any = serve(host)
    conname = f"127.0.0.1({srv.bound_port})"
    for i in range(STARTS):  # each channel starts once, and its sender goes away (some say close, some vanish)
        link = Link(conname, timeout=10)
        link.channel("open", f"IN.{i}", {"qmgr": "QM2"})
        if i % 2:
            link.channel("close", f"IN.{i}", {})
        link.close()
    wait_until(lambda: srv.stats.sessions == 0, "the senders' sessions ended")
    live = Link(conname, timeout=10)
    live.channel("open", "IN.0", {"qmgr": "QM2"})  # a start prunes the channels that ended
    sizes = channel_table_sizes(srv.qm)
    assert sizes["receivers"] == 1, sizes  # only the running one (was: one per channel ever started)
    # the last batches of the channels whose sender vanished, while they are defined; one closed cleanly keeps
    # nothing (its sync record is the truth: clearing SYSTEM.CHANNEL.SYNCQ makes the receiver forget, as IBM's)
    vanished = [i for i in range(1, STARTS) if not i % 2]
    assert sizes["last"] == len(vanished), sizes
    for i in range(1, STARTS):
        qm.admin("delete", "CHANNEL", f"IN.{i}")
    again = Link(conname, timeout=10)
    try:
        again.channel("open", "IN.1", {"qmgr": "QM2"})
    except syncpoint.MQMIError:
        pass  # deleted: refused (AMQ9520E), and the start still prunes
    assert channel_table_sizes(srv.qm)["last"] == 0  # no definition, nothing kept
    live.close()
    again.close()
    qm.disconnect()
    server_loop.run(srv.close())  # the server ends: nothing of its queue manager stays in the tables
    assert channel_table_sizes(srv.qm) == {"receivers": 0, "last": 0, "held": 0}
    host.close()


def _rss_kib(pid: int) -> int:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise AssertionError("no VmRSS")


class _Peer:
    """The test as a requester's queue manager would be, at the protocol level: it asks the SVR to start and
    answers the SVR's MCA (hello, open) over the same connection."""

    def __init__(self, port: int) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=30)
        self.decoder = FrameDecoder(DEFAULT_MAX_FRAME)
        self.frames: list[Any] = []

    def frame(self) -> Any:
        while not self.frames:
            data = self.sock.recv(65536)
            assert data, "the server closed the connection"
            self.frames.extend(self.decoder.feed(data))
        return self.frames.pop(0)

    def call(self, rid: int, verb: str, args: list[Any]) -> Any:
        self.sock.sendall(encode_request(rid, verb, args))
        return self.frame()


def test_a_flood_through_a_requesters_relay_is_held_back_not_buffered_by_the_server(qms: QMs) -> None:
    qms.create("QM1")
    qms.start("QM1")
    out = qms.mqsc("QM1", "DEFINE QLOCAL(XQ) USAGE(XMITQ)\nDEFINE CHANNEL(PAIR) CHLTYPE(SVR) XMITQ(XQ)\n")
    assert out.count("AMQ8014I") == 1 and "AMQ8006I" in out, out
    peer = _Peer(qms.port("QM1"))
    hello = {
        "versions": list(PROTOCOL_VERSIONS),
        "qmgr": "",
        "user": "",
        "password": None,
        "appl_name": "flood",
        "appl_type": 7,
        "pid": os.getpid(),
        "control": False,
    }
    peer.call(1, "hello", [hello])
    answer = peer.call(2, "channel", ["request", "PAIR", {}])
    assert answer[3]["mode"] == "server", answer
    # the SVR's MCA now speaks to us over this connection: its hello, then the channel's open
    req = peer.frame()
    assert req[2] == "hello", req
    peer.sock.sendall(encode_reply(req[1], {"qmgr": "QM2"}))
    req = peer.frame()
    assert req[2] == "channel" and req[3][0] == "open", req
    peer.sock.sendall(encode_reply(req[1], {"seq": 0, "id": "", "qmgr": "QM2"}))
    # once RUNNING (it has read the open's answer) the MCA waits on its empty transmission queue and reads
    # nothing: flood the relay
    admin = MqscProcessor(qms.connect("QM1"))
    wait_until(
        lambda: "STATUS(RUNNING)" in "".join(admin.execute("DISPLAY CHSTATUS(PAIR) STATUS").lines), "PAIR running"
    )
    pid = int(qms.info("QM1")["pid"])
    before = _rss_kib(pid)
    peer.sock.setblocking(False)
    chunk = b"\0" * (1 << 20)
    sent, cap = 0, 256 << 20
    while sent < cap:
        _, writable, _ = select.select([], [peer.sock], [], 3.0)
        if not writable:
            break  # held back: the server reads no more from us
        try:
            sent += peer.sock.send(chunk)
        except BlockingIOError:
            continue
    grew_mib = (_rss_kib(pid) - before) / 1024
    peer.sock.close()
    # without back-pressure the server took all 256 MiB and buffered it for the MCA that does not read; with it,
    # what it accepts is a few socket buffers' worth
    assert sent < 48 << 20, f"the server accepted {sent >> 20} MiB from a peer whose other side reads nothing"
    assert grew_mib < 48, f"the relaying server grew by {grew_mib:.0f} MiB"
