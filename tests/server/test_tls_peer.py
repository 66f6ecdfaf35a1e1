"""TLS client certificates on server-connection channels, as IBM's (issue 35, item 5): the server asks a client for
its certificate (strmqm --tls-ca: the CA certificates trusted, IBM's key repository), and the channel decides —
SSLCIPH needs TLS (AMQ9639E), SSLCAUTH(REQUIRED) a certificate (AMQ9637E), SSLPEER a matching subject
(AMQ9636E) — and CHLAUTH TYPE(SSLPEERMAP) records map a certificate's name to the user it runs as.

IBM's rules: "IBM MQ rules for SSLPEER values" (attribute types in upper case, ``,`` or ``;`` between them, ``*``
at the start or end of a value, values matched whatever their case, OU in order) and the SSLCAUTH / SSLPEER channel
attributes. Certificates are made in the test with the ``openssl`` command (a CA, the server's, two clients'); one
real server process (``strmqm``'s) serves TCP over TLS for the module."""

from __future__ import annotations

import logging
import shutil
import ssl
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import syncpoint
from syncpoint.cli._testing import STARTED, ServedMQ
from syncpoint.mqi import MQMIError
from syncpoint.mqi import constants as C
from syncpoint.mqsc import MqscProcessor
from tlscerts import make_certs
from waiting import wait_until

pytestmark = pytest.mark.skipif(shutil.which("openssl") is None, reason="the openssl command makes the certificates")


@pytest.fixture(scope="module")
def certs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    return make_certs(tmp_path_factory.mktemp("certs"))


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory, certs: dict[str, Any]) -> Iterator[ServedMQ]:
    from syncpoint.cli._process import spawn_server
    from syncpoint.client import create_queue_manager

    home = tmp_path_factory.mktemp("tlspeer")
    create_queue_manager("QM1", home=home)
    cert, key = certs["server"]
    args = ["QM1", "--home", str(home), "--host", "127.0.0.1", "--port", "0", "--cpus", "all", "--no-busy-poll"]
    args += ["--end-with-parent", "--tls-cert", str(cert), "--tls-key", str(key), "--tls-ca", str(certs["ca"])]
    proc, info = spawn_server("QM1", args, home=home)
    mq = ServedMQ("QM1", home, "127.0.0.1", int(info["port"]), proc.pid, "", None, None, process=proc)
    STARTED[proc.pid] = mq
    admin = syncpoint.connect("QM1", home=home)  # over the Unix socket: local, no channel
    admin.admin("set_authrec", "qmgr", "", "principal", "alice", ["connect", "dsp"])
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


def tls(certs: dict[str, Any], who: str | None) -> ssl.SSLContext:
    """A client's TLS: trusting the test CA, presenting ``who``'s certificate (None: none)."""
    ctx = ssl.create_default_context(cafile=str(certs["ca"]))
    if who is not None:
        ctx.load_cert_chain(*certs[who])
    return ctx


def reason(server: Any, certs: dict[str, Any], channel: str, who: str | None, user: str = "alice") -> int:
    try:
        syncpoint.connect("QM1", host=server.conname, channel=channel, user=user, tls=tls(certs, who)).disconnect()
    except MQMIError as e:
        return e.reason
    return 0


def logged(server: Any, text: str) -> None:
    log = Path(server.home) / "qmgrs" / "QM1" / "errors" / "AMQERR01.LOG"
    wait_until(lambda: text in log.read_text(), what=f"{text!r} in the error log")


def test_sslcauth_required_refuses_a_client_without_a_certificate_with_amq9637e(server: Any, certs: Any) -> None:
    mqsc(server, "DEFINE CHANNEL(TLS.REQ) CHLTYPE(SVRCONN) SSLCIPH(ANY_TLS12_OR_HIGHER) SSLCAUTH(REQUIRED) REPLACE")
    # IBM: the channel ends, AMQ9637E "Channel is lacking a certificate"; the client sees its channel end (2059)
    assert reason(server, certs, "TLS.REQ", None) == C.MQRC_Q_MGR_NOT_AVAILABLE
    logged(server, "AMQ9637E: Channel is lacking a certificate.")
    assert reason(server, certs, "TLS.REQ", "app1") == 0


