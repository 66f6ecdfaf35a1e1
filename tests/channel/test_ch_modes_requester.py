"""IBM's requester channel pairs (issue 23 item 3): a RQSTR asks its partner to start.

Rules (IBM MQ, "Requester-server channel" / "Requester-sender channel" in Intercommunication): "A requester in
one system starts the channel so that it can receive messages from the other system. The requester requests
the server at the other end of the channel to start. The server sends messages to the requester from the
transmission queue defined in its channel definition" (over the requester's connection; a server without a
CONNAME can only be started this way, a fully qualified one can also start the channel itself). "The requester
starts the channel and the sender terminates the call. The sender then restarts communication according to
information in its channel definition (known as callback)."
"""

from __future__ import annotations

from channel_helpers import QMs, channel_state, run
from test_ch_modes_stop import chstatus
from test_end_to_end import depth, put_xmit

from waiting import wait_until


def pair(qms: QMs, partner: str, extra: str = "") -> None:
    """QM1 holds transmission queue QM2 and channel QM2.REQ of type ``partner`` (SVR without CONNAME, or SDR
    calling QM2 back); QM2 holds requester QM2.REQ pointing at QM1 and queue APP.IN."""
    for name in ("QM1", "QM2"):
        qms.create(name)
        qms.start(name)
    conname = f" CONNAME('{qms.conname('QM2')}')" if partner == "SDR" else ""
    out = qms.mqsc(
        "QM1",
        "DEFINE QLOCAL(QM2) USAGE(XMITQ) MAXDEPTH(100000)\n"
        f"DEFINE CHANNEL(QM2.REQ) CHLTYPE({partner}) XMITQ(QM2){conname} SHORTTMR(1) {extra}\n",
    )
    assert out.count("AMQ8014I") == 1, out
    out = qms.mqsc(
        "QM2",
        f"DEFINE CHANNEL(QM2.REQ) CHLTYPE(RQSTR) CONNAME('{qms.conname('QM1')}') SHORTTMR(1)\n"
        "DEFINE QLOCAL(APP.IN) MAXDEPTH(100000)\n",
    )
    assert out.count("AMQ8014I") == 1, out


def test_a_requester_starts_a_server_which_sends_over_the_requesters_connection(qms: QMs) -> None:
    pair(qms, "SVR")
    put_xmit(qms, [b"r%d" % i for i in range(60)])
    # a SVR without CONNAME cannot be started by START CHANNEL, only by its requester
    assert "AMQ8101E" in qms.mqsc("QM1", "START CHANNEL(QM2.REQ)\n")
    assert "AMQ8018I" in qms.mqsc("QM2", "START CHANNEL(QM2.REQ)\n")
    wait_until(lambda: depth(qms, "QM2", "APP.IN") == 60, "the server's messages on the requester's queue manager")
    assert depth(qms, "QM1", "QM2") == 0
    assert chstatus(qms, "QM1", "QM2.REQ", "CHLTYPE") == "SVR"
    assert channel_state(qms, "QM1", "QM2.REQ") == "RUNNING"
    assert chstatus(qms, "QM2", "QM2.REQ", "CHLTYPE") == "RQSTR"
    assert channel_state(qms, "QM2", "QM2.REQ") == "RUNNING"
    assert chstatus(qms, "QM2", "QM2.REQ", "RQMNAME") == "QM1"
    qm = qms.connect("QM2")
    q = qm.open("APP.IN")
    assert [q.get(wait=30).data for _ in range(60)] == [b"r%d" % i for i in range(60)]  # in order, once each
    put_xmit(qms, [b"later"])  # the running server sends what arrives later too
    wait_until(lambda: depth(qms, "QM2", "APP.IN") == 1, "a later message sent on the same channel")


def test_the_server_ending_after_discint_ends_its_requester_normally(qms: QMs) -> None:
    pair(qms, "SVR", "DISCINT(1)")
    put_xmit(qms, [b"one"])
    assert "AMQ8018I" in qms.mqsc("QM2", "START CHANNEL(QM2.REQ)\n")
    wait_until(lambda: depth(qms, "QM2", "APP.IN") == 1, "delivered")
    wait_until(lambda: channel_state(qms, "QM1", "QM2.REQ") == "INACTIVE", "the server ended after DISCINT")
    wait_until(lambda: channel_state(qms, "QM2", "QM2.REQ") == "INACTIVE", "the requester ended with it")


