"""Issue 23's bad input: a host that refuses, mismatched sequence numbers, a peer speaking garbage, a
transmission-queue message without a valid MQXQH, a message longer than the channel's MAXMSGL, two senders for
one receiver; and the receiver's authentication (item 7)."""

from __future__ import annotations

import os
import socket
import subprocess
import threading

from channel_helpers import SYNCPOINT, QMs, channel_state, unused_port
from test_end_to_end import connect_pair, depth, put_xmit

from syncpoint.mqi import MQDLH, MQMD, MQOD, MQPMO
from syncpoint.mqi import constants as C
from waiting import wait_until

DLQ = "SYSTEM.DEAD.LETTER.QUEUE"


def sender_only(qms: QMs, conname: str, extra: str = "") -> None:
    qms.create("QM1")
    qms.start("QM1")
    qms.mqsc(
        "QM1",
        "DEFINE QLOCAL(QM2) USAGE(XMITQ)\n"
        f"DEFINE CHANNEL(QM1.TO.QM2) CHLTYPE(SDR) CONNAME('{conname}') XMITQ(QM2) {extra}\n",
    )


def test_a_host_that_refuses_is_retried_shortrty_times_shorttmr_apart_then_the_channel_stops(qms: QMs) -> None:
    port = unused_port()  # a port nobody listens on
    sender_only(qms, f"127.0.0.1({port})", "SHORTRTY(2) SHORTTMR(1) LONGRTY(0)")
    put_xmit(qms, [b"waiting"])
    assert "AMQ8018I" in qms.mqsc("QM1", "START CHANNEL(QM1.TO.QM2)\n")
    wait_until(lambda: channel_state(qms, "QM1", "QM1.TO.QM2") == "STOPPED", "retries exhausted")
    # one first attempt and SHORTRTY(2) retries, each SHORTTMR(1) apart: no busy loop
    assert qms.log("QM1").count("WARNING syncpoint.channel: channel QM1.TO.QM2: cannot reach") == 3
    assert "AMQ9506E" in qms.mqsc("QM1", "DISPLAY CHSTATUS(QM1.TO.QM2) ALL\n")
    assert depth(qms, "QM1", "QM2") == 1  # nothing taken


def test_a_peer_speaking_garbage_ends_the_channel_with_an_error_and_loses_nothing(qms: QMs) -> None:
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    port = server.getsockname()[1]

    def babble() -> None:
        while True:
            try:
                c, _ = server.accept()
            except OSError:
                return
            c.sendall(b"\x00\x00\x00\x05HELLO this is not msgpack at all" * 4)
            c.close()

    threading.Thread(target=babble, daemon=True).start()
    try:
        sender_only(qms, f"127.0.0.1({port})", "SHORTRTY(1) SHORTTMR(1) LONGRTY(0)")
        put_xmit(qms, [b"precious"])
        qms.mqsc("QM1", "START CHANNEL(QM1.TO.QM2)\n")
        wait_until(lambda: channel_state(qms, "QM1", "QM1.TO.QM2") == "STOPPED", "the channel ended")
        assert "does not speak syncpoint's protocol" in qms.log("QM1")
        assert depth(qms, "QM1", "QM2") == 1
    finally:
        server.close()


def test_bad_messages_on_the_transmission_queue_go_to_the_senders_dlq(qms: QMs) -> None:
    # no valid MQXQH: MQFB_XMIT_Q_MSG_ERROR (271); longer than the channel's MAXMSGL: MQRC_MSG_TOO_BIG_FOR_CHANNEL
    connect_pair(qms, extra="MAXMSGL(1000)")
    qm = qms.connect("QM1")
    qm.mqput1(MQOD(ObjectName=b"QM2"), MQMD(Persistence=C.MQPER_PERSISTENT), MQPMO(), b"no header at all")
    qm.disconnect()
    put_xmit(qms, [b"x" * 2000, b"fits"])
    wait_until(lambda: depth(qms, "QM2", "APP.IN") == 1, "the message that fits delivered")
    wait_until(lambda: depth(qms, "QM1", DLQ) == 2, "two dead letters on QM1")
    qm = qms.connect("QM1")
    q = qm.open(DLQ)
    reasons = sorted(MQDLH.unpack(q.get(wait=30).data[: MQDLH.size()]).Reason for _ in range(2))
    assert reasons == sorted([C.MQFB_XMIT_Q_MSG_ERROR, C.MQRC_MSG_TOO_BIG_FOR_CHANNEL])


def test_a_sequence_number_mismatch_stops_the_channel_with_amq9526_and_reset_channel_mends_it(qms: QMs) -> None:
    connect_pair(qms)
    for n, body in enumerate((b"first", b"second"), 1):  # two batches: the sender's number is 2
        put_xmit(qms, [body])
        wait_until(lambda n=n: depth(qms, "QM2", "APP.IN") == n, f"message {n} delivered")
    assert "AMQ8019I" in qms.mqsc("QM1", "STOP CHANNEL(QM1.TO.QM2)\n")
    wait_until(lambda: channel_state(qms, "QM1", "QM1.TO.QM2") == "STOPPED", "stopped")
    # the receiving end forgets its number (its sync record cleared): it expects batch 1 where 3 comes
    wait_until(lambda: "AMQ8022I" in qms.mqsc("QM2", "CLEAR QLOCAL(SYSTEM.CHANNEL.SYNCQ)\n"), "sync record cleared")
    put_xmit(qms, [b"third"])
    qms.mqsc("QM1", "START CHANNEL(QM1.TO.QM2)\n")
    wait_until(lambda: "AMQ9526E" in qms.mqsc("QM1", "DISPLAY CHSTATUS(QM1.TO.QM2) ALL\n"), "AMQ9526E")
    assert channel_state(qms, "QM1", "QM1.TO.QM2") == "STOPPED"
    assert "AMQ8023I" in qms.mqsc("QM1", "RESET CHANNEL(QM1.TO.QM2) SEQNUM(1)\n")
    qms.mqsc("QM1", "START CHANNEL(QM1.TO.QM2)\n")
    wait_until(lambda: depth(qms, "QM2", "APP.IN") == 3, "the third message delivered after RESET")