def test_sslcauth_optional_accepts_clients_with_and_without_a_certificate(server: Any, certs: Any) -> None:
    mqsc(server, "DEFINE CHANNEL(TLS.OPT) CHLTYPE(SVRCONN) SSLCIPH(ANY_TLS12_OR_HIGHER) SSLCAUTH(OPTIONAL) REPLACE")
    assert reason(server, certs, "TLS.OPT", None) == 0
    assert reason(server, certs, "TLS.OPT", "intruder") == 0


def test_sslpeer_on_the_channel_filters_the_certificate_subject_with_amq9636e(server: Any, certs: Any) -> None:
    mqsc(
        server,
        "DEFINE CHANNEL(TLS.PEER) CHLTYPE(SVRCONN) SSLCIPH(ANY_TLS12_OR_HIGHER) SSLCAUTH(OPTIONAL) "
        "SSLPEER('CN=APP*, OU=Payments;O=\"example\"') REPLACE",  # IBM: either separator, any case, * at the end
    )
    assert reason(server, certs, "TLS.PEER", "app1") == 0
    assert reason(server, certs, "TLS.PEER", "intruder") == C.MQRC_Q_MGR_NOT_AVAILABLE
    logged(server, "AMQ9636E: SSL distinguished name does not match peer name, channel 'TLS.PEER'.")
    assert reason(server, certs, "TLS.PEER", None) == C.MQRC_Q_MGR_NOT_AVAILABLE  # no certificate, no match


def test_sslpeermap_maps_a_certificate_to_a_user_whose_authorities_apply(server: Any, certs: Any) -> None:
    out = mqsc(
        server,
        "DEFINE CHANNEL(PEER.MAP) CHLTYPE(SVRCONN) SSLCIPH(ANY_TLS12_OR_HIGHER) SSLCAUTH(OPTIONAL) "
        "MCAUSER('nobody') REPLACE",
        "DEFINE QLOCAL(PAY.Q) REPLACE",
        "SET CHLAUTH('PEER.MAP') TYPE(SSLPEERMAP) SSLPEER('CN=app1,O=Example') USERSRC(MAP) MCAUSER('alice')",
        "SET CHLAUTH('PEER.MAP') TYPE(SSLPEERMAP) SSLPEER('O=Other') USERSRC(NOACCESS)",
    )
    assert out.count("AMQ8877I: syncpoint channel authentication record set.") == 2
    qm = syncpoint.connect("QM1", host=server.conname, channel="PEER.MAP", user="bob", tls=tls(certs, "app1"))
    try:
        conns = "\n".join(mqsc(server, "DISPLAY CONN(*) WHERE(CHANNEL EQ 'PEER.MAP') ALL"))
        assert "USERID(alice)" in conns  # the record's MCAUSER, not the asserted bob nor the channel's nobody
        status = "\n".join(mqsc(server, "DISPLAY CHSTATUS(PEER.MAP) SSLPEER SSLCERTI"))
        assert "SSLPEER(CN=app1,OU=Payments,O=Example,C=GB)" in status and "SSLCERTI(CN=Test CA,O=Example)" in status
        with pytest.raises(MQMIError) as e:  # alice's authorities: connect, not put
            qm.open("PAY.Q").put(b"x")
        assert e.value.reason == C.MQRC_NOT_AUTHORIZED
        mqsc(server, "SET AUTHREC PROFILE(PAY.Q) OBJTYPE(QUEUE) PRINCIPAL('alice') AUTHADD(PUT)")
        qm.open("PAY.Q").put(b"x")
    finally:
        qm.disconnect()
    assert reason(server, certs, "PEER.MAP", "intruder") == C.MQRC_NOT_AUTHORIZED  # USERSRC(NOACCESS)
    logged(server, "SSLPEER(O=Other) USERSRC(NOACCESS)")
    assert reason(server, certs, "PEER.MAP", None) == C.MQRC_NOT_AUTHORIZED  # runs as nobody: no connect authority