def test_a_requester_starts_a_sender_which_calls_it_back(qms: QMs) -> None:
    pair(qms, "SDR")
    put_xmit(qms, [b"c%d" % i for i in range(10)])
    assert "AMQ8018I" in qms.mqsc("QM2", "START CHANNEL(QM2.REQ)\n")
    wait_until(lambda: depth(qms, "QM2", "APP.IN") == 10, "the sender called back and delivered")
    assert chstatus(qms, "QM1", "QM2.REQ", "CHLTYPE") == "SDR"
    assert f"CONNAME({qms.conname('QM2')})" in qms.mqsc("QM1", "DISPLAY CHSTATUS(QM2.REQ) ALL\n")  # it called
    assert chstatus(qms, "QM2", "QM2.REQ", "CHLTYPE") == "RQSTR"  # the RQSTR receives like a RCVR
    assert channel_state(qms, "QM2", "QM2.REQ") == "RUNNING"


def test_a_requester_whose_partner_is_not_a_server_or_sender_stops_with_amq9520(qms: QMs) -> None:
    pair(qms, "SVR")
    qms.mqsc("QM1", "DELETE CHANNEL(QM2.REQ)\nDEFINE CHANNEL(QM2.REQ) CHLTYPE(RCVR)\n")
    assert "AMQ8018I" in qms.mqsc("QM2", "START CHANNEL(QM2.REQ)\n")
    wait_until(lambda: channel_state(qms, "QM2", "QM2.REQ") == "STOPPED", "the requester stopped")
    assert "AMQ9520E" in chstatus(qms, "QM2", "QM2.REQ", "STOPREASON")


def test_a_requester_does_not_start_a_stopped_server_and_retries(qms: QMs) -> None:
    pair(qms, "SDR")
    put_xmit(qms, [b"one"])
    assert "AMQ8018I" in qms.mqsc("QM1", "START CHANNEL(QM2.REQ)\n")
    wait_until(lambda: depth(qms, "QM2", "APP.IN") == 1, "delivered by the sender started at QM1")
    qms.mqsc("QM1", "STOP CHANNEL(QM2.REQ)\n")
    wait_until(lambda: channel_state(qms, "QM1", "QM2.REQ") == "STOPPED", "the sender STOPPED")
    assert "AMQ8018I" in qms.mqsc("QM2", "START CHANNEL(QM2.REQ)\n")
    wait_until(lambda: channel_state(qms, "QM2", "QM2.REQ") == "RETRYING", "the requester retries")
    assert "AMQ9558E" in chstatus(qms, "QM2", "QM2.REQ", "STOPREASON")
    assert channel_state(qms, "QM1", "QM2.REQ") == "STOPPED"  # a STOPPED channel needs its own START


def test_a_requester_server_channel_broken_by_a_crash_delivers_everything_once_after_restart(qms: QMs) -> None:
    pair(qms, "SVR", "BATCHSZ(5)")
    n = 1000
    bodies = [b"k%d" % i for i in range(n)]
    put_xmit(qms, bodies)
    port = qms.port("QM1")
    assert "AMQ8018I" in qms.mqsc("QM2", "START CHANNEL(QM2.REQ)\n")
    wait_until(lambda: depth(qms, "QM2", "APP.IN") > 0, "the transfer under way")
    qms.kill("QM1")  # the server's queue manager dies mid-transfer: its batch in doubt is in its sync record
    wait_until(lambda: channel_state(qms, "QM2", "QM2.REQ") == "RETRYING", "the requester retries")
    r = run(qms.home, "strmqm", "QM1", "--port", str(port), "--cpus", "all")  # where the requester's CONNAME is
    assert r.returncode == 0, r.stdout + r.stderr
    # the SVR (no CONNAME) waits for its requester, which asks again and gets the rest, the batch in doubt once
    wait_until(lambda: depth(qms, "QM2", "APP.IN") == n and depth(qms, "QM1", "QM2") == 0, "all delivered")
    qm = qms.connect("QM2")
    q = qm.open("APP.IN")
    got = [q.get(wait=30).data for _ in range(n)]
    assert sorted(got) == sorted(bodies)  # each once


def test_a_fully_qualified_server_starts_the_channel_to_its_requester_itself(qms: QMs) -> None:
    # IBM: "A fully qualified server can either be started by a requester, or can initiate a communication with a
    # requester"
    pair(qms, "SVR")
    qms.mqsc("QM1", f"ALTER CHANNEL(QM2.REQ) CHLTYPE(SVR) CONNAME('{qms.conname('QM2')}')\n")
    put_xmit(qms, [b"s%d" % i for i in range(5)])
    assert "AMQ8018I" in qms.mqsc("QM1", "START CHANNEL(QM2.REQ)\n")
    wait_until(lambda: depth(qms, "QM2", "APP.IN") == 5, "the server delivered to its requester's queue manager")
    assert chstatus(qms, "QM2", "QM2.REQ", "CHLTYPE") == "RQSTR"