def test_a_second_sender_for_a_running_receiver_is_refused_with_amq9514(qms: QMs) -> None:
    # three real queue managers: QM1 and QM3 both run a sender named QM1.TO.QM2 to QM2's one receiver
    connect_pair(qms)
    put_xmit(qms, [b"from QM1"])
    wait_until(lambda: depth(qms, "QM2", "APP.IN") == 1, "QM1's message delivered")
    qms.create("QM3")
    qms.start("QM3")
    qms.mqsc(
        "QM3",
        "DEFINE QLOCAL(QM2) USAGE(XMITQ)\n"
        f"DEFINE CHANNEL(QM1.TO.QM2) CHLTYPE(SDR) CONNAME('{qms.conname('QM2')}') XMITQ(QM2) SHORTTMR(1)\n",
    )
    qms.mqsc("QM3", "START CHANNEL(QM1.TO.QM2)\n")
    wait_until(lambda: channel_state(qms, "QM3", "QM1.TO.QM2") == "RETRYING", "QM3's sender refused")
    assert "AMQ9514E" in qms.mqsc("QM3", "DISPLAY CHSTATUS(QM1.TO.QM2) ALL\n")


def test_a_receiver_with_users_accepts_only_a_sender_that_authenticates(qms: QMs) -> None:
    connect_pair(qms)
    env = dict(os.environ, SYNCPOINT_HOME=str(qms.home))
    subprocess.run(
        [SYNCPOINT, "passwd", "QM2", "chl"], input="s3cret\n", env=env, check=True, capture_output=True, text=True
    )
    put_xmit(qms, [b"needs a password"])
    wait_until(
        lambda: channel_state(qms, "QM1", "QM1.TO.QM2") == "STOPPED",
        "refused: not authorised",
        timeout=60,
        detail=lambda: qms.mqsc("QM1", "DISPLAY CHSTATUS(*) ALL\n") + qms.log("QM1")[-2000:],
    )
    assert "2035" in qms.mqsc("QM1", "DISPLAY CHSTATUS(QM1.TO.QM2) ALL\n")
    subprocess.run(
        [SYNCPOINT, "chlpasswd", "QM1", "QM1.TO.QM2", "chl"],
        input="s3cret\n",
        env=env,
        check=True,
        capture_output=True,
        text=True,
    )
    # secure by default (issue 35): the channel's user may connect, and its puts (PUTAUT(DEF)) need put
    qms.mqsc("QM2", "SET AUTHREC OBJTYPE(QMGR) PRINCIPAL('chl') AUTHADD(CONNECT)\n")
    qms.mqsc("QM2", "SET AUTHREC PROFILE('APP.IN') OBJTYPE(QUEUE) PRINCIPAL('chl') AUTHADD(PUT)\n")
    qms.mqsc("QM1", "START CHANNEL(QM1.TO.QM2)\n")
    wait_until(lambda: depth(qms, "QM2", "APP.IN") == 1, "delivered once authenticated")
    assert "MCAUSER(chl)" in qms.mqsc("QM2", "DISPLAY CHSTATUS(QM1.TO.QM2) ALL\n")


def test_a_channel_with_sslciph_speaks_tls_to_a_receiver_serving_tls(qms: QMs) -> None:
    # item 7: "TLS when configured" — the receiving server serves TLS; the sender trusts its certificate's CA
    cert, key = qms.home / "qm2.pem", qms.home / "qm2.key"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(key), "-out", str(cert),
         "-days", "1", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"],
        check=True, capture_output=True,
    )  # fmt: skip
    for name in ("QM1", "QM2"):
        qms.create(name)
    from channel_helpers import run

    assert run(qms.home, "strmqm", "QM1", "--port", "0").returncode == 0
    r = run(qms.home, "strmqm", "QM2", "--port", "0", "--tls-cert", str(cert), "--tls-key", str(key))
    assert r.returncode == 0, r.stdout + r.stderr
    qms.mqsc("QM2", "DEFINE CHANNEL(QM1.TO.QM2) CHLTYPE(RCVR)\nDEFINE QLOCAL(APP.IN)\n")
    qms.mqsc(
        "QM1",
        "DEFINE QLOCAL(QM2) USAGE(XMITQ)\n"
        f"DEFINE CHANNEL(QM1.TO.QM2) CHLTYPE(SDR) CONNAME('{qms.conname('QM2')}') XMITQ(QM2)"
        " SSLCIPH(ANY_TLS12_OR_HIGHER)\n",
    )
    env = dict(os.environ, SYNCPOINT_HOME=str(qms.home))
    subprocess.run(
        [SYNCPOINT, "chlpasswd", "QM1", "QM1.TO.QM2", "--cafile", str(cert)],
        env=env, check=True, capture_output=True, text=True,
    )  # fmt: skip
    put_xmit(qms, [b"over TLS"])
    qms.mqsc("QM1", "START CHANNEL(QM1.TO.QM2)\n")
    wait_until(
        lambda: depth(qms, "QM2", "APP.IN") == 1,
        "delivered over TLS",
        timeout=30,
        detail=lambda: qms.mqsc("QM1", "DISPLAY CHSTATUS(*) ALL\n") + qms.log("QM1")[-1500:] + qms.log("QM2")[-1500:],
    )