def test_runcheck_answers_for_a_certificate_subject_and_issuer(server: Any) -> None:
    mqsc(
        server,
        "DEFINE CHANNEL(PEER.RUN) CHLTYPE(SVRCONN) MCAUSER('nobody') REPLACE",
        "SET CHLAUTH('PEER.RUN') TYPE(SSLPEERMAP) SSLPEER('CN=app1') USERSRC(MAP) MCAUSER('alice')",
        "SET CHLAUTH('PEER.RUN') TYPE(SSLPEERMAP) SSLPEER('CN=app1') SSLCERTI('CN=Test CA,O=Example') "
        "USERSRC(MAP) MCAUSER('carol')",
    )
    head = "DISPLAY CHLAUTH(PEER.RUN) MATCH(RUNCHECK) ADDRESS('127.0.0.1') SSLPEER('CN=app1,OU=Payments,O=Example')"
    # IBM: a record naming the certificate's issuer is more specific than one that does not
    issued = "\n".join(mqsc(server, f"{head} SSLCERTI('CN=Test CA,O=Example')"))
    assert "MCAUSER(carol)" in issued and "SSLCERTI(CN=Test CA,O=Example)" in issued
    assert "MCAUSER(alice)" in "\n".join(mqsc(server, f"{head} SSLCERTI('CN=Other CA')"))
    none = mqsc(server, "DISPLAY CHLAUTH(PEER.RUN) MATCH(RUNCHECK) ADDRESS('127.0.0.1') SSLPEER('CN=app2')")
    assert none == ["AMQ9783I: Channel will run using MCAUSER('nobody')."]


@pytest.mark.parametrize("pattern", ["cn=app1", "CN =app1", "XX=1", "CN=a*b", "CN=a,CN=b", "CN=", 'CN="app1'])
def test_sslpeer_values_ibm_refuses_are_refused_and_nothing_is_stored(server: Any, pattern: str) -> None:
    quoted = pattern.replace("'", "''")
    out = "\n".join(mqsc(server, f"SET CHLAUTH('BAD.PEER') TYPE(SSLPEERMAP) SSLPEER('{quoted}') USERSRC(NOACCESS)"))
    assert "2399" in out and "is not valid" in out  # MQRC_SSL_PEER_NAME_ERROR
    assert mqsc(server, "DISPLAY CHLAUTH(BAD.PEER)") == ["AMQ8884I: Channel authentication record not found."]
    out = "\n".join(mqsc(server, f"DEFINE CHANNEL(BAD.PEER) CHLTYPE(SVRCONN) SSLPEER('{quoted}')"))
    assert "2399" in out or "not valid" in out
    assert "not found" in "\n".join(mqsc(server, "DISPLAY CHANNEL(BAD.PEER)")).lower()


def test_sslciph_refuses_a_client_not_over_tls_with_amq9639e(
    embedded: Any, serve: Any, caplog: pytest.LogCaptureFixture
) -> None:
    admin = syncpoint.connect("QM1", embedded=embedded)
    MqscProcessor(admin, echo=False).execute("DEFINE CHANNEL(TLS.ONLY) CHLTYPE(SVRCONN) SSLCIPH(ANY_TLS12_OR_HIGHER)")
    admin.disconnect()
    srv = serve(embedded)  # plain TCP: no --tls-cert
    with caplog.at_level(logging.WARNING, logger="syncpoint.server"), pytest.raises(MQMIError) as e:
        syncpoint.connect("QM1", host=f"127.0.0.1({srv.bound_port})", channel="TLS.ONLY")
    assert e.value.reason == C.MQRC_Q_MGR_NOT_AVAILABLE
    assert "AMQ9639E: Remote channel 'TLS.ONLY' did not specify a CipherSpec." in caplog.text
